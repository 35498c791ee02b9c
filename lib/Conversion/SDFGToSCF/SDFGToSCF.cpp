//===- SDFGToSCF.cpp - Lower sdfg to func/scf/memref/arith ----------------===//

#include "Lowering.h"

#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "llvm/Support/MathExtras.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_CONVERTSDFGTOSCF
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

SmallVector<Value> Lowering::expandMap(Location loc, AffineMap map,
                                       ValueRange operands) {
  SmallVector<Value> mapped, out;
  for (Value v : operands)
    mapped.push_back(mapping.lookupOrDefault(v));
  for (AffineExpr e : map.getResults())
    out.push_back(expandIndexExpr(b, loc, e, mapped));
  return out;
}

Value Lowering::combine(Location loc, WCRKind kind, Value cur, Value val) {
  bool isFloat = isa<FloatType>(val.getType());
  switch (kind) {
  case WCRKind::add:
    return isFloat ? arith::AddFOp::create(b, loc, cur, val).getResult()
                   : arith::AddIOp::create(b, loc, cur, val).getResult();
  case WCRKind::mul:
    return isFloat ? arith::MulFOp::create(b, loc, cur, val).getResult()
                   : arith::MulIOp::create(b, loc, cur, val).getResult();
  case WCRKind::min:
    // NaN-propagating, like numpy.minimum.
    return isFloat ? arith::MinimumFOp::create(b, loc, cur, val).getResult()
                   : arith::MinSIOp::create(b, loc, cur, val).getResult();
  case WCRKind::max:
    return isFloat ? arith::MaximumFOp::create(b, loc, cur, val).getResult()
                   : arith::MaxSIOp::create(b, loc, cur, val).getResult();
  }
  llvm_unreachable("unknown wcr kind");
}

void Lowering::emitWrite(Location loc, Value val, Value memref,
                         ValueRange indices, std::optional<WCRKind> wcr) {
  if (!wcr) {
    memref::StoreOp::create(b, loc, val, memref, indices);
    return;
  }
  if (atomicDepth == 0) {
    Value cur = memref::LoadOp::create(b, loc, memref, indices);
    memref::StoreOp::create(b, loc, combine(loc, *wcr, cur, val), memref,
                            indices);
    return;
  }
  // Concurrent iterations may hit the same element: use a hardware atomic
  // where LLVM has one (add, integer min/max), else a compare-and-swap loop.
  Type elt = val.getType();
  if (*wcr == WCRKind::add) {
    auto kind = isa<FloatType>(elt) ? arith::AtomicRMWKind::addf
                                    : arith::AtomicRMWKind::addi;
    memref::AtomicRMWOp::create(b, loc, kind, val, memref, indices);
    return;
  }
  if (!isa<FloatType>(elt) && *wcr != WCRKind::mul) {
    auto kind = *wcr == WCRKind::min ? arith::AtomicRMWKind::mins
                                     : arith::AtomicRMWKind::maxs;
    memref::AtomicRMWOp::create(b, loc, kind, val, memref, indices);
    return;
  }
  emitCompareAndSwap(loc, *wcr, val, memref, indices);
}

