// RUN: sdfg-opt %s --sdfg-autodiff="of=f" | FileCheck %s --check-prefix=REV
// RUN: sdfg-opt %s --sdfg-autodiff="of=f" --sdfg-lower-to-cpu | FileCheck %s --check-prefix=LOW

// y = sq(x) = x * x, called through sdfg.custom_call with the user's rule
// @sq_vjp (a straight-through estimator: dx = g, not 2 x g), then
// out = 3 y. The gradient program calls @sq_vjp on x, y and dy into a
// scratch container and adds that to d_x; it never differentiates @sq.
// REV-LABEL: sdfg.sdfg @f_grad(
// REV-SAME: %[[X:[a-z0-9_]+]]: memref<3xf64> {sdfg.name = "x"}
// REV-SAME: %[[DX:[a-z0-9_]+]]: memref<3xf64> {sdfg.name = "d_x"}
// REV: %[[COT:.*]] = sdfg.alloc() : memref<3xf64>
// REV: sdfg.custom_call @sq(%[[X]]) -> %[[Y:[a-z0-9_]+]]
// REV: sdfg.custom_call @sq_vjp(%[[X]], %[[Y]], %[[DY:[a-z0-9_]+]]) -> %[[COT]]
// REV-NOT: vjp
// REV: %[[V:.*]] = sdfg.load %[[COT]]
// REV: sdfg.store %[[V]], %[[DX]]{{.*}} wcr(add)
// Lowered: the forward and backward calls are calls of the lowered
// programs, with a bare pointer per container.
// LOW-LABEL: llvm.func @f_grad(
// LOW: llvm.call @sq({{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
// LOW: llvm.call @sq_vjp({{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
sdfg.sdfg @sq(%x: memref<3xf64> {sdfg.name = "x"},
              %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<3xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %m = arith.mulf %a, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %__return0[%i] : memref<3xf64>
    }
  }
}
sdfg.sdfg @sq_vjp(%x: memref<3xf64> {sdfg.name = "x"},
                  %y: memref<3xf64> {sdfg.name = "y"},
                  %g: memref<3xf64> {sdfg.name = "g"},
                  %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.copy %g[0 : 3] to %__return0[0 : 3] : memref<3xf64> to memref<3xf64>
  }
}
sdfg.sdfg @f(%x: memref<3xf64> {sdfg.name = "x"},
             %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  %y = sdfg.alloc() {name = "y"} : memref<3xf64>
  sdfg.state {
    sdfg.custom_call @sq(%x) -> %y {vjp = [@sq_vjp]}
        : (memref<3xf64>) -> memref<3xf64>
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %y[%i] : memref<3xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %three = arith.constant 3.0 : f64
        %m = arith.mulf %three, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %__return0[%i] : memref<3xf64>
    }
  }
}
