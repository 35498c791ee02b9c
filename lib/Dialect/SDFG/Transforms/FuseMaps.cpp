//===- FuseMaps.cpp - One sweep instead of two ----------------------------===//
//
// --sdfg-fuse-maps: merges two maps of a state over the same range into one
// when every element one of them writes is touched by the other only in the
// same iteration. Gradients are full of such pairs: atax's backward program
// writes d_A with one rank-1 update and adds the second in a map of its
// own, a second sweep over 40 MB. Only flat maps (loads, tasklets, plain
// stores) are fused: maps with wcr stores keep their own accumulation
// schemes (atomics, colour sweeps, gathers).
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_FUSEMAPS
#include "sdfg/Dialect/SDFG/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// Loads, tasklets and plain stores only.
bool isFlat(MapOp map) {
  for (Operation &op : map.getBody().front()) {
    if (isa<LoadOp, TaskletOp>(op))
      continue;
    auto store = dyn_cast<StoreOp>(op);
    if (!store || store.getWcr())
      return false;
  }
  return true;
}

bool sameRange(MapOp a, MapOp b) {
  return a.getLowerBounds() == b.getLowerBounds() &&
         a.getUpperBounds() == b.getUpperBounds() &&
         a.getSteps() == b.getSteps() && a.getSchedule() == b.getSchedule() &&
         a.getRangeOperands() == b.getRangeOperands() && !a.getDisjointWcr() &&
         !b.getDisjointWcr();
}

/// One element access of a flat map: the container, whether it writes, and
/// the element as a function of the iteration (the index map, with each
/// index operand a parameter position or an outside value).
struct Access {
  Value container;
  bool write;
  AffineMap map;
  SmallVector<std::pair<int, Value>> indices; // (param position or -1, value)
  bool operator==(const Access &o) const {
    return map == o.map && indices == o.indices;
  }
};

SmallVector<Access> accessesOf(MapOp map) {
  Block &body = map.getBody().front();
  auto index = [&](ValueRange operands) {
    SmallVector<std::pair<int, Value>> out;
    for (Value v : operands) {
      auto arg = dyn_cast<BlockArgument>(v);
      if (arg && arg.getOwner() == &body)
        out.push_back({static_cast<int>(arg.getArgNumber()), Value()});
      else
        out.push_back({-1, v});
    }
    return out;
  };
  SmallVector<Access> out;
  for (Operation &op : body) {
    if (auto l = dyn_cast<LoadOp>(op))
      out.push_back({l.getMemref(), false, l.getMap(), index(l.getIndices())});
    else if (auto s = dyn_cast<StoreOp>(op))
      out.push_back({s.getMemref(), true, s.getMap(), index(s.getIndices())});
  }
  return out;
}

/// Whether the element an access names determines the iteration: every
/// parameter is, on its own, one of the index expressions.
bool namesIteration(const Access &a, unsigned numParams) {
  llvm::SmallBitVector seen(numParams);
  for (AffineExpr e : a.map.getResults())
    if (auto d = dyn_cast<AffineDimExpr>(e)) {
      int param = a.indices[d.getPosition()].first;
      if (param >= 0)
        seen.set(param);
    }
  return seen.all();
}

/// Whether running `second`'s body right after `first`'s, iteration by
/// iteration, computes what running the maps one after the other does:
/// every container that one of them writes and the other touches is
/// accessed at one and the same element in both, an element that
/// identifies the iteration (so no other iteration sees it).
bool fusible(MapOp first, MapOp second) {
  SmallVector<Access> a = accessesOf(first), b = accessesOf(second);
  llvm::SetVector<Value> shared;
  for (const Access &x : a)
    for (const Access &y : b)
      if (x.container == y.container && (x.write || y.write))
        shared.insert(x.container);
  for (Value c : shared) {
    const Access *ref = nullptr;
    for (const Access &x : llvm::concat<const Access>(a, b)) {
      if (x.container != c)
        continue;
      if (!ref) {
        if (!namesIteration(x, first.getNumParams()))
          return false;
        ref = &x;
      } else if (!(x == *ref)) {
        return false;
      }
    }
  }
  return true;
}

/// Containers `op` (or an op nested in it) touches, and those it writes.
void containersOf(Operation *op, llvm::DenseSet<Value> &touched,
                  llvm::DenseSet<Value> &written) {
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<MemRefType>(v.getType()))
        touched.insert(v);
    if (Value w = getWrittenContainer(inner))
      written.insert(w);
  });
}

/// Whether `second` may run where `first` is: it conflicts with none of
/// the ops in between, and every value it uses from outside is defined
/// before `first`.
bool canHoist(MapOp first, MapOp second) {
  llvm::DenseSet<Value> touched, written;
  containersOf(second, touched, written);
  for (Operation *op = first->getNextNode(); op != second.getOperation();
       op = op->getNextNode()) {
    llvm::DenseSet<Value> t, w;
    containersOf(op, t, w);
    for (Value c : w)
      if (touched.contains(c))
        return false;
    for (Value c : written)
      if (t.contains(c))
        return false;
  }
  Block *block = first->getBlock();
  bool dominated = true;
  second->walk([&](Operation *inner) {
    for (Value v : inner->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == block && !def->isBeforeInBlock(first))
        dominated = false;
    }
  });
  return dominated;
}

/// Moves `second`'s body to the end of `first`'s and erases `second`.
void fuse(MapOp first, MapOp second) {
  Block &into = first.getBody().front();
  Block &from = second.getBody().front();
  for (auto [x, y] : llvm::zip_equal(from.getArguments(), into.getArguments()))
    x.replaceAllUsesWith(y);
  into.getOperations().splice(into.end(), from.getOperations());
  second.erase();
}

/// Fuses, in each state, every map with the later maps it can take in.
bool fuseInState(StateOp state) {
  Block &block = state.getBody().front();
  for (Operation &op : block) {
    auto first = dyn_cast<MapOp>(op);
    if (!first || !isFlat(first))
      continue;
    for (Operation *next = first->getNextNode(); next;
         next = next->getNextNode()) {
      auto second = dyn_cast<MapOp>(next);
      if (second && isFlat(second) && sameRange(first, second) &&
          fusible(first, second) && canHoist(first, second)) {
        fuse(first, second);
        return true;
      }
    }
  }
  return false;
}

struct FuseMapsPass : public sdfg::impl::FuseMapsBase<FuseMapsPass> {
  void runOnOperation() override {
    SmallVector<StateOp> states;
    getOperation().walk([&](StateOp s) { states.push_back(s); });
    for (StateOp s : states)
      while (fuseInState(s)) {
      }
  }
};

} // namespace
