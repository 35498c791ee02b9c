//===- AutoDiff.cpp - Reverse-mode AD of sdfg programs --------------------===//
//
// The driver of --sdfg-autodiff: activity analysis (the Critical
// Computation Subgraph), tape placement (store-all with restore-on-reverse)
// and the walk that calls each op's ReverseModeOpInterface rule. The rules
// themselves are external models of the ops (lib/AutoDiff/Implementations,
// a file per family of ops).
//
//===----------------------------------------------------------------------===//

#include "sdfg/AutoDiff/Implementations/Register.h"
#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"
#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/AutoDiff/Transforms/Differentiate.h"
#include "sdfg/AutoDiff/Transforms/Passes.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_AUTODIFF
#include "sdfg/AutoDiff/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// What one write op reads and writes (containers).
struct WriteInfo {
  Operation *op;
  Value target;
  SmallVector<Value> reads;
  bool readsTarget = false;
};

/// Whether `v` (a scalar in a state) carries a gradient: a float that
/// depends on an active container. The values read only to differentiate
/// with respect to others (`beta` in `C * beta` with only C active) need
/// not be kept for the backward program.
bool carriesGradient(Value v, const llvm::SetVector<Value> &active,
                     llvm::DenseMap<Value, bool> &memo) {
  if (!isa<FloatType>(v.getType()))
    return false;
  auto [it, inserted] = memo.try_emplace(v, false);
  if (!inserted)
    return it->second;
  bool result = false;
  if (auto load = v.getDefiningOp<LoadOp>())
    result = active.contains(load.getMemref());
  else if (auto t = v.getDefiningOp<TaskletOp>())
    result = llvm::any_of(t.getInputs(), [&](Value in) {
      return carriesGradient(in, active, memo);
    });
  memo[v] = result;
  return result;
}

/// Containers whose values the backward program reads when it recomputes
/// and differentiates `v`: through linear arithmetic only the indices are
/// needed, and no value is needed to differentiate with respect to what
/// carries no gradient; `valueNeeded` says whether `v`'s own value is.
void collectNeededReads(Value v, bool valueNeeded,
                        const llvm::SetVector<Value> &active,
                        llvm::DenseMap<Value, bool> &memo,
                        llvm::SetVector<Value> &out) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return;
  if (auto load = dyn_cast<LoadOp>(def)) {
    if (valueNeeded)
      out.insert(load.getMemref());
    for (Value i : load.getIndices())
      collectNeededReads(i, true, active, memo, out);
    return;
  }
  auto t = dyn_cast<TaskletOp>(def);
  if (!t)
    return;
  Block &body = t.getBody().front();
  llvm::DenseSet<Value> needed;
  SmallVector<Value> work;
  auto mark = [&](Value x) {
    if (needed.insert(x).second)
      work.push_back(x);
  };
  if (valueNeeded)
    mark(cast<YieldOp>(body.getTerminator())
             .getValues()[cast<OpResult>(v).getResultNumber()]);
  // Whether a value depends on the tasklet's inputs that carry gradients
  // (else no gradient flows through it).
  llvm::DenseMap<Value, bool> varying;
  for (auto [a, in] : llvm::zip(body.getArguments(), t.getInputs()))
    varying[a] = carriesGradient(in, active, memo);
  for (Operation &op : body.without_terminator()) {
    bool any = false;
    for (Value operand : op.getOperands())
      any |= varying.lookup(operand);
    for (Value r : op.getResults())
      varying[r] = any;
  }
  for (Operation &op : body.without_terminator()) {
    // What the op's adjoint reads (its rule says: a product by a constant
    // needs only the constant); an op without a rule, all its operands.
    SmallVector<bool> vary;
    for (Value operand : op.getOperands())
      vary.push_back(varying.lookup(operand));
    if (!llvm::is_contained(vary, true))
      continue;
    SmallVector<unsigned> reads;
    if (auto rule = dyn_cast<ScalarAdjointOpInterface>(&op))
      rule.getNeededPrimals(vary, reads);
    else
      reads = llvm::to_vector(llvm::seq<unsigned>(0, op.getNumOperands()));
    for (unsigned i : reads)
      mark(op.getOperand(i));
  }
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (Operation *d = x.getDefiningOp())
      for (Value operand : d->getOperands())
        mark(operand);
  }
  for (auto [arg, in] : llvm::zip(body.getArguments(), t.getInputs()))
    collectNeededReads(in,
                       needed.contains(arg) || !isa<FloatType>(in.getType()),
                       active, memo, out);
}

/// Whether `later` runs after every execution of `op`: it follows `op` in
/// program order and no loop or map repeats both.
bool runsAfterAll(Operation *op, Operation *later) {
  for (Operation *x = op; x && !isa<SDFGOp>(x); x = x->getParentOp()) {
    Operation *y = x->getBlock()->findAncestorOpInBlock(*later);
    if (!y)
      continue;
    if (y == x)
      return false;
    for (Operation *p = x->getParentOp(); p && !isa<SDFGOp>(p);
         p = p->getParentOp())
      if (isa<LoopOp, WhileOp, MapOp>(p))
        return false;
    return x->isBeforeInBlock(y);
  }
  return false;
}

/// Whether an op before `store`'s outermost map, in the same block, writes
/// `target` without wcr (an initialisation whose reversal restores it).
bool initialisedBefore(StoreOp store, Value target) {
  Operation *outer = store;
  while (outer->getParentOp() && isa<MapOp>(outer->getParentOp()))
    outer = outer->getParentOp();
  for (Operation *op = outer->getPrevNode(); op; op = op->getPrevNode()) {
    bool init = false;
    op->walk([&](StoreOp s) {
      if (s.getMemref() == target && !s.getWcr())
        init = true;
    });
    if (init)
      return true;
  }
  return false;
}

/// Whether `v` is computed from array data (a load, through tasklets).
bool dependsOnData(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<LoadOp>(def))
    return true;
  if (isa<TaskletOp, BroadcastExtentOp, CheckIndexOp>(def))
    return llvm::any_of(def->getOperands(), dependsOnData);
  return false;
}

/// Containers loaded by the loads that compute `v` (through tasklets).
void collectReads(Value v, llvm::SetVector<Value> &out) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return;
  if (auto load = dyn_cast<LoadOp>(def)) {
    out.insert(load.getMemref());
    for (Value i : load.getIndices())
      collectReads(i, out);
    return;
  }
  if (isa<TaskletOp, BroadcastExtentOp, CheckIndexOp>(def))
    for (Value in : def->getOperands())
      collectReads(in, out);
}

SmallVector<WriteInfo> summarize(SDFGOp op) {
  SmallVector<WriteInfo> writes;
  op.walk([&](Operation *inner) {
    WriteInfo w{inner, {}, {}, false};
    llvm::SetVector<Value> reads;
    if (auto s = dyn_cast<StoreOp>(inner)) {
      w.target = s.getMemref();
      collectReads(s.getValue(), reads);
      w.readsTarget = s.getWcr().has_value();
    } else if (auto c = dyn_cast<CopyOp>(inner)) {
      w.target = c.getTarget();
      reads.insert(c.getSource());
      w.readsTarget = c.getWcr().has_value();
    } else if (auto lib = dyn_cast<LibraryOpInterface>(inner)) {
      w.target = lib.getOutputContainer();
      reads.insert_range(lib.getInputContainers());
      w.readsTarget = lib.accumulatesIntoOutput();
    } else {
      return;
    }
    w.reads.assign(reads.begin(), reads.end());
    writes.push_back(std::move(w));
  });
  return writes;
}

struct Interval {
  int64_t lo, hi;
};

/// Bounds of index values over all executions, for sizing tapes.
class Intervals {
public:
  std::optional<Interval> of(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg)
      return std::nullopt;
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<LoopOp>(owner)) {
      auto lb = of(loop.getLowerExpr(), loop.getBoundOperands());
      auto ub = of(loop.getUpperExpr(), loop.getBoundOperands());
      if (!lb || !ub)
        return std::nullopt;
      if (loop.getStepValue() > 0)
        return Interval{lb->lo, ub->hi - 1};
      return Interval{ub->lo + 1, lb->hi};
    }
    if (auto map = dyn_cast<MapOp>(owner)) {
      unsigned k = arg.getArgNumber();
      auto lb = of(map.getLowerBounds().getResult(k), map.getRangeOperands());
      auto ub = of(map.getUpperBounds().getResult(k), map.getRangeOperands());
      if (!lb || !ub)
        return std::nullopt;
      return Interval{lb->lo, ub->hi - 1};
    }
    return std::nullopt;
  }

  std::optional<Interval> of(AffineExpr e, ValueRange operands) {
    if (auto c = dyn_cast<AffineConstantExpr>(e))
      return Interval{c.getValue(), c.getValue()};
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return of(operands[d.getPosition()]);
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin)
      return std::nullopt;
    auto l = of(bin.getLHS(), operands), r = of(bin.getRHS(), operands);
    if (!l || !r)
      return std::nullopt;
    auto floorDiv = [](int64_t a, int64_t b) {
      return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    };
    // Bounds that overflow (or leave what the dialect represents) are
    // unknown: the tape is then refused instead of sized from a wrapped
    // value.
    auto within = [](Interval i) -> std::optional<Interval> {
      if (i.lo <= -kMaxRepresentable || i.hi >= kMaxRepresentable)
        return std::nullopt;
      return i;
    };
    switch (e.getKind()) {
    case AffineExprKind::Add: {
      Interval sum;
      if (llvm::AddOverflow(l->lo, r->lo, sum.lo) ||
          llvm::AddOverflow(l->hi, r->hi, sum.hi))
        return std::nullopt;
      return within(sum);
    }
    case AffineExprKind::Mul: {
      int64_t c[4];
      if (llvm::MulOverflow(l->lo, r->lo, c[0]) ||
          llvm::MulOverflow(l->lo, r->hi, c[1]) ||
          llvm::MulOverflow(l->hi, r->lo, c[2]) ||
          llvm::MulOverflow(l->hi, r->hi, c[3]))
        return std::nullopt;
      return within(
          Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)});
    }
    case AffineExprKind::FloorDiv:
      if (r->lo != r->hi || r->lo <= 0)
        return std::nullopt;
      return Interval{floorDiv(l->lo, r->lo), floorDiv(l->hi, r->lo)};
    case AffineExprKind::CeilDiv:
      if (r->lo != r->hi || r->lo <= 0)
        return std::nullopt;
      return Interval{-floorDiv(-l->lo, r->lo), -floorDiv(-l->hi, r->lo)};
    case AffineExprKind::Mod:
      if (r->lo != r->hi || r->lo <= 0)
        return std::nullopt;
      return Interval{0, r->lo - 1};
    default:
      return std::nullopt;
    }
  }
};

