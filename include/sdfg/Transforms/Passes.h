//===- Passes.h - sdfg transformation passes --------------------*- C++ -*-===//

#ifndef SDFG_TRANSFORMS_PASSES_H
#define SDFG_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sdfg {

#define GEN_PASS_DECL
#include "sdfg/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sdfg/Transforms/Passes.h.inc"

} // namespace sdfg
} // namespace mlir

#endif // SDFG_TRANSFORMS_PASSES_H
