"""Int arguments that only bound for loops are symbols of the compiled
program (frontend/symbols.py): a sweep over them compiles once, results
equal NumPy's for every value (zero and negative trip counts included);
other ints, static_argnames and gradients compile values in."""

import numpy as np
import pytest

import sdfg
from sdfg import native

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def heat(u, T, dt):
    for t in range(T):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    for t in range(2, T + 1):  # bounds as sums and differences
        u[0] = u[0] + 0.001 * t
    return np.sum(u * u)


def reference(fn, *args):
    return fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])


U = np.linspace(0.0, 1.0, 33) ** 2


def test_a_sweep_compiles_once():
    prog = sdfg.program(heat)
    before = native.compile_count
    for T in (5, 0, -3, 1, 17, 40):
        u = U.copy()
        want = U.copy()
        assert prog(u, T, 0.1) == pytest.approx(heat(want, T, 0.1),
                                                rel=1e-13)
        np.testing.assert_allclose(u, want, rtol=1e-13)
    assert native.compile_count - before == 1
    # A new process (here: a new program object) finds it on disk.
    again = sdfg.program(heat)
    assert again is not prog
    before = native.compile_count
    again(U.copy(), 23, 0.1)
    assert native.compile_count == before


def test_static_argnames_compile_each_value():
    prog = sdfg.program(heat, static_argnames=("T",))
    before = native.compile_count
    for T in (3, 4, 5):
        assert prog(U.copy(), T, 0.1) == pytest.approx(
            reference(heat, U, T, 0.1), rel=1e-13)
    assert native.compile_count - before == 3
    with pytest.raises(ValueError, match="static_argnames names"):
        sdfg.program(heat, static_argnames=("steps",))


def sized(u, n):
    acc = np.zeros(n)  # a shape: a constant
    for t in range(n):
        acc[t] = u[t] * 2.0
    return np.sum(acc)


def swapping(a, b, T):
    for t in range(T):
        a[1:-1] = b[1:-1] + 1.0
        a, b = b, a  # unrolled by its period: needs the trip count
    return np.sum(a)


def test_other_uses_compile_values_in():
    prog = sdfg.program(sized)
    before = native.compile_count
    for n in (3, 4):
        assert prog(U.copy(), n) == pytest.approx(2 * np.sum(U[:n]))
    assert native.compile_count - before == 2
    # A candidate the translation cannot keep symbolic falls back.
    prog = sdfg.program(swapping)
    for T in (1, 2, 5):
        a, b = np.zeros(6), np.ones(6)
        assert prog(a, b, T) == swapping(np.zeros(6), np.ones(6), T)


def test_gradients_take_the_value():
    g = sdfg.grad(heat, argnums=0)
    for T in (2, 6):
        np.testing.assert_allclose(
            g(U.copy(), T, 0.1),
            fd_gradient(lambda u: reference(heat, u, T, 0.1), [U], 0),
            rtol=1e-7, atol=1e-9)
