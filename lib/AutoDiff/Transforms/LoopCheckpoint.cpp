//===- LoopCheckpoint.cpp - Snapshots and segment re-runs of loops --------===//
//
// Loop checkpointing (Griewank's checkpointing of a time loop, uniform
// schedules nested to any depth): a top-level sdfg.loop of T iterations
// (or sdfg.while, over its capacity) is split into segments of k
// iterations, each of those into segments of k2, and so on. Tapes hold
// one segment of the last level (slot: position mod km), so the forward
// sweep leaves the last segment's tapes intact; at the start of every
// segment that is not the last of its parent it stores a snapshot of the
// loop's state. The reversed loop, before reversing the last iteration of
// a segment whose tapes are gone, restores the segment's snapshot and
// runs it forward again with its tape writes (saving the finer levels'
// snapshots), then goes on reversing it. Restore-on-reverse makes this
// consistent: reversing a segment brings every stored container back to
// its value at the segment's start. See docs/design/checkpointing.md.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"

#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

SmallVector<int64_t> mlir::sdfg::loopSegments(int64_t trips,
                                              ArrayRef<int64_t> checkpoints) {
  SmallVector<int64_t> segments;
  int64_t parent = trips;
  for (int64_t c : checkpoints) {
    if (c <= 0 || parent <= 2)
      break;
    // ceil(parent / (c + 1)), without overflow for huge counts.
    int64_t k = c >= parent ? 1 : (parent + c) / (c + 1);
    if (k >= parent)
      break;
    segments.push_back(k);
    parent = k;
  }
  return segments;
}

SmallVector<int64_t> mlir::sdfg::loopSnapshots(int64_t trips,
                                               ArrayRef<int64_t> segments) {
  SmallVector<int64_t> rows;
  int64_t parent = trips;
  for (int64_t k : segments) {
    rows.push_back((parent + k - 1) / k - 1);
    parent = k;
  }
  return rows;
}

/// Iterations run again to reverse a segment of `length` iterations split
/// by `segments`: every sub-segment but the last runs again from its
/// snapshot, and each sub-segment is reversed the same way.
static int64_t rerunIterations(int64_t length, ArrayRef<int64_t> segments) {
  if (segments.empty() || length <= 0)
    return 0;
  int64_t k = segments.front(), full = length / k, rest = length % k;
  int64_t last = rest ? rest : k;
  return length - last + full * rerunIterations(k, segments.drop_front()) +
         rerunIterations(rest, segments.drop_front());
}

int64_t mlir::sdfg::loopRecomputedIterations(int64_t trips,
                                             ArrayRef<int64_t> segments) {
  return rerunIterations(trips, segments);
}

/// The position of `loop`'s iteration as an expression over (iterator,
/// bound operands...): 0 for the first iteration, whatever the step.
AffineExpr mlir::sdfg::detail::iterationExpr(LoopOp loop) {
  MLIRContext *ctx = loop.getContext();
  unsigned nb = loop.getBoundOperands().size();
  AffineExpr iv = getAffineDimExpr(0, ctx);
  AffineExpr lb = loop.getLowerExpr().shiftDims(nb, 1);
  int64_t s = loop.getStepValue();
  return s > 0 ? (iv - lb).floorDiv(s) : (lb - iv).floorDiv(-s);
}

/// The number of iterations `loop` runs (negative when none) over the
/// same dimensions.
AffineExpr mlir::sdfg::detail::tripsExpr(LoopOp loop) {
  unsigned nb = loop.getBoundOperands().size();
  AffineExpr lb = loop.getLowerExpr().shiftDims(nb, 1);
  AffineExpr ub = loop.getUpperExpr().shiftDims(nb, 1);
  int64_t s = loop.getStepValue();
  return s > 0 ? (ub - lb).ceilDiv(s) : (lb - ub).ceilDiv(-s);
}

