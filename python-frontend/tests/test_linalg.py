"""np.linalg.solve, inv, det, slogdet and cholesky: forward results against
NumPy, gradients against central finite differences and analytic values
(sdfg.solve's rule: one more solve with the transposed matrix; sdfg.det's:
A^-T; sdfg.cholesky's: Murray's formula), singular and indefinite matrices
reported as NumPy reports them, and the hand-written in-place solve of the
dialect."""

import copy

import numpy as np
import pytest

import sdfg
from sdfg import native


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def well_conditioned(rng, n):
    return rng.standard_normal((n, n)) + n * np.eye(n)


def solve_vector(A, b):
    x = np.linalg.solve(A, b)
    return np.sum(x * x)


def solve_matrix(A, B):
    X = np.linalg.solve(A, B)
    return np.sum(np.sin(X) * X)


def solve_transposed(A, b):
    # A.T is a whole transposed view: the solve takes it as it is.
    return np.sum(np.linalg.solve(A.T, b) ** 3)


def inverse(A, B):
    return np.sum((np.linalg.inv(A) @ B) ** 2)


def backward_euler(u, K, steps: int):
    # Implicit diffusion: (I + K) u_{t+1} = u_t, the matrix built once.
    M = np.eye(u.shape[0]) + K
    for t in range(steps):
        u = np.linalg.solve(M, u)
    return np.sum(u ** 2)


def newton_step(A, b, x):
    # One Newton step of A x + x**3 = b: the Jacobian depends on x.
    J = A + np.diag(3.0 * x ** 2)
    r = A @ x + x ** 3 - b
    x1 = x - np.linalg.solve(J, r)
    return np.sum(x1 ** 2)


def gaussian_process(K, y, noise):
    # Negative log likelihood's data term of a GP: y^T (K + s I)^-1 y.
    alpha = np.linalg.solve(K + noise * np.eye(K.shape[0]), y)
    return y @ alpha


def changing_matrix(A, b, steps: int):
    # The matrix changes between solves (in place, by one diagonal entry
    # per step; once by a change that is undone): the factorisation cache
    # must notice every change, and only changes.
    x = b
    for t in range(steps):
        A[t % 4, t % 4] += 0.5
        x = np.linalg.solve(A, x)
        A[1, 2] += 1e-13
        A[1, 2] -= 1e-13
        x = np.linalg.solve(A.T, x) + x
    return np.sum(x ** 2)


def gaussian_log_likelihood(K, y, noise):
    # The whole negative log likelihood of a GP: slogdet and solve share
    # one factorisation.
    C = K + noise * np.eye(K.shape[0])
    sign, logdet = np.linalg.slogdet(C)
    return 0.5 * (y @ np.linalg.solve(C, y)) + 0.5 * logdet + sign


def determinant(A):
    return np.linalg.det(A) * np.linalg.det(A.T @ A)


def coupled_solves(A, B):
    # The matrix depends on the previous solution: every reversed step
    # solves with a different (restored) matrix, each once.
    X = B.copy()
    for t in range(3):
        X = np.linalg.solve(A, X) + 0.1 * X
        A = A + 0.01 * (X @ X.T)
    return np.sum(X * X)


def cholesky_sample(A, z):
    # A correlated sample, its log density's determinant term, and the
    # factor used in a product and a solve.
    L = np.linalg.cholesky(A)
    x = L @ z
    logdet = 2.0 * np.sum(np.log(np.diag(L)))
    return np.sum(x ** 2) + logdet + np.sum(np.linalg.solve(L, z) ** 2)


def cholesky_of_transposed(A):
    # np.linalg.cholesky(A.T) reads A's upper triangle.
    L = np.linalg.cholesky(A.T)
    return np.sum(L * np.cos(L))


def spd(rng, n):
    m = rng.standard_normal((n, n))
    return m @ m.T / n + np.eye(n)


def lopsided_spd(rng, n):
    # Positive definite in its lower triangle, garbage above it: cholesky
    # reads the lower one only (and its gradient there only).
    A = spd(rng, n)
    return A + np.triu(rng.standard_normal((n, n)), 1)


