// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-std=gpu=true --sdfg-gpu-device-memory | FileCheck %s
// RUN: sdfg-opt %s --sdfg-lower-to-gpu="format=isa" | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.call @mgpuMemAlloc({{.*}}) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// LLVM: llvm.call @mgpuMemcpy({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
// Buffers that only kernels and cuBLAS touch go to device memory: A, an
// argument, whose copies in and out become driver copies, and the
// transients T and U. S, which a host state writes, and H, which it reads,
// stay in unified memory.

// CHECK-LABEL: func.func @place
// CHECK: %[[A:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16x16xf64>
// CHECK-NEXT: gpu.wait [
// CHECK-NEXT: %[[IN:.*]] = gpu.wait async
// CHECK-NEXT: %[[CP:.*]] = gpu.memcpy async [%[[IN]]] %[[A]], %{{.*}} : memref<16x16xf64>, memref<16x16xf64>
// CHECK-NEXT: gpu.wait [%[[CP]]]
// CHECK-DAG: %[[S:.*]] = gpu.alloc  host_shared () : memref<f64>
// Kernel-only, then cuBLAS: device memory.
// CHECK-DAG: %[[T:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16x16xf64>
// CHECK-DAG: %[[U:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16x16xf64>
// Written by a kernel, read by host code (the scalar state): unified.
// CHECK-DAG: %[[H:.*]] = gpu.alloc  host_shared () : memref<16xf64>
// CHECK: call @sdfg_gpu_cblas_dgemm
// CHECK: memref.load %[[H]]
// CHECK: gpu.memcpy async [%{{.*}}] %{{.*}}, %[[A]]
sdfg.sdfg @place(%A: memref<16x16xf64>, %S: memref<f64>) {
  %T = sdfg.alloc() : memref<16x16xf64>
  %U = sdfg.alloc() : memref<16x16xf64>
  %H = sdfg.alloc() : memref<16xf64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (16, 16) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<16x16xf64>
      sdfg.store %a, %T[%i, %j] : memref<16x16xf64>
      sdfg.store %a, %H[%i] wcr(add) : memref<16xf64>
    }
  }
  sdfg.state {
    sdfg.matmul %T, %T -> %U : memref<16x16xf64>, memref<16x16xf64> -> memref<16x16xf64>
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (16, 16) step (1, 1) schedule(cpu_multicore) {
      %u = sdfg.load %U[%i, %j] : memref<16x16xf64>
      sdfg.store %u, %A[%i, %j] : memref<16x16xf64>
    }
  }
  sdfg.state {
    %h = sdfg.load %H[3] : memref<16xf64>
    sdfg.store %h, %S[] : memref<f64>
  }
}
