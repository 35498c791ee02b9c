//===- BLAS.cpp - Reverse rules of the BLAS library ops
//---------------------===//
//
// The adjoints of matmul, gemv, ger and dot are library ops again: a
// product C = op(A) op(B) gives dA = dC op(B)^T and dB = op(A)^T dC.
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

static LogicalResult reverseMatmul(MatmulOp op, ReverseBuilder &rb) {
  Value dC = rb.gradientOf(op.getC());
  if (dC) {
    Location loc = op.getLoc();
    OpBuilder &b = rb.b;
    bool ta = op.getTransposeA(), tb = op.getTransposeB();
    auto emit = [&](Value x, Value y, Value out, bool tx, bool ty) {
      // The same constant factor: d(alpha X Y) = alpha dC Y^T, ...
      MatmulOp::create(b, loc, x, y, out, tx, ty, /*accumulate=*/true,
                       op.getAlphaAttr());
    };
    // C = op(A) op(B): dop(A) = dC op(B)^T, dop(B) = op(A)^T dC.
    if (Value dA = rb.gradientOf(op.getA())) {
      if (!ta)
        emit(dC, op.getB(), dA, false, !tb); // dA = dC op(B)^T
      else
        emit(op.getB(), dC, dA, tb, true); // dA = (dC op(B)^T)^T = op(B) dC^T
    }
    if (Value dB = rb.gradientOf(op.getB())) {
      if (!tb)
        emit(op.getA(), dC, dB, !ta, false); // dB = op(A)^T dC
      else
        emit(dC, op.getA(), dB, true, ta); // dB = (op(A)^T dC)^T = dC^T op(A)
    }
    if (!op.getAccumulate())
      rb.fill(loc, dC, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getC());
  return success();
}

static LogicalResult reverseGemv(GemvOp op, ReverseBuilder &rb) {
  Value dy = rb.gradientOf(op.getY());
  if (dy) {
    Location loc = op.getLoc();
    OpBuilder &b = rb.b;
    if (Value dx = rb.gradientOf(op.getX()))
      GemvOp::create(b, loc, op.getA(), dy, dx, !op.getTranspose(),
                     /*accumulate=*/true);
    // dA += dy x^T (x dy^T when transposed): a rank-one update, which
    // BLAS does in one sweep and sdfg-batch-outer-products can gather
    // across a loop into one matmul.
    if (Value dA = rb.gradientOf(op.getA())) {
      if (op.getTranspose())
        GerOp::create(b, loc, op.getX(), dy, dA, /*accumulate=*/true);
      else
        GerOp::create(b, loc, dy, op.getX(), dA, /*accumulate=*/true);
    }
    if (!op.getAccumulate())
      rb.fill(loc, dy, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getY());
  return success();
}

static LogicalResult reverseGer(GerOp op, ReverseBuilder &rb) {
  Value dA = rb.gradientOf(op.getA());
  if (dA) {
    Location loc = op.getLoc();
    // A = x y^T: dx = dA y, dy = dA^T x.
    if (Value dx = rb.gradientOf(op.getX()))
      GemvOp::create(rb.b, loc, dA, op.getY(), dx, /*transpose=*/false,
                     /*accumulate=*/true);
    if (Value dy = rb.gradientOf(op.getY()))
      GemvOp::create(rb.b, loc, dA, op.getX(), dy, /*transpose=*/true,
                     /*accumulate=*/true);
    if (!op.getAccumulate())
      rb.fill(loc, dA, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getA());
  return success();
}

static LogicalResult reverseDot(DotOp op, ReverseBuilder &rb) {
  Value dr = rb.gradientOf(op.getResult());
  if (dr) {
    Location loc = op.getLoc();
    if (failed(requireStatic(op, op.getX())))
      return failure();
    MLIRContext *ctx = op.getContext();
    AffineMap scalar = AffineMap::get(1, 0, {}, ctx);
    AffineMap elem = AffineMap::getMultiDimIdentityMap(1, ctx);
    // dx[i] += dr * y[i]; dy[i] += dr * x[i]
    for (auto [self, other] :
         {std::pair(op.getX(), op.getY()), std::pair(op.getY(), op.getX())}) {
      Value g = rb.gradientOf(self);
      if (!g)
        continue;
      OpBuilder::InsertionGuard guard(rb.b);
      SmallVector<Value> p =
          rb.openMap(loc, op.getX().getType().getShape(), false);
      Value d = rb.load(loc, dr, scalar, p);
      Value o = rb.load(loc, other, elem, p);
      Value prod = scalarTasklet(
          rb, loc, {d, o}, d.getType(),
          [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
            return arith::MulFOp::create(ib, l, a[0], a[1]);
          });
      rb.store(loc, prod, g, elem, p, /*accumulate=*/true);
    }
    if (!op.getAccumulate())
      rb.fill(loc, dr, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getResult());
  return success();
}

void mlir::sdfg::detail::attachBLASRules(MLIRContext *ctx) {
  MatmulOp::attachInterface<ReverseRule<MatmulOp, reverseMatmul>>(*ctx);
  GemvOp::attachInterface<ReverseRule<GemvOp, reverseGemv>>(*ctx);
  GerOp::attachInterface<ReverseRule<GerOp, reverseGer>>(*ctx);
  DotOp::attachInterface<ReverseRule<DotOp, reverseDot>>(*ctx);
}
