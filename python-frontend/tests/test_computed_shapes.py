"""Array shapes computed from the arguments' shapes and ints, as a
convolutional layer writes them (`np.empty((N, H - K + 1, W - K + 1, F))`):
forward against NumPy with sizes compiled in and as symbols, gradients
against finite differences."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def conv_layer(x, w, b):
    N, H, W, C = x.shape
    K, _, _, F = w.shape
    out = np.empty((N, H - K + 1, W - K + 1, F))
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            patch = x[:, i:i + K, j:j + K, :]
            out[:, i, j, :] = np.tensordot(
                patch, w, axes=([1, 2, 3], [0, 1, 2])) + b
    return np.maximum(out, 0.0)


def pooled(x, p):
    n = x.shape[0] // p
    out = np.zeros((n, x.shape[1] - 1))
    for i in range(n):
        out[i] = x[i * p:(i + 1) * p, 1:].max(axis=0)
    return out


def loss(x, w, b):
    return np.sum(conv_layer(x, w, b) ** 2)


def _inputs(rng, n, h, w):
    return (rng.standard_normal((n, h, w, 3)),
            0.3 * rng.standard_normal((3, 3, 3, 4)),
            0.1 * rng.standard_normal(4))


@pytest.mark.parametrize("dynamic", [False, True])
def test_conv_shapes_follow_the_arguments(dynamic):
    rng = np.random.default_rng(0)
    prog = sdfg.program(conv_layer, dynamic=dynamic)
    for n, h, w in [(2, 9, 10), (3, 11, 12)]:
        args = _inputs(rng, n, h, w)
        got, want = prog(*args), conv_layer(*args)
        assert got.shape == want.shape == (n, h - 2, w - 2, 4)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dynamic", [False, True])
def test_shape_from_an_int_argument(dynamic):
    rng = np.random.default_rng(1)
    prog = sdfg.program(pooled, dynamic=dynamic)
    for rows, p in [(12, 3), (20, 4)]:
        x = rng.random((rows, 5))
        np.testing.assert_array_equal(prog(x, p), pooled(x, p))


def test_gradient():
    rng = np.random.default_rng(2)
    args = _inputs(rng, 2, 6, 7)
    grads = sdfg.grad(loss, argnums=(0, 1, 2))(*args)
    h = 1e-6
    for k, g in enumerate(grads):
        d = rng.standard_normal(args[k].shape)
        up = list(args)
        down = list(args)
        up[k] = args[k] + h * d
        down[k] = args[k] - h * d
        fd = (loss(*up) - loss(*down)) / (2 * h)
        assert abs(np.sum(g * d) - fd) <= 1e-6 * max(abs(fd), 1.0)
