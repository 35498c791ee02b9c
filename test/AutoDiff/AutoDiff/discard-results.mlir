// With discard-results only the gradients and the forward results named
// in keep matter (y, rewound by the backward program, still gets its fwd_y
// copy; z needs none). The other written arguments are marked discardable
// and get no fwd_ copy even when the backward program rewinds them (y
// without keep); the consumed seed d_y is discardable too. Then
// sdfg-eliminate-dead-writes drops the work only they needed: all of w's,
// the copy into z that nothing reads, and the clearing of the seed.
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x discard-results=true keep=y,z" | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x discard-results=true" --sdfg-eliminate-dead-writes | FileCheck %s --check-prefix=DEAD
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x discard-results=true" --sdfg-checkpoint=strategy=store-all | FileCheck %s --check-prefix=CKPT
// RUN: not sdfg-opt %s --sdfg-autodiff="output=y wrt=x keep=z" 2>&1 | FileCheck %s --check-prefix=NOFLAG
// RUN: not sdfg-opt %s --sdfg-autodiff="output=y wrt=x discard-results=true keep=q" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK-LABEL: sdfg.sdfg @f_grad(
// CHECK-SAME: %y: memref<3xf64> {sdfg.name = "y"}
// CHECK-SAME: %z: memref<3xf64> {sdfg.name = "z"}
// CHECK-SAME: %w: memref<3xf64> {sdfg.discardable, sdfg.name = "w"}
// CHECK-SAME: %d_y: memref<3xf64> {sdfg.discardable, sdfg.name = "d_y"}
// CHECK-SAME: %fwd_y: memref<3xf64> {sdfg.name = "fwd_y"})
// CHECK-SAME: discard_results, keep = ["y", "z"]

// DEAD-LABEL: sdfg.sdfg @f_grad(
// DEAD-NOT: %w[
// DEAD-NOT: sdfg.store {{.*}} %z[
// DEAD: sdfg.state "reverse"
// DEAD: sdfg.state "reverse"
// DEAD-NOT: sdfg.store {{.*}} %d_y[

// CKPT: sdfg.sdfg @f_grad(
// CKPT-SAME: discard_results, keep = []

// NOFLAG: error: sdfg-autodiff: keep= needs discard-results=true
// UNKNOWN: error: 'sdfg.sdfg' op autodiff keep name 'q' is not an argument
sdfg.sdfg @f(%x: memref<3xf64> {sdfg.name = "x"},
             %y: memref<3xf64> {sdfg.name = "y"},
             %z: memref<3xf64> {sdfg.name = "z"},
             %w: memref<3xf64> {sdfg.name = "w"}) {
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %a = sdfg.load %x[%i] : memref<3xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = math.tanh %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i] : memref<3xf64>
      sdfg.store %r, %z[%i] : memref<3xf64>
      %o = sdfg.load %w[%i] : memref<3xf64>
      %s = sdfg.tasklet(%o, %a) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %m = arith.mulf %u, %v : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %w[%i] : memref<3xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %a = sdfg.load %y[%i] : memref<3xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = arith.mulf %u, %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i] : memref<3xf64>
    }
  }
}