void Lowering::emitCompareAndSwap(Location loc, WCRKind kind, Value val,
                                  Value memref, ValueRange indices) {
  // Works on the element's bits as an integer: LLVM's cmpxchg does not take
  // floats (and memref.generic_atomic_rmw lowers to one that does).
  Type elt = val.getType();
  unsigned width = elt.getIntOrFloatBitWidth();
  Type intTy = b.getIntegerType(width);
  Type i64 = b.getI64Type();
  auto type = cast<MemRefType>(memref.getType());
  // Row-major linear offset of the element.
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value extent = memref::DimOp::create(b, loc, memref, d);
    linear = arith::MulIOp::create(b, loc, linear, extent);
    linear = arith::AddIOp::create(b, loc, linear, indices[d]);
  }
  Value offset = arith::IndexCastOp::create(b, loc, i64, linear);
  Value base = basePointer(loc, memref);
  Value ptr = LLVM::GEPOp::create(b, loc, base.getType(), elt, base,
                                  ValueRange{offset});
  unsigned align = width / 8;
  Value init =
      LLVM::LoadOp::create(b, loc, intTy, ptr, align, false, false, false,
                           false, LLVM::AtomicOrdering::monotonic);
  auto loop = scf::WhileOp::create(b, loc, TypeRange{intTy}, ValueRange{init});
  OpBuilder::InsertionGuard guard(b);
  Block *before = b.createBlock(&loop.getBefore(), {}, {intTy}, {loc});
  Value old = before->getArgument(0);
  Value oldVal = elt == intTy
                     ? old
                     : arith::BitcastOp::create(b, loc, elt, old).getResult();
  Value updated = combine(loc, kind, oldVal, val);
  Value newBits =
      elt == intTy
          ? updated
          : arith::BitcastOp::create(b, loc, intTy, updated).getResult();
  auto cas = LLVM::AtomicCmpXchgOp::create(b, loc, ptr, old, newBits,
                                           LLVM::AtomicOrdering::acq_rel,
                                           LLVM::AtomicOrdering::monotonic);
  Value seen = LLVM::ExtractValueOp::create(b, loc, cas, 0);
  Value ok = LLVM::ExtractValueOp::create(b, loc, cas, 1);
  Value retry = arith::XOrIOp::create(
      b, loc, ok, arith::ConstantIntOp::create(b, loc, 1, 1));
  scf::ConditionOp::create(b, loc, retry, ValueRange{seen});
  Block *after = b.createBlock(&loop.getAfter(), {}, {intTy}, {loc});
  scf::YieldOp::create(b, loc, after->getArgument(0));
}

/// The result dimension of `s`'s index map that is `param` plus a constant,
/// with the constant.
static std::optional<std::pair<unsigned, int64_t>> offsetOf(StoreOp s,
                                                            Value param) {
  AffineMap m = s.getMap();
  for (auto [k, v] : llvm::enumerate(s.getIndices())) {
    if (v != param)
      continue;
    AffineExpr p = getAffineDimExpr(k, s.getContext());
    for (auto [d, e] : llvm::enumerate(m.getResults()))
      if (auto c = dyn_cast<AffineConstantExpr>(
              simplifyAffineExpr(e - p, m.getNumDims(), m.getNumSymbols())))
        return std::make_pair(static_cast<unsigned>(d), c.getValue());
  }
  return std::nullopt;
}

