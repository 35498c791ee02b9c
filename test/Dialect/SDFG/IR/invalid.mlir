// RUN: sdfg-opt %s -split-input-file -verify-diagnostics
// One case per verifier rule of the dialect.

// expected-error @+1 {{must not have results}}
sdfg.sdfg @results(%A: memref<4xf64>) -> f64 {}

// -----

// expected-error @+1 {{argument 0 must have the identity (row-major) layout}}
sdfg.sdfg @layout(%A: memref<4x4xf64, strided<[1, 4]>>) {}

// -----

// expected-error @+1 {{argument 0 has type 'tensor<4xf64>'; expected a memref, a scalar or index}}
sdfg.sdfg @tensor(%A: tensor<4xf64>) {}

// -----

// expected-error @+1 {{argument 0 has unsupported element type 'complex<f32>'}}
sdfg.sdfg @complex(%A: memref<4xcomplex<f32>>) {}

// -----

// expected-error @+1 {{duplicate argument name 'A'}}
sdfg.sdfg @dup(%A: memref<4xf64> {sdfg.name = "A"}, %B: memref<4xf64> {sdfg.name = "A"}) {}

// -----

// expected-error @+1 {{ad_output names unknown argument 'out'}}
sdfg.sdfg @adout(%A: memref<4xf64>) attributes {ad_output = "out"} {}

// -----

// expected-error @+1 {{ad_output 'arg0' must be a float container}}
sdfg.sdfg @adout_int(%A: memref<4xi32>) attributes {ad_output = "arg0"} {}

// -----

// expected-error @+1 {{ad_wrt names unknown argument 'x'}}
sdfg.sdfg @adwrt(%A: memref<4xf64>) attributes {ad_wrt = ["x"]} {}

// -----

// expected-error @+1 {{ad_wrt argument 'arg1' is not of float type}}
sdfg.sdfg @adwrt_int(%A: memref<4xf64>, %N: index) attributes {ad_wrt = ["arg1"]} {}

// -----

sdfg.sdfg @arith_in_state(%x: f64) {
  sdfg.state {
    // expected-error @+1 {{'arith.addf' op is not allowed in the body of 'sdfg.state', which may hold only memlets, tasklets, index checks, maps, library ops and prints}}
    %y = arith.addf %x, %x : f64
  }
}

// -----

sdfg.sdfg @store_in_control(%A: memref<4xf64>, %x: f64) {
  // expected-error @+1 {{'sdfg.store' op is not allowed in the body of 'sdfg.sdfg'}}
  sdfg.store %x, %A[0] : memref<4xf64>
}

// -----

sdfg.sdfg @alloc_in_loop(%N: index) {
  sdfg.loop %i = 0 to %N step 1 {
    // expected-error @+1 {{'sdfg.alloc' op is not allowed in the body of 'sdfg.loop'}}
    %t = sdfg.alloc() : memref<4xf64>
  }
}

// -----

sdfg.sdfg @library_in_map(%A: memref<4x4xf64>, %B: memref<4x4xf64>, %C: memref<4x4xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      // expected-error @+1 {{'sdfg.matmul' op is not allowed in the body of 'sdfg.map', which may hold only memlets, tasklets, index checks and nested maps}}
      sdfg.matmul %A, %B -> %C : memref<4x4xf64>, memref<4x4xf64> -> memref<4x4xf64>
    }
  }
}

// -----

sdfg.sdfg @state_in_state() {
  sdfg.state {
    // expected-error @+1 {{'sdfg.state' op is not allowed in the body of 'sdfg.state'}}
    sdfg.state {
    }
  }
}

// -----

sdfg.sdfg @memref_in_tasklet(%A: memref<4xf64>, %x: f64) {
  %r = sdfg.tasklet(%x) : (f64) -> f64 {
  ^bb0(%v: f64):
    // expected-error @+1 {{'ub.poison' op is not allowed in a tasklet, which may hold only arith and math operations}}
    %m = ub.poison : f64
    sdfg.yield %v : f64
  }
}

// -----

sdfg.sdfg @tasklet_captures(%x: f64) {
  // expected-note @+1 {{required by region isolation constraints}}
  %r = sdfg.tasklet() : () -> f64 {
    // expected-error @+1 {{using value defined outside the region}}
    %y = arith.addf %x, %x : f64
    sdfg.yield %y : f64
  }
}

// -----

sdfg.sdfg @tasklet_arity(%x: f64) {
  // expected-error @+1 {{has 1 inputs but its body takes 2 arguments}}
  %r = sdfg.tasklet(%x) : (f64) -> f64 {
  ^bb0(%a: f64, %b: f64):
    sdfg.yield %a : f64
  }
}

// -----

