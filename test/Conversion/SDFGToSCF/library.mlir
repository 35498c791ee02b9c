// RUN: sdfg-opt %s --convert-sdfg-to-scf --cse | FileCheck %s

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

// GER: an accumulating one calls cblas_dger (order, m, n, alpha, x, 1,
// y, 1, A, lda); an overwriting one is the GEMM of x (m x 1, lda 1) and
// y (1 x n) with beta = 0.
// CHECK-LABEL: func.func @outer(
// CHECK-DAG: %[[ROW:.*]] = arith.constant 101 : i32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[M:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK: %[[X:.*]] = llvm.inttoptr
// CHECK: %[[I1:.*]] = arith.constant 1 : i32
// CHECK: %[[Y:.*]] = llvm.inttoptr
// CHECK: %[[A:.*]] = llvm.inttoptr
// CHECK: %[[LDA:.*]] = arith.maxsi %[[N]], %[[I1]]
// CHECK: call @cblas_dger(%[[ROW]], %[[M]], %[[N]], %[[ONE]], %[[X]], %[[I1]], %[[Y]], %[[I1]], %[[A]], %[[LDA]])
// CHECK: %[[NT:.*]] = arith.constant 111 : i32
// CHECK: %[[LDB:.*]] = arith.maxsi
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[B:.*]] = llvm.inttoptr
// CHECK: call @cblas_dgemm(%[[ROW]], %[[NT]], %[[NT]], %{{.*}}, %{{.*}}, %[[I1]], %[[ONE]], %[[X]], %[[I1]], %[[Y]], %[[LDB]], %[[ZERO]], %[[B]], %[[LDB]])
sdfg.sdfg @outer(%x: memref<4xf64>, %y: memref<3xf64>, %A: memref<4x3xf64>,
                 %B: memref<4x3xf64>) {
  sdfg.state {
    sdfg.ger %x, %y -> %A {accumulate} : memref<4xf64>, memref<3xf64> -> memref<4x3xf64>
    sdfg.ger %x, %y -> %B : memref<4xf64>, memref<3xf64> -> memref<4x3xf64>
  }
}

