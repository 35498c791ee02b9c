"""The NumPy functions and Python constructs of numpy/manipulation.py
(with joining.py and diagonals.py, split from it),
numpy/ufuncs.py, reductions.py, statistics.py and iteration.py: forward against NumPy (to rounding),
arrays the program updates in place against NumPy's, gradients against
central finite differences in float64; and their errors."""

import math
from math import sqrt as imported_sqrt

import numpy as np
import pytest
from numpy import exp as imported_exp

import sdfg
from checks import assert_forward_and_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def views(A):
    B = np.flip(A) * 2.0 + np.flipud(A) + np.fliplr(A) * 3.0
    C = np.flip(A, axis=1) + np.flip(A, (0, 1)) + A[:, ::-1]
    s = np.sum(B * C) + np.sum(np.squeeze(A[None, :, 2:3]) ** 3)
    s = s + np.sum(np.expand_dims(A[0], 0) @ A) + \
        np.sum(np.expand_dims(A, (0, 3)) ** 2)
    s = s + np.sum(np.swapaxes(A, 0, 1) @ A) + np.sum(A.swapaxes(1, 0) * A)
    T = np.stack([A, A * A])  # 2 x 4 x 4
    s = s + np.sum(np.moveaxis(T, 0, -1)[1] * A[1][:, None])
    s = s + np.sum(np.moveaxis(T, [0, 1], [2, 0])[:, 0, :] * A[2][:, None])
    s = s + np.sum(np.atleast_2d(A[0]) * A) + np.sum(np.atleast_3d(A) ** 2) + \
        np.sum(np.atleast_1d(A[1, 1]) * A[2]) + np.sum(A.squeeze() * A)
    return s


def writes_through_views(A):
    F = np.flip(A, 0)
    F[0] = F[0] * 2.0  # NumPy: A's last row
    S = np.swapaxes(A, 0, 1)
    S[1] += 1.0  # A's second column
    E = np.expand_dims(A, 0)
    E[0, 2, 2] = A[0, 0] * A[1, 1]
    return np.sum(A * A)


def stacks(A):
    x, y = A[0], A[1] * 2.0
    return np.sum(np.vstack((x, y)) ** 2 * np.arange(2.0)[:, None]) + \
        np.sum(np.vstack([A, x]) ** 3) + \
        np.sum(np.hstack((x, y, x)) * np.arange(12.0)) + \
        np.sum(np.hstack([A, A * A]) ** 2) + \
        np.sum(np.column_stack((x, y, A[:, :2])) ** 3) + \
        np.sum(np.dstack((A, A * 3.0)) ** 2 * np.arange(2.0))


def padded(A):
    x = A[0]
    return np.sum(np.pad(x, 2) * np.arange(8.0)) + \
        np.sum(np.pad(A, ((1, 2), (0, 1)), constant_values=0.5) ** 2) + \
        np.sum(np.pad(A, 1, mode="edge") ** 3) + \
        np.sum(np.pad(x, (2, 3), mode="wrap") * np.arange(9.0)) + \
        np.sum(np.pad(A, ((3, 1), (2, 2)), mode="reflect") ** 3) + \
        np.sum(np.pad(A, (2, 1), "symmetric") * np.arange(7.0))


def tiled(A):
    x = A[0]
    T = np.tile(A, (2, 3))
    T[0, 0] = 7.0  # a new array: writing into it is fine
    return np.sum(np.tile(x, 3) * np.arange(12.0)) + \
        np.sum(T ** 2 * np.arange(12.0)) + \
        np.sum(np.tile(x, (2, 1, 2)) ** 3) + \
        np.sum(np.repeat(x, 3) * np.arange(12.0)) + \
        np.sum(np.repeat(A, 2, axis=0) ** 2 * np.arange(4.0)) + \
        np.sum(np.repeat(A, 2, axis=1) * np.arange(8.0)) + \
        np.sum(np.repeat(A, 2) * np.arange(32.0)) + \
        np.sum(A[1].repeat(2) ** 2)


def grids(A):
    X, Y = np.meshgrid(A[0], A[1, :3])
    P, Q = np.meshgrid(A[2], A[3, :2], indexing="ij")
    return np.sum(X * Y ** 2 * np.arange(4.0)) + \
        np.sum(P ** 2 * Q * np.arange(2.0))


