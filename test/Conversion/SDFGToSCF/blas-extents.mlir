// RUN: sdfg-opt %s -split-input-file --convert-sdfg-to-scf -verify-diagnostics | FileCheck %s

// BLAS and LAPACK take 32-bit integers (Debian's OpenBLAS is LP64): a
// matrix of more than 2^31-1 rows was passed as a negative M. A static
// extent past that is an error at the op.
sdfg.sdfg @tall(%A: memref<2147483648x2xf64>, %B: memref<2x2xf64>,
                %C: memref<2147483648x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{extent 2147483648 of 'memref<2147483648x2xf64>' exceeds the 32-bit integers of the BLAS/LAPACK interface (at most 2^31-1)}}
    sdfg.matmul %A, %B -> %C
        : memref<2147483648x2xf64>, memref<2x2xf64> -> memref<2147483648x2xf64>
  }
}

// -----

// A dynamic extent is checked when the program runs: a failure goes to the
// index record with axis -4 (Python raises ValueError).
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[DIM:.*]] = memref.dim
// CHECK: %[[LIMIT:.*]] = arith.constant 2147483647 : index
// CHECK: arith.cmpi sle, %[[DIM]], %[[LIMIT]]
// CHECK: arith.constant -4 : i64
// CHECK: call @cblas_ddot(
sdfg.sdfg @dynamic(%u: memref<?xf64>, %r: memref<f64>) {
  sdfg.state {
    sdfg.dot %u, %u -> %r : memref<?xf64>, memref<?xf64> -> memref<f64>
  }
}