// Batched GEMMs. A stack times a matrix is one GEMM over the stacked rows
// (M = batch * m); the gradient of the shared matrix, sum_b X[b]^T Y[b],
// one GEMM over the stacked inner dimension (K = batch * k). Otherwise one
// GEMM per batch entry at the entries' offsets (bytes: entry * m * n * 8);
// a shared output sums them, the first one overwriting (beta 0).
// CHECK-LABEL: func.func @batched
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[M:.*]] = arith.index_cast %[[ROWS]] : index to i32
// CHECK: call @cblas_dgemm(%{{.*}}, %c111_i32, %c111_i32, %[[M]],
// CHECK: %[[INNER:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[K:.*]] = arith.index_cast %[[INNER]] : index to i32
// CHECK: call @cblas_dgemm(%{{.*}}, %c112_i32, %c111_i32, %{{.*}}, %{{.*}}, %[[K]],
// CHECK: scf.for %[[B:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: %[[ENTRY:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[ENTRY]], %c8 : index
// CHECK: arith.addi %{{.*}}, %[[BYTES]] : index
// CHECK: call @cblas_dgemm(%{{.*}}, %c111_i32, %c112_i32,
// CHECK: }
// CHECK: scf.for %[[B2:.*]] = %c0 to
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[B2]], %c0 : index
// CHECK: %[[BETA:.*]] = arith.select %[[FIRST]], %[[ZERO]], %[[ONE]] : f64
// CHECK: call @cblas_dgemm({{.*}}, %[[BETA]], %{{.*}}, %{{.*}})
sdfg.sdfg @batched(%X: memref<8x32x16xf64>, %W: memref<16x4xf64>,
                   %Y: memref<8x32x4xf64>, %dW: memref<16x4xf64>,
                   %A: memref<8x5x6xf64>, %B: memref<8x7x6xf64>,
                   %C: memref<8x5x7xf64>, %S: memref<5x7xf64>) {
  sdfg.state {
    sdfg.matmul %X, %W -> %Y : memref<8x32x16xf64>, memref<16x4xf64> -> memref<8x32x4xf64>
    sdfg.matmul %X, %Y -> %dW {transpose_a} : memref<8x32x16xf64>, memref<8x32x4xf64> -> memref<16x4xf64>
    sdfg.matmul %A, %B -> %C {transpose_b} : memref<8x5x6xf64>, memref<8x7x6xf64> -> memref<8x5x7xf64>
    sdfg.matmul %A, %B -> %S {transpose_b} : memref<8x5x6xf64>, memref<8x7x6xf64> -> memref<5x7xf64>
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
// entry block), on a transposed copy of A (LAPACK is column-major), so
// trans = 'N' (78) solves A X = B and 'T' (84) A^T X = B; the right-hand
// sides go in as columns. The solves on one matrix share a cache (allocated around the
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
// CHECK: memref.store %{{.*}}, %[[LU]][%[[J:.*]], %[[I:.*]]]
// CHECK: call @dgetrf_(
// CHECK: memref.store %{{.*}}, %[[VALID]][] : memref<i8>
// CHECK: %[[COLS:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK: %[[OK:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK: arith.cmpi eq, %[[OK]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[COLS]][%{{.*}}, %{{.*}}]
// CHECK: arith.constant 78 : i8
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
// CHECK: arith.constant 84 : i8
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

// Determinants: the factors from the cache the solves on the same matrix
// share, then a loop over U's diagonal, carrying the product (or the sum
// of log|U_ii|, or the product of signs) and the parity of the row
// interchanges (pivot i+1 means none); odd parity negates.
// CHECK-LABEL: func.func @det
// CHECK: call @memcmp(
// CHECK: call @dgetrf_(
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[ODD:.*]] = %false)
// CHECK: %[[U:.*]] = memref.load %{{.*}}[%[[I]], %[[I]]]
// CHECK: %[[P:.*]] = memref.load %{{.*}}[%[[I]]] : memref<4xi32>
// CHECK: arith.cmpi ne, %[[P]]
// CHECK: arith.xori %[[ODD]]
// CHECK: arith.mulf %[[ACC]], %[[U]]
// CHECK: %[[NEG:.*]] = arith.negf %[[LOOP]]#0
// CHECK: arith.select %[[LOOP]]#1, %[[NEG]], %[[LOOP]]#0
// CHECK: math.absf
// CHECK: math.log
// CHECK: call @dgetrs_(
sdfg.sdfg @det(%A: memref<4x4xf64>, %d: memref<f64>, %l: memref<f64>,
               %b: memref<4xf64>) {
  sdfg.state {
    sdfg.det det %A -> %d : memref<4x4xf64> -> memref<f64>
    sdfg.det logabs %A -> %l : memref<4x4xf64> -> memref<f64>
    sdfg.solve %A, %b -> %b : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
  }
}

// Cholesky: potrf('L' = 76) on a column-major copy (the transposed copy),
// then L = the lower triangle (row >= column), zeros above; not positive
// definite: NaN and the line in @sdfg_linalg_error.
// CHECK-LABEL: func.func @cholesky
// CHECK: %[[F:.*]] = memref.alloc() : memref<4x4xf64>
// CHECK: memref.store %{{.*}}, %[[F]][%[[J:.*]], %[[I:.*]]]
// CHECK: arith.constant 76 : i8
// CHECK: call @dpotrf_(
// CHECK: scf.if
// CHECK: %[[LOWER:.*]] = arith.cmpi uge, %[[R:.*]], %[[C:.*]] : index
// CHECK: %[[V:.*]] = memref.load %[[F]][%[[C]], %[[R]]]
// CHECK: arith.select %[[LOWER]], %[[V]], %{{.*}} : f64
// CHECK: } else {
// CHECK: memref.get_global @sdfg_linalg_error
// CHECK: memref.dealloc %[[F]]
sdfg.sdfg @cholesky(%A: memref<4x4xf64>, %L: memref<4x4xf64>) {
  sdfg.state {
    sdfg.cholesky %A -> %L : memref<4x4xf64> -> memref<4x4xf64>
  }
}

