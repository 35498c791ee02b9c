// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-emulate-gpu -split-input-file | FileCheck %s
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu --sdfg-emulate-gpu=check-races=false -split-input-file | FileCheck %s --check-prefix=OFF

// Read-write races: thread i reads A[i + 1], which thread i + 1 writes.
// Each load and each write of a buffer the kernel both reads and writes
// folds its thread into a summary (-1 nobody, the thread, -2 several);
// after the launch an element read and written by anything but one and
// the same thread counts a race.
// OFF-NOT: sdfg_emulator_read_races
// CHECK: memref.global @sdfg_emulator_read_races : memref<i64> = dense<0>
// CHECK-LABEL: func.func @shift
// The write-write shadow, then the summaries.
// CHECK: memref.alloc() : memref<257xi64>
// CHECK: %[[READERS:.*]] = memref.alloc() : memref<257xi64>
// CHECK: %[[WRITERS:.*]] = memref.alloc() : memref<257xi64>
// CHECK: memref.store %c-1_i64, %[[READERS]]
// CHECK: memref.store %c-1_i64, %[[WRITERS]]
// CHECK: %[[COUNT:.*]] = memref.get_global @sdfg_emulator_read_races
// CHECK: scf.parallel
// CHECK:   %[[TID:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:   memref.load %{{.*}}[%[[J:.*]]] : memref<257xf64>
// CHECK:   memref.generic_atomic_rmw %[[READERS]][%[[J]]]
// CHECK:     %[[EMPTY:.*]] = arith.cmpi eq, %{{.*}}, %c-1_i64
// CHECK:     %[[MINE:.*]] = arith.cmpi eq, %{{.*}}, %[[TID]]
// CHECK:     %[[KEEP:.*]] = arith.ori %[[EMPTY]], %[[MINE]]
// CHECK:     arith.select %[[KEEP]], %[[TID]], %c-2_i64
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[I:.*]]] : memref<257xf64>
// CHECK:   memref.generic_atomic_rmw %[[WRITERS]][%[[I]]]
// CHECK: scf.reduce
// CHECK: scf.for %[[E:.*]] =
// CHECK:   %[[R:.*]] = memref.load %[[READERS]][%[[E]]]
// CHECK:   %[[W:.*]] = memref.load %[[WRITERS]][%[[E]]]
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addi %c1_i64, %[[COUNT]][]
// CHECK: memref.dealloc %[[READERS]]
// CHECK: memref.dealloc %[[WRITERS]]
sdfg.sdfg @shift(%A: memref<257xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (256) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i + 1] : memref<257xf64>
      sdfg.store %a, %A[%i] : memref<257xf64>
    }
  }
}

// -----

// A buffer only read, or only written, needs no summaries.
// CHECK-LABEL: func.func @copy
// CHECK-NOT: generic_atomic_rmw
// CHECK: return
sdfg.sdfg @copy(%A: memref<256xf64>, %B: memref<256xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (256) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i] : memref<256xf64>
      sdfg.store %a, %B[%i] : memref<256xf64>
    }
  }
}
