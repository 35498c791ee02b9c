// RUN: not sdfg-opt %s --sdfg-forward-diff="wrt=y" 2>&1 | FileCheck %s --check-prefix=WRT
// RUN: not sdfg-opt %s --sdfg-forward-diff="outputs=n" 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not sdfg-opt %s --sdfg-forward-diff="of=g" 2>&1 | FileCheck %s --check-prefix=OF
// RUN: sdfg-opt %s --sdfg-forward-diff="suffix=_t" | FileCheck %s --check-prefix=SUFFIX

// WRT: error: 'sdfg.sdfg' op forward mode: wrt name 'y' is not an argument
// OUT: error: 'sdfg.sdfg' op forward mode: output 'n' must be a float container
// OF: error: sdfg-forward-diff: no sdfg.sdfg named 'g' to differentiate
// SUFFIX: sdfg.sdfg @f_t(
sdfg.sdfg @f(%x: memref<3xf64> {sdfg.name = "x"},
             %n: memref<i64> {sdfg.name = "n"},
             %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.copy %x[0 : 3] to %__return0[0 : 3] : memref<3xf64> to memref<3xf64>
  }
}
