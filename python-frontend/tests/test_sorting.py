"""Sorting and order statistics (sorting.py, sdfg.argsort): np.argsort,
np.sort and a.sort(), np.take_along_axis, np.median, np.percentile and
np.quantile. Forward results against NumPy (positions exactly, values to
rounding), gradients against central finite differences in float64; and
their errors."""

import numpy as np
import pytest

import sdfg
from checks import assert_forward_and_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def argsort_last(A):
    return np.argsort(A)


def argsort_first(A):
    return np.argsort(A, axis=0, kind="stable")


def argsort_flat(A):
    return A.argsort(axis=None)


@pytest.mark.parametrize("fn", [argsort_last, argsort_first, argsort_flat])
@pytest.mark.parametrize("shape", [(1, 1), (3, 2), (4, 7), (2, 16), (3, 17),
                                   (5, 64), (2, 1000), (300, 3)])
def test_argsort_matches_numpy(fn, shape):
    # Ties (values rounded to a few levels) and NaNs: the stable order,
    # NaNs last, as NumPy's kind="stable".
    rng = np.random.default_rng(sum(shape))
    A = np.round(rng.standard_normal(shape) * 2) / 2
    A[rng.random(shape) < 0.05] = np.nan
    got = sdfg.program(fn)(A.copy())
    axis = {argsort_last: -1, argsort_first: 0, argsort_flat: None}[fn]
    want = np.argsort(A, axis=axis, kind="stable")
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)


def argsort_vector(x):
    return np.argsort(x, kind="stable")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64,
                                   np.int32])
@pytest.mark.parametrize("n", [2048, 5001])
def test_long_lines_match_numpy(dtype, n):
    # Lines of 2048 and more are radix sorted on keys mapped to unsigned
    # integers: ties keep their order, -0.0 and 0.0 tie, NaNs of either
    # sign go last in their order, infinities and the integer extremes
    # land where NumPy's stable sort puts them.
    rng = np.random.default_rng(n)
    if np.dtype(dtype).kind == "f":
        x = (np.round(rng.standard_normal(n) * 3) / 2).astype(dtype)
        special = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-300,
                   -1e-300, np.finfo(dtype).max, -np.finfo(dtype).max]
    else:
        x = rng.integers(-1000, 1000, size=n).astype(dtype)
        info = np.iinfo(dtype)
        special = [info.min, info.max, 0, -1, info.min + 1]
    picks = rng.integers(0, n, size=200)
    x[picks] = np.array(special, dtype=dtype)[np.arange(200) % len(special)]
    got = sdfg.program(argsort_vector)(x.copy())
    np.testing.assert_array_equal(got, np.argsort(x, kind="stable"))


def sort_ints(A):
    return np.sort(A, axis=0)


def argsort_bools(A):
    return np.argsort(A > 0)


def test_integer_and_boolean_keys():
    rng = np.random.default_rng(1)
    I = rng.integers(-5, 5, size=(33, 4))
    np.testing.assert_array_equal(sdfg.program(sort_ints)(I.copy()),
                                  np.sort(I, axis=0))
    A = rng.standard_normal((3, 17))
    np.testing.assert_array_equal(sdfg.program(argsort_bools)(A.copy()),
                                  np.argsort(A > 0, kind="stable"))


def weighted_sorted(A):
    # The sorted values weighted by rank: the gradient of each element is
    # the weight of the rank it lands on.
    s = np.sort(A, axis=1)
    return np.sum(s * np.arange(1.0, A.shape[1] + 1) ** 2)


def trimmed_mean(A):
    # A robust mean: drop the two smallest and largest of each column.
    s = np.sort(A, axis=0)
    return np.sum(np.mean(s[2:-2], axis=0) ** 2)


def sort_in_place(A):
    A.sort()
    B = A * A
    B.sort(axis=0)
    return np.sum(B[0] * 3.0 + B[-1]) + np.sum(A[:, 0])


def gather_along(A):
    order = np.argsort(A[0] * A[1])
    cols = np.take_along_axis(A, order[None, :], axis=1)
    rows = np.take_along_axis(A, np.argsort(A, axis=0)[:1], axis=0)
    return np.sum(cols * np.arange(A.shape[1])) + np.sum(np.exp(rows))


