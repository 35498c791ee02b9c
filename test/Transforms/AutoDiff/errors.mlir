// RUN: sdfg-opt %s --sdfg-autodiff -split-input-file -verify-diagnostics

sdfg.sdfg @while_loop(%x: memref<f64> {sdfg.name = "x"})
    attributes {ad_output = "x", ad_wrt = ["x"]} {
  // expected-error @+1 {{autodiff of while loops (data-dependent trip counts) is not supported yet}}
  sdfg.while {
    %v = sdfg.load %x[] : memref<f64>
    %c = sdfg.tasklet(%v) : (f64) -> i1 {
    ^bb0(%u: f64):
      %l = arith.constant 10.0 : f64
      %b = arith.cmpf olt, %u, %l : f64
      sdfg.yield %b : i1
    }
    sdfg.condition %c
  } do {
    sdfg.state {
      %v = sdfg.load %x[] : memref<f64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = arith.mulf %u, %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %x[] : memref<f64>
    }
  }
}

// -----

sdfg.sdfg @symbolic_trip_count(%x: memref<?xf64> {sdfg.name = "x"}, %n: index)
    attributes {ad_output = "x", ad_wrt = ["x"]} {
  sdfg.loop %i = 0 to %n step 1 {
    sdfg.state {
      %v = sdfg.load %x[%i] : memref<?xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = arith.mulf %u, %u : f64
        sdfg.yield %m : f64
      }
      // expected-error @+1 {{autodiff cannot size the storage for this write}}
      sdfg.store %r, %x[%i] : memref<?xf64>
    }
  }
}

// -----

// expected-error @+1 {{sdfg-autodiff: no sdfg.sdfg names an output}}
module {
  sdfg.sdfg @nothing(%x: memref<4xf64>) {}
}
