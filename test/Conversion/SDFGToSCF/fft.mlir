// RUN: sdfg-opt %s --convert-sdfg-to-scf --cse | FileCheck %s
// RUN: sdfg-opt %s --sdfg-lower-to-cpu | FileCheck %s --check-prefix=LLVM

// A power-of-two length: the twiddles cos/sin(2 pi k / n) for k < n / 2
// in f64, then per line: the line copied into two f64 scratch vectors, the
// bit-reversal permutation (a carry loop per index, swaps where i < j),
// log2 n butterfly stages (forward: the twiddle's sine negated), and the
// line copied back.
// CHECK-LABEL: func.func @radix2
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c0 : memref<8x2xf64>
// CHECK: %[[HALF:.*]] = arith.shrui %[[N]], %c1 : index
// CHECK: %[[COS:.*]] = memref.alloc(%[[HALF]]) : memref<?xf64>
// CHECK: %[[SIN:.*]] = memref.alloc(%[[HALF]]) : memref<?xf64>
// CHECK: arith.constant 6.2831853071795862 : f64
// CHECK: math.cos
// CHECK: math.sin
// CHECK: %[[RE:.*]] = memref.alloc(%[[N]]) : memref<?xf64>
// CHECK: %[[IM:.*]] = memref.alloc(%[[N]]) : memref<?xf64>
// CHECK: scf.for %{{.*}} = %c1 to %[[N]] step %c1 iter_args
// CHECK: scf.while
// CHECK: arith.xori
// CHECK: scf.if
// CHECK: scf.while (%[[H:.*]] = %c1)
// CHECK: %[[W:.*]] = arith.shli %{{.*}}, %c1 : index
// CHECK: scf.for %{{.*}} = %c0 to %[[N]] step %[[W]]
// CHECK: %[[S:.*]] = memref.load %[[SIN]]
// CHECK: memref.load %[[COS]]
// CHECK: arith.negf %[[S]] : f64
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %c0] : memref<8x2xf64>
// CHECK: memref.dealloc %[[RE]]
// CHECK-NOT: math.cos
sdfg.sdfg @radix2(%x: memref<8x2xf64>, %y: memref<8x2xf64>) {
  sdfg.state {
    sdfg.fft %x axis 0 -> %y : memref<8x2xf64> -> memref<8x2xf64>
  }
}

// Other lengths, Bluestein: the padded length m (a power of two >= 2n - 1),
// the chirp from j^2 mod 2n, the kernel conj(c) at j and m - j transformed
// once; per line (f32 widened to f64) x c, two transforms of length m
// around the product with the kernel, and c X / m added to the result
// (accumulate).
// CHECK-LABEL: func.func @bluestein
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c1 : memref<3x5x2xf32>
// CHECK: %[[LINES:.*]] = memref.dim %{{.*}}, %c0 : memref<3x5x2xf32>
// CHECK: %[[TWO_N:.*]] = arith.shli %[[N]], %c1 : index
// CHECK: %[[M:.*]] = scf.while
// CHECK: arith.muli %[[J:.*]], %[[J]] : index
// CHECK: arith.remui %{{.*}}, %[[TWO_N]] : index
// CHECK: arith.constant 3.1415926535897931 : f64
// CHECK: arith.subi %[[M]], %{{.*}} : index
// CHECK: scf.for %[[LINE:.*]] = %c0 to %[[LINES]] step %c1 {
// CHECK-NEXT: memref.alloc(%[[M]]) : memref<?xf64>
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[LINE]], %{{.*}}, %c0] : memref<3x5x2xf32>
// CHECK: arith.addf %[[OLD]]
// CHECK: memref.store
sdfg.sdfg @bluestein(%x: memref<3x5x2xf32>, %y: memref<3x5x2xf32>) {
  sdfg.state {
    sdfg.fft %x axis 1 inverse -> %y {accumulate} : memref<3x5x2xf32> -> memref<3x5x2xf32>
  }
}

// Enough work: the lines (one per column here) in parallel, each with its
// own scratch; the twiddles shared.
// CHECK-LABEL: func.func @columns
// CHECK: math.cos
// CHECK: scf.parallel (%[[COL:.*]]) =
// CHECK-NEXT: memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[COL]], %c0] : memref<256x64x2xf64>
sdfg.sdfg @columns(%x: memref<256x64x2xf64>, %y: memref<256x64x2xf64>) {
  sdfg.state {
    sdfg.fft %x axis 0 -> %y : memref<256x64x2xf64> -> memref<256x64x2xf64>
  }
}

// A dynamic length: the algorithm is picked at run time (n & (n - 1)).
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %c0 : memref<?x2xf64>
// CHECK: %[[LOW:.*]] = arith.andi %[[N]], %{{.*}} : index
// CHECK: %[[POW2:.*]] = arith.cmpi eq, %[[LOW]], %c0 : index
// CHECK: scf.if %[[POW2]] {
// CHECK: } else {
// CHECK: arith.remui
sdfg.sdfg @dynamic(%x: memref<?x2xf64>, %y: memref<?x2xf64>) {
  sdfg.state {
    sdfg.fft %x axis 0 -> %y : memref<?x2xf64> -> memref<?x2xf64>
  }
}

// The whole pipeline reaches the LLVM dialect, the parallel lines forking
// OpenMP threads.
// LLVM-LABEL: llvm.func @columns(
// LLVM: omp.parallel
// LLVM-NOT: scf.
// LLVM-NOT: memref.
