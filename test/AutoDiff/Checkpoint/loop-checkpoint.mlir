// Loop checkpointing: a top-level loop split into segments, its tapes
// holding one segment, snapshots of its state at segment starts and the
// segments run again before they are reversed.
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=2" | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=2:1 report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=300B report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ILP
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=100B" 2>&1 | FileCheck %s --check-prefix=MIN

// Ten iterations with two snapshots: segments of 4, 4 and 2; the
// snapshot holds u (tmp is overwritten before it is read in every
// iteration), the tape of u's overwritten values one segment.
// CHECK-LABEL: sdfg.sdfg @diffuse_grad(
// CHECK-SAME: loops = [{name = "t", recomputed_iterations = 8 : i64, schedule = "uniform", segments = [4], snapshot_bytes = 48 : i64, snapshots = [2], trips = 10 : i64, while = false}]
// CHECK: %[[SNAP:.*]] = sdfg.alloc() {name = "u.snapshot.t"} : memref<2x6xf64>
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<4x4xf64>
// CHECK: sdfg.loop %[[T:.*]] = 0 to 10 step 1
// CHECK: %[[SAVE:.*]] = sdfg.tasklet(%[[T]]) : (index) -> i1
// CHECK: sdfg.if %[[SAVE]] {
// CHECK-NEXT: sdfg.state "snapshot of t" {
// CHECK: sdfg.store %{{.*}}, %[[SNAP]][%[[T]] floordiv 4, %{{.*}}]
// CHECK: sdfg.store %{{.*}}, %[[TAPE]][%[[T]] mod 4, %{{.*}}]
// CHECK: sdfg.loop %[[R:.*]] = 9 to -1 step -1 {
// CHECK-NEXT: %[[RESTORE:.*]] = sdfg.tasklet(%[[R]]) : (index) -> i1
// CHECK: sdfg.if %[[RESTORE]] {
// CHECK-NEXT: sdfg.state "restore snapshot of t" {
// CHECK: sdfg.load %[[SNAP]][%[[R]] floordiv 4, %{{.*}}]
// CHECK: sdfg.loop %[[F:.*]] = %[[R]] - %[[R]] mod 4 to %[[R]] + 1 step 1 {
// CHECK: sdfg.store %{{.*}}, %[[TAPE]][%[[F]] mod 4, %{{.*}}]
// CHECK: sdfg.load %[[TAPE]][%[[R]] mod 4, %{{.*}}]

// TWO: remark: loop 't': 10 iterations, segments of 4 then 2, 2 + 1 snapshots of 48 B, 12 iterations run again

// Below storing every iteration (352 B) the ILP picks a schedule.
// ILP: remark: loop 't': 10 iterations, segments of
// ILP: remark: peak memory {{.*}} (storing everything: 352 B; limit 300 B)
// MIN: error: sdfg-checkpoint: no store/recompute plan for @diffuse_grad fits in 100 B; the smallest feasible limit is 200 B (200 bytes; storing everything needs 352 B)

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
