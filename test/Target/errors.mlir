// Bad input, bad options and failing pipelines end in a located diagnostic
// and a non-zero exit, never a crash.
// RUN: not sdfg-translate %s 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not sdfg-opt %s 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not sdfg-translate %s -emit=bogus 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not sdfg-translate %s -emit=shared 2>&1 | FileCheck %s --check-prefix=NOOUT
// RUN: not sdfg-translate %s -O7 2>&1 | FileCheck %s --check-prefix=OLEVEL
// RUN: not sdfg-translate %s.missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not sdfg-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not sdfg-translate --no-lower %s 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not sdfg-translate %s --mcpu=bogus 2>&1 | FileCheck %s --check-prefix=MCPU

// MCPU: sdfg-translate: error: --mcpu: 'bogus' is not a processor of x86_64
// VERIFY: errors.mlir:[[# @LINE + 8]]:10: error: 'sdfg.load' op index 5 is out of bounds for dimension 0 of extent 4
// OPT: for the --emit option: Cannot find option named 'bogus'
// NOOUT: sdfg-translate: error: -emit=obj and -emit=shared need an output file (-o)
// OLEVEL: sdfg-translate: error: -O must be 0, 1, 2 or 3
// MISSING: sdfg-translate: error: cannot open input file '{{.*}}errors.mlir.missing'
// PASS: Unknown command line argument '--no-such-pass'
sdfg.sdfg @oob(%A: memref<4xf64>) {
  sdfg.state {
    %v = sdfg.load %A[5] : memref<4xf64>
  }
}