// Symmetric eigenproblems: syevd ('N' = 78 or 'V' = 86, 'L' = 76) on a
// column-major copy, once to query the workspace (lwork = -1), once to
// solve; eigenvectors are the copy's columns, V[i, k] = F[k, i] in memref
// indexing; no convergence: NaN and the line in @sdfg_linalg_error. The
// ops on one matrix share a cache (a copy of the matrix, the column-major
// vectors, the values; state 0 empty, 1 values, 2 both): syevd runs only
// when memcmp finds the matrix changed or the vectors are wanted and not
// there, so the values after the vectors are a copy.
// CHECK-LABEL: func.func @eigh
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<4x4xf64>
// CHECK-NEXT: %[[F:.*]] = memref.alloc() : memref<4x4xf64>
// CHECK-NEXT: %[[W:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK-NEXT: memref.store %[[ZERO]], %[[STATE:.*]][] : memref<i8>
// CHECK: %[[TWO:.*]] = arith.constant 2 : i8
// CHECK-NEXT: %[[S:.*]] = memref.load %[[STATE]][] : memref<i8>
// CHECK-NEXT: arith.cmpi uge, %[[S]], %[[TWO]] : i8
// CHECK: call @memcmp(%{{.*}}, %{{.*}}, %c128_i64)
// CHECK: scf.if
// CHECK-NEXT: memref.copy %{{.*}}, %[[COPY]]
// CHECK: arith.constant 86 : i8
// CHECK: arith.constant 76 : i8
// CHECK: arith.constant -1 : i32
// CHECK: call @dsyevd_(
// CHECK: call @dsyevd_(
// CHECK: memref.store %[[TWO]], %[[STATE]][] : memref<i8>
// CHECK: scf.if
// CHECK: %[[V:.*]] = memref.load %[[F]][%[[K:.*]], %[[I:.*]]] : memref<4x4xf64>
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]], %[[K]]]
// CHECK: memref.get_global @sdfg_linalg_error
// CHECK: %[[ONE:.*]] = arith.constant 1 : i8
// CHECK: arith.cmpi uge, %{{.*}}, %[[ONE]] : i8
// CHECK: call @memcmp(
// CHECK: arith.constant 78 : i8
// CHECK: call @dsyevd_(
// CHECK: call @dsyevd_(
// CHECK: memref.store %[[ONE]], %[[STATE]][] : memref<i8>
// CHECK: memref.load %[[W]]
// CHECK: memref.dealloc %[[COPY]]
// CHECK-NEXT: memref.dealloc %[[F]]
// CHECK-NEXT: memref.dealloc %[[W]]
sdfg.sdfg @eigh(%A: memref<4x4xf64>, %w: memref<4xf64>, %V: memref<4x4xf64>) {
  sdfg.state {
    sdfg.eigh vectors %A -> %V : memref<4x4xf64> -> memref<4x4xf64>
    sdfg.eigh values %A -> %w : memref<4x4xf64> -> memref<4xf64>
  }
}

