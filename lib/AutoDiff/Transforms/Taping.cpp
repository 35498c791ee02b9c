//===- Taping.cpp - The forward sweep's stored values ---------------------===//
//
// Store-all with restore-on-reverse: before each write whose old value the
// backward program reads, the forward sweep stores it in a tape, at a slot
// indexed by the normalised counters of the enclosing loops and maps; also
// the iteration counts of while loops and data loops, branch conditions and
// loop bounds read from data.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"

#include <limits>

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Whether `later` runs after every execution of `op`: it follows `op` in
/// program order and no loop or map repeats both.
bool mlir::sdfg::detail::runsAfterAll(Operation *op, Operation *later) {
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
bool mlir::sdfg::detail::initialisedBefore(StoreOp store, Value target) {
  Operation *outer = store;
  while (isa_and_nonnull<MapOp>(outer->getParentOp()))
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

bool mlir::sdfg::detail::isShapeLevel(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return isa<SDFGOp>(arg.getOwner()->getParentOp());
  Operation *def = v.getDefiningOp();
  if (!def || !isa<SDFGOp>(def->getParentOp()))
    return false;
  if (isa<DimOp>(def))
    return true;
  if (auto t = dyn_cast<TaskletOp>(def))
    return llvm::all_of(t.getInputs(), isShapeLevel);
  return false;
}

static bool allShapeLevel(ValueRange values) {
  return llvm::all_of(values, isShapeLevel);
}

/// Tape slot of an op: normalised counters of its enclosing loops and maps.
LogicalResult mlir::sdfg::detail::makeSlot(
    Operation *op, Intervals &iv, ReverseBuilder &rb, TapeSlot &slot,
    SmallVectorImpl<int64_t> &sizes,
    function_ref<FailureOr<Value>(LoopOp)> dataLoopIndex,
    SmallVectorImpl<RuntimeExtent> *runtime) {
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
    // Bounds the call fixes (a size symbol): sized when the program
    // starts, below, not counted as a data loop.
    if (runtime && !rb.segments.lookup(loop) &&
        allShapeLevel(loop.getBoundOperands()))
      continue;
    // A loop checkpointed binomially tapes one iteration, however many.
    // It still takes its place in the count of data-loop iterations, so
    // the checkpoint model compares programs of the same shape, but
    // without a capacity.
    if (rb.segments.lookup(loop) == 1) {
      if (failed(dataLoopIndex(loop)))
        return failure();
      continue;
    }
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
      AffineExpr index =
          getAffineDimExpr(slot.operands.size() - 1, op->getContext());
      // A checkpointed while loop's tapes hold one segment.
      if (int64_t k = rb.segments.lookup(c); k > 0 && k < rb.whileCapacity) {
        slot.exprs.push_back(index % k);
        sizes.push_back(k);
        continue;
      }
      slot.exprs.push_back(index);
      sizes.push_back(rb.whileCapacity);
      continue;
    }
    if (auto loop = dyn_cast<LoopOp>(c)) {
      if (rb.segments.lookup(loop) == 1) {
        // Tapes of one iteration (the last segment of a checkpointed loop
        // is a single iteration).
        slot.exprs.push_back(getAffineConstantExpr(0, op->getContext()));
        sizes.push_back(1);
        continue;
      }
      unsigned off = slot.operands.size();
      slot.operands.push_back(loop.getIterator());
      llvm::append_range(slot.operands, loop.getBoundOperands());
      unsigned nb = loop.getBoundOperands().size();
      AffineExpr ivE = getAffineDimExpr(off, op->getContext());
      AffineExpr lb = loop.getLowerExpr().shiftDims(nb, off + 1);
      int64_t s = loop.getStepValue();
      AffineExpr n = s > 0 ? (ivE - lb).floorDiv(s) : (lb - ivE).floorDiv(-s);
      auto lbI = iv.of(loop.getLowerExpr(), loop.getBoundOperands());
      auto ubI = iv.of(loop.getUpperExpr(), loop.getBoundOperands());
      if ((!lbI || !ubI) && runtime && !rb.segments.lookup(loop) &&
          allShapeLevel(loop.getBoundOperands())) {
        slot.exprs.push_back(n);
        sizes.push_back(ShapedType::kDynamic);
        runtime->push_back({loop.getLowerExpr(), loop.getUpperExpr(), s,
                            llvm::to_vector(loop.getBoundOperands())});
        continue;
      }
      if (!lbI || !ubI)
        return fail();
      int64_t trips = s > 0 ? tripCount(lbI->lo, ubI->hi, s)
                            : tripCount(lbI->hi, ubI->lo, s);
      // A checkpointed loop's tapes hold one segment at a time.
      if (int64_t k = rb.segments.lookup(loop); k > 0 && k < trips) {
        n = n % k;
        trips = k;
      }
      slot.exprs.push_back(n);
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
      if ((!lbI || !ubI) && runtime && allShapeLevel(map.getRangeOperands())) {
        sizes.push_back(ShapedType::kDynamic);
        runtime->push_back({map.getLowerBounds().getResult(k),
                            map.getUpperBounds().getResult(k), s,
                            llvm::to_vector(map.getRangeOperands())});
        continue;
      }
      if (lbI && !ubI)
        ubI = extentFromAccess(op, p, lbI->lo, iv);
      if (!lbI || !ubI)
        return fail();
      sizes.push_back(tripCount(lbI->lo, ubI->hi, s));
    }
  }
  return success();
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

LogicalResult Differentiator::makeTape(Operation *op, Type elt,
                                       ArrayRef<int64_t> extra,
                                       TapeSlot &slot) {
  SmallVector<int64_t> sizes;
  SmallVector<RuntimeExtent> runtime;
  if (failed(makeSlot(
          op, intervals, rb, slot, sizes,
          [&](LoopOp loop) { return dataLoopIndex(loop); }, &runtime)))
    return failure();
  llvm::append_range(sizes, extra);
  // A tape past what the dialect represents (a while-capacity of 2^61,
  // a loop of 10^12 iterations around a large write) is an error here,
  // at the op that needs it, rather than a size that wraps. (Run-time
  // extents are the call's: its arrays' sizes bound them.)
  SmallVector<int64_t> known = llvm::filter_to_vector(
      sizes, [](int64_t d) { return !ShapedType::isDynamic(d); });
  if (!checkedByteSize(known, elt)) {
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
  SmallVector<Value> dynamicSizes;
  if (!runtime.empty())
    dynamicSizes = runtimeSizes(op->getLoc(), runtime);
  slot.tape = AllocOp::create(b, op->getLoc(), MemRefType::get(sizes, elt),
                              dynamicSizes);
  return success();
}

/// The trip counts of `extents`, computed in the program's body after the
/// values they read (leaves the builder there, for the alloc).
SmallVector<Value>
Differentiator::runtimeSizes(Location loc, ArrayRef<RuntimeExtent> extents) {
  Block &body = grad.getBody().front();
  Operation *last = nullptr;
  for (const RuntimeExtent &e : extents)
    for (Value v : e.operands)
      if (Operation *def = v.getDefiningOp())
        if (!last || last->isBeforeInBlock(def))
          last = def;
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointToStart(&body);
  SmallVector<Value> out;
  for (const RuntimeExtent &e : extents) {
    auto t = rb.tasklet(
        loc, TypeRange{b.getIndexType()}, e.operands,
        [&](OpBuilder &ob, ArrayRef<Value> args) -> SmallVector<Value> {
          Value lb =
              affine::expandAffineExpr(ob, loc, e.lower, ValueRange(args), {});
          Value ub =
              affine::expandAffineExpr(ob, loc, e.upper, ValueRange(args), {});
          Value span = e.step > 0 ? arith::SubIOp::create(ob, loc, ub, lb)
                                  : arith::SubIOp::create(ob, loc, lb, ub);
          Value trips = arith::CeilDivSIOp::create(
              ob, loc, span,
              arith::ConstantIndexOp::create(ob, loc, std::abs(e.step)));
          return {arith::MaxSIOp::create(
              ob, loc, trips, arith::ConstantIndexOp::create(ob, loc, 0))};
        });
    out.push_back(t.getResult(0));
  }
  return out;
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
  int64_t cap = rb.segments.lookup(loop) == 1
                    ? std::numeric_limits<int64_t>::max()
                    : rb.dataLoopCapacity;
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
