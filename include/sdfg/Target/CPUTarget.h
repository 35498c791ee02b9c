//===- CPUTarget.h - From sdfg IR to LLVM IR, objects, libraries -*- C++ -*-=//

#ifndef SDFG_TARGET_CPUTARGET_H
#define SDFG_TARGET_CPUTARGET_H

#include "sdfg/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class DialectRegistry;
namespace sdfg {

/// Registers what translating the lowered module to LLVM IR needs.
void registerCPUTranslations(DialectRegistry &registry);

/// The CPU translations plus what GPU code needs: gpu and nvvm to LLVM IR
/// (kernels embedded as binaries) and the NVVM target that compiles
/// gpu.module with ptxas.
void registerGPUTranslations(DialectRegistry &registry);

/// Writes, as JSON, the C ABI of every sdfg.sdfg in `module`:
/// `{"functions": [{"name", "args": [{"name", "kind": "array"|"symbol"|
/// "scalar", "dtype", "shape": [extent or -1 for dynamic]}]}]}`.
void writeABIDescription(ModuleOp module, llvm::raw_ostream &os);

/// Runs the sdfg-lower-to-cpu pipeline on `module`. Diagnostics go to the
/// context's handler.
LogicalResult lowerToLLVMDialect(ModuleOp module, bool checkIndices = true);

/// Lowers with `sdfg-lower-to-gpu`: kernels compiled and embedded, host
/// code calling the sdfg GPU runtime.
LogicalResult lowerToLLVMDialectForGPU(ModuleOp module,
                                       const LowerToGPUOptions &options);

/// Lowers with `sdfg-lower-to-gpu-emulator`: the GPU program's kernels and
/// unified memory, run on the host (links like a CPU program).
LogicalResult lowerToLLVMDialectForGPUEmulator(ModuleOp module,
                                               bool checkIndices = true);

/// Success if `cpu` is "host" or a processor LLVM knows for this machine's
/// architecture; else failure, with the reason in `error`.
LogicalResult checkTargetCPU(StringRef cpu, std::string &error);

/// Translates an LLVM-dialect module to LLVM IR and optimises it at
/// `optLevel` (0-3) for `cpu`: "host" (the compiling machine, all its
/// features) or an LLVM processor name such as x86-64-v3 or znver4. With
/// `guardCalls` (a lowered sdfg program), allocations are checked and the
/// error records are per thread (CallGuards.h).
/// Returns null after emitting a diagnostic (an unknown `cpu` included).
std::unique_ptr<llvm::Module>
translateAndOptimize(ModuleOp module, llvm::LLVMContext &ctx, unsigned optLevel,
                     StringRef cpu = "host", bool guardCalls = true);

/// Writes a relocatable object file for `cpu` (as above).
LogicalResult emitObjectFile(llvm::Module &module, llvm::raw_pwrite_stream &os,
                             std::string &error, StringRef cpu = "host");

/// Writes the device code of every gpu.binary (PTX after lowering with
/// format isa), each preceded by a comment naming its module and target.
void writeKernelAssembly(ModuleOp module, llvm::raw_ostream &os);

/// Links an object into a shared library with OpenMP and OpenBLAS, and
/// with `gpu` the sdfg GPU runtime.
LogicalResult linkSharedLibrary(StringRef objectPath, StringRef outputPath,
                                std::string &error, bool gpu = false);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_TARGET_CPUTARGET_H