// QR: geqrf on the column-major copy (a workspace query first, lwork -1).
// The ops on one matrix share a cache (a copy of the matrix, geqrf's
// factors and scalars, the formed Q; state 0 empty, 1 factors, 2 and Q):
// geqrf runs on a miss (memcmp), orgqr (m, k, k) forms Q from a copy of
// the factors once; R reads the factors, zero below the diagonal.
// CHECK-LABEL: func.func @qr
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<6x4xf64>
// CHECK-NEXT: %[[F:.*]] = memref.alloc() : memref<4x6xf64>
// CHECK-NEXT: %[[TAU:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT: %[[Q:.*]] = memref.alloc() : memref<4x6xf64>
// CHECK: call @memcmp(
// CHECK: memref.copy %{{.*}}, %[[COPY]]
// CHECK: arith.constant -1 : i32
// CHECK: call @dgeqrf_(
// CHECK: call @dgeqrf_(
// CHECK: arith.cmpi uge, %{{.*}}, %c2_i8 : i8
// CHECK: } else {
// CHECK: call @dorgqr_(
// CHECK: call @dorgqr_(
// CHECK: %[[QV:.*]] = memref.load %[[Q]][%[[C:.*]], %[[I:.*]]] : memref<4x6xf64>
// CHECK-NEXT: memref.store %[[QV]], %{{.*}}[%[[I]], %[[C]]] : memref<6x4xf64>
// CHECK: call @memcmp(
// CHECK: %[[RV:.*]] = memref.load %[[F]][%[[J:.*]], %[[K:.*]]] : memref<4x6xf64>
// CHECK-NEXT: %[[UPPER:.*]] = arith.cmpi ule, %[[K]], %[[J]] : index
// CHECK-NEXT: %[[KEPT:.*]] = arith.select %[[UPPER]], %[[RV]], %{{.*}} : f64
// CHECK-NEXT: memref.store %[[KEPT]], %{{.*}}[%[[K]], %[[J]]] : memref<4x4xf64>
// CHECK: memref.dealloc %[[COPY]]
sdfg.sdfg @qr(%A: memref<6x4xf64>, %Q: memref<6x4xf64>, %R: memref<4x4xf64>) {
  sdfg.state {
    sdfg.qr q %A -> %Q : memref<6x4xf64> -> memref<6x4xf64>
    sdfg.qr r %A -> %R : memref<6x4xf64> -> memref<4x4xf64>
  }
}

// Dynamic shapes: no cache, geqrf (and orgqr in place) per op.
// CHECK-LABEL: func.func @qr_dynamic
// CHECK: %[[F:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK: call @dgeqrf_(
// CHECK: call @dgeqrf_(
// CHECK: call @dorgqr_(
// CHECK: call @dorgqr_(
// CHECK: memref.load %[[F]]
// CHECK: memref.dealloc %[[F]]
sdfg.sdfg @qr_dynamic(%A: memref<?x?xf64>, %Q: memref<?x?xf64>) {
  sdfg.state {
    sdfg.qr q %A -> %Q : memref<?x?xf64> -> memref<?x?xf64>
  }
}

// SVD: gesdd on a column-major copy, jobz 'S' (83) for the vectors and the
// values beside them, 'N' (78) for the values alone; a workspace query
// first; no convergence: NaN and the line in @sdfg_linalg_error. The ops
// on one matrix share a cache (the matrix, s, U, Vh; state 0 empty, 1
// values, 2 vectors): the values after the vectors reuse that call.
// CHECK-LABEL: func.func @svd
// CHECK: %[[COPY:.*]] = memref.alloc() : memref<6x4xf64>
// CHECK-NEXT: %[[S:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT: %[[U:.*]] = memref.alloc() : memref<4x6xf64>
// CHECK-NEXT: %[[VT:.*]] = memref.alloc() : memref<4x4xf64>
// CHECK: arith.cmpi uge, %{{.*}}, %c2_i8 : i8
// CHECK: call @memcmp(
// CHECK: arith.constant 83 : i8
// CHECK: call @dgesdd_(
// CHECK: call @dgesdd_(
// CHECK: memref.store %c2_i8
// CHECK: %[[UV:.*]] = memref.load %[[U]][%[[C:.*]], %[[I:.*]]] : memref<4x6xf64>
// CHECK-NEXT: memref.store %[[UV]], %{{.*}}[%[[I]], %[[C]]] : memref<6x4xf64>
// CHECK: memref.get_global @sdfg_linalg_error
// CHECK: arith.cmpi uge, %{{.*}}, %c1_i8 : i8
// CHECK: arith.constant 78 : i8
// CHECK: call @dgesdd_(
// CHECK: %[[SV:.*]] = memref.load %[[S]][%[[K:.*]]] : memref<4xf64>
// CHECK-NEXT: memref.store %[[SV]], %{{.*}}[%[[K]]] : memref<4xf64>
// CHECK: memref.dealloc %[[COPY]]
sdfg.sdfg @svd(%A: memref<6x4xf64>, %U: memref<6x4xf64>, %s: memref<4xf64>) {
  sdfg.state {
    sdfg.svd u %A -> %U : memref<6x4xf64> -> memref<6x4xf64>
    sdfg.svd s %A -> %s : memref<6x4xf64> -> memref<4xf64>
  }
}

