// RUN: sdfg-opt %s -split-input-file --sdfg-lower-to-cpu -verify-diagnostics \
// RUN:   | FileCheck %s
// RUN: sdfg-opt %s -split-input-file --sdfg-lower-to-gpu-emulator \
// RUN:   -verify-diagnostics | FileCheck %s
// What the pipelines do not lower fails with an error at the op, instead of
// passing and leaving the translation to LLVM IR to fail on a cast.

// A linalg op on memrefs beside the sdfgs (an embedding compiler's code)
// is lowered to loops.
// CHECK-LABEL: llvm.func @fill(
// CHECK-NOT: linalg
// CHECK: llvm.store
func.func @fill(%x: memref<4xf64>, %v: f64) {
  linalg.fill ins(%v : f64) outs(%x : memref<4xf64>)
  return
}

// -----

// On tensors it is not: one error for the two fills.
func.func @fill_tensor(%x: tensor<4xf64>, %v: f64) -> tensor<4xf64> {
  // expected-error @below {{'linalg.fill' is not lowered to the LLVM dialect by this pipeline}}
  %r = linalg.fill ins(%v : f64) outs(%x : tensor<4xf64>) -> tensor<4xf64>
  %s = linalg.fill ins(%v : f64) outs(%r : tensor<4xf64>) -> tensor<4xf64>
  return %s : tensor<4xf64>
}

// -----

// expected-error @below {{function @pass_tensor is not lowered to the LLVM dialect: its type '(tensor<4xf64>) -> tensor<4xf64>' has no LLVM form}}
func.func @pass_tensor(%x: tensor<4xf64>) -> tensor<4xf64> {
  return %x : tensor<4xf64>
}

// -----

func.func @vector(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  // expected-error @below {{'vector.transfer_read' is not lowered}}
  %v = vector.transfer_read %x[%c0], %z : memref<4xf64>, vector<4xf64>
  %w = arith.addf %v, %v : vector<4xf64>
  // expected-error @below {{'vector.transfer_write' is not lowered}}
  vector.transfer_write %w, %x[%c0] : vector<4xf64>, memref<4xf64>
  return
}

// -----

// The LLVM dialect and OpenMP are what the pipelines leave: accepted.
// CHECK-LABEL: llvm.func @done
// CHECK: omp.parallel
llvm.func @done(%n: i64, %p: !llvm.ptr) {
  omp.parallel {
    llvm.store %n, %p : i64, !llvm.ptr
    omp.terminator
  }
  llvm.return
}
