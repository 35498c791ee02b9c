// RUN: sdfg-opt %s --sdfg-autodiff -split-input-file | FileCheck %s

// Reads accumulate into gradients with wcr(add); the gradient program gets
// d_<wrt> and d_<output> arguments; tasklets are differentiated by the
// ScalarAdjointOpInterface rules (d sin(x*x) = cos(x*x) * 2x).
// CHECK-LABEL: sdfg.sdfg @square_grad(
// CHECK-SAME: %d_x: memref<8xf64> {sdfg.name = "d_x"}, %d_s: memref<f64> {sdfg.name = "d_s"})
// CHECK: sdfg.state "reverse" {
// CHECK: sdfg.map (%[[P:.*]]) = (0) to (8) step (1) schedule(cpu_multicore) {
// CHECK: %[[G:.*]] = sdfg.load %d_s[] : memref<f64>
// CHECK: %[[X:.*]] = sdfg.load %x[%[[P]]] : memref<8xf64>
// CHECK: %[[D:.*]] = sdfg.tasklet(%[[X]], %[[G]])
// CHECK: math.cos
// CHECK: sdfg.store %[[D]], %d_x[%[[P]]] wcr(add) : memref<8xf64>
// Nothing is stored for a value the backward pass does not read.
// CHECK-NOT: sdfg.alloc
sdfg.sdfg @square(%x: memref<8xf64> {sdfg.name = "x"},
                  %s: memref<f64> {sdfg.name = "s"})
    attributes {ad_output = "s", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i] : memref<8xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%v: f64):
        %m = arith.mulf %v, %v : f64
        %e = math.sin %m : f64
        sdfg.yield %e : f64
      }
      sdfg.store %r, %s[] wcr(add) : memref<f64>
    }
  }
}

// -----

// Loops run backwards over exactly the forward iterations, from the last
// executed one (lb + ((ub - lb - 1) floordiv s) * s), for any step; values
// overwritten in the loop are stored per iteration in a tape sized by the
// trip count (here ceil((10 - 1) / 3) = 3), and restored when reversed;
// the overwritten gradient is cleared.
// CHECK-LABEL: sdfg.sdfg @strided_grad(
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<3xf64>
// CHECK: sdfg.loop %[[I:.*]] = 1 to 10 step 3 {
// CHECK: sdfg.store %{{.*}}, %[[TAPE]][(%[[I]] - 1) floordiv 3] : memref<3xf64>
// CHECK: sdfg.loop %[[R:.*]] = 7 to -2 step -3 {
// CHECK: %[[G:.*]] = sdfg.load %d_A[%[[R]]] : memref<10xf64>
// CHECK: sdfg.store %{{.*}}, %d_A[%[[R]]] : memref<10xf64>
// CHECK: %[[T:.*]] = sdfg.load %[[TAPE]][(%[[R]] - 1) floordiv 3] : memref<3xf64>
// CHECK: sdfg.store %[[T]], %A[%[[R]]] : memref<10xf64>
// CHECK: sdfg.store %{{.*}}, %d_A[%[[R]] - 1] wcr(add) : memref<10xf64>
sdfg.sdfg @strided(%A: memref<10xf64> {sdfg.name = "A"})
    attributes {ad_output = "A", ad_wrt = ["A"]} {
  sdfg.loop %i = 1 to 10 step 3 {
    sdfg.state {
      %a = sdfg.load %A[%i - 1] : memref<10xf64>
      %b = sdfg.load %A[%i] : memref<10xf64>
      %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %m = arith.mulf %u, %v : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %A[%i] : memref<10xf64>
    }
  }
}

// -----

// Negative steps reverse too: range(9, -1, -2) visits 9, 7, 5, 3, 1; the
// backward loop starts at 1 and stops before 11.
// CHECK-LABEL: sdfg.sdfg @down_grad(
// CHECK: sdfg.loop %{{.*}} = 9 to -1 step -2 {
// CHECK: sdfg.loop %{{.*}} = 1 to 11 step 2 {
sdfg.sdfg @down(%A: memref<10xf64> {sdfg.name = "A"},
                %B: memref<10xf64> {sdfg.name = "B"})
    attributes {ad_output = "B", ad_wrt = ["A"]} {
  sdfg.loop %i = 9 to -1 step -2 {
    sdfg.state {
      %a = sdfg.load %A[%i] : memref<10xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = math.exp %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %B[%i] : memref<10xf64>
    }
  }
}

// -----

// Branch conditions are stored where the branch is taken and read back in
// the backward pass (not re-evaluated on data that may have changed).
// CHECK-LABEL: sdfg.sdfg @cond_grad(
// CHECK: %[[CT:.*]] = sdfg.alloc() : memref<4xi1>
// CHECK: sdfg.state "condition" {
// CHECK: sdfg.store %{{.*}}, %[[CT]][%{{.*}}] : memref<4xi1>
// CHECK: sdfg.if
// CHECK: sdfg.loop %[[R:.*]] = 3 to -1 step -1 {
// CHECK: %[[C:.*]] = sdfg.load %[[CT]][%[[R]]] : memref<4xi1>
// CHECK: sdfg.if %[[C]] {
sdfg.sdfg @cond(%x: memref<4xf64> {sdfg.name = "x"},
                %y: memref<4xf64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.loop %i = 0 to 4 step 1 {
    %v = sdfg.load %x[%i] : memref<4xf64>
    %c = sdfg.tasklet(%v) : (f64) -> i1 {
    ^bb0(%u: f64):
      %z = arith.constant 0.0 : f64
      %b = arith.cmpf ogt, %u, %z : f64
      sdfg.yield %b : i1
    }
    sdfg.if %c {
      sdfg.state {
        %a = sdfg.load %x[%i] : memref<4xf64>
        %r = sdfg.tasklet(%a) : (f64) -> f64 {
        ^bb0(%u: f64):
          %m = arith.mulf %u, %u : f64
          sdfg.yield %m : f64
        }
        sdfg.store %r, %y[%i] : memref<4xf64>
      }
    }
  }
}

// -----

// Matmul gradients call BLAS: dA += dC B^T, dB += A^T dC; dC is cleared.
// CHECK-LABEL: sdfg.sdfg @mm_grad(
// CHECK: sdfg.matmul %d_C, %B -> %d_A {accumulate, transpose_b}
// CHECK: sdfg.matmul %A, %d_C -> %d_B {accumulate, transpose_a}
sdfg.sdfg @mm(%A: memref<4x3xf64> {sdfg.name = "A"},
              %B: memref<3x5xf64> {sdfg.name = "B"},
              %C: memref<4x5xf64> {sdfg.name = "C"})
    attributes {ad_output = "C", ad_wrt = ["A", "B"]} {
  sdfg.state {
    sdfg.matmul %A, %B -> %C : memref<4x3xf64>, memref<3x5xf64> -> memref<4x5xf64>
  }
}

// -----

