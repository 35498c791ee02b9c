//===- BinomialCheckpoint.cpp - Revolve schedules of counted loops --------===//
//
// Binomial loop checkpointing (Griewank and Walther, "Algorithm 799:
// revolve"): with s snapshots, reversing T iterations re-runs the fewest
// iterations any schedule can, about T * log(T) / log(s) for moderate s
// instead of uniform segments' T, in s snapshots and one iteration's
// tapes.
//
// The schedule is computed at run time from the trip count, so the code
// is the same whatever T turns out to be. A stack of snapshots (state
// copies and their iteration positions) is kept per execution of the
// loop. Reversing iterations [p, i] from the snapshot at p with S slots
// (the one at p included): advance m = binomialAdvance(i - p + 1, S)
// iterations, store a snapshot there, and go on from it with S - 1 slots;
// with one slot, advance to i. Then run i with its tapes and reverse it;
// the snapshot at i, if any, is dropped. The forward sweep does the same
// for i = T - 1 (its last iteration's tapes are the forward's own), and
// every later i restores the newest snapshot at or before it. Doing the
// recursion of Revolve this way, one reversed iteration at a time, keeps
// the backward program a loop: each step of it is this small routine.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"

#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

namespace {
/// beta(s, t) = C(s + t, s), built up over t: Griewank's bound on the
/// iterations s snapshots reverse when no iteration runs more than t
/// times. Wide enough for the products of the schedule's arithmetic.
using Wide = __int128;

/// The least t with beta(slots, t) >= steps, and beta(slots, t - 1),
/// beta(slots, t - 2) (0 for negative t).
struct Repetition {
  int64_t t = 0;
  Wide b0 = 1, b1 = 0, b2 = 0;
};

Repetition repetition(int64_t steps, int64_t slots) {
  Repetition r;
  while (r.b0 < steps) {
    r.b2 = r.b1;
    r.b1 = r.b0;
    r.b0 = r.b0 * (slots + r.t + 1) / (r.t + 1);
    ++r.t;
  }
  return r;
}
} // namespace

int64_t mlir::sdfg::binomialAdvance(int64_t steps, int64_t slots) {
  Repetition r = repetition(steps, slots);
  // The left part [0, m) is reversed with `slots` snapshots and one
  // repetition fewer, the right part with one snapshot fewer: the least
  // m that fits both keeps the total optimal (checked against a dynamic
  // program in the unit tests).
  Wide m = std::max<Wide>({1, r.b2, steps - (r.b0 - r.b1)});
  return static_cast<int64_t>(std::min<Wide>(m, steps - 1));
}

int64_t mlir::sdfg::binomialRecomputedIterations(int64_t trips,
                                                 int64_t snapshots) {
  constexpr Wide cap = std::numeric_limits<int64_t>::max();
  if (trips <= 1)
    return 0;
  if (snapshots <= 1)
    return static_cast<int64_t>(
        std::min<Wide>(cap, Wide(trips) * (trips - 1) / 2));
  // Griewank: t * T - beta(s + 1, t - 1).
  Repetition r = repetition(trips, snapshots);
  Wide b = 1;
  for (int64_t j = 1; j < r.t; ++j)
    b = b * (snapshots + 1 + j) / j;
  return static_cast<int64_t>(std::min<Wide>(cap, Wide(r.t) * trips - b));
}