/// Whether iterations with distinct values of `param` (a map parameter)
/// write distinct elements of `s`'s container: every write to it in that
/// map indexes the same dimension as `param` plus the same constant. One
/// offset per store is not enough: a stencil's reversal accumulates into
/// x[i] and x[i + 1] from every i.
bool mlir::sdfg::detail::separatedBy(StoreOp s, Value param) {
  std::optional<std::pair<unsigned, int64_t>> off = offsetOf(s, param);
  if (!off)
    return false;
  Operation *map = cast<BlockArgument>(param).getOwner()->getParentOp();
  WalkResult r = map->walk([&](Operation *op) {
    if (getWrittenContainer(op) != s.getMemref())
      return WalkResult::advance();
    auto w = dyn_cast<StoreOp>(op);
    return w && offsetOf(w, param) == off ? WalkResult::advance()
                                          : WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

/// The dimension of a parallel map to distribute over threads: the first,
/// unless a WCR write in the map may collide across its values while a
/// later parameter separates every WCR write (a sum over the leading
/// dimension into an array indexed by the others, as `np.sum(x, axis=0)`
/// and a vector-matrix product are): then that parameter, whose threads
/// combine without atomics. disjoint_wcr vouches for the first.
static unsigned distributedDim(MapOp op) {
  if (op.getDisjointWcr())
    return 0;
  SmallVector<StoreOp> wcr;
  op.walk([&](StoreOp s) {
    if (s.getWcr())
      wcr.push_back(s);
  });
  auto separates = [&](Value param) {
    return llvm::all_of(wcr, [&](StoreOp s) { return separatedBy(s, param); });
  };
  if (wcr.empty() || separates(op.getParams()[0]))
    return 0;
  for (unsigned d = 1; d < op.getNumParams(); ++d)
    if (separates(op.getParams()[d]))
      return d;
  return 0;
}

bool Lowering::writesThreadPrivate(StoreOp s) {
  // Each chunk accumulates into its own copy.
  if (privatized.contains(s.getMemref()))
    return true;
  // Two threads differ in some parameter of threadParams, hence in the
  // element they write.
  if (threadParams)
    return llvm::all_of(*threadParams,
                        [&](Value p) { return separatedBy(s, p); });
  return distributed && separatedBy(s, distributed);
}

//===----------------------------------------------------------------------===//
// Control flow and dataflow
//===----------------------------------------------------------------------===//

LogicalResult Lowering::lowerRegion(Region &region) {
  for (Operation &op : region.getOps())
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult Lowering::lowerOp(Operation *op) {
  Location loc = op->getLoc();
  if (runsOnOneThread(op))
    return lowerOnOneThread(op);
  if (isLibraryCall(op) && failed(checkLibraryExtents(op)))
    return failure();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](StateOp s) { return lowerRegion(s.getBody()); })
      .Case([&](LoopOp l) { return lowerLoop(l); })
      .Case([&](IfOp i) { return lowerIf(i, 0); })
      .Case([&](WhileOp w) { return lowerWhile(w); })
      .Case([&](MapOp m) { return lowerMap(m); })
      .Case([&](TaskletOp t) { return lowerTasklet(t); })
      .Case([&](CopyOp c) { return lowerCopy(c); })
      .Case([&](BroadcastExtentOp e) { return lowerBroadcastExtent(e); })
      .Case([&](CheckIndexOp c) { return lowerCheckIndex(c); })
      .Case([&](DimOp d) {
        mapping.map(d.getResult(), memref::DimOp::create(
                                       b, loc, mapping.lookup(d.getContainer()),
                                       d.getAxisAttr().getInt())
                                       .getResult());
        return success();
      })
      .Case([&](AllocOp) {
        // Allocated where first used and freed after the last use, by
        // lowerSDFG (transients have no value outside that span).
        return success();
      })
      .Case([&](LoadOp l) {
        SmallVector<Value> idx = expandMap(loc, l.getMap(), l.getIndices());
        Value memref = mapping.lookup(l.getMemref());
        Value v = guardAccess(
            loc, elementChecks(l, memref, l.getMap(), l.getIndices(), idx),
            l.getType(), [&] {
              return memref::LoadOp::create(b, loc, memref, idx).getResult();
            });
        mapping.map(l.getResult(), v);
        return success();
      })
      .Case([&](StoreOp s) {
        if (nestStores && !nestStores->contains(s))
          return success();
        auto acc = accumulators.find(s);
        if (acc != accumulators.end()) {
          acc->second = accumulate(loc, s, acc->second);
          return success();
        }
        SmallVector<Value> idx = expandMap(loc, s.getMap(), s.getIndices());
        unsigned depth = atomicDepth;
        if (s.getWcr() && depth > 0 && writesThreadPrivate(s))
          atomicDepth = 0;
        Value memref = mapping.lookup(s.getMemref());
        guardAccess(loc,
                    elementChecks(s, memref, s.getMap(), s.getIndices(), idx),
                    Type(), [&] {
                      emitWrite(loc, mapping.lookup(s.getValue()), memref, idx,
                                s.getWcr());
                      return Value();
                    });
        atomicDepth = depth;
        return success();
      })
      .Case([&](MatmulOp m) { return lowerMatmul(m); })
      .Case([&](GemvOp g) { return lowerGemv(g); })
      .Case([&](GerOp g) { return lowerGer(g); })
      .Case([&](DotOp d) { return lowerDot(d); })
      .Case([&](CustomCallOp c) { return lowerCustomCall(c); })
      .Case([&](PrintOp p) { return lowerPrint(p); })
      .Case([&](SolveOp s) { return lowerSolve(s); })
      .Case([&](DetOp d) { return lowerDet(d); })
      .Case([&](CholeskyOp c) { return lowerCholesky(c); })
      .Case([&](EighOp e) { return lowerEigh(e); })
      .Case([&](QROp q) { return lowerQR(q); })
      .Case([&](SVDOp s) { return lowerSVD(s); })
      .Case([&](ArgsortOp s) { return lowerArgsort(s); })
      .Case([&](SearchsortedOp s) { return lowerSearchsorted(s); })
      .Case([&](FftOp f) { return lowerFft(f); })
      .Case([&](TransposeOp t) { return lowerTranspose(t); })
      .Case([&](ReduceOp r) { return lowerReduce(r); })
      .Default([&](Operation *other) {
        return other->emitOpError("cannot be lowered by convert-sdfg-to-scf");
      });
}

LogicalResult Lowering::lowerLoop(LoopOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> bounds =
      expandMap(loc, op.getBounds(), op.getBoundOperands());
  int64_t step = op.getStepValue();
  OpBuilder::InsertionGuard guard(b);
  // Python's range: ceil((ub - lb) / step) iterations (none if negative).
  Value stepV = arith::ConstantIndexOp::create(b, loc, step);
  Value trips = arith::CeilDivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, bounds[1], bounds[0]), stepV);
  LogicalResult result = success();
  guardAccess(loc, loopChecks(op, bounds[0], trips), Type(), [&] {
    if (step > 0) {
      // scf.for runs while iv < ub, which is Python's range for step > 0.
      auto loop = scf::ForOp::create(b, loc, bounds[0], bounds[1], stepV);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      mapping.map(op.getIterator(), loop.getInductionVar());
      result = lowerRegion(op.getBody());
      return Value();
    }
    // Negative step: count k = 0 .. trips and set iv = lb + k * step. The
    // trip count is not positive when lb <= ub, so the loop then runs zero
    // times.
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, zero, trips, one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value offset = arith::MulIOp::create(b, loc, loop.getInductionVar(), stepV);
    Value iv = arith::AddIOp::create(b, loc, bounds[0], offset);
    mapping.map(op.getIterator(), iv);
    result = lowerRegion(op.getBody());
    return Value();
  });
  return result;
}

