//===- HoistLoopProducts.cpp - A loop's vector products as one GEMM -------===//
//
// --sdfg-hoist-loop-products: a loop that, per iteration, reduces products
// of slices of matrices it never writes (covariance's
// `data[:, i] @ data[:, i:M]`) computes entries of one matrix product of
// the whole matrices. Computing that product once before the loop, with a
// GEMM, and reading its entries in the loop replaces T memory-bound
// matrix-vector sweeps by one compute-bound call, also when the loop needs
// only part of the product (a triangle). The autodiff pass then
// differentiates the matmul (two GEMMs) instead of the T sweeps.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IndexUtils.h"
#include "sdfg/Dialect/SDFG/SDFGOps.h"
#include "sdfg/Transforms/LoopUtils.h"
#include "sdfg/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_HOISTLOOPPRODUCTS
#include "sdfg/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// Whether the index expressions of an access (`map` over `operands`) read
/// `v` in result `d`.
bool readsIn(AffineMap map, ValueRange operands, Value v, unsigned d) {
  for (auto [pos, operand] : llvm::enumerate(operands))
    if (operand == v && map.getResult(d).isFunctionOfDim(pos))
      return true;
  return false;
}

bool reads(AffineMap map, ValueRange operands, Value v) {
  for (unsigned d = 0; d < map.getNumResults(); ++d)
    if (readsIn(map, operands, v, d))
      return true;
  return false;
}

/// The one dimension of a rank-2 load that `k` indexes, exactly as `k`
/// itself, with the other dimension free of `k`.
std::optional<unsigned> reductionDim(LoadOp load, Value k) {
  AffineMap map = load.getMap();
  if (map.getNumResults() != 2)
    return std::nullopt;
  std::optional<unsigned> found;
  for (unsigned d = 0; d < 2; ++d) {
    if (!readsIn(map, load.getIndices(), k, d))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(d));
    if (found || !dim || load.getIndices()[dim.getPosition()] != k)
      return std::nullopt;
    found = d;
  }
  return found;
}

/// `T[...] += A[k, x] * B[k, y]` (either dimension of A and B), k a map
/// parameter that runs over the whole of that dimension.
struct Contraction {
  MapOp map;
  LoadOp lhs, rhs;
  StoreOp store;
  unsigned k;              // the reduced parameter
  unsigned lhsDim, rhsDim; // the dimensions k indexes
};

/// Whether `tasklet` multiplies its two inputs and yields the product.
bool isProduct(TaskletOp tasklet) {
  if (tasklet.getInputs().size() != 2 || tasklet.getNumResults() != 1)
    return false;
  Block &body = tasklet.getBody().front();
  if (body.getOperations().size() != 2)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(body.front());
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!mul || !yield || yield.getValues().size() != 1 ||
      yield.getValues()[0] != mul.getResult())
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

std::optional<Contraction> matchContraction(MapOp map) {
  Block &body = map.getBody().front();
  if (body.getOperations().size() != 4)
    return std::nullopt;
  SmallVector<LoadOp> loads;
  TaskletOp tasklet;
  StoreOp store;
  for (Operation &op : body) {
    if (auto load = dyn_cast<LoadOp>(op))
      loads.push_back(load);
    else if (auto t = dyn_cast<TaskletOp>(op))
      tasklet = t;
    else if (auto s = dyn_cast<StoreOp>(op))
      store = s;
  }
  if (loads.size() != 2 || !tasklet || !store || !isProduct(tasklet) ||
      store.getValue() != tasklet.getResult(0) || !store.getWcr() ||
      *store.getWcr() != WCRKind::add ||
      !isa<FloatType>(store.getValue().getType()))
    return std::nullopt;
  auto inputs = tasklet.getInputs();
  if (!((inputs[0] == loads[0].getResult() &&
         inputs[1] == loads[1].getResult()) ||
        (inputs[0] == loads[1].getResult() &&
         inputs[1] == loads[0].getResult())))
    return std::nullopt;
  // The reduced parameter: the one the store does not index with.
  std::optional<unsigned> k;
  for (auto [i, param] : llvm::enumerate(map.getParams())) {
    if (reads(store.getMap(), store.getIndices(), param))
      continue;
    if (k)
      return std::nullopt;
    k = i;
  }
  if (!k || map.getSteps()[*k] != 1)
    return std::nullopt;
  Value kv = map.getParams()[*k];
  std::optional<unsigned> lhsDim = reductionDim(loads[0], kv);
  std::optional<unsigned> rhsDim = reductionDim(loads[1], kv);
  if (!lhsDim || !rhsDim)
    return std::nullopt;
  // k covers the whole dimension, in both matrices.
  auto lhsType = cast<MemRefType>(loads[0].getMemref().getType());
  auto rhsType = cast<MemRefType>(loads[1].getMemref().getType());
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape())
    return std::nullopt;
  auto lo = dyn_cast<AffineConstantExpr>(map.getLowerBounds().getResult(*k));
  auto hi = dyn_cast<AffineConstantExpr>(map.getUpperBounds().getResult(*k));
  int64_t extent = lhsType.getDimSize(*lhsDim);
  if (!lo || !hi || lo.getValue() != 0 || hi.getValue() != extent ||
      rhsType.getDimSize(*rhsDim) != extent)
    return std::nullopt;
  return Contraction{map, loads[0], loads[1], store, *k, *lhsDim, *rhsDim};
}

