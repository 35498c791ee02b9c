//===- Passes.h - Transformations of sdfg programs --------------*- C++ -*-===//

#ifndef SDFG_DIALECT_SDFG_TRANSFORMS_PASSES_H
#define SDFG_DIALECT_SDFG_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sdfg {

#define GEN_PASS_DECL
#include "sdfg/Dialect/SDFG/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sdfg/Dialect/SDFG/Transforms/Passes.h.inc"

} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_TRANSFORMS_PASSES_H