/// Whether a snapshot can leave out transient `x` of `loop`: nothing
/// before the loop uses it, and every iteration's first access to it is a
/// state that overwrites all of it. A segment then never reads the value
/// it starts with, and no one reads the value before the loop.
static bool iterationLocal(Operation *loop, Block &body, Value x) {
  auto alloc = x.getDefiningOp<AllocOp>();
  if (!alloc || alloc->getBlock() != loop->getBlock())
    return false;
  auto uses = [&](Operation *op) {
    bool found = false;
    op->walk([&](Operation *inner) {
      found |= llvm::is_contained(inner->getOperands(), x);
    });
    return found;
  };
  for (Operation *op = loop->getPrevNode(); op; op = op->getPrevNode())
    if (!isa<AllocOp>(op) && uses(op))
      return false;
  // A while loop's condition runs before each body.
  if (auto w = dyn_cast<WhileOp>(loop))
    for (Operation &op : w.getCond().front())
      if (uses(&op))
        return false;
  for (Operation &op : body)
    if (uses(&op)) {
      auto state = dyn_cast<StateOp>(op);
      return state && firstAccessCovers(state, x);
    }
  return false;
}

LogicalResult Differentiator::resolveLoopCheckpoints() {
  Block &body = grad.getBody().front();
  // Every counted loop (outer before inner) and the top-level while loops.
  SmallVector<LoopOp> loops;
  SmallVector<WhileOp> whiles;
  grad.walk<WalkOrder::PreOrder>([&](LoopOp loop) { loops.push_back(loop); });
  for (Operation &op : body)
    if (auto w = dyn_cast<WhileOp>(op))
      whiles.push_back(w);
  // Names: the frontend's iterator name, else the position.
  llvm::StringMap<unsigned> uses;
  for (LoopOp loop : loops)
    if (auto n = loop->getAttrOfType<StringAttr>("sdfg.name"))
      ++uses[n.getValue()];
  llvm::StringMap<unsigned> seen;
  for (auto [k, loop] : llvm::enumerate(loops)) {
    LoopCandidate c;
    c.loop = loop;
    if (auto n = loop->getAttrOfType<StringAttr>("sdfg.name")) {
      c.name = n.str();
      unsigned ord = seen[n.getValue()]++;
      if (uses.lookup(n.getValue()) > 1)
        c.name += "#" + std::to_string(ord);
    } else {
      c.name = "loop" + std::to_string(k);
    }
    result.loops.push_back(std::move(c));
  }
  for (auto [k, w] : llvm::enumerate(whiles)) {
    LoopCandidate c;
    c.loop = w;
    c.name = "while" + std::to_string(k);
    c.isWhile = true;
    result.loops.push_back(std::move(c));
  }

  for (LoopCandidate &c : result.loops) {
    Operation *loop = c.loop;
    Block &loopBody = loop->getRegion(isa<WhileOp>(loop) ? 1 : 0).front();
    auto refuse = [&](const Twine &why) {
      c.eligible = false;
      c.reason = why.str();
    };
    c.eligible = true;
    bool topLevel = loop->getBlock() == &body;
    if (auto counted = dyn_cast<LoopOp>(loop)) {
      auto lb =
          intervals.of(counted.getLowerExpr(), counted.getBoundOperands());
      auto ub =
          intervals.of(counted.getUpperExpr(), counted.getBoundOperands());
      int64_t s = counted.getStepValue();
      if (!lb || !ub) {
        // A top-level loop can still take a binomial schedule, computed
        // from the trip count at run time. Bounds fixed before the first
        // state (index arguments, extents) are sizes of the call, not
        // data the program computes.
        c.sizeTrips = llvm::all_of(counted.getBoundOperands(), isShapeLevel);
        refuse(c.sizeTrips ? "its trip count is a size only the call knows"
                           : "its trip count is not bounded when compiling");
        if (!topLevel)
          continue;
        c.dataTrips = true;
        c.trips = opts.dataLoopCapacity;
      } else {
        c.trips =
            s > 0 ? tripCount(lb->lo, ub->hi, s) : tripCount(lb->hi, ub->lo, s);
      }
    } else {
      // A while loop's tapes cover while-capacity iterations: its
      // segments split that.
      c.trips = opts.whileCapacity;
    }
    if (c.trips < 3) {
      refuse("it runs fewer than 3 iterations");
      continue;
    }
    bool dataLoop = false, sizedLoop = false;
    loop->walk([&](LoopOp inner) {
      if (inner == loop || hasBoundedTrips(inner, intervals))
        return;
      bool sized = llvm::all_of(inner.getBoundOperands(), isShapeLevel);
      sizedLoop |= sized;
      dataLoop |= !sized;
    });
    if (dataLoop || sizedLoop) {
      refuse(dataLoop ? "a loop inside it has a trip count read from data"
                      : "a loop inside it has a trip count only the call "
                        "knows (a size)");
      continue;
    }
    if (!topLevel) {
      // A nested loop: its snapshots are indexed like its tapes by the
      // enclosing loops, and its segments re-run inside their reversal,
      // where only top-level values and the enclosing loops' iterators
      // (mapped to the reversed loops') are available.
      std::string why;
      for (Operation *p = loop->getParentOp(); p != grad.getOperation();
           p = p->getParentOp()) {
        auto outer = dyn_cast<LoopOp>(p);
        if (!outer && !isa<IfOp>(p))
          why = "it is inside a map, state or while loop";
        else if (outer && !hasBoundedTrips(outer, intervals))
          why = "an enclosing loop has a trip count read from data";
      }
      loop->walk([&](Operation *inner) {
        for (Value v : inner->getOperands()) {
          Block *owner = v.getParentBlock();
          if (owner == &body || loop->isAncestor(owner->getParentOp()))
            continue;
          auto arg = dyn_cast<BlockArgument>(v);
          if (!arg || !isa<LoopOp>(owner->getParentOp()))
            why = "it uses values computed in an enclosing loop";
        }
      });
      if (!why.empty()) {
        refuse(why);
        continue;
      }
    }
    // The state a segment starts from: what the loop writes, and what it
    // reads that later code overwrites (restore-on-reverse puts back only
    // what the backward program itself reads). A nested loop's "later"
    // includes the next iterations of its enclosing loops: what it reads
    // that anything else writes.
    llvm::SetVector<Value> state;
    for (const WriteInfo &w : writes)
      if (loop->isAncestor(w.op) &&
          !(topLevel && iterationLocal(loop, loopBody, w.target)))
        state.insert(w.target);
    llvm::SetVector<Value> reads;
    collectContainerReads(loop, reads);
    if (topLevel) {
      for (Operation *op = loop->getNextNode(); op; op = op->getNextNode())
        for (Value r : reads)
          if (writesContainer(op, r))
            state.insert(r);
    } else {
      for (const WriteInfo &w : writes)
        if (!loop->isAncestor(w.op) && reads.contains(w.target))
          state.insert(w.target);
    }
    // Containers of dynamic shape are snapshot in containers of their
    // sizes (their alloc's, or for an argument the caller's): the
    // checkpoint pass measures those for the sizes it is given.
    int64_t bytes = 0;
    std::string unsized;
    for (Value v : state) {
      auto type = cast<MemRefType>(v.getType());
      if (!type.hasStaticShape()) {
        auto arg = dyn_cast<BlockArgument>(v);
        auto alloc = v.getDefiningOp<AllocOp>();
        if (!(arg && arg.getOwner() == &body) &&
            !(alloc && alloc->getBlock() == &body))
          unsized = containerName(grad, v);
        c.dynamicState = true;
        continue;
      }
      std::optional<int64_t> b = checkedByteSize(type);
      if (!b) {
        unsized = containerName(grad, v);
        break;
      }
      bytes += *b;
    }
    if (!unsized.empty()) {
      refuse("its state '" + unsized + "' has no size the program knows");
      continue;
    }
    c.state.assign(state.begin(), state.end());
    c.snapshotBytes = bytes;
    double cost = 0;
    loop->walk([&](StateOp st) {
      cost += stateCost(st, intervals) *
              executions(st, intervals, opts.whileCapacity);
    });
    c.iterationCost = cost / static_cast<double>(c.trips);
    // Reaching here, a loop whose trip count is data can still be
    // checkpointed binomially (its reason stays for uniform schedules).
    c.binomialEligible = true;
  }

  auto find = [&](const std::string &name) -> LoopCandidate * {
    auto it = llvm::find_if(
        result.loops, [&](const LoopCandidate &c) { return c.name == name; });
    if (it != result.loops.end())
      return &*it;
    std::string known;
    for (const LoopCandidate &c : result.loops)
      known += (known.empty() ? "" : ", ") + c.name;
    emitError(fwd.getLoc())
        << "cannot checkpoint loop '" << name
        << "': the program has no such loop (those are: "
        << (known.empty() ? std::string("none") : known) << ")";
    return nullptr;
  };
  for (const auto &[name, counts] : opts.checkpoints) {
    LoopCandidate *it = find(name);
    if (!it)
      return failure();
    if (llvm::any_of(counts, [](int64_t c) { return c < 0; }))
      return emitError(fwd.getLoc()) << "cannot checkpoint loop '" << name
                                     << "' with a negative number of snapshots";
    if (llvm::all_of(counts, [](int64_t c) { return c == 0; }))
      continue;
    if (!it->eligible)
      return emitError(fwd.getLoc())
             << "cannot checkpoint loop '" << name << "': " << it->reason
             << (it->binomialEligible
                     ? " (a binomial schedule takes it at run time)"
                     : "");
    it->segments = loopSegments(it->trips, counts);
    it->snapshots = loopSnapshots(it->trips, it->segments);
    it->recomputedIterations =
        loopRecomputedIterations(it->trips, it->segments);
    if (!it->segments.empty())
      rb.segments[it->loop] = it->segments.back();
  }
  for (const auto &[name, count] : opts.binomial) {
    LoopCandidate *it = find(name);
    if (!it)
      return failure();
    auto refuse = [&, n = name](const Twine &why) {
      return emitError(fwd.getLoc())
             << "cannot checkpoint loop '" << n << "' binomially: " << why;
    };
    if (opts.checkpoints.count(name))
      return refuse("it is also given uniform segments");
    if (count < 1)
      return refuse("it needs at least one snapshot");
    if (!it->binomialEligible)
      return refuse(it->reason);
    // The schedule's arithmetic stays within 64 bits up to 2^40 trips
    // and 2^22 snapshots.
    if (it->trips > (int64_t(1) << 40))
      return refuse("it runs more than 2^40 iterations");
    if (count > (int64_t(1) << 22))
      return refuse("more than 2^22 snapshots");
    it->binomial = true;
    it->segments = {1};
    it->snapshots = {std::min(count, it->trips)};
    // A while loop stores only the snapshot at 0 forward (its trip count
    // is known when it ends): reversing then takes one more forward
    // sweep, at most, than Revolve's.
    it->recomputedIterations =
        it->isWhile
            ? binomialRecomputedIterations(it->trips - 1,
                                           it->snapshots.front()) +
                  it->trips - 1
            : binomialRecomputedIterations(it->trips, it->snapshots.front());
    rb.segments[it->loop] = 1;
  }
  return success();
}

