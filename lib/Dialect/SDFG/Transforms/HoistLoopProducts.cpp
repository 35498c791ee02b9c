//===- HoistLoopProducts.cpp - A loop's vector products as one GEMM -------===//
//
// --sdfg-hoist-loop-products: a loop that, per iteration, reduces products
// of slices of matrices it never writes (covariance's
// `data[:, i] @ data[:, i:M]`) computes entries of one matrix product of
// the whole matrices. Computing that product once before the loop, with a
// GEMM, and reading its entries in the loop replaces T memory-bound
// matrix-vector sweeps by one compute-bound call, also when the loop needs
// only part of the product (a triangle). Three forms: a map reducing
// A[k, x] * B[k, y] over a whole dimension, the frontend's gemv of a matrix
// with a vector copied from a row of another, and a loop over k adding
// such products to the elements its map updates (syrk, syr2k). The autodiff
// pass then differentiates the matmul (two GEMMs) instead of the T sweeps.
//
//===----------------------------------------------------------------------===//

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

/// Whether `loop` only reads `container`: element loads, library ops and
/// copies that read it (a library op writes only its output container).
bool onlyReadIn(Value container, LoopOp loop) {
  for (Operation *user : container.getUsers()) {
    if (!loop->isProperAncestor(user) || isa<LoadOp>(user))
      continue;
    if (auto lib = dyn_cast<LibraryOpInterface>(user))
      if (lib.getOutputContainer() != container)
        continue;
    if (auto copy = dyn_cast<CopyOp>(user))
      if (copy.getTarget() != container)
        continue;
    return false;
  }
  return true;
}

/// `x[p] = X[..., p, ...]` for every element of `x`: the frontend's copy of
/// a matrix's row or column into a vector operand.
struct RowCopy {
  MapOp map;
  LoadOp load;
  unsigned dim; // the dimension of X that p runs along
};

