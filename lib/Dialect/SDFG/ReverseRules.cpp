//===- ReverseRules.cpp - ReverseModeOpInterface of the sdfg ops ----------===//
//
// One reverse-mode rule per op. Control flow is reversed structurally
// (loops run backwards over the same iterations, maps keep their range and
// schedule, conditionals take the branch recorded on their tape); memlet
// writes hand their gradient to the value written, clear the overwritten
// gradient and restore the overwritten primal value from the tape; reads
// accumulate into gradients with wcr(add).
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;

/// Whether reversing `op` emits anything: it (or an op inside it) writes an
/// active container or restores a taped one.
static bool needsReverse(ReverseBuilder &rb, Operation *op) {
  bool need = false;
  op->walk([&](Operation *inner) {
    if (need)
      return;
    if (!isa<IfOp>(inner) && rb.tapes.count(inner))
      need = true;
    Value w = getWrittenContainer(inner);
    if (w && rb.gradientOf(w))
      need = true;
  });
  return need;
}

static Value
scalarTasklet(ReverseBuilder &rb, Location loc, ValueRange inputs, Type result,
              function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn);

/// Index operands of a forward op, recomputed at the insertion point.
static SmallVector<Value> recomputeAll(ReverseBuilder &rb, ValueRange vals) {
  SmallVector<Value> out;
  for (Value v : vals)
    out.push_back(rb.recompute(v));
  return out;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult StateOp::emitReverse(ReverseBuilder &rb) {
  if (!needsReverse(rb, *this))
    return success();
  OpBuilder::InsertionGuard guard(rb.b);
  std::string label =
      getLabel() ? ("reverse " + *getLabel()).str() : std::string("reverse");
  auto state = StateOp::create(rb.b, getLoc(), StringRef(label));
  rb.b.setInsertionPointToStart(&state.getBody().front());
  // Values recomputed inside this state are not visible after it.
  IRMapping saved = rb.map;
  LogicalResult r = rb.reverseRegion(getBody());
  rb.map = saved;
  return r;
}

LogicalResult LoopOp::emitReverse(ReverseBuilder &rb) {
  if (!needsReverse(rb, *this))
    return success();
  rb.loadBounds(*this);
  // Same iterations, backwards: from the last executed iteration
  // lb + ((ub - lb - 1) floordiv s) * s down to lb (exclusive bound
  // lb - s), so any step sign and size is exact.
  AffineExpr lb = getLowerExpr(), ub = getUpperExpr();
  int64_t s = getStepValue();
  AffineExpr last = s > 0 ? lb + ((ub - lb - 1).floorDiv(s)) * s
                          : lb - ((lb - ub - 1).floorDiv(-s)) * (-s);
  AffineMap bounds =
      AffineMap::get(getBounds().getNumDims(), 0, {last, lb - s}, getContext());
  // With constant bounds: a loop without iterations has nothing to
  // reverse, and the reversed bounds must stay in the range the verifier
  // allows (a zero-trip loop's "last iteration" may lie far below it).
  auto lbConst = dyn_cast<AffineConstantExpr>(lb);
  auto ubConst = dyn_cast<AffineConstantExpr>(ub);
  if (lbConst && ubConst &&
      (s > 0 ? ubConst.getValue() <= lbConst.getValue()
             : ubConst.getValue() >= lbConst.getValue()))
    return success();
  constexpr int64_t kLimit = int64_t(1) << 62;
  for (AffineExpr e : bounds.getResults())
    if (auto c = dyn_cast<AffineConstantExpr>(e);
        c && (c.getValue() <= -kLimit || c.getValue() >= kLimit))
      return emitOpError() << "autodiff cannot reverse this loop: its "
                              "reversed bound "
                           << c.getValue()
                           << " is out of range (must be below 2^62 in "
                              "magnitude)";
  SmallVector<Value> operands = recomputeAll(rb, getBoundOperands());
  OpBuilder::InsertionGuard guard(rb.b);
  auto loop =
      LoopOp::create(rb.b, getLoc(), operands, AffineMapAttr::get(bounds),
                     rb.b.getI64IntegerAttr(-s));
  Block *body = new Block();
  loop.getBody().push_back(body);
  Value iv = body->addArgument(rb.b.getIndexType(), getLoc());
  IRMapping saved = rb.map;
  rb.map.map(getIterator(), iv);
  rb.b.setInsertionPointToStart(body);
  LogicalResult r = rb.reverseRegion(getBody());
  rb.map = saved;
  return r;
}

LogicalResult IfOp::emitReverse(ReverseBuilder &rb) {
  if (!needsReverse(rb, *this))
    return success();
  auto it = rb.tapes.find(*this);
  if (it == rb.tapes.end())
    return emitOpError("autodiff found no stored condition for this branch");
  // The branch taken is read back from the tape: re-evaluating the
  // condition could see data the program overwrote since.
  SmallVector<Value> conds;
  for (const TapeSlot &slot : it->second) {
    SmallVector<Value> operands;
    AffineMap m = rb.tapeIndex(slot, {}, {}, operands);
    conds.push_back(rb.load(getLoc(), slot.tape, m, operands));
  }
  OpBuilder::InsertionGuard guard(rb.b);
  auto rev = IfOp::create(rb.b, getLoc(), conds, getBranches().size());
  for (auto [fwd, bwd] : llvm::zip(getBranches(), rev.getBranches())) {
    Block *blk = new Block();
    bwd.push_back(blk);
    rb.b.setInsertionPointToStart(blk);
    IRMapping saved = rb.map;
    LogicalResult r = rb.reverseRegion(fwd);
    rb.map = saved;
    if (failed(r))
      return failure();
  }
  return success();
}

LogicalResult WhileOp::emitReverse(ReverseBuilder &rb) {
  if (!needsReverse(rb, *this))
    return success();
  auto it = rb.whileLoops.find(*this);
  if (it == rb.whileLoops.end())
    return emitOpError("autodiff found no iteration count for this loop");
  auto [counter, index] = it->second;
  Location loc = getLoc();
  OpBuilder &b = rb.b;
  // The iterations this execution ran (the counter is restored per
  // execution like any overwritten value), capped by the tape capacity.
  Value count =
      rb.load(loc, counter, AffineMap::get(b.getContext()), ValueRange{});
  int64_t cap = rb.whileCapacity;
  Value trips = scalarTasklet(
      rb, loc, {count}, b.getIndexType(),
      [cap](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
        Value i = arith::IndexCastOp::create(ib, l, ib.getIndexType(), a[0]);
        Value c = arith::ConstantIndexOp::create(ib, l, cap);
        return arith::MinSIOp::create(ib, l, i, c);
      });
  AffineExpr d0 = b.getAffineDimExpr(0);
  AffineMap bounds = AffineMap::get(1, 0, {d0 - 1, b.getAffineConstantExpr(-1)},
                                    b.getContext());
  OpBuilder::InsertionGuard guard(b);
  auto loop =
      LoopOp::create(b, loc, ValueRange{trips}, AffineMapAttr::get(bounds),
                     b.getI64IntegerAttr(-1));
  Block *body = new Block();
  loop.getBody().push_back(body);
  Value iv = body->addArgument(b.getIndexType(), loc);
  IRMapping saved = rb.map;
  rb.map.map(index, iv);
  b.setInsertionPointToStart(body);
  LogicalResult r = rb.reverseRegion(getBody());
  rb.map = saved;
  return r;
}

/// Whether `access` (a load or store directly in `map`'s body) reaches
/// the same element in every iteration: a scalar coefficient every
/// iteration reads, whose gradient the reversed map accumulates in a
/// register (combined once per chunk by the lowering), or a sum every
/// iteration adds to, whose gradient it only reads. Neither conflicts
/// across iterations.
static bool reachesOneElement(MapOp map, Operation *access,
                              ValueRange indices) {
  Region &body = map.getBody();
  return access->getParentOp() == map.getOperation() &&
         llvm::none_of(indices, [&](Value v) {
           return body.isAncestor(v.getParentRegion());
         });
}

/// Whether two iterations of `map` may read the same element of a
/// container (so that the reversed map accumulates into it concurrently):
/// some load's indices are not one distinct parameter per dimension.
static bool hasConflictingReads(MapOp map) {
  bool conflict = false;
  map.walk([&](LoadOp load) {
    if (reachesOneElement(map, load, load.getIndices()))
      return;
    AffineMap m = load.getMap();
    llvm::SmallDenseSet<Value> params;
    unsigned used = 0;
    for (AffineExpr e : m.getResults()) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (!d)
        continue;
      Value v = load.getIndices()[d.getPosition()];
      if (auto arg = dyn_cast<BlockArgument>(v))
        if (arg.getOwner()->getParentOp() == map.getOperation() &&
            params.insert(v).second)
          ++used;
    }
    if (used != map.getNumParams())
      conflict = true;
  });
  return conflict;
}