namespace {
/// One comparison of a segment condition, over (iterator, bound operands).
struct IndexTest {
  AffineExpr lhs;
  arith::CmpIPredicate pred;
  AffineExpr rhs;
};
} // namespace

/// An i1 tasklet at the insertion point: all of `tests` (over `iv`, then
/// `operands`) hold.
static Value indexCondition(ReverseBuilder &rb, Location loc, Value iv,
                            ValueRange operands, ArrayRef<IndexTest> tests) {
  SmallVector<Value> ins{iv};
  llvm::append_range(ins, operands);
  auto t = rb.tasklet(
      loc, TypeRange{rb.b.getI1Type()}, ins,
      [&](OpBuilder &ob, ArrayRef<Value> args) -> SmallVector<Value> {
        Value all;
        for (const IndexTest &test : tests) {
          Value l = affine::expandAffineExpr(ob, loc, test.lhs, args, {});
          Value r = affine::expandAffineExpr(ob, loc, test.rhs, args, {});
          Value c = arith::CmpIOp::create(ob, loc, test.pred, l, r);
          all = all ? arith::AndIOp::create(ob, loc, all, c).getResult() : c;
        }
        return {all};
      });
  return t->getResult(0);
}

void mlir::sdfg::detail::openIf(OpBuilder &b, Location loc, Value cond) {
  auto ifOp = IfOp::create(b, loc, ValueRange{cond}, 1);
  Block *then = new Block();
  ifOp.getBranches().front().push_back(then);
  b.setInsertionPointToStart(then);
}