// Dynamic shapes: no cache, syevd per op into scratch.
// CHECK-LABEL: func.func @eigh_dynamic
// CHECK-NOT: memcmp
// CHECK: %[[F:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?xf64>
// CHECK: call @dsyevd_(
// CHECK: call @dsyevd_(
// CHECK: memref.dealloc %[[F]]
sdfg.sdfg @eigh_dynamic(%A: memref<?x?xf64>, %w: memref<?xf64>) {
  sdfg.state {
    sdfg.eigh values %A -> %w : memref<?x?xf64> -> memref<?xf64>
  }
}

// A constant factor is the GEMM's alpha.
// CHECK-LABEL: func.func @scaled
// CHECK: %[[ALPHA:.*]] = arith.constant 1.250000e-01 : f64
// CHECK: call @cblas_dgemm(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ALPHA]],
sdfg.sdfg @scaled(%A: memref<4x3xf64>, %B: memref<3x5xf64>, %C: memref<4x5xf64>) {
  sdfg.state {
    sdfg.matmul %A, %B -> %C {alpha = 0.125 : f64} : memref<4x3xf64>, memref<3x5xf64> -> memref<4x5xf64>
  }
}

// argsort: per line, (key, position) pairs copied into scratch, insertion
// sort of short runs, merge passes of doubling width between two pairs of
// buffers picked by a flag, then the
// positions of the pair holding the result. The merge takes the right run's
// head only when it sorts strictly before the left's (stable), NaNs last.
// CHECK-LABEL: func.func @argsort
// CHECK-NOT: scf.parallel
// CHECK: scf.for %[[LINE:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: %[[K0:.*]] = memref.alloc(%[[N:.*]]) : memref<?xf64>
// CHECK-NEXT: %[[K1:.*]] = memref.alloc(%[[N]]) : memref<?xf64>
// CHECK-NEXT: %[[P0:.*]] = memref.alloc(%[[N]]) : memref<?xi64>
// CHECK-NEXT: %[[P1:.*]] = memref.alloc(%[[N]]) : memref<?xi64>
// CHECK: %[[KEY:.*]] = memref.load %{{.*}}[%[[LINE]], %[[K:.*]]] : memref<5x7xf64>
// CHECK-NEXT: memref.store %[[KEY]], %[[K0]][%[[K]]]
// CHECK-NEXT: %[[POS:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT: memref.store %[[POS]], %[[P0]][%[[K]]]
// Runs of 16 sorted by insertion first: a key moves left while it sorts
// strictly before its neighbour (stable).
// CHECK: scf.for %[[LO:.*]] = %c0 to %[[N]] step %c16 {
// CHECK: %[[KEY2:.*]] = memref.load %[[K0]][%[[I:.*]]] : memref<?xf64>
// CHECK: %[[J:.*]] = scf.while
// CHECK: %[[PREV:.*]] = memref.load %[[K0]]
// CHECK-NEXT: arith.cmpf olt, %[[KEY2]], %[[PREV]] : f64
// CHECK: memref.store %[[KEY2]], %[[K0]][%[[J]]]
// CHECK: %[[PASSES:.*]]:2 = scf.while (%[[W:.*]] = %c16, %[[F:.*]] = %false)
// CHECK: arith.cmpi slt, %{{.*}}, %[[N]] : index
// CHECK: arith.select %{{.*}}, %[[K1]], %[[K0]] : memref<?xf64>
// CHECK: arith.select %{{.*}}, %[[P1]], %[[P0]] : memref<?xi64>
// CHECK: arith.select %{{.*}}, %[[K0]], %[[K1]] : memref<?xf64>
// CHECK: arith.select %{{.*}}, %[[P0]], %[[P1]] : memref<?xi64>
// CHECK: scf.for {{.*}} iter_args
// CHECK: %[[LEFT:.*]] = memref.load %{{.*}} : memref<?xf64>
// CHECK-NEXT: %[[RIGHT:.*]] = memref.load %{{.*}} : memref<?xf64>
// CHECK: arith.cmpf olt, %[[RIGHT]], %[[LEFT]] : f64
// CHECK-NEXT: arith.cmpf uno, %[[LEFT]], %[[LEFT]] : f64
// CHECK-NEXT: arith.cmpf ord, %[[RIGHT]], %[[RIGHT]] : f64
// CHECK: %[[SORTED:.*]] = arith.select %[[PASSES]]#1, %[[P1]], %[[P0]] : memref<?xi64>
// CHECK: %[[V:.*]] = memref.load %[[SORTED]]
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[LINE]], %{{.*}}] : memref<5x7xi64>
// CHECK: memref.dealloc %[[K0]]
sdfg.sdfg @argsort(%a: memref<5x7xf64>, %p: memref<5x7xi64>) {
  sdfg.state {
    sdfg.argsort %a axis 1 -> %p : memref<5x7xf64> -> memref<5x7xi64>
  }
}

