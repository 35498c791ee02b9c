// The memory model counts the LU cache the CPU lowering keeps for the
// solves on a matrix (LinearSolve.cpp): a copy of the 4x4 f64 matrix and
// its factors (2 x 128 B) and the i32 pivots (16 B), 272 B, on top of the
// transients x and its gradient (2 x 32 B): 336 B.
// RUN: sdfg-opt %s --sdfg-autodiff="output=out wrt=A,b" --sdfg-checkpoint="strategy=store-all" | FileCheck %s

// CHECK: sdfg.checkpoint = {{{.*}}store_all_peak_bytes = 336 : i64
sdfg.sdfg @lu(%A: memref<4x4xf64> {sdfg.name = "A"},
              %b: memref<4xf64> {sdfg.name = "b"},
              %out: memref<f64> {sdfg.name = "out"}) {
  %x = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.solve %A, %b -> %x : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
    sdfg.reduce add %x -> %out axes [0] : memref<4xf64> -> memref<f64>
  }
}
