// RUN: sdfg-opt %s --convert-sdfg-to-scf -split-input-file | FileCheck %s

// The outermost parallel map distributes its first dimension with
// scf.parallel; its other dimensions and nested maps become sequential
// loops inside it. A WCR write that other threads may hit (S[j floordiv
// 2]: every i writes it, and no parameter separates it) is atomic; one
// indexed by the distributed parameter (T[i, j]) is not. Its work is
// known only when it runs (N): it forks threads where its iterations
// reach the policy's threshold (kMinParallelOps over its 3 ops, a load and
// two stores: 5462), else runs the same loops on the calling thread.
// CHECK-LABEL: func.func @parallel
// CHECK: %[[BIG:.*]] = arith.cmpi sge, %{{.*}}, %c5462
// CHECK: scf.if %[[BIG]] {
// CHECK: scf.parallel (%[[I:.*]]) = (%c1{{.*}}) to
// CHECK: scf.for %[[J:.*]] = %c0 to
// CHECK-NOT: scf.parallel
// CHECK: %[[H:.*]] = arith.floordivsi %[[J]]
// CHECK: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%[[H]]] : (f64, memref<?xf64>) -> f64
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]]
// CHECK: memref.store %[[NEW]], %{{.*}}[%[[I]], %[[J]]]
// CHECK-NOT: atomic
// CHECK: scf.reduce
// CHECK: } else {
// CHECK-NOT: scf.parallel
// CHECK-NOT: atomic
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: atomic
// CHECK: return
sdfg.sdfg @parallel(%A: memref<?x?xf64>, %S: memref<?xf64>, %T: memref<?x?xf64>, %N: index) {
  sdfg.state {
    sdfg.map (%i, %j) = (1, 0) to (%N, %N) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<?x?xf64>
      sdfg.store %a, %S[%j floordiv 2] wcr(add) : memref<?xf64>
      sdfg.store %a, %T[%i, %j] wcr(add) : memref<?x?xf64>
    }
  }
}

// -----

// Every WCR write is separated by the second parameter (a sum over the
// first dimension, S[j], as np.sum(A, axis=0) makes): threads take chunks
// of j, at least 32 long, and run the map's loops in its order over them,
// without atomics.
// CHECK-LABEL: func.func @distribute_later
// CHECK: scf.if
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[Q:.*]] = arith.divsi %[[TRIPS]], %[[C32]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[C64]], %[[Q]]
// CHECK: %[[CHUNKS:.*]] = arith.maxsi %{{.*}}, %[[MIN]]
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[CHUNKS]])
// CHECK: %[[LO:.*]] = arith.addi
// CHECK: %[[HI:.*]] = arith.minsi
// CHECK: scf.for %[[I:.*]] = %c1 to
// CHECK: scf.for %[[J:.*]] = %[[LO]] to %[[HI]]
// CHECK-NOT: atomic
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[J]]] : memref<?xf64>
// CHECK-NOT: atomic
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf64>
// CHECK-NOT: atomic
// CHECK: scf.reduce
sdfg.sdfg @distribute_later(%A: memref<?x?xf64>, %S: memref<?xf64>, %T: memref<?x?xf64>, %N: index) {
  sdfg.state {
    sdfg.map (%i, %j) = (1, 0) to (%N, %N) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<?x?xf64>
      sdfg.store %a, %S[%j] wcr(add) : memref<?xf64>
      sdfg.store %a, %T[%i, %j] wcr(add) : memref<?x?xf64>
    }
  }
}

// -----

