"""Array extents are size symbols of the compiled program
(frontend/symbolic_sizes.py): a sweep over sizes compiles once per rank,
dtype and pattern of equal extents; results equal NumPy's for every size;
small extents, static_argnames, programs the symbols cannot serve and
gradients compile values in."""

import numpy as np
import pytest

import sdfg
from sdfg import native
from sdfg.errors import FrontendError
from sdfg.frontend.translator import translate

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def smooth(a, b):
    c = a[1:-1] + 0.5 * (b[2:] - 2.0 * b[1:-1] + b[:-2])
    return np.sum(c * c) + c


def stencil(a):
    b = np.zeros_like(a)
    n = a.shape[0]
    for i in range(1, n - 1):
        b[i] = a[i - 1] - 2.0 * a[i] + a[i + 1]
    w = np.zeros(n)
    w[:] = b * b
    return b + w


def jacobi2d(A, B, T):
    for t in range(T):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] +
                               A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] +
                               B[2:, 1:-1] + B[:-2, 1:-1])


def mlp(x, W, b):
    h = np.tanh(x @ W + b)
    return h / np.sum(h, axis=1, keepdims=True)


def rng(seed=0):
    return np.random.default_rng(seed)


def test_a_sweep_over_sizes_compiles_once():
    prog = sdfg.program(smooth, dynamic=True)
    before = native.compile_count
    for n in (8, 9, 31, 100, 1000):
        a, b = rng(n).random(n), rng(n + 1).random(n)
        got = prog(a, b)
        want = smooth(a, b)
        assert got.shape == want.shape == (n - 2,)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    assert native.compile_count - before == 1
    # A new program object (a new process) finds it on disk.
    before = native.compile_count
    again = sdfg.program(smooth, dynamic=True)
    a = rng(3).random(57)
    np.testing.assert_allclose(again(a, a), smooth(a, a), rtol=1e-13)
    assert native.compile_count == before


def test_the_program_has_dynamic_memrefs_and_no_checks():
    """Extents are sdfg.dim of the arguments, transients are allocated
    with them, and loops over `range(1, n - 1)` need no run-time index
    check: the bounds are proved for every size."""
    text = translate(stencil, (np.ones(10),),
                     symbolic=frozenset({"a"})).text
    assert "%a: memref<?xf64>" in text
    assert "sdfg.dim %a, 0" in text
    assert "sdfg.alloc(%a_d0" in text
    assert "check_index" not in text
    assert "2147483" not in text  # no container sized by a bound
    prog = sdfg.program(stencil, dynamic=True)
    before = native.compile_count
    for n in (8, 12, 77):
        a = rng(n).random(n)
        np.testing.assert_allclose(prog(a), stencil(a), rtol=1e-13)
    assert native.compile_count - before == 1


def test_time_loop_in_place_2d():
    prog = sdfg.program(jacobi2d, dynamic=True)
    before = native.compile_count
    for n, T in ((10, 3), (16, 5), (33, 2)):
        A, B = rng(n).random((n, n)), rng(n + 1).random((n, n))
        A2, B2 = A.copy(), B.copy()
        prog(A, B, T)
        jacobi2d(A2, B2, T)
        np.testing.assert_allclose(A, A2, rtol=1e-13)
        np.testing.assert_allclose(B, B2, rtol=1e-13)
    assert native.compile_count - before == 1


def test_equal_extents_are_one_symbol():
    """(batch, features) x (features, hidden): the pattern of equal
    extents is part of the key, so a call where two extents that were
    equal differ compiles another program, which is right too."""
    prog = sdfg.program(mlp, dynamic=True)
    before = native.compile_count
    for m, k, h in ((16, 12, 20), (40, 9, 11), (10, 30, 64)):
        x, W, b = rng(m).random((m, k)), rng(k).random((k, h)), \
            rng(h).random(h)
        np.testing.assert_allclose(prog(x, W, b), mlp(x, W, b), rtol=1e-12)
    assert native.compile_count - before == 1
    # m == k: another pattern, another program.
    x, W, b = rng(1).random((12, 12)), rng(2).random((12, 20)), \
        rng(3).random(20)
    np.testing.assert_allclose(prog(x, W, b), mlp(x, W, b), rtol=1e-12)
    assert native.compile_count - before == 2