sdfg.sdfg @tasklet_arg_type(%x: f64) {
  // expected-error @+1 {{input 0 has type 'f64' but body argument has type 'f32'}}
  %r = sdfg.tasklet(%x) : (f64) -> f64 {
  ^bb0(%a: f32):
    %e = arith.extf %a : f32 to f64
    sdfg.yield %e : f64
  }
}

// -----

sdfg.sdfg @tasklet_yield(%x: f64) {
  %r = sdfg.tasklet(%x) : (f64) -> f64 {
  ^bb0(%a: f64):
    // expected-error @+1 {{yields 2 values of types 'f64', 'f64' but the tasklet returns 'f64'}}
    sdfg.yield %a, %a : f64, f64
  }
}

// -----

sdfg.sdfg @loop_step_zero(%N: index) {
  // expected-error @+1 {{step must not be zero}}
  sdfg.loop %i = 0 to %N step 0 {
  }
}

// -----

sdfg.sdfg @loop_step_huge(%N: index) {
  // expected-error @+1 {{step -9223372036854775808 out of range (|step| must be below 2^62)}}
  sdfg.loop %i = 0 to %N step -9223372036854775808 {
  }
}

// -----

sdfg.sdfg @loop_bound_huge() {
  // expected-error @+1 {{bound 9223372036854775807 out of range (must be below 2^62 in magnitude)}}
  sdfg.loop %i = 0 to 9223372036854775807 step 1 {
  }
}

// -----

sdfg.sdfg @loop_bound_divides_by_zero() {
  // A crash of the autodiff (the affine expansion of the bound failed).
  // expected-error @+1 {{bounds divides by 0; only positive constant divisors are supported}}
  sdfg.loop %i = 0 to 4 floordiv 0 step 1 {
  }
}

// -----

sdfg.sdfg @index_divides_by_a_negative(%A: memref<8xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
      // expected-error @+1 {{subset divides by -2; only positive constant divisors are supported}}
      %a = sdfg.load %A[%i mod -2] : memref<8xf64>
    }
  }
}

// -----

sdfg.sdfg @map_bound_divides_by_a_negative(%A: memref<8xf64>, %N: index) {
  sdfg.state {
    // expected-error @+1 {{upper bounds divides by -1; only positive constant divisors are supported}}
    sdfg.map (%i) = (0) to (%N floordiv -1) step (1) schedule(sequential) {
    }
  }
}

// -----

sdfg.sdfg @loop_bounds_map(%N: index) {
  // expected-error @+1 {{bounds has 1 expressions, expected 2}}
  "sdfg.loop"(%N) <{bounds = affine_map<(d0) -> (d0)>, step = 1 : i64}> ({
  ^bb0(%i: index):
  }) : (index) -> ()
}

// -----

sdfg.sdfg @loop_no_iterator(%N: index) {
  // expected-error @+1 {{body must have one index argument (the iterator)}}
  "sdfg.loop"(%N) <{bounds = affine_map<(d0) -> (0, d0)>, step = 1 : i64}> ({
  ^bb0:
  }) : (index) -> ()
}

// -----

sdfg.sdfg @if_no_condition() {
  // expected-error @+1 {{needs at least one condition}}
  "sdfg.if"() ({
  ^bb0:
  }) : () -> ()
}

// -----

sdfg.sdfg @if_branches(%c: i1) {
  // expected-error @+1 {{has 1 conditions and 3 branches}}
  "sdfg.if"(%c) ({
  ^bb0:
  }, {
  ^bb0:
  }, {
  ^bb0:
  }) : (i1) -> ()
}

// -----

sdfg.sdfg @alloc_sizes(%N: index) {
  // expected-error @+1 {{has 1 dynamic sizes for a type with 2 dynamic dimensions}}
  %t = sdfg.alloc(%N) : memref<?x?xf64>
}

// -----

sdfg.sdfg @load_rank(%A: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{subset has 1 expressions, expected 2}}
    %v = sdfg.load %A[0] : memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @load_type(%A: memref<4xf64>) {
  sdfg.state {
    %c = "sdfg.tasklet"() ({
      %z = arith.constant 0 : index
      sdfg.yield %z : index
    }) : () -> index
    // expected-error @+1 {{result type must be the container's element type}}
    %v = "sdfg.load"(%A, %c) <{map = affine_map<(d0) -> (d0)>}> : (memref<4xf64>, index) -> f32
  }
}

// -----

sdfg.sdfg @load_oob(%A: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{index 4 is out of bounds for dimension 0 of extent 4}}
    %v = sdfg.load %A[4] : memref<4xf64>
  }
}

// -----

sdfg.sdfg @store_rank(%A: memref<4xf64>, %x: f64) {
  sdfg.state {
    // expected-error @+1 {{subset has 2 expressions, expected 1}}
    sdfg.store %x, %A[0, 1] : memref<4xf64>
  }
}

