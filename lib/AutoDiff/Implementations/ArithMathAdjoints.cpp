//===- ArithMathAdjoints.cpp - Derivative rules of arith and math ops -----===//
//
// ScalarAdjointOpInterface external models for the scalar ops tasklets use.
// Each rule receives the primal operands `x`, the primal result `r` and the
// result adjoint `g`, and sets the operand adjoints `d` (null where the op
// is not differentiable in that operand).
//
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// Arithmetic on adjoints at one location.
struct Emit {
  OpBuilder &b;
  Location loc;

  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value cst(Type t, double v) {
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
};

template <typename Model, typename OpTy>
struct AdjointModel
    : public ScalarAdjointOpInterface::ExternalModel<Model, OpTy> {
  LogicalResult emitAdjoint(Operation *op, OpBuilder &b, IRMapping &primal,
                            Value g, SmallVectorImpl<Value> &d) const {
    Emit e{b, op->getLoc()};
    d.assign(op->getNumOperands(), Value());
    SmallVector<Value> x;
    for (Value v : op->getOperands())
      x.push_back(primal.lookupOrDefault(v));
    Value r = primal.lookupOrDefault(op->getResult(0));
    static_cast<const Model *>(this)->rule(e, x, r, g, d);
    return success();
  }
  void getNeededPrimals(Operation *op, ArrayRef<bool> varying,
                        SmallVectorImpl<unsigned> &needed) const {
    static_cast<const Model *>(this)->primals(varying, needed);
  }
  /// Unless a rule says otherwise, it reads every operand (and nothing
  /// when no operand carries a gradient: then it emits nothing).
  void primals(ArrayRef<bool> varying,
               SmallVectorImpl<unsigned> &needed) const {
    if (llvm::is_contained(varying, true))
      for (unsigned i = 0; i < varying.size(); ++i)
        needed.push_back(i);
  }
};

/// A linear op's adjoint is a linear map of the result's adjoint alone: it
/// reads no primal value.
template <typename Model, typename OpTy>
struct LinearAdjointModel : public AdjointModel<Model, OpTy> {
  void primals(ArrayRef<bool>, SmallVectorImpl<unsigned> &) const {}
};

/// Ops whose result does not depend differentiably on any operand
/// (comparisons, integer arithmetic, casts from integers, rounding).
template <typename OpTy>
struct ZeroAdjoint : public AdjointModel<ZeroAdjoint<OpTy>, OpTy> {
  void rule(Emit &, ArrayRef<Value>, Value, Value,
            SmallVectorImpl<Value> &) const {}
};

#define SDFG_RULE_OF(MODEL, NAME, OP)                                          \
  struct NAME : public MODEL<NAME, OP> {                                       \
    void rule(Emit &e, ArrayRef<Value> x, Value r, Value g,                    \
              SmallVectorImpl<Value> &d) const;                                \
  };                                                                           \
  void NAME::rule(Emit &e, ArrayRef<Value> x, Value r, Value g,                \
                  SmallVectorImpl<Value> &d) const
#define SDFG_RULE(NAME, OP) SDFG_RULE_OF(AdjointModel, NAME, OP)
#define SDFG_LINEAR_RULE(NAME, OP) SDFG_RULE_OF(LinearAdjointModel, NAME, OP)

SDFG_LINEAR_RULE(AddFRule, arith::AddFOp) {
  d[0] = g;
  d[1] = g;
}
SDFG_LINEAR_RULE(SubFRule, arith::SubFOp) {
  d[0] = g;
  d[1] = e.neg(g);
}
// d(a*b) = b da + a db: a factor's value is read only to propagate into
// the other factor, so a product by a constant keeps only the constant.
struct MulFRule : public AdjointModel<MulFRule, arith::MulFOp> {
  void rule(Emit &e, ArrayRef<Value> x, Value, Value g,
            SmallVectorImpl<Value> &d) const {
    d[0] = e.mul(g, x[1]);
    d[1] = e.mul(g, x[0]);
  }
  void primals(ArrayRef<bool> varying,
               SmallVectorImpl<unsigned> &needed) const {
    if (varying[1])
      needed.push_back(0);
    if (varying[0])
      needed.push_back(1);
  }
};
// d(a/b) = da / b - db * (a/b) / b: the divisor whenever either varies,
// the dividend only for the divisor's gradient.
struct DivFRule : public AdjointModel<DivFRule, arith::DivFOp> {
  void rule(Emit &e, ArrayRef<Value> x, Value r, Value g,
            SmallVectorImpl<Value> &d) const {
    d[0] = e.div(g, x[1]);
    d[1] = e.neg(e.div(e.mul(g, r), x[1]));
  }
  void primals(ArrayRef<bool> varying,
               SmallVectorImpl<unsigned> &needed) const {
    if (varying[1])
      needed.push_back(0);
    if (varying[0] || varying[1])
      needed.push_back(1);
  }
};
SDFG_LINEAR_RULE(NegFRule, arith::NegFOp) { d[0] = e.neg(g); }
SDFG_RULE(RemFRule, arith::RemFOp) {
  // a - b * trunc(a / b): d/da = 1, d/db = -trunc(a / b) = -(a - r) / b.
  d[0] = g;
  d[1] = e.neg(e.mul(g, e.div(e.sub(x[0], r), x[1])));
}
SDFG_RULE(MaxRule, arith::MaximumFOp) {
  Value first = e.cmp(arith::CmpFPredicate::OGE, x[0], x[1]);
  Value zero = e.cst(g.getType(), 0.0);
  d[0] = e.select(first, g, zero);
  d[1] = e.select(first, zero, g);
}
SDFG_RULE(MinRule, arith::MinimumFOp) {
  Value first = e.cmp(arith::CmpFPredicate::OLE, x[0], x[1]);
  Value zero = e.cst(g.getType(), 0.0);
  d[0] = e.select(first, g, zero);
  d[1] = e.select(first, zero, g);
}
SDFG_RULE(SelectRule, arith::SelectOp) {
  if (!isa<FloatType>(g.getType()))
    return;
  Value zero = e.cst(g.getType(), 0.0);
  d[1] = e.select(x[0], g, zero);
  d[2] = e.select(x[0], zero, g);
}
SDFG_LINEAR_RULE(ExtFRule, arith::ExtFOp) {
  d[0] = arith::TruncFOp::create(e.b, e.loc, x[0].getType(), g);
}
SDFG_LINEAR_RULE(TruncFRule, arith::TruncFOp) {
  d[0] = arith::ExtFOp::create(e.b, e.loc, x[0].getType(), g);
}
SDFG_RULE(ExpRule, math::ExpOp) { d[0] = e.mul(g, r); }
SDFG_RULE(LogRule, math::LogOp) { d[0] = e.div(g, x[0]); }
SDFG_RULE(SqrtRule, math::SqrtOp) {
  d[0] = e.div(e.mul(g, e.cst(g.getType(), 0.5)), r);
}
SDFG_RULE(SinRule, math::SinOp) {
  d[0] = e.mul(g, math::CosOp::create(e.b, e.loc, x[0]));
}
SDFG_RULE(CosRule, math::CosOp) {
  d[0] = e.neg(e.mul(g, math::SinOp::create(e.b, e.loc, x[0])));
}
SDFG_RULE(TanRule, math::TanOp) {
  Value one = e.cst(g.getType(), 1.0);
  d[0] = e.mul(g, e.add(one, e.mul(r, r)));
}
SDFG_RULE(TanhRule, math::TanhOp) {
  Value one = e.cst(g.getType(), 1.0);
  d[0] = e.mul(g, e.sub(one, e.mul(r, r)));
}
SDFG_RULE(Atan2Rule, math::Atan2Op) {
  // atan2(y, x): dy = x / (x^2 + y^2), dx = -y / (x^2 + y^2)
  Value den = e.add(e.mul(x[0], x[0]), e.mul(x[1], x[1]));
  d[0] = e.div(e.mul(g, x[1]), den);
  d[1] = e.neg(e.div(e.mul(g, x[0]), den));
}
SDFG_RULE(PowFRule, math::PowFOp) {
  // d/da a^b = b a^(b-1); d/db a^b = a^b log a (taken as 0 where a <= 0).
  Type t = g.getType();
  Value bm1 = e.sub(x[1], e.cst(t, 1.0));
  Value pw = math::PowFOp::create(e.b, e.loc, x[0], bm1);
  d[0] = e.mul(g, e.mul(x[1], pw));
  Value zero = e.cst(t, 0.0);
  Value pos = e.cmp(arith::CmpFPredicate::OGT, x[0], zero);
  Value safe = e.select(pos, x[0], e.cst(t, 1.0));
  Value lg = math::LogOp::create(e.b, e.loc, safe);
  d[1] = e.select(pos, e.mul(g, e.mul(r, lg)), zero);
}
SDFG_RULE(SinhRule, math::SinhOp) {
  d[0] = e.mul(g, math::CoshOp::create(e.b, e.loc, x[0]));
}
SDFG_RULE(CoshRule, math::CoshOp) {
  d[0] = e.mul(g, math::SinhOp::create(e.b, e.loc, x[0]));
}
/// g / sqrt(s * (x^2 - 1)): asin, acos (s = -1) and acosh (s = 1).
static Value overSqrt(Emit &e, Value g, Value x, double s) {
  Type t = g.getType();
  Value q = e.mul(e.cst(t, s), e.sub(e.mul(x, x), e.cst(t, 1.0)));
  return e.div(g, math::SqrtOp::create(e.b, e.loc, q));
}
SDFG_RULE(AsinRule, math::AsinOp) { d[0] = overSqrt(e, g, x[0], -1.0); }
SDFG_RULE(AcosRule, math::AcosOp) { d[0] = e.neg(overSqrt(e, g, x[0], -1.0)); }
SDFG_RULE(AcoshRule, math::AcoshOp) { d[0] = overSqrt(e, g, x[0], 1.0); }
SDFG_RULE(AsinhRule, math::AsinhOp) {
  Type t = g.getType();
  Value q = e.add(e.mul(x[0], x[0]), e.cst(t, 1.0));
  d[0] = e.div(g, math::SqrtOp::create(e.b, e.loc, q));
}
SDFG_RULE(AtanRule, math::AtanOp) {
  d[0] = e.div(g, e.add(e.cst(g.getType(), 1.0), e.mul(x[0], x[0])));
}
SDFG_RULE(AtanhRule, math::AtanhOp) {
  d[0] = e.div(g, e.sub(e.cst(g.getType(), 1.0), e.mul(x[0], x[0])));
}
SDFG_RULE(Exp2Rule, math::Exp2Op) {
  d[0] = e.mul(g, e.mul(r, e.cst(g.getType(), M_LN2)));
}
SDFG_RULE(Log2Rule, math::Log2Op) {
  d[0] = e.div(g, e.mul(x[0], e.cst(g.getType(), M_LN2)));
}
SDFG_RULE(Log10Rule, math::Log10Op) {
  d[0] = e.div(g, e.mul(x[0], e.cst(g.getType(), M_LN10)));
}
SDFG_RULE(Log1pRule, math::Log1pOp) {
  d[0] = e.div(g, e.add(e.cst(g.getType(), 1.0), x[0]));
}
SDFG_RULE(ExpM1Rule, math::ExpM1Op) {
  d[0] = e.mul(g, e.add(r, e.cst(g.getType(), 1.0)));
}
SDFG_RULE(CbrtRule, math::CbrtOp) {
  // 1 / (3 cbrt(x)^2): infinite at 0, as the derivative.
  d[0] = e.div(g, e.mul(e.cst(g.getType(), 3.0), e.mul(r, r)));
}
SDFG_RULE(AbsFRule, math::AbsFOp) {
  // sign(a) * g, with 0 at a == 0 (as JAX).
  Type t = g.getType();
  Value zero = e.cst(t, 0.0);
  Value pos = e.cmp(arith::CmpFPredicate::OGT, x[0], zero);
  Value negative = e.cmp(arith::CmpFPredicate::OLT, x[0], zero);
  d[0] = e.select(pos, g, e.select(negative, e.neg(g), zero));
}

SDFG_RULE(CopySignRule, math::CopySignOp) {
  // |a| with b's sign: g times the product of the two signs, 0 at a == 0
  // (as abs); nothing flows into b, whose sign is piecewise constant.
  Type t = g.getType();
  Value one = e.cst(t, 1.0), zero = e.cst(t, 0.0);
  Value signs = e.mul(math::CopySignOp::create(e.b, e.loc, one, x[0]),
                      math::CopySignOp::create(e.b, e.loc, one, x[1]));
  Value atZero = e.cmp(arith::CmpFPredicate::OEQ, x[0], zero);
  d[0] = e.select(atZero, zero, e.mul(g, signs));
}

#undef SDFG_LINEAR_RULE
#undef SDFG_RULE
#undef SDFG_RULE_OF

} // namespace

