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
      inside loops.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

#endif // SDFG_CONVERSION_PASSES_TD