// -----

sdfg.sdfg @store_oob(%A: memref<4xf64>, %x: f64) {
  sdfg.state {
    // expected-error @+1 {{index -1 is out of bounds for dimension 0 of extent 4}}
    sdfg.store %x, %A[-1] : memref<4xf64>
  }
}

// -----

// expected-note @+1 {{prior use here}}
sdfg.sdfg @store_value_type(%A: memref<4xf64>, %x: f32) {
  sdfg.state {
    // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'f64' vs 'f32'}}
    sdfg.store %x, %A[0] : memref<4xf64>
  }
}

// -----

sdfg.sdfg @wcr_kind(%A: memref<4xf64>, %x: f64) {
  sdfg.state {
    // expected-error @+1 {{unknown wcr kind 'sub'; expected add, mul, min or max}}
    sdfg.store %x, %A[0] wcr(sub) : memref<4xf64>
  }
}

// -----

sdfg.sdfg @wcr_index(%A: memref<4xindex>, %x: index) {
  sdfg.state {
    // expected-error @+1 {{wcr needs a float or integer (not i1 or index) element type, got 'index'}}
    sdfg.store %x, %A[0] wcr(mul) : memref<4xindex>
  }
}

// -----

// expected-error @+1 {{argument 0 has unsupported element type 'bf16'}}
sdfg.sdfg @bf16(%A: memref<4xbf16>) {}

// -----

sdfg.sdfg @copy_types(%A: memref<4xf64>, %B: memref<4xf32>) {
  sdfg.state {
    // expected-error @+1 {{source and target element types differ}}
    sdfg.copy %A[0 : 4] to %B[0 : 4] : memref<4xf64> to memref<4xf32>
  }
}

// -----

sdfg.sdfg @copy_rank(%A: memref<4x4xf64>, %B: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{source subset has 2 expressions, expected 4}}
    sdfg.copy %A[0 : 4] to %B[0 : 4] : memref<4x4xf64> to memref<4xf64>
  }
}

// -----

sdfg.sdfg @copy_dims(%A: memref<4x4xf64>, %B: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{source subset has 2 range dimensions but target subset has 1}}
    sdfg.copy %A[0 : 4, 0 : 4] to %B[0 : 4] : memref<4x4xf64> to memref<4xf64>
  }
}

// -----

sdfg.sdfg @copy_extent(%A: memref<8xf64>, %B: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{extent 8 of source range dimension 0 differs from target extent 4}}
    sdfg.copy %A[0 : 8] to %B[0 : 4] : memref<8xf64> to memref<4xf64>
  }
}

// -----

sdfg.sdfg @copy_step(%A: memref<8xf64>, %B: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{source subset step must be positive}}
    sdfg.copy %A[0 : 8 : -2] to %B[0 : 4] : memref<8xf64> to memref<4xf64>
  }
}

// -----

sdfg.sdfg @copy_oob(%A: memref<8xf64>, %B: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{index 9 is out of bounds for dimension 0 of extent 8}}
    sdfg.copy %A[5 : 9] to %B[0 : 4] : memref<8xf64> to memref<4xf64>
  }
}

// -----

sdfg.sdfg @map_bounds(%N: index) {
  sdfg.state {
    // expected-error @+1 {{upper bounds has 1 expressions, expected 2}}
    sdfg.map (%i, %j) = (0, 0) to (%N) step (1, 1) schedule(sequential) {
    }
  }
}

// -----

sdfg.sdfg @map_steps(%N: index) {
  sdfg.state {
    // expected-error @+1 {{has 2 parameters but 1 steps}}
    sdfg.map (%i, %j) = (0, 0) to (%N, %N) step (1) schedule(sequential) {
    }
  }
}

// -----

sdfg.sdfg @map_step_sign(%N: index) {
  sdfg.state {
    // expected-error @+1 {{steps must be positive}}
    sdfg.map (%i) = (0) to (%N) step (-1) schedule(sequential) {
    }
  }
}

// -----

sdfg.sdfg @map_schedule(%N: index) {
  sdfg.state {
    // expected-error @+1 {{unknown schedule 'fpga'; expected sequential, cpu_multicore or gpu_device}}
    sdfg.map (%i) = (0) to (%N) step (1) schedule(fpga) {
    }
  }
}

// -----

sdfg.sdfg @matmul_rank(%A: memref<4xf64>, %B: memref<4x4xf64>, %C: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{operand 0 must have rank 2 or 3, got 1}}
    sdfg.matmul %A, %B -> %C : memref<4xf64>, memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @matmul_int(%A: memref<4x4xi32>, %B: memref<4x4xi32>, %C: memref<4x4xi32>) {
  sdfg.state {
    // expected-error @+1 {{supports f32 and f64 containers, not 'i32'}}
    sdfg.matmul %A, %B -> %C : memref<4x4xi32>, memref<4x4xi32> -> memref<4x4xi32>
  }
}

