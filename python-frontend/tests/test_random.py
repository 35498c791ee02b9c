"""np.random inside programs (numpy/random.py, docs/design/random.md):
np.random.default_rng(seed) and its methods, the legacy np.random.seed
functions; the stream checked bit for bit against a Python model of the
documented hash, its statistics, determinism across calls and thread
counts, fresh draws per loop iteration, gradients through noise."""

import math

import numpy as np
import pytest

import sdfg
from sdfg import threads

M = 2 ** 64
GAMMA = 0x9E3779B97F4A7C15


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M
    return z ^ (z >> 31)


def model_bits(seed, site, iters, j):
    """docs/design/random.md's 64 bits of element j of a draw."""
    state = _mix((seed + GAMMA) % M)
    for counter in [site] + list(iters) + [j]:
        state = _mix((state + (counter + 1) * GAMMA) % M)
    return state


def model_uniform(seed, site, iters, n):
    return np.array([(model_bits(seed, site, iters, j) >> 11) * 2.0 ** -53
                     for j in range(n)])


def model_normal(seed, site, iters, n):
    out = []
    for j in range(n):
        b = model_bits(seed, site, iters, j)
        u1 = (b >> 11) * 2.0 ** -53
        u2 = (_mix((b + GAMMA) % M) >> 11) * 2.0 ** -53
        out.append(math.sqrt(-2.0 * math.log1p(-u1))
                   * math.cos(2 * math.pi * u2))
    return np.array(out)


def model_integers(seed, site, iters, n, low, high):
    return np.array([low + (model_bits(seed, site, iters, j) * (high - low)
                            >> 64) for j in range(n)], dtype=np.int64)


@pytest.fixture
def restore_threads():
    before = threads._requested
    yield
    threads._requested = before


# --------------------------------------------------------------------------
# The stream, bit for bit
# --------------------------------------------------------------------------

def _four_draws(x, seed):
    rng = np.random.default_rng(seed)
    a = rng.random(x.shape)
    b = rng.standard_normal((3, 4))
    c = rng.integers(-5, 10, 7)
    d = rng.exponential(2.0, 4)
    return a, b, c, d