// Register reductions: a WCR write of one element in every iteration
// accumulates in loop-carried values (float sums reassociable, so they
// vectorise) and meets memory once. Nested in the parallel map, S[i] is
// the thread's own element (plain combine) while M[] is shared: each
// chunk of the outer map combines into its own copy of it, and after the
// loop the copies are combined in chunk order (no atomics, the same
// result for any number of threads).
// CHECK-LABEL: func.func @nested_reduction
// CHECK: %[[COPIES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xi32>
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%[[CHUNKS:.*]]) step
// CHECK: %[[MINE:.*]] = memref.subview %[[COPIES]][%[[C]]] [1] [1] : memref<64xi32> to memref<i32, strided<[], offset: ?>>
// CHECK: memref.store %{{.*}}, %[[MINE]][]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ZERO:.*]] = arith.constant -0.000000e+00 : f64
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %c0{{.*}} to %[[I]] step %{{.*}} iter_args(%[[S:.*]] = %[[ZERO]], %[[M:.*]] = %[[MIN]]) -> (f64, i32) {
// CHECK:   %[[A:.*]] = memref.load
// CHECK:   %[[S2:.*]] = arith.addf %[[S]], %[[A]] fastmath<reassoc> : f64
// CHECK:   %[[M2:.*]] = arith.maxsi %[[M]], %{{.*}} : i32
// CHECK:   scf.yield %[[S2]], %[[M2]] : f64, i32
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[I]]] : memref<?xf64>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[R]]#0 : f64
// CHECK: memref.store %[[NEW]], %{{.*}}[%[[I]]] : memref<?xf64>
// CHECK: %[[MOLD:.*]] = memref.load %[[MINE]][]
// CHECK: %[[MNEW:.*]] = arith.maxsi %[[MOLD]], %[[R]]#1 : i32
// CHECK: memref.store %[[MNEW]], %[[MINE]][]
// CHECK: scf.reduce
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[CHUNKS]] step
// CHECK:   %[[PART:.*]] = memref.load %[[COPIES]][%[[K]]] : memref<64xi32>
// CHECK:   %[[CUR:.*]] = memref.load %{{.*}}[] : memref<i32>
// CHECK:   %[[ALL:.*]] = arith.maxsi %[[CUR]], %[[PART]] : i32
// CHECK:   memref.store %[[ALL]], %{{.*}}[] : memref<i32>
// CHECK: memref.dealloc %[[COPIES]]
// CHECK-NOT: atomic
sdfg.sdfg @nested_reduction(%A: memref<?x?xf64>, %S: memref<?xf64>, %M: memref<i32>, %N: index, %v: i32) {
  sdfg.state {
    sdfg.map (%i) = (1) to (%N) step (1) schedule(cpu_multicore) {
      sdfg.map (%k) = (0) to (%i) step (1) schedule(cpu_multicore) {
        %a = sdfg.load %A[%i, %k] : memref<?x?xf64>
        sdfg.store %a, %S[%i] wcr(add) : memref<?xf64>
        sdfg.store %v, %M[] wcr(max) : memref<i32>
      }
    }
  }
}

// -----

// An outermost parallel reduction runs in at most 64 chunks of its first
// dimension (as many as have trips), each summing privately over all
// dimensions into its own slot; after the loop one thread adds the slots
// in chunk order and writes once (no atomics: the same bits for any number
// of threads).
// CHECK-LABEL: func.func @chunked
// CHECK: %[[SLOTS:.*]] = memref.alloca() : memref<64xf64>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[TRIPS:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK: %[[PER:.*]] = arith.ceildivsi %[[TRIPS]], %[[C64]]
// CHECK: %[[CHUNKS:.*]] = arith.ceildivsi %[[TRIPS]], %[[PER]]
// CHECK: scf.parallel (%[[K:.*]]) = (%{{.*}}) to (%[[CHUNKS]])
// CHECK: %[[LO:.*]] = arith.addi
// CHECK: %[[HI:.*]] = arith.minsi
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %[[LO]] to %[[HI]] {{.*}} iter_args
// CHECK:   scf.for {{.*}} iter_args
// CHECK:     arith.addf {{.*}} fastmath<reassoc> : f64
// CHECK: memref.store %[[R]], %[[SLOTS]][%[[K]]] : memref<64xf64>
// CHECK: scf.reduce
// CHECK: %[[ZERO:.*]] = arith.constant -0.000000e+00 : f64
// CHECK: %[[TOTAL:.*]] = scf.for %[[S:.*]] = %{{.*}} to %[[CHUNKS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f64) {
// CHECK:   %[[PART:.*]] = memref.load %[[SLOTS]][%[[S]]] : memref<64xf64>
// CHECK:   %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PART]] : f64
// CHECK:   scf.yield %[[NEXT]] : f64
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f64>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]] : f64
// CHECK: memref.store %[[NEW]], %{{.*}}[] : memref<f64>
// CHECK-NOT: atomic
sdfg.sdfg @chunked(%A: memref<?x8xf64>, %S: memref<f64>, %N: index) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%N, 8) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<?x8xf64>
      sdfg.store %a, %S[] wcr(add) : memref<f64>
    }
  }
}

