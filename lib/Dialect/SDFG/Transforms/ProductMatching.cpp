//===- ProductMatching.cpp - Loops' vector products, recognised ---------===//
//
// The matchers of --sdfg-hoist-loop-products (ProductMatching.h).
//
//===----------------------------------------------------------------------===//

#include "ProductMatching.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::products;

namespace {

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

/// Whether `user` of `container` only reads it: an element load, a library
/// op or copy that reads it (a library op writes only its output).
bool onlyReads(Operation *user, Value container) {
  if (isa<LoadOp>(user))
    return true;
  if (auto lib = dyn_cast<LibraryOpInterface>(user))
    return lib.getOutputContainer() != container;
  if (auto copy = dyn_cast<CopyOp>(user))
    return copy.getTarget() != container;
  return false;
}

/// Whether `v` is never negative: a map parameter or an ascending loop's
/// iterator starting at a constant >= 0.
bool isNonNegative(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return false;
  Operation *owner = arg.getOwner()->getParentOp();
  if (auto map = dyn_cast<MapOp>(owner)) {
    auto lo = dyn_cast<AffineConstantExpr>(
        map.getLowerBounds().getResult(arg.getArgNumber()));
    return lo && lo.getValue() >= 0;
  }
  if (auto loop = dyn_cast<LoopOp>(owner)) {
    auto lo = dyn_cast<AffineConstantExpr>(loop.getLowerExpr());
    return lo && lo.getValue() >= 0 && loop.getStepValue() > 0;
  }
  return false;
}

/// The dimension of a rank-2 load that `k` indexes, as `k + c` (c free of
/// `k`), with its other dimension free of `k`; and that index.
std::optional<std::pair<unsigned, LinearIndex>> reducedIndex(LoadOp load,
                                                             Value k) {
  AffineMap map = load.getMap();
  if (map.getNumResults() != 2)
    return std::nullopt;
  std::optional<std::pair<unsigned, LinearIndex>> found;
  for (unsigned d = 0; d < 2; ++d) {
    if (!readsIn(map, load.getIndices(), k, d))
      continue;
    std::optional<LinearIndex> index =
        LinearIndex::of(map.getResult(d), load.getIndices());
    if (found || !index || index->coefficient(k) != 1)
      return std::nullopt;
    found = {d, *index};
  }
  return found;
}

} // namespace

/// Whether the index expressions of an access (`map` over `operands`) read
/// `v` in result `d`.
bool products::readsIn(AffineMap map, ValueRange operands, Value v,
                       unsigned d) {
  for (auto [pos, operand] : llvm::enumerate(operands))
    if (operand == v && map.getResult(d).isFunctionOfDim(pos))
      return true;
  return false;
}

bool products::reads(AffineMap map, ValueRange operands, Value v) {
  for (unsigned d = 0; d < map.getNumResults(); ++d)
    if (readsIn(map, operands, v, d))
      return true;
  return false;
}

