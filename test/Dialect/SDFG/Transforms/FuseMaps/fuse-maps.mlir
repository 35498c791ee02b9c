// RUN: sdfg-opt %s --sdfg-fuse-maps -split-input-file | FileCheck %s

// The second map reads t and rewrites out at the elements the first map
// wrote in the same iteration, and the gemv in between touches neither:
// one map, the gemv after it.
// CHECK-LABEL: sdfg.sdfg @fused
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 5)
// CHECK: sdfg.store %{{.*}}, %t[%[[I]], %[[J]]]
// CHECK: sdfg.store %{{.*}}, %out[%[[I]], %[[J]]]
// CHECK: sdfg.load %t[%[[I]], %[[J]]]
// CHECK: sdfg.load %out[%[[I]], %[[J]]]
// CHECK: sdfg.store %{{.*}}, %out[%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: sdfg.gemv
// CHECK-NOT: sdfg.map
sdfg.sdfg @fused(%a: memref<4x5xf64> {sdfg.name = "a"},
                 %v: memref<5xf64> {sdfg.name = "v"},
                 %y: memref<4xf64> {sdfg.name = "y"},
                 %t: memref<4x5xf64> {sdfg.name = "t"},
                 %out: memref<4x5xf64> {sdfg.name = "out"}) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 5) step (1, 1) schedule(cpu_multicore) {
      %x = sdfg.load %a[%i, %j] : memref<4x5xf64>
      %s = sdfg.tasklet(%x) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = arith.mulf %u, %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %t[%i, %j] : memref<4x5xf64>
      sdfg.store %x, %out[%i, %j] : memref<4x5xf64>
    }
    sdfg.gemv %a, %v -> %y : memref<4x5xf64>, memref<5xf64> -> memref<4xf64>
    sdfg.map (%p, %q) = (0, 0) to (4, 5) step (1, 1) schedule(cpu_multicore) {
      %x = sdfg.load %t[%p, %q] : memref<4x5xf64>
      %o = sdfg.load %out[%p, %q] : memref<4x5xf64>
      %s = sdfg.tasklet(%x, %o) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %w: f64):
        %m = arith.addf %u, %w : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %out[%p, %q] : memref<4x5xf64>
    }
  }
}

// -----

// Each second map must stay apart: it reads a neighbour of what the first
// wrote; it reads a row element that several iterations of the first
// wrote; the op in between writes what it reads; it accumulates (wcr);
// its range differs.
// CHECK-LABEL: sdfg.sdfg @kept
// CHECK-COUNT-10: sdfg.map
sdfg.sdfg @kept(%a: memref<4x5xf64> {sdfg.name = "a"},
                %v: memref<5xf64> {sdfg.name = "v"},
                %y: memref<4xf64> {sdfg.name = "y"},
                %t: memref<4x5xf64> {sdfg.name = "t"},
                %r: memref<4xf64> {sdfg.name = "r"},
                %out: memref<4x5xf64> {sdfg.name = "out"}) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %x = sdfg.load %a[%i, %j] : memref<4x5xf64>
      sdfg.store %x, %t[%i, %j] : memref<4x5xf64>
    }
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %x = sdfg.load %t[%i, %j + 1] : memref<4x5xf64>
      sdfg.store %x, %out[%i, %j] : memref<4x5xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 5) step (1, 1) schedule(sequential) {
      %x = sdfg.load %a[%i, %j] : memref<4x5xf64>
      sdfg.store %x, %r[%i] : memref<4xf64>
    }
    sdfg.map (%i, %j) = (0, 0) to (4, 5) step (1, 1) schedule(sequential) {
      %x = sdfg.load %r[%i] : memref<4xf64>
      sdfg.store %x, %out[%i, %j] : memref<4x5xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %x = sdfg.load %a[%i, %i] : memref<4x5xf64>
      sdfg.store %x, %r[%i] : memref<4xf64>
    }
    sdfg.gemv %a, %v -> %y : memref<4x5xf64>, memref<5xf64> -> memref<4xf64>
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %x = sdfg.load %y[%i] : memref<4xf64>
      sdfg.store %x, %r[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %x = sdfg.load %a[%i, %i] : memref<4x5xf64>
      sdfg.store %x, %r[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %x = sdfg.load %a[%i, 0] : memref<4x5xf64>
      sdfg.store %x, %r[%i] wcr(add) : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %x = sdfg.load %a[%i, %i] : memref<4x5xf64>
      sdfg.store %x, %r[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %x = sdfg.load %r[%i] : memref<4xf64>
      sdfg.store %x, %y[%i] : memref<4xf64>
    }
  }
}
