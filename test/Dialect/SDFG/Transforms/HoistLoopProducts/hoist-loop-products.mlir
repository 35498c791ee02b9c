// RUN: sdfg-opt %s --sdfg-hoist-loop-products -split-input-file | FileCheck %s
// RUN: sdfg-opt %s --sdfg-hoist-loop-products=max-flops-ratio=1.5 -split-input-file | FileCheck %s --check-prefix=RATIO
// RUN: sdfg-opt %s --sdfg-hoist-loop-products=max-bytes=511 -split-input-file | FileCheck %s --check-prefix=BYTES
// RUN: sdfg-opt %s --sdfg-hoist-loop-products=max-flops-ratio=8 -split-input-file | FileCheck %s --check-prefix=EIGHT
// RUN: not sdfg-opt %s --sdfg-hoist-loop-products=max-flops-ratio=-1 -split-input-file 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: echo 'module {}' | not sdfg-opt --sdfg-hoist-loop-products=max-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEG

// NEG: error: sdfg-hoist-loop-products: max-flops-ratio and max-bytes must not be negative

// Covariance's row loop: row i of the product data^T data from column i
// on. The whole 8x8 product (64 entries) costs 64/36 = 1.8 times the 36
// entries the loop computes: hoisted by default, not at ratio 1.5, and not
// when the product's 512 bytes exceed max-bytes.
// CHECK-LABEL: sdfg.sdfg @triangle
// CHECK: %[[P:.*]] = sdfg.alloc() {name = "products"} : memref<8x8xf64>
// CHECK: sdfg.state "products" {
// CHECK-NEXT: sdfg.matmul %data, %data -> %[[P]] {transpose_a} : memref<16x8xf64>, memref<16x8xf64> -> memref<8x8xf64>
// CHECK-NEXT: }
// CHECK-NEXT: sdfg.loop %[[I:.*]] = 0 to 8 step 1 {
// CHECK-NEXT: sdfg.state {
// CHECK-NEXT: sdfg.map (%[[J:.*]]) = (0) to (-%[[I]] + 8) step (1) schedule(cpu_multicore) {
// CHECK-NEXT: %[[V:.*]] = sdfg.load %[[P]][%[[I]], %[[I]] + %[[J]]] : memref<8x8xf64>
// CHECK-NEXT: sdfg.store %[[V]], %sum[%[[J]]] wcr(add) : memref<8xf64>
// CHECK-NEXT: }
// CHECK-NOT: sdfg.tasklet
// RATIO-LABEL: sdfg.sdfg @triangle
// RATIO-NOT: sdfg.matmul
// RATIO: arith.mulf
// BYTES-LABEL: sdfg.sdfg @triangle
// BYTES-NOT: sdfg.matmul
// BYTES: arith.mulf
sdfg.sdfg @triangle(%data: memref<16x8xf64> {sdfg.name = "data"}, %sum: memref<8xf64> {sdfg.name = "sum"}) {
  sdfg.loop %i = 0 to 8 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (16, -%i + 8) step (1, 1) schedule(cpu_multicore) {
        %a = sdfg.load %data[%k, %i] : memref<16x8xf64>
        %b = sdfg.load %data[%k, %i + %j] : memref<16x8xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %sum[%j] wcr(add) : memref<8xf64>
      }
    }
  }
}

// -----

// Rows of A times rows of B (k the second parameter, indexing the second
// dimension of both, the product's operands swapped in the tasklet): A B^T
// in f32, the whole product used (ratio 1).
// CHECK-LABEL: sdfg.sdfg @rows_times_rows
// CHECK: %[[P:.*]] = sdfg.alloc() {name = "products"} : memref<4x6xf32>
// CHECK: sdfg.matmul %A, %B -> %[[P]] {transpose_b} : memref<4x10xf32>, memref<6x10xf32> -> memref<4x6xf32>
// CHECK: sdfg.loop %[[I:.*]] = 3 to -1 step -1 {
// CHECK: sdfg.map (%[[J:.*]]) = (0) to (6) step (1) schedule(sequential) {
// CHECK-NEXT: %[[V:.*]] = sdfg.load %[[P]][%[[I]], %[[J]]] : memref<4x6xf32>
// CHECK-NEXT: sdfg.store %[[V]], %C[%[[I]], %[[J]]] wcr(add) : memref<4x6xf32>
// RATIO-LABEL: sdfg.sdfg @rows_times_rows
// RATIO: sdfg.matmul %A, %B
sdfg.sdfg @rows_times_rows(%A: memref<4x10xf32> {sdfg.name = "A"}, %B: memref<6x10xf32> {sdfg.name = "B"}, %C: memref<4x6xf32> {sdfg.name = "C"}) {
  sdfg.loop %i = 3 to -1 step -1 {
    sdfg.state {
      sdfg.map (%j, %k) = (0, 0) to (6, 10) step (1, 1) schedule(sequential) {
        %a = sdfg.load %A[%i, %k] : memref<4x10xf32>
        %b = sdfg.load %B[%j, %k] : memref<6x10xf32>
        %p = sdfg.tasklet(%b, %a) : (f32, f32) -> f32 {
        ^bb0(%x: f32, %y: f32):
          %m = arith.mulf %y, %x : f32
          sdfg.yield %m : f32
        }
        sdfg.store %p, %C[%i, %j] wcr(add) : memref<4x6xf32>
      }
    }
  }
}

