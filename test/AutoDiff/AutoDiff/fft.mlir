// RUN: sdfg-opt %s --sdfg-autodiff -split-input-file | FileCheck %s

// The transform is linear and its matrix symmetric: the gradient w.r.t.
// the input's (re, im) pairs is the transform of the other sign of the
// output's gradient, unscaled, added into d_x; the output's gradient is
// then cleared (the op overwrote the output). No forward value is read.
// CHECK-LABEL: sdfg.sdfg @power_grad(
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.fft %[[DX:.*]] axis 0 inverse -> %d_x {accumulate} : memref<6x2xf64> -> memref<6x2xf64>
// CHECK-NEXT: sdfg.map
// CHECK: sdfg.store %{{.*}}, %[[DX]][%{{.*}}, %{{.*}}] : memref<6x2xf64>
sdfg.sdfg @power(%x: memref<6x2xf64> {sdfg.name = "x"},
                 %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["x"]} {
  %X = sdfg.alloc() : memref<6x2xf64>
  sdfg.state {
    sdfg.fft %x axis 0 -> %X : memref<6x2xf64> -> memref<6x2xf64>
    sdfg.reduce add %X -> %out axes [0, 1] : memref<6x2xf64> -> memref<f64>
  }
}

// -----

// An inverse transform's adjoint is the forward one; an accumulating op
// leaves the output's gradient in place (its old value is part of the
// result).
// CHECK-LABEL: sdfg.sdfg @inverse_grad(
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.fft %d_y axis 1 -> %d_x {accumulate} : memref<3x8x2xf32> -> memref<3x8x2xf32>
// CHECK-NOT: sdfg.store %{{.*}}, %d_y
sdfg.sdfg @inverse(%x: memref<3x8x2xf32> {sdfg.name = "x"},
                   %y: memref<3x8x2xf32> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.fft %x axis 1 inverse -> %y {accumulate} : memref<3x8x2xf32> -> memref<3x8x2xf32>
  }
}
