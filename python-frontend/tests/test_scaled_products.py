"""Scalar factors of matrix-product operands (numpy/products.py, _scale_after):
`(s * A) @ x` is computed as `s * (A @ x)` when the product is no larger
than the scaled operand, so BLAS reads the argument itself. Forward
against NumPy (to rounding: the order of the scaling differs), gradients
against central finite differences in float64, and the emitted program."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def gesummv(alpha, beta, A, B, x):
    return alpha * A @ x + beta * B @ x


def scaled_forms(alpha, A, B, x):
    # Left and right factors, constants, a transposed view, a vector on
    # the left; (2 * A) @ B keeps its order (B is wider than A: the
    # product is larger than the scaled operand).
    y = (A * alpha) @ x
    z = A.T @ (x[:5] * alpha) + x[:5] @ (3.0 * A)
    C = (2.0 * A) @ B
    D = (alpha * B.T) @ (0.5 * A.T)
    return np.sum(y * y) + np.sum(z ** 3) + np.sum(np.tanh(C)) + \
        np.sum(D ** 2)


def total_gesummv(alpha, beta, A, B, x):
    return np.sum(np.sin(alpha * A @ x + beta * B @ x))


@pytest.mark.parametrize("fn,make", [
    (total_gesummv, lambda r: (1.5, -0.7, r.standard_normal((9, 7)),
                               r.standard_normal((9, 7)),
                               r.standard_normal(7))),
    (scaled_forms, lambda r: (1.3, r.standard_normal((5, 6)),
                              r.standard_normal((6, 8)),
                              r.standard_normal(6))),
])
def test_scaled_products_forward_and_gradient(fn, make):
    rng = np.random.default_rng(4)
    args = make(rng)
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    wrt = [n for n, a in zip(names, args) if isinstance(a, np.ndarray)]
    np.testing.assert_allclose(sdfg.program(fn)(*args), fn(*args),
                               rtol=1e-13)
    g = sdfg.grad(fn, wrt)(*args)
    h = 1e-6
    for _ in range(2):
        dirs = {n: rng.standard_normal(a.shape)
                for n, a in zip(names, args) if n in wrt}

        def moved(sign):
            return [a + sign * h * dirs[n] if n in dirs else a
                    for n, a in zip(names, args)]
        fd = (fn(*moved(1)) - fn(*moved(-1))) / (2 * h)
        ad = sum(float(np.sum(g[n] * dirs[n])) for n in wrt)
        assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


def test_blas_reads_the_arguments():
    rng = np.random.default_rng(0)
    A, B, x = (rng.standard_normal((6, 6)), rng.standard_normal((6, 6)),
               rng.standard_normal(6))
    text = sdfg.to_mlir(gesummv, 1.5, 1.2, A, B, x)
    # No scaled copy of either matrix: the gemvs read A and B, and the
    # factors scale the two vectors.
    assert "sdfg.gemv %A, %x" in text and "sdfg.gemv %B, %x" in text
    assert "memref<6x6xf64>" not in text.split("sdfg.state")[0].split(
        "__return0")[1]
    np.testing.assert_allclose(sdfg.program(gesummv)(1.5, 1.2, A, B, x),
                               gesummv(1.5, 1.2, A, B, x), rtol=1e-14)
