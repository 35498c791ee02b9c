// Bad output/wrt options end in a located diagnostic and a non-zero exit.
// RUN: not sdfg-opt %s --sdfg-autodiff="output=nope" 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not sdfg-opt %s --sdfg-autodiff="output=x wrt=n" 2>&1 | FileCheck %s --check-prefix=WRT
// RUN: not sdfg-opt %s --sdfg-autodiff="output=x wrt=q" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not sdfg-opt %s --sdfg-autodiff="output=n" 2>&1 | FileCheck %s --check-prefix=INTOUT
// RUN: not sdfg-opt %s --sdfg-autodiff="bogus=1" 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not sdfg-opt %s --sdfg-autodiff="output=x wrt=x,x" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: 'sdfg.sdfg' op autodiff wrt names 'x' twice

// OUT: options.mlir:[[# @LINE + 5]]:1: error: 'sdfg.sdfg' op autodiff output 'nope' is not an argument
// WRT: error: 'sdfg.sdfg' op autodiff wrt argument 'n' must be a float container
// UNKNOWN: error: 'sdfg.sdfg' op autodiff wrt name 'q' is not an argument
// INTOUT: error: 'sdfg.sdfg' op autodiff output 'n' must be a float container
// BOGUS: no such option bogus
sdfg.sdfg @f(%x: memref<4xf64> {sdfg.name = "x"},
             %n: memref<4xi64> {sdfg.name = "n"}) {}
