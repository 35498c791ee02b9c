//===- Intervals.cpp - Bounds of index values -----------------------------===//
//
// Interval arithmetic over loop and map bounds: the ranges of iterators and
// index expressions over all executions, from which tapes are sized.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

std::optional<Interval> Intervals::of(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return std::nullopt;
  Operation *owner = arg.getOwner()->getParentOp();
  if (auto loop = dyn_cast<LoopOp>(owner)) {
    auto lb = of(loop.getLowerExpr(), loop.getBoundOperands());
    auto ub = of(loop.getUpperExpr(), loop.getBoundOperands());
    if (!lb || !ub)
      return std::nullopt;
    if (loop.getStepValue() > 0)
      return Interval{lb->lo, ub->hi - 1};
    return Interval{ub->lo + 1, lb->hi};
  }
  if (auto map = dyn_cast<MapOp>(owner)) {
    unsigned k = arg.getArgNumber();
    auto lb = of(map.getLowerBounds().getResult(k), map.getRangeOperands());
    auto ub = of(map.getUpperBounds().getResult(k), map.getRangeOperands());
    if (!lb || !ub)
      return std::nullopt;
    return Interval{lb->lo, ub->hi - 1};
  }
  return std::nullopt;
}

std::optional<Interval> Intervals::of(AffineExpr e, ValueRange operands) {
  if (auto c = dyn_cast<AffineConstantExpr>(e))
    return Interval{c.getValue(), c.getValue()};
  if (auto d = dyn_cast<AffineDimExpr>(e))
    return of(operands[d.getPosition()]);
  auto bin = dyn_cast<AffineBinaryOpExpr>(e);
  if (!bin)
    return std::nullopt;
  auto l = of(bin.getLHS(), operands), r = of(bin.getRHS(), operands);
  if (!l || !r)
    return std::nullopt;
  auto floorDiv = [](int64_t a, int64_t b) {
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
  };
  // Bounds that overflow (or leave what the dialect represents) are
  // unknown: the tape is then refused instead of sized from a wrapped
  // value.
  auto within = [](Interval i) -> std::optional<Interval> {
    if (i.lo <= -kMaxRepresentable || i.hi >= kMaxRepresentable)
      return std::nullopt;
    return i;
  };
  switch (e.getKind()) {
  case AffineExprKind::Add: {
    Interval sum;
    if (llvm::AddOverflow(l->lo, r->lo, sum.lo) ||
        llvm::AddOverflow(l->hi, r->hi, sum.hi))
      return std::nullopt;
    return within(sum);
  }
  case AffineExprKind::Mul: {
    int64_t c[4];
    if (llvm::MulOverflow(l->lo, r->lo, c[0]) ||
        llvm::MulOverflow(l->lo, r->hi, c[1]) ||
        llvm::MulOverflow(l->hi, r->lo, c[2]) ||
        llvm::MulOverflow(l->hi, r->hi, c[3]))
      return std::nullopt;
    return within(
        Interval{*std::min_element(c, c + 4), *std::max_element(c, c + 4)});
  }
  case AffineExprKind::FloorDiv:
    if (r->lo != r->hi || r->lo <= 0)
      return std::nullopt;
    return Interval{floorDiv(l->lo, r->lo), floorDiv(l->hi, r->lo)};
  case AffineExprKind::CeilDiv:
    if (r->lo != r->hi || r->lo <= 0)
      return std::nullopt;
    return Interval{-floorDiv(-l->lo, r->lo), -floorDiv(-l->hi, r->lo)};
  case AffineExprKind::Mod:
    if (r->lo != r->hi || r->lo <= 0)
      return std::nullopt;
    return Interval{0, r->lo - 1};
  default:
    return std::nullopt;
  }
}

namespace {

/// `expr` as constant + sum(coefficient * dim), if it is one.
bool linearTerms(AffineExpr expr, SmallVectorImpl<int64_t> &coefficients,
                 int64_t &constant, int64_t scale = 1) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
    constant += scale * c.getValue();
    return true;
  }
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    coefficients[d.getPosition()] += scale;
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return linearTerms(bin.getLHS(), coefficients, constant, scale) &&
           linearTerms(bin.getRHS(), coefficients, constant, scale);
  if (bin.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return linearTerms(bin.getLHS(), coefficients, constant,
                         scale * c.getValue());
  return false;
}

