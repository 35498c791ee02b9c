"""What Python names mean when they are rebound, aliased, swapped or
indexed from the end, forward and gradient. Each of these programs gave
wrong values before the frontend learnt it (found by a new user's probe,
2026-11-26): every iteration of `x = x * 2` read the argument again, `a,
b = b, a` and `a[1:] = a[:-1]` read what they had just written, and
`x[-i - 1]` read outside the array."""

import copy
import inspect

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def param_rebound_in_loop(x, T):
    for t in range(T):
        x = x * 1.5 + np.sin(x)
    return x


def scalar_rebound_in_loop(y, x):
    for i in range(x.shape[0]):
        y = y * x[i] + 0.5
    return y


def scalar_rebound_in_while(y):
    # n bounds the loop should y stop changing (it did: a hang).
    n = 0
    while y < 10.0 and n < 100:
        y = y * 1.7
        n += 1
    return y


def rebound_in_branch(x, c):
    if c > 0.0:
        x = x * x
    return x + c


def rebound_in_both_branches(x, T):
    for t in range(T):
        if x[0] > 0.5:
            x = x * 0.5
        else:
            x = np.exp(x) - 0.5
    return x


def tuple_swap(x, y):
    a = x * 1.0
    b = y * 2.0
    a, b = b, a
    return a - 3.0 * b


def swap_through_temporary(x, y):
    a = x * 1.0
    b = y * 2.0
    t = a
    a = b
    b = t
    return a - 3.0 * b


def alias_then_rebind(x):
    a = x * 1.0
    b = a
    a = a * a
    return a + 10.0 * b


def swapped_time_loop(x, T):
    # The Jacobi idiom on arrays the function owns.
    a = x.copy()
    b = np.zeros_like(x)
    for t in range(T):
        b[1:-1] = 0.5 * (a[:-2] + a[2:]) + 0.1 * a[1:-1] * a[1:-1]
        a, b = b, a
    return a


def jacobi_swapping_arguments(A, B, T):
    # Double buffering on the caller's arrays: each iteration writes the
    # array that B names then, which alternates.
    for t in range(T):
        B[1:-1] = 0.5 * (A[:-2] + A[2:]) + 0.1 * A[1:-1] * A[1:-1]
        A, B = B, A
    return A


def rotating_three(A, B, C, T):
    for t in range(T):
        C[:] = A + 0.5 * B * t
        A, B, C = B, C, A
    return A + 2.0 * B + 3.0 * C


def two_rotations(A, B, C, D, E, T):
    # Periods 2 and 3: the body is translated 6 times.
    for t in range(T):
        A[0] += 1.0 + B[1] * C[2]
        A, B = B, A
        C, D, E = D, E, C
    return A + 2.0 * B + 3.0 * C + 4.0 * D + 5.0 * E


def swaps_in_an_inner_loop(A, B, T):
    for s in range(2):
        for t in range(T):
            B[1:-1] = 0.25 * (A[:-2] + A[2:]) + 0.5 * A[1:-1] * (s + 1)
            A, B = B, A
    return A


def swap_at_top_level(a, b):
    a, b = b, a
    a[0] = 7.0
    return a * b


def shift_in_place(a):
    a[1:] = a[:-1]


def flip_in_place(a):
    a[:] = a[::-1]


def transpose_in_place(A):
    A[:] = A.T