struct AutoDiffPass : public sdfg::impl::AutoDiffBase<AutoDiffPass> {
  using AutoDiffBase::AutoDiffBase;

  // The rules are external models: the pass brings them, so a compiler
  // that embeds it needs no registration call of its own.
  void getDependentDialects(DialectRegistry &registry) const override {
    AutoDiffBase::getDependentDialects(registry);
    registerAutoDiffModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<SDFGOp> targets;
    for (SDFGOp op : module.getOps<SDFGOp>()) {
      if (!of.empty() && op.getSymName() != of)
        continue;
      if (!output.empty() || op.getAdOutput() || op.lookupArg("__return0"))
        targets.push_back(op);
    }
    if (!of.empty() && targets.empty()) {
      module.emitError("sdfg-autodiff: no sdfg.sdfg named '")
          << of << "' to differentiate";
      return signalPassFailure();
    }
    if (targets.empty()) {
      module.emitError("sdfg-autodiff: no sdfg.sdfg names an output to "
                       "differentiate; pass output=<name> or set ad_output");
      return signalPassFailure();
    }
    DifferentiateOptions opts;
    opts.output = output;
    opts.wrt.assign(wrt.begin(), wrt.end());
    opts.suffix = suffix;
    opts.whileCapacity = whileCapacity;
    opts.dataLoopCapacity = dataLoopCapacity;
    opts.accumulate = accumulate;
    opts.discardResults = discardResults;
    opts.unitSeed = unitSeed;
    opts.strongZero = strongZero;
    opts.keep.assign(keep.begin(), keep.end());
    if (!keep.empty() && !discardResults) {
      module.emitError("sdfg-autodiff: keep= needs discard-results=true");
      return signalPassFailure();
    }
    opts.printCCS = printCCS;
    if (whileCapacity <= 0) {
      module.emitError("sdfg-autodiff: while-capacity must be positive");
      return signalPassFailure();
    }
    if (dataLoopCapacity <= 0) {
      module.emitError("sdfg-autodiff: data-loop-capacity must be positive");
      return signalPassFailure();
    }
    for (SDFGOp op : targets)
      if (failed(differentiate(op, opts)))
        return signalPassFailure();
  }
};

/// `expr` as constant + sum(coefficient * dim), if it is one.
bool linearTerms(AffineExpr expr, SmallVectorImpl<int64_t> &coefficients,
                 int64_t &constant, int64_t scale = 1) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    constant += scale * c.getValue();
    return true;
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    coefficients[d.getPosition()] += scale;
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearTerms(bin.getLHS(), coefficients, constant, scale) &&
           linearTerms(bin.getRHS(), coefficients, constant, scale);
  if (bin.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return linearTerms(bin.getLHS(), coefficients, constant,
                         scale * c.getValue());
  return false;
}

/// A lower bound of the index value `v` where one is plain: a constant,
/// an iterator over known bounds, or a tasklet's clamp of such values
/// (`max(x, 0)`, the frontend's slice bounds read from data).
std::optional<int64_t> lowerBound(Value v, Intervals &iv);

std::optional<int64_t> lowerBoundInTasklet(Value v, TaskletOp t,
                                           Intervals &iv) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return lowerBound(t.getInputs()[arg.getArgNumber()], iv);
  Operation *def = v.getDefiningOp();
  IntegerAttr c;
  if (matchPattern(v, m_Constant(&c)))
    return c.getInt();
  auto bound = [&](unsigned k) {
    return lowerBoundInTasklet(def->getOperand(k), t, iv);
  };
  if (isa<arith::MaxSIOp>(def)) {
    auto a = bound(0), b = bound(1);
    if (a && b)
      return std::max(*a, *b);
    return a ? a : b;
  }
  if (isa<arith::MinSIOp, arith::SelectOp>(def)) {
    unsigned first = isa<arith::SelectOp>(def) ? 1 : 0;
    auto a = bound(first), b = bound(first + 1);
    if (a && b)
      return std::min(*a, *b);
    return std::nullopt;
  }
  if (isa<arith::AddIOp>(def)) {
    auto a = bound(0), b = bound(1);
    if (a && b)
      return *a + *b;
  }
  if (isa<arith::IndexCastOp>(def))
    return bound(0);
  return std::nullopt;
}

std::optional<int64_t> lowerBound(Value v, Intervals &iv) {
  if (auto i = iv.of(v))
    return i->lo;
  IntegerAttr c;
  if (matchPattern(v, m_Constant(&c)))
    return c.getInt();
  if (auto t = v.getDefiningOp<TaskletOp>()) {
    auto yield = cast<YieldOp>(t.getBody().front().getTerminator());
    return lowerBoundInTasklet(
        yield.getValues()[cast<OpResult>(v).getResultNumber()], t, iv);
  }
  return std::nullopt;
}

/// Tape slot of an op: normalised counters of its enclosing loops and maps.
/// An upper bound for map parameter `p` from a store that indexes a
/// dimension with `p + rest` (coefficient 1), `rest` at least some
/// constant (a constant, or values with known lower bounds: the start of
/// a window whose bounds are read from data): the parameter stays within
/// that dimension. Used when the map's bound is computed from data.
std::optional<Interval> extentFromAccess(Operation *op, Value p, int64_t lo,
                                         Intervals &iv) {
  auto store = dyn_cast<StoreOp>(op);
  if (!store)
    return std::nullopt;
  MemRefType t = store.getMemref().getType();
  ValueRange indices = store.getIndices();
  for (auto [d, e] : llvm::enumerate(store.getMap().getResults())) {
    if (t.isDynamicDim(d))
      continue;
    SmallVector<int64_t> coefficients(indices.size(), 0);
    int64_t least = 0;
    if (!linearTerms(e, coefficients, least))
      continue;
    int64_t ofP = 0;
    bool bounded = true;
    for (auto [k, operand] : llvm::enumerate(indices)) {
      int64_t a = coefficients[k];
      if (operand == p) {
        ofP += a;
        continue;
      }
      std::optional<int64_t> b =
          a > 0 ? lowerBound(operand, iv) : std::optional<int64_t>(0);
      bounded &= a >= 0 && b.has_value();
      if (a > 0 && b)
        least += a * *b;
    }
    if (ofP == 1 && bounded)
      return Interval{lo, t.getDimSize(d) - least};
  }
  return std::nullopt;
}

/// Whether the trip count of `loop` is bounded when compiling.
bool hasBoundedTrips(LoopOp loop, Intervals &iv) {
  return iv.of(loop.getLowerExpr(), loop.getBoundOperands()) &&
         iv.of(loop.getUpperExpr(), loop.getBoundOperands());
}

LogicalResult makeSlot(Operation *op, Intervals &iv, ReverseBuilder &rb,
                       TapeSlot &slot, SmallVectorImpl<int64_t> &sizes,
                       function_ref<FailureOr<Value>(LoopOp)> dataLoopIndex) {
  SmallVector<Operation *> context;
  for (Operation *p = op->getParentOp(); p && !isa<SDFGOp>(p);
       p = p->getParentOp())
    if (isa<LoopOp, MapOp, WhileOp>(p))
      context.push_back(p);
  std::reverse(context.begin(), context.end());
  auto fail = [&]() {
    return op->emitOpError(
        "autodiff cannot size the storage for this write: the bounds of its "
        "enclosing loops and maps must be constants or depend only on "
        "enclosing iterators");
  };
  // Under the innermost loop whose trip count is data, the slot of an
  // iteration counted over all that loop's executions indexes the tape,
  // and what encloses the loop adds no dimension. A map around it would
  // count its iterations concurrently.
  unsigned first = 0;
  for (unsigned k = context.size(); k-- > 0;) {
    auto loop = dyn_cast<LoopOp>(context[k]);
    if (!loop || hasBoundedTrips(loop, iv))
      continue;
    if (llvm::any_of(ArrayRef(context).take_front(k),
                     [](Operation *c) { return isa<MapOp>(c); }))
      return fail();
    FailureOr<Value> index = dataLoopIndex(loop);
    if (failed(index))
      return failure();
    slot.operands.push_back(*index);
    slot.exprs.push_back(getAffineDimExpr(0, op->getContext()));
    sizes.push_back(rb.dataLoopCapacity);
    first = k + 1;
    break;
  }
  for (Operation *c : ArrayRef(context).drop_front(first)) {
    if (isa<WhileOp>(c)) {
      // One slot per iteration, up to the capacity.
      slot.operands.push_back(rb.whileLoops.lookup(c).second);
      slot.exprs.push_back(
          getAffineDimExpr(slot.operands.size() - 1, op->getContext()));
      sizes.push_back(rb.whileCapacity);
      continue;
    }
    if (auto loop = dyn_cast<LoopOp>(c)) {
      unsigned off = slot.operands.size();
      slot.operands.push_back(loop.getIterator());
      llvm::append_range(slot.operands, loop.getBoundOperands());
      unsigned nb = loop.getBoundOperands().size();
      AffineExpr ivE = getAffineDimExpr(off, op->getContext());
      AffineExpr lb = loop.getLowerExpr().shiftDims(nb, off + 1);
      int64_t s = loop.getStepValue();
      slot.exprs.push_back(s > 0 ? (ivE - lb).floorDiv(s)
                                 : (lb - ivE).floorDiv(-s));
      auto lbI = iv.of(loop.getLowerExpr(), loop.getBoundOperands());
      auto ubI = iv.of(loop.getUpperExpr(), loop.getBoundOperands());
      if (!lbI || !ubI)
        return fail();
      int64_t trips = s > 0 ? tripCount(lbI->lo, ubI->hi, s)
                            : tripCount(lbI->hi, ubI->lo, s);
      sizes.push_back(trips);
      continue;
    }
    auto map = cast<MapOp>(c);
    for (auto [k, p] : llvm::enumerate(map.getParams())) {
      unsigned off = slot.operands.size();
      slot.operands.push_back(p);
      llvm::append_range(slot.operands, map.getRangeOperands());
      unsigned nr = map.getRangeOperands().size();
      AffineExpr pE = getAffineDimExpr(off, op->getContext());
      AffineExpr lb = map.getLowerBounds().getResult(k).shiftDims(nr, off + 1);
      int64_t s = map.getSteps()[k];
      slot.exprs.push_back((pE - lb).floorDiv(s));
      auto lbI =
          iv.of(map.getLowerBounds().getResult(k), map.getRangeOperands());
      auto ubI =
          iv.of(map.getUpperBounds().getResult(k), map.getRangeOperands());
      if (lbI && !ubI)
        ubI = extentFromAccess(op, p, lbI->lo, iv);
      if (!lbI || !ubI)
        return fail();
      sizes.push_back(tripCount(lbI->lo, ubI->hi, s));
    }
  }
  return success();
}

