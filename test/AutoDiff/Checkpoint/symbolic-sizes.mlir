// Sizes only the call knows in the checkpoint model: `sizes=` names index
// arguments (N=100) and extents of arguments (x.0=1000); the sizes of
// tapes and transients computed from them in the program's body (a trip
// count, a slice's length) are evaluated from those.
// RUN: sdfg-opt %s -split-input-file --sdfg-autodiff --sdfg-checkpoint="strategy=store-all report=true sizes=x.0=1000,N=10,T=4" -o /dev/null 2>&1 | FileCheck %s
// RUN: not sdfg-opt %s -split-input-file --sdfg-autodiff --sdfg-checkpoint="strategy=store-all sizes=N=10,T=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// With NAME=..MAX a size is any value up to MAX (a plan for a bucket of
// sizes): every container is counted at the largest size it can have
// then, the same numbers here.
// RUN: sdfg-opt %s -split-input-file --sdfg-autodiff --sdfg-checkpoint="strategy=store-all report=true sizes=x.0=..1000,N=..10,T=..4" -o /dev/null 2>&1 | FileCheck %s
// RUN: not sdfg-opt %s -split-input-file --sdfg-autodiff --sdfg-checkpoint="strategy=store-all sizes=x.0=..-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: sdfg-checkpoint: cannot read sizes entry 'x.0=..-1' (expected NAME=VALUE or NAME=..MAX with a non-negative integer)

// The map runs over x.0 - 2 = 998 elements in each of 3 iterations: a tape
// of 3 x 998 doubles.
// The report gives the bytes at the sizes given and as a formula in them.
// CHECK: remark: 'x': argument + 23.4 KiB = 24*max(x.0 - 2, 0) B of overwritten values: store
// CHECK: remark: peak memory 23.4 KiB = 24*max(x.0 - 2, 0) B at sizes x.0={{(\.\.)?}}1000, N={{(\.\.)?}}10, T={{(\.\.)?}}4 (storing everything: 23.4 KiB)
// MISSING: error: 'sdfg.alloc' op sdfg-checkpoint needs the size of this container: give its dynamic size 'x.0' a value with sizes=NAME=VALUE
sdfg.sdfg @sweep(%x: memref<?xf64> {sdfg.name = "x"}, %__return0: memref<f64> {sdfg.name = "__return0"})
    attributes {ad_output = "__return0", ad_wrt = ["x"]} {
  %n = sdfg.dim %x, 0 : memref<?xf64>
  %m = sdfg.tasklet(%n) : (index) -> index {
  ^bb0(%a: index):
    %c = arith.constant -2 : index
    %r = arith.addi %a, %c : index
    sdfg.yield %r : index
  }
  %tmp = sdfg.alloc(%n) {name = "tmp"} : memref<?xf64>
  sdfg.loop %t = 0 to 3 step 1 {
    sdfg.state {
      sdfg.map (%i) = (0) to (%m) step (1) schedule(sequential) {
        %a = sdfg.load %x[%i] : memref<?xf64>
        %b = sdfg.load %x[%i + 1] : memref<?xf64>
        %s = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%u: f64, %v: f64):
          %p = arith.mulf %u, %v : f64
          %q = math.sin %p : f64
          sdfg.yield %q : f64
        }
        sdfg.store %s, %x[%i + 1] : memref<?xf64>
      }
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      sdfg.store %v, %__return0[] wcr(add) : memref<f64>
    }
  }
}

// -----

// Loops bounded by index arguments: a tape of T x (N - 2) x (N - 2) =
// 4 x 8 x 8 doubles, 2 KiB.
// CHECK: remark: 'A': argument + 2.0 KiB = 8*max(T, 0)*max(N - 1 - 1, 0)*max(N - 1 - 1, 0) B of overwritten values: store
// CHECK: remark: loop 'loop0': trip count from the call's sizes, store every iteration (cannot checkpoint: a loop inside it has a trip count only the call knows (a size))
// CHECK: remark: peak memory 2.0 KiB = 8*max(T, 0)*max(N - 1 - 1, 0)*max(N - 1 - 1, 0) B at sizes
sdfg.sdfg @seidel(%A: memref<?x?xf64> {sdfg.name = "A"}, %N: index {sdfg.name = "N"},
                  %T: index {sdfg.name = "T"}) attributes {ad_output = "A", ad_wrt = ["A"]} {
  sdfg.loop %t = 0 to %T step 1 {
    sdfg.loop %i = 1 to %N - 1 step 1 {
      sdfg.loop %j = 1 to %N - 1 step 1 {
        sdfg.state {
          %a = sdfg.load %A[%i - 1, %j] : memref<?x?xf64>
          %b = sdfg.load %A[%i + 1, %j] : memref<?x?xf64>
          %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %s = arith.mulf %x, %y : f64
            sdfg.yield %s : f64
          }
          sdfg.store %r, %A[%i, %j] : memref<?x?xf64>
        }
      }
    }
  }
}

// -----

// The peak as a formula: the static containers live there as one number
// (a 100-double transient and its gradient, 1600 B), the two of x.0
// doubles as one term.
// CHECK-LABEL: remark: 'tmp'
// CHECK: remark: peak memory {{.*}} = 1600 + 16*x.0 B at sizes x.0={{(\.\.)?}}1000
sdfg.sdfg @mixed(%x: memref<?xf64> {sdfg.name = "x"}, %__return0: memref<f64> {sdfg.name = "__return0"})
    attributes {ad_output = "__return0", ad_wrt = ["x"]} {
  %n = sdfg.dim %x, 0 : memref<?xf64>
  %tmp = sdfg.alloc(%n) {name = "tmp"} : memref<?xf64>
  %small = sdfg.alloc() {name = "small"} : memref<100xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = math.sin %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %tmp[%i] : memref<?xf64>
    }
    sdfg.map (%i) = (0) to (100) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = math.cos %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %small[%i] : memref<100xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %tmp[%i] : memref<?xf64>
      %w = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = arith.mulf %a, %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %w, %__return0[] wcr(add) : memref<f64>
    }
    sdfg.map (%i) = (0) to (100) step (1) schedule(sequential) {
      %v = sdfg.load %small[%i] : memref<100xf64>
      %w = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = arith.mulf %a, %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %w, %__return0[] wcr(add) : memref<f64>
    }
  }
}
