//===- LoopUtils.h - Facts about loops shared by the passes -----*- C++ -*-===//
//
// Small helpers that the loop-restructuring passes (batching outer
// products, hoisting products) share: constant trip counts, iteration
// numbers, the memory a checkpointed gradient may still spend, and
// building one-result tasklets.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_TRANSFORMS_LOOPUTILS_H
#define SDFG_TRANSFORMS_LOOPUTILS_H

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace sdfg {

/// The number of iterations of `loop` when its bounds are constants.
std::optional<int64_t> constantTrips(LoopOp loop);

/// The iteration number (0, 1, ...) of `loop`, whose bounds are constants,
/// as an affine expression of its iterator `d0`.
AffineExpr iterationNumber(LoopOp loop);

/// The bytes a checkpointed gradient may still allocate: the user's limit
/// (`sdfg.checkpoint`'s `limit_bytes`) less the peak the checkpointing
/// planned; std::nullopt (unlimited) without a limit.
std::optional<int64_t> headroom(SDFGOp sdfg);

/// A one-result tasklet at `b`'s insertion point applying `fn` to `inputs`
/// (the result has the first input's type).
Value scalarTasklet(OpBuilder &b, Location loc, ValueRange inputs,
                    function_ref<Value(OpBuilder &, ArrayRef<Value>)> fn);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_TRANSFORMS_LOOPUTILS_H