LogicalResult Differentiator::checkpointLoopBinomial(LoopCandidate &c) {
  Operation *loop = c.loop;
  auto rev = dyn_cast_or_null<LoopOp>(rb.reversedLoops.lookup(loop));
  if (!rev) {
    // Nothing in the loop is reversed: no tapes to save.
    c.segments.clear();
    c.snapshots.clear();
    c.recomputedIterations = 0;
    c.binomial = false;
    return success();
  }
  Location loc = loop->getLoc();
  int64_t slots = c.snapshots.front();
  Type i64 = b.getI64Type(), i1 = b.getI1Type(), index = b.getIndexType();
  // A while loop's trip count is known backward only: forward it stores
  // just the snapshot at 0, and the backward program schedules from there.
  FailureOr<LoopFrame> frame = loopFrame(c, rev);
  if (failed(frame))
    return failure();
  bool counted = isa<LoopOp>(loop);
  int64_t step = frame->step;
  AffineExpr n = frame->n;
  ArrayRef<Value> fwdOps = frame->fwdOperands, bwdOps = frame->bwdOperands;
  Value fwdIv = frame->fwdIv;
  const TapeSlot &outerSlot = frame->outerSlot;
  ArrayRef<int64_t> outerSizes = frame->outerSizes;
  // A nested loop keeps a stack per execution, indexed like its tapes.
  ArrayRef<Value> fwdSlot = outerSlot.operands,
                  bwdSlot = frame->bwdSlotOperands;
  unsigned ns = fwdSlot.size();

  // The containers: the snapshots and their positions, how many are
  // stacked, the forward sweep's next snapshot position, and the
  // routine's scratch scalars.
  auto alloc = [&](ArrayRef<int64_t> extra, ArrayRef<int64_t> shape, Type elt,
                   const std::string &name) -> Value {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&grad.getBody().front());
    SmallVector<int64_t> sizes(extra);
    llvm::append_range(sizes, shape);
    auto a = AllocOp::create(b, loc, MemRefType::get(sizes, elt), ValueRange{});
    a.setNameAttr(b.getStringAttr(name));
    return a.getResult();
  };
  SmallVector<int64_t> stackShape(outerSizes);
  stackShape.push_back(slots);
  SmallVector<Value> snaps;
  for (Value v : c.state) {
    // Of the state's extents, dynamic ones included.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&grad.getBody().front());
    snaps.push_back(rb.allocateLike(
        loc, v, b.getStringAttr(containerName(grad, v) + ".snapshot." + c.name),
        stackShape));
  }
  std::string prefix = c.name + ".revolve.";
  Value positions = alloc(stackShape, {}, i64, prefix + "positions");
  Value stacked = alloc(outerSizes, {}, i64, prefix + "stacked");
  Value nextSave = alloc(outerSizes, {}, i64, prefix + "next");
  Value current = alloc({}, {}, i64, prefix + "current");
  Value repT = alloc({}, {}, i64, prefix + "t");
  Value beta0 = alloc({}, {}, i64, prefix + "beta0");
  Value beta1 = alloc({}, {}, i64, prefix + "beta1");
  Value beta2 = alloc({}, {}, i64, prefix + "beta2");

  // container[slot..., extra...] over (slot operands, extra operands).
  auto slotMap = [&](unsigned extra) {
    SmallVector<AffineExpr> r(outerSlot.exprs.begin(), outerSlot.exprs.end());
    for (unsigned j = 0; j < extra; ++j)
      r.push_back(b.getAffineDimExpr(ns + j));
    return AffineMap::get(ns + extra, 0, r, ctx);
  };
  auto access = [&](Value cont, ValueRange slot, ValueRange extra,
                    SmallVectorImpl<Value> &operands) {
    if (cast<MemRefType>(cont.getType()).getRank() == 0)
      return scalar;
    operands.append(slot.begin(), slot.end());
    operands.append(extra.begin(), extra.end());
    return slotMap(extra.size());
  };
  auto load = [&](Value cont, ValueRange slot = {}, ValueRange extra = {}) {
    SmallVector<Value> operands;
    AffineMap map = access(cont, slot, extra, operands);
    return rb.load(loc, cont, map, operands);
  };
  auto store = [&](Value v, Value cont, ValueRange slot = {},
                   ValueRange extra = {}) {
    SmallVector<Value> operands;
    AffineMap map = access(cont, slot, extra, operands);
    rb.store(loc, v, cont, map, operands, /*accumulate=*/false);
  };
  // Stores of values computed between states go in a state of their own.
  auto inState = [&](StringRef label, function_ref<void()> fn) {
    auto st = StateOp::create(b, loc, label);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&st.getBody().front());
    fn();
  };
  auto calc = [&](Type type, ValueRange ins,
                  function_ref<Value(OpBuilder &, ArrayRef<Value>)> fn) {
    return rb
        .tasklet(loc, TypeRange{type}, ins,
                 [&](OpBuilder &ob, ArrayRef<Value> a) -> SmallVector<Value> {
                   return {fn(ob, a)};
                 })
        ->getResult(0);
  };
  auto constant = [&](int64_t v) {
    return rb.constantTasklet(loc, i64, static_cast<double>(v));
  };
  // v + k, for an i64 v.
  auto plus = [&](Value v, int64_t k) {
    return calc(i64, {v}, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
      Value c = arith::ConstantIntOp::create(ob, loc, i64, k);
      return arith::AddIOp::create(ob, loc, a[0], c);
    });
  };
  // An affine expression over (iterator, operands...) as an i64.
  auto position = [&](AffineExpr e, Value iv, ValueRange ops) {
    SmallVector<Value> ins{iv};
    llvm::append_range(ins, ops);
    return calc(i64, ins, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
      Value v = affine::expandAffineExpr(ob, loc, e, a, {});
      return arith::IndexCastOp::create(ob, loc, i64, v);
    });
  };
  auto toIndex = [&](Value v) {
    return calc(index, {v}, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
      return arith::IndexCastOp::create(ob, loc, ob.getIndexType(), a[0]);
    });
  };
  using Pred = arith::CmpIPredicate;
  auto compare = [&](Pred pred, Value l, Value r) {
    return calc(i1, {l, r}, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
      return arith::CmpIOp::create(ob, loc, pred, a[0], a[1]);
    });
  };
  // The routine: how far to advance to reverse `steps` iterations with
  // `freeSlots` snapshots (binomialAdvance, at run time).
  auto advance = [&](Value steps, Value freeSlots) {
    inState("binomial schedule", [&] {
      store(constant(0), repT);
      store(constant(1), beta0);
      store(constant(0), beta1);
      store(constant(0), beta2);
    });
    auto w = WhileOp::create(b, loc);
    w.getCond().push_back(new Block());
    w.getBody().push_back(new Block());
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&w.getCond().front());
      ConditionOp::create(b, loc, compare(Pred::slt, load(beta0), steps));
      b.setInsertionPointToStart(&w.getBody().front());
      Value t = load(repT), x0 = load(beta0), x1 = load(beta1);
      Value next = calc(i64, {x0, t, freeSlots},
                        [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
                          Value one =
                              arith::ConstantIntOp::create(ob, loc, i64, 1);
                          Value t1 = arith::AddIOp::create(ob, loc, a[1], one);
                          Value f = arith::AddIOp::create(ob, loc, a[2], t1);
                          Value p = arith::MulIOp::create(ob, loc, a[0], f);
                          return arith::DivSIOp::create(ob, loc, p, t1);
                        });
      Value t1 = plus(t, 1);
      inState("binomial schedule", [&] {
        store(x1, beta2);
        store(x0, beta1);
        store(next, beta0);
        store(t1, repT);
      });
    }
    Value x0 = load(beta0), x1 = load(beta1), x2 = load(beta2);
    return calc(i64, {steps, x0, x1, x2},
                [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
                  Value one = arith::ConstantIntOp::create(ob, loc, i64, 1);
                  Value right = arith::SubIOp::create(ob, loc, a[1], a[2]);
                  Value rest = arith::SubIOp::create(ob, loc, a[0], right);
                  Value m = arith::MaxSIOp::create(ob, loc, a[3], rest);
                  m = arith::MaxSIOp::create(ob, loc, m, one);
                  Value last = arith::SubIOp::create(ob, loc, a[0], one);
                  return arith::MinSIOp::create(ob, loc, m, last);
                });
  };
  // Copies every state container between itself and stack row `row`.
  auto copySnapshot = [&](Value row, ValueRange slot, bool save,
                          StringRef label) {
    auto st = StateOp::create(b, loc, label);
    OpBuilder::InsertionGuard guard(b);
    for (auto [v, snap] : llvm::zip(c.state, snaps)) {
      b.setInsertionPointToEnd(&st.getBody().front());
      SmallVector<Value> params = rb.openContainerMap(loc, v, parallelCopy(v));
      SmallVector<Value> operands(slot.begin(), slot.end());
      operands.push_back(row);
      llvm::append_range(operands, params);
      SmallVector<AffineExpr> rowE(outerSlot.exprs.begin(),
                                   outerSlot.exprs.end());
      SmallVector<AffineExpr> elem;
      rowE.push_back(b.getAffineDimExpr(ns));
      for (unsigned d = 0; d < params.size(); ++d) {
        rowE.push_back(b.getAffineDimExpr(ns + 1 + d));
        elem.push_back(b.getAffineDimExpr(ns + 1 + d));
      }
      unsigned dims = ns + 1 + params.size();
      AffineMap rowMap = AffineMap::get(dims, 0, rowE, ctx);
      AffineMap elemMap = AffineMap::get(dims, 0, elem, ctx);
      if (save)
        rb.store(loc, rb.load(loc, v, elemMap, operands), snap, rowMap,
                 operands, false);
      else
        rb.store(loc, rb.load(loc, snap, rowMap, operands), v, elemMap,
                 operands, false);
    }
  };
  // Pushes a snapshot of the state at iteration position `at` (i64).
  auto push = [&](Value at, ValueRange slot, StringRef label) {
    Value k = load(stacked, slot);
    Value kIdx = toIndex(k);
    copySnapshot(kIdx, slot, /*save=*/true, label);
    Value k1 = plus(k, 1);
    inState("binomial schedule", [&] {
      store(at, positions, slot, {kIdx});
      store(k1, stacked, slot);
    });
    return k1;
  };
  // Free snapshot slots, the newest snapshot's included: s - stacked + 1.
  auto freeSlots = [&](Value k) {
    return calc(i64, {k}, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
      Value s1 = arith::ConstantIntOp::create(ob, loc, i64, slots + 1);
      return arith::SubIOp::create(ob, loc, s1, a[0]);
    });
  };

  SmallVector<Operation *> original;
  for (Operation &op : *frame->fwdBody)
    original.push_back(&op);
  // Runs the forward body again for positions [from, to) (i64). Only the
  // run of the iteration about to be reversed writes tapes: an advance's
  // would be overwritten unread (tapes hold one iteration).
  auto rerun = [&](Value from, Value to, bool taping) {
    // Over (from, to, bound operands...): a counted loop's bounds'.
    unsigned nOps = counted ? bwdOps.size() : 0;
    AffineExpr lb = frame->lb.shiftDims(1 + nOps, 1);
    AffineMap bounds = AffineMap::get(
        2 + nOps, 0,
        {lb + b.getAffineDimExpr(0) * step, lb + b.getAffineDimExpr(1) * step},
        ctx);
    SmallVector<Value> operands{toIndex(from), toIndex(to)};
    if (counted)
      llvm::append_range(operands, bwdOps);
    auto again = LoopOp::create(b, loc, operands, AffineMapAttr::get(bounds),
                                b.getI64IntegerAttr(step));
    Block *body = new Block();
    again.getBody().push_back(body);
    IRMapping m = frame->toBwd;
    Value iv = body->addArgument(index, loc);
    // A while body computes its iteration index from its counter, which
    // the snapshot restored.
    if (counted)
      m.map(fwdIv, iv);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    for (Operation *op : original)
      b.clone(*op, m);
    if (!taping)
      dropTapeWrites(again, tapeValues);
  };

  std::string saveLabel = "snapshot of " + c.name;
  std::string restoreLabel = "restore snapshot of " + c.name;
  // Backward, before reversing iteration i < T - 1 (the forward sweep left
  // the tapes of T - 1): drop the snapshot at i + 1, restore the newest,
  // advance and store snapshots while slots are free, then run i.
  {
    OpBuilder::InsertionGuard guard(b);
    Value riv = rev.getIterator();
    b.setInsertionPointToStart(&rev.getBody().front());
    Value i = position(n, riv, bwdOps);
    Value last = position(frame->bwdTrips - 1, riv, bwdOps);
    openIf(b, loc, compare(Pred::slt, i, last));
    Value k = load(stacked, bwdSlot);
    Value top = plus(k, -1);
    Value topPos = load(positions, bwdSlot, {toIndex(top)});
    {
      OpBuilder::InsertionGuard ifGuard(b);
      openIf(b, loc, compare(Pred::sgt, topPos, i));
      inState("binomial schedule", [&] { store(top, stacked, bwdSlot); });
    }
    k = load(stacked, bwdSlot);
    top = plus(k, -1);
    Value topIdx = toIndex(top);
    copySnapshot(topIdx, bwdSlot, /*save=*/false, restoreLabel);
    Value from = load(positions, bwdSlot, {topIdx});
    inState("binomial schedule", [&] { store(from, current); });
    // while (free slots > 1 and current < i): advance, push.
    auto w = WhileOp::create(b, loc);
    w.getCond().push_back(new Block());
    w.getBody().push_back(new Block());
    {
      OpBuilder::InsertionGuard whileGuard(b);
      b.setInsertionPointToStart(&w.getCond().front());
      Value cur = load(current), kk = load(stacked, bwdSlot);
      Value more = calc(
          i1, {cur, i, kk}, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
            Value behind =
                arith::CmpIOp::create(ob, loc, Pred::slt, a[0], a[1]);
            // Free slots s - kk + 1 >= 2, i.e. kk < s.
            Value cap = arith::ConstantIntOp::create(ob, loc, i64, slots);
            Value room = arith::CmpIOp::create(ob, loc, Pred::slt, a[2], cap);
            return arith::AndIOp::create(ob, loc, behind, room);
          });
      ConditionOp::create(b, loc, more);
      b.setInsertionPointToStart(&w.getBody().front());
      cur = load(current);
      kk = load(stacked, bwdSlot);
      Value steps =
          calc(i64, {i, cur}, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
            Value one = arith::ConstantIntOp::create(ob, loc, i64, 1);
            Value d = arith::SubIOp::create(ob, loc, a[0], a[1]);
            return arith::AddIOp::create(ob, loc, d, one);
          });
      Value m = advance(steps, freeSlots(kk));
      Value to = calc(i64, {cur, m}, [&](OpBuilder &ob, ArrayRef<Value> a) {
        return arith::AddIOp::create(ob, loc, a[0], a[1]).getResult();
      });
      rerun(cur, to, /*taping=*/false);
      push(to, bwdSlot, saveLabel);
      inState("binomial schedule", [&] { store(to, current); });
    }
    // Then on to i, with its tapes.
    Value cur = load(current);
    rerun(cur, i, /*taping=*/false);
    rerun(i, plus(i, 1), /*taping=*/true);
  }

  // Forward: an empty stack at the first iteration; at the start of an
  // iteration whose position is the next snapshot's, push and place the
  // next one.
  {
    // (In the body, at iteration 0: the checkpoint model compares
    // programs with the same top-level ops.)
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(frame->fwdStart);
    Value at = position(n, fwdIv, fwdOps);
    {
      OpBuilder::InsertionGuard first(b);
      openIf(b, loc, compare(Pred::eq, at, constant(0)));
      inState("binomial schedule", [&] {
        store(constant(0), stacked, fwdSlot);
        store(constant(0), nextSave, fwdSlot);
      });
    }
    openIf(b, loc, compare(Pred::eq, at, load(nextSave, fwdSlot)));
    Value k1 = push(at, fwdSlot, saveLabel);
    inState("binomial schedule",
            [&] { store(constant(-1), nextSave, fwdSlot); });
    if (!counted)
      return success();
    // Iterations left from here, T - n, and slots left, s - k1 + 1.
    Value steps = position(frame->fwdTrips - n, fwdIv, fwdOps);
    Value free = freeSlots(k1);
    Value again =
        calc(i1, {steps, free}, [&](OpBuilder &ob, ArrayRef<Value> a) -> Value {
          Value two = arith::ConstantIntOp::create(ob, loc, i64, 2);
          Value l = arith::CmpIOp::create(ob, loc, Pred::sge, a[0], two);
          Value f = arith::CmpIOp::create(ob, loc, Pred::sge, a[1], two);
          return arith::AndIOp::create(ob, loc, l, f);
        });
    openIf(b, loc, again);
    Value m = advance(steps, free);
    Value next = calc(i64, {at, m}, [&](OpBuilder &ob, ArrayRef<Value> a) {
      return arith::AddIOp::create(ob, loc, a[0], a[1]).getResult();
    });
    inState("binomial schedule", [&] { store(next, nextSave, fwdSlot); });
  }
  return success();
}