/// Static cost of one execution of a state: arithmetic operations plus
/// elements loaded and stored (the paper's FLOPs-and-bytes estimate), each
/// counted once per iteration of the maps around it.
double stateCost(Operation *state, Intervals &iv) {
  double cost = 0;
  state->walk([&](Operation *op) {
    double elems = 1;
    for (Operation *p = op->getParentOp(); p && p != state;
         p = p->getParentOp()) {
      auto map = dyn_cast<MapOp>(p);
      if (!map)
        continue;
      for (unsigned k = 0; k < map.getParams().size(); ++k) {
        auto lb =
            iv.of(map.getLowerBounds().getResult(k), map.getRangeOperands());
        auto ub =
            iv.of(map.getUpperBounds().getResult(k), map.getRangeOperands());
        int64_t s = map.getSteps()[k];
        if (lb && ub)
          elems *= std::max<int64_t>((ub->hi - lb->lo + s - 1) / s, 0);
      }
    }
    if (isa<LoadOp, StoreOp>(op))
      cost += elems;
    else if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
             !isa<arith::ConstantOp>(op))
      cost += elems;
    else if (auto lib = dyn_cast<LibraryOpInterface>(op))
      cost += lib.getWorkEstimate();
    else if (auto c = dyn_cast<CopyOp>(op))
      cost += 2 * numElements(c.getTarget());
  });
  return cost;
}

/// How often `op` runs: the trip counts of the loops around it (while loops
/// count as their capacity).
double executions(Operation *op, Intervals &iv, int64_t whileCapacity) {
  double n = 1;
  for (Operation *p = op->getParentOp(); p && !isa<SDFGOp>(p);
       p = p->getParentOp()) {
    if (isa<WhileOp>(p))
      n *= static_cast<double>(whileCapacity);
    auto loop = dyn_cast<LoopOp>(p);
    if (!loop)
      continue;
    auto lb = iv.of(loop.getLowerExpr(), loop.getBoundOperands());
    auto ub = iv.of(loop.getUpperExpr(), loop.getBoundOperands());
    int64_t s = loop.getStepValue();
    if (lb && ub)
      n *= std::max<int64_t>(s > 0 ? (ub->hi - lb->lo + s - 1) / s
                                   : (lb->hi - ub->lo - s - 1) / -s,
                             0);
  }
  return n;
}

/// Whether one execution of `op` (a write inside `state`) overwrites every
/// element of `x`: re-running its state then reproduces all of `x`, not
/// just the part this write touched.
bool coversWhole(Operation *op, Value x, StateOp state) {
  auto type = cast<MemRefType>(x.getType());
  if (isa<LibraryOpInterface>(op))
    return true;
  if (auto copy = dyn_cast<CopyOp>(op)) {
    if (copy.getWcr() || !type.hasStaticShape())
      return false;
    Subset dst = copy.getTargetSubsetInfo();
    for (auto [d, dim] : llvm::enumerate(dst.getDims())) {
      auto lo = dyn_cast<AffineConstantExpr>(dim.lo);
      auto hi = dyn_cast<AffineConstantExpr>(dim.hi);
      if (!dim.isRange || dim.step != 1 || !lo || !hi || lo.getValue() != 0 ||
          hi.getValue() != type.getDimSize(d))
        return false;
    }
    return true;
  }
  auto store = dyn_cast<StoreOp>(op);
  if (!store || store.getWcr())
    return false;
  // Each dimension indexed by its own parameter of a map in the state
  // that runs over exactly that dimension.
  llvm::SmallDenseSet<Value> used;
  auto alloc = x.getDefiningOp<AllocOp>();
  unsigned dynIndex = 0;
  for (auto [d, e] : llvm::enumerate(store.getMap().getResults())) {
    auto dimE = dyn_cast<AffineDimExpr>(e);
    if (!dimE)
      return false;
    // A dynamic extent: the map must run up to the allocation's size value.
    Value dynSize;
    if (type.isDynamicDim(d)) {
      if (!alloc)
        return false;
      dynSize = alloc.getDynamicSizes()[dynIndex++];
    }
    Value p = store.getIndices()[dimE.getPosition()];
    auto arg = dyn_cast<BlockArgument>(p);
    auto map = arg ? dyn_cast<MapOp>(arg.getOwner()->getParentOp()) : MapOp();
    if (!map || !state->isAncestor(map) || !used.insert(p).second)
      return false;
    unsigned k = arg.getArgNumber();
    auto lo = dyn_cast<AffineConstantExpr>(map.getLowerBounds().getResult(k));
    if (!lo || lo.getValue() != 0 || map.getSteps()[k] != 1)
      return false;
    AffineExpr upper = map.getUpperBounds().getResult(k);
    if (dynSize) {
      auto hiDim = dyn_cast<AffineDimExpr>(upper);
      if (!hiDim || map.getRangeOperands()[hiDim.getPosition()] != dynSize)
        return false;
      continue;
    }
    auto hi = dyn_cast<AffineConstantExpr>(upper);
    if (!hi || hi.getValue() != type.getDimSize(d))
      return false;
  }
  return true;
}

/// Whether the first access to `z` in `state` (in program order) is a
/// write of all of it: then what the state reads of `z` it wrote itself.
bool firstAccessCovers(StateOp state, Value z) {
  std::optional<bool> result;
  state.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (result)
      return WalkResult::skip();
    if (getWrittenContainer(op) == z) {
      result = coversWhole(op, z, state);
      return WalkResult::skip();
    }
    llvm::SetVector<Value> reads;
    if (isa<LoadOp, CopyOp, LibraryOpInterface>(op))
      mlir::sdfg::collectContainerReads(op, reads);
    if (reads.contains(z))
      result = false;
    return WalkResult::advance();
  });
  return result.value_or(false);
}

/// firstAccessCovers for a writer: a state, or a conditional whose branches
/// are states (each branch on its own; with `mustWrite`, every branch must
/// write all of `z`).
bool unitCovers(Operation *unit, Value z, bool mustWrite) {
  if (auto st = dyn_cast<StateOp>(unit))
    return firstAccessCovers(st, z);
  for (Region &r : cast<IfOp>(unit).getBranches()) {
    std::optional<bool> covers;
    for (Operation &op : r.front()) {
      auto st = dyn_cast<StateOp>(op);
      if (!st)
        return false;
      llvm::SetVector<Value> reads;
      collectContainerReads(st, reads);
      if (reads.contains(z) || writesContainer(st, z)) {
        covers = firstAccessCovers(st, z);
        break;
      }
    }
    if (covers ? !*covers : mustWrite)
      return false;
  }
  return true;
}

