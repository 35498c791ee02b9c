// RUN: sdfg-opt %s --sdfg-forward-diff | FileCheck %s
// RUN: sdfg-opt %s --sdfg-forward-diff --sdfg-lower-to-cpu -o /dev/null

// A max reduction in a map: after the map, a census map recomputes each
// contribution, compares it with the final maximum and adds its tangent
// and a count where they are equal; each element's tangent is then the
// mean over the ties, the value it started from included.
sdfg.sdfg @colmax(%x: memref<4x3xf64> {sdfg.name = "x"},
                  %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.map (%j) = (0) to (3) step (1) schedule(sequential) {
      %t = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 0xFFF0000000000000 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %t, %__return0[%j] : memref<3xf64>
    }
    sdfg.map (%i, %j) = (0, 0) to (4, 3) step (1, 1) schedule(sequential) {
      %v = sdfg.load %x[%i, %j] : memref<4x3xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %s = math.sin %a : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %__return0[%j] wcr(max) : memref<3xf64>
    }
  }
}

// CHECK-LABEL: sdfg.sdfg @colmax_jvp(
// CHECK-SAME: %[[OUT:[^:]*]]: memref<3xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TOUT:[^:]*]]: memref<3xf64> {sdfg.name = "t___return0"}
// CHECK-DAG: %[[TIES:.*]] = sdfg.alloc() {name = "t_ties"}
// CHECK-DAG: %[[SUM:.*]] = sdfg.alloc() {name = "t_tie_tangents"}
// CHECK-DAG: %[[BT:.*]] = sdfg.alloc() {name = "t_before_tangent"}
// CHECK-DAG: %[[B:.*]] = sdfg.alloc() {name = "t_before"}
// Before the map: the values and tangents it starts from.
// CHECK: sdfg.store %{{.*}}, %[[B]][
// CHECK: sdfg.store %{{.*}}, %[[BT]][
// The map itself is unchanged.
// CHECK: sdfg.store %{{.*}}, %[[OUT]][%{{.*}}] wcr(max)
// The census: equal to the final maximum -> its tangent and a count.
// CHECK: %[[FIN:.*]] = sdfg.load %[[OUT]][
// CHECK: %[[C:.*]]:2 = sdfg.tasklet(%{{.*}}, %[[FIN]], %{{.*}})
// CHECK: arith.cmpf oeq
// CHECK: sdfg.store %[[C]]#0, %[[SUM]][%{{.*}}] wcr(add)
// CHECK: sdfg.store %[[C]]#1, %[[TIES]][%{{.*}}] wcr(add)
// The mean over the ties.
// CHECK: arith.divf
// CHECK: sdfg.store %{{.*}}, %[[TOUT]][


// A norm that only decides how often a loop runs gets no tangent.
sdfg.sdfg @until(%x: memref<3xf64> {sdfg.name = "x"},
                 %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  %n = sdfg.alloc() {name = "norm"} : memref<f64>
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<3xf64>
      sdfg.store %v, %__return0[%i] : memref<3xf64>
    }
  }
  sdfg.loop %k = 0 to 3 step 1 {
    sdfg.state {
      %z = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 0.0 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %z, %n[] : memref<f64>
      sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
        %v = sdfg.load %__return0[%i] : memref<3xf64>
        sdfg.store %v, %n[] wcr(max) : memref<f64>
      }
    }
    %nv = sdfg.load %n[] : memref<f64>
    %big = sdfg.tasklet(%nv) : (f64) -> i1 {
    ^bb0(%a: f64):
      %one = arith.constant 1.0 : f64
      %c = arith.cmpf ogt, %a, %one : f64
      sdfg.yield %c : i1
    }
    sdfg.if %big {
      sdfg.state {
        sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
          %v = sdfg.load %__return0[%i] : memref<3xf64>
          %h = sdfg.tasklet(%v) : (f64) -> f64 {
          ^bb0(%a: f64):
            %half = arith.constant 0.5 : f64
            %m = arith.mulf %a, %half : f64
            sdfg.yield %m : f64
          }
          sdfg.store %h, %__return0[%i] : memref<3xf64>
        }
      }
    }
  }
}

// CHECK-LABEL: sdfg.sdfg @until_jvp(
// CHECK-NOT: t_norm
// CHECK-NOT: t_ties
// CHECK: sdfg.store %{{.*}}, %{{.*}}[] wcr(max)
// CHECK-NOT: t_ties
// CHECK: }
