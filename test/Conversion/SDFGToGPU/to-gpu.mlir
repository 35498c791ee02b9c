// REQUIRES: cuda-toolkit
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu | FileCheck %s
// RUN: sdfg-opt %s --sdfg-gpu-schedule | FileCheck %s --check-prefix=SCHED

// The outermost parallel maps get the GPU schedule; a map nested in one
// keeps its own (it runs sequentially in each thread); a sequential map
// holding a parallel map stays on the host and the parallel map becomes a
// kernel; a sequential map holding none becomes a kernel itself.
// SCHED-LABEL: sdfg.sdfg @step
// SCHED: sdfg.map {{.*}} schedule(gpu_device)
// SCHED: sdfg.map {{.*}} schedule(cpu_multicore)
// SCHED: sdfg.map {{.*}} schedule(sequential)
// SCHED: sdfg.map {{.*}} schedule(gpu_device)
// SCHED-LABEL: sdfg.sdfg @serial
// SCHED: sdfg.map {{.*}} schedule(gpu_device)
// SCHED: sdfg.map {{.*}} schedule(sequential)

// Containers live in unified memory: each argument is copied in at entry
// and back at exit; transients are allocated there too.
// CHECK-LABEL: func.func @step
// CHECK: %[[A:.*]] = gpu.alloc  host_shared () : memref<64x32xf64>
// CHECK: memref.copy %{{.*}}, %[[A]]
// CHECK: %[[T:.*]] = gpu.alloc  host_shared () : memref<64x32xf64>
// One thread per element of the last two dimensions, 32 x 8 per block,
// x on the contiguous one; at most 65535 blocks along y (CUDA's limit),
// each thread looping over the rows a capped grid leaves (grid-stride);
// the loops' bounds idle the excess threads.
// CHECK: %[[GY:.*]] = arith.minsi %{{.*}}, %c65535
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %{{.*}}, %{{.*}} = %[[GY]], %{{.*}} = %{{.*}}) threads(%{{.*}}) in (%{{.*}} = %c32{{.*}}, %{{.*}} = %c8{{.*}}, %{{.*}} = %c1{{.*}})
// CHECK: scf.for
// CHECK: scf.for
// CHECK: math.exp
// The nested map is a loop in each thread whose sum stays in a register;
// it meets memory once, atomically (other threads write the same S[]).
// CHECK: scf.for {{.*}} iter_args
// CHECK: memref.atomic_rmw addf
// CHECK: gpu.terminator
// The sequential map stays a host loop around a 1-d kernel (256 threads).
// CHECK: scf.for
// CHECK: gpu.launch {{.*}} threads(%{{.*}}) in (%{{.*}} = %c256
// Library ops call the cuBLAS-backed runtime.
// CHECK: call @sdfg_gpu_cblas_dgemm
// CHECK: gpu.dealloc async
// CHECK: memref.copy %[[A]], %{{.*}}
// CHECK: gpu.dealloc async
// CHECK: return
sdfg.sdfg @step(%A: memref<64x32xf64>, %S: memref<f64>, %C: memref<64x64xf64>) {
  %T = sdfg.alloc() : memref<64x32xf64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (64, 32) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<64x32xf64>
      %e = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%x: f64):
        %y = math.exp %x : f64
        sdfg.yield %y : f64
      }
      sdfg.store %e, %T[%i, %j] : memref<64x32xf64>
      sdfg.map (%k) = (0) to (4) step (1) schedule(cpu_multicore) {
        sdfg.store %e, %S[] wcr(add) : memref<f64>
      }
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      sdfg.map (%j) = (0) to (32) step (1) schedule(cpu_multicore) {
        %t = sdfg.load %T[%i, %j] : memref<64x32xf64>
        sdfg.store %t, %A[%i, %j] : memref<64x32xf64>
      }
    }
  }
  sdfg.state {
    sdfg.matmul %T, %A -> %C {transpose_b} : memref<64x32xf64>, memref<64x32xf64> -> memref<64x64xf64>
  }
}

sdfg.sdfg @serial(%A: memref<8x4xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
      sdfg.map (%j) = (0) to (4) step (1) schedule(sequential) {
        %a = sdfg.load %A[%i, %j] : memref<8x4xf64>
        sdfg.store %a, %A[%i, %j] wcr(add) : memref<8x4xf64>
      }
    }
  }
}
