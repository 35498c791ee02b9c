// The GPU program on the host: same kernels, atomics, unified-memory
// containers and copies as --target=gpu, with every launch an OpenMP loop
// over its threads and cuBLAS replaced by CBLAS. No CUDA toolkit needed.
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-emulate-gpu | FileCheck %s
// RUN: sdfg-translate --target=gpu-emulator -emit=shared %s -o %t.so
// RUN: llvm-nm -D %t.so | FileCheck %s --check-prefix=SYMS
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-emulate-gpu | FileCheck %s --check-prefix=RACES
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-emulate-gpu=check-races=false | FileCheck %s --check-prefix=NORACES

// Race check: the plain store to T (written from outside the kernel) also
// swaps the thread's number into a shadow of T, filled with -1 before the
// launch; finding another thread's number counts a race.
// RACES: memref.global @sdfg_emulator_races : memref<i64> = dense<0>
// RACES-LABEL: func.func @step
// RACES: %[[SHADOW:.*]] = memref.alloc() : memref<64x32xi64>
// RACES: memref.store %c-1{{.*}}, %[[SHADOW]]
// RACES: scf.parallel
// RACES: memref.store %{{.*}}, %{{.*}}[%[[I:.*]], %[[J:.*]]] : memref<64x32xf64>
// RACES-NEXT: %[[PREV:.*]] = memref.atomic_rmw assign %[[TID:.*]], %[[SHADOW]][%[[I]], %[[J]]]
// RACES-NEXT: %[[SET:.*]] = arith.cmpi ne, %[[PREV]], %c-1
// RACES-NEXT: %[[OTHER:.*]] = arith.cmpi ne, %[[PREV]], %[[TID]]
// RACES-NEXT: %[[RACE:.*]] = arith.andi %[[SET]], %[[OTHER]]
// RACES-NEXT: scf.if %[[RACE]]
// RACES-NEXT: memref.atomic_rmw addi %c1{{.*}}, %{{.*}}[] : (i64, memref<i64>)
// RACES: memref.dealloc %[[SHADOW]]
// NORACES-NOT: sdfg_emulator_races
// NORACES-NOT: assign

// Unified memory becomes host memory, the copies in and out stay.
// CHECK-LABEL: func.func @step
// CHECK: %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x32xf64>
// CHECK: memref.copy %{{.*}}, %[[A]]
// The 2-d launch (32 x 8 threads per block, x on the contiguous dimension):
// one parallel loop over block z, y, x and thread z, y, x.
// Blocks per dimension: at least one, at most CUDA's grid limit
// (2^31 - 1 along x, 65535 along y and z).
// CHECK: arith.maxsi %{{.*}}, %c1
// CHECK: %[[GX:.*]] = arith.minsi %{{.*}}, %c2147483647
// CHECK: arith.maxsi %{{.*}}, %c1
// CHECK: %[[GY:.*]] = arith.minsi %{{.*}}, %c65535
// CHECK: scf.parallel (%[[BZ:.*]], %[[BY:.*]], %[[BX:.*]], %[[TZ:.*]], %[[TY:.*]], %[[TX:.*]]) = ({{.*}}) to (%c1{{.*}}, %[[GY]], %[[GX]], %c1{{.*}}, %c8{{.*}}, %c32{{.*}})
// The kernel body is the GPU one: per dimension a grid-stride loop from
// block * size + thread (its bound idles the excess threads), atomic
// accumulation.
// CHECK: %[[BYS:.*]] = arith.muli %[[BY]], %c8
// CHECK: %[[LY:.*]] = arith.addi %[[BYS]], %[[TY]]
// CHECK: %[[SY:.*]] = arith.muli %[[GY]], %c8
// CHECK: scf.for %{{.*}} = %[[LY]] to %{{.*}} step %[[SY]]
// CHECK: %[[BXS:.*]] = arith.muli %[[BX]], %c32
// CHECK: %[[LX:.*]] = arith.addi %[[BXS]], %[[TX]]
// CHECK: %[[SX:.*]] = arith.muli %[[GX]], %c32
// CHECK: scf.for %{{.*}} = %[[LX]] to %{{.*}} step %[[SX]]
// CHECK: math.exp
// CHECK: memref.atomic_rmw addf
// CHECK: scf.reduce
// The 1-d launch inside the host loop: 256 threads per block.
// CHECK: scf.for
// CHECK: scf.parallel {{.*}} to ({{.*}}, %c256{{.*}})
// Library ops: the CBLAS function with the runtime's signature.
// CHECK: call @cblas_dgemm
// CHECK: memref.dealloc
// CHECK: memref.copy %[[A]], %{{.*}}
// CHECK: memref.dealloc %[[A]]
// CHECK-NOT: gpu.
// CHECK-NOT: sdfg_gpu_

// SYMS-NOT: mgpu
// SYMS: U __kmpc_fork_call
// SYMS: U cblas_dgemm
// SYMS: B sdfg_emulator_races
// SYMS-NOT: mgpu
// SYMS: T step
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
      sdfg.store %e, %S[] wcr(add) : memref<f64>
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