/// Reverses `map` as `colors` parallel sweeps over its first dimension,
/// one after the other in the same state: sweep c runs param0 = c,
/// c + colors, c + 2 colors, ...
LogicalResult MapOp::emitColoredReverse(ReverseBuilder &rb, ValueRange operands,
                                        int64_t colors) {
  OpBuilder &b = rb.b;
  Location loc = getLoc();
  MLIRContext *ctx = getContext();
  unsigned n = operands.size();
  for (int64_t c = 0; c < colors; ++c) {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<AffineExpr> lbs, ubs;
    for (auto [k, e] : llvm::enumerate(getLowerBounds().getResults()))
      lbs.push_back(k == 0 ? b.getAffineConstantExpr(0) : e);
    for (auto [k, e] : llvm::enumerate(getUpperBounds().getResults()))
      ubs.push_back(k == 0 ? (e - c).ceilDiv(colors) : e);
    auto map = MapOp::create(
        b, loc, operands, AffineMapAttr::get(AffineMap::get(n, 0, lbs, ctx)),
        AffineMapAttr::get(AffineMap::get(n, 0, ubs, ctx)), getStepsAttr(),
        ScheduleKindAttr::get(ctx, ScheduleKind::cpu_multicore),
        b.getUnitAttr());
    Block *body = new Block();
    map.getBody().push_back(body);
    SmallVector<Value> params;
    for (BlockArgument p : getParams())
      params.push_back(body->addArgument(p.getType(), loc));
    b.setInsertionPointToStart(body);
    // param0 = c + q * colors; with one colour the parameter itself, so
    // that memlets keep indexing by it (sdfg-eliminate-dead-writes sees
    // which elements a store covers).
    Value p0 = params[0];
    if (colors > 1)
      p0 = scalarTasklet(
          rb, loc, {params[0]}, b.getIndexType(),
          [colors, c](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
            Value stride = arith::ConstantIndexOp::create(ib, l, colors);
            Value offset = arith::ConstantIndexOp::create(ib, l, c);
            Value m = arith::MulIOp::create(ib, l, a[0], stride);
            return arith::AddIOp::create(ib, l, m, offset);
          });
    IRMapping saved = rb.map;
    rb.map.map(getParams()[0], p0);
    for (unsigned k = 1; k < params.size(); ++k)
      rb.map.map(getParams()[k], params[k]);
    LogicalResult r = rb.reverseRegion(getBody());
    rb.map = saved;
    if (failed(r))
      return failure();
  }
  return success();
}

/// For a map whose every memlet indexes some dimension of its container as
/// `param0 + c` (the same dimension for every memlet of a container), the
/// spread max(c) - min(c): iterations whose param0 differ by more than that
/// touch disjoint elements. std::nullopt otherwise.
static std::optional<int64_t> rowSpread(MapOp map, bool lenient = false) {
  Value p0 = map.getParams()[0];
  // Leniently, accesses no row tells apart are left out: of one element
  // (their gradients reduce in registers), or of small containers (a bias
  // every row reads: the CPU lowering gives each chunk of rows its own copy
  // of their gradients). Rows then collide on those, so a map reversed on
  // that basis must not claim disjoint_wcr.
  Region &body = map.getBody();
  auto shared = [&](Value container, ValueRange indices) {
    auto type = dyn_cast<MemRefType>(container.getType());
    if (!lenient || !type || !fitsPrivateCopies(type))
      return false;
    return llvm::all_of(indices, [&](Value v) {
      if (v == p0)
        return false;
      // Map parameters, and values from outside: not data.
      auto arg = dyn_cast<BlockArgument>(v);
      return (arg && arg.getOwner()->getParentOp() == map.getOperation()) ||
             !body.isAncestor(v.getParentRegion());
    });
  };
  int64_t lo = std::numeric_limits<int64_t>::max();
  int64_t hi = std::numeric_limits<int64_t>::min();
  bool ok = true;
  llvm::DenseMap<Value, unsigned> rowDim;
  auto check = [&](Value container, AffineMap m, ValueRange indices) {
    auto pos = llvm::find(indices, p0);
    if (pos == indices.end()) {
      ok = false; // every iteration touches the same elements
      return;
    }
    unsigned k = pos - indices.begin();
    AffineExpr p = getAffineDimExpr(k, map.getContext());
    for (auto [d, e] : llvm::enumerate(m.getResults())) {
      if (!e.isFunctionOfDim(k))
        continue;
      auto c = dyn_cast<AffineConstantExpr>(
          simplifyAffineExpr(e - p, indices.size(), 0));
      auto [it, inserted] = rowDim.try_emplace(container, d);
      if (!c || it->second != d) {
        ok = false;
        return;
      }
      lo = std::min(lo, c.getValue());
      hi = std::max(hi, c.getValue());
      return;
    }
    ok = false;
  };
  map.walk([&](Operation *op) {
    if (auto l = dyn_cast<LoadOp>(op)) {
      if (!(lenient && reachesOneElement(map, l, l.getIndices())) &&
          !shared(l.getMemref(), l.getIndices()))
        check(l.getMemref(), l.getMap(), l.getIndices());
    } else if (auto s = dyn_cast<StoreOp>(op)) {
      // A WCR store into one element (or a shared one) reverses to a read
      // of its gradient.
      if (!(s.getWcr() &&
            ((lenient && reachesOneElement(map, s, s.getIndices())) ||
             shared(s.getMemref(), s.getIndices()))))
        check(s.getMemref(), s.getMap(), s.getIndices());
    } else if (isa<CopyOp>(op) || (op != map && isa<MapOp>(op))) {
      ok = false;
    }
  });
  int64_t spread;
  if (!ok || lo > hi || llvm::SubOverflow(hi, lo, spread))
    return std::nullopt;
  return spread;
}

/// A scalar computed by a tasklet over `inputs` in the backward program.
static Value
scalarTasklet(ReverseBuilder &rb, Location loc, ValueRange inputs, Type result,
              function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn);
static LogicalResult checkRecomputable(Value value, Operation *user);

/// A transient of `type`, allocated at the start of the gradient program.
static Value allocTransient(ReverseBuilder &rb, Location loc, MemRefType type) {
  Operation *parent = rb.b.getInsertionBlock()->getParentOp();
  auto sdfg = isa<SDFGOp>(parent) ? cast<SDFGOp>(parent)
                                  : parent->getParentOfType<SDFGOp>();
  OpBuilder::InsertionGuard guard(rb.b);
  rb.b.setInsertionPointToStart(&sdfg.getBody().front());
  return AllocOp::create(rb.b, loc, type, ValueRange{});
}

/// The min/max/mul accumulations of `map`'s body whose reversal needs a
/// census (ReverseBuilder::Census): their targets carry gradients and
/// were not taped.
static SmallVector<StoreOp> censusStores(ReverseBuilder &rb, MapOp map) {
  SmallVector<StoreOp> out;
  for (Operation &op : map.getBody().front())
    if (auto s = dyn_cast<StoreOp>(op);
        s && s.getWcr() && *s.getWcr() != WCRKind::add &&
        rb.gradientOf(s.getMemref()) && !rb.tapes.count(s))
      out.push_back(s);
  return out;
}

/// The constant that the last write before `map` (in its block) stores
/// into every element of `target`: a state-level store of a constant, or
/// a map storing one at its parameters (how reductions are initialised).
static std::optional<double> constantOldValue(MapOp map, Value target) {
  auto constantOf = [](Value v) -> std::optional<double> {
    if (auto f = dyn_cast_or_null<FloatAttr>(getTaskletConstant(v)))
      return f.getValueAsDouble();
    return std::nullopt;
  };
  for (Operation *op = map->getPrevNode(); op; op = op->getPrevNode()) {
    if (!writesContainer(op, target))
      continue;
    if (auto s = dyn_cast<StoreOp>(op))
      return s.getWcr() ? std::nullopt : constantOf(s.getValue());
    auto fill = dyn_cast<MapOp>(op);
    if (!fill)
      return std::nullopt;
    for (Operation &inner : fill.getBody().front())
      if (auto s = dyn_cast<StoreOp>(inner);
          s && s.getMemref() == target && !s.getWcr() &&
          llvm::equal(s.getIndices(), fill.getParams()) &&
          s.getMap().isIdentity())
        return constantOf(s.getValue());
    return std::nullopt;
  }
  return std::nullopt;
}

