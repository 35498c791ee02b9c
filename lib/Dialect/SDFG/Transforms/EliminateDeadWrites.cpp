//===- EliminateDeadWrites.cpp - Writes that no one reads -----------------===//
//
// --sdfg-eliminate-dead-writes: the gradient programs of sdfg-autodiff zero
// every gradient container before the backward program accumulates into
// it, and clear each consumed gradient after its last use; for the many
// containers whose first backward write covers every element once, and for
// the clears of containers never read again, those are whole sweeps over
// memory for nothing. Likewise the forward work whose results only
// discardable containers (transients, results the caller does not want)
// receive. The pass works on the program's top-level order (ops of
// top-level states, and top-level control flow as a whole), where the
// order of accesses is plain; inside loops it only merges a clear with the
// accumulation that follows it in the same block, and removes the writes
// to transients whose values reach nothing live (position aside).
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_ELIMINATEDEADWRITES
#include "sdfg/Dialect/SDFG/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// The program's top-level order: each op of a top-level state, and each
/// top-level op that is not a state (control flow) as one step.
SmallVector<Operation *> topLevelSteps(SDFGOp sdfg) {
  SmallVector<Operation *> steps;
  for (Operation &op : sdfg.getBody().front()) {
    if (isa<AllocOp>(op))
      continue;
    if (auto state = dyn_cast<StateOp>(op)) {
      for (Operation &inner : state.getBody().front())
        steps.push_back(&inner);
      continue;
    }
    steps.push_back(&op);
  }
  return steps;
}

/// Whether `op` uses `c` only as what it writes: a store, copy or library
/// op into `c` that does not also read it as an input. What a wcr store or
/// an accumulating op reads of `c` flows only into `c` itself.
bool onlyWrites(Operation *op, Value c) {
  return getWrittenContainer(op) == c && llvm::count(op->getOperands(), c) == 1;
}

/// Whether `step` (or an op nested in it) reads `c` into anything but `c`.
bool readsIn(Operation *step, Value c) {
  bool found = false;
  step->walk([&](Operation *op) {
    if (found)
      return WalkResult::interrupt();
    if (llvm::is_contained(op->getOperands(), c) && !onlyWrites(op, c))
      found = true;
    return WalkResult::advance();
  });
  return found;
}

bool accessesIn(Operation *step, Value c) {
  bool found = false;
  step->walk([&](Operation *op) {
    found |= llvm::is_contained(op->getOperands(), c);
  });
  return found;
}

/// +0 (-0 would not do: adding it is not the identity on -0).
bool isPositiveZero(TypedAttr a) {
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValue().isPosZero();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getValue().isZero();
  return false;
}

bool isZeroTasklet(Value v) { return isPositiveZero(getTaskletConstant(v)); }

/// For a map whose range is [0, extent) with step 1 in every dimension,
/// the extents; otherwise nothing.
std::optional<SmallVector<int64_t>> zeroBasedExtents(MapOp map) {
  SmallVector<int64_t> extents;
  for (auto [lb, ub, step] :
       llvm::zip_equal(map.getLowerBounds().getResults(),
                       map.getUpperBounds().getResults(), map.getSteps())) {
    auto l = dyn_cast<AffineConstantExpr>(lb);
    auto u = dyn_cast<AffineConstantExpr>(ub);
    if (!l || !u || l.getValue() != 0 || step != 1)
      return std::nullopt;
    extents.push_back(u.getValue());
  }
  return extents;
}

/// Whether `store`, directly in `map`'s body, writes every element of its
/// container exactly once over the map's range: its indices are the map's
/// parameters in some order, each ranging over the whole dimension.
bool coversOnce(MapOp map, StoreOp store) {
  auto type = cast<MemRefType>(store.getMemref().getType());
  std::optional<SmallVector<int64_t>> extents = zeroBasedExtents(map);
  if (!extents || !type.hasStaticShape() ||
      type.getRank() != static_cast<int64_t>(map.getNumParams()))
    return false;
  AffineMap m = store.getMap();
  llvm::SmallBitVector seen(map.getNumParams());
  for (auto [d, e] : llvm::enumerate(m.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim)
      return false;
    auto param = dyn_cast<BlockArgument>(store.getIndices()[dim.getPosition()]);
    if (!param || param.getOwner() != &map.getBody().front() ||
        seen.test(param.getArgNumber()) ||
        (*extents)[param.getArgNumber()] != type.getDimSize(d))
      return false;
    seen.set(param.getArgNumber());
  }
  return seen.all();
}

