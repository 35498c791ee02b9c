// RUN: sdfg-opt %s --sdfg-emulate-gpu -split-input-file -verify-diagnostics

// Threads of a block that must meet have no host equivalent here.
func.func @barrier(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{'gpu.barrier' op cannot be emulated on the host}}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

func.func @shared(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' op cannot be emulated: clusters, shared or private memory attributions}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<32xf32, #gpu.address_space<workgroup>>) {
    gpu.terminator
  }
  return
}

// -----

func.func @async_launch(%n: index) {
  %c1 = arith.constant 1 : index
  %t = gpu.wait async
  // expected-error @+1 {{'gpu.launch' op cannot be emulated: asynchronous launch}}
  %d = gpu.launch async [%t] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  gpu.wait [%d]
  return
}

// -----

func.func @memset(%m: memref<4xf32>) {
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{'gpu.memset' op cannot be emulated on the host}}
  gpu.memset %m, %z : memref<4xf32>, f32
  return
}

// -----

// expected-error @+1 {{sdfg-emulate-gpu runs before gpu-kernel-outlining}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