/// Before the reversal of `map`: counts, per target element of each of
/// its min/max/mul accumulations, the contributions equal to the result
/// (min/max), or the zero factors and the product of the others (mul).
static LogicalResult emitCensus(ReverseBuilder &rb, MapOp map,
                                ValueRange operands) {
  SmallVector<StoreOp> stores = censusStores(rb, map);
  if (stores.empty())
    return success();
  Location loc = map.getLoc();
  OpBuilder &b = rb.b;
  llvm::DenseSet<Value> targets;
  for (StoreOp s : stores) {
    auto type = cast<MemRefType>(s.getMemref().getType());
    if (!type.hasStaticShape() || !isa<FloatType>(type.getElementType()))
      return s.emitOpError("autodiff of a wcr(")
             << stringifyWCRKind(*s.getWcr())
             << ") accumulation needs a float target of static shape";
    if (!targets.insert(s.getMemref()).second)
      return s.emitOpError("autodiff of two min/max/mul accumulations into "
                           "one container in a map is not supported");
    if (failed(checkRecomputable(s.getValue(), s)))
      return failure();
    ReverseBuilder::Census c;
    c.count = allocTransient(rb, loc, type);
    double zeros = 0.0, product = 1.0;
    if (*s.getWcr() == WCRKind::mul) {
      // A factor's adjoint includes the old value, which the census cannot
      // read back (the target holds the product): it must be a constant,
      // as the 1 that reductions start from.
      std::optional<double> old = constantOldValue(map, s.getMemref());
      if (!old)
        return s.emitOpError("autodiff of a wcr(mul) accumulation needs "
                             "its target set to a constant before the map");
      (*old == 0.0 ? zeros : product) = *old == 0.0 ? 1.0 : *old;
      c.nonzero = allocTransient(rb, loc, type);
      rb.fill(loc, c.nonzero, product, /*inState=*/true);
    }
    rb.fill(loc, c.count, zeros, /*inState=*/true);
    rb.census[s] = c;
  }
  // Its writes index the census like the map's own accumulations index
  // their targets: the map's schedule suits it.
  auto census = MapOp::create(b, loc, operands, map.getLowerBoundsAttr(),
                              map.getUpperBoundsAttr(), map.getStepsAttr(),
                              map.getScheduleAttr());
  Block *body = new Block();
  census.getBody().push_back(body);
  OpBuilder::InsertionGuard guard(b);
  IRMapping saved = rb.map;
  for (BlockArgument p : map.getParams())
    rb.map.map(p, body->addArgument(p.getType(), loc));
  b.setInsertionPointToStart(body);
  for (StoreOp s : stores) {
    const ReverseBuilder::Census &c = rb.census[s];
    SmallVector<Value> idx = rb.lookup(s.getIndices());
    AffineMap m = s.getMap();
    Value v = rb.recompute(s.getValue());
    Type elt = v.getType();
    auto cst = [elt](OpBuilder &ib, Location l, double x) -> Value {
      return arith::ConstantOp::create(ib, l, elt, ib.getFloatAttr(elt, x));
    };
    if (*s.getWcr() == WCRKind::mul) {
      Value zero = scalarTasklet(
          rb, loc, {v}, elt,
          [&](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
            Value z = arith::CmpFOp::create(ib, l, arith::CmpFPredicate::OEQ,
                                            a[0], cst(ib, l, 0.0));
            return arith::SelectOp::create(ib, l, z, cst(ib, l, 1.0),
                                           cst(ib, l, 0.0));
          });
      rb.store(loc, zero, c.count, m, idx, /*accumulate=*/true);
      Value factor = scalarTasklet(
          rb, loc, {v}, elt,
          [&](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
            Value z = arith::CmpFOp::create(ib, l, arith::CmpFPredicate::OEQ,
                                            a[0], cst(ib, l, 0.0));
            return arith::SelectOp::create(ib, l, z, cst(ib, l, 1.0), a[0]);
          });
      StoreOp::create(b, loc, factor, c.nonzero, idx, m,
                      WCRKindAttr::get(b.getContext(), WCRKind::mul));
      continue;
    }
    Value acc = rb.load(loc, s.getMemref(), m, idx);
    Value hit = scalarTasklet(
        rb, loc, {v, acc}, elt,
        [&](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
          Value eq = arith::CmpFOp::create(ib, l, arith::CmpFPredicate::OEQ,
                                           a[0], a[1]);
          return arith::SelectOp::create(ib, l, eq, cst(ib, l, 1.0),
                                         cst(ib, l, 0.0));
        });
    rb.store(loc, hit, c.count, m, idx, /*accumulate=*/true);
  }
  rb.map = saved;
  return success();
}

/// After the reversal of `map`: the gradient left in each min/max/mul
/// target is what reaches the value the target held before the map (the
/// reversal of the write that initialised it takes it): all of it for a
/// min/max that no contribution reached (the old value was the result),
/// none otherwise; for mul, times the product of all factors.
static void scaleOldValueGradients(ReverseBuilder &rb, MapOp map) {
  for (Operation &op : map.getBody().front()) {
    auto s = dyn_cast<StoreOp>(op);
    auto it = s ? rb.census.find(s) : rb.census.end();
    if (it == rb.census.end())
      continue;
    const ReverseBuilder::Census &c = it->second;
    Value grad = rb.gradientOf(s.getMemref());
    auto type = cast<MemRefType>(grad.getType());
    Location loc = s.getLoc();
    OpBuilder::InsertionGuard guard(rb.b);
    SmallVector<Value> params = rb.openMap(loc, type.getShape(), true);
    AffineMap id =
        AffineMap::getMultiDimIdentityMap(type.getRank(), rb.b.getContext());
    Value g = rb.load(loc, grad, id, params);
    SmallVector<Value> ins{g, rb.load(loc, c.count, id, params)};
    if (c.nonzero)
      ins.push_back(rb.load(loc, c.nonzero, id, params));
    Type elt = g.getType();
    Value scaled = scalarTasklet(
        rb, loc, ins, elt,
        [&](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
          Value zero =
              arith::ConstantOp::create(ib, l, elt, ib.getFloatAttr(elt, 0.0));
          Value none = arith::CmpFOp::create(ib, l, arith::CmpFPredicate::OEQ,
                                             a[1], zero);
          Value kept =
              a.size() == 3
                  ? arith::MulFOp::create(ib, l, a[0], a[2]).getResult()
                  : a[0];
          return arith::SelectOp::create(ib, l, none, kept, zero);
        });
    rb.store(loc, scaled, grad, id, params, /*accumulate=*/false);
  }
}

LogicalResult MapOp::emitReverse(ReverseBuilder &rb) {
  if (!needsReverse(rb, *this))
    return success();
  rb.loadBounds(*this);
  SmallVector<Value> operands = recomputeAll(rb, getRangeOperands());
  if (failed(emitCensus(rb, *this, operands)))
    return failure();
  LogicalResult result = emitReversedMap(rb, operands);
  if (succeeded(result))
    scaleOldValueGradients(rb, *this);
  return result;
}

LogicalResult MapOp::emitReversedMap(ReverseBuilder &rb, ValueRange operands) {
  OpBuilder::InsertionGuard guard(rb.b);
  // Gradient reads become accumulations into neighbouring elements
  // (stencils): in parallel they would need an atomic per element, which
  // on x86 is a compare-and-swap loop for floats. When every memlet offsets
  // the first parameter by c in [lo, hi], iterations hi - lo + 1 apart never
  // collide: the map runs as hi - lo + 1 parallel sweeps without atomics.
  // Otherwise it runs sequentially, where the accumulations vectorise.
  ScheduleKind schedule = getSchedule();
  if (schedule == ScheduleKind::cpu_multicore && hasConflictingReads(*this)) {
    std::optional<int64_t> spread = rowSpread(*this);
    auto lb0 = dyn_cast<AffineConstantExpr>(getLowerBounds().getResult(0));
    // Stencils reach a few neighbours; a wide reach (one sweep per
    // offset, each a map) runs sequentially instead.
    constexpr int64_t kMaxColors = 16;
    if (spread && *spread < kMaxColors && lb0 && lb0.getValue() == 0 &&
        getSteps()[0] == 1)
      return emitColoredReverse(rb, operands, *spread + 1);
    // Rows that touch only their own elements, besides single elements
    // (a scalar coefficient, a sum every row adds to) and small containers
    // every row reads (a bias, LayerNorm's gamma): parallel, with their
    // gradients reduced in registers or private copies per chunk by the
    // lowering (atomics on the GPU). Not disjoint_wcr: those
    // accumulations collide across rows.
    std::optional<int64_t> own = rowSpread(*this, /*lenient=*/true);
    if (!own || *own != 0)
      schedule = ScheduleKind::sequential;
  }
  auto map = MapOp::create(rb.b, getLoc(), operands, getLowerBoundsAttr(),
                           getUpperBoundsAttr(), getStepsAttr(),
                           ScheduleKindAttr::get(getContext(), schedule));
  Block *body = new Block();
  map.getBody().push_back(body);
  IRMapping saved = rb.map;
  for (BlockArgument p : getParams())
    rb.map.map(p, body->addArgument(p.getType(), getLoc()));
  rb.b.setInsertionPointToStart(body);
  LogicalResult r = rb.reverseRegion(getBody());
  rb.map = saved;
  return r;
}

//===----------------------------------------------------------------------===//
// Memlets
//===----------------------------------------------------------------------===//

