// RUN: sdfg-opt %s --convert-to-sdfg | FileCheck %s
// RUN: sdfg-opt %s --convert-to-sdfg --sdfg-autodiff="of=relu_scale output=arg1 wrt=arg0" | FileCheck %s --check-prefix=GRAD

// memref.dim of a dynamic memref argument: sdfg.dim at the top, used by
// loop and map bounds.
// CHECK-LABEL: sdfg.sdfg @stencil(
// CHECK-NEXT: %[[N:.*]] = sdfg.dim %arg0, 0 : memref<?xf64>
// CHECK-NEXT: sdfg.loop %{{.*}} = 1 to %[[N]] - 1 step 1
func.func @stencil(%a: memref<?xf64>, %b: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf64>
  %m = arith.subi %n, %c1 : index
  scf.for %i = %c1 to %m step %c1 {
    %im = arith.subi %i, %c1 : index
    %ip = arith.addi %i, %c1 : index
    %x = memref.load %a[%im] : memref<?xf64>
    %y = memref.load %a[%ip] : memref<?xf64>
    %s = arith.addf %x, %y : f64
    memref.store %s, %b[%i] : memref<?xf64>
  }
  return
}

// An scf.if in a parallel loop body whose branches store the same element:
// both branches computed, one store of a select. A static extent of a
// dynamic memref type is a constant.
// CHECK-LABEL: sdfg.sdfg @relu_scale(
// CHECK-DAG: %[[M:.*]] = sdfg.dim %arg0, 1 : memref<?x?xf64>
// CHECK-DAG: %[[N:.*]] = sdfg.dim %arg0, 0 : memref<?x?xf64>
// CHECK: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (%[[N]], %[[M]])
// CHECK: arith.cmpf ogt
// CHECK: arith.mulf
// CHECK: math.sin
// CHECK: %[[V:.*]] = sdfg.tasklet
// CHECK-NEXT: ^bb0(%{{.*}}: i1, %{{.*}}: f64, %{{.*}}: f64):
// CHECK-NEXT: arith.select
// CHECK: sdfg.store %[[V]], %arg1[%[[I]], %[[J]]]
// CHECK-NOT: sdfg.store
// CHECK: }
// GRAD-LABEL: sdfg.sdfg @relu_scale_grad(
// GRAD: sdfg.dim %d_arg0, 0
func.func @relu_scale(%a: memref<?x?xf64>, %b: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf64>
  %m = memref.dim %a, %c1 : memref<?x?xf64>
  %zero = arith.constant 0.0 : f64
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x?xf64>
    %pos = arith.cmpf ogt, %x, %zero : f64
    scf.if %pos {
      %y = arith.mulf %x, %x : f64
      memref.store %y, %b[%i, %j] : memref<?x?xf64>
    } else {
      %y = math.sin %x : f64
      memref.store %y, %b[%i, %j] : memref<?x?xf64>
    }
    scf.reduce
  }
  return
}

// Subviews address their source: a rank-reducing row view, a strided view
// of it, and memref.dim of a view (its size).
// CHECK-LABEL: sdfg.sdfg @rows(
// CHECK-DAG: %[[M:.*]] = sdfg.dim %arg0, 1 : memref<?x?xf64>
// CHECK-DAG: %[[N:.*]] = sdfg.dim %arg0, 0 : memref<?x?xf64>
// CHECK: sdfg.loop %[[I:.*]] = 0 to %[[N]] step 1
// CHECK: sdfg.load %arg0[%[[I]], 1]
// CHECK: sdfg.load %arg0[%[[I]], 3]
// CHECK: sdfg.load %arg0[%[[I]], %[[M]] - 1]
func.func @rows(%a: memref<?x?xf64>, %b: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf64>
  %m = memref.dim %a, %c1 : memref<?x?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %row = memref.subview %a[%i, 0] [1, %m] [1, 1]
        : memref<?x?xf64> to memref<?xf64, strided<[1], offset: ?>>
    %w = memref.dim %row, %c0 : memref<?xf64, strided<[1], offset: ?>>
    %odd = memref.subview %row[1] [2] [2]
        : memref<?xf64, strided<[1], offset: ?>>
          to memref<2xf64, strided<[2], offset: ?>>
    %x0 = memref.load %odd[%c0] : memref<2xf64, strided<[2], offset: ?>>
    %x1 = memref.load %odd[%c1] : memref<2xf64, strided<[2], offset: ?>>
    %last = arith.subi %w, %c1 : index
    %xl = memref.load %row[%last] : memref<?xf64, strided<[1], offset: ?>>
    %p = arith.mulf %x0, %x1 : f64
    %q = arith.mulf %p, %xl : f64
    memref.store %q, %b[%i] : memref<?xf64>
  }
  return
}

// linalg on dynamic memrefs: each loop's range is the extent of an operand
// dimension that loop alone indexes; a fill runs over the memref's own.
// CHECK-LABEL: sdfg.sdfg @rowsum(
// CHECK-DAG: %[[M:.*]] = sdfg.dim %arg0, 1 : memref<?x?xf64>
// CHECK-DAG: %[[N:.*]] = sdfg.dim %arg0, 0 : memref<?x?xf64>
// CHECK: sdfg.map (%[[I:.*]], %{{.*}}) = (0, 0) to (%[[N]], %[[M]])
// CHECK: sdfg.store %{{.*}}, %arg1[%[[I]]] wcr(add)
// CHECK-LABEL: sdfg.sdfg @zero(
// CHECK-NEXT: %[[K:.*]] = sdfg.dim %arg0, 0 : memref<?x4xf64>
// CHECK: sdfg.map (%{{.*}}, %{{.*}}) = (0, 0) to (%[[K]], 4)
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @rowsum(%a: memref<?x?xf64>, %b: memref<?xf64>) {
  linalg.generic {indexing_maps = [#id, #row],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<?x?xf64>) outs(%b : memref<?xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %e = math.exp %x : f64
    %s = arith.addf %acc, %e : f64
    linalg.yield %s : f64
  }
  return
}
func.func @zero(%c: memref<?x4xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%c : memref<?x4xf64>)
  return
}