def test_stream_is_the_documented_hash():
    x = np.zeros((5, 6))
    a, b, c, d = sdfg.program(_four_draws)(x, 12345)
    np.testing.assert_array_equal(
        a, model_uniform(12345, 0, [], 30).reshape(5, 6))
    np.testing.assert_allclose(b, model_normal(12345, 1, [], 12).reshape(
        3, 4), rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(c, model_integers(12345, 2, [], 7, -5, 10))
    np.testing.assert_allclose(
        d, [-2.0 * math.log1p(-u) for u in model_uniform(12345, 3, [], 4)],
        rtol=1e-14)
    assert a.dtype == np.float64 and b.dtype == np.float64 and \
        c.dtype == np.int64


def _in_loop(x, T):
    rng = np.random.default_rng(3)
    out = np.zeros((T, 4))
    for t in range(T):
        out[t] = rng.random(4)
    return out


def test_loop_iterator_is_folded_into_the_draw():
    got = sdfg.program(_in_loop)(np.zeros(1), 5)
    want = np.stack([model_uniform(3, 0, [t], 4) for t in range(5)])
    np.testing.assert_array_equal(got, want)
    assert len({tuple(r) for r in got}) == 5  # fresh per iteration


def _seeded_in_loop(T):
    out = np.zeros((T, 3))
    for t in range(T):
        rng = np.random.default_rng(11)  # restarts every iteration
        out[t] = rng.random(3)
    return out


def test_generator_made_in_a_loop_restarts_each_iteration():
    got = sdfg.program(_seeded_in_loop)(4)
    np.testing.assert_array_equal(got, np.tile(model_uniform(11, 0, [], 3),
                                               (4, 1)))


def _made_in_one_loop_used_in_another(T):
    out = np.zeros((T, 2))
    for t in range(T):
        rng = np.random.default_rng(3)
        out[t] = rng.random(2)
    for s in range(T):
        out[s] += rng.random(2)  # fresh in each iteration of this loop
    return out


def test_generator_made_in_a_loop_draws_anew_in_a_later_loop():
    got = sdfg.program(_made_in_one_loop_used_in_another)(3)
    want = np.stack([model_uniform(3, 0, [], 2) + model_uniform(3, 1, [s], 2)
                     for s in range(3)])
    np.testing.assert_array_equal(got, want)


def _seed_from_loop(T):
    out = np.zeros((T, 3))
    for t in range(T):
        rng = np.random.default_rng(t)
        out[t] = rng.random(3)
    return out


def test_seed_computed_in_the_program():
    got = sdfg.program(_seed_from_loop)(3)
    want = np.stack([model_uniform(t, 0, [], 3) for t in range(3)])
    np.testing.assert_array_equal(got, want)


def _seed_from_data(seeds):
    out = np.zeros((3, 2))
    for i in range(3):
        rng = np.random.default_rng(seeds[i] * 2)
        out[i] = rng.random(2)
    return out


def test_seed_read_from_an_array():
    seeds = np.array([5, 0, 2 ** 40])
    got = sdfg.program(_seed_from_data)(seeds)
    want = np.stack([model_uniform(int(s) * 2, 0, [], 2) for s in seeds])
    np.testing.assert_array_equal(got, want)


def _nested(n):
    rng = np.random.default_rng(5)
    out = np.zeros((3, 2, n))
    for i in range(3):
        for j in range(2):
            out[i, j] = rng.random(n)
    return out


def test_nested_loops_fold_both_iterators():
    got = sdfg.program(_nested)(4)
    for i in range(3):
        for j in range(2):
            np.testing.assert_array_equal(got[i, j],
                                          model_uniform(5, 0, [i, j], 4))


# --------------------------------------------------------------------------
# Determinism and independence
# --------------------------------------------------------------------------

def _big(x, seed):
    rng = np.random.default_rng(seed)
    return (x + rng.standard_normal(x.shape), rng.random(x.shape),
            rng.random(x.shape))


def test_same_seed_same_values_across_calls_and_threads(restore_threads):
    x = np.zeros((300, 400))  # parallel maps
    prog = sdfg.program(_big)
    sdfg.set_num_threads(1)
    one = prog(x, 42)
    sdfg.set_num_threads(2)
    two = prog(x, 42)
    sdfg.set_num_threads(4)
    four = prog(x, 42)
    again = prog(x, 42)
    for got in (two, four, again):
        for g, o in zip(got, one):
            np.testing.assert_array_equal(g, o)


def test_different_seeds_and_draws_differ():
    x = np.zeros(1000)
    prog = sdfg.program(_big)
    a, u, _ = prog(x, 1)
    b, v, w = prog(x, 2)
    # Independent streams: no element equal, correlation near 0.
    assert not np.any(a == b) and not np.any(u == v)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.15
    assert abs(np.corrcoef(u, v)[0, 1]) < 0.15
    # Successive draws of one generator differ too.
    assert not np.any(v == w)
    assert abs(np.corrcoef(v, w)[0, 1]) < 0.15


def _noise(rng, n):
    return rng.random(n)


def _inlined_twice(n):
    rng = np.random.default_rng(6)
    a = _noise(rng, n)
    b = _noise(rng, n)
    return a, b, [rng.random(n) for _ in range(2)]


def test_each_inlined_call_and_unrolled_copy_draws_anew():
    a, b, c = sdfg.program(_inlined_twice)(4)
    np.testing.assert_array_equal(a, model_uniform(6, 0, [], 4))
    np.testing.assert_array_equal(b, model_uniform(6, 1, [], 4))
    np.testing.assert_array_equal(c[0], model_uniform(6, 2, [], 4))
    np.testing.assert_array_equal(c[1], model_uniform(6, 3, [], 4))


def _two_generators(n):
    r1 = np.random.default_rng(9)
    r2 = np.random.default_rng(9)
    return r1.random(n), r2.random(n), r1.random(n)


def test_generators_with_one_seed_give_one_stream():
    a, b, c = sdfg.program(_two_generators)(6)
    np.testing.assert_array_equal(a, b)  # as NumPy's
    assert not np.any(a == c)


# --------------------------------------------------------------------------
# Statistics (fixed seed: the bounds hold for these values, with margin)
# --------------------------------------------------------------------------

def _stats(n, seed):
    rng = np.random.default_rng(seed)
    return (rng.random(n), rng.standard_normal(n),
            rng.integers(0, 10, n), rng.exponential(2.0, n),
            rng.uniform(-3.0, 5.0, n), rng.normal(1.5, 0.5, n))


def _ks(sample, cdf):
    s = np.sort(sample)
    n = len(s)
    f = cdf(s)
    return max(np.max(np.arange(1, n + 1) / n - f),
               np.max(f - np.arange(n) / n))


def test_statistics():
    n = 10 ** 6
    u, z, k, e, w, g = sdfg.program(_stats)(n, 2024)
    tol = 5 / math.sqrt(n)  # five standard errors
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < tol * math.sqrt(1 / 12)
    assert abs(u.var() - 1 / 12) < 0.001
    assert abs(z.mean()) < tol and abs(z.var() - 1) < 0.01
    assert abs(e.mean() - 2.0) < 5 * tol * 2 and e.min() >= 0
    assert abs(w.mean() - 1.0) < 5 * tol * 8 and -3 <= w.min() and \
        w.max() < 5
    assert abs(g.mean() - 1.5) < tol and abs(g.std() - 0.5) < 0.005
    # Kolmogorov-Smirnov distances: 1.95 / sqrt(n) is the 0.1% level.
    ks = 1.95 / math.sqrt(n)
    assert _ks(u, lambda s: s) < ks
    phi = np.vectorize(lambda s: 0.5 * math.erfc(-s / math.sqrt(2)))
    assert _ks(z[:200000], phi) < 1.95 / math.sqrt(200000)
    assert _ks(e, lambda s: -np.expm1(-s / 2.0)) < ks
    # integers: the range, and a chi-square over the 10 values (27.9 is
    # the 0.1% critical value for 9 degrees of freedom).
    assert k.dtype == np.int64 and k.min() == 0 and k.max() == 9
    counts = np.bincount(k, minlength=10)
    chi2 = np.sum((counts - n / 10) ** 2 / (n / 10))
    assert chi2 < 27.9
    # A histogram of the normals against the bins' probabilities.
    edges = np.linspace(-4, 4, 33)
    counts, _ = np.histogram(z, edges)
    p = np.diff([0.5 * math.erfc(-s / math.sqrt(2)) for s in edges])
    chi2 = np.sum((counts - n * p) ** 2 / (n * p))
    assert chi2 < 61.1  # 31 degrees of freedom, 0.1%


def _wide_integers(n):
    rng = np.random.default_rng(1)
    return rng.integers(-2 ** 62, 2 ** 62, n), rng.integers(5, size=n), \
        rng.integers(1, 6, n, endpoint=True)


def test_integers_ranges():
    a, b, c = sdfg.program(_wide_integers)(20000)
    assert a.min() >= -2 ** 62 and a.max() < 2 ** 62
    assert (a < 0).mean() > 0.45 and (a < 0).mean() < 0.55
    assert set(np.unique(b)) == {0, 1, 2, 3, 4}
    assert set(np.unique(c)) == {1, 2, 3, 4, 5, 6}
    np.testing.assert_array_equal(
        a[:50], model_integers(1, 0, [], 50, -2 ** 62, 2 ** 62))


# --------------------------------------------------------------------------
# Shapes and dtypes as NumPy's
# --------------------------------------------------------------------------

def _shapes(x):
    rng = np.random.default_rng(0)
    return (rng.random(), rng.random(3), rng.random((2, 3)),
            rng.standard_normal(x.shape), rng.random(x.shape,
                                                     dtype=np.float32),
            rng.standard_normal(4, dtype=np.float32), rng.integers(0, 4),
            rng.integers(0, 4, (2, 2), dtype=np.int32),
            rng.normal(x, 1.0), rng.uniform(0.0, x[0]),
            rng.exponential(size=(1, 2)))


def test_shapes_and_dtypes_as_numpy():
    x = np.ones((2, 5))
    got = sdfg.program(_shapes)(x)
    want = _shapes(x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (g, w)
    f32 = got[4]
    assert f32.min() >= 0 and f32.max() < 1
    np.testing.assert_array_equal(
        f32.ravel(), [(model_bits(0, 4, [], j) >> 40) * 2.0 ** -24
                      for j in range(10)])


def _symbolic(x):
    rng = np.random.default_rng(8)
    return rng.random(x.shape)


def test_symbolic_extents():
    prog = sdfg.program(_symbolic, dynamic=True)
    for shape in ((3, 4), (5, 2)):
        got = prog(np.zeros(shape))
        np.testing.assert_array_equal(
            got.ravel(), model_uniform(8, 0, [], shape[0] * shape[1]))


def _legacy(n):
    np.random.seed(4)
    a = np.random.rand(2, n)
    b = np.random.randn(n)
    c = np.random.randint(0, 3, size=n)
    d = np.random.uniform(1.0, 2.0, n)
    return a, b, c, d


def test_legacy_seed_and_functions():
    a, b, c, d = sdfg.program(_legacy)(5)
    np.testing.assert_array_equal(a.ravel(), model_uniform(4, 0, [], 10))
    np.testing.assert_allclose(b, model_normal(4, 1, [], 5), rtol=1e-14,
                               atol=1e-15)
    np.testing.assert_array_equal(c, model_integers(4, 2, [], 5, 0, 3))
    np.testing.assert_array_equal(d, 1.0 + model_uniform(4, 3, [], 5))
    assert a.shape == (2, 5) and c.dtype == np.int64


# --------------------------------------------------------------------------
# The docstring example, and gradients through noise
# --------------------------------------------------------------------------

def simulate(x, seed, T):
    rng = np.random.default_rng(seed)
    for t in range(T):
        x += 0.1 * rng.standard_normal(x.shape)
    return x


def test_simulate():
    x = np.ones(6)
    got = sdfg.program(simulate)(x.copy(), 17, 4)
    want = np.ones(6)
    for t in range(4):
        want += 0.1 * model_normal(17, 0, [t], 6)
    np.testing.assert_allclose(got, want, rtol=1e-14)


def noisy(x, w, seed):
    rng = np.random.default_rng(seed)
    h = np.tanh(x * w + 0.3 * rng.standard_normal(x.shape))
    for t in range(3):
        h = h + rng.normal(h * w, 0.2) * rng.uniform(0.5, 1.5, h.shape)
    return np.sum(h ** 2) + np.sum(rng.exponential(w))


def _fd(prog, args, k, h=1e-6):
    x = args[k]
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[j] = h
        up, down = list(args), list(args)
        up[k], down[k] = x + e, x - e
        g[j] = (prog(*up) - prog(*down)) / (2 * h)
    return g


@pytest.mark.parametrize("strategy", ["store-all", "recompute-all"])
def test_gradient_through_noise_matches_finite_differences(strategy):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 4)), rng.uniform(0.5, 1.0, (3, 4))
    prog = sdfg.program(noisy)
    grads = sdfg.grad(noisy, ["x", "w"], strategy=strategy)(x, w, 99)
    for k, name in ((0, "x"), (1, "w")):
        fd = _fd(prog, [x, w, 99], k)
        np.testing.assert_allclose(grads[name], fd, rtol=1e-6, atol=1e-8)


