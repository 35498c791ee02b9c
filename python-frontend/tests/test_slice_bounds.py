"""Slice bounds as NumPy reads them: counted from the end when negative,
then clamped to the dimension (for negative steps too), whether they are
constants, loop-dependent (a window x[i:i+3] whose loop runs past the
end) or read from data. Forward values against NumPy, gradients against
central finite differences (float64)."""

import warnings

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def start_past_end(x):
    return x[12:3:-1]


def stop_before_start(x):
    return x[5:-100:-1]


def start_at_length(x):
    return x[10::-3]


def two_negative_steps(A):
    return A[5:0:-1, 10::-1]


def empty_reversed(x):
    return x[-100:-200:-1]


def write_reversed(x):
    y = np.zeros(10)
    y[12:3:-1] = x[:6]
    return y


@pytest.mark.parametrize("fn, arg", [
    (start_past_end, np.arange(10.0)),
    (stop_before_start, np.arange(10.0)),
    (start_at_length, np.arange(10.0)),
    (two_negative_steps, np.arange(12.0).reshape(3, 4)),
    (empty_reversed, np.arange(10.0)),
    (write_reversed, np.arange(10.0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_constant_bounds_clamped(fn, arg):
    want = fn(arg.copy())
    got = sdfg.program(fn)(arg.copy())
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def window_lengths(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i:i + 3].shape[0]
    return out


def window_means(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.mean(x[i:i + 3])
    return np.sum(out * out)


def window_dots(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.dot(x[i:i + 3], x[i:i + 3])
    return np.sum(out)


def strided_windows(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i:i + 5:2])
    return np.sum(out * out)


def start_past_the_end(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[2 * i:2 * i + 3] ** 2)
    return np.sum(out)


def clamped_start(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[max(0, i - 2):i + 3])
    return np.sum(out * out)


def sign_changing_start(x):
    # x[i - 1:i + 2] at i = 0 is x[-1:2]: empty, as NumPy reads it.
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i - 1:i + 2])
    return np.sum(out * out)


def reversed_windows(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i + 5:i - 3:-2] * x[i + 5:i - 3:-2])
    return np.sum(out)


def window_update(x):
    out = np.sin(np.arange(10.0))
    for i in range(10):
        out[i:i + 3] = out[i:i + 3] + x[i]
    return np.sum(out * out)


def _check(fn, x, rtol=1e-12):
    want = fn(x.copy())
    np.testing.assert_allclose(sdfg.program(fn)(x.copy()), want, rtol=rtol)
    g = sdfg.grad(fn, ["x"])(x.copy())["x"]
    h = 1e-6
    fd = np.array([(fn(x + h * e) - fn(x - h * e)) / (2 * h)
                   for e in np.eye(x.size)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-8)


X = np.sin(np.arange(10.0) * 1.7) + 0.1


def test_window_lengths_shrink_at_the_end():
    np.testing.assert_array_equal(sdfg.program(window_lengths)(X.copy()),
                                  window_lengths(X.copy()))


@pytest.mark.parametrize("fn", [
    window_means, window_dots, strided_windows, start_past_the_end,
    clamped_start, sign_changing_start, reversed_windows, window_update,
], ids=lambda f: f.__name__)
def test_loop_windows(fn):
    _check(fn, X)


def data_segments(x, s):
    return np.sum(x[s[0]:s[1]] ** 2) + np.sum(x[s[2]::-2])


def segments_in_loop(x, s):
    t = 0.0
    for i in range(s.shape[0] - 1):
        seg = x[s[i]:s[i + 1]]
        t += np.sum(seg[1:] * seg[1:]) + np.sum(seg[::-1][:2])
    return t


@pytest.mark.parametrize("s", [
    np.array([2, 100, 30]), np.array([-100, 4, -3]), np.array([7, 3, 9]),
    np.array([-4, -1, -20]),
], ids=str)
def test_data_bounds_clamped(s):
    want = data_segments(X.copy(), s)
    np.testing.assert_allclose(sdfg.program(data_segments)(X.copy(), s),
                               want, rtol=1e-13)
    g = sdfg.grad(data_segments, ["x"])(X.copy(), s)["x"]
    h = 1e-6
    fd = np.array([(data_segments(X + h * e, s) -
                    data_segments(X - h * e, s)) / (2 * h)
                   for e in np.eye(X.size)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-8)


def test_data_segment_views_in_a_loop():
    s = np.array([0, 3, 3, 7, 12])
    want = segments_in_loop(X.copy(), s)
    np.testing.assert_allclose(sdfg.program(segments_in_loop)(X.copy(), s),
                               want, rtol=1e-13)


def window_statistics(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        w = x[i:i + 3]  # 3, then 2 and 1 long at the end
        out[i] = (w.size + w.var(ddof=0) * 2 + np.mean(w)
                  + np.argmax(w) * 0.1 + w.argmin() * 0.01)
    return np.sum(out * out)


def window_deviations(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.std(x[i:i + 4], ddof=1) if i < 7 else np.std(x[i:])
    return out


def window_cumulatives(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = (np.cumsum(x[i:i + 3])[-1] + np.cumprod(x[i:i + 3])[0]
                  + np.maximum.accumulate(x[i:i + 4])[-1])
    return np.sum(out * out)


def data_window_cumsum(x, s):
    return np.sum(np.cumsum(x[s[0]:s[1]]) ** 2)


def argmax_of_data_window(x, s):
    return np.argmax(x[s[0]:s[1]])


def degrees_of_freedom(x, s):
    w = x[s[0]:s[1]]
    return np.var(w, ddof=1), np.std(x[3:5], ddof=3), np.var(x[2:4], ddof=2)


def test_variance_with_ddof_past_the_length():
    # NumPy divides by max(N - ddof, 0): nan for nothing over 0, inf else.
    for s in ([2, 2], [2, 3], [1, 6]):
        s = np.array(s)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = degrees_of_freedom(X, s)
        got = sdfg.program(degrees_of_freedom)(X, s)
        np.testing.assert_array_equal(got, want)


def test_window_statistics():
    _check(window_statistics, X)
    # (np.std of a length-1 window is 0 whatever x: its gradient through
    # sqrt at 0 is NaN, as JAX's; values only.)
    np.testing.assert_allclose(sdfg.program(window_deviations)(X.copy()),
                               window_deviations(X.copy()), rtol=1e-13)


def test_window_cumulatives():
    _check(window_cumulatives, X)
    for s in ([2, 7], [5, 3], [0, 10]):
        s = np.array(s)
        np.testing.assert_allclose(
            sdfg.program(data_window_cumsum)(X.copy(), s),
            data_window_cumsum(X.copy(), s), rtol=1e-13)


def max_of_data_window(x, s):
    return np.max(x[s[0]:s[1]]) - np.min(x[s[1]:s[2]])


def test_extrema_of_windows_empty_when_run():
    # NumPy's ValueError where the window is empty; values elsewhere.
    prog = sdfg.program(argmax_of_data_window)
    assert prog(X, np.array([2, 7])) == argmax_of_data_window(X, np.array(
        [2, 7]))
    with pytest.raises(ValueError):
        argmax_of_data_window(X, np.array([5, 5]))
    with pytest.raises(ValueError, match="zero-size array to a reduction"):
        prog(X, np.array([5, 5]))
    prog = sdfg.program(max_of_data_window)
    s = np.array([1, 4, 9])
    assert prog(X, s) == max_of_data_window(X, s)
    for s in ([3, 3, 9], [1, 4, 2]):
        with pytest.raises(ValueError):
            max_of_data_window(X, np.array(s))
        with pytest.raises(ValueError, match="zero-size array"):
            prog(X, np.array(s))


def scaled_segments(x, s):
    for j in range(s.shape[0] - 1):
        x[s[j]:s[j + 1]] *= x[s[j]] + 2.0
    return np.sum(x ** 2)


@pytest.mark.parametrize("s", [
    np.array([0, 3, 7, 10]), np.array([8, 2, -3, 40]),
    np.array([1, 1, 5, 9]),
], ids=str)
def test_data_segments_updated_in_place(s):
    # The tape of the overwritten elements is sized by the array (the
    # window's start is at least 0), not by its length, which is data.
    want = scaled_segments(X.copy(), s)
    np.testing.assert_allclose(sdfg.program(scaled_segments)(X.copy(), s),
                               want, rtol=1e-13)
    g = sdfg.grad(scaled_segments, ["x"])(X.copy(), s)["x"]
    h = 1e-6
    fd = np.array([(scaled_segments(X + h * e, s) -
                    scaled_segments(X - h * e, s)) / (2 * h)
                   for e in np.eye(X.size)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-8)


def laplacian_by_slice_objects(u):
    c = slice(1, -1)
    return u[c, :-2] + u[c, 2:] + u[:-2, c] + u[2:, c] - 4 * u[c, c]


def strided_slice_objects(x):
    even = slice(None, None, 2)
    return np.sum(x[even] * x[slice(1, None, 2)]) + np.sum(
        x[slice(None, None, -1)][:3])


def windows_by_slice_objects(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[slice(i, i + 3)] ** 2)
    return np.sum(out)


def tuple_of_slices(A):
    idx = (slice(1, None), 0)
    A[idx] = 5.0
    return A


@pytest.mark.parametrize("fn,arg", [
    (laplacian_by_slice_objects, np.sin(np.arange(30.0)).reshape(6, 5)),
    (strided_slice_objects, np.sin(np.arange(8.0))),
    (windows_by_slice_objects, X),
    (tuple_of_slices, np.arange(12.0).reshape(4, 3)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_slice_objects(fn, arg):
    want = fn(arg.copy())
    got = sdfg.program(fn)(arg.copy())
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_slice_object_window_gradient():
    _check(windows_by_slice_objects, X)


def window_chosen_in_branches(x, s):
    if s[0] > 0:
        w = x[s[0]:s[1]]
    else:
        w = x[:s[1]]
    return np.sum(w)


def window_chosen_by_expression(x, s):
    w = x[s[0]:] if s[2] > 0 else x[s[0]:s[1]]
    return np.sum(w)


def window_used_in_its_branch(x, s):
    t = 0.0
    if s[0] > 0:
        t = np.sum(x[s[0]:s[1]])
    else:
        t = np.sum(x[:s[1]] ** 2)
    return t


def test_windows_of_run_time_length_chosen_by_branches():
    # One translation cannot follow a length each branch computes: a
    # located error where the name is used after the branch (it was the
    # last branch's length, silently, or invalid IR).
    s = np.array([2, 6, 1])
    with pytest.raises(sdfg.FrontendError,
                       match=r"'w' after the branch of line \d+"):
        sdfg.program(window_chosen_in_branches)(X, s)
    with pytest.raises(sdfg.FrontendError,
                       match="conditional expression whose array's length "
                       "is computed in its branch"):
        sdfg.program(window_chosen_by_expression)(X, s)
    for s in (np.array([2, 6, 1]), np.array([0, 4, 0])):
        assert sdfg.program(window_used_in_its_branch)(X, s) == \
            pytest.approx(window_used_in_its_branch(X, s), rel=1e-14)


def csr_rows(p, cols, data, x):
    n = p.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.dot(data[p[i]:p[i + 1]], x[cols[p[i]:p[i + 1]]])
    return np.sum(y ** 2)


def test_csr_row_dot_of_equal_data_windows():
    # Both windows read p[i] and p[i+1] in one statement: one read, one
    # clamp, provably equal lengths (was "cannot prove the contracted
    # extents equal").
    rng = np.random.default_rng(0)
    d = rng.random((6, 8)) * (rng.random((6, 8)) < 0.4)
    p = np.concatenate([[0], np.cumsum(np.count_nonzero(d, 1))])
    r, c = np.nonzero(d)
    data, x = d[r, c], rng.random(8)
    assert sdfg.program(csr_rows)(p, c, data, x) == pytest.approx(
        csr_rows(p, c, data, x), rel=1e-14)
    g = sdfg.grad(csr_rows, ["data", "x"])(p, c, data, x)
    h = 1e-6
    for name, k in (("data", 2), ("x", 3)):
        args = [p, c, data, x]
        fd = []
        for e in np.eye(args[k].size):
            hi, lo = list(args), list(args)
            hi[k], lo[k] = args[k] + h * e, args[k] - h * e
            fd.append((csr_rows(*hi) - csr_rows(*lo)) / (2 * h))
        np.testing.assert_allclose(g[name], fd, rtol=1e-7, atol=1e-9)


def segment_after_the_loop(x, s):
    t = 0.0
    for j in range(s.shape[0] - 1):
        seg = x[s[j]:s[j + 1]]
        t += np.sum(seg)
    return t + np.sum(seg)


def window_after_the_loop(x):
    for i in range(4):
        w = x[i:i + 3]
    return np.sum(w)


def test_run_time_length_after_the_loop():
    # The last segment's length was computed in the last iteration only:
    # a located error where it is read after the loop (was invalid IR).
    with pytest.raises(sdfg.FrontendError,
                       match=r"'seg' after the loop of line \d+"):
        sdfg.program(segment_after_the_loop)(X, np.array([0, 3, 7]))
    # A window of fixed length is the last iteration's, as in NumPy.
    assert sdfg.program(window_after_the_loop)(X) == pytest.approx(
        window_after_the_loop(X), rel=1e-15)
