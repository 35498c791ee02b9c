"""Deep-learning layers as their users write them in NumPy: stacks of
matrices multiplied with @ (attention heads, projections of batches,
broadcast batch dimensions), forward against NumPy and gradients against
finite differences."""

import re

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def attention(Q, K, V):
    # Scaled dot-product attention over a batch of heads.
    s = Q @ np.transpose(K, (0, 2, 1)) / np.sqrt(Q.shape[-1])
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    p = e / np.sum(e, axis=-1, keepdims=True)
    return np.sum((p @ V) ** 2)


def projected_batch(X, W, b):
    # A dense layer on a (batch, sequence, features) stack.
    return np.sum(np.tanh(X @ W + b))


def stack_times_vector(A, x):
    return np.sum((A @ x) ** 2) + np.sum((x @ A) ** 2)


def broadcast_batches(A, B):
    # (2, 1, 3, 4) @ (5, 4, 2): batch dimensions broadcast to (2, 5).
    return np.sum((A @ B) ** 2)


def transformer_block(X, Wq, Wk, Wv, Wo):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ np.transpose(K, (0, 2, 1))
    e = np.exp(s - np.max(s, axis=-1, keepdims=True))
    h = (e / np.sum(e, axis=-1, keepdims=True)) @ V
    y = X + np.maximum(h @ Wo, 0.0)
    mu = np.mean(y, axis=-1, keepdims=True)
    var = np.mean((y - mu) ** 2, axis=-1, keepdims=True)
    return np.sum(((y - mu) / np.sqrt(var + 1e-5)) ** 3)


CASES = [
    (attention, lambda r: (r.random((2, 5, 4)), r.random((2, 6, 4)),
                           r.random((2, 6, 3)))),
    (projected_batch, lambda r: (r.random((3, 5, 4)), r.random((4, 2)),
                                 r.random(2))),
    (stack_times_vector, lambda r: (r.random((2, 4, 4)), r.random(4))),
    (broadcast_batches, lambda r: (r.random((2, 1, 3, 4)),
                                   r.random((5, 4, 2)))),
    (transformer_block, lambda r: (r.random((2, 5, 4)),) + tuple(
        r.random((4, 4)) - 0.5 for _ in range(4))),
]
IDS = [c[0].__name__ for c in CASES]


def _assert_gradient_matches_fd(fn, args, seed):
    """sdfg.grad w.r.t. every argument against a central finite difference
    along a random direction."""
    names = list(fn.__code__.co_varnames[:len(args)])
    g = sdfg.grad(fn, names)(*args)
    rng = np.random.default_rng(seed)
    dirs = [rng.standard_normal(a.shape) for a in args]
    h = 1e-6
    fd = (fn(*[a + h * d for a, d in zip(args, dirs)]) -
          fn(*[a - h * d for a, d in zip(args, dirs)])) / (2 * h)
    ad = sum(float(np.sum(g[n] * d)) for n, d in zip(names, dirs))
    assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_forward_matches_numpy(fn, inputs):
    args = inputs(np.random.default_rng(0))
    np.testing.assert_allclose(sdfg.program(fn)(*args), fn(*args),
                               rtol=1e-12)


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_gradient_matches_finite_differences(fn, inputs):
    args = inputs(np.random.default_rng(1))
    _assert_gradient_matches_fd(fn, args, seed=2)


def test_stacked_matmul_shapes_follow_numpy():
    def f(A, B):
        return A @ B

    rng = np.random.default_rng(3)
    for a, b in [((4,), (3, 4, 2)), ((3, 2, 4), (4,)),
                 ((5, 1, 2, 4), (3, 4, 6))]:
        A, B = rng.random(a), rng.random(b)
        got = sdfg.program(f)(A, B)
        assert got.shape == (A @ B).shape
        np.testing.assert_allclose(got, A @ B, rtol=1e-13)


def test_dot_of_stacks_is_rejected():
    # np.dot contracts differently from @ beyond two dimensions.
    def f(A, B):
        return np.dot(A, B)

    with pytest.raises(sdfg.FrontendError,
                       match=r"np.dot of arrays with more than two "
                             r"dimensions.*use @"):
        sdfg.program(f)(np.ones((2, 3, 4)), np.ones((4, 2)))


def test_contracted_extents_must_agree():
    def f(A, B):
        return A @ B

    with pytest.raises(sdfg.FrontendError,
                       match=r"mismatch in the contracted dimension"):
        sdfg.program(f)(np.ones((2, 3, 4)), np.ones((5, 2)))


