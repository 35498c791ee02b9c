// RUN: sdfg-opt %s --convert-sdfg-to-std -split-input-file | FileCheck %s

// The outermost parallel map distributes its first dimension with
// scf.parallel; its other dimensions and nested maps become sequential
// loops inside it; WCR writes in it are atomic.
// CHECK-LABEL: func.func @parallel
// CHECK: scf.parallel (%[[I:.*]]) = (%c1) to
// CHECK: scf.for %[[J:.*]] = %c0 to
// CHECK: scf.for %[[K:.*]] =
// CHECK-NOT: scf.parallel
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[I]]] : (f64, memref<?xf64>) -> f64
// CHECK: memref.atomic_rmw maxs %{{.*}}, %{{.*}}[] : (i32, memref<i32>) -> i32
sdfg.sdfg @parallel(%A: memref<?x?xf64>, %S: memref<?xf64>, %M: memref<i32>, %N: index, %v: i32) {
  sdfg.state {
    sdfg.map (%i, %j) = (1, 0) to (%N, %N) step (1, 1) schedule(cpu_multicore) {
      sdfg.map (%k) = (0) to (%i) step (1) schedule(cpu_multicore) {
        %a = sdfg.load %A[%i, %k] : memref<?x?xf64>
        sdfg.store %a, %S[%i] wcr(add) : memref<?xf64>
        sdfg.store %v, %M[] wcr(max) : memref<i32>
      }
    }
  }
}

// -----

// Float max/min/mul have no LLVM atomic: a compare-and-swap loop on the
// element's bits.
// CHECK-LABEL: func.func @cas
// CHECK: scf.parallel
// CHECK: llvm.load %{{.*}} atomic monotonic
// CHECK: scf.while (%[[OLD:.*]] = %{{.*}}) : (i64) -> i64 {
// CHECK: %[[F:.*]] = arith.bitcast %[[OLD]] : i64 to f64
// CHECK: %[[NEW:.*]] = arith.maximumf %[[F]], %{{.*}} : f64
// CHECK: arith.bitcast %[[NEW]] : f64 to i64
// CHECK: llvm.cmpxchg
sdfg.sdfg @cas(%A: memref<?xf64>, %M: memref<f64>, %N: index) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i] : memref<?xf64>
      sdfg.store %a, %M[] wcr(max) : memref<f64>
    }
  }
}

// -----

// Sequential maps: plain loops, WCR as load-combine-store.
// CHECK-LABEL: func.func @sequential
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f64>
// CHECK: %[[NEW:.*]] = arith.mulf %[[OLD]], %{{.*}} : f64
// CHECK: memref.store %[[NEW]], %{{.*}}[] : memref<f64>
// CHECK-NOT: atomic
sdfg.sdfg @sequential(%A: memref<?xf64>, %P: memref<f64>, %N: index) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N) step (1) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<?xf64>
      sdfg.store %a, %P[] wcr(mul) : memref<f64>
    }
  }
}

// -----

// Tasklets are inlined.
// CHECK-LABEL: func.func @tasklet
// CHECK: %[[A:.*]] = memref.load
// CHECK: %[[E:.*]] = math.exp %[[A]] : f64
// CHECK: memref.store %[[E]]
sdfg.sdfg @tasklet(%A: memref<4xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<4xf64>
      %e = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%x: f64):
        %y = math.exp %x : f64
        sdfg.yield %y : f64
      }
      sdfg.store %e, %A[%i] : memref<4xf64>
    }
  }
}

// -----

// disjoint_wcr: distinct iterations accumulate into distinct elements, so
// the parallel map uses plain read-modify-writes.
// CHECK-LABEL: func.func @disjoint
// CHECK: scf.parallel
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%[[I:.*]]] : memref<64xf64>
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[I]]] : memref<64xf64>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[A]] : f64
// CHECK: memref.store %[[NEW]]
// CHECK-NOT: atomic
sdfg.sdfg @disjoint(%A: memref<64xf64>, %G: memref<64xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (64) step (1) schedule(cpu_multicore) attributes {disjoint_wcr} {
      %a = sdfg.load %A[%i] : memref<64xf64>
      sdfg.store %a, %G[%i] wcr(add) : memref<64xf64>
    }
  }
}
