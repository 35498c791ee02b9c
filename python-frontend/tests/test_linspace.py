"""np.linspace with endpoints computed at run time: NumPy's values bit for
bit (its own arithmetic: p * step + start, the stop as the last value),
and gradients with respect to the endpoints."""

import numpy as np
import pytest

import sdfg

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def scaled(x, lo, hi):
    return x * np.linspace(lo, hi, 16)


def data_range(x):
    return np.linspace(x.min(), x.max(), 21)


def open_interval(x):
    g, step = np.linspace(x[0], x[3], 7, endpoint=False, retstep=True)
    return g * step


def constants(x):
    return np.linspace(0.1, 0.7, 7) + x[:7]


def integer_grid(x):
    return np.linspace(x[0] * 10.0, 100.0, 9, dtype=np.int64)


def one_point(x):
    return np.linspace(x[0], x[1], 1)


def collapsed(x):
    return np.linspace(x[1], x[1], 5)


def subnormal_step(x):
    # The step underflows to 0: NumPy scales by p / div then by the span.
    return np.linspace(1e-320, 3e-320, 5) + x[0] * 0.0


def loss(x):
    edges = np.linspace(x.min(), x[0] * 3.0, 10)
    return np.sum(edges * edges)


@pytest.mark.parametrize("fn,args", [
    (scaled, lambda r: (r.random(16), 0.5, 2.0)),
    (scaled, lambda r: (r.random(16), -3.0, 2.7)),
    (data_range, lambda r: (r.random(30) * 7.0 - 2.0,)),
    (open_interval, lambda r: (r.random(8),)),
    (constants, lambda r: (r.random(8),)),
    (integer_grid, lambda r: (r.random(4),)),
    (one_point, lambda r: (r.random(4),)),
    (collapsed, lambda r: (r.random(4),)),
    (subnormal_step, lambda r: (r.random(4),)),
])
def test_matches_numpy_bitwise(fn, args):
    a = args(np.random.default_rng(3))
    want = fn(*a)
    got = sdfg.program(fn)(*a)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_gradient_of_endpoints():
    x = np.random.default_rng(4).random(6) + 0.5
    np.testing.assert_allclose(sdfg.grad(loss, argnums=0)(x), fd_gradient(loss, [x], 0),
                               rtol=1e-7, atol=1e-8)


def length_from_data(x):
    return np.linspace(0.0, 1.0, int(x[0]))


def array_endpoints(x):
    return np.linspace(x[:2], x[2:4], 5)


@pytest.mark.parametrize("fn,match", [
    (length_from_data, "length computed at run time"),
    (array_endpoints, "array or non-numeric endpoints"),
])
def test_refused(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(np.arange(4.0) + 3.0)
