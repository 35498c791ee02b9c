// RUN: sdfg-opt %s --convert-sdfg-to-scf -split-input-file | FileCheck %s
// RUN: sdfg-opt %s --convert-sdfg-to-scf=check-indices=false -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: sdfg-opt %s --sdfg-lower-to-cpu -split-input-file | FileCheck %s --check-prefix=LLVM
// RUN: sdfg-opt %s --sdfg-lower-to-cpu=check-indices=false -split-input-file | FileCheck %s --check-prefix=LLVM-OFF
// RUN: sdfg-translate %s -o - | FileCheck %s --check-prefix=IR
// RUN: sdfg-translate --check-indices=false %s -o - | FileCheck %s --check-prefix=IR-OFF

// The record is an exported global the caller reads after the call,
// thread-local in the compiled program (calls from several threads keep
// their own errors).
// LLVM: llvm.mlir.global external @sdfg_index_error(dense<0> : tensor<4xi64>)
// LLVM: llvm.func @__sdfg_report_index_error({{.*}}) attributes {passthrough = ["noinline", "cold"]
// LLVM-OFF-NOT: sdfg_index_error
// IR: @sdfg_index_error = thread_local global [4 x i64] zeroinitializer
// IR: define void @gather(
// IR: call {{.*}}void @__sdfg_report_index_error(
// IR-OFF-NOT: sdfg_index_error

// A gather in sequential code: the index read from data is compared with
// the extent (unsigned: a negative one fails too); a failing access is
// skipped (the load yields 0) and the first failure kept in a stack slot,
// reported once at the exit. The trusted accesses (iterator, constant
// offset) are not checked.
// CHECK-LABEL: func.func @gather
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<4xi64>
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[IDX:.*]] = memref.load %{{.*}}[%[[I]]] : memref<8xi64>
// CHECK: %[[J:.*]] = arith.index_cast
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK: %[[V:.*]] = scf.if %[[OK]] -> (f64) {
// CHECK:   %[[X:.*]] = memref.load %{{.*}}[%[[J]]] : memref<5xf64>
// CHECK:   scf.yield %[[X]]
// CHECK: } else {
// CHECK:   memref.load %[[SLOT]][%{{.*}}]
// CHECK:   scf.if
// CHECK:     memref.store %{{.*}}, %[[SLOT]]
// CHECK:   scf.yield %cst
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]]] : memref<8xf64>
// CHECK: %[[SEEN:.*]] = memref.load %[[SLOT]][%{{.*}}]
// CHECK: %[[FAILED:.*]] = arith.cmpi ne, %[[SEEN]]
// CHECK: scf.if %[[FAILED]] {
// CHECK:   call @__sdfg_report_index_error(
// CHECK: return
// The report claims the record it is given for the first failure: at the
// exit, the exported one.
// CHECK: func.func private @__sdfg_report_index_error(%[[REC:.*]]: memref<4xi64>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {passthrough = ["noinline", "cold"]}
// CHECK: memref.generic_atomic_rmw %[[REC]]
// OFF-LABEL: func.func @gather
// OFF-NOT: scf.if
// OFF-NOT: __sdfg_report_index_error
// OFF: return
sdfg.sdfg @gather(%x: memref<5xf64>, %idx: memref<8xi64>, %y: memref<8xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
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

// In a parallel map the report is called where the check fails, claiming
// the call's stack slot atomically (the threads share it; the exported
// record is the calling thread's), here for a scatter with wcr; only the
// data-derived dimension (the row) is checked.
// CHECK-LABEL: func.func @scatter
// CHECK: %[[SLOT:.*]] = memref.alloca() : memref<4xi64>
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: %[[R:.*]] = arith.index_cast
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[R]], %{{.*}} : index
// CHECK-NOT: arith.cmpi ult
// CHECK: scf.if %[[OK]] {
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[R]], %{{.*}}] : memref<4x6xf64>
// CHECK: } else {
// CHECK:   %[[LINE:.*]] = arith.constant [[#@LINE+15]] : i64
// CHECK:   call @__sdfg_report_index_error(%[[SLOT]], %[[LINE]], %{{.*}}, %c0_i64{{.*}}, %{{.*}})
// CHECK: scf.reduce
// CHECK: memref.get_global @sdfg_index_error
// CHECK: call @__sdfg_report_index_error(
sdfg.sdfg @scatter(%x: memref<3000xf64>, %rows: memref<3000xi64>, %y: memref<4x6xf64>) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (3000, 6) step (1, 1) schedule(cpu_multicore) {
      %l = sdfg.load %rows[%i] : memref<3000xi64>
      %r = sdfg.tasklet(%l) : (i64) -> index {
      ^bb0(%a: i64):
        %c = arith.index_cast %a : i64 to index
        sdfg.yield %c : index
      }
      %v = sdfg.load %x[%i] : memref<3000xf64>
      sdfg.store %v, %y[%r, %j] wcr(add) : memref<4x6xf64>
    }
  }
}