CASES = [
    (solve_vector, lambda r: (well_conditioned(r, 6), r.standard_normal(6))),
    (solve_matrix, lambda r: (well_conditioned(r, 5),
                              r.standard_normal((5, 3)))),
    (solve_transposed, lambda r: (well_conditioned(r, 4),
                                  r.standard_normal(4))),
    (inverse, lambda r: (well_conditioned(r, 5), r.standard_normal((5, 2)))),
    (backward_euler, lambda r: (r.standard_normal(7),
                                0.2 * r.standard_normal((7, 7)), 6)),
    (newton_step, lambda r: (well_conditioned(r, 5), r.standard_normal(5),
                             r.standard_normal(5))),
    (gaussian_process, lambda r: (spd(r, 8), r.standard_normal(8), 0.3)),
    (changing_matrix, lambda r: (well_conditioned(r, 6),
                                 r.standard_normal(6), 5)),
    (gaussian_log_likelihood, lambda r: (spd(r, 7), r.standard_normal(7),
                                         0.5)),
    (determinant, lambda r: (r.standard_normal((5, 5)),)),
    (coupled_solves, lambda r: (well_conditioned(r, 5),
                                r.standard_normal((5, 3)))),
    (cholesky_sample, lambda r: (lopsided_spd(r, 6), r.standard_normal(6))),
    (cholesky_of_transposed, lambda r: (lopsided_spd(r, 5).T,)),
]


def separated(rng, n):
    """Eigenvalues 1..n (apart: the eigenvectors' gradient divides by
    their gaps), not symmetric: eigh reads the lower triangle only."""
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return (Q * np.arange(1.0, n + 1)) @ Q.T + \
        0.05 * np.triu(rng.standard_normal((n, n)), 1)


def eigenvalues(A, c):
    return np.sum(np.linalg.eigvalsh(A) * c)


def eigen_energy(A, B):
    # Sign-invariant uses of the eigenvectors (a column's sign is LAPACK's
    # choice).
    w, V = np.linalg.eigh(A)
    return np.sum(w ** 2) + np.sum((V * V) @ np.arange(5.0)) + \
        np.sum(np.outer(V[:, 0], V[:, 0]) * B)


def eigen_upper(A):
    w, V = np.linalg.eigh(A.T, UPLO="U")
    return np.sum(w ** 3) + np.sum(V[:, -1] ** 2 * np.arange(6.0))


def spectral_steps(A, steps):
    for _ in range(steps):
        w = np.linalg.eigvalsh(A)
        A = A + 0.1 * np.diag(np.sin(w))
    return np.sum(A * A)


def projector(A):
    # The projector on the two lowest eigenvectors: V V^T of a slice.
    w, V = np.linalg.eigh(A)
    P = V[:, :2] @ V[:, :2].T
    return np.sum(P * A) + np.trace(P @ P)


def updated_in_place(A):
    # The compiled eigensolves on one matrix share a cache: the values
    # before the vectors must not stand for the vectors, and an update of
    # the matrix in place must not find the last decomposition.
    total = np.sum(np.linalg.eigvalsh(A) * np.arange(6.0))
    B = A.copy()
    for k in range(3):
        w, V = np.linalg.eigh(B)
        total += np.sum(w * (k + 1.0)) + np.sum(V[:, 0] ** 2 * np.arange(6.0))
        B[1, 0] = B[1, 0] + 0.5
    return total + np.sum(np.linalg.eigvalsh(B) ** 2)


CASES += [
    (eigenvalues, lambda r: (separated(r, 6), r.standard_normal(6))),
    (updated_in_place, lambda r: (separated(r, 6),)),
    (eigen_energy, lambda r: (separated(r, 5), r.standard_normal((5, 5)))),
    (eigen_upper, lambda r: (separated(r, 6),)),
    (spectral_steps, lambda r: (separated(r, 5), 3)),
    (projector, lambda r: (separated(r, 7),)),
]