// -----

sdfg.sdfg @matmul_mixed(%A: memref<4x4xf64>, %B: memref<4x4xf32>, %C: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{operands must have the same element type}}
    sdfg.matmul %A, %B -> %C : memref<4x4xf64>, memref<4x4xf32> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @matmul_inner(%A: memref<4x3xf64>, %B: memref<4x4xf64>, %C: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{inner dimension mismatch: 3 vs 4}}
    sdfg.matmul %A, %B -> %C : memref<4x3xf64>, memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @matmul_out(%A: memref<4x3xf64>, %B: memref<4x4xf64>, %C: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{row count mismatch: 3 vs 4}}
    sdfg.matmul %A, %B -> %C {transpose_a} : memref<4x3xf64>, memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @matmul_alias(%A: memref<4x4xf64>, %B: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias an input}}
    sdfg.matmul %A, %B -> %B : memref<4x4xf64>, memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @gemv_len(%A: memref<4x3xf64>, %x: memref<4xf64>, %y: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{input length mismatch: 3 vs 4}}
    sdfg.gemv %A, %x -> %y : memref<4x3xf64>, memref<4xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @ger_rows(%x: memref<5xf64>, %y: memref<3xf64>, %A: memref<4x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{row count mismatch: 4 vs 5}}
    sdfg.ger %x, %y -> %A : memref<5xf64>, memref<3xf64> -> memref<4x3xf64>
  }
}

// -----

sdfg.sdfg @ger_rank(%x: memref<4xf64>, %y: memref<3x1xf64>, %A: memref<4x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{operand 1 must have rank 1, got 2}}
    sdfg.ger %x, %y -> %A : memref<4xf64>, memref<3x1xf64> -> memref<4x3xf64>
  }
}

// -----

sdfg.sdfg @ger_type(%x: memref<4xf64>, %y: memref<3xf32>, %A: memref<4x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{operands must have the same element type}}
    sdfg.ger %x, %y -> %A : memref<4xf64>, memref<3xf32> -> memref<4x3xf64>
  }
}

// -----

sdfg.sdfg @dot_len(%x: memref<4xf64>, %y: memref<5xf64>, %r: memref<f64>) {
  sdfg.state {
    // expected-error @+1 {{vector length mismatch: 4 vs 5}}
    sdfg.dot %x, %y -> %r : memref<4xf64>, memref<5xf64> -> memref<f64>
  }
}

// -----

sdfg.sdfg @dot_rank(%x: memref<4xf64>, %y: memref<4xf64>, %r: memref<1xf64>) {
  sdfg.state {
    // expected-error @+1 {{operand 2 must have rank 0, got 1}}
    sdfg.dot %x, %y -> %r : memref<4xf64>, memref<4xf64> -> memref<1xf64>
  }
}

// -----

sdfg.sdfg @transpose_shape(%A: memref<4x3xf64>, %B: memref<4x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{extent mismatch: 4 vs 3}}
    sdfg.transpose %A -> %B : memref<4x3xf64> -> memref<4x3xf64>
  }
}

// -----

sdfg.sdfg @reduce_axis(%A: memref<4x3xf64>, %B: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{axis 2 is out of range for rank 2}}
    sdfg.reduce add %A -> %B axes [2] : memref<4x3xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @reduce_order(%A: memref<4x3x2xf64>, %B: memref<3xf64>) {
  sdfg.state {
    // expected-error @+1 {{axes must be strictly increasing}}
    sdfg.reduce add %A -> %B axes [2, 0] : memref<4x3x2xf64> -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @reduce_rank(%A: memref<4x3x2xf64>, %B: memref<3x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{output rank 2 must be the input rank 3 without the reduced axes, or equal to it}}
    sdfg.reduce add %A -> %B axes [0, 2] : memref<4x3x2xf64> -> memref<3x2xf64>
  }
}

// -----

sdfg.sdfg @reduce_extent(%A: memref<4x3xf64>, %B: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{output extent mismatch: 3 vs 4}}
    sdfg.reduce min %A -> %B axes [0] : memref<4x3xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @reduce_keepdims(%A: memref<4x3xf64>, %B: memref<4x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{output extent mismatch: 1 vs 4}}
    sdfg.reduce max %A -> %B axes [0] : memref<4x3xf64> -> memref<4x3xf64>
  }
}

// -----

sdfg.sdfg @while_no_condition() {
  // expected-error @+1 {{condition region must end with sdfg.condition}}
  sdfg.while {
  } do {
  }
}