// -----

// A loop whose bounds are read from data makes its iterator data too: the
// accesses each iteration makes at the iterator plus a constant are
// checked once, before the loop (first and last iterate), which does not
// run if one fails (the report names the access's line). A copy from a
// data-dependent row checks that row, and a range starting at data checks
// its first and last element.
// CHECK-LABEL: func.func @csr_row
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi
// CHECK: arith.cmpi slt, %[[TRIPS]]
// CHECK-COUNT-4: arith.cmpi ult
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NOT: arith.cmpi
// CHECK: memref.load %{{.*}}[%[[K]]] : memref<6xf64>
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[K]]] : memref<6xf64>
// CHECK: } else {
// CHECK-DAG: arith.constant [[#@LINE+27]] : i64
// CHECK-DAG: arith.constant [[#@LINE+27]] : i64
// CHECK: %[[ROW:.*]] = arith.cmpi ult
// CHECK: scf.if %[[ROW]] {
// CHECK:   scf.for
// CHECK: } else {
// CHECK:   arith.constant [[#@LINE+26]] : i64
// CHECK: %[[N:.*]] = arith.ceildivsi
// CHECK: %[[EMPTY:.*]] = arith.cmpi slt, %[[N]]
// CHECK: %[[FIRST:.*]] = arith.cmpi ult
// CHECK: %[[LAST:.*]] = arith.cmpi ult
// CHECK: %[[BOTH:.*]] = arith.andi %[[FIRST]], %[[LAST]]
// CHECK: %[[OK:.*]] = arith.ori %[[EMPTY]], %[[BOTH]]
// CHECK: scf.if %[[OK]] {
// CHECK:   scf.for
// CHECK: } else {
// CHECK:   memref.store %{{.*}}, %alloca
// CHECK: call @__sdfg_report_index_error
sdfg.sdfg @csr_row(%ptr: memref<2xi64>, %v: memref<6xf64>, %y: memref<6xf64>, %M: memref<3x4xf64>, %z: memref<4xf64>, %w: memref<10xf64>, %u: memref<3xf64>) {
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
  sdfg.state {
    sdfg.copy %M[%lo, 0 : 4] to %z[0 : 4] : memref<3x4xf64> to memref<4xf64>
    sdfg.copy %w[%lo : %lo + 3] to %u[0 : 3] : memref<10xf64> to memref<3xf64>
  }
}

// -----