def test_small_extents_are_compiled_in():
    prog = sdfg.program(smooth, dynamic=True)
    before = native.compile_count
    for n in (3, 5):
        a = rng(n).random(n)
        np.testing.assert_allclose(prog(a, a), smooth(a, a), rtol=1e-13)
    assert native.compile_count - before == 2
    a = rng(0).random((9, 3))
    text = translate(mlp, (a, rng(1).random((3, 9)), rng(2).random(9)),
                     symbolic=frozenset({"x", "W", "b"})).text
    assert "%x: memref<?x3xf64>" in text and "%W: memref<3x?xf64>" in text


def test_static_argnames_specialise_an_array():
    for prog, sizes in ((sdfg.program(smooth, static_argnames=("a", "b"),
                                      dynamic=True), (10, 11, 12)),
                        (sdfg.program(smooth, dynamic=False), (13, 14, 15))):
        before = native.compile_count
        for n in sizes:
            a = rng(n).random(n)
            np.testing.assert_allclose(prog(a, a), smooth(a, a),
                                       rtol=1e-13)
        assert native.compile_count - before == 3
    with pytest.raises(ValueError, match="dynamic must be"):
        sdfg.program(smooth, dynamic="yes")


def test_by_default_the_first_shape_is_compiled_in():
    """As torch.compile's dynamic=None: the first call's shapes compile in
    (a program called with one shape runs specialised), the first other
    shape compiles the symbolic program, which serves every later one."""
    prog = sdfg.program(stencil)
    before = native.compile_count
    for n in (10, 20, 30, 10, 40, 50):
        a = rng(n).random(n)
        np.testing.assert_allclose(prog(a), stencil(a), rtol=1e-13)
    assert native.compile_count - before == 2
    static = prog.compile(np.ones(10))
    symbolic = prog.compile(np.ones(20))
    assert prog.compile(np.ones(77)) is symbolic and static is not symbolic
    assert [p[3] for p in static.meta["params"]] == [[10]]
    assert [p[3] for p in symbolic.meta["params"]] == [[-1]]


def test_mismatched_extents_are_numpys_error():
    """Unequal extents are two symbols; where they meet, the program
    compiled with constants reports NumPy's error, located."""
    prog = sdfg.program(smooth, dynamic=True)
    with pytest.raises(FrontendError, match="could not be broadcast"):
        prog(np.ones(10), np.ones(12))

    def add(x, y):
        return x + y

    with pytest.raises(FrontendError, match="could not be broadcast"):
        sdfg.program(add, dynamic=True)(np.ones(10), np.ones(12))


def reversed_rows(A):
    out = np.empty_like(A)
    for k, row in enumerate(A):
        out[k] = row[::-1]
    return out


