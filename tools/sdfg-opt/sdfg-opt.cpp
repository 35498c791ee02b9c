//===- sdfg-opt.cpp - The sdfg optimizer driver ---------------------------===//

#include "sdfg/InitAll.h"

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
  mlir::sdfg::registerSDFGTranslations(registry);
  mlir::registerAllPasses();
  mlir::sdfg::registerSDFGDialect(registry);
  mlir::sdfg::registerSDFGPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "sdfg optimizer driver\n", registry));
}
