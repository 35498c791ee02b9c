//===- Factorisations.cpp - Reverse rules of the LAPACK library ops
//---------===//
//
// solve, det, cholesky, eigh, qr and svd: the adjoint formulas of the
// matrix factorisations, built from library ops and maps.
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// `c[p] = -c[p]` over the whole (static) container.
static void negateInPlace(ReverseBuilder &rb, Location loc, Value c) {
  auto type = cast<MemRefType>(c.getType());
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), rb.b.getContext());
  OpBuilder::InsertionGuard guard(rb.b);
  SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
  Value v = rb.load(loc, c, id, p);
  Value neg =
      scalarTasklet(rb, loc, {v}, v.getType(),
                    [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
                      return arith::NegFOp::create(ib, l, a[0]);
                    });
  rb.store(loc, neg, c, id, p, /*accumulate=*/false);
}

static LogicalResult reverseSolve(SolveOp op, ReverseBuilder &rb) {
  Value dX = rb.gradientOf(op.getX());
  // Solved in place, X's gradient becomes B's (the old X's).
  bool inPlace = op.getB() == op.getX();
  if (dX) {
    Location loc = op.getLoc();
    OpBuilder &b = rb.b;
    Value dA = rb.gradientOf(op.getA()), dB = rb.gradientOf(op.getB());
    if (dA || dB) {
      if (failed(requireStatic(op, op.getX())))
        return failure();
      // op(A) X = B: dB = G = op(A)^-T dX, dop(A) = -G X^T. G replaces dX,
      // which X's overwrite clears afterwards anyway.
      SolveOp::create(b, loc, op.getA(), dX, dX, !op.getTranspose());
      auto type = cast<MemRefType>(op.getX().getType());
      unsigned rank = type.getRank();
      MLIRContext *ctx = op.getContext();
      AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
      if (dB && !inPlace) {
        OpBuilder::InsertionGuard guard(b);
        SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
        rb.store(loc, rb.load(loc, dX, id, p), dB, id, p,
                 /*accumulate=*/true);
      }
      if (dA && rank == 2) {
        // dA -= G X^T, or with op = transpose dA -= X G^T: a GEMM on -G.
        bool t = op.getTranspose();
        negateInPlace(rb, loc, dX);
        MatmulOp::create(b, loc, t ? op.getX() : dX, t ? dX : op.getX(), dA,
                         /*transpose_a=*/false, /*transpose_b=*/true,
                         /*accumulate=*/true, /*alpha=*/FloatAttr());
        if (inPlace)
          negateInPlace(rb, loc, dX);
      } else if (dA) {
        // Vectors: dA[i, j] -= G[i] x[j] (x[i] G[j] with op = transpose).
        if (failed(requireStatic(op, op.getA())))
          return failure();
        OpBuilder::InsertionGuard guard(b);
        SmallVector<Value> p =
            rb.openMap(loc, op.getA().getType().getShape(), true);
        AffineMap first = AffineMap::get(2, 0, b.getAffineDimExpr(0), ctx);
        AffineMap second = AffineMap::get(2, 0, b.getAffineDimExpr(1), ctx);
        bool t = op.getTranspose();
        Value g = rb.load(loc, dX, t ? second : first, p);
        Value x = rb.load(loc, op.getX(), t ? first : second, p);
        Value term = scalarTasklet(
            rb, loc, {g, x}, g.getType(),
            [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
              Value prod = arith::MulFOp::create(ib, l, a[0], a[1]);
              return arith::NegFOp::create(ib, l, prod);
            });
        accumulateUnique(rb, loc, term, dA,
                         AffineMap::getMultiDimIdentityMap(2, ctx), p);
      }
    }
    if (!inPlace)
      rb.fill(loc, dX, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getX());
  return success();
}

static LogicalResult reverseDet(DetOp op, ReverseBuilder &rb) {
  Value dr = rb.gradientOf(op.getResult());
  if (dr) {
    Location loc = op.getLoc();
    Value dA = rb.gradientOf(op.getA());
    // The sign is piecewise constant: no gradient.
    if (dA && op.getKind() != DetKind::sign) {
      if (failed(requireStatic(op, op.getA())))
        return failure();
      // d log|det A| = A^-T, d det A = det A^-T: S = c I, then S = A^-T S
      // (a transposed solve in place, on the forward's factors), dA += S.
      MemRefType type = op.getA().getType();
      Type elt = type.getElementType();
      MLIRContext *ctx = op.getContext();
      AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
      AffineMap scalar = AffineMap::get(2, 0, {}, ctx);
      bool det = op.getKind() == DetKind::det;
      Value s = allocateAtEntry(rb, loc, type);
      {
        OpBuilder::InsertionGuard guard(rb.b);
        SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
        SmallVector<Value> ins = {p[0], p[1], rb.load(loc, dr, scalar, p)};
        if (det)
          ins.push_back(rb.load(loc, op.getResult(), scalar, p));
        TaskletOp t = rb.tasklet(
            loc, {elt}, ins,
            [&](OpBuilder &ib, ArrayRef<Value> a) -> SmallVector<Value> {
              Value c = a[2];
              if (det)
                c = arith::MulFOp::create(ib, loc, c, a[3]);
              Value onDiagonal = arith::CmpIOp::create(
                  ib, loc, arith::CmpIPredicate::eq, a[0], a[1]);
              Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                     ib.getFloatAttr(elt, 0));
              return {arith::SelectOp::create(ib, loc, onDiagonal, c, zero)};
            });
        rb.store(loc, t.getResult(0), s, id, p, /*accumulate=*/false);
      }
      SolveOp::create(rb.b, loc, op.getA(), s, s, /*transpose=*/true);
      OpBuilder::InsertionGuard guard(rb.b);
      SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
      rb.store(loc, rb.load(loc, s, id, p), dA, id, p, /*accumulate=*/true);
    }
    rb.fill(loc, dr, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getResult());
  return success();
}

/// Over a whole n x n container: `c[i, j] = fn(i, j, c[i, j])` (in place,
/// or, with `into`, added to `into[i, j]`); `fn` builds the element in a
/// tasklet from the indices and the value.
static void
mapTriangle(ReverseBuilder &rb, Location loc, Value c, Value into,
            function_ref<Value(OpBuilder &, Value, Value, ArrayRef<Value>)> fn,
            bool alsoTransposed = false) {
  auto type = cast<MemRefType>(c.getType());
  MLIRContext *ctx = rb.b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap swapped = AffineMap::get(
      2, 0, {rb.b.getAffineDimExpr(1), rb.b.getAffineDimExpr(0)}, ctx);
  OpBuilder::InsertionGuard guard(rb.b);
  SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
  SmallVector<Value> ins = {p[0], p[1], rb.load(loc, c, id, p)};
  if (alsoTransposed)
    ins.push_back(rb.load(loc, c, swapped, p));
  TaskletOp t =
      rb.tasklet(loc, {type.getElementType()}, ins,
                 [&](OpBuilder &ib, ArrayRef<Value> a) -> SmallVector<Value> {
                   return {fn(ib, a[0], a[1], a.drop_front(2))};
                 });
  if (into)
    accumulateUnique(rb, loc, t.getResult(0), into, id, p);
  else
    rb.store(loc, t.getResult(0), c, id, p, /*accumulate=*/false);
}

static LogicalResult reverseCholesky(CholeskyOp op, ReverseBuilder &rb) {
  Value dL = rb.gradientOf(op.getL());
  if (dL) {
    Location loc = op.getLoc();
    if (Value dA = rb.gradientOf(op.getA())) {
      if (failed(requireStatic(op, op.getL())))
        return failure();
      // Murray (2016): with P = Phi(L^T dL) (the lower triangle, its
      // diagonal halved) and S = L^-T P L^-1, the symmetric gradient is
      // (S + S^T) / 2; A enters through its lower triangle only, so dA
      // gets S + S^T below the diagonal and S on it.
      MemRefType type = op.getL().getType();
      Type elt = type.getElementType();
      OpBuilder &b = rb.b;
      auto zero = [&](OpBuilder &ib) -> Value {
        return arith::ConstantOp::create(ib, loc, elt, ib.getFloatAttr(elt, 0));
      };
      auto cmp = [&](OpBuilder &ib, arith::CmpIPredicate pred, Value i,
                     Value j) -> Value {
        return arith::CmpIOp::create(ib, loc, pred, i, j);
      };
      Value p = allocateAtEntry(rb, loc, type);
      Value q = allocateAtEntry(rb, loc, type);
      // L's upper triangle is zero whatever A is: its gradient goes.
      mapTriangle(rb, loc, dL, nullptr,
                  [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
                    return arith::SelectOp::create(
                        ib, loc, cmp(ib, arith::CmpIPredicate::sge, i, j), v[0],
                        zero(ib));
                  });
      MatmulOp::create(b, loc, op.getL(), dL, p, /*transpose_a=*/true,
                       /*transpose_b=*/false, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      mapTriangle(rb, loc, p, nullptr,
                  [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
                    Value half = arith::MulFOp::create(
                        ib, loc, v[0],
                        arith::ConstantOp::create(ib, loc, elt,
                                                  ib.getFloatAttr(elt, 0.5)));
                    Value onDiag = arith::SelectOp::create(
                        ib, loc, cmp(ib, arith::CmpIPredicate::eq, i, j), half,
                        zero(ib));
                    return arith::SelectOp::create(
                        ib, loc, cmp(ib, arith::CmpIPredicate::sgt, i, j), v[0],
                        onDiag);
                  });
      // P = L^-T P; Q = P^T; Q = L^-T Q = S^T.
      SolveOp::create(b, loc, op.getL(), p, p, /*transpose=*/true);
      TransposeOp::create(b, loc, p, q, /*accumulate=*/false);
      SolveOp::create(b, loc, op.getL(), q, q, /*transpose=*/true);
      mapTriangle(
          rb, loc, q, dA,
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
            Value sum = arith::AddFOp::create(ib, loc, v[0], v[1]);
            Value onDiag = arith::SelectOp::create(
                ib, loc, cmp(ib, arith::CmpIPredicate::eq, i, j), v[0],
                zero(ib));
            return arith::SelectOp::create(
                ib, loc, cmp(ib, arith::CmpIPredicate::sgt, i, j), sum, onDiag);
          },
          /*alsoTransposed=*/true);
    }
    rb.fill(loc, dL, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getL());
  return success();
}

static LogicalResult reverseEigh(EighOp op, ReverseBuilder &rb) {
  Value dR = rb.gradientOf(op.getResult());
  if (dR) {
    Location loc = op.getLoc();
    if (Value dA = rb.gradientOf(op.getA())) {
      if (failed(requireStatic(op, op.getA())))
        return failure();
      // A = V diag(w) V^T. With S = V diag(dw) V^T (eigenvalues) or
      // S = V (F o V^T dV) V^T, F[i, j] = 1 / (w[j] - w[i]) off the
      // diagonal and 0 on it (eigenvectors), <S, dA> is the change for a
      // symmetric dA; A enters through its lower triangle, so dA gets
      // S + S^T below the diagonal and S on it (as for cholesky).
      MemRefType type = op.getA().getType();
      Type elt = type.getElementType();
      int64_t n = type.getDimSize(0);
      OpBuilder &b = rb.b;
      Access2D at(op.getContext());
      Value v, m = allocateAtEntry(rb, loc, type);
      if (op.getPart() == EighPart::values) {
        // The eigenvectors again, from A (restored to its forward value).
        v = allocateAtEntry(rb, loc, type);
        EighOp::create(b, loc, EighPart::vectors, op.getA(), v);
        mapElementwise(rb.b, loc, m, {{v, at.id}, {dR, at.col}},
                       [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
                         return arith::MulFOp::create(ib, loc, x[0], x[1]);
                       });
      } else {
        v = op.getResult();
        Value w = allocateAtEntry(rb, loc, MemRefType::get({n}, elt));
        EighOp::create(b, loc, EighPart::values, op.getA(), w);
        Value g = allocateAtEntry(rb, loc, type);
        MatmulOp::create(b, loc, v, dR, g, /*transpose_a=*/true,
                         /*transpose_b=*/false, /*accumulate=*/false,
                         /*alpha=*/FloatAttr());
        mapElementwise(rb.b, loc, g, {{g, at.id}, {w, at.row}, {w, at.col}},
                       [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
                         Value gap = arith::SubFOp::create(ib, loc, x[2], x[1]);
                         return offDiagonalRatio(ib, loc, i, j, x[0], gap);
                       });
        MatmulOp::create(b, loc, v, g, m, /*transpose_a=*/false,
                         /*transpose_b=*/false, /*accumulate=*/false,
                         /*alpha=*/FloatAttr());
      }
      Value q = allocateAtEntry(rb, loc, type);
      MatmulOp::create(b, loc, m, v, q, /*transpose_a=*/false,
                       /*transpose_b=*/true, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      mapTriangle(
          rb, loc, q, dA,
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            Value sum = arith::AddFOp::create(ib, loc, x[0], x[1]);
            Value onDiag = arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j),
                x[0], zero);
            return arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::sgt, i, j),
                sum, onDiag);
          },
          /*alsoTransposed=*/true);
    }
    rb.fill(loc, dR, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getResult());
  return success();
}

