// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-gpu-device-memory | FileCheck %s
// RUN: sdfg-opt %s --sdfg-lower-to-gpu="format=isa" | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.call @mgpuMemAlloc({{.*}}) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// LLVM: llvm.call @mgpuMemcpy({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> ()
// Buffers that only GPU code touches go to device memory: the arguments A
// and S, whose copies in and out become driver copies, and the transients
// T and U. H, whose element 3 decides on the host whether to launch a
// kernel, stays in unified memory. The scalar state runs as a one-thread
// kernel, so S needs no host access either.

// CHECK-LABEL: func.func @place
// CHECK: %[[A:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16x16xf64>
// CHECK-NEXT: gpu.wait [
// CHECK-NEXT: %[[IN:.*]] = gpu.wait async
// CHECK-NEXT: %[[CP:.*]] = gpu.memcpy async [%[[IN]]] %[[A]], %{{.*}} : memref<16x16xf64>, memref<16x16xf64>
// CHECK-NEXT: gpu.wait [%[[CP]]]
// CHECK-DAG: %[[S:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<f64>
// CHECK-DAG: %[[T:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16x16xf64>
// CHECK-DAG: %[[U:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<16x16xf64>
// CHECK-DAG: %[[H:.*]] = gpu.alloc  host_shared () : memref<16xf64>
// CHECK: call @sdfg_gpu_cblas_dgemm
// The host reads H[3] to decide; the kernel inside runs only then.
// CHECK: %[[H3:.*]] = memref.load %[[H]][%{{.*}}] : memref<16xf64>
// CHECK: arith.cmpf ogt, %[[H3]]
// CHECK: scf.if
// CHECK: gpu.launch
// The scalar state: one block of one thread.
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:c1[_0-9]*]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK: memref.load %[[H]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][]
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
  %h = sdfg.load %H[3] : memref<16xf64>
  %c = sdfg.tasklet(%h) : (f64) -> i1 {
  ^bb0(%v: f64):
    %z = arith.constant 0.0 : f64
    %b = arith.cmpf ogt, %v, %z : f64
    sdfg.yield %b : i1
  }
  sdfg.if %c {
    sdfg.state {
      sdfg.map (%i, %j) = (0, 0) to (16, 16) step (1, 1) schedule(cpu_multicore) {
        %u = sdfg.load %U[%i, %j] : memref<16x16xf64>
        sdfg.store %u, %A[%i, %j] : memref<16x16xf64>
      }
    }
  }
  sdfg.state {
    %h0 = sdfg.load %H[0] : memref<16xf64>
    sdfg.store %h0, %S[] : memref<f64>
  }
}
