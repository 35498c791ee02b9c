// The memory model counts the eigendecomposition cache the CPU lowering
// keeps for the eigh ops on a matrix (LinearSolve.cpp), from the forward's
// eigensolve to the reverse rule's: a copy of the 4x4 f64 matrix and the
// eigenvectors (2 x 128 B) and the eigenvalues (32 B), 288 B. At the peak,
// in the reverse state, it is on top of the rule's three 4x4 scratch
// matrices (the recomputed vectors, V diag(dw), V diag(dw) V^T: 384 B) and
// the gradient of w (32 B): 704 B.
// RUN: sdfg-opt %s --sdfg-autodiff="output=out wrt=A" --sdfg-checkpoint="strategy=store-all" | FileCheck %s

// CHECK: sdfg.checkpoint = {{{.*}}store_all_peak_bytes = 704 : i64
sdfg.sdfg @eig(%A: memref<4x4xf64> {sdfg.name = "A"},
               %out: memref<f64> {sdfg.name = "out"}) {
  %w = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.eigh values %A -> %w : memref<4x4xf64> -> memref<4xf64>
    sdfg.reduce add %w -> %out axes [0] : memref<4xf64> -> memref<f64>
  }
}
