// Binomial loop checkpointing (Revolve): s snapshots and one iteration's
// tapes; the schedule is computed at run time from the trip count by a
// small routine (an sdfg.while over binomial coefficients) in the forward
// loop and at the start of each reversed iteration.
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=binomial:2" | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=binomial:2 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=binomial:2" --sdfg-lower-to-cpu --sdfg-check-lowered -o /dev/null

// Ten iterations, two snapshots: 20 iterations run again (the fewest
// possible; Griewank's t * T - beta(s + 1, t - 1) with t = 3).
// CHECK-LABEL: sdfg.sdfg @diffuse_grad(
// CHECK-SAME: loops = [{name = "t", recomputed_iterations = 20 : i64, schedule = "binomial", segments = [1], snapshot_bytes = 48 : i64, snapshots = [2], trips = 10 : i64, while = false}]
// CHECK-DAG: %[[POS:.*]] = sdfg.alloc() {name = "t.revolve.positions"} : memref<2xi64>
// CHECK-DAG: %[[SNAP:.*]] = sdfg.alloc() {name = "u.snapshot.t"} : memref<2x6xf64>
// CHECK-DAG: %[[TAPE:.*]] = sdfg.alloc() : memref<1x4xf64>
// Forward: the stack emptied at iteration 0, a snapshot pushed where the
// schedule says, and the next place computed by the routine.
// CHECK: sdfg.loop %[[T:.*]] = 0 to 10 step 1
// CHECK: sdfg.state "binomial schedule"
// CHECK: sdfg.state "snapshot of t" {
// CHECK: sdfg.store %{{.*}}, %[[SNAP]][%{{.*}}, %{{.*}}]
// CHECK: sdfg.store %{{.*}}, %[[POS]][%{{.*}}] : memref<2xi64>
// CHECK: sdfg.while {
// CHECK: sdfg.condition
// CHECK: sdfg.store %{{.*}}, %[[TAPE]][0, %{{.*}}]
// Backward: before each reversed iteration, restore the newest snapshot,
// advance storing snapshots while slots are free, then run the iteration
// with its tapes.
// CHECK: sdfg.loop %[[R:.*]] = 9 to -1 step -1 {
// CHECK: sdfg.state "restore snapshot of t" {
// CHECK: sdfg.load %[[SNAP]][%{{.*}}, %{{.*}}]
// CHECK: sdfg.while {
// CHECK: sdfg.loop %{{.*}} = %{{.*}} to %{{.*}} step 1 {
// CHECK: sdfg.state "snapshot of t" {
// CHECK: sdfg.loop %[[F:.*]] = %{{.*}} to %{{.*}} step 1 {
// CHECK: sdfg.store %{{.*}}, %[[TAPE]][0, %{{.*}}]
// CHECK: sdfg.load %[[TAPE]][0, %{{.*}}]

// REPORT: remark: loop 't': 10 iterations, binomial, 2 snapshots of 48 B, 20 iterations run again

sdfg.sdfg @diffuse(%u: memref<6xf64> {sdfg.name = "u"},
                   %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["u"]} {
  %tmp = sdfg.alloc() {name = "tmp"} : memref<4xf64>
  sdfg.loop %t = 0 to 10 step 1 attributes {sdfg.name = "t"} {
    sdfg.state {
      sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
        %a = sdfg.load %u[%i] : memref<6xf64>
        %b = sdfg.load %u[%i + 1] : memref<6xf64>
        %c = sdfg.load %u[%i + 2] : memref<6xf64>
        %r = sdfg.tasklet(%a, %b, %c) : (f64, f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64, %z: f64):
          %s = arith.addf %x, %z : f64
          %m = arith.mulf %s, %y : f64
          %q = math.sin %m : f64
          %w = arith.addf %q, %y : f64
          sdfg.yield %w : f64
        }
        sdfg.store %r, %tmp[%i] : memref<4xf64>
      }
      sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
        %v = sdfg.load %tmp[%i] : memref<4xf64>
        sdfg.store %v, %u[%i + 1] : memref<6xf64>
      }
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (6) step (1) schedule(sequential) {
      %v = sdfg.load %u[%i] : memref<6xf64>
      %sq = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%x: f64):
        %m = arith.mulf %x, %x : f64
        sdfg.yield %m : f64
      }
      sdfg.store %sq, %out[] wcr(add) : memref<f64>
    }
  }
}
