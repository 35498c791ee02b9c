//===- Recompute.cpp - Recomputing forwarded transients -------------------===//
//
// Which forwarded transients the backward program can recompute by
// re-running their writers instead of storing them, at what cost; the
// choice the options make; and the re-run writers in the backward program.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Static cost of one execution of a state: arithmetic operations plus
/// elements loaded and stored (the paper's FLOPs-and-bytes estimate), each
/// counted once per iteration of the maps around it.
double mlir::sdfg::detail::stateCost(Operation *state, Intervals &iv) {
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
double mlir::sdfg::detail::executions(Operation *op, Intervals &iv,
                                      int64_t whileCapacity) {
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

namespace {

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

} // namespace

bool mlir::sdfg::detail::firstAccessCovers(StateOp state, Value z) {
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

namespace {

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

} // namespace

/// Describes every forwarded transient: whether the backward program can
/// recompute it by re-running its writers, and at what cost.
LogicalResult mlir::sdfg::detail::analyseCandidates(
    SDFGOp grad, ArrayRef<WriteInfo> writes,
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

/// Removes from a recomputed copy of a state the writes into tapes and the
/// loads, tasklets and maps left without a purpose.
void mlir::sdfg::detail::dropTapeWrites(Operation *clone,
                                        const llvm::DenseSet<Value> &tapes) {
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

// --- Forwarded transients: each may be recomputed instead of stored.
LogicalResult Differentiator::chooseRecomputed() {
  if (failed(analyseCandidates(grad, writes, needed, readersOf, forced,
                               counters, intervals, opts.whileCapacity,
                               result.candidates)))
    return failure();
  for (auto [k, c] : llvm::enumerate(result.candidates))
    candidateIndex[c.container] = k;
  // A checkpointed loop re-runs its segments with the forward containers;
  // what it writes is not recomputed on its own as well.
  for (RecomputeCandidate &c : result.candidates)
    for (const LoopCandidate &l : result.loops)
      if (!l.segments.empty() && llvm::any_of(c.writers, [&](auto &w) {
            return l.loop->isAncestor(w.first);
          })) {
        c.eligible = false;
        c.reason =
            "it is written in loop '" + l.name + "', which is checkpointed";
      }
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
