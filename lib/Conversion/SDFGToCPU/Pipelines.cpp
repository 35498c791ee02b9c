//===- Pipelines.cpp - Named sdfg pass pipelines --------------------------===//

#include "sdfg/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::sdfg::buildLowerToCPUPipeline(OpPassManager &pm) {
  pm.addPass(createConvertSDFGToStd());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Math: intrinsics first; what has none (erf, cbrt...) becomes a libm
  // call, early enough for the func-to-LLVM conversion to see the calls.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // scf.parallel -> OpenMP; the alloca scopes it creates must be lowered by
  // the memref conversion before scf-to-cf runs.
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::sdfg::registerSDFGPipelines() {
  PassPipelineRegistration<>(
      "sdfg-lower-to-cpu",
      "Lower sdfg IR to the LLVM dialect for multicore CPUs (OpenMP, CBLAS)",
      buildLowerToCPUPipeline);
}
