"""Hand-written sdfg programs compiled to shared libraries and run.

Every result is compared with the same computation written independently in
NumPy / plain Python. Each program runs with 1 and 2 OpenMP threads.
"""

import numpy as np
import pytest

import sdfg

THREADS = [1, 2]
DTYPES = [("f64", np.float64, 1e-12), ("f32", np.float32, 1e-5)]


def build(source):
    return sdfg.compile_mlir(source)


@pytest.fixture(params=THREADS, ids=lambda n: f"omp{n}")
def threads(request):
    return request.param


def run(module, name, threads, *args):
    module.set_num_threads(threads)
    getattr(module, name)(*args)


# --------------------------------------------------------------------------
# Seidel-2D: in-place time-loop stencil, sequential loops
# --------------------------------------------------------------------------

SEIDEL = """
sdfg.sdfg @seidel(%A: memref<?x?x{T}> {{sdfg.name = "A"}}, %N: index {{sdfg.name = "N"}},
                  %TS: index {{sdfg.name = "TSTEPS"}}) {{
  sdfg.loop %t = 0 to %TS step 1 {{
    sdfg.loop %i = 1 to %N - 1 step 1 {{
      sdfg.loop %j = 1 to %N - 1 step 1 {{
        sdfg.state "update" {{
          %a0 = sdfg.load %A[%i - 1, %j - 1] : memref<?x?x{T}>
          %a1 = sdfg.load %A[%i - 1, %j] : memref<?x?x{T}>
          %a2 = sdfg.load %A[%i - 1, %j + 1] : memref<?x?x{T}>
          %a3 = sdfg.load %A[%i, %j - 1] : memref<?x?x{T}>
          %a4 = sdfg.load %A[%i, %j] : memref<?x?x{T}>
          %a5 = sdfg.load %A[%i, %j + 1] : memref<?x?x{T}>
          %a6 = sdfg.load %A[%i + 1, %j - 1] : memref<?x?x{T}>
          %a7 = sdfg.load %A[%i + 1, %j] : memref<?x?x{T}>
          %a8 = sdfg.load %A[%i + 1, %j + 1] : memref<?x?x{T}>
          %r = sdfg.tasklet(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8)
              : ({T}, {T}, {T}, {T}, {T}, {T}, {T}, {T}, {T}) -> {T} {{
          ^bb0(%x0: {T}, %x1: {T}, %x2: {T}, %x3: {T}, %x4: {T}, %x5: {T},
               %x6: {T}, %x7: {T}, %x8: {T}):
            %s1 = arith.addf %x0, %x1 : {T}
            %s2 = arith.addf %s1, %x2 : {T}
            %s3 = arith.addf %s2, %x3 : {T}
            %s4 = arith.addf %s3, %x4 : {T}
            %s5 = arith.addf %s4, %x5 : {T}
            %s6 = arith.addf %s5, %x6 : {T}
            %s7 = arith.addf %s6, %x7 : {T}
            %s8 = arith.addf %s7, %x8 : {T}
            %nine = arith.constant 9.0 : {T}
            %d = arith.divf %s8, %nine : {T}
            sdfg.yield %d : {T}
          }}
          sdfg.store %r, %A[%i, %j] : memref<?x?x{T}>
        }}
      }}
    }}
  }}
}}
"""


def seidel_ref(A, tsteps):
    A = A.copy()
    n = A.shape[0]
    for _ in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] +
                           A[i, j - 1] + A[i, j] + A[i, j + 1] +
                           A[i + 1, j - 1] + A[i + 1, j] +
                           A[i + 1, j + 1]) / A.dtype.type(9.0)
    return A


@pytest.mark.parametrize("T,dtype,tol", DTYPES, ids=[d[0] for d in DTYPES])
def test_seidel2d(T, dtype, tol, threads):
    mod = build(SEIDEL.format(T=T))
    rng = np.random.default_rng(0)
    A = rng.random((12, 12)).astype(dtype)
    expected = seidel_ref(A, 3)
    run(mod, "seidel", threads, A, 12, 3)
    np.testing.assert_allclose(A, expected, rtol=tol)


