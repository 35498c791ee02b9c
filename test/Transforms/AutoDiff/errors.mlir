// RUN: sdfg-opt %s --sdfg-autodiff -split-input-file -verify-diagnostics

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
