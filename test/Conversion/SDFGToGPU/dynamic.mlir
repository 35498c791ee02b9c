// REQUIRES: cuda-toolkit
// Dynamic shapes and scalar arguments reach the kernel as parameters; the
// grid is computed from the size at run time. A sum into one element from
// every thread stays an atomic on the GPU (one thread per point).
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu | FileCheck %s
// RUN: sdfg-translate --target=gpu -emit=ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// CHECK-LABEL: func.func @axpy_sum
// CHECK: %[[DIM:.*]] = memref.dim
// CHECK: gpu.alloc  host_shared (%[[DIM]]) : memref<?xf64>
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.subi %[[N]]
// CHECK: %[[TRIP:.*]] = arith.maxsi
// CHECK: arith.ceildivsi %[[TRIP]], %c256
// CHECK: %[[GRID:.*]] = arith.minsi %{{.*}}, %c2147483647
// CHECK: gpu.launch blocks(%{{.*}}, {{.*}}) in (%{{.*}} = %[[GRID]], {{.*}}) threads({{.*}}) in (%[[BDIM:.*]] = %c256
// CHECK:   scf.for %{{.*}} = %{{.*}} to %[[TRIP]] step
// CHECK:   memref.atomic_rmw addf
// PTX: .entry axpy_sum_kernel
// PTX: atom.global.add.f64
sdfg.sdfg @axpy_sum(%X: memref<?xf64>, %Y: memref<?xf64>, %S: memref<f64>, %N: index, %a: f64) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N) step (1) schedule(cpu_multicore) {
      %x = sdfg.load %X[%i] : memref<?xf64>
      %y = sdfg.load %Y[%i] : memref<?xf64>
      %r = sdfg.tasklet(%x, %y, %a) : (f64, f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64, %s: f64):
        %m = arith.mulf %p, %s : f64
        %t = arith.addf %m, %q : f64
        sdfg.yield %t : f64
      }
      sdfg.store %r, %Y[%i] : memref<?xf64>
      sdfg.store %r, %S[] wcr(add) : memref<f64>
    }
  }
}
