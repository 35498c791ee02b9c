"""Size symbols (frontend/symbolic_sizes.py) for the array leaves of dict,
tuple, list and named-tuple arguments and for complex arrays (issue 37):
a sweep over sizes compiles once (dynamic=True) or twice (the default: the
first shapes, then the symbols), with duck sizing across leaves and
top-level arrays; results equal NumPy's bit for bit (sums up to their
order of additions), gradients finite differences."""

import copy
from collections import namedtuple

import numpy as np
import pytest

import sdfg
from sdfg import native
from sdfg.frontend.translator import translate

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def rng(seed=0):
    return np.random.default_rng(seed)


def dot_dict(d):
    return np.sum(d["a"] * d["b"])


def same(got, want):
    """A sum as NumPy's up to its order of additions (NumPy's pairwise
    blocks are not the program's fixed chunks)."""
    assert type(got) is type(want)
    np.testing.assert_allclose(got, want, rtol=1e-13)


def entries(prog):
    """The compiled programs' parameters: (name, shape with -1 for each
    symbol; an int's value) per parameter, per program."""
    return [[(p[1], tuple(p[3]) if type(p[3]) is list else p[3])
             for p in e.meta["params"]]
            for e in prog._compiled.values()]


def test_dict_leaves_sweep_compiles_once():
    prog = sdfg.program(dot_dict, dynamic=True)
    before = native.compile_count
    for n in (10, 12, 14, 31):
        d = {"a": rng(n).random(n), "b": rng(n + 1).random(n)}
        same(prog(d), dot_dict(d))
    assert native.compile_count - before == 1
    # The leaves are parameters `d.a` and `d.b`, one symbol for both.
    assert entries(prog) == [[("d.a", (-1,)), ("d.b", (-1,))]]
    # Extents that differ are another pattern: one more program, then
    # none for other sizes of it.
    before = native.compile_count
    for n, m in ((10, 12), (20, 9), (33, 17)):
        d = {"a": rng(n).random((n, 1)), "b": rng(m).random(m)}
        same(prog(d), dot_dict(d))
    assert native.compile_count - before == 1


Pair = namedtuple("Pair", ["x", "y"])


def nested(t, s):
    x, pk, scale = t
    p, k = pk
    return (p.x[1:] - p.y[:-1]) * scale + x[k], p.x * s["w"][0][1] + s["c"]


def nested_args(n, k=2):
    r = rng(n)
    t = (r.random(n + 1),
         [Pair(r.random(n + 1), r.random(n + 1)), k], 1.5)
    s = {"w": [r.random(3)], "c": r.random(n + 1)}
    return t, s


def test_nested_trees_by_default_compile_twice():
    """dynamic=None: the first shapes compiled in, then one program for
    every size; the small leaf (3) and the int leaf stay constants."""
    prog = sdfg.program(nested)
    before = native.compile_count
    for n in (9, 12, 20, 33):
        t, s = nested_args(n)
        got, want = prog(t, s), nested(t, s)
        assert got[0].shape == (n,)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    assert native.compile_count - before == 2
    symbolic = [e for e in entries(prog) if ("t.0", (-1,)) in e]
    assert symbolic == [[("t.0", (-1,)), ("t.1.0.x", (-1,)),
                         ("t.1.0.y", (-1,)), ("t.1.1", 2), ("t.2", None),
                         ("s.w.0", (3,)), ("s.c", (-1,))]]
    # The int leaf is compiled in by value: another one compiles again.
    before = native.compile_count
    t, s = nested_args(14, k=3)
    np.testing.assert_array_equal(prog(t, s)[0], nested(t, s)[0])
    assert native.compile_count - before == 1


def dense(p, x):
    return np.tanh(x @ p["W"] + p["b"])


