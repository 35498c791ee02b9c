"""Creation functions sized by a size symbol (issue 37): np.eye,
np.identity, np.tri, np.arange, np.linspace, np.diag_indices and the
np.zeros family take an argument's extent n (or n - 1, 2 * n), so a sweep
over sizes compiles one program with NumPy's results; a length the
symbols cannot express (np.arange with a step of 2, a length that is
negative for small n) compiles per size, with NumPy's results still."""

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


SIZES = (8, 11, 20)


def rng(seed=0):
    return np.random.default_rng(seed)


def sweep(fn, make, sizes=SIZES, compiles=1):
    """Calls fn's program (dynamic=True) for each size: every result
    equals NumPy's, with its shape and dtype, bit for bit; `compiles`
    programs are built over the sweep."""
    prog = sdfg.program(fn, dynamic=True)
    before = native.compile_count
    for n in sizes:
        args = make(n)
        got, want = prog(*args), fn(*args)
        if not isinstance(want, tuple):
            got, want = (got,), (want,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w)
            assert (g.shape, g.dtype) == (w.shape, w.dtype), (n, g, w)
            np.testing.assert_array_equal(g, w)
    assert native.compile_count - before == compiles


def vector(n):
    return (rng(n).standard_normal(n),)


def eyes(x):
    n = x.shape[0]
    return (np.eye(n), np.eye(n, n + 3, 2), np.eye(n, k=-1, dtype=np.int32),
            np.eye(2 * n, n, -n), np.eye(n, M=n - 1, k=n + 5),
            np.identity(n), np.identity(len(x), bool))


def test_eye_and_identity_over_sizes():
    sweep(eyes, vector)


def triangles(x):
    n = x.shape[0]
    return (np.tri(n), np.tri(n, 2 * n, -2, dtype=np.int64),
            np.tri(n - 1, k=3, M=n), np.tri(n, dtype=bool))


def test_tri_over_sizes():
    sweep(triangles, vector)


def ranges(x):
    n = x.shape[0]
    return (np.arange(n), np.arange(2, n), np.arange(n, 0, -1),
            np.arange(n - 1, 2 * n, dtype=np.float64),
            np.arange(1, n + 1) * x, np.arange(n, n + 4),
            np.arange(n, 2 * n, 1, np.int32))


def test_arange_over_sizes():
    sweep(ranges, vector)


def spaced(x):
    n = x.shape[0]
    y, step = np.linspace(x.min(), x.max(), num=n + 2, retstep=True)
    return (np.linspace(0.0, 1.0, n), np.linspace(x[0], x[-1], n - 1),
            np.linspace(-3, 7, 2 * n, endpoint=False),
            np.linspace(0.0, 10.0, n, dtype=np.int64), y, step)


def test_linspace_over_sizes():
    """NumPy's arithmetic with the length's float computed at run time:
    the same bits as NumPy's for every size."""
    sweep(spaced, vector)


def filled(x, A):
    n = x.shape[0]
    m = A.shape[1]
    return (np.zeros((n, m)), np.ones(n - 1, dtype=np.int32),
            np.full((m, n), 2.5), np.full(n, 7), np.zeros_like(A),
            np.ones_like(x, dtype=np.int64), np.full_like(A, 3.0),
            np.empty_like(A).shape[0] + np.empty(2 * n).shape[0])


def test_zeros_ones_full_and_likes_over_sizes():
    sweep(filled, lambda n: (rng(n).random(n), rng(n).random((n, n + 4))))


def diagonal_positions(A):
    i, j = np.diag_indices(A.shape[0])
    return A[i, j] * 2.0, i


def test_diag_indices_over_sizes():
    sweep(diagonal_positions, lambda n: (rng(n).random((n, n)),))


def diagonals(A, v):
    B = A.copy()
    np.fill_diagonal(B, 2.0)
    return (np.diag(v), np.diag(v, -2), np.diagonal(A, 1), np.diag(A, -3),
            np.triu(A), np.tril(A, -1), np.triu(A[1:], 2), B)


def test_diagonals_and_triangles_of_symbolic_extents():
    """An n x n matrix's diagonals are n - |k| long, a vector's np.diag
    is (n + |k|) square, np.triu's positions are symbolic aranges."""
    sweep(diagonals, lambda n: (rng(n).random((n, n)),
                                rng(n + 1).random(n - 1)),
          sizes=(9, 11, 20))  # v's extent n - 1 is a symbol too


def main_diagonal(A):
    return np.diagonal(A)


def test_a_diagonal_of_unrelated_extents_compiles_per_size():
    """min(n, m) is not affine: refused with symbols, compiled per
    shape."""
    with pytest.raises(FrontendError, match="diagonal of an array whose "
                       "extents are unrelated size symbols"):
        translate(main_diagonal, (np.ones((10, 12)),),
                  symbolic=frozenset({"A"}))
    sweep(main_diagonal, lambda m: (rng(m).random((10, m)),),
          sizes=(9, 14), compiles=2)


def shifted(x):
    n = x.shape[0]
    return np.eye(n) @ x + np.arange(n) * 1.0


