"""Gradients from sdfg.grad / sdfg.vjp against central finite differences
(float64, random directions) and against analytic derivatives."""

import copy
import inspect
import os

import numpy as np
import pytest

import sdfg
from corpus.kernels import KERNELS

# Kernels whose output is float32 whatever their inputs (np.float32 in the
# source): finite differences in float32 cannot check to 1e-6.
FLOAT32_OUTPUT = {"layernorm"}
# Piecewise-linear kernels: jitter the integer inputs to avoid ties, where
# the derivative does not exist.
JITTER = {"floyd_warshall"}


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def _inputs(name):
    fn, inputs = KERNELS[name]
    args = inputs(np.random.default_rng(0))
    # Gradients are checked in float64: float32 kernels get float64 inputs.
    args = tuple(a.astype(np.float64) if isinstance(a, np.ndarray)
                 and a.dtype == np.float32 else a for a in args)
    if name in JITTER:
        jitter = np.random.default_rng(5)
        args = tuple(a + 1e-3 * jitter.random(a.shape)
                     if isinstance(a, np.ndarray) else a for a in args)
    return fn, args


def _output_spec(fn, args):
    """The first float result, else the first float argument updated in
    place."""
    run = copy.deepcopy(args)
    r = fn(*run)
    if r is not None:
        first = r[0] if isinstance(r, tuple) else r
        if np.asarray(first).dtype.kind == "f":
            return "return:0" if isinstance(r, tuple) else "return"
    names = list(inspect.signature(fn).parameters)
    for n, before, after in zip(names, args, run):
        if isinstance(before, np.ndarray) and before.dtype.kind == "f" and \
                not np.array_equal(before, after):
            return n
    return None


def _sum_output(fn, args, spec):
    names = list(inspect.signature(fn).parameters)
    run = copy.deepcopy(list(args))
    r = fn(*run)
    if spec == "return":
        return float(np.sum(r))
    if spec.startswith("return:"):
        return float(np.sum(r[int(spec[7:])]))
    return float(np.sum(run[names.index(spec)]))


def _float64_kernels():
    out = []
    for name in sorted(KERNELS):
        fn, args = _inputs(name)
        if name in FLOAT32_OUTPUT or _output_spec(fn, args) is None:
            continue
        out.append(name)
    return out


