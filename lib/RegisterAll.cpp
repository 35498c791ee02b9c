//===- RegisterAll.cpp - Registration of everything sdfg provides ---------===//

#include "sdfg/AutoDiff/Transforms/Passes.h"
#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"
#include "sdfg/InitAll.h"
#include "sdfg/Target/CPUTarget.h"

using namespace mlir;

void mlir::sdfg::registerSDFGPasses() {
  registerSDFGTransformsPasses();
  registerSDFGAutoDiffPasses();
  registerSDFGConversionPasses();
  registerSDFGPipelines();
}

void mlir::sdfg::registerSDFGTranslations(DialectRegistry &registry) {
  registerGPUTranslations(registry);
}