def triangles(A):
    T = np.stack([A, A * A])
    return np.sum(np.triu(A) * np.arange(16.0).reshape(4, 4)) + \
        np.sum(np.tril(A, -1) ** 2) + np.sum(np.triu(A, 1) ** 3) + \
        np.sum(np.tril(A, 2) * A) + np.sum(np.triu(T, -1) ** 2)


def differences(A):
    x = A[0]
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2) ** 2) + \
        np.sum(np.diff(A, axis=0) ** 3) + np.sum(np.diff(A) ** 2) + \
        np.trapz(x) + np.trapz(x, dx=0.5) + np.trapz(A[1], x=np.cumsum(x)) + \
        np.sum(np.trapz(A, axis=0) ** 2) + \
        np.sum(np.trapz(A, x=A[2] * 3.0, axis=1) ** 2)


def elementwise(A):
    B = A - 0.5
    return np.sum(np.hypot(A, B) + np.logaddexp(A, B * 3.0) +
                  np.logaddexp2(B, A) + np.reciprocal(A) +
                  np.deg2rad(A) * np.rad2deg(B) + np.radians(A) +
                  np.degrees(B) + np.heaviside(B, 0.5) * A +
                  np.sinc(B * 3.0) + np.float_power(A, 2.5)) + \
        np.sum(np.rint(A * 10.0) * A + np.round(A * 10.0) * B +
               np.around(A, 2) * A + np.trunc(B * 5.0) * A +
               np.fix(B * 7.0) * B + A.round(1) * A)


def nan_reductions(A):
    N = np.where(A > 0.8, np.nan, A)
    return np.nansum(N) + np.sum(np.nansum(N, axis=0) ** 2) + \
        np.nanmean(N) + np.sum(np.nanmean(N, axis=1) ** 2) + \
        np.nanprod(N + 0.5) + np.sum(np.nanprod(N + 0.5, axis=0))


def averages(A):
    w = A[0] + 1.0
    return np.average(A) + np.sum(np.average(A, axis=0) ** 2) + \
        np.average(A[1], weights=w) + \
        np.sum(np.average(A, axis=1, weights=w) ** 2) + \
        np.sum(np.average(A, axis=0, weights=A * A) ** 2) + \
        np.count_nonzero(A > 0.5) * np.sum(A) + \
        np.sum(np.count_nonzero(A > 0.5, axis=0) * A[0])


def products(A):
    B = A * A + 1.0
    T = np.stack([A, B])
    x = A[0]
    return np.sum(np.tensordot(A, B, axes=1) ** 2) + np.tensordot(A, B) + \
        np.sum(np.tensordot(T, A, axes=([1], [0])) ** 2) + \
        np.sum(np.tensordot(T, B, axes=([1, 2], [1, 0])) ** 3) + \
        np.inner(x, A[1]) + np.sum(np.inner(A, B) ** 2) + np.vdot(A, B) + \
        np.sum(np.kron(x, A[1]) * np.arange(16.0)) + \
        np.sum(np.kron(A[:2, :3], B[:3, :2]) ** 2) + \
        np.sum(np.cross(A[:, :3], B[:, 1:]) ** 2) + \
        np.sum(np.cross(A[:3, 0], B[:3, 1]) * np.arange(3.0)) + \
        np.sum(np.cross(A[:3], B[1:], axis=0) ** 2)


def powers(A):
    M = A * 0.5 + np.eye(4)
    return np.sum(np.linalg.matrix_power(M, 3)) + \
        np.sum(np.linalg.matrix_power(M, 0) * A) + \
        np.sum(np.linalg.matrix_power(M, 1) ** 2) + \
        np.sum(np.linalg.matrix_power(M, -2)) + \
        np.sum(np.linalg.multi_dot([A, M, A.T]) ** 2)


def cumulative_products(A):
    return np.sum(np.cumprod(A[0] + 0.5)) + \
        np.sum(np.cumprod(A + 0.5, axis=0) ** 2) + \
        np.sum(np.cumprod(A, axis=1) * A) + np.sum(A.cumprod() * 3.0)


