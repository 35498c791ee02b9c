// REQUIRES: cuda-toolkit
// The whole GPU pipeline down to PTX, which the CUDA toolkit's ptxas
// accepts for both targets (one module holding every kernel).
// RUN: sdfg-translate --target=gpu -emit=ptx %s -o %t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: FileCheck %s < %t.sm90.ptx
// RUN: sdfg-translate --target=gpu --gpu-chip=sm_80 -emit=ptx %s -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.ptx
// Gradient programs too: reversed stencil with WCR accumulation.
// RUN: sdfg-opt %s --sdfg-autodiff="output=B wrt=A" | sdfg-translate --target=gpu -emit=ptx -o %t.grad.ptx
// RUN: %ptxas -arch=sm_90 %t.grad.ptx -o %t.grad.cubin
// RUN: FileCheck %s --check-prefix=GRAD < %t.grad.ptx

// CHECK: .target sm_90
// CHECK-COUNT-2: .entry jacobi_kernel
// CHECK-NOT: .version
// SM80: .target sm_80
// The gradient's kernels: the forward sweeps, then the reversed map whose
// neighbour reads became accumulations (atomics, or colour sweeps).
// GRAD: .entry jacobi_grad_kernel
sdfg.sdfg @jacobi(%A: memref<128xf64> {sdfg.name = "A"}, %B: memref<128xf64> {sdfg.name = "B"}) {
  sdfg.loop %t = 0 to 4 step 1 {
    sdfg.state {
      sdfg.map (%i) = (1) to (127) step (1) schedule(cpu_multicore) {
        %l = sdfg.load %A[%i - 1] : memref<128xf64>
        %c = sdfg.load %A[%i] : memref<128xf64>
        %r = sdfg.load %A[%i + 1] : memref<128xf64>
        %v = sdfg.tasklet(%l, %c, %r) : (f64, f64, f64) -> f64 {
        ^bb0(%x: f64, %y: f64, %z: f64):
          %s = arith.addf %x, %y : f64
          %s2 = arith.addf %s, %z : f64
          %k = arith.constant 0.33333 : f64
          %m = arith.mulf %s2, %k : f64
          %e = math.exp %m : f64
          sdfg.yield %e : f64
        }
        sdfg.store %v, %B[%i] : memref<128xf64>
      }
    }
    sdfg.state {
      sdfg.map (%i) = (1) to (127) step (1) schedule(cpu_multicore) {
        %b = sdfg.load %B[%i] : memref<128xf64>
        sdfg.store %b, %A[%i] : memref<128xf64>
      }
    }
  }
}