// -----

sdfg.sdfg @while_state_in_cond(%c: i1) {
  sdfg.while {
    // expected-error @+1 {{'sdfg.state' op is not allowed in the condition of 'sdfg.while'}}
    sdfg.state {
    }
    sdfg.condition %c
  } do {
  }
}

// -----

sdfg.sdfg @condition_outside_while(%c: i1) {
  sdfg.loop %i = 0 to 4 step 1 {
    // expected-error @+1 {{'sdfg.condition' op expects parent op 'sdfg.while'}}
    sdfg.condition %c
  }
}

// -----

sdfg.sdfg @solve_square(%A: memref<4x3xf64>, %b: memref<4xf64>, %x: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{square matrix extent mismatch: 4 vs 3}}
    sdfg.solve %A, %b -> %x : memref<4x3xf64>, memref<4xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @solve_rhs(%A: memref<4x4xf64>, %b: memref<5xf64>, %x: memref<5xf64>) {
  sdfg.state {
    // expected-error @+1 {{right-hand side length mismatch: 4 vs 5}}
    sdfg.solve %A, %b -> %x : memref<4x4xf64>, memref<5xf64> -> memref<5xf64>
  }
}

// -----

sdfg.sdfg @solve_shape(%A: memref<4x4xf64>, %b: memref<4x2xf64>, %x: memref<4x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{solution extent mismatch: 2 vs 3}}
    sdfg.solve %A, %b -> %x : memref<4x4xf64>, memref<4x2xf64> -> memref<4x3xf64>
  }
}

// -----

sdfg.sdfg @solve_rank(%A: memref<4x4xf64>, %b: memref<4x2x2xf64>, %x: memref<4x2x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{right-hand side must have rank 1 or 2, got 3}}
    sdfg.solve %A, %b -> %x : memref<4x4xf64>, memref<4x2x2xf64> -> memref<4x2x2xf64>
  }
}

// -----

sdfg.sdfg @solve_alias(%A: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias the matrix}}
    sdfg.solve %A, %A -> %A : memref<4x4xf64>, memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @solve_types(%A: memref<4x4xf32>, %b: memref<4xf64>, %x: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{operands must have the same element type}}
    sdfg.solve %A, %b -> %x : memref<4x4xf32>, memref<4xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @solve_int(%A: memref<4x4xi64>, %b: memref<4xi64>, %x: memref<4xi64>) {
  sdfg.state {
    // expected-error @+1 {{supports f32 and f64 containers, not 'i64'}}
    sdfg.solve %A, %b -> %x : memref<4x4xi64>, memref<4xi64> -> memref<4xi64>
  }
}

// -----

sdfg.sdfg @det_square(%A: memref<4x3xf64>, %r: memref<f64>) {
  sdfg.state {
    // expected-error @+1 {{square matrix extent mismatch: 4 vs 3}}
    sdfg.det det %A -> %r : memref<4x3xf64> -> memref<f64>
  }
}

// -----

sdfg.sdfg @det_result(%A: memref<4x4xf64>, %r: memref<1xf64>) {
  sdfg.state {
    // expected-error @+1 {{operand 1 must have rank 0, got 1}}
    sdfg.det logabs %A -> %r : memref<4x4xf64> -> memref<1xf64>
  }
}

// -----

sdfg.sdfg @matmul_rank4(%A: memref<2x3x4x5xf64>, %B: memref<5x2xf64>, %C: memref<2x3x4x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{operand 0 must have rank 2 or 3, got 4}}
    sdfg.matmul %A, %B -> %C : memref<2x3x4x5xf64>, memref<5x2xf64> -> memref<2x3x4x2xf64>
  }
}

// -----

sdfg.sdfg @matmul_batch(%A: memref<2x3x4xf64>, %B: memref<3x4x5xf64>, %C: memref<2x3x5xf64>) {
  sdfg.state {
    // expected-error @+1 {{batch extent mismatch: 2 vs 3}}
    sdfg.matmul %A, %B -> %C : memref<2x3x4xf64>, memref<3x4x5xf64> -> memref<2x3x5xf64>
  }
}

// -----

sdfg.sdfg @matmul_unbatched(%A: memref<3x4xf64>, %B: memref<4x5xf64>, %C: memref<2x3x5xf64>) {
  sdfg.state {
    // expected-error @+1 {{a batched output needs a batched input}}
    sdfg.matmul %A, %B -> %C : memref<3x4xf64>, memref<4x5xf64> -> memref<2x3x5xf64>
  }
}

// -----