def vector_norms(A):
    x = A[0] - 0.5
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) * 2.0 + \
        np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 3) + \
        np.linalg.norm(x, 2) + np.linalg.norm(A, "fro") + \
        np.sum(np.linalg.norm(A, 1, axis=0) ** 2) + \
        np.sum(np.linalg.norm(A - 0.5, ord=np.inf, axis=1))


def math_module(A):
    a = A[0, 0]
    k = math.floor(A[0, 1] * 4.0)  # an int index from data
    return math.sqrt(a) + math.exp(A[1, 1]) * math.pi + \
        math.log(A[2, 2]) + math.log(A[2, 3], 2.0) + math.atan2(a, A[3, 3]) + \
        math.hypot(a, A[0, 2]) + math.pow(A[1, 2], 1.5) + math.fabs(a - 1.0) + \
        A[1, k] * math.tau + math.cos(math.e) * a + imported_sqrt(A[2, 0]) + \
        np.sum(imported_exp(A[3])) + math.ceil(A[3, 0] * 3.0) * a + \
        math.trunc(-A[3, 1] * 5.0) * a


def builtins_(A):
    n = min(len(A[0]), len(A[1, :3]))
    return round(A[0, 0] * 10.0) * A[1, 1] + round(A[0, 1], 2) * A[1, 2] + \
        np.sum(sum(A) ** 2) + sum((A[2, 2], A[2, 3], 1.0)) + \
        np.sum(A[2, :n]) + max(len(A), 2) * A[3, 3]


def iteration(A):
    s = 0.0
    for row in A:  # rows are views
        s = s + np.sum(row ** 2)
    for i, v in enumerate(A[0]):
        s = s + v * i
    for i, v in enumerate(A[1], 2):
        s = s + v * v * i
    for a, b in zip(A[2], A[3, 1:]):
        s = s + a * b
    for k, (a, b) in enumerate(zip(A[0], A[1] * 2.0)):
        s = s + a * b * k
    for i in reversed(range(4)):
        s = s * 0.5 + A[i, i]
    for i in reversed(range(1, 3)):
        s = s * 0.5 + A[i, 0]
    # With a step: from the range's last item (3 then 1; 3 then 0), also
    # with a bound that is a loop variable, and empty ranges.
    for i in reversed(range(1, 4, 2)):
        s = s * 0.7 + A[i, 1]
    for i in reversed(range(3, -1, -3)):
        s = s * 0.6 + A[i, 2]
    for i in range(4):
        for j in reversed(range(0, i, 2)):
            s = s * 0.9 + A[i, j] * j
    for i in reversed(range(2, 2, 2)):
        s = s + 100.0
    for i in reversed(range(0, 3, -1)):
        s = s + 1000.0
    for v in A[0] * 3.0:
        s = s + v ** 3
    for W in (A, A.T, A * A):
        s = s + np.sum(W[0] * W[1])
    return s


def signs(A):
    # copysign: |a| with b's sign (b's own gradient is zero), also from
    # -0.0 and through the math module.
    s = np.sum(np.copysign(A, 0.5 - A.T) ** 3)
    return s + np.sum(np.copysign(A[0], -0.0) * A[1]) + \
        math.copysign(A[2, 2], A[3, 3] - 1.0)


def updates_through_rows(A):
    for row in A:
        row *= 2.0
        row[0] = row[1] * row[2]
    for i, r in enumerate(A[1:]):
        r += A[i]
    return np.sum(A ** 2)


def checked(A, n):
    assert A.shape[0] == n, "wrong size"
    assert n > 2
    return np.sum(A) * n


CASES = [views, writes_through_views, stacks, padded, tiled, grids,
         triangles, differences, elementwise, nan_reductions, averages,
         products, powers, cumulative_products, vector_norms, math_module,
         builtins_, iteration, signs, updates_through_rows]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_forward_and_gradient(fn):
    rng = np.random.default_rng(1)
    assert_forward_and_gradient(fn, rng.random((4, 4)) * 0.9 + 0.05, rng)