// Gemv gradients: dx += A^T dy (gemv), dA += dy x^T (ger); transposed,
// dA += x dy^T. dy is cleared after its last use.
// CHECK-LABEL: sdfg.sdfg @mv_grad(
// CHECK: %[[DY:.*]] = sdfg.alloc() : memref<4xf64>
// CHECK: sdfg.state "reverse"
// CHECK-NEXT: sdfg.gemv %A, %d_z -> %[[DY]] {accumulate}
// CHECK-NEXT: sdfg.ger %y, %d_z -> %d_A {accumulate} : memref<4xf64>, memref<3xf64> -> memref<4x3xf64>
// CHECK: sdfg.gemv %A, %[[DY]] -> %d_x {accumulate, transpose}
// CHECK-NEXT: sdfg.ger %[[DY]], %x -> %d_A {accumulate} : memref<4xf64>, memref<3xf64> -> memref<4x3xf64>
sdfg.sdfg @mv(%A: memref<4x3xf64> {sdfg.name = "A"},
              %x: memref<3xf64> {sdfg.name = "x"},
              %y: memref<4xf64> {sdfg.name = "y"},
              %z: memref<3xf64> {sdfg.name = "z"})
    attributes {ad_output = "z", ad_wrt = ["A", "x"]} {
  sdfg.state {
    sdfg.gemv %A, %x -> %y : memref<4x3xf64>, memref<3xf64> -> memref<4xf64>
    sdfg.gemv %A, %y -> %z {transpose} : memref<4x3xf64>, memref<4xf64> -> memref<3xf64>
  }
}

// -----

// A ger's gradient: dx += dA y, dy += dA^T x; an overwritten A's gradient
// is cleared.
// CHECK-LABEL: sdfg.sdfg @outer_grad(
// CHECK: sdfg.gemv %d_A, %y -> %d_x {accumulate}
// CHECK-NEXT: sdfg.gemv %d_A, %x -> %d_y {accumulate, transpose}
// CHECK: sdfg.store %{{.*}}, %d_A[
sdfg.sdfg @outer(%x: memref<4xf64> {sdfg.name = "x"},
                 %y: memref<3xf64> {sdfg.name = "y"},
                 %A: memref<4x3xf64> {sdfg.name = "A"})
    attributes {ad_output = "A", ad_wrt = ["x", "y"]} {
  sdfg.state {
    sdfg.ger %x, %y -> %A : memref<4xf64>, memref<3xf64> -> memref<4x3xf64>
  }
}

// -----

// Written arguments that the backward program rewinds (here y, whose old
// value the square's derivative reads) get their forward results copied to
// fwd_<name> between the two passes. z is written but never rewound: it
// holds its forward result on return, and gets no copy.
// CHECK-LABEL: sdfg.sdfg @results_grad(
// CHECK-NOT: fwd_z
// CHECK-SAME: %fwd_y: memref<3xf64> {sdfg.name = "fwd_y"})
// CHECK: sdfg.state "results" {
// CHECK: %[[V:.*]] = sdfg.load %y[%[[P:.*]]] : memref<3xf64>
// CHECK: sdfg.store %[[V]], %fwd_y[%[[P]]] : memref<3xf64>
// CHECK-NOT: sdfg.state "results"
// CHECK: sdfg.state "reverse"
sdfg.sdfg @results(%x: memref<3xf64> {sdfg.name = "x"},
                   %y: memref<3xf64> {sdfg.name = "y"},
                   %z: memref<3xf64> {sdfg.name = "z"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %a = sdfg.load %x[%i] : memref<3xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = math.tanh %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i] : memref<3xf64>
      sdfg.store %r, %z[%i] : memref<3xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (3) step (1) schedule(sequential) {
      %a = sdfg.load %y[%i] : memref<3xf64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = arith.mulf %u, %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i] : memref<3xf64>
    }
  }
}

// -----

// A loop bound read from data is stored where the loop starts and read
// back by the reversed loop (the data may change inside the loop).
// CHECK-LABEL: sdfg.sdfg @databound_grad(
// CHECK: %[[BT:.*]] = sdfg.alloc() : memref<index>
// CHECK: sdfg.state "bounds" {
// CHECK: sdfg.store %[[N:.*]], %[[BT]][] : memref<index>
// CHECK: sdfg.loop %{{.*}} = 0 to %[[N]] step 1 {
// CHECK: %[[M:.*]] = sdfg.load %[[BT]][] : memref<index>
// CHECK: sdfg.loop %{{.*}} = %[[M]] - 1 to -1 step -1 {
sdfg.sdfg @databound(%x: memref<8xf64> {sdfg.name = "x"},
                     %n: memref<i64> {sdfg.name = "n"},
                     %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  %c = sdfg.load %n[] : memref<i64>
  %nb = sdfg.tasklet(%c) : (i64) -> index {
  ^bb0(%u: i64):
    %i = arith.index_cast %u : i64 to index
    sdfg.yield %i : index
  }
  sdfg.loop %i = 0 to %nb step 1 {
    sdfg.state {
      %v = sdfg.load %x[%i] : memref<8xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = arith.mulf %u, %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[] wcr(add) : memref<f64>
    }
  }
}

// -----

// A parallel stencil's reversal accumulates into neighbours (offsets -1..1
// in the first dimension): it runs as 3 parallel sweeps over rows 3 apart,
// which never collide, so no atomics are needed (disjoint_wcr). Sweep c
// indexes row 3 q + c in its memlets' affine maps (an index computed by a
// tasklet would be data the lowering checks on every access).
// CHECK-LABEL: sdfg.sdfg @stencil_grad(
// CHECK: sdfg.state "reverse" {
// CHECK: sdfg.map (%[[Q:.*]]) = (0) to (22) step (1) schedule(cpu_multicore) attributes {disjoint_wcr}
// CHECK-NOT: sdfg.tasklet(%[[Q]])
// CHECK-DAG: sdfg.load %d_y[%[[Q]] * 3]
// CHECK-DAG: sdfg.store %{{.*}}, %d_x[%[[Q]] * 3 + 2] wcr(add)
// CHECK: sdfg.map (%[[Q1:.*]]) = (0) to (21) step (1) schedule(cpu_multicore) attributes {disjoint_wcr}
// CHECK-DAG: sdfg.load %d_y[%[[Q1]] * 3 + 1]
// CHECK-DAG: sdfg.store %{{.*}}, %d_x[%[[Q1]] * 3 + 3] wcr(add)
// CHECK: sdfg.map (%{{.*}}) = (0) to (21) step (1) schedule(cpu_multicore) attributes {disjoint_wcr}
// CHECK-NOT: schedule(cpu_multicore) attributes {disjoint_wcr}
sdfg.sdfg @stencil(%x: memref<66xf64> {sdfg.name = "x"},
                   %y: memref<64xf64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (64) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i] : memref<66xf64>
      %b = sdfg.load %x[%i + 1] : memref<66xf64>
      %c = sdfg.load %x[%i + 2] : memref<66xf64>
      %r = sdfg.tasklet(%a, %b, %c) : (f64, f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64, %w: f64):
        %m = arith.mulf %u, %v : f64
        %s = arith.addf %m, %w : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %y[%i] : memref<64xf64>
    }
  }
}