/// Removes from a recomputed copy of a state the writes into tapes and the
/// loads, tasklets and maps left without a purpose.
void dropTapeWrites(Operation *clone, const llvm::DenseSet<Value> &tapes) {
  SmallVector<Operation *> dead;
  clone->walk([&](StoreOp s) {
    if (tapes.contains(s.getMemref()))
      dead.push_back(s);
  });
  for (Operation *op : dead)
    op->erase();
  for (bool changed = true; changed;) {
    changed = false;
    dead.clear();
    clone->walk([&](Operation *op) {
      if ((isa<LoadOp, TaskletOp>(op) && op->use_empty()) ||
          (isa<MapOp>(op) && op->getRegion(0).front().empty()))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    changed = !dead.empty();
  }
}

/// Whether re-running the writers of a forwarded transient reproduces its
/// values, and at what cost: one candidate of analyseCandidates.
class CandidateAnalysis {
public:
  CandidateAnalysis(SDFGOp grad, ArrayRef<WriteInfo> writes,
                    const llvm::SetVector<Value> &needed,
                    llvm::DenseMap<Value, SmallVector<Operation *>> &readersOf,
                    const llvm::DenseSet<Operation *> &forced, Intervals &iv,
                    int64_t whileCapacity)
      : grad(grad), body(grad.getBody().front()), writes(writes),
        needed(needed), readersOf(readersOf), forced(forced), iv(iv),
        whileCapacity(whileCapacity) {
    for (const WriteInfo &w : writes)
      written.insert(w.target);
  }

  /// Containers some op writes.
  llvm::DenseSet<Value> written;

  /// The candidate `x` with its writers in branches taken as the states
  /// themselves or, with `promote`, as the whole conditional.
  RecomputeCandidate analyse(Value x, bool promote) {
    RecomputeCandidate c;
    c.name = containerName(grad, x);
    c.container = x;
    why.clear();
    SmallVector<Operation *> states = writerUnits(x, promote);
    llvm::SetVector<Value> inputs;
    SmallVector<Operation *> nexts;
    for (Operation *st : states)
      analyseWriter(st, x, c, inputs, nexts);
    // Every read must see the value of a writer in its own scope; a value
    // carried into a later loop iteration or around a branch is not
    // recomputed by re-running one writer.
    for (Operation *r : readersOf[x]) {
      bool covered = false;
      for (auto [k, w] : llvm::enumerate(c.writers)) {
        Operation *a = w.first->getBlock()->findAncestorOpInBlock(*r);
        covered |= a && w.first->isBeforeInBlock(a) &&
                   (!nexts[k] || a->isBeforeInBlock(nexts[k]));
      }
      if (!covered)
        reject("a reader sees a value written in another scope (carried "
               "across loop iterations or branches)");
    }
    c.inputs.assign(inputs.begin(), inputs.end());
    c.eligible = why.empty();
    c.reason = why;
    return c;
  }

private:
  /// Keeps the first reason the candidate is not eligible.
  void reject(const Twine &reason) {
    if (why.empty())
      why = reason.str();
  }

  /// The writers: states, or an sdfg.if whose branches are states (then
  /// the whole conditional is re-run, on its stored condition).
  SmallVector<Operation *> writerUnits(Value x, bool promote) {
    SmallVector<Operation *> states;
    for (const WriteInfo &w : writes) {
      if (w.target != x)
        continue;
      Operation *st = w.op->getParentOfType<StateOp>();
      if (forced.contains(w.op))
        reject("it is written with wcr(min/max/mul)");
      else if (!st)
        reject("it is written outside a state");
      if (promote && st && isa<IfOp>(st->getParentOp()))
        st = st->getParentOp();
      if (st && !llvm::is_contained(states, st))
        states.push_back(st);
    }
    return states;
  }

  /// Adds writer `st` of `x` to `c`: its scratch containers, its scope
  /// (`nexts`: the next op that writes x again), the inputs it reads and
  /// its cost.
  void analyseWriter(Operation *st, Value x, RecomputeCandidate &c,
                     llvm::SetVector<Value> &inputs,
                     SmallVectorImpl<Operation *> &nexts) {
    if (auto ifOp = dyn_cast<IfOp>(st)) {
      if (ifOp.getBranches().size() == ifOp.getConditions().size())
        reject("it is written in a conditional without an else branch");
      for (Region &r : ifOp.getBranches())
        for (Operation &op : r.front())
          if (!isa<StateOp>(op))
            reject("its writer is a branch that contains control flow");
    }
    // Re-running the state reproduces x if the state overwrites all of
    // it before reading it; other containers it writes the same way go
    // to scratch copies during the recomputation.
    llvm::SetVector<Value> produced;
    st->walk([&](Operation *inner) {
      if (Value t = getWrittenContainer(inner))
        produced.insert(t);
    });
    SmallVector<Value> scratch;
    for (Value z : produced) {
      if (unitCovers(st, z, /*mustWrite=*/z == x)) {
        if (z != x)
          scratch.push_back(z);
        continue;
      }
      if (z == x)
        reject("a writer updates only part of it, or reads it first");
      else
        reject("its writer also updates part of '" + containerName(grad, z) +
               "'");
    }
    for (Value z : scratch)
      if (!cast<MemRefType>(z.getType()).hasStaticShape() &&
          !z.getDefiningOp<AllocOp>())
        reject("its writer also writes '" + containerName(grad, z) +
               "', of dynamic shape");
    c.scratch.push_back(scratch);
    st->walk([&](Operation *inner) {
      // A conditional's own conditions are read back from their tape.
      if (inner == st && isa<IfOp>(st))
        return;
      for (Value v : inner->getOperands()) {
        Operation *owner = v.getParentRegion()->getParentOp();
        if (st->isAncestor(owner) || v.getParentBlock() == &body)
          continue;
        auto arg = dyn_cast<BlockArgument>(v);
        if (!arg || !isa<LoopOp>(owner))
          reject("its writer uses values computed outside it");
      }
    });
    // The writer's scope: up to the next op that writes x again.
    Operation *next = nullptr, *last = nullptr;
    for (Operation *op = st->getNextNode(); op; op = op->getNextNode()) {
      if (writesContainer(op, x)) {
        next = op;
        break;
      }
      for (Operation *r : readersOf[x])
        if (op->isAncestor(r))
          last = op;
    }
    nexts.push_back(next);
    c.writers.push_back({st, last});
    llvm::SetVector<Value> reads;
    collectContainerReads(st, reads);
    for (Value y : reads) {
      if (produced.contains(y))
        continue;
      inputs.insert(y);
      for (Operation *op = st->getNextNode(); last && op != last->getNextNode();
           op = op->getNextNode())
        if (writesContainer(op, y))
          reject("its writer's input '" + containerName(grad, y) +
                 "' is overwritten before the value is last read");
      if (written.contains(y) && !needed.contains(y))
        reject("its writer's input '" + containerName(grad, y) +
               "' is overwritten later and not stored");
    }
    c.cost += executions(st, iv, whileCapacity) * stateCost(st, iv);
  }

  SDFGOp grad;
  Block &body;
  ArrayRef<WriteInfo> writes;
  const llvm::SetVector<Value> &needed;
  llvm::DenseMap<Value, SmallVector<Operation *>> &readersOf;
  const llvm::DenseSet<Operation *> &forced;
  Intervals &iv;
  int64_t whileCapacity;
  /// Why the candidate analysed is not eligible (empty: it is).
  std::string why;
};

/// Describes every forwarded transient: whether the backward program can
/// recompute it by re-running its writers, and at what cost.
LogicalResult
analyseCandidates(SDFGOp grad, ArrayRef<WriteInfo> writes,
                  const llvm::SetVector<Value> &needed,
                  llvm::DenseMap<Value, SmallVector<Operation *>> &readersOf,
                  const llvm::DenseSet<Operation *> &forced,
                  const llvm::SetVector<Value> &counters, Intervals &iv,
                  int64_t whileCapacity, std::vector<RecomputeCandidate> &out) {
  CandidateAnalysis analysis(grad, writes, needed, readersOf, forced, iv,
                             whileCapacity);
  for (Value x : needed) {
    if (counters.contains(x))
      continue;
    if (!x.getDefiningOp<AllocOp>()) {
      // Arguments updated in place are listed (their tapes are what they
      // cost); their earlier values are not recomputable by re-running
      // one writer.
      if (analysis.written.contains(x)) {
        RecomputeCandidate c;
        c.name = containerName(grad, x);
        c.container = x;
        c.reason = "an argument updated in place: its values before each "
                   "update are stored";
        out.push_back(std::move(c));
      }
      continue;
    }
    // Writers in branches are first taken as the states themselves (their
    // readers in the same branch); failing that, as the whole conditional.
    RecomputeCandidate c = analysis.analyse(x, /*promote=*/false);
    if (!c.eligible) {
      RecomputeCandidate whole = analysis.analyse(x, /*promote=*/true);
      if (whole.eligible)
        c = std::move(whole);
    }
    out.push_back(std::move(c));
  }
  return success();
}

} // namespace

void mlir::sdfg::collectContainerReads(Operation *op,
                                       llvm::SetVector<Value> &out) {
  op->walk([&](Operation *inner) {
    if (auto l = dyn_cast<LoadOp>(inner))
      out.insert(l.getMemref());
    else if (auto c = dyn_cast<CopyOp>(inner))
      out.insert(c.getSource());
    else if (auto lib = dyn_cast<LibraryOpInterface>(inner))
      out.insert_range(lib.getInputContainers());
  });
}

std::string mlir::sdfg::containerName(SDFGOp op, Value c) {
  if (auto arg = dyn_cast<BlockArgument>(c))
    if (arg.getOwner()->getParentOp() == op)
      return op.getArgName(arg.getArgNumber());
  unsigned k = 0;
  for (AllocOp a : op.getBody().getOps<AllocOp>()) {
    if (a.getResult() == c) {
      if (!a.getName())
        return "transient" + std::to_string(k);
      // Names given twice are told apart by their order.
      unsigned same = 0, before = 0;
      for (AllocOp o : op.getBody().getOps<AllocOp>())
        if (o.getName() == a.getName()) {
          ++same;
          if (o == a)
            before = same - 1;
        }
      std::string n = a.getName()->str();
      return same > 1 ? n + "#" + std::to_string(before) : n;
    }
    ++k;
  }
  return "?";
}

namespace {

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
  LogicalResult chooseRecomputed();

  // Tapes: the forward sweep stores what the backward program reads.
  LogicalResult makeTape(Operation *op, Type elt, ArrayRef<int64_t> extra,
                         TapeSlot &slot);
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

} // namespace

LogicalResult Differentiator::run() {
  if (failed(resolveNames()))
    return failure();
  createGradientProgram();
  if (failed(countWhileIterations()))
    return failure();
  analyseActivity();
  collectNeeded();
  if (opts.printCCS) {
    annotateCCS();
    return success();
  }
  if (failed(addGradientArguments()) || failed(chooseRecomputed()) ||
      failed(tapeWrites()) || failed(tapeConditions()) ||
      failed(tapeDataBounds()))
    return failure();
  result.forwardEnd = &grad.getBody().front().back();
  if (failed(copyResults()) || failed(zeroGradients()) ||
      failed(fillArguments()))
    return failure();
  prepareRecomputation();
  markDeadClears();
  if (failed(buildBackward()))
    return failure();
  sinkFills();
  if (failed(dropUnrewoundCopies()))
    return failure();
  recordOptions();
  return success();
}

/// The output and wrt names, from the options or the program's attributes,
/// checked; and the gradient program's name, checked to be free.
LogicalResult Differentiator::resolveNames() {
  // Default: ad_output, else the (first) return value of the frontend.
  outName = !opts.output.empty()
                ? opts.output
                : fwd.getAdOutput().value_or("__return0").str();
  BlockArgument outArg = fwd.lookupArg(outName);
  if (!outArg)
    return fwd.emitOpError()
           << "autodiff output '" << outName << "' is not an argument";
  auto outType = dyn_cast<MemRefType>(outArg.getType());
  if (!outType || !isa<FloatType>(outType.getElementType()))
    return fwd.emitOpError()
           << "autodiff output '" << outName << "' must be a float container";
  if (!opts.wrt.empty())
    wrtNames.assign(opts.wrt.begin(), opts.wrt.end());
  else if (auto attr = fwd.getAdWrt())
    for (Attribute a : *attr)
      wrtNames.push_back(cast<StringAttr>(a).str());
  else
    for (unsigned i = 0; i < fwd.getNumArguments(); ++i) {
      auto m = dyn_cast<MemRefType>(fwd.getArgument(i).getType());
      if (m && isa<FloatType>(m.getElementType()) &&
          fwd.getArgument(i) != outArg)
        wrtNames.push_back(fwd.getArgName(i));
    }
  for (const std::string &n : wrtNames) {
    BlockArgument a = fwd.lookupArg(n);
    if (!a)
      return fwd.emitOpError()
             << "autodiff wrt name '" << n << "' is not an argument";
    auto m = dyn_cast<MemRefType>(a.getType());
    if (!m || !isa<FloatType>(m.getElementType()))
      return fwd.emitOpError()
             << "autodiff wrt argument '" << n << "' must be a float container";
  }

  gradName = (fwd.getSymName() + opts.suffix).str();
  if (Operation *table = SymbolTable::getNearestSymbolTable(fwd))
    if (SymbolTable::lookupSymbolIn(table, gradName))
      return fwd.emitOpError()
             << "autodiff: the gradient program's name '" << gradName
             << "' is taken ("
             << (opts.suffix.empty() ? "an empty suffix" : "a symbol exists")
             << "); choose another suffix=";
  return success();
}

void Differentiator::createGradientProgram() {
  // The gradient program starts as a copy of the forward program.
  b.setInsertionPointAfter(fwd);
  grad = cast<SDFGOp>(b.clone(*fwd));
  result.grad = grad;
  grad.setSymName(gradName);
  grad->removeAttr(grad.getAdOutputAttrName());
  grad->removeAttr(grad.getAdWrtAttrName());
  out = grad.lookupArg(outName);
  rb.whileCapacity = opts.whileCapacity;
  rb.strongZero = opts.strongZero;
  rb.dataLoopCapacity = opts.dataLoopCapacity;
}

Value Differentiator::addArgOfType(Type type, const std::string &name) {
  unsigned idx = grad.getNumArguments();
  NamedAttrList attrs;
  attrs.append("sdfg.name", StringAttr::get(ctx, name));
  if (failed(grad.insertArgument(idx, type, attrs.getDictionary(ctx),
                                 grad.getLoc()))) {
    grad.emitOpError("autodiff cannot add argument ") << name;
    return Value();
  }
  return Value(grad.getArgument(idx));
}

// --- While loops: count the iterations of each execution; the count is
// a tape dimension and the trip count of the reversed loop. Counters are
// restored like any overwritten value, so nested executions reverse
// with their own counts. ad_status reports an overflow of the capacity.
LogicalResult Differentiator::countWhileIterations() {
  SmallVector<WhileOp> whiles;
  grad.walk([&](WhileOp w) { whiles.push_back(w); });
  if (!whiles.empty()) {
    status = addArgOfType(MemRefType::get({}, b.getI64Type()), "ad_status");
    if (!status)
      return failure();
  }
  for (WhileOp w : whiles)
    countIterations(w);
  return success();
}

/// 1 (as i64) where a count of stored iterations passed its capacity.
Value Differentiator::overCapacity(OpBuilder &ob, Location loc, Value count,
                                   int64_t cap) {
  Value over =
      arith::CmpIOp::create(ob, loc, arith::CmpIPredicate::sgt, count,
                            arith::ConstantIntOp::create(ob, loc, cap, 64));
  return arith::ExtUIOp::create(ob, loc, i64, over);
}

void Differentiator::raiseStatus(Location loc, Value flag) {
  auto st =
      StoreOp::create(b, loc, flag, status, ValueRange{}, scalar, nullptr);
  st.setWcrAttr(WCRKindAttr::get(ctx, WCRKind::max));
}

void Differentiator::countIterations(WhileOp w) {
  Block &body = grad.getBody().front();
  Location loc = w.getLoc();
  Value counter;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&body);
    counter = AllocOp::create(b, loc, counterType, ValueRange{});
  }
  counters.insert(counter);
  OpBuilder::InsertionGuard guard(b);
  // counter = 0 before the loop.
  b.setInsertionPoint(w);
  auto init = StateOp::create(b, loc, StringRef("count"));
  b.setInsertionPointToStart(&init.getBody().front());
  rb.store(loc, rb.constantTasklet(loc, i64, 0.0), counter, scalar, {}, false);
  // The iteration index, capped, at the start of the body.
  Block &wb = w.getBody().front();
  b.setInsertionPointToStart(&wb);
  Value c = rb.load(loc, counter, scalar, {});
  int64_t cap = opts.whileCapacity;
  auto idxT = rb.tasklet(
      loc, TypeRange{b.getIndexType()}, ValueRange{c},
      [&](OpBuilder &ob, ArrayRef<Value> a) -> SmallVector<Value> {
        Value i = arith::IndexCastOp::create(ob, loc, ob.getIndexType(), a[0]);
        Value last = arith::ConstantIndexOp::create(ob, loc, cap - 1);
        return {arith::MinSIOp::create(ob, loc, i, last)};
      });
  rb.whileLoops[w] = {counter, idxT.getResult(0)};
  // counter += 1 at the end of the body.
  b.setInsertionPointToEnd(&wb);
  auto inc = StateOp::create(b, loc, StringRef("count"));
  b.setInsertionPointToStart(&inc.getBody().front());
  Value one = rb.constantTasklet(loc, i64, 1.0);
  rb.store(loc, one, counter, scalar, {}, /*accumulate=*/true);
  // After the loop: ad_status = max(ad_status, counter > capacity).
  b.setInsertionPointAfter(w);
  auto check = StateOp::create(b, loc, StringRef("capacity"));
  b.setInsertionPointToStart(&check.getBody().front());
  Value total = rb.load(loc, counter, scalar, {});
  auto flagT =
      rb.tasklet(loc, TypeRange{i64}, ValueRange{total},
                 [&](OpBuilder &ob, ArrayRef<Value> a) -> SmallVector<Value> {
                   return {overCapacity(ob, loc, a[0], cap)};
                 });
  raiseStatus(loc, flagT.getResult(0));
}