/// Whether `loop` only reads `container` (through element loads).
bool onlyReadIn(Value container, LoopOp loop) {
  for (Operation *user : container.getUsers())
    if (loop->isProperAncestor(user) && !isa<LoadOp>(user))
      return false;
  return true;
}

/// The number of points the map computes over all iterations of `loop`,
/// leaving out parameter `skip`; std::nullopt when its extents depend on
/// anything but constants and the loop's iterator.
std::optional<double> pointsOverLoop(MapOp map, unsigned skip, LoopOp loop,
                                     int64_t trips) {
  // Evaluating the extents per iteration is exact for triangles; bound the
  // work for very long loops.
  if (trips > (int64_t(1) << 20))
    return std::nullopt;
  for (Value operand : map.getRangeOperands())
    if (operand != loop.getIterator())
      return std::nullopt;
  int64_t lb = cast<AffineConstantExpr>(loop.getLowerExpr()).getValue();
  int64_t step = loop.getStepValue();
  double total = 0;
  SmallVector<std::optional<int64_t>> dims(map.getRangeOperands().size());
  for (int64_t t = 0; t < trips; ++t) {
    for (auto &d : dims)
      d = lb + t * step;
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

/// The product matrix a loop already computed for these operands.
struct ProductKey {
  Operation *loop;
  Value lhs, rhs;
  unsigned lhsDim, rhsDim;
  bool operator==(const ProductKey &o) const {
    return loop == o.loop && lhs == o.lhs && rhs == o.rhs &&
           lhsDim == o.lhsDim && rhsDim == o.rhsDim;
  }
};

struct HoistLoopProductsPass
    : public sdfg::impl::HoistLoopProductsBase<HoistLoopProductsPass> {
  using HoistLoopProductsBase::HoistLoopProductsBase;

  void runOnOperation() override {
    if (maxFlopsRatio < 0 || maxBytes < 0) {
      getOperation().emitError("sdfg-hoist-loop-products: max-flops-ratio "
                               "and max-bytes must not be negative");
      return signalPassFailure();
    }
    SmallVector<MapOp> maps;
    getOperation().walk([&](MapOp map) { maps.push_back(map); });
    for (MapOp map : maps)
      if (std::optional<Contraction> c = matchContraction(map))
        hoist(*c);
  }

  /// Bytes of product matrices added to each checkpointed gradient so far.
  llvm::DenseMap<Operation *, int64_t> spent;
  SmallVector<std::pair<ProductKey, Value>> products;

  void hoist(Contraction &c) {
    // Directly in a state of a loop with constant bounds.
    auto state = dyn_cast<StateOp>(c.map->getParentOp());
    auto loop = state ? dyn_cast<LoopOp>(state->getParentOp()) : LoopOp();
    if (!loop)
      return;
    std::optional<int64_t> trips = constantTrips(loop);
    Value lhs = c.lhs.getMemref(), rhs = c.rhs.getMemref();
    if (!trips || *trips < 1 || !onlyReadIn(lhs, loop) ||
        !onlyReadIn(rhs, loop))
      return;
    auto lhsType = cast<MemRefType>(lhs.getType());
    auto rhsType = cast<MemRefType>(rhs.getType());
    Type elt = lhsType.getElementType();
    if (rhsType.getElementType() != elt)
      return;
    int64_t rows = lhsType.getDimSize(1 - c.lhsDim);
    int64_t cols = rhsType.getDimSize(1 - c.rhsDim);
    std::optional<double> points = pointsOverLoop(c.map, c.k, loop, *trips);
    // Flops per point (2 K) cancel out of the ratio.
    if (!points || double(rows) * double(cols) > maxFlopsRatio * *points)
      return;
    auto sdfg = loop->getParentOfType<SDFGOp>();
    ProductKey key{loop, lhs, rhs, c.lhsDim, c.rhsDim};
    Value product;
    for (auto &[k, v] : products)
      if (k == key)
        product = v;
    if (!product) {
      int64_t bytes = rows * cols * int64_t(elt.getIntOrFloatBitWidth() / 8);
      std::optional<int64_t> left = headroom(sdfg);
      if (bytes > maxBytes || (left && bytes > *left - spent[sdfg]))
        return;
      spent[sdfg] += bytes;
      product = computeProduct(c, loop, sdfg, rows, cols, elt);
      products.push_back({key, product});
    }
    replaceMap(c, product);
  }

  /// `P = op(A) op(B)` in a new state before `loop`.
  Value computeProduct(Contraction &c, LoopOp loop, SDFGOp sdfg, int64_t rows,
                       int64_t cols, Type elt) {
    Location loc = c.map.getLoc();
    OpBuilder b(loop.getContext());
    b.setInsertionPointToStart(&sdfg.getBody().front());
    Value product = AllocOp::create(b, loc, MemRefType::get({rows, cols}, elt),
                                    ValueRange{}, b.getStringAttr("products"));
    b.setInsertionPoint(loop);
    auto state = StateOp::create(b, loc, StringRef("products"));
    b.setInsertionPointToStart(&state.getBody().front());
    // A[k, x] is row x of A^T; B[y, k] is column y of B^T.
    MatmulOp::create(b, loc, c.lhs.getMemref(), c.rhs.getMemref(), product,
                     /*transpose_a=*/c.lhsDim == 0,
                     /*transpose_b=*/c.rhsDim == 1, /*accumulate=*/false,
                     /*alpha=*/nullptr);
    return product;
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
    // P[x, y]: x from the left load's free dimension, y from the right's,
    // over both loads' operands but k (which they no longer use).
    Value k = map.getParams()[c.k];
    SmallVector<Value> operands;
    SmallVector<AffineExpr> index;
    auto remap = [&](ValueRange from, SmallVectorImpl<Value> &to) {
      SmallVector<AffineExpr> replacement;
      for (Value operand : from) {
        if (operand == k) {
          replacement.push_back(b.getAffineConstantExpr(0));
          continue;
        }
        replacement.push_back(b.getAffineDimExpr(to.size()));
        to.push_back(params.lookupOrDefault(operand));
      }
      return replacement;
    };
    for (auto [load, dim] :
         {std::pair(c.lhs, c.lhsDim), std::pair(c.rhs, c.rhsDim)}) {
      SmallVector<AffineExpr> replacement = remap(load.getIndices(), operands);
      index.push_back(load.getMap().getResult(1 - dim).replaceDimsAndSymbols(
          replacement, {}));
    }
    Type elt = c.store.getValue().getType();
    Value v = LoadOp::create(
        b, loc, elt, product, operands,
        AffineMap::get(operands.size(), 0, index, b.getContext()));
    SmallVector<Value> storeOperands;
    SmallVector<AffineExpr> replacement =
        remap(c.store.getIndices(), storeOperands);
    AffineMap storeMap = c.store.getMap().replaceDimsAndSymbols(
        replacement, {}, storeOperands.size(), 0);
    StoreOp::create(b, c.store.getLoc(), v, c.store.getMemref(), storeOperands,
                    storeMap, c.store.getWcrAttr());
    map.erase();
  }
};

} // namespace
