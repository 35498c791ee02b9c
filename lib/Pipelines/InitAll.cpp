//===- InitAll.cpp - Registration and the gradient pipeline ---------------===//

#include "sdfg/InitAll.h"
#include "sdfg/Conversion/Passes.h"
#include "sdfg/Target/CPUTarget.h"
#include "sdfg/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

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

void mlir::sdfg::registerSDFGPasses() {
  registerSDFGConversionPasses();
  registerSDFGTransformsPasses();
  registerSDFGPipelines();
  PassPipelineRegistration<GradientPipelineOptions>(
      "sdfg-gradient-pipeline",
      "Upstream dialects to a gradient program: convert-to-sdfg, "
      "sdfg-autodiff, sdfg-checkpoint (mem=) and sdfg-lower-to-cpu",
      buildGradientPipeline);
}

void mlir::sdfg::registerSDFGTranslations(DialectRegistry &registry) {
  registerGPUTranslations(registry);
}