sdfg.sdfg @cholesky_alias(%A: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias the input}}
    sdfg.cholesky %A -> %A : memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @cholesky_shape(%A: memref<4x4xf64>, %L: memref<4x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{factor extent mismatch: 4 vs 3}}
    sdfg.cholesky %A -> %L : memref<4x4xf64> -> memref<4x3xf64>
  }
}

// -----

sdfg.sdfg @eigh_alias(%A: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias the input}}
    sdfg.eigh vectors %A -> %A : memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @eigh_count(%A: memref<4x4xf64>, %w: memref<3xf64>) {
  sdfg.state {
    // expected-error @+1 {{eigenvalue count mismatch: 4 vs 3}}
    sdfg.eigh values %A -> %w : memref<4x4xf64> -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @eigh_rank(%A: memref<4x4xf64>, %V: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{operand 1 must have rank 2, got 1}}
    sdfg.eigh vectors %A -> %V : memref<4x4xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @eigh_square(%A: memref<4x3xf64>, %w: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{square matrix extent mismatch: 4 vs 3}}
    sdfg.eigh values %A -> %w : memref<4x3xf64> -> memref<4xf64>
  }
}

// -----

sdfg.sdfg @qr_alias(%A: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias the input}}
    sdfg.qr r %A -> %A : memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @qr_q_shape(%A: memref<3x5xf64>, %Q: memref<3x5xf64>) {
  sdfg.state {
    // expected-error @+1 {{Q column count mismatch: 3 vs 5}}
    sdfg.qr q %A -> %Q : memref<3x5xf64> -> memref<3x5xf64>
  }
}

// -----

sdfg.sdfg @qr_r_shape(%A: memref<6x4xf64>, %R: memref<6x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{R row count mismatch: 4 vs 6}}
    sdfg.qr r %A -> %R : memref<6x4xf64> -> memref<6x4xf64>
  }
}

// -----

sdfg.sdfg @qr_int(%A: memref<4x4xi64>, %R: memref<4x4xi64>) {
  sdfg.state {
    // expected-error @+1 {{supports f32 and f64 containers, not 'i64'}}
    sdfg.qr r %A -> %R : memref<4x4xi64> -> memref<4x4xi64>
  }
}

// -----

sdfg.sdfg @svd_u_shape(%A: memref<6x4xf64>, %U: memref<6x6xf64>) {
  sdfg.state {
    // expected-error @+1 {{U column count mismatch: 4 vs 6}}
    sdfg.svd u %A -> %U : memref<6x4xf64> -> memref<6x6xf64>
  }
}

// -----

sdfg.sdfg @svd_s_rank(%A: memref<6x4xf64>, %s: memref<4x1xf64>) {
  sdfg.state {
    // expected-error @+1 {{operand 1 must have rank 1, got 2}}
    sdfg.svd s %A -> %s : memref<6x4xf64> -> memref<4x1xf64>
  }
}

// -----

sdfg.sdfg @svd_vectors_flag(%A: memref<4x4xf64>, %V: memref<4x4xf64>) {
  sdfg.state {
    // expected-error @+1 {{with_vectors applies to the singular values only}}
    sdfg.svd vh %A -> %V {with_vectors} : memref<4x4xf64> -> memref<4x4xf64>
  }
}

// -----

sdfg.sdfg @argsort_alias(%a: memref<4xi64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias the input}}
    sdfg.argsort %a axis 0 -> %a : memref<4xi64> -> memref<4xi64>
  }
}

// -----

sdfg.sdfg @argsort_positions(%a: memref<4xf64>, %p: memref<4xi32>) {
  sdfg.state {
    // expected-error @+1 {{result must hold i64 positions, not 'i32'}}
    sdfg.argsort %a axis 0 -> %p : memref<4xf64> -> memref<4xi32>
  }
}

// -----

sdfg.sdfg @argsort_keys(%a: memref<4xi1>, %p: memref<4xi64>) {
  sdfg.state {
    // expected-error @+1 {{sorts floats or integers, not 'i1'}}
    sdfg.argsort %a axis 0 -> %p : memref<4xi1> -> memref<4xi64>
  }
}

// -----

sdfg.sdfg @argsort_axis(%a: memref<4x3xf64>, %p: memref<4x3xi64>) {
  sdfg.state {
    // expected-error @+1 {{axis 2 out of range for rank 2}}
    sdfg.argsort %a axis 2 -> %p : memref<4x3xf64> -> memref<4x3xi64>
  }
}

// -----

sdfg.sdfg @argsort_extent(%a: memref<4x3xf64>, %p: memref<4x2xi64>) {
  sdfg.state {
    // expected-error @+1 {{result extent mismatch: 3 vs 2}}
    sdfg.argsort %a axis 0 -> %p : memref<4x3xf64> -> memref<4x2xi64>
  }
}

// -----