// --- Activity: containers that depend on wrt and influence the output.
void Differentiator::analyseActivity() {
  writes = summarize(grad);
  llvm::SetVector<Value> varied, useful;
  for (const std::string &n : wrtNames)
    varied.insert(grad.lookupArg(n));
  useful.insert(out);
  for (bool changed = true; changed;) {
    changed = false;
    for (const WriteInfo &w : writes) {
      bool dep = w.readsTarget && varied.contains(w.target);
      for (Value r : w.reads)
        dep |= varied.contains(r);
      if (dep)
        changed |= varied.insert(w.target);
      if (useful.contains(w.target)) {
        for (Value r : w.reads)
          changed |= useful.insert(r);
      }
    }
  }
  // Integers and flags (a mask, np.any's count) carry no gradient, even
  // where they depend on an input and reach the output through a branch
  // or an index.
  for (Value v : varied)
    if (useful.contains(v) &&
        isa<FloatType>(cast<MemRefType>(v.getType()).getElementType()))
      active.insert(v);
}

// --- What the backward program reads, hence what must be taped; and
// which forward writes' reversals read each container.
void Differentiator::collectNeeded() {
  llvm::DenseMap<Value, bool> carries;
  for (const WriteInfo &w : writes) {
    if (!active.contains(w.target))
      continue;
    llvm::SetVector<Value> reads;
    if (auto s = dyn_cast<StoreOp>(w.op)) {
      bool valueNeeded = s.getWcr() && *s.getWcr() != WCRKind::add;
      collectNeededReads(s.getValue(), valueNeeded, active, carries, reads);
      for (Value i : s.getIndices())
        collectNeededReads(i, true, active, carries, reads);
      if (s.getWcr() && *s.getWcr() != WCRKind::add) {
        forced.insert(s);
        // In a map, the rule of a min/max accumulation reads the
        // accumulated result from the target itself. When a loop
        // accumulates again in a later iteration, the write that
        // initialises the target must be taped, so that reversing it
        // brings back this iteration's result (np.max of a loop-indexed
        // slice gave every iteration the last one's maximum).
        if (s->getParentOfType<MapOp>() && *s.getWcr() != WCRKind::mul)
          reads.insert(s.getMemref());
      }
    } else if (isa<CopyOp>(w.op)) {
      // Copies are linear: their gradient needs no primal values.
    } else if (auto lib = dyn_cast<LibraryOpInterface>(w.op)) {
      reads.insert_range(lib.getReverseReads());
    }
    for (Value r : reads) {
      needed.insert(r);
      readersOf[r].push_back(w.op);
    }
  }

  // The reversed while loops read their counters.
  needed.insert(counters.begin(), counters.end());
}

/// print-ccs: the active and needed containers, on the forward program;
/// no gradient program.
void Differentiator::annotateCCS() {
  SmallVector<Attribute> names, taped;
  for (Value v : active)
    names.push_back(StringAttr::get(ctx, containerName(grad, v)));
  for (Value v : needed)
    taped.push_back(StringAttr::get(ctx, containerName(grad, v)));
  fwd->setAttr("sdfg.ccs", ArrayAttr::get(ctx, names));
  fwd->setAttr("sdfg.needed", ArrayAttr::get(ctx, taped));
  grad.erase();
  result.grad = nullptr;
}

// --- Gradient arguments: d_<wrt>..., then d_<output> unless it is one.
LogicalResult Differentiator::addGradientArguments() {
  for (const std::string &n : wrtNames) {
    Value w = grad.lookupArg(n);
    Value d = addArg(w, "d_" + n);
    if (!d)
      return failure();
    wrtGradients.push_back({w, d});
    if (w == out)
      seedArg = d;
    if (active.contains(w) || w == out)
      rb.gradients[w] = d;
  }
  if (!rb.gradients.count(out)) {
    Value d = addArg(out, "d_" + outName);
    if (!d)
      return failure();
    seedArg = d;
    // The seed is consumed; with discard-results the caller does not read
    // what is left of it.
    if (opts.discardResults)
      grad.setArgAttr(cast<BlockArgument>(d).getArgNumber(), "sdfg.discardable",
                      b.getUnitAttr());
    if (active.contains(out))
      rb.gradients[out] = d;
  }
  return success();
}

// --- Forwarded transients: each may be recomputed instead of stored.
LogicalResult Differentiator::chooseRecomputed() {
  if (failed(analyseCandidates(grad, writes, needed, readersOf, forced,
                               counters, intervals, opts.whileCapacity,
                               result.candidates)))
    return failure();
  for (auto [k, c] : llvm::enumerate(result.candidates))
    candidateIndex[c.container] = k;
  for (const auto &entry : opts.recompute) {
    StringRef n = entry.getKey();
    auto it =
        llvm::find_if(result.candidates,
                      [&](const RecomputeCandidate &c) { return c.name == n; });
    if (it == result.candidates.end()) {
      std::string known;
      for (const RecomputeCandidate &c : result.candidates)
        known += (known.empty() ? "" : ", ") + c.name;
      return emitError(fwd.getLoc())
             << "cannot recompute '" << n
             << "': it is not a transient the backward program reads "
                "(those are: "
             << (known.empty() ? std::string("none") : known) << ")";
    }
    if (!it->eligible)
      return emitError(fwd.getLoc())
             << "cannot recompute '" << n << "': " << it->reason;
    recomputed.insert(it->container);
  }
  for (const RecomputeCandidate &c : result.candidates) {
    if (!recomputed.contains(c.container))
      continue;
    for (Value in : c.inputs)
      if (recomputed.contains(in))
        return emitError(fwd.getLoc())
               << "cannot recompute both '" << c.name << "' and '"
               << containerName(grad, in) << "': recomputing '" << c.name
               << "' reads the stored values of '" << containerName(grad, in)
               << "'";
  }
  return success();
}

