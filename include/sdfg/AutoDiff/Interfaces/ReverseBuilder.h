//===- ReverseBuilder.h - State of one reverse-mode AD run ------*- C++ -*-===//
//
// The sdfg-autodiff driver builds the backward program by walking the
// forward program in reverse and calling each op's ReverseModeOpInterface
// rule with this builder. It holds what the rules share: the insertion
// point, the mapping from forward to backward values, the gradient
// container of every active container, and the tapes the forward program
// wrote (restore-on-reverse: every overwritten value the backward program
// reads is stored before it is overwritten, and put back when the
// overwriting op is reversed, so rules read primal values from containers
// as they were when the op ran).
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_REVERSEBUILDER_H
#define SDFG_DIALECT_SDFG_REVERSEBUILDER_H

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>

namespace mlir {
namespace sdfg {

class TaskletOp;

/// Where one execution of a forward op writes its tape: `tape[exprs(operands)
/// ..., extra...]`, with `exprs` the normalised counters of the enclosing
/// loops and maps (forward values as operands).
struct TapeSlot {
  Value tape;
  SmallVector<Value> operands;
  SmallVector<AffineExpr> exprs;
};

class ReverseBuilder {
public:
  explicit ReverseBuilder(OpBuilder &builder) : b(builder) {}

  OpBuilder &b;
  /// Forward value -> backward value (iterators, map parameters, and the
  /// values the rules recompute).
  IRMapping map;
  /// Active container -> its gradient container.
  llvm::DenseMap<Value, Value> gradients;
  /// What the reversal of a min/max/mul accumulation in a map needs to
  /// know about all of the map's contributions to an element, counted by
  /// a census map before the reversed map (MapOp::emitReverse): for
  /// min/max the number of contributions equal to the result (ties share
  /// its gradient), for mul the number of zero factors and the product of
  /// the others (an element's adjoint is the product of the other
  /// factors, which division cannot give when some are zero).
  struct Census {
    Value count;   // min/max: winners; mul: zero factors
    Value nonzero; // mul: product of the nonzero factors
  };
  llvm::DenseMap<Operation *, Census> census;
  /// Forward op -> its tape slots (one per stored value or condition).
  llvm::DenseMap<Operation *, SmallVector<TapeSlot>> tapes;
  /// Forward sdfg.while -> (its iteration counter container, the index
  /// value of the current iteration in its body), and the number of
  /// iterations the tapes cover.
  llvm::DenseMap<Operation *, std::pair<Value, Value>> whileLoops;
  int64_t whileCapacity = 0;
  /// Tasklet adjoints: zero wherever the result's adjoint is (see
  /// DifferentiateOptions::strongZero).
  bool strongZero = true;
  /// Slots of the tapes under a loop whose trip count is data (counted
  /// over all its executions).
  int64_t dataLoopCapacity = 0;
  /// Forward loop/map -> (bound operand computed from data, its tape): the
  /// reversed op reads the bound the forward op used, not the data as it
  /// is when the op is reversed.
  llvm::DenseMap<Operation *, SmallVector<std::pair<Value, TapeSlot>>>
      boundTapes;

  /// Forward loops checkpointed by segments (loop checkpointing): the
  /// iterations per segment. Their tapes hold one segment, indexed by the
  /// iteration's position in its segment; the backward program re-runs
  /// each earlier segment from a snapshot before reversing it.
  llvm::DenseMap<Operation *, int64_t> segments;
  /// Forward sdfg.loop -> the loop that reverses it (set by its rule).
  llvm::DenseMap<Operation *, Operation *> reversedLoops;

  /// Forward overwrites whose reversal need not zero the gradient it
  /// consumes: nothing reads that gradient afterwards (see markDeadClears in
  /// lib/AutoDiff/Transforms/Differentiate.cpp).
  llvm::DenseSet<Operation *> deadClears;
  /// Called before each forward op of a reversed region is reversed, at
  /// the insertion point of its reversal (the checkpoint recomputations
  /// go there).
  std::function<void(Operation *)> beforeReverse;

