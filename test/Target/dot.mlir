// RUN: sdfg-translate %s --emit=dot | FileCheck %s

// The program as a graph: states (in order, joined by bold edges), loops
// and branches around them, maps with their ranges, tasklets listing
// their operations, library ops, access nodes (arguments bold; under a
// checkpoint plan, stored containers green and recomputed ones orange)
// and memlets labelled with their subsets.
// CHECK: digraph sdfg {
// CHECK: label="sdfg @f";
// CHECK: label="state"; style=rounded;
// CHECK-DAG: [shape=ellipse, label="x", penwidth=2];
// CHECK-DAG: [shape=ellipse, label="y", style=filled, fillcolor=palegreen];
// CHECK: label="map (i, j) = (0, 1) to (4, 3) cpu_multicore"; style=dashed;
// CHECK: [shape=octagon, label="sin, mulf"];
// CHECK-DAG: label="x[i, j - 1]"
// CHECK-DAG: label="y[i] (add)"
// CHECK: label="for t = 0 to 5 step 1"; style=dotted;
// CHECK: [shape=ellipse, label="z", style=filled, fillcolor=orange];
// CHECK: [shape=box, style=rounded, label="gemv"];
// CHECK: [style=bold];
sdfg.sdfg @f(%x: memref<4x3xf64> {sdfg.name = "x"},
             %A: memref<4x4xf64> {sdfg.name = "A"},
             %__return0: memref<4xf64> {sdfg.name = "__return0"})
    attributes {sdfg.checkpoint = {recompute = ["z"], store = ["y"]}} {
  %y = sdfg.alloc() {name = "y"} : memref<4xf64>
  %z = sdfg.alloc() {name = "z"} : memref<4xf64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 1) to (4, 3) step (1, 1) schedule(cpu_multicore) {
      %v = sdfg.load %x[%i, %j - 1] : memref<4x3xf64>
      %r = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %s = math.sin %a : f64
        %m = arith.mulf %s, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %r, %y[%i] wcr(add) : memref<4xf64>
    }
  }
  sdfg.loop %t = 0 to 5 step 1 attributes {sdfg.name = "t"} {
    sdfg.state {
      sdfg.gemv %A, %y -> %z : memref<4x4xf64>, memref<4xf64> -> memref<4xf64>
      sdfg.copy %z[0 : 4] to %__return0[0 : 4] : memref<4xf64> to memref<4xf64>
    }
  }
}