// -----

// Two maps of the loop read the same product: one matmul, one buffer.
// CHECK-LABEL: sdfg.sdfg @shared
// CHECK: %[[P:.*]] = sdfg.alloc() {name = "products"} : memref<6x6xf64>
// CHECK-NOT: name = "products"
// CHECK: sdfg.matmul %A, %A -> %[[P]] {transpose_a}
// CHECK-NOT: sdfg.matmul
// CHECK: sdfg.load %[[P]]
// CHECK: sdfg.load %[[P]]
sdfg.sdfg @shared(%A: memref<5x6xf64> {sdfg.name = "A"}, %s: memref<6xf64> {sdfg.name = "s"}, %t: memref<6xf64> {sdfg.name = "t"}) {
  sdfg.loop %i = 0 to 6 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (5, 6) step (1, 1) schedule(sequential) {
        %a = sdfg.load %A[%k, %i] : memref<5x6xf64>
        %b = sdfg.load %A[%k, %j] : memref<5x6xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %s[%j] wcr(add) : memref<6xf64>
      }
    }
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (5, 6) step (1, 1) schedule(sequential) {
        %a = sdfg.load %A[%k, %i] : memref<5x6xf64>
        %b = sdfg.load %A[%k, %j] : memref<5x6xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %t[%j] wcr(add) : memref<6xf64>
      }
    }
  }
}

// -----

// Left alone: an operand the loop writes (the product would be stale),
// only the diagonal of the product (8 of 64 entries: ratio 8), a sum
// instead of a product, a map outside loops. A reduction over a constant
// part of a dimension multiplies a copy of the operand with zeros outside
// it; a map whose extent depends on an outer loop's iterator reads a
// product computed before the outer loop.
// CHECK-LABEL: sdfg.sdfg @written
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @diagonal
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @partial
// CHECK: %[[M:.*]] = sdfg.alloc() {name = "masked"} : memref<5x6xf64>
// CHECK: sdfg.state "mask" {
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: arith.cmpi sge, %{{.*}}, %[[C0]] : index
// CHECK: arith.cmpi slt, %{{.*}}, %[[C4]] : index
// CHECK: sdfg.matmul %[[M]], %{{.*}} -> %{{.*}} {transpose_a}
// CHECK-LABEL: sdfg.sdfg @not_a_product
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @outside_loops
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @outer_extent
// CHECK: sdfg.state "products" {
// CHECK-NEXT: sdfg.matmul %arg0, %arg0 -> %{{.*}} {transpose_a}
// CHECK-NEXT: {{^ *}}}
// CHECK-NEXT: sdfg.loop %[[T:.*]] = 1 to 6 step 1 {
// CHECK-NEXT: sdfg.loop %[[I:.*]] = 0 to 6 step 1 {
// CHECK-NOT: arith.mulf
// At ratio 8 the diagonal is just worth it; its map, which reduced only
// over k, keeps one point.
// EIGHT-LABEL: sdfg.sdfg @written
// EIGHT-NOT: sdfg.matmul
// EIGHT-LABEL: sdfg.sdfg @diagonal
// EIGHT: %[[P:.*]] = sdfg.alloc() {name = "products"} : memref<8x8xf64>
// EIGHT: sdfg.matmul %{{.*}}, %{{.*}} -> %[[P]] {transpose_a}
// EIGHT: sdfg.loop %[[I:.*]] = 0 to 8 step 1 {
// EIGHT: sdfg.map (%{{.*}}) = (0) to (1) step (1)
// EIGHT-NEXT: %[[V:.*]] = sdfg.load %[[P]][%[[I]], %[[I]]] : memref<8x8xf64>
// EIGHT-NEXT: sdfg.store %[[V]], %{{.*}}[] wcr(add) : memref<f64>
// EIGHT-LABEL: sdfg.sdfg @not_a_product
sdfg.sdfg @written(%A: memref<5x6xf64>, %s: memref<6xf64>) {
  sdfg.loop %i = 0 to 6 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (5, 6) step (1, 1) schedule(sequential) {
        %a = sdfg.load %A[%k, %i] : memref<5x6xf64>
        %b = sdfg.load %A[%k, %j] : memref<5x6xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %s[%j] wcr(add) : memref<6xf64>
      }
    }
    sdfg.state {
      sdfg.map (%k) = (0) to (5) step (1) schedule(sequential) {
        %v = sdfg.load %s[%i] : memref<6xf64>
        sdfg.store %v, %A[%k, %i] : memref<5x6xf64>
      }
    }
  }
}

sdfg.sdfg @diagonal(%A: memref<5x8xf64>, %B: memref<5x8xf64>, %s: memref<f64>) {
  sdfg.loop %i = 0 to 8 step 1 {
    sdfg.state {
      sdfg.map (%k) = (0) to (5) step (1) schedule(sequential) {
        %a = sdfg.load %A[%k, %i] : memref<5x8xf64>
        %b = sdfg.load %B[%k, %i] : memref<5x8xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %s[] wcr(add) : memref<f64>
      }
    }
  }
}