/// A scalar computed by a tasklet over `inputs` in the backward program.
static Value
scalarTasklet(ReverseBuilder &rb, Location loc, ValueRange inputs, Type result,
              function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn) {
  return rb
      .tasklet(loc, TypeRange{result}, inputs,
               [&](OpBuilder &b, ArrayRef<Value> args) -> SmallVector<Value> {
                 return {fn(b, loc, args)};
               })
      .getResult(0);
}

/// Checks that the loads feeding `value` still see, at `user`, the data
/// they read: nothing between them and `user` in the same block writes the
/// container they read. Recomputing them in the backward program relies
/// on it.
static LogicalResult checkRecomputable(Value value, Operation *user) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != user->getBlock())
    return success();
  if (auto load = dyn_cast<LoadOp>(def)) {
    for (Operation *op = def->getNextNode(); op && op != user;
         op = op->getNextNode()) {
      bool writes = false;
      op->walk([&](Operation *inner) {
        if (getWrittenContainer(inner) == load.getMemref())
          writes = true;
      });
      if (writes)
        return op->emitOpError("overwrites data that a later write in the "
                               "same state reads; autodiff needs the read "
                               "and the overwrite in separate states");
    }
    return success();
  }
  if (auto t = dyn_cast<TaskletOp>(def))
    for (Value in : t.getInputs())
      if (failed(checkRecomputable(in, user)))
        return failure();
  return success();
}

LogicalResult StoreOp::emitReverse(ReverseBuilder &rb) {
  Value grad = rb.gradientOf(getMemref());
  auto tapeIt = rb.tapes.find(*this);
  bool taped = tapeIt != rb.tapes.end();
  if (!grad && !taped)
    return success();
  Location loc = getLoc();
  OpBuilder &b = rb.b;
  Type elt = getValue().getType();
  SmallVector<Value> idx = recomputeAll(rb, getIndices());
  AffineMap m = getMap();
  std::optional<WCRKind> wcr = getWcr();

  Value g;
  auto census = rb.census.find(*this);
  if (grad && census != rb.census.end()) {
    // A min/max/mul accumulated by a map, with the census of all its
    // contributions (emitCensus). min/max: the contributions equal to the
    // result share its gradient (the container still holds the result;
    // the old value's share is left in the gradient by
    // scaleOldValueGradients). mul: a factor's adjoint is the product of
    // the others: the nonzero product over it when no factor is zero, the
    // nonzero product for the one zero factor, else nothing.
    const ReverseBuilder::Census &c = census->second;
    g = rb.load(loc, grad, m, idx);
    Value v = rb.recompute(getValue());
    Value count = rb.load(loc, c.count, m, idx);
    bool mul = *wcr == WCRKind::mul;
    Value other = mul ? rb.load(loc, c.nonzero, m, idx)
                      : rb.load(loc, getMemref(), m, idx);
    Value dv = scalarTasklet(
        rb, loc, {g, v, count, other}, elt,
        [&](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
          auto cst = [&](double x) -> Value {
            return arith::ConstantOp::create(ib, l, elt,
                                             ib.getFloatAttr(elt, x));
          };
          auto eq = [&](Value x, Value y) -> Value {
            return arith::CmpFOp::create(ib, l, arith::CmpFPredicate::OEQ, x,
                                         y);
          };
          if (!mul) {
            Value share = arith::DivFOp::create(ib, l, a[0], a[2]);
            return arith::SelectOp::create(ib, l, eq(a[1], a[3]), share,
                                           cst(0.0));
          }
          Value gp = arith::MulFOp::create(ib, l, a[0], a[3]);
          Value noZero = arith::DivFOp::create(ib, l, gp, a[1]);
          Value oneZero = arith::SelectOp::create(
              ib, l,
              arith::AndIOp::create(ib, l, eq(a[2], cst(1.0)),
                                    eq(a[1], cst(0.0))),
              gp, cst(0.0));
          return arith::SelectOp::create(ib, l, eq(a[2], cst(0.0)), noZero,
                                         oneZero);
        });
    return rb.backprop(getValue(), dv);
  }
  if (grad) {
    g = rb.load(loc, grad, m, idx);
    if ((!wcr || *wcr != WCRKind::add) &&
        !rb.deadClears.contains(getOperation())) {
      // An overwrite (or a product/min/max) consumes the gradient; what
      // reaches the old value is written back below.
      Value zero = rb.constantTasklet(loc, elt, 0.0);
      rb.store(loc, zero, grad, m, idx, /*accumulate=*/false);
    }
  }
  Value old;
  if (taped) {
    const TapeSlot &slot = tapeIt->second.front();
    SmallVector<Value> tops;
    AffineMap tm = rb.tapeIndex(slot, {}, {}, tops);
    old = rb.load(loc, slot.tape, tm, tops);
    // Restore the element to its value before this store, so that the
    // rules of earlier ops read the data they read in the forward pass.
    rb.store(loc, old, getMemref(), m, idx, /*accumulate=*/false);
  }
  if (!grad || !isa<FloatType>(elt))
    return success();
  if (failed(checkRecomputable(getValue(), *this)))
    return failure();
  Value adjV = g;
  if (wcr && *wcr != WCRKind::add) {
    if (!old)
      return emitOpError("autodiff needs the old value of this wcr target");
    Value v = rb.recompute(getValue());
    WCRKind kind = *wcr;
    // Adjoints of the written value and of the old element.
    auto pair =
        TaskletOp::create(b, loc, TypeRange{elt, elt}, ValueRange{g, old, v});
    Block *blk = new Block();
    pair.getBody().push_back(blk);
    Value bg = blk->addArgument(elt, loc), bo = blk->addArgument(elt, loc),
          bv = blk->addArgument(elt, loc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(blk);
      Value dv, dold;
      if (kind == WCRKind::mul) {
        dv = arith::MulFOp::create(b, loc, bg, bo);
        dold = arith::MulFOp::create(b, loc, bg, bv);
      } else {
        auto pred = kind == WCRKind::max ? arith::CmpFPredicate::OGE
                                         : arith::CmpFPredicate::OLE;
        Value took = arith::CmpFOp::create(b, loc, pred, bv, bo);
        Value zero =
            arith::ConstantOp::create(b, loc, elt, b.getFloatAttr(elt, 0.0));
        dv = arith::SelectOp::create(b, loc, took, bg, zero);
        dold = arith::SelectOp::create(b, loc, took, zero, bg);
      }
      YieldOp::create(b, loc, ValueRange{dv, dold});
    }
    adjV = pair.getResult(0);
    rb.store(loc, pair.getResult(1), grad, m, idx, /*accumulate=*/false);
  }
  return rb.backprop(getValue(), adjV);
}

