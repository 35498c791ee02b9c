//===- LoopNests.h - scf loop nests the lowerings build ---------*- C++ -*-===//
//
// Shared by the CPU lowering (convert-sdfg-to-scf) and the GPU emulator
// (sdfg-emulate-gpu), which both copy or initialise whole memrefs.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_CONVERSION_SDFGTOSCF_LOOPNESTS_H
#define SDFG_CONVERSION_SDFGTOSCF_LOOPNESTS_H

#include "mlir/IR/Builders.h"

namespace mlir {
namespace sdfg {

/// Builds a loop nest over every dimension of `memref` and calls `body` with
/// the induction variables, at the innermost insertion point.
void forEachElement(OpBuilder &b, Location loc, Value memref,
                    function_ref<void(ValueRange)> body);

/// Builds an scf.for nest over [lbs, ubs) and calls `body` with the
/// induction variables, emitting through `b` itself at the innermost
/// insertion point (once, with none, when the bounds are empty).
void loopNest(OpBuilder &b, Location loc, ValueRange lbs, ValueRange ubs,
              ValueRange steps, function_ref<void(ValueRange)> body);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_CONVERSION_SDFGTOSCF_LOOPNESTS_H
