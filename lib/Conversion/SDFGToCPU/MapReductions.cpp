//===- MapReductions.cpp - Maps that accumulate into one element ----------===//
//
// A map whose WCR store writes the same element in every iteration (a sum
// into a scalar, the gradient of a value every iteration reads) is a
// reduction. Lowered element by element it serialises on that element: a
// load-combine-store chain the vectoriser cannot reorder, or in parallel an
// atomic per iteration on one cache line. Here the loops carry the partial
// result in a register instead, and memory sees one combine per chunk.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Parallel reduction maps split their first dimension into this many
/// chunks: enough to balance any core count we target, few enough that the
/// atomic combines cost nothing.
static constexpr int64_t kReductionChunks = 64;

SmallVector<StoreOp> Lowering::findRegisterReductions(MapOp map) {
  Region &body = map.getBody();
  // Candidates grouped by container: all of a container's writes in the map
  // must be candidates of one kind, else reordering them changes the result.
  llvm::MapVector<Value, SmallVector<StoreOp>> byContainer;
  llvm::DenseSet<Value> rejected;
  for (Operation &op : body.front()) {
    auto s = dyn_cast<StoreOp>(op);
    if (!s || !s.getWcr())
      continue;
    Type elt = s.getValue().getType();
    bool invariant = llvm::none_of(s.getIndices(), [&](Value v) {
      return body.isAncestor(v.getParentRegion());
    });
    if (!invariant || !(isa<FloatType>(elt) || elt.isSignlessInteger()))
      rejected.insert(s.getMemref());
    else
      byContainer[s.getMemref()].push_back(s);
  }
  SmallVector<StoreOp> out;
  for (auto &entry : byContainer) {
    Value container = entry.first;
    ArrayRef<StoreOp> stores = entry.second;
    if (rejected.contains(container))
      continue;
    llvm::SmallPtrSet<Operation *, 4> mine;
    for (StoreOp s : stores)
      mine.insert(s.getOperation());
    bool alone = llvm::all_of(container.getUsers(), [&](Operation *user) {
      return mine.contains(user) || !map->isProperAncestor(user);
    });
    bool oneKind = llvm::all_of(stores, [&](StoreOp s) {
      return s.getWcr() == StoreOp(stores[0]).getWcr();
    });
    if (alone && oneKind)
      out.append(stores.begin(), stores.end());
  }
  return out;
}

/// The neutral element of `kind`: -0.0 for float sums (so that a sum of
/// negative zeros stays -0.0), the type's extremes for min and max.
static Value identity(OpBuilder &b, Location loc, WCRKind kind, Type type) {
  if (auto ft = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = ft.getFloatSemantics();
    APFloat v = APFloat::getZero(sem, /*Negative=*/true);
    if (kind == WCRKind::mul)
      v = APFloat::getOne(sem);
    else if (kind == WCRKind::min)
      v = APFloat::getInf(sem);
    else if (kind == WCRKind::max)
      v = APFloat::getInf(sem, /*Negative=*/true);
    return arith::ConstantOp::create(b, loc, FloatAttr::get(ft, v));
  }
  unsigned width = type.getIntOrFloatBitWidth();
  APInt v = APInt::getZero(width);
  if (kind == WCRKind::mul)
    v = APInt(width, 1);
  else if (kind == WCRKind::min)
    v = APInt::getSignedMaxValue(width);
  else if (kind == WCRKind::max)
    v = APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, v));
}

LogicalResult Lowering::lowerReductionMap(MapOp op,
                                          ArrayRef<StoreOp> reductions,
                                          bool parallel, SmallVector<Value> lbs,
                                          SmallVector<Value> ubs,
                                          ArrayRef<Value> steps) {
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> inits;
  for (StoreOp s : reductions)
    inits.push_back(identity(b, loc, *s.getWcr(), s.getValue().getType()));
  if (parallel) {
    // Chunk k runs first-dimension iterations [k * chunk, (k + 1) * chunk).
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value chunks = arith::ConstantIndexOp::create(b, loc, kReductionChunks);
    Value trips = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ubs[0], lbs[0]), steps[0]);
    Value perChunk = arith::CeilDivSIOp::create(b, loc, trips, chunks);
    Value span = arith::MulIOp::create(b, loc, perChunk, steps[0]);
    auto par = scf::ParallelOp::create(b, loc, zero, chunks, one);
    b.setInsertionPoint(par.getBody()->getTerminator());
    Value lo = arith::AddIOp::create(
        b, loc, lbs[0],
        arith::MulIOp::create(b, loc, par.getInductionVars()[0], span));
    Value hi = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lo, span), ubs[0]);
    lbs[0] = lo;
    ubs[0] = hi;
    ++parallelDepth;
    distributed = op.getParams()[0];
  }
  // One loop per dimension, each carrying the accumulators.
  SmallVector<scf::ForOp> loops;
  ValueRange carried = inits;
  for (unsigned d = 0, e = op.getNumParams(); d < e; ++d) {
    auto loop = scf::ForOp::create(b, loc, lbs[d], ubs[d], steps[d], carried);
    b.setInsertionPointToStart(loop.getBody());
    mapping.map(op.getParams()[d], loop.getInductionVar());
    carried = loop.getRegionIterArgs();
    loops.push_back(loop);
  }
  for (auto [s, acc] : llvm::zip(reductions, carried))
    accumulators[s] = acc;
  // Other WCR writes in the body may still collide across chunks.
  bool atomic = parallel && !op.getDisjointWcr();
  if (atomic)
    ++atomicDepth;
  LogicalResult result = lowerRegion(op.getBody());
  if (atomic)
    --atomicDepth;
  SmallVector<Value> finals;
  for (StoreOp s : reductions)
    finals.push_back(accumulators.lookup(s));
  for (StoreOp s : reductions)
    accumulators.erase(s);
  scf::YieldOp::create(b, loc, finals);
  for (unsigned d = loops.size() - 1; d > 0; --d) {
    b.setInsertionPointToEnd(loops[d - 1].getBody());
    scf::YieldOp::create(b, loc, loops[d].getResults());
  }
  b.setInsertionPointAfter(loops.front());
  // Chunks combine concurrently into the same element.
  if (parallel)
    ++atomicDepth;
  for (auto [i, total] : llvm::enumerate(loops.front().getResults())) {
    StoreOp s = reductions[i];
    SmallVector<Value> idx = expandMap(loc, s.getMap(), s.getIndices());
    unsigned depth = atomicDepth;
    if (!parallel && depth > 0 && writesThreadPrivate(s))
      atomicDepth = 0;
    emitWrite(loc, total, mapping.lookup(s.getMemref()), idx, s.getWcr());
    atomicDepth = depth;
  }
  if (parallel) {
    --atomicDepth;
    --parallelDepth;
    distributed = Value();
  }
  return result;
}

Value Lowering::accumulate(Location loc, StoreOp s, Value acc) {
  Value next = combine(loc, *s.getWcr(), acc, mapping.lookup(s.getValue()));
  // The order of a WCR's combines is unspecified (the map is parallel);
  // saying so lets LLVM vectorise float sums and products.
  if (auto fm = dyn_cast<arith::ArithFastMathInterface>(next.getDefiningOp()))
    next.getDefiningOp()->setAttr(
        fm.getFastMathAttrName(),
        arith::FastMathFlagsAttr::get(b.getContext(),
                                      arith::FastMathFlags::reassoc));
  return next;
}
