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
#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Parallel reduction maps split their first dimension into at most this
/// many chunks: enough to balance any core count we target, few enough
/// that combining the chunks' slots and private copies costs little.
static constexpr int64_t kReductionChunks = 64;

SmallVector<RegisterReduction> Lowering::findRegisterReductions(MapOp map) {
  Region &body = map.getBody();
  unsigned n = map.getNumParams();
  // Every access to the container inside the map must be a WCR store of
  // one kind directly in the body: then the order of the combines is free
  // and partial results can wait in registers.
  llvm::MapVector<Value, SmallVector<StoreOp>> byContainer;
  llvm::DenseSet<Value> rejected;
  for (Operation &op : body.front()) {
    auto s = dyn_cast<StoreOp>(op);
    if (!s || !s.getWcr())
      continue;
    Type elt = s.getValue().getType();
    if (!(isa<FloatType>(elt) || elt.isSignlessInteger()))
      rejected.insert(s.getMemref());
    else
      byContainer[s.getMemref()].push_back(s);
  }
  SmallVector<RegisterReduction> out;
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
    if (!alone || !oneKind)
      continue;
    for (StoreOp s : stores) {
      // The store's element changes only with the parameters it uses: it
      // is constant over the loops inside the last of them.
      unsigned level = 0;
      for (Value v : s.getIndices()) {
        if (!body.isAncestor(v.getParentRegion()))
          continue;
        auto arg = dyn_cast<BlockArgument>(v);
        level = arg && arg.getOwner() == &body.front()
                    ? std::max(level, arg.getArgNumber() + 1)
                    : n; // computed in the body: varies with everything
      }
      if (level < n)
        out.push_back({s, level});
    }
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

LogicalResult
Lowering::lowerReductionMap(MapOp op, ArrayRef<RegisterReduction> reductions,
                            bool parallel, SmallVector<Value> lbs,
                            SmallVector<Value> ubs, ArrayRef<Value> steps) {
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(b);
  unsigned n = op.getNumParams();
  // A parallel reduction into one element for the whole map (level 0, not
  // told apart by the distributed parameter) leaves each chunk's partial
  // result in its own slot; one thread combines the slots in chunk order
  // after the loop. Atomic combines would add the partials in the order
  // the threads finish, so a float sum's last bits would vary from run to
  // run; this way they depend on the trip count only (the chunks do not
  // change with the number of threads).
  SmallVector<Value> slots(reductions.size());
  Value chunkIndex;
  if (parallel) {
    distributed = op.getParams()[0];
    for (auto [r, red] : llvm::enumerate(reductions)) {
      if (red.level != 0 || writesThreadPrivate(red.store))
        continue;
      OpBuilder::InsertionGuard atEntry(b);
      b.setInsertionPointToStart(entryBlock(b));
      slots[r] = memref::AllocaOp::create(
          b, loc,
          MemRefType::get({kReductionChunks},
                          StoreOp(red.store).getValue().getType()));
    }
    distributed = Value();
  }
  // Other accumulations the chunks share go to private copies.
  SmallVector<PrivateCopy> copies;
  if (parallel && !gpu && !op.getDisjointWcr()) {
    for (PrivateCopy &c : findPrivatizable(op))
      if (llvm::none_of(reductions, [&](const RegisterReduction &r) {
            return StoreOp(r.store).getMemref() == c.container;
          }))
        copies.push_back(c);
    allocatePrivateCopies(loc, copies);
  }
  scf::ParallelOp par;
  Value chunks;
  if (parallel) {
    // Chunk k runs first-dimension iterations [k * chunk, (k + 1) * chunk).
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value most = arith::ConstantIndexOp::create(b, loc, kReductionChunks);
    // At least one trip, so that the divisions are defined; a map without
    // trips runs one empty chunk.
    Value trips = arith::MaxSIOp::create(
        b, loc, one,
        arith::CeilDivSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, ubs[0], lbs[0]), steps[0]));
    Value perChunk = arith::CeilDivSIOp::create(b, loc, trips, most);
    Value span = arith::MulIOp::create(b, loc, perChunk, steps[0]);
    // Only chunks that get trips: the slots and private copies are filled
    // and combined per chunk (a map of 8 rows does not pay for 64).
    chunks = arith::CeilDivSIOp::create(b, loc, trips, perChunk);
    par = scf::ParallelOp::create(b, loc, zero, chunks, one);
    b.setInsertionPoint(par.getBody()->getTerminator());
    chunkIndex = par.getInductionVars()[0];
    usePrivateCopies(loc, copies, chunkIndex);
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
  // Reduction r's partial result starts at its identity just before loop
  // level(r), is carried by that loop and the ones inside it, and meets
  // memory right after loop level(r).
  SmallVector<Value> acc(reductions.size());
  SmallVector<SmallVector<unsigned>> carried(n);
  SmallVector<scf::ForOp> loops;
  SmallVector<bool> autoYield;
  for (unsigned d = 0; d < n; ++d) {
    SmallVector<Value> inits;
    for (auto [r, red] : llvm::enumerate(reductions)) {
      StoreOp store = red.store;
      if (red.level == d)
        acc[r] = identity(b, loc, *store.getWcr(), store.getValue().getType());
      if (red.level <= d) {
        carried[d].push_back(r);
        inits.push_back(acc[r]);
      }
    }
    auto loop = scf::ForOp::create(b, loc, lbs[d], ubs[d], steps[d], inits);
    Block *body = loop.getBody();
    // Without iter_args the builder adds the yield itself.
    bool hasYield =
        !body->empty() && body->back().hasTrait<OpTrait::IsTerminator>();
    if (hasYield)
      b.setInsertionPoint(body->getTerminator());
    else
      b.setInsertionPointToStart(body);
    autoYield.push_back(hasYield);
    mapping.map(op.getParams()[d], loop.getInductionVar());
    for (auto [k, r] : llvm::enumerate(carried[d]))
      acc[r] = loop.getRegionIterArgs()[k];
    loops.push_back(loop);
  }
  for (auto [r, red] : llvm::enumerate(reductions))
    accumulators[red.store] = acc[r];
  // Other WCR writes in the body may still collide across chunks.
  bool atomic = parallel && !op.getDisjointWcr();
  if (atomic)
    ++atomicDepth;
  LogicalResult result = lowerRegion(op.getBody());
  if (atomic)
    --atomicDepth;
  for (auto [r, red] : llvm::enumerate(reductions)) {
    acc[r] = accumulators.lookup(red.store);
    accumulators.erase(red.store);
  }
  auto yieldCarried = [&](unsigned d) {
    if (autoYield[d])
      return;
    SmallVector<Value> values;
    for (unsigned r : carried[d])
      values.push_back(acc[r]);
    scf::YieldOp::create(b, loc, values);
  };
  // Combines a finished partial result into memory: atomically when other
  // threads may write the same element.
  auto combine = [&](const RegisterReduction &red, Value total, Value slot) {
    if (slot) {
      memref::StoreOp::create(b, loc, total, slot, chunkIndex);
      return;
    }
    StoreOp s = red.store;
    SmallVector<Value> idx = expandMap(loc, s.getMap(), s.getIndices());
    unsigned depth = atomicDepth;
    if (parallel)
      atomicDepth = writesThreadPrivate(s) ? 0 : 1;
    else if (depth > 0 && writesThreadPrivate(s))
      atomicDepth = 0;
    Value memref = mapping.lookup(s.getMemref());
    guardAccess(loc, elementChecks(s, memref, s.getMap(), s.getIndices(), idx),
                Type(), [&] {
                  emitWrite(loc, total, memref, idx, s.getWcr());
                  return Value();
                });
    atomicDepth = depth;
  };
  yieldCarried(n - 1);
  for (unsigned d = n; d-- > 0;) {
    // After loop d: its results, then the combines of level-d reductions,
    // then (inside loop d - 1) the yield of what loop d - 1 carries.
    b.setInsertionPointAfter(loops[d]);
    for (auto [k, r] : llvm::enumerate(carried[d])) {
      acc[r] = loops[d].getResult(k);
      if (reductions[r].level == d)
        combine(reductions[r], acc[r], slots[r]);
    }
    if (d > 0)
      yieldCarried(d - 1);
  }
  if (parallel) {
    --parallelDepth;
    distributed = Value();
  }
  if (!copies.empty()) {
    b.setInsertionPointAfter(par);
    combinePrivateCopies(loc, copies, chunks);
  }
  // The slots' combine, after the parallel loop: in chunk order, in a
  // register, then once into memory.
  for (auto [r, red] : llvm::enumerate(reductions)) {
    if (!slots[r])
      continue;
    b.setInsertionPointAfter(par);
    StoreOp s = red.store;
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value init = identity(b, loc, *s.getWcr(), s.getValue().getType());
    auto loop = scf::ForOp::create(b, loc, zero, chunks, one, init);
    b.setInsertionPointToStart(loop.getBody());
    Value part =
        memref::LoadOp::create(b, loc, slots[r], loop.getInductionVar());
    scf::YieldOp::create(
        b, loc,
        Lowering::combine(loc, *s.getWcr(), loop.getRegionIterArgs()[0], part));
    b.setInsertionPointAfter(loop);
    SmallVector<Value> idx = expandMap(loc, s.getMap(), s.getIndices());
    Value memref = mapping.lookup(s.getMemref());
    Value total = loop.getResult(0);
    guardAccess(loc, elementChecks(s, memref, s.getMap(), s.getIndices(), idx),
                Type(), [&] {
                  emitWrite(loc, total, memref, idx, s.getWcr());
                  return Value();
                });
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

//===----------------------------------------------------------------------===//
// Private copies of shared accumulations
//===----------------------------------------------------------------------===//

SmallVector<PrivateCopy> Lowering::findPrivatizable(MapOp map) {
  llvm::MapVector<Value, SmallVector<StoreOp>> stores;
  llvm::DenseSet<Value> rejected;
  map->walk([&](Operation *op) {
    if (op == map.getOperation())
      return;
    auto s = dyn_cast<StoreOp>(op);
    if (s && s.getWcr()) {
      stores[s.getMemref()].push_back(s);
      return;
    }
    // Read, copied or written plainly: the copies would not see it.
    for (Value v : op->getOperands())
      if (isa<MemRefType>(v.getType()))
        rejected.insert(v);
  });
  Value first = map.getParams()[0];
  SmallVector<PrivateCopy> out;
  for (auto &[container, list] : stores) {
    if (rejected.contains(container) ||
        !fitsPrivateCopies(cast<MemRefType>(container.getType())) ||
        map.getBody().isAncestor(container.getParentRegion()))
      continue;
    WCRKind kind = *StoreOp(list.front()).getWcr();
    bool oneKind =
        llvm::all_of(list, [&](StoreOp s) { return *s.getWcr() == kind; });
    // Already private to a thread when the first parameter tells them
    // apart.
    bool shared =
        llvm::any_of(list, [&](StoreOp s) { return !separatedBy(s, first); });
    if (oneKind && shared)
      out.push_back({container, Value(), Value(), kind});
  }
  return out;
}

void Lowering::allocatePrivateCopies(Location loc,
                                     MutableArrayRef<PrivateCopy> copies) {
  for (PrivateCopy &c : copies) {
    auto type = cast<MemRefType>(c.container.getType());
    SmallVector<int64_t> shape{kReductionChunks};
    llvm::append_range(shape, type.getShape());
    c.buffer = memref::AllocOp::create(
        b, loc, MemRefType::get(shape, type.getElementType()),
        b.getI64IntegerAttr(64));
    c.original = mapping.lookup(c.container);
  }
}

void Lowering::usePrivateCopies(Location loc, ArrayRef<PrivateCopy> copies,
                                Value chunk) {
  for (const PrivateCopy &c : copies) {
    auto type = cast<MemRefType>(c.container.getType());
    auto bufferType = cast<MemRefType>(c.buffer.getType());
    unsigned rank = type.getRank();
    SmallVector<OpFoldResult> offsets{chunk}, sizes{b.getIndexAttr(1)},
        strides(rank + 1, b.getIndexAttr(1));
    offsets.append(rank, b.getIndexAttr(0));
    for (int64_t e : type.getShape())
      sizes.push_back(b.getIndexAttr(e));
    MemRefType viewType = memref::SubViewOp::inferRankReducedResultType(
        type.getShape(), bufferType, offsets, sizes, strides);
    Value view = memref::SubViewOp::create(b, loc, viewType, c.buffer, offsets,
                                           sizes, strides);
    Value id = identity(b, loc, c.kind, type.getElementType());
    forEachElement(b, loc, view, [&](ValueRange idx) {
      memref::StoreOp::create(b, loc, id, view, idx);
    });
    mapping.map(c.container, view);
    privatized.insert(c.container);
  }
}

void Lowering::combinePrivateCopies(Location loc, ArrayRef<PrivateCopy> copies,
                                    Value chunks) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (const PrivateCopy &c : copies) {
    mapping.map(c.container, c.original);
    privatized.erase(c.container);
    // Chunk by chunk, in order: the same bits for any number of threads.
    auto loop = scf::ForOp::create(b, loc, zero, chunks, one);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value k = loop.getInductionVar();
      forEachElement(b, loc, c.original, [&](ValueRange idx) {
        SmallVector<Value> at{k};
        llvm::append_range(at, idx);
        Value part = memref::LoadOp::create(b, loc, c.buffer, at);
        Value cur = memref::LoadOp::create(b, loc, c.original, idx);
        memref::StoreOp::create(b, loc, combine(loc, c.kind, cur, part),
                                c.original, idx);
      });
    }
    memref::DeallocOp::create(b, loc, c.buffer);
  }
}
