"""Compiles utils/example/jacobi2d.mlir, runs it, and prints it next to NumPy.

Exits non-zero when the two disagree.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python-frontend"))

import numpy as np  # noqa: E402

import sdfg  # noqa: E402


def jacobi2d_numpy(A, B, tsteps):
    for _ in range(1, tsteps):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] +
                               A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] +
                               B[2:, 1:-1] + B[:-2, 1:-1])


def main():
    with open(os.path.join(HERE, "jacobi2d.mlir")) as f:
        source = f.read()
    t0 = time.perf_counter()
    module = sdfg.compile_mlir(source)
    compile_s = time.perf_counter() - t0

    n, tsteps = 400, 50
    rng = np.random.default_rng(42)
    A0, B0 = rng.random((n, n)), rng.random((n, n))

    A, B = A0.copy(), B0.copy()
    t0 = time.perf_counter()
    module.jacobi2d(A, B, n, tsteps)
    ours_s = time.perf_counter() - t0

    eA, eB = A0.copy(), B0.copy()
    t0 = time.perf_counter()
    jacobi2d_numpy(eA, eB, tsteps)
    numpy_s = time.perf_counter() - t0

    err = max(np.max(np.abs(A - eA)), np.max(np.abs(B - eB)))
    print(f"Jacobi-2D, N={n}, TSTEPS={tsteps} (compiled in {compile_s:.2f} s)")
    print(f"  {'':>10} {'sdfg':>12} {'NumPy':>12}")
    for (i, j) in [(1, 1), (n // 2, n // 3), (n - 2, n - 2)]:
        print(f"  A[{i},{j}]".ljust(12) + f"{A[i, j]:12.8f} {eA[i, j]:12.8f}")
    print(f"  {'sum(A)':<10} {A.sum():12.6f} {eA.sum():12.6f}")
    print(f"  {'time (s)':<10} {ours_s:12.4f} {numpy_s:12.4f}")
    print(f"  max |difference| = {err:.3e}")
    if not err <= 1e-12:
        print("MISMATCH between sdfg and NumPy", file=sys.stderr)
        return 1
    print("OK: results agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