# --------------------------------------------------------------------------
# Jacobi-2D: two arrays, parallel maps inside a time loop
# --------------------------------------------------------------------------

JACOBI_STATE = """
    sdfg.state {{
      sdfg.map (%i, %j) = (1, 1) to (%N - 1, %N - 1) step (1, 1) schedule(cpu_multicore) {{
        %c = sdfg.load %{src}[%i, %j] : memref<?x?xf64>
        %w = sdfg.load %{src}[%i, %j - 1] : memref<?x?xf64>
        %e = sdfg.load %{src}[%i, %j + 1] : memref<?x?xf64>
        %s = sdfg.load %{src}[%i + 1, %j] : memref<?x?xf64>
        %n = sdfg.load %{src}[%i - 1, %j] : memref<?x?xf64>
        %r = sdfg.tasklet(%c, %w, %e, %s, %n) : (f64, f64, f64, f64, f64) -> f64 {{
        ^bb0(%x0: f64, %x1: f64, %x2: f64, %x3: f64, %x4: f64):
          %s1 = arith.addf %x0, %x1 : f64
          %s2 = arith.addf %s1, %x2 : f64
          %s3 = arith.addf %s2, %x3 : f64
          %s4 = arith.addf %s3, %x4 : f64
          %k = arith.constant 0.2 : f64
          %m = arith.mulf %k, %s4 : f64
          sdfg.yield %m : f64
        }}
        sdfg.store %r, %{dst}[%i, %j] : memref<?x?xf64>
      }}
    }}
"""

JACOBI = ("""
sdfg.sdfg @jacobi(%A: memref<?x?xf64>, %B: memref<?x?xf64>, %N: index, %T: index) {
  sdfg.loop %t = 1 to %T step 1 {
""" + JACOBI_STATE.format(src="A", dst="B") +
          JACOBI_STATE.format(src="B", dst="A") + """
  }
}
""")


def test_jacobi2d(threads):
    mod = build(JACOBI)
    rng = np.random.default_rng(1)
    n, tsteps = 20, 6
    A = rng.random((n, n))
    B = rng.random((n, n))
    eA, eB = A.copy(), B.copy()
    for _ in range(1, tsteps):
        eB[1:-1, 1:-1] = 0.2 * (eA[1:-1, 1:-1] + eA[1:-1, :-2] +
                                eA[1:-1, 2:] + eA[2:, 1:-1] + eA[:-2, 1:-1])
        eA[1:-1, 1:-1] = 0.2 * (eB[1:-1, 1:-1] + eB[1:-1, :-2] +
                                eB[1:-1, 2:] + eB[2:, 1:-1] + eB[:-2, 1:-1])
    run(mod, "jacobi", threads, A, B, n, tsteps)
    np.testing.assert_allclose(A, eA, rtol=1e-12)
    np.testing.assert_allclose(B, eB, rtol=1e-12)


# --------------------------------------------------------------------------
# Library ops: matmul (CBLAS), gemv, dot, transpose, reduce
# --------------------------------------------------------------------------

MATMUL = """
sdfg.sdfg @mm(%A: memref<?x?x{T}>, %B: memref<?x?x{T}>, %C: memref<?x?x{T}>,
              %D: memref<?x?x{T}>) {{
  sdfg.state {{
    sdfg.matmul %A, %B -> %C : memref<?x?x{T}>, memref<?x?x{T}> -> memref<?x?x{T}>
    sdfg.matmul %A, %C -> %D {{transpose_a, accumulate}}
        : memref<?x?x{T}>, memref<?x?x{T}> -> memref<?x?x{T}>
  }}
}}
"""


