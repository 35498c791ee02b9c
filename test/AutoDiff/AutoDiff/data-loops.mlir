// RUN: sdfg-opt %s --sdfg-autodiff=data-loop-capacity=64 | FileCheck %s
// RUN: not sdfg-opt %s --sdfg-autodiff=data-loop-capacity=0 2>&1 | FileCheck %s --check-prefix=BAD

// A loop whose bounds are read from data (a CSR row) runs a number of
// iterations known only at run time: its tape slots come from a running
// count of its iterations over all its executions. Each entry reserves
// them (base = count; count += trips, ad_status set past the capacity),
// stores its base where the enclosing loop stores its bounds, and the
// reversed loop finds its slots again from the stored base.
// CHECK-LABEL: sdfg.sdfg @rows_grad(
// CHECK-SAME: %ad_status: memref<i64>
// CHECK-SAME: data_loop_capacity = 64
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<64xf64>
// CHECK: %[[BASES:.*]] = sdfg.alloc() : memref<4xindex>
// CHECK: %[[COUNT:.*]] = sdfg.alloc() : memref<i64>
// CHECK: sdfg.state "count"
// CHECK: sdfg.loop %[[I:.*]] = 0 to 4 step 1 {
// CHECK: %[[OLD:.*]] = sdfg.load %[[COUNT]][] : memref<i64>
// CHECK: %[[R:.*]]:3 = sdfg.tasklet(%[[OLD]],
// CHECK: arith.cmpi sgt, %{{.*}}, %c64_i64 : i64
// CHECK: sdfg.state "count" {
// CHECK-NEXT: sdfg.store %[[R]]#1, %[[COUNT]][] : memref<i64>
// CHECK-NEXT: sdfg.store %[[R]]#2, %ad_status[] wcr(max) : memref<i64>
// CHECK: sdfg.store %[[R]]#0, %[[BASES]][%[[I]]] : memref<4xindex>
// CHECK: sdfg.loop %[[K:.*]] = %{{.*}} to %{{.*}} step 1 {
// CHECK-NEXT: %[[SLOT:.*]] = sdfg.tasklet(%[[R]]#0, %[[K]],
// CHECK: arith.minsi %{{.*}}, %c63 : index
// CHECK: sdfg.store %{{.*}}, %[[TAPE]][%[[SLOT]]] : memref<64xf64>
// CHECK: sdfg.loop %[[RI:.*]] = 3 to -1 step -1 {
// CHECK-NEXT: %[[BASE:.*]] = sdfg.load %[[BASES]][%[[RI]]] : memref<4xindex>
// CHECK: sdfg.loop %[[RK:.*]] = {{.*}} step -1 {
// CHECK: %[[RSLOT:.*]] = sdfg.tasklet(%[[BASE]], %[[RK]],
// CHECK: sdfg.load %[[TAPE]][%[[RSLOT]]] : memref<64xf64>
// BAD: sdfg-autodiff: data-loop-capacity must be positive

sdfg.sdfg @rows(%ptr: memref<5xi64> {sdfg.name = "ptr"},
                %x: memref<8xf64> {sdfg.name = "x"},
                %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  %acc = sdfg.alloc() {name = "acc"} : memref<f64>
  sdfg.state {
    %z = sdfg.tasklet() : () -> f64 {
      %c = arith.constant 1.0 : f64
      sdfg.yield %c : f64
    }
    sdfg.store %z, %acc[] : memref<f64>
  }
  sdfg.loop %i = 0 to 4 step 1 {
    %a = sdfg.load %ptr[%i] : memref<5xi64>
    %lo = sdfg.tasklet(%a) : (i64) -> index {
    ^bb0(%u: i64):
      %v = arith.index_cast %u : i64 to index
      sdfg.yield %v : index
    }
    %b = sdfg.load %ptr[%i + 1] : memref<5xi64>
    %hi = sdfg.tasklet(%b) : (i64) -> index {
    ^bb0(%u: i64):
      %v = arith.index_cast %u : i64 to index
      sdfg.yield %v : index
    }
    sdfg.loop %k = %lo to %hi step 1 {
      sdfg.state {
        %p = sdfg.load %acc[] : memref<f64>
        %q = sdfg.load %x[%k] : memref<8xf64>
        %r = sdfg.tasklet(%p, %q) : (f64, f64) -> f64 {
        ^bb0(%s: f64, %t: f64):
          %m = arith.mulf %s, %t : f64
          sdfg.yield %m : f64
        }
        sdfg.store %r, %acc[] : memref<f64>
      }
    }
  }
  sdfg.state {
    %p = sdfg.load %acc[] : memref<f64>
    sdfg.store %p, %y[] : memref<f64>
  }
}
