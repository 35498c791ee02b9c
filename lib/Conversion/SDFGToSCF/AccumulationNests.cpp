//===- AccumulationNests.cpp - Stencil adjoints as gathers ----------------===//
//
// The reversal of a stencil accumulates every iteration's adjoint into
// neighbouring elements: x[i], x[i + 1], x[i + 2]. Lowered as one loop, the
// element iteration i adds to at i + 1 is read and written again by
// iteration i + 1: a dependence through memory at distance 1 that keeps the
// innermost loop scalar, each iteration waiting for the last one's store.
//
// Map iterations are independent up to their WCR combines, whose order is
// free, so the innermost loop can be rewritten. When every accumulation
// indexes the innermost dimension as `inner + c`, it becomes a gather: one
// loop over the element j, adding the contribution of iteration j - c for
// every offset c, so that each element is read and written once (short
// head and tail loops take the iterations whose neighbours fall outside
// the range). Otherwise the loops are distributed into one nest per group
// of accumulations that cannot collide along the innermost loop. Either
// way each loop recomputes the loads and tasklets its own stores use (LLVM
// drops the rest) and vectorises.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/MapVector.h"

#include <map>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Each loop recomputes the loads and tasklets its stores use: beyond this
/// many groups that costs more than the dependence it removes.
static constexpr unsigned kMaxNests = 8;

/// Whether two WCR stores into one container may hit the same element in
/// different iterations of the innermost loop (`inner`, a map parameter):
/// their indices differ by a constant only in dimensions that vary with
/// `inner`. Conservatively true when the difference is not constant.
static bool collideAlongInnermost(StoreOp s, StoreOp t, Value inner) {
  if (s.getIndices() != t.getIndices())
    return true;
  AffineMap ms = s.getMap(), mt = t.getMap();
  auto innerPos = llvm::find(s.getIndices(), inner);
  bool differsAcrossRows = false, differsAlongRow = false;
  for (auto [es, et] : llvm::zip(ms.getResults(), mt.getResults())) {
    auto delta = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(es - et, ms.getNumDims(), ms.getNumSymbols()));
    if (!delta)
      return true;
    if (delta.getValue() == 0)
      continue;
    bool alongRow = innerPos != s.getIndices().end() &&
                    es.isFunctionOfDim(innerPos - s.getIndices().begin());
    (alongRow ? differsAlongRow : differsAcrossRows) = true;
  }
  // Different rows (some dimension fixed in the innermost loop differs):
  // never the same element within one run of the innermost loop.
  return differsAlongRow && !differsAcrossRows;
}

/// The c of a store whose index is `inner + c` in one dimension and does
/// not depend on `inner` in the others.
static std::optional<int64_t> innerOffset(StoreOp s, Value inner) {
  AffineMap m = s.getMap();
  std::optional<int64_t> offset;
  for (auto [k, v] : llvm::enumerate(s.getIndices())) {
    if (v != inner)
      continue;
    AffineExpr p = getAffineDimExpr(k, s.getContext());
    for (AffineExpr e : m.getResults()) {
      if (!e.isFunctionOfDim(k))
        continue;
      auto c = dyn_cast<AffineConstantExpr>(
          simplifyAffineExpr(e - p, m.getNumDims(), m.getNumSymbols()));
      if (!c || offset)
        return std::nullopt;
      offset = c.getValue();
    }
  }
  return offset;
}

AccumulationPlan Lowering::planAccumulations(MapOp map, unsigned firstLoop) {
  unsigned n = map.getNumParams();
  if (firstLoop >= n)
    return {};
  Block &body = map.getBody().front();
  // A flat body only: its loads and tasklets can be repeated in every loop
  // without repeating any effect but the stores each loop keeps.
  llvm::MapVector<Value, SmallVector<StoreOp>> wcrStores;
  llvm::DenseSet<Value> plainTargets, loaded;
  AccumulationPlan plan;
  for (Operation &op : body) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      // A load after a plain store to its container would read the store
      // in one loop and not in the others.
      if (plainTargets.contains(load.getMemref()))
        return {};
      loaded.insert(load.getMemref());
    } else if (auto store = dyn_cast<StoreOp>(op)) {
      if (store.getWcr()) {
        wcrStores[store.getMemref()].push_back(store);
      } else {
        plainTargets.insert(store.getMemref());
        plan.plainStores.insert(store);
      }
    } else if (!isa<TaskletOp>(op)) {
      return {};
    }
  }
  // An accumulated container the body also reads or overwrites would see
  // the other loops' stores in some loops only.
  for (auto &[container, stores] : wcrStores)
    if (loaded.contains(container) || plainTargets.contains(container))
      return {};

  Value inner = map.getParams().back();
  // Gather: group by offset along the innermost dimension.
  std::map<int64_t, llvm::SmallPtrSet<Operation *, 8>> byOffset;
  bool gather = map.getSteps().back() == 1;
  for (auto &[container, stores] : wcrStores)
    for (StoreOp s : stores) {
      std::optional<int64_t> c = innerOffset(s, inner);
      if (!c) {
        gather = false;
        break;
      }
      byOffset[*c].insert(s);
    }
  if (gather) {
    if (byOffset.size() < 2 || byOffset.size() > kMaxNests)
      return {};
    plan.gather = true;
    for (auto &[c, stores] : byOffset) {
      plan.shifts.push_back(c);
      plan.nests.push_back(std::move(stores));
    }
    return plan;
  }

  // Distribution: each store joins the first nest where it collides with
  // none of its container's stores already there.
  for (auto &[container, stores] : wcrStores) {
    SmallVector<SmallVector<StoreOp>> groups;
    for (StoreOp s : stores) {
      auto *fit = llvm::find_if(groups, [&](ArrayRef<StoreOp> g) {
        return llvm::none_of(
            g, [&](StoreOp t) { return collideAlongInnermost(s, t, inner); });
      });
      if (fit == groups.end()) {
        groups.emplace_back();
        fit = std::prev(groups.end());
      }
      fit->push_back(s);
    }
    if (groups.size() > kMaxNests)
      return {};
    if (plan.nests.size() < groups.size())
      plan.nests.resize(groups.size());
    for (auto [k, g] : llvm::enumerate(groups))
      for (StoreOp s : g)
        plan.nests[k].insert(s.getOperation());
  }
  if (plan.nests.size() < 2)
    return {};
  return plan;
}

