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
        if op == "mulf":
            # The product needs the overwritten values: stored in tapes of
            # T x (N - 2) x (N - 2), allocated when the call starts (no
            # capacity, so no ad_status); fwd_A is the forward result.
            args += [np.zeros_like(A0)]
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
            np.testing.assert_allclose(args[4], seidel(A0, N, T, fn),
                                       rtol=1e-14)


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


# Programs as an embedding compiler produces them: memrefs of dynamic
# shape, memref.dim, an scf.for stencil, a 2-d scf.parallel with an scf.if
# and rows read through (nested, strided) memref.subview, imported by
# --convert-to-sdfg and differentiated.
IMPORTED = """
func.func @stencil(%a: memref<?xf64>, %b: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %m = arith.subi %n, %c1 : index
  scf.for %i = %c1 to %m step %c1 {
    %im = arith.subi %i, %c1 : index
    %ip = arith.addi %i, %c1 : index
    %x = memref.load %a[%im] : memref<?xf64>
    %y = memref.load %a[%ip] : memref<?xf64>
    %p = arith.mulf %x, %y : f64
    %s = math.sin %p : f64
    memref.store %s, %b[%i] : memref<?xf64>
  }
  return
}
func.func @relu_scale(%a: memref<?x?xf64>, %b: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf64>
  %m = memref.dim %a, %c1 : memref<?x?xf64>
  %zero = arith.constant 0.0 : f64
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x?xf64>
    %pos = arith.cmpf ogt, %x, %zero : f64
    scf.if %pos {
      %y = arith.mulf %x, %x : f64
      memref.store %y, %b[%i, %j] : memref<?x?xf64>
    } else {
      %y = math.sin %x : f64
      memref.store %y, %b[%i, %j] : memref<?x?xf64>
    }
    scf.reduce
  }
  return
}
func.func @rows(%a: memref<?x?xf64>, %b: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf64>
  %m = memref.dim %a, %c1 : memref<?x?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %row = memref.subview %a[%i, 0] [1, %m] [1, 1]
        : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
    %w = memref.dim %row, %c0 : memref<?xf64, strided<[1], offset: ?>>
    %odd = memref.subview %row[1] [2] [2]
        : memref<?xf64, strided<[1], offset: ?>>
          to memref<2xf64, strided<[2], offset: ?>>
    %x0 = memref.load %odd[%c0] : memref<2xf64, strided<[2], offset: ?>>
    %x1 = memref.load %odd[%c1] : memref<2xf64, strided<[2], offset: ?>>
    %last = arith.subi %w, %c1 : index
    %xl = memref.load %row[%last] : memref<?xf64, strided<[1], offset: ?>>
    %p = arith.mulf %x0, %x1 : f64
    %q = arith.mulf %p, %xl : f64
    memref.store %q, %b[%i] : memref<?xf64>
  }
  return
}
"""


def rows(a):
    # (b has a's first extent: the FD loop below differentiates sum(w * b))
    return a[:, 1] * a[:, 3] * a[:, -1]


def stencil(a):
    b = np.zeros_like(a)
    b[1:-1] = np.sin(a[:-2] * a[2:])
    return b


def relu_scale(a):
    return np.where(a > 0, a * a, np.sin(a))


@pytest.mark.parametrize("name,fn,shapes", [
    ("stencil", stencil, [(6,), (11,)]),
    ("relu_scale", relu_scale, [(3, 4), (5, 2)]),
    ("rows", rows, [(3, 5), (4, 7)])])
def test_imported_dynamic_programs_against_finite_differences(name, fn,
                                                               shapes):
    text = native.run_passes(IMPORTED, [
        "--convert-to-sdfg",
        f"--sdfg-autodiff=of={name} output=arg1 wrt=arg0"])
    module = sdfg.compile_mlir(text)
    forward, gradient = getattr(module, name), getattr(module,
                                                       name + "_grad")
    for shape in shapes:
        rng = np.random.default_rng(len(shape) + shape[0])
        a = rng.standard_normal(shape)
        out = fn(a).shape
        w = rng.standard_normal(out)
        b = np.zeros(out)
        forward(a, b)
        np.testing.assert_allclose(b, fn(a), rtol=1e-14, atol=1e-15)
        b, d_a, d_b = np.zeros(out), np.full(shape, np.nan), w.copy()
        gradient(a.copy(), b, d_a, d_b)
        fd = np.zeros(shape)
        for k in np.ndindex(shape):
            e = np.zeros(shape)
            e[k] = 1e-6
            fd[k] = (np.sum(w * fn(a + e)) - np.sum(w * fn(a - e))) / 2e-6
        np.testing.assert_allclose(d_a, fd, rtol=1e-7, atol=1e-8)


