"""Selections whose length depends on the data: reductions of a masked
selection x[mask] (max/min/std/var/any/all/count_nonzero, beside the
sum/mean/prod of test_indexing.py), np.histogram and np.bincount (whose
lengths are known when compiling), forward against NumPy on several
seeds with empty and all-true masks, gradients against finite
differences, and what stays refused (a located FrontendError) or fails
when the program runs as NumPy's does (ValueError)."""

import numpy as np
import pytest

import sdfg
from sdfg.errors import FrontendError
from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def selection_reductions(x, w, t):
    m = w > t
    return (np.max(x[m]), x[m].min(), np.amax(x[m] * 2.0),
            np.std(x[m]), x[m].var(), np.var(x[m], ddof=1),
            x[m].std(ddof=2), np.any(x[m] > 0.5), x[m].all(),
            np.all(x[m] > 0.1), np.count_nonzero(x[m] > 0.5),
            np.count_nonzero(m), m.sum())


def selection_sums(x, w, t):
    m = w > t
    return (np.std(x[m]), x[m].var(), np.var(x[m], ddof=1),
            x[m].std(ddof=2))


def selection_empty_ok(x, w, t):
    # What NumPy gives for an empty selection too.
    m = w > t
    return (np.any(x[m] > 0.5), x[m].all(), np.count_nonzero(x[m]),
            np.var(x[m]), x[m].std())


def selection_max(x, w, t):
    return np.max(x[w > t])


def selection_min(x, w, t):
    return x[w > t].min()


def int_selection(k, w):
    m = w > 0.5
    return np.max(k[m]), np.min(k[m]), np.any(k[m]), np.all(k[m])