sdfg.sdfg @partial(%A: memref<5x6xf64>, %s: memref<6xf64>) {
  sdfg.loop %i = 0 to 6 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (4, 6) step (1, 1) schedule(sequential) {
        %a = sdfg.load %A[%k, %i] : memref<5x6xf64>
        %b = sdfg.load %A[%k, %j] : memref<5x6xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %s[%j] wcr(add) : memref<6xf64>
      }
    }
  }
}

sdfg.sdfg @not_a_product(%A: memref<5x6xf64>, %s: memref<6xf64>) {
  sdfg.loop %i = 0 to 6 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (5, 6) step (1, 1) schedule(sequential) {
        %a = sdfg.load %A[%k, %i] : memref<5x6xf64>
        %b = sdfg.load %A[%k, %j] : memref<5x6xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.addf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %s[%j] wcr(add) : memref<6xf64>
      }
    }
  }
}

sdfg.sdfg @outside_loops(%A: memref<5x6xf64>, %s: memref<6x6xf64>) {
  sdfg.state {
    sdfg.map (%i, %k, %j) = (0, 0, 0) to (6, 5, 6) step (1, 1, 1) schedule(sequential) {
      %a = sdfg.load %A[%k, %i] : memref<5x6xf64>
      %b = sdfg.load %A[%k, %j] : memref<5x6xf64>
      %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%x: f64, %y: f64):
        %m = arith.mulf %x, %y : f64
        sdfg.yield %m : f64
      }
      sdfg.store %p, %s[%i, %j] wcr(add) : memref<6x6xf64>
    }
  }
}

sdfg.sdfg @outer_extent(%A: memref<5x6xf64>, %s: memref<6xf64>) {
  sdfg.loop %t = 1 to 6 step 1 {
    sdfg.loop %i = 0 to 6 step 1 {
      sdfg.state {
        sdfg.map (%k, %j) = (0, 0) to (5, %t) step (1, 1) schedule(sequential) {
          %a = sdfg.load %A[%k, %i] : memref<5x6xf64>
          %b = sdfg.load %A[%k, %j] : memref<5x6xf64>
          %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %m = arith.mulf %x, %y : f64
            sdfg.yield %m : f64
          }
          sdfg.store %p, %s[%j] wcr(add) : memref<6xf64>
        }
      }
    }
  }
}

// -----

// Under a memory limit the product must fit what the checkpointing left:
// 512 bytes of product, 600 left in @room, 300 in @no_room.
// CHECK-LABEL: sdfg.sdfg @room
// CHECK: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @no_room
// CHECK-NOT: sdfg.matmul
sdfg.sdfg @room(%data: memref<16x8xf64>, %sum: memref<8xf64>)
    attributes {sdfg.checkpoint = {limit_bytes = 1600 : i64, peak_bytes = 1000 : i64}} {
  sdfg.loop %i = 0 to 8 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (16, 8) step (1, 1) schedule(sequential) {
        %a = sdfg.load %data[%k, %i] : memref<16x8xf64>
        %b = sdfg.load %data[%k, %j] : memref<16x8xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %sum[%j] wcr(add) : memref<8xf64>
      }
    }
  }
}

sdfg.sdfg @no_room(%data: memref<16x8xf64>, %sum: memref<8xf64>)
    attributes {sdfg.checkpoint = {limit_bytes = 1300 : i64, peak_bytes = 1000 : i64}} {
  sdfg.loop %i = 0 to 8 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (16, 8) step (1, 1) schedule(sequential) {
        %a = sdfg.load %data[%k, %i] : memref<16x8xf64>
        %b = sdfg.load %data[%k, %j] : memref<16x8xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %sum[%j] wcr(add) : memref<8xf64>
      }
    }
  }
}

// -----

// A matrix times a row of another per iteration, as the frontend writes
// `Y[b] = W @ X[b]`: the row copied into a vector, then a gemv. Y = X W^T
// up front; the gemv becomes a copy of row b of the product (the copy
// into the vector stays for whoever else reads it).
// CHECK-LABEL: sdfg.sdfg @per_row
// CHECK: %[[P:.*]] = sdfg.alloc() {name = "products"} : memref<12x9xf64>
// CHECK: sdfg.state "products" {
// CHECK-NEXT: sdfg.matmul %X, %W -> %[[P]] {transpose_b} : memref<12x20xf64>, memref<9x20xf64> -> memref<12x9xf64>
// CHECK: sdfg.loop %[[B:.*]] = 0 to 12 step 1 {
// CHECK: sdfg.store %{{.*}}, %x[%{{.*}}] : memref<20xf64>
// CHECK: sdfg.map (%[[J:.*]]) = (0) to (9) step (1) schedule(sequential) {
// CHECK-NEXT: %[[V:.*]] = sdfg.load %[[P]][%[[B]], %[[J]]] : memref<12x9xf64>
// CHECK-NEXT: sdfg.store %[[V]], %y[%[[J]]] : memref<9xf64>
// CHECK-NOT: sdfg.gemv
sdfg.sdfg @per_row(%W: memref<9x20xf64> {sdfg.name = "W"},
                   %X: memref<12x20xf64> {sdfg.name = "X"},
                   %x: memref<20xf64> {sdfg.name = "x"},
                   %y: memref<9xf64> {sdfg.name = "y"},
                   %Y: memref<12x9xf64> {sdfg.name = "Y"}) {
  sdfg.loop %b = 0 to 12 step 1 {
    sdfg.state {
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %X[%b, %p] : memref<12x20xf64>
        sdfg.store %v, %x[%p] : memref<20xf64>
      }
      sdfg.gemv %W, %x -> %y : memref<9x20xf64>, memref<20xf64> -> memref<9xf64>
      sdfg.map (%q) = (0) to (9) step (1) schedule(sequential) {
        %v = sdfg.load %y[%q] : memref<9xf64>
        sdfg.store %v, %Y[%b, %q] : memref<12x9xf64>
      }
    }
  }
}