// -----

// A reach of 40 rows would take 41 sweeps (a map each; a fuzzed offset of
// 2^32 took the pass out of memory): beyond 16 the reversal is one
// sequential map.
// CHECK-LABEL: sdfg.sdfg @wide_stencil_grad(
// CHECK: sdfg.state "reverse" {
// CHECK-NEXT: sdfg.map (%{{.*}}) = (0) to (64) step (1) schedule(sequential) {
// CHECK-NOT: sdfg.map
// CHECK: sdfg.state
sdfg.sdfg @wide_stencil(%x: memref<104xf64> {sdfg.name = "x"},
                        %y: memref<64xf64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    sdfg.map (%i) = (0) to (64) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i] : memref<104xf64>
      %b = sdfg.load %x[%i + 40] : memref<104xf64>
      %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %m = arith.mulf %u, %v : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i] : memref<64xf64>
    }
  }
}

// -----

// A row broadcast's reversal accumulates d_s[i] from every j: parallel over
// rows (offset 0, disjoint_wcr), in one sweep indexed by the map's own
// parameter (no index tasklet), so that the store into d_x stays visibly
// covering (sdfg-eliminate-dead-writes folds its zero fill).
// CHECK-LABEL: sdfg.sdfg @rows_grad(
// CHECK: sdfg.state "reverse" {
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 8) step (1, 1) schedule(cpu_multicore) attributes {disjoint_wcr}
// CHECK-NOT: sdfg.tasklet(%[[I]])
// CHECK-DAG: sdfg.store %{{.*}}, %d_x[%[[I]], %[[J]]] wcr(add)
// CHECK-DAG: sdfg.store %{{.*}}, %d_s[%[[I]]] wcr(add)
sdfg.sdfg @rows(%x: memref<4x8xf64> {sdfg.name = "x"},
                %s: memref<4xf64> {sdfg.name = "s"},
                %y: memref<4x8xf64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x", "s"]} {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 8) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i, %j] : memref<4x8xf64>
      %b = sdfg.load %s[%i] : memref<4xf64>
      %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %m = arith.mulf %u, %v : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i, %j] : memref<4x8xf64>
    }
  }
}

// -----

// The same with a sum into a scalar in the map (softmax's division fused
// with the loss's np.sum): the scalar's gradient is only read, and the
// coefficient's (%c, every iteration reads it) reduces in registers, so
// neither keeps the reversal from running parallel over rows. Not
// disjoint_wcr: every row adds to d_c (on the GPU, atomically; the
// emulator caught a race when it was marked disjoint).
// CHECK-LABEL: sdfg.sdfg @rows_total_grad(
// CHECK: sdfg.state "reverse" {
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 8) step (1, 1) schedule(cpu_multicore) {
// CHECK-DAG: sdfg.load %d_t[]
// CHECK-DAG: sdfg.store %{{.*}}, %d_s[%[[I]]] wcr(add)
// CHECK-DAG: sdfg.store %{{.*}}, %d_c[] wcr(add)
// CHECK-NOT: schedule(sequential)
sdfg.sdfg @rows_total(%x: memref<4x8xf64> {sdfg.name = "x"},
                      %s: memref<4xf64> {sdfg.name = "s"},
                      %c: memref<f64> {sdfg.name = "c"},
                      %t: memref<f64> {sdfg.name = "t"})
    attributes {ad_output = "t", ad_wrt = ["x", "s", "c"]} {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 8) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i, %j] : memref<4x8xf64>
      %b = sdfg.load %s[%i] : memref<4xf64>
      %k = sdfg.load %c[] : memref<f64>
      %r = sdfg.tasklet(%a, %b, %k) : (f64, f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64, %w: f64):
        %m = arith.divf %u, %v : f64
        %n = arith.mulf %m, %w : f64
        sdfg.yield %n : f64
      }
      sdfg.store %r, %t[] wcr(add) : memref<f64>
    }
  }
}

// -----

// Rows scaled by a small vector every row reads (LayerNorm's gamma, a
// bias): the reversal accumulates d_g[j] from every row, which the CPU
// lowering gives each chunk of rows a private copy of, so it stays
// parallel; not disjoint_wcr, since rows do collide on d_g.
// CHECK-LABEL: sdfg.sdfg @scaled_rows_grad(
// CHECK: sdfg.state "reverse" {
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (4, 8) step (1, 1) schedule(cpu_multicore) {
// CHECK-DAG: sdfg.store %{{.*}}, %d_x[%[[I]], %[[J]]] wcr(add)
// CHECK-DAG: sdfg.store %{{.*}}, %d_g[%[[J]]] wcr(add)
sdfg.sdfg @scaled_rows(%x: memref<4x8xf64> {sdfg.name = "x"},
                       %g: memref<8xf64> {sdfg.name = "g"},
                       %y: memref<4x8xf64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x", "g"]} {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 8) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i, %j] : memref<4x8xf64>
      %b = sdfg.load %g[%j] : memref<8xf64>
      %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %m = arith.mulf %u, %v : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i, %j] : memref<4x8xf64>
    }
  }
}

// -----

// The same with a vector too large for a copy per chunk (64 x 512 KiB):
// the reversal runs sequentially, where its accumulations vectorise.
// CHECK-LABEL: sdfg.sdfg @scaled_wide_rows_grad(
// CHECK: sdfg.state "reverse" {
// CHECK: sdfg.map (%{{.*}}, %{{.*}}) = (0, 0) to (4, 65536) step (1, 1) schedule(sequential) {
sdfg.sdfg @scaled_wide_rows(%x: memref<4x65536xf64> {sdfg.name = "x"},
                            %g: memref<65536xf64> {sdfg.name = "g"},
                            %y: memref<4x65536xf64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x", "g"]} {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 65536) step (1, 1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i, %j] : memref<4x65536xf64>
      %b = sdfg.load %g[%j] : memref<65536xf64>
      %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%u: f64, %v: f64):
        %m = arith.mulf %u, %v : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i, %j] : memref<4x65536xf64>
    }
  }
}

// -----