// Extents known only at run time broadcast as NumPy's do; a pair that
// does not (NumPy's ValueError) is reported in the same record, axis -1
// for operands and -2 for an assignment, the extents in the index and
// extent fields, and yields the smaller extent so the map that it sizes
// stays inside both arrays. With checks off only the extent remains.
// CHECK-LABEL: func.func @window_extents
// CHECK: %[[A:.*]] = arith.index_cast %arg2 : i64 to index
// CHECK: %[[B:.*]] = arith.index_cast %arg3 : i64 to index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[A]], %[[B]]
// CHECK: %[[LONE:.*]] = arith.cmpi eq, %[[A]], %[[ONE]]
// CHECK: %[[OK0:.*]] = arith.ori %[[EQ]], %[[LONE]]
// CHECK: %[[RONE:.*]] = arith.cmpi eq, %[[B]], %[[ONE]]
// CHECK: %[[OK:.*]] = arith.ori %[[OK0]], %[[RONE]]
// CHECK: %[[BC:.*]] = arith.select %[[RONE]], %[[A]], %[[B]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[A]], %[[B]]
// CHECK: %[[N:.*]] = arith.select %[[OK]], %[[BC]], %[[MIN]]
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %true
// CHECK: scf.if %[[BAD]] {
// CHECK:   %[[AX:.*]] = arith.constant -1 : i64
// CHECK:   arith.constant [[#@LINE+25]] : i64
// CHECK:   memref.store %{{.*}}, %alloca
// CHECK: }
// The assignment: valid when equal or the source is 1; the result is the
// destination's extent.
// CHECK: %[[EQ2:.*]] = arith.cmpi eq, %[[A]], %[[N]]
// CHECK: %[[SONE:.*]] = arith.cmpi eq, %[[A]], %{{.*}}
// CHECK: %[[OK2:.*]] = arith.ori %[[EQ2]], %[[SONE]]
// CHECK-NOT: arith.cmpi
// CHECK: %[[MIN2:.*]] = arith.minsi %[[A]], %[[N]]
// CHECK: %[[M:.*]] = arith.select %[[OK2]], %[[N]], %[[MIN2]]
// CHECK: scf.if
// CHECK:   arith.constant -2 : i64
// The extents come from the arguments: the accesses they bound are not
// checked.
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[M]]
// CHECK-NOT: memref.dim
// CHECK: call @__sdfg_report_index_error
// OFF-LABEL: func.func @window_extents
// OFF-NOT: scf.if
// OFF: arith.select
// OFF: arith.select
// OFF-NOT: scf.if
// OFF: scf.for
sdfg.sdfg @window_extents(%x: memref<10xf64>, %y: memref<10xf64>, %a: index, %b: index) {
  %n = sdfg.broadcast_extent operands %a, %b
  %m = sdfg.broadcast_extent assign %a, %n
  sdfg.state {
    sdfg.map (%p) = (0) to (%m) step (1) schedule(sequential) {
      %v = sdfg.load %x[%p] : memref<10xf64>
      sdfg.store %v, %y[%p] : memref<10xf64>
    }
  }
}

// -----

// An index checked against a view's extent (a window of 3 at offset 2):
// outside [0, 3) it is reported with the view's axis and extent, and the
// access it indexes is still checked against the container (the index is
// not trusted), so one outside the container is skipped.
// CHECK-LABEL: func.func @window_index
// CHECK: %[[I:.*]] = arith.index_cast %arg1 : i64 to index
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[I]], %c3
// CHECK: %[[BAD:.*]] = arith.xori %[[OK]], %true
// CHECK: scf.if %[[BAD]] {
// CHECK:   arith.constant 0 : i64
// CHECK:   arith.constant [[#@LINE+14]] : i64
// CHECK: }
// CHECK: %[[J:.*]] = arith.addi %[[I]], %c2
// CHECK: arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK: scf.if
// CHECK:   memref.load %{{.*}}[%[[J]]] : memref<10xf64>
// OFF-LABEL: func.func @window_index
// OFF-NOT: scf.if
// OFF: memref.load
sdfg.sdfg @window_index(%x: memref<10xf64>, %i: index, %y: memref<f64>) {
  %three = sdfg.tasklet() : () -> index {
    %c = arith.constant 3 : index
    sdfg.yield %c : index
  }
  %k = sdfg.check_index %i, %three axis 0
  sdfg.state {
    %v = sdfg.load %x[%k + 2] : memref<10xf64>
    sdfg.store %v, %y[] : memref<f64>
  }
}

// -----

// Extents of arguments (sdfg.dim) and index arithmetic on them before the
// first state are shapes, as static extents are: a loop over them and a
// map over `n - 2` are trusted (the frontend proved the accesses inside
// for every size), so no access is checked.
// CHECK-LABEL: func.func @symbolic_stencil
// CHECK-NOT: scf.if
// CHECK: return
// OFF-LABEL: func.func @symbolic_stencil
sdfg.sdfg @symbolic_stencil(%a: memref<?xf64>, %b: memref<?xf64>) {
  %n = sdfg.dim %a, 0 : memref<?xf64>
  %m = sdfg.tasklet(%n) : (index) -> index {
  ^bb0(%x: index):
    %c = arith.constant -2 : index
    %r = arith.addi %x, %c : index
    sdfg.yield %r : index
  }
  sdfg.state {
    sdfg.map (%p) = (0) to (%m) step (1) schedule(sequential) {
      %l = sdfg.load %a[%p] : memref<?xf64>
      %r = sdfg.load %a[%p + 2] : memref<?xf64>
      %t = sdfg.tasklet(%l, %r) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %s = arith.addf %u, %v : f64
        sdfg.yield %s : f64
      }
      sdfg.store %t, %b[%p + 1] : memref<?xf64>
    }
  }
}
