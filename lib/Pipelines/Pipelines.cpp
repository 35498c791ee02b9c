//===- Pipelines.cpp - Named sdfg pass pipelines --------------------------===//

#include "sdfg/Pipelines/Pipelines.h"
#include "sdfg/AutoDiff/Transforms/Passes.h"
#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// From func/scf/memref/arith/math (what convert-sdfg-to-scf leaves on the
/// CPU) to the LLVM dialect.
static void addHostLowering(OpPassManager &pm) {
  pm.addPass(sdfg::createSDFGCheckHostInput());
  // Linalg ops on memrefs in functions beside the sdfgs (an embedding
  // compiler's code) become loops; on tensors they stay and
  // sdfg-check-lowered reports them.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Math: intrinsics first; what has none (erf, cbrt...) becomes a libm
  // call, early enough for the func-to-LLVM conversion to see the calls.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // scf.parallel -> OpenMP, each thread then computing its own share; the
  // alloca scopes it creates must be lowered by the memref conversion
  // before scf-to-cf runs.
  pm.addPass(createConvertSCFToOpenMPPass());
  pm.addPass(sdfg::createSDFGPartitionWorksharingLoops());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(sdfg::createSDFGExpandArith());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(sdfg::createSDFGCheckLowered());
}

/// The sdfg-to-sdfg transforms every lowering starts with, on each program
/// (for the GPU, then its kernel schedule).
static void addSDFGTransforms(OpPassManager &pm, bool gpu) {
  OpPassManager &program = pm.nest<sdfg::SDFGOp>();
  program.addPass(sdfg::createHoistLoopProducts());
  program.addPass(sdfg::createEliminateDeadWrites());
  program.addPass(sdfg::createBatchOuterProducts());
  program.addPass(sdfg::createFuseMaps());
  if (gpu)
    program.addPass(sdfg::createSDFGAssignGPUSchedule());
}

void mlir::sdfg::buildLowerToCPUPipeline(OpPassManager &pm, bool checkIndices) {
  addSDFGTransforms(pm, /*gpu=*/false);
  sdfg::ConvertSDFGToSCFOptions lowering;
  lowering.checkIndices = checkIndices;
  pm.addPass(createConvertSDFGToSCF(lowering));
  addHostLowering(pm);
}

/// convert-sdfg-to-gpu's options.
static sdfg::ConvertSDFGToGPUOptions gpuLowering(bool checkIndices) {
  sdfg::ConvertSDFGToGPUOptions lowering;
  lowering.checkIndices = checkIndices;
  return lowering;
}

void mlir::sdfg::buildLowerToGPUEmulatorPipeline(OpPassManager &pm,
                                                 bool checkIndices) {
  addSDFGTransforms(pm, /*gpu=*/true);
  pm.addPass(createConvertSDFGToGPU(gpuLowering(checkIndices)));
  pm.addPass(createSDFGGPUDeviceMemory());
  pm.addPass(createSDFGEmulateGPU());
  addHostLowering(pm);
}

void mlir::sdfg::buildLowerToGPUPipeline(OpPassManager &pm,
                                         const LowerToGPUOptions &options) {
  StringRef format;
  switch (options.format) {
  case GPUBinaryFormat::fatbin:
    format = "fatbin";
    break;
  case GPUBinaryFormat::bin:
    format = "bin";
    break;
  case GPUBinaryFormat::isa:
    format = "isa";
    break;
  case GPUBinaryFormat::llvm:
    format = "llvm";
    break;
  }
  addSDFGTransforms(pm, /*gpu=*/true);
  pm.addPass(createConvertSDFGToGPU(gpuLowering(options.checkIndices)));
  pm.addPass(createSDFGGPUDeviceMemory());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The order follows upstream's gpu-lower-to-nvvm-pipeline, with the host's
  // math moved after the kernels are in NVVM: math-to-libm would otherwise
  // turn a kernel's erf into a host libm call.
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createSDFGMergeGPUModules());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = format.str();
  // Explicit rather than from CUDA_HOME and friends, which a test runner or
  // an embedding tool may not pass on; without libdevice, kernels calling
  // math functions do not link.
  binary.toolkitPath = options.cudaPath;
#ifdef SDFG_CUDA_PATH
  if (binary.toolkitPath.empty())
    binary.toolkitPath = SDFG_CUDA_PATH;
#endif
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createSDFGCheckLowered());
}

void mlir::sdfg::buildGradientPipeline(OpPassManager &pm,
                                       const GradientPipelineOptions &options) {
  pm.addPass(createConvertToSDFG());
  AutoDiffOptions ad;
  ad.of = options.of;
  ad.output = options.output;
  ad.wrt.assign(options.wrt.begin(), options.wrt.end());
  pm.addPass(createAutoDiff(ad));
  if (!options.mem.empty()) {
    CheckpointOptions cp;
    cp.mem = options.mem;
    pm.addPass(createCheckpoint(cp));
  }
  if (options.lower)
    buildLowerToCPUPipeline(pm);
}

void mlir::sdfg::registerSDFGPipelines() {
  PassPipelineRegistration<LowerToCPUOptions>(
      "sdfg-lower-to-cpu",
      "Lower sdfg IR to the LLVM dialect for multicore CPUs (OpenMP, CBLAS)",
      [](OpPassManager &pm, const LowerToCPUOptions &options) {
        buildLowerToCPUPipeline(pm, options.checkIndices);
      });
  PassPipelineRegistration<LowerToGPUOptions>(
      "sdfg-lower-to-gpu",
      "Lower sdfg IR to the LLVM dialect with NVIDIA GPU kernels embedded "
      "(gpu, nvvm; cuBLAS for library ops)",
      buildLowerToGPUPipeline);
  PassPipelineRegistration<LowerToGPUEmulatorOptions>(
      "sdfg-lower-to-gpu-emulator",
      "Lower sdfg IR as for the GPU, then run the kernels on host threads "
      "(OpenMP) and library ops on CBLAS: the GPU code without a GPU",
      [](OpPassManager &pm, const LowerToGPUEmulatorOptions &options) {
        buildLowerToGPUEmulatorPipeline(pm, options.checkIndices);
      });
  PassPipelineRegistration<GradientPipelineOptions>(
      "sdfg-gradient-pipeline",
      "Upstream dialects to a gradient program: convert-to-sdfg, "
      "sdfg-autodiff, sdfg-checkpoint (mem=) and sdfg-lower-to-cpu",
      buildGradientPipeline);
}
