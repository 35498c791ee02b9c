//===- Tangents.cpp - Forward-mode rules of the library ops ---------------===//
//
// TangentOpInterface models for sdfg-forward-diff. Products are bilinear:
// the tangent of C = alpha op(A) op(B) is alpha op(tA) op(B) + alpha op(A)
// op(tB), two library ops of the same kind; linear ops (transpose, sums)
// apply themselves to the tangent; a solve's tangent is another solve, a
// determinant's a solve and a trace. The factorisations (cholesky, eigh,
// qr, svd) have theirs in FactorisationTangents.cpp; max/min reductions
// take the mean of the tangents of the elements equal to the result.
//
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

namespace {

/// The tangent of a product op `out = f(x, y)` (+ out with `accumulate`),
/// f bilinear: `emit(x', y', out', accumulate)` writes f(x', y') into the
/// tangent; the first term takes the op's own accumulate flag, the second
/// adds to the first.
template <typename Emit>
void bilinear(Value x, Value y, Value out, bool accumulate, TangentOf tangentOf,
              Zero zero, Emit emit) {
  Value tOut = tangentOf(out);
  Value tx = tangentOf(x), ty = tangentOf(y);
  bool acc = accumulate;
  if (tx) {
    emit(tx, y, tOut, acc);
    acc = true;
  }
  if (ty) {
    emit(x, ty, tOut, acc);
    acc = true;
  }
  if (!acc)
    zero(tOut); // out is overwritten by a value with no tangent
}

struct MatmulTangent {
  static LogicalResult emit(MatmulOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    bilinear(op.getA(), op.getB(), op.getC(), op.getAccumulate(), tangentOf,
             zero, [&](Value x, Value y, Value out, bool acc) {
               MatmulOp::create(b, op.getLoc(), x, y, out, op.getTransposeA(),
                                op.getTransposeB(), acc, op.getAlphaAttr());
             });
    return success();
  }
};

struct GemvTangent {
  static LogicalResult emit(GemvOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    bilinear(op.getA(), op.getX(), op.getY(), op.getAccumulate(), tangentOf,
             zero, [&](Value a, Value x, Value out, bool acc) {
               GemvOp::create(b, op.getLoc(), a, x, out, op.getTranspose(),
                              acc);
             });
    return success();
  }
};

struct GerTangent {
  static LogicalResult emit(GerOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    bilinear(op.getX(), op.getY(), op.getA(), op.getAccumulate(), tangentOf,
             zero, [&](Value x, Value y, Value out, bool acc) {
               GerOp::create(b, op.getLoc(), x, y, out, acc);
             });
    return success();
  }
};

struct DotTangent {
  static LogicalResult emit(DotOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    bilinear(op.getX(), op.getY(), op.getResult(), op.getAccumulate(),
             tangentOf, zero, [&](Value x, Value y, Value out, bool acc) {
               DotOp::create(b, op.getLoc(), x, y, out, acc);
             });
    return success();
  }
};

struct TransposeTangent {
  static LogicalResult emit(TransposeOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Value tOut = tangentOf(op.getOutput());
    if (Value tIn = tangentOf(op.getInput()))
      TransposeOp::create(b, op.getLoc(), tIn, tOut, op.getAccumulate());
    else if (!op.getAccumulate())
      zero(tOut);
    return success();
  }
};

/// A max/min reduction takes JAX's rule, as the pass does for wcr(max)
/// stores: the output's tangent is the mean of the tangents of the
/// elements equal to it. A map over the input adds the tangent and a count
/// of each tie (wcr add), a map over the output divides.
LogicalResult extremumTangent(ReduceOp op, OpBuilder &b, Value tIn, Value tOut,
                              Zero zero) {
  Location loc = op.getLoc();
  auto inType = cast<MemRefType>(op.getInput().getType());
  auto outType = cast<MemRefType>(op.getOutput().getType());
  // Combined with the output's old value, which of the two wins decides
  // the tangent: not implemented.
  if (op.getAccumulate())
    return op.emitOpError("forward mode: the tangent of an accumulating ")
           << stringifyReduceKind(op.getKind())
           << " reduction is not implemented";
  if (!inType.hasStaticShape())
    return op.emitOpError("forward mode: the tangent of a ")
           << stringifyReduceKind(op.getKind())
           << " reduction of dynamic shape is not implemented";
  // The output's element of each input element: the kept axes, or with
  // keepdims (the same rank) 0 along the reduced ones.
  MLIRContext *ctx = op.getContext();
  unsigned rank = inType.getRank();
  bool keepDims = outType.getRank() == inType.getRank();
  ArrayRef<int64_t> axes = op.getAxes();
  SmallVector<AffineExpr> kept;
  for (unsigned d = 0; d < rank; ++d) {
    if (!llvm::is_contained(axes, int64_t(d)))
      kept.push_back(getAffineDimExpr(d, ctx));
    else if (keepDims)
      kept.push_back(getAffineConstantExpr(0, ctx));
  }
  AffineMap toOut = AffineMap::get(rank, 0, kept, ctx);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  Value ties;
  {
    OpBuilder::InsertionGuard guard(b);
    auto sdfg = op->getParentOfType<SDFGOp>();
    b.setInsertionPointToStart(&sdfg.getBody().front());
    ties = AllocOp::create(b, loc, outType, ValueRange{},
                           b.getStringAttr("t_ties"));
  }
  ReverseBuilder rb(b);
  zero(tOut);
  rb.fill(loc, ties, 0.0, /*inState=*/true);
  Type elt = outType.getElementType();
  {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Value> p = rb.openMap(loc, inType.getShape(), true);
    Value x = rb.load(loc, op.getInput(), id, p);
    Value r = rb.load(loc, op.getOutput(), toOut, p);
    Value t = rb.load(loc, tIn, id, p);
    TaskletOp tie = rb.tasklet(
        loc, {elt, elt}, ValueRange{x, r, t},
        [&](OpBuilder &ib, ArrayRef<Value> a) -> SmallVector<Value> {
          Value eq = arith::CmpFOp::create(ib, loc, arith::CmpFPredicate::OEQ,
                                           a[0], a[1]);
          Value zeroV =
              arith::ConstantOp::create(ib, loc, elt, ib.getFloatAttr(elt, 0));
          Value one =
              arith::ConstantOp::create(ib, loc, elt, ib.getFloatAttr(elt, 1));
          return {arith::SelectOp::create(ib, loc, eq, a[2], zeroV),
                  arith::SelectOp::create(ib, loc, eq, one, zeroV)};
        });
    rb.store(loc, tie.getResult(0), tOut, toOut, p, /*accumulate=*/true);
    rb.store(loc, tie.getResult(1), ties, toOut, p, /*accumulate=*/true);
  }
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> q = rb.openMap(loc, outType.getShape(), true);
  AffineMap outId = AffineMap::getMultiDimIdentityMap(outType.getRank(), ctx);
  Value sum = rb.load(loc, tOut, outId, q);
  Value count = rb.load(loc, ties, outId, q);
  Value mean = rb.tasklet(loc, elt, ValueRange{sum, count},
                          [&](OpBuilder &ib, ArrayRef<Value> a) {
                            return SmallVector<Value>{
                                arith::DivFOp::create(ib, loc, a[0], a[1])};
                          })
                   .getResult(0);
  rb.store(loc, mean, tOut, outId, q, /*accumulate=*/false);
  return success();
}

struct ReduceTangent {
  static LogicalResult emit(ReduceOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Value tOut = tangentOf(op.getOutput());
    Value tIn = tangentOf(op.getInput());
    if (op.getKind() != ReduceKind::add && (tIn || op.getAccumulate()))
      return extremumTangent(op, b, tIn, tOut, zero);
    if (tIn)
      ReduceOp::create(b, op.getLoc(), op.getKind(), tIn, tOut,
                       op.getAxesAttr(), op.getAccumulate());
    else if (!op.getAccumulate())
      zero(tOut);
    return success();
  }
};

/// `t = sign * src` (src null: zeros) over every element of t, a map in
/// the current state.
void scaleInto(OpBuilder &b, Location loc, Value src, Value t, double sign) {
  ReverseBuilder rb(b);
  OpBuilder::InsertionGuard guard(b);
  auto type = cast<MemRefType>(t.getType());
  SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  Value v;
  if (!src) {
    v = rb.constantTasklet(loc, type.getElementType(), 0.0);
  } else {
    v = rb.load(loc, src, id, p);
    if (sign < 0)
      v = rb.tasklet(loc, v.getType(), v,
                     [&](OpBuilder &ib, ArrayRef<Value> a) {
                       return SmallVector<Value>{
                           arith::NegFOp::create(ib, loc, a[0])};
                     })
              .getResult(0);
  }
  rb.store(loc, v, t, id, p, /*accumulate=*/false);
}

/// op(A) X = B: op(A) tX + op(tA) X = tB, so tX = op(A)^-1 (tB - op(tA) X),
/// computed in tX: tX = -tB, tX += op(tA) X, solve in place, negate.
struct SolveTangent {
  static LogicalResult emit(SolveOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Location loc = op.getLoc();
    Value tX = tangentOf(op.getX());
    Value tA = tangentOf(op.getA()), tB = tangentOf(op.getB());
    if (!tA && !tB) {
      zero(tX);
      return success();
    }
    auto xType = cast<MemRefType>(op.getX().getType());
    if (!xType.hasStaticShape() ||
        !cast<MemRefType>(op.getA().getType()).hasStaticShape())
      return op.emitOpError("forward mode: the tangent of a solve with "
                            "dynamic shapes is not implemented");
    // In place (B is X), tX holds tB already.
    if (op.getB() != op.getX() || !tB)
      scaleInto(b, loc, tB, tX, -1.0);
    else
      scaleInto(b, loc, tX, tX, -1.0);
    bool t = op.getTranspose();
    if (tA) {
      if (xType.getRank() == 1)
        GemvOp::create(b, loc, tA, op.getX(), tX, t, /*accumulate=*/true);
      else
        MatmulOp::create(b, loc, tA, op.getX(), tX, t, false,
                         /*accumulate=*/true, FloatAttr());
    }
    SolveOp::create(b, loc, op.getA(), tX, tX, t);
    scaleInto(b, loc, tX, tX, -1.0);
    return success();
  }
};

/// det(A), log|det(A)|, sign(det(A)): d log|det A| = tr(A^-1 tA), so
/// t(logabs) = tr(X) with X = A^-1 tA (a solve into a scratch matrix),
/// t(det) = det(A) tr(X); the sign has no tangent.
struct DetTangent {
  static LogicalResult emit(DetOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Location loc = op.getLoc();
    Value tr = tangentOf(op.getResult());
    Value tA = tangentOf(op.getA());
    auto type = cast<MemRefType>(op.getA().getType());
    if (!tA || op.getKind() == DetKind::sign) {
      zero(tr);
      return success();
    }
    if (!type.hasStaticShape())
      return op.emitOpError("forward mode: the tangent of a determinant of "
                            "dynamic shape is not implemented");
    // The scratch matrix at the top of the program (states do not
    // allocate).
    Value x;
    {
      OpBuilder::InsertionGuard guard(b);
      auto sdfg = op->getParentOfType<SDFGOp>();
      b.setInsertionPointToStart(&sdfg.getBody().front());
      x = AllocOp::create(b, loc, type, ValueRange{},
                          b.getStringAttr("t_det_solve"));
    }
    SolveOp::create(b, loc, op.getA(), tA, x, /*transpose=*/false);
    ReverseBuilder rb(b);
    MLIRContext *ctx = op.getContext();
    zero(tr);
    {
      // tr += X[i, i], then times det(A) for kind det.
      OpBuilder::InsertionGuard guard(b);
      SmallVector<Value> p = rb.openMap(loc, {type.getShape()[0]}, false);
      AffineMap diag = AffineMap::get(
          1, 0, {b.getAffineDimExpr(0), b.getAffineDimExpr(0)}, ctx);
      rb.store(loc, rb.load(loc, x, diag, p), tr, AffineMap::get(1, 0, ctx), p,
               /*accumulate=*/true);
    }
    if (op.getKind() == DetKind::det) {
      AffineMap scalar = AffineMap::get(0, 0, ctx);
      Value t = rb.load(loc, tr, scalar, {});
      Value d = rb.load(loc, op.getResult(), scalar, {});
      Value prod = rb.tasklet(loc, t.getType(), ValueRange{t, d},
                              [&](OpBuilder &ib, ArrayRef<Value> a) {
                                return SmallVector<Value>{
                                    arith::MulFOp::create(ib, loc, a[0], a[1])};
                              })
                       .getResult(0);
      rb.store(loc, prod, tr, scalar, {}, /*accumulate=*/false);
    }
    return success();
  }
};

} // namespace

void mlir::sdfg::detail::attachTangentRules(MLIRContext *ctx) {
  MatmulOp::attachInterface<TangentModel<MatmulOp, MatmulTangent>>(*ctx);
  GemvOp::attachInterface<TangentModel<GemvOp, GemvTangent>>(*ctx);
  GerOp::attachInterface<TangentModel<GerOp, GerTangent>>(*ctx);
  DotOp::attachInterface<TangentModel<DotOp, DotTangent>>(*ctx);
  TransposeOp::attachInterface<TangentModel<TransposeOp, TransposeTangent>>(
      *ctx);
  ReduceOp::attachInterface<TangentModel<ReduceOp, ReduceTangent>>(*ctx);
  SolveOp::attachInterface<TangentModel<SolveOp, SolveTangent>>(*ctx);
  DetOp::attachInterface<TangentModel<DetOp, DetTangent>>(*ctx);
  attachFactorisationTangentRules(ctx);
}
