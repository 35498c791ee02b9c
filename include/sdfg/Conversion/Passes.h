//===- Passes.h - sdfg conversion passes ------------------------*- C++ -*-===//

#ifndef SDFG_CONVERSION_PASSES_H
#define SDFG_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class OpPassManager;
namespace sdfg {

#define GEN_PASS_DECL
#include "sdfg/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sdfg/Conversion/Passes.h.inc"

/// Appends the passes that take sdfg IR to the LLVM dialect on the CPU
/// (OpenMP for parallel maps, CBLAS for library ops).
void buildLowerToCPUPipeline(OpPassManager &pm);

/// Registers `sdfg-lower-to-cpu` as a named pipeline.
void registerSDFGPipelines();

} // namespace sdfg
} // namespace mlir

#endif // SDFG_CONVERSION_PASSES_H
