"""Results carry NumPy's dtypes (NumPy 1.x rules), not just its values:
np.full takes its fill value's type, cumulative sums widen small integers
as np.sum does, rounding functions of integers are float64, norms are
floats, integer products keep their operands' type, np.float32 and
np.int32 scalars keep their type (an int32 accumulator wraps)."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def fills(a, v):
    return (np.full(3, 3), np.full((2, 2), True), np.full(3, v),
            np.full(3, a[0]), np.full(2, 1.5), np.full(2, 4, dtype=np.float32))


def cumulative(a, m):
    return (np.cumsum(a), np.cumprod(a), a.cumsum(), np.cumsum(m),
            np.cumsum(a.astype(np.int64)))


def rounding(a):
    return np.floor(a), np.ceil(a), np.trunc(a), np.rint(a), np.fix(a)


def norms(a):
    return (np.linalg.norm(a, 1), np.linalg.norm(a, np.inf),
            np.linalg.norm(a, -np.inf), np.linalg.norm(a))


def integer_products(a, b):
    return (a @ b, np.dot(a[0], b[:, 0]), np.einsum('ij,jk->ik', a, b),
            np.tensordot(a, b, axes=1))


def boolean_einsums(m):
    return (np.einsum('i,i->', m, m), np.einsum('ij->', m.reshape(1, 5)),
            np.einsum('i->', m))


def float32_scalars(x):
    s = np.float32(0.0)
    for i in range(x.shape[0]):
        s += x[i]
    return s, np.float32(1.5) * x[0], np.median(x), np.median(x[1:])


def int32_scalars(x):
    s = np.int32(0)
    for i in range(x.shape[0]):
        s += x[i]  # wraps past 2**31, as NumPy's int32
    return s, np.int32(5), np.full(3, np.int32(7)), np.int32(2.9) * x


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype, (g, w)
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("fn,args", [
    (fills, (np.arange(3), 7)),
    (cumulative, (np.array([3, -1, 2, 5], dtype=np.int32),
                  np.array([True, False, True]))),
    (rounding, (np.array([3, -4, 1]),)),
    (norms, (np.array([3, -4, 1], dtype=np.int32),)),
    (integer_products, (np.arange(6, dtype=np.int32).reshape(2, 3),
                        np.arange(6, dtype=np.int32).reshape(3, 2))),
    (boolean_einsums, (np.array([True, False, True, True, False]),)),
    (float32_scalars, (np.linspace(-2, 2, 7).astype(np.float32),)),
    (int32_scalars, (np.array([2 ** 30, 2 ** 30, 2 ** 30], dtype=np.int32),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_dtypes_match_numpy(fn, args):
    with np.errstate(over="ignore"):
        want = fn(*args)
    _same(sdfg.program(fn)(*args), want)


def test_int32_products_wrap_as_numpy():
    a = np.full((2, 2), 2 ** 20, dtype=np.int32)
    got = sdfg.program(integer_products)(a, a)
    want = integer_products(a, a)
    _same(got, want)


def float32_accumulators(x):
    s = np.float32(0)
    for i in range(x.shape[0]):
        s += x[i]
    t = np.float32(0)
    for i in range(x.shape[0]):
        t += 0.1
    u = np.float32(1.0)
    u = u * 3
    return s, t, u


def vdots_norms_quantiles(i, b, f):
    return (np.vdot(i, i), np.vdot(b, b), np.linalg.norm(f, 3),
            np.quantile(f.reshape(3, 2), 0.5, axis=0),
            np.quantile(f, 0.3, method="lower"),
            np.percentile(f, 30, method="midpoint"))


def test_float32_scalars_widen_as_numpy_1():
    # NumPy 1.x: a float32 scalar plus a float64 element or a Python
    # float is a float64, and the name holds that from then on.
    x = np.full(1000, 0.1)
    _same(sdfg.program(float32_accumulators)(x), float32_accumulators(x))


def test_products_norms_quantiles():
    args = (np.array([3, -1, 4, 1, -5, 9], dtype=np.int32),
            np.array([True, False, True, True, False, True]),
            np.array([1.5, -2.25, 3.0, 0.5, 7.0, -1.0], dtype=np.float32))
    got = sdfg.program(vdots_norms_quantiles)(*args)
    want = vdots_norms_quantiles(*args)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype, (g, w)
        np.testing.assert_allclose(g, w, rtol=1e-6)
