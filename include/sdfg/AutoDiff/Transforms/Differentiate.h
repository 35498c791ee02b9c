//===- Differentiate.h - Reverse-mode AD of one sdfg.sdfg -------*- C++ -*-===//
//
// The entry point shared by --sdfg-autodiff and --sdfg-checkpoint (and by
// compilers embedding the AD): builds the gradient program of one forward
// program, storing or recomputing each forwarded container as asked, and
// describes the choices it could have made (the checkpoint pass builds its
// memory model from that description).
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_TRANSFORMS_DIFFERENTIATE_H
#define SDFG_TRANSFORMS_DIFFERENTIATE_H

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <string>
#include <vector>

namespace mlir {
namespace sdfg {

struct DifferentiateOptions {
  /// Container to differentiate (empty: ad_output, else __return0).
  std::string output;
  /// Inputs to differentiate against (empty: ad_wrt, else every float
  /// container argument).
  SmallVector<std::string> wrt;
  std::string suffix = "_grad";
  int64_t whileCapacity = 4096;
  /// Iterations, summed over all executions, of a loop whose bounds are
  /// read from data (a CSR row) that the stored values can cover.
  int64_t dataLoopCapacity = 1 << 20;
  /// Add the vector-Jacobian product to what the d_<wrt> arguments hold on
  /// entry; otherwise the gradient program overwrites them.
  bool accumulate = false;
  /// Only the forward results of the arguments in `keep` matter to the
  /// caller: other written arguments are marked `sdfg.discardable`, get no
  /// fwd_ copy, and sdfg-eliminate-dead-writes may drop their writes.
  bool discardResults = false;
  /// The cotangent is all ones (the gradient of sum(output)): the program
  /// fills d_<output> itself instead of reading the caller's seed.
  bool unitSeed = false;
  SmallVector<std::string> keep;
  /// A zero result adjoint gives zero operand adjoints in tasklets, also
  /// where a local derivative is infinite or NaN.
  bool strongZero = true;
  /// Forwarded transients (by name) that the backward program recomputes
  /// instead of storing.
  llvm::StringSet<> recompute;
  /// Only annotate the forward program with its active and forwarded
  /// containers (sdfg.ccs, sdfg.needed); no gradient program.
  bool printCCS = false;
  /// Loop checkpointing: sdfg.loop or top-level sdfg.while (by the name
  /// LoopCandidate reports) -> snapshots per level. One level of c snapshots
  /// runs the loop's T iterations in c + 1 segments of k = ceil(T / (c + 1)):
  /// tapes hold one segment, and the backward program re-runs each segment but
  /// the last from its snapshot before reversing it. A second level splits
  /// each segment the same way, and so on: tapes hold one segment of the
  /// last level. {} or {0} keeps every iteration's tape.
  std::map<std::string, SmallVector<int64_t>> checkpoints;
  /// Binomial loop checkpointing (Griewank and Walther's Revolve): loop ->
  /// snapshots s >= 1. Tapes hold one iteration; the backward program
  /// places the snapshots at run time from the trip count, re-running the
  /// fewest iterations s snapshots allow. A loop is named here or in
  /// `checkpoints`, not both.
  std::map<std::string, int64_t> binomial;
  /// Leave an empty `sdfg.state "checkpoint-anchor"` where the backward
  /// program would recompute each candidate (for the checkpoint model).
  bool markAnchors = false;
};

/// A forwarded transient: the backward program reads its values, so it is
/// stored (kept alive, overwritten values taped) or recomputed (re-run its
/// writers before the backward program first reads each value).
struct RecomputeCandidate {
  std::string name;
  /// The container in the gradient program.
  Value container;
  /// Whether it can be recomputed; otherwise `reason` says why not.
  bool eligible = false;
  std::string reason;
  /// Cost of one full recomputation: operations plus elements moved, over
  /// all executions of its writers.
  double cost = 0.0;
  /// Tapes of its overwritten values (allocs in the gradient program).
  SmallVector<Value> tapes;
  /// Containers its writers read (they must hold their forward values when
  /// the backward program re-runs the writers).
  SmallVector<Value> inputs;
  /// Its writers (states, or conditionals whose branches are states), each
  /// with the last op of its scope that reads the value written (null when
  /// nothing does): the recomputation runs just before that op's reversal.
  SmallVector<std::pair<Operation *, Operation *>> writers;
  /// Per writer: the other containers it writes (before reading them);
  /// the recomputation writes them to scratch copies.
  SmallVector<SmallVector<Value>> scratch;
  /// With markAnchors: the anchor states, and the writer of each.
  SmallVector<Operation *> anchors;
  SmallVector<unsigned> anchorWriters;
};

/// An sdfg.loop (at any depth) or top-level sdfg.while ("while<k>" by
/// position) of the gradient program's forward sweep, and
/// whether loop checkpointing can split it into segments.
struct LoopCandidate {
  /// The frontend's iterator name (the loop's `sdfg.name` attribute), told
  /// apart by "#k" when given twice, else "loop<k>" by position.
  std::string name;
  /// The loop in the gradient program.
  Operation *loop = nullptr;
  /// Its largest trip count (the bounds' intervals; a while loop's
  /// while-capacity).
  int64_t trips = 0;
  bool isWhile = false;
  /// A counted loop whose trip count is read from data: only a binomial
  /// schedule (which takes the count at run time) applies; `trips` is
  /// the data-loop-capacity, for the model.
  bool dataTrips = false;
  /// With dataTrips: the bounds are sizes of the call (index arguments,
  /// extents of arguments, arithmetic on them), not values read from data.
  bool sizeTrips = false;
  /// Whether a binomial schedule applies: eligible, or a top-level loop
  /// whose only obstacle is a trip count read from data.
  bool binomialEligible = false;
  bool eligible = false;
  std::string reason;
  /// The containers one snapshot holds (what the loop writes, but not
  /// transients every iteration overwrites before reading, and what it
  /// reads that later code overwrites), and their bytes.
  SmallVector<Value> state;
  int64_t snapshotBytes = 0;
  /// Whether a state container has a dynamic shape: snapshotBytes then
  /// counts only the static ones until the checkpoint pass measures the
  /// others for its sizes (stateBytes).
  bool dynamicState = false;
  /// Cost of one iteration (operations plus elements moved), as for
  /// recomputed containers.
  double iterationCost = 0.0;
  /// As built: iterations per segment of each level (none: store-all),
  /// snapshots kept per level, and iterations run again in all.
  SmallVector<int64_t> segments;
  SmallVector<int64_t> snapshots;
  int64_t recomputedIterations = 0;
  /// A binomial schedule (segments {1}, snapshots {s}): true.
  bool binomial = false;
};

/// The segment length of each level of a loop of `trips` iterations
/// checkpointed with `checkpoints` snapshots per level (levels that would
/// not split anything dropped; none: store every iteration).
SmallVector<int64_t> loopSegments(int64_t trips, ArrayRef<int64_t> checkpoints);
/// Snapshots kept per level, and iterations run again, for `segments`.
SmallVector<int64_t> loopSnapshots(int64_t trips, ArrayRef<int64_t> segments);
int64_t loopRecomputedIterations(int64_t trips, ArrayRef<int64_t> segments);
/// Iterations the binomial schedule runs again to reverse `trips`
/// iterations with `snapshots` snapshots (Griewank's closed form: the
/// fewest possible), saturating at INT64_MAX.
int64_t binomialRecomputedIterations(int64_t trips, int64_t snapshots);
/// The binomial schedule's next snapshot: with `slots` snapshots free
/// (the one holding the current start included) and `steps` iterations
/// to reverse from there (steps >= 2, slots >= 2), how many iterations
/// to advance before storing the next one. The generated code computes
/// the same at run time.
int64_t binomialAdvance(int64_t steps, int64_t slots);

struct DifferentiateResult {
  SDFGOp grad;
  /// The last op of the forward part of the gradient program's body.
  Operation *forwardEnd = nullptr;
  std::vector<RecomputeCandidate> candidates;
  std::vector<LoopCandidate> loops;
};

/// Builds `<fwd><suffix>` after `fwd`. Emits located diagnostics and
/// returns failure on unsupported input. With printCCS the result's grad
/// is null.
FailureOr<DifferentiateResult>
differentiate(SDFGOp fwd, const DifferentiateOptions &options);

/// The options a gradient program was made with, from the `sdfg.ad`
/// attribute differentiate() records on it (output and wrt resolved), and
/// the forward program it names. Emits a located error when the attribute
/// is malformed.
LogicalResult readDifferentiateOptions(SDFGOp grad, FlatSymbolRefAttr &of,
                                       DifferentiateOptions &options);

/// The name reports and options use for a container of `op`: its argument
/// name, the `name` of its sdfg.alloc, or "transient<k>".
std::string containerName(SDFGOp op, Value container);

/// Adds the containers `op` and the ops nested in it read (loads, copy
/// sources, library op inputs).
void collectContainerReads(Operation *op, llvm::SetVector<Value> &out);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_TRANSFORMS_DIFFERENTIATE_H
