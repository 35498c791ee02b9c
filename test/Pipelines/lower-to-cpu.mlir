// RUN: sdfg-opt %s --sdfg-lower-to-cpu | FileCheck %s
// The whole pipeline reaches the LLVM dialect: no sdfg, scf, memref or
// arith op is left, and the parallel map is an OpenMP parallel region in
// which each thread computes its share (sdfg-partition-worksharing-loops).

// CHECK-LABEL: llvm.func @stencil(
// CHECK: omp.parallel
// CHECK: llvm.call @omp_get_thread_num()
// CHECK: llvm.call @omp_get_num_threads()
// CHECK: llvm.intr.exp
// CHECK: llvm.call @erf
// CHECK-NOT: sdfg.
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK-NOT: arith.
sdfg.sdfg @stencil(%A: memref<?xf64>, %B: memref<?xf64>, %N: index) {
  sdfg.state {
    sdfg.map (%i) = (1) to (%N - 1) step (1) schedule(cpu_multicore) {
      %l = sdfg.load %A[%i - 1] : memref<?xf64>
      %r = sdfg.load %A[%i + 1] : memref<?xf64>
      %o = sdfg.tasklet(%l, %r) : (f64, f64) -> f64 {
      ^bb0(%x: f64, %y: f64):
        %e = math.exp %x : f64
        %t = math.erf %y : f64
        %s = arith.addf %e, %t : f64
        sdfg.yield %s : f64
      }
      sdfg.store %o, %B[%i] : memref<?xf64>
    }
  }
}
