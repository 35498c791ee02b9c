//===- MapReverse.cpp - Reverse rule of sdfg.map
//----------------------------===//
//
// A map keeps its range and schedule when reversed. Reads that several
// iterations share become wcr(add) accumulations; a map whose reversal
// would conflict across iterations is swept in colored parallel passes;
// min/max/mul accumulations get a census of the old values first.
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

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

/// Rewrites the loads and stores that index with `p0 = q * colors + c` (a
/// tasklet's result) to index with `q`, the expression in their affine
/// maps, and drops the tasklet once nothing else reads it. Through a
/// tasklet an index is data to the lowering, which checks it on every
/// access; those checks (calls) kept the sweeps' loops from vectorising.
static void foldColorIndex(Value p0, Value q, int64_t colors, int64_t c) {
  auto fold = [&](auto access) {
    SmallVector<Value> operands(access.getIndices());
    AffineMap map = access.getMap();
    SmallVector<AffineExpr> dims;
    for (auto [k, v] : llvm::enumerate(operands)) {
      AffineExpr d = getAffineDimExpr(k, map.getContext());
      dims.push_back(v == p0 ? d * colors + c : d);
      if (v == p0)
        v = q;
    }
    access.setMapAttr(AffineMapAttr::get(
        map.replaceDimsAndSymbols(dims, {}, operands.size(), 0)));
    access.getIndicesMutable().assign(operands);
  };
  for (Operation *user : llvm::make_early_inc_range(p0.getUsers())) {
    if (auto load = dyn_cast<LoadOp>(user))
      fold(load);
    else if (auto store = dyn_cast<StoreOp>(user))
      fold(store);
  }
  if (p0.use_empty())
    p0.getDefiningOp()->erase();
}

/// Reverses `map` as `colors` parallel sweeps over its first dimension,
/// one after the other in the same state: sweep c runs param0 = c,
/// c + colors, c + 2 colors, ...
static LogicalResult emitColoredReverse(MapOp op, ReverseBuilder &rb,
                                        ValueRange operands, int64_t colors) {
  OpBuilder &b = rb.b;
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  unsigned n = operands.size();
  for (int64_t c = 0; c < colors; ++c) {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<AffineExpr> lbs, ubs;
    for (auto [k, e] : llvm::enumerate(op.getLowerBounds().getResults()))
      lbs.push_back(k == 0 ? b.getAffineConstantExpr(0) : e);
    for (auto [k, e] : llvm::enumerate(op.getUpperBounds().getResults()))
      ubs.push_back(k == 0 ? (e - c).ceilDiv(colors) : e);
    auto map = MapOp::create(
        b, loc, operands, AffineMapAttr::get(AffineMap::get(n, 0, lbs, ctx)),
        AffineMapAttr::get(AffineMap::get(n, 0, ubs, ctx)), op.getStepsAttr(),
        ScheduleKindAttr::get(ctx, ScheduleKind::cpu_multicore),
        b.getUnitAttr());
    Block *body = new Block();
    map.getBody().push_back(body);
    SmallVector<Value> params;
    for (BlockArgument p : op.getParams())
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
    rb.map.map(op.getParams()[0], p0);
    for (unsigned k = 1; k < params.size(); ++k)
      rb.map.map(op.getParams()[k], params[k]);
    LogicalResult r = rb.reverseRegion(op.getBody());
    rb.map = saved;
    if (failed(r))
      return failure();
    if (colors > 1)
      foldColorIndex(p0, params[0], colors, c);
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

static LogicalResult emitReversedMap(MapOp op, ReverseBuilder &rb,
                                     ValueRange operands);

static LogicalResult reverseMap(MapOp op, ReverseBuilder &rb) {
  if (!needsReverse(rb, op))
    return success();
  rb.loadBounds(op);
  SmallVector<Value> operands = recomputeAll(rb, op.getRangeOperands());
  if (failed(emitCensus(rb, op, operands)))
    return failure();
  LogicalResult result = emitReversedMap(op, rb, operands);
  if (succeeded(result))
    scaleOldValueGradients(rb, op);
  return result;
}

static LogicalResult emitReversedMap(MapOp op, ReverseBuilder &rb,
                                     ValueRange operands) {
  OpBuilder::InsertionGuard guard(rb.b);
  // Gradient reads become accumulations into neighbouring elements
  // (stencils): in parallel they would need an atomic per element, which
  // on x86 is a compare-and-swap loop for floats. When every memlet offsets
  // the first parameter by c in [lo, hi], iterations hi - lo + 1 apart never
  // collide: the map runs as hi - lo + 1 parallel sweeps without atomics.
  // Otherwise it runs sequentially, where the accumulations vectorise.
  ScheduleKind schedule = op.getSchedule();
  if (schedule == ScheduleKind::cpu_multicore && hasConflictingReads(op)) {
    std::optional<int64_t> spread = rowSpread(op);
    auto lb0 = dyn_cast<AffineConstantExpr>(op.getLowerBounds().getResult(0));
    // Stencils reach a few neighbours; a wide reach (one sweep per
    // offset, each a map) runs sequentially instead.
    constexpr int64_t kMaxColors = 16;
    if (spread && *spread < kMaxColors && lb0 && lb0.getValue() == 0 &&
        op.getSteps()[0] == 1)
      return emitColoredReverse(op, rb, operands, *spread + 1);
    // Rows that touch only their own elements, besides single elements
    // (a scalar coefficient, a sum every row adds to) and small containers
    // every row reads (a bias, LayerNorm's gamma): parallel, with their
    // gradients reduced in registers or private copies per chunk by the
    // lowering (atomics on the GPU). Not disjoint_wcr: those
    // accumulations collide across rows.
    std::optional<int64_t> own = rowSpread(op, /*lenient=*/true);
    if (!own || *own != 0)
      schedule = ScheduleKind::sequential;
  }
  auto map = MapOp::create(rb.b, op.getLoc(), operands, op.getLowerBoundsAttr(),
                           op.getUpperBoundsAttr(), op.getStepsAttr(),
                           ScheduleKindAttr::get(op.getContext(), schedule));
  Block *body = new Block();
  map.getBody().push_back(body);
  IRMapping saved = rb.map;
  for (BlockArgument p : op.getParams())
    rb.map.map(p, body->addArgument(p.getType(), op.getLoc()));
  rb.b.setInsertionPointToStart(body);
  LogicalResult r = rb.reverseRegion(op.getBody());
  rb.map = saved;
  return r;
}

void mlir::sdfg::detail::attachMapRules(MLIRContext *ctx) {
  MapOp::attachInterface<ReverseRule<MapOp, reverseMap>>(*ctx);
}
