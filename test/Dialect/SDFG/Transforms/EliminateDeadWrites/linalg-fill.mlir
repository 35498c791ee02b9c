// linalg's fill-then-accumulate idiom: after --convert-to-sdfg the fill is
// a map of zeros and the matmul an accumulating library op; together they
// are one GEMM that writes its output (beta 0).
// RUN: sdfg-opt %s --convert-to-sdfg --sdfg-eliminate-dead-writes | FileCheck %s

// CHECK-LABEL: sdfg.sdfg @mm
// CHECK-NEXT: sdfg.state {
// CHECK-NEXT: sdfg.matmul %arg0, %arg1 -> %arg2 : memref<4x8xf64>, memref<8x5xf64> -> memref<4x5xf64>
// CHECK-NEXT: }
func.func @mm(%a: memref<4x8xf64>, %b: memref<8x5xf64>, %c: memref<4x5xf64>) {
  %z = arith.constant 0.0 : f64
  linalg.fill ins(%z : f64) outs(%c : memref<4x5xf64>)
  linalg.matmul ins(%a, %b : memref<4x8xf64>, memref<8x5xf64>)
                outs(%c : memref<4x5xf64>)
  return
}
