// RUN: sdfg-opt %s --convert-sdfg-to-std --cse | FileCheck %s

// Matmul, gemv and dot call CBLAS (row-major = 101, no-trans 111, trans 112).
// CHECK-DAG: func.func private @cblas_dgemm(i32, i32, i32, i32, i32, i32, f64, !llvm.ptr, i32, !llvm.ptr, i32, f64, !llvm.ptr, i32)
// CHECK-DAG: func.func private @cblas_sgemv(
// CHECK-DAG: func.func private @cblas_ddot(i32, !llvm.ptr, i32, !llvm.ptr, i32) -> f64
// CHECK-LABEL: func.func @blas
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[NT:.*]] = arith.constant 111 : i32
// CHECK-DAG: %[[T:.*]] = arith.constant 112 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: call @cblas_dgemm(%[[ROW]], %[[T]], %[[NT]], {{.*}}, %[[ONE]], {{.*}}, %[[ONE]], {{.*}})
// CHECK: call @cblas_sgemv(%[[ROW]], %[[NT]],
// CHECK: %[[D:.*]] = call @cblas_ddot(
// CHECK: memref.store %[[D]]
sdfg.sdfg @blas(%A: memref<?x?xf64>, %B: memref<?x?xf64>, %C: memref<?x?xf64>,
                %M: memref<4x3xf32>, %x: memref<3xf32>, %y: memref<4xf32>,
                %u: memref<?xf64>, %r: memref<f64>) {
  sdfg.state {
    sdfg.matmul %A, %B -> %C {transpose_a, accumulate}
        : memref<?x?xf64>, memref<?x?xf64> -> memref<?x?xf64>
    sdfg.gemv %M, %x -> %y : memref<4x3xf32>, memref<3xf32> -> memref<4xf32>
    sdfg.dot %u, %u -> %r : memref<?xf64>, memref<?xf64> -> memref<f64>
  }
}

// Reductions: initialise with the identity, then accumulate in a loop nest.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[INF:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: scf.for
// CHECK: memref.store %[[INF]]
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.maximumf
sdfg.sdfg @reduce(%A: memref<?x?xf64>, %R: memref<?xf64>) {
  sdfg.state {
    sdfg.reduce max %A -> %R axes [1] : memref<?x?xf64> -> memref<?xf64>
  }
}
