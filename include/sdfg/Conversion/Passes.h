//===- Passes.h - sdfg conversion passes ------------------------*- C++ -*-===//

#ifndef SDFG_CONVERSION_PASSES_H
#define SDFG_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace sdfg {

#define GEN_PASS_DECL
#include "sdfg/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "sdfg/Conversion/Passes.h.inc"

/// Options of `sdfg-lower-to-cpu`.

} // namespace sdfg
} // namespace mlir

#endif // SDFG_CONVERSION_PASSES_H
