"""Programs that call their own Python helper functions: the frontend
inlines them (arguments by reference, defaults and keywords, tuple
results, helpers called for their in-place effects), forward against
NumPy and gradient against finite differences."""

import copy
import inspect

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def laplacian(u, h):
    return (u[:-2] - 2.0 * u[1:-1] + u[2:]) / (h * h)


def diffuse(u, dt, h):
    # Called for its effect on the caller's array.
    u[1:-1] += dt * laplacian(u, h)


def heat(u, T):
    for t in range(T):
        diffuse(u, 0.1, 1.0)
    return np.sum(u * u)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def dense(x, W, b, act=True):
    y = x @ W + b
    if act:
        y = sigmoid(y)
    return y


def two_layers(x, W1, b1, W2, b2):
    h = dense(x, W1, b1)
    o = dense(h, W2, b=b2, act=False)
    return np.sum(o * o) + np.sum(sigmoid(x))


def scaled_and_total(a, c):
    return a * c, np.sum(a)


def unpacking(a):
    d, s = scaled_and_total(a, 2.0)
    e, _ = scaled_and_total(d, s)
    M, N = a.shape
    return e * s + M * N


def bump(a):
    a[0] += 1.0
    return a[0] * 3.0


def argument_order(a):
    # Python evaluates bump(a) (which updates a) before the sum reads a;
    # the helper's result is the value at its return.
    return bump(a) + np.sum(a) + bump(a)


def rk4(y, k, dt, n):
    # A lambda bound to a name, called with positional, keyword and
    # default arguments; it reads k from the program (a closure).
    f = lambda z, c=2.0: -k * z ** 3 / c  # noqa: E731
    for _ in range(n):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(z=y + dt / 2 * k2)
        k4 = f(y + dt * k3, 1.0)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y)


def late_binding(x, w):
    # Python's lambdas read their free variables when called.
    a = 1.0
    g = lambda: x * a + w  # noqa: E731
    first = np.sum(g())
    a = 3.0
    return first + np.sum(g() ** 2)


def lambda_through_helper(x):
    f = lambda z: np.tanh(z) * x[0]  # noqa: E731
    return apply_twice(f, x)


def apply_twice(f, v):
    return np.sum(f(f(v)))


def nested_functions(x, k, out):
    def rhs(z, c=2.0):
        # Free variables (k) are read from the program; y is its own.
        y = -k * z ** 3 / c
        return y

    def record(i, v):
        out[i] = np.sum(v)  # an update of the program's array

    y = x
    for i in range(3):
        y = y + 0.1 * rhs(y)
        record(i, y)
    return np.sum(y) + np.sum(rhs(y, c=4.0))


CASES = [
    (nested_functions, lambda r: (r.random(5), 0.5, np.zeros(3))),
    (rk4, lambda r: (r.random(5), 0.5, 0.1, 10)),
    (late_binding, lambda r: (r.random(4), r.random(4))),
    (lambda_through_helper, lambda r: (r.random(4),)),
    (heat, lambda r: (r.random(10), 5)),
    (two_layers, lambda r: (r.random((4, 3)), r.random((3, 5)), r.random(5),
                            r.random((5, 2)), r.random(2))),
    (unpacking, lambda r: (r.random((2, 3)),)),
    (argument_order, lambda r: (r.random(3),)),
]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_forward_matches_numpy(fn, inputs):
    args = inputs(np.random.default_rng(1))
    ref, ours = copy.deepcopy(args), copy.deepcopy(args)
    np.testing.assert_allclose(sdfg.program(fn)(*ours), fn(*ref),
                               rtol=1e-13)
    for o, r in zip(ours, ref):
        if isinstance(r, np.ndarray):
            np.testing.assert_allclose(o, r, rtol=1e-13)


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_gradient_matches_finite_differences(fn, inputs):
    args = inputs(np.random.default_rng(2))
    names = list(inspect.signature(fn).parameters)
    wrt = [n for n, a in zip(names, args) if isinstance(a, np.ndarray)]
    g = sdfg.grad(fn, wrt)(*copy.deepcopy(args))
    rng = np.random.default_rng(3)
    dirs = {w: rng.standard_normal(args[names.index(w)].shape) for w in wrt}
    h = 1e-6

    def shifted(s):
        a = list(copy.deepcopy(args))
        for w in wrt:
            a[names.index(w)] = a[names.index(w)] + s * h * dirs[w]
        return float(np.sum(fn(*a)))

    fd = (shifted(1.0) - shifted(-1.0)) / (2 * h)
    ad = sum(float(np.sum(g[w] * dirs[w])) for w in wrt)
    assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


def halve(x):
    return halve(x * 0.5)


def recursive(x):
    return halve(x)


def bad_helper(x):
    return x[0, 0]  # too many indices


def calls_bad_helper(x):
    return bad_helper(x) * 2.0


def recursive_lambda(x):
    f = lambda z: f(z)  # noqa: E731
    return f(x)


def lambda_rebound(x):
    f = lambda z: z  # noqa: E731
    f = lambda z: 2 * z  # noqa: E731
    return f(x)


def lambda_wrong_count(x):
    f = lambda z: z  # noqa: E731
    return f(x, x)


def recursive_nested(x):
    def f(z):
        return f(z * 0.5)
    return f(x)


