// RUN: sdfg-opt %s | sdfg-opt | FileCheck %s
// RUN: sdfg-opt %s --mlir-print-op-generic | sdfg-opt | FileCheck %s
// Every op of the dialect parses, verifies, prints and parses back.

// CHECK-LABEL: sdfg.sdfg @control
// CHECK-SAME: (%A: memref<?x?xf64> {sdfg.name = "A"}, %N: index {sdfg.name = "N"}, %arg0: index, %arg1: f32)
// CHECK-SAME: attributes {ad_output = "A", ad_wrt = ["A"]}
sdfg.sdfg @control(%A: memref<?x?xf64> {sdfg.name = "A"},
                   %N: index {sdfg.name = "N"}, %T: index, %s: f32)
    attributes {ad_output = "A", ad_wrt = ["A"]} {
  // CHECK: %[[TMP:.*]] = sdfg.alloc(%N) : memref<?x4xf64>
  %tmp = sdfg.alloc(%N) : memref<?x4xf64>
  // CHECK: sdfg.loop %[[T:.*]] = 0 to %arg0 step 1 {
  sdfg.loop %t = 0 to %T step 1 {
    // CHECK: sdfg.loop %[[I:.*]] = %N - 1 to -1 step -2 {
    sdfg.loop %i = %N - 1 to -1 step -2 {
      // CHECK: sdfg.loop %{{.*}} = %[[I]] + 1 to %N * 2 + %[[T]] step 3 {
      sdfg.loop %j = %i + 1 to %N * 2 + %t step 3 {
        // CHECK: sdfg.state "body" {
        sdfg.state "body" {
        }
      }
    }
  }
  // CHECK: %[[V:.*]] = sdfg.load %A[0, %N - 1] : memref<?x?xf64>
  %v = sdfg.load %A[0, %N - 1] : memref<?x?xf64>
  // CHECK: %[[C:.*]]:2 = sdfg.tasklet(%[[V]]) : (f64) -> (i1, i1) {
  %c:2 = sdfg.tasklet(%v) : (f64) -> (i1, i1) {
  ^bb0(%x: f64):
    %z = arith.constant 0.0 : f64
    %c0 = arith.cmpf ogt, %x, %z : f64
    %c1 = arith.cmpf olt, %x, %z : f64
    sdfg.yield %c0, %c1 : i1, i1
  }
  // CHECK: sdfg.if %[[C]]#0 {
  // CHECK: } elif %[[C]]#1 {
  // CHECK: } else {
  sdfg.if %c#0 {
    sdfg.state {
    }
  } elif %c#1 {
  } else {
    sdfg.state {
    }
  }
  // CHECK: sdfg.if %[[C]]#0 {
  // CHECK-NOT: else
  sdfg.if %c#0 {
  }
}

