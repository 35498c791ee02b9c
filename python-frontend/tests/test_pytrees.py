"""Dicts, tuples, lists and named tuples of arrays as arguments, results
and wrt (JAX's pytrees): the forward against NumPy, gradients, tangents,
Hessian-vector products and Jacobians against finite differences, in the
caller's structure; the errors."""

import copy
from collections import namedtuple

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def mlp(params, x):
    h = x
    for layer in params["layers"]:
        h = np.tanh(h @ layer["W"] + layer["b"])
    return np.sum(h * h) * params["scale"] + params["n"]


def make_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"layers": [{"W": rng.standard_normal((4, 5)),
                        "b": rng.standard_normal(5)},
                       {"W": rng.standard_normal((5, 3)),
                        "b": rng.standard_normal(3)}],
            "scale": 0.5, "n": 2}


X = np.random.default_rng(7).standard_normal((2, 4))


def leaves(tree):
    """(path, leaf) of a nested structure, for the checks."""
    if isinstance(tree, dict):
        for k, v in tree.items():
            for p, x in leaves(v):
                yield (k,) + p, x
    elif isinstance(tree, (tuple, list)):
        for k, v in enumerate(tree):
            for p, x in leaves(v):
                yield (k,) + p, x
    else:
        yield (), tree


def moved(tree, path, index, h):
    """A deep copy of `tree` with the leaf at `path` moved by h at
    `index` (a float leaf: by h)."""
    out = copy.deepcopy(tree)
    parent = out
    for k in path[:-1]:
        parent = parent[k]
    leaf = parent[path[-1]]
    if isinstance(leaf, float):
        parent[path[-1]] = leaf + h
    else:
        leaf[index] += h
    return out


def fd_tree(fn, tree, rest, h=1e-6):
    """Central differences of fn(tree, *rest) at every float leaf of
    `tree`, in a dict by path."""
    out = {}
    for path, leaf in leaves(tree):
        if isinstance(leaf, float):
            out[path] = (fn(moved(tree, path, None, h), *rest) -
                         fn(moved(tree, path, None, -h), *rest)) / (2 * h)
        elif isinstance(leaf, np.ndarray) and leaf.dtype.kind == "f":
            g = np.zeros_like(leaf)
            for j in np.ndindex(leaf.shape):
                g[j] = (fn(moved(tree, path, j, h), *rest) -
                        fn(moved(tree, path, j, -h), *rest)) / (2 * h)
            out[path] = g
    return out


def assert_tree_close(tree, expected, rtol=1e-7, atol=1e-9):
    got = dict(leaves(tree))
    assert set(expected) <= set(got)
    for path, want in expected.items():
        np.testing.assert_allclose(got[path], want, rtol=rtol, atol=atol,
                                   err_msg=str(path))


def test_forward_matches_numpy():
    p = make_params()
    assert sdfg.program(mlp)(p, X) == pytest.approx(mlp(p, X), rel=1e-13)


def test_gradient_in_the_arguments_structure():
    p = make_params()
    g = sdfg.grad(mlp, argnums=0)(p, X)
    # The same structure: a dict holding a list of dicts; the int leaf
    # (a compile-time constant) has no gradient.
    assert list(g) == ["layers", "scale", "n"]
    assert isinstance(g["layers"], list) and len(g["layers"]) == 2
    assert list(g["layers"][0]) == ["W", "b"]
    assert g["n"] is None
    assert_tree_close(g, fd_tree(mlp, p, (X,)))
    # By name, and the default wrt (every argument holding float arrays).
    by_name = sdfg.grad(mlp, wrt="params")(p, X)
    np.testing.assert_array_equal(by_name["params"]["layers"][1]["W"],
                                  g["layers"][1]["W"])
    assert sorted(sdfg.grad(mlp)(p, X)) == ["params", "x"]


def test_wrt_a_part_of_a_tree():
    p = make_params()
    full = sdfg.grad(mlp, argnums=0)(p, X)
    g = sdfg.grad(mlp, wrt=["params.layers.1", "params.layers.0.b"])(p, X)
    assert list(g) == ["params.layers.1", "params.layers.0.b"]
    assert list(g["params.layers.1"]) == ["W", "b"]
    np.testing.assert_allclose(g["params.layers.1"]["W"],
                               full["layers"][1]["W"], rtol=1e-14)
    np.testing.assert_allclose(g["params.layers.0.b"],
                               full["layers"][0]["b"], rtol=1e-14)


Ray = namedtuple("Ray", "origin direction")


def march(ray, steps):
    x = ray.origin.copy()
    for _ in range(steps):
        x = x + 0.1 * np.sin(ray.direction + x)
    return np.sum(x ** 2)


