// RUN: sdfg-opt %s --convert-to-sdfg -split-input-file | FileCheck %s

// A stencil time loop in scf + memref: the loops become sdfg.loop, index
// arithmetic folds into the memlets (i - 1, i + 1), the scalar code of the
// body becomes one state with a tasklet per arith op; constants are cloned
// into the tasklets that use them.
// CHECK: sdfg.sdfg @jacobi(%{{.*}}: memref<64xf64> {sdfg.name = "A"}, %{{.*}}: memref<64xf64> {sdfg.name = "B"}, %[[T:.*]]: index)
// CHECK: sdfg.loop %[[t:.*]] = 0 to %[[T]] step 1 {
// CHECK:   sdfg.loop %[[i:.*]] = 1 to 63 step 1 {
// CHECK:     sdfg.state {
// CHECK:       %[[L:.*]] = sdfg.load %{{.*}}[%[[i]] - 1] : memref<64xf64>
// CHECK:       %[[R:.*]] = sdfg.load %{{.*}}[%[[i]] + 1] : memref<64xf64>
// CHECK:       %[[S:.*]] = sdfg.tasklet(%[[L]], %[[R]]) : (f64, f64) -> f64 {
// CHECK:         arith.addf
// CHECK:       %[[H:.*]] = sdfg.tasklet(%[[S]]) : (f64) -> f64 {
// CHECK:         arith.constant 5.000000e-01 : f64
// CHECK:         arith.mulf
// CHECK:       sdfg.store %[[H]], %{{.*}}[%[[i]]] : memref<64xf64>
func.func @jacobi(%A: memref<64xf64> {sdfg.name = "A"},
                  %B: memref<64xf64> {sdfg.name = "B"}, %T: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %half = arith.constant 0.5 : f64
  scf.for %t = %c0 to %T step %c1 {
    scf.for %i = %c1 to %c63 step %c1 {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %l = memref.load %A[%im] : memref<64xf64>
      %r = memref.load %A[%ip] : memref<64xf64>
      %s = arith.addf %l, %r : f64
      %h = arith.mulf %s, %half : f64
      memref.store %h, %B[%i] : memref<64xf64>
    }
  }
  return
}

// -----

// Loop-carried values live in a 0-d transient: initialised before the
// loop, rewritten at the end of each iteration, read after it.
// CHECK-LABEL: sdfg.sdfg @sum
// CHECK: %[[ACC:.*]] = sdfg.alloc() : memref<f64>
// CHECK: sdfg.state {
// CHECK:   sdfg.store %{{.*}}, %[[ACC]][] : memref<f64>
// CHECK: sdfg.loop
// CHECK:   sdfg.load %[[ACC]][] : memref<f64>
// CHECK:   arith.addf
// CHECK:   sdfg.store %{{.*}}, %[[ACC]][] : memref<f64>
// CHECK: sdfg.state {
// CHECK:   %[[V:.*]] = sdfg.load %[[ACC]][] : memref<f64>
// CHECK:   sdfg.store %[[V]], %{{.*}}[] : memref<f64>
func.func @sum(%x: memref<16xf64>, %out: memref<f64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<16xf64>
    %n = arith.addf %acc, %v : f64
    scf.yield %n : f64
  }
  memref.store %r, %out[] : memref<f64>
  return
}

// -----

// scf.if on data: the condition is computed in a state, kept in a 0-d
// transient and read at control level for sdfg.if.
// CHECK-LABEL: sdfg.sdfg @relu
// CHECK: sdfg.loop %[[i:.*]] =
// CHECK:   sdfg.state {
// CHECK:     arith.cmpf ogt
// CHECK:     sdfg.store %{{.*}}, %[[C:.*]][] : memref<i1>
// CHECK:   %[[COND:.*]] = sdfg.load %[[C]][] : memref<i1>
// CHECK:   sdfg.if %[[COND]] {
// CHECK:     sdfg.store
// CHECK:   } else {
// CHECK:     sdfg.store
func.func @relu(%x: memref<8xf64>, %y: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf64>
    %p = arith.cmpf ogt, %v, %zero : f64
    scf.if %p {
      memref.store %v, %y[%i] : memref<8xf64>
    } else {
      memref.store %zero, %y[%i] : memref<8xf64>
    }
  }
  return
}

// -----

// scf.parallel becomes a map; a transient from memref.alloc.
// CHECK-LABEL: sdfg.sdfg @scale
// CHECK: %[[TMP:.*]] = sdfg.alloc() : memref<4x8xf32>
// CHECK: sdfg.state {
// CHECK:   sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 8) step (1, 1) schedule(cpu_multicore) {
// CHECK:     sdfg.load %{{.*}}[%[[I]], %[[J]]]
// CHECK:     arith.mulf
// CHECK:     sdfg.store %{{.*}}, %[[TMP]][%[[I]], %[[J]]]
func.func @scale(%x: memref<4x8xf32>, %a: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %tmp = memref.alloc() : memref<4x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<4x8xf32>
    %w = arith.mulf %v, %a : f32
    memref.store %w, %tmp[%i, %j] : memref<4x8xf32>
  }
  memref.dealloc %tmp : memref<4x8xf32>
  return
}

// -----

// scf.while: the carried value lives in a 0-d transient; the condition is
// computed by interstate loads and tasklets in the while's cond region.
// CHECK-LABEL: sdfg.sdfg @halve
// CHECK: %[[V:.*]] = sdfg.alloc() : memref<f64>
// CHECK: sdfg.store %{{.*}}, %[[V]][] : memref<f64>
// CHECK: sdfg.while {
// CHECK:   %[[L:.*]] = sdfg.load %[[V]][] : memref<f64>
// CHECK:   %[[C:.*]] = sdfg.tasklet(%[[L]])
// CHECK:     arith.cmpf ogt
// CHECK:   sdfg.condition %[[C]]
// CHECK: } do {
// CHECK:   sdfg.state {
// CHECK:     arith.mulf
// CHECK:     sdfg.store %{{.*}}, %[[V]][] : memref<f64>
// CHECK: sdfg.load %[[V]][]
// CHECK: sdfg.store %{{.*}}, %{{.*}}[] : memref<f64>
func.func @halve(%x: memref<f64>, %y: memref<f64>) {
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %x0 = memref.load %x[] : memref<f64>
  %r = scf.while (%v = %x0) : (f64) -> f64 {
    %c = arith.cmpf ogt, %v, %one : f64
    scf.condition(%c) %v : f64
  } do {
  ^bb0(%w: f64):
    %n = arith.mulf %w, %half : f64
    scf.yield %n : f64
  }
  memref.store %r, %y[] : memref<f64>
  return
}