LogicalResult Differentiator::makeTape(Operation *op, Type elt,
                                       ArrayRef<int64_t> extra,
                                       TapeSlot &slot) {
  SmallVector<int64_t> sizes;
  if (failed(makeSlot(op, intervals, rb, slot, sizes,
                      [&](LoopOp loop) { return dataLoopIndex(loop); })))
    return failure();
  llvm::append_range(sizes, extra);
  // A tape past what the dialect represents (a while-capacity of 2^61,
  // a loop of 10^12 iterations around a large write) is an error here,
  // at the op that needs it, rather than a size that wraps.
  if (!checkedByteSize(sizes, elt)) {
    InFlightDiagnostic diag = emitError(op->getLoc())
                              << "the tape of this value needs ";
    llvm::interleave(sizes, diag, "x");
    diag << " elements of " << elt
         << ", more than 2^62 bytes: lower the loops' trip counts, "
            "while-capacity or data-loop-capacity";
    return failure();
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&grad.getBody().front());
  slot.tape = AllocOp::create(b, op->getLoc(), MemRefType::get(sizes, elt),
                              ValueRange{});
  return success();
}

// Loops whose trip counts are data (a CSR row): each entry reserves its
// iterations' slots from a running count, base = count; count += trips.
// The base is stored where the loop runs, so the reversed loop finds its
// slots again; ad_status reports a count past the capacity.
FailureOr<Value> Differentiator::dataLoopIndex(LoopOp loop) {
  if (Value v = dataLoopIndices.lookup(loop))
    return v;
  Block &body = grad.getBody().front();
  Location loc = loop.getLoc();
  OpBuilder::InsertionGuard guard(b);
  int64_t cap = rb.dataLoopCapacity;
  if (!status) {
    status = addArgOfType(MemRefType::get({}, i64), "ad_status");
    if (!status)
      return failure();
  }
  b.setInsertionPointToStart(&body);
  Value counter = AllocOp::create(b, loc, counterType, ValueRange{});
  auto init = StateOp::create(b, loc, StringRef("count"));
  b.setInsertionPointToStart(&init.getBody().front());
  rb.store(loc, rb.constantTasklet(loc, i64, 0.0), counter, scalar, {}, false);
  b.setInsertionPoint(loop);
  SmallVector<Value> ins{rb.load(loc, counter, scalar, {})};
  llvm::append_range(ins, loop.getBoundOperands());
  Type indexT = b.getIndexType();
  auto reserve = rb.tasklet(
      loc, TypeRange{indexT, i64, i64}, ins,
      [&](OpBuilder &ob, ArrayRef<Value> args) -> SmallVector<Value> {
        ValueRange dims = args.drop_front();
        Value lb =
            affine::expandAffineExpr(ob, loc, loop.getLowerExpr(), dims, {});
        Value ub =
            affine::expandAffineExpr(ob, loc, loop.getUpperExpr(), dims, {});
        int64_t st = loop.getStepValue();
        Value span = st > 0 ? arith::SubIOp::create(ob, loc, ub, lb)
                            : arith::SubIOp::create(ob, loc, lb, ub);
        Value trips = arith::CeilDivSIOp::create(
            ob, loc, span,
            arith::ConstantIndexOp::create(ob, loc, std::abs(st)));
        trips = arith::MaxSIOp::create(
            ob, loc, trips, arith::ConstantIndexOp::create(ob, loc, 0));
        Value next = arith::AddIOp::create(
            ob, loc, args[0], arith::IndexCastOp::create(ob, loc, i64, trips));
        return {arith::IndexCastOp::create(ob, loc, indexT, args[0]), next,
                overCapacity(ob, loc, next, cap)};
      });
  auto count = StateOp::create(b, loc, StringRef("count"));
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&count.getBody().front());
    rb.store(loc, reserve.getResult(1), counter, scalar, {}, false);
    raiseStatus(loc, reserve.getResult(2));
  }
  Value base = reserve.getResult(0);
  TapeSlot baseSlot;
  if (failed(makeTape(loop, indexT, {}, baseSlot)))
    return failure();
  b.setInsertionPoint(loop);
  auto keepBase = StateOp::create(b, loc, StringRef("bounds"));
  {
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&keepBase.getBody().front());
    StoreOp::create(
        b, loc, base, baseSlot.tape, baseSlot.operands,
        AffineMap::get(baseSlot.operands.size(), 0, baseSlot.exprs, ctx),
        nullptr);
  }
  rb.boundTapes[loop].push_back({base, baseSlot});
  Value index = dataLoopSlot(loop, base);
  dataLoopIndices[loop] = index;
  return index;
}

/// The slot of an iteration of a data loop: base + its position, capped.
Value Differentiator::dataLoopSlot(LoopOp loop, Value base) {
  Location loc = loop.getLoc();
  int64_t cap = rb.dataLoopCapacity;
  Type indexT = b.getIndexType();
  Block &lbody = loop.getBody().front();
  b.setInsertionPointToStart(&lbody);
  SmallVector<Value> idxIns{base, loop.getIterator()};
  llvm::append_range(idxIns, loop.getBoundOperands());
  auto idxT = rb.tasklet(
      loc, TypeRange{indexT}, idxIns,
      [&](OpBuilder &ob, ArrayRef<Value> args) -> SmallVector<Value> {
        Value lb = affine::expandAffineExpr(ob, loc, loop.getLowerExpr(),
                                            args.drop_front(2), {});
        int64_t st = loop.getStepValue();
        Value pos = st > 0 ? arith::SubIOp::create(ob, loc, args[1], lb)
                           : arith::SubIOp::create(ob, loc, lb, args[1]);
        pos = arith::DivSIOp::create(
            ob, loc, pos,
            arith::ConstantIndexOp::create(ob, loc, std::abs(st)));
        Value slotV = arith::AddIOp::create(ob, loc, args[0], pos);
        return {arith::MinSIOp::create(
            ob, loc, slotV, arith::ConstantIndexOp::create(ob, loc, cap - 1))};
      });
  return idxT.getResult(0);
}

// --- Tapes: before every write to a needed container (and every wcr
// min/max/mul into an active one), store the element it overwrites.
// The first write of a transient outside loops overwrites nothing.
LogicalResult Differentiator::tapeWrites() {
  llvm::DenseSet<Value> writtenBefore;
  b.setInsertionPointToStart(&grad.getBody().front());
  // What the recomputations the checkpointing may choose read.
  llvm::DenseSet<Value> recomputeInputs;
  for (const RecomputeCandidate &c : result.candidates)
    if (c.eligible)
      recomputeInputs.insert(c.inputs.begin(), c.inputs.end());
  for (const WriteInfo &w : writes) {
    bool first = writtenBefore.insert(w.target).second;
    FailureOr<bool> tape = needsTape(w, first, recomputeInputs);
    if (failed(tape))
      return failure();
    if (!*tape)
      continue;
    TapeSlot slot;
    if (failed(tapeOverwritten(w, slot)))
      return failure();
    rb.tapes[w.op].push_back(slot);
    if (auto it = candidateIndex.find(w.target); it != candidateIndex.end())
      result.candidates[it->second].tapes.push_back(slot.tape);
  }
  return success();
}

/// Whether the forward sweep stores what `w` overwrites (`first`: no
/// earlier write to its target).
FailureOr<bool>
Differentiator::needsTape(const WriteInfo &w, bool first,
                          const llvm::DenseSet<Value> &recomputeInputs) {
  // A transient whose values the backward program reads only after this
  // write (every reader runs after it, outside any loop with it) needs no
  // rewind of it: those readers are reversed before it, and nothing
  // reversed later looks. A recomputation may read it, though (only one
  // the checkpointing may choose: an eligible candidate's).
  auto readOnlyLater = [&](const WriteInfo &w) {
    if (!w.target.getDefiningOp<AllocOp>() || forced.contains(w.op) ||
        counters.contains(w.target) || recomputeInputs.contains(w.target))
      return false;
    auto it = readersOf.find(w.target);
    return it == readersOf.end() || llvm::all_of(it->second, [&](Operation *r) {
             return runsAfterAll(w.op, r);
           });
  };
  bool tape = needed.contains(w.target) || forced.contains(w.op);
  if (recomputed.contains(w.target) || (tape && readOnlyLater(w)))
    tape = false;
  if (first && !forced.contains(w.op) && w.target.getDefiningOp<AllocOp>() &&
      !w.op->getParentOfType<LoopOp>() && !w.op->getParentOfType<WhileOp>())
    tape = false;
  // A wcr accumulation inside a map has no order to replay: its rule
  // uses the accumulated value instead, and the container is restored by
  // the write that initialised it.
  if (auto s = dyn_cast<StoreOp>(w.op);
      s && s.getWcr() && s->getParentOfType<MapOp>()) {
    if (tape && !initialisedBefore(s, w.target))
      return s.emitOpError(
          "autodiff needs this accumulation's target initialised (written "
          "without wcr) earlier in the same state, because the backward "
          "pass reads its values and a map has no order to replay");
    tape = false;
  }
  return tape;
}

/// Stores, just before `w`, what it overwrites into a new tape at `slot`.
LogicalResult Differentiator::tapeOverwritten(const WriteInfo &w,
                                              TapeSlot &slot) {
  auto type = cast<MemRefType>(w.target.getType());
  if (auto s = dyn_cast<StoreOp>(w.op)) {
    if (failed(makeTape(s, type.getElementType(), {}, slot)))
      return failure();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(s);
    Value old = LoadOp::create(b, s.getLoc(), type.getElementType(),
                               s.getMemref(), s.getIndices(), s.getMap());
    StoreOp::create(b, s.getLoc(), old, slot.tape, slot.operands,
                    AffineMap::get(slot.operands.size(), 0, slot.exprs, ctx),
                    nullptr);
    return success();
  }
  if (isa<LibraryOpInterface>(w.op))
    return tapeLibraryOutput(w, slot);
  if (auto copy = dyn_cast<CopyOp>(w.op))
    return tapeCopy(copy, slot);
  return w.op->emitOpError("autodiff cannot store the data this op "
                           "overwrites yet");
}