/// A fill of a whole container with a constant: a map over its shape
/// storing a constant tasklet at the identity index, or a store of one
/// into a 0-d container.
struct Fill {
  Value container;
  TypedAttr value;
};

std::optional<Fill> constantFill(Operation *step) {
  if (auto store = dyn_cast<StoreOp>(step)) {
    TypedAttr value = getTaskletConstant(store.getValue());
    if (store.getWcr() || store.getMap().getNumResults() != 0 || !value)
      return std::nullopt;
    return Fill{store.getMemref(), value};
  }
  auto map = dyn_cast<MapOp>(step);
  if (!map)
    return std::nullopt;
  StoreOp store;
  for (Operation &op : map.getBody().front()) {
    if (auto s = dyn_cast<StoreOp>(op)) {
      if (store)
        return std::nullopt;
      store = s;
    } else if (!isa<TaskletOp>(op)) {
      return std::nullopt;
    }
  }
  if (!store || store.getWcr() || !coversOnce(map, store))
    return std::nullopt;
  TypedAttr value = getTaskletConstant(store.getValue());
  if (!value)
    return std::nullopt;
  return Fill{store.getMemref(), value};
}

/// Replaces the read `load` by the constant `value`.
void readConstant(LoadOp load, TypedAttr value) {
  OpBuilder b(load);
  load.getResult().replaceAllUsesWith(
      createConstantTasklet(b, load.getLoc(), value));
  load.erase();
}

/// The loads and stores of `c` in `map`'s body, in block order, when they
/// are its only uses there and all sit directly in the body.
struct BodyAccesses {
  SmallVector<LoadOp> loads;
  SmallVector<StoreOp> stores;
};

std::optional<BodyAccesses> directAccesses(MapOp map, Value c) {
  BodyAccesses a;
  bool direct = true;
  map.getBody().walk([&](Operation *op) {
    if (!llvm::is_contained(op->getOperands(), c))
      return;
    if (op->getParentOp() != map.getOperation())
      direct = false;
    else if (auto l = dyn_cast<LoadOp>(op))
      a.loads.push_back(l);
    else if (auto s = dyn_cast<StoreOp>(op))
      a.stores.push_back(s);
    else
      direct = false;
  });
  if (!direct)
    return std::nullopt;
  return a;
}

/// `c` holds `fill` everywhere before `map` runs. If the map writes each
/// element of `c` exactly once (one store, directly in its body, covering
/// it) and reads `c` only at that element before writing it, the reads
/// become the constant (and an accumulating store into zeros a plain one):
/// the fill is no longer needed. Returns whether it did so.
bool foldIntoMap(MapOp map, Value c, TypedAttr fill) {
  std::optional<BodyAccesses> accesses = directAccesses(map, c);
  if (!accesses || accesses->stores.size() != 1)
    return false;
  StoreOp store = accesses->stores.front();
  if (!coversOnce(map, store))
    return false;
  if (store.getWcr() &&
      (*store.getWcr() != WCRKind::add || !isPositiveZero(fill)))
    return false;
  for (LoadOp l : accesses->loads)
    if (!l->isBeforeInBlock(store) || l.getMap() != store.getMap() ||
        l.getIndices() != store.getIndices())
      return false;
  for (LoadOp l : accesses->loads)
    readConstant(l, fill);
  store.removeWcrAttr();
  return true;
}

/// `c` holds zeros before the library op `op` runs; if `op` adds its result
/// to `c`, it may write it instead. Returns whether it did so.
bool foldIntoLibraryOp(Operation *op, Value c) {
  auto lib = dyn_cast<LibraryOpInterface>(op);
  if (!lib || lib.getOutputContainer() != c || !lib.accumulatesIntoOutput())
    return false;
  // Reading `c` as an input too would see the zeros.
  unsigned uses = llvm::count(op->getOperands(), c);
  if (uses != 1)
    return false;
  if (auto r = dyn_cast<ReduceOp>(op); r && r.getKind() != ReduceKind::add)
    return false;
  op->removeAttr("accumulate");
  return true;
}

