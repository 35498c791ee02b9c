// RUN: sdfg-opt %s --sdfg-eliminate-dead-writes -split-input-file | FileCheck %s

// A zero fill that the next map overwrites element by element (through a
// transposed index: still each element once), reading each element just
// before writing it: the read becomes a zero, the wcr(add) a plain store,
// and the fill and its state go.
// CHECK-LABEL: sdfg.sdfg @fold_into_map
// CHECK-NOT: "zero"
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (3, 4)
// CHECK-NEXT: %[[Z:.*]] = sdfg.tasklet() : () -> f64 {
// CHECK-NEXT: arith.constant 0.0
// CHECK: sdfg.tasklet(%[[Z]], %{{.*}})
// CHECK: sdfg.store %{{.*}}, %g[%[[J]], %[[I]]] : memref<4x3xf64>
// CHECK-NOT: sdfg.map
sdfg.sdfg @fold_into_map(%x: memref<3x4xf64> {sdfg.name = "x"},
                         %g: memref<4x3xf64> {sdfg.name = "g"}) {
  sdfg.state "zero" {
    sdfg.map (%i, %j) = (0, 0) to (4, 3) step (1, 1) schedule(cpu_multicore) {
      %z = sdfg.tasklet() : () -> f64 {
        %c = arith.constant 0.0 : f64
        sdfg.yield %c : f64
      }
      sdfg.store %z, %g[%i, %j] : memref<4x3xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (3, 4) step (1, 1) schedule(cpu_multicore) {
      %old = sdfg.load %g[%j, %i] : memref<4x3xf64>
      %v = sdfg.load %x[%i, %j] : memref<3x4xf64>
      %s = sdfg.tasklet(%old, %v) : (f64, f64) -> f64 {
      ^bb0(%a: f64, %b: f64):
        %r = arith.addf %a, %b : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %g[%j, %i] wcr(add) : memref<4x3xf64>
    }
  }
}

// -----

// Library ops that add into a zero-filled output write it instead; ops in
// between that do not touch the container do not matter.
// CHECK-LABEL: sdfg.sdfg @fold_into_library_ops
// CHECK-NOT: sdfg.map
// CHECK: sdfg.matmul %a, %b -> %c {transpose_b} :
// CHECK: sdfg.gemv %a, %v -> %y : memref
// CHECK: sdfg.reduce add %a -> %r axes [0] : memref
sdfg.sdfg @fold_into_library_ops(%a: memref<4x4xf64> {sdfg.name = "a"},
                                 %b: memref<4x4xf64> {sdfg.name = "b"},
                                 %v: memref<4xf64> {sdfg.name = "v"},
                                 %c: memref<4x4xf64> {sdfg.name = "c"},
                                 %y: memref<4xf64> {sdfg.name = "y"},
                                 %r: memref<4xf64> {sdfg.name = "r"}) {
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %c[%i, %j] : memref<4x4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %y[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %r[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.matmul %a, %b -> %c {accumulate, transpose_b} : memref<4x4xf64>, memref<4x4xf64> -> memref<4x4xf64>
    sdfg.gemv %a, %v -> %y {accumulate} : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
    sdfg.reduce add %a -> %r axes [0] {accumulate} : memref<4x4xf64> -> memref<4xf64>
  }
}

// -----

// Fills that must stay: the next map writes only part of the container, or
// writes each element from several iterations, or reads another element
// first; a max reduction; a loop (nothing is known about the order of its
// accesses).
// CHECK-LABEL: sdfg.sdfg @kept
// CHECK-COUNT-5: sdfg.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<4xf64>
// CHECK: sdfg.store %{{.*}}, %p[%{{.*}}] wcr(add)
// CHECK: sdfg.store %{{.*}}, %q[%{{.*}}] wcr(add)
// CHECK: sdfg.reduce max %a -> %m axes [1] {accumulate}
// CHECK: sdfg.loop
sdfg.sdfg @kept(%a: memref<4x4xf64> {sdfg.name = "a"},
                %p: memref<4xf64> {sdfg.name = "p"},
                %q: memref<4xf64> {sdfg.name = "q"},
                %s: memref<4xf64> {sdfg.name = "s"},
                %m: memref<4xf64> {sdfg.name = "m"},
                %l: memref<4xf64> {sdfg.name = "l"}) {
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %p[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %q[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %s[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %m[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %l[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (1) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %a[%i, %i] : memref<4x4xf64>
      sdfg.store %v, %p[%i] wcr(add) : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %v = sdfg.load %a[%i, %j] : memref<4x4xf64>
      sdfg.store %v, %q[%i] wcr(add) : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %s[3 - %i] : memref<4xf64>
      sdfg.store %v, %s[%i] : memref<4xf64>
    }
  }
  sdfg.state {
    sdfg.reduce max %a -> %m axes [1] {accumulate} : memref<4x4xf64> -> memref<4xf64>
  }
  sdfg.loop %k = 0 to 4 step 1 {
    sdfg.state {
      %v = sdfg.load %a[%k, %k] : memref<4x4xf64>
      sdfg.store %v, %l[%k] wcr(add) : memref<4xf64>
    }
  }
}

// -----

// Writes to transients that nothing reads afterwards go: the clear after
// the last read (a whole map), and in the last reader the store that
// follows its read. Writes to arguments stay: the caller reads them.
// CHECK-LABEL: sdfg.sdfg @dead
// CHECK: %[[T:.*]] = sdfg.alloc() : memref<4xf64>
// CHECK-NOT: sdfg.alloc
// CHECK: sdfg.store %{{.*}}, %[[T]][%{{.*}}] : memref<4xf64>
// CHECK: sdfg.map
// CHECK-NEXT: sdfg.load %[[T]]
// CHECK-NEXT: sdfg.store %{{.*}}, %out[
// CHECK-NEXT: }
// CHECK-NEXT: sdfg.map
// CHECK-NEXT: sdfg.tasklet
// CHECK: sdfg.store %{{.*}}, %out[
// CHECK-NOT: sdfg.map
sdfg.sdfg @dead(%x: memref<4xf64> {sdfg.name = "x"},
                %out: memref<4xf64> {sdfg.name = "out"}) {
  %t = sdfg.alloc() : memref<4xf64>
  %u = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<4xf64>
      sdfg.store %v, %t[%i] : memref<4xf64>
      sdfg.store %v, %u[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %t[%i] : memref<4xf64>
      sdfg.store %v, %out[%i] : memref<4xf64>
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %t[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %t[%i] : memref<4xf64>
      sdfg.store %z, %out[%i] : memref<4xf64>
    }
  }
}

// -----

// Kept: a transient read later inside a loop; a store in the last reader
// that comes before its read (the read sees it).
// CHECK-LABEL: sdfg.sdfg @live
// CHECK: %[[T:.*]] = sdfg.alloc() {name = "t"}
// CHECK: sdfg.store %{{.*}}, %[[T]][
// CHECK: sdfg.loop
// CHECK: sdfg.store %{{.*}}, %[[T]][
sdfg.sdfg @live(%x: memref<4xf64> {sdfg.name = "x"},
                %out: memref<4xf64> {sdfg.name = "out"}) {
  %t = sdfg.alloc() {name = "t"} : memref<4xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<4xf64>
      sdfg.store %v, %t[%i] : memref<4xf64>
      %w = sdfg.load %t[%i] : memref<4xf64>
      sdfg.store %w, %out[%i] : memref<4xf64>
    }
  }
  sdfg.loop %k = 0 to 4 step 1 {
    sdfg.state {
      %v = sdfg.load %x[%k] : memref<4xf64>
      sdfg.store %v, %t[%k] : memref<4xf64>
      %w = sdfg.load %t[%k] : memref<4xf64>
      sdfg.store %w, %out[%k] wcr(add) : memref<4xf64>
    }
  }
}

// -----

// A consumed gradient cleared and then accumulated into at the same
// element of the same block is written once; this is local, so it applies
// inside loops too. A 0-d fill read by a state-level load reads zero.
// CHECK-LABEL: sdfg.sdfg @clear_then_add
// CHECK: sdfg.loop
// CHECK: %[[OLD:.*]] = sdfg.load %g[%{{.*}}]
// CHECK-NOT: sdfg.store
// CHECK: sdfg.store %{{.*}}, %g[%{{.*}}] : memref<4xf64>
// CHECK-NOT: sdfg.store
// CHECK: sdfg.state {
// CHECK-NEXT: %[[Z:.*]] = sdfg.tasklet() : () -> f64 {
// CHECK: sdfg.tasklet(%[[Z]])
// CHECK: sdfg.store %{{.*}}, %s[] : memref<f64>
sdfg.sdfg @clear_then_add(%x: memref<4xf64> {sdfg.name = "x"},
                          %g: memref<4xf64> {sdfg.name = "g"},
                          %s: memref<f64> {sdfg.name = "s"}) {
  sdfg.loop %k = 0 to 4 step 1 {
    sdfg.state {
      %old = sdfg.load %g[%k] : memref<4xf64>
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %g[%k] : memref<4xf64>
      %v = sdfg.load %x[%k] : memref<4xf64>
      %p = sdfg.tasklet(%old, %v) : (f64, f64) -> f64 {
      ^bb0(%a: f64, %b: f64):
        %r = arith.mulf %a, %b : f64
        sdfg.yield %r : f64
      }
      sdfg.store %p, %g[%k] wcr(add) : memref<4xf64>
    }
  }
  sdfg.state {
    %z = sdfg.tasklet() : () -> f64 {
      %c0 = arith.constant 0.0 : f64
      sdfg.yield %c0 : f64
    }
    sdfg.store %z, %s[] : memref<f64>
  }
  sdfg.state {
    %old = sdfg.load %s[] : memref<f64>
    %n = sdfg.tasklet(%old) : (f64) -> f64 {
    ^bb0(%a: f64):
      %one = arith.constant 1.0 : f64
      %r = arith.addf %a, %one : f64
      sdfg.yield %r : f64
    }
    sdfg.store %n, %s[] wcr(add) : memref<f64>
  }
}

// -----

// Arguments marked sdfg.discardable are treated like transients. A library
// op that overwrites a container nobody reads goes, and then the writes of
// what it read (w) go too; a tasklet result that nothing uses goes with
// its computation, the input and the load that fed it, which frees earlier
// writes of that container (u). The result `out` stays, and what it needs
// (v).
// CHECK-LABEL: sdfg.sdfg @discardable
// CHECK-NOT: sdfg.alloc
// CHECK-NOT: %w[
// CHECK-NOT: %u[
// CHECK-NOT: sdfg.gemv
// CHECK: sdfg.map
// CHECK: sdfg.load %v[
// CHECK: sdfg.tasklet(%{{[^,]*}}) : (f64) -> f64
// CHECK: sdfg.store %{{.*}}, %out[
sdfg.sdfg @discardable(%a: memref<4x4xf64> {sdfg.name = "a"},
                       %v: memref<4xf64> {sdfg.name = "v"},
                       %w: memref<4xf64> {sdfg.discardable, sdfg.name = "w"},
                       %u: memref<4xf64> {sdfg.discardable, sdfg.name = "u"},
                       %out: memref<4xf64> {sdfg.name = "out"}) {
  %t = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %d = sdfg.load %a[%i, %i] : memref<4x4xf64>
      sdfg.store %d, %w[%i] : memref<4xf64>
      sdfg.store %d, %u[%i] : memref<4xf64>
    }
    sdfg.gemv %a, %w -> %t : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %p = sdfg.load %v[%i] : memref<4xf64>
      %q = sdfg.load %u[%i] : memref<4xf64>
      %r:2 = sdfg.tasklet(%p, %q) : (f64, f64) -> (f64, f64) {
      ^bb0(%x: f64, %y: f64):
        %unused = arith.mulf %y, %y : f64
        %two = arith.addf %x, %x : f64
        sdfg.yield %two, %unused : f64, f64
      }
      sdfg.store %r#0, %out[%i] : memref<4xf64>
    }
  }
}

// -----

// Fills of other constants: reads become the constant (the autodiff's unit
// seed s disappears), but a container that a library op reads keeps its
// fill, even when a later map overwrites it all: here t, which becomes a
// fill of ones once s's reads are folded, must still hold them for the
// gemv.
// CHECK-LABEL: sdfg.sdfg @constant_fills
// CHECK-NOT: %s[
// CHECK: %[[T:.*]] = sdfg.alloc() : memref<4xf64>
// CHECK: sdfg.map
// CHECK: arith.constant 1.0
// CHECK: sdfg.store %{{.*}}, %[[T]][%{{.*}}] : memref<4xf64>
// CHECK-NEXT: }
// CHECK-NEXT: sdfg.gemv %a, %[[T]] -> %y
// CHECK-NOT: sdfg.map
sdfg.sdfg @constant_fills(%a: memref<3x4xf64> {sdfg.name = "a"},
                          %y: memref<3xf64> {sdfg.name = "y"},
                          %s: memref<4xf64> {sdfg.discardable, sdfg.name = "s"}) {
  %t = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %one = sdfg.tasklet() : () -> f64 {
        %c1 = arith.constant 1.0 : f64
        sdfg.yield %c1 : f64
      }
      sdfg.store %one, %s[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %t[%i] : memref<4xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %s[%i] : memref<4xf64>
      sdfg.store %v, %t[%i] wcr(add) : memref<4xf64>
    }
    sdfg.gemv %a, %t -> %y : memref<3x4xf64>, memref<4xf64> -> memref<3xf64>
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %z = sdfg.tasklet() : () -> f64 {
        %c0 = arith.constant 0.0 : f64
        sdfg.yield %c0 : f64
      }
      sdfg.store %z, %t[%i] : memref<4xf64>
    }
  }
}

