"""Extents known only at run time (windows clamped at an array's end,
bounds read from data) broadcast as NumPy's do when the program runs
(sdfg.broadcast_extent): a window that shrinks to length 1 broadcasts,
and windows whose lengths do not broadcast raise NumPy's ValueError,
located, instead of reading past an array. Forward values against NumPy,
gradients against central finite differences (float64)."""

import numpy as np
import pytest

import sdfg
from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def shifted_copy(x):
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n - 1):
        y[i:i + 2] = x[i + 1:i + 3]  # at i = n-2: y[n-2:n] = x[n-1:n]
    return y


def window_product(x, y):
    n = x.shape[0]
    out = np.zeros(n - 1)
    for i in range(n - 1):
        out[i] = np.sum(x[i:i + 2] * y[i + 1:i + 3])  # (2,) * (1,) last
    return out


def both_may_shrink(x, y):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.sum(np.sin(x[i:i + 2]) + y[i + 1:i + 3] ** 2)
    return out


def rows_broadcast(A, B):
    n = A.shape[0]
    out = np.zeros((n - 1, A.shape[1]))
    for i in range(n - 1):
        out[i] = np.sum(A[i:i + 2] * B[i + 1:i + 3], axis=0)
    return out


def where_windows(x, y):
    n = x.shape[0]
    out = np.zeros(n - 1)
    for i in range(n - 1):
        out[i] = np.sum(np.where(x[i:i + 2] > 4.0, x[i:i + 2],
                                 y[i + 1:i + 3]))
    return out


def mismatched_assign(x):
    n = x.shape[0]
    y = np.zeros(n + 2)
    for i in range(n):
        y[i:i + 3] = x[i:i + 3] * 2  # (2,) into (3,) at i = n-2
    return y


def mismatched_operands(x, y):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.sum(x[i:i + 3] * y[i + 1:i + 4])  # (3,) * (2,) at n-3
    return out


def data_windows(y, x, s):
    y[s[0]:s[1]] = x[s[2]:s[3]]
    return y


def data_sum(x, s):
    return np.sum(x[s[0]:s[1]] * x[s[2]:s[3]])


def csr_row_dot(data, cols, ptr, x):
    n = ptr.shape[0] - 1
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.dot(data[ptr[i]:ptr[i + 1]], x[cols[ptr[i]:ptr[i + 1]]])
    return y


@pytest.mark.parametrize("fn, shapes", [
    (shifted_copy, [(10,)]),
    (window_product, [(10,), (10,)]),
    (both_may_shrink, [(9,), (9,)]),
    (rows_broadcast, [(6, 3), (6, 3)]),
    (where_windows, [(8,), (8,)]),
])
def test_length_one_windows_broadcast(fn, shapes):
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(s) * 3 for s in shapes]
    want = fn(*[a.copy() for a in args])
    got = sdfg.program(fn)(*[a.copy() for a in args])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)
    names = fn.__code__.co_varnames[:len(shapes)]
    grads = sdfg.grad(fn, list(names))(*[a.copy() for a in args])
    for k, name in enumerate(names):
        fd = fd_gradient(fn, args, k)
        np.testing.assert_allclose(grads[name], fd, rtol=1e-7, atol=1e-7)


def test_length_one_broadcast_reads_the_one_element():
    # The last iteration's y window is y[9:10]: NumPy broadcasts it over
    # both elements of x's window. Reading y[9:11] instead (past the end)
    # gave 900 where NumPy gives 1900.
    x = np.arange(1.0, 11.0)
    y = np.arange(1.0, 11.0) * 10
    got = sdfg.program(window_product)(x, y)
    assert got[-1] == 9 * 100 + 10 * 100


def test_mismatched_windows_raise_value_error():
    x = np.arange(1.0, 11.0)
    with pytest.raises(ValueError):
        mismatched_assign(x.copy())
    with pytest.raises(ValueError, match=r"test_broadcast_extents.py:\d+: "
                       r"could not broadcast input array from extent 2 "
                       r"into extent 3"):
        sdfg.program(mismatched_assign)(x.copy())
    with pytest.raises(ValueError):
        mismatched_operands(x.copy(), x.copy())
    with pytest.raises(ValueError, match=r"operands could not be broadcast "
                       r"together with extents 3 and 2"):
        sdfg.program(mismatched_operands)(x.copy(), x.copy())


def test_gradient_of_mismatched_windows_raises():
    x = np.arange(1.0, 11.0)
    with pytest.raises(ValueError, match="operands could not be broadcast"):
        sdfg.grad(mismatched_operands, ["y"])(x.copy(), x.copy())


def test_data_bounds_checked_when_run():
    x = np.arange(1.0, 11.0)
    prog = sdfg.program(data_windows)
    s = np.array([1, 4, 5, 8])
    np.testing.assert_array_equal(prog(np.zeros(10), x.copy(), s),
                                  data_windows(np.zeros(10), x.copy(), s))
    # One element broadcasts into the destination's window.
    s = np.array([1, 4, 5, 6])
    np.testing.assert_array_equal(prog(np.zeros(10), x.copy(), s),
                                  data_windows(np.zeros(10), x.copy(), s))
    bad = np.array([1, 4, 5, 9])
    with pytest.raises(ValueError):
        data_windows(np.zeros(10), x.copy(), bad)
    with pytest.raises(ValueError, match="from extent 4 into extent 3"):
        prog(np.zeros(10), x.copy(), bad)
    # The program still runs after a failed call.
    np.testing.assert_array_equal(prog(np.zeros(10), x.copy(), s),
                                  data_windows(np.zeros(10), x.copy(), s))


def test_data_bounds_gradient():
    rng = np.random.default_rng(3)
    x = rng.standard_normal(10)
    for s in ([1, 4, 5, 8], [2, 3, 4, 9], [6, 9, 7, 8]):
        s = np.array(s)
        g = sdfg.grad(data_sum, ["x"])(x.copy(), s)["x"]
        fd = fd_gradient(lambda x: data_sum(x, s), [x], 0)
        np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-7)


def test_provably_equal_windows_need_no_check():
    # The two windows of a CSR row have one length expression: no
    # run-time broadcast, no clamped reads.
    data = np.array([1.0, 2.0, 3.0, 4.0])
    cols = np.array([0, 2, 1, 2])
    ptr = np.array([0, 2, 4])
    x = np.array([1.0, 10.0, 100.0])
    assert "broadcast_extent" not in sdfg.to_mlir(csr_row_dot, data, cols,
                                                  ptr, x)
    np.testing.assert_allclose(sdfg.program(csr_row_dot)(data, cols, ptr, x),
                               csr_row_dot(data, cols, ptr, x))


def test_gpu_emulator_broadcasts_and_reports():
    x = np.arange(1.0, 11.0)
    y = np.arange(1.0, 11.0) * 10
    got = sdfg.program(window_product, device="gpu-emulator")(x, y)
    np.testing.assert_allclose(got, window_product(x, y), rtol=1e-14)
    with pytest.raises(ValueError, match="operands could not be broadcast"):
        sdfg.program(mismatched_operands, device="gpu-emulator")(x, x)
