//===- CheckpointModelBuilder.h - Memory model of a gradient ----*- C++ -*-===//
//
// Builds the store/recompute model (sdfg/Support/CheckpointModel.h) of a
// gradient program from its store-all version: a memory timeline with one
// point per top-level op, transients live from the first to the last
// top-level op that uses them (how code generation allocates them), and
// per candidate the bytes live when it is stored or recomputed.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_TRANSFORMS_CHECKPOINTMODELBUILDER_H
#define SDFG_TRANSFORMS_CHECKPOINTMODELBUILDER_H

#include "sdfg/AutoDiff/Transforms/Differentiate.h"
#include "sdfg/Support/CheckpointModel.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir {
namespace sdfg {

struct CheckpointProblem {
  CheckpointModel model;
  /// Model candidate -> index in DifferentiateResult::candidates (only the
  /// recomputable ones are decisions; the others are part of the base).
  SmallVector<unsigned> candidateIndex;
  /// Bytes of every transient of the store-all program.
  llvm::DenseMap<Value, int64_t> bytes;
  /// Those of dynamic size as a formula in the sizes `sizes=` names
  /// (`8*N*max(x.0 - 2, 0)`), where the index arithmetic allows: the
  /// report prints it next to the bytes at the sizes given.
  llvm::DenseMap<Value, std::string> formulas;
};

/// The model of `storeAll` (built with DifferentiateOptions::markAnchors).
/// `symbols` sizes dynamic containers by the names of index arguments.
FailureOr<CheckpointProblem>
buildCheckpointModel(const DifferentiateResult &storeAll,
                     const llvm::StringMap<int64_t> &symbols);

/// Bytes of transients live at each top-level op of `grad`, as code
/// generation allocates them.
FailureOr<std::vector<int64_t>>
transientUsage(SDFGOp grad, const llvm::StringMap<int64_t> &symbols);

/// The most bytes of transients live at once in `grad`, as code generation
/// allocates them.
FailureOr<int64_t> transientPeakBytes(SDFGOp grad,
                                      const llvm::StringMap<int64_t> &symbols);

/// Sets the snapshotBytes of `r`'s loops whose state has dynamic shapes,
/// for the sizes `symbols` gives (the largest where a range); a loop
/// whose state has a size not given is no candidate (its reason says
/// which size).
void measureSnapshots(DifferentiateResult &r,
                      const llvm::StringMap<int64_t> &symbols);

/// The bytes live at the program point where `grad` peaks for the sizes
/// given, as a formula in the sizes (`8000 + 24*x.0 + 8*N*x.0`): how that
/// point's memory grows with them. None where no container live there has
/// a dynamic size (the number alone says it all). At other sizes another
/// point may peak: the formula is a lower bound there.
std::optional<std::string>
peakBytesFormula(SDFGOp grad, const llvm::StringMap<int64_t> &symbols);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_TRANSFORMS_CHECKPOINTMODELBUILDER_H
