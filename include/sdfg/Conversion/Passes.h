//===- Passes.h - sdfg conversion passes ------------------------*- C++ -*-===//

#ifndef SDFG_CONVERSION_PASSES_H
#define SDFG_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace sdfg {

#define GEN_PASS_DECL
#include "sdfg/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sdfg/Conversion/Passes.h.inc"

/// Options of `sdfg-lower-to-cpu`.
struct LowerToCPUOptions : public PassPipelineOptions<LowerToCPUOptions> {
  Option<bool> checkIndices{
      *this, "check-indices",
      llvm::cl::desc("Bounds-check indices computed from data "
                     "(convert-sdfg-to-std's check-indices)"),
      llvm::cl::init(true)};
};

/// Options of `sdfg-lower-to-gpu-emulator`: the same.
using LowerToGPUEmulatorOptions = LowerToCPUOptions;

/// Appends the passes that take sdfg IR to the LLVM dialect on the CPU
/// (OpenMP for parallel maps, CBLAS for library ops); indices computed from
/// data are bounds-checked unless `checkIndices` is false.
void buildLowerToCPUPipeline(OpPassManager &pm, bool checkIndices = true);

/// What `sdfg-lower-to-gpu` embeds for the device.
enum class GPUBinaryFormat { fatbin, bin, isa, llvm };

/// Options of `sdfg-lower-to-gpu`.
struct LowerToGPUOptions : public PassPipelineOptions<LowerToGPUOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU architecture of the cubin"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX features (CUDA 13's "
                                              "ptxas needs +ptx80 or newer)"),
                               llvm::cl::init("+ptx80")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit root (ptxas, fatbinary, libdevice); "
                     "default: the one found when sdfg was configured"),
      llvm::cl::init("")};
  Option<GPUBinaryFormat> format{
      *this, "format", llvm::cl::desc("Embedded device code"),
      llvm::cl::init(GPUBinaryFormat::fatbin),
      llvm::cl::values(
          clEnumValN(GPUBinaryFormat::fatbin, "fatbin",
                     "cubin and PTX in a fat binary"),
          clEnumValN(GPUBinaryFormat::bin, "bin", "cubin"),
          clEnumValN(GPUBinaryFormat::isa, "isa", "PTX text"),
          clEnumValN(GPUBinaryFormat::llvm, "llvm", "LLVM IR (NVPTX)"))};
  Option<bool> checkIndices{
      *this, "check-indices",
      llvm::cl::desc("Bounds-check indices computed from data, in kernels "
                     "too (convert-sdfg-to-std's check-indices)"),
      llvm::cl::init(true)};
};

/// Appends the passes that take sdfg IR to the LLVM dialect with the GPU
/// kernels compiled and embedded (outermost parallel maps become kernels;
/// see sdfg-gpu-schedule and convert-sdfg-to-std{gpu=true}).
void buildLowerToGPUPipeline(OpPassManager &pm,
                             const LowerToGPUOptions &options);

/// Appends the GPU pipeline's sdfg lowering (kernels, atomics, unified
/// memory) followed by sdfg-emulate-gpu and the CPU's lowering to LLVM: the
/// GPU program run on the host, for testing the GPU code generation on
/// machines without a GPU.
void buildLowerToGPUEmulatorPipeline(OpPassManager &pm,
                                     bool checkIndices = true);

/// Registers `sdfg-lower-to-cpu`, `sdfg-lower-to-gpu` and
/// `sdfg-lower-to-gpu-emulator` as named pipelines.
void registerSDFGPipelines();

} // namespace sdfg
} // namespace mlir

#endif // SDFG_CONVERSION_PASSES_H
