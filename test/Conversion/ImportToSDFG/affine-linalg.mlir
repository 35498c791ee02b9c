// RUN: sdfg-opt %s --convert-to-sdfg -split-input-file | FileCheck %s

// An affine triangular nest: bounds and accesses keep their affine maps.
// CHECK-LABEL: sdfg.sdfg @tri
// CHECK: sdfg.loop %[[I:.*]] = 0 to 16 step 1 {
// CHECK:   sdfg.loop %[[J:.*]] = 0 to %[[I]] step 1 {
// CHECK:     sdfg.load %{{.*}}[%[[I]], %[[J]]] : memref<16x16xf64>
// CHECK:     sdfg.load %{{.*}}[%[[J]]] : memref<16xf64>
// CHECK:     sdfg.store %{{.*}}, %{{.*}}[%[[I]]] : memref<16xf64>
func.func @tri(%L: memref<16x16xf64>, %x: memref<16xf64>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %l = affine.load %L[%i, %j] : memref<16x16xf64>
      %xj = affine.load %x[%j] : memref<16xf64>
      %xi = affine.load %x[%i] : memref<16xf64>
      %p = arith.mulf %l, %xj : f64
      %s = arith.subf %xi, %p : f64
      affine.store %s, %x[%i] : memref<16xf64>
    }
  }
  return
}

// -----

// affine.parallel becomes a map.
// CHECK-LABEL: sdfg.sdfg @apar
// CHECK: sdfg.map (%[[I:.*]]) = (0) to (32) step (1) schedule(cpu_multicore) {
// CHECK:   sdfg.load %{{.*}}[%[[I]] + 1]
func.func @apar(%x: memref<33xf64>, %y: memref<32xf64>) {
  affine.parallel (%i) = (0) to (32) {
    %v = affine.load %x[%i + 1] : memref<33xf64>
    affine.store %v, %y[%i] : memref<32xf64>
  }
  return
}

// -----

// linalg named ops become library ops that accumulate, as linalg does.
// CHECK-LABEL: sdfg.sdfg @chain
// CHECK: sdfg.matmul %{{.*}}, %{{.*}} -> %{{.*}} {accumulate} : memref<4x5xf64>, memref<5x6xf64> -> memref<4x6xf64>
// CHECK: sdfg.gemv %{{.*}}, %{{.*}} -> %{{.*}} {accumulate} : memref<4x6xf64>, memref<6xf64> -> memref<4xf64>
// CHECK: sdfg.dot %{{.*}}, %{{.*}} -> %{{.*}} {accumulate} : memref<4xf64>, memref<4xf64> -> memref<f64>
func.func @chain(%A: memref<4x5xf64>, %B: memref<5x6xf64>, %C: memref<4x6xf64>,
                 %v: memref<6xf64>, %w: memref<4xf64>, %r: memref<f64>) {
  linalg.matmul ins(%A, %B : memref<4x5xf64>, memref<5x6xf64>) outs(%C : memref<4x6xf64>)
  linalg.matvec ins(%C, %v : memref<4x6xf64>, memref<6xf64>) outs(%w : memref<4xf64>)
  linalg.dot ins(%w, %w : memref<4xf64>, memref<4xf64>) outs(%r : memref<f64>)
  return
}

// -----

// linalg.generic: an elementwise body becomes a map of tasklets; a
// reduction 'out + x' becomes a WCR store of x (out is not read).
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: sdfg.sdfg @rowsum
// CHECK: sdfg.map (%[[K:.*]]) = (0) to (3) step (1)
// CHECK:   sdfg.store %{{.*}}, %{{.*}}[%[[K]]] : memref<3xf64>
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (3, 7) step (1, 1)
// CHECK-NEXT:   %[[X:.*]] = sdfg.load %{{.*}}[%[[I]], %[[J]]] : memref<3x7xf64>
// CHECK-NEXT:   %[[E:.*]] = sdfg.tasklet(%[[X]])
// CHECK:     math.exp
// CHECK:   sdfg.store %[[E]], %{{.*}}[%[[I]]] wcr(add) : memref<3xf64>
func.func @rowsum(%x: memref<3x7xf64>, %s: memref<3xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%s : memref<3xf64>)
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x7xf64>) outs(%s : memref<3xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %e = math.exp %a : f64
    %n = arith.addf %acc, %e : f64
    linalg.yield %n : f64
  }
  return
}

// -----

// linalg.reduce becomes the library reduction, accumulating into its init.
// CHECK-LABEL: sdfg.sdfg @colmax
// CHECK: sdfg.reduce max %{{.*}} -> %{{.*}} axes [0] {accumulate} : memref<5x4xf64> -> memref<4xf64>
func.func @colmax(%x: memref<5x4xf64>, %m: memref<4xf64>) {
  linalg.reduce ins(%x : memref<5x4xf64>) outs(%m : memref<4xf64>) dimensions = [0]
    (%a: f64, %b: f64) {
      %r = arith.maximumf %a, %b : f64
      linalg.yield %r : f64
    }
  return
}
