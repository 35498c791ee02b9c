"""Element indices built from loop variables, as NumPy reads them: an
index negative in some iterations counts from the end in those (periodic
stencils: `u[i - 1]` at i = 0 is the last element), and one that may fall
outside its dimension raises NumPy's IndexError, located, when it does
(`u[i + 1]` at the last i; `w[k]` past the end of a window w, even where
the container goes on). Compiling proves most indices in range and emits
no check for them. Also conditional expressions, which narrow the loop
variable their test bounds in each branch (`u[i - 1] if i > 0 else
u[i]`). Values against NumPy, gradients against central finite
differences (float64)."""

import numpy as np
import pytest

import sdfg
from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def periodic_laplacian(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = u[i - 1] - 2 * u[i] + u[i + 1 - n]
    return out


def sum_around_zero(x):
    s = 0.0
    for i in range(-2, 3):
        s += x[i] * (i + 3)
    return s


def periodic_rows(A):
    out = np.zeros(A.shape)
    for i in range(A.shape[0]):
        out[i] = np.tanh(A[i - 1]) * A[i]
    return out


def window_reads(u):
    w = u[2:6]
    s = 0.0
    for k in range(-4, 4):
        s += w[k] * k
    return s


def upwind(u, c):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        left = u[i - 1] if i > 0 else u[i]
        right = u[i + 1] if i < n - 1 else 0.0
        out[i] = c * (right - left) ** 2
    return out


def guarded_rows(A):
    n, m = A.shape
    out = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            up = A[i - 1, j] if i > 0 and j < m - 1 else A[i, j]
            out[i, j] = up * (A[i, j + 1] if j < m - 1 else 1.0)
    return out


def ring_rows(A):
    n = A.shape[0]
    out = np.zeros(A.shape)
    for i in range(n):
        out[i] = np.sin(A[i - 1] if i >= 1 else A[n - 1]) + \
            (A[i + 1] if i != n - 1 else A[0])
    return out


def same_bounds_both_branches(u):
    # `i` in both branches' slices reads its own clamp in each (the
    # bounds' memo is keyed by source text).
    out = np.zeros(u.shape[0])
    for i in range(u.shape[0]):
        out[i] = np.sum(u[i:i + 2] ** 2) if i < 5 else np.sum(u[i:] * 3)
    return out


def past_the_end(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = u[i + 1]
    return out


def past_a_window(u):
    w = u[2:5]
    s = 0.0
    for k in range(4):
        s += w[k]  # w[3] is u[5]: inside u, outside w
    return s


def before_the_start(u):
    s = 0.0
    for k in range(-9, 0):
        s += u[k]
    return s


def row_past_the_end(A):
    out = np.zeros(A.shape[1])
    for i in range(A.shape[0] + 1):
        out += A[i]
    return out


def write_past_the_end(u):
    out = np.zeros(u.shape[0])
    for i in range(u.shape[0]):
        out[i + 1] = u[i]
    return out


def past_a_clamped_window(u):
    s = 0.0
    for i in range(u.shape[0]):
        w = u[i:i + 3]  # 2 long, then 1, at the end
        s += w[2]
    return s


def row_past_a_clamped_window(A):
    s = 0.0
    for i in range(A.shape[0]):
        s += np.sum(A[i:i + 2][1])
    return s


def interior_stencil(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(1, n - 1):
        out[i] = u[i - 1] - 2 * u[i] + u[i + 1]
    return out


def guarded_by_offsets(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        if i + 1 < n:
            out[i] = u[i + 1]
        if 0 < i:
            out[i] -= u[i - 1]
        if n - i > 2:
            out[i] += u[i + 2]
    return out


@pytest.mark.parametrize("fn, args", [
    (periodic_laplacian, [(9,)]),
    (sum_around_zero, [(5,)]),
    (periodic_rows, [(5, 3)]),
    (window_reads, [(8,)]),
    (upwind, [(8,), 0.5]),
    (guarded_rows, [(4, 5)]),
    (ring_rows, [(5, 3)]),
    (same_bounds_both_branches, [(8,)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_values_and_gradients(fn, args):
    rng = np.random.default_rng(11)
    args = [rng.standard_normal(a) if isinstance(a, tuple) else a
            for a in args]
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a
                for a in args])
    got = sdfg.program(fn)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)
    name = fn.__code__.co_varnames[0]
    g = sdfg.grad(fn, [name])(*args)[name]
    np.testing.assert_allclose(g, fd_gradient(fn, args, 0), rtol=1e-7,
                               atol=1e-7)


@pytest.mark.parametrize("fn, shape, message", [
    (past_the_end, (7,), "index 7 is out of bounds for axis 0 with size 7"),
    (past_a_window, (8,), "index 3 is out of bounds for axis 0 with size 3"),
    (before_the_start, (8,),
     "index -9 is out of bounds for axis 0 with size 8"),
    (row_past_the_end, (3, 4),
     "index 3 is out of bounds for axis 0 with size 3"),
    (write_past_the_end, (6,),
     "index 6 is out of bounds for axis 0 with size 6"),
    (past_a_clamped_window, (6,),
     "index 2 is out of bounds for axis 0 with size 2"),
    (row_past_a_clamped_window, (4, 3),
     "index 1 is out of bounds for axis 0 with size 1"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_out_of_bounds_raises_index_error(fn, shape, message):
    u = np.ones(shape)
    with pytest.raises(IndexError, match=message.split(" is")[0]):
        fn(u.copy())
    with pytest.raises(IndexError, match=r"test_loop_indices.py:\d+: " +
                       message):
        sdfg.program(fn)(u.copy())
    # The gradient program checks the same reads.
    name = fn.__code__.co_varnames[0]
    with pytest.raises(IndexError, match=message):
        sdfg.grad(fn, [name])(u.copy())


def test_indices_proven_in_range_are_not_checked():
    u = np.ones(8)
    text = sdfg.to_mlir(interior_stencil, u)
    assert "check_index" not in text and "arith.select" not in text
    # Tests of a loop variable plus a constant narrow it too.
    text = sdfg.to_mlir(guarded_by_offsets, u)
    assert "check_index" not in text and "arith.select" not in text
    np.testing.assert_array_equal(
        sdfg.program(guarded_by_offsets)(np.arange(8.0)),
        guarded_by_offsets(np.arange(8.0)))
    # An index that may leave its window is checked once, where the
    # window is read.
    assert sdfg.to_mlir(past_a_window, u).count("sdfg.check_index") == 1
