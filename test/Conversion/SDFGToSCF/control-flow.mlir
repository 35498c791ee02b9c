// RUN: sdfg-opt %s --convert-sdfg-to-scf -split-input-file | FileCheck %s

// The C ABI: pointer + one i64 per dynamic dimension, i64 symbols, scalars
// by value; memrefs are rebuilt over the pointer with row-major strides.
// CHECK-LABEL: func.func @abi(
// CHECK-SAME: %[[A:.*]]: !llvm.ptr, %[[A0:.*]]: i64, %[[B:.*]]: !llvm.ptr, %[[N:.*]]: i64, %[[X:.*]]: f32)
// CHECK: llvm.insertvalue %[[A]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[A]], %{{.*}}[1]
// CHECK: llvm.insertvalue %[[A0]], %{{.*}}[3, 1]
// CHECK: %[[MA:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<3x?xf64>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to memref<f64>
// CHECK: arith.index_cast %[[N]] : i64 to index
// CHECK: return
sdfg.sdfg @abi(%A: memref<3x?xf64>, %B: memref<f64>, %N: index, %x: f32) {}

// -----

// Positive steps map onto scf.for directly.
// CHECK-LABEL: func.func @forward
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[C3]]
// CHECK: memref.load %{{.*}}[%[[I]]]
sdfg.sdfg @forward(%A: memref<?xf64>, %N: index) {
  sdfg.loop %i = 1 to %N step 3 {
    sdfg.state {
      %v = sdfg.load %A[%i] : memref<?xf64>
      sdfg.store %v, %A[%i - 1] : memref<?xf64>
    }
  }
}

// -----

// Negative steps: a unit-stride counter over ceil((ub - lb) / step)
// iterations, and iv = lb + k * step.
// CHECK-LABEL: func.func @backward
// CHECK: %[[LB:.*]] = arith.addi %{{.*}}, %c-1
// CHECK: %[[DIFF:.*]] = arith.subi %{{.*}}, %[[LB]]
// CHECK: %[[TRIPS:.*]] = arith.ceildivsi %[[DIFF]], %c-2
// CHECK: scf.for %[[K:.*]] = %c0 to %[[TRIPS]] step %c1
// CHECK: %[[OFF:.*]] = arith.muli %[[K]], %c-2
// CHECK: %[[IV:.*]] = arith.addi %[[LB]], %[[OFF]]
// CHECK: memref.load %{{.*}}[%[[IV]]]
sdfg.sdfg @backward(%A: memref<?xf64>, %N: index, %lo: index) {
  sdfg.loop %i = %N - 1 to %lo step -2 {
    sdfg.state {
      %v = sdfg.load %A[%i] : memref<?xf64>
      sdfg.store %v, %A[%i] : memref<?xf64>
    }
  }
}

// -----

// if / elif / else becomes nested scf.if.
// CHECK-LABEL: func.func @branches
// CHECK: scf.if %[[C0:.*]] {
// CHECK: memref.store
// CHECK: } else {
// CHECK: scf.if %[[C1:.*]] {
// CHECK: memref.store
// CHECK: } else {
// CHECK: memref.store
sdfg.sdfg @branches(%A: memref<3xf64>, %x: f64) {
  %c:2 = sdfg.tasklet(%x) : (f64) -> (i1, i1) {
  ^bb0(%v: f64):
    %z = arith.constant 0.0 : f64
    %a = arith.cmpf ogt, %v, %z : f64
    %b = arith.cmpf olt, %v, %z : f64
    sdfg.yield %a, %b : i1, i1
  }
  sdfg.if %c#0 {
    sdfg.state {
      sdfg.store %x, %A[0] : memref<3xf64>
    }
  } elif %c#1 {
    sdfg.state {
      sdfg.store %x, %A[1] : memref<3xf64>
    }
  } else {
    sdfg.state {
      sdfg.store %x, %A[2] : memref<3xf64>
    }
  }
}

// -----

// Transients: one allocation at entry, freed before returning.
// CHECK-LABEL: func.func @transient
// CHECK: %[[T:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf64>
// CHECK: scf.for
// CHECK-NOT: memref.alloc
// CHECK: memref.dealloc %[[T]]
// CHECK-NEXT: return
sdfg.sdfg @transient(%A: memref<?xf64>, %N: index) {
  %t = sdfg.alloc(%N) : memref<?xf64>
  sdfg.loop %i = 0 to %N step 1 {
    sdfg.state {
      sdfg.copy %A[0 : %N] to %t[0 : %N] : memref<?xf64> to memref<?xf64>
    }
  }
}

