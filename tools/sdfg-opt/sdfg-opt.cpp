//===- sdfg-opt.cpp - The sdfg optimizer driver ---------------------------===//

#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/SDFGDialect.h"
#include "sdfg/Target/CPUTarget.h"
#include "sdfg/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (in sdfg-lower-to-gpu) needs the NVVM target.
  mlir::sdfg::registerGPUTranslations(registry);
  mlir::registerAllPasses();
  mlir::sdfg::registerSDFGDialect(registry);
  mlir::sdfg::registerSDFGConversionPasses();
  mlir::sdfg::registerSDFGPipelines();
  mlir::sdfg::registerSDFGTransformsPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "sdfg optimizer driver\n", registry));
}
