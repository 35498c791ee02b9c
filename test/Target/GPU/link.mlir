// REQUIRES: cuda-toolkit
// The host side links: a shared library whose host code calls the sdfg GPU
// runtime (built against the CUDA driver stub, so no GPU is needed here)
// and embeds the kernels as one fat binary loaded at start-up.
// RUN: sdfg-translate --target=gpu -emit=shared %s -o %t.so
// RUN: llvm-readelf -d %t.so | FileCheck %s --check-prefix=DEPS
// RUN: llvm-nm -D %t.so | FileCheck %s --check-prefix=SYMS
// RUN: sdfg-translate --target=gpu -emit=llvm %s | FileCheck %s --check-prefix=IR
// RUN: not sdfg-translate --target=tpu %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sdfg-translate --target=cpu -emit=ptx %s 2>&1 | FileCheck %s --check-prefix=NOPTX

// DEPS: NEEDED{{.*}}libsdfg_gpu_runtime.so
// SYMS: U mgpuLaunchKernel
// SYMS: U mgpuMemAlloc
// SYMS: U mgpuModuleLoad
// SYMS: T scale
// IR: @scale_kernel_binary = internal constant
// IR: @mgpuModuleLoad(ptr {{.*}}@scale_kernel_binary
// BAD: sdfg-translate: error: --target must be cpu, gpu or gpu-emulator, not 'tpu'
// NOPTX: sdfg-translate: error: -emit=ptx needs --target=gpu on sdfg input
sdfg.sdfg @scale(%A: memref<1000xf32>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (1000) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i] : memref<1000xf32>
      %v = sdfg.tasklet(%a) : (f32) -> f32 {
      ^bb0(%x: f32):
        %two = arith.constant 2.0 : f32
        %y = arith.mulf %x, %two : f32
        sdfg.yield %y : f32
      }
      sdfg.store %v, %A[%i] : memref<1000xf32>
    }
  }
}