def test_programs_the_symbols_cannot_serve_compile_constants():
    """Iterating over an array's rows unrolls nothing here, but a reshape
    to a shape computed from an extent needs it when compiling: the
    program falls back to constants, per shape, with NumPy's results."""
    def halves(a):
        return a.reshape(2, a.shape[0] // 2).sum(axis=0)

    prog = sdfg.program(halves, dynamic=True)
    before = native.compile_count
    for n in (10, 12):
        a = rng(n).random(n)
        np.testing.assert_allclose(prog(a), halves(a), rtol=1e-13)
    assert native.compile_count - before == 2
    prog = sdfg.program(reversed_rows, dynamic=True)
    for n in (9, 14):
        A = rng(n).random((n, n))
        np.testing.assert_allclose(prog(A), reversed_rows(A))


def test_gradient_of_slices_over_sizes():
    def loss(a, b):
        return np.sum(smooth(a, b))

    g = sdfg.grad(loss, wrt=["a", "b"])
    for n in (9, 20):
        a, b = rng(n).random(n), rng(n + 1).random(n)
        grads = g(a, b)
        ga, gb = grads["a"], grads["b"]
        np.testing.assert_allclose(ga, fd_gradient(loss, [a, b], 0),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gb, fd_gradient(loss, [a, b], 1),
                                   rtol=1e-6, atol=1e-8)


def test_output_shapes_follow_the_arguments():
    def corners(A):
        return A[2:, :-1] + A[:-2, 1:]

    prog = sdfg.program(corners, dynamic=True)
    for m, n in ((10, 12), (30, 9)):
        A = rng(m).random((m, n))
        got = prog(A)
        assert got.shape == (m - 2, n - 1)
        np.testing.assert_allclose(got, corners(A), rtol=1e-13)


def heat_loss(u, dt):
    for t in range(4):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2.0 * u[1:-1] + u[:-2]) * u[1:-1]
    return np.sum(u * u)


def dense_loss(x, W, b):
    return np.sum(mlp(x, W, b) ** 2)


def test_gradients_over_sizes_compile_once():
    """The gradient program of a time loop updating an array in place
    stores the overwritten values in a tape of T x (n - 2), allocated when
    the call starts; gradients equal finite differences for every size."""
    g = sdfg.grad(sdfg.program(heat_loss, dynamic=True), argnums=0)
    before = native.compile_count
    for n in (9, 16, 33):
        u = rng(n).random(n)
        np.testing.assert_allclose(
            g(u, 0.1), fd_gradient(heat_loss, [u, 0.1], 0), rtol=1e-6,
            atol=1e-8)
    assert native.compile_count - before == 1
    # By default: the first shape compiled in, then the symbolic one.
    g = sdfg.grad(dense_loss, argnums=(1, 2))
    before = native.compile_count
    for m, k, h in ((10, 12, 9), (20, 9, 14), (12, 30, 11)):
        x, W, b = rng(m).random((m, k)), rng(k).random((k, h)), \
            rng(h).random(h)
        gW, gb = g(x, W, b)
        np.testing.assert_allclose(gW, fd_gradient(dense_loss, [x, W, b], 1),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gb, fd_gradient(dense_loss, [x, W, b], 2),
                                   rtol=1e-6, atol=1e-8)
    assert native.compile_count - before == 2


def test_gradients_under_a_memory_limit_plan_per_size_bucket():
    """The checkpoint model needs sizes: a gradient with mem= is planned
    for every size up to the next power of two of each extent
    (sdfg-checkpoint sizes=u.0=..16), so sizes 9 to 16 share one program,
    17 compiles the next bucket's; the plan's peak is the bucket's
    largest."""
    g = sdfg.grad(sdfg.program(heat_loss, dynamic=True), argnums=0,
                  mem=1.0)
    before = native.compile_count
    peaks = []
    for n in (9, 16, 12, 17):
        u = rng(n).random(n)
        np.testing.assert_allclose(
            g(u, 0.1), fd_gradient(heat_loss, [u, 0.1], 0), rtol=1e-6,
            atol=1e-8)
        peaks.append(g.checkpoint["peak_bytes"])
    assert native.compile_count - before == 2
    # What is stored grows as (bucket - 2) doubles (tapes of the 4
    # iterations and the result's copy): the same for 9, 16 and 12.
    assert peaks[0] == peaks[1] == peaks[2] == 5 * 14 * 8
    assert peaks[3] == 5 * 30 * 8
    # The report's formula of the peak in the extent u.0 gives the
    # bucket's peak at its largest size.
    formula = g.checkpoint["peak_formula"]
    assert "u.0" in formula
    assert eval(formula.replace("u.0", "32"), {"max": max}) == peaks[3]


def long_heat_loss(u, dt):
    for t in range(40):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2.0 * u[1:-1] + u[:-2]) * u[1:-1]
    return np.sum(u * u)


