"""`and` / `or` in if and while tests read their operands only as Python
does: `i < n and x[i] > 0` does not read x[n]. Operands known when
compiling decide the test without translating the rest; `if j > 0 and
A[j - 1] > 0` narrows j in its branch as `if j > 0:` does. Forward values
against NumPy, gradients against central finite differences (float64)."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def scan_below(x):
    i = 0
    while i < x.shape[0] and x[i] < 0.9:
        x[i] = x[i] * 2.0
        i += 1
    return x, i


def squares_below(x):
    i = 0
    s = 0.0
    while i < x.shape[0] and x[i] < 0.9:
        s += x[i] ** 2
        i += 1
    return s


def element_if_in_range(x, k):
    s = 0.0
    if k < x.shape[0] and x[k] > 0:
        s = x[k]
    return s


def past_end_or_small(x, k):
    s = 0.0
    if k >= x.shape[0] or x[k] > 0:
        s = 1.0
    return s


def neighbours(A):
    n = A.shape[0]
    out = np.zeros(n)
    for j in range(n):
        if j > 0 and A[j - 1] > 0.5:
            out[j] = A[j - 1] * A[j]
        elif j + 1 < n and A[j + 1] > 0.5:
            out[j] = A[j + 1] + A[j]
    return np.sum(out ** 2)


def ahead_or_small(x, k):
    s = 0.0
    for i in range(x.shape[0]):
        if i + k >= x.shape[0] or x[i + k] < 0.3:
            s += x[i] ** 2
    return s


def gathered_in_range(x, s):
    t = 0.0
    for j in range(s.shape[0]):
        if s[j] >= 0 and (s[j] < x.shape[0] and x[s[j]] > 0.2):
            t += x[s[j]] ** 2
    return t


def _fd(fn, x, *rest, h=1e-6):
    return np.array([(fn(x + h * e, *rest) - fn(x - h * e, *rest)) / (2 * h)
                     for e in np.eye(x.size)])


def test_while_reads_no_element_past_the_end():
    x = np.full(5, 0.1)
    want_x, want_i = scan_below(x.copy())
    got_x, got_i = sdfg.program(scan_below)(x.copy())
    assert got_i == want_i == 5
    np.testing.assert_array_equal(got_x, want_x)
    x = np.array([0.1, 0.2, 0.95, 0.4])
    assert sdfg.program(scan_below)(x.copy())[1] == 2


def test_while_gradient():
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    assert sdfg.program(squares_below)(x) == pytest.approx(
        squares_below(x), rel=1e-15)
    g = sdfg.grad(squares_below, ["x"])(x)["x"]
    np.testing.assert_allclose(g, 2 * x, rtol=1e-15)


@pytest.mark.parametrize("k", [2, 5, 7])
def test_compile_time_operand_decides(k):
    x = np.array([0.1, -0.2, 0.3, 0.4, 0.5])
    assert sdfg.program(element_if_in_range)(x, k) == \
        element_if_in_range(x, k)
    assert sdfg.program(past_end_or_small)(x, k) == past_end_or_small(x, k)


def test_and_narrows_the_loop_variable():
    A = np.array([0.7, 0.2, 0.9, 0.1, 0.6, 0.3])
    assert sdfg.program(neighbours)(A) == pytest.approx(neighbours(A),
                                                        rel=1e-14)
    g = sdfg.grad(neighbours, ["A"])(A)["A"]
    np.testing.assert_allclose(g, _fd(neighbours, A), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("k", [0, 2, 6])
def test_or_reads_only_in_range(k):
    x = np.array([0.7, 0.25, 0.9, 0.1, 0.6, 0.35])
    assert sdfg.program(ahead_or_small)(x, k) == pytest.approx(
        ahead_or_small(x, k), rel=1e-14)
    g = sdfg.grad(ahead_or_small, ["x"])(x, k)["x"]
    np.testing.assert_allclose(g, _fd(ahead_or_small, x, k), rtol=1e-7,
                               atol=1e-9)


def test_data_indices_guarded():
    x = np.array([0.7, 0.25, 0.9, 0.1, 0.6, 0.3])
    s = np.array([1, 7, -1, 3, 5, 100])
    assert sdfg.program(gathered_in_range)(x, s) == pytest.approx(
        gathered_in_range(x, s), rel=1e-14)
    g = sdfg.grad(gathered_in_range, ["x"])(x, s)["x"]
    np.testing.assert_allclose(g, _fd(gathered_in_range, x, s), rtol=1e-7,
                               atol=1e-9)


def default_if_zero(x, scale):
    s = scale or 1.0
    return np.sum(x * s)


def first_nonzero(x):
    return (x[0] or x[1]) * 3.0 + (x[2] and x[0])


@pytest.mark.parametrize("scale", [2.5, 0.0])
def test_and_or_values_are_operands(scale):
    # Python's `a or b` is a if a is true, else b (not a bool).
    x = np.array([0.5, 2.0, 3.0])
    assert sdfg.program(default_if_zero)(x, scale) == pytest.approx(
        default_if_zero(x, scale), rel=1e-15)
    g = sdfg.grad(default_if_zero, ["scale", "x"])(x, scale)
    assert g["scale"] == (np.sum(x) if scale else 0.0)
    np.testing.assert_allclose(g["x"], np.full(3, scale or 1.0))
    for v in ([2.0, 3.0, 0.0], [0.0, 3.0, 4.0], [0.0, 0.0, 1.0]):
        v = np.array(v)
        assert sdfg.program(first_nonzero)(v) == first_nonzero(v)


def upwind(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        if i == 0 or u[i - 1] < 0:
            out[i] = u[i]
        else:
            out[i] = u[i] - u[i - 1]
    return np.sum(out ** 2)


def forward_difference(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        if i != n - 1:
            out[i] = u[i + 1] - u[i]
    return np.sum(out ** 2)


@pytest.mark.parametrize("fn", [upwind, forward_difference],
                         ids=lambda f: f.__name__)
def test_equality_tests_narrow_at_the_ends(fn):
    # The else branch of `i == 0` (and the branch of `i != n - 1`) runs
    # where i is not that end: u[i - 1] reads from the start, with no
    # run-time wrap or check.
    u = np.sin(np.arange(7.0) + 0.5)
    text = sdfg.to_mlir(fn, u)
    assert "arith.select" not in text and "check_index" not in text
    assert sdfg.program(fn)(u) == pytest.approx(fn(u), rel=1e-14)
    g = sdfg.grad(fn, ["u"])(u)["u"]
    np.testing.assert_allclose(g, _fd(fn, u), rtol=1e-7, atol=1e-9)