def shapes(A):
    return (np.pad(A, ((1, 0), (2, 3))), np.tile(A[0], (3, 1)),
            np.repeat(A, 3, axis=1), np.kron(A, A[:2, :3]),
            np.meshgrid(A[0], A[1, :2], A[2, :3])[2],
            np.squeeze(A[:1, :, None]), np.hstack((A[0, 0], A[1])),
            np.atleast_3d(A[0]), np.diff(A, n=3, axis=0),
            np.tensordot(A, A, axes=0), np.vstack((A[0, 0], A[1, 1])))


def test_shapes_match_numpy():
    A = np.arange(16.0).reshape(4, 4)
    got = sdfg.program(shapes)(A)
    for g, w in zip(got, shapes(A)):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def rounding(x):
    return (np.rint(x), np.round(x), np.round(x, 1), np.round(x, -1),
            np.trunc(x), np.fix(x), np.sinc(x), np.heaviside(x, 0.25),
            np.logaddexp(x, -x), np.reciprocal(x))


def test_rounding_and_special_values_match_numpy():
    # Ties round to even; signed zeros, infinities and NaN as NumPy's.
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, 0.25, 14.96, 15.0,
                  -7.7, np.inf, -np.inf, np.nan, 1e300, -3.0])
    with np.errstate(all="ignore"):
        got = sdfg.program(rounding)(x)
        want = rounding(x)
    for g, w in zip(got, want):
        # sin(pi x) near multiples of pi: libm and LLVM may differ by an ulp.
        np.testing.assert_allclose(g, w, rtol=1e-15, atol=1e-15)
        np.testing.assert_array_equal(np.signbit(g) & ~np.isnan(w),
                                      np.signbit(w) & ~np.isnan(w))


def test_asserts_are_decided_when_compiling():
    A = np.ones((3, 3))
    assert sdfg.program(checked)(A, 3) == 27.0
    with pytest.raises(sdfg.FrontendError,
                       match=r"test_more_numpy.py:\d+: .*assertion failed "
                             r"for these arguments: wrong size"):
        sdfg.program(checked)(A, 4)


def data_assert(x):
    assert x[0] > 0
    return np.sum(x)


def sqrt_of_array(x):
    return math.sqrt(x)


def bad_pad_mode(x):
    return np.pad(x, 1, mode="linear_ramp")


def wide_wrap(x):
    return np.pad(x, 5, mode="wrap")


def bad_squeeze(A):
    return np.squeeze(A, axis=0)


def repeat_counts(x):
    return np.repeat(x, x.astype(np.int64))


def mismatched_tensordot(A):
    return np.tensordot(A, A[:2], axes=1)


def tuple_loop_break(x):
    s = 0.0
    for v in (x, x * 2.0):
        if v[0] > 0:
            break
        s = s + np.sum(v)
    return s


def reversed_variable_step(x):
    s = 0.0
    for i in reversed(range(0, 3, int(x[0]))):
        s = s + x[i]
    return s


def matrix_norm_order(A):
    return np.linalg.norm(A, 3)


def unknown_math(x):
    return math.gamma(x[0])


@pytest.mark.parametrize("fn,match", [
    (data_assert, r"assert on values computed at run time"),
    (sqrt_of_array, r"math.sqrt takes scalars, not arrays: use np.sqrt"),
    (bad_pad_mode, r"np.pad mode 'linear_ramp'.*supported modes: constant"),
    (wide_wrap, r"np.pad mode 'wrap' wider than the array.*at most 3"),
    (bad_squeeze, r"cannot select an axis to squeeze out"),
    (repeat_counts, r"repeat count.*not a constant integer"),
    (mismatched_tensordot, r"shape-mismatch for sum"),
    (tuple_loop_break, r"break or continue in a loop over a tuple"),
    (matrix_norm_order, r"np.linalg.norm of a matrix with ord 3"),
    (unknown_math, r"math.gamma.*of the math module only"),
    (reversed_variable_step, r"reversed\(range\(...\)\) with a step "
     r"computed at run time"),
])
def test_errors(fn, match):
    x = np.ones((3, 3)) if fn in (bad_squeeze, mismatched_tensordot,
                                  matrix_norm_order) else np.ones(3)
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(x)
    assert "test_more_numpy.py:" in str(info.value)


def copysign_of_zero(x):
    return np.sum(np.copysign(x, -1.0))


