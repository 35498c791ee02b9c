"""List comprehensions and generator expressions (comprehensions.py), lists
bound to names, np.array of lists, and min/max of one list: forward
against NumPy (to rounding), gradients against central finite differences
in float64; and their errors."""

import numpy as np
import pytest

import sdfg
from checks import assert_forward_and_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def polynomial(A):
    # Horner's scheme would be one loop; this is how it is often written.
    c = A[0]
    return np.sum(sum(c[k] * A[1:] ** k for k in range(4)))


def stacked_rows(A):
    norms = np.array([np.sum(r * r) for r in A])
    doubled = np.array([[2.0 * A[i, j] for j in range(3)] for i in range(2)])
    return np.sum(norms * np.arange(4.0)) + np.sum(doubled ** 3)


def windows(A):
    x = A.ravel()
    w = 3
    sums = np.array([np.sum(x[i:i + w]) for i in range(len(x) - w + 1)])
    return np.sum(sums ** 2 * np.arange(14.0))


def products(A):
    # A list bound to a name, indexed and sliced, iterated with zip and
    # enumerate, stacked.
    ys = [W @ A[0] for W in (A, A.T, A * A)]
    first, rest = ys[0], ys[1:]
    s = np.sum(np.stack(ys) ** 2) + np.sum(first * ys[-1])
    s = s + sum(k * np.dot(y, z) for k, (y, z) in enumerate(zip(rest, ys)))
    return s + np.sum(np.asarray(rest) * 0.5)


def filtered(A):
    # `if` clauses on the loop variables; a nested comprehension over a
    # triangle.
    even = sum(A[i, i] ** 2 for i in range(4) if i % 2 == 0)
    tri = sum(A[i, j] * (i + j + 1) for i in range(4) for j in range(i + 1)
              if i != j)
    return even + tri


def extremes(A):
    top = max([A[i, 0] * A[i, 1] for i in range(4)])
    low = min(np.sum(r) for r in A)
    return top + low + max(A[0, 0], A[1, 1]) + min((A[2, 2],))


def in_a_time_loop(A):
    u = A[0].copy()
    for t in range(3):
        u = np.array([u[i - 1] * 0.25 + u[i] * 0.5 + u[(i + 1) % 4] * 0.25
                      for i in range(4)])
    return np.sum(u ** 2)


def typed(A):
    idx = np.array([k for k in range(4)], dtype=np.int64)
    return np.sum(A[idx, idx]) + np.sum(np.array([1, 2, 3], dtype=float) *
                                        A[0, :3])


def layers(A):
    # A for loop over a list bound to a name, over enumerate of a tuple and
    # over a comprehension: unrolled, each item indexed with a constant.
    Ws = [A, A.T * 0.5, A * A]
    x = A[0]
    for W in Ws:
        x = np.tanh(W @ x)
    for k, W in enumerate((A, A.T)):
        x = x + (k + 1.0) * (W @ x)
    s = 0.0
    for y in [W[1] * x for W in Ws]:
        s = s + np.sum(y ** 2)
    for a, b in zip(Ws, Ws[1:]):
        s = s + np.sum(a * b)
    for W in Ws:  # exits decided by the data: flags, as in a loop
        if np.sum(W) < 4.0:
            break
        s = s + np.sum(W * W)
    return s + np.sum(x)


CASES = [polynomial, stacked_rows, windows, products, filtered, extremes,
         in_a_time_loop, typed, layers]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_forward_and_gradient(fn):
    rng = np.random.default_rng(3)
    assert_forward_and_gradient(fn, rng.random((4, 4)) * 0.9 + 0.05, rng)


def test_items_are_translated_per_item():
    # Each item is its own computation: the comprehension's result is the
    # list of NumPy's values, including integer results.
    def f(x):
        return np.array([x[k] * k for k in range(3)]), \
            np.array([k * k for k in range(4)])

    x = np.arange(1.0, 4.0)
    a, b = sdfg.program(f)(x)
    np.testing.assert_array_equal(a, [0.0, 2.0, 6.0])
    np.testing.assert_array_equal(b, [0, 1, 4, 9])
    assert b.dtype == np.int64


def data_condition(x):
    return sum(x[i] for i in range(3) if x[i] > 0)


def too_many(x):
    return np.sum(np.array([x[0] * k for k in range(300)]))


def run_time_range(x):
    s = 0.0
    for n in range(3):
        s = s + sum(x[i] for i in range(n))
    return s


def set_comprehension(x):
    return len({k for k in range(3)})


def reassigned_list(x):
    ys = [x[0], x[1]]
    ys = [x[1], x[2]]
    return ys[0]


def list_store(x):
    ys = [x[0], x[1]]
    ys[0] = x[2]
    return ys[0]


def list_index_at_run_time(x):
    ys = [x[0], x[1]]
    s = 0.0
    for i in range(2):
        s = s + ys[i]
    return s


def zip_list_and_array(x):
    s = 0.0
    for a, b in zip([x, x], x):
        s = s + np.sum(a) * b
    return s


def empty_max(x):
    return max([x[i] for i in range(0)])


@pytest.mark.parametrize("fn,match", [
    (data_condition, r"comprehension condition on values computed at run "
                     r"time.*np.where"),
    (too_many, r"comprehension with more than 256 items.*write a for loop"),
    (run_time_range, r"comprehension over a range known only at run time"),
    (set_comprehension, r"unsupported construct 'set comprehension'"),
    (reassigned_list, r"reassigned list variable"),
    (list_store, r"assignment into a list"),
    (list_index_at_run_time, r"list index computed at run time"),
    (empty_max, r"max\(\) arg is an empty sequence"),
    (zip_list_and_array, r"zip of a list or tuple and an array"),
])
def test_errors(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(np.ones(3))
    assert "test_comprehensions.py:" in str(info.value)