def shared_left(W, X):
    # A matrix applied to every entry of a stack: 2-d @ 3-d.
    return np.sum(np.sin(W @ X))


def stacked_products(A, B, C):
    # 3-d @ 3-d, a transposed stack, and a stack times a matrix.
    return np.sum((A @ np.transpose(B, (0, 2, 1))) @ C)


@pytest.mark.parametrize("fn,inputs", [
    (shared_left, lambda r: (r.random((3, 4)) - 0.5, r.random((5, 4, 2)))),
    (stacked_products, lambda r: (r.random((4, 3, 5)), r.random((4, 6, 5)),
                                  r.random((6, 2)))),
    (projected_batch, lambda r: (r.random((3, 5, 4)), r.random((4, 2)),
                                 r.random(2))),
    (attention, CASES[0][1]),
], ids=["shared_left", "stacked_products", "projected_batch", "attention"])
def test_stacks_of_matrices_call_blas(fn, inputs):
    # Stacks times matrices or stacks of the same length are batched GEMMs
    # (BLAS), forward and backward, not fused reductions.
    args = inputs(np.random.default_rng(4))
    text = sdfg.to_mlir(fn, *args)
    assert re.search(r"sdfg\.matmul .*memref<\d+x\d+x\d+xf64>", text), text
    np.testing.assert_allclose(sdfg.program(fn)(*args), fn(*args),
                               rtol=1e-12)
    _assert_gradient_matches_fd(fn, args, seed=5)


@pytest.mark.parametrize("fn,inputs", [
    (shared_left, lambda r: (r.random((3, 4)) - 0.5, r.random((5, 4, 2)))),
    (stacked_products, lambda r: (r.random((4, 3, 5)), r.random((4, 6, 5)),
                                  r.random((6, 2)))),
], ids=["shared_left", "stacked_products"])
def test_batched_gemms_on_the_gpu_emulator(fn, inputs):
    # The GPU program's batched cuBLAS calls (entry offsets computed on the
    # host) run on the emulator against the CPU's.
    args = inputs(np.random.default_rng(6))
    np.testing.assert_allclose(
        sdfg.program(fn, device="gpu-emulator")(*args),
        sdfg.program(fn)(*args), rtol=1e-13)
    names = list(fn.__code__.co_varnames[:len(args)])
    got = sdfg.grad(fn, names, device="gpu-emulator")(*args)
    want = sdfg.grad(fn, names)(*args)
    for n in names:
        np.testing.assert_allclose(got[n], want[n], rtol=1e-12, atol=1e-14)


def scaled_products(A, B, C, x):
    # Constant factors fold into the GEMM's alpha; a runtime one (x) and
    # integer products do not.
    n = A.shape[1]
    return (np.sum(np.sin(A @ B / np.sqrt(n))) + np.sum(2.5 * (A @ B))
            + np.sum((C @ np.transpose(C, (0, 2, 1))) * 0.5)
            + np.sum(A @ B / x))


def test_constant_factors_fold_into_gemms():
    r = np.random.default_rng(7)
    args = (r.random((4, 3)), r.random((3, 5)), r.random((2, 3, 4)), 3.0)
    text = sdfg.to_mlir(scaled_products, *args)
    alphas = re.findall(r"alpha = ([-0-9.e]+) : f64", text)
    assert sorted(float(a) for a in alphas) == sorted(
        [1 / np.sqrt(3), 2.5, 0.5]), text
    np.testing.assert_allclose(sdfg.program(scaled_products)(*args),
                               scaled_products(*args), rtol=1e-13)
    g = sdfg.grad(scaled_products, ["A", "B", "C"])(*args)
    rng = np.random.default_rng(8)
    dirs = {k: rng.standard_normal(v.shape)
            for k, v in zip("ABC", args[:3])}
    h = 1e-6

    def at(s):
        A, B, C = (a + s * h * dirs[k] for k, a in zip("ABC", args[:3]))
        return scaled_products(A, B, C, args[3])

    fd = (at(1) - at(-1)) / (2 * h)
    ad = sum(float(np.sum(g[k] * dirs[k])) for k in "ABC")
    assert abs(fd - ad) <= 1e-8 * max(abs(fd), 1.0), (fd, ad)

    def integers(A, B):
        return A @ B * 2

    Ai, Bi = np.arange(6).reshape(2, 3), np.arange(6).reshape(3, 2)
    got = sdfg.program(integers)(Ai, Bi)
    assert got.dtype == (Ai @ Bi * 2).dtype
    np.testing.assert_array_equal(got, Ai @ Bi * 2)
