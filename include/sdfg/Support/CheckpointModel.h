//===- CheckpointModel.h - Store/recompute under a memory limit -*- C++ -*-===//
//
// The optimisation problem of the paper's ILP checkpointing, independent of
// the IR: each forwarded container is stored or recomputed (one binary);
// memory is checked at every point of a timeline of allocation events of
// the forward and backward programs, one timeline per control-flow path;
// the objective is the total recomputation cost.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_SUPPORT_CHECKPOINTMODEL_H
#define SDFG_SUPPORT_CHECKPOINTMODEL_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace sdfg {

/// One forwarded container.
struct Candidate {
  std::string name;
  int64_t bytes = 0;
  /// Cost of recomputing it in the backward program (e.g. FLOPs + bytes
  /// moved by its recomputation subgraph).
  double recomputeCost = 0.0;
};

/// Memory live at one point of a timeline.
struct TimelinePoint {
  /// Bytes live whatever the decisions.
  int64_t baseBytes = 0;
  /// Bytes live here when a candidate is stored (the container itself
  /// and the values stored for it).
  std::vector<std::pair<unsigned, int64_t>> liveIfStored;
  /// Extra bytes live here when a candidate is recomputed (its
  /// recomputation's temporaries, or the container itself when it is live
  /// again after recomputation).
  std::vector<std::pair<unsigned, int64_t>> liveIfRecomputed;
};

struct CheckpointModel {
  std::vector<Candidate> candidates;
  /// One timeline per control-flow path; every one must fit.
  std::vector<std::vector<TimelinePoint>> timelines;
  /// Pairs that cannot both be recomputed (recomputing one re-runs code
  /// that reads the other as it was stored).
  std::vector<std::pair<unsigned, unsigned>> exclusive;

  /// Whether the decisions respect `exclusive`.
  bool admissible(const std::vector<bool> &recompute) const;

  /// Peak bytes over all timelines for the given decisions (true =
  /// recompute).
  int64_t peakBytes(const std::vector<bool> &recompute) const;
};

struct CheckpointPlan {
  bool feasible = false;
  /// Whether the cost is proven minimal (false when the solver's time limit
  /// stopped it at a feasible plan).
  bool optimal = false;
  /// Per candidate: true = recompute, false = store.
  std::vector<bool> recompute;
  double cost = 0.0;
  int64_t peakBytes = 0;
  /// When infeasible: the smallest limit any decision fits in.
  int64_t minFeasibleBytes = 0;
  /// Non-empty when the solver failed.
  std::string error;
};

/// Chooses store/recompute per candidate: minimum total recompute cost with
/// every timeline point at most `memLimitBytes`.
CheckpointPlan solveCheckpointModel(const CheckpointModel &model,
                                    int64_t memLimitBytes);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_SUPPORT_CHECKPOINTMODEL_H
