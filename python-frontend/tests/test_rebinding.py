"""A variable rebound to a value of another shape or type. In straight-
line code the name moves to a new array, as in NumPy; in a loop or a
branch (one translation of the body, one container per variable) the
change is rejected with a located error, as is a loop that passes a
variable of a changing shape to its next iteration. Each of these
programs used to give a silently wrong result (the value stored into the
first binding's container) or to hang."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def mlp(x, W1, W2):
    h = x
    h = np.tanh(h @ W1)
    h = np.tanh(h @ W2)
    return np.sum(h * h)


def test_layers_rebinding_one_name():
    rng = np.random.default_rng(0)
    x, W1, W2 = (rng.standard_normal(s) for s in ((4, 3), (3, 5), (5, 2)))
    assert sdfg.program(mlp)(x, W1, W2) == pytest.approx(mlp(x, W1, W2),
                                                         rel=1e-13)
    g = sdfg.grad(mlp, ["W1", "W2"])(x, W1, W2)
    for k, name in ((1, "W1"), (2, "W2")):
        args = [x, W1, W2]
        d = rng.standard_normal(args[k].shape)
        plus, minus = list(args), list(args)
        plus[k] = args[k] + 1e-6 * d
        minus[k] = args[k] - 1e-6 * d
        fd = (mlp(*plus) - mlp(*minus)) / 2e-6
        assert float(np.sum(g[name] * d)) == pytest.approx(fd, rel=1e-7)


def grow_and_shrink(v):
    u = v[:2] * 1.0
    u = np.concatenate([v, v])
    w = u * 2.0
    u = u[::3]
    return np.sum(w) + u


def change_types(a, x):
    c = a.copy()
    c = c * 1.5
    m = x > 0.5
    m = m * 3
    f = x * 2.0
    f = f.astype(np.int64)
    s = 0
    s = np.sum(x)
    return c, m, f, s


def test_straight_line_rebinding_follows_numpy():
    v = np.arange(1.0, 6.0)
    np.testing.assert_array_equal(sdfg.program(grow_and_shrink)(v),
                                  grow_and_shrink(v))
    a = np.arange(5)
    x = np.array([0.2, 0.7, 1.9, 0.4, 3.3])
    for got, want in zip(sdfg.program(change_types)(a, x),
                         change_types(a, x)):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def tuple_of_shapes(A):
    s = 0.0
    for W in (A, A.T, A[:1]):
        s += np.sum(W * W) * W.shape[0]
    return s


def test_loop_over_arrays_of_different_shapes():
    A = np.arange(6.0).reshape(2, 3)
    assert sdfg.program(tuple_of_shapes)(A) == tuple_of_shapes(A)


def larger_in_loop(x):
    y = x[:2] * 1.0
    s = 0.0
    for k in range(3):
        y = x * (k + 1.0)
        s += np.sum(y)
    return s


def test_fresh_bindings_in_loops_follow_numpy():
    # A variable each iteration of surely-running loops binds anew before
    # reading it may change shape inside them (each iteration's bindings
    # take the same containers in order): the accumulator reset per time
    # step, a layer stack in a loop, a larger array than before the loop.
    u = np.linspace(0.0, 1.0, 4)
    assert sdfg.program(time_steps_with_reset)(u) == pytest.approx(
        time_steps_with_reset(u), rel=1e-14)
    g = sdfg.grad(time_steps_with_reset, ["u"])(u)["u"]
    d = np.cos(np.arange(4.0))
    fd = (time_steps_with_reset(u + 1e-6 * d) -
          time_steps_with_reset(u - 1e-6 * d)) / 2e-6
    assert float(np.sum(g * d)) == pytest.approx(fd, rel=1e-8)
    x = np.arange(6.0)
    assert sdfg.program(larger_in_loop)(x) == larger_in_loop(x)


def time_steps_with_reset(u):
    for t in range(3):
        acc = 0.0
        for k in range(3):
            acc = acc + u * k
        u = u + 0.1 * acc
    return np.sum(u)


def retyped_in_branch(x):
    y = x > 0
    if x[0] > 0:
        y = x * 2.0
    return y


def shrinking_loop(x):
    for k in range(2):
        x = x[1:]
    return x


def shrinking_while(x):
    while x.shape[0] > 2:
        x = x[1:] - x[:-1]
    return np.sum(x)


@pytest.mark.parametrize("fn,message", [
    (retyped_in_branch, r"'y' holds a bool array of shape \(6,\) and is "
                        r"assigned a float64 array"),
    (shrinking_loop, r"variable 'x' changing shape from one iteration to "
                     r"the next.*enters the loop with shape \(6,\) and "
                     r"leaves an iteration with shape \(5,\)"),
    (shrinking_while, r"variable 'x' changing shape from one iteration"),
])
def test_shape_changes_in_loops_are_rejected(fn, message):
    with pytest.raises(sdfg.FrontendError, match=message) as info:
        sdfg.program(fn)(np.arange(6.0))
    assert "test_rebinding.py" in str(info.value)


def fresh_each_iteration(A):
    # Not carried: each iteration binds `row` anew before reading it, to
    # a shape that depends on the iteration.
    row = A[0]
    s = 0.0
    for i in range(1, A.shape[0]):
        row = A[i, :i]
        s += np.sum(row * row)
    return s + np.sum(row)


def test_loop_local_shapes_still_work():
    A = np.arange(16.0).reshape(4, 4)
    assert sdfg.program(fresh_each_iteration)(A) == fresh_each_iteration(A)


def alias_after_loop(A):
    for i in range(1, A.shape[0]):
        r = A[i, :i]
    return r * 2.0


def triangular_after_loop(A, n):
    s = 0.0
    for i in range(1, 4):
        row = A[0, :3] * 1.0
        for j in range(i):
            row = A[j, :j + 1] * 1.0
        s += np.sum(row)
    return s


def test_views_after_a_loop_take_the_last_iteration():
    A = np.arange(16.0).reshape(4, 4)
    np.testing.assert_array_equal(sdfg.program(alias_after_loop)(A),
                                  alias_after_loop(A))
    with pytest.raises(sdfg.FrontendError,
                       match=r"'row' after the loop of line \d+.*depends on "
                             r"the loop's iterator"):
        sdfg.program(triangular_after_loop)(A, np.array([3]))


def int_accumulators(x):
    s = 0
    n = 0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
        n += 1
    m = 0
    if x[0] > 0:
        m = 0.5 * x[1]
    return s / n + m


def test_integer_accumulator_becomes_a_float():
    # `s = 0` then `s += x[i]` in a loop (or a float assigned in a branch):
    # the scalar is translated again with a float container; n stays int.
    rng = np.random.default_rng(2)
    x = rng.random(7) + 0.1
    assert sdfg.program(int_accumulators)(x) == pytest.approx(
        int_accumulators(x), rel=1e-14)
    g = sdfg.grad(int_accumulators, ["x"])(x)["x"]
    want = 2 * x / 7
    want[1] += 0.5
    np.testing.assert_allclose(g, want, rtol=1e-13)


def polynomial(x, c):
    s = 0.0
    for k in range(c.shape[0]):
        s = s + c[k] * x ** k
    return s


def horner(x, c):
    r = c[0]
    for k in range(1, c.shape[0]):
        r = r * x + c[k]
    t = 0
    for k in range(2):
        for j in range(2):
            t = t + x * j
    return np.sum(r * r) + np.sum(t)


def size_read_first(x):
    # The first iteration reads s while it is NumPy's scalar: np.sum sees
    # one element, not x's size (the first iteration runs as straight-line
    # code, then the loop with s an array).
    s = 1.0
    total = 0.0
    for k in range(3):
        total = total + np.sum(s) + np.prod(s * 2.0)
        s = s + x
    return total + np.sum(s)


def read_before_the_loop(x, s):
    t = s * 2.0  # NumPy's s is still the scalar here
    u = 0
    for i in range(2):
        for j in range(3):
            s = s + x[j] * x
            u = u + x
    return np.sum(t) + np.sum(s) + np.sum(u)


def test_scalar_becomes_an_array_at_the_loop():
    x = np.array([0.5, 1.5, 2.0])
    assert sdfg.program(read_before_the_loop)(x, 0.25) == pytest.approx(
        read_before_the_loop(x, 0.25), rel=1e-14)
    g = sdfg.grad(read_before_the_loop, ["x", "s"])(x, 0.25)
    # d/ds: t = 2 s and s broadcast to 3 elements: 2 + 3.
    assert g["s"] == pytest.approx(5.0, rel=1e-14)
    # sum(s) = s0*3 + 2 * sum_j x_j * sum(x); sum(u) = 6 * sum(x).
    np.testing.assert_allclose(g["x"], 4 * np.sum(x) + 6, rtol=1e-14)


def test_scalar_becomes_an_array_in_a_loop():
    # NumPy's s is an array from the loop's first iteration on; the loop
    # surely runs (constant bounds), so s is that array from its binding.
    rng = np.random.default_rng(3)
    x, c = rng.random(6), rng.random(4)
    np.testing.assert_allclose(sdfg.program(polynomial)(x, c),
                               polynomial(x, c), rtol=1e-14)
    assert sdfg.program(horner)(x, c) == pytest.approx(horner(x, c),
                                                       rel=1e-14)
    assert sdfg.program(size_read_first)(x) == pytest.approx(
        size_read_first(x), rel=1e-14)
    g = sdfg.grad(size_read_first, ["x"])(x)["x"]
    p1, p2 = np.prod(2.0 * (1.0 + x)), np.prod(2.0 * (1.0 + 2.0 * x))
    want = 6.0 + p1 / (1.0 + x) + 2.0 * p2 / (1.0 + 2.0 * x)
    np.testing.assert_allclose(g, want, rtol=1e-12)
    g = sdfg.grad(horner, ["x", "c"])(x, c)
    fd = [np.zeros_like(x), np.zeros_like(c)]
    for a, d in ((x, fd[0]), (c, fd[1])):
        for i in range(a.size):
            e = np.zeros_like(a)
            e[i] = 1e-6
            args = (x + e, c) if a is x else (x, c + e)
            argm = (x - e, c) if a is x else (x, c - e)
            d[i] = (horner(*args) - horner(*argm)) / 2e-6
    np.testing.assert_allclose(g["x"], fd[0], rtol=1e-7)
    np.testing.assert_allclose(g["c"], fd[1], rtol=1e-7)


def maybe_no_iteration(x, n):
    s = 1.0
    for k in range(n):
        s = s * x
    return np.sum(s)


def scalar_again(x):
    t = 0.0
    for k in range(2):
        t = t + x
        t = 1.0  # a scalar again in the loop: one container per variable
    return np.sum(t)


def maybe_in_branch(x):
    s = 1.0
    for k in range(3):
        if x[k] > 0.5:
            s = s * x
    return np.sum(s)


@pytest.mark.parametrize("fn,args,match", [
    (maybe_no_iteration, (np.arange(3.0), 0),
     r"'s' holds a float64 scalar and is assigned a float64 array of shape "
     r"\(3,\)"),
    (maybe_in_branch, (np.arange(3.0),),
     r"'s' holds a float64 scalar and is assigned a float64 array of shape "
     r"\(3,\) here; start 's' as an array of that shape \(np.zeros_like"),
    (scalar_again, (np.arange(3.0),),
     r"variable 't' changing shape or type in a loop"),
])
def test_scalar_becoming_an_array_only_maybe_is_rejected(fn, args, match):
    # Where the assignment might not run, NumPy's result is a scalar or an
    # array depending on the data (np.sum gives 1.0 or 3.0): rejected; so
    # is a variable that is a scalar again in a later iteration.
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(*args)


def positional_axes(A):
    return np.sum(A, 0) + np.max(A, 0) + A.sum(0) + np.mean(A, (0, 1))


def test_positional_axis_of_reductions():
    A = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sdfg.program(positional_axes)(A),
                                  positional_axes(A))


def rows_in_order(A):
    # NumPy stores left to right, and the views read what earlier stores
    # wrote: both rows end as A[1]'s. Scalars are read first (a swap), and
    # so are computed values.
    A[0], A[1] = A[1], A[0]
    A[2, 0], A[2, 1] = A[2, 1], A[2, 0]
    A[3], A[2] = A[2] * 2.0, A[3] + 1.0


def test_tuple_assignment_into_arrays_follows_numpy():
    A = np.arange(12.0).reshape(4, 3)
    want = A.copy()
    rows_in_order(want)
    got = A.copy()
    sdfg.program(rows_in_order)(got)
    np.testing.assert_array_equal(got, want)


def scaled(x, alpha):
    return np.sum(x * x) * alpha


def test_keyword_arguments_in_calls():
    x = np.arange(3.0)
    assert sdfg.program(scaled)(x, alpha=2.0) == scaled(x, 2.0)
    assert sdfg.program(scaled)(alpha=2.0, x=x) == scaled(x, 2.0)
    g = sdfg.grad(scaled, ["x"])(x=x, alpha=3.0)["x"]
    np.testing.assert_allclose(g, 6.0 * x)
    value, grads = sdfg.value_and_grad(scaled, ["x"])(x, alpha=3.0)
    assert value == scaled(x, 3.0)
    with pytest.raises(TypeError, match="missing a required argument"):
        sdfg.program(scaled)(x=x)


def step(u, dt=0.1, nu=0.5, steps=3):
    for t in range(steps):
        u[1:-1] = u[1:-1] + nu * dt * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def test_default_parameter_values():
    u = np.sin(np.linspace(0.0, 3.0, 9))
    for args, kwargs in (((u,), {}), ((u, 0.2), {}), ((u,), {"nu": 0.25}),
                         ((), {"u": u, "steps": 2})):
        got_u, want_u = u.copy(), u.copy()
        a = (got_u,) + args[1:] if args else ()
        k = dict(kwargs, u=got_u) if "u" in kwargs else kwargs
        b = (want_u,) + args[1:] if args else ()
        kw = dict(kwargs, u=want_u) if "u" in kwargs else kwargs
        assert sdfg.program(step)(*a, **k) == pytest.approx(
            step(*b, **kw), rel=1e-14)
        np.testing.assert_allclose(got_u, want_u, rtol=1e-14)
    g = sdfg.grad(step, ["u"])(u.copy(), nu=0.25)["u"]
    d = np.cos(np.arange(9.0))
    fd = (step(u + 1e-6 * d, nu=0.25) - step(u - 1e-6 * d, nu=0.25)) / 2e-6
    assert float(np.sum(g * d)) == pytest.approx(fd, rel=1e-8)


def triple_product(a, /, b, *, scale=3.0):
    return a * b * scale


def keyword_only(A, /, B, *, scale=2.0, shift):
    return np.sum(triple_product(A, B, scale=scale) + shift)


def test_keyword_only_and_positional_only_parameters():
    A, B = np.arange(4.0), np.linspace(1.0, 2.0, 4)
    p = sdfg.program(keyword_only)
    for kwargs in ({"shift": 1.0}, {"B": B, "shift": 1.0, "scale": 0.5}):
        args = (A,) if "B" in kwargs else (A, B)
        assert p(*args, **kwargs) == pytest.approx(
            keyword_only(*args, **kwargs), rel=1e-14)
    g = sdfg.grad(keyword_only, ["A", "shift"])(A, B, shift=1.0, scale=0.5)
    np.testing.assert_allclose(g["A"], 0.5 * B, rtol=1e-14)
    assert g["shift"] == pytest.approx(4.0, rel=1e-14)
    # Python's own errors for calls its binding rejects.
    with pytest.raises(TypeError, match="too many positional"):
        p(A, B, 1.0)
    with pytest.raises(TypeError, match="positional only"):
        p(A=A, B=B, shift=1.0)


def star_args(A, *rest):
    return np.sum(A)


def test_star_parameters_are_rejected():
    with pytest.raises(sdfg.FrontendError,
                       match=r"test_rebinding.py:\d+: .*\*args and \*\*kwargs"):
        sdfg.program(star_args)(np.arange(3.0))


def int_argument_in_loop(k, s, n):
    for i in range(3):
        s = s + k[i]
    while n < 10:
        n = n + 3
    flag = True
    for i in range(2):
        flag = flag and k[i] > 1
    return s, n, flag


def int_argument_times_array(x, s):
    for i in range(3):
        s = s * x
    return s


def test_number_arguments_rebound_in_loops():
    # Int arguments are constants of the compiled signature; rebound in a
    # loop they get a container (each iteration used to start from the
    # constant again: 7 instead of 10, and the while loop never ended).
    k = np.array([1, 2, 4])
    got = sdfg.program(int_argument_in_loop)(k, 3, 3)
    assert tuple(np.asarray(g).item() for g in got) == \
        int_argument_in_loop(k, 3, 3)
    x = np.array([1.0, 2.0, 4.0])
    np.testing.assert_array_equal(
        sdfg.program(int_argument_times_array)(x, 3),
        int_argument_times_array(x, 3))


def loop_variable_after(x, n):
    k = 7
    s = np.zeros_like(x)
    for k in range(3):
        s = s + x
    j = 5
    for j in range(0):
        s = s + 1.0
    for i in range(2, 9, 3):
        s[0] += 1.0
    return s * k + j + i


def loop_variable_after_data_loop(x, n):
    for k in range(n[0]):
        x[0] += 1.0
    return x * k


def test_loop_variable_after_the_loop():
    # Python leaves the last iteration's value (or the old one after a
    # loop that did nothing); the loop used to leave the old value.
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(sdfg.program(loop_variable_after)(x, 0),
                               loop_variable_after(x, 0), rtol=1e-15)
    with pytest.raises(sdfg.FrontendError, match=r"'k' after the loop of "
                       r"line \d+"):
        sdfg.program(loop_variable_after_data_loop)(x, np.array([2]))


def int_plus_float_in_place(k):
    k += 2.5


def int_divided_in_place(k):
    k /= 2


def bool_plus_int_in_place(m):
    m += 1


@pytest.mark.parametrize("fn,arg,match", [
    (int_plus_float_in_place, np.array([1, 2], dtype=np.int32),
     r"Cannot cast ufunc 'add' output from dtype\('float64'\) to "
     r"dtype\('int32'\) with casting rule 'same_kind'"),
    (int_divided_in_place, np.array([1, 2]),
     r"Cannot cast ufunc 'divide' output from dtype\('float64'\)"),
    (bool_plus_int_in_place, np.array([True, False]),
     r"Cannot cast ufunc 'add' output from dtype\('int64'\) to "
     r"dtype\('bool'\)"),
])
def test_in_place_updates_follow_the_same_kind_rule(fn, arg, match):
    # NumPy refuses these (UFuncTypeError); they used to cast silently.
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(arg)


def polynomial_of(x, c, *, degree=2):
    s = 0.0
    for k in range(degree):
        s = s + c[k] * x ** k
    h = x
    h = h[:2] * 2.0  # straight-line rebinding in the helper
    return s + np.sum(h)


def helpers_in_a_loop(x, c):
    # A helper's names are bound anew by each call: the loop around the
    # call does not carry them, though the caller has names of its own
    # called s and h.
    s = 0.0
    h = 1.0
    for k in range(2):
        s = s + polynomial_of(x, c[k:])
        h = h * 2.0
    return np.sum(s) + h


def test_helpers_rebinding_inside_loops():
    x, c = np.linspace(0.0, 1.0, 4), np.array([1.0, 2.0, 3.0])
    assert sdfg.program(helpers_in_a_loop)(x, c) == pytest.approx(
        helpers_in_a_loop(x, c), rel=1e-14)


def loop_variable_after_break(x):
    for i in range(4):
        if x[i] > 0.5:
            break
    return i


def loop_variable_assigned_in_body(x):
    for i in range(3):
        i = i * 2
        x[0] += 1.0
    return i


@pytest.mark.parametrize("fn", [loop_variable_after_break,
                                loop_variable_assigned_in_body])
def test_loop_variable_python_leaves_otherwise_is_an_error(fn):
    # The breaking loop runs its remaining iterations doing nothing, and a
    # body that assigns the variable leaves its own value: not the last
    # iteration's, so reading it is a located error, not a wrong value.
    with pytest.raises(sdfg.FrontendError, match=r"'i' after the loop of "
                       r"line \d+.*keep the value you need"):
        sdfg.program(fn)(np.linspace(0.0, 1.0, 4))


# Names move from array to array as Python's do: in-place updates through a
# name reach the array it names at that point, never a copy. Each of these
# gave a silently wrong result (the name copied the array) or a rejection.

def unpack_and_update(x, y):
    a, b = x, y
    a += b
    a, b = y, x
    a += b
    return x - y


def rebind_owned_name(x, y):
    arr = np.zeros(3)
    arr += 1.0
    arr = x
    arr *= 2.0
    x[0] = 5.0
    return x + arr


def rebind_between_updates(x, y):
    arr = x
    arr *= 2.0
    arr = y
    arr *= 3.0
    return x + y


def tuple_loop_in_place(x, y):
    for arr in (x, y[1:]):
        arr *= 2.0
        arr[0] = -1.0
    for a, b in ((x, y), (y, x)):
        a += b
    return x * y


def tuple_loop_in_a_loop(x, y):
    s = 0.0
    for t in range(3):
        for arr in (x, y * 2.0):
            arr *= 1.5
            s += np.sum(arr * arr)
    return s + np.sum(x)


@pytest.mark.parametrize("fn", [unpack_and_update, rebind_owned_name,
                                rebind_between_updates, tuple_loop_in_place,
                                tuple_loop_in_a_loop])
def test_names_alias_arrays_as_in_python(fn):
    x0, y0 = np.array([1.0, 2.0, 3.0]), np.array([0.5, -2.0, 4.0])
    xs, ys, xn, yn = x0.copy(), y0.copy(), x0.copy(), y0.copy()
    np.testing.assert_allclose(sdfg.program(fn)(xs, ys), fn(xn, yn),
                               rtol=1e-15)
    np.testing.assert_array_equal(xs, xn)
    np.testing.assert_array_equal(ys, yn)


def test_gradient_through_a_tuple_loop_in_place():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([0.5, -2.0, 4.0])
    g = sdfg.grad(tuple_loop_in_a_loop, ["x", "y"])(x, y)
    for name, k in (("x", 0), ("y", 1)):
        for i in range(3):
            plus, minus = [x.copy(), y.copy()], [x.copy(), y.copy()]
            plus[k][i] += 1e-6
            minus[k][i] -= 1e-6
            fd = (tuple_loop_in_a_loop(*plus) -
                  tuple_loop_in_a_loop(*minus)) / 2e-6
            assert g[name][i] == pytest.approx(fd, rel=1e-7)


def rebind_to_updated_argument_in_loop(x, y):
    arr = x * 1.0
    for t in range(2):
        arr = y
        y[0] += 1.0
    return arr + 0.0


def read_before_tuple_loop_rebinds(x, y):
    arr = x
    for t in range(3):
        x[0] += arr.sum()
        for arr in (x, y):
            arr *= 2.0
    return x + y


@pytest.mark.parametrize("fn, match", [
    (rebind_to_updated_argument_in_loop,
     "'arr' is bound here to the array of 'y' and 'y' is updated in "
     "place"),
    (read_before_tuple_loop_rebinds, "alias of a rebound array updated in "
     "place"),
])
def test_aliasing_the_translation_cannot_follow_is_rejected(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(np.ones(3), np.ones(3))


def scale_rows_through_alias(S, dt):
    for k in range(3):
        s = S[k, 1:]
        s *= dt * (k + 1)
        s += S[k + 1, :2]
    return np.sum(S * S)


def test_row_alias_bound_per_iteration_is_updated_in_place():
    # `s = S[k]; s *= dt` in a loop was rejected with advice ('s =
    # ....copy()') that would have changed the result (fuzz round 8).
    S = np.linspace(-1.0, 2.0, 12).reshape(4, 3)
    a, b = S.copy(), S.copy()
    assert sdfg.program(scale_rows_through_alias)(a, 0.7) == pytest.approx(
        scale_rows_through_alias(b, 0.7), rel=1e-14)
    np.testing.assert_array_equal(a, b)
    g = sdfg.grad(scale_rows_through_alias, "S")(S, 0.7)["S"]
    for i in range(4):
        for j in range(3):
            plus, minus = S.copy(), S.copy()
            plus[i, j] += 1e-6
            minus[i, j] -= 1e-6
            fd = (scale_rows_through_alias(plus, 0.7) -
                  scale_rows_through_alias(minus, 0.7)) / 2e-6
            assert g[i, j] == pytest.approx(fd, rel=1e-7, abs=1e-8)


def alias_read_before_its_binding(S, dt):
    s = S[0]
    for k in range(3):
        S[k] += s.sum()
        s = S[k]
        s *= dt
    return S


def test_alias_carried_between_iterations_is_rejected():
    with pytest.raises(sdfg.FrontendError, match="alias of a rebound array"):
        sdfg.program(alias_read_before_its_binding)(np.ones((4, 3)), 0.5)


# What one translation follows with a copy where NumPy would share the array
# (fuzz round 9: each gave a silently wrong value or gradient).

def branch_alias_then_update(x, y, c):
    a = x
    if c > 0:
        a = y
    x += 1
    return a * 1


def choose_then_update(x, y, c):
    a = x if c > 0 else y
    a += 1
    return x * 1


def _pick(a, b, c):
    q = a
    if c > 0:
        q = b
    return q


def helper_pick_then_update(x, y, c):
    p = _pick(x, y, c)
    p += 1
    return x + y


def conditional_swap_then_update(x, y, c):
    a, b = x, y
    if c > 0:
        a, b = b, a
    x += 1
    return a - b


def rename_in_branch(x, y, c):
    z = x
    if c > 0:
        x = y
    z += 1
    return x * 1


def reshape_then_write(x, y, c):
    a = x.reshape(2, 1)
    x += 1
    return a * 1


@pytest.mark.parametrize("fn", [branch_alias_then_update,
                                choose_then_update,
                                conditional_swap_then_update,
                                rename_in_branch])
@pytest.mark.parametrize("c", [-1.0, 1.0])
def test_names_chosen_in_a_branch_alias_as_in_numpy(fn, c):
    # The statements after the branch run in each arm with the arm's
    # bindings (desugar/alias_branches.py): NumPy's aliasing exactly.
    want_x, want_y = np.arange(2.0), np.arange(2.0) + 5.0
    got_x, got_y = want_x.copy(), want_y.copy()
    want = fn(want_x, want_y, c)
    np.testing.assert_array_equal(sdfg.program(fn)(got_x, got_y, c), want)
    np.testing.assert_array_equal(got_x, want_x)
    np.testing.assert_array_equal(got_y, want_y)


@pytest.mark.parametrize("fn, match", [
    (helper_pick_then_update, r"_pick\(\) binds its result to an array it "
     "was passed"),
    (reshape_then_write, "'a' holds its reshape"),
])
def test_sharing_the_translation_would_copy_is_rejected(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(np.zeros(2), np.zeros(2), -1.0)


def _smooth(u, n):
    v = u
    for _ in range(n):
        v = 0.5 * (v + np.roll(v, 1))
    return v


def read_only_uses(x, y, c):
    a = x if c > 0 else y          # read only: a new array is as good
    s = _smooth(x, 2)              # read only
    b = x
    if c > 0:
        b = y                      # neither b nor x updated in place
    return np.sum(a * s) + np.sum(b)


def test_read_only_choices_still_work():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 2.0])
    for c in (-1.0, 1.0):
        assert sdfg.program(read_only_uses)(x, y, c) == pytest.approx(
            read_only_uses(x, y, c), rel=1e-15)


def last_row_after_loop(A):
    for k, row in enumerate(A[1:]):
        row *= k + 2
    row += 1        # the last row, as Python leaves it
    return np.sum(A * A) + np.sum(row)


def test_element_of_a_loop_over_rows_after_the_loop():
    # Was "name 'row' is not defined" (fuzz round 9).
    A = np.linspace(-1.0, 1.0, 8).reshape(4, 2)
    a, b = A.copy(), A.copy()
    assert sdfg.program(last_row_after_loop)(a) == pytest.approx(
        last_row_after_loop(b), rel=1e-15)
    np.testing.assert_array_equal(a, b)
    g = sdfg.grad(last_row_after_loop, "A")(A)["A"]
    for i in range(4):
        for j in range(2):
            plus, minus = A.copy(), A.copy()
            plus[i, j] += 1e-6
            minus[i, j] -= 1e-6
            fd = (last_row_after_loop(plus) -
                  last_row_after_loop(minus)) / 2e-6
            assert g[i, j] == pytest.approx(fd, rel=1e-7, abs=1e-8)


def unpack_rows(M, v):
    a, b = M              # the rows, views as in Python
    a += b * v
    c, d = M * 2.0        # rows of a computed array
    return np.sum(M * M) + np.sum(c * d)


def test_unpacking_the_rows_of_an_array():
    M, v = np.arange(6.0).reshape(2, 3) / 4.0, np.array([0.5, -1.0, 2.0])
    m1, m2 = M.copy(), M.copy()
    assert sdfg.program(unpack_rows)(m1, v) == pytest.approx(
        unpack_rows(m2, v), rel=1e-15)
    np.testing.assert_array_equal(m1, m2)
    g = sdfg.grad(unpack_rows, "v")(M, v)["v"]
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1e-6
        fd = (unpack_rows(M.copy(), v + e) -
              unpack_rows(M.copy(), v - e)) / 2e-6
        assert g[i] == pytest.approx(fd, rel=1e-7)


def swap_after_binding(x, y, c):
    a, b = x, y           # aliases, then swapped by the loop: no copies
    for i in range(3):
        a += b * c
        a, b = b, a
    return np.sum(a * b)


def test_names_bound_to_arguments_then_swapped_in_a_loop():
    # Was rejected ('alias of a rebound array updated in place'; fuzz 9).
    x, y = np.arange(3.0), np.ones(3)
    xs, ys, xn, yn = x.copy(), y.copy(), x.copy(), y.copy()
    assert sdfg.program(swap_after_binding)(xs, ys, 0.7) == pytest.approx(
        swap_after_binding(xn, yn, 0.7), rel=1e-15)
    np.testing.assert_array_equal(xs, xn)
    np.testing.assert_array_equal(ys, yn)
    g = sdfg.grad(swap_after_binding, ["x", "y"])(x, y, 0.7)
    for name, k in (("x", 0), ("y", 1)):
        for i in range(3):
            plus, minus = [x.copy(), y.copy()], [x.copy(), y.copy()]
            plus[k][i] += 1e-6
            minus[k][i] -= 1e-6
            fd = (swap_after_binding(*plus, 0.7) -
                  swap_after_binding(*minus, 0.7)) / 2e-6
            assert g[name][i] == pytest.approx(fd, rel=1e-7)


def swap_views_after_binding(x, y):
    a, b = x[1:], y[1:]   # not whole arrays: the loop is not a permutation
    for i in range(3):
        a += b
        a, b = b, a
    return x - y


def test_swapped_views_are_rejected():
    with pytest.raises(sdfg.FrontendError, match="alias of a rebound array"):
        sdfg.program(swap_views_after_binding)(np.ones(3), np.ones(3))
