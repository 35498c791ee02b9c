// RUN: sdfg-opt %s --sdfg-autodiff -split-input-file -verify-diagnostics

// A map whose extent is read from data, writing where its parameter gives
// no bound: no tape size. (A loop with such bounds has its slots counted
// at run time, data-loops.mlir; a map's iterations are not ordered. One
// whose extent is a symbol has a tape sized when the call starts,
// dynamic-shapes.mlir.)
sdfg.sdfg @data_map(%x: memref<8xf64> {sdfg.name = "x"},
                    %c: memref<i64> {sdfg.name = "c"})
    attributes {ad_output = "x", ad_wrt = ["x"]} {
  %l = sdfg.load %c[] : memref<i64>
  %n = sdfg.tasklet(%l) : (i64) -> index {
  ^bb0(%a: i64):
    %i = arith.index_cast %a : i64 to index
    sdfg.yield %i : index
  }
  sdfg.state {
    sdfg.map (%j) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[%j floordiv 2] : memref<8xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = arith.mulf %u, %u : f64
        sdfg.yield %m : f64
      }
      // expected-error @+1 {{autodiff cannot size the storage for this write}}
      sdfg.store %r, %x[%j floordiv 2] : memref<8xf64>
    }
  }
}

// -----

// expected-error @+1 {{sdfg-autodiff: no sdfg.sdfg names an output}}
module {
  sdfg.sdfg @nothing(%x: memref<4xf64>) {}
}

// -----

// The backward pass reads %s (it multiplies %y), and the map accumulates
// into it without initialising it in the same state: refused.
sdfg.sdfg @uninitialised_accumulation(%x: memref<4xf64> {sdfg.name = "x"},
                                      %s: memref<f64> {sdfg.name = "s"},
                                      %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %a = sdfg.load %x[%i] : memref<4xf64>
      // expected-error @+1 {{autodiff needs this accumulation's target initialised}}
      sdfg.store %a, %s[] wcr(add) : memref<f64>
    }
  }
  sdfg.state {
    %a = sdfg.load %s[] : memref<f64>
    %r = sdfg.tasklet(%a) : (f64) -> f64 {
    ^bb0(%u: f64):
      %m = arith.mulf %u, %u : f64
      sdfg.yield %m : f64
    }
    sdfg.store %r, %y[] : memref<f64>
  }
}

// -----

// The gradient's name is taken: a located error rather than a module with
// two @taken_grad (which the verifier rejected after the pass).
// expected-error @+1 {{autodiff: the gradient program's name 'taken_grad' is taken (a symbol exists); choose another suffix=}}
sdfg.sdfg @taken(%x: memref<4xf64> {sdfg.name = "x"},
                 %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<4xf64>
      sdfg.store %v, %y[] wcr(add) : memref<f64>
    }
  }
}
sdfg.sdfg @taken_grad(%x: memref<4xf64>) {
}

// -----

// QR's gradient exists for at least as many rows as columns.
sdfg.sdfg @wide_qr(%A: memref<3x5xf64> {sdfg.name = "A"},
                   %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["A"]} {
  %R = sdfg.alloc() : memref<3x5xf64>
  sdfg.state {
    // expected-error @+1 {{autodiff of qr needs at least as many rows as columns (got 3 x 5)}}
    sdfg.qr r %A -> %R : memref<3x5xf64> -> memref<3x5xf64>
    sdfg.reduce add %R -> %y axes [0, 1] : memref<3x5xf64> -> memref<f64>
  }
}

// -----

// The reversed loop starts one step before the first iteration: here that
// bound leaves the range loops may have (the pass once built a loop its own
// verifier rejected).
sdfg.sdfg @huge_steps(%A: memref<10xf64> {sdfg.name = "A"},
                      %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["A"]} {
  // expected-error @+1 {{autodiff cannot reverse this loop: its reversed bound -9223372036854775806 is out of range (must be below 2^62 in magnitude)}}
  sdfg.loop %i = -4611686018427387903 to 4611686018427387903 step 4611686018427387903 {
    sdfg.state {
      %a = sdfg.load %A[0] : memref<10xf64>
      sdfg.store %a, %y[] wcr(add) : memref<f64>
    }
  }
}

// -----

// A call with no user rule (no vjp attribute) is opaque to autodiff.
sdfg.sdfg @callee(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64> {sdfg.name = "x"},
                  %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    // expected-error @below {{has no vjp: the call of @callee cannot be differentiated}}
    sdfg.custom_call @callee(%x) -> %__return0 : (memref<3xf64>) -> memref<3xf64>
  }
}
