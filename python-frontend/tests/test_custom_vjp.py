"""sdfg.custom_vjp: user-written reverse rules for helpers called inside
compiled programs (JAX's jax.custom_vjp). The rules here are chosen so
that using them gives gradients that differ from differentiating the
helper (a clipped or straight-through gradient), or are exact and
checked against finite differences."""

import numpy as np
import pytest

import sdfg

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


@sdfg.custom_vjp
def clip_gradient(x, lo, hi):
    return x * 1.0


def clip_fwd(x, lo, hi):
    return x * 1.0, (lo, hi)


def clip_bwd(res, g):
    lo, hi = res
    return (np.clip(g, lo, hi), None, None)


clip_gradient.defvjp(clip_fwd, clip_bwd)


def clipped_loss(x, w):
    y = clip_gradient(np.sin(x) * w, -0.5, 0.5)
    return np.sum(y ** 2)


RNG = np.random.default_rng(0)
X = RNG.standard_normal(6)
W = 3.0 * np.ones(6)


def test_the_users_rule_replaces_the_derivative():
    assert sdfg.program(clipped_loss)(X, W) == pytest.approx(
        clipped_loss(X, W), rel=1e-14)
    g = sdfg.grad(clipped_loss)(X, W)
    y = np.sin(X) * W
    gy = np.clip(2 * y, -0.5, 0.5)  # the rule, not 2 y
    assert np.any(np.abs(2 * y) > 0.5)  # the clip changes something
    np.testing.assert_allclose(g["x"], gy * W * np.cos(X), rtol=1e-13)
    np.testing.assert_allclose(g["w"], gy * np.sin(X), rtol=1e-13)
    # Called from Python, the object is the function.
    np.testing.assert_array_equal(clip_gradient(X, 0, 1), X)


@sdfg.custom_vjp
def safe_log(x):
    return np.log(x)


def safe_log_fwd(x):
    y = np.log(x)
    return y, (x,)


def safe_log_bwd(res, g):
    (x,) = res
    return (g / np.maximum(x, 1e-3),)


safe_log.defvjp(safe_log_fwd, safe_log_bwd)


def log_sum(x):
    s = 0.0
    for t in range(3):
        s = s + np.sum(safe_log(x + 0.5 * t))
    return s


def test_in_a_loop_exact_rule_against_finite_differences():
    x = np.abs(np.random.default_rng(1).standard_normal(4)) + 0.5
    assert sdfg.program(log_sum)(x) == pytest.approx(log_sum(x), rel=1e-14)
    g = sdfg.grad(log_sum, argnums=0)(x)
    np.testing.assert_allclose(g, fd_gradient(log_sum, [x], 0), rtol=1e-7)
    # Where the rule clamps, it is the rule that counts.
    tiny = np.array([1e-5, 1.0])
    np.testing.assert_allclose(sdfg.grad(safe_log_sum1, argnums=0)(tiny),
                               [1e3, 1.0], rtol=1e-13)


def safe_log_sum1(x):
    return np.sum(safe_log(x))


@sdfg.custom_vjp
def softplus(x):
    return np.log1p(np.exp(x))


def softplus_fwd(x):
    e = np.exp(x)
    return np.log1p(e), (e / (1.0 + e),)   # a residual computed here


def softplus_bwd(res, g):
    (sig,) = res
    return (g * sig,)


softplus.defvjp(softplus_fwd, softplus_bwd)


def step_loop(u, a):
    for _ in range(4):
        u = softplus(a * u) - 0.5
    return np.sum(u * u)


