"""Programs written in upstream MLIR dialects (scf, affine, memref, linalg),
imported with --convert-to-sdfg, differentiated with --sdfg-autodiff,
compiled and run; gradients checked against central finite differences of
the compiled forward program (float64)."""

import numpy as np
import pytest

import sdfg
from sdfg import native

# A stencil time loop in scf + memref: B = 0.5 * (A[i-1] + A[i+1]) * A[i],
# then A = tanh(B) on the interior, 4 steps; loss = sum(A). (The trip
# count is a constant: the autodiff sizes its tapes statically.)
STENCIL = """
func.func @stencil(%A: memref<32xf64> {sdfg.name = "A"},
                   %B: memref<32xf64> {sdfg.name = "B"}) {
  %T = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %half = arith.constant 0.5 : f64
  scf.for %t = %c0 to %T step %c1 {
    scf.for %i = %c1 to %c31 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %l = memref.load %A[%im] : memref<32xf64>
      %r = memref.load %A[%ip] : memref<32xf64>
      %c = memref.load %A[%i] : memref<32xf64>
      %s = arith.addf %l, %r : f64
      %h = arith.mulf %s, %half : f64
      %p = arith.mulf %h, %c : f64
      memref.store %p, %B[%i] : memref<32xf64>
    }
    scf.parallel (%i) = (%c1) to (%c31) step (%c1) {
      %b = memref.load %B[%i] : memref<32xf64>
      %e = math.tanh %b : f64
      memref.store %e, %A[%i] : memref<32xf64>
    }
  }
  return
}
"""

# A matmul chain in linalg with an elementwise layer and a row-sum
# reduction: D = tanh(X @ W1) @ W2 (accumulating into zero-filled
# buffers), s = sum_j exp(D)[i, j].
CHAIN = """
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @chain(%X: memref<6x5xf64> {sdfg.name = "X"},
                 %W1: memref<5x4xf64> {sdfg.name = "W1"},
                 %W2: memref<4x3xf64> {sdfg.name = "W2"},
                 %s: memref<6xf64> {sdfg.name = "s"}) {
  %zero = arith.constant 0.0 : f64
  %H = memref.alloc() : memref<6x4xf64>
  %G = memref.alloc() : memref<6x4xf64>
  %D = memref.alloc() : memref<6x3xf64>
  linalg.fill ins(%zero : f64) outs(%H : memref<6x4xf64>)
  linalg.matmul ins(%X, %W1 : memref<6x5xf64>, memref<5x4xf64>)
                outs(%H : memref<6x4xf64>)
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%H : memref<6x4xf64>) outs(%G : memref<6x4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %t = math.tanh %a : f64
    linalg.yield %t : f64
  }
  linalg.fill ins(%zero : f64) outs(%D : memref<6x3xf64>)
  linalg.matmul ins(%G, %W2 : memref<6x4xf64>, memref<4x3xf64>)
                outs(%D : memref<6x3xf64>)
  linalg.fill ins(%zero : f64) outs(%s : memref<6xf64>)
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%D : memref<6x3xf64>) outs(%s : memref<6xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %e = math.exp %a : f64
    %n = arith.addf %acc, %e : f64
    linalg.yield %n : f64
  }
  memref.dealloc %H : memref<6x4xf64>
  memref.dealloc %G : memref<6x4xf64>
  memref.dealloc %D : memref<6x3xf64>
  return
}
"""

# An affine triangular nest (forward substitution, in place), with a
# loop-carried sum in iter_args: x[i] = (b[i] - sum_{j<i} L[i,j] x[j]) / L[i,i].
TRIANGULAR = """
func.func @trisolv(%L: memref<8x8xf64> {sdfg.name = "L"},
                   %x: memref<8xf64> {sdfg.name = "x"},
                   %b: memref<8xf64> {sdfg.name = "b"}) {
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to 8 {
    %acc = affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i)
        iter_args(%s = %zero) -> (f64) {
      %l = affine.load %L[%i, %j] : memref<8x8xf64>
      %xj = affine.load %x[%j] : memref<8xf64>
      %p = arith.mulf %l, %xj : f64
      %n = arith.addf %s, %p : f64
      affine.yield %n : f64
    }
    %bi = affine.load %b[%i] : memref<8xf64>
    %d = affine.load %L[%i, %i] : memref<8x8xf64>
    %r = arith.subf %bi, %acc : f64
    %q = arith.divf %r, %d : f64
    affine.store %q, %x[%i] : memref<8xf64>
  }
  return
}
"""


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def _compile(text, output, wrt):
    source = native.run_passes(
        text, ["--convert-to-sdfg",
               f"--sdfg-autodiff=output={output} wrt={','.join(wrt)}"])
    return native.compile_mlir(source)


def _call(fn, values):
    """Calls `fn` with arrays by ABI name (fresh zeros for names missing
    from `values`: gradients, forward results); returns them by name."""
    arrays = {}
    args = []
    for a in fn.args:
        name = a["name"]
        if name in values:
            v = values[name]
            v = v.copy() if isinstance(v, np.ndarray) else v
        else:
            v = np.zeros([s for s in a["shape"]], dtype=a["dtype"])
        arrays[name] = v
        args.append(v)
    fn(*args)
    return arrays


