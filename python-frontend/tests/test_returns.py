"""Early returns whose tests are decided at run time, in if statements
(guards such as `if n == 0: return 0.0`) and in loops (a search, a
converged iteration), in the program and in the helpers it calls: folded
into one return at the end (returns.py). Values against NumPy, gradients
against central finite differences (float64), and the located rejections
of what cannot be folded."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def guarded(x, n):
    if n == 0:
        return 0.0
    s = np.sum(x[:n] ** 2)
    if s > 10.0:
        return np.sqrt(s)
    elif s < 1.0:
        return s * 3
    return s / 2


def flip(v):
    if v[0] < 0:
        return -v
    return v * 2


def calls_a_guarded_helper(x):
    return np.sum(np.sin(flip(x)))


def pair(x):
    if x[0] > 0:
        return x[1], x * 2
    t = x + 1
    return t[0], t


def argument_or_new(x):
    if x[0] > 0:
        return x
    return x * 2


def update_unless(x):
    if x[0] > 5:
        return
    x[0] += 1.0


def first_negative(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            return i
    return -1


def newton(x0, tol):
    x = x0
    for k in range(50):
        fx = x * x - 2.0
        if abs(fx) < tol:
            return x, k
        x = x - fx / (2 * x)
    return x, -1


def first_large(A):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if A[i, j] > 0.9:
                return A[i, j] * (i + j)
    return np.sum(A)


def until_large(x):
    i = 0
    s = 0.0
    while i < x.shape[0]:
        s += x[i] ** 2
        if s > 5.0:
            return s
        i += 1
    return -s


def clip_until_negative(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            x[i] = 0.0
            return
        x[i] *= 2


def local_search(x):
    def find(v, t):
        for i in range(v.shape[0]):
            if v[i] > t:
                return v[i]
        return t
    return find(x, 1.8) + find(x, 10.0)


def breaks_and_returns(x):
    # A local function with a loop that breaks and one that returns,
    # called from a loop that breaks: each exit keeps its own flag.
    def find(v, t):
        for i in range(v.shape[0]):
            if v[i] > 100:
                break
        for i in range(v.shape[0]):
            for j in range(2):
                if v[i] > t:
                    return v[i] * (j + 1)
        return t
    s = 0.0
    for k in range(3):
        if x[k] < -5:
            break
        s += find(x, 1.8 + k)
    return s


X = np.array([1.5, 2.0, -3.0, 4.0])
A = np.array([[0.5, 0.2, 0.1], [0.3, 0.95, 0.4], [0.2, 0.1, 0.99]])


@pytest.mark.parametrize("fn, args", [
    (guarded, (X, 0)), (guarded, (X, 1)), (guarded, (X, 2)),
    (guarded, (X, 4)), (calls_a_guarded_helper, (X,)),
    (calls_a_guarded_helper, (-X,)), (pair, (X,)), (pair, (-X,)),
    (argument_or_new, (X,)), (argument_or_new, (-X,)),
    (first_negative, (X,)), (first_negative, (np.abs(X),)),
    (newton, (1.0, 1e-10)), (first_large, (A,)), (first_large, (A * 0.5,)),
    (until_large, (X,)), (until_large, (X * 0.1,)), (local_search, (X,)),
    (breaks_and_returns, (X,)), (breaks_and_returns, (X * 10,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_values(fn, args):
    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = sdfg.program(fn)(*[a.copy() if isinstance(a, np.ndarray) else a
                            for a in args])
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-14)


@pytest.mark.parametrize("fn, args", [
    (guarded, (X, 4)), (guarded, (X * 0.2, 4)), (guarded, (X, 2)),
    (calls_a_guarded_helper, (X,)), (calls_a_guarded_helper, (-X,)),
    (until_large, (X,)), (until_large, (X * 0.1,)), (first_large, (A,)),
    (first_large, (A * 0.5,)), (local_search, (X,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_gradients(fn, args):
    name = fn.__code__.co_varnames[0]
    g = sdfg.grad(fn, [name])(*args)[name]
    x, rest = args[0], args[1:]
    h = 1e-6
    fd = np.array([(fn(x + h * e, *rest) - fn(x - h * e, *rest)) / (2 * h)
                   for e in np.eye(x.size).reshape((x.size,) + x.shape)])
    fd = fd.reshape(x.shape)
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-8)


def test_return_without_value_ends_the_update():
    for fn in (update_unless, clip_until_negative):
        for x0 in (1.0, 7.0):
            want, got = X.copy(), X.copy()
            want[0] = got[0] = x0
            fn(want)
            assert sdfg.program(fn)(got) is None
            np.testing.assert_array_equal(got, want)


def return_in_loop_else(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            return i
    else:
        x[0] = 1.0
    return -1


def value_or_nothing(x):
    if x[0] > 0:
        return
    return x


def tuple_or_value(x):
    if x[0] > 0:
        return x[0], x[1]
    return x[0]


def shape_by_path(x):
    if x[0] > 0:
        return x[:2]
    return x


@pytest.mark.parametrize("fn, match", [
    (return_in_loop_else, "return in a loop with an else clause"),
    (value_or_nothing, "returns a value on some paths and none on others"),
    (tuple_or_value, "tuples of different lengths, or a tuple and a value"),
    (shape_by_path, "changing shape or type"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_cannot_be_folded_is_located(fn, match):
    with pytest.raises(sdfg.FrontendError,
                       match=rf"test_returns.py:\d+: .*{match}"):
        sdfg.program(fn)(X.copy())
