"""NumPy functions beyond the element-wise basics, forward against NumPy
(to rounding) and gradients against finite differences: inverse and
hyperbolic functions, log1p/expm1 (exact for tiny arguments, as NumPy's),
clip, fmax, var/std, norms, diagonals, ranges, any/all, and tests of `if`
that reduce arrays."""

import re

import numpy as np
import pytest

import sdfg
from checks import assert_forward_and_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def hyperbolic(A):
    return np.sum(np.sinh(A) + np.cosh(A) + np.arcsinh(A) +
                  np.arccosh(A + 1.5) + np.arctanh(A * 0.9))


def inverse_trig(A):
    return np.sum(np.arcsin(A) + np.arccos(A) + np.arctan(A))


def logs_and_powers(A):
    return np.sum(np.exp2(A) + np.log2(A) + np.log10(A) + np.cbrt(A) +
                  np.square(A) + np.negative(A) * A)


def tiny_arguments(A):
    # log(1 + x) and exp(x) - 1 would lose every digit of these.
    return np.sum(np.log1p(A * 1e-9) * 1e9 + np.expm1(A * 1e-9) * 1e9)


def signs_and_flags(A):
    B = np.where(np.isnan(np.log(A - 0.5)), 0.0, A)
    C = np.where(np.isfinite(1.0 / (A - A[0, 0])), A, 1.0)
    return np.sum(np.sign(A - 0.5) * B * C)


def clipped(A):
    return np.sum(np.clip(A, 0.2, 0.8) ** 2 + np.fmax(A, 0.5) *
                  np.fmin(A, 0.3))


def moments(A):
    return np.var(A) + np.sum(np.std(A, axis=0)) + \
        np.sum(np.var(A, axis=1, ddof=1))


def norms(A):
    return np.linalg.norm(A) + np.sum(np.linalg.norm(A, axis=1))


def diagonals(A):
    return np.trace(A @ A) + np.sum(np.diag(A) ** 2) + \
        np.sum(np.diag(np.diag(A)) * A) + np.sum((A + np.eye(4)) ** 2)


def offset_diagonals(A):
    # A tridiagonal matrix from the offset diagonals of A, solved; offset
    # traces and diagonals, as methods too.
    T = np.diag(A[0, :3], 1) + np.diag(4.0 + A[1]) + np.diag(A[2, 1:], k=-1)
    x = np.linalg.solve(T, A[3])
    return (np.sum(x ** 2) + np.trace(A, offset=1) + np.trace(A, -3) +
            np.sum(np.diagonal(A, -2) * A.diagonal(1)[:2]) +
            np.sum(np.diag(A, 3)) + np.sum(A[1:, :].diagonal(offset=1)) +
            np.sum(np.diag(A, 5)))


def ranges(A):
    return np.sum(A[0, :] * np.arange(4)) + \
        np.sum(A[1, :] * np.arange(1.0, 3.0, 0.5)) + \
        np.sum(A[2, :] * np.linspace(0.0, 1.0, 4)) + \
        np.sum(A[3, :] * np.linspace(-1.0, 1.0, 4, endpoint=False))


def reduced_conditions(A):
    s = 0.0
    if np.any(A > 0.95):
        s = s + np.sum(A)
    if np.all(A > 0.0):
        s = s + np.sum(A * A)
    if np.sum(A) > 100.0:
        s = s - 1.0
    return s + np.sum(np.where(np.any(A > 0.7, axis=1), 1.0, 2.0) * A[:, 0])


def joined(A):
    x, y = A[0, :], A[1, :]
    return np.sum(np.concatenate([x, y * 2.0]) ** 2) + \
        np.sum(np.concatenate((A, A * A), axis=1) ** 3) + \
        np.sum(np.stack([x, y]) ** 2 * np.arange(2.0)[:, None]) + \
        np.sum(np.stack((x, y), axis=1) ** 3 * np.arange(2.0))


def reshaped(A):
    B = A.reshape(2, 8)
    C = B.reshape(16).reshape(8, -1)
    return np.sum(C @ np.reshape(A * A, (2, 8))) + \
        np.sum(A.ravel() ** 2 * np.arange(16.0)) + np.sum(np.ravel(A.T) *
                                                          np.arange(16.0))