def test_copysign_gradient_is_zero_at_zero():
    # As abs at 0 (and JAX): no direction is preferred.
    x = np.array([0.0, -0.0, 2.0, -3.0])
    g = sdfg.grad(copysign_of_zero, ["x"])(x.copy())["x"]
    np.testing.assert_array_equal(g, [0.0, 0.0, -1.0, 1.0])


def integer_division(a, b):
    return a // b, a % b, b // 3, a % -1


def test_integer_division_by_zero_and_minus_one_as_numpy():
    # The hardware division traps on these (SIGFPE); NumPy returns 0 for a
    # zero divisor and wraps the minimum integer divided by -1.
    a = np.array([7, -7, 0, 5, np.iinfo(np.int64).min, -9])
    b = np.array([0, 0, -1, -1, -1, 4])
    with np.errstate(all="ignore"):
        want = integer_division(a, b)
    for got, w in zip(sdfg.program(integer_division)(a, b), want):
        assert got.dtype == w.dtype
        np.testing.assert_array_equal(got, w)
    a32, b32 = a.astype(np.int32) // 2, b.astype(np.int32)
    with np.errstate(all="ignore"):
        want = integer_division(a32, b32)
    for got, w in zip(sdfg.program(integer_division)(a32, b32), want):
        np.testing.assert_array_equal(got, w)


def integer_powers(a):
    return a ** 5 + a ** 0 + a ** 13 + np.power(a, 2)


def runtime_exponent(a):
    return 2 ** a


def negative_exponent(a):
    return a ** -2


def test_integer_powers():
    a = np.array([-3, 2, 0, 7, 1, -1, 40])
    np.testing.assert_array_equal(sdfg.program(integer_powers)(a),
                                  integer_powers(a))
    with pytest.raises(sdfg.FrontendError,
                       match="integer power with an exponent computed at "
                             "run time"):
        sdfg.program(runtime_exponent)(a)
    with pytest.raises(sdfg.FrontendError,
                       match="Integers to negative integer powers are not "
                             "allowed"):
        sdfg.program(negative_exponent)(a)


def small_int_sums(a, m):
    return np.sum(a), a.prod(), np.sum(m, axis=0)


def test_small_integer_sums_widen_as_numpy():
    # int32 sums and products in 64 bits (they overflowed in int32).
    a = np.array([2 ** 30, 2 ** 30, 5], dtype=np.int32)
    m = np.full((300, 2), 2 ** 29, dtype=np.int32)
    for got, want in zip(sdfg.program(small_int_sums)(a, m),
                         small_int_sums(a, m)):
        got = np.asarray(got)
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def empty_max(x):
    return np.max(x[:0])


def empty_min_axis(x):
    return np.min(x[:, :0], axis=1)


def empty_argmax(x):
    return np.argmax(x[:0])


@pytest.mark.parametrize("fn,message", [
    (empty_max, "zero-size array to reduction operation maximum"),
    (empty_min_axis, "zero-size array to reduction operation minimum"),
    (empty_argmax, "attempt to get argmax of an empty sequence"),
])
def test_extrema_of_empty_arrays_are_errors(fn, message):
    # NumPy raises ValueError; these returned -inf, inf and a huge index.
    with pytest.raises(sdfg.FrontendError, match=message):
        sdfg.program(fn)(np.ones((3, 4)))


def reversed_into(a, b):
    b[:] = a[::-1] * 2.0


def test_overlapping_arguments_that_are_written_are_rejected():
    x = np.arange(6.0)
    with pytest.raises(ValueError, match="arguments 'a' and 'b' share "
                                         "memory and the program writes 'b'"):
        sdfg.program(reversed_into)(x, x)
    # Separate arrays (and read-only aliases elsewhere) are fine.
    y = np.zeros(6)
    sdfg.program(reversed_into)(x, y)
    np.testing.assert_array_equal(y, x[::-1] * 2.0)


def float32_moments(a):
    return np.mean(a), np.var(a), np.std(a, axis=0), a.mean(axis=1)


def test_float32_moments_stay_float32():
    a = (np.arange(12, dtype=np.float32).reshape(3, 4) / 7).astype(
        np.float32)
    for got, want in zip(sdfg.program(float32_moments)(a),
                         float32_moments(a)):
        assert np.asarray(got).dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=1e-6)