def qr_loss(A, W):
    Q, R = np.linalg.qr(A)
    return np.sum(Q * W) + np.sum(np.sin(R))


def qr_r_only(A):
    R = np.linalg.qr(A, mode="r")
    return np.sum(R ** 2 * np.arange(A.shape[1]))


def least_squares(A, b):
    # x = R^-1 Q^T b, the least-squares solution of the tall system.
    Q, R = np.linalg.qr(A)
    x = np.linalg.solve(R, Q.T @ b)
    return np.sum(x ** 2) + np.sum((A @ x - b) ** 2)


def subspace_iteration(A, Z):
    # Orthogonal iteration towards the dominant 2-d invariant subspace.
    Q, R = np.linalg.qr(Z)
    for k in range(3):
        Q, R = np.linalg.qr(A @ Q)
    return np.sum((Q.T @ A @ Q) ** 2)


def qr_of_transposed(A):
    Q, R = np.linalg.qr(A.T)
    return np.sum(Q[:, 0] ** 3) + np.trace(R)


CASES += [
    (qr_loss, lambda r: (r.standard_normal((7, 4)),
                         r.standard_normal((7, 4)))),
    (qr_r_only, lambda r: (r.standard_normal((6, 6)),)),
    (least_squares, lambda r: (r.standard_normal((8, 3)),
                               r.standard_normal(8))),
    (subspace_iteration, lambda r: (spd(r, 6), r.standard_normal((6, 2)))),
    (qr_of_transposed, lambda r: (r.standard_normal((3, 5)),)),
]


def svd_loss(A, W):
    U, s, Vh = np.linalg.svd(A, full_matrices=False)
    return np.sum(U * W[:, :U.shape[1]]) + np.sum(s ** 2 * np.arange(
        1.0, s.shape[0] + 1)) + np.sum(np.cos(Vh))


def svd_values(A):
    return np.sum(np.linalg.svd(A, compute_uv=False) ** 3)


def matrix_norms(A):
    return (np.linalg.norm(A, 2) + 2.0 * np.linalg.norm(A, "nuc") +
            3.0 * np.linalg.norm(A, -2))


def low_rank(A):
    # The best rank-2 approximation's error (PCA's reconstruction).
    U, s, Vh = np.linalg.svd(A, full_matrices=False)
    B = (U[:, :2] * s[:2]) @ Vh[:2]
    return np.sum((A - B) ** 2) + np.sum(B[0] ** 3)


def distinct(rng, shape):
    # Well separated singular values (the vectors' gradient divides by
    # their squared differences).
    m, n = shape
    k = min(m, n)
    U, _ = np.linalg.qr(rng.standard_normal((m, k)))
    V, _ = np.linalg.qr(rng.standard_normal((n, k)))
    return (U * np.linspace(3.0, 1.0, k)) @ V.T


def decompositions_updated_in_place(A):
    # The compiled QR and SVD keep the last decomposition of a matrix: an
    # update of the matrix in place must not find it.
    B = A.copy()
    total = 0.0
    for k in range(3):
        Q, R = np.linalg.qr(B)
        s = np.linalg.svd(B, compute_uv=False)
        U, t, Vh = np.linalg.svd(B, full_matrices=False)
        total += np.sum(R * (k + 1.0)) + np.sum(s ** 2) + np.sum(t) + \
            np.sum(Q[:, 0] * U[:, 0] * Vh[0, 0])
        B[1, 0] = B[1, 0] + 0.5
    return total


def pseudo_inverse(A):
    return np.sum(np.linalg.pinv(A) ** 2) + np.linalg.cond(A) + \
        np.linalg.cond(A.T, -2)


def fitted(A, y):
    c = np.polyfit(A[:, 0], y, 2)
    x = np.linalg.lstsq(A, y, rcond=None)[0]
    return np.sum(c ** 2) + np.sum(x ** 3) + np.sum(np.polyval(c, A[:, 1]))