def einsums(A):
    B = A * A + 1.0
    S = np.stack([A, B])
    return np.sum(np.einsum("ij,jk->ik", A, B) ** 2) + \
        np.sum(np.einsum("ji,jk->ki", A, B) ** 2) + \
        np.sum(np.einsum("ij,jk,ki->i", A, B, A) ** 2) + \
        np.einsum("ij,ij", A, B) + np.sum(np.einsum("i,j->ij", A[0], B[1])) + \
        np.sum(np.einsum("ij->ji", A) * B) + \
        np.sum(np.einsum("bij,bjk->bik", S, S) ** 2) + \
        np.einsum("ii", A) + np.sum(np.einsum("ii->i", A) *
                                    np.einsum("ij,jj->i", A, B)) + \
        np.sum(np.einsum("bii->b", S) ** 2) + \
        np.sum(np.einsum("iji->j", np.stack([A, B, A])[:, :, :3]))


def periodic(A):
    # A periodic stencil's neighbours, and a roll over two axes.
    x = A[0]
    return np.sum((np.roll(x, 1) - 2.0 * x + np.roll(x, -1)) ** 2) + \
        np.sum(np.roll(A, (1, -2), axis=(0, 1)) * A)


def extrema_positions(A):
    return A[0, np.argmax(A[0])] * 2.0 + A[1, np.argmin(A[1])] + \
        np.sum(np.argmax(A, axis=0) * A[2]) + \
        np.sum(np.argmin(A, axis=1) * A[:, 3]) + np.argmax(A) * 1.0


def cumulative(A):
    s = 0.0
    for t in range(2):  # in a loop too: the partial sums run in order
        s = s + np.sum(np.cumsum(A[t]) ** 2)
    return s + np.sum(np.cumsum(A, axis=0) ** 2 * A) + \
        np.sum(np.cumsum(A, axis=1) * A) + np.sum(np.cumsum(A) ** 2)


CASES = [hyperbolic, inverse_trig, logs_and_powers, tiny_arguments,
         signs_and_flags, clipped, moments, norms, diagonals,
         offset_diagonals, ranges,
         reduced_conditions, joined, reshaped, einsums, periodic,
         extrema_positions, cumulative]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_forward_and_gradient(fn):
    rng = np.random.default_rng(0)
    A = rng.random((4, 4)) * 0.9 + 0.05
    with np.errstate(all="ignore"):
        want = fn(A)
        got = sdfg.program(fn)(A)
        np.testing.assert_allclose(got, want, rtol=1e-14)
        g = sdfg.grad(fn, ["A"])(A)["A"]
        d = rng.standard_normal(A.shape)
        h = 1e-6
        fd = (fn(A + h * d) - fn(A - h * d)) / (2 * h)
    ad = float(np.sum(g * d))
    assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


def log1p_expm1(x):
    return np.log1p(x), np.expm1(x)


def test_log1p_and_expm1_match_numpy_everywhere():
    x = np.array([0.0, -0.0, 1e-300, 1e-17, -1e-17, 1e-9, 0.5, -0.5,
                  -0.999999, 3.0, 30.0, 700.0, 710.0, -40.0, -800.0,
                  np.inf, -np.inf, np.nan, -1.0])
    with np.errstate(all="ignore"):
        got = sdfg.program(log1p_expm1)(x)
        want = log1p_expm1(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=4e-16, atol=0)


def zero_d_reshapes(x):
    # A 0-d value to one element and back (np.interp of a scalar does the
    # first), with a gradient through both.
    one = np.reshape(np.sum(x * x), (1,)) + x[:1]
    back = np.reshape(x[1:2] * 3.0, ())
    grid = np.reshape(0.5, (1, 1)) * x[2]
    return np.sum(one) * back + np.sum(grid)