LogicalResult Differentiator::tapeLibraryOutput(const WriteInfo &w,
                                                TapeSlot &slot) {
  auto type = cast<MemRefType>(w.target.getType());
  if (!type.hasStaticShape())
    return w.op->emitOpError("autodiff needs a static shape to store "
                             "the output of this op");
  if (failed(makeTape(w.op, type.getElementType(), type.getShape(), slot)))
    return failure();
  // Copy the whole output into the tape before the op overwrites it.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(w.op);
  unsigned rank = type.getRank();
  Location loc = w.op->getLoc();
  SmallVector<Value> params = rb.openMap(loc, type.getShape(), true);
  Value v = LoadOp::create(b, loc, type.getElementType(), w.target, params,
                           AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<Value> tops(slot.operands.begin(), slot.operands.end());
  llvm::append_range(tops, params);
  SmallVector<AffineExpr> exprs(slot.exprs.begin(), slot.exprs.end());
  for (unsigned i = 0; i < rank; ++i)
    exprs.push_back(b.getAffineDimExpr(slot.operands.size() + i));
  StoreOp::create(b, loc, v, slot.tape, tops,
                  AffineMap::get(tops.size(), 0, exprs, ctx), nullptr);
  return success();
}

LogicalResult Differentiator::tapeCopy(CopyOp copy, TapeSlot &slot) {
  auto type = cast<MemRefType>(copy.getTarget().getType());
  Subset dst = copy.getTargetSubsetInfo();
  SmallVector<int64_t> extents;
  for (std::optional<int64_t> e : dst.getConstantShape()) {
    if (!e)
      return copy.emitOpError("autodiff needs constant extents to store "
                              "what this copy overwrites");
    extents.push_back(*e);
  }
  if (failed(makeTape(copy, type.getElementType(), extents, slot)))
    return failure();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(copy);
  Location loc = copy.getLoc();
  SmallVector<Value> params = rb.openSubset(loc, dst, copy.getIndices(), true);
  SmallVector<Value> idx(copy.getIndices().begin(), copy.getIndices().end());
  llvm::append_range(idx, params);
  AffineMap elem =
      ReverseBuilder::subsetElement(dst, copy.getIndices().size(), ctx);
  Value v = rb.load(loc, copy.getTarget(), elem, idx);
  SmallVector<Value> tops(slot.operands.begin(), slot.operands.end());
  llvm::append_range(tops, params);
  SmallVector<AffineExpr> exprs(slot.exprs.begin(), slot.exprs.end());
  for (unsigned i = 0; i < params.size(); ++i)
    exprs.push_back(b.getAffineDimExpr(slot.operands.size() + i));
  StoreOp::create(b, loc, v, slot.tape, tops,
                  AffineMap::get(tops.size(), 0, exprs, ctx), nullptr);
  return success();
}

// Branch conditions, stored where the branch is taken.
LogicalResult Differentiator::tapeConditions() {
  SmallVector<IfOp> ifs;
  grad.walk([&](IfOp op) { ifs.push_back(op); });
  for (IfOp op : ifs) {
    for (Value c : op.getConditions()) {
      TapeSlot slot;
      if (failed(makeTape(op, b.getI1Type(), {}, slot)))
        return failure();
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(op);
      auto state = StateOp::create(b, op.getLoc(), StringRef("condition"));
      b.setInsertionPointToStart(&state.getBody().front());
      StoreOp::create(b, op.getLoc(), c, slot.tape, slot.operands,
                      AffineMap::get(slot.operands.size(), 0, slot.exprs, ctx),
                      nullptr);
      rb.tapes[op].push_back(slot);
    }
  }
  return success();
}

// Loop and map bounds computed from data, stored where they are used.
LogicalResult Differentiator::tapeDataBounds() {
  SmallVector<Operation *> ranged;
  grad.walk([&](Operation *op) {
    if (isa<LoopOp, MapOp>(op))
      ranged.push_back(op);
  });
  for (Operation *op : ranged) {
    ValueRange bounds = isa<LoopOp>(op) ? cast<LoopOp>(op).getBoundOperands()
                                        : cast<MapOp>(op).getRangeOperands();
    for (Value v : bounds) {
      if (!dependsOnData(v))
        continue;
      TapeSlot slot;
      if (failed(makeTape(op, b.getIndexType(), {}, slot)))
        return failure();
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(op);
      if (isa<LoopOp>(op)) {
        auto state = StateOp::create(b, op->getLoc(), StringRef("bounds"));
        b.setInsertionPointToStart(&state.getBody().front());
      }
      StoreOp::create(b, op->getLoc(), v, slot.tape, slot.operands,
                      AffineMap::get(slot.operands.size(), 0, slot.exprs, ctx),
                      nullptr);
      rb.boundTapes[op].push_back({v, slot});
    }
  }
  return success();
}

// --- The backward program rewinds the containers it restores; keep the
// forward results: each written argument is copied to fwd_<name>.
LogicalResult Differentiator::copyResults() {
  Block &body = grad.getBody().front();
  b.setInsertionPointToEnd(&body);
  unsigned numOriginal = fwd.getNumArguments();
  llvm::SetVector<Value> writtenArgs;
  for (const WriteInfo &w : writes)
    if (auto arg = dyn_cast<BlockArgument>(w.target))
      if (arg.getOwner() == &body && arg.getArgNumber() < numOriginal)
        writtenArgs.insert(arg);
  llvm::StringSet<> keep;
  for (const std::string &n : opts.keep) {
    BlockArgument kept = grad.lookupArg(n);
    if (!kept || kept.getArgNumber() >= numOriginal)
      return grad.emitOpError("autodiff keep name '")
             << n << "' is not an argument";
    keep.insert(n);
  }
  for (Value arg : writtenArgs) {
    unsigned argNumber = cast<BlockArgument>(arg).getArgNumber();
    if (opts.discardResults && !keep.contains(grad.getArgName(argNumber))) {
      grad.setArgAttr(argNumber, "sdfg.discardable", b.getUnitAttr());
      continue;
    }
    auto type = cast<MemRefType>(arg.getType());
    if (!type.hasStaticShape())
      return grad.emitOpError("autodiff needs static shapes for written "
                              "arguments");
    std::string name =
        "fwd_" + grad.getArgName(cast<BlockArgument>(arg).getArgNumber());
    Value copy = addArg(arg, name);
    if (!copy)
      return failure();
    OpBuilder::InsertionGuard guard(b);
    auto state = StateOp::create(b, grad.getLoc(), StringRef("results"));
    resultCopies.push_back({arg, copy, state});
    b.setInsertionPointToStart(&state.getBody().front());
    unsigned rank = type.getRank();
    SmallVector<Value> params =
        rb.openMap(grad.getLoc(), type.getShape(), true);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value v = LoadOp::create(b, grad.getLoc(), type.getElementType(), arg,
                             params, id);
    StoreOp::create(b, grad.getLoc(), v, copy, params, id, nullptr);
  }
  return success();
}

// --- Gradients of the other active containers: zeroed transients.
LogicalResult Differentiator::zeroGradients() {
  Block &body = grad.getBody().front();
  b.setInsertionPointToEnd(&body);
  for (Value v : active) {
    if (rb.gradients.count(v))
      continue;
    auto type = cast<MemRefType>(v.getType());
    SmallVector<Value> dyn;
    if (auto alloc = v.getDefiningOp<AllocOp>())
      dyn.assign(alloc.getDynamicSizes().begin(),
                 alloc.getDynamicSizes().end());
    else if (!type.hasStaticShape())
      return grad.emitOpError("autodiff needs static shapes for containers "
                              "it differentiates through that are not "
                              "inputs");
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(&body, body.begin());
    rb.gradients[v] = AllocOp::create(b, grad.getLoc(), type, dyn);
  }
  for (Value v : active) {
    Value g = rb.gradients.lookup(v);
    if (!g.getDefiningOp<AllocOp>())
      continue;
    Operation *last = &body.back();
    rb.fill(grad.getLoc(), g, 0.0, /*inState=*/false);
    fills.push_back({g, last->getNextNode()});
  }
  return success();
}

// The d_<wrt> arguments start from zero too, unless the caller's values
// are to be added to (inactive inputs get zero gradients either way).
// sdfg-eliminate-dead-writes drops the fills that the first backward
// write makes redundant, which is why they are here and not the caller's.
// A unit seed is filled here too; constant folding in
// sdfg-eliminate-dead-writes turns the reads of it into ones.
LogicalResult Differentiator::fillArguments() {
  Block &body = grad.getBody().front();
  if (opts.unitSeed) {
    if (!cast<MemRefType>(seedArg.getType()).hasStaticShape())
      return grad.emitOpError("autodiff cannot fill the unit seed of '")
             << outName << "', whose shape is dynamic";
    Operation *last = &body.back();
    rb.fill(grad.getLoc(), seedArg, 1.0, /*inState=*/false);
    fills.push_back({seedArg, last->getNextNode()});
  }
  if (!opts.accumulate) {
    for (auto [w, d] : wrtGradients) {
      if (w == out)
        continue;
      if (!cast<MemRefType>(d.getType()).hasStaticShape())
        return grad.emitOpError("autodiff cannot zero the gradient of '")
               << grad.getArgName(cast<BlockArgument>(w).getArgNumber())
               << "', whose shape is dynamic: pass accumulate=true and "
                  "zero it before the call";
      Operation *last = &body.back();
      rb.fill(grad.getLoc(), d, 0.0, /*inState=*/false);
      fills.push_back({d, last->getNextNode()});
    }
  }
  return success();
}

/// A fresh transient shaped like `x`, at the start of the program.
Value Differentiator::copyOf(Value x, const std::string &name) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&grad.getBody().front());
  SmallVector<Value> dyn;
  if (auto alloc = x.getDefiningOp<AllocOp>())
    dyn.assign(alloc.getDynamicSizes().begin(), alloc.getDynamicSizes().end());
  auto copy =
      AllocOp::create(b, x.getLoc(), cast<MemRefType>(x.getType()), dyn);
  copy.setNameAttr(b.getStringAttr(name));
  return copy.getResult();
}

