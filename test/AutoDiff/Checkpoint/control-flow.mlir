// Values computed in a time loop and read under a branch. `tmp` (tanh(u)
// every step) is recomputed inside the reversed loop, before the reversed
// branch reads it; its 6 stored copies disappear. `flux` is written in
// both branches and read after them: recomputing it re-runs the whole
// conditional on its stored condition. Recomputing flux re-runs code that
// reads tmp as stored, so they are exclusive: recompute-all takes tmp (the
// first), the ILP takes the cheaper tmp when it fits and flux below that.
// Source (python-frontend): for t in range(6): tmp = np.tanh(u); if t%2==0:
// flux = np.exp(-tmp[1:-1])*(tmp[2:]-tmp[:-2]) else: flux =
// np.sin(tmp[1:-1])*tmp[2:]; u[1:-1] += 0.1*flux*flux; return np.sum(u*u)
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="strategy=recompute-all report=true" 2>&1 | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=14022B" | FileCheck %s --check-prefix=FITS
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=12000B" | FileCheck %s --check-prefix=TIGHT
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=10000B checkpoints=loop0=0" | FileCheck %s --check-prefix=FLUX
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=10000B report=true" 2>&1 | FileCheck %s --check-prefix=LOOP
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=6000B report=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BINOMIAL
// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint="mem=4000B" 2>&1 | FileCheck %s --check-prefix=INFEASIBLE

// CHECK: remark: 'u': argument + 2.9 KiB of overwritten values: store (cannot recompute: an argument updated in place: its values before each update are stored)
// CHECK: remark: 'tmp': 512 B + 3.0 KiB of overwritten values, recompute cost {{.*}}: recompute
// CHECK: remark: 'flux': 496 B + 5.8 KiB of overwritten values, recompute cost {{.*}}: store{{$}}
// CHECK: remark: peak memory 10.7 KiB (storing everything: 13.7 KiB)
// CHECK-LABEL: sdfg.sdfg @time_loop_grad
// CHECK: %[[RE:.*]] = sdfg.alloc() {name = "tmp.recomputed"}
// CHECK: %[[TMP:.*]] = sdfg.alloc() {name = "tmp"}
// The forward writer of tmp stores nothing on a tape.
// CHECK: sdfg.loop %{{.*}} = 0 to 6 step 1 {
// CHECK-NEXT: sdfg.state {
// CHECK-NEXT: sdfg.map
// CHECK-NEXT: sdfg.load %u
// CHECK-NEXT: sdfg.tasklet
// CHECK-NEXT: ^bb0
// CHECK-NEXT: math.tanh
// CHECK-NEXT: sdfg.yield
// CHECK-NEXT: }
// CHECK-NEXT: sdfg.store %{{.*}}, %[[TMP]][
// CHECK-NEXT: }
// The backward loop recomputes it into the fresh container, and the
// reversed branch reads that one.
// CHECK: sdfg.loop %{{.*}} = 5 to -1 step -1 {
// CHECK: sdfg.state "recompute tmp" {
// CHECK-NEXT: sdfg.map
// CHECK-NEXT: sdfg.load %u
// CHECK: sdfg.store %{{.*}}, %[[RE]][
// CHECK: sdfg.if
// CHECK-NOT: sdfg.state "recompute
// CHECK: sdfg.load %[[RE]]

// FITS: recompute = [], store = ["u", "tmp", "flux"], store_all_peak_bytes = 14022
// TIGHT: peak_bytes = 10950 : i64, recompute = ["tmp"]
// FLUX: sdfg.checkpoint = {limit_bytes = 10000 : i64, loops = [{name = "loop0", recomputed_iterations = 0 : i64, schedule = "store-all", segments = [], snapshot_bytes = {{[0-9]+}} : i64, snapshots = [], trips = 6 : i64, while = false}], model_peak_bytes = 8070 : i64, peak_bytes = 8070 : i64, recompute = ["flux"], store = ["u", "tmp"]
// The reversed loop re-runs the conditional, taking the stored branch.
// FLUX: %[[FRESH:.*]] = sdfg.alloc() {name = "flux.recomputed"}
// FLUX: sdfg.loop %[[T:.*]] = 5 to -1 step -1 {
// FLUX-NEXT: %[[C:.*]] = sdfg.load %{{.*}}[%[[T]]] : memref<6xi1>
// FLUX-NEXT: sdfg.if %[[C]] {
// FLUX-NEXT: sdfg.state "recompute flux" {
// FLUX: sdfg.store %{{.*}}, %[[FRESH]][
// FLUX: } else {
// FLUX-NEXT: sdfg.state "recompute flux" {
// FLUX: sdfg.store %{{.*}}, %[[FRESH]][

// Without the pin the ILP checkpoints the loop instead: the snapshot is u
// and flux (tmp is overwritten before it is read in every iteration), and
// re-running the first segment costs less than recomputing flux.
// LOOP: remark: 'flux': {{.*}}: store
// LOOP: remark: loop 'loop0': 6 iterations, segments of 3, 1 snapshots of 1008 B, 3 iterations run again
// LOOP: remark: peak memory 8.8 KiB (storing everything: 13.7 KiB; limit 9.8 KiB)

// Under 6000 B only the binomial schedule fits (one snapshot, one
// iteration's tapes); below about 5 KiB nothing does.
// BINOMIAL: remark: loop 'loop0': 6 iterations, binomial, 1 snapshots of 1008 B, 15 iterations run again
// BINOMIAL: remark: peak memory 5.0 KiB (storing everything: 13.7 KiB; limit 5.9 KiB)
// INFEASIBLE: error: sdfg-checkpoint: no store/recompute plan for @time_loop_grad fits in 3.9 KiB; the smallest feasible limit is 4.962 KiB (5081 bytes; storing everything needs 13.7 KiB)

