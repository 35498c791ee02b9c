//===- HoistLoopProducts.cpp - A loop's vector products as one GEMM -------===//
//
// --sdfg-hoist-loop-products: a loop that, per iteration, reduces products
// of slices of matrices it never writes (covariance's
// `data[:, i] @ data[:, i:M]`) computes entries of one matrix product of
// the whole matrices. Computing that product once before the loop, with a
// GEMM, and reading its entries in the loop replaces T memory-bound
// matrix-vector sweeps by one compute-bound call, also when the loop needs
// only part of the product (a triangle). Three forms (ProductMatching.h):
// a map reducing A[k, x] * B[k, y] over a whole dimension or over a range
// bounded by x (trmm's A[i+1:, i] @ B[i+1:, j]: the product of A masked to
// a triangle), the frontend's gemv of a matrix
// with a vector copied from a row of another, and a loop over k adding
// such products to the elements its map updates (syrk, syr2k). The autodiff
// pass then differentiates the matmul (two GEMMs) instead of the T sweeps.
//
//===----------------------------------------------------------------------===//

#include "ProductMatching.h"

#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/Transforms/LoopUtils.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_HOISTLOOPPRODUCTS
#include "sdfg/Dialect/SDFG/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::products;

namespace {

/// The number of points the map computes over all iterations of `loops`
/// (innermost first, each directly in the next's body, constant bounds),
/// leaving out parameter `skip`; std::nullopt when its extents depend on
/// anything but constants and the loops' iterators.
std::optional<double> pointsOverLoops(MapOp map, unsigned skip,
                                      ArrayRef<LoopOp> loops) {
  // Evaluating the extents per iteration is exact for triangles; bound the
  // work for very long loops.
  int64_t iterations = 1;
  for (LoopOp loop : loops) {
    iterations *= *constantTrips(loop);
    if (iterations > (int64_t(1) << 20))
      return std::nullopt;
  }
  SmallVector<unsigned> position;
  for (Value operand : map.getRangeOperands()) {
    auto it = llvm::find_if(
        loops, [&](LoopOp loop) { return loop.getIterator() == operand; });
    if (it == loops.end())
      return std::nullopt;
    position.push_back(it - loops.begin());
  }
  double total = 0;
  SmallVector<int64_t> ivs(loops.size());
  SmallVector<std::optional<int64_t>> dims(position.size());
  for (int64_t n = 0; n < iterations; ++n) {
    // Iteration n, innermost loop fastest.
    int64_t rest = n;
    for (auto [iv, constLoop] : llvm::zip(ivs, loops)) {
      LoopOp loop = constLoop;
      int64_t trips = *constantTrips(loop);
      int64_t lb = cast<AffineConstantExpr>(loop.getLowerExpr()).getValue();
      iv = lb + (rest % trips) * loop.getStepValue();
      rest /= trips;
    }
    for (auto [d, pos] : llvm::zip(dims, position))
      d = ivs[pos];
    double points = 1;
    for (unsigned p = 0; p < map.getNumParams(); ++p) {
      if (p == skip)
        continue;
      auto lo = evaluate(map.getLowerBounds().getResult(p), dims);
      auto hi = evaluate(map.getUpperBounds().getResult(p), dims);
      if (!lo || !hi)
        return std::nullopt;
      points *=
          double(std::max<int64_t>(tripCount(*lo, *hi, map.getSteps()[p]), 0));
    }
    total += points;
  }
  return total;
}

/// The replacements of an access's dimensions (one per operand of `from`)
/// that rebase it onto `to`, appending `from`'s operands (through
/// `mapping`) but `drop`, which becomes 0: the access no longer uses it.
SmallVector<AffineExpr> rebase(ValueRange from, Value drop,
                               const IRMapping &mapping,
                               SmallVectorImpl<Value> &to, MLIRContext *ctx) {
  SmallVector<AffineExpr> replacement;
  for (Value operand : from) {
    if (operand == drop) {
      replacement.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    replacement.push_back(getAffineDimExpr(to.size(), ctx));
    to.push_back(mapping.lookupOrDefault(operand));
  }
  return replacement;
}

/// `P[x, y]`: x the free dimension of `lhs`, y that of `rhs`, over both
/// loads' operands but the reduced `k`.
Value loadProduct(OpBuilder &b, Location loc, Value product, LoadOp lhs,
                  unsigned lhsDim, LoadOp rhs, unsigned rhsDim, Value k,
                  const IRMapping &mapping) {
  SmallVector<Value> operands;
  SmallVector<AffineExpr> index;
  for (auto [load, dim] : {std::pair(lhs, lhsDim), std::pair(rhs, rhsDim)})
    index.push_back(load.getMap().getResult(1 - dim).replaceDimsAndSymbols(
        rebase(load.getIndices(), k, mapping, operands, b.getContext()), {}));
  Type elt = cast<MemRefType>(product.getType()).getElementType();
  return LoadOp::create(
      b, loc, elt, product, operands,
      AffineMap::get(operands.size(), 0, index, b.getContext()));
}

/// The product matrix a loop already computed for these operands.
/// The product matrix a loop already computed for these operands (each
/// masked to the range its mask, a map (free index) -> (lo, hi) of the
/// reduced index, gives; all of it without).
struct ProductKey {
  Operation *loop;
  Value lhs, rhs;
  unsigned lhsDim, rhsDim;
  AffineMap lhsMask = {}, rhsMask = {};
  bool operator==(const ProductKey &o) const {
    return loop == o.loop && lhs == o.lhs && rhs == o.rhs &&
           lhsDim == o.lhsDim && rhsDim == o.rhsDim && lhsMask == o.lhsMask &&
           rhsMask == o.rhsMask;
  }
};

struct HoistLoopProductsPass
    : public sdfg::impl::HoistLoopProductsBase<HoistLoopProductsPass> {
  using HoistLoopProductsBase::HoistLoopProductsBase;

  // Options are checked once, before any program runs: a bad option is an
  // error even for a module without sdfg programs.
  LogicalResult initialize(MLIRContext *ctx) override {
    if (maxFlopsRatio < 0 || maxBytes < 0)
      return emitError(UnknownLoc::get(ctx),
                       "sdfg-hoist-loop-products: max-flops-ratio and "
                       "max-bytes must not be negative");
    return success();
  }

  void runOnOperation() override {
    SmallVector<Operation *> candidates;
    getOperation().walk([&](Operation *op) {
      if (isa<MapOp, GemvOp, LoopOp>(op))
        candidates.push_back(op);
    });
    for (Operation *op : candidates) {
      if (auto gemv = dyn_cast<GemvOp>(op))
        hoist(gemv);
      else if (auto loop = dyn_cast<LoopOp>(op)) {
        if (std::optional<Accumulation> a = matchAccumulation(loop))
          hoist(*a);
      } else if (std::optional<Contraction> c =
                     matchContraction(cast<MapOp>(op)))
        hoist(*c);
    }
  }

  /// Bytes of product matrices added to each checkpointed gradient so far.
  llvm::DenseMap<Operation *, int64_t> spent;
  SmallVector<std::pair<ProductKey, Value>> products;

  /// The loop whose state holds `op` directly, if its bounds are constant.
  static std::pair<LoopOp, int64_t> enclosingLoop(Operation *op) {
    auto state = dyn_cast<StateOp>(op->getParentOp());
    auto loop = state ? dyn_cast<LoopOp>(state->getParentOp()) : LoopOp();
    std::optional<int64_t> trips = loop ? constantTrips(loop) : std::nullopt;
    if (!trips || *trips < 1)
      return {LoopOp(), 0};
    return {loop, *trips};
  }

  /// The loops around the state that holds `op` directly, innermost first,
  /// each directly in the next's body, while their bounds are constant.
  static SmallVector<LoopOp> enclosingLoops(Operation *op) {
    SmallVector<LoopOp> loops;
    auto state = dyn_cast<StateOp>(op->getParentOp());
    auto loop = state ? dyn_cast<LoopOp>(state->getParentOp()) : LoopOp();
    for (; loop; loop = dyn_cast<LoopOp>(loop->getParentOp())) {
      std::optional<int64_t> trips = constantTrips(loop);
      if (!trips || *trips < 1)
        break;
      loops.push_back(loop);
    }
    return loops;
  }

  /// The existing product matrix for `key`, if any.
  Value existing(const ProductKey &key) {
    for (auto &[k, v] : products)
      if (k == key)
        return v;
    return Value();
  }

  /// The bytes a new product matrix for `key` takes with its masked
  /// operands (0 when one exists), where the loop reads of the operands only
  /// what they held when it began (`lhsReads` and `rhsReads` the loads of
  /// the elements multiplied; without them, the loop must only read the
  /// operands) and P costs at most `maxFlopsRatio` times the `points`
  /// entries the loop computes; std::nullopt otherwise.
  std::optional<int64_t> admissible(const ProductKey &key, LoopOp loop,
                                    double points,
                                    ArrayRef<LoadOp> lhsReads = {},
                                    ArrayRef<LoadOp> rhsReads = {}) {
    for (auto [operand, loads] :
         {std::pair(key.lhs, lhsReads), std::pair(key.rhs, rhsReads)})
      if (loop->isAncestor(operand.getParentBlock()->getParentOp()) ||
          !readsEntryValues(operand, loads, loop))
        return std::nullopt;
    auto lhsType = cast<MemRefType>(key.lhs.getType());
    auto rhsType = cast<MemRefType>(key.rhs.getType());
    Type elt = lhsType.getElementType();
    if (rhsType.getElementType() != elt)
      return std::nullopt;
    int64_t rows = lhsType.getDimSize(1 - key.lhsDim);
    int64_t cols = rhsType.getDimSize(1 - key.rhsDim);
    // P is a transient of static shape: a dynamic extent (which getDimSize
    // gives as a negative sentinel) or a size past the representable bound
    // leaves the term alone.
    std::optional<int64_t> bytes = checkedByteSize({rows, cols}, elt);
    if (!bytes)
      return std::nullopt;
    // Flops per entry (2 K) cancel out of the ratio.
    if (double(rows) * double(cols) > maxFlopsRatio * points)
      return std::nullopt;
    if (existing(key))
      return 0;
    if (*bytes > maxBytes)
      return std::nullopt;
    for (auto [operand, mask] :
         {std::pair(key.lhs, key.lhsMask), std::pair(key.rhs, key.rhsMask)})
      if (mask)
        *bytes += *checkedByteSize(cast<MemRefType>(operand.getType()));
    return bytes;
  }

  /// A copy of the matrix `a`, reduced along `dim`, with zeros where the
  /// reduced index falls outside `mask` of the free one, computed in a
  /// state before `loop`.
  Value masked(Value a, unsigned dim, AffineMap mask, LoopOp loop,
               Location loc) {
    auto type = cast<MemRefType>(a.getType());
    auto sdfg = loop->getParentOfType<SDFGOp>();
    OpBuilder b(loop.getContext());
    b.setInsertionPointToStart(&sdfg.getBody().front());
    Value copy =
        AllocOp::create(b, loc, type, ValueRange{}, b.getStringAttr("masked"));
    b.setInsertionPoint(loop);
    auto state = StateOp::create(b, loc, StringRef("mask"));
    b.setInsertionPointToStart(&state.getBody().front());
    MLIRContext *ctx = b.getContext();
    auto map = MapOp::create(
        b, loc, ValueRange{},
        AffineMap::get(0, 0,
                       {b.getAffineConstantExpr(0), b.getAffineConstantExpr(0)},
                       ctx),
        AffineMap::get(0, 0,
                       {b.getAffineConstantExpr(type.getDimSize(0)),
                        b.getAffineConstantExpr(type.getDimSize(1))},
                       ctx),
        b.getDenseI64ArrayAttr({1, 1}),
        scheduleForIterations(type.getNumElements()));
    Block *body = new Block();
    map.getBody().push_back(body);
    SmallVector<Value> params{body->addArgument(b.getIndexType(), loc),
                              body->addArgument(b.getIndexType(), loc)};
    b.setInsertionPointToStart(body);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    Type elt = type.getElementType();
    Value v = LoadOp::create(b, loc, elt, a, params, identity);
    auto tasklet = TaskletOp::create(
        b, loc, TypeRange{elt}, ValueRange{v, params[dim], params[1 - dim]});
    Block *tb = new Block();
    tasklet.getBody().push_back(tb);
    Value value = tb->addArgument(elt, loc);
    Value r = tb->addArgument(b.getIndexType(), loc);
    Value x = tb->addArgument(b.getIndexType(), loc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(tb);
      Value lo = expandIndexExpr(b, loc, mask.getResult(0), x);
      Value hi = expandIndexExpr(b, loc, mask.getResult(1), x);
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, r, lo),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, hi));
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
      YieldOp::create(
          b, loc,
          ValueRange{arith::SelectOp::create(b, loc, inside, value, zero)});
    }
    StoreOp::create(b, loc, tasklet.getResult(0), copy, params, identity,
                    nullptr);
    return copy;
  }

  /// Whether `bytes` more fit what a limit left of the program's memory,
  /// and if so spends them.
  bool spend(SDFGOp sdfg, int64_t bytes) {
    std::optional<int64_t> left = headroom(sdfg);
    if (left && bytes > *left - spent[sdfg])
      return false;
    spent[sdfg] += bytes;
    return true;
  }

  /// `P[x, y] = sum_k lhs[k, x] rhs[k, y]` (k along `key.lhsDim` and
  /// `key.rhsDim`) computed in a state before the loop, or the matrix an
  /// earlier product with the same key made.
  Value create(const ProductKey &key, LoopOp loop, Location loc) {
    if (Value p = existing(key))
      return p;
    auto lhsType = cast<MemRefType>(key.lhs.getType());
    auto rhsType = cast<MemRefType>(key.rhs.getType());
    Type elt = lhsType.getElementType();
    int64_t rows = lhsType.getDimSize(1 - key.lhsDim);
    int64_t cols = rhsType.getDimSize(1 - key.rhsDim);
    Value lhs = key.lhsMask
                    ? masked(key.lhs, key.lhsDim, key.lhsMask, loop, loc)
                    : key.lhs;
    Value rhs = key.rhsMask
                    ? masked(key.rhs, key.rhsDim, key.rhsMask, loop, loc)
                    : key.rhs;
    auto sdfg = loop->getParentOfType<SDFGOp>();
    OpBuilder b(loop.getContext());
    b.setInsertionPointToStart(&sdfg.getBody().front());
    Value p = AllocOp::create(b, loc, MemRefType::get({rows, cols}, elt),
                              ValueRange{}, b.getStringAttr("products"));
    b.setInsertionPoint(loop);
    auto state = StateOp::create(b, loc, StringRef("products"));
    b.setInsertionPointToStart(&state.getBody().front());
    // A[k, x] is row x of A^T; B[y, k] is column y of B^T.
    MatmulOp::create(b, loc, lhs, rhs, p,
                     /*transpose_a=*/key.lhsDim == 0,
                     /*transpose_b=*/key.rhsDim == 1, /*accumulate=*/false,
                     /*alpha=*/nullptr);
    products.push_back({key, p});
    return p;
  }

  /// The product for one term: admissible, within the memory, created.
  Value product(const ProductKey &key, LoopOp loop, double points, Location loc,
                ArrayRef<LoadOp> lhsReads = {},
                ArrayRef<LoadOp> rhsReads = {}) {
    std::optional<int64_t> bytes =
        admissible(key, loop, points, lhsReads, rhsReads);
    if (!bytes || !spend(loop->getParentOfType<SDFGOp>(), *bytes))
      return Value();
    return create(key, loop, loc);
  }

  /// Before the outermost of the loops around the map where the product
  /// is admissible: computed once for all their iterations (trmm's
  /// product leaves both the row and the column loop).
  void hoist(Contraction &c) {
    SmallVector<LoopOp> loops = enclosingLoops(c.map);
    for (size_t n = loops.size(); n > 0; --n) {
      LoopOp loop = loops[n - 1];
      std::optional<double> points =
          pointsOverLoops(c.map, c.k, ArrayRef(loops).take_front(n));
      if (!points)
        continue;
      ProductKey key{loop, c.lhs.getMemref(), c.rhs.getMemref(), c.lhsDim,
                     c.rhsDim};
      if (c.mask)
        (c.mask->onLhs ? key.lhsMask : key.rhsMask) = c.mask->bounds;
      if (Value p =
              product(key, loop, *points, c.map.getLoc(), {c.lhs}, {c.rhs})) {
        replaceMap(c, p);
        return;
      }
    }
  }

  /// `y (+)= op(A) x` where x is, each iteration, a copy of row or column
  /// g of a matrix X the loop only reads: y[j] (+)= P[g, j], P = X op(A)^T.
  void hoist(GemvOp gemv) {
    auto [loop, trips] = enclosingLoop(gemv);
    if (!loop)
      return;
    // The copy: the only write to x in the loop, earlier in the state.
    Value x = gemv.getX();
    MapOp copy;
    for (Operation *user : x.getUsers()) {
      if (!loop->isProperAncestor(user) || user == gemv || isa<LoadOp>(user))
        continue;
      auto map =
          isa<StoreOp>(user) ? dyn_cast<MapOp>(user->getParentOp()) : MapOp();
      if (copy || !map || map->getBlock() != gemv->getBlock() ||
          !map->isBeforeInBlock(gemv))
        return;
      copy = map;
    }
    std::optional<RowCopy> row = copy ? matchRowCopy(copy, x) : std::nullopt;
    auto yType = cast<MemRefType>(gemv.getY().getType());
    if (!row || !yType.hasStaticShape())
      return;
    // y[j] = sum_k A[j, k] x[k] reduces A along 1; transposed along 0.
    ProductKey key{loop, row->load.getMemref(), gemv.getA(), row->dim,
                   gemv.getTranspose() ? 0u : 1u};
    int64_t len = yType.getDimSize(0);
    if (Value p =
            product(key, loop, double(trips) * double(len), gemv.getLoc()))
      replaceGemv(gemv, *row, p, len);
  }

  /// The map without k, adding `P[x, y]` where it added the products.
  void replaceMap(Contraction &c, Value product) {
    MapOp map = c.map;
    OpBuilder b(map);
    Location loc = map.getLoc();
    // A map needs a parameter: one that reduced only over k keeps a single
    // point, 0 to 1.
    bool single = map.getNumParams() == 1;
    auto drop = [&](AffineMap m, int64_t point) {
      SmallVector<AffineExpr> exprs(m.getResults());
      exprs.erase(exprs.begin() + c.k);
      if (single)
        exprs.push_back(b.getAffineConstantExpr(point));
      return AffineMap::get(m.getNumDims(), m.getNumSymbols(), exprs,
                            b.getContext());
    };
    SmallVector<int64_t> steps(map.getSteps());
    steps.erase(steps.begin() + c.k);
    if (single)
      steps.push_back(1);
    auto hoisted = MapOp::create(
        b, loc, map.getRangeOperands(), drop(map.getLowerBounds(), 0),
        drop(map.getUpperBounds(), 1), steps, map.getSchedule());
    Block *body = new Block();
    hoisted.getBody().push_back(body);
    IRMapping params;
    for (auto [i, param] : llvm::enumerate(map.getParams()))
      if (i != c.k)
        params.map(param, body->addArgument(param.getType(), param.getLoc()));
    if (single)
      body->addArgument(b.getIndexType(), loc);
    b.setInsertionPointToStart(body);
    Value k = map.getParams()[c.k];
    Value v = loadProduct(b, loc, product, c.lhs, c.lhsDim, c.rhs, c.rhsDim, k,
                          params);
    SmallVector<Value> storeOperands;
    AffineMap storeMap = c.store.getMap().replaceDimsAndSymbols(
        rebase(c.store.getIndices(), k, params, storeOperands, b.getContext()),
        {}, storeOperands.size(), 0);
    StoreOp::create(b, c.store.getLoc(), v, c.store.getMemref(), storeOperands,
                    storeMap, c.store.getWcrAttr());
    map.erase();
  }

  /// `y[j] (+)= P[g, j]` in place of the gemv, g the copied row.
  void replaceGemv(GemvOp gemv, RowCopy &row, Value product, int64_t len) {
    OpBuilder b(gemv);
    Location loc = gemv.getLoc();
    MLIRContext *ctx = b.getContext();
    // Parallel where the frontend would make a map of this many points
    // parallel.
    auto map =
        MapOp::create(b, loc, ValueRange{},
                      AffineMap::get(0, 0, {b.getAffineConstantExpr(0)}),
                      AffineMap::get(0, 0, {b.getAffineConstantExpr(len)}),
                      b.getDenseI64ArrayAttr({1}), scheduleForIterations(len));
    Block *body = new Block();
    map.getBody().push_back(body);
    Value j = body->addArgument(b.getIndexType(), loc);
    b.setInsertionPointToStart(body);
    // g over the copy's load operands but its parameter, then j.
    SmallVector<Value> operands;
    AffineExpr g = row.load.getMap()
                       .getResult(1 - row.dim)
                       .replaceDimsAndSymbols(
                           rebase(row.load.getIndices(), row.map.getParams()[0],
                                  IRMapping(), operands, ctx),
                           {});
    AffineExpr jd = b.getAffineDimExpr(operands.size());
    operands.push_back(j);
    Type elt = cast<MemRefType>(product.getType()).getElementType();
    Value v = LoadOp::create(b, loc, elt, product, operands,
                             AffineMap::get(operands.size(), 0, {g, jd}, ctx));
    StoreOp::create(b, loc, v, gemv.getY(), ValueRange{j},
                    AffineMap::getMultiDimIdentityMap(1, ctx),
                    gemv.getAccumulate() ? WCRKindAttr::get(ctx, WCRKind::add)
                                         : WCRKindAttr());
    gemv.erase();
  }

  /// The accumulating loop, directly inside an outer loop, as one map
  /// adding `f * ... * P[x, y] + ...`.
  void hoist(Accumulation &a) {
    auto outer = dyn_cast<LoopOp>(a.loop->getParentOp());
    std::optional<int64_t> trips = outer ? constantTrips(outer) : std::nullopt;
    if (!trips || *trips < 1)
      return;
    std::optional<double> points = pointsOverLoops(a.map, ~0u, {outer});
    if (!points)
      return;
    // Every term's product admissible, the new ones within the memory.
    SmallVector<ProductKey> keys;
    int64_t bytes = 0;
    for (Term &t : a.terms) {
      for (LoadOp factor : t.factors)
        if (!onlyReadIn(factor.getMemref(), outer))
          return;
      ProductKey key{outer, t.lhs.getMemref(), t.rhs.getMemref(), t.lhsDim,
                     t.rhsDim};
      std::optional<int64_t> more = admissible(key, outer, *points);
      if (!more)
        return;
      if (!llvm::is_contained(keys, key))
        bytes += *more;
      keys.push_back(key);
    }
    if (!spend(outer->getParentOfType<SDFGOp>(), bytes))
      return;
    OpBuilder b(a.loop);
    Location loc = a.map.getLoc();
    auto state = StateOp::create(b, loc);
    b.setInsertionPointToStart(&state.getBody().front());
    MapOp map = a.map;
    auto folded =
        MapOp::create(b, loc, map.getRangeOperands(), map.getLowerBounds(),
                      map.getUpperBounds(), map.getSteps(), map.getSchedule());
    Block *body = new Block();
    folded.getBody().push_back(body);
    IRMapping mapping;
    for (Value param : map.getParams())
      mapping.map(param, body->addArgument(param.getType(), param.getLoc()));
    b.setInsertionPointToStart(body);
    Value k = a.loop.getIterator();
    // Tasklet inputs: old, then per term P[x, y] and its factors.
    SmallVector<Value> inputs{b.clone(*a.old, mapping)->getResult(0)};
    SmallVector<unsigned> termSizes;
    for (auto [t, key] : llvm::zip(a.terms, keys)) {
      Value product = create(key, outer, a.loop.getLoc());
      inputs.push_back(loadProduct(b, loc, product, t.lhs, t.lhsDim, t.rhs,
                                   t.rhsDim, k, mapping));
      for (LoadOp factor : t.factors)
        inputs.push_back(b.clone(*factor, mapping)->getResult(0));
      termSizes.push_back(1 + t.factors.size());
    }
    Value sum = scalarTasklet(b, loc, inputs, [&](OpBuilder &ib, auto args) {
      Value total = args[0];
      size_t next = 1;
      for (unsigned size : termSizes) {
        Value term = args[next];
        for (unsigned f = 1; f < size; ++f)
          term = arith::MulFOp::create(ib, loc, term, args[next + f]);
        total = arith::AddFOp::create(ib, loc, total, term);
        next += size;
      }
      return total;
    });
    StoreOp::create(b, a.store.getLoc(), sum, a.store.getMemref(),
                    llvm::map_to_vector(
                        a.store.getIndices(),
                        [&](Value v) { return mapping.lookupOrDefault(v); }),
                    a.store.getMap(), nullptr);
    a.loop.erase();
  }
};

} // namespace