@pytest.mark.parametrize("name", _float64_kernels())
def test_gradient_matches_finite_differences(name):
    fn, args = _inputs(name)
    names = list(inspect.signature(fn).parameters)
    spec = _output_spec(fn, args)
    wrt = [n for n, a in zip(names, args)
           if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    caller = copy.deepcopy(args)
    g = sdfg.grad(fn, wrt, output=spec)(*caller)
    # The caller's arrays are untouched.
    for before, after in zip(args, caller):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(before, after)
    assert set(g) == set(wrt)
    for w in wrt:
        a = args[names.index(w)]
        assert g[w].shape == a.shape and g[w].dtype == a.dtype
    rng = np.random.default_rng(1)
    for _ in range(2):
        dirs = {w: rng.standard_normal(args[names.index(w)].shape)
                for w in wrt}
        h = 1e-6

        def shifted(s):
            a = list(copy.deepcopy(args))
            for w in wrt:
                a[names.index(w)] = a[names.index(w)] + s * h * dirs[w]
            return _sum_output(fn, a, spec)

        fd = (shifted(1.0) - shifted(-1.0)) / (2 * h)
        ad = sum(float(np.sum(g[w] * dirs[w])) for w in wrt)
        assert abs(fd - ad) <= 1e-6 * max(abs(fd), 1.0), (fd, ad)


# ----------------------------------------------------------------------------
# Exact derivatives of small programs
# ----------------------------------------------------------------------------

def products(x, y, a):
    return np.sum(x * y) + a * np.sum(x)


def test_analytic_products():
    x, y = np.arange(1.0, 5.0), np.arange(2.0, 6.0)
    g = sdfg.grad(products, ["x", "y", "a"])(x, y, 3.0)
    np.testing.assert_array_equal(g["x"], y + 3.0)
    np.testing.assert_array_equal(g["y"], x)
    assert isinstance(g["a"], float) and g["a"] == x.sum()


def chain(A, B):
    return A @ B


def test_analytic_matmul():
    rng = np.random.default_rng(2)
    A, B = rng.random((4, 3)), rng.random((3, 5))
    g = sdfg.grad(chain, ["A", "B"])(A, B)
    ones = np.ones((4, 5))
    np.testing.assert_allclose(g["A"], ones @ B.T, rtol=1e-14)
    np.testing.assert_allclose(g["B"], A.T @ ones, rtol=1e-14)


def overwrite(x):
    y = np.zeros_like(x)
    y[:] = x * x
    y[:] = np.sin(y)  # overwrites y: the first value must be stored
    return y


def test_analytic_overwrite():
    x = np.linspace(0.1, 1.0, 7)
    g = sdfg.grad(overwrite, ["x"])(x)
    np.testing.assert_allclose(g["x"], np.cos(x * x) * 2 * x, rtol=1e-14)


def strided_loops(x, out):
    n = x.shape[0]
    for i in range(n - 1, 0, -3):
        out[i] = out[i - 1] * x[i] + x[i] ** 2


def test_negative_step_loop_gradient():
    x = np.linspace(0.5, 1.5, 10)
    out = np.linspace(1.0, 2.0, 10)
    g = sdfg.grad(strided_loops, ["x", "out"], output="out")(x, out)
    expected_x = np.zeros(10)
    expected_out = np.ones(10)
    for i in range(9, 0, -3):
        expected_x[i] = out[i - 1] + 2 * x[i]
        expected_out[i] = 0.0  # overwritten
        expected_out[i - 1] += x[i]
    np.testing.assert_allclose(g["x"], expected_x, rtol=1e-14)
    np.testing.assert_allclose(g["out"], expected_out, rtol=1e-14)


def branchy(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            s += x[i] * x[i]
        else:
            s -= 3.0 * x[i]
        x[i] = 0.0  # the condition's data is overwritten afterwards
    return s


def test_conditions_are_stored():
    x = np.array([0.1, 0.7, 0.3, 0.9])
    g = sdfg.grad(branchy, ["x"])(x)
    np.testing.assert_allclose(g["x"], np.where(x > 0.5, 2 * x, -3.0),
                               rtol=1e-14)


def test_vjp_uses_the_seed_and_reports_the_value():
    rng = np.random.default_rng(3)
    A, B = rng.random((4, 3)), rng.random((3, 5))
    seed = rng.random((4, 5))
    v = sdfg.vjp(chain, ["A"])
    g = v(A, B, seed=seed)
    np.testing.assert_allclose(g["A"], seed @ B.T, rtol=1e-14)
    np.testing.assert_allclose(v.last_value, sdfg.program(chain)(A, B),
                               rtol=0, atol=0)


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------

def int_output(x):
    return np.zeros(3, dtype=np.int64)


def test_errors():
    x = np.ones(3)
    with pytest.raises(sdfg.FrontendError, match="wrt name 'z' is not a "
                       "parameter"):
        sdfg.grad(products, ["z"])(x, x, 1.0)
    with pytest.raises(ValueError, match="wrt names 'x' more than once"):
        sdfg.grad(products, ["x", "y", "x"])
    with pytest.raises(sdfg.FrontendError, match="only float outputs"):
        sdfg.grad(int_output, ["x"])(x)
    with pytest.raises(sdfg.FrontendError, match="output 'w' is not a "
                       "parameter"):
        sdfg.grad(products, ["x"], output="w")(x, x, 1.0)
    with pytest.raises(TypeError, match="seed"):
        sdfg.vjp(products, ["x"])(x, x, 1.0)
    with pytest.raises(ValueError, match="mem must be a positive"):
        sdfg.grad(products, ["x"], mem="10")


def smooth_in_place(A, T):
    for t in range(T):
        A[1:-1] = 0.25 * A[:-2] + 0.5 * A[1:-1] * A[1:-1] + 0.25 * A[2:]
    return A


def test_forward_results_of_in_place_updates_are_kept():
    A = np.linspace(0.0, 1.0, 12)
    g = sdfg.value_and_grad(smooth_in_place, ["A"])
    value, grads = g(A, 3)
    np.testing.assert_array_equal(A, np.linspace(0.0, 1.0, 12))
    expected = sdfg.program(smooth_in_place)(A.copy(), 3)
    np.testing.assert_array_equal(value, expected)
    np.testing.assert_array_equal(g.last_value, expected)
    np.testing.assert_allclose(
        grads["A"], sdfg.grad(smooth_in_place, ["A"])(A, 3)["A"],
        rtol=1e-15, atol=0)


def field_energy(a, b):
    # The returned array is not what the gradient needs (it needs e):
    # grad's program skips computing it, value_and_grad's computes it.
    e = np.exp(a) * b
    return np.arctan2(np.sqrt(e), np.sqrt(1.0 + e)), np.sum(e)


def _uses_value(g, args):
    """Whether the compiled gradient program stores the returned array
    (after the lowering pipeline's first pass, which removes dead writes)."""
    with open(os.path.join(g.precompile(*args), "input.mlir")) as f:
        text = sdfg.native.run_passes(f.read(),
                                      ["--sdfg-eliminate-dead-writes"])
    grad_fn = text[text.index("sdfg.sdfg @py_field_energy_grad"):]
    return "%__return0[" in grad_fn


def test_value_and_grad_returns_the_value_and_grad_skips_it():
    rng = np.random.default_rng(3)
    a, b = rng.random((6, 5)), rng.random((6, 5))
    expected_value = field_energy(a, b)
    vg = sdfg.value_and_grad(field_energy, ["a", "b"], output="return:0")
    value, grads = vg(a, b)
    assert isinstance(value, tuple) and len(value) == 2
    np.testing.assert_allclose(value[0], expected_value[0], rtol=1e-14)
    np.testing.assert_allclose(value[1], expected_value[1], rtol=1e-14)
    g = sdfg.grad(field_energy, ["a", "b"], output="return:0")
    only = g(a, b)
    for w in ("a", "b"):
        np.testing.assert_allclose(only[w], grads[w], rtol=1e-15, atol=0)
    # Analytic: d/de arctan2(sqrt(e), sqrt(1+e))
    #   = 1 / (2 sqrt(e (1+e)) (1+2e)).
    e = np.exp(a) * b
    de = 1.0 / (2.0 * np.sqrt(e * (1.0 + e)) * (1.0 + 2.0 * e))
    np.testing.assert_allclose(only["a"], de * e, rtol=1e-12)
    np.testing.assert_allclose(only["b"], de * np.exp(a), rtol=1e-12)
    assert _uses_value(vg, (a, b))
    assert not _uses_value(g, (a, b))
    with pytest.raises(AttributeError, match="value_and_grad"):
        g.last_value


def test_value_and_grad_of_an_in_place_output_returning_none():
    A = np.linspace(0.0, 1.0, 12)

    def smooth(A, T):
        for t in range(T):
            A[1:-1] = 0.25 * A[:-2] + 0.5 * A[1:-1] * A[1:-1] + 0.25 * A[2:]

    value, grads = sdfg.value_and_grad(smooth, ["A"], output="A")(A, 2)
    assert value is None
    np.testing.assert_allclose(
        grads["A"], sdfg.grad(smooth, ["A"], output="A")(A, 2)["A"],
        rtol=1e-15, atol=0)


def data_bounds(x, counts):
    out = np.zeros(4)
    for i in range(4):
        for j in range(int(counts[i])):
            out[i] += x[j] * x[j]
        counts[i] = 0.0  # the bound's data changes after the loop
    return out


def test_loop_bounds_read_from_data_are_stored():
    x = np.linspace(0.5, 2.0, 6)
    counts = np.array([1.0, 3.0, 6.0, 2.0])
    g = sdfg.grad(data_bounds, ["x"])(x, counts)
    expected = np.zeros(6)
    for c in counts:
        expected[:int(c)] += 2 * x[:int(c)]
    np.testing.assert_allclose(g["x"], expected, rtol=1e-14)


def tanh_loss(x, w):
    return np.sum(np.tanh(x @ w))


def test_vjp_of_a_scalar_output_takes_a_float_seed():
    # The user guide's example; a 0-d seed was passed on as 1-d.
    rng = np.random.default_rng(8)
    x, w = rng.random((5, 4)), rng.random((4, 2))
    dy = 1.0 - np.tanh(x @ w) ** 2
    for seed in (2.5, np.float64(2.5), np.array(2.5)):
        g = sdfg.vjp(tanh_loss, ["x", "w"])(x, w, seed=seed)
        np.testing.assert_allclose(g["x"], 2.5 * dy @ w.T, rtol=1e-13)
        np.testing.assert_allclose(g["w"], 2.5 * x.T @ dy, rtol=1e-13)


def scaled(a, x):
    return a * x * x


def test_zero_dimensional_array_arguments_and_fortran_seeds():
    a, x = np.array(1.5), np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(sdfg.program(scaled)(a, x), a * x * x)
    g = sdfg.grad(scaled, ["a", "x"])(a, x)
    assert g["a"] == np.sum(x * x)
    np.testing.assert_array_equal(g["x"], 2.0 * a * x)
    seed = np.asfortranarray(np.arange(1.0, 7.0).reshape(2, 3))
    v = sdfg.vjp(scaled, ["x"])(a, x, seed=seed)
    np.testing.assert_array_equal(v["x"], 2.0 * a * x * seed)


def masked(x):
    m = ((x > 0.2) & (x < 0.8)) | (x > 0.95)
    return np.sum(np.where(m ^ (x > 0.7), x * x, 3.0 * x))


def test_gradient_through_boolean_masks():
    x = np.random.default_rng(9).random(40)
    m = (((x > 0.2) & (x < 0.8)) | (x > 0.95)) ^ (x > 0.7)
    g = sdfg.grad(masked, ["x"])(x)["x"]
    np.testing.assert_array_equal(g, np.where(m, 2.0 * x, 3.0))


def product(x):
    return np.prod(x)


def column_products(A, w):
    return np.sum(np.prod(A, axis=0) * w)


def test_gradient_of_products_with_zero_factors():
    # A factor's adjoint is the product of the others, also when some
    # factor is zero (division by it would give NaN).
    for x in ([1.5, 2.0, 3.0], [1.5, 0.0, 3.0], [0.0, 2.0, 0.0]):
        x = np.array(x)
        g = sdfg.grad(product, ["x"])(x)["x"]
        want = [np.prod(np.delete(x, i)) for i in range(3)]
        np.testing.assert_allclose(g, want, rtol=1e-15, atol=0)
    A = np.random.default_rng(4).random((4, 3)) + 0.5
    A[1, 2] = 0.0
    A[0, 1] = A[3, 1] = 0.0
    w = np.array([0.5, 1.0, 2.0])
    g = sdfg.grad(column_products, ["A", "w"])(A, w)
    want = [[np.prod(np.delete(A[:, j], i)) * w[j] for j in range(3)]
            for i in range(4)]
    np.testing.assert_allclose(g["A"], want, rtol=1e-14, atol=0)
    np.testing.assert_allclose(g["w"], np.prod(A, axis=0), rtol=1e-15)


def extremes(A):
    return np.sum(np.max(A, axis=1)) + np.min(A)


def test_ties_share_the_gradient_of_a_maximum():
    # As in JAX: the k elements equal to the maximum get 1/k each, so the
    # derivative along moving them all together is the true one.
    B = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5], [4.0, 4.0, 4.0]])
    g = sdfg.grad(extremes, ["A"])(B)["A"]
    want = np.array([[0.0, 0.5, 0.5], [0.5, 0.5, 1.0],
                     [1 / 3, 1 / 3, 1 / 3]])
    np.testing.assert_allclose(g, want, rtol=1e-15)