def from_the_end_in_loop(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = x[-i - 1] * x[i]
    for i in range(1, 3):
        y[-i] += np.sum(x[:-i]) + np.sum(x[-i:])
    return y


def zero_d_array_in_place(s, x):
    # A 0-d array argument is an array: += updates it, also via an alias.
    s += np.sum(x * x)
    t = s
    t *= 1.5


def new_axes(a, B):
    return np.sum(B - a[np.newaxis] * a[:, np.newaxis]) + np.sum(
        a[None, :] * B)


def max_of_rows_in_loop(A):
    # Each iteration's maximum, not the last one's (the reduction's
    # transient is reinitialised every iteration).
    s = 0.0
    for i in range(A.shape[0]):
        s += np.max(A[i, :]) - np.min(A[:i + 1, i])
    return s


def max_over_axis_in_time_loop(X, w):
    s = np.zeros(X.shape[2])
    for t in range(X.shape[0]):
        s += np.max(X[t], axis=0) * w
    return s


def guarded_neighbours(A):
    # Under `if j > 0` the index j - 1 is never negative: it reads from
    # the start (without the guard it would change sign: rejected).
    n, m = A.shape
    B = np.zeros_like(A)
    for i in range(n):
        for j in range(m):
            if j > 0:
                B[i, j] = A[i, j] - A[i, j - 1]
            else:
                B[i, j] = A[i, j] * A[i, -1]
            if 1 <= i:
                B[i, j] += 0.5 * A[i - 1, j] ** 2
    return B


def augmented_through_view(a, w):
    b = a[1:-1]
    b *= w
    return a


def reversed_iteration(x, A):
    # reversed() of arrays (elements, rows of a view) and of a tuple.
    t = 0.0
    for a in reversed(x):
        t = 0.5 * t + a
    for row in reversed(A):
        row *= t
    for r in reversed(A[1:, ::2]):
        t = t + np.sum(r)
    s = 0.0
    for c in reversed((x[0], x[1], 3.0)):
        s = 2 * s + c
    return t + s + np.sum(A)


def scatter_into_zeros(w, idx):
    # The accumulation's target is filled in an earlier state; the
    # product with np.ones made an ineligible recompute candidate that
    # read it, which the autodiff took for one needing a rewind.
    g = np.zeros(3)
    np.add.at(g, idx, w)
    return np.sum(g * w * np.ones(3))


def periodic_neighbours(G):
    # Loops over tuples of constants: each item is a constant where it is
    # read (np.roll's shift must be one), and the name keeps the last.
    N = np.zeros_like(G)
    for di in (-1, 1):
        N += np.roll(G, di, axis=0)
    for sh in ((0, -1), (0, 1)):
        N += 0.5 * np.roll(G, sh, axis=(0, 1))
    for c, w in ((1, 0.25), (-2, 0.125)):  # a tuple target, unpacked
        N += w * np.roll(G, c, axis=1)
    return N * (di + sh[1] + c * w)


def negated_selection(x):
    m = x > 0.5
    x[m] = -x[m] ** 2
    x[~m] = -(x[~m] * 2.0)
    return x * x[::-1]


@sdfg.program
def _decorated_helper(x):
    return np.tanh(x) * 2.0


def calls_a_program(x):
    # A helper decorated with @sdfg.program is inlined like a plain one.
    y = np.empty(x.shape[0])
    y.fill(1.5)
    y[1:].fill(0.25)
    return np.sum(_decorated_helper(x) ** 2) + x * y


def einsum_views(S):
    # NumPy's einsum returns views where nothing is summed: writes through
    # the diagonal reach S, and S's later writes show in the diagonal.
    d = np.einsum("ii->i", S)
    t = np.einsum("ij->ji", S)
    S[0, 0] = 10.0
    d += 1.0
    return d * t[1] + S[0]


def kernel_with_jitter(X, noise, y):
    # np.fill_diagonal in place, from the diagonal it overwrites and from a
    # constant on a wide matrix.
    d = X[:, None, :] - X[None, :, :]
    K = np.exp(-0.5 * np.sum(d ** 2, axis=2))
    np.fill_diagonal(K, K.diagonal() + noise)
    A = np.zeros((3, 4))
    np.fill_diagonal(A, 2.5)
    return np.sum(y * np.linalg.solve(K, y)) + np.sum(A * X[:3, :1])


def constants_rebound_in_straight_line(x):
    # Rebound only by top-level statements, an int stays a constant where
    # it is read (np.roll's shift); so do values derived from a tuple
    # loop's items and non-literal items.
    d = -1
    y = np.roll(x, d)
    d = 2
    y = y + np.roll(x, d)
    for k in (1, 3):
        e = k + 1
        y = y + np.roll(x, e)
    for m in (x.shape[0] - 1, 2):
        y = y * 0.5 + np.roll(x, m)
    return y * (d + e + m)


CASES = [
    (constants_rebound_in_straight_line, lambda r: (r.random(6),)),
    (kernel_with_jitter, lambda r: (r.standard_normal((6, 2)), 0.1,
                                    r.standard_normal(6))),
    (einsum_views, lambda r: (r.random((3, 3)),)),
    (periodic_neighbours, lambda r: (r.random((4, 5)),)),
    (negated_selection, lambda r: (r.random(6),)),
    (calls_a_program, lambda r: (r.random(4),)),
    (reversed_iteration, lambda r: (r.random(4), r.random((3, 4)))),
    (scatter_into_zeros, lambda r: (r.random(3), np.array([0, 2, 2]))),
    (param_rebound_in_loop, lambda r: (r.random(5), 3)),
    (scalar_rebound_in_loop, lambda r: (0.3, r.random(6) + 0.5)),
    (scalar_rebound_in_while, lambda r: (1.3,)),
    (rebound_in_branch, lambda r: (r.random(4), 0.7)),
    (rebound_in_branch, lambda r: (r.random(4), -0.7)),
    (rebound_in_both_branches, lambda r: (r.random(3) + 0.2, 5)),
    (tuple_swap, lambda r: (r.random(3), r.random(3))),
    (swap_through_temporary, lambda r: (r.random(3), r.random(3))),
    (alias_then_rebind, lambda r: (r.random(4),)),
    (swapped_time_loop, lambda r: (r.random(8), 5)),
    (jacobi_swapping_arguments, lambda r: (r.random(8), r.random(8), 5)),
    (jacobi_swapping_arguments, lambda r: (r.random(8), r.random(8), 4)),
    (rotating_three, lambda r: (r.random(4), r.random(4), r.random(4), 7)),
    (swaps_in_an_inner_loop, lambda r: (r.random(6), r.random(6), 4)),
    (two_rotations, lambda r: tuple(r.random(3) for _ in range(5)) + (13,)),
    (swap_at_top_level, lambda r: (r.random(3), r.random(3))),
    (shift_in_place, lambda r: (r.random(6),)),
    (flip_in_place, lambda r: (r.random(5),)),
    (transpose_in_place, lambda r: (r.random((3, 3)),)),
    (from_the_end_in_loop, lambda r: (r.random(5),)),
    (augmented_through_view, lambda r: (r.random(6), 1.3)),
    (guarded_neighbours, lambda r: (r.random((4, 5)),)),
    (zero_d_array_in_place, lambda r: (np.array(0.5), r.random(3))),
    (new_axes, lambda r: (r.random(3), r.random((3, 3)))),
    (max_of_rows_in_loop, lambda r: (r.random((4, 4)),)),
    (max_over_axis_in_time_loop, lambda r: (r.random((3, 4, 5)),
                                            r.random(5))),
]
IDS = [f"{c[0].__name__}{k}" for k, c in enumerate(CASES)]


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_forward_matches_numpy(fn, inputs):
    args = inputs(np.random.default_rng(2))
    ref, ours = copy.deepcopy(args), copy.deepcopy(args)
    want = fn(*ref)
    got = sdfg.program(fn)(*ours)
    if want is None:
        assert got is None
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    # In-place effects on the arguments, exactly as NumPy's.
    for o, r in zip(ours, ref):
        if isinstance(r, np.ndarray):
            np.testing.assert_allclose(o, r, rtol=1e-13, atol=1e-15)


def _output(fn, args):
    names = list(inspect.signature(fn).parameters)
    run = copy.deepcopy(list(args))
    if fn(*run) is not None:
        return "return", names
    for n, before, after in zip(names, args, run):
        if isinstance(before, np.ndarray) and not np.array_equal(before,
                                                                 after):
            return n, names
    raise AssertionError("no output")


def _value(fn, args, names, output):
    run = copy.deepcopy(list(args))
    r = fn(*run)
    return float(np.sum(r if output == "return"
                        else run[names.index(output)]))


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_gradient_matches_finite_differences(fn, inputs):
    args = inputs(np.random.default_rng(3))
    output, names = _output(fn, args)
    wrt = [n for n, a in zip(names, args) if isinstance(a, float) or (
        isinstance(a, np.ndarray) and a.dtype.kind == "f")]
    caller = copy.deepcopy(args)
    g = sdfg.grad(fn, wrt, output=output)(*caller)
    for before, after in zip(args, caller):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(before, after)
    rng = np.random.default_rng(4)
    dirs = {w: rng.standard_normal(np.shape(args[names.index(w)]))
            for w in wrt}
    h = 1e-6

    def shifted(s):
        a = list(copy.deepcopy(args))
        for w in wrt:
            k = names.index(w)
            moved = a[k] + s * h * dirs[w]
            # A 0-d array plus a float is a NumPy scalar: keep it an array.
            a[k] = float(moved) if isinstance(a[k], float) else \
                np.array(moved)
        return _value(fn, a, names, output)

    fd = (shifted(1.0) - shifted(-1.0)) / (2 * h)
    ad = sum(float(np.sum(g[w] * dirs[w])) for w in wrt)
    assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


# ----------------------------------------------------------------------------
# What one translation cannot follow: rejected with the reason and a fix
# ----------------------------------------------------------------------------

def argument_updated_then_rebound(x, T):
    for t in range(T):
        x[0] += 1.0
        x = x * 2.0
    return x


def swapping_in_a_while_loop(A, B):
    n = 0
    while n < 3:
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A, B = B, A
        n += 1
    return A


def swapping_a_varying_number_of_times(A, B):
    for t in range(int(A[0])):
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A, B = B, A
    return A


def swapping_in_a_loop_of_loops(A, B):
    for i in range(3):
        for t in range(i):
            B[1:-1] = 0.5 * (A[:-2] + A[2:])
            A, B = B, A
    return A


def alias_updated_then_owner_rebound(x):
    a = x + 0.0
    t = a
    t[0] = 5.0
    a = a + 1.0
    return a + t


def break_in_a_tuple_loop(x):
    for d in (1, 2, 3):
        if d > 1:
            break
        x = x * d
    return x


def fill_wrapped(A):
    np.fill_diagonal(A, 1.0, wrap=True)
    return A


@pytest.mark.parametrize("fn,args,match", [
    (fill_wrapped, (np.ones((5, 2)),), r"np.fill_diagonal with wrap=True"),
    (break_in_a_tuple_loop, (np.ones(3),),
     r"break or continue in a loop over a tuple or list.*range\(len"),
    (argument_updated_then_rebound, (np.ones(3), 2),
     r"'x' is rebound in this loop and updated in place.*x = x.copy\(\)"),
    (swapping_in_a_while_loop, (np.ones(5), np.ones(5)),
     r"'B' is rebound in this loop.*B = B.copy\(\)"),
    (swapping_a_varying_number_of_times, (np.ones(5), np.ones(5)),
     r"swapping arrays in a loop of varying trip count"),
    (swapping_in_a_loop_of_loops, (np.ones(5), np.ones(5)),
     r"swapping arrays in a loop of varying trip count"),
    (alias_updated_then_owner_rebound, (np.ones(3),),
     r"'t' names the array of another variable.*'a' is rebound later"),
])
def test_rejected_with_the_reason(fn, args, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(*args)
    # Located at the statement in this file.
    assert "test_bindings.py:" in str(info.value)


def test_the_suggested_copy_works():
    def fixed(A, B):
        A = A.copy()
        B = B.copy()
        n = 0
        while n < 3:
            B[1:-1] = 0.5 * (A[:-2] + A[2:])
            A, B = B, A
            n += 1
        return A

    A, B = np.random.default_rng(5).random((2, 7))
    want = fixed(A, B)
    np.testing.assert_allclose(sdfg.program(fixed)(A, B), want, rtol=1e-14)

    def swapped_values(A, B):
        for t in range(int(A[0] * 4.0)):
            B[1:-1] = 0.5 * (A[:-2] + A[2:])
            A[:], B[:] = B.copy(), A.copy()
        return A

    ref, ours = (A.copy(), B.copy()), (A.copy(), B.copy())
    want = swapped_values(*ref)
    np.testing.assert_allclose(sdfg.program(swapped_values)(*ours), want,
                               rtol=1e-14)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-14)


def two_totals(x):
    return np.sum(x ** 2), np.sum(3.0 * x)


def test_gradient_of_a_tuple_needs_a_choice():
    # As JAX: not silently the first value.
    x = np.array([1.0, 2.0])
    with pytest.raises(sdfg.FrontendError,
                       match=r"two_totals returns 2 values; choose the one "
                             r"to differentiate with output='return:K'"):
        sdfg.grad(two_totals, ["x"])(x)
    np.testing.assert_allclose(
        sdfg.grad(two_totals, ["x"], output="return:-1")(x)["x"], [3.0, 3.0])
    np.testing.assert_allclose(
        sdfg.grad(two_totals, ["x"], output="return:0")(x)["x"], 2 * x)
    with pytest.raises(sdfg.FrontendError, match="returns 2 value"):
        sdfg.grad(two_totals, ["x"], output="return:2")(x)