def test_gradient_program_sees_the_forward_stream():
    # The value a gradient call returns with has_aux is the forward
    # program's, noise included.
    def loss(x, seed):
        rng = np.random.default_rng(seed)
        y = x + rng.standard_normal(x.shape)
        return np.sum(y ** 2), y

    x = np.linspace(-1, 1, 5)
    grads, y = sdfg.grad(loss, ["x"], has_aux=True)(x, 7)
    np.testing.assert_allclose(y, x + model_normal(7, 0, [], 5),
                               rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(grads["x"], 2 * y, rtol=1e-14)


# --------------------------------------------------------------------------
# What is refused
# --------------------------------------------------------------------------

def _float_seed(x):
    rng = np.random.default_rng(x)
    return rng.random(3)


def _array_seed(k):
    rng = np.random.default_rng(k)
    return rng.random(3)


def _no_seed(n):
    rng = np.random.default_rng()
    return rng.random(n)


def _bad_method(n):
    rng = np.random.default_rng(1)
    return rng.poisson(3.0, n)


def _passed_in(rng, n):
    return rng.random(n)


def _in_while(n):
    rng = np.random.default_rng(1)
    s = 0.0
    while s < 3.0:
        s += rng.random()
    return s


def _unseeded_legacy(n):
    return np.random.rand(n)


def _other_numpy_random(n):
    return np.random.poisson(1.0, n)


def _in_branch(n, x):
    out = np.zeros(n)
    if x[0] > 0:
        rng = np.random.default_rng(1)
        out = rng.random(n)
    return out


def _rebound_in_loop(n, T):
    rng = np.random.default_rng(1)
    out = np.zeros(n)
    for t in range(T):
        out += rng.random(n)
        rng = np.random.default_rng(t)
    return out


def _runtime_high(n, k):
    rng = np.random.default_rng(1)
    return rng.integers(0, k[0], n)


def _empty_range(n):
    rng = np.random.default_rng(1)
    return rng.integers(3, 3, n)


def _negative_seed(n):
    rng = np.random.default_rng(-1)
    return rng.random(n)


def _int_dtype_random(n):
    rng = np.random.default_rng(1)
    return rng.random(n, dtype=np.int64)


def _seed_in_loop(n, T):
    out = np.zeros(n)
    for t in range(T):
        np.random.seed(t)
        out += np.random.rand(n)
    return out


def _params_too_big(x):
    rng = np.random.default_rng(1)
    return rng.normal(x, 2.0, size=(4,))


def _returns_generator(n):
    return np.random.default_rng(1)


@pytest.mark.parametrize("fn, args, match", [
    (_float_seed, (1.5,), "seed of type float|seed that is a float64"),
    (_float_seed, (np.ones(3),), "seed that is an array"),
    (_array_seed, (np.arange(3),), "seed that is an array"),
    (_no_seed, (3,), "without a seed"),
    (_bad_method, (3,), "Generator attribute 'poisson'"),
    (_in_while, (3,), "random draw in a while loop"),
    (_unseeded_legacy, (3,), "without np.random.seed"),
    (_other_numpy_random, (3,), "np.random.poisson"),
    (_in_branch, (3, np.ones(2)), "default_rng in a branch"),
    (_rebound_in_loop, (3, 4), "'rng' rebound to a Generator in a loop "
                               "that reads it before"),
    (_runtime_high, (3, np.arange(2, 4)),
     "integers\\(\\) with high that is not an integer known when "
     "compiling"),
    (_empty_range, (3,), "low >= high"),
    (_negative_seed, (3,), "seed must be non-negative"),
    (_int_dtype_random, (3,), "unsupported dtype int64"),
    (_seed_in_loop, (3, 2), "np.random.seed in a loop"),
    (_params_too_big, (np.zeros((3, 4)),), "shape mismatch: the "
     "parameters do not broadcast to size \\(4\\)"),
    (_returns_generator, (3,), "Generator"),
])
def test_refused(fn, args, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(*args)


def test_generator_passed_in_is_refused():
    with pytest.raises((sdfg.FrontendError, TypeError),
                       match="Generator"):
        sdfg.program(_passed_in)(np.random.default_rng(0), 3)


def test_tangent_through_noise_matches_finite_differences():
    x = np.linspace(0.1, 1.0, 6)
    w = np.full(6, 0.7)
    v = np.cos(np.arange(6.0))
    val, tan = sdfg.jvp(noisy, (x, w, 5), (v, None, None))
    prog = sdfg.program(noisy)
    h = 1e-6
    fd = (prog(x + h * v, w, 5) - prog(x - h * v, w, 5)) / (2 * h)
    np.testing.assert_allclose(val, prog(x, w, 5), rtol=1e-14)
    np.testing.assert_allclose(tan, fd, rtol=1e-6)
