"""Forward mode through np.linalg.cholesky, eigh, eigvalsh, qr and svd
(the TangentOpInterface rules of sdfg.cholesky, eigh, qr and svd): sdfg.jvp
of each factor against central finite differences, and sdfg.hvp of a loss
through each against finite differences of sdfg.grad (forward over
reverse: the tangents of the reverse rules' own factorisations)."""

import numpy as np
import pytest

import sdfg
from sdfg import native


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


H = 1e-6


def spd(rng, n):
    """Positive definite in its lower triangle with eigenvalues 1..n (apart:
    the eigenvectors' tangent divides by their gaps) and garbage above it:
    cholesky and eigh read the lower triangle only."""
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (Q * np.arange(1.0, n + 1)) @ Q.T
    return A + 0.3 * np.triu(rng.standard_normal((n, n)), 1)


def distinct(rng, m, n):
    """Singular values 3..1, well apart."""
    k = min(m, n)
    U, _ = np.linalg.qr(rng.standard_normal((m, k)))
    V, _ = np.linalg.qr(rng.standard_normal((n, k)))
    return (U * np.linspace(3.0, 1.0, k)) @ V.T


def _align(base, moved, axis):
    """`moved` with each column (axis 0) or row (axis 1) of singular or
    eigen vectors multiplied by the sign that brings it closest to
    `base`'s: a vector's sign is LAPACK's choice, so the finite difference
    is taken of vectors with the signs of the compiled result."""
    dots = np.sum(base * moved, axis=axis, keepdims=True)
    return moved * np.where(dots < 0, -1.0, 1.0)


def _check(got, want):
    scale = max(1.0, float(np.max(np.abs(want))))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8 * scale)


def cholesky(A):
    return np.linalg.cholesky(A)


def test_jvp_cholesky():
    rng = np.random.default_rng(10)
    A, dA = spd(rng, 5), rng.standard_normal((5, 5))
    L, tL = sdfg.jvp(cholesky, (A,), (dA,))
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=1e-12)
    fd = (np.linalg.cholesky(A + H * dA) -
          np.linalg.cholesky(A - H * dA)) / (2 * H)
    _check(tL, fd)
    # L's upper triangle is zero whatever A is: so is its tangent.
    assert not np.triu(tL, 1).any()


def eigh(A):
    return np.linalg.eigh(A)


def eigvalsh(A):
    return np.linalg.eigvalsh(A)


def test_jvp_eigh():
    rng = np.random.default_rng(11)
    A, dA = spd(rng, 6), rng.standard_normal((6, 6))
    (w, V), (tw, tV) = sdfg.jvp(eigh, (A,), (dA,))
    up, down = np.linalg.eigh(A + H * dA), np.linalg.eigh(A - H * dA)
    _check(tw, (up[0] - down[0]) / (2 * H))
    _check(tV, (_align(V, up[1], 0) - _align(V, down[1], 0)) / (2 * H))
    # The values alone (syevd without vectors): the same tangent.
    w2, tw2 = sdfg.jvp(eigvalsh, (A,), (dA,))
    np.testing.assert_allclose(w2, w, rtol=1e-12)
    _check(tw2, (up[0] - down[0]) / (2 * H))


def qr(A):
    return np.linalg.qr(A)


def qr_r(A):
    return np.linalg.qr(A, mode="r")


# Tall, square and wide (Q square, R = [R1 R2]: the tangent comes from
# the first m columns' factorisation).
@pytest.mark.parametrize("shape", [(6, 4), (4, 4), (3, 5)])
def test_jvp_qr(shape):
    rng = np.random.default_rng(12)
    A, dA = rng.standard_normal(shape), rng.standard_normal(shape)
    (Q, R), (tQ, tR) = sdfg.jvp(qr, (A,), (dA,))
    up, down = np.linalg.qr(A + H * dA), np.linalg.qr(A - H * dA)
    _check(tQ, (up[0] - down[0]) / (2 * H))
    _check(tR, (up[1] - down[1]) / (2 * H))
    # The constraints: Q^T tQ antisymmetric, tR upper triangular (up to
    # rounding: a wide matrix's tR is a difference of products).
    skew = Q.T @ tQ
    np.testing.assert_allclose(skew, -skew.T, atol=1e-12)
    np.testing.assert_allclose(np.tril(tR, -1), 0.0, atol=1e-12)
    _, tR2 = sdfg.jvp(qr_r, (A,), (dA,))
    _check(tR2, (up[1] - down[1]) / (2 * H))


def svd(A):
    return np.linalg.svd(A, full_matrices=False)


def singular_values(A):
    return np.linalg.svd(A, compute_uv=False)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5)])
