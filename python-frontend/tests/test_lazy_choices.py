"""Conditional expressions and `and`/`or` as values evaluate as Python's
do: only the branch (operand) that decides is computed, so a guard such
as `u[i + 1] if i < n - 1 else 0.0` or `i < n - 1 and x[i + 1] > 0`
never reads past the array, whatever form the test takes (run-time data,
a while counter, a chained comparison, a derived index). The branch is
an sdfg.if; its loop variables narrow as an if statement's. Values
against NumPy, gradients against central finite differences (float64)."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def reversed_test(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = u[i + 1] ** 2 if n - 1 > i else u[i]
    return out


def negated_test(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = 0.0 if not i < n - 1 else u[i + 1] * u[i]
    return out


def chained_test(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = u[i - 1] * u[i + 1] if 0 < i < n - 1 else u[i]
    return out


def derived_index(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        j = i + 1
        out[i] = np.sin(u[j]) if i < n - 1 else 0.0
    return out


def two_variables(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(n - i):
            s += x[i + j + 1] * x[i] if j < n - i - 1 else 0.0
    return s


def never_taken(u):
    n = u.shape[0]
    out = np.zeros(n)
    for i in range(n):
        out[i] = u[i + 10] if i > n else u[i] ** 3
    return out


def data_test(u, k):
    s = 0.0
    for i in range(u.shape[0]):
        s += u[i + 1] * u[i] if i < k[0] else u[i]
    return s


def while_counter(u):
    n = u.shape[0]
    s = 0.0
    i = 0
    while i < n:
        s += u[i + 1] ** 2 if i < n - 1 else 0.0
        i += 1
    return s


def data_test_windows(u, k):
    s = 0.0
    for i in range(u.shape[0]):
        s += np.sum(u[i:i + 3] * u[i + 1:i + 4]) if i < k[0] else 0.0
    return s


def guarded_and(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        s += x[i] if i < n - 1 and x[i + 1] > 0 else 0.0
    return s


def bool_assigned(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        b = i < n - 1 and x[i + 1] > 0
        if b:
            s += x[i] ** 2
    return s


def guarded_or(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        s += x[i] if i == n - 1 or x[i + 1] > 0 else 2 * x[i]
    return s


def value_of_or(x, k):
    # `or` of numbers is one of them, as Python's.
    return (k[0] or x[k[1]]) * x[0]


U = np.array([1.5, -2.0, 3.0, 0.5, -1.0, 2.5, 0.75])


@pytest.mark.parametrize("fn, extra", [
    (reversed_test, ()), (negated_test, ()), (chained_test, ()),
    (derived_index, ()), (two_variables, ()), (never_taken, ()),
    (data_test, (np.array([4]),)), (data_test, (np.array([6]),)),
    (while_counter, ()), (data_test_windows, (np.array([4]),)),
    (guarded_and, ()), (bool_assigned, ()), (guarded_or, ()),
    (value_of_or, (np.array([0, 3]),)), (value_of_or, (np.array([2, 3]),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_only_the_branch_taken_reads(fn, extra):
    want = fn(U.copy(), *extra)
    got = sdfg.program(fn)(U.copy(), *extra)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    name = fn.__code__.co_varnames[0]
    g = sdfg.grad(fn, [name])(U.copy(), *extra)[name]
    h = 1e-6
    fd = np.array([(np.sum(fn(U + h * e, *extra)) -
                    np.sum(fn(U - h * e, *extra))) / (2 * h)
                   for e in np.eye(U.size)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-8)


def out_of_bounds_in_the_branch_taken(u, k):
    return u[k[0] + 10] if k[0] > 0 else u[0]


def test_the_branch_taken_still_checks():
    prog = sdfg.program(out_of_bounds_in_the_branch_taken)
    assert prog(U, np.array([0])) == U[0]
    with pytest.raises(IndexError, match="index 11 is out of bounds"):
        prog(U, np.array([1]))


def plain_choice(x, c):
    return x * 2 if c > 0 else x


def absolute_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] if x[i] > 0 else -x[i]
        s += x[i - 1] if i > 0 and x[i] > 0 else 0.0
    return s


def test_branches_that_check_nothing_need_no_control_flow():
    # Names, arithmetic and reads proven in range (narrowed by the test)
    # check nothing at run time: np.where of both, no branch to tape.
    assert "sdfg.if" not in sdfg.to_mlir(plain_choice, U, 1.0)
    assert "sdfg.if" not in sdfg.to_mlir(absolute_sum, U)
    assert sdfg.program(absolute_sum)(U) == pytest.approx(
        absolute_sum(U), rel=1e-14)
    # A read that needs a check runs only where its branch is taken.
    assert "sdfg.if" in sdfg.to_mlir(guarded_and, U)


def decided_when_compiling(x, k):
    # k is known when compiling: the operand after a false `and` (a true
    # `or`) is not evaluated, as in Python (x[k + 1] would be x[5]).
    a = 1.0 if k + 1 < 5 and x[k + 1] > 0 else 0.0
    b = k + 1 >= 5 or x[k + 1] > 0
    return a + b


def size_decides(x, s):
    w = x[s[0]:s[1]]
    return np.sum(np.cumsum(w) if w.size > 2 else w * 2.0)


def test_choices_decided_by_compile_time_values_and_sizes():
    x = np.arange(1.0, 6.0)
    assert sdfg.program(decided_when_compiling)(x, 4) == 1.0
    # A branch's value is kept for every length the choice can see (the
    # else branch alone sees at most 2).
    x = np.arange(1.0, 8.0)
    for s in ([1, 6], [0, 7], [2, 4]):
        s = np.array(s)
        assert sdfg.program(size_decides)(x, s) == size_decides(x, s)


def array_test(x):
    return x if x > 0 else 2 * x


def array_and(x, k):
    return x and k[0]


def scalar_or_array(x, k):
    return (k[0] or x) * 1.0


def test_truth_of_arrays_is_refused():
    x = np.arange(1.0, 6.0)
    for fn, args in ((array_test, (x,)), (array_and, (x, np.array([1])))):
        with pytest.raises(ValueError):
            fn(*args)
        with pytest.raises(sdfg.FrontendError,
                           match="truth value of an array with more than "
                           "one element is ambiguous"):
            sdfg.program(fn)(*args)
    with pytest.raises(sdfg.FrontendError,
                       match="'and'/'or' between a scalar and an array"):
        sdfg.program(scalar_or_array)(x, np.array([0]))
