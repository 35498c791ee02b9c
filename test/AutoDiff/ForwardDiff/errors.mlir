// RUN: sdfg-opt %s --sdfg-forward-diff --split-input-file -verify-diagnostics

sdfg.sdfg @mul_wcr(%x: memref<3xf64> {sdfg.name = "x"},
                   %__return0: memref<f64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<3xf64>
      // expected-error @below {{forward mode: the tangent of a wcr(mul) store is not implemented}}
      sdfg.store %v, %__return0[] wcr(mul) : memref<f64>
    }
  }
}

// -----

sdfg.sdfg @cholesky(%A: memref<3x3xf64> {sdfg.name = "A"},
                    %__return0: memref<3x3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    // expected-error @below {{forward mode has no tangent rule for this op yet}}
    sdfg.cholesky %A -> %__return0 : memref<3x3xf64> -> memref<3x3xf64>
  }
}

// -----

// The user's reverse rule (sdfg.custom_vjp) says nothing of tangents, as
// JAX's custom_vjp functions cannot be forward-differentiated either.
sdfg.sdfg @sq(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @f(%x: memref<3xf64> {sdfg.name = "x"},
             %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    // expected-error @below {{forward mode has no tangent rule for this op yet}}
    sdfg.custom_call @sq(%x) -> %__return0 : (memref<3xf64>) -> memref<3xf64>
  }
}
