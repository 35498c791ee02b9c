// RUN: not sdfg-opt %s --sdfg-autodiff --split-input-file 2>&1 | FileCheck %s

// A window whose bounds are read from data, updated in place
// (`x[s[j]:s[j+1]] *= 2`): the map's trip count is data, but its store
// x[p + start] stays inside x and start is at least 0 (the frontend's
// clamp of a slice bound, a max with 0), so p < 10: the tape of the
// overwritten elements holds 3 loop trips of 10.
// CHECK-LABEL: sdfg.sdfg @segments_grad(
// CHECK: sdfg.alloc() : memref<3x10xf64>
sdfg.sdfg @segments(%x: memref<10xf64> {sdfg.name = "x"},
                    %s: memref<4xi64> {sdfg.name = "s"})
    attributes {ad_output = "x", ad_wrt = ["x"]} {
  sdfg.loop %j = 0 to 3 step 1 {
    %a = sdfg.load %s[%j] : memref<4xi64>
    %b = sdfg.load %s[%j + 1] : memref<4xi64>
    %start, %len = sdfg.tasklet(%a, %b) : (i64, i64) -> (index, index) {
    ^bb0(%u: i64, %v: i64):
      %zero = arith.constant 0 : index
      %ten = arith.constant 10 : index
      %i = arith.index_cast %u : i64 to index
      %k = arith.index_cast %v : i64 to index
      %lo = arith.maxsi %i, %zero : index
      %start = arith.minsi %lo, %ten : index
      %hi = arith.minsi %k, %ten : index
      %n = arith.subi %hi, %start : index
      %len = arith.maxsi %n, %zero : index
      sdfg.yield %start, %len : index, index
    }
    sdfg.state {
      sdfg.map (%p) = (0) to (%len) step (1) schedule(sequential) {
        %v = sdfg.load %x[%p + %start] : memref<10xf64>
        %w = sdfg.tasklet(%v) : (f64) -> f64 {
        ^bb0(%e: f64):
          %m = arith.mulf %e, %e : f64
          sdfg.yield %m : f64
        }
        sdfg.store %w, %x[%p + %start] : memref<10xf64>
      }
    }
  }
}

// -----

// Without the clamp the start may be negative, and nothing bounds p.
// CHECK: error: 'sdfg.store' op autodiff cannot size the storage for this write
sdfg.sdfg @unbounded(%x: memref<10xf64> {sdfg.name = "x"},
                     %s: memref<4xi64> {sdfg.name = "s"})
    attributes {ad_output = "x", ad_wrt = ["x"]} {
  sdfg.loop %j = 0 to 3 step 1 {
    %a = sdfg.load %s[%j] : memref<4xi64>
    %start = sdfg.tasklet(%a) : (i64) -> index {
    ^bb0(%u: i64):
      %i = arith.index_cast %u : i64 to index
      sdfg.yield %i : index
    }
    sdfg.state {
      sdfg.map (%p) = (0) to (%start) step (1) schedule(sequential) {
        %v = sdfg.load %x[%p + %start] : memref<10xf64>
        %w = sdfg.tasklet(%v) : (f64) -> f64 {
        ^bb0(%e: f64):
          %m = arith.mulf %e, %e : f64
          sdfg.yield %m : f64
        }
        sdfg.store %w, %x[%p + %start] : memref<10xf64>
      }
    }
  }
}
