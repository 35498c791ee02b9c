// RUN: sdfg-opt %s --sdfg-autodiff=print-ccs=true | FileCheck %s --check-prefix=CCS
// RUN: sdfg-opt %s --sdfg-autodiff | FileCheck %s --check-prefix=REV
// RUN: sdfg-opt %s --sdfg-forward-diff | FileCheck %s --check-prefix=FWD

// out = x * stop_gradient(2 x): the copy %c is written from x but is a
// constant to differentiation, so d out / dx = c = 2x, not 4x.
// CCS: sdfg.ccs = ["x", "__return0"], sdfg.needed = ["c"]
// REV-LABEL: sdfg.sdfg @f_grad(
// No gradient container for c (without the attribute there is one, an
// unnamed alloc before c's).
// REV-NEXT: sdfg.alloc() {name = "c", sdfg.stop_gradient}
// REV-NOT: sdfg.alloc
// FWD-LABEL: sdfg.sdfg @f_jvp(
// FWD-NOT: t_c
// FWD: }
sdfg.sdfg @f(%x: memref<3xf64> {sdfg.name = "x"},
             %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  %c = sdfg.alloc() {name = "c", sdfg.stop_gradient} : memref<3xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<3xf64>
      %d = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %two = arith.constant 2.0 : f64
        %m = arith.mulf %two, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %d, %c[%i] : memref<3xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<3xf64>
      %w = sdfg.load %c[%i] : memref<3xf64>
      %p = sdfg.tasklet(%v, %w) : (f64, f64) -> f64 {
      ^bb0(%a: f64, %b: f64):
        %m = arith.mulf %a, %b : f64
        sdfg.yield %m : f64
      }
      sdfg.store %p, %__return0[%i] : memref<3xf64>
    }
  }
}