LogicalResult Lowering::lowerWhile(WhileOp op) {
  Location loc = op.getLoc();
  auto loop = scf::WhileOp::create(b, loc, TypeRange{}, ValueRange{});
  OpBuilder::InsertionGuard guard(b);
  b.createBlock(&loop.getBefore());
  Block &cond = op.getCond().front();
  // sdfg.condition is the last op but not a terminator.
  for (Operation &inner : llvm::make_range(cond.begin(), --cond.end()))
    if (failed(lowerOp(&inner)))
      return failure();
  Value c = mapping.lookup(cast<ConditionOp>(cond.back()).getCondition());
  scf::ConditionOp::create(b, loc, c, ValueRange{});
  b.createBlock(&loop.getAfter());
  auto yield = scf::YieldOp::create(b, loc);
  b.setInsertionPoint(yield);
  return lowerRegion(op.getBody());
}

LogicalResult Lowering::lowerIf(IfOp op, unsigned branch) {
  Location loc = op.getLoc();
  unsigned numConds = op.getConditions().size();
  if (branch == numConds) // the else branch
    return lowerRegion(op.getBranches()[branch]);
  Value cond = mapping.lookup(op.getConditions()[branch]);
  bool hasRest = branch + 1 < op.getBranches().size();
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, cond, hasRest);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  if (failed(lowerRegion(op.getBranches()[branch])))
    return failure();
  if (!hasRest)
    return success();
  b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  return lowerIf(op, branch + 1);
}

/// Operations one iteration of the map's innermost body runs, counting
/// loads, stores and tasklet arithmetic: a rough cost per iteration.
static int64_t opsPerIteration(MapOp map) {
  int64_t ops = 0;
  map.walk([&](Operation *op) {
    if (isa<LoadOp, StoreOp>(op) ||
        (op->getParentOfType<TaskletOp>() && !isa<YieldOp>(op) &&
         !op->hasTrait<OpTrait::ConstantLike>()))
      ++ops;
  });
  return std::max<int64_t>(ops, 1);
}

