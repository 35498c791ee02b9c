// RUN: sdfg-opt %s --sdfg-autodiff="of=seidel output=A wrt=A" | FileCheck %s --check-prefix=REV
// RUN: sdfg-opt %s --sdfg-autodiff="of=seidel output=A wrt=A" --sdfg-lower-to-cpu | FileCheck %s --check-prefix=LOW
// RUN: sdfg-opt %s --sdfg-autodiff="of=sum output=__return0 wrt=x unit-seed=true" | FileCheck %s --check-prefix=SEED
// RUN: sdfg-opt %s --sdfg-forward-diff="of=sum outputs=__return0 wrt=x" | FileCheck %s --check-prefix=FWD
// RUN: sdfg-opt %s --sdfg-autodiff="of=shift output=A wrt=A" | FileCheck %s --check-prefix=ADD
// RUN: sdfg-opt %s --sdfg-autodiff="of=seidel output=A wrt=A" | FileCheck %s --check-prefix=TAPE

// Arguments of dynamic shape (the user guide's Gauss-Seidel sweep, with a
// product so that the backward program needs the overwritten values):
// the forward result's copy, the gradients' fills and the tangents'
// zeroing run over the caller's extents, read by sdfg.dim at the top.
// REV-LABEL: sdfg.sdfg @seidel_grad(
// REV-SAME: %[[A:[a-zA-Z0-9_]+]]: memref<?x?xf64> {sdfg.name = "A"}
// REV-SAME: %[[FA:[a-zA-Z0-9_]+]]: memref<?x?xf64> {sdfg.name = "fwd_A"}
// REV-NEXT: %[[N0:.*]] = sdfg.dim %[[A]], 0 : memref<?x?xf64>
// REV-NEXT: %[[N1:.*]] = sdfg.dim %[[A]], 1 : memref<?x?xf64>
// REV: sdfg.state "results" {
// REV-NEXT: sdfg.map (%[[I:.*]], %[[J:.*]]) = (0, 0) to (%[[N0]], %[[N1]])
// REV: sdfg.store %{{.*}}, %[[FA]][%[[I]], %[[J]]]
// The values the product overwrites are stored in a tape of T x (N - 2)
// x (N - 2), its sizes computed from the index arguments in the body
// before the alloc: the loops are not data loops (no slots counted up to
// a capacity, no ad_status).
// TAPE-LABEL: sdfg.sdfg @seidel_grad(
// TAPE-NOT: ad_status
// TAPE: %[[T:.*]] = sdfg.tasklet(%arg1) : (index) -> index
// TAPE: arith.ceildivsi
// TAPE: arith.maxsi
// TAPE: %[[I:.*]] = sdfg.tasklet(%arg0) : (index) -> index
// TAPE: %[[J:.*]] = sdfg.tasklet(%arg0) : (index) -> index
// TAPE: sdfg.alloc(%[[T]], %[[I]], %[[J]]) : memref<?x?x?xf64>
// TAPE-NOT: ad_status
// TAPE: sdfg.sdfg @sum(
// LOW-LABEL: llvm.func @seidel_grad(
// The gradient of a dynamic wrt argument is zeroed over its own extents.
// SEED-LABEL: sdfg.sdfg @sum_grad(
// SEED-SAME: %[[DX:[a-zA-Z0-9_]+]]: memref<?xf64> {sdfg.name = "d_x"}
// SEED: %[[N:.*]] = sdfg.dim %[[DX]], 0 : memref<?xf64>
// SEED: sdfg.map (%[[K:.*]]) = (0) to (%[[N]]) step (1)
// SEED: sdfg.store %{{.*}}, %[[DX]][%[[K]]]
// The tangent program reads no extent it does not use.
// FWD-LABEL: sdfg.sdfg @sum_jvp(
// FWD: sdfg.dim %x, 0
// FWD-NOT: sdfg.dim
// FWD: }
// An additive in-place sweep needs no copy of its result: no extent is
// left behind.
// ADD-LABEL: sdfg.sdfg @shift_grad(
// ADD-NOT: sdfg.dim
// ADD: }
sdfg.sdfg @seidel(%A: memref<?x?xf64> {sdfg.name = "A"}, %N: index, %T: index) {
  sdfg.loop %t = 0 to %T step 1 {
    sdfg.loop %i = 1 to %N - 1 step 1 {
      sdfg.loop %j = 1 to %N - 1 step 1 {
        sdfg.state {
          %a = sdfg.load %A[%i - 1, %j] : memref<?x?xf64>
          %b = sdfg.load %A[%i + 1, %j] : memref<?x?xf64>
          %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %y: f64):
            %s = arith.mulf %x, %y : f64
            sdfg.yield %s : f64
          }
          sdfg.store %r, %A[%i, %j] : memref<?x?xf64>
        }
      }
    }
  }
}
sdfg.sdfg @sum(%x: memref<?xf64> {sdfg.name = "x"}, %__return0: memref<f64> {sdfg.name = "__return0"}) {
  %n = sdfg.dim %x, 0 : memref<?xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %v = sdfg.load %x[%i] : memref<?xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %m = arith.mulf %a, %a : f64
        sdfg.yield %m : f64
      }
      sdfg.store %s, %__return0[] wcr(add) : memref<f64>
    }
  }
}
sdfg.sdfg @shift(%A: memref<?xf64> {sdfg.name = "A"}, %N: index) {
  sdfg.loop %i = 1 to %N step 1 {
    sdfg.state {
      %a = sdfg.load %A[%i - 1] : memref<?xf64>
      %b = sdfg.load %A[%i] : memref<?xf64>
      %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
      ^bb0(%x: f64, %y: f64):
        %s = arith.addf %x, %y : f64
        sdfg.yield %s : f64
      }
      sdfg.store %r, %A[%i] : memref<?xf64>
    }
  }
}