/// After a constant fill, the ops that only read the container read the
/// constant, until one writes it; if that one writes every element (see
/// foldIntoMap and, for zeros, foldIntoLibraryOp), the fill goes. A fill
/// whose reads all became constants dies in eraseDeadWrites if nothing
/// else reads the container (the autodiff's unit seed).
bool foldFills(SDFGOp sdfg) {
  bool changed = false;
  SmallVector<Operation *> steps = topLevelSteps(sdfg);
  for (size_t i = 0; i < steps.size(); ++i) {
    std::optional<Fill> fill = steps[i] ? constantFill(steps[i]) : std::nullopt;
    if (!fill)
      continue;
    Value c = fill->container;
    for (size_t j = i + 1; j < steps.size(); ++j) {
      Operation *next = steps[j];
      if (!next || !accessesIn(next, c))
        continue;
      if (!writesContainer(next, c)) {
        // Loads read the constant; any other reader (a library op, a
        // copy) needs the filled container, so the fill stays.
        SmallVector<LoadOp> loads;
        bool otherReaders = false;
        next->walk([&](Operation *op) {
          if (!llvm::is_contained(op->getOperands(), c))
            return;
          if (auto l = dyn_cast<LoadOp>(op))
            loads.push_back(l);
          else
            otherReaders = true;
        });
        if (otherReaders)
          break;
        if (isa<LoadOp>(next))
          steps[j] = nullptr;
        for (LoadOp l : loads)
          readConstant(l, fill->value);
        changed |= !loads.empty();
        continue;
      }
      bool folded = false;
      if (auto store = dyn_cast<StoreOp>(next)) {
        if (store.getMemref() == c && store.getMap().getNumResults() == 0 &&
            (!store.getWcr() || (*store.getWcr() == WCRKind::add &&
                                 isPositiveZero(fill->value)))) {
          store.removeWcrAttr();
          folded = true;
        }
      } else if (auto map = dyn_cast<MapOp>(next)) {
        folded = foldIntoMap(map, c, fill->value);
      } else if (isPositiveZero(fill->value)) {
        folded = foldIntoLibraryOp(next, c);
      }
      if (folded) {
        // A state-level fill's tasklet is a step of its own: left to
        // eraseLeftovers.
        steps[i]->erase();
        steps[i] = nullptr;
        changed = true;
      }
      break;
    }
  }
  return changed;
}

/// Containers whose values at the end of the program no one reads:
/// transients, and arguments marked `sdfg.discardable` (results the caller
/// does not want, see sdfg-autodiff's discard-results).
SmallVector<Value> discardableContainers(SDFGOp sdfg) {
  SmallVector<Value> out;
  for (BlockArgument arg : sdfg.getBody().getArguments())
    if (sdfg.getArgAttr(arg.getArgNumber(), "sdfg.discardable"))
      out.push_back(arg);
  for (Operation &op : sdfg.getBody().front())
    if (auto alloc = dyn_cast<AllocOp>(op))
      out.push_back(alloc.getResult());
  return out;
}

/// Erases writes to discardable containers that nothing reads afterwards:
/// in steps after which no step reads the container, every write in a step
/// that does not read it, and in a map that does, stores directly in its
/// body that follow every read of it (a map's iterations see only their
/// own writes).
bool eraseDeadWrites(SDFGOp sdfg) {
  SmallVector<Operation *> steps = topLevelSteps(sdfg);
  SmallVector<Operation *> dead;
  for (Value t : discardableContainers(sdfg)) {
    for (Operation *step : llvm::reverse(steps)) {
      if (!accessesIn(step, t))
        continue;
      if (!readsIn(step, t)) {
        step->walk([&](Operation *inner) {
          if (getWrittenContainer(inner) == t)
            dead.push_back(inner);
        });
        continue;
      }
      // The last step that reads `t`: only its trailing stores can go.
      if (auto map = dyn_cast<MapOp>(step))
        if (std::optional<BodyAccesses> accesses = directAccesses(map, t))
          for (StoreOp s : accesses->stores)
            if (accesses->loads.empty() ||
                accesses->loads.back()->isBeforeInBlock(s))
              dead.push_back(s);
      break;
    }
  }
  if (dead.empty())
    return false;
  for (Operation *op : dead)
    op->erase();
  return true;
}

/// Where the values that `use` reads of its container flow: the containers
/// that receive them (through tasklets, and loads indexed by them), added
/// to `into`. False when they reach anything else (a loop bound, a
/// condition, an op whose effect is not one written container).
bool flowTargets(OpOperand &use, SmallPtrSetImpl<Value> &into) {
  Operation *user = use.getOwner();
  if (!isa<LoadOp>(user)) {
    // A store writes its container (a wcr store reads it into itself); a
    // copy or library op reads it into the one container it writes.
    Value written = getWrittenContainer(user);
    if (!written)
      return false;
    into.insert(written);
    return true;
  }
  SmallVector<Value> values{user->getResult(0)};
  DenseSet<Value> seen;
  while (!values.empty()) {
    Value v = values.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (Operation *u : v.getUsers()) {
      if (isa<TaskletOp, LoadOp>(u)) {
        llvm::append_range(values, u->getResults());
        continue;
      }
      auto store = dyn_cast<StoreOp>(u);
      if (!store)
        return false;
      into.insert(store.getMemref());
    }
  }
  return true;
}