def test_duck_sizing_across_leaves_and_arrays():
    """x's columns, W's rows and b share a symbol where they are equal in
    the first call; W square is its own pattern."""
    prog = sdfg.program(dense, dynamic=True)
    before = native.compile_count
    for m, n, h in ((10, 12, 14), (9, 30, 8), (11, 8, 40)):
        p = {"W": rng(n).random((n, h)), "b": rng(h).random(h)}
        x = rng(m).random((m, n))
        np.testing.assert_allclose(prog(p, x), dense(p, x), rtol=1e-13)
    assert native.compile_count - before == 1
    before = native.compile_count
    for n in (10, 16, 25):
        p = {"W": rng(n).random((n, n)), "b": rng(n + 1).random(n)}
        x = rng(n + 2).random((3, n))
        np.testing.assert_allclose(prog(p, x), dense(p, x), rtol=1e-13)
    assert native.compile_count - before == 1


def cmix(z, w, x):
    return z * w + np.conj(z) * x, z[1:] - z[:-1]


def cmix_args(n, dtype=np.complex128):
    r = rng(n)
    z = (r.random((n, 3)) + 1j * r.random((n, 3))).astype(dtype)
    w = (r.random((n, 3)) - 1j * r.random((n, 3))).astype(dtype)
    return z, w, r.random((n, 3))


@pytest.mark.parametrize("dynamic, compiles", [(True, 1), (None, 2)])
def test_complex_arrays_are_symbolic(dynamic, compiles):
    prog = sdfg.program(cmix, dynamic=dynamic)
    before = native.compile_count
    for n in (8, 13, 21, 40):
        args = cmix_args(n)
        got, want = prog(*args), cmix(*args)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g, w)
    assert native.compile_count - before == compiles
    # The trailing 2 of the float pairs stays a constant.
    text = translate(cmix, cmix_args(9),
                     symbolic=frozenset({"z", "w", "x"})).text
    assert "%z: memref<?x3x2xf64>" in text and \
        "%x: memref<?x3xf64>" in text


def ctree(d):
    return d["z"] * d["z"] + d["r"], np.sum(d["z"].real)


def test_complex_leaves_of_a_tree():
    prog = sdfg.program(ctree, dynamic=True)
    before = native.compile_count
    for n in (8, 11, 30):
        r = rng(n)
        d = {"z": (r.random(n) + 1j * r.random(n)).astype(np.complex64),
             "r": r.random(n).astype(np.float32)}
        got, want = prog(d), ctree(d)
        assert got[0].dtype == np.complex64
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    assert native.compile_count - before == 1
    assert entries(prog) == [[("d.z", (-1, 2)), ("d.r", (-1,))]]


def tree_loss(p, x):
    h = np.tanh(x @ p["W"] + p["b"][0])
    return np.sum(h * h) + np.sum(p["b"][1] * p["b"][1][::-1])


def tree_params(n, h):
    r = rng(n * h)
    return {"W": r.standard_normal((n, h)),
            "b": (r.standard_normal(h), r.standard_normal(n + 1))}


def fd_tree(fn, p, x, hstep=1e-6):
    """Central differences of fn(p, x) at each array leaf of dict `p`
    (its values arrays or tuples of arrays), in p's structure."""
    def at(path):
        out = copy.deepcopy(p)
        holder = out
        for k in path[:-1]:
            holder = holder[k]
        return out, holder, path[-1]

    def fd(path, leaf):
        g = np.zeros_like(leaf)
        for j in np.ndindex(leaf.shape):
            vals = []
            for s in (hstep, -hstep):
                out, holder, k = at(path)
                if isinstance(holder, tuple):
                    parts = list(holder)
                    parts[k] = parts[k].copy()
                    parts[k][j] += s
                    out[path[0]] = tuple(parts)
                else:
                    holder[k][j] += s
                vals.append(fn(out, x))
            g[j] = (vals[0] - vals[1]) / (2 * hstep)
        return g

    return {k: fd((k,), v) if isinstance(v, np.ndarray) else
            tuple(fd((k, i), leaf) for i, leaf in enumerate(v))
            for k, v in p.items()}


def assert_tree_close(got, want):
    assert set(got) == set(want)
    for k in want:
        g, w = got[k], want[k]
        if isinstance(w, tuple):
            assert isinstance(g, tuple) and len(g) == len(w)
        else:
            g, w = (g,), (w,)
        for a, b in zip(g, w):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dynamic, compiles", [(True, 1), (None, 2)])