// -----

// The same with a matrix whose row count only the run knows: the product
// would need a transient of dynamic shape, so the gemv stays in the loop
// (the size check once multiplied the dynamic-extent sentinel, a signed
// overflow, and created `memref<12x?xf64>` without its size).
// CHECK-LABEL: sdfg.sdfg @per_row_dynamic
// CHECK-NOT: "products"
// CHECK: sdfg.loop
// CHECK: sdfg.gemv %W, %x -> %y : memref<?x20xf64>, memref<20xf64> -> memref<9xf64>
sdfg.sdfg @per_row_dynamic(%W: memref<?x20xf64> {sdfg.name = "W"},
                           %X: memref<12x20xf64> {sdfg.name = "X"},
                           %x: memref<20xf64> {sdfg.name = "x"},
                           %y: memref<9xf64> {sdfg.name = "y"},
                           %Y: memref<12x9xf64> {sdfg.name = "Y"}) {
  sdfg.loop %b = 0 to 12 step 1 {
    sdfg.state {
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %X[%b, %p] : memref<12x20xf64>
        sdfg.store %v, %x[%p] : memref<20xf64>
      }
      sdfg.gemv %W, %x -> %y : memref<?x20xf64>, memref<20xf64> -> memref<9xf64>
      sdfg.map (%q) = (0) to (9) step (1) schedule(sequential) {
        %v = sdfg.load %y[%q] : memref<9xf64>
        sdfg.store %v, %Y[%b, %q] : memref<12x9xf64>
      }
    }
  }
}

// -----

// Column i (from the end, step -2) of X against the columns of A,
// accumulated: X^T A, added with wcr.
// CHECK-LABEL: sdfg.sdfg @column_transposed
// CHECK: sdfg.matmul %X, %A -> %[[P:.*]] {transpose_a} : memref<20x12xf64>, memref<20x9xf64> -> memref<12x9xf64>
// CHECK: sdfg.loop %[[I:.*]] = 11 to -1 step -2 {
// CHECK: %[[V:.*]] = sdfg.load %[[P]][%[[I]], %{{.*}}] : memref<12x9xf64>
// CHECK-NEXT: sdfg.store %[[V]], %y[%{{.*}}] wcr(add) : memref<9xf64>
// CHECK-NOT: sdfg.gemv
sdfg.sdfg @column_transposed(%A: memref<20x9xf64> {sdfg.name = "A"},
                             %X: memref<20x12xf64> {sdfg.name = "X"},
                             %x: memref<20xf64> {sdfg.name = "x"},
                             %y: memref<9xf64> {sdfg.name = "y"}) {
  sdfg.loop %i = 11 to -1 step -2 {
    sdfg.state {
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %X[%p, %i] : memref<20x12xf64>
        sdfg.store %v, %x[%p] : memref<20xf64>
      }
      sdfg.gemv %A, %x -> %y {transpose, accumulate} : memref<20x9xf64>, memref<20xf64> -> memref<9xf64>
    }
  }
}

// -----

// Left alone: the vector written twice in the loop, the copy after the
// gemv (the gemv reads the previous iteration's row), the matrix written
// in the loop, two of twelve rows used (the product would cost 6 times
// the loop's).
// CHECK-LABEL: sdfg.sdfg @two_writers
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @copy_after
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @matrix_written
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @few_rows
// CHECK-NOT: sdfg.matmul
sdfg.sdfg @two_writers(%W: memref<9x20xf64>, %X: memref<12x20xf64>,
                       %x: memref<20xf64>, %y: memref<9xf64>) {
  sdfg.loop %b = 0 to 12 step 1 {
    sdfg.state {
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %X[%b, %p] : memref<12x20xf64>
        sdfg.store %v, %x[%p] : memref<20xf64>
      }
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %x[%p] : memref<20xf64>
        %w = sdfg.tasklet(%v) : (f64) -> f64 {
        ^bb0(%a: f64):
          %s = arith.mulf %a, %a : f64
          sdfg.yield %s : f64
        }
        sdfg.store %w, %x[%p] : memref<20xf64>
      }
      sdfg.gemv %W, %x -> %y : memref<9x20xf64>, memref<20xf64> -> memref<9xf64>
    }
  }
}