// -----

// Not a register reduction when the map also reads the element: each
// write goes to memory (atomically in parallel).
// CHECK-LABEL: func.func @read_too
// CHECK-NOT: iter_args
// CHECK: memref.atomic_rmw addf
sdfg.sdfg @read_too(%A: memref<?xf64>, %S: memref<f64>, %N: index) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N) step (1) schedule(cpu_multicore) {
      %s = sdfg.load %S[] : memref<f64>
      sdfg.store %s, %A[%i] : memref<?xf64>
      sdfg.store %s, %S[] wcr(add) : memref<f64>
    }
  }
}

// -----

// Float max/min/mul have no LLVM atomic: a compare-and-swap loop on the
// element's bits (here for every iteration: the map also reads the
// maximum, so it is no register reduction).
// CHECK-LABEL: func.func @cas
// CHECK: scf.parallel
// CHECK: %[[A:.*]] = memref.load
// CHECK: llvm.load %{{.*}} atomic monotonic
// CHECK: scf.while (%[[OLD:.*]] = %{{.*}}) : (i64) -> i64 {
// CHECK: %[[F:.*]] = arith.bitcast %[[OLD]] : i64 to f64
// CHECK: %[[NEW:.*]] = arith.maximumf %[[F]], %[[A]] : f64
// CHECK: arith.bitcast %[[NEW]] : f64 to i64
// CHECK: llvm.cmpxchg
sdfg.sdfg @cas(%A: memref<?xf64>, %B: memref<?xf64>, %M: memref<f64>,
               %N: index) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i] : memref<?xf64>
      %m = sdfg.load %M[] : memref<f64>
      sdfg.store %m, %B[%i] : memref<?xf64>
      sdfg.store %a, %M[] wcr(max) : memref<f64>
    }
  }
}

// -----

// Sequential maps: plain loops; the product accumulates in a register
// (identity 1.0) and is combined into memory after the loop.
// CHECK-LABEL: func.func @sequential
// CHECK-NOT: scf.parallel
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[P:.*]] = %[[ONE]])
// CHECK: arith.mulf %[[P]], %{{.*}} fastmath<reassoc> : f64
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[] : memref<f64>
// CHECK: %[[NEW:.*]] = arith.mulf %[[OLD]], %[[R]] : f64
// CHECK: memref.store %[[NEW]], %{{.*}}[] : memref<f64>
// CHECK-NOT: atomic
sdfg.sdfg @sequential(%A: memref<?xf64>, %P: memref<f64>, %N: index) {
  sdfg.state {
    sdfg.map (%i) = (0) to (%N) step (1) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<?xf64>
      sdfg.store %a, %P[] wcr(mul) : memref<f64>
    }
  }
}

// -----

// Tasklets are inlined.
// CHECK-LABEL: func.func @tasklet
// CHECK: %[[A:.*]] = memref.load
// CHECK: %[[E:.*]] = math.exp %[[A]] : f64
// CHECK: memref.store %[[E]]
sdfg.sdfg @tasklet(%A: memref<4xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %a = sdfg.load %A[%i] : memref<4xf64>
      %e = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%x: f64):
        %y = math.exp %x : f64
        sdfg.yield %y : f64
      }
      sdfg.store %e, %A[%i] : memref<4xf64>
    }
  }
}

// -----

