"""Gradients whose loop adds a rank-one update to a large matrix every
iteration (sdfg-batch-outer-products gathers them into one matmul): the
gradient against central finite differences, and the batching itself."""

import numpy as np
import pytest

import sdfg
from sdfg import native


def logreg(X, y, w, lr, iters):
    n = X.shape[0]
    for it in range(iters):
        z = X @ w
        p = 1.0 / (1.0 + np.exp(-z))
        grad = X.T @ (p - y) / n
        w -= lr * grad
    return np.sum(X @ w)


def logreg_stride(X, y, w, lr, iters):
    # Every second iteration: the batched rows index (it - 1) / 2.
    n = X.shape[0]
    for it in range(1, iters, 2):
        z = X @ w
        p = 1.0 / (1.0 + np.exp(-z))
        grad = X.T @ (p - y) / n
        w -= lr * grad * it
    return np.sum(X @ w)


# 8192 x 128 doubles: 8 MiB, the smallest matrix the pass batches.
ROWS, COLS = 8192, 128


def inputs(iters):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((ROWS, COLS)) / np.sqrt(COLS)
    y = (rng.random(ROWS) > 0.5).astype(np.float64)
    w = rng.standard_normal(COLS) * 0.1
    return X, y, w, 0.5, iters


def directional_fd(fn, args, dX, dw, h=1e-6):
    X, y, w, lr, iters = args

    def f(s):
        return fn(X + s * dX, y, w.copy() + s * dw, lr, iters)
    return (f(h) - f(-h)) / (2 * h)


def batched_ir(fn, args):
    """The gradient program after the lowering pipeline's sdfg passes."""
    text = sdfg.to_mlir(fn, *args)
    return native.run_passes(text, [
        "--sdfg-autodiff=output=__return0 wrt=X,w",
        "--sdfg-eliminate-dead-writes", "--sdfg-batch-outer-products"])


# 200 iterations, two updates each of 8192 + 128 elements: blocks of 50
# fit the buffers (50 * 2 * 8320 <= 8192 * 128), added every 50th
# iteration; 10 iterations fit whole, added after the loop.
@pytest.mark.parametrize("fn,iters,rows,inside", [
    (logreg, 200, 100, True),
    (logreg, 10, 20, False),
    (logreg_stride, 21, 20, False),
])
def test_batched_gradient_matches_finite_differences(fn, iters, rows,
                                                     inside):
    args = inputs(iters)
    ir = batched_ir(fn, args)
    assert f"memref<{rows}x{ROWS}xf64>" in ir
    assert ir.count("sdfg.ger") == 0
    # The product sits under the iteration test only when blocks repeat.
    assert ("sdfg.if" in ir) == inside
    g = sdfg.grad(fn, wrt=["X", "w"])(*args)
    rng = np.random.default_rng(11)
    dX = rng.standard_normal((ROWS, COLS))
    dw = rng.standard_normal(COLS)
    fd = directional_fd(fn, args, dX, dw)
    ad = np.sum(g["X"] * dX) + np.sum(g["w"] * dw)
    assert ad == pytest.approx(fd, rel=1e-6)


def test_small_matrix_is_not_batched():
    # 4000 x 50 (1.6 MB) stays in cache: the updates become maps.
    rng = np.random.default_rng(3)
    args = (rng.standard_normal((4000, 50)), np.ones(4000),
            np.zeros(50), 0.5, 5)
    ir = batched_ir(logreg, args)
    assert "outer_rows" not in ir and "sdfg.ger" not in ir


def test_batched_gradient_on_gpu_emulator_matches_cpu():
    args = inputs(4)
    cpu = sdfg.grad(logreg, wrt=["X", "w"])(*args)
    emu = sdfg.grad(logreg, wrt=["X", "w"], device="gpu-emulator")(*args)
    for name in ("X", "w"):
        np.testing.assert_allclose(emu[name], cpu[name], rtol=1e-12,
                                   atol=1e-14)


def test_memory_limit_leaves_no_room_for_buffers():
    # At the store-all peak as the limit nothing is left for the buffers:
    # the updates stay per iteration, and the gradient is the same.
    args = inputs(10)
    g = sdfg.grad(logreg, wrt=["X", "w"], strategy="store-all")
    free = g(*args)
    assert "limit_bytes" not in g.checkpoint
    limit = g.checkpoint["peak_bytes"] / 2**20 * 1.0001
    text = sdfg.to_mlir(logreg, *args)
    ir = native.run_passes(text, [
        "--sdfg-autodiff=output=__return0 wrt=X,w",
        f"--sdfg-checkpoint=mem={limit}",
        "--sdfg-eliminate-dead-writes", "--sdfg-batch-outer-products"])
    assert "outer_rows" not in ir and "sdfg.matmul" not in ir
    capped = sdfg.grad(logreg, wrt=["X", "w"], mem=limit)(*args)
    for name in ("X", "w"):
        # Equal up to the reassociated sums of the batched (free) one.
        np.testing.assert_allclose(capped[name], free[name], rtol=1e-10,
                                   atol=1e-15)