// CHECK-LABEL: sdfg.sdfg @dataflow
sdfg.sdfg @dataflow(%A: memref<?x?xf64>, %B: memref<8xf64>, %S: memref<f64>,
                    %N: index) {
  sdfg.state {
    // CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (1, 0) to (%arg3 - 1, %arg3) step (1, 2) schedule(cpu_multicore) {
    sdfg.map (%i, %j) = (1, 0) to (%N - 1, %N) step (1, 2) schedule(cpu_multicore) {
      // CHECK: sdfg.load %arg0[%[[I]] - 1, %[[J]] floordiv 2] : memref<?x?xf64>
      %a = sdfg.load %A[%i - 1, %j floordiv 2] : memref<?x?xf64>
      // CHECK: sdfg.map (%{{.*}}) = (0) to (%[[I]]) step (1) schedule(sequential)
      sdfg.map (%k) = (0) to (%i) step (1) schedule(sequential) {
        // CHECK: sdfg.store %{{.*}}, %arg2[] wcr(max) : memref<f64>
        sdfg.store %a, %S[] wcr(max) : memref<f64>
      }
      // CHECK: sdfg.store %{{.*}}, %arg1[%[[I]] mod 8] wcr(add) : memref<8xf64>
      sdfg.store %a, %B[%i mod 8] wcr(add) : memref<8xf64>
      // CHECK: sdfg.store %{{.*}}, %arg0[%[[I]], %[[J]]] : memref<?x?xf64>
      sdfg.store %a, %A[%i, %j] : memref<?x?xf64>
    }
    // CHECK: sdfg.map (%{{.*}}) = (0) to (8) step (1) schedule(gpu_device)
    sdfg.map (%i) = (0) to (8) step (1) schedule(gpu_device) {
    }
    // CHECK: sdfg.copy %arg0[2, 0 : %arg3 : 2] to %arg1[1 : 5] wcr(mul) : memref<?x?xf64> to memref<8xf64>
    sdfg.copy %A[2, 0 : %N : 2] to %B[1 : 5] wcr(mul) : memref<?x?xf64> to memref<8xf64>
    // CHECK: sdfg.copy %arg1[0 : 8] to %arg0[%arg3, 0 : 8] : memref<8xf64> to memref<?x?xf64>
    sdfg.copy %B[0 : 8] to %A[%N, 0 : 8] : memref<8xf64> to memref<?x?xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @library
sdfg.sdfg @library(%A: memref<4x6xf32>, %B: memref<6x5xf32>, %C: memref<4x5xf32>,
                   %D: memref<?x?xf32>, %x: memref<6xf32>, %y: memref<4xf32>,
                   %r: memref<f32>, %T: memref<6x4xf32>, %R: memref<1x5xf32>,
                   %E: memref<?x?xf32>) {
  sdfg.state {
    // CHECK: sdfg.matmul %arg0, %arg1 -> %arg2 : memref<4x6xf32>, memref<6x5xf32> -> memref<4x5xf32>
    sdfg.matmul %A, %B -> %C : memref<4x6xf32>, memref<6x5xf32> -> memref<4x5xf32>
    // CHECK: sdfg.matmul %arg0, %arg3 -> %arg9 {accumulate, transpose_a, transpose_b}
    sdfg.matmul %A, %D -> %E {transpose_a, transpose_b, accumulate}
        : memref<4x6xf32>, memref<?x?xf32> -> memref<?x?xf32>
    // CHECK: sdfg.gemv %arg0, %arg4 -> %arg5 : memref<4x6xf32>, memref<6xf32> -> memref<4xf32>
    sdfg.gemv %A, %x -> %y : memref<4x6xf32>, memref<6xf32> -> memref<4xf32>
    // CHECK: sdfg.gemv %arg0, %arg5 -> %arg4 {accumulate, transpose}
    sdfg.gemv %A, %y -> %x {transpose, accumulate} : memref<4x6xf32>, memref<4xf32> -> memref<6xf32>
    // CHECK: sdfg.ger %arg5, %arg4 -> %arg0 {accumulate} : memref<4xf32>, memref<6xf32> -> memref<4x6xf32>
    sdfg.ger %y, %x -> %A {accumulate} : memref<4xf32>, memref<6xf32> -> memref<4x6xf32>
    // CHECK: sdfg.dot %arg4, %arg4 -> %arg6 : memref<6xf32>, memref<6xf32> -> memref<f32>
    sdfg.dot %x, %x -> %r : memref<6xf32>, memref<6xf32> -> memref<f32>
    // CHECK: sdfg.transpose %arg0 -> %arg7 : memref<4x6xf32> -> memref<6x4xf32>
    sdfg.transpose %A -> %T : memref<4x6xf32> -> memref<6x4xf32>
    // CHECK: sdfg.reduce max %arg2 -> %arg8 axes [0] {accumulate} : memref<4x5xf32> -> memref<1x5xf32>
    sdfg.reduce max %C -> %R axes [0] {accumulate} : memref<4x5xf32> -> memref<1x5xf32>
    // CHECK: sdfg.reduce add %arg2 -> %arg6 axes [0, 1] : memref<4x5xf32> -> memref<f32>
    sdfg.reduce add %C -> %r axes [0, 1] : memref<4x5xf32> -> memref<f32>
  }
}

// CHECK-LABEL: sdfg.sdfg @while
// CHECK: sdfg.while {
// CHECK: %[[C:.*]] = sdfg.tasklet
// CHECK: sdfg.condition %[[C]]
// CHECK: } do {
// CHECK: sdfg.state
sdfg.sdfg @while(%X: memref<f64>) {
  sdfg.while {
    %x = sdfg.load %X[] : memref<f64>
    %c = sdfg.tasklet(%x) : (f64) -> i1 {
    ^bb0(%v: f64):
      %l = arith.constant 1.0 : f64
      %r = arith.cmpf olt, %v, %l : f64
      sdfg.yield %r : i1
    }
    sdfg.condition %c
  } do {
    sdfg.state {
    }
  }
}

// CHECK-LABEL: sdfg.sdfg @empty
// CHECK-SAME: (%arg0: memref<f64>) {
sdfg.sdfg @empty(%x: memref<f64>) {}

// CHECK-LABEL: sdfg.sdfg @solve
// CHECK: sdfg.solve %arg0, %arg1 -> %arg2 : memref<4x4xf64>, memref<4x2xf64> -> memref<4x2xf64>
// CHECK: sdfg.solve %arg0, %arg3 -> %arg3 {transpose} : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
sdfg.sdfg @solve(%A: memref<4x4xf64>, %B: memref<4x2xf64>,
                 %X: memref<4x2xf64>, %y: memref<4xf64>) {
  sdfg.state {
    sdfg.solve %A, %B -> %X : memref<4x4xf64>, memref<4x2xf64> -> memref<4x2xf64>
    sdfg.solve %A, %y -> %y {transpose} : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @det
// CHECK: sdfg.det det %arg0 -> %arg1 : memref<4x4xf64> -> memref<f64>
// CHECK: sdfg.det sign %arg0 -> %arg1 : memref<4x4xf64> -> memref<f64>
// CHECK: sdfg.det logabs %arg0 -> %arg1 : memref<4x4xf64> -> memref<f64>
sdfg.sdfg @det(%A: memref<4x4xf64>, %r: memref<f64>) {
  sdfg.state {
    sdfg.det det %A -> %r : memref<4x4xf64> -> memref<f64>
    sdfg.det sign %A -> %r : memref<4x4xf64> -> memref<f64>
    sdfg.det logabs %A -> %r : memref<4x4xf64> -> memref<f64>
  }
}

// CHECK-LABEL: sdfg.sdfg @batched_matmul
// CHECK: sdfg.matmul %arg0, %arg1 -> %arg2 : memref<8x32x16xf64>, memref<16x4xf64> -> memref<8x32x4xf64>
// CHECK: sdfg.matmul %arg0, %arg2 -> %arg1 {transpose_a} : memref<8x32x16xf64>, memref<8x32x4xf64> -> memref<16x4xf64>
sdfg.sdfg @batched_matmul(%X: memref<8x32x16xf64>, %W: memref<16x4xf64>,
                          %Y: memref<8x32x4xf64>) {
  sdfg.state {
    sdfg.matmul %X, %W -> %Y : memref<8x32x16xf64>, memref<16x4xf64> -> memref<8x32x4xf64>
    sdfg.matmul %X, %Y -> %W {transpose_a} : memref<8x32x16xf64>, memref<8x32x4xf64> -> memref<16x4xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @cholesky
// CHECK: sdfg.cholesky %arg0 -> %arg1 : memref<4x4xf64> -> memref<4x4xf64>
sdfg.sdfg @cholesky(%A: memref<4x4xf64>, %L: memref<4x4xf64>) {
  sdfg.state {
    sdfg.cholesky %A -> %L : memref<4x4xf64> -> memref<4x4xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @qr
// CHECK: sdfg.qr q %arg0 -> %arg1 : memref<6x4xf64> -> memref<6x4xf64>
// CHECK: sdfg.qr r %arg0 -> %arg2 : memref<6x4xf64> -> memref<4x4xf64>
sdfg.sdfg @qr(%A: memref<6x4xf64>, %Q: memref<6x4xf64>, %R: memref<4x4xf64>) {
  sdfg.state {
    sdfg.qr q %A -> %Q : memref<6x4xf64> -> memref<6x4xf64>
    sdfg.qr r %A -> %R : memref<6x4xf64> -> memref<4x4xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @svd
// CHECK: sdfg.svd u %arg0 -> %arg1 : memref<3x5xf64> -> memref<3x3xf64>
// CHECK: sdfg.svd s %arg0 -> %arg2 {with_vectors} : memref<3x5xf64> -> memref<3xf64>
// CHECK: sdfg.svd vh %arg0 -> %arg3 : memref<3x5xf64> -> memref<3x5xf64>
// CHECK: sdfg.svd s %arg0 -> %arg2 : memref<3x5xf64> -> memref<3xf64>
sdfg.sdfg @svd(%A: memref<3x5xf64>, %U: memref<3x3xf64>, %s: memref<3xf64>,
               %Vh: memref<3x5xf64>) {
  sdfg.state {
    sdfg.svd u %A -> %U : memref<3x5xf64> -> memref<3x3xf64>
    sdfg.svd s %A -> %s {with_vectors} : memref<3x5xf64> -> memref<3xf64>
    sdfg.svd vh %A -> %Vh : memref<3x5xf64> -> memref<3x5xf64>
    sdfg.svd s %A -> %s : memref<3x5xf64> -> memref<3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @eigh
// CHECK: sdfg.eigh values %arg0 -> %arg1 : memref<4x4xf64> -> memref<4xf64>
// CHECK: sdfg.eigh vectors %arg0 -> %arg2 : memref<4x4xf64> -> memref<4x4xf64>
sdfg.sdfg @eigh(%A: memref<4x4xf64>, %w: memref<4xf64>, %V: memref<4x4xf64>) {
  sdfg.state {
    sdfg.eigh values %A -> %w : memref<4x4xf64> -> memref<4xf64>
    sdfg.eigh vectors %A -> %V : memref<4x4xf64> -> memref<4x4xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @argsort
// CHECK: sdfg.argsort %arg0 axis 1 -> %arg1 : memref<4x?xf32> -> memref<4x?xi64>
sdfg.sdfg @argsort(%a: memref<4x?xf32>, %p: memref<4x?xi64>) {
  sdfg.state {
    sdfg.argsort %a axis 1 -> %p : memref<4x?xf32> -> memref<4x?xi64>
  }
}

// CHECK-LABEL: sdfg.sdfg @fft
// CHECK: sdfg.fft %arg0 axis 1 -> %arg1 : memref<4x?x2xf32> -> memref<4x?x2xf32>
// CHECK: sdfg.fft %arg1 axis 0 inverse -> %arg0 {accumulate} : memref<4x?x2xf32> -> memref<4x?x2xf32>
sdfg.sdfg @fft(%a: memref<4x?x2xf32>, %b: memref<4x?x2xf32>) {
  sdfg.state {
    sdfg.fft %a axis 1 -> %b : memref<4x?x2xf32> -> memref<4x?x2xf32>
    sdfg.fft %b axis 0 inverse -> %a {accumulate} : memref<4x?x2xf32> -> memref<4x?x2xf32>
  }
}

// CHECK-LABEL: sdfg.sdfg @searchsorted
// CHECK: sdfg.searchsorted %arg0 in %arg1 right -> %arg2 : memref<5x?xf64> in memref<?xf64> -> memref<5x?xi64>
// CHECK: sdfg.searchsorted %arg0 in %arg1 -> %arg2 : memref<5x?xf64> in memref<?xf64> -> memref<5x?xi64>
sdfg.sdfg @searchsorted(%x: memref<5x?xf64>, %xp: memref<?xf64>, %j: memref<5x?xi64>) {
  sdfg.state {
    sdfg.searchsorted %x in %xp right -> %j : memref<5x?xf64> in memref<?xf64> -> memref<5x?xi64>
    sdfg.searchsorted %x in %xp -> %j : memref<5x?xf64> in memref<?xf64> -> memref<5x?xi64>
  }
}

// CHECK-LABEL: sdfg.sdfg @scaled_matmul
// CHECK: sdfg.matmul %arg0, %arg1 -> %arg2 {alpha = 1.250000e-01 : f64, transpose_b}
sdfg.sdfg @scaled_matmul(%A: memref<4x3xf64>, %B: memref<5x3xf64>,
                         %C: memref<4x5xf64>) {
  sdfg.state {
    sdfg.matmul %A, %B -> %C {transpose_b, alpha = 0.125 : f64} : memref<4x3xf64>, memref<5x3xf64> -> memref<4x5xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @broadcast_extent
// CHECK: %[[N:.*]] = sdfg.broadcast_extent operands %arg1, %arg2
// CHECK: sdfg.loop %[[I:.*]] = 0 to %[[N]] step 1 {
// CHECK:   %[[M:.*]] = sdfg.broadcast_extent assign %[[I]], %[[N]]
// CHECK:   sdfg.map (%{{.*}}) = (0) to (%[[M]])
// CHECK:     sdfg.broadcast_extent operands %[[M]], %arg1
sdfg.sdfg @broadcast_extent(%x: memref<8xf64>, %a: index, %b: index) {
  %n = sdfg.broadcast_extent operands %a, %b
  sdfg.loop %i = 0 to %n step 1 {
    %m = sdfg.broadcast_extent assign %i, %n
    sdfg.state {
      sdfg.map (%p) = (0) to (%m) step (1) schedule(sequential) {
        %k = sdfg.broadcast_extent operands %m, %a
        sdfg.map (%q) = (0) to (%k) step (1) schedule(sequential) {
        }
      }
    }
  }
}

// CHECK-LABEL: sdfg.sdfg @check_index
// CHECK: %[[K:.*]] = sdfg.check_index %arg1, %arg2 axis 1
// CHECK: sdfg.load %arg0[0, %[[K]]]
sdfg.sdfg @check_index(%x: memref<4x8xf64>, %i: index, %n: index) {
  %k = sdfg.check_index %i, %n axis 1
  sdfg.state {
    %v = sdfg.load %x[0, %k] : memref<4x8xf64>
    sdfg.store %v, %x[1, 0] : memref<4x8xf64>
  }
}

// Extents of dynamic containers, and prints.
// CHECK-LABEL: sdfg.sdfg @dims_and_prints
// CHECK: %[[N:.*]] = sdfg.dim %arg0, 1 : memref<2x?xf64>
// CHECK: sdfg.map (%{{.*}}) = (0) to (%[[N]])
// CHECK: sdfg.print site 0 (%arg1 : memref<f64>)
// CHECK-NEXT: sdfg.print site 1
sdfg.sdfg @dims_and_prints(%x: memref<2x?xf64>, %s: memref<f64>) {
  %n = sdfg.dim %x, 1 : memref<2x?xf64>
  sdfg.state {
    sdfg.map (%j) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[0, %j] : memref<2x?xf64>
      sdfg.store %v, %s[] wcr(add) : memref<f64>
    }
    sdfg.print site 0 (%s : memref<f64>)
    sdfg.print site 1
  }
}
