// RUN: sdfg-opt %s --split-input-file --sdfg-partition-worksharing-loops | FileCheck %s

// The worksharing loop of a region that does nothing else: thread t of n
// runs [lb + t*c*step, lb + min((t+1)*c, trips)*step) with c = ceil(trips
// / n), trips = max(0, ceil((ub - lb) / step)); its body (the alloca scope
// convert-scf-to-openmp wraps it in) runs in an scf.execute_region.

// CHECK: func.func private @omp_get_num_threads() -> i32
// CHECK: func.func private @omp_get_thread_num() -> i32
// CHECK-LABEL: func.func @share(
// CHECK-SAME: %[[A:.*]]: memref<?xf64>, %[[LB:.*]]: index, %[[UB:.*]]: index, %[[STEP:.*]]: index
// CHECK: omp.parallel {
// CHECK-NOT: omp.wsloop
// CHECK: %[[T32:.*]] = func.call @omp_get_thread_num() : () -> i32
// CHECK: %[[T:.*]] = arith.index_cast %[[T32]] : i32 to index
// CHECK: %[[N32:.*]] = func.call @omp_get_num_threads() : () -> i32
// CHECK: %[[N:.*]] = arith.index_cast %[[N32]] : i32 to index
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]] : index
// CHECK: %[[Q:.*]] = arith.ceildivsi %[[SPAN]], %[[STEP]] : index
// CHECK: %[[TRIPS:.*]] = arith.maxsi %[[ZERO]], %[[Q]] : index
// CHECK: %[[C:.*]] = arith.ceildivsi %[[TRIPS]], %[[N]] : index
// CHECK: %[[TC:.*]] = arith.muli %[[T]], %[[C]] : index
// CHECK: %[[FIRST:.*]] = arith.minsi %[[TC]], %[[TRIPS]] : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[FIRST]], %[[C]] : index
// CHECK: %[[LAST:.*]] = arith.minsi %[[NEXT]], %[[TRIPS]] : index
// CHECK: %[[O1:.*]] = arith.muli %[[FIRST]], %[[STEP]] : index
// CHECK: %[[B1:.*]] = arith.addi %[[LB]], %[[O1]] : index
// CHECK: %[[O2:.*]] = arith.muli %[[LAST]], %[[STEP]] : index
// CHECK: %[[B2:.*]] = arith.addi %[[LB]], %[[O2]] : index
// CHECK: scf.for %[[I:.*]] = %[[B1]] to %[[B2]] step %[[STEP]] {
// CHECK-NEXT: scf.execute_region {
// CHECK-NEXT: memref.alloca_scope {
// CHECK-NEXT: memref.load %[[A]][%[[I]]]
// CHECK: scf.yield
// CHECK: omp.terminator
func.func @share(%a: memref<?xf64>, %lb: index, %ub: index, %step: index) {
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%lb) to (%ub) step (%step) {
        memref.alloca_scope {
          %v = memref.load %a[%i] : memref<?xf64>
          %w = arith.addf %v, %v : f64
          memref.store %w, %a[%i] : memref<?xf64>
        }
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// Left to the runtime: a schedule someone chose, more work in the region
// than the loop (its end barrier orders them), two dimensions.

// CHECK-NOT: omp_get_thread_num
// CHECK-LABEL: func.func @kept(
// CHECK: omp.wsloop schedule(dynamic)
// CHECK: omp.wsloop {
// CHECK: omp.barrier
// CHECK: omp.wsloop {
// CHECK-NEXT: omp.loop_nest (%{{.*}}, %{{.*}})
func.func @kept(%a: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f64
  omp.parallel {
    omp.wsloop schedule(dynamic) {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %x, %a[%i] : memref<?xf64>
        omp.yield
      }
    }
    omp.terminator
  }
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %x, %a[%i] : memref<?xf64>
        omp.yield
      }
    }
    omp.barrier
    omp.terminator
  }
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i, %j) : index = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
        memref.store %x, %a[%i] : memref<?xf64>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}

// -----

// A module that declares omp_get_thread_num otherwise (an embedding
// compiler's LLVM declaration) keeps its worksharing loops.

// CHECK-LABEL: llvm.func @omp_get_thread_num() -> i64
// CHECK-LABEL: func.func @declared(
// CHECK: omp.wsloop {
llvm.func @omp_get_thread_num() -> i64
func.func @declared(%a: memref<?xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f64
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : index = (%c0) to (%n) step (%c1) {
        memref.store %x, %a[%i] : memref<?xf64>
        omp.yield
      }
    }
    omp.terminator
  }
  return
}
