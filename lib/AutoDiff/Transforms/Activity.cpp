//===- Activity.cpp - Active and needed containers ------------------------===//
//
// Activity analysis (the Critical Computation Subgraph): which containers
// depend on the wrt inputs and influence the output, and which of their
// values the backward program reads (hence must be stored or recomputed).
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"

#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Containers loaded by the loads that compute `v` (through tasklets).
void mlir::sdfg::detail::collectLoadedContainers(Value v,
                                                 llvm::SetVector<Value> &out) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return;
  if (auto load = dyn_cast<LoadOp>(def)) {
    out.insert(load.getMemref());
    for (Value i : load.getIndices())
      collectLoadedContainers(i, out);
    return;
  }
  if (isa<TaskletOp, BroadcastExtentOp, CheckIndexOp>(def))
    for (Value in : def->getOperands())
      collectLoadedContainers(in, out);
}

/// Whether `v` (a scalar in a state) carries a gradient: a float that
/// depends on an active container. The values read only to differentiate
/// with respect to others (`beta` in `C * beta` with only C active) need
/// not be kept for the backward program.
bool mlir::sdfg::detail::carriesGradient(Value v,
                                         const llvm::SetVector<Value> &active,
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
void mlir::sdfg::detail::collectNeededReads(
    Value v, bool valueNeeded, const llvm::SetVector<Value> &active,
    llvm::DenseMap<Value, bool> &memo, llvm::SetVector<Value> &out) {
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

/// Whether `v` is computed from array data (a load, through tasklets).
bool mlir::sdfg::detail::dependsOnData(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<LoadOp>(def))
    return true;
  if (isa<TaskletOp, BroadcastExtentOp, CheckIndexOp>(def))
    return llvm::any_of(def->getOperands(), dependsOnData);
  return false;
}

SmallVector<WriteInfo> mlir::sdfg::detail::summarize(SDFGOp op) {
  SmallVector<WriteInfo> writes;
  op.walk([&](Operation *inner) {
    WriteInfo w{inner, {}, {}, false};
    llvm::SetVector<Value> reads;
    if (auto s = dyn_cast<StoreOp>(inner)) {
      w.target = s.getMemref();
      collectLoadedContainers(s.getValue(), reads);
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

bool mlir::sdfg::detail::stopsGradient(Value container) {
  auto alloc = container.getDefiningOp<AllocOp>();
  return alloc && alloc->hasAttr(kStopGradientAttr);
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
      if (dep && !stopsGradient(w.target))
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