// The seed of an output written once, outside loops, is not cleared after
// it is consumed: nothing reads it again. A container written twice keeps
// the clear at the second write's reversal (the first write's reversal
// reads what it leaves), and so does a wrt argument that is overwritten
// (its gradient is returned).
// CHECK-LABEL: sdfg.sdfg @clears_grad(
// CHECK: sdfg.state "reverse" {
// The reversal of `y = 2 * t`: consume d_y, no clear of d_y.
// CHECK:   sdfg.map
// CHECK:     %[[G:.*]] = sdfg.load %d_y[%{{.*}}]
// CHECK-NOT: sdfg.store %{{.*}}, %d_y[
// CHECK:     sdfg.store %{{.*}}, %[[DT:.*]][%{{.*}}] wcr(add)
// The reversal of the second write to t clears its gradient...
// CHECK: sdfg.state "reverse" {
// CHECK:   sdfg.map
// CHECK:     sdfg.load %[[DT]][
// CHECK:     sdfg.store %{{.*}}, %[[DT]][%{{.*}}] : memref<4xf64>
// ...and the reversal of the first write to t does not.
// CHECK: sdfg.state "reverse" {
// CHECK:   sdfg.map
// CHECK:     sdfg.load %[[DT]][
// CHECK-NOT: sdfg.store %{{.*}}, %[[DT]][%{{.*}}] : memref<4xf64>
// CHECK:     sdfg.store %{{.*}}, %d_x[%{{.*}}] wcr(add)
sdfg.sdfg @clears(%x: memref<4xf64> {sdfg.name = "x"},
                  %y: memref<4xf64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  %t = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %x[%i] : memref<4xf64>
      %e = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%v: f64):
        %s = math.sin %v : f64
        sdfg.yield %s : f64
      }
      sdfg.store %e, %t[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %t[%i] : memref<4xf64>
      %e = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%v: f64):
        %s = math.exp %v : f64
        sdfg.yield %s : f64
      }
      sdfg.store %e, %t[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %t[%i] : memref<4xf64>
      %e = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%v: f64):
        %two = arith.constant 2.0 : f64
        %s = arith.mulf %v, %two : f64
        sdfg.yield %s : f64
      }
      sdfg.store %e, %y[%i] : memref<4xf64>
    }
  }
}

// -----

// A maximum accumulated by a map in every iteration of a loop (np.max of a
// loop-indexed row): the map's rule reads the accumulated result from the
// target, so the write initialising it is taped per iteration and undone
// after the map's reversal; every iteration's mask compares with its own
// maximum, not the last iteration's.
// CHECK-LABEL: sdfg.sdfg @max_in_loop_grad(
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<3xf64>
// CHECK: %[[MAX:.*]] = sdfg.alloc() {name = "max"} : memref<f64>
// CHECK: sdfg.loop %[[I:.*]] = 0 to 3 step 1 {
// CHECK: %[[OLD:.*]] = sdfg.load %[[MAX]][] : memref<f64>
// CHECK-NEXT: sdfg.store %[[OLD]], %[[TAPE]][%[[I]]] : memref<3xf64>
// CHECK-NEXT: sdfg.store %{{.*}}, %[[MAX]][] : memref<f64>
// CHECK: sdfg.loop %[[R:.*]] = 2 to -1 step -1 {
// CHECK: sdfg.map
// CHECK: %[[M:.*]] = sdfg.load %[[MAX]][] : memref<f64>
// CHECK: arith.cmpf oeq
// CHECK: sdfg.store %{{.*}}, %d_A[%[[R]], %{{.*}}] wcr(add)
// CHECK: %[[BACK:.*]] = sdfg.load %[[TAPE]][%[[R]]] : memref<3xf64>
// CHECK-NEXT: sdfg.store %[[BACK]], %[[MAX]][] : memref<f64>
sdfg.sdfg @max_in_loop(%A: memref<3x4xf64> {sdfg.name = "A"},
                       %s: memref<f64> {sdfg.name = "s"})
    attributes {ad_output = "s", ad_wrt = ["A"]} {
  %m = sdfg.alloc() {name = "max"} : memref<f64>
  sdfg.loop %i = 0 to 3 step 1 {
    sdfg.state {
      %init = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 0xFFF0000000000000 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %init, %m[] : memref<f64>
      sdfg.map (%j) = (0) to (4) step (1) schedule(sequential) {
        %a = sdfg.load %A[%i, %j] : memref<3x4xf64>
        sdfg.store %a, %m[] wcr(max) : memref<f64>
      }
    }
    sdfg.state {
      %old = sdfg.load %s[] : memref<f64>
      %v = sdfg.load %m[] : memref<f64>
      %r = sdfg.tasklet(%old, %v) : (f64, f64) -> f64 {
      ^bb0(%x: f64, %y: f64):
        %z = arith.addf %x, %y : f64
        sdfg.yield %z : f64
      }
      sdfg.store %r, %s[] : memref<f64>
    }
  }
}

// -----

// A maximum accumulated by a map onto an old value (here an argument's):
// a census map first counts the contributions equal to the result, which
// share its gradient; what is left for the old value is all of it only
// when no contribution reached the result.
// CHECK-LABEL: sdfg.sdfg @max_onto_old_value_grad(
// CHECK: %[[COUNT:.*]] = sdfg.alloc() : memref<f64>
// CHECK: sdfg.state "reverse" {
// CHECK: sdfg.store %{{.*}}, %[[COUNT]][] : memref<f64>
// CHECK: sdfg.map (%[[I:.*]]) = (0) to (4)
// CHECK: arith.cmpf oeq
// CHECK: sdfg.store %{{.*}}, %[[COUNT]][] wcr(add) : memref<f64>
// CHECK: sdfg.map (%[[J:.*]]) = (0) to (4)
// CHECK: %[[N:.*]] = sdfg.load %[[COUNT]][] : memref<f64>
// CHECK: arith.divf
// CHECK: sdfg.store %{{.*}}, %d_v[%[[J]]] wcr(add)
// CHECK: %[[G:.*]] = sdfg.load %d_out[] : memref<f64>
// CHECK: %[[C:.*]] = sdfg.load %[[COUNT]][] : memref<f64>
// CHECK: %[[S:.*]] = sdfg.tasklet(%[[G]], %[[C]])
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// CHECK: sdfg.store %[[S]], %d_out[] : memref<f64>
// CHECK: sdfg.store %{{.*}}, %d_a[] wcr(add)
sdfg.sdfg @max_onto_old_value(%a: memref<f64> {sdfg.name = "a"},
                              %v: memref<4xf64> {sdfg.name = "v"},
                              %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["a", "v"]} {
  sdfg.state {
    %x = sdfg.load %a[] : memref<f64>
    sdfg.store %x, %out[] : memref<f64>
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %e = sdfg.load %v[%i] : memref<4xf64>
      sdfg.store %e, %out[] wcr(max) : memref<f64>
    }
  }
}

// -----