/// Iterations of `map` and everything nested in it (`withOwn` false:
/// without the map's own dimensions), where all their bounds are
/// constants.
static std::optional<int64_t> constantWork(MapOp map, bool withOwn = true) {
  uint64_t work = 1;
  bool known = true;
  auto mul = [&](int64_t lb, int64_t ub, int64_t step) {
    int64_t trips = std::max<int64_t>(tripCount(lb, ub, step), 0);
    work = llvm::SaturatingMultiply(work, static_cast<uint64_t>(trips));
  };
  map.walk([&](Operation *op) {
    if (!withOwn && op == map.getOperation())
      return WalkResult::advance();
    if (auto m = dyn_cast<MapOp>(op)) {
      for (auto [lb, ub, step] :
           llvm::zip(m.getLowerBounds().getResults(),
                     m.getUpperBounds().getResults(), m.getSteps())) {
        auto l = dyn_cast<AffineConstantExpr>(lb);
        auto u = dyn_cast<AffineConstantExpr>(ub);
        if (!l || !u) {
          known = false;
          return WalkResult::interrupt();
        }
        mul(l.getValue(), u.getValue(), step);
      }
    } else if (auto loop = dyn_cast<LoopOp>(op)) {
      auto l = dyn_cast<AffineConstantExpr>(loop.getLowerExpr());
      auto u = dyn_cast<AffineConstantExpr>(loop.getUpperExpr());
      if (!l || !u) {
        known = false;
        return WalkResult::interrupt();
      }
      mul(l.getValue(), u.getValue(), loop.getStepValue());
    } else if (isa<WhileOp>(op) || isLibraryCall(op)) {
      known = false; // unbounded or heavy work per iteration
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!known)
    return std::nullopt;
  return static_cast<int64_t>(
      std::min<uint64_t>(work, std::numeric_limits<int64_t>::max()));
}

bool Lowering::isSmallWork(MapOp op) {
  // The thresholds and why: SchedulePolicy.h.
  std::optional<int64_t> work = constantWork(op);
  if (!work)
    return false;
  int64_t ops = static_cast<int64_t>(std::min<uint64_t>(
      llvm::SaturatingMultiply(static_cast<uint64_t>(*work),
                               static_cast<uint64_t>(opsPerIteration(op))),
      std::numeric_limits<int64_t>::max()));
  return *work < kMinParallelIterations || ops < kMinParallelOps ||
         (callsLibrary && !gpu && ops < kMinParallelOpsWithLibrary);
}

LogicalResult Lowering::lowerMap(MapOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> lbs =
      expandMap(loc, op.getLowerBounds(), op.getRangeOperands());
  SmallVector<Value> ubs =
      expandMap(loc, op.getUpperBounds(), op.getRangeOperands());
  SmallVector<Value> steps;
  for (int64_t s : op.getSteps())
    steps.push_back(arith::ConstantIndexOp::create(b, loc, s));
  OpBuilder::InsertionGuard guard(b);
  // Only the outermost parallel map forks threads; nested parallel maps run
  // sequentially inside it rather than oversubscribing the cores. Only its
  // first dimension is distributed: the OpenMP lowering would collapse the
  // others into one linear counter (a division per iteration), which stops
  // LLVM from vectorising the contiguous innermost loop.
  if (gpu && op.getSchedule() == ScheduleKind::gpu_device && parallelDepth == 0)
    return lowerGPUMap(op, lbs, ubs, steps);
  bool parallel = op.getSchedule() != ScheduleKind::sequential &&
                  parallelDepth == 0 && !isSmallWork(op);
  if (parallel && !gpu)
    if (Value worth = forkWorthIt(loc, op, lbs, ubs, steps)) {
      // Sizes only the call knows: both versions, chosen when it runs, so
      // that a small instance of a symbolic program does not fork threads
      // where the program specialised to its sizes would not.
      auto choice = scf::IfOp::create(b, loc, TypeRange{}, worth,
                                      /*withElseRegion=*/true);
      b.setInsertionPoint(choice.thenBlock()->getTerminator());
      if (failed(lowerMapAs(op, true, lbs, ubs, steps)))
        return failure();
      b.setInsertionPoint(choice.elseBlock()->getTerminator());
      return lowerMapAs(op, false, lbs, ubs, steps);
    }
  return lowerMapAs(op, parallel, lbs, ubs, steps);
}

Value Lowering::forkWorthIt(Location loc, MapOp op, ArrayRef<Value> lbs,
                            ArrayRef<Value> ubs, ArrayRef<Value> steps) {
  if (constantWork(op))
    return Value(); // decided when compiling (isSmallWork)
  bool opaque = false;
  op.walk([&](Operation *inner) {
    if (isa<WhileOp>(inner) || isLibraryCall(inner))
      opaque = true;
  });
  if (opaque)
    return Value(); // heavy or unbounded work per iteration: forks
  // The thresholds of isSmallWork, as a least number of iterations of the
  // map's own dimensions.
  int64_t ops = opsPerIteration(op);
  // Iterations nested in each of its own (1, the least, where unknown).
  int64_t inner = std::max<int64_t>(constantWork(op, false).value_or(1), 1);
  auto atLeast = [&](int64_t totalOps) { return (totalOps + ops - 1) / ops; };
  int64_t need = std::max(kMinParallelIterations, atLeast(kMinParallelOps));
  if (callsLibrary)
    need = std::max(need, atLeast(kMinParallelOpsWithLibrary));
  need = (need + inner - 1) / inner;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value trips = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [lb, ub, step] : llvm::zip(lbs, ubs, steps)) {
    Value n = arith::MaxSIOp::create(
        b, loc, zero,
        arith::CeilDivSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, ub, lb), step));
    trips = arith::MulIOp::create(b, loc, trips, n);
  }
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, trips,
                               arith::ConstantIndexOp::create(b, loc, need));
}

