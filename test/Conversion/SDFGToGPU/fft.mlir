// REQUIRES: cuda-toolkit
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-gpu-device-memory | FileCheck %s
// RUN: sdfg-translate --target=gpu -emit=ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin

// fft on the GPU target runs as argsort does: on the host between the
// kernels (launches are synchronous), one line after another, on
// containers in unified memory; its twiddles and scratch are host
// allocations.
// CHECK-LABEL: func.func @spectrum
// CHECK: %[[IN:.*]] = gpu.alloc host_shared () : memref<4x256x2xf64>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[IN]]
// CHECK: gpu.terminator
// CHECK: %[[OUT:.*]] = gpu.alloc host_shared () : memref<4x256x2xf64>
// CHECK-NOT: gpu.launch
// CHECK-NOT: scf.parallel
// CHECK: memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: math.cos
// CHECK: scf.for
// CHECK: memref.load %[[IN]]
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.launch
// CHECK: memref.load %[[OUT]]
// CHECK: gpu.terminator
sdfg.sdfg @spectrum(%x: memref<4x256x2xf64>, %y: memref<4x256x2xf64>) {
  %k = sdfg.alloc() : memref<4x256x2xf64>
  %p = sdfg.alloc() : memref<4x256x2xf64>
  sdfg.state {
    sdfg.map (%i, %j, %c) = (0, 0, 0) to (4, 256, 2) step (1, 1, 1) schedule(cpu_multicore) {
      %v = sdfg.load %x[%i, %j, %c] : memref<4x256x2xf64>
      %w = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %m = arith.mulf %a, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %w, %k[%i, %j, %c] : memref<4x256x2xf64>
    }
  }
  sdfg.state {
    sdfg.fft %k axis 1 -> %p : memref<4x256x2xf64> -> memref<4x256x2xf64>
  }
  sdfg.state {
    sdfg.map (%i, %j, %c) = (0, 0, 0) to (4, 256, 2) step (1, 1, 1) schedule(cpu_multicore) {
      %v = sdfg.load %p[%i, %j, %c] : memref<4x256x2xf64>
      sdfg.store %v, %y[%i, %j, %c] : memref<4x256x2xf64>
    }
  }
}
