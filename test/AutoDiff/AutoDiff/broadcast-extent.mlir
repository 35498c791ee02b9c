// RUN: sdfg-opt %s --sdfg-autodiff | FileCheck %s
// RUN: sdfg-opt %s --sdfg-autodiff --sdfg-lower-to-cpu -o /dev/null

// sdfg.broadcast_extent stays in the gradient's forward sweep (it reports
// there) and sizes the reversed maps as the forward's: an extent read from
// data is stored where the forward computes it and loaded by the reversed
// loop (the data may change after), one from loop counters only is
// computed again there.
// CHECK-LABEL: sdfg.sdfg @windows_grad(
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<9xindex>
// CHECK: sdfg.loop %[[I:.*]] = 0 to 9 step 1 {
// CHECK:   %[[N:.*]] = sdfg.broadcast_extent operands %{{.*}}, %[[I]]
// CHECK:   %[[M:.*]] = sdfg.broadcast_extent assign %[[I]], %{{.*}}
// CHECK:   sdfg.store %[[N]], %[[TAPE]][%[[I]]] : memref<9xindex>
// CHECK:   sdfg.map (%{{.*}}) = (0) to (%[[N]])
// CHECK:   sdfg.map (%{{.*}}) = (0) to (%[[M]])
// CHECK: sdfg.loop %[[R:.*]] = 8 to -1 step -1 {
// CHECK:   %[[C:.*]] = sdfg.tasklet(%[[R]])
// CHECK:   %[[RM:.*]] = sdfg.broadcast_extent assign %[[R]], %[[C]]
// CHECK:   sdfg.map (%{{.*}}) = (0) to (%[[RM]])
// CHECK:   %[[RN:.*]] = sdfg.load %[[TAPE]][%[[R]]] : memref<9xindex>
// CHECK:   sdfg.map (%{{.*}}) = (0) to (%[[RN]])
sdfg.sdfg @windows(%x: memref<10xf64> {sdfg.name = "x"},
                   %s: memref<2xi64> {sdfg.name = "s"},
                   %__return0: memref<9xf64> {sdfg.name = "__return0"}) {
  sdfg.loop %i = 0 to 9 step 1 {
    %l = sdfg.load %s[0] : memref<2xi64>
    %a = sdfg.tasklet(%l, %i) : (i64, index) -> index {
    ^bb0(%v: i64, %j: index):
      %c = arith.index_cast %v : i64 to index
      %m = arith.subi %c, %j : index
      sdfg.yield %m : index
    }
    %n = sdfg.broadcast_extent operands %a, %i
    %c = sdfg.tasklet(%i) : (index) -> index {
    ^bb0(%j: index):
      %one = arith.constant 1 : index
      %m = arith.addi %j, %one : index
      sdfg.yield %m : index
    }
    %k = sdfg.broadcast_extent assign %i, %c
    sdfg.state {
      sdfg.map (%p) = (0) to (%n) step (1) schedule(sequential) {
        %v = sdfg.load %x[%p] : memref<10xf64>
        %w = sdfg.tasklet(%v) : (f64) -> f64 {
        ^bb0(%u: f64):
          %q = arith.mulf %u, %u : f64
          sdfg.yield %q : f64
        }
        sdfg.store %w, %__return0[%i] wcr(add) : memref<9xf64>
      }
      sdfg.map (%p) = (0) to (%k) step (1) schedule(sequential) {
        %v = sdfg.load %x[%p + 1] : memref<10xf64>
        sdfg.store %v, %__return0[%i] wcr(add) : memref<9xf64>
      }
    }
  }
}
