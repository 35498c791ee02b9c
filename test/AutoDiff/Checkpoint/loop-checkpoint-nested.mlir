// A loop nested in another gets its own schedule: its snapshots are kept
// per iteration of the enclosing loop (indexed like its tapes), its
// segments re-run inside the reversed enclosing loop. An inner loop that
// uses a value the enclosing loop computes cannot.
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=t=1" | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all checkpoints=k=1" 2>&1 | FileCheck %s --check-prefix=ERROR

// CHECK-LABEL: sdfg.sdfg @nested_grad(
// CHECK: %[[SNAP:.*]] = sdfg.alloc() {name = "u.snapshot.t"} : memref<3x1x4xf64>
// CHECK: sdfg.loop %[[S:.*]] = 0 to 3 step 1 attributes {sdfg.name = "s"}
// CHECK: sdfg.loop %[[T:.*]] = 0 to 6 step 1 attributes {sdfg.name = "t"}
// CHECK: sdfg.state "snapshot of t"
// CHECK: sdfg.store %{{.*}}, %[[SNAP]][%[[S]], %[[T]] floordiv 3, %{{.*}}]
// CHECK: sdfg.loop %[[RS:.*]] = 2 to -1 step -1 {
// CHECK: sdfg.loop %[[RT:.*]] = 5 to -1 step -1 {
// CHECK: sdfg.state "restore snapshot of t"
// CHECK: sdfg.load %[[SNAP]][%[[RS]], %[[RT]] floordiv 3, %{{.*}}]
// CHECK: sdfg.loop %{{.*}} = %[[RT]] - %[[RT]] mod 3 to %[[RT]] + 1 step 1 {

// REPORT: remark: loop 's': 3 iterations, store every iteration
// REPORT: remark: loop 't': 6 iterations, store every iteration
// REPORT: remark: loop 'k': 4 iterations, store every iteration (cannot checkpoint: it uses values computed in an enclosing loop)
// ERROR: error: cannot checkpoint loop 'k': it uses values computed in an enclosing loop
sdfg.sdfg @nested(%u: memref<4xf64> {sdfg.name = "u"},
                  %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["u"]} {
  sdfg.loop %s = 0 to 3 step 1 attributes {sdfg.name = "s"} {
    sdfg.loop %t = 0 to 6 step 1 attributes {sdfg.name = "t"} {
      sdfg.state {
        sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
          %a = sdfg.load %u[%i] : memref<4xf64>
          %r = sdfg.tasklet(%a) : (f64) -> f64 {
          ^bb0(%x: f64):
            %y = math.sin %x : f64
            sdfg.yield %y : f64
          }
          sdfg.store %r, %u[%i] : memref<4xf64>
        }
      }
    }
    %j = sdfg.tasklet(%s) : (index) -> index {
    ^bb0(%x: index):
      %c1 = arith.constant 1 : index
      %y = arith.addi %x, %c1 : index
      sdfg.yield %y : index
    }
    sdfg.loop %k = 0 to 4 step 1 attributes {sdfg.name = "k"} {
      sdfg.state {
        %a = sdfg.load %u[%j - 1] : memref<4xf64>
        %r = sdfg.tasklet(%a) : (f64) -> f64 {
        ^bb0(%x: f64):
          %y = math.cos %x : f64
          sdfg.yield %y : f64
        }
        sdfg.store %r, %u[%j - 1] : memref<4xf64>
      }
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %u[%i] : memref<4xf64>
      sdfg.store %v, %out[] wcr(add) : memref<f64>
    }
  }
}