FailureOr<LoopFrame> Differentiator::loopFrame(const LoopCandidate &c,
                                               LoopOp rev) {
  Operation *loop = c.loop;
  LoopFrame f;
  // A counted loop's operands are its bounds' operands, forward and
  // backward (recomputed there). A while loop's position is its iteration
  // index; forward, the trip count is not known yet (the capacity bounds
  // it), backward it is the reversed loop's operand.
  f.n = b.getAffineDimExpr(0);
  f.lb = b.getAffineConstantExpr(0);
  f.fwdTrips = b.getAffineConstantExpr(c.trips);
  f.bwdTrips = b.getAffineDimExpr(1);
  if (auto counted = dyn_cast<LoopOp>(loop)) {
    f.step = counted.getStepValue();
    f.n = iterationExpr(counted);
    f.fwdTrips = f.bwdTrips = tripsExpr(counted);
    f.lb =
        counted.getLowerExpr().shiftDims(counted.getBoundOperands().size(), 1);
    f.fwdOperands.assign(counted.getBoundOperands().begin(),
                         counted.getBoundOperands().end());
    f.bwdOperands.assign(rev.getBoundOperands().begin(),
                         rev.getBoundOperands().end());
    f.fwdIv = counted.getIterator();
    f.fwdBody = &counted.getBody().front();
    f.fwdStart = &f.fwdBody->front();
  } else {
    auto w = cast<WhileOp>(loop);
    f.bwdOperands.push_back(rev.getBoundOperands().front());
    f.fwdIv = rb.whileLoops.lookup(w).second;
    f.fwdBody = &w.getBody().front();
    // After the tasklet that computes the iteration index.
    f.fwdStart = f.fwdIv.getDefiningOp()->getNextNode();
  }
  // Forward values -> backward ones where the re-runs and restores are:
  // the enclosing loops' iterators -> their reversed loops'.
  for (Operation *p = loop->getParentOp(); p != grad.getOperation();
       p = p->getParentOp())
    if (auto outer = dyn_cast<LoopOp>(p))
      if (auto outerRev =
              dyn_cast_or_null<LoopOp>(rb.reversedLoops.lookup(outer)))
        f.toBwd.map(outer.getIterator(), outerRev.getIterator());
  // Where a nested loop's executions keep their snapshots apart: the slot
  // its tapes would have (the enclosing loops' positions; a checkpointed
  // enclosing loop's modulo its segment).
  if (failed(makeSlot(loop, intervals, rb, f.outerSlot, f.outerSizes,
                      [&](LoopOp l) { return dataLoopIndex(l); })))
    return failure();
  for (Value v : f.outerSlot.operands)
    f.bwdSlotOperands.push_back(f.toBwd.lookupOrDefault(v));
  return f;
}