@pytest.mark.parametrize("fn,match", [
    (recursive_nested, r"recursive call of f"),
    (recursive_lambda, r"recursive call of a lambda"),
    (lambda_rebound, r"'f' bound to a function and assigned again"),
    (lambda_wrong_count, r"<lambda>\(\) takes 1 arguments, got 2"),
])
def test_lambda_errors(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(np.ones(3))
    assert "test_calls.py:" in str(info.value)


def test_recursion_and_errors_in_helpers_are_located():
    with pytest.raises(sdfg.FrontendError, match="recursive call of halve"):
        sdfg.program(recursive)(np.ones(3))
    # An error inside the helper names the helper's line.
    with pytest.raises(sdfg.FrontendError) as info:
        sdfg.program(calls_bad_helper)(np.ones(3))
    lines, first = inspect.getsourcelines(bad_helper)
    assert f"test_calls.py:{first + 1}:" in str(info.value)
    assert "too many indices" in str(info.value)


def defaults_frozen(x):
    c = 2.0
    g = lambda z, c=c: z * c  # noqa: E731
    c = 5.0

    def h(z, d=x * 2.0):
        return z + d
    x[0] = 100.0
    return np.sum(g(x)) + np.sum(h(x))


def closures_keep_their_scope(x):
    k = 2.0
    g = lambda w: w * k  # noqa: E731
    h = lambda k: g(k)  # noqa: E731  (its k is its own, not g's)
    return np.sum(h(x))


def column(A, j):
    return A[:, j]


def views_from_helpers(A):
    c = column(A, 1)
    c[0] = 9.0  # writes through the view into A
    A[1, 1] = 5.0  # seen through c
    return np.sum(c) + np.sum(A)


def big(y):
    return np.sum(y) > 1.0


def conditions_call_helpers(y):
    small = lambda v: np.max(v) < 0.05  # noqa: E731
    if big(y):
        y = y * 0.5
    elif np.sum(y) > 0.5:
        y = y + 1.0
    while not small(y):
        y = y * 0.5
    return y


def test_defaults_closures_views_and_conditions_follow_python():
    x = np.array([0.1, 0.2, 0.3])
    for fn in (defaults_frozen, closures_keep_their_scope):
        assert sdfg.program(fn)(x.copy()) == pytest.approx(fn(x.copy()),
                                                           rel=1e-14)
    A = np.arange(12.0).reshape(4, 3)
    got_A, want_A = A.copy(), A.copy()
    assert sdfg.program(views_from_helpers)(got_A) == \
        views_from_helpers(want_A)
    np.testing.assert_array_equal(got_A, want_A)
    y = np.array([0.4, 0.5, 0.6])
    np.testing.assert_allclose(sdfg.program(conditions_call_helpers)(y),
                               conditions_call_helpers(y), rtol=1e-15)


def default_aliases(x):
    # A default naming an array is that array (as Python's): updates in
    # place reach it, both ways.
    g = lambda z, c=x: z + c  # noqa: E731

    def acc(z, into=x):
        into += z
        return into
    x[0] = 100.0
    acc(1.0)
    return np.sum(g(1.0))


def swap(a, b):
    return b, a


def swapped_twice(x, y):
    x, y = swap(x, y)
    for k in range(3):
        x, y = swap(x, y)
    return x * 2.0 + y


def closure_over_widened(x, c):
    s = 0.0

    def add(k):
        return s + c[k] * x
    for k in range(3):
        s = add(k)
    f = lambda k: s * x + c[k]  # noqa: E731
    for k in range(2):
        s = f(k)
    return s


def test_defaults_swaps_and_closures_follow_python():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    got, want = x.copy(), x.copy()
    assert sdfg.program(default_aliases)(got) == default_aliases(want)
    np.testing.assert_array_equal(got, want)
    y = np.array([10.0, 20.0, 30.0, 40.0])
    np.testing.assert_array_equal(sdfg.program(swapped_twice)(x, y),
                                  swapped_twice(x, y))
    c = np.array([1.0, 10.0, 100.0])
    np.testing.assert_allclose(
        sdfg.program(closure_over_widened)(x[:2], c),
        closure_over_widened(x[:2], c), rtol=1e-15)


def rhs(y, k):
    return -k * y + np.sin(y)


def rk4(f, y, dt, k):
    k1 = f(y, k)
    k2 = f(y + 0.5 * dt * k1, k)
    k3 = f(y + 0.5 * dt * k2, k)
    k4 = f(y + dt * k3, k)
    return y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def integrate(y0, k):
    y = y0.copy()
    for _ in range(40):
        y = rk4(rhs, y, 0.01, k)
    return np.sum(y ** 2)


def bound_names(y0, k):
    f = rhs
    act = np.tanh
    return np.sum(act(f(y0, k)))


def function_rebound(y0):
    f = rhs
    f = np.sin
    return np.sum(f(y0))


@pytest.mark.parametrize("fn", [integrate, bound_names],
                         ids=lambda f: f.__name__)
def test_functions_as_values(fn):
    # A module function passed to a helper that calls it (an integrator's
    # right-hand side) or bound to a name, as NumPy functions can be.
    y0 = np.linspace(0.1, 1.0, 5)
    assert sdfg.program(fn)(y0, 0.5) == pytest.approx(fn(y0, 0.5),
                                                      rel=1e-13)
    g = sdfg.grad(fn, ["y0"])(y0, 0.5)["y0"]
    h = 1e-6
    fd = np.array([(fn(y0 + h * e, 0.5) - fn(y0 - h * e, 0.5)) / (2 * h)
                   for e in np.eye(5)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-10)


def test_function_rebound_is_rejected():
    with pytest.raises(sdfg.FrontendError,
                       match="'f' bound to a function and assigned again"):
        sdfg.program(function_rebound)(np.ones(3))