def test_gradient_of_a_tree_argument(dynamic, compiles):
    g = sdfg.grad(sdfg.program(tree_loss, dynamic=dynamic), argnums=0)
    before = native.compile_count
    # x's 5 rows are a constant; n, h and n + 1 are three symbols.
    for n, h in ((9, 11), (12, 17)):
        p, x = tree_params(n, h), rng(n).standard_normal((5, n))
        assert_tree_close(g(p, x), fd_tree(tree_loss, p, x))
    assert native.compile_count - before == compiles
    # Another size of the same pattern: no compile.
    before = native.compile_count
    p, x = tree_params(20, 13), rng(3).standard_normal((5, 20))
    assert_tree_close(g(p, x), fd_tree(tree_loss, p, x))
    assert native.compile_count == before


def heat(p, dt):
    u = p["u"]
    for t in range(4):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2.0 * u[1:-1] + u[:-2]) * u[1:-1]
    return np.sum(u * u)


def heat_of(u, dt):
    return heat({"u": u.copy()}, dt)


def test_memory_limit_plans_a_leaf_per_size_bucket():
    """As for a top-level array (test_symbolic_shapes.py): sdfg-checkpoint
    gets the leaf's bound (p.u.0=..16), so 9, 16 and 12 share a plan and
    17 is the next bucket's."""
    g = sdfg.grad(sdfg.program(heat, dynamic=True), argnums=0, mem=1.0)
    before = native.compile_count
    peaks = []
    for n in (9, 16, 12, 17):
        u = rng(n).random(n)
        np.testing.assert_allclose(
            g({"u": u}, 0.1)["u"], fd_gradient(heat_of, [u, 0.1], 0),
            rtol=1e-6, atol=1e-8)
        peaks.append(g.checkpoint["peak_bytes"])
    assert native.compile_count - before == 2
    assert peaks[0] == peaks[1] == peaks[2] == 5 * 14 * 8
    assert peaks[3] == 5 * 30 * 8


def csq(z, w):
    return np.sum((z * w).real) + np.sum((z * np.conj(z)).real)


def fd_complex(fn, z, w, h=1e-6):
    """JAX's gradient of real fn at complex z: dL/dre - i dL/dim."""
    g = np.zeros_like(z)
    for j in np.ndindex(z.shape):
        for unit, sign in ((1.0, 1.0), (1j, -1j)):
            up, down = z.copy(), z.copy()
            up[j] += h * unit
            down[j] -= h * unit
            g[j] += sign * (fn(up, w) - fn(down, w)) / (2 * h)
    return g


def test_gradient_wrt_a_complex_array():
    g = sdfg.grad(sdfg.program(csq, dynamic=True), argnums=0)
    before = native.compile_count
    for n in (8, 19, 30):
        r = rng(n)
        z = r.random(n) + 1j * r.random(n)
        w = r.random(n) - 2j * r.random(n)
        np.testing.assert_allclose(g(z, w), fd_complex(csq, z, w),
                                   rtol=1e-7, atol=1e-8)
    assert native.compile_count - before == 1


def test_bad_keys_keep_their_error():
    """Keys that cannot name parameters are not candidates; the
    translation refuses them as without symbols."""
    with pytest.raises(TypeError, match="argument 'd' has the key 'a b'"):
        sdfg.program(dot_dict, dynamic=True)({"a b": np.ones(9),
                                              "b": np.ones(9)})


def test_static_argnames_and_dynamic_false_compile_trees_in():
    """Both compile each shape in: the same programs (the second finds
    the first's in the cache)."""
    before = native.compile_count
    for prog in (sdfg.program(dot_dict, static_argnames=("d",),
                              dynamic=True),
                 sdfg.program(dot_dict, dynamic=False)):
        for n in (10, 12):
            d = {"a": rng(n).random(n), "b": rng(n + 1).random(n)}
            same(prog(d), dot_dict(d))
        assert entries(prog) == [[("d.a", (n,)), ("d.b", (n,))]
                                 for n in (10, 12)]
    assert native.compile_count - before == 2