/// The one dimension of a rank-2 load that `k` indexes, exactly as `k`
/// itself, with the other dimension free of `k`.
std::optional<unsigned> products::reductionDim(LoadOp load, Value k) {
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

std::optional<LinearIndex> LinearIndex::of(AffineExpr expr,
                                           ValueRange operands) {
  LinearIndex out;
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    out.constant = c.getValue();
    return out;
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    if (d.getPosition() >= operands.size())
      return std::nullopt;
    out.terms[operands[d.getPosition()]] = 1;
    return out;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt; // a symbol
  std::optional<LinearIndex> l = of(bin.getLHS(), operands);
  std::optional<LinearIndex> r = of(bin.getRHS(), operands);
  if (!l || !r)
    return std::nullopt;
  if (expr.getKind() == AffineExprKind::Add)
    return l->plus(*r);
  if (expr.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  if (!r->terms.empty())
    std::swap(l, r);
  if (!r->terms.empty())
    return std::nullopt; // a product of two values
  return LinearIndex().plus(*l, r->constant);
}

std::optional<LinearIndex> LinearIndex::plus(const LinearIndex &o,
                                             int64_t scale) const {
  LinearIndex out = *this;
  int64_t scaled;
  if (llvm::MulOverflow(o.constant, scale, scaled) ||
      llvm::AddOverflow(out.constant, scaled, out.constant))
    return std::nullopt;
  for (auto [v, c] : o.terms) {
    int64_t &mine = out.terms[v];
    if (llvm::MulOverflow(c, scale, scaled) ||
        llvm::AddOverflow(mine, scaled, mine))
      return std::nullopt;
    if (mine == 0)
      out.terms.erase(v);
  }
  return out;
}

bool LinearIndex::operator==(const LinearIndex &o) const {
  if (constant != o.constant || terms.size() != o.terms.size())
    return false;
  return llvm::all_of(
      terms, [&](auto &t) { return o.coefficient(t.first) == t.second; });
}

std::optional<Contraction> products::matchContraction(MapOp map) {
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
  // Both loads reduce along r = k + c, the same r.
  auto lhs = reducedIndex(loads[0], kv);
  auto rhs = reducedIndex(loads[1], kv);
  if (!lhs || !rhs || !(lhs->second == rhs->second))
    return std::nullopt;
  auto lhsType = cast<MemRefType>(loads[0].getMemref().getType());
  auto rhsType = cast<MemRefType>(loads[1].getMemref().getType());
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape())
    return std::nullopt;
  int64_t extent = lhsType.getDimSize(lhs->first);
  if (rhsType.getDimSize(rhs->first) != extent)
    return std::nullopt;
  Contraction c{map, loads[0],   loads[1],   store,
                *k,  lhs->first, rhs->first, std::nullopt};
  // The range of r, [lo + c, hi + c) over k's bounds [lo, hi).
  LinearIndex offset = lhs->second;
  offset.terms.erase(kv);
  std::optional<LinearIndex> lo = LinearIndex::of(
      map.getLowerBounds().getResult(*k), map.getRangeOperands());
  std::optional<LinearIndex> hi = LinearIndex::of(
      map.getUpperBounds().getResult(*k), map.getRangeOperands());
  std::optional<LinearIndex> first = lo ? lo->plus(offset) : std::nullopt;
  std::optional<LinearIndex> end = hi ? hi->plus(offset) : std::nullopt;
  if (!first || !end)
    return std::nullopt;
  if (first->terms.empty() && end->terms.empty() && first->constant == 0 &&
      end->constant == extent)
    return c;
  // Part of the dimension: bounds that are constants, or move with the
  // free index of one operand (a triangle), mask that operand.
  Value free;
  for (const LinearIndex *bound : {&*first, &*end})
    for (auto [v, coefficient] : bound->terms) {
      if (free && v != free)
        return std::nullopt;
      free = v;
    }
  auto freeIndex = [](LoadOp load, unsigned dim) {
    return LinearIndex::of(load.getMap().getResult(1 - dim), load.getIndices());
  };
  bool onLhs = true;
  if (free) {
    std::optional<LinearIndex> x = freeIndex(loads[0], c.lhsDim);
    std::optional<LinearIndex> y = freeIndex(loads[1], c.rhsDim);
    if (y && y->isValue(free) && !(x && x->isValue(free)))
      onLhs = false;
    else if (!x || !x->isValue(free))
      return std::nullopt;
  }
  MLIRContext *ctx = map.getContext();
  auto expr = [&](const LinearIndex &bound) {
    AffineExpr e = getAffineConstantExpr(bound.constant, ctx);
    if (free)
      e = e + getAffineDimExpr(0, ctx) * bound.coefficient(free);
    return e;
  };
  c.mask = Mask{onLhs, AffineMap::get(1, 0, {expr(*first), expr(*end)}, ctx)};
  return c;
}

/// Whether `loop` only reads `container`: element loads, library ops and
/// copies that read it (a library op writes only its output container).
bool products::onlyReadIn(Value container, LoopOp loop) {
  return llvm::all_of(container.getUsers(), [&](Operation *user) {
    return !loop->isProperAncestor(user) || onlyReads(user, container);
  });
}

bool products::readsEntryValues(Value container, ArrayRef<LoadOp> loads,
                                LoopOp loop) {
  if (onlyReadIn(container, loop))
    return true;
  Value i = loop.getIterator();
  // Without the loads to check, only a loop that never writes qualifies.
  if (loads.empty() || loop.getStepValue() <= 0)
    return false;
  for (Operation *user : container.getUsers()) {
    if (!loop->isProperAncestor(user) || onlyReads(user, container))
      continue;
    auto store = dyn_cast<StoreOp>(user);
    if (!store)
      return false;
    // Iteration i writes row i of dimension d; every load reads row i + 1
    // or beyond, which no iteration up to i has written.
    bool separated = false;
    for (unsigned d = 0; d < store.getMap().getNumResults() && !separated;
         ++d) {
      std::optional<LinearIndex> row =
          LinearIndex::of(store.getMap().getResult(d), store.getIndices());
      if (!row || !row->isValue(i))
        continue;
      separated = llvm::all_of(loads, [&](LoadOp load) {
        std::optional<LinearIndex> read =
            LinearIndex::of(load.getMap().getResult(d), load.getIndices());
        std::optional<LinearIndex> beyond =
            read ? read->plus(*row, -1) : std::nullopt;
        return beyond && beyond->constant >= 1 &&
               llvm::all_of(beyond->terms, [](auto &t) {
                 return t.second > 0 && isNonNegative(t.first);
               });
      });
    }
    if (!separated)
      return false;
  }
  return true;
}

std::optional<RowCopy> products::matchRowCopy(MapOp map, Value x) {
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

std::optional<Accumulation> products::matchAccumulation(LoopOp loop) {
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