// A product accumulated by a map onto a constant (3): the census counts
// the zero factors and multiplies the others, starting from that
// constant; a factor's adjoint is that product over it when no factor is
// zero, the product itself for the only zero factor, zero otherwise.
// CHECK-LABEL: sdfg.sdfg @product_grad(
// CHECK: %[[NZ:.*]] = sdfg.alloc() : memref<f64>
// CHECK: %[[ZEROS:.*]] = sdfg.alloc() : memref<f64>
// CHECK: sdfg.state "reverse"
// CHECK: %[[THREE:.*]] = sdfg.tasklet() : () -> f64 {
// CHECK-NEXT: arith.constant 3.0
// CHECK: sdfg.store %[[THREE]], %[[NZ]][] : memref<f64>
// CHECK: sdfg.map (%{{.*}}) = (0) to (4)
// CHECK: sdfg.store %{{.*}}, %[[ZEROS]][] wcr(add) : memref<f64>
// CHECK: sdfg.store %{{.*}}, %[[NZ]][] wcr(mul) : memref<f64>
// CHECK: sdfg.map (%[[J:.*]]) = (0) to (4)
// CHECK: arith.mulf
// CHECK: arith.divf
// CHECK: arith.andi
// CHECK: sdfg.store %{{.*}}, %d_v[%[[J]]] wcr(add)
// CHECK: arith.mulf
// CHECK: sdfg.store %{{.*}}, %d_out[] : memref<f64>
sdfg.sdfg @product(%v: memref<4xf64> {sdfg.name = "v"},
                   %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["v"]} {
  sdfg.state {
    %x = sdfg.tasklet() : () -> f64 {
      %c = arith.constant 3.0 : f64
      sdfg.yield %c : f64
    }
    sdfg.store %x, %out[] : memref<f64>
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %e = sdfg.load %v[%i] : memref<4xf64>
      sdfg.store %e, %out[] wcr(mul) : memref<f64>
    }
  }
}

// -----

// The backward pass reads %acc (it is squared) only after the loop that
// accumulates into it: that loop's writes need no tape (nothing reversed
// after them reads %acc), which is what lets a loop over data-dependent
// bounds (a CSR row) accumulate at all. Only the loop bound is stored.
// CHECK-LABEL: sdfg.sdfg @late_reads_grad(
// CHECK-NEXT: sdfg.alloc() : memref<f64>
// CHECK-NEXT: sdfg.alloc() : memref<index>
// CHECK-NEXT: sdfg.alloc() {name = "acc"} : memref<f64>
// CHECK-NEXT: sdfg.state {
sdfg.sdfg @late_reads(%x: memref<8xf64> {sdfg.name = "x"},
                      %n: memref<i64> {sdfg.name = "n"},
                      %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  %acc = sdfg.alloc() {name = "acc"} : memref<f64>
  sdfg.state {
    %z = sdfg.tasklet() : () -> f64 {
      %c = arith.constant 0.0 : f64
      sdfg.yield %c : f64
    }
    sdfg.store %z, %acc[] : memref<f64>
  }
  %c = sdfg.load %n[] : memref<i64>
  %nb = sdfg.tasklet(%c) : (i64) -> index {
  ^bb0(%u: i64):
    %i = arith.index_cast %u : i64 to index
    sdfg.yield %i : index
  }
  sdfg.loop %i = 0 to %nb step 1 {
    sdfg.state {
      %a = sdfg.load %acc[] : memref<f64>
      %v = sdfg.load %x[%i] : memref<8xf64>
      %r = sdfg.tasklet(%a, %v) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %m = arith.mulf %q, %q : f64
        %s = arith.addf %p, %m : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %acc[] : memref<f64>
    }
  }
  sdfg.state {
    %a = sdfg.load %acc[] : memref<f64>
    %r = sdfg.tasklet(%a) : (f64) -> f64 {
    ^bb0(%p: f64):
      %m = arith.mulf %p, %p : f64
      sdfg.yield %m : f64
    }
    sdfg.store %r, %y[] : memref<f64>
  }
}

// -----

