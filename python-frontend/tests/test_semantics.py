"""NumPy semantics the corpus does not pin down on its own: aliasing views,
new axes, transposed BLAS operands, reversed slices, keepdims, data-dependent
while loops, elif chains, tuple assignment, float32 promotion, Python
operator semantics (**, %, //), int index arithmetic."""

import copy

import numpy as np
import pytest

import sdfg


def alias_write(A):
    B = A[1:]
    B[0] = 5.0
    return A.sum()

def scalar_loop(A):
    x = A[0, 0]
    s = 0.0
    for i in range(A.shape[0]):
        s += A[i, i] * x
    return s

def newaxis(a, b):
    return a[:, None] * b[None, :] + np.outer(a, b)

def tmatmul(A, B):
    return A.T @ B + A @ B.T

def revslice(a):
    return a[::-1] * 2.0 + a[-1:-4:-1].sum()

def meankeep(A):
    return A - np.mean(A, axis=0, keepdims=True) + A.mean(axis=1)[:, None]

def whilecount(a):
    n = 0
    x = a[0]
    while x < 100.0:
        x = x * 2.0
        n += 1
    return n, x

def elifs(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        if a[i] > 0.5:
            out[i] = 1.0
        elif a[i] > 0.25:
            out[i] = 2.0
        else:
            out[i] = 3.0
    return out

def swap(a):
    x = a[0]
    y = a[1]
    for i in range(3):
        x, y = y, x + y
    return x, y

def f32mix(a):
    return a * 2.5 + 1.0

def pow_mod(a):
    return a ** 3 + a ** 0.5 + a % 0.3 + (a // 0.1)

def intarith(n):
    a = np.zeros(n)
    for i in range(n):
        a[i] = i * i + (i % 3) - i // 2
    return a

def where_scalar(A):
    return np.where(A > 0.5, A, 0.0).sum()

def reverse_loop_slices(A):
    N = A.shape[0]
    for i in range(N - 1, 0, -2):
        A[i, :i] += A[i - 1, :i] * 0.5
    return A

def transpose_assign(A, B):
    B[:] = A.T
    A[:, 0] = A[0, :]
    return A, B

def masks(x, k):
    m = (x > 0.2) & (x < 0.8) | (x > 0.95)
    n = ~(x < 0.5) ^ (x > 0.9)
    return (np.where(m, x * x, 0.0) + np.where(n, 1.0, 2.0) * x,
            (k & 6) | (k ^ 3), m)

def maxmin(A):
    return np.max(A, axis=1), A.min(axis=0), np.maximum(A, 0.3), abs(A - 0.5)

cases = [
  (alias_write, lambda r: (r.random(5),)),
  (scalar_loop, lambda r: (r.random((5,5)),)),
  (newaxis, lambda r: (r.random(4), r.random(3))),
  (tmatmul, lambda r: (r.random((4,4)), r.random((4,4)))),
  (revslice, lambda r: (r.random(7),)),
  (meankeep, lambda r: (r.random((4,3)),)),
  (whilecount, lambda r: (r.random(3) + 0.1,)),
  (elifs, lambda r: (r.random(20),)),
  (swap, lambda r: (r.random(2),)),
  (f32mix, lambda r: (r.random(5).astype(np.float32),)),
  (pow_mod, lambda r: (r.random(6) + 0.1,)),
  (intarith, lambda r: (9,)),
  (where_scalar, lambda r: (r.random((5,5)),)),
  (reverse_loop_slices, lambda r: (r.random((6,6)),)),
  (transpose_assign, lambda r: (r.random((4,4)), r.random((4,4)))),
  (maxmin, lambda r: (r.random((4,3)),)),
  (masks, lambda r: (r.random(30), np.arange(12))),
]


@pytest.mark.parametrize("fn,inputs", cases, ids=[c[0].__name__ for c in cases])
def test_semantics_match_numpy(fn, inputs, tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))
    args = inputs(np.random.default_rng(1))
    ref, ours = copy.deepcopy(args), copy.deepcopy(args)
    want = fn(*ref)
    got = sdfg.program(fn)(*ours)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    for g, w in zip(ours, ref):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