LogicalResult Lowering::lowerMapAs(MapOp op, bool parallel,
                                   SmallVector<Value> lbs,
                                   SmallVector<Value> ubs,
                                   SmallVector<Value> steps) {
  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(b);
  unsigned first = 0;
  SmallVector<RegisterReduction> reductions = findRegisterReductions(op);
  if (!reductions.empty() && op.getNumParams() > 0)
    return lowerReductionMap(op, reductions, parallel, lbs, ubs, steps);
  unsigned dist = parallel ? distributedDim(op) : 0;
  // Accumulations that every chunk shares (a column sum in a map over
  // rows: the gradient of a bias) go to private copies rather than atomics.
  SmallVector<PrivateCopy> copies;
  if (parallel && dist == 0 && !gpu && !op.getDisjointWcr() &&
      planAccumulations(op, 0).empty()) {
    copies = findPrivatizable(op);
    allocatePrivateCopies(loc, copies);
  }
  scf::ParallelOp chunked;
  if (parallel && dist == 0 && copies.empty()) {
    auto par = scf::ParallelOp::create(b, loc, lbs[0], ubs[0], steps[0]);
    b.setInsertionPoint(par.getBody()->getTerminator());
    mapping.map(op.getParams()[0], par.getInductionVars()[0]);
    first = 1;
  } else if (parallel) {
    // Chunk c runs a slice of dimension `dist` and every other dimension
    // whole, in the map's loop order: the innermost loop stays contiguous
    // (and vectorises) even when it is the one distributed, so chunks are
    // at least kMinSpan iterations long.
    constexpr int64_t kMinSpan = 32, kMaxChunks = 64;
    auto cst = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value trips = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ubs[dist], lbs[dist]),
        steps[dist]);
    Value chunks = arith::MaxSIOp::create(
        b, loc, cst(1),
        arith::MinSIOp::create(
            b, loc, cst(kMaxChunks),
            arith::DivSIOp::create(b, loc, trips, cst(kMinSpan))));
    Value span = arith::MulIOp::create(
        b, loc, arith::CeilDivSIOp::create(b, loc, trips, chunks), steps[dist]);
    auto par = scf::ParallelOp::create(b, loc, cst(0), chunks, cst(1));
    b.setInsertionPoint(par.getBody()->getTerminator());
    Value lo = arith::AddIOp::create(
        b, loc, lbs[dist],
        arith::MulIOp::create(b, loc, par.getInductionVars()[0], span));
    ubs[dist] = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, lo, span), ubs[dist]);
    lbs[dist] = lo;
    usePrivateCopies(loc, copies, par.getInductionVars()[0]);
    chunked = par;
  }
  // Every WCR write is separated by a distributed dimension other than
  // the first (distributedDim).
  bool atomic = parallel && dist == 0 && !op.getDisjointWcr();
  Value outer = distributed;
  if (parallel) {
    distributed = op.getParams()[dist];
    ++parallelDepth;
  }
  if (atomic)
    ++atomicDepth;
  AccumulationPlan plan = planAccumulations(op, first);
  LogicalResult result =
      plan.empty() ? lowerBodyInLoops(op, first, lbs, ubs, steps, nullptr)
                   : lowerAccumulations(op, plan, first, lbs, ubs, steps);
  if (parallel) {
    distributed = outer;
    --parallelDepth;
  }
  if (atomic)
    --atomicDepth;
  if (!copies.empty()) {
    b.setInsertionPointAfter(chunked);
    combinePrivateCopies(loc, copies, chunked.getUpperBound()[0]);
  }
  return result;
}