// Enough work: the lines (here along the first axis, so one per column)
// are sorted in parallel, each with its own scratch.
// CHECK-LABEL: func.func @argsort_columns
// CHECK: scf.parallel (%[[COL:.*]]) =
// CHECK-NEXT: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[COL]]] : memref<64x512xf32>
sdfg.sdfg @argsort_columns(%a: memref<64x512xf32>, %p: memref<64x512xi64>) {
  sdfg.state {
    sdfg.argsort %a axis 0 -> %p : memref<64x512xf32> -> memref<64x512xi64>
  }
}

// Lines of 256 and more: a radix sort of the keys' ordered bits (-0.0
// made +0.0, negatives all bits flipped, others the sign bit, NaNs the
// largest key), one byte a pass: the counts of all 8 bytes in one sweep,
// then a scatter per byte of (key, position) into its byte's next slot.
// CHECK-LABEL: func.func @argsort_long
// CHECK: %[[COUNTS:.*]] = memref.alloc() : memref<8x256xindex>
// CHECK: %[[X:.*]] = memref.load %{{.*}} : memref<4096xf64>
// CHECK: %[[PLUS:.*]] = arith.addf %[[X]], %{{.*}} : f64
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[PLUS]] : f64 to i64
// CHECK-NEXT: %{{.*}} = arith.constant 0 : i64
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[BITS]], %{{.*}} : i64
// CHECK: %[[FLIP:.*]] = arith.select %[[NEG]], %{{.*}}, %{{.*}} : i64
// CHECK-NEXT: %[[U:.*]] = arith.xori %[[BITS]], %[[FLIP]] : i64
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK-NEXT: %[[KEY:.*]] = arith.select %[[NAN]], %{{.*}}, %[[U]] : i64
// CHECK: arith.shrui %[[KEY]], %{{.*}} : i64
// The scatter of the lowest byte, skipped where all keys share it.
// CHECK: scf.if %{{.*}} -> (i1)
// CHECK: } else {
// CHECK: %[[K:.*]] = memref.load %{{.*}} : memref<?xi64>
// CHECK-NEXT: %{{.*}} = arith.andi %[[K]], %{{.*}} : i64
// CHECK: %[[SLOT:.*]] = memref.load %[[COUNTS]]
// CHECK: memref.store %[[K]], %{{.*}}[%[[SLOT]]] : memref<?xi64>
// CHECK-NOT: scf.while
// CHECK: memref.dealloc %[[COUNTS]]
sdfg.sdfg @argsort_long(%a: memref<4096xf64>, %p: memref<4096xi64>) {
  sdfg.state {
    sdfg.argsort %a axis 0 -> %p : memref<4096xf64> -> memref<4096xi64>
  }
}

// Integer keys compare signed (lines of unknown length: radix or merge
// sort, chosen at run time).
// CHECK-LABEL: func.func @argsort_ints
// CHECK: arith.cmpi sge, %{{.*}}, %c256 : index
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
sdfg.sdfg @argsort_ints(%a: memref<?xi32>, %p: memref<?xi64>) {
  sdfg.state {
    sdfg.argsort %a axis 0 -> %p : memref<?xi32> -> memref<?xi64>
  }
}

