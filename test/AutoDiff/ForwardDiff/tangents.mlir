// RUN: sdfg-opt %s --sdfg-forward-diff="outputs=__return0,__return1 wrt=x" | FileCheck %s
// RUN: sdfg-opt %s --sdfg-forward-diff="outputs=__return0,__return1 wrt=x" --sdfg-lower-to-cpu -o /dev/null

// y = sin(x) * x elementwise, then y[i] = 0.5 * y[i] + y[i] * y[i] twice
// (in place), s = sum(y) into the second return and A @ y into the
// first: every write of a container that depends on x and reaches an
// output is followed by the write of its tangent.
sdfg.sdfg @f(%x: memref<3xf64> {sdfg.name = "x"},
             %A: memref<2x3xf64> {sdfg.name = "A"},
             %__return0: memref<2xf64> {sdfg.name = "__return0"},
             %__return1: memref<f64> {sdfg.name = "__return1"}) {
  %y = sdfg.alloc() {name = "y"} : memref<3xf64>
  %s = sdfg.alloc() {name = "s"} : memref<f64>
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<3xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %sn = math.sin %a : f64
        %m = arith.mulf %sn, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i] : memref<3xf64>
    }
  }
  sdfg.loop %t = 0 to 2 step 1 {
    sdfg.state {
      sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
        %v = sdfg.load %y[%i] : memref<3xf64>
        %r = sdfg.tasklet(%v) : (f64) -> f64 {
        ^bb0(%a: f64):
          %h = arith.constant 0.5 : f64
          %p = arith.mulf %h, %a : f64
          %q = arith.mulf %a, %a : f64
          %u = arith.addf %p, %q : f64
          sdfg.yield %u : f64
        }
        sdfg.store %r, %y[%i] : memref<3xf64>
      }
    }
  }
  sdfg.state {
    %z = sdfg.tasklet() : () -> f64 {
      %c = arith.constant 0.0 : f64
      sdfg.yield %c : f64
    }
    sdfg.store %z, %s[] : memref<f64>
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %y[%i] : memref<3xf64>
      sdfg.store %v, %s[] wcr(add) : memref<f64>
    }
    sdfg.gemv %A, %y -> %__return0 : memref<2x3xf64>, memref<3xf64> -> memref<2xf64>
    %sv = sdfg.load %s[] : memref<f64>
    sdfg.store %sv, %__return1[] : memref<f64>
  }
}

// CHECK-LABEL: sdfg.sdfg @f_jvp(
// CHECK-SAME: %[[X:[^:]*]]: memref<3xf64> {sdfg.name = "x"}
// CHECK-SAME: %[[A:[^:]*]]: memref<2x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[R0:[^:]*]]: memref<2xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TX:[^:]*]]: memref<3xf64> {sdfg.name = "t_x"}
// CHECK-SAME: %[[TR0:[^:]*]]: memref<2xf64> {sdfg.name = "t___return0"}
// CHECK-SAME: memref<f64> {sdfg.name = "t___return1"}
// CHECK: %[[Y:.*]] = sdfg.alloc() {name = "y"}
// CHECK: %[[TY:.*]] = sdfg.alloc() {name = "t_y"}
// CHECK: %[[S:.*]] = sdfg.alloc() {name = "s"}
// CHECK: %[[TS:.*]] = sdfg.alloc() {name = "t_s"}
// The first map: d(sin(x) x) = (cos(x) x + sin(x)) dx.
// CHECK: %[[V:.*]] = sdfg.load %[[X]][%[[I:.*]]]
// CHECK: %[[TV:.*]] = sdfg.load %[[TX]][%[[I]]]
// CHECK: %[[R:.*]] = sdfg.tasklet(%[[V]])
// CHECK: %[[TR:.*]] = sdfg.tasklet(%[[V]], %[[TV]])
// CHECK-DAG: math.sin
// CHECK-DAG: math.cos
// CHECK: sdfg.store %[[R]], %[[Y]][%[[I]]]
// CHECK-NEXT: sdfg.store %[[TR]], %[[TY]][%[[I]]]
// The in-place update reads the old y and old t_y before either store.
// CHECK: sdfg.loop
// CHECK: %[[V2:.*]] = sdfg.load %[[Y]]
// CHECK: %[[TV2:.*]] = sdfg.load %[[TY]]
// CHECK: sdfg.tasklet(%[[V2]], %[[TV2]])
// CHECK: sdfg.store {{.*}}, %[[Y]]
// CHECK-NEXT: sdfg.store {{.*}}, %[[TY]]
// A constant stored into s: its tangent becomes zero; the sum's is a sum.
// CHECK: sdfg.store %{{.*}}, %[[S]][]
// CHECK: %[[ZERO:.*]] = sdfg.tasklet() : () -> f64
// CHECK: sdfg.store %[[ZERO]], %[[TS]][]
// CHECK: sdfg.store %{{.*}}, %[[S]][] wcr(add)
// CHECK-NEXT: sdfg.store %{{.*}}, %[[TS]][] wcr(add)
// A @ y: A has no tangent, so t_return0 = A @ t_y.
// CHECK: sdfg.gemv %[[A]], %[[Y]] -> %[[R0]]
// CHECK-NEXT: sdfg.gemv %[[A]], %[[TY]] -> %[[TR0]]
