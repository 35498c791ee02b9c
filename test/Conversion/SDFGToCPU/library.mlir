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
// entry block). Row-major A is column-major A^T, so trans = 'T' (84)
// solves A X = B and 'N' (78) A^T X = B; the right-hand sides go in as
// columns. The solves on one matrix share a cache (allocated around the
// top-level steps that use it): a copy of the matrix last factorised, its
// factors and pivots; getrf runs only when memcmp finds the matrix
// changed. A zero pivot fills X with NaN and stores the op's line in
// @sdfg_linalg_error.
// CHECK-LABEL: func.func @solve
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<3x3xf64>
// CHECK-NEXT: %[[LU:.*]] = memref.alloc() : memref<3x3xf64>
// CHECK-NEXT: %[[PIV:.*]] = memref.alloc() : memref<3xi32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-NEXT: memref.store %[[ZERO]], %[[VALID:.*]][] : memref<i8>
// CHECK: scf.for
// CHECK: memref.load %[[VALID]][] : memref<i8>
// CHECK: scf.if %{{.*}} -> (i1) {
// CHECK: call @memcmp(%{{.*}}, %{{.*}}, %c72_i64)
// CHECK: } else {
// CHECK: scf.if
// CHECK-NEXT: memref.copy %{{.*}}, %[[COPY]]
// CHECK-NEXT: memref.copy %{{.*}}, %[[LU]]
// CHECK: call @dgetrf_(
// CHECK: memref.store %{{.*}}, %[[VALID]][] : memref<i8>
// CHECK: %[[COLS:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK: %[[OK:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK: arith.cmpi eq, %[[OK]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[COLS]][%{{.*}}, %{{.*}}]
// CHECK: arith.constant 84 : i8
// CHECK: call @dgetrs_(
// CHECK: } else {
// CHECK: arith.constant 0x7FF8000000000000 : f64
// CHECK: %[[FLAG:.*]] = memref.get_global @sdfg_linalg_error
// CHECK: %[[LINE:.*]] = arith.constant [[#@LINE+13]] : i64
// CHECK: memref.store %[[LINE]], %[[FLAG]][]
// CHECK: memref.dealloc %[[COLS]]
// CHECK: memref.dealloc %[[COPY]]
// CHECK-NEXT: memref.dealloc %[[LU]]
// CHECK-NEXT: memref.dealloc %[[PIV]]
// CHECK: call @sgetrf_(
// CHECK: arith.constant 78 : i8
// CHECK: call @sgetrs_(
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
