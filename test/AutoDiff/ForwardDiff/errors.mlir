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

// Combined with the output's old value, which of the two is the maximum
// decides the tangent; the rule has no copy of the old value.
sdfg.sdfg @max_accumulate(%x: memref<3xf64> {sdfg.name = "x"},
                          %__return0: memref<f64> {sdfg.name = "__return0"}) {
  sdfg.state {
    // expected-error @below {{forward mode: the tangent of an accumulating max reduction is not implemented}}
    sdfg.reduce max %x -> %__return0 axes [0] {accumulate} : memref<3xf64> -> memref<f64>
  }
}

// -----

// A factor of dynamic shape: the rules open maps over static extents (a
// fuzzer's mutant of factorisations.mlir once made one of -2^63).
sdfg.sdfg @svd_s(%A: memref<5x3xf64> {sdfg.name = "A"},
                 %__return0: memref<?xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    // expected-error @below {{forward mode: the tangent of svd with dynamic shapes is not implemented}}
    sdfg.svd s %A -> %__return0 : memref<5x3xf64> -> memref<?xf64>
  }
}