def sort_in_time_loop(A):
    # A sort per step of a time loop: the reversal replays each step's
    # positions.
    x = A[0].copy()
    for t in range(3):
        x = np.sort(np.sin(x) + A[t + 1]) * 0.9
    return np.sum(x * np.arange(x.shape[0]))


@pytest.mark.parametrize("fn", [weighted_sorted, trimmed_mean, sort_in_place,
                                gather_along, sort_in_time_loop])
def test_sort_gradients(fn):
    rng = np.random.default_rng(7)
    A = rng.standard_normal((6, 9))
    assert_forward_and_gradient(fn, A, rng)


def medians(A):
    return (np.median(A) + np.sum(np.median(A, axis=0) ** 2)
            + np.sum(np.median(A[:, :5], axis=1, keepdims=True) * A[:, :1]))


def percentiles(A):
    return (np.sum(np.percentile(A, [10, 50, 97.5], axis=1) ** 2)
            + np.percentile(A, 25) + np.quantile(A[1:], 0.8)
            + np.sum(np.quantile(A, (0.3, 0.7), axis=0, keepdims=True)))


def methods(A):
    return (np.sum(np.quantile(A, 0.4, axis=1, method="lower") ** 2)
            + np.sum(np.quantile(A, 0.4, axis=1, method="higher") ** 2)
            + np.sum(np.quantile(A, 0.5, axis=1, method="nearest") ** 2)
            + np.sum(np.quantile(A, 0.4, axis=1, method="midpoint") ** 2)
            + np.sum(np.quantile(A, 0.5, axis=1, method="midpoint") ** 2)
            + np.percentile(A, 62.5, method="linear"))


@pytest.mark.parametrize("fn", [medians, percentiles, methods])
def test_order_statistics(fn):
    rng = np.random.default_rng(3)
    A = rng.standard_normal((7, 10))
    assert_forward_and_gradient(fn, A, rng)


def median_of_ints(A):
    return np.median(A, axis=1)


def median_of_nan(A):
    return np.median(A, axis=0)


def test_order_statistic_values():
    I = np.arange(12).reshape(3, 4) ** 2
    got = sdfg.program(median_of_ints)(I.copy())
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, np.median(I, axis=1))
    A = np.arange(12.0).reshape(4, 3)
    A[1, 2] = np.nan
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(sdfg.program(median_of_nan)(A.copy()),
                                      np.median(A, axis=0))


def median_absolute_deviation(A):
    # A robust scale estimate, as in outlier-resistant fitting.
    m = np.median(A, axis=0)
    return np.sum(np.median(np.abs(A - m), axis=0) * 1.4826)


def test_median_absolute_deviation_gradient():
    rng = np.random.default_rng(11)
    A = rng.standard_normal((9, 5))
    assert_forward_and_gradient(median_absolute_deviation, A, rng)


def bad_kind(A):
    return np.sort(A, kind="bogo")


def bad_q(A):
    return np.percentile(A, 120)


def runtime_q(A):
    return np.quantile(A, A[0, 0])


def bad_method(A):
    return np.quantile(A, 0.5, method="hazen")


def sort_scalar(A):
    return np.sort(A[0, 0])


def sort_temporary(A):
    (A * 2).sort()
    return A


def bad_axis(A):
    return np.argsort(A, axis=2)


def flat_in_place(A):
    A.sort(axis=None)
    return A


def ragged_take(A):
    return np.take_along_axis(A, np.argsort(A[0]), axis=1)


@pytest.mark.parametrize("fn,message", [
    (bad_kind, "sort kind must be one of"),
    (bad_q, r"q must be in \[0, 100\], got 120"),
    (runtime_q, "q computed at run time"),
    (bad_method, "method 'hazen'"),
    (sort_scalar, "sorting a 0-d value"),
    (sort_temporary, r"call of \(A \* 2\).sort"),
    (bad_axis, "axis 2 is out of bounds for an array of dimension 2"),
    (flat_in_place, "needs an integer axis"),
    (ragged_take, "same number of dimensions"),
])
def test_sorting_errors(fn, message):
    with pytest.raises(sdfg.FrontendError, match=message) as info:
        sdfg.program(fn)(np.ones((3, 4)))
    # Located at the call in this file.
    assert "test_sorting.py" in str(info.value)
