// RUN: sdfg-opt %s --convert-to-sdfg -split-input-file -verify-diagnostics
// Without verification between passes too: every error below is the
// import's own, not the verifier's on IR the import produced.
// RUN: sdfg-opt %s --convert-to-sdfg --verify-each=false -split-input-file -verify-diagnostics

func.func @results(%x: memref<4xf64>) -> f64 { // expected-error {{results must be written into memref arguments}}
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf64>
  return %v : f64
}

// -----

func.func @while_computed(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{cannot convert 'scf.while': the condition must forward the loop-carried values unchanged}}
  %r = scf.while (%a = %z) : (f64) -> f64 {
    %v = memref.load %x[%c0] : memref<4xf64>
    %n = arith.addf %a, %v : f64
    %c = arith.cmpf olt, %n, %v : f64
    scf.condition(%c) %n : f64
  } do {
  ^bb0(%b: f64):
    scf.yield %b : f64
  }
  memref.store %r, %x[%c0] : memref<4xf64>
  return
}

// -----

func.func @nonaffine(%x: memref<16xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %sq = arith.muli %i, %i : index // expected-error {{cannot convert 'arith.muli': the index expression is not affine}}
    %v = memref.load %x[%sq] : memref<16xf64>
    memref.store %v, %x[%i] : memref<16xf64>
  }
  return
}

// -----

func.func private @helper(memref<4xf64>)

func.func @call(%x: memref<4xf64>) {
  func.call @helper(%x) : (memref<4xf64>) -> () // expected-error {{cannot convert 'func.call'}}
  return
}

// -----

func.func @reduce(%x: memref<8xf64>, %out: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  // expected-error @+1 {{reductions (scf.reduce with operands) are not supported}}
  %s = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f64 {
    %v = memref.load %x[%i] : memref<8xf64>
    scf.reduce(%v : f64) {
    ^bb0(%a: f64, %b: f64):
      %r = arith.addf %a, %b : f64
      scf.reduce.return %r : f64
    }
  }
  memref.store %s, %out[] : memref<f64>
  return
}

// -----

func.func @tensor(%t: tensor<4xf64>) { // expected-error {{argument 0 has unsupported type 'tensor<4xf64>'}}
  return
}

// -----

func.func @alloc_in_loop(%x: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<4xf64> // expected-error {{allocations must be at the top of the function}}
    memref.dealloc %t : memref<4xf64>
  }
  return
}

// -----

func.func @reduce_mul(%x: memref<5xf64>, %p: memref<f64>) {
  // expected-error @+1 {{cannot convert 'linalg.reduce': the combiner must be one add, maximum or minimum}}
  linalg.reduce ins(%x : memref<5xf64>) outs(%p : memref<f64>) dimensions = [0]
    (%a: f64, %b: f64) {
      %r = arith.mulf %a, %b : f64
      linalg.yield %r : f64
    }
  return
}

// -----

// BLAS needs one float type (linalg also takes mixed types, with casts).
func.func @matmul_of_bools(%a: memref<4x8xi1>, %b: memref<8x5xf64>, %c: memref<4x5xf64>) {
  // expected-error @+1 {{'linalg.matmul' op convert-to-sdfg: cannot convert 'linalg.matmul': operands must be f32 or f64 memrefs}}
  linalg.matmul ins(%a, %b : memref<4x8xi1>, memref<8x5xf64>) outs(%c : memref<4x5xf64>)
  return
}

// -----

func.func @matmul_mixed(%a: memref<4x8xf32>, %b: memref<8x5xf64>, %c: memref<4x5xf64>) {
  // expected-error @+1 {{'linalg.matmul' op convert-to-sdfg: cannot convert 'linalg.matmul': operands must have one element type}}
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x5xf64>) outs(%c : memref<4x5xf64>)
  return
}

// -----

// Extents linalg's verifier lets through are checked here (the sdfg op's
// verifier named itself, not the op written).
func.func @matvec_mismatch(%A: memref<4x6xf64>, %v: memref<0xf64>, %w: memref<4xf64>) {
  // expected-error @+1 {{'linalg.matvec' op convert-to-sdfg: cannot convert 'linalg.matvec': extent 6 of operand 0 (dimension 1) does not match extent 0 of operand 1 (dimension 0)}}
  linalg.matvec ins(%A, %v : memref<4x6xf64>, memref<0xf64>) outs(%w : memref<4xf64>)
  return
}

// -----

func.func @huge_bound(%x: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 9223372036854775807 : index
  // expected-error @+1 {{'scf.for' op convert-to-sdfg: cannot convert 'scf.for': bound 9223372036854775807 out of range (must be below 2^62 in magnitude)}}
  scf.for %i = %c0 to %big step %c1 {
    %v = memref.load %x[%i] : memref<16xf64>
    memref.store %v, %x[%i] : memref<16xf64>
  }
  return
}

// -----

func.func @constant_index_out_of_bounds(%x: memref<4xf64>) {
  %c9 = arith.constant 9 : index
  // expected-error @+1 {{'memref.load' op convert-to-sdfg: cannot convert 'memref.load': index 9 is out of bounds for dimension 0 of extent 4}}
  %v = memref.load %x[%c9] : memref<4xf64>
  memref.store %v, %x[%c9] : memref<4xf64>
  return
}

// -----

// What the import builds is verified before it replaces the function:
// upstream accepts a memref of 2^60 f64 and a bound of INT64_MIN, the
// sdfg dialect does not (sizes and bounds below 2^62), and the import once
// passed on what its verifiers then rejected.
// expected-error @+1 {{argument 0 of type 'memref<1152921504606846976xf64>' is too large}}
func.func @huge_argument(%x: memref<1152921504606846976xf64>) {
  return
}

// -----

func.func @huge_bound(%x: memref<4xf64>) {
  %lo = arith.constant -9223372036854775808 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{bound -9223372036854775808 out of range}}
  scf.parallel (%i) = (%lo) to (%c4) step (%c1) {
    memref.store %z, %x[%i] : memref<4xf64>
  }
  return
}

// -----

// A branch of a parallel loop body that loads: computing it when the
// program would skip it could read outside the array.
func.func @if_loads(%a: memref<8xf64>, %b: memref<8xf64>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    // expected-error @below {{in a parallel loop body, a branch loads}}
    scf.if %c {
      %x = memref.load %a[%i] : memref<8xf64>
      memref.store %x, %b[%i] : memref<8xf64>
    }
    scf.reduce
  }
  return
}

// -----

func.func @if_different_elements(%b: memref<8xf64>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    // expected-error @below {{in a parallel loop body, the branches must store the same elements}}
    scf.if %c {
      memref.store %one, %b[%i] : memref<8xf64>
    }
    scf.reduce
  }
  return
}

// -----

func.func @dim_not_constant(%a: memref<?xf64>, %d: index, %b: memref<8xf64>) {
  // expected-error @below {{the dimension must be a constant}}
  %n = memref.dim %a, %d : memref<?xf64>
  return
}

// -----

func.func @subview_dynamic_stride(%a: memref<?xf64>, %s: index, %b: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{strides must be constants}}
  %v = memref.subview %a[0] [4] [%s] : memref<?xf64> to memref<4xf64, strided<[?]>>
  %x = memref.load %v[%c0] : memref<4xf64, strided<[?]>>
  memref.store %x, %b[%c0] : memref<8xf64>
  return
}
