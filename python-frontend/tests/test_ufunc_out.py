"""NumPy's output operands (`out=`, a ufunc's extra positional argument)
and the ufunc methods outer/reduce/accumulate: forward equal to NumPy,
gradients against central finite differences in float64, and NumPy's
errors (same_kind casting, wrong output shapes) as located diagnostics."""

import re

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def into_outputs(a, b):
    c = np.empty_like(a)
    np.add(a, b, out=c)
    np.multiply(c, 2.0, out=c)
    np.exp(c[1:] * 0.1, c[1:])          # positional output, a slice
    d = np.subtract(c, a, out=(c,))     # d names c
    np.sum(a, axis=0, out=c[0])
    np.cumsum(b, axis=1, out=b)         # in place over its own input
    np.dot(a, b[0], out=c[1])
    np.add(1.5, 2.0, out=c[2])          # broadcast to the output's shape
    d[3] *= 0.5                         # through the alias
    return c + b


def accumulate_in_loop(a, b):
    s = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        np.add(s, a[i] * b[i], out=s)
    np.maximum(s, 0.1, s)
    return s


def ufunc_methods(a, b):
    o = np.add.outer(a[0], b[:, 1]) + np.multiply.outer(a[1], b[2])
    r = (np.add.reduce(a) + np.maximum.reduce(b, axis=1) +
         np.add.reduce(a, 1, keepdims=True)[:, 0] +
         np.multiply.reduce(a[:2], axis=None))
    c = (np.add.accumulate(a) + np.multiply.accumulate(b, axis=1) +
         np.maximum.accumulate(a, axis=1) * np.minimum.accumulate(b))
    s = np.subtract.outer(a[0], a[1]) ** 2
    return o * r + c + s


def logical_methods(a, b):
    return np.logical_and.reduce(a > 0, axis=0) | np.logical_or.reduce(b > 0)


def _add_into(u, v, out):
    return np.add(u, v, out=out)


def returns_its_output(a, b):
    # A helper returning its out= call (NumPy returns the output operand);
    # a 0-d output of a full reduction; reversed() of a tuple unrolled.
    c = np.empty_like(a)
    d = _add_into(a, b, c)
    d *= 2.0
    t = np.zeros(())
    np.sum(a, out=t)
    for s in reversed(((0, 1), (1, 0))):
        c += np.roll(a, s, axis=(0, 1))
    return c * t


CASES = [into_outputs, accumulate_in_loop, ufunc_methods, returns_its_output]


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((4, 4)), rng.standard_normal((4, 4))


@pytest.mark.parametrize("fn", CASES + [logical_methods])
def test_forward_matches_numpy(fn):
    a, b = _inputs()
    got = sdfg.program(fn)(a.copy(), b.copy())
    want = fn(a.copy(), b.copy())
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("fn", CASES)
def test_gradient_matches_finite_differences(fn):
    def loss(a, b):
        return np.sum(np.sin(fn(a, b)))

    a, b = _inputs(1)
    g = sdfg.grad(loss, ["a", "b"])(a.copy(), b.copy())
    rng = np.random.default_rng(2)
    h = 1e-6
    for _ in range(2):
        da, db = rng.standard_normal(a.shape), rng.standard_normal(b.shape)
        fd = (loss(a + h * da, b + h * db) -
              loss(a - h * da, b - h * db)) / (2 * h)
        ad = np.sum(g["a"] * da) + np.sum(g["b"] * db)
        assert abs(fd - ad) <= 1e-7 * max(1.0, abs(fd)), (fd, ad)


def cast_down(a, b):
    c = np.zeros((4, 4), dtype=np.int64)
    np.add(a, b, out=c)
    return c


def reduction_shape(a, b):
    c = np.zeros((1, 4))
    np.sum(a, axis=0, out=c)
    return c


def nested(a, b):
    return np.add(a, b, out=a) * 2


def too_small(a, b):
    c = np.zeros(3)
    np.add(a, b, out=c)
    return c


def scalar_out(a, b):
    t = 0.0
    np.add(a[0, 0], b[0, 0], out=t)
    return t


def dot_into_float32(a, b):
    c = np.zeros((4, 4), dtype=np.float32)
    np.dot(a, b, out=c)
    return c


def dot_into_transpose(a, b):
    c = np.zeros((4, 4))
    np.dot(a, b, out=c.T)
    return c


def infinity_into_int(a, b):
    k = np.zeros(3, dtype=np.int64)
    k.fill(np.inf)
    return k


def nan_into_int(a, b):
    k = np.zeros(3, dtype=np.int64)
    k[:] = np.nan
    return k


def huge_into_int(a, b):
    k = np.zeros(3, dtype=np.int64)
    k[1:] = 1e30
    return k


def accumulate_difference(a, b):
    return np.subtract.accumulate(a)


@pytest.mark.parametrize("fn,offset,message", [
    (cast_down, 2, re.escape(
        "Cannot cast ufunc 'add' output from dtype('float64') to "
        "dtype('int64') with casting rule 'same_kind'")),
    (reduction_shape, 2, re.escape(
        "out= has shape (1, 4) but the result has shape (4,)")),
    (nested, 1, "out= inside an expression"),
    (too_small, 2, "cannot broadcast"),
    (scalar_out, 2, "out= that is not an array"),
    # np.dot writes straight into its output: NumPy's rule, not casting.
    (dot_into_float32, 2, re.escape("output array is not acceptable")),
    (dot_into_transpose, 2, re.escape("output array is not acceptable")),
    # A float constant into an int array converts as NumPy's (a Python
    # int): these are its errors (the store of LLVM's poison vanished).
    (infinity_into_int, 2, "cannot convert float infinity to integer"),
    (nan_into_int, 2, "cannot convert float NaN to integer"),
    (huge_into_int, 2, "Python int too large to convert to C long"),
    (accumulate_difference, 1, "accumulate is supported for np.add, "
                               "np.multiply, np.maximum, np.minimum"),
])
def test_errors_are_located(fn, offset, message):
    a, b = _inputs()
    with pytest.raises(sdfg.FrontendError, match=message) as info:
        sdfg.program(fn)(a, b)
    line = fn.__code__.co_firstlineno + offset
    assert f"test_ufunc_out.py:{line}:" in str(info.value)


def test_float_constants_wrap_into_narrow_ints_as_numpy():
    def f(a):
        k = np.zeros(3, np.int32)
        k[:] = 3e10
        j = np.zeros(2, np.int32)
        j.fill(-2.5e9)
        m = np.zeros(2, np.int64)
        m[:] = -7.9
        return k, j, m

    got, want = sdfg.program(f)(np.zeros(3)), f(np.zeros(3))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_output_spec_must_name_an_index():
    with pytest.raises(sdfg.FrontendError,
                       match="K in 'return:K' must be an integer"):
        sdfg.grad(lambda_free_total, ["a"], output="return:abc")(
            np.ones(3))


def lambda_free_total(a):
    return np.sum(a * a)
