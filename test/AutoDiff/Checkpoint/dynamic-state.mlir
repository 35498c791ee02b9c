// Loop checkpointing of a loop whose state has a dynamic shape: the
// snapshots are containers of the state's extents (here the caller's
// extent of argument x, read by sdfg.dim), measured for the sizes given;
// uniform and binomial schedules, and the ILP choosing one under mem=.
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all report=true sizes=x.0=1000 checkpoints=t=4" 2>&1 | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all report=true sizes=x.0=1000 checkpoints=t=binomial:3" 2>&1 | FileCheck %s --check-prefix=BINOMIAL
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="report=true sizes=x.0=..1000 mem=100KiB" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ILP
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all sizes=x.0=1000 checkpoints=t=4" | sdfg-translate --emit=obj -o %t.o
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=store-all sizes=x.0=1000 checkpoints=t=binomial:3" | sdfg-translate --emit=obj -o %t.binomial.o

// CHECK: remark: loop 't': 20 iterations, segments of 4, 4 snapshots of 7.8 KiB, 16 iterations run again
// CHECK: remark: peak memory 109.3 KiB = 48*x.0 + {{.*}} B at sizes x.0=1000
// CHECK: sdfg.sdfg @heat_grad
// CHECK: sdfg.alloc(%{{[0-9]+}}) {name = "x.snapshot.t"} : memref<4x?xf64>
// CHECK: sdfg.state "snapshot of t"
// CHECK-NEXT: sdfg.map (%{{.*}}) = (0) to (%{{.*}})
// CHECK: sdfg.state "restore snapshot of t"
// CHECK-NEXT: sdfg.map (%{{.*}}) = (0) to (%{{.*}})

// BINOMIAL: remark: loop 't': 20 iterations, binomial, 3 snapshots of 7.8 KiB, 45 iterations run again
// BINOMIAL: sdfg.alloc(%{{.*}}) {name = "x.snapshot.t"} : memref<3x?xf64>

// Storing every iteration needs 328 KiB at x.0 = 1000: the ILP
// checkpoints the loop instead.
// ILP: remark: loop 't': 20 iterations, {{segments|binomial}}
// ILP: remark: peak memory {{.*}} KiB = {{.*}} B at sizes x.0=..1000 (storing everything: 328.0 KiB; limit 100.0 KiB)
sdfg.sdfg @heat(%x: memref<?xf64> {sdfg.name = "x"}, %__return0: memref<f64> {sdfg.name = "__return0"})
    attributes {ad_output = "__return0", ad_wrt = ["x"]} {
  %n = sdfg.dim %x, 0 : memref<?xf64>
  %m = sdfg.tasklet(%n) : (index) -> index {
  ^bb0(%a: index):
    %c = arith.constant -1 : index
    %r = arith.addi %a, %c : index
    sdfg.yield %r : index
  }
  %tmp = sdfg.alloc(%n) {name = "tmp"} : memref<?xf64>
  sdfg.loop %t = 0 to 20 step 1 attributes {sdfg.name = "t"} {
    sdfg.state {
      sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
        %a = sdfg.load %x[%i] : memref<?xf64>
        %s = sdfg.tasklet(%a) : (f64) -> f64 {
        ^bb0(%u: f64):
          %q = math.sin %u : f64
          sdfg.yield %q : f64
        }
        sdfg.store %s, %tmp[%i] : memref<?xf64>
      }
    }
    sdfg.state {
      sdfg.map (%i) = (0) to (%m) step (1) schedule(sequential) {
        %a = sdfg.load %tmp[%i] : memref<?xf64>
        %b = sdfg.load %tmp[%i + 1] : memref<?xf64>
        %c = sdfg.load %x[%i] : memref<?xf64>
        %s = sdfg.tasklet(%a, %b, %c) : (f64, f64, f64) -> f64 {
        ^bb0(%u: f64, %v: f64, %w: f64):
          %p = arith.mulf %u, %v : f64
          %q = arith.addf %p, %w : f64
          sdfg.yield %q : f64
        }
        sdfg.store %s, %x[%i] : memref<?xf64>
      }
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      sdfg.store %v, %__return0[] wcr(add) : memref<f64>
    }
  }
}