sdfg.sdfg @copy_after(%W: memref<9x20xf64>, %X: memref<12x20xf64>,
                      %x: memref<20xf64>, %y: memref<9xf64>) {
  sdfg.loop %b = 0 to 12 step 1 {
    sdfg.state {
      sdfg.gemv %W, %x -> %y {accumulate} : memref<9x20xf64>, memref<20xf64> -> memref<9xf64>
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %X[%b, %p] : memref<12x20xf64>
        sdfg.store %v, %x[%p] : memref<20xf64>
      }
    }
  }
}

sdfg.sdfg @matrix_written(%W: memref<9x20xf64>, %X: memref<12x20xf64>,
                          %x: memref<20xf64>, %y: memref<9xf64>) {
  sdfg.loop %b = 0 to 12 step 1 {
    sdfg.state {
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %X[%b, %p] : memref<12x20xf64>
        sdfg.store %v, %x[%p] : memref<20xf64>
      }
      sdfg.gemv %W, %x -> %y : memref<9x20xf64>, memref<20xf64> -> memref<9xf64>
    }
    sdfg.state {
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %x[%p] : memref<20xf64>
        sdfg.store %v, %W[0, %p] : memref<9x20xf64>
      }
    }
  }
}

sdfg.sdfg @few_rows(%W: memref<9x20xf64>, %X: memref<12x20xf64>,
                    %x: memref<20xf64>, %y: memref<9xf64>) {
  sdfg.loop %b = 0 to 2 step 1 {
    sdfg.state {
      sdfg.map (%p) = (0) to (20) step (1) schedule(sequential) {
        %v = sdfg.load %X[%b, %p] : memref<12x20xf64>
        sdfg.store %v, %x[%p] : memref<20xf64>
      }
      sdfg.gemv %W, %x -> %y : memref<9x20xf64>, memref<20xf64> -> memref<9xf64>
    }
  }
}

// -----

// syrk's inner loop adds alpha A[i, k] A[j, k] to row i of C for every k:
// over the whole loop, alpha (A A^T)[i, j]. The k loop becomes one state
// with one map reading the product.
// CHECK-LABEL: sdfg.sdfg @syrk
// CHECK: %[[P:.*]] = sdfg.alloc() {name = "products"} : memref<12x12xf64>
// CHECK: sdfg.matmul %A, %A -> %[[P]] {transpose_b} : memref<12x9xf64>, memref<12x9xf64> -> memref<12x12xf64>
// CHECK: sdfg.loop %[[I:.*]] = 0 to 12 step 1 {
// CHECK-NOT: sdfg.loop
// CHECK: sdfg.map (%[[J:.*]]) = (0) to (%[[I]] + 1) step (1) schedule(sequential) {
// CHECK-NEXT: %[[OLD:.*]] = sdfg.load %C[%[[I]], %[[J]]]
// CHECK-NEXT: %[[V:.*]] = sdfg.load %[[P]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[F:.*]] = sdfg.load %alpha[]
// CHECK-NEXT: %[[S:.*]] = sdfg.tasklet(%[[OLD]], %[[V]], %[[F]])
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK: sdfg.store %[[S]], %C[%[[I]], %[[J]]] : memref<12x12xf64>
sdfg.sdfg @syrk(%alpha: memref<f64> {sdfg.name = "alpha"},
                %C: memref<12x12xf64> {sdfg.name = "C"},
                %A: memref<12x9xf64> {sdfg.name = "A"}) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 9 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (%i + 1) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j] : memref<12x12xf64>
          %f = sdfg.load %alpha[] : memref<f64>
          %a = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %b = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %f, %a, %b) : (f64, f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64, %z: f64, %w: f64):
            %m = arith.mulf %y, %z : f64
            %n = arith.mulf %m, %w : f64
            %s = arith.addf %x, %n : f64
            sdfg.yield %s : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
  }
}

// -----

// Left alone: k over part of the dimension, a factor the outer loop
// writes, a difference instead of a sum, a factor used twice, the target
// read at another element.
// CHECK-LABEL: sdfg.sdfg @part_of_k
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @factor_written
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @difference
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @square_factor
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @other_element
// CHECK-NOT: sdfg.matmul
sdfg.sdfg @part_of_k(%C: memref<12x12xf64>, %A: memref<12x9xf64>) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 8 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (12) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j] : memref<12x12xf64>
          %a = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %b = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %a, %b) : (f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %z: f64, %w: f64):
            %n = arith.mulf %z, %w : f64
            %s = arith.addf %n, %x : f64
            sdfg.yield %s : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
  }
}

sdfg.sdfg @factor_written(%alpha: memref<f64>, %C: memref<12x12xf64>, %A: memref<12x9xf64>) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 9 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (12) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j] : memref<12x12xf64>
          %f = sdfg.load %alpha[] : memref<f64>
          %a = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %b = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %f, %a, %b) : (f64, f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64, %z: f64, %w: f64):
            %m = arith.mulf %y, %z : f64
            %n = arith.mulf %m, %w : f64
            %s = arith.addf %x, %n : f64
            sdfg.yield %s : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
    sdfg.state {
      %two = sdfg.tasklet() : () -> f64 {
        %v = arith.constant 2.0 : f64
        sdfg.yield %v : f64
      }
      sdfg.store %two, %alpha[] : memref<f64>
    }
  }
}