// disjoint_wcr: distinct iterations accumulate into distinct elements, so
// the parallel map uses plain read-modify-writes.
// CHECK-LABEL: func.func @disjoint
// CHECK: scf.parallel
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%[[I:.*]]] : memref<65536xf64>
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[I]]] : memref<65536xf64>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[A]] : f64
// CHECK: memref.store %[[NEW]]
// CHECK-NOT: atomic
sdfg.sdfg @disjoint(%A: memref<65536xf64>, %G: memref<65536xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (65536) step (1) schedule(cpu_multicore) attributes {disjoint_wcr} {
      %a = sdfg.load %A[%i] : memref<65536xf64>
      sdfg.store %a, %G[%i] wcr(add) : memref<65536xf64>
    }
  }
}

// -----

// Too little work to fork for (64 x 16 iterations with everything nested,
// known statically): a parallel map runs as plain loops, WCR writes need
// no atomics. The autodiff's reversals and colour sweeps of small maps
// land here.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: atomic
// CHECK: return
sdfg.sdfg @small(%A: memref<64x16xf64>, %S: memref<f64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (64) step (1) schedule(cpu_multicore) {
      sdfg.map (%j) = (0) to (16) step (1) schedule(cpu_multicore) {
        %a = sdfg.load %A[%i, %j] : memref<64x16xf64>
        sdfg.store %a, %S[] wcr(add) : memref<f64>
        sdfg.store %a, %A[%i, %j] : memref<64x16xf64>
      }
    }
  }
}

// -----

// In a program that calls BLAS or LAPACK, a map forks only from 2^22
// operations: OpenBLAS's workers spin on the cores after each call. The
// 512 x 512 copy (2^19 operations) that forks in @copy runs as loops next
// to a GEMM; the 2048 x 2048 one (2^23) still forks.
// CHECK-LABEL: func.func @copy
// CHECK: scf.parallel
// CHECK-LABEL: func.func @copy_beside_blas
// CHECK-NOT: scf.parallel
// CHECK: call @cblas_dgemm
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK: return
sdfg.sdfg @copy(%A: memref<512x512xf64>, %B: memref<512x512xf64>) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (512, 512) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<512x512xf64>
      sdfg.store %a, %B[%i, %j] : memref<512x512xf64>
    }
  }
}
sdfg.sdfg @copy_beside_blas(%A: memref<512x512xf64>, %B: memref<512x512xf64>,
                            %C: memref<2048x2048xf64>, %D: memref<2048x2048xf64>) {
  sdfg.state {
    sdfg.matmul %A, %A -> %B : memref<512x512xf64>, memref<512x512xf64> -> memref<512x512xf64>
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (512, 512) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i, %j] : memref<512x512xf64>
      sdfg.store %a, %B[%i, %j] : memref<512x512xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (2048, 2048) step (1, 1) schedule(cpu_multicore) {
      %c = sdfg.load %C[%i, %j] : memref<2048x2048xf64>
      sdfg.store %c, %D[%i, %j] : memref<2048x2048xf64>
    }
  }
}

// -----

// Partially invariant: S[i] changes only with i, so the inner loop carries
// its sum and memory sees one combine per row. The other write to S
// (S[i + j], every iteration) stays a read-modify-write: all of S's writes
// here are sums, so their order is free.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to
// CHECK:   %[[ZERO:.*]] = arith.constant -0.000000e+00 : f64
// CHECK:   %[[R:.*]] = scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f64) {
// CHECK:     %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK:     %[[N:.*]] = arith.addf %[[ACC]], %[[A]] fastmath<reassoc> : f64
// CHECK:     memref.store
// CHECK:     scf.yield %[[N]] : f64
// CHECK:   %[[OLD:.*]] = memref.load %{{.*}}[%[[I]]] : memref<?xf64>
// CHECK:   %[[NEW:.*]] = arith.addf %[[OLD]], %[[R]] : f64
// CHECK:   memref.store %[[NEW]], %{{.*}}[%[[I]]] : memref<?xf64>
sdfg.sdfg @rows(%A: memref<?x8xf64>, %S: memref<?xf64>, %N: index) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%N, 8) step (1, 1) schedule(sequential) {
      %a = sdfg.load %A[%i, %j] : memref<?x8xf64>
      sdfg.store %a, %S[%i] wcr(add) : memref<?xf64>
      sdfg.store %a, %S[%i + %j] wcr(add) : memref<?xf64>
    }
  }
}

