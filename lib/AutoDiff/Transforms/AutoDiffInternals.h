//===- AutoDiffInternals.h - Shared by the AD driver's files ----*- C++ -*-===//
//
// What the files of --sdfg-autodiff's driver share: write summaries, the
// interval arithmetic that sizes tapes, tape slots, recompute candidates
// and the Differentiator whose phases build a gradient program (each file
// defines the phases of its topic). Private to lib/AutoDiff/Transforms.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_AUTODIFF_TRANSFORMS_AUTODIFFINTERNALS_H
#define SDFG_AUTODIFF_TRANSFORMS_AUTODIFFINTERNALS_H

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/AutoDiff/Transforms/Differentiate.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace sdfg {
namespace detail {

/// What one write op reads and writes (containers).
struct WriteInfo {
  Operation *op;
  Value target;
  SmallVector<Value> reads;
  bool readsTarget = false;
};

// Activity.cpp: what the program reads and writes.
SmallVector<WriteInfo> summarize(SDFGOp op);
bool carriesGradient(Value v, const llvm::SetVector<Value> &active,
                     llvm::DenseMap<Value, bool> &memo);
void collectNeededReads(Value v, bool valueNeeded,
                        const llvm::SetVector<Value> &active,
                        llvm::DenseMap<Value, bool> &memo,
                        llvm::SetVector<Value> &out);
bool dependsOnData(Value v);
/// Containers whose loads compute `v`, values and indices (through
/// tasklets and index computations).
void collectLoadedContainers(Value v, llvm::SetVector<Value> &out);
/// The unit attribute of an sdfg.alloc whose container is a constant to
/// differentiation (the frontend's sdfg.stop_gradient): writes into it
/// never make it active (reverse mode) or varied (forward mode).
constexpr llvm::StringLiteral kStopGradientAttr = "sdfg.stop_gradient";
bool stopsGradient(Value container);

struct Interval {
  int64_t lo, hi;
};

/// Bounds of index values over all executions, for sizing tapes
/// (Intervals.cpp).
class Intervals {
public:
  std::optional<Interval> of(Value v);
  std::optional<Interval> of(AffineExpr e, ValueRange operands);
};

// Intervals.cpp: bounds of loops and maps.
std::optional<Interval> extentFromAccess(Operation *op, Value p, int64_t lo,
                                         Intervals &iv);
bool hasBoundedTrips(LoopOp loop, Intervals &iv);

/// A tape dimension whose size only the call knows: the trip count of a
/// loop or map dimension `lower` to `upper` by `step`, affine over
/// `operands`, all of them fixed before the program's first state
/// (isShapeLevel).
struct RuntimeExtent {
  AffineExpr lower, upper;
  int64_t step;
  SmallVector<Value> operands;
};

/// Whether index value `v` is known before the program's first state and
/// fixed for the call: an index argument, an extent of an argument
/// (sdfg.dim), or index arithmetic on those in the sdfg body.
bool isShapeLevel(Value v);

// Taping.cpp: where the forward sweep stores a value. With `runtime`,
// loops and maps whose bounds are shape-level values give a dimension of
// size ShapedType::kDynamic (its extent appended to `runtime`); without,
// they fail.
LogicalResult makeSlot(Operation *op, Intervals &iv, ReverseBuilder &rb,
                       TapeSlot &slot, SmallVectorImpl<int64_t> &sizes,
                       function_ref<FailureOr<Value>(LoopOp)> dataLoopIndex,
                       SmallVectorImpl<RuntimeExtent> *runtime = nullptr);
bool runsAfterAll(Operation *op, Operation *later);
bool initialisedBefore(StoreOp store, Value target);

/// A checkpointed loop in the gradient program, forward and reversed
/// (LoopCheckpoint.cpp). Expressions are over (iterator, operands...).
struct LoopFrame {
  int64_t step = 1;
  /// The iteration's position from 0, its first iterator value, and the
  /// trip count forward (a while loop's capacity) and backward.
  AffineExpr n, lb, fwdTrips, bwdTrips;
  SmallVector<Value> fwdOperands, bwdOperands;
  Value fwdIv;
  Block *fwdBody = nullptr;
  /// Where forward saves go: the body's start (a while body's, after its
  /// iteration index).
  Operation *fwdStart = nullptr;
  /// The enclosing loops' iterators -> their reversed loops'.
  IRMapping toBwd;
  /// The enclosing loops' slot (as the loop's tapes have it), its sizes,
  /// and its operands where the loop is reversed.
  TapeSlot outerSlot;
  SmallVector<int64_t> outerSizes;
  SmallVector<Value> bwdSlotOperands;
};

// LoopCheckpoint.cpp: a counted loop's iteration space, as expressions
// over (iterator, bound operands...).
/// The position of the iteration from 0, whatever the step.
AffineExpr iterationExpr(LoopOp loop);
/// The trip count (negative when the loop runs no iteration).
AffineExpr tripsExpr(LoopOp loop);
/// Opens `sdfg.if cond { ... }` at the insertion point and moves into it.
void openIf(OpBuilder &b, Location loc, Value cond);
/// Whether a snapshot's copy of `container` runs as a parallel map.
bool parallelCopy(Value container);

// Recompute.cpp: what recomputing a forwarded transient takes.
double stateCost(Operation *state, Intervals &iv);
double executions(Operation *op, Intervals &iv, int64_t whileCapacity);
void dropTapeWrites(Operation *clone, const llvm::DenseSet<Value> &tapes);
/// Whether the first access to `z` in `state` (in program order) is a
/// write of all of it: then what the state reads of `z` it wrote itself.
bool firstAccessCovers(StateOp state, Value z);
LogicalResult
analyseCandidates(SDFGOp grad, ArrayRef<WriteInfo> writes,
                  const llvm::SetVector<Value> &needed,
                  llvm::DenseMap<Value, SmallVector<Operation *>> &readersOf,
                  const llvm::DenseSet<Operation *> &forced,
                  const llvm::SetVector<Value> &counters, Intervals &iv,
                  int64_t whileCapacity, std::vector<RecomputeCandidate> &out);

/// A written argument's forward result, copied to fwd_<name> at the end of
/// the forward sweep.
struct ResultCopy {
  Value arg, copy;
  StateOp state;
};

/// Builds the gradient program of one forward program. The phases run in
/// the order of run(), each on what the earlier ones left in the members.
class Differentiator {
public:
  Differentiator(SDFGOp fwd, const DifferentiateOptions &opts,
                 DifferentiateResult &result)
      : fwd(fwd), opts(opts), result(result), ctx(fwd.getContext()), b(ctx),
        rb(b), i64(b.getI64Type()),
        counterType(MemRefType::get({}, b.getI64Type())),
        scalar(AffineMap::get(ctx)) {}

  LogicalResult run();

private:
  // Setup: the names asked for and the copy of the forward program.
  LogicalResult resolveNames();
  void createGradientProgram();
  Value addArgOfType(Type type, const std::string &name);
  Value addArg(Value like, const std::string &name) {
    return addArgOfType(like.getType(), name);
  }

  // Iteration counts of while loops, and the status that reports an
  // overflow of their capacity.
  LogicalResult countWhileIterations();
  void countIterations(WhileOp w);
  Value overCapacity(OpBuilder &ob, Location loc, Value count, int64_t cap);
  void raiseStatus(Location loc, Value flag);

  // Activity, and what the backward program reads.
  void analyseActivity();
  void collectNeeded();
  void annotateCCS();

  LogicalResult addGradientArguments();

  // Loop checkpointing (LoopCheckpoint.cpp): which top-level loops can be
  // split into segments, and the snapshots and segment re-runs of those
  // the options split.
  LogicalResult resolveLoopCheckpoints();
  LogicalResult checkpointLoops();
  LogicalResult checkpointLoop(LoopCandidate &c);
  LogicalResult checkpointLoopBinomial(LoopCandidate &c);
  FailureOr<LoopFrame> loopFrame(const LoopCandidate &c, LoopOp rev);
  LogicalResult chooseRecomputed();

  // Tapes: the forward sweep stores what the backward program reads.
  LogicalResult makeTape(Operation *op, Type elt, ArrayRef<int64_t> extra,
                         TapeSlot &slot);
  SmallVector<Value> runtimeSizes(Location loc,
                                  ArrayRef<RuntimeExtent> extents);
  FailureOr<Value> dataLoopIndex(LoopOp loop);
  Value dataLoopSlot(LoopOp loop, Value base);
  LogicalResult tapeWrites();
  FailureOr<bool> needsTape(const WriteInfo &w, bool first,
                            const llvm::DenseSet<Value> &recomputeInputs);
  LogicalResult tapeOverwritten(const WriteInfo &w, TapeSlot &slot);
  LogicalResult tapeLibraryOutput(const WriteInfo &w, TapeSlot &slot);
  LogicalResult tapeCopy(CopyOp copy, TapeSlot &slot);
  LogicalResult tapeConditions();
  LogicalResult tapeDataBounds();

  // The backward program and what it starts from.
  LogicalResult copyResults();
  LogicalResult zeroGradients();
  LogicalResult fillArguments();
  Value copyOf(Value x, const std::string &name);
  void prepareRecomputation();
  void recomputeBefore(Operation *op);
  Operation *cloneWriter(Operation *writer, IRMapping &m, StringAttr label);
  void markDeadClears();
  LogicalResult buildBackward();
  void sinkFills();
  LogicalResult dropUnrewoundCopies();
  void recordOptions();

  SDFGOp fwd;
  const DifferentiateOptions &opts;
  DifferentiateResult &result;
  MLIRContext *ctx;
  OpBuilder b;
  ReverseBuilder rb;
  Type i64;
  MemRefType counterType;
  AffineMap scalar;

  std::string outName, gradName;
  SmallVector<std::string> wrtNames;
  SDFGOp grad;
  /// The output in the gradient program.
  Value out;
  /// ad_status, once a while loop or a data loop needs it.
  Value status;
  /// Iteration counters of the while loops.
  llvm::SetVector<Value> counters;

  SmallVector<WriteInfo> writes;
  llvm::SetVector<Value> active;
  llvm::SetVector<Value> needed;
  /// Writes taped whatever else is decided (wcr min/max/mul).
  llvm::DenseSet<Operation *> forced;
  /// The forward writes whose reversals read each container.
  llvm::DenseMap<Value, SmallVector<Operation *>> readersOf;

  SmallVector<std::pair<Value, Value>> wrtGradients; // (w, d_<w>)
  Value seedArg;                                     // d_<output>

  Intervals intervals;
  llvm::DenseMap<Value, unsigned> candidateIndex;
  llvm::DenseSet<Value> recomputed;
  llvm::DenseMap<Operation *, Value> dataLoopIndices;

  SmallVector<ResultCopy> resultCopies;
  /// Gradient containers and the fill that zeroes each.
  SmallVector<std::pair<Value, Operation *>> fills;
  /// Per op whose reversal a recomputation precedes: (candidate, writer).
  llvm::DenseMap<Operation *, SmallVector<std::pair<unsigned, unsigned>>>
      anchorsAt;
  /// Recomputed containers and the fresh containers that replace them.
  llvm::DenseMap<Value, Value> fresh;
  llvm::DenseSet<Value> tapeValues;
};

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // SDFG_AUTODIFF_TRANSFORMS_AUTODIFFINTERNALS_H