sdfg.sdfg @difference(%C: memref<12x12xf64>, %A: memref<12x9xf64>) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 9 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (12) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j] : memref<12x12xf64>
          %a = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %b = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %a, %b) : (f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %z: f64, %w: f64):
            %n = arith.mulf %z, %w : f64
            %s = arith.subf %x, %n : f64
            sdfg.yield %s : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
  }
}

sdfg.sdfg @square_factor(%alpha: memref<f64>, %C: memref<12x12xf64>, %A: memref<12x9xf64>) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 9 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (12) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j] : memref<12x12xf64>
          %f = sdfg.load %alpha[] : memref<f64>
          %a = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %b = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %f, %a, %b) : (f64, f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64, %z: f64, %w: f64):
            %m = arith.mulf %z, %w : f64
            %n = arith.mulf %m, %z : f64
            %s = arith.addf %x, %n : f64
            sdfg.yield %s : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
  }
}

sdfg.sdfg @other_element(%C: memref<12x12xf64>, %A: memref<12x9xf64>) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 9 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (11) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j + 1] : memref<12x12xf64>
          %a = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %b = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %a, %b) : (f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %z: f64, %w: f64):
            %n = arith.mulf %z, %w : f64
            %s = arith.addf %x, %n : f64
            sdfg.yield %s : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
  }
}

// -----

// syr2k: two products per element, alpha A[j, k] B[i, k] + alpha
// B[j, k] A[i, k]: two product matrices, one term each.
// CHECK-LABEL: sdfg.sdfg @syr2k
// CHECK-DAG: sdfg.matmul %A, %B -> %[[AB:.*]] {transpose_b}
// CHECK-DAG: sdfg.matmul %B, %A -> %[[BA:.*]] {transpose_b}
// CHECK: sdfg.loop %[[I:.*]] = 0 to 12 step 1 {
// CHECK-NOT: sdfg.loop
// CHECK: sdfg.map (%[[J:.*]]) = (0) to (%[[I]] + 1)
// CHECK-NEXT: sdfg.load %C[%[[I]], %[[J]]]
// CHECK-NEXT: sdfg.load %[[AB]][%[[J]], %[[I]]]
// CHECK-NEXT: sdfg.load %alpha[]
// CHECK-NEXT: sdfg.load %[[BA]][%[[J]], %[[I]]]
// CHECK-NEXT: sdfg.load %alpha[]
// A term with one matrix (no product over k) is left alone.
// CHECK-LABEL: sdfg.sdfg @not_a_contraction
// CHECK-NOT: sdfg.matmul
sdfg.sdfg @syr2k(%alpha: memref<f64> {sdfg.name = "alpha"},
                 %C: memref<12x12xf64> {sdfg.name = "C"},
                 %A: memref<12x9xf64> {sdfg.name = "A"},
                 %B: memref<12x9xf64> {sdfg.name = "B"}) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 9 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (%i + 1) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j] : memref<12x12xf64>
          %a1 = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %f1 = sdfg.load %alpha[] : memref<f64>
          %b1 = sdfg.load %B[%i, %k] : memref<12x9xf64>
          %b2 = sdfg.load %B[%j, %k] : memref<12x9xf64>
          %f2 = sdfg.load %alpha[] : memref<f64>
          %a2 = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %a1, %f1, %b1, %b2, %f2, %a2) : (f64, f64, f64, f64, f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %y1: f64, %y2: f64, %y3: f64, %z1: f64, %z2: f64, %z3: f64):
            %m1 = arith.mulf %y1, %y2 : f64
            %m2 = arith.mulf %m1, %y3 : f64
            %n1 = arith.mulf %z1, %z2 : f64
            %n2 = arith.mulf %n1, %z3 : f64
            %s1 = arith.addf %m2, %n2 : f64
            %s2 = arith.addf %x, %s1 : f64
            sdfg.yield %s2 : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
  }
}

sdfg.sdfg @not_a_contraction(%C: memref<12x12xf64>, %A: memref<12x9xf64>) {
  sdfg.loop %i = 0 to 12 step 1 {
    sdfg.loop %k = 0 to 9 step 1 {
      sdfg.state {
        sdfg.map (%j) = (0) to (12) step (1) schedule(sequential) {
          %c = sdfg.load %C[%i, %j] : memref<12x12xf64>
          %a = sdfg.load %A[%i, %k] : memref<12x9xf64>
          %b = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %a2 = sdfg.load %A[%j, %k] : memref<12x9xf64>
          %t = sdfg.tasklet(%c, %a, %b, %a2) : (f64, f64, f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64, %z: f64, %w: f64):
            %n = arith.mulf %y, %z : f64
            %s1 = arith.addf %n, %w : f64
            %s = arith.addf %x, %s1 : f64
            sdfg.yield %s : f64
          }
          sdfg.store %t, %C[%i, %j] : memref<12x12xf64>
        }
      }
    }
  }
}

