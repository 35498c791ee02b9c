// RUN: sdfg-opt %s --convert-sdfg-to-scf | FileCheck %s

// A transient with a run-time extent and a static extent of 0 (a tape of
// an empty map, sized by a trip count only the call knows) holds 0 bytes
// whatever that extent: only a negative one is replaced (by 0), and the
// lowering does not divide by the size of the static part (fuzz: the
// compiler died of SIGFPE).
// CHECK-LABEL: func.func @empty_tape
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = arith.select %{{.*}}, %[[Z]], %{{.*}} : index
// CHECK: memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x0xf64>
sdfg.sdfg @empty_tape(%n: index {sdfg.name = "n"},
                      %out: memref<f64> {sdfg.name = "out"}) {
  %t = sdfg.alloc(%n) : memref<?x0xf64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%n, 0) step (1, 1) schedule(sequential) {
      %c = sdfg.tasklet() : () -> f64 {
        %z = arith.constant 1.0 : f64
        sdfg.yield %z : f64
      }
      sdfg.store %c, %t[%i, %j] : memref<?x0xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%n, 0) step (1, 1) schedule(sequential) {
      %v = sdfg.load %t[%i, %j] : memref<?x0xf64>
      sdfg.store %v, %out[] wcr(add) : memref<f64>
    }
  }
}
