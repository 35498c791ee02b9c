// RUN: sdfg-opt %s --sdfg-autodiff="while-capacity=64" | FileCheck %s

// A while loop counts its iterations; the count indexes the tapes (one
// slot per iteration, up to while-capacity) and is the trip count of the
// reversed loop. An overflow of the capacity is reported in ad_status.
// CHECK-LABEL: sdfg.sdfg @halve_grad(
// CHECK-SAME: %ad_status: memref<i64> {sdfg.name = "ad_status"}
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<64xf64>
// CHECK: sdfg.state "count" {
// CHECK: sdfg.while {
// CHECK: } do {
// CHECK: %[[C:.*]] = sdfg.load %[[COUNT:.*]][] : memref<i64>
// CHECK: %[[IDX:.*]] = sdfg.tasklet(%[[C]]) : (i64) -> index
// CHECK: arith.minsi
// CHECK: sdfg.store %{{.*}}, %[[TAPE]][%[[IDX]]] : memref<64xf64>
// CHECK: sdfg.store %{{.*}}, %[[COUNT]][] wcr(add) : memref<i64>
// CHECK: sdfg.state "capacity" {
// CHECK: sdfg.store %{{.*}}, %ad_status[] wcr(max) : memref<i64>
// The reversed loop runs min(count, capacity) iterations backwards.
// CHECK: %[[N:.*]] = sdfg.load %[[COUNT]][] : memref<i64>
// CHECK: %[[TRIPS:.*]] = sdfg.tasklet(%[[N]]) : (i64) -> index
// CHECK: sdfg.loop %[[K:.*]] = %[[TRIPS]] - 1 to -1 step -1 {
// CHECK: sdfg.load %[[TAPE]][%[[K]]] : memref<64xf64>
sdfg.sdfg @halve(%x: memref<f64> {sdfg.name = "x"},
                 %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    %v = sdfg.load %x[] : memref<f64>
    sdfg.store %v, %y[] : memref<f64>
  }
  sdfg.while {
    %v = sdfg.load %y[] : memref<f64>
    %c = sdfg.tasklet(%v) : (f64) -> i1 {
    ^bb0(%u: f64):
      %one = arith.constant 1.0 : f64
      %b = arith.cmpf ogt, %u, %one : f64
      sdfg.yield %b : i1
    }
    sdfg.condition %c
  } do {
    sdfg.state {
      %v = sdfg.load %y[] : memref<f64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = math.sqrt %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[] : memref<f64>
    }
  }
}
