//===- sdfg-translate.cpp - Emit LLVM IR, objects, shared libraries -------===//
//
// Reads sdfg (or already lowered) MLIR, lowers it for the CPU, and writes
// LLVM IR, an object file or a shared library exporting one C function per
// sdfg.sdfg (ABI in the dialect reference).
//
//===----------------------------------------------------------------------===//

#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"
#include "sdfg/Support/NestingLimit.h"
#include "sdfg/Target/CPUTarget.h"
#include "sdfg/Target/Dot.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

namespace {
enum class EmitKind { LLVMIR, Object, Shared, PTX, Dot };
} // namespace

static llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                                llvm::cl::desc("<input>"),
                                                llvm::cl::init("-"));
static llvm::cl::opt<std::string>
    outputFilename("o", llvm::cl::desc("Output file"),
                   llvm::cl::value_desc("filename"), llvm::cl::init("-"));
static llvm::cl::opt<EmitKind> emitKind(
    "emit", llvm::cl::desc("What to write"), llvm::cl::init(EmitKind::LLVMIR),
    llvm::cl::values(clEnumValN(EmitKind::LLVMIR, "llvm", "LLVM IR (text)"),
                     clEnumValN(EmitKind::Object, "obj",
                                "object file for the host"),
                     clEnumValN(EmitKind::Shared, "shared",
                                "shared library (links OpenMP and OpenBLAS)"),
                     clEnumValN(EmitKind::PTX, "ptx",
                                "the PTX of every GPU kernel module "
                                "(--target=gpu)"),
                     clEnumValN(EmitKind::Dot, "dot",
                                "each sdfg.sdfg as a Graphviz graph "
                                "(states, maps, tasklets, memlets)")));
static llvm::cl::opt<bool>
    noLower("no-lower", llvm::cl::desc("Input is already in the LLVM dialect"),
            llvm::cl::init(false));
static llvm::cl::opt<std::string> abiFilename(
    "abi",
    llvm::cl::desc("Also write a JSON description of the C ABI of every "
                   "sdfg.sdfg (used by the Python frontend)"),
    llvm::cl::value_desc("filename"), llvm::cl::init(""));
static llvm::cl::opt<unsigned> optLevel("O",
                                        llvm::cl::desc("LLVM optimisation "
                                                       "level (0-3)"),
                                        llvm::cl::Prefix, llvm::cl::init(3));

static llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("cpu (OpenMP, OpenBLAS), gpu (NVIDIA kernels, "
                          "cuBLAS, the sdfg GPU runtime) or gpu-emulator "
                          "(the gpu program's kernels run on host threads)"),
           llvm::cl::init("cpu"));
static llvm::cl::opt<std::string>
    gpuChip("gpu-chip", llvm::cl::desc("GPU architecture (--target=gpu)"),
            llvm::cl::init("sm_90"));

static llvm::cl::opt<std::string>
    targetCPU("mcpu",
              llvm::cl::desc("Processor of the host code: host (this "
                             "machine, all its features) or an LLVM name "
                             "such as x86-64-v3 or znver4, for libraries "
                             "run on another machine"),
              llvm::cl::init("host"));

static llvm::cl::opt<bool> checkIndices(
    "check-indices",
    llvm::cl::desc("Bounds-check indices computed from data, in GPU "
                   "kernels too (a failure is reported in sdfg_index_error)"),
    llvm::cl::init(true));

static int fail(const llvm::Twine &msg) {
  llvm::errs() << "sdfg-translate: error: " << msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  sdfg::registerSDFGConversionPasses();
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "sdfg to LLVM IR / object / library\n");
  if (optLevel > 3)
    return fail("-O must be 0, 1, 2 or 3");
  if (std::string error; failed(sdfg::checkTargetCPU(targetCPU, error)))
    return fail("--mcpu: " + error);
  if (target != "cpu" && target != "gpu" && target != "gpu-emulator")
    return fail("--target must be cpu, gpu or gpu-emulator, not '" + target +
                "'");
  bool gpu = target == "gpu";
  if (emitKind == EmitKind::PTX && (!gpu || noLower))
    return fail("-emit=ptx needs --target=gpu on sdfg input");
  if ((emitKind == EmitKind::Object || emitKind == EmitKind::Shared) &&
      outputFilename == "-")
    return fail("-emit=obj and -emit=shared need an output file (-o)");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  sdfg::registerSDFGDialect(registry);
  sdfg::registerGPUTranslations(registry);
  MLIRContext context(registry);

  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  if (!sdfg::checkNestingDepth(sourceMgr, bufferId))
    return 1;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (emitKind == EmitKind::Dot) {
    auto out = openOutputFile(outputFilename, &error);
    if (!out)
      return fail(error);
    sdfg::writeDot(*module, out->os());
    out->keep();
    return 0;
  }
  // The lowering pipelines start with sdfg-eliminate-dead-writes; run it
  // first so that the ABI's `written` flags leave out the writes it drops.
  if (!noLower) {
    PassManager pm(&context);
    pm.addNestedPass<sdfg::SDFGOp>(sdfg::createEliminateDeadWrites());
    if (failed(pm.run(*module)))
      return 1;
  }
  if (!abiFilename.empty()) {
    auto out = openOutputFile(abiFilename, &error);
    if (!out)
      return fail(error);
    sdfg::writeABIDescription(*module, out->os());
    out->keep();
  }
  if (!noLower) {
    if (gpu) {
      sdfg::LowerToGPUOptions options;
      options.chip = gpuChip;
      options.checkIndices = checkIndices;
      if (emitKind == EmitKind::PTX)
        options.format = sdfg::GPUBinaryFormat::isa;
      if (failed(sdfg::lowerToLLVMDialectForGPU(*module, options)))
        return 1;
      if (emitKind == EmitKind::PTX) {
        auto out = openOutputFile(outputFilename, &error);
        if (!out)
          return fail(error);
        sdfg::writeKernelAssembly(*module, out->os());
        out->keep();
        return 0;
      }
    } else if (target == "gpu-emulator") {
      if (failed(sdfg::lowerToLLVMDialectForGPUEmulator(*module, checkIndices)))
        return 1;
    } else if (failed(sdfg::lowerToLLVMDialect(*module, checkIndices))) {
      return 1;
    }
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      sdfg::translateAndOptimize(*module, llvmContext, optLevel, targetCPU,
                                 /*guardCalls=*/!noLower);
  if (!llvmModule)
    return 1;

  if (emitKind == EmitKind::LLVMIR) {
    auto out = openOutputFile(outputFilename, &error);
    if (!out)
      return fail(error);
    llvmModule->print(out->os(), nullptr);
    out->keep();
    return 0;
  }
  if (emitKind == EmitKind::Object) {
    auto out = openOutputFile(outputFilename, &error);
    if (!out)
      return fail(error);
    if (failed(sdfg::emitObjectFile(*llvmModule, out->os(), error, targetCPU)))
      return fail(error);
    out->keep();
    return 0;
  }
  // Shared library: object into a temporary file, then link.
  llvm::SmallString<128> objPath;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sdfg", "o", fd, objPath))
    return fail("cannot create a temporary file: " + ec.message());
  llvm::FileRemover remover(objPath);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    if (failed(sdfg::emitObjectFile(*llvmModule, os, error, targetCPU)))
      return fail(error);
  }
  if (failed(sdfg::linkSharedLibrary(objPath, outputFilename, error, gpu)))
    return fail("linking " + outputFilename + " failed: " + error);
  return 0;
}