def row_selection(A, m):
    return np.max(A[m]), np.max(A[m], axis=0), A[m].min(axis=0), \
        np.min(A[m], axis=(0, 1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_selection_reductions(seed):
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal(11), rng.random(11)
    x[3] = 0.0  # a zero for any/all/count_nonzero
    prog = sdfg.program(selection_reductions)
    for t in (0.3, -1.0):  # some selected, all selected
        got, want = prog(x, w, t), selection_reductions(x, w, t)
        for k, (g, e) in enumerate(zip(got, want)):
            assert np.asarray(g).dtype == np.asarray(e).dtype, k
            if k in (3, 4, 5, 6):
                # Sums: vectorised (reassociated) by the compiler.
                np.testing.assert_allclose(g, e, rtol=1e-13)
            else:
                np.testing.assert_array_equal(g, e)
    with np.errstate(all="ignore"):
        # One selected: ddof=1 divides by 0 (inf), ddof=2 by max(-1, 0).
        t = np.sort(w)[-2]
        for g, e in zip(sdfg.program(selection_sums)(x, w, t),
                        selection_sums(x, w, t)):
            np.testing.assert_array_equal(g, e)
        for t in (2.0, 0.3):  # none selected, some
            got = sdfg.program(selection_empty_ok)(x, w, t)
            for g, e in zip(got, selection_empty_ok(x, w, t)):
                assert np.asarray(g).dtype == np.asarray(e).dtype
                np.testing.assert_allclose(g, e, rtol=1e-13)


def test_selection_extremum_skips_unselected_nan():
    x = np.array([np.nan, 1.0, 3.0, -2.0])
    w = np.array([0.0, 1.0, 1.0, 0.0])
    assert sdfg.program(selection_max)(x, w, 0.5) == 3.0
    assert sdfg.program(selection_min)(x, w, 0.5) == 1.0
    # A selected NaN propagates, as in NumPy.
    assert np.isnan(sdfg.program(selection_max)(x, w, -0.5))


def test_empty_selection_max_raises_when_run():
    rng = np.random.default_rng(3)
    x, w = rng.random(6), rng.random(6)
    for fn in (selection_max, selection_min):
        prog = sdfg.program(fn)
        assert prog(x, w, 0.0) == fn(x, w, 0.0)
        with pytest.raises(ValueError):
            fn(x, w, 2.0)  # NumPy
        with pytest.raises(ValueError, match="zero-size array"):
            prog(x, w, 2.0)
        # The program is usable after the failure.
        assert prog(x, w, 0.5) == fn(x, w, 0.5)


def test_integer_and_row_selections():
    rng = np.random.default_rng(4)
    k, w = rng.integers(-5, 5, 9), rng.random(9)
    w[0] = 0.9
    for g, e in zip(sdfg.program(int_selection)(k, w), int_selection(k, w)):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_array_equal(g, e)
    A = rng.standard_normal((5, 3))
    m = np.array([True, False, True, True, False])
    for g, e in zip(sdfg.program(row_selection)(A, m), row_selection(A, m)):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_array_equal(g, e)
    with pytest.raises(ValueError, match="zero-size array"):
        sdfg.program(row_selection)(A, np.zeros(5, bool))


def selection_loss(x, w):
    m = w > 0.4
    return np.std(x[m]) + 2.0 * x[m].var(ddof=1) + np.max(x[m] ** 2) + \
        x[m].min()


def test_selection_gradients():
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal(12), rng.random(12)
    w[:2] = 0.9
    got = sdfg.program(selection_loss)(x, w)
    np.testing.assert_allclose(got, selection_loss(x, w), rtol=1e-13)
    g = sdfg.grad(selection_loss, ["x"])(x, w)["x"]
    fd = fd_gradient(selection_loss, [x, w], 0)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
    # Nothing flows to the unselected elements.
    assert np.all(g[w <= 0.4] == 0.0)


def hist_auto(x):
    return np.histogram(x, bins=7)


def hist_range(x):
    return np.histogram(x, 5, range=(0.1, 0.9))


def hist_weighted(x, w):
    return np.histogram(x, 5, (0.0, 1.0), weights=w)


def hist_edges(x, e):
    return np.histogram(x, bins=e)


def hist_density(x, e):
    a = np.histogram(x, bins=6, density=True)
    b = np.histogram(x, e, density=True)
    return a[0], a[1], b[0], b[1]


def hist_default(k):
    return np.histogram(k)


def test_histogram_matches_numpy():
    for seed in range(4):
        rng = np.random.default_rng(seed)
        x = rng.random(200)
        # On edges and at both ends of the range.
        x[:5] = [0.1, 0.9, 0.26, 0.42, 0.58]
        x[5] = x.max() + 0.0
        x[6] = np.nan if seed == 1 else x[6]
        x[7] = np.inf if seed == 2 else x[7]
        for fn in (hist_range,) if seed in (1, 2) else (hist_auto,
                                                        hist_range):
            got, want = sdfg.program(fn)(x), fn(x)
            for g, e in zip(got, want):
                assert g.dtype == e.dtype and g.shape == e.shape
                np.testing.assert_array_equal(g, e)
    rng = np.random.default_rng(7)
    # Uniform bins whose arithmetic rounds: NumPy's corrections.
    x = np.concatenate([np.linspace(-1.3, 2.9, 101), rng.random(50)])
    for g, e in zip(sdfg.program(hist_auto)(x), hist_auto(x)):
        np.testing.assert_array_equal(g, e)
    k = rng.integers(-3, 40, 30)
    for data in (k, np.full(4, 3), k.astype(np.int32)):
        for g, e in zip(sdfg.program(hist_default)(data), hist_default(data)):
            assert g.dtype == e.dtype
            np.testing.assert_array_equal(g, e)
    x = rng.random(40)
    e = np.array([0.0, 0.1, 0.1, 0.5, 0.75, 1.0])
    x[:4] = [0.1, 0.5, 1.0, 0.0]
    for g, w_ in zip(sdfg.program(hist_edges)(x, e), hist_edges(x, e)):
        assert g.dtype == w_.dtype
        np.testing.assert_array_equal(g, w_)
    ei = np.array([0, 1, 3])
    for g, w_ in zip(sdfg.program(hist_edges)(x * 3.0, ei),
                     hist_edges(x * 3.0, ei)):
        assert g.dtype == w_.dtype
        np.testing.assert_array_equal(g, w_)
    for g, w_ in zip(sdfg.program(hist_density)(x, e), hist_density(x, e)):
        assert g.dtype == w_.dtype
        np.testing.assert_allclose(g, w_, rtol=1e-14)
    w = rng.standard_normal(40)
    got, want = sdfg.program(hist_weighted)(x, w), hist_weighted(x, w)
    assert got[0].dtype == np.float64
    np.testing.assert_allclose(got[0], want[0], rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(got[1], want[1])


def test_histogram_errors_when_run():
    x = np.random.default_rng(8).random(10)
    x[2] = np.nan
    with pytest.raises(ValueError):
        hist_auto(x)
    with pytest.raises(ValueError, match="range of the data is not finite"):
        sdfg.program(hist_auto)(x)
    bad = np.array([0.0, 0.5, 0.2])
    with pytest.raises(ValueError):
        hist_edges(x, bad)
    with pytest.raises(ValueError, match="increase monotonically"):
        sdfg.program(hist_edges)(x, bad)


def hist_loss(x, w):
    h, e = np.histogram(x, bins=4, range=(0.0, 1.0), weights=w)
    g, _ = np.histogram(x, bins=e, weights=w * w)
    return np.sum(h * np.arange(4.0)) + np.sum(g * g)


def bincount_loss(k, w):
    c = np.bincount(k, weights=w, minlength=5)
    return np.sum(c * c)


def test_weight_gradients():
    rng = np.random.default_rng(9)
    x, w, k = rng.random(15), rng.standard_normal(15), \
        rng.integers(0, 5, 15)
    for fn, args in ((hist_loss, [x, w]), (bincount_loss, [k, w])):
        got = sdfg.program(fn)(*args)
        np.testing.assert_allclose(got, fn(*args), rtol=1e-13)
        g = sdfg.grad(fn, ["w"])(*args)["w"]
        np.testing.assert_allclose(g, fd_gradient(fn, args, 1), rtol=1e-6,
                                   atol=1e-8)


def counts(k, w):
    return np.bincount(k, minlength=6), np.bincount(k, w, 7), \
        np.bincount(k.reshape(2, -1)[0], minlength=6)


def test_bincount():
    for seed in range(3):
        rng = np.random.default_rng(seed)
        k, w = rng.integers(0, 6, 30), rng.random(30)
        if seed == 1:
            k[:] = 0
        for g, e in zip(sdfg.program(counts)(k, w), counts(k, w)):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-14)
        np.testing.assert_array_equal(sdfg.program(counts)(k, w)[0],
                                      counts(k, w)[0])
    prog = sdfg.program(counts)
    k = np.arange(30) % 6
    k[4] = 6  # NumPy gives 7 bins here: refused when run
    with pytest.raises(ValueError, match="holds 6, outside"):
        prog(k, w)
    k[4] = -1
    with pytest.raises(ValueError):
        counts(k, w)
    with pytest.raises(ValueError, match="holds -1, outside"):
        prog(k, w)


def selection_std_axis(A, m):
    return np.std(A[m], axis=1)


def unique_index(k):
    return np.unique(k, return_index=True)


def nonzero_scalar(x):
    return np.nonzero(x[0])


def selection_percentile(x):
    return np.percentile(x[x > 1.0], 50.0)


def selection_argsort(x):
    return np.argsort(x[x > 1.0])


def bincount_no_minlength(k):
    return np.bincount(k)


def hist_named(x):
    return np.histogram(x, bins="auto")


def hist_data_range(x):
    return np.histogram(x, 4, range=(x.min(), 1.0))


def hist_float32(x):
    return np.histogram(x, 4)


@pytest.mark.parametrize("fn,arg,what", [
    (unique_index, np.arange(4), "return_index"),
    (nonzero_scalar, np.arange(4.0), "0-d"),
    (selection_percentile, np.arange(4.0), "order statistic"),
    (selection_argsort, np.arange(4.0), "sorting"),
    (bincount_no_minlength, np.arange(4), "constant minlength"),
    (hist_named, np.arange(4.0), "bins that are not an int"),
    (hist_data_range, np.arange(4.0), "range= that is not a pair"),
    (hist_float32, np.arange(4, dtype=np.float32), "float32 data"),
])
def test_refused(fn, arg, what):
    with pytest.raises(FrontendError, match=what) as info:
        sdfg.program(fn)(arg)
    assert "test_selections.py" in str(info.value)


def test_refused_axis_of_std():
    with pytest.raises(FrontendError, match="along an axis"):
        sdfg.program(selection_std_axis)(np.ones((3, 2)),
                                         np.array([True, False, True]))


# --------------------------------------------------------------------------
# Selections as arrays of their own (a length the data gives)
# --------------------------------------------------------------------------

def compacted(x, w, t):
    v = x[w > t]
    y = 2.0 * v + 1.0
    return (v, np.sum(y * y), len(v), v.shape[0], np.cumsum(v),
            np.argmax(v) if len(v) > 0 else -1, np.sort(v),
            np.median(v), np.median((w[w > t] * 10.0).astype(np.int64)))


def compacted_rows(A, t):
    R = A[A[:, 0] > t]
    return R, np.sum(R * R, axis=0), R.shape[0], R[:, 1] * 3.0


def index_arrays(x, A, t):
    i = np.nonzero(x > t)[0]
    r, c = np.nonzero(A > t)
    return (i, r, c, np.flatnonzero(A > t), np.argwhere(A > t),
            np.argwhere(x > t), np.sum(x[i] ** 2), np.nonzero(A[0] > t))


def uniques(k, x):
    u, c = np.unique(k, return_counts=True)
    return u, c, np.unique(x), np.unique(k.reshape(3, 4)), \
        np.unique(x, return_counts=True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compacted_selections(seed):
    rng = np.random.default_rng(seed)
    x, w = rng.standard_normal(12), rng.random(12)
    x[5] = np.nan if seed == 1 else x[5]  # a selected NaN
    w[5] = 0.95
    A = rng.random((6, 3))
    with np.errstate(all="ignore"):
        for t in (0.4, -1.0, 0.9, 2.0):  # some, all, one, none selected
            got = sdfg.program(compacted)(x, w, t)
            want = compacted(x, w, t)
            for k, (g, e) in enumerate(zip(got, want)):
                assert np.shape(g) == np.shape(e), k
                assert np.asarray(g).dtype == np.asarray(e).dtype, k
                np.testing.assert_allclose(g, e, rtol=1e-13, err_msg=str(k))
            assert got[0].flags.owndata
            for tt in (0.5, -1.0, 2.0):
                for g, e in zip(sdfg.program(compacted_rows)(A, tt),
                                compacted_rows(A, tt)):
                    assert np.shape(g) == np.shape(e)
                    np.testing.assert_array_equal(g, e)
    # Bitwise where the operations are NumPy's own: the compacted values
    # and the order statistics.
    got = sdfg.program(compacted)(x, w, 0.4)
    want = compacted(x, w, 0.4)
    for k in (0, 2, 3, 5, 6, 7, 8):
        np.testing.assert_array_equal(got[k], want[k])


@pytest.mark.parametrize("seed", [0, 1])
def test_index_arrays_and_unique(seed):
    rng = np.random.default_rng(seed)
    x, A = rng.random(9), rng.random((3, 4))
    for t in (0.5, -1.0, 2.0):
        got, want = sdfg.program(index_arrays)(x, A, t), \
            index_arrays(x, A, t)
        assert len(got) == len(want)
        for g, e in zip(got, want):
            if isinstance(e, tuple):
                assert isinstance(g, tuple) and len(g) == len(e)
                for gg, ee in zip(g, e):
                    assert gg.dtype == ee.dtype
                    np.testing.assert_array_equal(gg, ee)
                continue
            assert np.asarray(g).dtype == np.asarray(e).dtype
            assert np.shape(g) == np.shape(e)
            np.testing.assert_allclose(g, e, rtol=1e-14)  # ints: exact
    k = rng.integers(-3, 4, 12)
    xs = np.array([1.5, np.nan, -0.0, 0.0, 1.5, np.nan, 2.0, -3.0])
    for kk in (k, np.full(12, 2)):
        got, want = sdfg.program(uniques)(kk, xs), uniques(kk, xs)
        for g, e in zip(got[:4], want[:4]):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_array_equal(g, e)
        for g, e in zip(got[4], want[4]):
            np.testing.assert_array_equal(g, e)


def compacted_loss(x, w):
    v = x[w > 0.3]
    s = np.sort(v)
    return np.sum(s * s * np.sin(s)) + np.median(v) ** 2 + \
        np.std(v * 2.0) + np.max(v) * 0.5


def test_compacted_gradients():
    rng = np.random.default_rng(6)
    for n_sel in (7, 8):  # odd and even medians
        x, w = rng.standard_normal(12), rng.random(12)
        w[:n_sel] = 0.9
        w[n_sel:] = 0.1
        got = sdfg.program(compacted_loss)(x, w)
        np.testing.assert_allclose(got, compacted_loss(x, w), rtol=1e-13)
        g = sdfg.grad(compacted_loss, ["x"])(x, w)["x"]
        np.testing.assert_allclose(g, fd_gradient(compacted_loss, [x, w], 0),
                                   rtol=1e-6, atol=1e-8)
        assert np.all(g[n_sel:] == 0.0)


def selection_and_sum(x):
    v = x[x > 0.5]
    return np.sum(v ** 2), v


def test_returned_selection_with_gradient():
    x = np.random.default_rng(7).random(10)
    (val, v), g = sdfg.value_and_grad(selection_and_sum, has_aux=True)(x)
    want_val, want_v = selection_and_sum(x)
    np.testing.assert_allclose(val, want_val, rtol=1e-13)
    np.testing.assert_array_equal(v, want_v)
    np.testing.assert_allclose(g["x"], np.where(x > 0.5, 2.0 * x, 0.0),
                               rtol=1e-14)


def digitized(x, b):
    return np.digitize(x, b), np.digitize(x, b, right=True), \
        np.digitize(x[0, 0], b)


def test_digitize():
    rng = np.random.default_rng(10)
    x = rng.random((3, 4))
    x[0, 1], x[1, 1], x[2, 2] = np.nan, 0.5, 0.25  # NaN, on edges
    for b in (np.array([0.0, 0.25, 0.5, 0.75]),
              np.array([0.75, 0.5, 0.25, 0.0]), np.array([0.5, 0.5]),
              np.array([0.3]), np.array([0, 1])):
        for g, e in zip(sdfg.program(digitized)(x, b), digitized(x, b)):
            assert np.asarray(g).dtype == np.asarray(e).dtype
            np.testing.assert_array_equal(g, e)
    k = rng.integers(0, 10, (3, 4))
    for g, e in zip(sdfg.program(digitized)(k, np.array([2, 5, 7])),
                    digitized(k, np.array([2, 5, 7]))):
        np.testing.assert_array_equal(g, e)
    bad = np.array([0.0, 0.5, 0.2])
    with pytest.raises(ValueError):
        digitized(x, bad)
    with pytest.raises(ValueError, match="monotonically"):
        sdfg.program(digitized)(x, bad)


def selection_items(x):
    v = x[x > 0.5]
    return len(x[x > 0.5]), v.size, v.shape, v[0], v[-1], v[:2], v[1:]


def data_windows(x, k):
    n = int(k[0])
    i = np.argmax(x)
    return x[:n] * 2.0, x[i:]


def test_run_time_lengths_returned():
    rng = np.random.default_rng(11)
    x = rng.random(10)
    x[0] = 0.9
    for g, e in zip(sdfg.program(selection_items)(x), selection_items(x)):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_array_equal(g, e)
    for k in (0, 3, 10, 12):
        for g, e in zip(sdfg.program(data_windows)(x, np.array([k])),
                        data_windows(x, np.array([k]))):
            assert g.shape == e.shape and g.dtype == e.dtype
            np.testing.assert_array_equal(g, e)


def doubled_selection(x):
    return x[x > 0.5] * x[x > 0.5]


def test_jacobians_of_a_selection():
    x = np.random.default_rng(12).random(6)
    x[0] = 0.9
    sel = np.flatnonzero(x > 0.5)
    want = np.zeros((len(sel), 6))
    want[np.arange(len(sel)), sel] = 2.0 * x[sel]
    np.testing.assert_allclose(sdfg.jacrev(doubled_selection)(x), want,
                               rtol=1e-14)
    np.testing.assert_allclose(sdfg.jacfwd(doubled_selection)(x), want,
                               rtol=1e-14)
    seed = np.arange(1.0, len(sel) + 1.0)
    g = sdfg.vjp(doubled_selection, ["x"])(x, seed=seed)["x"]
    np.testing.assert_allclose(g, seed @ want, rtol=1e-14)
    with pytest.raises(ValueError, match="rows"):
        sdfg.vjp(doubled_selection, ["x"])(x, seed=seed[:-1])