sdfg.sdfg @argsort_scalar(%a: memref<f64>, %p: memref<i64>) {
  sdfg.state {
    // expected-error @+1 {{needs an array of rank at least 1}}
    sdfg.argsort %a axis 0 -> %p : memref<f64> -> memref<i64>
  }
}

// -----

sdfg.sdfg @searchsorted_types(%x: memref<4xf32>, %xp: memref<8xf64>, %j: memref<4xi64>) {
  sdfg.state {
    // expected-error @+1 {{values of type 'f32' searched in a vector of 'f64'}}
    sdfg.searchsorted %x in %xp -> %j : memref<4xf32> in memref<8xf64> -> memref<4xi64>
  }
}

// -----

sdfg.sdfg @searchsorted_rank(%x: memref<4xf64>, %xp: memref<2x4xf64>, %j: memref<4xi64>) {
  sdfg.state {
    // expected-error @+1 {{the sorted operand must be 1-d, not of rank 2}}
    sdfg.searchsorted %x in %xp -> %j : memref<4xf64> in memref<2x4xf64> -> memref<4xi64>
  }
}

// -----

sdfg.sdfg @searchsorted_bools(%x: memref<4xi1>, %xp: memref<8xi1>, %j: memref<4xi64>) {
  sdfg.state {
    // expected-error @+1 {{searches floats or integers, not 'i1'}}
    sdfg.searchsorted %x in %xp -> %j : memref<4xi1> in memref<8xi1> -> memref<4xi64>
  }
}

// -----

sdfg.sdfg @searchsorted_alias(%x: memref<4xi64>, %xp: memref<8xi64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias an input}}
    sdfg.searchsorted %x in %xp -> %x : memref<4xi64> in memref<8xi64> -> memref<4xi64>
  }
}

// -----

sdfg.sdfg @searchsorted_positions(%x: memref<4xf64>, %xp: memref<8xf64>, %j: memref<4xi32>) {
  sdfg.state {
    // expected-error @+1 {{result must hold i64 positions, not 'i32'}}
    sdfg.searchsorted %x in %xp -> %j : memref<4xf64> in memref<8xf64> -> memref<4xi32>
  }
}

// -----

sdfg.sdfg @searchsorted_shape(%x: memref<4x2xf64>, %xp: memref<8xf64>, %j: memref<4x3xi64>) {
  sdfg.state {
    // expected-error @+1 {{result extent mismatch: 2 vs 3}}
    sdfg.searchsorted %x in %xp -> %j : memref<4x2xf64> in memref<8xf64> -> memref<4x3xi64>
  }
}

// -----

// 2^61 doubles are 2^64 bytes: the size would wrap in 64 bits (it used to
// compile, land on the stack and write outside its allocation).
sdfg.sdfg @alloc_too_large() {
  // expected-error @+1 {{transient of type 'memref<2305843009213693952xf64>' is too large: its size in bytes is not representable (the limit is 2^62 bytes)}}
  %t = sdfg.alloc() : memref<2305843009213693952xf64>
}

// -----

// The product of the extents overflows although each is small enough.
sdfg.sdfg @alloc_product_too_large() {
  // expected-error @+1 {{transient of type 'memref<4294967296x4294967296xi8>' is too large}}
  %t = sdfg.alloc() : memref<4294967296x4294967296xi8>
}

// -----

// expected-error @+1 {{argument 1 of type 'memref<2305843009213693952xf32>' is too large}}
sdfg.sdfg @argument_too_large(%a: memref<4xf64>, %b: memref<2305843009213693952xf32>) {
}

// -----

// Maps keep the loops' bounds: their trip counts and the lowering's index
// arithmetic stay within 64 bits.
sdfg.sdfg @map_bound_huge(%x: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{bound 9223372036854775807 out of range (must be below 2^62 in magnitude)}}
    sdfg.map (%i) = (0) to (9223372036854775807) step (1) schedule(sequential) {
    }
  }
}

// -----

sdfg.sdfg @map_step_huge(%x: memref<4xf64>) {
  sdfg.state {
    // expected-error @+1 {{step 4611686018427387904 out of range (|step| must be below 2^62)}}
    sdfg.map (%i) = (0) to (4) step (4611686018427387904) schedule(sequential) {
    }
  }
}

// -----