// -----

// trmm, B := B + strict_lower(A)^T B, as the frontend writes
// `B[i, j] += np.dot(A[i + 1:, i], B[i + 1:, j])`: the reduction runs over
// rows i + 1 on, a range moving with A's free index (a triangle), so A is
// multiplied masked to r >= x + 1. The loop writes B, but iteration i
// writes only row i and reads rows beyond it, which no iteration has
// written yet: the product of B as it was before the loops serves, hoisted
// out of both.
// CHECK-LABEL: sdfg.sdfg @trmm
// CHECK-DAG: %[[P:.*]] = sdfg.alloc() {name = "products"} : memref<6x7xf64>
// CHECK-DAG: %[[M:.*]] = sdfg.alloc() {name = "masked"} : memref<6x6xf64>
// CHECK: sdfg.state "mask" {
// CHECK-NEXT: sdfg.map (%[[R:.*]], %[[X:.*]]) = (0, 0) to (6, 6)
// CHECK-NEXT: %[[A:.*]] = sdfg.load %{{.*}}[%[[R]], %[[X]]]
// CHECK-NEXT: sdfg.tasklet(%[[A]], %[[R]], %[[X]])
// CHECK-NEXT: ^bb0(%[[VA:.*]]: f64, %[[VR:.*]]: index, %[[VX:.*]]: index):
// CHECK: %[[LO:.*]] = arith.addi %[[VX]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.constant 6 : index
// CHECK: arith.cmpi sge, %[[VR]], %[[LO]] : index
// CHECK: arith.cmpi slt, %[[VR]], %[[HI]] : index
// CHECK: sdfg.store %{{.*}}, %[[M]][%[[R]], %[[X]]]
// CHECK: sdfg.state "products" {
// CHECK-NEXT: sdfg.matmul %[[M]], %{{.*}} -> %[[P]] {transpose_a}
// CHECK: sdfg.loop %[[I:.*]] = 0 to 6 step 1 {
// CHECK-NEXT: sdfg.loop %[[J:.*]] = 0 to 7 step 1 {
// CHECK: sdfg.map (%{{.*}}) = (0) to (1) step (1)
// CHECK-NEXT: %[[V:.*]] = sdfg.load %[[P]][%[[I]], %[[J]]] : memref<6x7xf64>
// CHECK-NEXT: sdfg.store %[[V]], %{{.*}}[] wcr(add)
// CHECK-NOT: arith.mulf
sdfg.sdfg @trmm(%A: memref<6x6xf64>, %B: memref<6x7xf64>) {
  %sum = sdfg.alloc() {name = "sum"} : memref<f64>
  sdfg.loop %i = 0 to 6 step 1 {
    sdfg.loop %j = 0 to 7 step 1 {
      sdfg.state {
        %z = sdfg.tasklet() : () -> f64 {
          %c = arith.constant 0.0 : f64
          sdfg.yield %c : f64
        }
        sdfg.store %z, %sum[] : memref<f64>
        sdfg.map (%k) = (0) to (-%i + 5) step (1) schedule(sequential) {
          %a = sdfg.load %A[%i + %k + 1, %i] : memref<6x6xf64>
          %b = sdfg.load %B[%i + %k + 1, %j] : memref<6x7xf64>
          %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %m = arith.mulf %x, %y : f64
            sdfg.yield %m : f64
          }
          sdfg.store %p, %sum[] wcr(add) : memref<f64>
        }
        %old = sdfg.load %B[%i, %j] : memref<6x7xf64>
        %s = sdfg.load %sum[] : memref<f64>
        %n = sdfg.tasklet(%old, %s) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %t = arith.addf %x, %y : f64
          sdfg.yield %t : f64
        }
        sdfg.store %n, %B[%i, %j] : memref<6x7xf64>
      }
    }
  }
}

// -----

// The range moves with the second operand's free index: C[i, j] reduces
// A[k, i] * B[k, j] over k < j, so B is the one masked (r < y).
// CHECK-LABEL: sdfg.sdfg @mask_second
// CHECK: %[[M:.*]] = sdfg.alloc() {name = "masked"} : memref<5x5xf64>
// CHECK: ^bb0(%{{.*}}: f64, %[[VR:.*]]: index, %[[VY:.*]]: index):
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK: arith.cmpi sge, %[[VR]], %[[LO]] : index
// CHECK: arith.cmpi slt, %[[VR]], %[[VY]] : index
// CHECK: sdfg.matmul %{{.*}}, %[[M]] -> %{{.*}} {transpose_a}
sdfg.sdfg @mask_second(%A: memref<5x4xf64>, %B: memref<5x5xf64>, %C: memref<4x5xf64>) {
  sdfg.loop %i = 0 to 4 step 1 {
    sdfg.loop %j = 0 to 5 step 1 {
      sdfg.state {
        sdfg.map (%k) = (0) to (%j) step (1) schedule(sequential) {
          %a = sdfg.load %A[%k, %i] : memref<5x4xf64>
          %b = sdfg.load %B[%k, %j] : memref<5x5xf64>
          %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %m = arith.mulf %x, %y : f64
            sdfg.yield %m : f64
          }
          sdfg.store %p, %C[%i, %j] wcr(add) : memref<4x5xf64>
        }
      }
    }
  }
}

