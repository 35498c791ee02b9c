//===- Passes.h - Reverse-mode AD and checkpointing -------------*- C++ -*-===//

#ifndef SDFG_AUTODIFF_TRANSFORMS_PASSES_H
#define SDFG_AUTODIFF_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sdfg {

#define GEN_PASS_DECL
#include "sdfg/AutoDiff/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sdfg/AutoDiff/Transforms/Passes.h.inc"

} // namespace sdfg
} // namespace mlir

#endif // SDFG_AUTODIFF_TRANSFORMS_PASSES_H
