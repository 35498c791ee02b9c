//===- InitAll.h - Register everything sdfg provides ------------*- C++ -*-===//
//
// For tools that embed the sdfg passes (see docs/Embedding.md): one call per
// kind of thing, as MLIR's own InitAll headers do. Defined in
// lib/RegisterAll.cpp (library SDFGRegisterAll, which links everything).
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_INITALL_H
#define SDFG_INITALL_H

#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h"
#include "sdfg/Pipelines/Pipelines.h"

namespace mlir {
class DialectRegistry;
namespace sdfg {

/// Registers every sdfg pass (convert-to-sdfg, sdfg-autodiff,
/// sdfg-checkpoint, the lowerings...) and the named pipelines
/// (sdfg-lower-to-cpu, sdfg-lower-to-gpu, sdfg-gradient-pipeline).
void registerSDFGPasses();

/// Registers the LLVM IR translations sdfg's lowered code needs (LLVM,
/// OpenMP, and for GPU code gpu, nvvm and the NVVM target).
void registerSDFGTranslations(DialectRegistry &registry);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_INITALL_H