def test_jvp_svd(shape):
    rng = np.random.default_rng(14)
    A, dA = distinct(rng, *shape), rng.standard_normal(shape)
    (U, s, Vh), (tU, ts, tVh) = sdfg.jvp(svd, (A,), (dA,))
    up, down = (np.linalg.svd(A + d * H * dA, full_matrices=False)
                for d in (1.0, -1.0))
    _check(ts, (up[1] - down[1]) / (2 * H))
    # A pair of singular vectors changes sign together: align U's columns
    # and take the same signs for Vh's rows.
    def aligned(f):
        sign = np.where(np.sum(U * f[0], axis=0) < 0, -1.0, 1.0)
        return f[0] * sign, f[2] * sign[:, None]
    (uu, uv), (du, dv) = aligned(up), aligned(down)
    _check(tU, (uu - du) / (2 * H))
    _check(tVh, (uv - dv) / (2 * H))
    s2, ts2 = sdfg.jvp(singular_values, (A,), (dA,))
    np.testing.assert_allclose(s2, s, rtol=1e-12)
    _check(ts2, (up[1] - down[1]) / (2 * H))


def test_jvp_without_a_tangent_of_the_matrix():
    # The matrix is not differentiated: the factor's tangent is zero (the
    # rule fills it) while another input has one.
    def f(A, x):
        return np.linalg.cholesky(A) * x
    rng = np.random.default_rng(15)
    A, x = spd(rng, 4), rng.standard_normal(4)
    L, tL = sdfg.jvp(f, (A, x), (None, np.ones(4)))
    np.testing.assert_allclose(tL, np.linalg.cholesky(A), rtol=1e-12)


# Losses invariant to the signs of eigen and singular vectors.
def cholesky_loss(A, W):
    L = np.linalg.cholesky(A)
    return np.sum(L * W) + np.sum(np.log(np.diag(L)))


def eigh_loss(A, c):
    w, V = np.linalg.eigh(A)
    return np.sum(w ** 2 * c) + np.sum((V * V) @ c)


def eigvalsh_loss(A):
    return np.sum(np.sin(np.linalg.eigvalsh(A)))


def qr_loss(A, W):
    Q, R = np.linalg.qr(A)
    return np.sum(Q * W) + np.sum(np.sin(R))


def svd_loss(A, c):
    U, s, Vh = np.linalg.svd(A, full_matrices=False)
    k = s.shape[0]
    return (np.sum(s ** 3) + np.sum((U * U) @ c[:k]) +
            np.sum((Vh * Vh).T @ c[:k]))


def svd_values_loss(A):
    return np.sum(np.linalg.svd(A, compute_uv=False) ** 3)


def _hvp_cases():
    rng = np.random.default_rng(16)
    return [
        (cholesky_loss, (spd(rng, 5), rng.standard_normal((5, 5)))),
        (eigh_loss, (spd(rng, 5), rng.standard_normal(5))),
        (eigvalsh_loss, (spd(rng, 5),)),
        (qr_loss, (rng.standard_normal((6, 4)),
                   rng.standard_normal((6, 4)))),
        (qr_loss, (rng.standard_normal((4, 4)),
                   rng.standard_normal((4, 4)))),
        (svd_loss, (distinct(rng, 6, 4), rng.standard_normal(4))),
        (svd_loss, (distinct(rng, 4, 6), rng.standard_normal(4))),
        (svd_values_loss, (distinct(rng, 5, 3),)),
    ]


@pytest.mark.parametrize("k", range(len(_hvp_cases())))
def test_hvp_against_finite_differences_of_the_gradient(k):
    fn, args = _hvp_cases()[k]
    A = args[0]
    dA = np.random.default_rng(17).standard_normal(A.shape)
    hv = sdfg.hvp(fn, args, (dA,) + (None,) * (len(args) - 1))
    assert all(h is None for h in hv[1:])
    g = sdfg.grad(fn, ["A"])
    h = 1e-5
    up = g(A + h * dA, *args[1:])["A"]
    down = g(A - h * dA, *args[1:])["A"]
    fd = (up - down) / (2 * h)
    scale = max(1.0, float(np.max(np.abs(fd))))
    np.testing.assert_allclose(hv[0], fd, rtol=1e-6, atol=1e-7 * scale)


ROW_MAX = """
sdfg.sdfg @rowmax(%x: memref<3x4xf64> {sdfg.name = "x"},
                  %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.reduce max %x -> %__return0 axes [1] : memref<3x4xf64> -> memref<3xf64>
  }
}
"""


def test_jvp_of_a_max_reduction_takes_the_mean_over_ties():
    # The reverse rule of qr reduces with max (its rank cutoff), so the
    # Hessians through qr above differentiate a max reduction; the
    # frontend's own reductions accumulate and are maps.
    text = native.run_passes(ROW_MAX, ["--sdfg-forward-diff"])
    mod = sdfg.compile_mlir(text)
    x = np.array([[1.0, 5.0, 2.0, 5.0],
                  [0.5, -1.0, 3.0, 2.0],
                  [7.0, 7.0, 7.0, 7.0]])
    tx = np.arange(12.0).reshape(3, 4)
    out, tout = np.zeros(3), np.zeros(3)
    mod.rowmax_jvp(x, out, tx, tout)
    np.testing.assert_array_equal(out, [5.0, 3.0, 7.0])
    # Row 0: two maxima, the mean of their tangents; row 1: one; row 2:
    # all four.
    np.testing.assert_allclose(tout, [(1.0 + 3.0) / 2, 6.0, 9.5],
                               rtol=1e-15)