/// A lower bound of the index value `v` where one is plain: a constant,
/// an iterator over known bounds, or a tasklet's clamp of such values
/// (`max(x, 0)`, the frontend's slice bounds read from data).
std::optional<int64_t> lowerBound(Value v, Intervals &iv);

std::optional<int64_t> lowerBoundInTasklet(Value v, TaskletOp t,
                                           Intervals &iv) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return lowerBound(t.getInputs()[arg.getArgNumber()], iv);
  Operation *def = v.getDefiningOp();
  IntegerAttr c;
  if (matchPattern(v, m_Constant(&c)))
    return c.getInt();
  auto bound = [&](unsigned k) {
    return lowerBoundInTasklet(def->getOperand(k), t, iv);
  };
  if (isa<arith::MaxSIOp>(def)) {
    auto a = bound(0), b = bound(1);
    if (a && b)
      return std::max(*a, *b);
    return a ? a : b;
  }
  if (isa<arith::MinSIOp, arith::SelectOp>(def)) {
    unsigned first = isa<arith::SelectOp>(def) ? 1 : 0;
    auto a = bound(first), b = bound(first + 1);
    if (a && b)
      return std::min(*a, *b);
    return std::nullopt;
  }
  if (isa<arith::AddIOp>(def)) {
    auto a = bound(0), b = bound(1);
    if (a && b)
      return *a + *b;
  }
  if (isa<arith::IndexCastOp>(def))
    return bound(0);
  return std::nullopt;
}

std::optional<int64_t> lowerBound(Value v, Intervals &iv) {
  if (auto i = iv.of(v))
    return i->lo;
  IntegerAttr c;
  if (matchPattern(v, m_Constant(&c)))
    return c.getInt();
  if (auto t = v.getDefiningOp<TaskletOp>()) {
    auto yield = cast<YieldOp>(t.getBody().front().getTerminator());
    return lowerBoundInTasklet(
        yield.getValues()[cast<OpResult>(v).getResultNumber()], t, iv);
  }
  return std::nullopt;
}

} // namespace

/// An upper bound for map parameter `p` from a store that indexes a
/// dimension with `p + rest` (coefficient 1), `rest` at least some
/// constant (a constant, or values with known lower bounds: the start of
/// a window whose bounds are read from data): the parameter stays within
/// that dimension. Used when the map's bound is computed from data.
std::optional<Interval> mlir::sdfg::detail::extentFromAccess(Operation *op,
                                                             Value p,
                                                             int64_t lo,
                                                             Intervals &iv) {
  auto store = dyn_cast<StoreOp>(op);
  if (!store)
    return std::nullopt;
  MemRefType t = store.getMemref().getType();
  ValueRange indices = store.getIndices();
  for (auto [d, e] : llvm::enumerate(store.getMap().getResults())) {
    if (t.isDynamicDim(d))
      continue;
    SmallVector<int64_t> coefficients(indices.size(), 0);
    int64_t least = 0;
    if (!linearTerms(e, coefficients, least))
      continue;
    int64_t ofP = 0;
    bool bounded = true;
    for (auto [k, operand] : llvm::enumerate(indices)) {
      int64_t a = coefficients[k];
      if (operand == p) {
        ofP += a;
        continue;
      }
      std::optional<int64_t> b =
          a > 0 ? lowerBound(operand, iv) : std::optional<int64_t>(0);
      bounded &= a >= 0 && b.has_value();
      if (a > 0 && b)
        least += a * *b;
    }
    if (ofP == 1 && bounded)
      return Interval{lo, t.getDimSize(d) - least};
  }
  return std::nullopt;
}

/// Whether the trip count of `loop` is bounded when compiling.
bool mlir::sdfg::detail::hasBoundedTrips(LoopOp loop, Intervals &iv) {
  return iv.of(loop.getLowerExpr(), loop.getBoundOperands()) &&
         iv.of(loop.getUpperExpr(), loop.getBoundOperands());
}
