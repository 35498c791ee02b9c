// RUN: not sdfg-opt %s --sdfg-autodiff --sdfg-checkpoint=mem=1 2>&1 | FileCheck %s

// A loop of 2^62 - 1 iterations under a memory limit: the menu of loop
// checkpointing plans is built without overflowing int64 (its step and
// segment arithmetic did, found by the sanitized fuzz run on a mutant of
// test/Target/dot.mlir), and the plan is refused with a located error.
// CHECK: huge-trip-count.mlir:[[@LINE+17]]:3: error: 'sdfg.alloc' op sdfg-checkpoint: this container's size overflows (more than 2^62 bytes)
sdfg.sdfg @f(%x: memref<4x3xf64> {sdfg.name = "x"},
             %A: memref<4x4xf64> {sdfg.name = "A"},
             %__return0: memref<4xf64> {sdfg.name = "__return0"}) {
  %y = sdfg.alloc() {name = "y"} : memref<4xf64>
  %z = sdfg.alloc() {name = "z"} : memref<4xf64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 3) step (1, 1) schedule(sequential) {
      %v = sdfg.load %x[%i, %j] : memref<4x3xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %s = math.sin %a : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %y[%i] wcr(add) : memref<4xf64>
    }
  }
  sdfg.loop %t = 0 to 4611686018427387903 step 1 attributes {sdfg.name = "t"} {
    sdfg.state {
      sdfg.gemv %A, %y -> %z : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
      sdfg.copy %z[0 : 4] to %__return0[0 : 4] : memref<4xf64> to memref<4xf64>
    }
  }
}