LogicalResult CopyOp::emitReverse(ReverseBuilder &rb) {
  Value dB = rb.gradientOf(getTarget());
  auto tapeIt = rb.tapes.find(*this);
  if (!dB && tapeIt == rb.tapes.end())
    return success();
  Location loc = getLoc();
  MLIRContext *ctx = getContext();
  Subset src = getSourceSubsetInfo(), dst = getTargetSubsetInfo();
  SmallVector<Value> ops = recomputeAll(rb, getIndices());
  unsigned n = ops.size();
  AffineMap srcElem = ReverseBuilder::subsetElement(src, n, ctx);
  AffineMap dstElem = ReverseBuilder::subsetElement(dst, n, ctx);
  std::optional<WCRKind> wcr = getWcr();
  if (dB) {
    if (wcr && *wcr != WCRKind::add)
      return emitOpError("autodiff of sdfg.copy with wcr(")
             << stringifyWCRKind(*wcr) << ") is not supported yet";
    // dA[src] += dB[dst]; an overwrite clears dB[dst].
    OpBuilder::InsertionGuard guard(rb.b);
    SmallVector<Value> params = rb.openSubset(loc, dst, ops, false);
    SmallVector<Value> idx(ops);
    llvm::append_range(idx, params);
    Value g = rb.load(loc, dB, dstElem, idx);
    if (Value dA = rb.gradientOf(getSource()))
      rb.store(loc, g, dA, srcElem, idx, /*accumulate=*/true);
    if (!wcr && !rb.deadClears.contains(getOperation())) {
      Value zero = rb.constantTasklet(loc, g.getType(), 0.0);
      rb.store(loc, zero, dB, dstElem, idx, /*accumulate=*/false);
    }
  }
  if (tapeIt != rb.tapes.end()) {
    // Put back the overwritten target elements.
    const TapeSlot &slot = tapeIt->second.front();
    OpBuilder::InsertionGuard guard(rb.b);
    SmallVector<Value> params = rb.openSubset(loc, dst, ops, true);
    SmallVector<AffineExpr> extra;
    for (unsigned i = 0; i < params.size(); ++i)
      extra.push_back(getAffineDimExpr(i, ctx));
    SmallVector<Value> tops;
    AffineMap tm = rb.tapeIndex(slot, extra, params, tops);
    Value old = rb.load(loc, slot.tape, tm, tops);
    SmallVector<Value> idx(ops);
    llvm::append_range(idx, params);
    rb.store(loc, old, getTarget(), dstElem, idx, /*accumulate=*/false);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Library ops
//===----------------------------------------------------------------------===//

/// `container[idx] += value` where no other iteration of the enclosing map
/// touches the element: a plain read-modify-write, not an atomic wcr.
static void accumulateUnique(ReverseBuilder &rb, Location loc, Value value,
                             Value container, AffineMap map,
                             ValueRange operands) {
  Value old = rb.load(loc, container, map, operands);
  Value sum =
      scalarTasklet(rb, loc, {old, value}, value.getType(),
                    [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
                      return arith::AddFOp::create(ib, l, a[0], a[1]);
                    });
  rb.store(loc, sum, container, map, operands, /*accumulate=*/false);
}

/// Restores a library op's output from its tape (whole container).
static void restoreWhole(ReverseBuilder &rb, Operation *op, Value container) {
  auto it = rb.tapes.find(op);
  if (it == rb.tapes.end())
    return;
  const TapeSlot &slot = it->second.front();
  auto type = cast<MemRefType>(container.getType());
  unsigned rank = type.getRank();
  Location loc = op->getLoc();
  MLIRContext *ctx = rb.b.getContext();
  OpBuilder::InsertionGuard guard(rb.b);
  SmallVector<Value> params = rb.openMap(loc, type.getShape(), true);
  SmallVector<AffineExpr> extra;
  for (unsigned i = 0; i < rank; ++i)
    extra.push_back(rb.b.getAffineDimExpr(i));
  SmallVector<Value> tops;
  AffineMap tm = rb.tapeIndex(slot, extra, params, tops);
  Value v = rb.load(loc, slot.tape, tm, tops);
  rb.store(loc, v, container, AffineMap::getMultiDimIdentityMap(rank, ctx),
           params, false);
}

static LogicalResult requireStatic(Operation *op, Value v) {
  if (!cast<MemRefType>(v.getType()).hasStaticShape())
    return op->emitOpError("autodiff of this op needs static shapes");
  return success();
}

LogicalResult MatmulOp::emitReverse(ReverseBuilder &rb) {
  Value dC = rb.gradientOf(getC());
  if (dC) {
    Location loc = getLoc();
    OpBuilder &b = rb.b;
    bool ta = getTransposeA(), tb = getTransposeB();
    auto emit = [&](Value x, Value y, Value out, bool tx, bool ty) {
      // The same constant factor: d(alpha X Y) = alpha dC Y^T, ...
      MatmulOp::create(b, loc, x, y, out, tx, ty, /*accumulate=*/true,
                       getAlphaAttr());
    };
    // C = op(A) op(B): dop(A) = dC op(B)^T, dop(B) = op(A)^T dC.
    if (Value dA = rb.gradientOf(getA())) {
      if (!ta)
        emit(dC, getB(), dA, false, !tb); // dA = dC op(B)^T
      else
        emit(getB(), dC, dA, tb, true); // dA = (dC op(B)^T)^T = op(B) dC^T
    }
    if (Value dB = rb.gradientOf(getB())) {
      if (!tb)
        emit(getA(), dC, dB, !ta, false); // dB = op(A)^T dC
      else
        emit(dC, getA(), dB, true, ta); // dB = (op(A)^T dC)^T = dC^T op(A)
    }
    if (!getAccumulate())
      rb.fill(loc, dC, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getC());
  return success();
}

LogicalResult GemvOp::emitReverse(ReverseBuilder &rb) {
  Value dy = rb.gradientOf(getY());
  if (dy) {
    Location loc = getLoc();
    OpBuilder &b = rb.b;
    if (Value dx = rb.gradientOf(getX()))
      GemvOp::create(b, loc, getA(), dy, dx, !getTranspose(),
                     /*accumulate=*/true);
    // dA += dy x^T (x dy^T when transposed): a rank-one update, which
    // BLAS does in one sweep and sdfg-batch-outer-products can gather
    // across a loop into one matmul.
    if (Value dA = rb.gradientOf(getA())) {
      if (getTranspose())
        GerOp::create(b, loc, getX(), dy, dA, /*accumulate=*/true);
      else
        GerOp::create(b, loc, dy, getX(), dA, /*accumulate=*/true);
    }
    if (!getAccumulate())
      rb.fill(loc, dy, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getY());
  return success();
}

LogicalResult GerOp::emitReverse(ReverseBuilder &rb) {
  Value dA = rb.gradientOf(getA());
  if (dA) {
    Location loc = getLoc();
    // A = x y^T: dx = dA y, dy = dA^T x.
    if (Value dx = rb.gradientOf(getX()))
      GemvOp::create(rb.b, loc, dA, getY(), dx, /*transpose=*/false,
                     /*accumulate=*/true);
    if (Value dy = rb.gradientOf(getY()))
      GemvOp::create(rb.b, loc, dA, getX(), dy, /*transpose=*/true,
                     /*accumulate=*/true);
    if (!getAccumulate())
      rb.fill(loc, dA, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getA());
  return success();
}

LogicalResult DotOp::emitReverse(ReverseBuilder &rb) {
  Value dr = rb.gradientOf(getResult());
  if (dr) {
    Location loc = getLoc();
    if (failed(requireStatic(*this, getX())))
      return failure();
    MLIRContext *ctx = getContext();
    AffineMap scalar = AffineMap::get(1, 0, {}, ctx);
    AffineMap elem = AffineMap::getMultiDimIdentityMap(1, ctx);
    // dx[i] += dr * y[i]; dy[i] += dr * x[i]
    for (auto [self, other] :
         {std::pair(getX(), getY()), std::pair(getY(), getX())}) {
      Value g = rb.gradientOf(self);
      if (!g)
        continue;
      OpBuilder::InsertionGuard guard(rb.b);
      SmallVector<Value> p =
          rb.openMap(loc, getX().getType().getShape(), false);
      Value d = rb.load(loc, dr, scalar, p);
      Value o = rb.load(loc, other, elem, p);
      Value prod = scalarTasklet(
          rb, loc, {d, o}, d.getType(),
          [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
            return arith::MulFOp::create(ib, l, a[0], a[1]);
          });
      rb.store(loc, prod, g, elem, p, /*accumulate=*/true);
    }
    if (!getAccumulate())
      rb.fill(loc, dr, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getResult());
  return success();
}

/// `c[p] = -c[p]` over the whole (static) container.
static void negateInPlace(ReverseBuilder &rb, Location loc, Value c) {
  auto type = cast<MemRefType>(c.getType());
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), rb.b.getContext());
  OpBuilder::InsertionGuard guard(rb.b);
  SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
  Value v = rb.load(loc, c, id, p);
  Value neg =
      scalarTasklet(rb, loc, {v}, v.getType(),
                    [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
                      return arith::NegFOp::create(ib, l, a[0]);
                    });
  rb.store(loc, neg, c, id, p, /*accumulate=*/false);
}

LogicalResult SolveOp::emitReverse(ReverseBuilder &rb) {
  Value dX = rb.gradientOf(getX());
  // Solved in place, X's gradient becomes B's (the old X's).
  bool inPlace = getB() == getX();
  if (dX) {
    Location loc = getLoc();
    OpBuilder &b = rb.b;
    Value dA = rb.gradientOf(getA()), dB = rb.gradientOf(getB());
    if (dA || dB) {
      if (failed(requireStatic(*this, getX())))
        return failure();
      // op(A) X = B: dB = G = op(A)^-T dX, dop(A) = -G X^T. G replaces dX,
      // which X's overwrite clears afterwards anyway.
      SolveOp::create(b, loc, getA(), dX, dX, !getTranspose());
      auto type = cast<MemRefType>(getX().getType());
      unsigned rank = type.getRank();
      MLIRContext *ctx = getContext();
      AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
      if (dB && !inPlace) {
        OpBuilder::InsertionGuard guard(b);
        SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
        rb.store(loc, rb.load(loc, dX, id, p), dB, id, p,
                 /*accumulate=*/true);
      }
      if (dA && rank == 2) {
        // dA -= G X^T, or with op = transpose dA -= X G^T: a GEMM on -G.
        bool t = getTranspose();
        negateInPlace(rb, loc, dX);
        MatmulOp::create(b, loc, t ? getX() : dX, t ? dX : getX(), dA,
                         /*transpose_a=*/false, /*transpose_b=*/true,
                         /*accumulate=*/true, /*alpha=*/FloatAttr());
        if (inPlace)
          negateInPlace(rb, loc, dX);
      } else if (dA) {
        // Vectors: dA[i, j] -= G[i] x[j] (x[i] G[j] with op = transpose).
        if (failed(requireStatic(*this, getA())))
          return failure();
        OpBuilder::InsertionGuard guard(b);
        SmallVector<Value> p =
            rb.openMap(loc, getA().getType().getShape(), true);
        AffineMap first = AffineMap::get(2, 0, b.getAffineDimExpr(0), ctx);
        AffineMap second = AffineMap::get(2, 0, b.getAffineDimExpr(1), ctx);
        bool t = getTranspose();
        Value g = rb.load(loc, dX, t ? second : first, p);
        Value x = rb.load(loc, getX(), t ? first : second, p);
        Value term = scalarTasklet(
            rb, loc, {g, x}, g.getType(),
            [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
              Value prod = arith::MulFOp::create(ib, l, a[0], a[1]);
              return arith::NegFOp::create(ib, l, prod);
            });
        accumulateUnique(rb, loc, term, dA,
                         AffineMap::getMultiDimIdentityMap(2, ctx), p);
      }
    }
    if (!inPlace)
      rb.fill(loc, dX, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getX());
  return success();
}

/// A new transient of `type` at the top of the SDFG being built (the
/// backward state may not allocate).
static Value scratchContainer(ReverseBuilder &rb, Location loc,
                              MemRefType type) {
  auto sdfg =
      rb.b.getInsertionBlock()->getParentOp()->getParentOfType<SDFGOp>();
  OpBuilder::InsertionGuard guard(rb.b);
  rb.b.setInsertionPointToStart(&sdfg.getBody().front());
  return AllocOp::create(rb.b, loc, type, ValueRange{});
}

LogicalResult DetOp::emitReverse(ReverseBuilder &rb) {
  Value dr = rb.gradientOf(getResult());
  if (dr) {
    Location loc = getLoc();
    Value dA = rb.gradientOf(getA());
    // The sign is piecewise constant: no gradient.
    if (dA && getKind() != DetKind::sign) {
      if (failed(requireStatic(*this, getA())))
        return failure();
      // d log|det A| = A^-T, d det A = det A^-T: S = c I, then S = A^-T S
      // (a transposed solve in place, on the forward's factors), dA += S.
      MemRefType type = getA().getType();
      Type elt = type.getElementType();
      MLIRContext *ctx = getContext();
      AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
      AffineMap scalar = AffineMap::get(2, 0, {}, ctx);
      bool det = getKind() == DetKind::det;
      Value s = scratchContainer(rb, loc, type);
      {
        OpBuilder::InsertionGuard guard(rb.b);
        SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
        SmallVector<Value> ins = {p[0], p[1], rb.load(loc, dr, scalar, p)};
        if (det)
          ins.push_back(rb.load(loc, getResult(), scalar, p));
        TaskletOp t = rb.tasklet(
            loc, {elt}, ins,
            [&](OpBuilder &ib, ArrayRef<Value> a) -> SmallVector<Value> {
              Value c = a[2];
              if (det)
                c = arith::MulFOp::create(ib, loc, c, a[3]);
              Value onDiagonal = arith::CmpIOp::create(
                  ib, loc, arith::CmpIPredicate::eq, a[0], a[1]);
              Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                     ib.getFloatAttr(elt, 0));
              return {arith::SelectOp::create(ib, loc, onDiagonal, c, zero)};
            });
        rb.store(loc, t.getResult(0), s, id, p, /*accumulate=*/false);
      }
      SolveOp::create(rb.b, loc, getA(), s, s, /*transpose=*/true);
      OpBuilder::InsertionGuard guard(rb.b);
      SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
      rb.store(loc, rb.load(loc, s, id, p), dA, id, p, /*accumulate=*/true);
    }
    rb.fill(loc, dr, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getResult());
  return success();
}

/// Over a whole n x n container: `c[i, j] = fn(i, j, c[i, j])` (in place,
/// or, with `into`, added to `into[i, j]`); `fn` builds the element in a
/// tasklet from the indices and the value.
static void
mapTriangle(ReverseBuilder &rb, Location loc, Value c, Value into,
            function_ref<Value(OpBuilder &, Value, Value, ArrayRef<Value>)> fn,
            bool alsoTransposed = false) {
  auto type = cast<MemRefType>(c.getType());
  MLIRContext *ctx = rb.b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap swapped = AffineMap::get(
      2, 0, {rb.b.getAffineDimExpr(1), rb.b.getAffineDimExpr(0)}, ctx);
  OpBuilder::InsertionGuard guard(rb.b);
  SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
  SmallVector<Value> ins = {p[0], p[1], rb.load(loc, c, id, p)};
  if (alsoTransposed)
    ins.push_back(rb.load(loc, c, swapped, p));
  TaskletOp t =
      rb.tasklet(loc, {type.getElementType()}, ins,
                 [&](OpBuilder &ib, ArrayRef<Value> a) -> SmallVector<Value> {
                   return {fn(ib, a[0], a[1], a.drop_front(2))};
                 });
  if (into)
    accumulateUnique(rb, loc, t.getResult(0), into, id, p);
  else
    rb.store(loc, t.getResult(0), c, id, p, /*accumulate=*/false);
}

/// `out[i, j] = fn(i, j, ins read at (i, j))` over out's 2-d shape, in a
/// parallel map of the current state; each input has its access map
/// (identity, transposed, a row's or a column's vector element).
static void mapElementwise(
    ReverseBuilder &rb, Location loc, Value out,
    ArrayRef<std::pair<Value, AffineMap>> ins,
    function_ref<Value(OpBuilder &, Value, Value, ArrayRef<Value>)> fn) {
  auto type = cast<MemRefType>(out.getType());
  OpBuilder::InsertionGuard guard(rb.b);
  SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
  SmallVector<Value> args = {p[0], p[1]};
  for (auto [c, map] : ins)
    args.push_back(rb.load(loc, c, map, p));
  TaskletOp t =
      rb.tasklet(loc, {type.getElementType()}, args,
                 [&](OpBuilder &ib, ArrayRef<Value> x) -> SmallVector<Value> {
                   return {fn(ib, x[0], x[1], x.drop_front(2))};
                 });
  rb.store(loc, t.getResult(0), out,
           AffineMap::getMultiDimIdentityMap(2, rb.b.getContext()), p,
           /*accumulate=*/false);
}

/// The access maps of a 2-d map's inputs: (i, j), (j, i), (i) and (j).
namespace {
struct Access2D {
  AffineMap id, swapped, row, col;
  explicit Access2D(MLIRContext *ctx) {
    AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
    id = AffineMap::get(2, 0, {i, j}, ctx);
    swapped = AffineMap::get(2, 0, {j, i}, ctx);
    row = AffineMap::get(2, 0, {i}, ctx);
    col = AffineMap::get(2, 0, {j}, ctx);
  }
};
} // namespace

/// `num / gap` off the diagonal (i != j), 0 on it: the F matrix of the
/// spectral gradients (eigh: gap = w[j] - w[i], svd: s[j]^2 - s[i]^2),
/// whose diagonal is 1/0 and does not enter the gradient.
static Value offDiagonalRatio(OpBuilder &ib, Location loc, Value i, Value j,
                              Value num, Value gap) {
  Value q = arith::DivFOp::create(ib, loc, num, gap);
  Value zero = arith::ConstantOp::create(ib, loc, q.getType(),
                                         ib.getFloatAttr(q.getType(), 0));
  return arith::SelectOp::create(
      ib, loc, arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j),
      zero, q);
}

LogicalResult CholeskyOp::emitReverse(ReverseBuilder &rb) {
  Value dL = rb.gradientOf(getL());
  if (dL) {
    Location loc = getLoc();
    if (Value dA = rb.gradientOf(getA())) {
      if (failed(requireStatic(*this, getL())))
        return failure();
      // Murray (2016): with P = Phi(L^T dL) (the lower triangle, its
      // diagonal halved) and S = L^-T P L^-1, the symmetric gradient is
      // (S + S^T) / 2; A enters through its lower triangle only, so dA
      // gets S + S^T below the diagonal and S on it.
      MemRefType type = getL().getType();
      Type elt = type.getElementType();
      OpBuilder &b = rb.b;
      auto zero = [&](OpBuilder &ib) -> Value {
        return arith::ConstantOp::create(ib, loc, elt, ib.getFloatAttr(elt, 0));
      };
      auto cmp = [&](OpBuilder &ib, arith::CmpIPredicate pred, Value i,
                     Value j) -> Value {
        return arith::CmpIOp::create(ib, loc, pred, i, j);
      };
      Value p = scratchContainer(rb, loc, type);
      Value q = scratchContainer(rb, loc, type);
      // L's upper triangle is zero whatever A is: its gradient goes.
      mapTriangle(rb, loc, dL, nullptr,
                  [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
                    return arith::SelectOp::create(
                        ib, loc, cmp(ib, arith::CmpIPredicate::sge, i, j), v[0],
                        zero(ib));
                  });
      MatmulOp::create(b, loc, getL(), dL, p, /*transpose_a=*/true,
                       /*transpose_b=*/false, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      mapTriangle(rb, loc, p, nullptr,
                  [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
                    Value half = arith::MulFOp::create(
                        ib, loc, v[0],
                        arith::ConstantOp::create(ib, loc, elt,
                                                  ib.getFloatAttr(elt, 0.5)));
                    Value onDiag = arith::SelectOp::create(
                        ib, loc, cmp(ib, arith::CmpIPredicate::eq, i, j), half,
                        zero(ib));
                    return arith::SelectOp::create(
                        ib, loc, cmp(ib, arith::CmpIPredicate::sgt, i, j), v[0],
                        onDiag);
                  });
      // P = L^-T P; Q = P^T; Q = L^-T Q = S^T.
      SolveOp::create(b, loc, getL(), p, p, /*transpose=*/true);
      TransposeOp::create(b, loc, p, q, /*accumulate=*/false);
      SolveOp::create(b, loc, getL(), q, q, /*transpose=*/true);
      mapTriangle(
          rb, loc, q, dA,
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
            Value sum = arith::AddFOp::create(ib, loc, v[0], v[1]);
            Value onDiag = arith::SelectOp::create(
                ib, loc, cmp(ib, arith::CmpIPredicate::eq, i, j), v[0],
                zero(ib));
            return arith::SelectOp::create(
                ib, loc, cmp(ib, arith::CmpIPredicate::sgt, i, j), sum, onDiag);
          },
          /*alsoTransposed=*/true);
    }
    rb.fill(loc, dL, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getL());
  return success();
}

LogicalResult EighOp::emitReverse(ReverseBuilder &rb) {
  Value dR = rb.gradientOf(getResult());
  if (dR) {
    Location loc = getLoc();
    if (Value dA = rb.gradientOf(getA())) {
      if (failed(requireStatic(*this, getA())))
        return failure();
      // A = V diag(w) V^T. With S = V diag(dw) V^T (eigenvalues) or
      // S = V (F o V^T dV) V^T, F[i, j] = 1 / (w[j] - w[i]) off the
      // diagonal and 0 on it (eigenvectors), <S, dA> is the change for a
      // symmetric dA; A enters through its lower triangle, so dA gets
      // S + S^T below the diagonal and S on it (as for cholesky).
      MemRefType type = getA().getType();
      Type elt = type.getElementType();
      int64_t n = type.getDimSize(0);
      OpBuilder &b = rb.b;
      Access2D at(getContext());
      Value v, m = scratchContainer(rb, loc, type);
      if (getPart() == EighPart::values) {
        // The eigenvectors again, from A (restored to its forward value).
        v = scratchContainer(rb, loc, type);
        EighOp::create(b, loc, EighPart::vectors, getA(), v);
        mapElementwise(rb, loc, m, {{v, at.id}, {dR, at.col}},
                       [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
                         return arith::MulFOp::create(ib, loc, x[0], x[1]);
                       });
      } else {
        v = getResult();
        Value w = scratchContainer(rb, loc, MemRefType::get({n}, elt));
        EighOp::create(b, loc, EighPart::values, getA(), w);
        Value g = scratchContainer(rb, loc, type);
        MatmulOp::create(b, loc, v, dR, g, /*transpose_a=*/true,
                         /*transpose_b=*/false, /*accumulate=*/false,
                         /*alpha=*/FloatAttr());
        mapElementwise(rb, loc, g, {{g, at.id}, {w, at.row}, {w, at.col}},
                       [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
                         Value gap = arith::SubFOp::create(ib, loc, x[2], x[1]);
                         return offDiagonalRatio(ib, loc, i, j, x[0], gap);
                       });
        MatmulOp::create(b, loc, v, g, m, /*transpose_a=*/false,
                         /*transpose_b=*/false, /*accumulate=*/false,
                         /*alpha=*/FloatAttr());
      }
      Value q = scratchContainer(rb, loc, type);
      MatmulOp::create(b, loc, m, v, q, /*transpose_a=*/false,
                       /*transpose_b=*/true, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      mapTriangle(
          rb, loc, q, dA,
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            Value sum = arith::AddFOp::create(ib, loc, x[0], x[1]);
            Value onDiag = arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j),
                x[0], zero);
            return arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::sgt, i, j),
                sum, onDiag);
          },
          /*alsoTransposed=*/true);
    }
    rb.fill(loc, dR, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getResult());
  return success();
}

LogicalResult QROp::emitReverse(ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(getResult());
  if (dOut) {
    Location loc = getLoc();
    if (Value dA = rb.gradientOf(getA())) {
      if (failed(requireStatic(*this, getA())))
        return failure();
      MemRefType type = getA().getType();
      int64_t m = type.getDimSize(0), n = type.getDimSize(1);
      if (m < n)
        return emitOpError("autodiff of qr needs at least as many rows as "
                           "columns (got ")
               << m << " x " << n << ")";
      // A = Q R (Q m x n, R n x n). With G = Q^T dQ and H = R dR^T, the
      // gradient is dA = Q dR + (dQ + Q (tril(G - G^T + H - H^T) - G))
      // R^-T; it is linear in (dQ, dR), so each part's rule adds its share:
      // P = tril(G - G^T) - G with dQ, P = tril(H - H^T) with dR, then
      // dA += (dQ + Q P) R^-T (+ Q dR), the solve as R X^T = (dQ + Q P)^T.
      Type elt = type.getElementType();
      OpBuilder &b = rb.b;
      MemRefType square = MemRefType::get({n, n}, elt);
      bool isQ = getPart() == QRPart::q;
      Value q = getResult(), r = getResult();
      if (isQ) {
        r = scratchContainer(rb, loc, square);
        QROp::create(b, loc, QRPart::r, getA(), r);
      } else {
        q = scratchContainer(rb, loc, type);
        QROp::create(b, loc, QRPart::q, getA(), q);
      }
      Value g = scratchContainer(rb, loc, square);
      MatmulOp::create(b, loc, isQ ? q : r, dOut, g, /*transpose_a=*/isQ,
                       /*transpose_b=*/!isQ, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      Value p = scratchContainer(rb, loc, square);
      rb.fill(loc, p, 0.0, /*inState=*/true);
      mapTriangle(
          rb, loc, g, p,
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            Value lower = arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::sge, i, j),
                arith::SubFOp::create(ib, loc, v[0], v[1]), zero);
            return isQ ? arith::SubFOp::create(ib, loc, lower, v[0]).getResult()
                       : lower;
          },
          /*alsoTransposed=*/true);
      Value qp = scratchContainer(rb, loc, type);
      MatmulOp::create(b, loc, q, p, qp, /*transpose_a=*/false,
                       /*transpose_b=*/false, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      Value xt = scratchContainer(rb, loc, MemRefType::get({n, m}, elt));
      TransposeOp::create(b, loc, qp, xt, /*accumulate=*/false);
      if (isQ)
        TransposeOp::create(b, loc, dOut, xt, /*accumulate=*/true);
      // R is singular in all but rounding when A is rank deficient: its
      // diagonal then holds a tiny value or an exact zero depending on the
      // CPU's Householder kernels, and the solve would raise on one
      // machine and return ~1/eps on another. A diagonal entry with |R_kk|
      // <= max_k |R_kk| * max(m, n) * eps counts as zero, so the solve
      // reports the matrix singular (LinAlgError) on every machine. That
      // is NumPy's matrix_rank cutoff with R's diagonal for the singular
      // values (min_k |R_kk| >= sigma_min and max_k |R_kk| <= sigma_max):
      // it flags only matrices matrix_rank also finds rank deficient.
      Access2D at(getContext());
      AffineMap scalar = AffineMap::get(2, 0, {}, getContext());
      double eps = elt.isF32() ? double(std::numeric_limits<float>::epsilon())
                               : std::numeric_limits<double>::epsilon();
      double rel = double(std::max(m, n)) * eps;
      auto absOf = [&](OpBuilder &ib, Value x) -> Value {
        Value neg = arith::NegFOp::create(ib, loc, x);
        Value below =
            arith::CmpFOp::create(ib, loc, arith::CmpFPredicate::OLT, x, neg);
        return arith::SelectOp::create(ib, loc, below, neg, x);
      };
      Value diag = scratchContainer(rb, loc, square);
      mapElementwise(
          rb, loc, diag, {{r, at.id}},
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            return arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j),
                absOf(ib, x[0]), zero);
          });
      Value largest = scratchContainer(rb, loc, MemRefType::get({}, elt));
      ReduceOp::create(b, loc,
                       ReduceKindAttr::get(getContext(), ReduceKind::max), diag,
                       largest, b.getDenseI64ArrayAttr({0, 1}),
                       /*accumulate=*/UnitAttr());
      Value rc = scratchContainer(rb, loc, square);
      mapElementwise(
          rb, loc, rc, {{r, at.id}, {largest, scalar}},
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            Value cutoff = arith::MulFOp::create(
                ib, loc, x[1],
                arith::ConstantOp::create(ib, loc, elt,
                                          ib.getFloatAttr(elt, rel)));
            Value tiny = arith::CmpFOp::create(
                ib, loc, arith::CmpFPredicate::OLE, absOf(ib, x[0]), cutoff);
            Value onDiag =
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j);
            return arith::SelectOp::create(
                ib, loc, arith::AndIOp::create(ib, loc, onDiag, tiny), zero,
                x[0]);
          });
      SolveOp::create(b, loc, rc, xt, xt, /*transpose=*/false);
      TransposeOp::create(b, loc, xt, dA, /*accumulate=*/true);
      if (!isQ)
        MatmulOp::create(b, loc, q, dOut, dA, /*transpose_a=*/false,
                         /*transpose_b=*/false, /*accumulate=*/true,
                         /*alpha=*/FloatAttr());
    }
    rb.fill(loc, dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getResult());
  return success();
}