def test_tuples_and_named_tuples():
    rng = np.random.default_rng(3)
    ray = Ray(rng.standard_normal(3), rng.standard_normal(3))
    assert sdfg.program(march)(ray, 4) == pytest.approx(march(ray, 4),
                                                        rel=1e-13)
    g = sdfg.grad(march, argnums=0)(ray, 4)
    assert type(g) is Ray
    for k in range(2):
        e = np.zeros(3)
        fd = np.zeros(3)
        for j in range(3):
            e[:] = 0
            e[j] = 1e-6
            up = Ray(*[a + e if i == k else a for i, a in enumerate(ray)])
            down = Ray(*[a - e if i == k else a for i, a in enumerate(ray)])
            fd[j] = (march(up, 4) - march(down, 4)) / 2e-6
        np.testing.assert_allclose(g[k], fd, rtol=1e-7, atol=1e-9)

    def pair(ab):
        a, b = ab
        return np.sum(a * b) + len(ab)
    t = (np.arange(3.0), np.ones(3))
    g = sdfg.grad(pair, argnums=0)(t)
    assert isinstance(g, tuple)
    np.testing.assert_array_equal(g[0], t[1])
    np.testing.assert_array_equal(g[1], t[0])


def dict_iteration(d, x):
    s = 0.0
    for k, v in d.items():
        s = s + np.sum(v * x)
    for k in d:
        s = s + 2.0 * np.sum(d[k])
    for v in d.values():
        s = s + np.max(v)
    keys = list(d.keys())
    return s + len(d) + np.sum(d.get(keys[0])) + d.get("none", 1.5)


def test_dict_iteration_and_methods():
    rng = np.random.default_rng(4)
    d = {"a": rng.standard_normal(3), "b": rng.standard_normal(3)}
    x = rng.standard_normal(3)
    assert sdfg.program(dict_iteration)(d, x) == pytest.approx(
        dict_iteration(d, x), rel=1e-13)
    g = sdfg.grad(dict_iteration, argnums=0)(d, x)
    assert_tree_close(g, fd_tree(dict_iteration, d, (x,)))


def sgd_step(params, grads, lr):
    for k in params:
        params[k] -= lr * grads[k]


def test_in_place_update_reaches_the_callers_arrays():
    p = {"W": np.ones((2, 2)), "b": np.full(2, 3.0)}
    g = {"W": np.full((2, 2), 2.0), "b": np.ones(2)}
    W = p["W"]
    sdfg.program(sgd_step)(p, g, 0.5)
    assert p["W"] is W
    np.testing.assert_array_equal(p["W"], np.zeros((2, 2)))
    np.testing.assert_array_equal(p["b"], np.full(2, 2.5))


def loss_and_stats(p, x):
    h = np.tanh(x @ p["W"])
    return np.sum(h ** 2), {"mean": np.mean(h), "h": h,
                            "sizes": (h.shape[0], [2.0])}


def test_returned_dicts_and_has_aux():
    rng = np.random.default_rng(5)
    p = {"W": rng.standard_normal((3, 2))}
    x = rng.standard_normal((4, 3))
    loss, stats = sdfg.program(loss_and_stats)(p, x)
    want_loss, want = loss_and_stats(p, x)
    assert loss == pytest.approx(want_loss, rel=1e-13)
    assert list(stats) == ["mean", "h", "sizes"]
    np.testing.assert_allclose(stats["h"], want["h"], rtol=1e-13)
    assert stats["sizes"] == (4, [2.0])
    g, aux = sdfg.grad(loss_and_stats, argnums=0, has_aux=True)(p, x)
    np.testing.assert_allclose(aux["h"], want["h"], rtol=1e-13)
    assert_tree_close(g, fd_tree(lambda q, y: loss_and_stats(q, y)[0], p,
                                 (x,)))
    (v, aux), g2 = sdfg.value_and_grad(loss_and_stats, has_aux=True)(p, x)
    assert v == pytest.approx(want_loss, rel=1e-13)
    np.testing.assert_allclose(g2["p"]["W"], g["W"], rtol=1e-14)
    with pytest.raises(sdfg.FrontendError, match="returns a dict, list or "
                       "tuple there"):
        sdfg.grad(loss_and_stats, output="return:1")(p, x)