void Lowering::openLoops(MapOp op, unsigned from, unsigned to,
                         ArrayRef<Value> lbs, ArrayRef<Value> ubs,
                         ArrayRef<Value> steps) {
  for (unsigned d = from; d < to; ++d) {
    auto loop = scf::ForOp::create(b, op.getLoc(), lbs[d], ubs[d], steps[d]);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    mapping.map(op.getParams()[d], loop.getInductionVar());
  }
}

LogicalResult Lowering::lowerBodyKeeping(MapOp op, const StoreSet *only) {
  const StoreSet *outer = nestStores;
  nestStores = only;
  LogicalResult r = lowerRegion(op.getBody());
  nestStores = outer;
  return r;
}

LogicalResult Lowering::lowerBodyInLoops(MapOp op, unsigned from,
                                         ArrayRef<Value> lbs,
                                         ArrayRef<Value> ubs,
                                         ArrayRef<Value> steps,
                                         const StoreSet *only) {
  OpBuilder::InsertionGuard guard(b);
  openLoops(op, from, op.getNumParams(), lbs, ubs, steps);
  return lowerBodyKeeping(op, only);
}

LogicalResult Lowering::lowerAccumulations(MapOp op,
                                           const AccumulationPlan &plan,
                                           unsigned first, ArrayRef<Value> lbs,
                                           ArrayRef<Value> ubs,
                                           ArrayRef<Value> steps) {
  if (!plan.gather) {
    // Plain stores go with the last nest: every nest before reads what
    // they overwrite as the undivided body did.
    for (auto [k, nest] : llvm::enumerate(plan.nests)) {
      StoreSet stores(nest.begin(), nest.end());
      if (k + 1 == plan.nests.size())
        stores.insert(plan.plainStores.begin(), plan.plainStores.end());
      if (failed(lowerBodyInLoops(op, first, lbs, ubs, steps, &stores)))
        return failure();
    }
    return success();
  }
  OpBuilder::InsertionGuard guard(b);
  Location loc = op.getLoc();
  unsigned last = op.getNumParams() - 1;
  openLoops(op, first, last, lbs, ubs, steps);
  Value inner = op.getParams()[last];
  Value lb = lbs[last], ub = ubs[last], one = steps[last];
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, int64_t c) -> Value {
    return c == 0 ? x : arith::AddIOp::create(b, loc, x, cst(c)).getResult();
  };
  // Iteration i of the offset-c loop adds into element i + c. Element j
  // gets all its contributions in one iteration of the gather loop when
  // j - c is in [lb, ub) for every c: j in [lb + hi, ub + lo).
  int64_t lo = plan.shifts.front(), hi = plan.shifts.back();
  Value gatherLo = add(lb, hi);
  Value gatherHi = arith::MaxSIOp::create(b, loc, gatherLo, add(ub, lo));
  auto lowerOne = [&](Value from, Value to, const StoreSet &only) {
    OpBuilder::InsertionGuard loopGuard(b);
    auto loop = scf::ForOp::create(b, loc, from, to, one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    mapping.map(inner, loop.getInductionVar());
    return lowerBodyKeeping(op, &only);
  };
  // Heads: the iterations of each offset below the gather range.
  for (auto [c, nest] : llvm::zip(plan.shifts, plan.nests)) {
    Value headHi = arith::MinSIOp::create(b, loc, ub, add(lb, hi - c));
    if (failed(lowerOne(lb, headHi, nest)))
      return failure();
  }
  {
    OpBuilder::InsertionGuard loopGuard(b);
    auto loop = scf::ForOp::create(b, loc, gatherLo, gatherHi, one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value j = loop.getInductionVar();
    for (auto [c, nest] : llvm::zip(plan.shifts, plan.nests)) {
      mapping.map(inner, c == 0 ? j : arith::SubIOp::create(b, loc, j, cst(c)));
      if (failed(lowerBodyKeeping(op, &nest)))
        return failure();
    }
  }
  // Tails: the iterations of each offset above it.
  for (auto [c, nest] : llvm::zip(plan.shifts, plan.nests)) {
    Value tailLo = add(gatherHi, -c);
    if (failed(lowerOne(tailLo, ub, nest)))
      return failure();
  }
  // Plain stores last, once every accumulation has read what they
  // overwrite.
  if (!plan.plainStores.empty() && failed(lowerOne(lb, ub, plan.plainStores)))
    return failure();
  return success();
}