def test_reshapes_of_zero_d_values():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(4)
    assert sdfg.program(zero_d_reshapes)(x) == pytest.approx(
        zero_d_reshapes(x), rel=1e-14)
    g = sdfg.grad(zero_d_reshapes, ["x"])(x)["x"]
    d = rng.standard_normal(4)
    h = 1e-6
    fd = (zero_d_reshapes(x + h * d) - zero_d_reshapes(x - h * d)) / (2 * h)
    assert float(np.sum(g * d)) == pytest.approx(fd, rel=1e-8)


def write_through_reshape(x):
    B = x.reshape(2, 3)
    B[0, 0] = 5.0  # NumPy: also x[0]
    return np.sum(x)


def bad_reshape(x):
    return x.reshape(4, -1)


@pytest.mark.parametrize("fn,match", [
    (write_through_reshape, r"writing into a reshaped array.*"
                            r"reshape\(\.\.\.\)\.copy\(\)"),
    (bad_reshape, r"cannot reshape array of size 6 into shape \(4, -1\)"),
])
def test_reshape_errors(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(np.ones(6))
    assert "test_numpy_functions.py:" in str(info.value)


def rebind_reshape(y):
    z = y.reshape((2, 3))
    z = np.tanh(z) + 1.0   # a new array: no write through the reshape
    z[0, 0] = -1.0         # into that new array
    w = y.reshape(3, 2)
    v = w
    w = w * 2.0            # v still views the reshape
    return np.sum(z * z) + np.sum(v) + np.sum(w)


def rebind_reshape_in_loop(y):
    z = y.reshape((2, 3))
    for i in range(3):
        z = z * 1.5 + 0.25
    return np.sum(z * z)


@pytest.mark.parametrize("fn", [rebind_reshape, rebind_reshape_in_loop])
def test_rebinding_a_reshape_is_not_a_write(fn):
    # Rebinding a name that held a reshape was rejected as a write into
    # the reshaped array (fuzz round 8).
    y = np.linspace(-1.0, 1.0, 6)
    assert sdfg.program(fn)(y.copy()) == pytest.approx(fn(y.copy()),
                                                       rel=1e-14)
    g = sdfg.grad(fn, "y")(y)["y"]
    for i in range(6):
        e = np.zeros(6)
        e[i] = 1e-6
        fd = (fn(y + e) - fn(y - e)) / 2e-6
        assert g[i] == pytest.approx(fd, rel=1e-7, abs=1e-9)


def flatten_is_a_copy(x):
    a = x.flatten()
    a[0] = 7.0               # NumPy: a copy, written freely
    b = (x * 2.0).reshape(4)  # of a computed value: a new array too
    x += 1.0                 # neither a nor b sees this
    return a + b + x.ravel()


def test_flatten_and_reshapes_of_values_are_copies():
    x = np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(sdfg.program(flatten_is_a_copy)(x.copy()),
                                  flatten_is_a_copy(x.copy()))


def einsum_ellipsis(A):
    return np.einsum("...i,...i", A, A)


def einsum_diagonal(A):
    return np.einsum("ij,jj->i", A, A[:2, :])


def einsum_mismatch(A):
    return np.einsum("ijk,jk", A, A)


@pytest.mark.parametrize("fn,match", [
    (einsum_ellipsis, r"np.einsum with '...'"),
    (einsum_diagonal, re.escape("dimensions in operand 1 for collapsing "
                                "index 'j' don't match (2 != 3)")),
    (einsum_mismatch, r"subscript 'ijk' does not match an operand of "
                      r"dimension 2"),
])
def test_einsum_errors(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(np.ones((3, 3)))


def argmax_argmin(x):
    return np.argmax(x), np.argmin(x, axis=0)


@pytest.mark.parametrize("x", [np.array([1.0, 3.0, 3.0, 2.0]),
                               np.array([1.0, np.nan, 5.0, np.nan]),
                               np.array([2, 7, 7, 1, 1])],
                         ids=["ties", "nan", "int"])
def test_argmax_takes_the_first_as_numpy(x):
    got = sdfg.program(argmax_argmin)(x)
    assert tuple(int(g) for g in got) == argmax_argmin(x)



def diagonal_axes(A):
    return np.diagonal(A, 1, 1)


def trace_method_axes(A):
    return A.trace(1, 0)


def eye_columns(A):
    # np.eye(N, M, k, dtype) are supported, order= is not.
    return np.eye(3, 4, 0, np.float64, "C") * A[0, 0]


def flatten_fortran(A):
    return A.flatten("F")


def cumsum_dtype(A):
    return np.cumsum(A > 0.5, 1, np.float64)


def norm_keepdims(A):
    return np.linalg.norm(A, 1, 0, True)


@pytest.mark.parametrize("fn,match", [
    (diagonal_axes, r"np.diagonal with more than 2 positional arguments.*"
                    r"parameters after a, offset are not supported"),
    (trace_method_axes, r"np.trace with more than 2 positional arguments"),
    (eye_columns, r"np.eye with more than 4 positional arguments"),
    (flatten_fortran, r"\.flatten\(\) with an order"),
    (cumsum_dtype, r"np.cumsum with more than 2 positional arguments"),
    (norm_keepdims, r"np.linalg.norm with more than 3 positional arguments"),
])
def test_extra_positional_arguments_are_rejected(fn, match):
    # Once silently ignored (np.diagonal(A, 1) gave the main diagonal).
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(np.arange(9.0).reshape(3, 3))
    assert "test_numpy_functions.py:" in str(info.value)


def identity_dtype(A):
    return np.identity(3, np.int64) + A.shape[0]


def test_identity_positional_dtype():
    got = sdfg.program(identity_dtype)(np.ones((2, 2)))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, identity_dtype(np.ones((2, 2))))


def covariances(X, y, v):
    return (np.cov(X), np.cov(X, rowvar=False, bias=True), np.cov(X, y),
            np.cov(v), np.corrcoef(X), np.cov(X, ddof=0),
            np.corrcoef(X, y, rowvar=True), np.cov(X.T, rowvar=False))


def test_cov_and_corrcoef_match_numpy():
    rng = np.random.default_rng(4)
    X, y, v = rng.random((3, 5)), rng.random(5), rng.random(5)
    for got, want in zip(sdfg.program(covariances)(X, y, v),
                         covariances(X, y, v)):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-16)