def test_jvp_hvp_and_second_derivatives():
    p = make_params(1)
    rng = np.random.default_rng(6)
    t = {"layers": [{"W": rng.standard_normal((4, 5)), "b": None},
                    None], "scale": 1.0, "n": None}

    def along(s):
        q = copy.deepcopy(p)
        q["layers"][0]["W"] += s * t["layers"][0]["W"]
        q["scale"] += s
        return q
    h = 1e-6
    value, tangent = sdfg.jvp(mlp, (p, X), (t, None))
    assert value == pytest.approx(mlp(p, X), rel=1e-13)
    fd = (mlp(along(h), X) - mlp(along(-h), X)) / (2 * h)
    assert tangent == pytest.approx(fd, rel=1e-7)
    hv, none = sdfg.hvp(mlp, (p, X), (t, None))
    assert none is None and hv["n"] is None and hv["layers"][1] is not None
    g = sdfg.grad(mlp, argnums=0)
    up, down = g(along(h), X), g(along(-h), X)
    for path, leaf in leaves(hv):
        if leaf is None:
            continue
        u, d = dict(leaves(up))[path], dict(leaves(down))[path]
        np.testing.assert_allclose(leaf, (u - d) / (2 * h), rtol=1e-6,
                                   atol=1e-8, err_msg=str(path))
    report = sdfg.check_grads(mlp, (p, X), order=2, modes=("rev", "fwd"))
    assert report.ok and report.wrt == ["params", "x"]


def test_jacobians_in_the_arguments_structure():
    def f(p, x):
        return np.tanh(x @ p["W"] + p["b"]).ravel()
    rng = np.random.default_rng(8)
    p = {"W": rng.standard_normal((3, 2)), "b": rng.standard_normal(2)}
    x = rng.standard_normal((2, 3))
    jf, jr = sdfg.jacfwd(f)(p, x), sdfg.jacrev(f)(p, x)
    assert jf["W"].shape == (4, 3, 2) and jr["b"].shape == (4, 2)
    for i in range(4):
        want = fd_tree(lambda q, y: f(q, y)[i], p, (x,))
        assert_tree_close({"W": jf["W"][i], "b": jf["b"][i]}, {
            ("W",): want[("W",)], ("b",): want[("b",)]})
        assert_tree_close({"W": jr["W"][i], "b": jr["b"][i]}, {
            ("W",): want[("W",)], ("b",): want[("b",)]})


def test_one_compile_per_structure():
    prog = sdfg.program(mlp)
    p = make_params()
    prog(p, X)
    q = make_params(2)
    q["scale"] = 3.0  # a float leaf is a run-time value
    assert prog(q, X) == pytest.approx(mlp(q, X), rel=1e-13)
    assert len(prog._compiled) == 1
    # Another key order is another program (the leaves are the
    # parameters, in order), computing the same.
    r = {"scale": p["scale"], "n": p["n"], "layers": p["layers"]}
    assert prog(r, X) == pytest.approx(mlp(p, X), rel=1e-13)
    # An int leaf is compiled in, as an int argument is.
    s = dict(p, n=5)
    assert prog(s, X) == pytest.approx(mlp(s, X), rel=1e-13)
    assert len(prog._compiled) == 3


def test_errors():
    def first(d):
        return d["x"] + 1.0

    def store(d):
        d["x"] = np.ones(3)
        return d["y"]

    def runtime_key(d, k):
        return d[k]
    with pytest.raises(TypeError, match="argument 'd' has the key 'a b'"):
        sdfg.program(first)({"a b": np.ones(2)})
    with pytest.raises(TypeError, match="string or int keys"):
        sdfg.program(first)({(1, 2): np.ones(2)})
    with pytest.raises(TypeError, match="argument 'd.x' is an array of "
                       "dtype float16"):
        sdfg.program(first)({"x": np.ones(2, np.float16)})
    with pytest.raises(sdfg.FrontendError, match=r"KeyError: 'x' \(the dict "
                       "has keys 'y'\\)"):
        sdfg.program(first)({"y": np.ones(2)})
    with pytest.raises(sdfg.FrontendError, match="assignment into a dict"):
        sdfg.program(store)({"x": np.ones(3), "y": np.ones(2)})
    with pytest.raises(sdfg.FrontendError, match="dict key computed at run "
                       "time"):
        sdfg.program(runtime_key)({"x": np.ones(2)}, 1.5)
    p = make_params()
    with pytest.raises(ValueError, match="the tangent for 'params' does not "
                       "have the argument's structure"):
        sdfg.jvp(mlp, (p, X), ({"layers": []}, None))
    with pytest.raises(sdfg.FrontendError, match="wrt name 'params.W' is "
                       "not a parameter"):
        sdfg.grad(mlp, wrt="params.W")(p, X)
    with pytest.raises(sdfg.FrontendError, match="'params.n' holds no float"
                       "|cannot differentiate with respect to 'params.n'"):
        sdfg.grad(mlp, wrt="params.n")(p, X)
    with pytest.raises(sdfg.FrontendError, match="holds no float array"):
        sdfg.grad(lambda_free, wrt="c")({"k": 1}, X)
    with pytest.raises(TypeError, match="hessian: argument 0 is a dict"):
        sdfg.hessian(mlp)(p, X)


def lambda_free(c, x):
    return np.sum(x) * c["k"]
