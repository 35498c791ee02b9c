// RUN: sdfg-opt %s --sdfg-forward-diff | FileCheck %s
// RUN: sdfg-opt %s --sdfg-forward-diff --sdfg-lower-to-cpu -o /dev/null

// A x = b: A tx = tb - tA x, solved in tx itself: tx = -tb, tx += tA x,
// solve in place, negate.
sdfg.sdfg @f(%A: memref<3x3xf64> {sdfg.name = "A"},
             %b: memref<3xf64> {sdfg.name = "b"},
             %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.solve %A, %b -> %__return0 : memref<3x3xf64>, memref<3xf64> -> memref<3xf64>
  }
}

// CHECK-LABEL: sdfg.sdfg @f_jvp(
// CHECK-SAME: %[[A:[^:]*]]: memref<3x3xf64> {sdfg.name = "A"}
// CHECK-SAME: %[[X:[^:]*]]: memref<3xf64> {sdfg.name = "__return0"}
// CHECK-SAME: %[[TA:[^:]*]]: memref<3x3xf64> {sdfg.name = "t_A"}
// CHECK-SAME: %[[TB:[^:]*]]: memref<3xf64> {sdfg.name = "t_b"}
// CHECK-SAME: %[[TX:[^:]*]]: memref<3xf64> {sdfg.name = "t___return0"}
// CHECK: sdfg.solve %[[A]], %{{.*}} -> %[[X]]
// CHECK: sdfg.load %[[TB]]
// CHECK: arith.negf
// CHECK: sdfg.store %{{.*}}, %[[TX]]
// CHECK: sdfg.gemv %[[TA]], %[[X]] -> %[[TX]] {accumulate}
// CHECK-NEXT: sdfg.solve %[[A]], %[[TX]] -> %[[TX]]
// CHECK: arith.negf
// CHECK: sdfg.store %{{.*}}, %[[TX]]