// The same accumulation read inside the loop, after each write: the
// reversed iterations need every intermediate value, so each write is
// taped (one slot per iteration).
// CHECK-LABEL: sdfg.sdfg @early_reads_grad(
// CHECK: sdfg.alloc() : memref<8xf64>
// CHECK: sdfg.state "reverse"
sdfg.sdfg @early_reads(%x: memref<8xf64> {sdfg.name = "x"},
                       %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  %acc = sdfg.alloc() {name = "acc"} : memref<f64>
  sdfg.state {
    %z = sdfg.tasklet() : () -> f64 {
      %c = arith.constant 0.0 : f64
      sdfg.yield %c : f64
    }
    sdfg.store %z, %acc[] : memref<f64>
  }
  sdfg.loop %i = 0 to 8 step 1 {
    sdfg.state {
      %a = sdfg.load %acc[] : memref<f64>
      %v = sdfg.load %x[%i] : memref<8xf64>
      %r = sdfg.tasklet(%a, %v) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %m = arith.mulf %q, %q : f64
        %s = arith.addf %p, %m : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %acc[] : memref<f64>
    }
    sdfg.state {
      %a = sdfg.load %acc[] : memref<f64>
      %r = sdfg.tasklet(%a) : (f64) -> f64 {
      ^bb0(%p: f64):
        %m = arith.mulf %p, %p : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[] wcr(add) : memref<f64>
    }
  }
}

// -----

// op(A) X = B: dB = G = op(A)^-T dX (a solve with the other transpose, in
// dX's place), dA = -G X^T for a matrix right-hand side (a GEMM on -G
// with the forward solution), dA = -x G^T for a vector and op = transpose
// (an outer product).
// CHECK-LABEL: sdfg.sdfg @solve_grad(
// CHECK: sdfg.solve %A, %B -> %[[X:.*]] :
// CHECK: sdfg.solve %A, %b -> %[[Y:.*]] {transpose} :
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.solve %A, %[[DY:.*]] -> %[[DY]] : memref<3x3xf64>, memref<3xf64>
// CHECK: sdfg.store {{.*}}, %d_b[{{.*}}] wcr(add)
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (3, 3)
// CHECK-NEXT: sdfg.load %[[DY]][%[[J]]]
// CHECK-NEXT: sdfg.load %[[Y]][%[[I]]]
// CHECK: arith.mulf
// CHECK-NEXT: arith.negf
// CHECK: sdfg.solve %A, %[[DX:.*]] -> %[[DX]] {transpose} : memref<3x3xf64>, memref<3x2xf64>
// CHECK: sdfg.store {{.*}}, %d_B[{{.*}}] wcr(add)
// CHECK: arith.negf
// CHECK: sdfg.matmul %[[DX]], %[[X]] -> %d_A {accumulate, transpose_b}
sdfg.sdfg @solve(%A: memref<3x3xf64> {sdfg.name = "A"},
                 %B: memref<3x2xf64> {sdfg.name = "B"},
                 %b: memref<3xf64> {sdfg.name = "b"},
                 %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A", "B", "b"]} {
  %X = sdfg.alloc() : memref<3x2xf64>
  %y = sdfg.alloc() : memref<3xf64>
  %s = sdfg.alloc() : memref<f64>
  sdfg.state {
    sdfg.solve %A, %B -> %X : memref<3x3xf64>, memref<3x2xf64> -> memref<3x2xf64>
    sdfg.reduce add %X -> %out axes [0, 1] : memref<3x2xf64> -> memref<f64>
    sdfg.solve %A, %b -> %y {transpose} : memref<3x3xf64>, memref<3xf64> -> memref<3xf64>
    sdfg.reduce add %y -> %s axes [0] : memref<3xf64> -> memref<f64>
    sdfg.dot %y, %y -> %out {accumulate} : memref<3xf64>, memref<3xf64> -> memref<f64>
  }
}

// -----

// d det A = det A^-T: a scratch S = (d_out * det) I, S = A^-T S by a
// transposed solve in place (on the forward's factors), d_A += S.
// CHECK-LABEL: sdfg.sdfg @det_grad(
// CHECK: %[[S:.*]] = sdfg.alloc() : memref<3x3xf64>
// CHECK: sdfg.det det %A -> %out
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (3, 3)
// CHECK: %[[D:.*]] = sdfg.load %d_out[]
// CHECK: %[[R:.*]] = sdfg.load %out[]
// CHECK: sdfg.tasklet(%[[I]], %[[J]], %[[D]], %[[R]])
// CHECK: arith.mulf
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: sdfg.store %{{.*}}, %[[S]][%[[I]], %[[J]]]
// CHECK: sdfg.solve %A, %[[S]] -> %[[S]] {transpose}
// CHECK: sdfg.load %[[S]]
// CHECK: sdfg.store %{{.*}}, %d_A[{{.*}}] wcr(add)
sdfg.sdfg @det(%A: memref<3x3xf64> {sdfg.name = "A"},
               %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  sdfg.state {
    sdfg.det det %A -> %out : memref<3x3xf64> -> memref<f64>
  }
}

// -----

// The sign of a determinant is piecewise constant: no gradient reaches A
// through it (log|det A| gives A^-T).
// CHECK-LABEL: sdfg.sdfg @det_sign_grad(
// CHECK: sdfg.state "reverse"
// CHECK-NOT: sdfg.solve
// CHECK: sdfg.sdfg @det_logabs_grad(
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.solve %A, %{{.*}} {transpose}
sdfg.sdfg @det_sign(%A: memref<3x3xf64> {sdfg.name = "A"},
                    %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  sdfg.state {
    sdfg.det sign %A -> %out : memref<3x3xf64> -> memref<f64>
  }
}
sdfg.sdfg @det_logabs(%A: memref<3x3xf64> {sdfg.name = "A"},
                      %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  sdfg.state {
    sdfg.det logabs %A -> %out : memref<3x3xf64> -> memref<f64>
  }
}

// -----

// Cholesky (Murray 2016): the upper triangle of dL dropped, P = Phi(L^T dL)
// (lower triangle, diagonal halved), S^T = L^-T (L^-T P)^T by two
// transposed solves with the factor, dA += S + S^T below the diagonal and
// S on it.
// CHECK-LABEL: sdfg.sdfg @cholesky_grad(
// CHECK: sdfg.cholesky %A -> %[[L:.*]] :
// CHECK: sdfg.state "reverse"
// CHECK: arith.cmpi sge
// CHECK: sdfg.matmul %[[L]], %[[DL:.*]] -> %[[P:.*]] {transpose_a}
// CHECK: arith.constant 5.000000e-01
// CHECK: sdfg.solve %[[L]], %[[P]] -> %[[P]] {transpose}
// CHECK: sdfg.transpose %[[P]] -> %[[Q:.*]] :
// CHECK: sdfg.solve %[[L]], %[[Q]] -> %[[Q]] {transpose}
// CHECK: sdfg.load %[[Q]][%[[I:.*]], %[[J:.*]]]
// CHECK: sdfg.load %[[Q]][%[[J]], %[[I]]]
// CHECK: arith.addf
// CHECK: sdfg.store %{{.*}}, %d_A[%[[I]], %[[J]]]
sdfg.sdfg @cholesky(%A: memref<3x3xf64> {sdfg.name = "A"},
                    %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  %L = sdfg.alloc() : memref<3x3xf64>
  sdfg.state {
    sdfg.cholesky %A -> %L : memref<3x3xf64> -> memref<3x3xf64>
    sdfg.reduce add %L -> %out axes [0, 1] : memref<3x3xf64> -> memref<f64>
  }
}

// -----

// Eigenvalues: the eigenvectors again from A, M = V diag(dw), S = M V^T;
// dA += S + S^T below the diagonal and S on it.
// CHECK-LABEL: sdfg.sdfg @eigvalsh_grad(
// CHECK: sdfg.eigh values %A -> %[[W:.*]] :
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.eigh vectors %A -> %[[V:.*]] :
// CHECK: arith.mulf
// CHECK: sdfg.matmul %[[M:.*]], %[[V]] -> %[[S:.*]] {transpose_b}
// CHECK: sdfg.load %[[S]][%[[I:.*]], %[[J:.*]]]
// CHECK: sdfg.load %[[S]][%[[J]], %[[I]]]
// CHECK: arith.addf
// CHECK: sdfg.store %{{.*}}, %d_A[%[[I]], %[[J]]]
sdfg.sdfg @eigvalsh(%A: memref<3x3xf64> {sdfg.name = "A"},
                    %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  %w = sdfg.alloc() : memref<3xf64>
  sdfg.state {
    sdfg.eigh values %A -> %w : memref<3x3xf64> -> memref<3xf64>
    sdfg.reduce add %w -> %out axes [0] : memref<3xf64> -> memref<f64>
  }
}

// -----

// Eigenvectors: the eigenvalues again from A, G = V^T dV, G /= w[j] - w[i]
// off the diagonal (0 on it), M = V G, S = M V^T, dA as for eigenvalues.
// CHECK-LABEL: sdfg.sdfg @eigvecs_grad(
// CHECK: sdfg.eigh vectors %A -> %[[V:.*]] :
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.eigh values %A -> %[[W:.*]] :
// CHECK: sdfg.matmul %[[V]], %[[DV:.*]] -> %[[G:.*]] {transpose_a}
// CHECK: arith.subf
// CHECK: arith.divf
// CHECK: sdfg.matmul %[[V]], %[[G]] -> %[[M:.*]] :
// CHECK: sdfg.matmul %[[M]], %[[V]] -> %[[S:.*]] {transpose_b}
// CHECK: sdfg.store %{{.*}}, %d_A[
sdfg.sdfg @eigvecs(%A: memref<3x3xf64> {sdfg.name = "A"},
                   %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  %V = sdfg.alloc() : memref<3x3xf64>
  sdfg.state {
    sdfg.eigh vectors %A -> %V : memref<3x3xf64> -> memref<3x3xf64>
    sdfg.reduce add %V -> %out axes [0, 1] : memref<3x3xf64> -> memref<f64>
  }
}

// -----

// QR, the Q part: R again from A, G = Q^T dQ, P = tril(G - G^T) - G,
// X^T = R^-1 (Q P + dQ)^T, dA += X. The solve reads R with the diagonal
// entries at most max|R_kk| * max(m, n) * eps (5 * 2^-52 here) set to
// zero: a rank-deficient A raises whatever the rounding.
// CHECK-LABEL: sdfg.sdfg @qr_q_grad(
// CHECK: sdfg.qr q %A -> %[[Q:.*]] :
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.qr r %A -> %[[R:.*]] :
// CHECK: sdfg.matmul %[[Q]], %[[DQ:.*]] -> %[[G:.*]] {transpose_a}
// CHECK: sdfg.load %[[G]][%[[I:.*]], %[[J:.*]]]
// CHECK: sdfg.load %[[G]][%[[J]], %[[I]]]
// CHECK: arith.cmpi sge
// CHECK: arith.subf
// CHECK: arith.subf
// CHECK: sdfg.matmul %[[Q]], %[[P:.*]] -> %[[QP:.*]] :
// CHECK: sdfg.transpose %[[QP]] -> %[[XT:.*]] :
// CHECK: sdfg.transpose %[[DQ]] -> %[[XT]] {accumulate}
// CHECK: sdfg.load %[[R]][
// CHECK: arith.negf
// CHECK: arith.select
// CHECK: sdfg.store %{{.*}}, %[[DIAG:.*]][
// CHECK: sdfg.reduce max %[[DIAG]] -> %[[MAX:.*]] axes [0, 1]
// CHECK: sdfg.load %[[R]][
// CHECK: sdfg.load %[[MAX]][]
// CHECK: arith.constant 1.1102230246251565E-15 : f64
// CHECK: arith.cmpf ole
// CHECK: sdfg.store %{{.*}}, %[[RC:.*]][
// CHECK: sdfg.solve %[[RC]], %[[XT]] -> %[[XT]] :
// CHECK: sdfg.transpose %[[XT]] -> %d_A {accumulate}
sdfg.sdfg @qr_q(%A: memref<5x3xf64> {sdfg.name = "A"},
                %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  %Q = sdfg.alloc() : memref<5x3xf64>
  sdfg.state {
    sdfg.qr q %A -> %Q : memref<5x3xf64> -> memref<5x3xf64>
    sdfg.reduce add %Q -> %out axes [0, 1] : memref<5x3xf64> -> memref<f64>
  }
}

// -----

// QR, the R part: Q again from A, H = R dR^T, P = tril(H - H^T),
// X^T = R^-1 (Q P)^T, dA += X + Q dR.
// CHECK-LABEL: sdfg.sdfg @qr_r_grad(
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.qr q %A -> %[[Q:.*]] :
// CHECK: sdfg.matmul %[[R:.*]], %[[DR:.*]] -> %{{.*}} {transpose_b}
// CHECK: sdfg.reduce max %[[DIAG:.*]] -> %[[MAX:.*]] axes [0, 1]
// CHECK: sdfg.load %[[R]][
// CHECK: sdfg.load %[[MAX]][]
// CHECK: sdfg.store %{{.*}}, %[[RC:.*]][
// CHECK: sdfg.solve %[[RC]], %[[XT:.*]] -> %[[XT]] :
// CHECK: sdfg.transpose %[[XT]] -> %d_A {accumulate}
// CHECK: sdfg.matmul %[[Q]], %[[DR]] -> %d_A {accumulate}
sdfg.sdfg @qr_r(%A: memref<5x3xf64> {sdfg.name = "A"},
                %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  %R = sdfg.alloc() : memref<3x3xf64>
  sdfg.state {
    sdfg.qr r %A -> %R : memref<5x3xf64> -> memref<3x3xf64>
    sdfg.reduce add %R -> %out axes [0, 1] : memref<3x3xf64> -> memref<f64>
  }
}

// -----

// SVD, the singular values: U and Vh again from A, dA += (U diag(ds)) Vh.
// CHECK-LABEL: sdfg.sdfg @svd_s_grad(
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.svd u %A -> %[[U:.*]] :
// CHECK: sdfg.svd vh %A -> %[[VH:.*]] :
// CHECK: arith.mulf
// CHECK: sdfg.matmul %[[M:.*]], %[[VH]] -> %d_A {accumulate}
sdfg.sdfg @svd_s(%A: memref<5x3xf64> {sdfg.name = "A"},
                 %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  %s = sdfg.alloc() : memref<3xf64>
  sdfg.state {
    sdfg.svd s %A -> %s : memref<5x3xf64> -> memref<3xf64>
    sdfg.reduce add %s -> %out axes [0] : memref<3xf64> -> memref<f64>
  }
}

// -----

// SVD, the left vectors: s (with the vectors' rounding) and Vh again,
// G = U^T dU, P = F o (G - G^T) diag(s), dA += (U P + (dU - U G) / s) Vh.
// CHECK-LABEL: sdfg.sdfg @svd_u_grad(
// CHECK: sdfg.state "reverse"
// CHECK: sdfg.svd s %A -> %[[S:.*]] {with_vectors} :
// CHECK: sdfg.svd vh %A -> %[[VH:.*]] :
// CHECK: sdfg.matmul %[[U:.*]], %[[DU:.*]] -> %[[G:.*]] {transpose_a}
// CHECK: arith.divf
// CHECK: sdfg.matmul %[[U]], %[[P:.*]] -> %[[SUM:.*]] :
// CHECK: sdfg.matmul %[[U]], %[[G]] -> %[[UG:.*]] :
// CHECK: sdfg.matmul %[[SUM]], %[[VH]] -> %d_A {accumulate}
sdfg.sdfg @svd_u(%A: memref<5x3xf64> {sdfg.name = "A"},
                 %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A"]} {
  %U = sdfg.alloc() : memref<5x3xf64>
  sdfg.state {
    sdfg.svd u %A -> %U : memref<5x3xf64> -> memref<5x3xf64>
    sdfg.reduce add %U -> %out axes [0, 1] : memref<5x3xf64> -> memref<f64>
  }
}

// -----

// C = alpha A B: both gradients carry the same alpha.
// CHECK-LABEL: sdfg.sdfg @scaled_matmul_grad(
// CHECK: sdfg.matmul %{{.*}}, %B -> %d_A {accumulate, alpha = 1.250000e-01 : f64, transpose_b}
// CHECK: sdfg.matmul %A, %{{.*}} -> %d_B {accumulate, alpha = 1.250000e-01 : f64, transpose_a}
sdfg.sdfg @scaled_matmul(%A: memref<4x3xf64> {sdfg.name = "A"},
                         %B: memref<3x5xf64> {sdfg.name = "B"},
                         %out: memref<f64> {sdfg.name = "out"})
    attributes {ad_output = "out", ad_wrt = ["A", "B"]} {
  %C = sdfg.alloc() : memref<4x5xf64>
  sdfg.state {
    sdfg.matmul %A, %B -> %C {alpha = 0.125 : f64} : memref<4x3xf64>, memref<3x5xf64> -> memref<4x5xf64>
    sdfg.reduce add %C -> %out axes [0, 1] : memref<4x5xf64> -> memref<f64>
  }
}

// -----

// argsort has no gradient of its own (integer positions); the gather that
// reads them carries it. In a loop, what the op overwrites is taped before
// it runs and restored after the reversal of the iteration's gather, so
// each reversed gather scatters through its own iteration's positions.
// CHECK-LABEL: sdfg.sdfg @sorted_steps_grad(
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<2x4xi64>
// CHECK: %[[P:.*]] = sdfg.alloc() : memref<4xi64>
// CHECK: sdfg.loop %[[T:.*]] = 0 to 2 step 1 {
// CHECK: %[[OLD:.*]] = sdfg.load %[[P]][%[[I:.*]]] : memref<4xi64>
// CHECK-NEXT: sdfg.store %[[OLD]], %[[TAPE]][%[[T]], %[[I]]] : memref<2x4xi64>
// CHECK: sdfg.argsort %{{.*}} axis 0 -> %[[P]]
// CHECK: sdfg.loop %[[R:.*]] = 1 to -1 step -1 {
// CHECK: sdfg.load %[[P]]
// CHECK: sdfg.store %{{.*}} wcr(add) : memref<4xf64>
// CHECK: %[[BACK:.*]] = sdfg.load %[[TAPE]][%[[R]], %[[J:.*]]] : memref<2x4xi64>
// CHECK-NEXT: sdfg.store %[[BACK]], %[[P]][%[[J]]] : memref<4xi64>
// CHECK-NOT: sdfg.argsort
sdfg.sdfg @sorted_steps(%x: memref<2x4xf64> {sdfg.name = "x"},
                        %s: memref<f64> {sdfg.name = "s"})
    attributes {ad_output = "s", ad_wrt = ["x"]} {
  %p = sdfg.alloc() : memref<4xi64>
  %row = sdfg.alloc() : memref<4xf64>
  sdfg.loop %t = 0 to 2 step 1 {
    sdfg.state {
      sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
        %v = sdfg.load %x[%t, %i] : memref<2x4xf64>
        sdfg.store %v, %row[%i] : memref<4xf64>
      }
      sdfg.argsort %row axis 0 -> %p : memref<4xf64> -> memref<4xi64>
      sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
        %k = sdfg.load %p[%i] : memref<4xi64>
        %j = sdfg.tasklet(%k) : (i64) -> index {
        ^bb0(%a: i64):
          %c = arith.index_cast %a : i64 to index
          sdfg.yield %c : index
        }
        %v = sdfg.load %row[%j] : memref<4xf64>
        %w = sdfg.tasklet(%v, %i) : (f64, index) -> f64 {
        ^bb0(%a: f64, %n: index):
          %c = arith.index_cast %n : index to i64
          %f = arith.sitofp %c : i64 to f64
          %m = arith.mulf %a, %f : f64
          sdfg.yield %m : f64
        }
        sdfg.store %w, %s[] wcr(add) : memref<f64>
      }
    }
  }
}