def _check(module, name, inputs, output, wrt, seed_shape):
    fwd = getattr(module, name)
    grad = getattr(module, name + "_grad")
    rng = np.random.default_rng(7)
    seed = np.ones(seed_shape)
    got = _call(grad, {**inputs, "d_" + output: seed})
    # The forward part of the gradient program computes the same output.
    want = _call(fwd, inputs)
    np.testing.assert_allclose(got.get("fwd_" + output, got[output]),
                               want[output], rtol=1e-12)

    def loss(shifted):
        return float(np.sum(_call(fwd, shifted)[output]))
    for w in wrt:
        d = rng.standard_normal(inputs[w].shape)
        h = 1e-6
        plus = dict(inputs, **{w: np.asarray(inputs[w] + h * d)})
        minus = dict(inputs, **{w: np.asarray(inputs[w] - h * d)})
        fd = (loss(plus) - loss(minus)) / (2 * h)
        ad = float(np.sum(got["d_" + w] * d))
        assert abs(ad - fd) <= 1e-6 * max(1.0, abs(fd)), (w, ad, fd)


def test_stencil_time_loop_in_scf():
    rng = np.random.default_rng(0)
    m = _compile(STENCIL, "A", ["A"])
    inputs = {"A": rng.random(32), "B": np.zeros(32)}
    _check(m, "stencil", inputs, "A", ["A"], (32,))


@pytest.mark.parametrize("checkpoint", [
    "strategy=store-all checkpoints=loop0=1",
    "strategy=store-all checkpoints=loop0=2,loop1=1"])
def test_stencil_time_loop_in_scf_checkpointed(checkpoint):
    # Loop checkpointing of imported loops (named by position): the same
    # gradient as storing every step, and finite differences agree.
    rng = np.random.default_rng(0)
    inputs = {"A": rng.random(32), "B": np.zeros(32)}
    source = native.run_passes(
        STENCIL, ["--convert-to-sdfg", "--sdfg-autodiff=output=A wrt=A",
                  f"--sdfg-checkpoint={checkpoint}"])
    assert "snapshot of loop" in source
    m = native.compile_mlir(source)
    _check(m, "stencil", inputs, "A", ["A"], (32,))
    ref = _call(_compile(STENCIL, "A", ["A"]).stencil_grad,
                {**inputs, "d_A": np.ones(32)})
    got = _call(m.stencil_grad, {**inputs, "d_A": np.ones(32)})
    np.testing.assert_allclose(got["d_A"], ref["d_A"], rtol=1e-12)


def test_matmul_chain_in_linalg():
    rng = np.random.default_rng(1)
    m = _compile(CHAIN, "s", ["X", "W1", "W2"])
    inputs = {"X": rng.random((6, 5)), "W1": rng.random((5, 4)) - 0.5,
              "W2": rng.random((4, 3)) - 0.5, "s": np.zeros(6)}
    _check(m, "chain", inputs, "s", ["X", "W1", "W2"], (6,))
    # The forward value against NumPy.
    out = _call(m.chain, inputs)["s"]
    D = np.tanh(inputs["X"] @ inputs["W1"]) @ inputs["W2"]
    np.testing.assert_allclose(out, np.exp(D).sum(axis=1), rtol=1e-12)


def test_affine_triangular_nest():
    rng = np.random.default_rng(2)
    L = np.tril(rng.random((8, 8))) + 4 * np.eye(8)
    m = _compile(TRIANGULAR, "x", ["L", "b"])
    inputs = {"L": L, "x": np.zeros(8), "b": rng.random(8)}
    out = _call(m.trisolv, inputs)["x"]
    np.testing.assert_allclose(out, np.linalg.solve(L, inputs["b"]),
                               rtol=1e-12)
    _check(m, "trisolv", inputs, "x", ["L", "b"], (8,))


# A data-dependent trip count: halve until at most 1 (scf.while).
WHILE = """
func.func @halve(%x: memref<f64> {sdfg.name = "x"},
                 %y: memref<f64> {sdfg.name = "y"}) {
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %x0 = memref.load %x[] : memref<f64>
  %r = scf.while (%v = %x0) : (f64) -> f64 {
    %c = arith.cmpf ogt, %v, %one : f64
    scf.condition(%c) %v : f64
  } do {
  ^bb0(%w: f64):
    %n = arith.mulf %w, %half : f64
    scf.yield %n : f64
  }
  memref.store %r, %y[] : memref<f64>
  return
}
"""


def test_while_loop_in_scf():
    m = _compile(WHILE, "y", ["x"])
    inputs = {"x": np.array(37.3), "y": np.array(0.0)}
    assert _call(m.halve, inputs)["y"] == pytest.approx(37.3 / 64)
    got = _call(m.halve_grad, {**inputs, "d_y": np.array(1.0)})
    # Six halvings: dy/dx = 1/64 (away from the points where the trip
    # count changes).
    assert got["d_x"] == pytest.approx(1 / 64, rel=1e-14)
    assert got["ad_status"] == 0
    _check(m, "halve", inputs, "y", ["x"], ())


def test_unsupported_op_is_a_located_error():
    text = """
func.func @f(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  %w = func.call @g(%v) : (f64) -> f64
  memref.store %w, %x[%c0] : memref<4xf64>
  return
}
func.func private @g(f64) -> f64
"""
    with pytest.raises(sdfg.ToolError, match=r"5:\d+: error: .*cannot "
                       r"convert 'func.call'"):
        native.run_passes(text, ["--convert-to-sdfg"])