@pytest.mark.parametrize("T,dtype,tol", DTYPES, ids=[d[0] for d in DTYPES])
def test_matmul(T, dtype, tol, threads):
    mod = build(MATMUL.format(T=T))
    rng = np.random.default_rng(2)
    n = 17
    A = rng.random((n, n)).astype(dtype)
    B = rng.random((n, 9)).astype(dtype)
    C = np.zeros((n, 9), dtype)
    D = rng.random((n, 9)).astype(dtype)
    eC = A.astype(np.float64) @ B.astype(np.float64)
    eD = D.astype(np.float64) + A.T.astype(np.float64) @ eC
    run(mod, "mm", threads, A, B, C, D)
    np.testing.assert_allclose(C, eC, rtol=tol)
    np.testing.assert_allclose(D, eD, rtol=tol * 10)


LINALG = """
sdfg.sdfg @linalg(%A: memref<5x7xf64>, %x: memref<7xf64>, %z: memref<5xf64>,
                  %y: memref<5xf64>, %w: memref<7xf64>, %d: memref<f64>,
                  %AT: memref<7x5xf64>) {
  sdfg.state {
    sdfg.gemv %A, %x -> %y : memref<5x7xf64>, memref<7xf64> -> memref<5xf64>
    sdfg.gemv %A, %z -> %w {transpose, accumulate}
        : memref<5x7xf64>, memref<5xf64> -> memref<7xf64>
    sdfg.dot %x, %w -> %d : memref<7xf64>, memref<7xf64> -> memref<f64>
    sdfg.transpose %A -> %AT : memref<5x7xf64> -> memref<7x5xf64>
  }
}
"""


def test_gemv_dot_transpose(threads):
    mod = build(LINALG)
    rng = np.random.default_rng(3)
    A = rng.random((5, 7))
    x, z, w = rng.random(7), rng.random(5), rng.random(7)
    y, d, AT = np.zeros(5), np.zeros(()), np.zeros((7, 5))
    ey = A @ x
    ew = w + A.T @ z
    ed = x @ ew
    run(mod, "linalg", threads, A, x, z, y, w, d, AT)
    np.testing.assert_allclose(y, ey, rtol=1e-12)
    np.testing.assert_allclose(w, ew, rtol=1e-12)
    np.testing.assert_allclose(d, ed, rtol=1e-12)
    np.testing.assert_array_equal(AT, A.T)


REDUCE = """
sdfg.sdfg @red(%A: memref<?x?x?xf64>, %S0: memref<?x?xf64>, %S02: memref<?xf64>,
               %MX: memref<1x?x1xf64>, %MN: memref<f64>, %I: memref<?xi64>,
               %IS: memref<i64>) {
  sdfg.state {
    sdfg.reduce add %A -> %S0 axes [0] : memref<?x?x?xf64> -> memref<?x?xf64>
    sdfg.reduce add %A -> %S02 axes [0, 2] : memref<?x?x?xf64> -> memref<?xf64>
    sdfg.reduce max %A -> %MX axes [0, 2] : memref<?x?x?xf64> -> memref<1x?x1xf64>
    sdfg.reduce min %A -> %MN axes [0, 1, 2] : memref<?x?x?xf64> -> memref<f64>
    sdfg.reduce add %I -> %IS axes [0] : memref<?xi64> -> memref<i64>
  }
}
"""


