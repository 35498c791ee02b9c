// RUN: not sdfg-opt %s --sdfg-autodiff="while-capacity=2305843009213693952" 2>&1 | FileCheck %s --check-prefix=WHILE
// RUN: not sdfg-opt %s --sdfg-autodiff="while-capacity=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=WHILE-MAX
// RUN: sdfg-opt %s --sdfg-autodiff="while-capacity=17179869184" | FileCheck %s --check-prefix=LARGE

// The tape of a while loop has while-capacity slots: 2^61 doubles are 2^64
// bytes, which wrapped to a "small" size and landed on the stack (a wrong
// gradient, or SIGSEGV/SIGBUS). Now it is an error at the op that needs
// the tape.
// WHILE: tape-size.mlir:[[# @LINE + 29]]:7: error: the tape of this value needs 2305843009213693952 elements of 'f64', more than 2^62 bytes: lower the loops' trip counts, while-capacity or data-loop-capacity
// WHILE-MAX: error: the tape of this value needs 9223372036854775807 elements of 'f64', more than 2^62 bytes
// 2^34 slots (128 GiB) are representable: the tape is allocated when the
// program runs, where a failed allocation is reported (MemoryError).
// LARGE: sdfg.alloc() : memref<17179869184xf64>
sdfg.sdfg @halve(%x: memref<f64> {sdfg.name = "x"},
                 %y: memref<f64> {sdfg.name = "y"})
    attributes {ad_output = "y", ad_wrt = ["x"]} {
  sdfg.state {
    %v = sdfg.load %x[] : memref<f64>
    sdfg.store %v, %y[] : memref<f64>
  }
  sdfg.while {
    %v = sdfg.load %y[] : memref<f64>
    %c = sdfg.tasklet(%v) : (f64) -> i1 {
    ^bb0(%u: f64):
      %one = arith.constant 1.0 : f64
      %b = arith.cmpf ogt, %u, %one : f64
      sdfg.yield %b : i1
    }
    sdfg.condition %c
  } do {
    sdfg.state {
      %v = sdfg.load %y[] : memref<f64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%u: f64):
        %m = math.sqrt %u : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[] : memref<f64>
    }
  }
}
