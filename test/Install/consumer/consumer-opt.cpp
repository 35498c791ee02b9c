// The consumer's own opt tool: its dialects and passes plus sdfg's, one
// registration call each.
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
  mlir::registerAllPasses();
  mlir::sdfg::registerSDFGDialect(registry);
  mlir::sdfg::registerSDFGTranslations(registry);
  mlir::sdfg::registerSDFGPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "a consumer of sdfg\n", registry));
}
