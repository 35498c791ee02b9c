// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-gpu-device-memory | FileCheck %s
// RUN: sdfg-translate --target=gpu-emulator -emit=shared %s -o %t.so
// RUN: llvm-nm -D %t.so | FileCheck %s --check-prefix=SYMS

// LAPACK runs on the host, between the kernels (launches are synchronous),
// on the containers in unified memory: what it reads or writes stays
// there (host code touches it), kernel-only buffers move to the device.
// SYMS: sdfg_linalg_error
// CHECK-LABEL: func.func @implicit_step
// M, read by the kernel alone, lives in device memory.
// CHECK: gpu.alloc async [%{{.*}}] () : memref<4x4xf64>
// CHECK: %[[A:.*]] = gpu.alloc host_shared () : memref<4x4xf64>
// The kernel that builds A (2-d: 32 x 8 threads).
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: gpu.terminator
// CHECK: %[[X:.*]] = gpu.alloc host_shared () : memref<4xf64>
// The factorisation cache compares A with its copy (getrf on a miss),
// then getrs, all from the host.
// CHECK-NOT: gpu.launch
// CHECK: call @memcmp(
// CHECK-NOT: gpu.launch
// CHECK: call @dgetrf_(
// CHECK-NOT: gpu.launch
// CHECK: call @dgetrs_(
// CHECK-NOT: gpu.launch
// CHECK: memref.store %{{.*}}, %[[X]]
// The kernel that reads the solution.
// CHECK: gpu.launch
// CHECK: memref.load %[[X]]
// CHECK: gpu.terminator
// The determinant finds A's factors in the same cache.
// CHECK: call @memcmp(
// CHECK: return
sdfg.sdfg @implicit_step(%M: memref<4x4xf64>, %b: memref<4xf64>, %y: memref<4xf64>, %d: memref<f64>) {
  %A = sdfg.alloc() : memref<4x4xf64>
  %x = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(cpu_multicore) {
      %m = sdfg.load %M[%i, %j] : memref<4x4xf64>
      %a = sdfg.tasklet(%m, %i, %j) : (f64, index, index) -> f64 {
      ^bb0(%v: f64, %r: index, %c: index):
        %same = arith.cmpi eq, %r, %c : index
        %one = arith.constant 1.0 : f64
        %zero = arith.constant 0.0 : f64
        %e = arith.select %same, %one, %zero : f64
        %s = arith.addf %e, %v : f64
        sdfg.yield %s : f64
      }
      sdfg.store %a, %A[%i, %j] : memref<4x4xf64>
    }
  }
  sdfg.state {
    sdfg.solve %A, %b -> %x : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(cpu_multicore) {
      %v = sdfg.load %x[%i] : memref<4xf64>
      %w = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%p: f64):
        %q = arith.mulf %p, %p : f64
        sdfg.yield %q : f64
      }
      sdfg.store %w, %y[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.det det %A -> %d : memref<4x4xf64> -> memref<f64>
  }
}
