// RUN: sdfg-opt %s --sdfg-autodiff=print-ccs=true -split-input-file | FileCheck %s

// The CCS: containers that depend on the inputs and influence the output,
// found by a dataflow fixed point over the loop (no unrolling). %u only
// feeds %w, which does not reach the output; %k is constant data.
// CHECK-LABEL: sdfg.sdfg @ccs
// CHECK-SAME: sdfg.ccs = ["x", "t", "out"]
// CHECK-SAME: sdfg.needed = ["x"]
sdfg.sdfg @ccs(%x: memref<4xf64> {sdfg.name = "x"},
               %t: memref<4xf64> {sdfg.name = "t"},
               %u: memref<4xf64> {sdfg.name = "u"},
               %w: memref<4xf64> {sdfg.name = "w"},
               %k: memref<4xf64> {sdfg.name = "k"},
               %out: memref<4xf64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["x", "u"]} {
  sdfg.loop %n = 0 to 3 step 1 {
    sdfg.state {
      sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
        %a = sdfg.load %t[%i] : memref<4xf64>
        %c = sdfg.load %k[%i] : memref<4xf64>
        %r = sdfg.tasklet(%a, %c) : (f64, f64) -> f64 {
        ^bb0(%p: f64, %q: f64):
          %s = arith.addf %p, %q : f64
          sdfg.yield %s : f64
        }
        sdfg.store %r, %out[%i] : memref<4xf64>
        %b = sdfg.load %x[%i] : memref<4xf64>
        %e = sdfg.tasklet(%b) : (f64) -> f64 {
        ^bb0(%p: f64):
          %s = math.exp %p : f64
          sdfg.yield %s : f64
        }
        sdfg.store %e, %t[%i] : memref<4xf64>
        %v = sdfg.load %u[%i] : memref<4xf64>
        sdfg.store %v, %w[%i] : memref<4xf64>
      }
    }
  }
}

// -----

// Values read only to differentiate with respect to what carries no
// gradient are not needed: C * beta with beta inactive needs beta, not C
// (C is overwritten: this spares its tape), and exp(s) * C with s constant
// needs the factor exp(s), hence s, but not C. x * x needs x.
// CHECK-LABEL: sdfg.sdfg @inactive_partner
// CHECK-SAME: sdfg.ccs = ["C", "x", "out"]
// CHECK-SAME: sdfg.needed = ["beta", "s", "x"]
sdfg.sdfg @inactive_partner(%C: memref<4xf64> {sdfg.name = "C"},
                            %x: memref<4xf64> {sdfg.name = "x"},
                            %beta: memref<f64> {sdfg.name = "beta"},
                            %s: memref<4xf64> {sdfg.name = "s"},
                            %out: memref<4xf64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["C", "x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %c = sdfg.load %C[%i] : memref<4xf64>
      %b = sdfg.load %beta[] : memref<f64>
      %scaled = sdfg.tasklet(%c, %b) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %m = arith.mulf %p, %q : f64
        sdfg.yield %m : f64
      }
      sdfg.store %scaled, %C[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %s[%i] : memref<4xf64>
      %e = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%p: f64):
        %m = math.exp %p : f64
        sdfg.yield %m : f64
      }
      %c = sdfg.load %C[%i] : memref<4xf64>
      %r = sdfg.tasklet(%e, %c) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %m = arith.mulf %p, %q : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %out[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %a = sdfg.load %x[%i] : memref<4xf64>
      %r = sdfg.tasklet(%a, %a) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %m = arith.mulf %p, %q : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %out[%i] wcr(add) : memref<4xf64>
    }
  }
}