sdfg.sdfg @callee(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64>, %y: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{callee @nowhere does not name an sdfg.sdfg}}
    sdfg.custom_call @nowhere(%x) -> %y : (memref<3xf64>) -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @callee(%x: memref<4xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64>, %y: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{callee @callee takes ('memref<4xf64>', 'memref<3xf64>'), expected ('memref<3xf64>', 'memref<3xf64>')}}
    sdfg.custom_call @callee(%x) -> %y : (memref<3xf64>) -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @caller(%x: memref<3xf64>, %y: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{callee @caller is the program that calls it}}
    sdfg.custom_call @caller(%x) -> %y : (memref<3xf64>) -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @callee(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64>, %y: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{vjp has 2 entries; expected one per input (1)}}
    sdfg.custom_call @callee(%x) -> %y {vjp = [@callee, unit]} : (memref<3xf64>) -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @callee(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64>, %y: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{vjp of input #0 @callee takes ('memref<3xf64>', 'memref<3xf64>'), expected ('memref<3xf64>', 'memref<3xf64>', 'memref<3xf64>', 'memref<3xf64>')}}
    sdfg.custom_call @callee(%x) -> %y {vjp = [@callee]} : (memref<3xf64>) -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @callee(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{output must not be one of the inputs}}
    sdfg.custom_call @callee(%x) -> %x : (memref<3xf64>) -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @callee(%x: memref<?xf64>, %y: memref<?xf64>) {}
sdfg.sdfg @caller(%x: memref<?xf64>, %y: memref<?xf64>) {
  sdfg.state {
    // expected-error @below {{operands must have static shapes}}
    sdfg.custom_call @callee(%x) -> %y : (memref<?xf64>) -> memref<?xf64>
  }
}

// -----

sdfg.sdfg @callee(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64>, %y: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{vjp entries must be symbols or unit, not 3 : i64}}
    sdfg.custom_call @callee(%x) -> %y {vjp = [3]} : (memref<3xf64>) -> memref<3xf64>
  }
}

// -----

sdfg.sdfg @print_in_map(%x: memref<3xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      // expected-error @below {{'sdfg.print' op is not allowed in the body of 'sdfg.map'}}
      sdfg.print site 0 (%x : memref<3xf64>)
    }
  }
}

// -----

sdfg.sdfg @print_site(%x: memref<3xf64>) {
  sdfg.state {
    // expected-error @below {{site must be non-negative}}
    sdfg.print site -1 (%x : memref<3xf64>)
  }
}

// -----

sdfg.sdfg @print_dynamic(%x: memref<?xf64>) {
  sdfg.state {
    // expected-error @below {{values must have static shapes}}
    sdfg.print site 0 (%x : memref<?xf64>)
  }
}

// -----

sdfg.sdfg @dim_axis(%x: memref<?x3xf64>) {
  // expected-error @below {{axis 2 is out of range for a container of rank 2}}
  %n = sdfg.dim %x, 2 : memref<?x3xf64>
}

// -----

sdfg.sdfg @fft_alias(%a: memref<8x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{output must not alias the input}}
    sdfg.fft %a axis 0 -> %a : memref<8x2xf64> -> memref<8x2xf64>
  }
}

// -----

sdfg.sdfg @fft_element(%a: memref<8x2xi64>, %b: memref<8x2xi64>) {
  sdfg.state {
    // expected-error @+1 {{transforms f64 or f32 complex data, not 'i64'}}
    sdfg.fft %a axis 0 -> %b : memref<8x2xi64> -> memref<8x2xi64>
  }
}

// -----

sdfg.sdfg @fft_types(%a: memref<8x2xf64>, %b: memref<4x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{result type 'memref<4x2xf64>' differs from the input's 'memref<8x2xf64>'}}
    sdfg.fft %a axis 0 -> %b : memref<8x2xf64> -> memref<4x2xf64>
  }
}

// -----

sdfg.sdfg @fft_parts(%a: memref<8x3xf64>, %b: memref<8x3xf64>) {
  sdfg.state {
    // expected-error @+1 {{the last dimension holds (re, im) and must have extent 2, not 3}}
    sdfg.fft %a axis 0 -> %b : memref<8x3xf64> -> memref<8x3xf64>
  }
}

// -----

sdfg.sdfg @fft_rank(%a: memref<2xf64>, %b: memref<2xf64>) {
  sdfg.state {
    // expected-error @+1 {{needs complex data: rank at least 2}}
    sdfg.fft %a axis 0 -> %b : memref<2xf64> -> memref<2xf64>
  }
}

// -----

sdfg.sdfg @fft_axis(%a: memref<4x8x2xf64>, %b: memref<4x8x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{axis 2 out of range: the data has 2 complex dimension(s)}}
    sdfg.fft %a axis 2 -> %b : memref<4x8x2xf64> -> memref<4x8x2xf64>
  }
}

// -----

sdfg.sdfg @fft_empty(%a: memref<0x2xf64>, %b: memref<0x2xf64>) {
  sdfg.state {
    // expected-error @+1 {{transforms lines of length at least 1, not 0}}
    sdfg.fft %a axis 0 -> %b : memref<0x2xf64> -> memref<0x2xf64>
  }
}