def correlation_loss(A):
    return np.sum(np.cov(A) ** 2) + np.sum(np.corrcoef(A) ** 3)


def test_cov_and_corrcoef_gradients():
    assert_forward_and_gradient(correlation_loss,
                                np.random.default_rng(5).random((3, 6)),
                                np.random.default_rng(6))


def splits(A, x):
    p, q = np.split(x, 2)
    r = np.array_split(x, 4)
    s, t, u = np.split(A, [1, -1], axis=1)
    h1, h2 = np.hsplit(A, 2)
    v1, v2 = np.vsplit(A, [2])
    e, f, g = np.split(x, [7, 3])  # a cut before the last: empty piece
    return (p * q, r[0], r[3], s, t, u, h1 - h2, v1, v2, e, f, g,
            np.array_split(A, 3, axis=1)[2])


def test_split_family_matches_numpy():
    rng = np.random.default_rng(7)
    A, x = rng.random((4, 6)), rng.random(10)
    for got, want in zip(sdfg.program(splits)(A, x), splits(A, x)):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)


def split_views(A):
    # The pieces are views, as NumPy's: writes reach A, and the gradient
    # of each piece lands in its part of A.
    top, bottom = np.vsplit(A, 2)
    top *= 2.0
    return np.sum(top * bottom) + np.sum(A)


def test_split_pieces_are_views():
    assert_forward_and_gradient(split_views,
                                np.random.default_rng(8).random((4, 3)),
                                np.random.default_rng(9))


def uneven_split(A):
    return np.split(A, 4)[0]


def vsplit_vector(A):
    return np.vsplit(A[0], 2)[0]