LogicalResult SVDOp::emitReverse(ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(getResult());
  if (dOut) {
    Location loc = getLoc();
    if (Value dA = rb.gradientOf(getA())) {
      if (failed(requireStatic(*this, getA())))
        return failure();
      // Townsend (2016), A = U diag(s) Vh, k = min(m, n), F[i, j] =
      // 1 / (s[j]^2 - s[i]^2) off the diagonal, 0 on it. The gradient is
      // linear in (dU, ds, dVh); each part's rule adds its share:
      //   ds:  dA += (U diag(ds)) Vh;
      //   dU:  G = U^T dU, P = (F o (G - G^T)) diag(s),
      //        dA += (U P + (dU - U G) diag(1/s)) Vh;
      //   dVh: H = dVh Vh^T, P = diag(s) (F o (H^T - H)) - diag(1/s) H,
      //        dA += U (P Vh + diag(1/s) dVh).
      MemRefType type = getA().getType();
      int64_t m = type.getDimSize(0), n = type.getDimSize(1);
      int64_t k = std::min(m, n);
      Type elt = type.getElementType();
      OpBuilder &b = rb.b;
      MLIRContext *ctx = getContext();
      MemRefType uType = MemRefType::get({m, k}, elt);
      MemRefType sType = MemRefType::get({k}, elt);
      MemRefType vType = MemRefType::get({k, n}, elt);
      MemRefType square = MemRefType::get({k, k}, elt);
      auto factor = [&](SVDPart part, MemRefType t) -> Value {
        if (getPart() == part)
          return getResult();
        Value v = scratchContainer(rb, loc, t);
        SVDOp::create(b, loc, part, getA(), v,
                      /*with_vectors=*/part == SVDPart::s);
        return v;
      };
      Value u = factor(SVDPart::u, uType), sv = factor(SVDPart::s, sType),
            vh = factor(SVDPart::vh, vType);
      Access2D at(ctx);
      AffineMap id = at.id, swapped = at.swapped, row = at.row, col = at.col;
      auto matmul = [&](Value x, Value y, Value out, bool tx, bool ty,
                        bool acc) {
        MatmulOp::create(b, loc, x, y, out, tx, ty, acc, FloatAttr());
      };
      // F[i, j] * num, 0 on the diagonal.
      auto gapped = [&](OpBuilder &ib, Value i, Value j, Value si, Value sj,
                        Value num) -> Value {
        Value gap = arith::SubFOp::create(
            ib, loc, arith::MulFOp::create(ib, loc, sj, sj),
            arith::MulFOp::create(ib, loc, si, si));
        return offDiagonalRatio(ib, loc, i, j, num, gap);
      };
      switch (getPart()) {
      case SVDPart::s: {
        Value scaled = scratchContainer(rb, loc, uType);
        mapElementwise(rb, loc, scaled, {{u, id}, {dOut, col}},
                       [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
                         return arith::MulFOp::create(ib, loc, x[0], x[1]);
                       });
        matmul(scaled, vh, dA, false, false, true);
        break;
      }
      case SVDPart::u: {
        Value g = scratchContainer(rb, loc, square);
        matmul(u, dOut, g, true, false, false);
        Value p = scratchContainer(rb, loc, square);
        mapElementwise(
            rb, loc, p, {{g, id}, {g, swapped}, {sv, row}, {sv, col}},
            [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
              Value skew = arith::SubFOp::create(ib, loc, x[0], x[1]);
              return gapped(ib, i, j, x[2], x[3],
                            arith::MulFOp::create(ib, loc, skew, x[3]));
            });
        Value sum = scratchContainer(rb, loc, uType);
        matmul(u, p, sum, false, false, false);
        Value ug = scratchContainer(rb, loc, uType);
        matmul(u, g, ug, false, false, false);
        mapElementwise(
            rb, loc, sum, {{sum, id}, {dOut, id}, {ug, id}, {sv, col}},
            [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
              Value rest = arith::SubFOp::create(ib, loc, x[1], x[2]);
              return arith::AddFOp::create(
                  ib, loc, x[0], arith::DivFOp::create(ib, loc, rest, x[3]));
            });
        matmul(sum, vh, dA, false, false, true);
        break;
      }
      case SVDPart::vh: {
        Value h = scratchContainer(rb, loc, square);
        matmul(dOut, vh, h, false, true, false);
        Value p = scratchContainer(rb, loc, square);
        mapElementwise(
            rb, loc, p, {{h, id}, {h, swapped}, {sv, row}, {sv, col}},
            [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
              Value skew = arith::SubFOp::create(ib, loc, x[1], x[0]);
              Value f = gapped(ib, i, j, x[2], x[3],
                               arith::MulFOp::create(ib, loc, x[2], skew));
              return arith::SubFOp::create(
                  ib, loc, f, arith::DivFOp::create(ib, loc, x[0], x[2]));
            });
        Value d = scratchContainer(rb, loc, vType);
        matmul(p, vh, d, false, false, false);
        mapElementwise(rb, loc, d, {{d, id}, {dOut, id}, {sv, row}},
                       [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
                         return arith::AddFOp::create(
                             ib, loc, x[0],
                             arith::DivFOp::create(ib, loc, x[1], x[2]));
                       });
        matmul(u, d, dA, false, false, true);
        break;
      }
      }
    }
    rb.fill(loc, dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getResult());
  return success();
}

LogicalResult TransposeOp::emitReverse(ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(getOutput());
  if (dOut) {
    if (Value dIn = rb.gradientOf(getInput()))
      TransposeOp::create(rb.b, getLoc(), dOut, dIn, /*accumulate=*/true);
    if (!getAccumulate())
      rb.fill(getLoc(), dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getOutput());
  return success();
}

// The positions are integers: nothing to propagate (the gather that reads
// them, a sort, carries the gradient). What the op overwrote comes back
// from its tape: in a loop, the earlier iterations' gathers read their own
// positions.
LogicalResult ArgsortOp::emitReverse(ReverseBuilder &rb) {
  restoreWhole(rb, *this, getResult());
  return success();
}

// As argsort's: integer positions, restored from the tape for the
// gathers of earlier loop iterations.
LogicalResult SearchsortedOp::emitReverse(ReverseBuilder &rb) {
  restoreWhole(rb, *this, getResult());
  return success();
}

LogicalResult ReduceOp::emitReverse(ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(getOutput());
  if (dOut) {
    Location loc = getLoc();
    if (failed(requireStatic(*this, getInput())))
      return failure();
    if (getAccumulate() && getKind() != ReduceKind::add)
      return emitOpError("autodiff of an accumulating min/max reduction is "
                         "not supported yet");
    MemRefType in = getInput().getType();
    MLIRContext *ctx = getContext();
    unsigned rank = in.getRank();
    bool keepDims = getOutput().getType().getRank() == in.getRank();
    SmallVector<AffineExpr> outIdx;
    for (unsigned d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(getAxes(), (int64_t)d);
      if (!reduced)
        outIdx.push_back(getAffineDimExpr(d, ctx));
      else if (keepDims)
        outIdx.push_back(getAffineConstantExpr(0, ctx));
    }
    AffineMap toOut = AffineMap::get(rank, 0, outIdx, ctx);
    AffineMap ident = AffineMap::getMultiDimIdentityMap(rank, ctx);
    if (Value dIn = rb.gradientOf(getInput())) {
      OpBuilder::InsertionGuard guard(rb.b);
      SmallVector<Value> p = rb.openMap(loc, in.getShape(), true);
      Value g = rb.load(loc, dOut, toOut, p);
      Value contrib = g;
      if (getKind() != ReduceKind::add) {
        // Elements equal to the extremum receive its gradient.
        Value x = rb.load(loc, getInput(), ident, p);
        Value r = rb.load(loc, getOutput(), toOut, p);
        contrib = scalarTasklet(
            rb, loc, {g, x, r}, g.getType(),
            [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
              Value hit = arith::CmpFOp::create(
                  ib, l, arith::CmpFPredicate::OEQ, a[1], a[2]);
              Value zero = arith::ConstantOp::create(
                  ib, l, a[0].getType(), ib.getFloatAttr(a[0].getType(), 0.0));
              return arith::SelectOp::create(ib, l, hit, a[0], zero);
            });
      }
      accumulateUnique(rb, loc, contrib, dIn, ident, p);
    }
    if (!getAccumulate())
      rb.fill(loc, dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, *this, getOutput());
  return success();
}