/// Erases every write into the discardable containers whose values reach
/// only themselves and each other, wherever they are read: a transient
/// accumulated in a loop and never read after it (go_fast's trace, once
/// grad drops the returned value). eraseDeadWrites cannot see these: the
/// loop reads the container. Found as the complement of the containers
/// whose values reach a non-discardable one, or anything else.
bool eraseDeadContainers(SDFGOp sdfg) {
  SmallVector<Value> candidates = discardableContainers(sdfg);
  DenseMap<Value, SmallPtrSet<Value, 4>> targets;
  DenseSet<Value> live;
  for (Value c : candidates) {
    SmallPtrSet<Value, 4> &into = targets[c];
    for (OpOperand &use : c.getUses())
      if (!flowTargets(use, into)) {
        live.insert(c);
        break;
      }
  }
  DenseSet<Value> discardable(candidates.begin(), candidates.end());
  bool grew = true;
  while (grew) {
    grew = false;
    for (Value c : candidates) {
      if (live.contains(c))
        continue;
      if (llvm::any_of(targets[c], [&](Value t) {
            return !discardable.contains(t) || live.contains(t);
          })) {
        live.insert(c);
        grew = true;
      }
    }
  }
  // A set: an op using the container twice (an in-place solve, a copy
  // within it) is one of its users twice.
  llvm::SetVector<Operation *> dead;
  for (Value c : candidates)
    if (!live.contains(c))
      for (Operation *user : c.getUsers())
        if (!isa<LoadOp>(user) && getWrittenContainer(user) == c)
          dead.insert(user);
  for (Operation *op : dead)
    op->erase();
  return !dead.empty();
}

/// A store of zero into an element that a later store of the same block
/// adds to, with nothing in between touching the container: the later
/// store can write instead (the autodiff clears a consumed gradient and
/// then accumulates the next one into it). Anywhere, loops included: it is
/// local to one execution of the block.
bool foldClearThenAccumulate(SDFGOp sdfg) {
  SmallVector<StoreOp> clears;
  sdfg.walk([&](StoreOp s) {
    if (!s.getWcr() && isZeroTasklet(s.getValue()))
      clears.push_back(s);
  });
  bool changed = false;
  for (StoreOp clear : clears) {
    Value c = clear.getMemref();
    for (Operation *op = clear->getNextNode(); op; op = op->getNextNode()) {
      if (!accessesIn(op, c))
        continue;
      auto add = dyn_cast<StoreOp>(op);
      if (add && add.getMemref() == c && add.getWcr() &&
          *add.getWcr() == WCRKind::add && add.getMap() == clear.getMap() &&
          add.getIndices() == clear.getIndices()) {
        add.removeWcrAttr();
        clear.erase();
        changed = true;
      }
      break;
    }
  }
  return changed;
}

/// Drops the results of a tasklet that nobody uses, the computations only
/// they needed, and then the inputs those read. Reversed tasklets compute
/// the adjoints of every operand and recompute the forward value; their
/// loads would keep dead writes alive (gemm's gradient: d beta reads C, so
/// C's forward value, so the forward GEMM). Returns whether it changed
/// anything; `tasklet` may be replaced.
bool trimTasklet(TaskletOp tasklet) {
  bool changed = false;
  // A tasklet with no used result at all goes as a whole (eraseLeftovers).
  auto isUnused = [](Value r) { return r.use_empty(); };
  if (llvm::any_of(tasklet->getResults(), isUnused) &&
      !llvm::all_of(tasklet->getResults(), isUnused)) {
    SmallVector<Value> used;
    SmallVector<Type> types;
    for (Value r : tasklet->getResults())
      if (!r.use_empty()) {
        used.push_back(r);
        types.push_back(r.getType());
      }
    OpBuilder b(tasklet);
    auto trimmed =
        TaskletOp::create(b, tasklet.getLoc(), types, tasklet.getInputs());
    trimmed.getBody().takeBody(tasklet.getBody());
    auto yield = cast<YieldOp>(trimmed.getBody().front().getTerminator());
    SmallVector<Value> kept;
    for (auto [r, v] :
         llvm::zip_equal(tasklet->getResults(), yield.getValues()))
      if (!r.use_empty())
        kept.push_back(v);
    yield->setOperands(kept);
    for (auto [old, now] : llvm::zip_equal(used, trimmed.getResults()))
      old.replaceAllUsesWith(now);
    tasklet.erase();
    tasklet = trimmed;
    changed = true;
  }
  Block &body = tasklet.getBody().front();
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op)) {
      op->erase();
      changed = true;
    }
  for (int i = body.getNumArguments() - 1; i >= 0; --i)
    if (body.getArgument(i).use_empty()) {
      body.eraseArgument(i);
      tasklet->eraseOperand(i);
      changed = true;
    }
  return changed;
}