sdfg.sdfg @time_loop(%u: memref<64xf64> {sdfg.name = "u"},
    %__return0: memref<f64> {sdfg.name = "__return0"}) {
  %T2 = sdfg.alloc() {name = "tmp"} : memref<64xf64>
  %T25 = sdfg.alloc() {name = "flux"} : memref<62xf64>
  %T58 = sdfg.alloc() {name = "sum"} : memref<f64>
  sdfg.loop %i1 = 0 to 6 step 1 {
    sdfg.state {
      sdfg.map (%p3) = (0) to (64) step (1) schedule(sequential) {
        %l4 = sdfg.load %u[%p3] : memref<64xf64>
        %t5 = sdfg.tasklet(%l4) : (f64) -> f64 {
        ^bb0(%a6: f64):
          %x7 = math.tanh %a6 : f64
          sdfg.yield %x7 : f64
        }
        sdfg.store %t5, %T2[%p3] : memref<64xf64>
      }
    }
    %t8 = sdfg.tasklet(%i1) : (index) -> i1 {
    ^bb0(%a9: index):
      %c10 = arith.constant 0 : index
      %x11 = arith.addi %c10, %a9 : index
      %x12 = arith.index_cast %x11 : index to i64
      %c13 = arith.constant 2 : i64
      %x14 = arith.remsi %x12, %c13 : i64
      %c15 = arith.constant 0 : i64
      %x16 = arith.cmpi slt, %x14, %c15 : i64
      %x17 = arith.cmpi slt, %c13, %c15 : i64
      %x18 = arith.cmpi ne, %x14, %c15 : i64
      %x19 = arith.xori %x16, %x17 : i1
      %x20 = arith.andi %x18, %x19 : i1
      %x21 = arith.addi %x14, %c13 : i64
      %x22 = arith.select %x20, %x21, %x14 : i64
      %c23 = arith.constant 0 : i64
      %x24 = arith.cmpi eq, %x22, %c23 : i64
      sdfg.yield %x24 : i1
    }
    sdfg.if %t8 {
      sdfg.state {
        sdfg.map (%p26) = (0) to (62) step (1) schedule(sequential) {
          %l27 = sdfg.load %T2[%p26 + 1] : memref<64xf64>
          %l28 = sdfg.load %T2[%p26 + 2] : memref<64xf64>
          %l29 = sdfg.load %T2[%p26] : memref<64xf64>
          %t30 = sdfg.tasklet(%l27, %l28, %l29) : (f64, f64, f64) -> f64 {
          ^bb0(%a31: f64, %a32: f64, %a33: f64):
            %x34 = arith.negf %a31 : f64
            %x35 = math.exp %x34 : f64
            %x36 = arith.subf %a32, %a33 : f64
            %x37 = arith.mulf %x35, %x36 : f64
            sdfg.yield %x37 : f64
          }
          sdfg.store %t30, %T25[%p26] : memref<62xf64>
        }
      }
    } else {
      sdfg.state {
        sdfg.map (%p38) = (0) to (62) step (1) schedule(sequential) {
          %l39 = sdfg.load %T2[%p38 + 1] : memref<64xf64>
          %l40 = sdfg.load %T2[%p38 + 2] : memref<64xf64>
          %t41 = sdfg.tasklet(%l39, %l40) : (f64, f64) -> f64 {
          ^bb0(%a42: f64, %a43: f64):
            %x44 = math.sin %a42 : f64
            %x45 = arith.mulf %x44, %a43 : f64
            sdfg.yield %x45 : f64
          }
          sdfg.store %t41, %T25[%p38] : memref<62xf64>
        }
      }
    }
    sdfg.state {
      sdfg.map (%p46) = (0) to (62) step (1) schedule(sequential) {
        %l47 = sdfg.load %u[%p46 + 1] : memref<64xf64>
        %l48 = sdfg.load %T25[%p46] : memref<62xf64>
        %l49 = sdfg.load %T25[%p46] : memref<62xf64>
        %t50 = sdfg.tasklet(%l47, %l48, %l49) : (f64, f64, f64) -> f64 {
        ^bb0(%a51: f64, %a52: f64, %a53: f64):
          %c54 = arith.constant 1.00000000000000006e-01 : f64
          %x55 = arith.mulf %c54, %a52 : f64
          %x56 = arith.mulf %x55, %a53 : f64
          %x57 = arith.addf %a51, %x56 : f64
          sdfg.yield %x57 : f64
        }
        sdfg.store %t50, %u[%p46 + 1] : memref<64xf64>
      }
    }
  }
  sdfg.state {
    %t59 = sdfg.tasklet() : () -> f64 {
      %c60 = arith.constant 0.00000000000000000e+00 : f64
      sdfg.yield %c60 : f64
    }
    sdfg.store %t59, %T58[] : memref<f64>
    sdfg.map (%p61) = (0) to (64) step (1) schedule(sequential) {
      %l62 = sdfg.load %u[%p61] : memref<64xf64>
      %l63 = sdfg.load %u[%p61] : memref<64xf64>
      %t64 = sdfg.tasklet(%l62, %l63) : (f64, f64) -> f64 {
      ^bb0(%a65: f64, %a66: f64):
        %x67 = arith.mulf %a65, %a66 : f64
        sdfg.yield %x67 : f64
      }
      sdfg.store %t64, %T58[] wcr(add) : memref<f64>
    }
    %l68 = sdfg.load %T58[] : memref<f64>
    sdfg.store %l68, %__return0[] : memref<f64>
  }
}

