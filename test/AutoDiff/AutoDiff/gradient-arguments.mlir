// The d_<wrt> arguments are outputs: the gradient program zeroes them
// before the backward program accumulates into them (x, and z, which does
// not influence y and so gets no other write), so callers need not; the
// seed d_y is left as it is. With accumulate=true the gradients are added
// to what the caller passes, and sdfg.ad records it for sdfg-checkpoint.
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x,z" | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x,z accumulate=true" | FileCheck %s --check-prefix=ACC
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x,z accumulate=true" --sdfg-checkpoint=strategy=recompute-all | FileCheck %s --check-prefix=ACC
// With unit-seed=true the program fills the seed d_y with ones itself
// (before its first use), and the elimination of dead writes turns the
// reads into constants: with discard-results (the caller does not read
// what is left of the seed) d_y is not touched at all.
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x,z unit-seed=true" | FileCheck %s --check-prefix=SEED
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x,z unit-seed=true discard-results=true" --sdfg-checkpoint=strategy=store-all --sdfg-eliminate-dead-writes | FileCheck %s --check-prefix=FOLDED

// SEED-LABEL: sdfg.sdfg @square_grad
// SEED-SAME: unit_seed
// SEED: sdfg.state "zero" {
// SEED: arith.constant 1.0
// SEED: sdfg.store %{{.*}}, %d_y[%{{.*}}] : memref<4xf64>
// SEED: sdfg.state "reverse"
// SEED: sdfg.load %d_y[

// FOLDED-LABEL: sdfg.sdfg @square_grad
// FOLDED-SAME: unit_seed
// FOLDED-NOT: %d_y[

// CHECK-LABEL: sdfg.sdfg @square_grad
// CHECK-SAME: %d_x: memref<4xf64>
// CHECK-SAME: %d_z: memref<4xf64>
// CHECK-SAME: %d_y: memref<4xf64>
// CHECK: sdfg.state "zero" {
// CHECK-NEXT: sdfg.map
// CHECK: sdfg.store %{{.*}}, %d_z[%{{.*}}] : memref<4xf64>
// CHECK: sdfg.state "zero" {
// CHECK-NEXT: sdfg.map
// CHECK: sdfg.store %{{.*}}, %d_x[%{{.*}}] : memref<4xf64>
// CHECK: sdfg.state "reverse"
// CHECK-NOT: sdfg.store %{{.*}}, %d_y[%{{.*}}] : memref<4xf64>
// CHECK: sdfg.store %{{.*}}, %d_x[%{{.*}}] wcr(add)

// ACC-LABEL: sdfg.sdfg @square_grad
// ACC-SAME: accumulate
// ACC-NOT: sdfg.state "zero"
// ACC: sdfg.store %{{.*}}, %d_x[%{{.*}}] wcr(add)
// ACC-NOT: %d_z[
sdfg.sdfg @square(%x: memref<4xf64> {sdfg.name = "x"},
                  %z: memref<4xf64> {sdfg.name = "z"},
                  %y: memref<4xf64> {sdfg.name = "y"}) {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<4xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = arith.mulf %a, %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %y[%i] : memref<4xf64>
    }
  }
}