LogicalResult Lowering::lowerTasklet(TaskletOp op) {
  Block &body = op.getBody().front();
  for (auto [arg, in] : llvm::zip(body.getArguments(), op.getInputs()))
    mapping.map(arg, mapping.lookup(in));
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [res, v] : llvm::zip(op.getResults(), yield.getValues()))
    mapping.map(res, mapping.lookup(v));
  return success();
}

LogicalResult Lowering::lowerCopy(CopyOp op) {
  Location loc = op.getLoc();
  Subset src = op.getSourceSubsetInfo(), dst = op.getTargetSubsetInfo();
  SmallVector<Value> srcB =
      expandMap(loc, op.getSourceSubset(), op.getIndices());
  SmallVector<Value> dstB =
      expandMap(loc, op.getTargetSubset(), op.getIndices());
  Value source = mapping.lookup(op.getSource());
  Value target = mapping.lookup(op.getTarget());
  SmallVector<IndexCheck> checks =
      subsetChecks(loc, source, src, op.getSourceSubset(), srcB, op);
  checks.append(subsetChecks(loc, target, dst, op.getTargetSubset(), dstB, op));
  guardAccess(loc, checks, Type(), [&] {
    lowerCopyLoops(op, source, target, srcB, dstB);
    return Value();
  });
  return success();
}

void Lowering::lowerCopyLoops(CopyOp op, Value source, Value target,
                              ArrayRef<Value> srcB, ArrayRef<Value> dstB) {
  Location loc = op.getLoc();
  Subset src = op.getSourceSubsetInfo(), dst = op.getTargetSubsetInfo();
  // One counter per range dimension of the source; the verifier made the
  // target's range dimensions correspond one to one.
  SmallVector<unsigned> srcRanges = src.getRangeDims();
  OpBuilder::InsertionGuard guard(b);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> counters;
  for (unsigned d : srcRanges) {
    Value lo = srcB[2 * d], hi = srcB[2 * d + 1];
    Value step = arith::ConstantIndexOp::create(b, loc, src[d].step);
    Value extent = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, hi, lo), step);
    auto loop = scf::ForOp::create(b, loc, zero, extent, one);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    counters.push_back(loop.getInductionVar());
  }
  auto indices = [&](const Subset &s, ArrayRef<Value> bounds) {
    SmallVector<Value> idx;
    unsigned k = 0;
    for (unsigned d = 0; d < s.getRank(); ++d) {
      if (!s[d].isRange) {
        idx.push_back(bounds[2 * d]);
        continue;
      }
      Value off = counters[k++];
      if (s[d].step != 1)
        off = arith::MulIOp::create(
            b, loc, off, arith::ConstantIndexOp::create(b, loc, s[d].step));
      idx.push_back(arith::AddIOp::create(b, loc, bounds[2 * d], off));
    }
    return idx;
  };
  SmallVector<Value> si = indices(src, srcB);
  SmallVector<Value> di = indices(dst, dstB);
  Value v = memref::LoadOp::create(b, loc, source, si);
  emitWrite(loc, v, target, di, op.getWcr());
}

LogicalResult Lowering::lowerOnOneThread(Operation *op) {
  return op->emitOpError("runs on one GPU thread only under "
                         "convert-sdfg-to-gpu");
}

LogicalResult Lowering::lowerGPUMap(MapOp op, ArrayRef<Value>, ArrayRef<Value>,
                                    ArrayRef<Value>) {
  return op->emitOpError("is a GPU kernel only under convert-sdfg-to-gpu");
}

namespace {
struct ConvertSDFGToSCFPass
    : public sdfg::impl::ConvertSDFGToSCFBase<ConvertSDFGToSCFPass> {
  using ConvertSDFGToSCFBase::ConvertSDFGToSCFBase;
  void runOnOperation() override {
    if (failed(lowerSDFGs(getOperation(), [&](ModuleOp m, OpBuilder &b) {
          return std::make_unique<Lowering>(m, b, /*gpu=*/false, checkIndices);
        })))
      signalPassFailure();
  }
};
} // namespace