def logical_functions(x, m):
    a = np.logical_and(x > 0.2, m)
    b = np.logical_or(x > 0.8, np.logical_not(m))
    c = np.logical_xor(x, m)
    return a, b, c, np.logical_xor(2, 0), np.where(np.logical_not(a), x, 0.0)


def test_logical_functions():
    x = np.array([0.0, 0.5, 0.9, 0.1, 0.3])
    m = np.array([True, False, True, True, False])
    for got, want in zip(sdfg.program(logical_functions)(x, m),
                         logical_functions(x, m)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def closeness(a, b):
    return (np.isclose(a, b), np.isclose(a, b, rtol=0.1, equal_nan=True),
            np.allclose(a, b), np.allclose(a[:2], b[:2]),
            np.allclose(a, b, 1e-3, 1e-2, True))


def test_isclose_and_allclose():
    a = np.array([1.0, np.inf, 1e-9, np.nan, 2.0, -np.inf, 1.0])
    b = np.array([1.0 + 1e-6, np.inf, 0.0, np.nan, 2.3, np.inf, 1.001])
    for got, want in zip(sdfg.program(closeness)(a, b), closeness(a, b)):
        np.testing.assert_array_equal(got, want)


def fmods(x, y, i, j):
    return np.fmod(x, y), np.fmod(i, j)


def test_fmod_has_the_dividends_sign():
    x = np.array([5.5, -5.5, 3.0, -0.0, 7.25])
    y = np.array([2.0, 2.0, -2.0, 1.0, 0.0])
    i = np.array([7, -7, 7, -7, 5])
    j = np.array([3, 3, -3, -3, 0])
    with np.errstate(all="ignore"):
        want = fmods(x, y, i, j)
        got = sdfg.program(fmods)(x, y, i, j)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    g = sdfg.grad(fmod_loss, ["x"])(x)["x"]
    np.testing.assert_allclose(g, 2 * np.fmod(x, 0.7), rtol=1e-15)


def fmod_loss(x):
    return np.sum(np.fmod(x, 0.7) ** 2)


def polynomial(A):
    coeffs = [1.0, -0.5, 0.25, 2]
    s = np.zeros_like(A)
    for k in range(4):
        s = s + coeffs[k] * A ** k
    return np.sum(s * s)


def test_list_of_numbers_indexed_by_a_loop_variable():
    # coeffs[k]: the numbers become an array indexed at run time.
    rng = np.random.default_rng(4)
    x = rng.standard_normal(5)
    assert_forward_and_gradient(polynomial, x, rng)


def nan_extrema(A):
    return (np.nanmax(A), np.nanmin(A, axis=0), np.nanmax(A, axis=1,
                                                          keepdims=True))


def nan_extremum_loss(A):
    return np.sum(np.nanmax(A, axis=1) ** 2)


def test_nanmax_and_nanmin():
    A = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan],
                  [-2.0, 5.0, np.nan]])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = nan_extrema(A)
    for got, w in zip(sdfg.program(nan_extrema)(A), want):
        np.testing.assert_array_equal(got, w)
    B = np.array([[1.0, np.nan, 3.0], [4.0, -1.0, np.nan]])
    g = sdfg.grad(nan_extremum_loss, ["A"])(B)["A"]
    np.testing.assert_array_equal(g, [[0, 0, 6.0], [8.0, 0, 0]])


def bit_operations(k, s):
    return (k << 2, k >> 1, k << s, k >> s, ~k, np.invert(k),
            np.bitwise_not(k), np.left_shift(k, s), np.right_shift(k, s),
            np.bitwise_and(k, 6), np.bitwise_or(k, 1), np.bitwise_xor(k, 3),
            ~(k > 0), (1 << 3) + k)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_bit_operations_match_numpy(dtype):
    # Counts past the width or negative shift everything out, as NumPy
    # (0, or -1 for negative values shifted right), not the hardware's.
    bits = np.dtype(dtype).itemsize * 8
    k = np.array([-7, -1, 0, 1, 5, 1 << 20, -(1 << 20), 3], dtype=dtype)
    s = np.array([0, 1, bits - 1, bits, bits + 6, -1, 2, 70], dtype=dtype)
    with np.errstate(all="ignore"):
        want = bit_operations(k, s)
        got = sdfg.program(bit_operations)(k, s)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def float_shift(x):
    return x << 1