void mlir::sdfg::detail::attachArithMathAdjoints(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<AddFRule>(*ctx);
    arith::SubFOp::attachInterface<SubFRule>(*ctx);
    arith::MulFOp::attachInterface<MulFRule>(*ctx);
    arith::DivFOp::attachInterface<DivFRule>(*ctx);
    arith::NegFOp::attachInterface<NegFRule>(*ctx);
    arith::RemFOp::attachInterface<RemFRule>(*ctx);
    arith::MaximumFOp::attachInterface<MaxRule>(*ctx);
    arith::MinimumFOp::attachInterface<MinRule>(*ctx);
    arith::SelectOp::attachInterface<SelectRule>(*ctx);
    arith::ExtFOp::attachInterface<ExtFRule>(*ctx);
    arith::TruncFOp::attachInterface<TruncFRule>(*ctx);
    arith::ConstantOp::attachInterface<ZeroAdjoint<arith::ConstantOp>>(*ctx);
    arith::CmpFOp::attachInterface<ZeroAdjoint<arith::CmpFOp>>(*ctx);
    arith::CmpIOp::attachInterface<ZeroAdjoint<arith::CmpIOp>>(*ctx);
    arith::SIToFPOp::attachInterface<ZeroAdjoint<arith::SIToFPOp>>(*ctx);
    arith::UIToFPOp::attachInterface<ZeroAdjoint<arith::UIToFPOp>>(*ctx);
    arith::FPToSIOp::attachInterface<ZeroAdjoint<arith::FPToSIOp>>(*ctx);
    arith::IndexCastOp::attachInterface<ZeroAdjoint<arith::IndexCastOp>>(*ctx);
    arith::AddIOp::attachInterface<ZeroAdjoint<arith::AddIOp>>(*ctx);
    arith::SubIOp::attachInterface<ZeroAdjoint<arith::SubIOp>>(*ctx);
    arith::MulIOp::attachInterface<ZeroAdjoint<arith::MulIOp>>(*ctx);
    arith::FloorDivSIOp::attachInterface<ZeroAdjoint<arith::FloorDivSIOp>>(
        *ctx);
    arith::CeilDivSIOp::attachInterface<ZeroAdjoint<arith::CeilDivSIOp>>(*ctx);
    arith::RemSIOp::attachInterface<ZeroAdjoint<arith::RemSIOp>>(*ctx);
    arith::MaxSIOp::attachInterface<ZeroAdjoint<arith::MaxSIOp>>(*ctx);
    arith::MinSIOp::attachInterface<ZeroAdjoint<arith::MinSIOp>>(*ctx);
    arith::AndIOp::attachInterface<ZeroAdjoint<arith::AndIOp>>(*ctx);
    arith::OrIOp::attachInterface<ZeroAdjoint<arith::OrIOp>>(*ctx);
    arith::XOrIOp::attachInterface<ZeroAdjoint<arith::XOrIOp>>(*ctx);
    arith::ExtSIOp::attachInterface<ZeroAdjoint<arith::ExtSIOp>>(*ctx);
    arith::ExtUIOp::attachInterface<ZeroAdjoint<arith::ExtUIOp>>(*ctx);
    arith::TruncIOp::attachInterface<ZeroAdjoint<arith::TruncIOp>>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    math::ExpOp::attachInterface<ExpRule>(*ctx);
    math::LogOp::attachInterface<LogRule>(*ctx);
    math::SqrtOp::attachInterface<SqrtRule>(*ctx);
    math::SinOp::attachInterface<SinRule>(*ctx);
    math::CosOp::attachInterface<CosRule>(*ctx);
    math::TanOp::attachInterface<TanRule>(*ctx);
    math::TanhOp::attachInterface<TanhRule>(*ctx);
    math::Atan2Op::attachInterface<Atan2Rule>(*ctx);
    math::PowFOp::attachInterface<PowFRule>(*ctx);
    math::AbsFOp::attachInterface<AbsFRule>(*ctx);
    math::CopySignOp::attachInterface<CopySignRule>(*ctx);
    math::SinhOp::attachInterface<SinhRule>(*ctx);
    math::CoshOp::attachInterface<CoshRule>(*ctx);
    math::AsinOp::attachInterface<AsinRule>(*ctx);
    math::AcosOp::attachInterface<AcosRule>(*ctx);
    math::AtanOp::attachInterface<AtanRule>(*ctx);
    math::AsinhOp::attachInterface<AsinhRule>(*ctx);
    math::AcoshOp::attachInterface<AcoshRule>(*ctx);
    math::AtanhOp::attachInterface<AtanhRule>(*ctx);
    math::Exp2Op::attachInterface<Exp2Rule>(*ctx);
    math::Log2Op::attachInterface<Log2Rule>(*ctx);
    math::Log10Op::attachInterface<Log10Rule>(*ctx);
    math::Log1pOp::attachInterface<Log1pRule>(*ctx);
    math::ExpM1Op::attachInterface<ExpM1Rule>(*ctx);
    math::CbrtOp::attachInterface<CbrtRule>(*ctx);
    math::FloorOp::attachInterface<ZeroAdjoint<math::FloorOp>>(*ctx);
    math::CeilOp::attachInterface<ZeroAdjoint<math::CeilOp>>(*ctx);
    math::RoundEvenOp::attachInterface<ZeroAdjoint<math::RoundEvenOp>>(*ctx);
    math::TruncOp::attachInterface<ZeroAdjoint<math::TruncOp>>(*ctx);
    math::AbsIOp::attachInterface<ZeroAdjoint<math::AbsIOp>>(*ctx);
    math::IPowIOp::attachInterface<ZeroAdjoint<math::IPowIOp>>(*ctx);
  });
}
