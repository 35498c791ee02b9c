// Bounds checks of data-derived indices in GPU kernels. A kernel cannot
// write the host's exported record, so the program keeps a second one in
// unified memory: cleared by the host at entry, claimed by the first
// failing thread with a compare-and-swap on its line field, and handed to
// the host's report (sdfg_index_error) at exit.
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu -split-input-file | FileCheck %s
// RUN: sdfg-opt %s --sdfg-gpu-schedule --convert-sdfg-to-gpu=check-indices=false -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: sdfg-opt %s --sdfg-lower-to-gpu-emulator -split-input-file | FileCheck %s --check-prefix=EMU
// RUN: sdfg-opt %s --sdfg-lower-to-gpu-emulator=check-indices=false -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: sdfg-translate --target=gpu-emulator -emit=shared %s -o %t.so
// RUN: llvm-nm -D %t.so | FileCheck %s --check-prefix=SYMS
// RUN: sdfg-translate --target=gpu-emulator --check-indices=false -emit=shared %s -o %t.off.so
// RUN: llvm-nm -D %t.off.so | FileCheck %s --check-prefix=SYMS-OFF

// SYMS: sdfg_index_error
// SYMS-OFF-NOT: sdfg_index_error
// OFF-NOT: cmpxchg
// OFF-NOT: sdfg_index_error
// EMU: llvm.mlir.global external @sdfg_index_error(dense<0> : tensor<4xi64>)
// EMU: llvm.cmpxchg

// A gather kernel: each thread compares its index with the extent; a
// failing thread skips the read (zero) and claims the record.
// CHECK-LABEL: func.func @gather
// CHECK: %[[REC:.*]] = gpu.alloc host_shared () : memref<4xi64>
// CHECK: memref.store %c0_i64, %[[REC]][%c0]
// CHECK: gpu.launch
// CHECK:   %[[J:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:   %[[OK:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK:   scf.if %[[OK]] -> (f64) {
// CHECK:     memref.load %{{.*}}[%[[J]]] : memref<5xf64>
// CHECK:   } else {
// CHECK:     %[[LINE:.*]] = arith.constant [[#@LINE+26]] : i64
// CHECK:     %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[REC]]
// CHECK:     %[[CAS:.*]] = llvm.cmpxchg %{{.*}}, %{{.*}}, %[[LINE]] acq_rel monotonic
// CHECK:     %[[WON:.*]] = llvm.extractvalue %[[CAS]][1]
// CHECK:     scf.if %[[WON]] {
// CHECK:       memref.store %{{.*}}, %[[REC]][%c1
// CHECK:       memref.store %{{.*}}, %[[REC]][%c2
// CHECK:       memref.store %{{.*}}, %[[REC]][%c3
// CHECK:   gpu.terminator
// After the kernels (launches are synchronous): the host reads the record
// and reports a failure through the CPU's report function, then frees it.
// CHECK: %[[SEEN:.*]] = memref.load %[[REC]][%{{.*}}] : memref<4xi64>
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[SEEN]]
// CHECK: scf.if %[[FAILED]] {
// CHECK:   call @__sdfg_report_index_error(
// CHECK: gpu.dealloc async [%{{.*}}] %[[REC]] : memref<4xi64>
// CHECK: return
sdfg.sdfg @gather(%x: memref<5xf64>, %idx: memref<8xi64>, %y: memref<8xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(cpu_multicore) {
      %l = sdfg.load %idx[%i] : memref<8xi64>
      %j = sdfg.tasklet(%l) : (i64) -> index {
      ^bb0(%a: i64):
        %c = arith.index_cast %a : i64 to index
        sdfg.yield %c : index
      }
      %v = sdfg.load %x[%j] : memref<5xf64>
      sdfg.store %v, %y[%i] : memref<8xf64>
    }
  }
}

// -----

// A loop with a data bound runs in a one-thread kernel; its pre-check
// (first and last iterate) reports from the kernel too.
// CHECK-LABEL: func.func @csr_tail
// CHECK: %[[REC:.*]] = gpu.alloc host_shared () : memref<4xi64>
// CHECK: gpu.launch
// CHECK:   %[[EMPTY:.*]] = arith.cmpi slt
// CHECK:   %[[RANGE:.*]] = arith.ori %[[EMPTY]]
// CHECK:   %[[OK:.*]] = arith.andi %[[RANGE]], %{{.*}}
// CHECK:   scf.if %[[OK]] {
// CHECK:     scf.for
// CHECK:   } else {
// CHECK:     arith.constant [[#@LINE+13]] : i64
// CHECK:     llvm.cmpxchg
// CHECK:   gpu.terminator
// CHECK: call @__sdfg_report_index_error(
sdfg.sdfg @csr_tail(%ptr: memref<2xi64>, %v: memref<6xf64>, %y: memref<6xf64>) {
  %l0 = sdfg.load %ptr[0] : memref<2xi64>
  %lo = sdfg.tasklet(%l0) : (i64) -> index {
  ^bb0(%a0: i64):
    %c0 = arith.index_cast %a0 : i64 to index
    sdfg.yield %c0 : index
  }
  sdfg.loop %k = %lo to 6 step 1 {
    sdfg.state {
      %e = sdfg.load %v[%k] : memref<6xf64>
      sdfg.store %e, %y[%k] : memref<6xf64>
    }
  }
}