def test_residuals_computed_by_fwd_and_overwritten_inputs():
    # fwd's residual is not one of its arguments: it is computed again in
    # the backward program; u is overwritten every iteration, so each
    # call's input is restored for its rule.
    rng = np.random.default_rng(2)
    u, a = rng.standard_normal(5), rng.standard_normal(5)
    assert sdfg.program(step_loop)(u, a) == pytest.approx(step_loop(u, a),
                                                          rel=1e-13)
    g = sdfg.grad(step_loop)(u, a)
    np.testing.assert_allclose(g["u"], fd_gradient(step_loop, [u, a], 0),
                               rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(g["a"], fd_gradient(step_loop, [u, a], 1),
                               rtol=1e-7, atol=1e-10)
    # And under a memory limit (the checkpointing plans around the call).
    gm = sdfg.grad(step_loop, mem=0.001, strategy="recompute-all")(u, a)
    np.testing.assert_allclose(gm["u"], g["u"], rtol=1e-13)


@sdfg.custom_vjp
def solve(A, b):
    return np.linalg.solve(A, b)


def solve_fwd(A, b):
    x = np.linalg.solve(A, b)
    return x, (A, x)


def solve_bwd(res, g):
    A, x = res
    lam = np.linalg.solve(A.T, g)
    return (-np.outer(lam, x), lam)


solve.defvjp(solve_fwd, solve_bwd)


def implicit(A, b, c):
    return np.dot(c, solve(A, b))


def test_implicit_function_rule_with_a_solve():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    b, c = rng.standard_normal(4), rng.standard_normal(4)
    assert sdfg.program(implicit)(A, b, c) == pytest.approx(
        implicit(A, b, c), rel=1e-13)
    g = sdfg.grad(implicit, wrt=["A", "b"])(A, b, c)
    np.testing.assert_allclose(g["A"], fd_gradient(implicit, [A, b, c], 0),
                               rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(g["b"], fd_gradient(implicit, [A, b, c], 1),
                               rtol=1e-7, atol=1e-10)
    # A singular matrix in the helper is NumPy's error, as in the caller.
    with pytest.raises(np.linalg.LinAlgError):
        sdfg.program(implicit)(np.zeros((4, 4)), b, c)


def test_a_new_rule_compiles_again():
    @sdfg.custom_vjp
    def double(x):
        return 2.0 * x

    def fwd(x):
        return 2.0 * x, ()

    def bwd_two(res, g):
        return (2.0 * g,)

    def bwd_three(res, g):
        return (3.0 * g,)

    def f(x):
        return np.sum(double(x))
    x = np.ones(3)
    double.defvjp(fwd, bwd_two)
    np.testing.assert_array_equal(sdfg.grad(f, argnums=0)(x), [2.0] * 3)
    double.defvjp(fwd, bwd_three)
    np.testing.assert_array_equal(sdfg.grad(f, argnums=0)(x), [3.0] * 3)


@sdfg.custom_vjp
def no_rule(x):
    return x + 1.0


@sdfg.custom_vjp
def bad_tuple(x):
    return x + 1.0


def plus_one_fwd(x):
    return x + 1.0, ()


def untupled_bwd(res, g):
    return g


bad_tuple.defvjp(plus_one_fwd, untupled_bwd)


@sdfg.custom_vjp
def bad_shape(x):
    return x + 1.0


def wrong_shape_bwd(res, g):
    return (np.sum(g) * np.ones(2),)


bad_shape.defvjp(plus_one_fwd, wrong_shape_bwd)


@sdfg.custom_vjp
def pair(x):
    return x, x


def pair_fwd(x):
    return (x, x), ()


def pair_bwd(res, g):
    return (g,)


pair.defvjp(pair_fwd, pair_bwd)


def uses_no_rule(x):
    return np.sum(no_rule(x))


def uses_bad_tuple(x):
    return np.sum(bad_tuple(x))


def uses_bad_shape(x):
    return np.sum(bad_shape(x))


def uses_pair(x):
    a, b = pair(x)
    return np.sum(a)


def test_errors():
    x = np.ones(3)
    with pytest.raises(sdfg.FrontendError, match=r"no rule yet: call "
                       r"no_rule.defvjp\(fwd, bwd\)"):
        sdfg.program(uses_no_rule)(x)
    with pytest.raises(sdfg.FrontendError, match="bwd of custom_vjp function "
                       "'bad_tuple' must return a tuple with one cotangent "
                       r"per argument of the function \(1\), as JAX's; it "
                       "returns one value"):
        sdfg.grad(uses_bad_tuple)(x)
    with pytest.raises(sdfg.FrontendError, match=r"gives a cotangent of "
                       r"shape \(2,\) for 'x', whose shape is \(3,\)"):
        sdfg.grad(uses_bad_shape)(x)
    with pytest.raises(sdfg.FrontendError, match="returning other than one "
                       "new array"):
        sdfg.program(uses_pair)(x)
    with pytest.raises(sdfg.FrontendError, match="custom_vjp function on "
                       "the GPU"):
        sdfg.program(uses_bad_shape, device="gpu-emulator")(x)
    # Forward mode has no rule for it, as JAX's custom_vjp has none.
    with pytest.raises(sdfg.ToolError, match="forward mode has no tangent "
                       "rule for this op"):
        sdfg.jvp(clipped_loss, (X, W), (X, None))
