// RUN: sdfg-opt %s --sdfg-autodiff | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff=strong-zero=false | FileCheck %s --check-prefix=WEAK

// sum(select(x > 0, sqrt(x), 0)): the adjoint of sqrt's operand is
// g * 0.5 / sqrt(x), inf or NaN where x <= 0. There g is zero (the select
// discards sqrt), and strong zero makes the operand adjoint zero too
// instead of 0 * inf = NaN. The select's own adjoints only scale g, so
// they need no guard: one comparison of g with zero, one guarding select.
// CHECK-LABEL: sdfg.sdfg @guarded_sqrt_grad(
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.tasklet
// CHECK: math.sqrt
// CHECK: %[[G:.*]] = arith.select %{{.*}}, %arg{{[0-9]+}}, %{{.*}} : f64
// CHECK: %[[D:.*]] = arith.divf
// CHECK: %[[Z:.*]] = arith.cmpf oeq, %[[G]], %{{.*}} : f64
// CHECK: arith.select %[[Z]], %{{.*}}, %[[D]] : f64
// CHECK-NOT: arith.cmpf oeq
// CHECK: sdfg.yield
// The opt-out propagates 0 * inf = NaN (JAX's and PyTorch's behaviour),
// and is recorded for sdfg-checkpoint's re-differentiation.
// WEAK-LABEL: sdfg.sdfg @guarded_sqrt_grad(
// WEAK-SAME: sdfg.ad = {{.*}}weak_zero
// WEAK: sdfg.state "reverse"
// WEAK-NOT: arith.cmpf oeq
// WEAK: sdfg.yield
sdfg.sdfg @guarded_sqrt(%x: memref<8xf64> {sdfg.name = "x"},
                        %s: memref<f64> {sdfg.name = "s"})
    attributes {ad_output = "s", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
      %a = sdfg.load %x[%i] : memref<8xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%v: f64):
        %zero = arith.constant 0.0 : f64
        %c = arith.cmpf ogt, %v, %zero : f64
        %q = math.sqrt %v : f64
        %e = arith.select %c, %q, %zero : f64
        sdfg.yield %e : f64
      }
      sdfg.store %r, %s[] wcr(add) : memref<f64>
    }
  }
}