// --- Recomputation: re-run each writer of a recomputed container just
// before the backward program first reads the value it wrote (the
// reversal of its last forward reader in the writer's scope), into a
// fresh container, so the forward one dies with the forward program.
void Differentiator::prepareRecomputation() {
  for (auto [k, c] : llvm::enumerate(result.candidates))
    for (auto [i, w] : llvm::enumerate(c.writers))
      if (w.second)
        anchorsAt[w.second].push_back(
            {static_cast<unsigned>(k), static_cast<unsigned>(i)});
  // In candidate order, so that the output does not depend on pointers.
  for (const RecomputeCandidate &c : result.candidates)
    if (recomputed.contains(c.container))
      fresh[c.container] =
          copyOf(c.container, containerName(grad, c.container) + ".recomputed");
  // The writers now hold the forward program's tape writes; their
  // recomputations must not repeat them.
  for (auto &[op, slots] : rb.tapes)
    for (const TapeSlot &slot : slots)
      tapeValues.insert(slot.tape);
  for (auto &[op, bounds] : rb.boundTapes)
    for (auto &[v, slot] : bounds)
      tapeValues.insert(slot.tape);
  rb.beforeReverse = [this](Operation *op) { recomputeBefore(op); };
}

/// Just before the reversal of `op`: the recomputations anchored there (or,
/// with markAnchors, an empty state where the checkpointing may put them).
void Differentiator::recomputeBefore(Operation *op) {
  auto it = anchorsAt.find(op);
  if (it == anchorsAt.end())
    return;
  for (auto [k, i] : it->second) {
    RecomputeCandidate &c = result.candidates[k];
    Operation *writer = c.writers[i].first;
    if (recomputed.contains(c.container)) {
      IRMapping m = rb.map;
      for (Value z : c.scratch[i])
        m.map(z, copyOf(z, containerName(grad, z) + ".scratch"));
      StringAttr label = b.getStringAttr("recompute " + c.name);
      Operation *clone = cloneWriter(writer, m, label);
      dropTapeWrites(clone, tapeValues);
    } else if (opts.markAnchors) {
      c.anchors.push_back(
          StateOp::create(b, op->getLoc(), StringRef("checkpoint-anchor")));
      c.anchorWriters.push_back(i);
    }
  }
}

/// A copy of `writer` (a state, or a conditional of states) labelled
/// `label`, at the builder's insertion point.
Operation *Differentiator::cloneWriter(Operation *writer, IRMapping &m,
                                       StringAttr label) {
  auto ifOp = dyn_cast<IfOp>(writer);
  if (!ifOp) {
    Operation *clone = b.clone(*writer, m);
    clone->setAttr(cast<StateOp>(writer).getLabelAttrName(), label);
    return clone;
  }
  // The branch taken in the forward program, from its tape.
  SmallVector<Value> conds;
  for (const TapeSlot &slot : rb.tapes[ifOp]) {
    SmallVector<Value> operands;
    AffineMap im = rb.tapeIndex(slot, {}, {}, operands);
    conds.push_back(rb.load(ifOp.getLoc(), slot.tape, im, operands));
  }
  auto copy = IfOp::create(b, ifOp.getLoc(), conds, ifOp.getBranches().size());
  for (auto [from, to] : llvm::zip(ifOp.getBranches(), copy.getBranches())) {
    Block *blk = new Block();
    to.push_back(blk);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(blk);
    for (Operation &op : from.front())
      b.clone(op, m)->setAttr(StateOp::getLabelAttrName(OperationName(
                                  StateOp::getOperationName(), ctx)),
                              label);
  }
  return copy;
}

// --- Clears nobody reads. Reversing an overwrite zeroes the gradient it
// consumed, so that the reversals of earlier accesses to the old value
// start from zero. When no forward op before the write touches the
// container (the write is outside loops, so it is not its own earlier
// access) and its gradient is not returned to the caller (a wrt
// argument), that zero is never read: typically the seed of a returned
// array, a full sweep saved.
void Differentiator::markDeadClears() {
  Block &body = grad.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned k = 0;
  for (Operation &op : body) {
    position[&op] = k++;
    if (&op == result.forwardEnd)
      break;
  }
  llvm::DenseSet<Value> returned;
  for (const std::string &n : wrtNames)
    returned.insert(grad.lookupArg(n));
  for (const WriteInfo &w : writes) {
    if (!isa<StoreOp, CopyOp>(w.op) || w.readsTarget ||
        returned.contains(w.target))
      continue;
    Operation *top = body.findAncestorOpInBlock(*w.op);
    if (!top || !position.count(top))
      continue;
    bool inLoop = false;
    for (Operation *p = w.op->getParentOp(); p && p != grad.getOperation();
         p = p->getParentOp())
      inLoop |= isa<LoopOp, WhileOp>(p);
    if (inLoop)
      continue;
    unsigned at = position.lookup(top);
    bool earlier = llvm::any_of(w.target.getUsers(), [&](Operation *u) {
      if (u == w.op)
        return false;
      Operation *t = body.findAncestorOpInBlock(*u);
      auto it = position.find(t);
      return it != position.end() && it->second <= at;
    });
    if (!earlier)
      rb.deadClears.insert(w.op);
  }
}

// --- The backward program.
LogicalResult Differentiator::buildBackward() {
  b.setInsertionPointToEnd(&grad.getBody().front());
  if (failed(rb.reverseRegion(grad.getBody())))
    return failure();
  rb.beforeReverse = nullptr;

  // The backward program reads the recomputed containers.
  for (auto [x, y] : fresh)
    for (Operation *op = result.forwardEnd->getNextNode(); op;
         op = op->getNextNode())
      op->walk([&, x = x, y = y](Operation *inner) {
        inner->replaceUsesOfWith(x, y);
      });
  return success();
}

// Gradient containers are zeroed just before their first use, so they
// occupy memory only from there on.
void Differentiator::sinkFills() {
  for (auto [g, fill] : fills) {
    for (Operation *op = fill->getNextNode(); op; op = op->getNextNode()) {
      bool uses = false;
      op->walk([&, g = g](Operation *inner) {
        uses |= llvm::is_contained(inner->getOperands(), g);
      });
      if (uses) {
        fill->moveBefore(op);
        break;
      }
    }
  }
}

// An argument the backward program does not rewind holds its forward
// result on return: no fwd_<name> copy (a sweep over it, and an array
// the caller would allocate) for it.
LogicalResult Differentiator::dropUnrewoundCopies() {
  llvm::BitVector unrewound(grad.getNumArguments());
  for (ResultCopy &r : resultCopies) {
    bool rewound = false;
    for (Operation *op = r.state->getNextNode(); op && !rewound;
         op = op->getNextNode())
      rewound = writesContainer(op, r.arg);
    if (rewound)
      continue;
    r.state.erase();
    unrewound.set(cast<BlockArgument>(r.copy).getArgNumber());
  }
  if (unrewound.any() && failed(grad.eraseArguments(unrewound)))
    return grad.emitOpError("autodiff cannot remove unused fwd_ arguments");
  return success();
}

// What sdfg-checkpoint needs to differentiate the program again (read
// back by readDifferentiateOptions).
void Differentiator::recordOptions() {
  auto strings = [&](ArrayRef<std::string> names) {
    SmallVector<Attribute> out;
    for (const std::string &n : names)
      out.push_back(b.getStringAttr(n));
    return b.getArrayAttr(out);
  };
  NamedAttrList ad;
  ad.set("of", FlatSymbolRefAttr::get(fwd.getSymNameAttr()));
  ad.set("output", b.getStringAttr(outName));
  ad.set("wrt", strings(wrtNames));
  ad.set("suffix", b.getStringAttr(opts.suffix));
  ad.set("while_capacity", b.getI64IntegerAttr(opts.whileCapacity));
  ad.set("data_loop_capacity", b.getI64IntegerAttr(opts.dataLoopCapacity));
  if (opts.accumulate)
    ad.set("accumulate", b.getUnitAttr());
  if (opts.unitSeed)
    ad.set("unit_seed", b.getUnitAttr());
  if (!opts.strongZero)
    ad.set("weak_zero", b.getUnitAttr());
  if (opts.discardResults) {
    ad.set("discard_results", b.getUnitAttr());
    ad.set("keep", strings(opts.keep));
  }
  grad->setAttr("sdfg.ad", ad.getDictionary(ctx));
}

LogicalResult mlir::sdfg::readDifferentiateOptions(SDFGOp grad,
                                                   FlatSymbolRefAttr &of,
                                                   DifferentiateOptions &opts) {
  auto ad = dyn_cast_or_null<DictionaryAttr>(grad->getAttr("sdfg.ad"));
  of = ad ? ad.getAs<FlatSymbolRefAttr>("of") : nullptr;
  auto output = ad ? ad.getAs<StringAttr>("output") : nullptr;
  auto wrt = ad ? ad.getAs<ArrayAttr>("wrt") : nullptr;
  auto suffix = ad ? ad.getAs<StringAttr>("suffix") : nullptr;
  auto cap = ad ? ad.getAs<IntegerAttr>("while_capacity") : nullptr;
  if (!of || !output || !wrt || !suffix || !cap)
    return grad.emitOpError("sdfg-checkpoint: malformed sdfg.ad attribute "
                            "(expected of, output, wrt, suffix, "
                            "while_capacity)");
  opts.output = output.str();
  auto names = [&](ArrayAttr list, StringRef key,
                   SmallVectorImpl<std::string> &into) -> LogicalResult {
    for (Attribute a : list) {
      auto name = dyn_cast<StringAttr>(a);
      if (!name)
        return grad.emitOpError("sdfg-checkpoint: sdfg.ad `")
               << key << "` must list names (strings), not " << a;
      into.push_back(name.str());
    }
    return success();
  };
  if (failed(names(wrt, "wrt", opts.wrt)))
    return failure();
  opts.suffix = suffix.str();
  opts.whileCapacity = cap.getInt();
  if (auto dataCap = ad.getAs<IntegerAttr>("data_loop_capacity"))
    opts.dataLoopCapacity = dataCap.getInt();
  opts.accumulate = ad.contains("accumulate");
  opts.unitSeed = ad.contains("unit_seed");
  opts.strongZero = !ad.contains("weak_zero");
  opts.discardResults = ad.contains("discard_results");
  if (auto kept = ad.getAs<ArrayAttr>("keep"))
    if (failed(names(kept, "keep", opts.keep)))
      return failure();
  return success();
}

FailureOr<DifferentiateResult>
mlir::sdfg::differentiate(SDFGOp fwd, const DifferentiateOptions &opts) {
  DifferentiateResult result;
  if (failed(Differentiator(fwd, opts, result).run())) {
    if (result.grad)
      result.grad.erase();
    return failure();
  }
  return result;
}
