//===- PreciseMath.cpp - log1p and expm1 without cancellation -------------===//
//
// Goldberg's log1p and Kahan's expm1: the rounding error of u = 1 + x (or
// u = exp(x)) is divided out by the same error in u - 1, so the result
// keeps the precision of log (exp) even where x is far below the
// precision of 1. Both are selects over intrinsics, so loops still
// vectorise.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace {

Value constant(OpBuilder &b, Location loc, Type t, double v) {
  return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
}

/// log1p(x) = x where 1 + x rounds to 1, else log(u) * x / (u - 1); +inf
/// stays +inf (inf / inf would be NaN).
Value log1p(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value one = constant(b, loc, t, 1.0);
  Value u = arith::AddFOp::create(b, loc, one, x);
  Value d = arith::SubFOp::create(b, loc, u, one);
  Value lg = math::LogOp::create(b, loc, u);
  Value scaled =
      arith::MulFOp::create(b, loc, lg, arith::DivFOp::create(b, loc, x, d));
  Value tiny = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, d,
                                     constant(b, loc, t, 0.0));
  Value inf = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, u,
                                    constant(b, loc, t, INFINITY));
  Value exact = arith::OrIOp::create(b, loc, tiny, inf);
  return arith::SelectOp::create(b, loc, exact, x, scaled);
}

/// expm1(x) = x where exp(x) rounds to 1, -1 where exp(x) - 1 does, else
/// (u - 1) * x / log(u); +inf stays +inf.
Value expm1(OpBuilder &b, Location loc, Value x) {
  Type t = x.getType();
  Value one = constant(b, loc, t, 1.0);
  Value u = math::ExpOp::create(b, loc, x);
  Value d = arith::SubFOp::create(b, loc, u, one);
  Value scaled = arith::MulFOp::create(
      b, loc, d,
      arith::DivFOp::create(b, loc, x, math::LogOp::create(b, loc, u)));
  auto eq = [&](Value a, double v) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a,
                                 constant(b, loc, t, v));
  };
  Value r = arith::SelectOp::create(b, loc, eq(d, -1.0), d, scaled);
  r = arith::SelectOp::create(b, loc, eq(u, INFINITY), u, r);
  return arith::SelectOp::create(b, loc, eq(d, 0.0), x, r);
}

} // namespace

void mlir::sdfg::detail::expandPreciseMath(Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<math::Log1pOp, math::ExpM1Op>(op) &&
        isa<FloatType>(op->getResult(0).getType()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Value x = op->getOperand(0);
    Value r = isa<math::Log1pOp>(op) ? log1p(b, op->getLoc(), x)
                                     : expm1(b, op->getLoc(), x);
    op->getResult(0).replaceAllUsesWith(r);
    op->erase();
  }
}
