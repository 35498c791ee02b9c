"""Seidel-2D (PolyBench), plain NumPy with an in-place time loop: the
bundled gradient example."""


def seidel2d(A, TSTEPS):
    N = A.shape[0]
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] +
                           A[i, j - 1] + A[i, j] + A[i, j + 1] +
                           A[i + 1, j - 1] + A[i + 1, j] +
                           A[i + 1, j + 1]) / 9.0
    return (A * A).sum()
