// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu | FileCheck %s
// RUN: sdfg-opt %s --convert-sdfg-to-scf | FileCheck %s --check-prefix=CPU
// Which WCR writes of a kernel need atomics: every thread is one point of
// the map, so a write is plain only when the thread parameters select
// distinct elements. disjoint_wcr (the autodiff's colour sweeps) vouches
// for the first parameter alone: the CPU splits only that one across
// threads, the GPU splits all of them.

// CHECK-LABEL: func.func @sweep
// CHECK: gpu.launch
// T[i, j]: one thread per element, a plain read-modify-write.
// CHECK: memref.load %{{.*}}[%[[I:.*]], %[[J:.*]]]
// CHECK-NEXT: %[[OLD:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]]
// CHECK-NEXT: memref.store %[[NEW]], %{{.*}}[%[[I]], %[[J]]]
// R[i]: the threads of row i (all j) meet; disjoint_wcr says nothing of
// them.
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[I]]]
// CHECK: gpu.terminator
sdfg.sdfg @sweep(%A: memref<8x100xf64>, %T: memref<8x100xf64>, %R: memref<8xf64>) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (8, 100) step (1, 1) schedule(gpu_device) attributes {disjoint_wcr} {
      %a = sdfg.load %A[%i, %j] : memref<8x100xf64>
      sdfg.store %a, %T[%i, %j] wcr(add) : memref<8x100xf64>
      sdfg.store %a, %R[%i] wcr(add) : memref<8xf64>
    }
  }
}

// Without disjoint_wcr, a write indexed by the first parameter alone is
// atomic in a 1-d kernel too; one indexed by the parameter is not.
// CHECK-LABEL: func.func @rows
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%[[K:.*]]]
// CHECK-NEXT: %[[OLD:.*]] = memref.load %{{.*}}[%[[K]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]]
// CHECK-NEXT: memref.store %[[NEW]], %{{.*}}[%[[K]]]
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[]
// CHECK: gpu.terminator
sdfg.sdfg @rows(%A: memref<64xf64>, %B: memref<64xf64>, %S: memref<f64>) {
  sdfg.state {
    sdfg.map (%k) = (0) to (64) step (1) schedule(gpu_device) {
      %a = sdfg.load %A[%k] : memref<64xf64>
      sdfg.store %a, %B[%k] wcr(add) : memref<64xf64>
      sdfg.store %a, %S[] wcr(add) : memref<f64>
    }
  }
}

// Each write alone is `param + constant`, but two offsets of one container
// meet across threads (a stencil's reversal): atomic on the GPU, and on
// the CPU, whose threads split the same parameter.
// CHECK-LABEL: func.func @stencil
// CHECK: gpu.launch
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[P:.*]]]
// CHECK: %[[P1:.*]] = arith.addi %[[P]], %c1
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[P1]]]
// CHECK: gpu.terminator
// CPU-LABEL: func.func @stencil
// CPU: scf.parallel
// CPU-COUNT-2: memref.atomic_rmw addf
sdfg.sdfg @stencil(%A: memref<16384xf64>, %X: memref<16385xf64>) {
  sdfg.state {
    sdfg.map (%k) = (0) to (16384) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%k] : memref<16384xf64>
      sdfg.store %a, %X[%k] wcr(add) : memref<16385xf64>
      sdfg.store %a, %X[%k + 1] wcr(add) : memref<16385xf64>
    }
  }
}
