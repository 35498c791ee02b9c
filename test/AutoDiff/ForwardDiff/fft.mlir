// RUN: sdfg-opt %s --sdfg-forward-diff="outputs=__return0 wrt=x" | FileCheck %s
// RUN: sdfg-opt %s --sdfg-forward-diff="outputs=__return0 wrt=x" --sdfg-lower-to-cpu -o /dev/null

// The transform is linear: its tangent is the same transform (sign,
// axis) of the input's tangent.
// CHECK-LABEL: sdfg.sdfg @f_jvp(
// CHECK: sdfg.fft %x axis 0 inverse -> %__return0 : memref<6x2xf64> -> memref<6x2xf64>
// CHECK-NEXT: sdfg.fft %t_x axis 0 inverse -> %t___return0 : memref<6x2xf64> -> memref<6x2xf64>
sdfg.sdfg @f(%x: memref<6x2xf64> {sdfg.name = "x"},
             %__return0: memref<6x2xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.fft %x axis 0 inverse -> %__return0 : memref<6x2xf64> -> memref<6x2xf64>
  }
}