static LogicalResult reverseQR(QROp op, ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(op.getResult());
  if (dOut) {
    Location loc = op.getLoc();
    if (Value dA = rb.gradientOf(op.getA())) {
      if (failed(requireStatic(op, op.getA())))
        return failure();
      MemRefType type = op.getA().getType();
      int64_t m = type.getDimSize(0), n = type.getDimSize(1);
      if (m < n)
        return op.emitOpError("autodiff of qr needs at least as many rows as "
                              "columns (got ")
               << m << " x " << n << ")";
      // A = Q R (Q m x n, R n x n). With G = Q^T dQ and H = R dR^T, the
      // gradient is dA = Q dR + (dQ + Q (tril(G - G^T + H - H^T) - G))
      // R^-T; it is linear in (dQ, dR), so each part's rule adds its share:
      // P = tril(G - G^T) - G with dQ, P = tril(H - H^T) with dR, then
      // dA += (dQ + Q P) R^-T (+ Q dR), the solve as R X^T = (dQ + Q P)^T.
      Type elt = type.getElementType();
      OpBuilder &b = rb.b;
      MemRefType square = MemRefType::get({n, n}, elt);
      bool isQ = op.getPart() == QRPart::q;
      Value q = op.getResult(), r = op.getResult();
      if (isQ) {
        r = allocateAtEntry(rb, loc, square);
        QROp::create(b, loc, QRPart::r, op.getA(), r);
      } else {
        q = allocateAtEntry(rb, loc, type);
        QROp::create(b, loc, QRPart::q, op.getA(), q);
      }
      Value g = allocateAtEntry(rb, loc, square);
      MatmulOp::create(b, loc, isQ ? q : r, dOut, g, /*transpose_a=*/isQ,
                       /*transpose_b=*/!isQ, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      Value p = allocateAtEntry(rb, loc, square);
      rb.fill(loc, p, 0.0, /*inState=*/true);
      mapTriangle(
          rb, loc, g, p,
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            Value lower = arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::sge, i, j),
                arith::SubFOp::create(ib, loc, v[0], v[1]), zero);
            return isQ ? arith::SubFOp::create(ib, loc, lower, v[0]).getResult()
                       : lower;
          },
          /*alsoTransposed=*/true);
      Value qp = allocateAtEntry(rb, loc, type);
      MatmulOp::create(b, loc, q, p, qp, /*transpose_a=*/false,
                       /*transpose_b=*/false, /*accumulate=*/false,
                       /*alpha=*/FloatAttr());
      Value xt = allocateAtEntry(rb, loc, MemRefType::get({n, m}, elt));
      TransposeOp::create(b, loc, qp, xt, /*accumulate=*/false);
      if (isQ)
        TransposeOp::create(b, loc, dOut, xt, /*accumulate=*/true);
      // R is singular in all but rounding when A is rank deficient: its
      // diagonal then holds a tiny value or an exact zero depending on the
      // CPU's Householder kernels, and the solve would raise on one
      // machine and return ~1/eps on another. A diagonal entry with |R_kk|
      // <= max_k |R_kk| * max(m, n) * eps counts as zero, so the solve
      // reports the matrix singular (LinAlgError) on every machine. That
      // is NumPy's matrix_rank cutoff with R's diagonal for the singular
      // values (min_k |R_kk| >= sigma_min and max_k |R_kk| <= sigma_max):
      // it flags only matrices matrix_rank also finds rank deficient.
      Access2D at(op.getContext());
      AffineMap scalar = AffineMap::get(2, 0, {}, op.getContext());
      double eps = elt.isF32() ? double(std::numeric_limits<float>::epsilon())
                               : std::numeric_limits<double>::epsilon();
      double rel = double(std::max(m, n)) * eps;
      auto absOf = [&](OpBuilder &ib, Value x) -> Value {
        Value neg = arith::NegFOp::create(ib, loc, x);
        Value below =
            arith::CmpFOp::create(ib, loc, arith::CmpFPredicate::OLT, x, neg);
        return arith::SelectOp::create(ib, loc, below, neg, x);
      };
      Value diag = allocateAtEntry(rb, loc, square);
      mapElementwise(
          rb.b, loc, diag, {{r, at.id}},
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            return arith::SelectOp::create(
                ib, loc,
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j),
                absOf(ib, x[0]), zero);
          });
      Value largest = allocateAtEntry(rb, loc, MemRefType::get({}, elt));
      ReduceOp::create(b, loc,
                       ReduceKindAttr::get(op.getContext(), ReduceKind::max),
                       diag, largest, b.getDenseI64ArrayAttr({0, 1}),
                       /*accumulate=*/UnitAttr());
      Value rc = allocateAtEntry(rb, loc, square);
      mapElementwise(
          rb.b, loc, rc, {{r, at.id}, {largest, scalar}},
          [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
            Value zero = arith::ConstantOp::create(ib, loc, elt,
                                                   ib.getFloatAttr(elt, 0));
            Value cutoff = arith::MulFOp::create(
                ib, loc, x[1],
                arith::ConstantOp::create(ib, loc, elt,
                                          ib.getFloatAttr(elt, rel)));
            Value tiny = arith::CmpFOp::create(
                ib, loc, arith::CmpFPredicate::OLE, absOf(ib, x[0]), cutoff);
            Value onDiag =
                arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j);
            return arith::SelectOp::create(
                ib, loc, arith::AndIOp::create(ib, loc, onDiag, tiny), zero,
                x[0]);
          });
      SolveOp::create(b, loc, rc, xt, xt, /*transpose=*/false);
      TransposeOp::create(b, loc, xt, dA, /*accumulate=*/true);
      if (!isQ)
        MatmulOp::create(b, loc, q, dOut, dA, /*transpose_a=*/false,
                         /*transpose_b=*/false, /*accumulate=*/true,
                         /*alpha=*/FloatAttr());
    }
    rb.fill(loc, dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getResult());
  return success();
}