def test_gpu_program_with_symbolic_grid(tmp_path):
    # The 2-d map over sdfg.dim extents becomes a kernel whose grid is
    # computed from the extents at each call; the emulator runs that GPU
    # program on host threads (no GPU here), for two shapes, gradient
    # included.
    text = native.run_passes(IMPORTED, [
        "--convert-to-sdfg",
        "--sdfg-autodiff=of=relu_scale output=arg1 wrt=arg0"])
    abi = native.build_library(text, str(tmp_path), device="gpu-emulator")
    module = native.NativeModule(None, str(tmp_path / "program.so"), abi)
    for shape in ((3, 4), (17, 33)):
        a = np.random.default_rng(shape[0]).standard_normal(shape)
        b = np.zeros(shape)
        module.relu_scale(a, b)
        native.check_emulator_races(module)
        np.testing.assert_allclose(b, relu_scale(a), rtol=1e-14,
                                   atol=1e-15)
        d_a, d_b = np.full(shape, np.nan), np.ones(shape)
        module.relu_scale_grad(a.copy(), np.zeros(shape), d_a, d_b)
        native.check_emulator_races(module)
        np.testing.assert_allclose(
            d_a, np.where(a > 0, 2 * a, np.cos(a)), rtol=1e-14)


LINALG = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @rowsum(%a: memref<?x?xf64>, %b: memref<?xf64>) {
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf64>) outs(%b : memref<?xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %e = math.exp %x : f64
    %s = arith.addf %acc, %e : f64
    linalg.yield %s : f64
  }
  return
}
func.func @mm(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %c: memref<?x?xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<?x?xf64>)
  linalg.matmul ins(%a, %b : memref<?x?xf64>, memref<?x?xf64>)
                outs(%c : memref<?x?xf64>)
  return
}
"""


def test_linalg_on_dynamic_memrefs():
    # linalg.generic, linalg.fill and linalg.matmul over extents only the
    # call knows; gradients against the analytic ones (a reduction's is
    # the seed times the derivative; C = A B's is dC B^T and A^T dC).
    text = native.run_passes(LINALG, [
        "--convert-to-sdfg", "--sdfg-autodiff=of=rowsum output=arg1 "
        "wrt=arg0", "--sdfg-autodiff=of=mm output=arg2 wrt=arg0,arg1"])
    module = sdfg.compile_mlir(text)
    rng = np.random.default_rng(9)
    for n, m, k in ((3, 4, 2), (6, 5, 7)):
        a = rng.standard_normal((n, m))
        b = np.zeros(n)
        module.rowsum(a, b)
        np.testing.assert_allclose(b, np.exp(a).sum(axis=1), rtol=1e-14)
        w = rng.standard_normal(n)
        d_a = np.full((n, m), np.nan)
        module.rowsum_grad(a, np.zeros(n), d_a, w.copy())
        np.testing.assert_allclose(d_a, np.exp(a) * w[:, None], rtol=1e-14)
        x, y = rng.standard_normal((n, m)), rng.standard_normal((m, k))
        c = np.full((n, k), np.nan)
        module.mm(x, y, c)
        np.testing.assert_allclose(c, x @ y, rtol=1e-13)
        dc = rng.standard_normal((n, k))
        dx, dy = np.full((n, m), np.nan), np.full((m, k), np.nan)
        module.mm_grad(x, y, np.zeros((n, k)), dx, dy, dc.copy())
        np.testing.assert_allclose(dx, dc @ y.T, rtol=1e-13)
        np.testing.assert_allclose(dy, x.T @ dc, rtol=1e-13)
