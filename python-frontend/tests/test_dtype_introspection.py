"""Compile-time facts about arrays a program may branch on (x.dtype
compared, tested with `in`, its kind and itemsize, np.issubdtype), and
the calls fuzzing
found rejected though NumPy accepts them: negative transpose axes,
argmax/argmin keepdims, dtype= of sum/mean/prod, np.divmod and divmod.
Writes through np.diagonal's read-only view are NumPy's error."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def by_dtype(x):
    if x.dtype == np.float64 and x.dtype != np.float32:
        return x * 2
    return x


def by_kind(x):
    if x.dtype.kind in "fc" and x.dtype.itemsize == 8:
        return x * 3
    return x + 1


def by_subdtype(x):
    if np.issubdtype(x.dtype, np.floating):
        return x / 2
    return x * 2


def by_membership(x):
    y = x * 2 if x.dtype in (np.float32, np.float64) else x + 1
    if x.dtype not in ("int32", np.int64):
        y = y - 1
    return y * 3 if np.float32 in (x.dtype,) else y


def cast_back(x):
    y = x.astype(np.float32)
    if y.dtype != x.dtype:
        return y.astype(x.dtype) * 2
    return y


def negative_axes(x):
    return np.transpose(x, (-1, 0, 1)), np.transpose(x, (0, -1, -2))


def kept_positions(x):
    return np.argmin(x, keepdims=True), x.argmax(axis=2, keepdims=True), \
        np.argmax(x, axis=-1, keepdims=True)


def reduced_in(x):
    return np.sum(x, dtype=np.float32), np.mean(x, axis=0, dtype=np.float32), \
        np.prod(x[0], dtype=np.float64), np.sum(x > 0.5, dtype=np.int32)


def method_dtypes(x):
    return (x.sum(dtype=np.float32), x.mean(axis=0, dtype=np.float32),
            x.prod(dtype=np.float64), np.cumsum(x, dtype=np.float32),
            x.dtype == "float64", "float32" != x.dtype)


def divmods(x, n):
    q, r = np.divmod(x, 0.3)
    a, b = divmod(n, 3)
    return q, r, a * 10 + b


X = np.random.default_rng(0).random((4, 3, 2))


@pytest.mark.parametrize("fn,args", [
    (by_dtype, (X,)), (by_dtype, (X.astype(np.float32),)),
    (by_kind, (X,)), (by_kind, (np.arange(4),)),
    (by_subdtype, (X,)), (by_subdtype, (np.arange(4),)),
    (by_membership, (X,)), (by_membership, (X.astype(np.float32),)),
    (by_membership, (np.arange(4, dtype=np.int32),)),
    (cast_back, (X,)), (negative_axes, (X,)), (kept_positions, (X,)),
    (reduced_in, (X,)), (method_dtypes, (X,)), (divmods, (X, 17)),
    (divmods, (-X, -17)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_matches_numpy(fn, args):
    want = fn(*args)
    got = sdfg.program(fn)(*args)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-6 if np.asarray(
            w).dtype == np.float32 else 1e-14)


def mod_loss(x):
    q, r = np.divmod(x, 0.3)
    return np.sum(r * r + q)


def test_divmod_gradient():
    # d/dx (x mod c)^2 = 2 (x mod c) away from the jumps; q is piecewise
    # constant.
    x = np.array([0.1, 0.45, 1.0, 2.2])
    g = sdfg.grad(mod_loss, ["x"])(x)["x"]
    np.testing.assert_allclose(g, 2 * np.mod(x, 0.3), rtol=1e-13)


def bad_axes(x):
    return np.transpose(x, (0, 0, 1))


def dtype_order(x):
    return x.dtype < np.float64


def test_errors_are_located():
    with pytest.raises(sdfg.FrontendError, match="not a permutation"):
        sdfg.program(bad_axes)(X)
    with pytest.raises(sdfg.FrontendError, match="comparison of a dtype"):
        sdfg.program(dtype_order)(X)


def write_diagonal(A):
    d = A.diagonal()
    d[0] = 5.0
    return A


def add_to_diagonal_slice(A):
    np.diagonal(A)[1:] += 1.0
    return A


def read_diagonal(A):
    d = A.diagonal()
    A[0, 0] = 7.0  # d is a view: it sees the write
    return d * 2 + np.trace(A)


def test_diagonal_is_read_only():
    A = np.arange(9.0).reshape(3, 3)
    for fn in (write_diagonal, add_to_diagonal_slice):
        with pytest.raises(ValueError, match="read-only"):
            fn(A.copy())
        with pytest.raises(sdfg.FrontendError,
                           match=r"test_dtype_introspection.py:\d+: "
                           "assignment destination is read-only"):
            sdfg.program(fn)(A.copy())
    np.testing.assert_array_equal(sdfg.program(read_diagonal)(A.copy()),
                                  read_diagonal(A.copy()))