bool mlir::sdfg::detail::parallelCopy(Value container) {
  // Small copies run sequentially: a parallel map's fork and barrier
  // would cost more than the copy (the schedule policy's threshold). One
  // of dynamic size decides when it runs (the lowering's run-time
  // threshold).
  auto type = cast<MemRefType>(container.getType());
  return !type.hasStaticShape() ||
         scheduleForIterations(type.getNumElements()) !=
             ScheduleKind::sequential;
}

LogicalResult Differentiator::checkpointLoop(LoopCandidate &c) {
  Operation *loop = c.loop;
  auto rev = dyn_cast_or_null<LoopOp>(rb.reversedLoops.lookup(loop));
  if (!rev) {
    // Nothing in the loop is reversed: no tapes to save.
    c.segments.clear();
    c.snapshots.clear();
    c.recomputedIterations = 0;
    return success();
  }
  Location loc = loop->getLoc();
  unsigned levels = c.segments.size();
  FailureOr<LoopFrame> frame = loopFrame(c, rev);
  if (failed(frame))
    return failure();
  int64_t s = frame->step;
  AffineExpr n = frame->n, lb = frame->lb;
  AffineExpr fwdTrips = frame->fwdTrips, bwdTrips = frame->bwdTrips;
  ArrayRef<Value> fwdOperands = frame->fwdOperands,
                  bwdOperands = frame->bwdOperands;
  Value fwdIv = frame->fwdIv;
  const IRMapping &toBwd = frame->toBwd;
  const TapeSlot &outerSlot = frame->outerSlot;
  ArrayRef<int64_t> outerSizes = frame->outerSizes;
  ArrayRef<Value> bwdSlotOperands = frame->bwdSlotOperands;
  auto constant = [&](int64_t v) { return b.getAffineConstantExpr(v); };
  // The length of the segments level `l` splits (level 0: the loop).
  auto parentOf = [&](unsigned l) {
    return l == 0 ? c.trips : c.segments[l - 1];
  };
  // Position of iteration n in its level-l parent segment (segments of a
  // level start at multiples of their length within their parent).
  auto posIn = [&](AffineExpr e, unsigned l) {
    for (unsigned j = 0; j < l; ++j)
      e = e % c.segments[j];
    return e;
  };

  // The snapshots: per level, one row per segment but the last of a
  // parent.
  SmallVector<SmallVector<Value>> snaps(levels);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&grad.getBody().front());
    for (unsigned l = 0; l < levels; ++l)
      for (Value v : c.state) {
        SmallVector<int64_t> leading(outerSizes);
        leading.push_back(c.snapshots[l]);
        std::string name = containerName(grad, v) + ".snapshot." + c.name;
        if (levels > 1)
          name += "." + std::to_string(l + 1);
        snaps[l].push_back(
            rb.allocateLike(loc, v, b.getStringAttr(name), leading));
      }
  }
  // Copies every state container between itself and its level-l snapshot
  // row for iteration `iv`, in a state at the insertion point.
  auto copyState = [&](Value iv, ValueRange ivOperands, ValueRange slotOps,
                       unsigned l, bool save, const std::string &label) {
    unsigned nb = ivOperands.size() + slotOps.size();
    auto st = StateOp::create(b, loc, label);
    OpBuilder::InsertionGuard guard(b);
    AffineExpr rowE = posIn(n, l).floorDiv(c.segments[l]);
    for (auto [v, snap] : llvm::zip(c.state, snaps[l])) {
      b.setInsertionPointToEnd(&st.getBody().front());
      SmallVector<Value> params = rb.openContainerMap(loc, v, parallelCopy(v));
      SmallVector<Value> operands{iv};
      llvm::append_range(operands, ivOperands);
      llvm::append_range(operands, slotOps);
      llvm::append_range(operands, params);
      SmallVector<AffineExpr> row, elem;
      for (AffineExpr e : outerSlot.exprs)
        row.push_back(e.shiftDims(slotOps.size(), 1 + ivOperands.size()));
      row.push_back(rowE);
      for (unsigned d = 0; d < params.size(); ++d) {
        row.push_back(b.getAffineDimExpr(1 + nb + d));
        elem.push_back(b.getAffineDimExpr(1 + nb + d));
      }
      unsigned dims = 1 + nb + params.size();
      AffineMap rowMap = AffineMap::get(dims, 0, row, ctx);
      AffineMap elemMap = AffineMap::get(dims, 0, elem, ctx);
      if (save)
        rb.store(loc, rb.load(loc, v, elemMap, operands), snap, rowMap,
                 operands, false);
      else
        rb.store(loc, rb.load(loc, snap, rowMap, operands), v, elemMap,
                 operands, false);
    }
  };
  // At the start of an iteration (iterator `iv`) that runs forward: the
  // snapshot of every level from `from` on whose segment starts here,
  // unless it is the last of its parent (never restored: the re-run of
  // the parent ends with it and leaves its tapes).
  auto emitSaves = [&](Value iv, ValueRange ivOperands, ValueRange slotOps,
                       AffineExpr trips, unsigned from) {
    for (unsigned l = from; l < levels; ++l) {
      OpBuilder::InsertionGuard guard(b);
      int64_t k = c.segments[l];
      // Segments of a level start at multiples of k within their parent.
      SmallVector<IndexTest> tests = {
          {posIn(n, l) % k, arith::CmpIPredicate::eq, constant(0)},
          {n + k, arith::CmpIPredicate::slt, trips}};
      if (l > 0)
        tests.push_back({posIn(n, l) + k, arith::CmpIPredicate::slt,
                         constant(parentOf(l))});
      openIf(b, loc, indexCondition(rb, loc, iv, ivOperands, tests));
      std::string label = "snapshot of " + c.name;
      if (levels > 1)
        label += " (level " + std::to_string(l + 1) + ")";
      copyState(iv, ivOperands, slotOps, l, /*save=*/true, label);
    }
  };

  SmallVector<Operation *> original;
  for (Operation &op : *frame->fwdBody)
    original.push_back(&op);

  // Backward: before reversing the last iteration of a segment whose tapes
  // are gone (a segment of the coarsest level l that ends here and is not
  // the last of its parent), restore the segment's start from its level-l
  // snapshot and run it forward again, taping, and saving the finer
  // levels' snapshots on the way.
  {
    OpBuilder::InsertionGuard guard(b);
    Value riv = rev.getIterator();
    b.setInsertionPointToStart(&rev.getBody().front());
    for (unsigned l = 0; l < levels; ++l) {
      OpBuilder::InsertionGuard levelGuard(b);
      int64_t k = c.segments[l];
      AffineExpr next = n + 1;
      SmallVector<IndexTest> tests = {
          {posIn(next, l) % k, arith::CmpIPredicate::eq, constant(0)},
          {next, arith::CmpIPredicate::slt, bwdTrips}};
      if (l > 0)
        tests.push_back(
            {posIn(next, l), arith::CmpIPredicate::ne, constant(0)});
      openIf(b, loc, indexCondition(rb, loc, riv, bwdOperands, tests));
      std::string label = "restore snapshot of " + c.name;
      if (levels > 1)
        label += " (level " + std::to_string(l + 1) + ")";
      copyState(riv, bwdOperands, bwdSlotOperands, l, /*save=*/false, label);
      // From the segment's first iteration up to this one, forwards.
      AffineExpr iv = b.getAffineDimExpr(0);
      AffineMap rerunBounds =
          AffineMap::get(1 + bwdOperands.size(), 0,
                         {lb + (n - posIn(n, l) % k) * s, iv + s}, ctx);
      SmallVector<Value> operands{riv};
      llvm::append_range(operands, bwdOperands);
      auto rerun =
          LoopOp::create(b, loc, operands, AffineMapAttr::get(rerunBounds),
                         b.getI64IntegerAttr(s));
      Block *body = new Block();
      rerun.getBody().push_back(body);
      Value rerunIv = body->addArgument(b.getIndexType(), loc);
      IRMapping m = toBwd;
      // A while body computes its iteration index from its counter,
      // which the snapshot restored.
      if (auto counted = dyn_cast<LoopOp>(loop))
        m.map(counted.getIterator(), rerunIv);
      b.setInsertionPointToStart(body);
      emitSaves(rerunIv, bwdOperands, bwdSlotOperands, bwdTrips, l + 1);
      for (Operation *op : original)
        b.clone(*op, m);
    }
  }
  // Forward: the snapshots of every level.
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(frame->fwdStart);
    emitSaves(fwdIv, fwdOperands, outerSlot.operands, fwdTrips, 0);
  }
  return success();
}

LogicalResult Differentiator::checkpointLoops() {
  // Inner loops first: an enclosing loop's re-runs copy its body with the
  // inner loop's snapshot saves in it. (Loops are listed outer before
  // inner, while loops last; while loops are top-level.)
  for (LoopCandidate &c : llvm::reverse(result.loops))
    if (!c.segments.empty() &&
        failed(c.binomial ? checkpointLoopBinomial(c) : checkpointLoop(c)))
      return failure();
  return success();
}
