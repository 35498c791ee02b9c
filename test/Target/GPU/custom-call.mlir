// RUN: not sdfg-translate %s --target=gpu -o /dev/null 2>&1 | FileCheck %s

// The GPU lowering has no device-side call of another program: a located
// error, not a crash or a host call between kernels on device memory.
// CHECK: custom-call.mlir:[[# @LINE + 5]]:5: error: 'sdfg.custom_call' op is not supported on the GPU
sdfg.sdfg @callee(%x: memref<3xf64>, %y: memref<3xf64>) {}
sdfg.sdfg @caller(%x: memref<3xf64> {sdfg.name = "x"},
                  %__return0: memref<3xf64> {sdfg.name = "__return0"}) {
  sdfg.state {
    sdfg.custom_call @callee(%x) -> %__return0 : (memref<3xf64>) -> memref<3xf64>
  }
}