std::optional<RowCopy> matchRowCopy(MapOp map, Value x) {
  Block &body = map.getBody().front();
  if (map.getNumParams() != 1 || body.getOperations().size() != 2)
    return std::nullopt;
  auto load = dyn_cast<LoadOp>(body.front());
  auto store = dyn_cast<StoreOp>(body.back());
  Value p = map.getParams()[0];
  auto len = cast<MemRefType>(x.getType()).getShape();
  auto lo = dyn_cast<AffineConstantExpr>(map.getLowerBounds().getResult(0));
  auto hi = dyn_cast<AffineConstantExpr>(map.getUpperBounds().getResult(0));
  if (!load || !store || store.getMemref() != x ||
      store.getValue() != load.getResult() || store.getWcr() ||
      store.getIndices().size() != 1 || store.getIndices()[0] != p ||
      store.getMap() !=
          AffineMap::getMultiDimIdentityMap(1, map.getContext()) ||
      len.size() != 1 || ShapedType::isDynamic(len[0]) || !lo || !hi ||
      lo.getValue() != 0 || hi.getValue() != len[0] || map.getSteps()[0] != 1)
    return std::nullopt;
  auto type = cast<MemRefType>(load.getMemref().getType());
  std::optional<unsigned> dim = reductionDim(load, p);
  if (!dim || !type.hasStaticShape() || type.getDimSize(*dim) != len[0])
    return std::nullopt;
  return RowCopy{map, load, *dim};
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

/// A loop over k (0 to K, one state holding one map) that adds products to
/// elements it does not index by k, as syrk's inner loop does:
/// `C[idx] = C[idx] + f * ... * A[k, x] * B[k, y] + ...`, each term's
/// factors f loads that do not depend on k. Over the whole loop each term
/// adds `f * ... * P[x, y]`.
struct Term {
  LoadOp lhs, rhs;
  unsigned lhsDim = 0, rhsDim = 0;
  SmallVector<LoadOp> factors;
};

struct Accumulation {
  LoopOp loop;
  MapOp map;
  LoadOp old;
  SmallVector<Term> terms;
  StoreOp store;
};

/// Collects the leaves of a tree of `arith.mulf` inside a tasklet body.
bool productLeaves(Value v, SmallVectorImpl<Value> &leaves) {
  if (isa<BlockArgument>(v)) {
    leaves.push_back(v);
    return true;
  }
  auto mul = v.getDefiningOp<arith::MulFOp>();
  return mul && mul->hasOneUse() && productLeaves(mul.getLhs(), leaves) &&
         productLeaves(mul.getRhs(), leaves);
}

/// Splits a tree of `arith.addf` into its operands, each a product tree.
bool sumTerms(Value v, SmallVectorImpl<SmallVector<Value>> &terms) {
  if (auto add = v.getDefiningOp<arith::AddFOp>())
    return add->hasOneUse() && sumTerms(add.getLhs(), terms) &&
           sumTerms(add.getRhs(), terms);
  return productLeaves(v, terms.emplace_back());
}

std::optional<Accumulation> matchAccumulation(LoopOp loop) {
  Block &loopBody = loop.getBody().front();
  auto state = loopBody.getOperations().size() == 1
                   ? dyn_cast<StateOp>(loopBody.front())
                   : StateOp();
  if (!state || state.getBody().front().getOperations().size() != 1)
    return std::nullopt;
  auto map = dyn_cast<MapOp>(state.getBody().front().front());
  auto lb = dyn_cast<AffineConstantExpr>(loop.getLowerExpr());
  auto ub = dyn_cast<AffineConstantExpr>(loop.getUpperExpr());
  Value k = loop.getIterator();
  if (!map || !lb || !ub || lb.getValue() != 0 || loop.getStepValue() != 1 ||
      llvm::is_contained(map.getRangeOperands(), k))
    return std::nullopt;
  Accumulation acc{loop, map, {}, {}, {}};
  TaskletOp tasklet;
  for (Operation &op : map.getBody().front()) {
    if (auto load = dyn_cast<LoadOp>(op)) {
      if (!load->hasOneUse() || !isa<TaskletOp>(*load->getUsers().begin()))
        return std::nullopt;
    } else if (auto t = dyn_cast<TaskletOp>(op); t && !tasklet) {
      tasklet = t;
    } else if (auto st = dyn_cast<StoreOp>(op); st && !acc.store) {
      acc.store = st;
    } else {
      return std::nullopt;
    }
  }
  StoreOp store = acc.store;
  if (!tasklet || !store || store.getWcr() || tasklet.getNumResults() != 1 ||
      store.getValue() != tasklet.getResult(0) ||
      !isa<FloatType>(store.getValue().getType()) ||
      reads(store.getMap(), store.getIndices(), k))
    return std::nullopt;
  // Every input of the tasklet is one of the map's loads.
  SmallVector<LoadOp> inputs;
  for (Value in : tasklet.getInputs()) {
    auto load = in.getDefiningOp<LoadOp>();
    if (!load || load->getParentOp() != map)
      return std::nullopt;
    inputs.push_back(load);
    if (load.getMemref() != store.getMemref())
      continue;
    // The element the store writes, and no other of the target.
    if (acc.old || load.getIndices() != store.getIndices() ||
        load.getMap() != store.getMap())
      return std::nullopt;
    acc.old = load;
  }
  if (!acc.old)
    return std::nullopt;
  // The tasklet yields old + a sum of products of the other inputs, each
  // input used once.
  Block &body = tasklet.getBody().front();
  auto yield = cast<YieldOp>(body.getTerminator());
  auto add = yield.getValues().size() == 1
                 ? yield.getValues()[0].getDefiningOp<arith::AddFOp>()
                 : arith::AddFOp();
  unsigned oldIndex = llvm::find(inputs, acc.old) - inputs.begin();
  Value oldArg = body.getArgument(oldIndex);
  if (!add || !add->hasOneUse() ||
      (add.getLhs() != oldArg && add.getRhs() != oldArg))
    return std::nullopt;
  SmallVector<SmallVector<Value>> leaves;
  if (!sumTerms(add.getLhs() == oldArg ? add.getRhs() : add.getLhs(), leaves))
    return std::nullopt;
  llvm::SmallDenseSet<Value> seen{oldArg};
  size_t ops = 2 + leaves.size() - 1; // the yield, the adds
  for (auto &term : leaves) {
    ops += term.size() - 1;
    Term t;
    for (Value leaf : term) {
      if (!seen.insert(leaf).second)
        return std::nullopt;
      LoadOp load = inputs[cast<BlockArgument>(leaf).getArgNumber()];
      if (!reads(load.getMap(), load.getIndices(), k)) {
        t.factors.push_back(load);
        continue;
      }
      std::optional<unsigned> dim = reductionDim(load, k);
      auto type = cast<MemRefType>(load.getMemref().getType());
      // k runs over the whole reduced dimension.
      if (!dim || t.rhs || !type.hasStaticShape() ||
          type.getDimSize(*dim) != ub.getValue())
        return std::nullopt;
      (t.lhs ? t.rhsDim : t.lhsDim) = *dim;
      (t.lhs ? t.rhs : t.lhs) = load;
    }
    if (!t.rhs)
      return std::nullopt;
    acc.terms.push_back(std::move(t));
  }
  if (seen.size() != inputs.size() || body.getOperations().size() != ops)
    return std::nullopt;
  return acc;
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

  /// The existing product matrix for `key`, if any.
  Value existing(const ProductKey &key) {
    for (auto &[k, v] : products)
      if (k == key)
        return v;
    return Value();
  }

  /// The bytes a new product matrix for `key` takes (0 when one exists),
  /// where the loop only reads the operands and P costs at most
  /// `maxFlopsRatio` times the `points` entries the loop computes;
  /// std::nullopt otherwise.
  std::optional<int64_t> admissible(const ProductKey &key, LoopOp loop,
                                    double points) {
    if (!onlyReadIn(key.lhs, loop) || !onlyReadIn(key.rhs, loop))
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
    return bytes;
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
    auto sdfg = loop->getParentOfType<SDFGOp>();
    OpBuilder b(loop.getContext());
    b.setInsertionPointToStart(&sdfg.getBody().front());
    Value p = AllocOp::create(b, loc, MemRefType::get({rows, cols}, elt),
                              ValueRange{}, b.getStringAttr("products"));
    b.setInsertionPoint(loop);
    auto state = StateOp::create(b, loc, StringRef("products"));
    b.setInsertionPointToStart(&state.getBody().front());
    // A[k, x] is row x of A^T; B[y, k] is column y of B^T.
    MatmulOp::create(b, loc, key.lhs, key.rhs, p,
                     /*transpose_a=*/key.lhsDim == 0,
                     /*transpose_b=*/key.rhsDim == 1, /*accumulate=*/false,
                     /*alpha=*/nullptr);
    products.push_back({key, p});
    return p;
  }

  /// The product for one term: admissible, within the memory, created.
  Value product(const ProductKey &key, LoopOp loop, double points,
                Location loc) {
    std::optional<int64_t> bytes = admissible(key, loop, points);
    if (!bytes || !spend(loop->getParentOfType<SDFGOp>(), *bytes))
      return Value();
    return create(key, loop, loc);
  }

  void hoist(Contraction &c) {
    auto [loop, trips] = enclosingLoop(c.map);
    if (!loop)
      return;
    std::optional<double> points = pointsOverLoop(c.map, c.k, loop, trips);
    if (!points)
      return;
    ProductKey key{loop, c.lhs.getMemref(), c.rhs.getMemref(), c.lhsDim,
                   c.rhsDim};
    if (Value p = product(key, loop, *points, c.map.getLoc()))
      replaceMap(c, p);
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
    std::optional<double> points = pointsOverLoop(a.map, ~0u, outer, *trips);
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