// -----

// searchsorted, like argsort, has no gradient (integer positions): the
// gather of a rate per bin carries it to the rates. Its result is taped
// before each iteration overwrites it and restored after the reversal of
// that iteration's gather.
// CHECK-LABEL: sdfg.sdfg @binned_steps_grad(
// CHECK: %[[TAPE:.*]] = sdfg.alloc() : memref<3x4xi64>
// CHECK: %[[P:.*]] = sdfg.alloc() : memref<4xi64>
// CHECK: sdfg.loop %[[T:.*]] = 0 to 3 step 1 {
// CHECK: %[[OLD:.*]] = sdfg.load %[[P]][%[[I:.*]]] : memref<4xi64>
// CHECK-NEXT: sdfg.store %[[OLD]], %[[TAPE]][%[[T]], %[[I]]] : memref<3x4xi64>
// CHECK: sdfg.searchsorted %{{.*}} in %edges right -> %[[P]]
// CHECK: sdfg.loop %[[R:.*]] = 2 to -1 step -1 {
// CHECK: sdfg.load %[[P]]
// CHECK: sdfg.store %{{.*}}, %d_rates[%{{.*}}] wcr(add) : memref<6xf64>
// CHECK: %[[BACK:.*]] = sdfg.load %[[TAPE]][%[[R]], %[[J:.*]]] : memref<3x4xi64>
// CHECK-NEXT: sdfg.store %[[BACK]], %[[P]][%[[J]]] : memref<4xi64>
// CHECK-NOT: sdfg.searchsorted
sdfg.sdfg @binned_steps(%x: memref<4xf64> {sdfg.name = "x"},
                        %edges: memref<5xf64> {sdfg.name = "edges"},
                        %rates: memref<6xf64> {sdfg.name = "rates"},
                        %s: memref<f64> {sdfg.name = "s"})
    attributes {ad_output = "s", ad_wrt = ["rates"]} {
  %p = sdfg.alloc() : memref<4xi64>
  sdfg.loop %t = 0 to 3 step 1 {
    sdfg.state {
      sdfg.searchsorted %x in %edges right -> %p : memref<4xf64> in memref<5xf64> -> memref<4xi64>
      sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
        %k = sdfg.load %p[%i] : memref<4xi64>
        %j = sdfg.tasklet(%k) : (i64) -> index {
        ^bb0(%a: i64):
          %c = arith.index_cast %a : i64 to index
          sdfg.yield %c : index
        }
        %r = sdfg.load %rates[%j] : memref<6xf64>
        %v = sdfg.load %x[%i] : memref<4xf64>
        %w = sdfg.tasklet(%r, %v) : (f64, f64) -> f64 {
        ^bb0(%a: f64, %b: f64):
          %m = arith.mulf %a, %b : f64
          sdfg.yield %m : f64
        }
        sdfg.store %w, %s[] wcr(add) : memref<f64>
      }
    }
  }
}

// -----

// A loop without iterations (constant bounds) has nothing to reverse; its
// "last iteration" below the range of loop bounds once made the pass build
// a loop its verifier rejected.
// CHECK-LABEL: sdfg.sdfg @no_trips_grad(
// CHECK: sdfg.loop %{{.*}} = 0 to -4611686018427387903 step 1 {
// CHECK-NOT: sdfg.loop
// CHECK: sdfg.state "zero"
// CHECK-NOT: sdfg.loop
sdfg.sdfg @no_trips(%A: memref<10xf64> {sdfg.name = "A"},
                    %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["A"]} {
  sdfg.loop %i = 0 to -4611686018427387903 step 1 {
    sdfg.state {
      %a = sdfg.load %A[%i] : memref<10xf64>
      sdfg.store %a, %y[] wcr(add) : memref<f64>
    }
  }
}
