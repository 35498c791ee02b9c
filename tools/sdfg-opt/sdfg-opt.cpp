//===- sdfg-opt.cpp - The sdfg optimizer driver ---------------------------===//

#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"
#include "sdfg/InitAll.h"
#include "sdfg/Support/NestingLimit.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

// The compiler's policy that the Python frontend applies too (it reads it
// here rather than keeping a copy: SchedulePolicy.h).
static llvm::cl::opt<bool>
    printPolicy("print-policy",
                llvm::cl::desc("Print, as JSON, the scheduling thresholds "
                               "the frontend shares, and exit"),
                llvm::cl::init(false));

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (in sdfg-lower-to-gpu) needs the NVVM target.
  mlir::sdfg::registerSDFGTranslations(registry);
  mlir::registerAllPasses();
  mlir::sdfg::registerSDFGDialect(registry);
  mlir::sdfg::registerSDFGPasses();
  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "sdfg optimizer driver\n", registry);
  if (printPolicy) {
    mlir::MLIRContext ctx(registry);
    ctx.loadDialect<mlir::sdfg::SDFGDialect>();
    llvm::json::Array dataflowOnly;
    for (llvm::StringRef name : mlir::sdfg::dataflowOnlyOps(&ctx))
      dataflowOnly.push_back(name.str());
    llvm::outs() << llvm::json::Value(llvm::json::Object{
                        {"parallel_map_iterations",
                         mlir::sdfg::kParallelMapIterations},
                        {"dataflow_only_ops", std::move(dataflowOnly)}})
                 << "\n";
    return 0;
  }
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  // What MlirOptMain does with the file names, with the input's nesting
  // checked before anything recurses over it (NestingLimit.h).
  llvm::InitLLVM init(argc, argv);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  {
    llvm::SourceMgr sourceMgr;
    unsigned id = sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(input->getMemBufferRef(),
                                         /*RequiresNullTerminator=*/false),
        llvm::SMLoc());
    if (!mlir::sdfg::checkNestingDepth(sourceMgr, id))
      return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