// -----

// sdfg.while becomes scf.while with the condition computed in "before".
// CHECK-LABEL: func.func @while
// CHECK: scf.while : () -> () {
// CHECK: %[[X:.*]] = memref.load
// CHECK: %[[C:.*]] = arith.cmpf olt, %[[X]]
// CHECK: scf.condition(%[[C]])
// CHECK: } do {
// CHECK: memref.store
// CHECK: scf.yield
sdfg.sdfg @while(%X: memref<f64>) {
  sdfg.while {
    %x = sdfg.load %X[] : memref<f64>
    %c = sdfg.tasklet(%x) : (f64) -> i1 {
    ^bb0(%v: f64):
      %l = arith.constant 1.0 : f64
      %r = arith.cmpf olt, %v, %l : f64
      sdfg.yield %r : i1
    }
    sdfg.condition %c
  } do {
    sdfg.state {
      %x = sdfg.load %X[] : memref<f64>
      sdfg.store %x, %X[] : memref<f64>
    }
  }
}

// -----

// A transient is allocated before the first top-level op that uses it and
// freed after the last: %a is gone before %b exists.
// CHECK-LABEL: func.func @lifetimes
// CHECK: %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512xf64>
// CHECK: scf.for
// CHECK: memref.dealloc %[[A]]
// CHECK: %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512xf64>
// CHECK: scf.for
// CHECK: memref.dealloc %[[B]]
// CHECK-NEXT: return
// An unused transient is never allocated.
// CHECK-NOT: memref.alloc
sdfg.sdfg @lifetimes(%x: memref<512xf64>, %y: memref<512xf64>) {
  %a = sdfg.alloc() : memref<512xf64>
  %b = sdfg.alloc() : memref<512xf64>
  %unused = sdfg.alloc() : memref<1024xf64>
  sdfg.state {
    sdfg.copy %x[0 : 512] to %a[0 : 512] : memref<512xf64> to memref<512xf64>
    sdfg.copy %a[0 : 512] to %y[0 : 512] : memref<512xf64> to memref<512xf64>
  }
  sdfg.state {
    sdfg.copy %y[0 : 512] to %b[0 : 512] : memref<512xf64> to memref<512xf64>
    sdfg.copy %b[0 : 512] to %x[0 : 512] : memref<512xf64> to memref<512xf64>
  }
}

// -----

// Small fixed-size transients (up to 64 doubles: a recurrence's scalars)
// live on the stack, allocated first thing in the entry block, where LLVM
// promotes them to registers, and never freed. Dynamic ones stay on the
// heap.
// CHECK-LABEL: func.func @stack
// CHECK-NEXT: %[[S:.*]] = memref.alloca() : memref<f64>
// CHECK-NEXT: %[[V:.*]] = memref.alloca() : memref<64xf64>
// CHECK-NEXT: %[[K:.*]] = memref.alloca() : memref<4xindex>
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[S]][]
// CHECK: %[[D:.*]] = memref.alloc(%{{.*}}) {alignment = 64 : i64} : memref<?xf64>
// CHECK: memref.dealloc %[[D]]
// CHECK-NOT: memref.dealloc
// CHECK: return
sdfg.sdfg @stack(%x: memref<64xf64>, %n: index) {
  %s = sdfg.alloc() : memref<f64>
  %v = sdfg.alloc() : memref<64xf64>
  %k = sdfg.alloc() : memref<4xindex>
  %d = sdfg.alloc(%n) : memref<?xf64>
  sdfg.loop %i = 0 to 64 step 1 {
    sdfg.state {
      sdfg.store %i, %k[0] : memref<4xindex>
      %a = sdfg.load %x[%i] : memref<64xf64>
      sdfg.store %a, %s[] : memref<f64>
      sdfg.store %a, %v[%i] : memref<64xf64>
    }
  }
  sdfg.state {
    sdfg.copy %v[0 : 64] to %x[0 : 64] : memref<64xf64> to memref<64xf64>
    sdfg.copy %x[0 : 1] to %d[0 : 1] : memref<64xf64> to memref<?xf64>
  }
}