@pytest.mark.parametrize("fn,match", [
    (uneven_split, r"array split does not result in an equal division"),
    (vsplit_vector, r"vsplit only works on arrays of 2 or more dimensions"),
])
def test_split_errors(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(np.ones((6, 2)))
    assert "test_numpy_functions.py:" in str(info.value)


def convolutions(a, v, k):
    return (np.convolve(a, v), np.convolve(a, v, mode="same"),
            np.convolve(a, v, "valid"), np.convolve(v, a, "same"),
            np.correlate(a, v), np.correlate(a, v, "full"),
            np.correlate(v, a, "same"), np.correlate(a, k, "same"),
            np.convolve(k, k), np.convolve(a * 2.0, k))


@pytest.mark.parametrize("n,m", [(7, 3), (7, 4), (5, 5), (3, 8), (1, 4)])
def test_convolve_and_correlate_match_numpy(n, m):
    # Every mode, either operand longer: NumPy's windows (its correlate
    # mirrors 'same' when it swaps a shorter first operand).
    rng = np.random.default_rng(n * 10 + m)
    a, v, k = rng.random(n), rng.random(m), np.arange(m)
    for got, want in zip(sdfg.program(convolutions)(a, v, k),
                         convolutions(a, v, k)):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def smoothing_loss(A):
    kernel = np.array([0.25, 0.5, 0.25])
    s = np.convolve(A[0], kernel, "same")
    c = np.correlate(A[1], A[0, :4], "valid")
    return np.sum(s * s) + np.sum(c ** 3) + np.sum(np.convolve(A[2], A[1]))


def test_convolve_and_correlate_gradients():
    assert_forward_and_gradient(smoothing_loss,
                                np.random.default_rng(10).random((3, 9)),
                                np.random.default_rng(11))


def convolve_empty(A):
    return np.convolve(A[0, :0], A[0])


def convolve_matrix(A):
    return np.convolve(A, A[0])


def convolve_bad_mode(A):
    return np.convolve(A[0], A[1], "wrap")


@pytest.mark.parametrize("fn,match", [
    (convolve_empty, r"a cannot be empty"),
    (convolve_matrix, r"np.convolve of an array of 2 dimensions"),
    (convolve_bad_mode, r"mode must be one of"),
])
def test_convolve_errors(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(np.ones((6, 2)))
    assert "test_numpy_functions.py:" in str(info.value)


def mixed_convolutions(x32, k64, b, c):
    return (np.convolve(x32, k64), np.correlate(k64, x32, "same"),
            np.convolve(b, c), np.cov(x32), np.corrcoef(x32, x32[::-1]))


def test_convolve_and_cov_types_follow_numpy():
    # The common type of both vectors (a float32 vector scaled by float64
    # elements is computed in float64); bool convolutions stay bool; cov
    # and corrcoef compute in float64.
    x32 = np.array([0.1, -0.3, 0.7, 0.25, -0.9], dtype=np.float32)
    k64 = np.array([0.3, -0.2, 0.1])
    b, c = np.array([True, True, False, True]), np.array([True, True])
    for got, want in zip(sdfg.program(mixed_convolutions)(x32, k64, b, c),
                         mixed_convolutions(x32, k64, b, c)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-14)


def numerical_gradients(u, F):
    gx, gy = np.gradient(F, 0.1, 0.2)
    return (np.gradient(u), np.gradient(u, 0.5, edge_order=2), gx, gy,
            np.gradient(F, axis=1), np.gradient(F, 2.0, axis=0,
                                                edge_order=2),
            np.gradient(np.arange(5) ** 2))


def test_np_gradient_matches_numpy():
    # NumPy's central differences and one-sided edges, in its operation
    # order: equal bit for bit.
    rng = np.random.default_rng(16)
    u, F = rng.random(7), rng.random((4, 5))
    for got, want in zip(sdfg.program(numerical_gradients)(u, F),
                         numerical_gradients(u, F)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def smoothness(A):
    return np.sum(np.gradient(A[0], 0.3, edge_order=2) ** 2) + \
        np.sum(np.gradient(A, axis=0) * A)


def test_np_gradient_gradients():
    assert_forward_and_gradient(smoothness,
                                np.random.default_rng(17).random((4, 6)),
                                np.random.default_rng(18))


def gradient_too_short(A):
    return np.gradient(A[0, :2], edge_order=2)


def test_np_gradient_errors():
    with pytest.raises(sdfg.FrontendError, match=r"at least \(edge_order "
                       r"\+ 1\) elements are required"):
        sdfg.program(gradient_too_short)(np.ones((2, 4)))
