// REQUIRES: cuda-toolkit
// A map over extents only the caller knows (sdfg.dim of a dynamic
// argument) is a kernel whose grid the host computes at each call; the
// PTX takes the extents as kernel parameters and ptxas accepts it, for the
// program and its gradient.
// RUN: sdfg-translate --target=gpu -emit=ptx %s -o %t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: FileCheck %s < %t.ptx
// RUN: sdfg-opt %s --sdfg-autodiff="output=y wrt=x" | sdfg-translate --target=gpu -emit=ptx -o %t.grad.ptx
// RUN: %ptxas -arch=sm_90 %t.grad.ptx -o %t.grad.cubin
// RUN: sdfg-translate --target=gpu %s | FileCheck %s --check-prefix=HOST
// CHECK: .entry
// CHECK: sin
// HOST: call {{.*}}@mgpuLaunchKernel
sdfg.sdfg @f(%x: memref<?x?xf64> {sdfg.name = "x"},
             %y: memref<?x?xf64> {sdfg.name = "y"}) {
  %n = sdfg.dim %x, 0 : memref<?x?xf64>
  %m = sdfg.dim %x, 1 : memref<?x?xf64>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (%n, %m) step (1, 1) schedule(gpu_device) {
      %v = sdfg.load %x[%i, %j] : memref<?x?xf64>
      %s = sdfg.tasklet(%v) : (f64) -> f64 {
      ^bb0(%a: f64):
        %r = math.sin %a : f64
        sdfg.yield %r : f64
      }
      sdfg.store %s, %y[%i, %j] : memref<?x?xf64>
    }
  }
}
