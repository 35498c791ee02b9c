//===- Pipelines.h - Named sdfg pass pipelines ------------------*- C++ -*-===//
//
// Every pipeline the tools, the Python frontend and embedding compilers
// run: the lowerings to the CPU, the GPU and the GPU emulator, and the
// gradient pipeline. The frontend names one of these with its options; it
// never assembles passes itself.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_PIPELINES_PIPELINES_H
#define SDFG_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace sdfg {

struct LowerToCPUOptions : public PassPipelineOptions<LowerToCPUOptions> {
  Option<bool> checkIndices{
      *this, "check-indices",
      llvm::cl::desc("Bounds-check indices computed from data "
                     "(convert-sdfg-to-scf's check-indices)"),
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
                     "too (convert-sdfg-to-scf's check-indices)"),
      llvm::cl::init(true)};
};

/// Appends the passes that take sdfg IR to the LLVM dialect with the GPU
/// kernels compiled and embedded (outermost parallel maps become kernels;
/// see sdfg-gpu-schedule and convert-sdfg-to-gpu).
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

/// Options of `sdfg-gradient-pipeline`.
struct GradientPipelineOptions
    : public PassPipelineOptions<GradientPipelineOptions> {
  Option<std::string> of{*this, "of",
                         llvm::cl::desc("The function to differentiate "
                                        "(default: every one with the "
                                        "output)"),
                         llvm::cl::init("")};
  Option<std::string> output{*this, "output",
                             llvm::cl::desc("The argument whose sum is "
                                            "differentiated")};
  ListOption<std::string> wrt{*this, "wrt",
                              llvm::cl::desc("The arguments to "
                                             "differentiate against")};
  Option<std::string> mem{*this, "mem",
                          llvm::cl::desc("Memory limit for the gradient "
                                         "(MiB, or with B/KiB/MiB/GiB); "
                                         "none: store everything"),
                          llvm::cl::init("")};
  Option<bool> lower{*this, "lower",
                     llvm::cl::desc("Also lower to the LLVM dialect for "
                                    "the CPU"),
                     llvm::cl::init(true)};
};

/// convert-to-sdfg, sdfg-autodiff, sdfg-checkpoint (with mem), and
/// sdfg-lower-to-cpu (with lower): upstream dialects in, a gradient
/// program out.
void buildGradientPipeline(OpPassManager &pm,
                           const GradientPipelineOptions &options);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_PIPELINES_PIPELINES_H