def test_time_loops_over_symbolic_extents_are_checkpointed():
    """A time loop whose state (the array updated in place) has extents
    only the call knows is checkpointed: its snapshots are containers of
    those extents. Storing every iteration would need 40 rows of the
    bucket's extent; under 0.004 MiB the ILP picks a schedule, and the
    gradient is the finite differences' at every size."""
    g = sdfg.grad(sdfg.program(long_heat_loss, dynamic=True), argnums=0,
                  mem=0.004)
    before = native.compile_count
    for n in (30, 50, 64):
        u = rng(n).random(n)
        np.testing.assert_allclose(
            g(u, 0.1), fd_gradient(long_heat_loss, [u, 0.1], 0), rtol=1e-6,
            atol=1e-8)
        loop = g.checkpoint["loops"][0]
        assert loop["schedule"] in ("uniform", "binomial")
        assert loop["recomputed_iterations"] > 0
        assert g.checkpoint["peak_bytes"] <= 0.004 * 2**20
    # Buckets ..32 and ..64.
    assert native.compile_count - before == 2


def table(x, n, c):
    y = np.zeros((n, x.shape[0]))
    for i in range(n):
        y[i] = x * (i + c)
    z = np.ones(n) * 2.0
    return y, z[n - 1] + np.sum(y[:, -1])


def test_ints_used_as_shapes_are_size_symbols():
    """An int that sizes arrays (np.zeros((n, m))) and indexes them
    (z[n - 1]) is a size symbol, an `index` parameter, with the arrays'
    extents in one pattern: a sweep over n and the array's length
    compiles once."""
    text = translate(table, (np.ones(12), 10, 1.0),
                     symbolic=frozenset({"x", "n:size"})).text
    assert "%n: index" in text and "sdfg.alloc(%n, %x_d0" in text
    prog = sdfg.program(table, dynamic=True)
    before = native.compile_count
    for n, m in ((10, 12), (20, 9), (15, 40), (9, 9)):
        x = rng(m).random(m)
        got, want = prog(x, n, 3.0), table(x, n, 3.0)
        assert got[0].shape == (n, m)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1] == want[1]
    # (9, 9): n equals the length, another pattern.
    assert native.compile_count - before == 2
    # Below 8, or named in static_argnames, an int is compiled in.
    prog = sdfg.program(table, dynamic=True, static_argnames=("n",))
    before = native.compile_count
    for n in (10, 11):
        x = rng(n).random(12)
        np.testing.assert_array_equal(prog(x, n, 1.0)[0], table(x, n, 1.0)[0])
    assert native.compile_count - before == 2


def test_an_int_the_symbols_cannot_serve_is_compiled_in():
    """np.arange(n // 2) needs n when compiling: the translation with n as
    a symbol fails and n is compiled in (per value), x's extent still a
    symbol."""
    def repeat(x, n):
        return np.sum(np.arange(n // 2) * 1.0) + x * 2.0

    prog = sdfg.program(repeat, dynamic=True)
    before = native.compile_count
    for n, m in ((8, 10), (9, 10), (9, 20)):
        x = rng(n).random(m)
        np.testing.assert_allclose(prog(x, n), repeat(x, n), rtol=1e-15)
    assert native.compile_count - before == 2


def trimmed(y):
    h = 3 * y.shape[0] // 4
    kept = np.sort(y * y)[:h]
    return np.sum(kept) / h + np.median(np.abs(y))


def test_a_length_bounded_only_by_a_symbol_compiles_constants():
    """`[:3 * n // 4]` of an array of symbolic length n has a length the
    symbols cannot express; a container for its largest length would be
    the symbol's bound (2^31 elements): refused, so that the shape is
    compiled in (before, the program tried to allocate 16 GiB)."""
    prog = sdfg.program(trimmed, dynamic=True)
    for n in (40, 48):
        y = rng(n).standard_normal(n)
        np.testing.assert_allclose(prog(y), trimmed(y), rtol=1e-13)