def test_reduce(threads):
    mod = build(REDUCE)
    rng = np.random.default_rng(4)
    A = rng.standard_normal((3, 4, 5))
    I = rng.integers(-100, 100, 11)
    S0, S02 = np.full((4, 5), 7.0), np.full(4, 7.0)
    MX, MN, IS = np.zeros((1, 4, 1)), np.zeros(()), np.zeros((), np.int64)
    run(mod, "red", threads, A, S0, S02, MX, MN, I, IS)
    np.testing.assert_allclose(S0, A.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(S02, A.sum(axis=(0, 2)), rtol=1e-12)
    np.testing.assert_array_equal(MX, A.max(axis=(0, 2), keepdims=True))
    assert MN == A.min()
    assert IS == I.sum()


# --------------------------------------------------------------------------
# WCR inside parallel maps: conflicting writes from every thread
# --------------------------------------------------------------------------

WCR = """
sdfg.sdfg @wcr(%X: memref<?xf64>, %N: index, %sum: memref<f64>, %mx: memref<f64>,
               %mn: memref<f64>, %prod: memref<f64>, %hist: memref<7xf64>,
               %cnt: memref<7xi64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N) step (1) schedule(cpu_multicore) {
      %x = sdfg.load %X[%i] : memref<?xf64>
      %sq, %one, %small = sdfg.tasklet(%x) : (f64) -> (f64, i64, f64) {
      ^bb0(%v: f64):
        %s = arith.mulf %v, %v : f64
        %c = arith.constant 1 : i64
        %k = arith.constant 1.0e-3 : f64
        %o = arith.constant 1.0 : f64
        %t = arith.mulf %v, %k : f64
        %u = arith.addf %t, %o : f64
        sdfg.yield %s, %c, %u : f64, i64, f64
      }
      sdfg.store %sq, %sum[] wcr(add) : memref<f64>
      sdfg.store %x, %mx[] wcr(max) : memref<f64>
      sdfg.store %x, %mn[] wcr(min) : memref<f64>
      sdfg.store %small, %prod[] wcr(mul) : memref<f64>
      sdfg.store %x, %hist[%i mod 7] wcr(add) : memref<7xf64>
      sdfg.store %one, %cnt[%i mod 7] wcr(add) : memref<7xi64>
    }
  }
}
"""


def test_wcr_in_parallel_map(threads):
    mod = build(WCR)
    rng = np.random.default_rng(5)
    n = 100003
    X = rng.standard_normal(n)
    s, mx, mn, prod = np.zeros(()), np.full((), -np.inf), np.full((), np.inf), np.ones(())
    hist, cnt = np.zeros(7), np.zeros(7, np.int64)
    run(mod, "wcr", threads, X, n, s, mx, mn, prod, hist, cnt)
    np.testing.assert_allclose(s, (X * X).sum(), rtol=1e-10)
    assert mx == X.max() and mn == X.min()
    np.testing.assert_allclose(prod, np.prod(X * 1e-3 + 1.0), rtol=1e-9)
    idx = np.arange(n) % 7
    np.testing.assert_allclose(hist, np.bincount(idx, weights=X), rtol=1e-9,
                               atol=1e-9)
    np.testing.assert_array_equal(cnt, np.bincount(idx))


# --------------------------------------------------------------------------
# Loops: negative non-unit step, empty ranges, triangular nests
# --------------------------------------------------------------------------

NEGSTEP = """
sdfg.sdfg @neg(%A: memref<?xf64>, %O: memref<?xf64>, %N: index, %lo: index) {
  sdfg.loop %i = %N - 1 to %lo step -3 {
    sdfg.state {
      %a = sdfg.load %A[%i] : memref<?xf64>
      %p = sdfg.load %O[%i + 1] : memref<?xf64>
      %r = sdfg.tasklet(%a, %p, %i) : (f64, f64, index) -> f64 {
      ^bb0(%x: f64, %y: f64, %k: index):
        %ki = arith.index_cast %k : index to i64
        %kf = arith.sitofp %ki : i64 to f64
        %two = arith.constant 2.0 : f64
        %m = arith.mulf %x, %two : f64
        %s = arith.addf %m, %kf : f64
        %t = arith.addf %s, %y : f64
        sdfg.yield %t : f64
      }
      sdfg.store %r, %O[%i] : memref<?xf64>
    }
  }
}
"""


@pytest.mark.parametrize("n,lo", [(20, -1), (20, 4), (21, 0), (5, 7)])
def test_negative_step_loop(n, lo, threads):
    mod = build(NEGSTEP)
    rng = np.random.default_rng(6)
    A = rng.random(n)
    O = rng.random(n + 1)
    expected = O.copy()
    for i in range(n - 1, lo, -3):
        expected[i] = A[i] * 2 + i + expected[i + 1]
    run(mod, "neg", threads, A, O, n, lo)
    np.testing.assert_array_equal(O, expected)


TRIANGULAR = """
sdfg.sdfg @tri(%A: memref<?x?xf64>, %out: memref<?xf64>, %L: memref<?x?xf64>, %N: index) {
  sdfg.loop %i = 0 to %N step 1 {
    sdfg.state {
      sdfg.map (%j) = (0) to (%i + 1) step (1) schedule(cpu_multicore) {
        %a = sdfg.load %A[%i, %j] : memref<?x?xf64>
        sdfg.store %a, %out[%i] wcr(add) : memref<?xf64>
      }
    }
    sdfg.loop %j = %i + 1 to %N step 2 {
      sdfg.state {
        %a = sdfg.load %A[%j, %i] : memref<?x?xf64>
        sdfg.store %a, %L[%j, %i] : memref<?x?xf64>
      }
    }
  }
}
"""


def test_triangular_nest(threads):
    mod = build(TRIANGULAR)
    rng = np.random.default_rng(7)
    n = 13
    A = rng.random((n, n))
    out, L = np.zeros(n), np.zeros((n, n))
    eL = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n, 2):
            eL[j, i] = A[j, i]
    run(mod, "tri", threads, A, out, L, n)
    np.testing.assert_allclose(out, np.tril(A).sum(axis=1), rtol=1e-12)
    np.testing.assert_array_equal(L, eL)


