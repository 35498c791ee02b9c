// Dynamic shapes: sizes= gives the index arguments values for the memory
// model; without them the pass says which size it needs.
// RUN: sdfg-opt %s --sdfg-autodiff=accumulate=true --sdfg-checkpoint="strategy=recompute-all report=true sizes=n=1000" 2>&1 | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff=accumulate=true --sdfg-checkpoint="strategy=store-all report=true sizes=n=10" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not sdfg-opt %s --sdfg-autodiff=accumulate=true --sdfg-checkpoint="mem=1" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not sdfg-opt %s --sdfg-autodiff=accumulate=true --sdfg-checkpoint="mem=1 sizes=n=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: 'sdfg.alloc' op sdfg-checkpoint: this container's size overflows (more than 2^62 bytes)

// The report gives the bytes at the sizes given and as a formula in them.
// CHECK: remark: 'tmp': 7.8 KiB = 8*n B, recompute cost {{.*}}: recompute
// The peak as a formula: the two containers of n doubles live there.
// CHECK: remark: peak memory 15.6 KiB = 16*n B at sizes n=1000 (storing everything: 15.6 KiB)
// CHECK: %[[FRESH:.*]] = sdfg.alloc(%n) {name = "tmp.recomputed"} : memref<?xf64>
// CHECK: sdfg.state "recompute tmp" {
// CHECK-NEXT: sdfg.map (%{{.*}}) = (0) to (%n)
// CHECK: sdfg.store %{{.*}}, %[[FRESH]][

// SMALL: remark: 'tmp': 80 B = 8*n B, recompute cost {{.*}}: store
// SMALL: remark: peak memory 160 B = 16*n B at sizes n=10 (storing everything: 160 B)

// MISSING: sizes.mlir:[[# @LINE + 3]]:10: error: 'sdfg.alloc' op sdfg-checkpoint needs the size of this container: give its dynamic size 'n' a value with sizes=NAME=VALUE
sdfg.sdfg @dyn(%x: memref<?xf64> {sdfg.name = "x"}, %y: memref<1000xf64> {sdfg.name = "y"},
               %n: index {sdfg.name = "n"}) attributes {ad_output = "y", ad_wrt = ["x"]} {
  %tmp = sdfg.alloc(%n) {name = "tmp"} : memref<?xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = math.sin %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %tmp[%i] : memref<?xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %tmp[%i] : memref<?xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = arith.mulf %a, %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %y[%i] : memref<1000xf64>
    }
  }
}
