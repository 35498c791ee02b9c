"""Stencil reversals, whose accumulations into neighbouring elements the
CPU lowering turns into gather loops with head and tail loops
(AccumulationNests.cpp): gradients against analytic values at sizes where
the gather range is empty, one element, or most of the array, run
sequentially and in parallel."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def three_point(A, W):
    B = A[:-2] + 2.0 * A[1:-1] + 3.0 * A[2:]
    return np.sum(B * W)


def three_point_grad(A, W):
    # d/dA[j] of sum_i W[i] (A[i] + 2 A[i+1] + 3 A[i+2]): distinct weights
    # per offset, so a contribution added at the wrong shift shows.
    g = np.zeros_like(A)
    g[:-2] += W
    g[1:-1] += 2.0 * W
    g[2:] += 3.0 * W
    return g


@pytest.mark.parametrize("n", [3, 4, 5, 6, 9, 64, 6000])
def test_three_point(n):
    rng = np.random.default_rng(n)
    A, W = rng.random(n), rng.random(n - 2)
    g = sdfg.grad(three_point, ["A"])(A, W)
    np.testing.assert_allclose(g["A"], three_point_grad(A, W),
                               rtol=1e-13, atol=1e-13)


def rows_and_columns(A, W):
    # Offsets along both dimensions: the inner ones meet along the
    # innermost loop, the outer ones in other rows of the same loop.
    B = (A[1:-1, :-2] + 2.0 * A[1:-1, 2:] + 5.0 * A[1:-1, 1:-1]
         + 7.0 * A[:-2, 1:-1] + 11.0 * A[2:, 1:-1])
    return np.sum(B * W)


def rows_and_columns_grad(A, W):
    g = np.zeros_like(A)
    g[1:-1, :-2] += W
    g[1:-1, 2:] += 2.0 * W
    g[1:-1, 1:-1] += 5.0 * W
    g[:-2, 1:-1] += 7.0 * W
    g[2:, 1:-1] += 11.0 * W
    return g


@pytest.mark.parametrize("shape", [(3, 3), (3, 4), (5, 3), (4, 7), (90, 90)])
def test_rows_and_columns(shape):
    rng = np.random.default_rng(sum(shape))
    A = rng.random(shape)
    W = rng.random((shape[0] - 2, shape[1] - 2))
    g = sdfg.grad(rows_and_columns, ["A"])(A, W)
    np.testing.assert_allclose(g["A"], rows_and_columns_grad(A, W),
                               rtol=1e-13, atol=1e-13)


def consumed_in_place(TSTEPS, A, B):
    # Jacobi's reversal: each step's adjoint is read and zeroed by the same
    # map that accumulates into the other array.
    for t in range(TSTEPS):
        B[1:-1] = 0.25 * A[:-2] + 0.5 * A[1:-1] + 0.125 * A[2:]
        A[1:-1] = 0.25 * B[:-2] + 0.5 * B[1:-1] + 0.125 * B[2:]


@pytest.mark.parametrize("n", [3, 5, 40])
def test_consumed_in_place(n):
    # Linear: one step maps (A, B) to (A', B') by a matrix M, where with S
    # the stencil's rows on the interior (zero rows at the edges) and E the
    # projector on the two edge entries,
    #   B' = S A + E B,   A' = S B' + E A = (S S + E) A + S E B.
    # The gradient of sum(A) after the steps is (M^T)^steps [1; 0].
    steps = 3
    rng = np.random.default_rng(n)
    A, B = rng.random(n), rng.random(n)
    g = sdfg.grad(consumed_in_place, ["A", "B"], output="A")(steps, A, B)
    S = np.zeros((n, n))
    for k in range(1, n - 1):
        S[k, k - 1:k + 2] = [0.25, 0.5, 0.125]
    E = np.diag(np.r_[1.0, np.zeros(n - 2), 1.0])
    M = np.block([[S @ S + E, S @ E], [S, E]])
    seed = np.r_[np.ones(n), np.zeros(n)]
    expected = np.linalg.matrix_power(M, steps).T @ seed
    np.testing.assert_allclose(g["A"], expected[:n], rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(g["B"], expected[n:], rtol=1e-13, atol=1e-13)
