// RUN: sdfg-opt %s --sdfg-batch-outer-products=min-bytes=0 -split-input-file | FileCheck %s
// RUN: sdfg-opt %s --sdfg-batch-outer-products="max-buffer-ratio=3 min-bytes=0" -split-input-file | FileCheck %s --check-prefix=WHOLE
// RUN: sdfg-opt %s --sdfg-batch-outer-products="max-buffer-ratio=0 expand-rest=false" -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: sdfg-opt %s --sdfg-batch-outer-products -split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: not sdfg-opt %s --sdfg-batch-outer-products=max-buffer-ratio=-1 -split-input-file 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: echo 'module {}' | not sdfg-opt --sdfg-batch-outer-products=max-buffer-ratio=-1 2>&1 | FileCheck %s --check-prefix=NEG

// NEG: error: sdfg-batch-outer-products: max-buffer-ratio must not be negative, got -1

// Two updates of an 8x8 matrix per iteration (32 gathered elements), six
// iterations of a loop running backwards with step -2. With the default
// ratio (64 elements) two iterations fit: 4 rows, added after every
// second iteration; at ratio 3 (192) all six: 12 rows, added after the
// loop.
// CHECK-LABEL: sdfg.sdfg @two_updates
// CHECK-DAG: %[[XS:.*]] = sdfg.alloc() {name = "outer_rows"} : memref<4x8xf64>
// CHECK-DAG: %[[YS:.*]] = sdfg.alloc() {name = "outer_cols"} : memref<4x8xf64>
// CHECK: sdfg.loop %[[T:.*]] = 11 to -1 step -2 {
// CHECK: sdfg.map (%[[P:.*]]) = (0) to (8) step (1) schedule(sequential) {
// CHECK-NEXT: %[[V:.*]] = sdfg.load %u[%[[P]]]
// CHECK-NEXT: sdfg.store %[[V]], %[[XS]][(((-%[[T]] + 11) floordiv 2) mod 2) * 2, %[[P]]]
// CHECK: sdfg.map (%[[Q:.*]]) = (0) to (8) step (1) schedule(sequential) {
// CHECK-NEXT: %[[W:.*]] = sdfg.load %v[%[[Q]]]
// CHECK-NEXT: sdfg.store %[[W]], %[[YS]][(((-%[[T]] + 11) floordiv 2) mod 2) * 2, %[[Q]]]
// CHECK: sdfg.load %w[
// CHECK-NEXT: sdfg.store %{{.*}}, %[[XS]][(((-%[[T]] + 11) floordiv 2) mod 2) * 2 + 1,
// CHECK: sdfg.load %v[
// CHECK-NEXT: sdfg.store %{{.*}}, %[[YS]][(((-%[[T]] + 11) floordiv 2) mod 2) * 2 + 1,
// CHECK-NOT: sdfg.ger
// CHECK: %[[FULL:.*]] = sdfg.tasklet(%[[T]]) : (index) -> i1 {
// CHECK: arith.subi %c11
// CHECK: arith.divui %{{.*}}, %c2
// CHECK: arith.remui %{{.*}}, %c2
// CHECK: arith.cmpi eq, %{{.*}}, %c1
// CHECK: sdfg.if %[[FULL]] {
// CHECK-NEXT: sdfg.state "outer_products" {
// CHECK-NEXT: sdfg.matmul %[[XS]], %[[YS]] -> %dA {accumulate, transpose_a} : memref<4x8xf64>, memref<4x8xf64> -> memref<8x8xf64>
// WHOLE-LABEL: sdfg.sdfg @two_updates
// WHOLE-DAG: %[[XS:.*]] = sdfg.alloc() {name = "outer_rows"} : memref<12x8xf64>
// WHOLE-DAG: %[[YS:.*]] = sdfg.alloc() {name = "outer_cols"} : memref<12x8xf64>
// WHOLE: sdfg.store %{{.*}}, %[[XS]][((-%{{.*}} + 11) floordiv 2) * 2 + 1,
// WHOLE-NOT: sdfg.if
// After the loop, at its indentation:
// WHOLE: {{^    }}sdfg.state "outer_products" {
// WHOLE-NEXT: sdfg.matmul %[[XS]], %[[YS]] -> %dA {accumulate, transpose_a}
// OFF-LABEL: sdfg.sdfg @two_updates
// OFF: sdfg.ger %u, %v -> %dA {accumulate}
// OFF: sdfg.ger %w, %v -> %dA {accumulate}
sdfg.sdfg @two_updates(%u: memref<8xf64> {sdfg.name = "u"},
                       %v: memref<8xf64> {sdfg.name = "v"},
                       %w: memref<8xf64> {sdfg.name = "w"},
                       %dA: memref<8x8xf64> {sdfg.name = "dA"}) {
  sdfg.loop %t = 11 to -1 step -2 {
    sdfg.state {
      sdfg.ger %u, %v -> %dA {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
    sdfg.state {
      sdfg.ger %w, %v -> %dA {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}

// -----

// Not batched: the matrix is read inside the loop (the sum so far would be
// missing), an overwriting update, a loop with a bound known only at run
// time, an update under a condition, one iteration. They become maps
// (a read-add-write, or a write for the overwrite).
// CHECK-LABEL: sdfg.sdfg @left_alone
// CHECK-NOT: sdfg.matmul
// CHECK-NOT: sdfg.ger
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (8, 8) step (1, 1) schedule(cpu_multicore) {
// CHECK-NEXT: %[[X:.*]] = sdfg.load %u[%[[I]]]
// CHECK-NEXT: %[[Y:.*]] = sdfg.load %v[%[[J]]]
// CHECK-NEXT: %[[P:.*]] = sdfg.tasklet(%[[X]], %[[Y]])
// CHECK: arith.mulf
// CHECK: %[[O:.*]] = sdfg.load %A[%[[I]], %[[J]]]
// CHECK-NEXT: %[[S:.*]] = sdfg.tasklet(%[[O]], %[[P]])
// CHECK: arith.addf
// CHECK: sdfg.store %[[S]], %A[%[[I]], %[[J]]] : memref<8x8xf64>
// CHECK: sdfg.load %A[0, 0]
// CHECK: sdfg.loop
// CHECK: %[[Q:.*]] = sdfg.tasklet
// CHECK: arith.mulf
// CHECK-NOT: sdfg.load %B
// CHECK: sdfg.store %[[Q]], %B[
// CHECK-COUNT-3: sdfg.load %B[
// CHECK-NOT: sdfg.ger
// OFF-LABEL: sdfg.sdfg @left_alone
// OFF-COUNT-5: sdfg.ger
sdfg.sdfg @left_alone(%u: memref<8xf64> {sdfg.name = "u"},
                      %v: memref<8xf64> {sdfg.name = "v"},
                      %A: memref<8x8xf64> {sdfg.name = "A"},
                      %B: memref<8x8xf64> {sdfg.name = "B"},
                      %c: i1, %n: index) {
  sdfg.loop %t = 0 to 10 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
      %x = sdfg.load %A[0, 0] : memref<8x8xf64>
      sdfg.store %x, %u[0] : memref<8xf64>
    }
  }
  sdfg.loop %t = 0 to 10 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %B : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
  sdfg.loop %t = 0 to %n step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %B {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
  sdfg.loop %t = 0 to 10 step 1 {
    sdfg.if %c {
      sdfg.state {
        sdfg.ger %u, %v -> %B {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
      }
    }
  }
  sdfg.loop %t = 0 to 1 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %B {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}

// -----

// An inner loop's updates become one matmul per run of the inner loop,
// which the outer loop leaves alone (a matmul is not a rank-one update).
// CHECK-LABEL: sdfg.sdfg @nested
// CHECK: sdfg.alloc() {name = "outer_rows"} : memref<4x8xf64>
// CHECK: sdfg.loop %[[I:.*]] = 0 to 3 step 1 {
// CHECK: sdfg.loop %[[J:.*]] = 0 to 4 step 1 {
// CHECK: sdfg.store %{{.*}}, %{{.*}}[%[[J]], %{{.*}}]
// CHECK: sdfg.state "outer_products" {
// CHECK-NEXT: sdfg.matmul
// CHECK-NEXT: {{^ *}$}}
// CHECK-NEXT: {{^ *}$}}
sdfg.sdfg @nested(%u: memref<8xf64> {sdfg.name = "u"},
                  %v: memref<8xf64> {sdfg.name = "v"},
                  %A: memref<8x8xf64> {sdfg.name = "A"}) {
  sdfg.loop %i = 0 to 3 step 1 {
    sdfg.loop %j = 0 to 4 step 1 {
      sdfg.state {
        sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
      }
    }
  }
}

// -----

// By default only matrices of 8 MiB or more are batched: the 8 x 8 one of
// @small is not, the 1024 x 1024 one of @big is.
// DEFAULT-LABEL: sdfg.sdfg @small
// DEFAULT-NOT: outer_rows
// DEFAULT-LABEL: sdfg.sdfg @big
// DEFAULT: sdfg.alloc() {name = "outer_rows"} : memref<4x1024xf64>
// DEFAULT: sdfg.matmul
sdfg.sdfg @small(%u: memref<8xf64>, %v: memref<8xf64>, %A: memref<8x8xf64>) {
  sdfg.loop %t = 0 to 4 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}
sdfg.sdfg @big(%u: memref<1024xf64>, %v: memref<1024xf64>, %A: memref<1024x1024xf64>) {
  sdfg.loop %t = 0 to 4 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<1024xf64>, memref<1024xf64> -> memref<1024x1024xf64>
    }
  }
}

// -----

// Under a memory limit the buffers must fit what the checkpointing left:
// 600 bytes leave room for two iterations (4 rows, 512 bytes), 300 for
// none.
// CHECK-LABEL: sdfg.sdfg @room_for_two
// CHECK: sdfg.alloc() {name = "outer_rows"} : memref<4x8xf64>
// CHECK: sdfg.matmul
// CHECK-LABEL: sdfg.sdfg @no_room
// CHECK-NOT: outer_rows
// CHECK-NOT: sdfg.matmul
sdfg.sdfg @room_for_two(%u: memref<8xf64>, %v: memref<8xf64>, %A: memref<8x8xf64>)
    attributes {sdfg.checkpoint = {limit_bytes = 1600 : i64, peak_bytes = 1000 : i64}} {
  sdfg.loop %t = 0 to 6 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
      sdfg.ger %v, %u -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}
sdfg.sdfg @no_room(%u: memref<8xf64>, %v: memref<8xf64>, %A: memref<8x8xf64>)
    attributes {sdfg.checkpoint = {limit_bytes = 1300 : i64, peak_bytes = 1000 : i64}} {
  sdfg.loop %t = 0 to 6 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
      sdfg.ger %v, %u -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}

// -----

// A summary with a negative byte count (not one the checkpointing writes;
// 9223372036854775808 reads as INT64_MIN) leaves no room: the room was
// once limit - peak, 2600 bytes for the first, a signed overflow for the
// second.
// CHECK-LABEL: sdfg.sdfg @negative_peak
// CHECK-NOT: outer_rows
// CHECK-LABEL: sdfg.sdfg @min_peak
// CHECK-NOT: outer_rows
sdfg.sdfg @negative_peak(%u: memref<8xf64>, %v: memref<8xf64>, %A: memref<8x8xf64>)
    attributes {sdfg.checkpoint = {limit_bytes = 1600 : i64, peak_bytes = -1000 : i64}} {
  sdfg.loop %t = 0 to 6 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
      sdfg.ger %v, %u -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}
sdfg.sdfg @min_peak(%u: memref<8xf64>, %v: memref<8xf64>, %A: memref<8x8xf64>)
    attributes {sdfg.checkpoint = {limit_bytes = 1600 : i64, peak_bytes = 9223372036854775808 : i64}} {
  sdfg.loop %t = 0 to 6 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}