# --------------------------------------------------------------------------
# Conditionals on array data (if / elif / else)
# --------------------------------------------------------------------------

COND = """
sdfg.sdfg @cond(%A: memref<?xf64>, %B: memref<?xf64>, %N: index) {
  sdfg.loop %i = 0 to %N step 1 {
    %a = sdfg.load %A[%i] : memref<?xf64>
    %pos, %low = sdfg.tasklet(%a) : (f64) -> (i1, i1) {
    ^bb0(%x: f64):
      %z = arith.constant 0.0 : f64
      %m = arith.constant -1.0 : f64
      %c0 = arith.cmpf ogt, %x, %z : f64
      %c1 = arith.cmpf olt, %x, %m : f64
      sdfg.yield %c0, %c1 : i1, i1
    }
    sdfg.if %pos {
      sdfg.state {
        %v = sdfg.load %A[%i] : memref<?xf64>
        %r = sdfg.tasklet(%v) : (f64) -> f64 {
        ^bb0(%x: f64):
          %s = math.sqrt %x : f64
          sdfg.yield %s : f64
        }
        sdfg.store %r, %B[%i] : memref<?xf64>
      }
    } elif %low {
      sdfg.state {
        %v = sdfg.load %A[%i] : memref<?xf64>
        %r = sdfg.tasklet(%v) : (f64) -> f64 {
        ^bb0(%x: f64):
          %s = arith.negf %x : f64
          sdfg.yield %s : f64
        }
        sdfg.store %r, %B[%i] : memref<?xf64>
      }
    } else {
      sdfg.state {
        %r = sdfg.tasklet() : () -> f64 {
          %z = arith.constant 0.5 : f64
          sdfg.yield %z : f64
        }
        sdfg.store %r, %B[%i] : memref<?xf64>
      }
    }
  }
}
"""


def test_conditional_on_data(threads):
    mod = build(COND)
    rng = np.random.default_rng(8)
    A = rng.standard_normal(50) * 2
    B = np.zeros(50)
    expected = np.where(A > 0, np.sqrt(np.abs(A)), np.where(A < -1, -A, 0.5))
    run(mod, "cond", threads, A, B, 50)
    np.testing.assert_allclose(B, expected, rtol=1e-15)