def test_the_issue_example_is_one_symbolic_program():
    text = translate(shifted, (np.ones(10),), symbolic=frozenset({"x"})).text
    assert "%x: memref<?xf64>" in text
    assert "2147483" not in text  # no container sized by a bound
    sweep(shifted, lambda n: (np.ones(n),), sizes=(10, 12, 14))


def sized_by_an_int(x, n):
    return np.eye(n, x.shape[0]) @ x + np.arange(n) + np.linspace(0, 1, n)


def test_an_int_argument_as_the_size():
    """An int argument giving the size is a size symbol (an index
    parameter) as with np.zeros(n): one program for every n."""
    text = translate(sized_by_an_int, (np.ones(12), 10),
                     symbolic=frozenset({"x", "n:size"})).text
    assert "%n: index" in text
    sweep(sized_by_an_int, lambda n: (rng(n).random(2 * n + 1), n))


def strided(x):
    return np.arange(0, x.shape[0], 2) * 1.0


def late_start(x):
    return np.arange(10, x.shape[0]) * 1.0


def pairs(x):
    i, j = np.triu_indices(x.shape[0])
    return x[i] * x[j]


@pytest.mark.parametrize("fn,match", [
    (strided, r"np.arange with a step other than 1 or -1 over a length "
              r"computed from a size"),
    (late_start, r"np.arange of a length that is negative for some sizes"),
    (pairs, r"np.triu_indices of a size computed at run time"),
])
def test_lengths_the_symbols_cannot_express_compile_per_size(fn, match):
    """ceil(n / 2), max(n - 10, 0) and n (n + 1) / 2 are not affine in
    n: the translation with symbols refuses (located), and the program
    compiles each size with constants, NumPy's results (an empty array
    where n < 10)."""
    with pytest.raises(FrontendError, match=match) as info:
        translate(fn, (np.ones(12),), symbolic=frozenset({"x"}))
    assert "test_symbolic_creation.py:" in str(info.value)
    sweep(fn, vector, sizes=(8, 9, 12), compiles=3)


def too_small(x):
    return np.eye(x.shape[0] - 10)


def test_a_size_negative_for_small_extents_is_numpys_error_there():
    prog = sdfg.program(too_small, dynamic=True)
    np.testing.assert_array_equal(prog(np.ones(13)), np.eye(3))
    with pytest.raises(FrontendError, match="negative dimensions"):
        prog(np.ones(8))


def float_diagonal():
    return np.eye(3, k=1.5)


def float_size():
    return np.identity(3.0)


def step_zero():
    return np.arange(0, 5, 0)


def eye_order():
    return np.eye(3, order="F")


def run_time_length(x):
    t = 0.0
    for i in range(x.shape[0]):
        t += np.sum(np.arange(i))
    return t


@pytest.mark.parametrize("fn,args,match", [
    (float_diagonal, (), r"np.eye with a diagonal k that is not an "
                         r"integer"),
    (float_size, (), r"np.identity of a size that is not an integer"),
    (step_zero, (), r"division by zero"),
    (eye_order, (), r"keyword argument 'order'"),
    (run_time_length, (np.ones(4),), r"np.arange of a length computed at "
                                     r"run time"),
])
def test_refused_uses_are_located_errors(fn, args, match):
    with pytest.raises(FrontendError, match=match) as info:
        sdfg.program(fn)(*args)
    assert "test_symbolic_creation.py:" in str(info.value)


def windows(x):
    """A window of constant length at a loop-dependent start: its values
    are computed at run time, its length is known."""
    t = np.zeros(3)
    for i in range(x.shape[0] - 3):
        t += np.arange(i, i + 3) * x[i]
    return t


def test_arange_with_run_time_ends_of_constant_span():
    x = rng(1).random(10)
    np.testing.assert_array_equal(sdfg.program(windows)(x), windows(x))


def smoothed(x):
    n = x.shape[0]
    w = np.linspace(0.0, 1.0, n)
    y = (np.eye(n) + 0.5 * np.eye(n, k=1) + np.tri(n) * 0.01) @ x
    return np.sum(np.sin(y) * (np.arange(n) + 1.0) * w)


def test_gradient_over_sizes_compiles_once():
    g = sdfg.grad(sdfg.program(smoothed, dynamic=True), argnums=0)
    before = native.compile_count
    for n in (9, 16, 23):
        x = rng(n).standard_normal(n)
        np.testing.assert_allclose(g(x), fd_gradient(smoothed, [x], 0),
                                   rtol=1e-7, atol=1e-9)
    assert native.compile_count - before == 1


def matrix_loss(A):
    return (np.sum(np.triu(A, 1) ** 2) + np.trace(A) ** 2 +
            np.sum(np.diag(np.diagonal(A, -1)) @ A[1:, 1:]))


def test_gradient_through_diagonals_over_sizes():
    g = sdfg.grad(sdfg.program(matrix_loss, dynamic=True), argnums=0)
    before = native.compile_count
    for n in (9, 12):
        A = rng(n).standard_normal((n, n))
        np.testing.assert_allclose(g(A), fd_gradient(matrix_loss, [A], 0),
                                   rtol=1e-7, atol=1e-8)
    assert native.compile_count - before == 1
