"""Loops that reduce products of slices of matrices they never write
(sdfg-hoist-loop-products computes the whole product once, before the loop,
and the gradient differentiates that matmul): values against NumPy,
gradients against central finite differences, and where the pass must
leave a loop alone."""

import re

import numpy as np
import pytest

import sdfg
from corpus.kernels import trmm as corpus_trmm
from sdfg import native


def covariance(float_n, data):
    M = data.shape[1]
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
        cov[i:M, i] = cov[i, i:M]
    return np.sum(cov * cov)


def upper_rows(A, B):
    # Row i of A times the columns of B from i on: the upper triangle of
    # A @ B, row by row (A's reduced dimension is its second).
    n = A.shape[0]
    out = np.zeros((n, B.shape[1]))
    for i in range(n):
        out[i, i:] = A[i, :] @ B[:, i:]
    return np.sum(np.sin(out))


def per_sample(W, X):
    # A dense layer applied sample by sample: the frontend copies X[b] into
    # a vector and calls gemv; the pass computes X @ W.T once.
    B = X.shape[0]
    Y = np.zeros((B, W.shape[0]))
    for b in range(B):
        Y[b] = W @ X[b]
    return np.sum(np.tanh(Y))


def column_times_matrix(X, A):
    # Column i of X against A, accumulated: a transposed gemv per column.
    n = X.shape[1]
    out = np.ones((n, A.shape[1]))
    for i in range(n):
        out[i] += X[:, i] @ A
    return np.sum(out * out)


def syrk(alpha, beta, C, A):
    # The k loop adds alpha A[i, k] A[:i+1, k] to row i: alpha (A A^T)[i].
    N = C.shape[0]
    M = A.shape[1]
    for i in range(N):
        C[i, :i + 1] *= beta
        for k in range(M):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
    return np.sum(np.sin(C))


def syr2k(alpha, beta, C, A, B):
    # Two products per element: alpha (A B^T + B A^T)[i, :i+1].
    N = C.shape[0]
    M = A.shape[1]
    for i in range(N):
        C[i, :i + 1] *= beta
        for k in range(M):
            C[i, :i + 1] += (A[:i + 1, k] * alpha * B[i, k] +
                             B[:i + 1, k] * alpha * A[i, k])
    return np.sum(np.sin(C))


def written_in_loop(A, B):
    # The loop scales the column it has just used: later iterations must
    # see the new values, so the product cannot be computed up front.
    n = A.shape[1]
    out = np.zeros((n, n))
    for i in range(n):
        out[i, i:] = A[:, i] @ B[:, i:]
        B[:, i] *= 2.0
    return np.sum(out * out)


def trmm(alpha, A, B):
    # The corpus's B := alpha (I + strict_lower(A))^T B in place: row i
    # reads the rows below it, which no iteration has written yet, so the
    # product of B as it was before the loops (A masked to its strict lower
    # triangle) holds.
    corpus_trmm(alpha, A, B)
    return np.sum(np.sin(B))


def lower_rows_written(A, B):
    # As trmm but over the rows above, which earlier iterations have
    # already updated: each row sees the new values (no product up front).
    M = B.shape[0]
    N = B.shape[1]
    for i in range(M):
        for j in range(N):
            B[i, j] += np.dot(A[:i, i], B[:i, j])
    return np.sum(np.sin(B))


def band(A, B):
    # A constant part of the reduced dimension: rows 2 to 6 of both.
    n = A.shape[1]
    out = np.zeros((n, B.shape[1]))
    for i in range(n):
        for j in range(B.shape[1]):
            out[i, j] = np.dot(A[2:7, i], B[2:7, j])
    return np.sum(out * out)


