// RUN: timeout 120 sdfg-opt %s --sdfg-batch-outer-products=min-bytes=0 -split-input-file | FileCheck %s
// RUN: timeout 120 sdfg-opt %s --sdfg-batch-outer-products="max-buffer-ratio=3 min-bytes=0" -split-input-file | FileCheck %s --check-prefix=WHOLE
// RUN: timeout 120 sdfg-opt %s --sdfg-batch-outer-products="max-buffer-ratio=1e300 min-bytes=0" -split-input-file | FileCheck %s --check-prefix=HUGE

// The block of iterations is the largest divisor of the trip count that
// fits the buffers, searched from the largest block that fits down (the
// search once started at the trip count itself and tried every number
// below it: with 2^61 iterations it never finished, and `timeout` above
// makes that a failure). 16 gathered elements per iteration: 4 fit the
// default ratio (64), 8 of the 12 that fit ratio 3 divide 2^61. With a
// ratio of 1e300 the whole loop is one block, whose buffers (2^68 bytes)
// no container can hold: the loop is left alone (the byte count once
// overflowed and a transient of 2^61 x 8 f64 was created).
// CHECK-LABEL: sdfg.sdfg @power_of_two
// CHECK: sdfg.alloc() {name = "outer_rows"} : memref<4x8xf64>
// CHECK: sdfg.loop %{{.*}} = 0 to 2305843009213693952 step 1 {
// CHECK: sdfg.matmul
// WHOLE-LABEL: sdfg.sdfg @power_of_two
// WHOLE: sdfg.alloc() {name = "outer_rows"} : memref<8x8xf64>
// HUGE-LABEL: sdfg.sdfg @power_of_two
// HUGE-NOT: outer_rows
// HUGE: sdfg.loop %{{.*}} = 0 to 2305843009213693952 step 1 {
// HUGE-NOT: sdfg.matmul
sdfg.sdfg @power_of_two(%u: memref<8xf64>, %v: memref<8xf64>,
                        %A: memref<8x8xf64>) {
  sdfg.loop %t = 0 to 2305843009213693952 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}

// -----

// 2^61 - 1 is prime: no block divides it, the loop is not batched (its
// update becomes a map, as expand-rest does with every one left).
// CHECK-LABEL: sdfg.sdfg @prime
// CHECK-NOT: outer_rows
// CHECK: sdfg.loop %{{.*}} = 0 to 2305843009213693951 step 1 {
// CHECK-NOT: sdfg.matmul
// WHOLE-LABEL: sdfg.sdfg @prime
// WHOLE-NOT: outer_rows
// WHOLE: sdfg.loop %{{.*}} = 0 to 2305843009213693951 step 1 {
// WHOLE-NOT: sdfg.matmul
// HUGE-LABEL: sdfg.sdfg @prime
// HUGE-NOT: outer_rows
// HUGE: sdfg.loop %{{.*}} = 0 to 2305843009213693951 step 1 {
// HUGE-NOT: sdfg.matmul
sdfg.sdfg @prime(%u: memref<8xf64>, %v: memref<8xf64>, %A: memref<8x8xf64>) {
  sdfg.loop %t = 0 to 2305843009213693951 step 1 {
    sdfg.state {
      sdfg.ger %u, %v -> %A {accumulate} : memref<8xf64>, memref<8xf64> -> memref<8x8xf64>
    }
  }
}
