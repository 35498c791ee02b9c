// RUN: not sdfg-opt %s --sdfg-lower-to-cpu 2>&1 | FileCheck %s

// An embedding compiler's function beside the sdfgs with undefined
// behaviour that the upstream folders crash on (a fuzzer's mutant of
// test/Conversion/ImportToSDFG/dynamic-shapes.mlir): a located error.
// CHECK: check-host-input.mlir:[[# @LINE + 4]]:8: error: 'memref.dim' op dimension -1 is out of range for a memref of rank 2 (undefined behaviour)
func.func @f(%a: memref<?x?xf64>, %b: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant -1 : index
  %m = memref.dim %a, %c1 : memref<?x?xf64>
  %x = memref.load %a[%c0, %m] : memref<?x?xf64>
  memref.store %x, %b[%c0] : memref<4xf64>
  return
}
