// RUN: sdfg-opt %s --convert-sdfg-to-std=gpu=true -split-input-file -verify-diagnostics

// LAPACK runs on the host: a solve in a GPU program is rejected where it
// is, not lowered to a host call on device memory.
sdfg.sdfg @solve(%A: memref<4x4xf64>, %b: memref<4xf64>, %x: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{'sdfg.solve' op has no GPU lowering (LAPACK runs on the host); compile this program for the CPU}}
    sdfg.solve %A, %b -> %x : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @det(%A: memref<4x4xf64>, %r: memref<f64>) {
  sdfg.state {
    // expected-error @+1 {{'sdfg.det' op has no GPU lowering (LAPACK runs on the host); compile this program for the CPU}}
    sdfg.det det %A -> %r : memref<4x4xf64> -> memref<f64>
  }
}

// -----

sdfg.sdfg @cholesky(%A: memref<4x4xf64>, %L: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{'sdfg.cholesky' op has no GPU lowering (LAPACK runs on the host); compile this program for the CPU}}
    sdfg.cholesky %A -> %L : memref<4x4xf64> -> memref<4x4xf64>
  }
}