// -----

// Transients whose values reach only each other: %t accumulates in a loop,
// %u is computed from it there, and nothing after the loop reads either.
// The loop reads them, so the writes are not dead by position; they are by
// where their values go. Everything goes, the emptied loop too.
// CHECK-LABEL: sdfg.sdfg @dead_containers
// CHECK-NOT: sdfg.alloc
// CHECK-NOT: sdfg.loop
// CHECK: sdfg.state {
// CHECK-NEXT: sdfg.map
// CHECK-NOT: %t
sdfg.sdfg @dead_containers(%a: memref<8xf64> {sdfg.name = "a"},
                           %y: memref<8xf64> {sdfg.name = "y"}) {
  %t = sdfg.alloc() : memref<f64>
  %u = sdfg.alloc() : memref<8xf64>
  sdfg.loop %i = 0 to 8 step 1 {
    sdfg.state {
      %old = sdfg.load %t[] : memref<f64>
      %v = sdfg.load %a[%i] : memref<8xf64>
      %s:2 = sdfg.tasklet(%old, %v) : (f64, f64) -> (f64, f64) {
      ^bb0(%p: f64, %q: f64):
        %e = math.tanh %q : f64
        %r = arith.addf %p, %e : f64
        sdfg.yield %r, %e : f64, f64
      }
      sdfg.store %s#0, %t[] : memref<f64>
      %w = sdfg.load %u[%i] : memref<8xf64>
      %n = sdfg.tasklet(%w, %old) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %r = arith.mulf %p, %q : f64
        sdfg.yield %r : f64
      }
      sdfg.store %n, %u[%i] wcr(add) : memref<8xf64>
    }
  }
  sdfg.state {
    sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
      %v = sdfg.load %a[%i] : memref<8xf64>
      sdfg.store %v, %y[%i] : memref<8xf64>
    }
  }
}

