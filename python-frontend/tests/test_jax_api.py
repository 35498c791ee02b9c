"""The parts of sdfg's Python interface that JAX users expect: argnums,
a default wrt, has_aux, check_grads, functions given as source text or
defined in notebook cells, and the compile log."""

import linecache
import logging

import numpy as np
import pytest

import sdfg
from sdfg import native

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def layer(x, W, alpha, n):
    y = np.tanh(W @ x) * alpha
    for _ in range(n):
        y = 0.5 * y + np.sin(y)
    return np.sum(y * y), y


X = np.linspace(-1.0, 1.0, 4)
W = np.arange(12.0).reshape(3, 4) / 10 - 0.5


def loss(x, W):
    return layer(x, W, 1.5, 2)[0]


def test_default_wrt_is_every_float_array():
    g = sdfg.grad(layer, output="return:0")(X, W, 1.5, 2)
    assert sorted(g) == ["W", "x"]
    np.testing.assert_allclose(g["x"], fd_gradient(loss, [X, W], 0),
                               rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(g["W"], fd_gradient(loss, [X, W], 1),
                               rtol=1e-7, atol=1e-9)


def test_default_wrt_without_float_arrays_is_an_error():
    def count(n, k):
        return float(n * k)
    with pytest.raises(sdfg.FrontendError, match="no float array"):
        sdfg.grad(count)(3, np.arange(3))


def test_argnums_as_jax():
    gx = sdfg.grad(layer, argnums=0, output="return:0")(X, W, 1.5, 2)
    assert isinstance(gx, np.ndarray)
    np.testing.assert_allclose(gx, fd_gradient(loss, [X, W], 0),
                               rtol=1e-7, atol=1e-9)
    gW, gx2 = sdfg.grad(layer, argnums=(1, -4), output="return:0")(
        X, W, 1.5, 2)
    np.testing.assert_array_equal(gx2, gx)
    assert gW.shape == W.shape
    # A float scalar by position: d loss / d alpha.
    ga = sdfg.grad(layer, argnums=2, output="return:0")(X, W, 1.5, 2)
    h = 1e-6
    fd = (layer(X, W, 1.5 + h, 2)[0] - layer(X, W, 1.5 - h, 2)[0]) / (2 * h)
    assert abs(ga - fd) <= 1e-7 * abs(fd)


def test_wrt_order_shares_one_program():
    sdfg.grad(layer, ["x", "W"], output="return:0")(X, W, 1.5, 2)
    before = native.compile_count
    g = sdfg.grad(layer, ["W", "x"], output="return:0")(X, W, 1.5, 2)
    assert native.compile_count == before and list(g) == ["W", "x"]


@pytest.mark.parametrize("bad, error, match", [
    (dict(wrt="x", argnums=0), TypeError, "not both"),
    (dict(argnums=4), ValueError, "out of range"),
    (dict(argnums=(0, -4)), ValueError, "twice"),
    (dict(argnums="x"), TypeError, "int or a non-empty tuple"),
    (dict(argnums=()), TypeError, "int or a non-empty tuple"),
    (dict(argnums=True), TypeError, "int or a non-empty tuple"),
    (dict(has_aux=1), TypeError, "has_aux"),
    (dict(has_aux=True, output="return:1"), ValueError, "has_aux"),
])
def test_bad_argnums_and_has_aux(bad, error, match):
    with pytest.raises(error, match=match):
        sdfg.grad(layer, **bad)


def test_has_aux():
    g, aux = sdfg.grad(layer, argnums=0, has_aux=True)(X, W, 1.5, 2)
    np.testing.assert_allclose(aux, layer(X, W, 1.5, 2)[1], rtol=1e-14)
    np.testing.assert_allclose(g, fd_gradient(loss, [X, W], 0), rtol=1e-7,
                               atol=1e-9)
    (value, aux2), g2 = sdfg.value_and_grad(layer, argnums=(0,),
                                            has_aux=True)(X, W, 1.5, 2)
    assert value == pytest.approx(layer(X, W, 1.5, 2)[0], rel=1e-14)
    np.testing.assert_array_equal(aux2, aux)
    np.testing.assert_array_equal(g2[0], g)


def test_has_aux_needs_a_pair():
    def one(x):
        return np.sum(x)
    with pytest.raises(sdfg.FrontendError, match="must return a pair"):
        sdfg.grad(one, has_aux=True)(X)


def test_check_grads_passes_with_a_report():
    report = sdfg.check_grads(layer, (X, W, 1.5, 2), output="return:0")
    assert report.ok and report.wrt == ["x", "W"]
    assert len(report.directions) == 3
    assert all(d.error <= d.tolerance for d in report.directions)
    assert "direction 2" in str(report)
    # float32 arguments are checked in float64.
    sdfg.check_grads(layer, (X.astype(np.float32), W, 1.5, 2), argnums=0,
                     output="return:0", directions=1)


def test_check_grads_finds_a_wrong_derivative():
    # At x = 0 the step jumps by 1: the finite difference is ~1/(2h), the
    # derivative (almost everywhere) 1.
    def step(x):
        return np.sum(np.where(x > 0, x + 1.0, x))
    with pytest.raises(AssertionError, match="MISMATCH"):
        sdfg.check_grads(step, (np.array([0.0, 0.5]),), directions=1)


def test_check_grads_forward_mode_and_second_order():
    report = sdfg.check_grads(layer, (X, W, 1.5, 2), order=2,
                              modes=("fwd", "rev"), output="return:0",
                              directions=2)
    assert [d.what for d in report.directions] == ["rev", "fwd", "hvp"] * 2
    assert report.ok and "hvp direction 5" in str(report)


@pytest.mark.parametrize("kw, error", [
    (dict(order=3), NotImplementedError),
    (dict(modes=("sideways",)), ValueError),
    (dict(eps=0.0), ValueError),
    (dict(directions=0), ValueError),
    (dict(wrt=["nope"]), ValueError),
])
def test_check_grads_bad_options(kw, error):
    with pytest.raises(error):
        sdfg.check_grads(loss, (X, W), **kw)


SOURCE = """import numpy as np

def helper(x):
    return x * x

def f(x):
    return np.sum(np.sin(helper(x)))
"""


def test_program_from_source_text():
    x = np.linspace(0.0, 1.0, 5)
    assert sdfg.program(source=SOURCE, name="f")(x) == \
        pytest.approx(np.sum(np.sin(x * x)), rel=1e-15)
    g = sdfg.grad(sdfg.from_source(SOURCE, "f"), "x")(x)["x"]
    np.testing.assert_allclose(g, 2 * x * np.cos(x * x), rtol=1e-14)


def test_source_reads_its_globals():
    scope = {"np": np, "W": np.ones(3)}
    f = sdfg.from_source("def f(x):\n    return np.sum(W * x)\n",
                         globals=scope)
    x = np.arange(3.0)
    assert sdfg.program(f)(x) == 3.0
    scope["W"] = np.full(3, 2.0)  # a global's new value is read
    assert sdfg.program(f)(x) == 6.0


@pytest.mark.parametrize("kw, match", [
    (dict(source=SOURCE), "defines 2 functions"),
    (dict(source=SOURCE, name="g"), "no function named 'g'"),
    (dict(source="def f(:\n"), "does not parse"),
])
def test_bad_source(kw, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(**kw)


def test_source_and_function_are_exclusive():
    with pytest.raises(TypeError, match="not both"):
        sdfg.program(loss, source=SOURCE)
    with pytest.raises(TypeError, match="name="):
        sdfg.program(loss, name="f")


def test_function_from_a_notebook_cell():
    # IPython and Jupyter keep each cell's text in linecache under the
    # cell's name, as here.
    text = "import numpy as np\ndef cell_fn(x):\n    return np.sum(x ** 3)\n"
    name = "<ipython-input-7-0123456789ab>"
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    scope = {}
    exec(compile(text, name, "exec"), scope)
    x = np.linspace(0.0, 1.0, 4)
    g = sdfg.grad(scope["cell_fn"], "x")(x)["x"]
    np.testing.assert_allclose(g, 3 * x * x, rtol=1e-14)


def test_function_without_source_says_what_to_do():
    scope = {}
    exec(compile("def lost(x):\n    return x\n", "<string>", "exec"), scope)
    with pytest.raises(sdfg.FrontendError,
                       match=r"lost \(defined in <string>\).*source=TEXT"):
        sdfg.program(scope["lost"])


def test_compile_log(caplog):
    caplog.set_level(logging.INFO, logger="sdfg")
    sdfg.grad(loss, argnums=0)(X, W)
    compiled = [r.getMessage() for r in caplog.records]
    assert len(compiled) == 1
    assert compiled[0].startswith("compiled the gradient of loss wrt x for "
                                  "(float64[4], float64[3,4]) in ")
    assert "translate" in compiled[0] and "sdfg-translate" in compiled[0]
    caplog.clear()
    sdfg.grad(loss, argnums=0)(X, W)  # a new object: found on disk
    hits = [r.getMessage() for r in caplog.records]
    assert len(hits) == 1 and hits[0].startswith(
        "found the gradient of loss wrt x for (float64[4], float64[3,4]) "
        "in the cache: ")


def test_slow_compile_warns_without_the_log(caplog, monkeypatch):
    caplog.set_level(logging.WARNING, logger="sdfg")
    monkeypatch.setattr(sdfg.config, "slow_compile_seconds", 0.0)
    sdfg.program(loss)(X, W)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("compiling loss for "
                                          "(float64[4], float64[3,4]) took")


def test_log_switch(capfd):
    assert not sdfg.config.log_compiles
    sdfg.config.log_compiles = True
    try:
        sdfg.program(loss)(X, W)
    finally:
        sdfg.config.log_compiles = False
    assert "sdfg: compiled loss for (float64[4], float64[3,4])" in \
        capfd.readouterr().err
    with pytest.raises(TypeError):
        sdfg.config.log_compiles = 1


def stable_softmax_loss(x, w):
    # The shift is a constant to differentiation (as JAX users write it):
    # the value is unchanged and so is the gradient of a softmax.
    m = sdfg.stop_gradient(np.max(x))
    y = np.exp(x - m)
    s = sdfg.stop_gradient(np.sum(y * w))
    return np.sum(y * w) / s + np.sum(sdfg.stop_gradient(x) * x)


def test_stop_gradient():
    x, w = np.array([0.5, 1.0, -0.3]), np.array([1.0, 2.0, 3.0])
    assert sdfg.program(stable_softmax_loss)(x, w) == \
        pytest.approx(stable_softmax_loss(x, w), rel=1e-15)
    y = np.exp(x - x.max())
    s = np.sum(y * w)
    g = sdfg.grad(stable_softmax_loss, ["x", "w"])(x, w)
    # With s and m held: d/dx = y w / s + x (stop_gradient(x) * x).
    np.testing.assert_allclose(g["x"], y * w / s + x, rtol=1e-14)
    np.testing.assert_allclose(g["w"], y / s, rtol=1e-14)
    _, t = sdfg.jvp(stable_softmax_loss, (x, w), (np.ones(3), None))
    assert t == pytest.approx(np.sum(y * w / s + x), rel=1e-14)
    # Python runs it as the identity; ints and constants pass through.
    assert sdfg.stop_gradient(3) == 3

    def scalar(a, n):
        return a * sdfg.stop_gradient(a) + sdfg.stop_gradient(n * 1.0)
    assert sdfg.grad(scalar, argnums=0)(2.0, 3) == 2.0