// -----

// Left alone: rows the loop has already written (k < i: the product of B
// before the loop would be stale), a loop running down (row i + 1 is
// then written first), a range that moves with an index neither operand
// is free along, and the two operands reduced along different rows.
// CHECK-LABEL: sdfg.sdfg @rows_written
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @descending
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @other_bound
// CHECK-NOT: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @shifted
// CHECK-NOT: sdfg.matmul
sdfg.sdfg @rows_written(%A: memref<6x6xf64>, %B: memref<6x7xf64>) {
  sdfg.loop %i = 0 to 6 step 1 {
    sdfg.loop %j = 0 to 7 step 1 {
      sdfg.state {
        sdfg.map (%k) = (0) to (%i) step (1) schedule(sequential) {
          %a = sdfg.load %A[%k, %i] : memref<6x6xf64>
          %b = sdfg.load %B[%k, %j] : memref<6x7xf64>
          %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %m = arith.mulf %x, %y : f64
            sdfg.yield %m : f64
          }
          sdfg.store %p, %B[%i, %j] wcr(add) : memref<6x7xf64>
        }
      }
    }
  }
}

sdfg.sdfg @descending(%A: memref<6x6xf64>, %B: memref<6x7xf64>) {
  sdfg.loop %i = 5 to -1 step -1 {
    sdfg.loop %j = 0 to 7 step 1 {
      sdfg.state {
        sdfg.map (%k) = (0) to (-%i + 5) step (1) schedule(sequential) {
          %a = sdfg.load %A[%i + %k + 1, %i] : memref<6x6xf64>
          %b = sdfg.load %B[%i + %k + 1, %j] : memref<6x7xf64>
          %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %m = arith.mulf %x, %y : f64
            sdfg.yield %m : f64
          }
          sdfg.store %p, %B[%i, %j] wcr(add) : memref<6x7xf64>
        }
      }
    }
  }
}

sdfg.sdfg @other_bound(%A: memref<6x6xf64>, %B: memref<6x6xf64>, %C: memref<6x6xf64>) {
  sdfg.loop %t = 0 to 6 step 1 {
    sdfg.loop %i = 0 to 6 step 1 {
      sdfg.state {
        sdfg.map (%k, %j) = (0, 0) to (%t, 6) step (1, 1) schedule(sequential) {
          %a = sdfg.load %A[%k, %i] : memref<6x6xf64>
          %b = sdfg.load %B[%k, %j] : memref<6x6xf64>
          %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %m = arith.mulf %x, %y : f64
            sdfg.yield %m : f64
          }
          sdfg.store %p, %C[%i, %j] wcr(add) : memref<6x6xf64>
        }
      }
    }
  }
}

sdfg.sdfg @shifted(%A: memref<6x6xf64>, %B: memref<6x6xf64>, %C: memref<6x6xf64>) {
  sdfg.loop %i = 0 to 6 step 1 {
    sdfg.state {
      sdfg.map (%k, %j) = (0, 0) to (5, 6) step (1, 1) schedule(sequential) {
        %a = sdfg.load %A[%k, %i] : memref<6x6xf64>
        %b = sdfg.load %B[%k + 1, %j] : memref<6x6xf64>
        %p = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64):
          %m = arith.mulf %x, %y : f64
          sdfg.yield %m : f64
        }
        sdfg.store %p, %C[%i, %j] wcr(add) : memref<6x6xf64>
      }
    }
  }
}

// -----

// A gemv's copied row of a matrix the loop writes in column b: row b's
// first b elements were written by earlier iterations, so the product of X
// as it was before the loop would be stale. (Only a contraction's own loads
// can show that the rows it reads are not yet written; the gemv's operands
// must be read only.)
// CHECK-LABEL: sdfg.sdfg @row_of_written_columns
// CHECK-NOT: sdfg.matmul
// CHECK: sdfg.gemv
sdfg.sdfg @row_of_written_columns(%W: memref<9x12xf64> {sdfg.name = "W"},
                                  %X: memref<12x12xf64> {sdfg.name = "X"},
                                  %x: memref<12xf64> {sdfg.name = "x"},
                                  %y: memref<9xf64> {sdfg.name = "y"}) {
  sdfg.loop %b = 0 to 12 step 1 {
    sdfg.state {
      sdfg.map (%p) = (0) to (12) step (1) schedule(sequential) {
        %v = sdfg.load %X[%b, %p] : memref<12x12xf64>
        sdfg.store %v, %x[%p] : memref<12xf64>
      }
      sdfg.gemv %W, %x -> %y : memref<9x12xf64>, memref<12xf64> -> memref<9xf64>
      sdfg.map (%q) = (0) to (9) step (1) schedule(sequential) {
        %v = sdfg.load %y[%q] : memref<9xf64>
        sdfg.store %v, %X[%q, %b] : memref<12x12xf64>
      }
    }
  }
}