def _inputs(fn, rng):
    if fn is trmm:
        return (1.5, rng.random((20, 20)) - 0.5, rng.random((20, 24)) - 0.5)
    if fn is lower_rows_written:
        return (rng.random((20, 20)) - 0.5, rng.random((20, 24)) - 0.5)
    if fn is band:
        return (rng.random((10, 8)), rng.random((10, 6)))
    if fn is covariance:
        return (60.0, rng.random((60, 40)))
    if fn is upper_rows:
        return (rng.random((30, 50)), rng.random((50, 40)))
    if fn is per_sample:
        return (rng.random((20, 30)) - 0.5, rng.random((40, 30)) - 0.5)
    if fn is syrk:
        return (1.5, 1.2, rng.random((30, 30)), rng.random((30, 20)))
    if fn is syr2k:
        return (1.5, 1.2, rng.random((30, 30)), rng.random((30, 20)),
                rng.random((30, 20)))
    if fn is column_times_matrix:
        return (rng.random((50, 30)), rng.random((50, 20)))
    return (rng.random((50, 30)), rng.random((50, 30)))


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _gradient_ir(fn, args, wrt):
    """The gradient program as the Python frontend differentiates it."""
    return native.run_passes(sdfg.to_mlir(fn, *args), [
        "--sdfg-hoist-loop-products",
        f"--sdfg-autodiff=output=__return0 wrt={','.join(wrt)}"])


def _fd(fn, args, k, direction, h=1e-6):
    def f(s):
        shifted = list(_copy(args))
        shifted[k] = shifted[k] + s * direction
        return fn(*shifted)
    return (f(h) - f(-h)) / (2 * h)


@pytest.mark.parametrize("fn,wrt,hoisted", [
    (covariance, ["data"], True),
    (upper_rows, ["A", "B"], True),
    (per_sample, ["W", "X"], True),
    (column_times_matrix, ["X", "A"], True),
    (syrk, ["C", "A"], True),
    (syr2k, ["C", "A", "B"], True),
    (written_in_loop, ["A", "B"], False),
    (trmm, ["A", "B"], True),
    (lower_rows_written, ["A", "B"], False),
    (band, ["A", "B"], True),
])
def test_gradient_matches_finite_differences(fn, wrt, hoisted):
    rng = np.random.default_rng(3)
    args = _inputs(fn, rng)
    ir = _gradient_ir(fn, args, wrt)
    assert ('sdfg.state "products"' in ir) == hoisted
    assert np.isclose(sdfg.program(fn)(*_copy(args)), fn(*_copy(args)),
                      rtol=1e-12)
    grads = sdfg.grad(fn, wrt=wrt)(*_copy(args))
    names = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    for name, g in grads.items():
        k = names.index(name)
        direction = rng.standard_normal(args[k].shape)
        fd = _fd(fn, args, k, direction)
        assert np.isclose(np.sum(g * direction), fd, rtol=1e-6, atol=1e-8)


def _smallest_limit(run):
    """The smallest feasible limit in bytes, from the checkpointing's
    error for a limit of one byte."""
    with pytest.raises(native.ToolError) as info:
        run(1.0 / 2**20)
    return int(re.search(r"smallest feasible limit is .*?\((\d+) bytes",
                         str(info.value)).group(1))


def test_memory_limit_keeps_the_loop_and_the_gradient():
    # Under a memory limit the checkpointing plans the loop as written:
    # the product before the loop would raise the smallest feasible limit,
    # and a limit feasible for the program as written must stay feasible.
    rng = np.random.default_rng(5)
    args = _inputs(covariance, rng)
    text = sdfg.to_mlir(covariance, *args)

    def hoisted(mib):
        return native.run_passes(text, [
            "--sdfg-hoist-loop-products",
            "--sdfg-autodiff=output=__return0 wrt=data",
            f"--sdfg-checkpoint=mem={mib!r}MiB"])

    def frontend(mib):
        return sdfg.grad(covariance, wrt="data", mem=mib)(*_copy(args))

    as_written = _smallest_limit(frontend)
    assert _smallest_limit(hoisted) > as_written
    limited = frontend((as_written + 8) / 2**20)["data"]
    free = sdfg.grad(covariance, wrt="data")(*_copy(args))["data"]
    np.testing.assert_allclose(limited, free, rtol=1e-10, atol=1e-12)


def test_forward_program_hoists_in_the_lowering():
    # Forward programs get the product from the lowering pipeline.
    rng = np.random.default_rng(9)
    args = _inputs(covariance, rng)
    ir = native.run_passes(sdfg.to_mlir(covariance, *args),
                           ["--sdfg-hoist-loop-products"])
    assert ir.count("sdfg.matmul") == 1
    assert "memref<40x40xf64>" in ir