CASES += [
    (fitted, lambda r: (r.random((6, 3)), r.random(6))),
    (pseudo_inverse, lambda r: (distinct(r, (5, 3)),)),
    (decompositions_updated_in_place, lambda r: (distinct(r, (5, 3)),)),
    (svd_loss, lambda r: (distinct(r, (6, 4)), r.standard_normal((6, 4)))),
    (svd_loss, lambda r: (distinct(r, (3, 5)), r.standard_normal((3, 5)))),
    (svd_values, lambda r: (distinct(r, (5, 5)),)),
    (matrix_norms, lambda r: (distinct(r, (4, 6)),)),
    (low_rank, lambda r: (distinct(r, (7, 4)),)),
]
IDS = [c[0].__name__ for c in CASES]


def test_eigh_matches_numpy():
    A = separated(np.random.default_rng(5), 9)

    def both(A):
        w, V = np.linalg.eigh(A)
        return w, V, np.linalg.eigvalsh(A)

    w, V, values = sdfg.program(both)(A)
    nw, nV = np.linalg.eigh(A)
    np.testing.assert_allclose(w, nw, rtol=1e-13)
    np.testing.assert_allclose(values, np.linalg.eigvalsh(A), rtol=1e-13)
    # Columns are eigenvectors up to sign: compare them sign-aligned.
    signs = np.sign(np.sum(V * nV, axis=0))
    np.testing.assert_allclose(V * signs, nV, atol=1e-12)
    # Of the symmetric matrix with A's lower triangle.
    M = np.tril(A) + np.tril(A, -1).T
    np.testing.assert_allclose(M @ V, V * w, atol=1e-12)


def qr_modes(A):
    Q, R = np.linalg.qr(A)
    return Q, R, np.linalg.qr(A, "r"), np.linalg.qr(A[:2], "complete")[0]


