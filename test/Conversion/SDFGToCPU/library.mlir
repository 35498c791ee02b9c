// RUN: sdfg-opt %s --convert-sdfg-to-std --cse | FileCheck %s

// Matmul, gemv and dot call CBLAS (row-major = 101, no-trans 111, trans 112).
// CHECK-DAG: func.func private @cblas_dgemm(i32, i32, i32, i32, i32, i32, f64, !llvm.ptr, i32, !llvm.ptr, i32, f64, !llvm.ptr, i32)
// CHECK-DAG: func.func private @cblas_sgemv(
// CHECK-DAG: func.func private @cblas_ddot(i32, !llvm.ptr, i32, !llvm.ptr, i32) -> f64
// The solve test's declarations (see below).
// CHECK-DAG: memref.global @sdfg_linalg_error : memref<i64> = dense<0>
// CHECK-DAG: func.func private @dgetrf_(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: func.func private @dgetrs_(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64)
// CHECK-DAG: func.func private @sgetrf_(
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

// Solve: LAPACK getrf/getrs (Fortran: scalars by reference, slots in the
// entry block) on copies of A (row-major A is column-major A^T, so
// trans = 'T' (84) solves A X = B and 'N' (78) A^T X = B) and of the
// right-hand sides as columns; a zero pivot fills X with NaN and stores
// the op's line in @sdfg_linalg_error.
// CHECK-LABEL: func.func @solve
// CHECK-NEXT: memref.alloca() : memref<i8>
// CHECK: scf.for
// CHECK: %[[LU:.*]] = memref.alloc() : memref<3x3xf64>
// CHECK: memref.copy %{{.*}}, %[[LU]]
// CHECK: %[[COLS:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK: memref.store %{{.*}}, %[[COLS]][%[[J:.*]], %[[I:.*]]]
// CHECK: %[[T:.*]] = arith.constant 84 : i8
// CHECK: memref.store %[[T]], %{{.*}}[] : memref<i8>
// CHECK: call @dgetrf_(
// CHECK: %[[OK:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK: arith.cmpi eq, %[[OK]]
// CHECK: scf.if
// CHECK: call @dgetrs_(
// CHECK: } else {
// CHECK: arith.constant 0x7FF8000000000000 : f64
// CHECK: %[[FLAG:.*]] = memref.get_global @sdfg_linalg_error
// CHECK: %[[LINE:.*]] = arith.constant [[#@LINE+9]] : i64
// CHECK: memref.store %[[LINE]], %[[FLAG]][]
// CHECK: memref.dealloc %[[LU]]
// CHECK: arith.constant 78 : i8
// CHECK: call @sgetrf_(
sdfg.sdfg @solve(%A: memref<3x3xf64>, %B: memref<3x2xf64>, %X: memref<3x2xf64>,
                 %F: memref<3x3xf32>, %y: memref<3xf32>) {
  sdfg.loop %t = 0 to 4 step 1 {
    sdfg.state {
      sdfg.solve %A, %B -> %X : memref<3x3xf64>, memref<3x2xf64> -> memref<3x2xf64>
    }
  }
  sdfg.state {
    sdfg.solve %F, %y -> %y {transpose} : memref<3x3xf32>, memref<3xf32> -> memref<3xf32>
  }
}