// -----

// Few operations per iteration: a copy of 4096 elements (a load and a
// store each) is under 16384 operations and runs as a loop; the same
// range with a heavier body forks.
// CHECK-LABEL: func.func @cheap
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK: scf.parallel
// CHECK: math.exp
sdfg.sdfg @cheap(%A: memref<4096xf64>, %B: memref<4096xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (4096) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i] : memref<4096xf64>
      sdfg.store %a, %B[%i] : memref<4096xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4096) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i] : memref<4096xf64>
      %e = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%x: f64):
        %y = math.exp %x : f64
        %z = arith.mulf %y, %x : f64
        %w = arith.addf %z, %x : f64
        sdfg.yield %w : f64
      }
      sdfg.store %e, %B[%i] : memref<4096xf64>
    }
  }
}

// -----

// A bias's gradient: the rows' sums R[i] belong to the thread that owns row
// i, the column sums G[j] are shared by every chunk of rows. G goes to a
// private copy per chunk (filled with the sum's identity, written without
// atomics), combined into G in chunk order after the loop.
// CHECK-LABEL: func.func @bias_grad
// CHECK: %[[COPIES:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x16xf64>
// CHECK: scf.parallel (%[[C:.*]]) =
// CHECK: %[[MINE:.*]] = memref.subview %[[COPIES]][%[[C]], 0] [1, 16] [1, 1] : memref<64x16xf64> to memref<16xf64, strided<[1], offset: ?>>
// CHECK: memref.store %{{.*}}, %[[MINE]][%{{.*}}]
// CHECK: scf.for
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args
// CHECK:   %[[D:.*]] = memref.load %{{.*}} : memref<?x16xf64>
// CHECK:   %[[G:.*]] = memref.load %[[MINE]][%[[J]]]
// CHECK:   %[[G2:.*]] = arith.addf %[[G]], %[[D]] : f64
// CHECK:   memref.store %[[G2]], %[[MINE]][%[[J]]]
// CHECK: scf.reduce
// CHECK: scf.for %[[K:.*]] =
// CHECK:   scf.for %[[E:.*]] =
// CHECK:     memref.load %[[COPIES]][%[[K]], %[[E]]] : memref<64x16xf64>
// CHECK: memref.dealloc %[[COPIES]]
// CHECK-NOT: atomic
sdfg.sdfg @bias_grad(%D: memref<?x16xf64>, %G: memref<16xf64>,
                     %R: memref<?xf64>, %N: index) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%N, 16) step (1, 1) schedule(cpu_multicore) {
      %d = sdfg.load %D[%i, %j] : memref<?x16xf64>
      sdfg.store %d, %G[%j] wcr(add) : memref<16xf64>
      sdfg.store %d, %R[%i] wcr(add) : memref<?xf64>
    }
  }
}

// -----

// An empty container written with wcr (every such write is out of bounds:
// the run reports it or skips it) gets no private copies, whose views of
// zero elements would not be valid IR. (Found by fuzzing.)
// CHECK-LABEL: func.func @empty_accumulator
// CHECK-NOT: memref.subview
// CHECK: return
sdfg.sdfg @empty_accumulator(%D: memref<?x16xf64>, %G: memref<0xf64>,
                             %R: memref<?xf64>, %N: index) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%N, 16) step (1, 1) schedule(cpu_multicore) {
      %d = sdfg.load %D[%i, %j] : memref<?x16xf64>
      sdfg.store %d, %G[%j] wcr(add) : memref<0xf64>
      sdfg.store %d, %R[%i] wcr(add) : memref<?xf64>
    }
  }
}
