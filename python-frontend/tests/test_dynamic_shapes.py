"""Hand-written programs on arguments of dynamic shape (memref<?x?xf64>)
differentiated by sdfg-autodiff and sdfg-forward-diff, run through
sdfg.compile_mlir: gradients and tangents against finite differences. The
extents only the call knows are read with sdfg.dim (issue 37's first
step; the Python frontend itself still compiles per shape)."""

import numpy as np
import pytest

import sdfg
from sdfg import native

# The user guide's example ("Writing the dialect by hand"), with the
# combining operation substituted.
SEIDEL = """
sdfg.sdfg @seidel(%A: memref<?x?xf64> {sdfg.name = "A"}, %N: index, %T: index) {
  sdfg.loop %t = 0 to %T step 1 {
    sdfg.loop %i = 1 to %N - 1 step 1 {
      sdfg.loop %j = 1 to %N - 1 step 1 {
        sdfg.state {
          %a = sdfg.load %A[%i - 1, %j] : memref<?x?xf64>
          %b = sdfg.load %A[%i + 1, %j] : memref<?x?xf64>
          %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %s = arith.OP %x, %y : f64
            sdfg.yield %s : f64
          }
          sdfg.store %r, %A[%i, %j] : memref<?x?xf64>
        }
      }
    }
  }
}
"""


def seidel(A, N, T, op):
    A = A.copy()
    for _ in range(T):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i, j] = op(A[i - 1, j], A[i + 1, j])
    return A


@pytest.mark.parametrize("op,fn", [("addf", np.add), ("mulf", np.multiply)])
def test_gradient_of_a_dynamic_in_place_sweep(op, fn):
    text = native.run_passes(SEIDEL.replace("OP", op),
                             ["--sdfg-autodiff=output=A wrt=A"])
    module = sdfg.compile_mlir(text)
    # One compiled gradient, several sizes.
    for N, T in ((5, 2), (7, 3)):
        rng = np.random.default_rng(N)
        A0 = 1.0 + 0.1 * rng.standard_normal((N, N))
        W = rng.standard_normal((N, N))
        args = [A0.copy(), N, T, W.copy()]  # A, N, T, d_A (the seed in)
        if op == "mulf":  # the product needs the overwritten values
            args += [np.zeros((), np.int64), np.zeros_like(A0)]
        module.seidel_grad(*args)
        d_A = args[3]
        fd = np.zeros_like(A0)
        for k in np.ndindex(A0.shape):
            e = np.zeros_like(A0)
            e[k] = 1e-6
            fd[k] = (np.sum(W * seidel(A0 + e, N, T, fn)) -
                     np.sum(W * seidel(A0 - e, N, T, fn))) / 2e-6
        # (|f| ~ 100 here: rounding of the difference quotient ~ 1e-8.)
        np.testing.assert_allclose(d_A, fd, rtol=1e-7, atol=1e-7)
        if op == "mulf":
            np.testing.assert_allclose(args[5], seidel(A0, N, T, fn),
                                       rtol=1e-14)
            assert args[4] == 0  # the stored values covered the loops


NORM = """
sdfg.sdfg @norm(%x: memref<?xf64> {sdfg.name = "x"},
                %__return0: memref<?xf64> {sdfg.name = "__return0"}) {
  %n = sdfg.dim %x, 0 : memref<?xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %m = math.sin %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %__return0[%i] : memref<?xf64>
    }
  }
}
"""


def test_tangent_of_a_dynamic_output():
    text = native.run_passes(NORM, ["--sdfg-forward-diff"])
    module = sdfg.compile_mlir(text)
    for n in (3, 9):
        x = np.linspace(-1, 1, n)
        t = np.cos(np.arange(n))
        y, ty = np.empty(n), np.full(n, np.nan)
        module.norm_jvp(x, y, t, ty)
        np.testing.assert_allclose(y, np.sin(x), rtol=1e-15)
        np.testing.assert_allclose(ty, np.cos(x) * t, rtol=1e-14)