# --------------------------------------------------------------------------
# While loops: data-dependent trip count
# --------------------------------------------------------------------------

WHILE = """
sdfg.sdfg @halve(%X: memref<f64>, %count: memref<i64>) {
  sdfg.while {
    %x = sdfg.load %X[] : memref<f64>
    %c = sdfg.tasklet(%x) : (f64) -> i1 {
    ^bb0(%v: f64):
      %one = arith.constant 1.0 : f64
      %r = arith.cmpf ogt, %v, %one : f64
      sdfg.yield %r : i1
    }
    sdfg.condition %c
  } do {
    sdfg.state {
      %x = sdfg.load %X[] : memref<f64>
      %h = sdfg.tasklet(%x) : (f64) -> f64 {
      ^bb0(%v: f64):
        %two = arith.constant 2.0 : f64
        %r = arith.divf %v, %two : f64
        sdfg.yield %r : f64
      }
      sdfg.store %h, %X[] : memref<f64>
      %one = sdfg.tasklet() : () -> i64 {
        %c1 = arith.constant 1 : i64
        sdfg.yield %c1 : i64
      }
      sdfg.store %one, %count[] wcr(add) : memref<i64>
    }
  }
}
"""


@pytest.mark.parametrize("start", [0.5, 1.0, 3.0, 1000.0])
def test_while_loop(start, threads):
    mod = build(WHILE)
    x, count = np.array(start), np.zeros((), np.int64)
    ex, ecount = start, 0
    while ex > 1.0:
        ex /= 2.0
        ecount += 1
    run(mod, "halve", threads, x, count)
    assert x == ex and count == ecount


# --------------------------------------------------------------------------
# Copies between subsets and transients
# --------------------------------------------------------------------------

COPY = """
sdfg.sdfg @cp(%A: memref<?x?xf64>, %B: memref<?xf64>, %C: memref<?x?xf64>, %N: index) {
  %tmp = sdfg.alloc(%N) : memref<?xf64>
  sdfg.state {
    sdfg.copy %A[2, 0 : %N] to %tmp[0 : %N] : memref<?x?xf64> to memref<?xf64>
    sdfg.copy %tmp[1 : %N : 2] to %B[0 : (%N - 1) floordiv 2 + 1 - 1 + %N mod 2 - %N mod 2]
        wcr(add) : memref<?xf64> to memref<?xf64>
    sdfg.copy %A[0 : %N, 1] to %C[1, 0 : %N] : memref<?x?xf64> to memref<?x?xf64>
  }
}
"""


def test_copy_subsets(threads):
    mod = build(COPY)
    rng = np.random.default_rng(9)
    n = 9
    A = rng.random((n, n))
    B = rng.random((n - 1) // 2)
    C = np.zeros((n, n))
    eB = B + A[2, 1:n:2][: B.size]
    eC = C.copy()
    eC[1, :] = A[:, 1]
    run(mod, "cp", threads, A, B, C, n)
    np.testing.assert_allclose(B, eB, rtol=1e-15)
    np.testing.assert_array_equal(C, eC)


# --------------------------------------------------------------------------
# Errors reach the caller as located diagnostics
# --------------------------------------------------------------------------

def test_invalid_program_reports_location():
    bad = """
sdfg.sdfg @bad(%A: memref<4xf64>) {
  sdfg.state {
    %v = sdfg.load %A[7] : memref<4xf64>
  }
}
"""
    with pytest.raises(sdfg.ToolError, match=r"input.mlir:4:10: error: "
                       r"'sdfg.load' op index 7 is out of bounds"):
        build(bad)


def test_wrong_argument_dtype_is_rejected():
    mod = build(NEGSTEP)
    with pytest.raises(TypeError, match="dtype float64"):
        mod.neg(np.zeros(4, np.float32), np.zeros(5), 4, -1)
    with pytest.raises(TypeError, match="C-contiguous"):
        mod.neg(np.zeros(8)[::2], np.zeros(5), 4, -1)
