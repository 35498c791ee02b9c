//===- Passes.td - sdfg conversion passes ------------------*- tablegen -*-===//

#ifndef SDFG_CONVERSION_PASSES_TD
#define SDFG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSDFGToStd : Pass<"convert-sdfg-to-std", "::mlir::ModuleOp"> {
  let summary = "Lower the sdfg dialect to func, scf, memref, arith and math";
  let description = [{
    Translates every `sdfg.sdfg` into a `func.func` of the same name whose
    signature is the dialect's C ABI (see the `sdfg.sdfg` documentation):
    pointers for containers, `i64` for dynamic sizes and symbols, scalars by
    value. Inside, containers become memref descriptors over those pointers.

    * `sdfg.loop` becomes `scf.for`, normalised to a unit-stride counter
      when the step is negative (Python `range` semantics, any step);
    * the outermost `cpu_multicore`/`gpu_device` map becomes `scf.parallel`
      (OpenMP after `convert-scf-to-openmp`); nested and `sequential` maps
      become `scf.for` nests;
    * memlets become `memref.load`/`memref.store`; a `wcr` store inside a
      parallel map becomes an atomic read-modify-write so that concurrent
      iterations accumulate correctly;
    * `sdfg.matmul`, `sdfg.gemv` and `sdfg.dot` call CBLAS (OpenBLAS);
      transposes and reductions become loop nests;
    * transients are allocated (64-byte aligned) before the first
      top-level op that uses them and freed after the last one; never
      inside loops; a WCR write of one element per map (a sum into a
      scalar) accumulates in registers and meets memory once per chunk.

    With `gpu=true`, the outermost `gpu_device` maps become `gpu.launch`
    kernels instead (see `sdfg-lower-to-gpu`): the map's last three
    dimensions go to the grid and blocks (x innermost), earlier ones are
    loops in each thread, WCR writes are atomic, nested maps run
    sequentially per thread. Containers then live in unified memory
    (`gpu.alloc host_shared`): arguments are copied in at entry and back at
    exit, so the C ABI is unchanged and host-side states (scalar tasklets,
    sequential loops) keep working on the same buffers. Library ops call
    the cuBLAS-backed `sdfg_gpu_cblas_*` functions of the sdfg GPU runtime.
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "Lower gpu_device maps to GPU kernels, containers in unified "
           "memory">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def SDFGAssignGPUSchedule : Pass<"sdfg-gpu-schedule", "::mlir::ModuleOp"> {
  let summary = "Run the outermost parallel maps as GPU kernels";
  let description = [{
    Gives every `cpu_multicore` map that no other parallel map encloses the
    `gpu_device` schedule (enclosing sequential maps and loops stay on the
    host and launch the kernel once per iteration). Maps nested in a kernel
    keep their schedule; the GPU lowering runs them sequentially per
    thread. `sequential` maps (the autodiff's serial reversals) stay on the
    host.
  }];
}

def SDFGMergeGPUModules : Pass<"sdfg-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Put all outlined GPU kernels into one gpu.module";
  let description = [{
    gpu-kernel-outlining gives every kernel its own `gpu.module`, hence its
    own binary, PTX file and module load at run time. This pass moves every
    kernel into the first module (renamed after the module it came from,
    which is unique) and retargets the `gpu.launch_func` ops: one binary per
    program. Modules holding anything besides kernels are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // SDFG_CONVERSION_PASSES_TD