@pytest.mark.parametrize("shape", [(6, 4), (5, 5), (3, 5)])
def test_qr_matches_numpy(shape):
    # LAPACK's geqrf and orgqr as NumPy calls them: the same factors, signs
    # included; a wide matrix's reduced R is k x n.
    A = np.random.default_rng(sum(shape)).standard_normal(shape)
    for got, want in zip(sdfg.program(qr_modes)(A), qr_modes(A)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def wide_qr_gradient(A):
    return np.sum(np.linalg.qr(A, "r"))


def complete_tall(A):
    return np.linalg.qr(A, mode="complete")[0]


def qr_of_stack(A):
    return np.linalg.qr(A)[0]


def test_qr_rejections():
    with pytest.raises(sdfg.FrontendError, match=r"mode 'complete' of a "
                       r"matrix with more rows than columns"):
        sdfg.program(complete_tall)(np.ones((4, 2)))
    with pytest.raises(sdfg.FrontendError, match=r"np.linalg.qr of a 3-d"):
        sdfg.program(qr_of_stack)(np.ones((2, 3, 3)))
    with pytest.raises(sdfg.ToolError, match=r"autodiff of qr needs at "
                       r"least as many rows as columns \(got 3 x 5\)"):
        sdfg.grad(wide_qr_gradient, ["A"])(np.ones((3, 5)))


def test_qr_gradient_of_rank_deficient_matrix_raises():
    # R is singular: the gradient's solve raises as NumPy's solve would.
    # R[1, 1] is a rounding error here (0 on some CPUs, -1.9e-16 on an
    # AMD EPYC): the rule's relative cutoff makes it raise on every one
    # (tests/test_kernel_independence.py).
    A = np.ones((4, 2))
    with pytest.raises(np.linalg.LinAlgError, match=r"Singular matrix "
                       r"\(np.linalg.qr at .*test_linalg.py:\d+"):
        sdfg.grad(qr_r_only, ["A"])(np.hstack([A[:, :1], 2 * A[:, :1]]))


def svd_parts(A):
    U, s, Vh = np.linalg.svd(A, full_matrices=False)
    return U, s, Vh, np.linalg.svd(A, compute_uv=False), \
        np.linalg.svd(A[:3, :3])[1]


@pytest.mark.parametrize("shape", [(6, 4), (4, 4), (3, 5)])
def test_svd_matches_numpy(shape):
    # gesdd as NumPy calls it: the same factors, signs included.
    A = np.random.default_rng(sum(shape)).standard_normal(shape)
    for got, want in zip(sdfg.program(svd_parts)(A), svd_parts(A)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def from_singular(A, B):
    return (np.linalg.pinv(A), np.linalg.cond(A), np.linalg.cond(A, -2),
            np.linalg.matrix_rank(A), np.linalg.matrix_rank(B),
            np.linalg.pinv(B, rcond=1e-10), np.linalg.pinv(A.T),
            np.linalg.matrix_rank(B, tol=0.5))


def test_pinv_cond_and_rank_match_numpy():
    # NumPy's cutoffs: pinv drops singular values under rcond times the
    # largest, matrix_rank counts those over S.max() * max(M, N) * eps.
    rng = np.random.default_rng(13)
    A = rng.standard_normal((5, 3))
    B = np.outer(rng.random(4), rng.random(4)) + 1e-3 * np.eye(4)
    for got, want in zip(sdfg.program(from_singular)(A, B),
                         from_singular(A, B)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def least_squares_family(A, b, B, x, y, p):
    s1 = np.linalg.lstsq(A, b, rcond=None)
    x2, _, r2, sv = np.linalg.lstsq(A, B, rcond=None)
    return (s1[0], s1[2], x2, r2, sv, np.vander(x, 4),
            np.vander(x, increasing=True), np.polyval(p, x),
            np.polyfit(x, y, 2), np.polyval(np.polyfit(x, y, 3), 0.5),
            np.linalg.lstsq(A[:2], b[:2], rcond=None)[0])


def test_lstsq_vander_polyfit_polyval_match_numpy():
    rng = np.random.default_rng(15)
    A, b, B = rng.random((6, 3)), rng.random(6), rng.random((6, 2))
    x = np.linspace(0.0, 1.0, 7)
    args = (A, b, B, x, np.sin(3.0 * x), np.array([1.0, -2.0, 0.5]))
    for got, want in zip(sdfg.program(least_squares_family)(*args),
                         least_squares_family(*args)):
        assert np.shape(got) == np.shape(want)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def integer_polynomials(p, k, m):
    return np.polyval(p, k), np.polyval(p, 3), np.vander(m), np.vander(k, 3)


def test_integer_polynomials_keep_numpy_types():
    p, k = np.array([1, 2, 3]), np.array([0, 1, 2])
    m = np.array([True, False, True])
    for got, want in zip(sdfg.program(integer_polynomials)(p, k, m),
                         integer_polynomials(p, k, m)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def lstsq_residuals(A, b):
    x, res, rank, s = np.linalg.lstsq(A, b, rcond=None)
    return res


def test_lstsq_residuals_are_a_located_error():
    with pytest.raises(sdfg.FrontendError, match=r"test_linalg.py:\d+: "
                       r"unsupported construct 'the residuals of "
                       r"np.linalg.lstsq'.*np.sum\(\(b - a @ x\) \*\* 2"):
        sdfg.program(lstsq_residuals)(np.ones((4, 2)), np.ones(4))


def svd_returned(A):
    return np.linalg.svd(A, full_matrices=False)


def test_decompositions_returned_directly():
    A = np.random.default_rng(14).standard_normal((5, 3))
    for got, want in zip(sdfg.program(svd_returned)(A), svd_returned(A)):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def svd_full(A):
    return np.linalg.svd(A)[0]


def svd_hermitian(A):
    return np.linalg.svd(A, hermitian=True)[1]


def test_svd_rejections():
    with pytest.raises(sdfg.FrontendError, match=r"full_matrices=True of a "
                       r"matrix that is not square.*full_matrices=False"):
        sdfg.program(svd_full)(np.ones((4, 2)))
    with pytest.raises(sdfg.FrontendError, match=r"hermitian=True"):
        sdfg.program(svd_hermitian)(np.eye(3))


def test_eigenvalue_gradient_is_analytic():
    # d sum(c * w) / dA = V diag(c) V^T, on A's lower triangle: twice the
    # symmetric part below the diagonal, once on it, nothing above.
    A = separated(np.random.default_rng(6), 6)
    c = np.arange(1.0, 7.0)
    g = sdfg.grad(eigenvalues, ["A"])(A, c)["A"]
    _, V = np.linalg.eigh(A)
    S = (V * c) @ V.T
    want = np.tril(2 * S, -1) + np.diag(np.diag(S))
    np.testing.assert_allclose(g, want, atol=1e-12)



def float_names(fn, args):
    names = fn.__code__.co_varnames[:len(args)]
    return [n for n, a in zip(names, args) if isinstance(a, np.ndarray)]


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_forward_matches_numpy(fn, inputs):
    args = inputs(np.random.default_rng(0))
    # Programs update arrays in place as NumPy does (changing_matrix).
    np.testing.assert_allclose(sdfg.program(fn)(*copy.deepcopy(args)),
                               fn(*copy.deepcopy(args)), rtol=1e-12)


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_gradient_matches_finite_differences(fn, inputs):
    args = inputs(np.random.default_rng(1))
    names = float_names(fn, args)
    g = sdfg.grad(fn, names)(*args)
    rng = np.random.default_rng(2)
    dirs = {n: rng.standard_normal(g[n].shape) for n in names}
    h = 1e-6

    def shifted(sign):
        names_all = fn.__code__.co_varnames[:len(args)]
        return fn(*[a + sign * h * dirs[n] if n in dirs else copy.copy(a)
                    for n, a in zip(names_all, args)])

    fd = (shifted(1) - shifted(-1)) / (2 * h)
    ad = sum(float(np.sum(g[n] * dirs[n])) for n in names)
    assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


def test_gradient_of_inverse_is_analytic():
    # d sum(inv(A) * W) / dA = -inv(A)^T W inv(A)^T.
    def f(A, W):
        return np.sum(np.linalg.inv(A) * W)

    rng = np.random.default_rng(3)
    A, W = well_conditioned(rng, 6), rng.standard_normal((6, 6))
    got = sdfg.grad(f, ["A"])(A, W)["A"]
    Ai = np.linalg.inv(A)
    np.testing.assert_allclose(got, -Ai.T @ W @ Ai.T, rtol=1e-11, atol=1e-13)


def test_gradient_of_determinants_is_analytic():
    # d det A = det A * A^-T, d log|det A| = A^-T, the sign has none.
    def f(A):
        sign, logdet = np.linalg.slogdet(A)
        return 2.0 * np.linalg.det(A) + 3.0 * logdet + 5.0 * sign

    rng = np.random.default_rng(8)
    for _ in range(3):
        A = rng.standard_normal((6, 6))
        got = sdfg.grad(f, ["A"])(A)["A"]
        want = (2.0 * np.linalg.det(A) + 3.0) * np.linalg.inv(A).T
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_determinants_follow_numpy_on_singular_and_permuted_matrices():
    def f(A):
        sign, logdet = np.linalg.slogdet(A)
        return np.linalg.det(A), sign, logdet

    rng = np.random.default_rng(9)
    P = np.eye(5)[[3, 0, 4, 1, 2]]          # an odd permutation
    S = rng.standard_normal((5, 5))
    S[2] = 2.0 * S[0]                         # singular, not exactly zero
    Z = np.ones((4, 4))                       # exactly singular
    for A in (P, -P, rng.standard_normal((5, 5)), S, Z,
              np.array([[0.0, 1.0], [1.0, 0.0]])):
        det, sign, logdet = sdfg.program(f)(A)
        want_sign, want_logdet = np.linalg.slogdet(A)
        np.testing.assert_allclose(det, np.linalg.det(A), rtol=1e-12,
                                   atol=1e-12)
        if A is S:
            # S's last pivot is a rounding error (its sign, even whether
            # it is zero, depends on the CPU's kernels): any sign will do.
            assert sign in (-1.0, 0.0, 1.0)
        else:
            assert sign == want_sign
        if np.isfinite(want_logdet) and want_logdet > -20:
            np.testing.assert_allclose(logdet, want_logdet, rtol=1e-12)
        else:
            assert logdet < -20 or logdet == -np.inf


def test_solution_and_matrix_results():
    def f(A, B):
        return np.linalg.solve(A, B), np.linalg.inv(A)

    rng = np.random.default_rng(4)
    A, B = well_conditioned(rng, 9), rng.standard_normal((9, 4))
    X, Ai = sdfg.program(f)(A, B)
    np.testing.assert_allclose(X, np.linalg.solve(A, B), rtol=1e-12)
    np.testing.assert_allclose(Ai, np.linalg.inv(A), rtol=1e-12,
                               atol=1e-15)


def test_float32_and_integer_matrices_follow_numpy_types():
    def f(A, b):
        return np.linalg.solve(A, b)

    A = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])
    b = np.array([1, 2, 3])
    got = sdfg.program(f)(A, b)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, np.linalg.solve(A, b), rtol=1e-14)
    got32 = sdfg.program(f)(A.astype(np.float32), b.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, np.linalg.solve(A, b), rtol=1e-6)


def test_checkpointed_gradient_equals_store_all():
    args = (np.random.default_rng(5).standard_normal(40),
            0.05 * np.random.default_rng(6).standard_normal((40, 40)), 12)
    full = sdfg.grad(backward_euler, ["u", "K"])(*args)
    small = sdfg.grad(backward_euler, ["u", "K"],
                      strategy="recompute-all")(*args)
    for n in ("u", "K"):
        np.testing.assert_allclose(small[n], full[n], rtol=1e-12)


def test_singular_matrix_raises_like_numpy():
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    b = np.ones(2)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.solve(A, b)
    with pytest.raises(np.linalg.LinAlgError,
                       match=r"Singular matrix \(np.linalg.solve at "
                             r".*test_linalg.py:\d+\)"):
        sdfg.program(solve_vector)(A, b)
    grad = sdfg.grad(solve_vector, ["A", "b"])
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        grad(A, b)
    # The flag is cleared: the next call with a regular matrix works.
    R = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(sdfg.program(solve_vector)(R, b),
                               solve_vector(R, b), rtol=1e-14)


def test_indefinite_matrix_raises_like_numpy():
    A = -np.eye(3)
    with pytest.raises(np.linalg.LinAlgError,
                       match="Matrix is not positive definite"):
        np.linalg.cholesky(A)
    with pytest.raises(np.linalg.LinAlgError,
                       match=r"Matrix is not positive definite "
                             r"\(np.linalg.cholesky at .*test_linalg.py"):
        sdfg.program(cholesky_of_transposed)(A)


def test_singular_inverse_names_inv():
    with pytest.raises(np.linalg.LinAlgError, match=r"np.linalg.inv at"):
        sdfg.program(inverse)(np.zeros((3, 3)), np.ones((3, 2)))


def non_square(A, b):
    return np.linalg.solve(A, b)  # here


def rhs_rows(A, b):
    return np.linalg.solve(A, b)  # here


def stacked(A, b):
    return np.linalg.solve(A, b)  # here


def inv_two_args(A, b):
    return np.linalg.inv(A, b)  # here


def in_loop_view(A, b):
    s = 0.0
    for i in range(1, 4):
        s += np.sum(np.linalg.solve(A[:i, :i], b[:i]))  # here
    return s


@pytest.mark.parametrize("fn,args,match", [
    (non_square, (np.ones((3, 4)), np.ones(3)),
     r"must be square, got 3x4"),
    (rhs_rows, (np.eye(3), np.ones(4)),
     r"right-hand side has 4 rows, the matrix 3"),
    (stacked, (np.ones((2, 3, 3)), np.ones(3)), r"of a 3-d array"),
    (inv_two_args, (np.eye(3), np.ones(3)), r"takes 1 argument"),
    (in_loop_view, (np.eye(4), np.ones(4)), r"shape depends on a loop"),
], ids=["non_square", "rhs_rows", "stacked", "inv_two_args", "in_loop_view"])
def test_bad_calls_are_located_errors(fn, args, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(*args)
    assert "test_linalg.py" in str(info.value)
    assert "# here" in str(info.value) or ":" in str(info.value)


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_gpu_program_on_the_emulator_matches_cpu(fn, inputs):
    """GPU programs call LAPACK from the host on unified memory, between
    the kernels: forward and gradient as on the CPU (test_gpu.py runs them
    on a GPU)."""
    args = inputs(np.random.default_rng(4))
    names = float_names(fn, args)
    for make, tol in ((sdfg.program, 1e-13), (lambda f, device: sdfg.grad(
            f, names, device=device), 1e-11)):
        got, want = (make(fn, device=d)(*copy.deepcopy(args))
                     for d in ("gpu-emulator", "cpu"))
        if isinstance(want, dict):
            for n in names:
                np.testing.assert_allclose(got[n], want[n], rtol=tol,
                                           atol=tol)
        else:
            np.testing.assert_allclose(got, want, rtol=tol)


def test_singular_matrix_raises_on_the_emulator():
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        sdfg.program(solve_vector, device="gpu-emulator")(A, np.ones(2))
    with pytest.raises(np.linalg.LinAlgError,
                       match="Matrix is not positive definite"):
        sdfg.program(cholesky_of_transposed, device="gpu-emulator")(
            -np.eye(3))


IN_PLACE = """
sdfg.sdfg @inplace(%A: memref<4x4xf64> {sdfg.name = "A"},
                   %B: memref<4x3xf64> {sdfg.name = "B"},
                   %out: memref<f64> {sdfg.name = "out"}) {
  %X = sdfg.alloc() : memref<4x3xf64>
  %Y = sdfg.alloc() : memref<4x3xf64>
  sdfg.state {
    sdfg.copy %B[0 : 4, 0 : 3] to %X[0 : 4, 0 : 3] : memref<4x3xf64> to memref<4x3xf64>
    sdfg.solve %A, %X -> %X {transpose} : memref<4x4xf64>, memref<4x3xf64> -> memref<4x3xf64>
    sdfg.map (%i, %j) = (0, 0) to (4, 3) step (1, 1) schedule(cpu_multicore) {
      %x = sdfg.load %X[%i, %j] : memref<4x3xf64>
      %s = sdfg.tasklet(%x) : (f64) -> f64 {
      ^bb0(%v: f64):
        %c = math.cos %v : f64
        %p = arith.mulf %v, %c : f64
        sdfg.yield %p : f64
      }
      sdfg.store %s, %Y[%i, %j] : memref<4x3xf64>
    }
    sdfg.solve %A, %Y -> %Y : memref<4x4xf64>, memref<4x3xf64> -> memref<4x3xf64>
    sdfg.reduce add %Y -> %out axes [0, 1] : memref<4x3xf64> -> memref<f64>
  }
}
"""


def test_in_place_solves_differentiate():
    # The rule's in-place branch: X's gradient becomes the old X's.
    def reference(A, B):
        X = np.linalg.solve(A.T, B)
        return np.sum(np.linalg.solve(A, X * np.cos(X)))

    text = native.run_passes(IN_PLACE, ["--sdfg-autodiff=output=out wrt=A,B"])
    mod = sdfg.compile_mlir(text)
    rng = np.random.default_rng(7)
    A, B = well_conditioned(rng, 4), rng.standard_normal((4, 3))
    dA, dB = np.zeros_like(A), np.zeros_like(B)
    out, seed = np.zeros(()), np.ones(())
    mod.inplace_grad(A, B, out, dA, dB, seed)
    assert abs(out - reference(A, B)) < 1e-12 * abs(reference(A, B))
    h = 1e-6
    for grad, which in ((dA, 0), (dB, 1)):
        d = rng.standard_normal(grad.shape)
        args_p = [A, B]
        args_m = [A, B]
        args_p[which] = args_p[which] + h * d
        args_m[which] = args_m[which] - h * d
        fd = (reference(*args_p) - reference(*args_m)) / (2 * h)
        ad = float(np.sum(grad * d))
        assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (which, fd, ad)