/// Removes what the erasures left without purpose: unused tasklet
/// computations and inputs, unused tasklets and loads, maps and states with
/// empty bodies, and allocations no one uses. (Loops left empty stay: their
/// bounds may come from data, and an empty loop costs nothing.)
void eraseLeftovers(SDFGOp sdfg) {
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<TaskletOp> tasklets;
    sdfg.walk([&](TaskletOp t) { tasklets.push_back(t); });
    for (TaskletOp t : tasklets)
      changed |= trimTasklet(t);
    SmallVector<Operation *> erase;
    sdfg.walk([&](Operation *op) {
      if (isa<TaskletOp, LoadOp, AllocOp>(op) && op->use_empty())
        erase.push_back(op);
      else if (isa<MapOp, StateOp, LoopOp>(op) &&
               op->getRegion(0).front().empty())
        erase.push_back(op);
    });
    // Post-order: inner ops come first, so erase outermost last.
    for (Operation *op : erase)
      op->erase();
    changed |= !erase.empty();
  }
}

/// A map that copies one container whole into another of the same type:
/// its body is one load and one store (no wcr) of the same element, the
/// store covering its container once. Returns (source, target).
std::optional<std::pair<Value, Value>> wholeCopy(MapOp map) {
  Block &body = map.getBody().front();
  if (!llvm::hasNItems(body, 2))
    return std::nullopt;
  auto load = dyn_cast<LoadOp>(body.front());
  auto store = dyn_cast<StoreOp>(body.back());
  if (!load || !store || store.getValue() != load.getResult() ||
      store.getWcr() ||
      load.getMemref().getType() != store.getMemref().getType() ||
      load.getMap() != store.getMap() ||
      load.getIndices() != store.getIndices() || !coversOnce(map, store))
    return std::nullopt;
  return std::make_pair(load.getMemref(), store.getMemref());
}

/// A transient whose value is copied whole into another container (a
/// returned result), and that no step touches after the copy: when no step
/// touches the target from the transient's first access to the copy, the
/// transient's writers write the target directly and the copy goes.
bool forwardCopies(SDFGOp sdfg) {
  SmallVector<Operation *> steps = topLevelSteps(sdfg);
  for (auto [i, step] : llvm::enumerate(steps)) {
    auto map = dyn_cast<MapOp>(step);
    std::optional<std::pair<Value, Value>> copy;
    if (map)
      copy = wholeCopy(map);
    if (!copy)
      continue;
    Value src = copy->first, dst = copy->second;
    auto alloc = src.getDefiningOp<AllocOp>();
    if (!alloc || src == dst)
      continue;
    ArrayRef<Operation *> before = ArrayRef(steps).take_front(i);
    ArrayRef<Operation *> after = ArrayRef(steps).drop_front(i + 1);
    if (llvm::any_of(after, [&](Operation *s) { return accessesIn(s, src); }))
      continue;
    const auto *first =
        llvm::find_if(before, [&](Operation *s) { return accessesIn(s, src); });
    if (std::any_of(first, before.end(),
                    [&](Operation *s) { return accessesIn(s, dst); }))
      continue;
    map.erase();
    src.replaceAllUsesWith(dst);
    alloc.erase();
    return true;
  }
  return false;
}

struct EliminateDeadWritesPass
    : public sdfg::impl::EliminateDeadWritesBase<EliminateDeadWritesPass> {
  void runOnOperation() override {
    getOperation().walk([](SDFGOp sdfg) {
      // Reversed tasklets recompute forward values their adjoints may not
      // need (a linear stencil's); trimmed first, their loads no longer
      // keep the forward sweep that wrote those values alive.
      eraseLeftovers(sdfg);
      bool folded = foldFills(sdfg);
      folded |= foldClearThenAccumulate(sdfg);
      while (forwardCopies(sdfg))
        folded = true;
      if (folded)
        eraseLeftovers(sdfg);
      // Erasing the last reader of one container can make the writes of
      // the containers it read dead in turn.
      while (eraseDeadWrites(sdfg) || eraseDeadContainers(sdfg))
        eraseLeftovers(sdfg);
    });
  }
};

} // namespace
