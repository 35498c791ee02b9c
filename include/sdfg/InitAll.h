//===- InitAll.h - Register everything sdfg provides ------------*- C++ -*-===//
//
// For tools that embed the sdfg passes (see docs/Embedding.md): one call per
// kind of thing, as MLIR's own InitAll headers do.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_INITALL_H
#define SDFG_INITALL_H

#include "sdfg/Dialect/SDFG/SDFGDialect.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace sdfg {

/// Registers every sdfg pass (convert-to-sdfg, sdfg-autodiff,
/// sdfg-checkpoint, the lowerings...) and the named pipelines
/// (sdfg-lower-to-cpu, sdfg-lower-to-gpu, sdfg-gradient-pipeline).
void registerSDFGPasses();

/// Registers the LLVM IR translations sdfg's lowered code needs (LLVM,
/// OpenMP, and for GPU code gpu, nvvm and the NVVM target).
void registerSDFGTranslations(DialectRegistry &registry);

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

#endif // SDFG_INITALL_H
