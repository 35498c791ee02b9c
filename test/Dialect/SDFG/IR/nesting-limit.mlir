// RUN: %python -c "print('sdfg.sdfg @deep(%%x: memref<4xf64>) {' + ''.join('sdfg.loop %%i' + str(k) + ' = 0 to 2 step 1 {\n' for k in range(5000)) + '}' * 5001)" > %t.mlir
// RUN: not sdfg-opt %t.mlir 2>&1 | FileCheck %s
// RUN: not sdfg-opt %t.mlir --sdfg-autodiff 2>&1 | FileCheck %s
// RUN: not sdfg-translate %t.mlir -o %t.ll 2>&1 | FileCheck %s
// RUN: cat %t.mlir | not sdfg-opt 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: %python -c "print('sdfg.sdfg @deep(%%x: memref<4xf64>) {' + ''.join('sdfg.loop %%i' + str(k) + ' = 0 to 2 step 1 {\n' for k in range(400)) + '}' * 401)" | sdfg-opt | FileCheck %s --check-prefix=OK

// 5,000 nested loops overflowed the tools' stack in the parser (upstream
// mlir-opt does too). The input's nesting is checked before parsing: a
// located error at the first brace past the limit, and exit status 1.
// CHECK: nesting-limit.mlir.tmp.mlir:500:33: error: nesting deeper than 500 levels (regions, lists, types) is not supported
// STDIN: <stdin>:500:33: error: nesting deeper than 500 levels
// Below the limit, the whole nest is parsed and printed.
// OK: sdfg.loop %arg400 = 0 to 2 step 1
