// RUN: sdfg-opt %s --canonicalize | FileCheck %s
// sdfg.broadcast_extent folds to an operand where the pair broadcasts
// whatever the values; a pair that may not stays (it reports at run time).

// CHECK-LABEL: sdfg.sdfg @folds
// CHECK-SAME: (%[[X:.*]]: memref<8xf64>, %[[A:[^:]*]]: index, %[[B:[^:]*]]: index)
sdfg.sdfg @folds(%x: memref<8xf64>, %a: index, %b: index) {
  %c1 = sdfg.tasklet() : () -> index {
    %c = arith.constant 1 : index
    sdfg.yield %c : index
  }
  %c2 = sdfg.tasklet() : () -> index {
    %c = arith.constant 2 : index
    sdfg.yield %c : index
  }
  %c3 = sdfg.tasklet() : () -> index {
    %c = arith.constant 3 : index
    sdfg.yield %c : index
  }
  // Equal operands; a length-1 operand on either side; a length-1 source.
  %s = sdfg.broadcast_extent operands %a, %a
  %l = sdfg.broadcast_extent operands %s, %c1
  %r = sdfg.broadcast_extent operands %c1, %l
  %t = sdfg.broadcast_extent assign %c1, %r
  // Not foldable: a length-1 destination, two unknown extents, and
  // constants that do not broadcast (NumPy's error, reported when run).
  %u = sdfg.broadcast_extent assign %t, %c1
  %v = sdfg.broadcast_extent operands %a, %b
  %w = sdfg.broadcast_extent operands %c2, %c3
  // CHECK: %[[U:.*]] = sdfg.broadcast_extent assign %[[A]], %{{.*}}
  // CHECK: %[[V:.*]] = sdfg.broadcast_extent operands %[[A]], %[[B]]
  // CHECK: %[[W:.*]] = sdfg.broadcast_extent operands %{{.*}}, %{{.*}}
  // CHECK: sdfg.map (%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) = (0, 0, 0, 0) to (%[[A]], %[[U]], %[[V]], %[[W]])
  sdfg.state {
    sdfg.map (%p, %q, %r2, %s2) = (0, 0, 0, 0) to (%t, %u, %v, %w) step (1, 1, 1, 1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 0.0 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %z, %x[%p + %q + %r2 + %s2] : memref<8xf64>
    }
  }
}