def test_bit_operations_on_floats_are_errors():
    with pytest.raises(sdfg.FrontendError,
                       match=r"test_more_numpy.py:\d+: .*ufunc 'left_shift' "
                             r"not supported for float"):
        sdfg.program(float_shift)(np.arange(3.0))


def value_based_types(m, k32, f32, n):
    # NumPy 1.x's value-based casting: a Python number of the array's kind
    # keeps its type unless the value does not fit; one of a higher kind
    # (bool < int < float) sets it.
    return (m & 2, m | 4, m ^ n, m & k32[0], k32 ^ 2 ** 31, k32 & 2 ** 33,
            k32 + 2 ** 31, k32 ^ n, f32 * 1e300, f32 * 2.5, k32 * 2,
            m << m, m << k32[0], np.left_shift(k32, 2 ** 33))


def test_value_based_result_types():
    m = np.array([True, False, True])
    k32 = np.array([-5, 3, 7], dtype=np.int32)
    f32 = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        want = value_based_types(m, k32, f32, 2 ** 40)
        got = sdfg.program(value_based_types)(m, k32, f32, 2 ** 40)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


def augmented_bit_operations(k, m, x):
    k &= 6
    k |= 1
    k ^= 3
    k <<= 2
    k >>= 1
    m &= x > 0.5
    m |= x < 0.1
    m ^= x > 0.9
    j = 5
    j <<= 2
    k[k > 4] ^= 7
    k[0] <<= 1
    return j


def test_augmented_bit_operations():
    k = np.array([1, 2, 3, 9, 12])
    m = np.array([True, True, False, True, False])
    x = np.linspace(0.0, 1.0, 5)
    got_k, got_m, want_k, want_m = k.copy(), m.copy(), k.copy(), m.copy()
    assert sdfg.program(augmented_bit_operations)(got_k, got_m, x) == \
        augmented_bit_operations(want_k, want_m, x)
    np.testing.assert_array_equal(got_k, want_k)
    np.testing.assert_array_equal(got_m, want_m)


def bool_arithmetic(a, b, x):
    # NumPy's bools: + and maximum are or, * and minimum are and; //, %
    # and ** give int8; comparisons order False < True.
    return (a + b, a * b, a + True, np.add(a, b), np.maximum(a, b),
            np.minimum(a, b), a // b, a % b, a ** True, a < b, a > False,
            True > a, np.where(a[0] > a[1], x, -x), np.max(a), np.min(a),
            np.argmax(a), np.sum(a + a))


def bool_subtract(a, b):
    return a - b


def test_bool_arithmetic_follows_numpy():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    x = np.arange(4.0)
    with np.errstate(all="ignore"):
        want = bool_arithmetic(a, b, x)
        got = sdfg.program(bool_arithmetic)(a, b, x)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
    with pytest.raises(sdfg.FrontendError, match="numpy boolean subtract"):
        sdfg.program(bool_subtract)(a, b)


def huge_constant(x):
    return x + 2 ** 70


def test_integer_constant_out_of_range_is_a_located_error():
    with pytest.raises(sdfg.FrontendError,
                       match=r"test_more_numpy.py:\d+: an integer constant "
                             r"out of the range of int64"):
        sdfg.program(huge_constant)(np.arange(3))


def bool_results(a, b, M):
    return (np.where(a, a, True), np.where(a, False, a), np.fmax(a, b),
            np.fmin(a, b), np.dot(a, b), M @ M.T, np.square(a))


def bool_negative(a):
    return -a


def bool_scalar_index(x, a):
    return x[a[0]]


def test_bool_results_follow_numpy():
    a = np.array([True, False, True, True])
    b = np.array([False, False, True, True])
    M = np.array([[True, False], [False, True]])
    for got, want in zip(sdfg.program(bool_results)(a, b, M),
                         bool_results(a, b, M)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)
    with pytest.raises(sdfg.FrontendError, match="numpy boolean negative"):
        sdfg.program(bool_negative)(a)
    with pytest.raises(sdfg.FrontendError,
                       match="a boolean scalar as an index"):
        sdfg.program(bool_scalar_index)(np.ones(4), a)