  /// Maps the data-dependent bound operands of `fwdOp` to their stored
  /// values, loaded at the insertion point.
  void loadBounds(Operation *fwdOp);

  Value gradientOf(Value container) const {
    return gradients.lookup(container);
  }
  Value lookup(Value fwd) const { return map.lookupOrDefault(fwd); }
  SmallVector<Value> lookup(ValueRange fwd) const;

  /// Reverses the ops of a region (in reverse order) at the insertion point.
  LogicalResult reverseRegion(Region &fwd);

  /// Recomputes a forward scalar (its loads and tasklets) at the insertion
  /// point and returns the backward value.
  Value recompute(Value fwd);

  /// Propagates `adjoint` (the adjoint of forward scalar `fwd`) into the
  /// loads and tasklets that computed it, accumulating into gradient
  /// containers with wcr(add).
  LogicalResult backprop(Value fwd, Value adjoint);

  /// The tape index (map over the returned operands) of `slot` for the
  /// current execution, followed by `extra` expressions over `extraOps`.
  AffineMap tapeIndex(const TapeSlot &slot, ArrayRef<AffineExpr> extra,
                      ValueRange extraOps, SmallVectorImpl<Value> &operands);

  /// Small emission helpers.
  Value constantTasklet(Location loc, Type type, double value);
  /// A tasklet over `inputs` at the insertion point whose body `fn` builds
  /// from the block arguments, returning the values it yields.
  TaskletOp
  tasklet(Location loc, TypeRange results, ValueRange inputs,
          function_ref<SmallVector<Value>(OpBuilder &, ArrayRef<Value>)> fn);
  /// `sdfg.store value, container[map(operands)]` with optional add.
  void store(Location loc, Value value, Value container, AffineMap map,
             ValueRange operands, bool accumulate);
  Value load(Location loc, Value container, AffineMap map, ValueRange operands);
  /// Opens a map over `0 <= p < extent` per dimension (extents are affine
  /// expressions over `operands`) at the insertion point and moves the
  /// builder into its body; returns the parameters. With no dimension it
  /// emits nothing and returns no parameters.
  SmallVector<Value> openMap(Location loc, ArrayRef<AffineExpr> extents,
                             ValueRange operands, bool parallel);
  /// The same over a static shape.
  SmallVector<Value> openMap(Location loc, ArrayRef<int64_t> shape,
                             bool parallel);

  /// The element of `subset` at `params` (one per range dimension, in
  /// order) as a map over `numOperands` subset operands followed by the
  /// params.
  static AffineMap subsetElement(const Subset &subset, unsigned numOperands,
                                 MLIRContext *ctx);
  /// Opens a map over the range dimensions of `subset` (its expressions over
  /// `operands`); returns the params.
  SmallVector<Value> openSubset(Location loc, const Subset &subset,
                                ValueRange operands, bool parallel);

  /// The dynamic extents of `container`: its alloc's sizes, or for an
  /// argument the caller's, read by sdfg.dim at the top of the program.
  SmallVector<Value> dynamicSizes(Value container);
  /// A new transient of `container`'s type and extents at the top of the
  /// program (a gradient or tangent of it), after the `leading` static
  /// extents (a stack of copies: loop checkpointing's snapshots).
  Value allocateLike(Location loc, Value container, StringAttr name = {},
                     ArrayRef<int64_t> leading = {});
  /// Opens a map over every element of `container` (extents static, or
  /// its dynamicSizes) at the insertion point and moves the builder into
  /// its body; returns the parameters.
  SmallVector<Value> openContainerMap(Location loc, Value container,
                                      bool parallel);
  /// Fills a whole container with `value` (emits a state with a map when
  /// `inState` is false, else just the map).
  void fill(Location loc, Value container, double value, bool inState);
};

/// Erases the sdfg.dim ops at the top of `program` that nothing uses
/// (ReverseBuilder::dynamicSizes reads extents for fills and copies that a
/// pass may drop again).
void eraseUnusedDims(Operation *program);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_REVERSEBUILDER_H
