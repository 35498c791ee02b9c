"""Searching sorted vectors (searching.py, sdfg.searchsorted):
np.searchsorted and the array method, np.interp. Positions exactly equal
to NumPy's, interpolated values bit for bit (the same formula and
fallbacks), gradients with respect to x, xp and fp against central finite
differences in float64; and the errors."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def both_sides(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right")


def method_form(a, v):
    return a.searchsorted(v, "right")


def with_sorter(a, v):
    return np.searchsorted(a, v, sorter=np.argsort(a))


def test_searchsorted_matches_numpy():
    # Ties, NaNs at the end of the sorted vector and among the values,
    # values outside the range, 2-d values; lengths around powers of two.
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 8, 9, 100):
        a = np.sort(np.round(rng.standard_normal(n) * 2) / 2)
        if n > 2:
            a[-1] = np.nan
        v = np.round(rng.standard_normal((6, 5)) * 3) / 2
        v[0, :3] = [np.nan, np.inf, -np.inf]
        for got, want in zip(sdfg.program(both_sides)(a, v),
                             both_sides(a, v)):
            assert got.dtype == np.int64
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(sdfg.program(method_form)(a, v),
                                      method_form(a, v))
    u = rng.standard_normal(40)
    w = rng.standard_normal(25)
    np.testing.assert_array_equal(sdfg.program(with_sorter)(u, w),
                                  with_sorter(u, w))


def first_statement(a, v, w):
    # The op as the program's first dataflow (it must open a state).
    j = np.searchsorted(a, v)
    return w[j] * v


def test_searchsorted_as_the_first_statement():
    a = np.array([0.0, 1.0, 2.0])
    v = np.array([0.5, 2.0, -1.0, 3.0])
    w = np.array([10.0, 20.0, 30.0, 40.0])
    np.testing.assert_array_equal(sdfg.program(first_statement)(a, v, w),
                                  first_statement(a, v, w))


def scalar_value(a, x):
    return np.searchsorted(a, x), np.searchsorted(a, 0.5, "right")


def mixed_types(a, v):
    return np.searchsorted(a, v), np.searchsorted(v > 0, True)


def test_searchsorted_scalars_and_types():
    a = np.array([0.0, 0.5, 0.5, 1.0])
    got = sdfg.program(scalar_value)(a, 0.5)
    assert [int(g) for g in got] == [1, 3]
    # Integers searched among floats compare as floats; booleans as
    # integers.
    ai = np.array([-3, 0, 0, 2, 9])
    v = np.array([-2.5, 0.0, 2.0, 10.0, -4.0])
    for got, want in zip(sdfg.program(mixed_types)(ai, v),
                         mixed_types(ai, v)):
        np.testing.assert_array_equal(got, want)


def interp_default(x, xp, fp):
    return np.interp(x, xp, fp)


def interp_bounds(x, xp, fp):
    return np.interp(x, xp, fp, left=-1.0, right=fp[0] * 2)


def interp_scalar(x, xp, fp):
    return np.interp(0.25, xp, fp) + np.interp(x[0, 0], xp, fp)


def test_interp_matches_numpy_bit_for_bit():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.random(40) * 1.4 - 0.2, [np.nan, np.inf,
                                                     -np.inf]])
    xp = np.sort(rng.random(9))
    x = np.concatenate([x, xp, xp[:1] - 1e-17, xp[-1:] + 1e-16]).reshape(2, -1)
    fp = rng.standard_normal(9)
    for fn in (interp_default, interp_bounds):
        got, want = sdfg.program(fn)(x, xp, fp), fn(x, xp, fp)
        assert got.dtype == np.float64 and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    assert sdfg.program(interp_scalar)(x, xp, fp) == \
        interp_scalar(x, xp, fp)


def test_interp_corner_cases():
    # Repeated knots (a jump), infinite values (NumPy's fallbacks from the
    # right knot and for flat intervals), one knot, integer and float32
    # inputs (float64 results).
    xp = np.array([0., 1., 1., 2., 3., 3., 3., 4.])
    x = np.array([-1, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 5, np.nan, np.inf,
                  -np.inf])
    cases = [
        (x, xp, np.array([0., 1., 5., 2., np.inf, 1., 2., -np.inf])),
        (x, xp, np.array([0., 1., 5., 2., 2., 1., 2., 3.])),
        (x, xp, np.array([0., 1., np.inf, np.inf, 2., 1., 2., 3.])),
        (x, np.array([2.0]), np.array([3.0])),
        (x.astype(np.float32), xp.astype(np.float32),
         np.linspace(0, 1, 8, dtype=np.float32)),
        (np.arange(-2, 7), np.arange(5), np.arange(5) ** 2),
    ]
    for args in cases:
        got, want = sdfg.program(interp_default)(*args), interp_default(*args)
        assert got.dtype == want.dtype == np.float64
        np.testing.assert_array_equal(got, want)


def interp_loss(x, xp, fp):
    y = np.interp(x, xp, fp, left=-0.5, right=2.0)
    return np.sum(y * y * np.cos(x))


def lookup_in_time_loop(x, xp, fp):
    # A rate tabulated against the state, read at every step: each step's
    # positions must come back from the tape for its own reversed gathers.
    for t in range(5):
        x = x + 0.1 * np.interp(x, xp, fp) * (1.0 - x)
    return np.sum(x ** 3)


def binned_rates(x, edges, rates):
    # A piecewise-constant rate per bin (len(edges) + 1 bins), looked up
    # directly by the positions: their gather reads the op's result.
    for t in range(4):
        x = x * (1.0 + 0.1 * rates[np.searchsorted(edges, x)])
    return np.sum(x * x)


def _fd_check(fn, args, names, rng, skip=()):
    wrt = [n for k, n in enumerate(names) if k not in skip]
    grads = sdfg.grad(fn, wrt)(*[a.copy() for a in args])
    for k, name in enumerate(names):
        if k in skip:
            continue
        d = rng.standard_normal(args[k].shape)
        h = 1e-6
        plus = list(args)
        minus = list(args)
        plus[k] = args[k] + h * d
        minus[k] = args[k] - h * d
        fd = (fn(*plus) - fn(*minus)) / (2 * h)
        ad = float(np.sum(grads[name] * d))
        assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (name, fd, ad)


@pytest.mark.parametrize("fn", [interp_loss, lookup_in_time_loop,
                                binned_rates])
def test_interp_gradients(fn):
    rng = np.random.default_rng(3)
    xp = np.sort(rng.random(12)) * 1.2 - 0.1
    fp = rng.standard_normal(13 if fn is binned_rates else 12)
    # Points inside, on neither side of a knot by less than the step, and
    # outside the knots (left/right values: no gradient to xp or fp).
    x = rng.random((4, 6)) * 1.4 - 0.2
    np.testing.assert_allclose(sdfg.program(fn)(x, xp, fp), fn(x, xp, fp),
                               rtol=1e-13)
    names = fn.__code__.co_varnames[:3]
    if fn is binned_rates:
        # (No gradient with respect to the edges: the rates are constant
        # between them.)
        _fd_check(fn, [x, xp, fp], names, rng, skip=(1,))
    else:
        _fd_check(fn, [x, xp, fp], names, rng)


def test_interp_gradient_at_the_ends_is_finite():
    # Repeated end knots: the zero-width interval's slope is never used,
    # and must not turn the gradient into NaN either.
    xp = np.array([0.0, 0.0, 1.0, 2.0, 2.0])
    fp = np.array([1.0, 2.0, 3.0, 5.0, 4.0])
    x = np.array([-1.0, 0.5, 1.5, 3.0, 2.0, 0.0])
    g = sdfg.grad(interp_loss, ["x", "xp", "fp"])(x, xp, fp)
    for name in ("x", "xp", "fp"):
        assert np.all(np.isfinite(g[name])), (name, g[name])


def side_typo(a):
    return np.searchsorted(a, 0.5, side="middle")


def matrix_table(a):
    return np.searchsorted(np.ones((2, 2)), a)


def float_sorter(a):
    return np.searchsorted(a, 0.5, sorter=a)


def missing_fp(a):
    return np.interp(a, xp=a)


def keywords(a):
    return np.interp(x=a, xp=a, fp=a * 2) + np.searchsorted(a=a, v=a)


def test_keyword_arguments():
    a = np.linspace(0.0, 1.0, 6)
    np.testing.assert_array_equal(sdfg.program(keywords)(a), keywords(a))


def periodic(a):
    return np.interp(a, a, a, period=2.0)


def lengths_differ(a):
    return np.interp(a, a, a[:3])


def no_knots(a):
    return np.interp(a, a[:0], a[:0])


def knot_matrix(a):
    return np.interp(a, np.ones((2, 2)), a)


@pytest.mark.parametrize("fn,message", [
    (side_typo, "side must be 'left' or 'right', got 'middle'"),
    (matrix_table, "the sorted array must be 1-d, not of dimension 2"),
    (float_sorter, "sorter must be a 1-d integer array"),
    (periodic, "np.interp with period"),
    (missing_fp, "np.interp takes x, xp and fp"),
    (lengths_differ, "fp and xp are not of the same length"),
    (no_knots, "array of sample points is empty"),
    (knot_matrix, "xp must be 1-d, not of dimension 2"),
])
def test_searching_errors(fn, message):
    with pytest.raises(sdfg.FrontendError, match=message) as info:
        sdfg.program(fn)(np.linspace(0.0, 1.0, 6))
    # Located at the call in this file.
    assert "test_searching.py" in str(info.value)
