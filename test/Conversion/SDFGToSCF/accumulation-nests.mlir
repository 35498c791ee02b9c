// RUN: sdfg-opt %s --convert-sdfg-to-scf -split-input-file | FileCheck %s

// A stencil's reversal: every iteration adds into D[i] and D[i + 2], and
// consumes (reads, then zeroes) G[i + 1]. One loop would chain iteration
// i + 2 to iteration i through D; instead each element of D gets both its
// contributions in one iteration j of a gather loop over [lb + 2, ub),
// reading G[j + 1] (offset 0) and G[j - 1] (offset 2). Head and tail loops
// take the iterations whose partner lies outside the range, and G is zeroed
// last, after every loop has read it.
// CHECK-LABEL: func.func @gather
// CHECK: %[[UB:.*]] = arith.addi %{{.*}}, %c-2 : index
// CHECK: %[[LO:.*]] = arith.addi %c0, %c2 : index
// CHECK: %[[HI:.*]] = arith.maxsi %[[LO]], %[[UB]] : index
// Heads.
// CHECK: %[[H0:.*]] = arith.minsi %[[UB]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %c0 to %[[H0]]
// CHECK: %[[H2:.*]] = arith.minsi %[[UB]], %c0 : index
// CHECK: scf.for %{{.*}} = %c0 to %[[H2]]
// The gather loop: both contributions to D[j].
// CHECK: scf.for %[[J:.*]] = %[[LO]] to %[[HI]]
// CHECK: memref.store %{{.*}}, %[[D:.*]][%[[J]]]
// CHECK: %[[I:.*]] = arith.subi %[[J]], %c2
// CHECK: %[[E:.*]] = arith.addi %[[I]], %c2
// CHECK: memref.store %{{.*}}, %[[D]][%[[E]]]
// CHECK-NOT: memref.store
// CHECK: }
// Tails.
// CHECK: scf.for %{{.*}} = %[[HI]] to %[[UB]]
// CHECK: %[[T2:.*]] = arith.addi %[[HI]], %c-2
// CHECK: scf.for %{{.*}} = %[[T2]] to %[[UB]]
// The consumed adjoint, zeroed over the whole range.
// CHECK: scf.for %{{.*}} = %c0 to %[[UB]]
// CHECK: memref.store %cst, %[[G:.*]][
// CHECK-NOT: memref.store
// CHECK: return
sdfg.sdfg @gather(%G: memref<?xf64>, %D: memref<?xf64>, %N: index) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N - 2) step (1) schedule(sequential) {
      %g = sdfg.load %G[%i + 1] : memref<?xf64>
      %z = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 0.0 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %z, %G[%i + 1] : memref<?xf64>
      %v:2 = sdfg.tasklet(%g) : (f64) -> (f64, f64) {
      ^bb0(%x: f64):
        %c2 = arith.constant 2.0 : f64
        %y = arith.mulf %x, %c2 : f64
        sdfg.yield %x, %y : f64, f64
      }
      sdfg.store %v#0, %D[%i] wcr(add) : memref<?xf64>
      sdfg.store %v#1, %D[%i + 2] wcr(add) : memref<?xf64>
    }
  }
}

// -----

// In a parallel map the threads keep its first dimension; the gather
// rewrites the innermost loop inside each thread. Writes to other rows
// (D[i + 1, j]) share the loop of their offset along j.
// CHECK-LABEL: func.func @rows
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[J:.*]] =
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[I]], %[[J]]]
// CHECK: %[[P:.*]] = arith.addi %[[I]], %c1
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[P]], %[[J]]]
// CHECK: %[[S:.*]] = arith.subi %[[J]], %c1
// CHECK: %[[E:.*]] = arith.addi %[[S]], %c1
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[I]], %[[E]]]
// CHECK: scf.reduce
sdfg.sdfg @rows(%A: memref<64x64xf64>, %D: memref<65x65xf64>) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (64, 64) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<64x64xf64>
      sdfg.store %a, %D[%i, %j] wcr(add) : memref<65x65xf64>
      sdfg.store %a, %D[%i + 1, %j] wcr(add) : memref<65x65xf64>
      sdfg.store %a, %D[%i, %j + 1] wcr(add) : memref<65x65xf64>
    }
  }
}

// -----

// A step of 2 along the innermost dimension: no gather, but one loop nest
// per offset, each without a dependence through D.
// CHECK-LABEL: func.func @strided
// CHECK: scf.for %[[A:.*]] = %c0 to %c64 step %c2
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[A]]]
// CHECK-NOT: memref.store
// CHECK: scf.for %[[B:.*]] = %c0{{.*}} to %c64{{.*}} step %c2
// CHECK: %[[B1:.*]] = arith.addi %[[B]], %c1
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[B1]]]
// CHECK: return
sdfg.sdfg @strided(%A: memref<64xf64>, %D: memref<65xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (64) step (2) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<64xf64>
      sdfg.store %a, %D[%i] wcr(add) : memref<65xf64>
      sdfg.store %a, %D[%i + 1] wcr(add) : memref<65xf64>
    }
  }
}

// -----

// The body reads the container it accumulates into: splitting the loop
// would let some loops see others' stores. One loop, as written.
// CHECK-LABEL: func.func @reads_target
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: return
sdfg.sdfg @reads_target(%D: memref<65xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (64) step (1) schedule(sequential) {
      %a = sdfg.load %D[%i] : memref<65xf64>
      sdfg.store %a, %D[%i] wcr(add) : memref<65xf64>
      sdfg.store %a, %D[%i + 1] wcr(add) : memref<65xf64>
    }
  }
}

// -----

// A load after a plain store to its container reads that store: one loop.
// CHECK-LABEL: func.func @load_after_store
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: return
sdfg.sdfg @load_after_store(%G: memref<64xf64>, %D: memref<65xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (64) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 1.0 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %z, %G[%i] : memref<64xf64>
      %a = sdfg.load %G[%i] : memref<64xf64>
      sdfg.store %a, %D[%i] wcr(add) : memref<65xf64>
      sdfg.store %a, %D[%i + 1] wcr(add) : memref<65xf64>
    }
  }
}