static LogicalResult reverseSVD(SVDOp op, ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(op.getResult());
  if (dOut) {
    Location loc = op.getLoc();
    if (Value dA = rb.gradientOf(op.getA())) {
      if (failed(requireStatic(op, op.getA())))
        return failure();
      // Townsend (2016), A = U diag(s) Vh, k = min(m, n), F[i, j] =
      // 1 / (s[j]^2 - s[i]^2) off the diagonal, 0 on it. The gradient is
      // linear in (dU, ds, dVh); each part's rule adds its share:
      //   ds:  dA += (U diag(ds)) Vh;
      //   dU:  G = U^T dU, P = (F o (G - G^T)) diag(s),
      //        dA += (U P + (dU - U G) diag(1/s)) Vh;
      //   dVh: H = dVh Vh^T, P = diag(s) (F o (H^T - H)) - diag(1/s) H,
      //        dA += U (P Vh + diag(1/s) dVh).
      MemRefType type = op.getA().getType();
      int64_t m = type.getDimSize(0), n = type.getDimSize(1);
      int64_t k = std::min(m, n);
      Type elt = type.getElementType();
      OpBuilder &b = rb.b;
      MLIRContext *ctx = op.getContext();
      MemRefType uType = MemRefType::get({m, k}, elt);
      MemRefType sType = MemRefType::get({k}, elt);
      MemRefType vType = MemRefType::get({k, n}, elt);
      MemRefType square = MemRefType::get({k, k}, elt);
      auto factor = [&](SVDPart part, MemRefType t) -> Value {
        if (op.getPart() == part)
          return op.getResult();
        Value v = allocateAtEntry(rb, loc, t);
        SVDOp::create(b, loc, part, op.getA(), v,
                      /*with_vectors=*/part == SVDPart::s);
        return v;
      };
      Value u = factor(SVDPart::u, uType), sv = factor(SVDPart::s, sType),
            vh = factor(SVDPart::vh, vType);
      Access2D at(ctx);
      AffineMap id = at.id, swapped = at.swapped, row = at.row, col = at.col;
      auto matmul = [&](Value x, Value y, Value out, bool tx, bool ty,
                        bool acc) {
        MatmulOp::create(b, loc, x, y, out, tx, ty, acc, FloatAttr());
      };
      // F[i, j] * num, 0 on the diagonal.
      auto gapped = [&](OpBuilder &ib, Value i, Value j, Value si, Value sj,
                        Value num) -> Value {
        Value gap = arith::SubFOp::create(
            ib, loc, arith::MulFOp::create(ib, loc, sj, sj),
            arith::MulFOp::create(ib, loc, si, si));
        return offDiagonalRatio(ib, loc, i, j, num, gap);
      };
      switch (op.getPart()) {
      case SVDPart::s: {
        Value scaled = allocateAtEntry(rb, loc, uType);
        mapElementwise(rb.b, loc, scaled, {{u, id}, {dOut, col}},
                       [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
                         return arith::MulFOp::create(ib, loc, x[0], x[1]);
                       });
        matmul(scaled, vh, dA, false, false, true);
        break;
      }
      case SVDPart::u: {
        Value g = allocateAtEntry(rb, loc, square);
        matmul(u, dOut, g, true, false, false);
        Value p = allocateAtEntry(rb, loc, square);
        mapElementwise(
            rb.b, loc, p, {{g, id}, {g, swapped}, {sv, row}, {sv, col}},
            [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
              Value skew = arith::SubFOp::create(ib, loc, x[0], x[1]);
              return gapped(ib, i, j, x[2], x[3],
                            arith::MulFOp::create(ib, loc, skew, x[3]));
            });
        Value sum = allocateAtEntry(rb, loc, uType);
        matmul(u, p, sum, false, false, false);
        Value ug = allocateAtEntry(rb, loc, uType);
        matmul(u, g, ug, false, false, false);
        mapElementwise(
            rb.b, loc, sum, {{sum, id}, {dOut, id}, {ug, id}, {sv, col}},
            [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
              Value rest = arith::SubFOp::create(ib, loc, x[1], x[2]);
              return arith::AddFOp::create(
                  ib, loc, x[0], arith::DivFOp::create(ib, loc, rest, x[3]));
            });
        matmul(sum, vh, dA, false, false, true);
        break;
      }
      case SVDPart::vh: {
        Value h = allocateAtEntry(rb, loc, square);
        matmul(dOut, vh, h, false, true, false);
        Value p = allocateAtEntry(rb, loc, square);
        mapElementwise(
            rb.b, loc, p, {{h, id}, {h, swapped}, {sv, row}, {sv, col}},
            [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
              Value skew = arith::SubFOp::create(ib, loc, x[1], x[0]);
              Value f = gapped(ib, i, j, x[2], x[3],
                               arith::MulFOp::create(ib, loc, x[2], skew));
              return arith::SubFOp::create(
                  ib, loc, f, arith::DivFOp::create(ib, loc, x[0], x[2]));
            });
        Value d = allocateAtEntry(rb, loc, vType);
        matmul(p, vh, d, false, false, false);
        mapElementwise(rb.b, loc, d, {{d, id}, {dOut, id}, {sv, row}},
                       [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
                         return arith::AddFOp::create(
                             ib, loc, x[0],
                             arith::DivFOp::create(ib, loc, x[1], x[2]));
                       });
        matmul(u, d, dA, false, false, true);
        break;
      }
      }
    }
    rb.fill(loc, dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getResult());
  return success();
}

void mlir::sdfg::detail::attachFactorisationRules(MLIRContext *ctx) {
  SolveOp::attachInterface<ReverseRule<SolveOp, reverseSolve>>(*ctx);
  DetOp::attachInterface<ReverseRule<DetOp, reverseDet>>(*ctx);
  CholeskyOp::attachInterface<ReverseRule<CholeskyOp, reverseCholesky>>(*ctx);
  EighOp::attachInterface<ReverseRule<EighOp, reverseEigh>>(*ctx);
  QROp::attachInterface<ReverseRule<QROp, reverseQR>>(*ctx);
  SVDOp::attachInterface<ReverseRule<SVDOp, reverseSVD>>(*ctx);
}