// searchsorted: a binary search per value over [lo, hi). Right side: the
// search moves past every element v does not sort before (NaNs last).
// CHECK-LABEL: func.func @searchsorted
// CHECK-NOT: scf.parallel
// CHECK: %[[N:.*]] = memref.dim %[[XP:.*]], %c0 : memref<8xf64>
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK-NEXT: %[[V:.*]] = memref.load %{{.*}}[%[[I]]] : memref<50xf64>
// CHECK-NEXT: %[[R:.*]]:2 = scf.while (%[[LO:.*]] = %c0, %[[HI:.*]] = %[[N]])
// CHECK-NEXT: %[[OPEN:.*]] = arith.cmpi ult, %[[LO]], %[[HI]] : index
// CHECK-NEXT: scf.condition(%[[OPEN]]) %[[LO]], %[[HI]]
// CHECK: ^bb0(%[[LO2:.*]]: index, %[[HI2:.*]]: index):
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[LO2]], %[[HI2]] : index
// CHECK-NEXT: %[[MID:.*]] = arith.shrui %[[SUM]], %c1 : index
// CHECK-NEXT: %[[X:.*]] = memref.load %[[XP]][%[[MID]]] : memref<8xf64>
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[V]], %[[X]] : f64
// CHECK-NEXT: %[[XNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f64
// CHECK-NEXT: %[[VNUM:.*]] = arith.cmpf ord, %[[V]], %[[V]] : f64
// CHECK-NEXT: %[[NANAFTER:.*]] = arith.andi %[[XNAN]], %[[VNUM]] : i1
// CHECK-NEXT: %[[BEFORE:.*]] = arith.ori %[[LT]], %[[NANAFTER]] : i1
// CHECK-NEXT: %[[PAST:.*]] = arith.xori %[[BEFORE]], %true : i1
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[MID]], %c1 : index
// CHECK-NEXT: %[[NLO:.*]] = arith.select %[[PAST]], %[[NEXT]], %[[LO2]] : index
// CHECK-NEXT: %[[NHI:.*]] = arith.select %[[PAST]], %[[HI2]], %[[MID]] : index
// CHECK-NEXT: scf.yield %[[NLO]], %[[NHI]]
// CHECK: %[[POS:.*]] = arith.index_cast %[[R]]#0 : index to i64
// CHECK-NEXT: memref.store %[[POS]], %{{.*}}[%[[I]]] : memref<50xi64>
sdfg.sdfg @searchsorted(%x: memref<50xf64>, %xp: memref<8xf64>, %j: memref<50xi64>) {
  sdfg.state {
    sdfg.searchsorted %x in %xp right -> %j : memref<50xf64> in memref<8xf64> -> memref<50xi64>
  }
}

// Left side, one value: the search moves past the elements that sort
// before it.
// CHECK-LABEL: func.func @searchsorted_scalar
// CHECK: %[[V:.*]] = memref.load %{{.*}}[] : memref<f64>
// CHECK: scf.while
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xf64>
// CHECK-NEXT: arith.cmpf olt, %[[X]], %[[V]] : f64
// CHECK-NOT: arith.xori
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<i64>
sdfg.sdfg @searchsorted_scalar(%x: memref<f64>, %xp: memref<?xf64>, %j: memref<i64>) {
  sdfg.state {
    sdfg.searchsorted %x in %xp -> %j : memref<f64> in memref<?xf64> -> memref<i64>
  }
}

// Enough searches: the values' rows in parallel; integers compare signed.
// CHECK-LABEL: func.func @searchsorted_many
// CHECK: scf.parallel (%[[ROW:.*]]) =
// CHECK-NEXT: scf.for %[[COL:.*]] =
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW]], %[[COL]]] : memref<512x64xi32>
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
sdfg.sdfg @searchsorted_many(%x: memref<512x64xi32>, %xp: memref<1000xi32>, %j: memref<512x64xi64>) {
  sdfg.state {
    sdfg.searchsorted %x in %xp -> %j : memref<512x64xi32> in memref<1000xi32> -> memref<512x64xi64>
  }
}
