"""Chained assignment `a = b = value` (issue 38): the value is computed
once and bound or stored to each target from the left, as Python does:
names share one array, subscripts each receive the value (NumPy's
conversion per target dtype), a computed value is not recomputed after
the first store changes what it reads, and a view is read again (NumPy's
view is a window on the array the first store wrote). Results equal
NumPy's exactly; gradients equal finite differences."""

import numpy as np
import pytest

import sdfg

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def boundaries(u, T):
    for t in range(T):
        u[0] = u[-1] = 0.0
        u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u


def shared(n):
    a = b = np.zeros(n)
    a[1] = 5.0  # b is the same array
    return b + 1.0


def converted(x, k):
    y = np.zeros(4)
    k[0] = y[1] = x[2] * 1.5  # int array truncates, float keeps
    return y, k


def computed_once(a, b):
    a[1:] = b[1:] = a[:-1] * 2.0
    return a, b


def view_read_again(a, b):
    a[1:] = b[1:] = a[:-1]
    return a, b


def mixed(A):
    A[0] = x = 1.0
    return x + A[0]


def loss(u):
    v = u.copy()
    v[0] = v[-1] = v[1] * v[2]
    return np.sum(v * v * u)


@pytest.mark.parametrize("fn,make", [
    (boundaries, lambda r: (r.random(12), 3)),
    (shared, lambda r: (6,)),
    (converted, lambda r: (r.random(3) * 10.0,
                           np.array([1, 2, 3], dtype=np.int64))),
    (computed_once, lambda r: (r.random(9), r.random(9))),
    (view_read_again, lambda r: (r.random(9), r.random(9))),
    (mixed, lambda r: (r.random(3),)),
])
def test_matches_numpy(fn, make):
    r = np.random.default_rng(0)
    args = make(r)
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a
                for a in args])
    got = sdfg.program(fn)(*[a.copy() if isinstance(a, np.ndarray) else a
                             for a in args])
    if not isinstance(want, tuple):
        want, got = (want,), (got,)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def test_gradient():
    u = np.random.default_rng(1).random(7)
    np.testing.assert_allclose(sdfg.grad(loss, argnums=0)(u),
                               fd_gradient(loss, [u], 0), rtol=1e-7,
                               atol=1e-9)