// -----

// The same loop, with values that reach something live: %t into %y after
// the loop, %u into %y in it (through an index), %w into a loop bound.
// CHECK-LABEL: sdfg.sdfg @live_containers
// CHECK-COUNT-3: sdfg.alloc
// CHECK: sdfg.store %{{.*}}, %[[T:.*]][] : memref<f64>
// CHECK: sdfg.store %{{.*}}, %[[U:.*]][%{{.*}}] wcr(add) : memref<8xi64>
// CHECK: sdfg.store %{{.*}}, %[[W:.*]][] : memref<index>
sdfg.sdfg @live_containers(%a: memref<8xf64> {sdfg.name = "a"},
                           %y: memref<8xf64> {sdfg.name = "y"}) {
  %t = sdfg.alloc() : memref<f64>
  %u = sdfg.alloc() : memref<8xi64>
  %w = sdfg.alloc() : memref<index>
  sdfg.loop %i = 0 to 8 step 1 {
    sdfg.state {
      %old = sdfg.load %t[] : memref<f64>
      %v = sdfg.load %a[%i] : memref<8xf64>
      %s = sdfg.tasklet(%old, %v) : (f64, f64) -> f64 {
      ^bb0(%p: f64, %q: f64):
        %r = arith.addf %p, %q : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %t[] : memref<f64>
      %k:2 = sdfg.tasklet() : () -> (i64, index) {
        %c = arith.constant 1 : i64
        %d = arith.constant 1 : index
        sdfg.yield %c, %d : i64, index
      }
      sdfg.store %k#0, %u[%i] wcr(add) : memref<8xi64>
      %l = sdfg.load %u[%i] : memref<8xi64>
      %j = sdfg.tasklet(%l) : (i64) -> index {
      ^bb0(%p: i64):
        %r = arith.index_cast %p : i64 to index
        sdfg.yield %r : index
      }
      sdfg.store %v, %y[%j] : memref<8xf64>
      sdfg.store %k#1, %w[] : memref<index>
    }
  }
  %n = sdfg.load %w[] : memref<index>
  sdfg.loop %i = 0 to %n step 1 {
    sdfg.state {
      %v = sdfg.load %t[] : memref<f64>
      sdfg.store %v, %y[%i] : memref<8xf64>
    }
  }
}

// -----

// A returned result: the transient's writers (here a GEMM) write the
// output directly and the copy goes.
// CHECK-LABEL: sdfg.sdfg @forward_copy
// CHECK-NOT: sdfg.alloc
// CHECK: sdfg.matmul %arg0, %arg1 -> %arg2
// CHECK-NOT: sdfg.map
sdfg.sdfg @forward_copy(%A: memref<4x3xf64>, %B: memref<3x5xf64>,
                        %R: memref<4x5xf64>) {
  %T = sdfg.alloc() : memref<4x5xf64>
  sdfg.state {
    sdfg.matmul %A, %B -> %T : memref<4x3xf64>, memref<3x5xf64> -> memref<4x5xf64>
    sdfg.map (%i, %j) = (0, 0) to (4, 5) step (1, 1) schedule(cpu_multicore) {
      %v = sdfg.load %T[%i, %j] : memref<4x5xf64>
      sdfg.store %v, %R[%i, %j] : memref<4x5xf64>
    }
  }
}

// -----

// Kept: the target is read between the transient's first write and the
// copy (writing it early would change what that read sees), and in the
// second program the transient is read after the copy.
// CHECK-LABEL: sdfg.sdfg @target_read_before
// CHECK: sdfg.alloc
// CHECK: sdfg.matmul %arg0, %arg1 -> %[[T:.*]] :
// CHECK: sdfg.load %arg2
// CHECK: sdfg.load %[[T]]
// CHECK: sdfg.store %{{.*}}, %arg2
sdfg.sdfg @target_read_before(%A: memref<4x3xf64>, %B: memref<3x5xf64>,
                              %R: memref<4x5xf64>, %s: memref<f64>) {
  %T = sdfg.alloc() : memref<4x5xf64>
  sdfg.state {
    sdfg.matmul %A, %B -> %T : memref<4x3xf64>, memref<3x5xf64> -> memref<4x5xf64>
    %r = sdfg.load %R[0, 0] : memref<4x5xf64>
    sdfg.store %r, %s[] : memref<f64>
    sdfg.map (%i, %j) = (0, 0) to (4, 5) step (1, 1) schedule(cpu_multicore) {
      %v = sdfg.load %T[%i, %j] : memref<4x5xf64>
      sdfg.store %v, %R[%i, %j] : memref<4x5xf64>
    }
  }
}

// CHECK-LABEL: sdfg.sdfg @transient_read_after
// CHECK: sdfg.alloc
// CHECK: sdfg.map
// CHECK: sdfg.store %{{.*}}, %arg2
sdfg.sdfg @transient_read_after(%A: memref<4x3xf64>, %B: memref<3x5xf64>,
                                %R: memref<4x5xf64>, %s: memref<f64>) {
  %T = sdfg.alloc() : memref<4x5xf64>
  sdfg.state {
    sdfg.matmul %A, %B -> %T : memref<4x3xf64>, memref<3x5xf64> -> memref<4x5xf64>
    sdfg.map (%i, %j) = (0, 0) to (4, 5) step (1, 1) schedule(cpu_multicore) {
      %v = sdfg.load %T[%i, %j] : memref<4x5xf64>
      sdfg.store %v, %R[%i, %j] : memref<4x5xf64>
    }
    %t = sdfg.load %T[1, 1] : memref<4x5xf64>
    sdfg.store %t, %s[] : memref<f64>
  }
}

// -----

// A dead transient that one op uses twice (an in-place solve, as the
// autodiff emits for det's log-abs; a copy within it) is erased once: the
// op was collected once per use and freed twice.
// CHECK-LABEL: sdfg.sdfg @twice_used
// CHECK-NEXT: }
sdfg.sdfg @twice_used(%A: memref<3x3xf64>) {
  %0 = sdfg.alloc() : memref<3x3xf64>
  %1 = sdfg.alloc() : memref<4xf64>
  sdfg.state {
    sdfg.solve %A, %0 -> %0 : memref<3x3xf64>, memref<3x3xf64> -> memref<3x3xf64>
    sdfg.copy %1[0:2] to %1[2:4] : memref<4xf64> to memref<4xf64>
  }
}

// -----

// The reversal of a linear stencil in a time loop: its tasklet recomputes
// the forward value (reading the forward's B) next to adjoints that do not
// depend on it. Trimmed before anything else, the tasklet no longer reads
// B, so the forward sweep that wrote B (a discardable argument) is dead,
// and so is its loop.
// CHECK-LABEL: sdfg.sdfg @linear_reverse
// CHECK-NOT: sdfg.load %B
// CHECK: sdfg.loop %{{.*}} = 3 to -1 step -1 {
// CHECK-NOT: sdfg.loop
// CHECK: sdfg.store %{{.*}}, %d_B[%{{.*}} + 1] wcr(add)
// CHECK-NOT: sdfg.load %B
sdfg.sdfg @linear_reverse(%A: memref<10xf64> {sdfg.discardable, sdfg.name = "A"},
                          %B: memref<10xf64> {sdfg.discardable, sdfg.name = "B"},
                          %d_A: memref<8xf64> {sdfg.name = "d_A"},
                          %d_B: memref<10xf64> {sdfg.name = "d_B"}) {
  sdfg.loop %t = 0 to 4 step 1 {
    sdfg.state {
      sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
        %x = sdfg.load %B[%i + 1] : memref<10xf64>
        %y = sdfg.load %A[%i] : memref<10xf64>
        %s = sdfg.tasklet(%x, %y) : (f64, f64) -> f64 {
        ^bb0(%p: f64, %q: f64):
          %r = arith.addf %p, %q : f64
          sdfg.yield %r : f64
        }
        sdfg.store %s, %B[%i + 1] : memref<10xf64>
      }
    }
  }
  sdfg.loop %t = 3 to -1 step -1 {
    sdfg.state {
      sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
        %x = sdfg.load %B[%i + 1] : memref<10xf64>
        %g = sdfg.load %d_A[%i] : memref<8xf64>
        %r:2 = sdfg.tasklet(%x, %g) : (f64, f64) -> (f64, f64) {
        ^bb0(%p: f64, %q: f64):
          %c = arith.constant 2.0 : f64
          %f = arith.mulf %p, %c : f64
          %d = arith.mulf %q, %c : f64
          sdfg.yield %d, %f : f64, f64
        }
        sdfg.store %r#0, %d_B[%i + 1] wcr(add) : memref<10xf64>
      }
    }
  }
}
