//===- FactorisationTangents.cpp - Forward rules of the factorisations ----===//
//
// TangentOpInterface models of cholesky, eigh, qr and svd for
// sdfg-forward-diff (attached by attachTangentRules in Tangents.cpp). Each
// formula differentiates the decomposition's defining identity (A = L L^T,
// A = V diag(w) V^T, A = Q R, A = U diag(s) Vh) under its constraints
// (triangular, orthonormal factors). Each op writes one factor while the
// tangent needs the others, so a rule computes them again from A (the op
// again, with the other part) into scratch containers allocated at the top
// of the program, as the reverse rules in Factorisations.cpp do.
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

/// A located error unless the matrix has a static shape (the rules open
/// maps over it and allocate scratch of its size).
LogicalResult requireStaticShape(Operation *op, Value a) {
  if (cast<MemRefType>(a.getType()).hasStaticShape())
    return success();
  return op->emitOpError("forward mode: the tangent of ")
         << op->getName().stripDialect()
         << " with dynamic shapes is not implemented";
}

/// A scratch container at the top of the program holding `op` (states do
/// not allocate).
Value scratch(OpBuilder &b, Operation *op, MemRefType type, StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  auto sdfg = op->getParentOfType<SDFGOp>();
  b.setInsertionPointToStart(&sdfg.getBody().front());
  return AllocOp::create(b, op->getLoc(), type, ValueRange{},
                         b.getStringAttr(name));
}

/// `out[i] = m[i, i]` for the square `m`.
void diagonalInto(OpBuilder &b, Location loc, Value m, Value out) {
  ReverseBuilder rb(b);
  OpBuilder::InsertionGuard guard(b);
  MLIRContext *ctx = b.getContext();
  int64_t k = cast<MemRefType>(out.getType()).getDimSize(0);
  SmallVector<Value> p = rb.openMap(loc, {k}, true);
  AffineExpr i = getAffineDimExpr(0, ctx);
  Value v = rb.load(loc, m, AffineMap::get(1, 0, {i, i}, ctx), p);
  rb.store(loc, v, out, AffineMap::get(1, 0, {i}, ctx), p,
           /*accumulate=*/false);
}

Value cmpIndex(OpBuilder &ib, Location loc, arith::CmpIPredicate pred, Value i,
               Value j) {
  return arith::CmpIOp::create(ib, loc, pred, i, j);
}

Value constant(OpBuilder &ib, Location loc, Type elt, double value) {
  return arith::ConstantOp::create(ib, loc, elt, ib.getFloatAttr(elt, value));
}

/// `s = the symmetric matrix whose lower triangle is tA's`: cholesky and
/// eigh read A's lower triangle only, so that is the perturbation they see
/// (and what the reverse rules' gradients are taken against).
void symmetricFromLower(OpBuilder &b, Location loc, Value tA, Value s) {
  Access2D at(b.getContext());
  mapElementwise(b, loc, s, {{tA, at.id}, {tA, at.swapped}},
                 [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
                   return arith::SelectOp::create(
                       ib, loc,
                       cmpIndex(ib, loc, arith::CmpIPredicate::sge, i, j), x[0],
                       x[1]);
                 });
}

void matmul(OpBuilder &b, Location loc, Value x, Value y, Value out,
            bool transposeX, bool transposeY, bool accumulate,
            double alpha = 1.0) {
  MatmulOp::create(b, loc, x, y, out, transposeX, transposeY, accumulate,
                   alpha == 1.0 ? FloatAttr() : b.getF64FloatAttr(alpha));
}

/// A = L L^T: tA = tL L^T + L tL^T, so L^-1 tA L^-T = X + X^T with
/// X = L^-1 tL lower triangular; X is the lower triangle of the left side
/// with its diagonal halved (Phi), and tL = L Phi(L^-1 tA L^-T).
struct CholeskyTangent {
  static LogicalResult emit(CholeskyOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Location loc = op.getLoc();
    Value tL = tangentOf(op.getL()), tA = tangentOf(op.getA());
    if (!tA) {
      zero(tL);
      return success();
    }
    if (failed(requireStaticShape(op, op.getA())) ||
        failed(requireStaticShape(op, op.getL())))
      return failure();
    auto type = cast<MemRefType>(op.getL().getType());
    Type elt = type.getElementType();
    Value l = op.getL();
    Value x = scratch(b, op, type, "t_cholesky_x");
    Value xt = scratch(b, op, type, "t_cholesky_xt");
    symmetricFromLower(b, loc, tA, x);
    // X = L^-1 S, then (X L^-T)^T = L^-1 X^T: the result is symmetric, so
    // it is L^-1 S L^-T itself.
    SolveOp::create(b, loc, l, x, x, /*transpose=*/false);
    TransposeOp::create(b, loc, x, xt, /*accumulate=*/false);
    SolveOp::create(b, loc, l, xt, xt, /*transpose=*/false);
    Access2D at(op.getContext());
    mapElementwise(
        b, loc, xt, {{xt, at.id}},
        [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
          Value half =
              arith::MulFOp::create(ib, loc, v[0], constant(ib, loc, elt, 0.5));
          Value onDiagonal = arith::SelectOp::create(
              ib, loc, cmpIndex(ib, loc, arith::CmpIPredicate::eq, i, j), half,
              constant(ib, loc, elt, 0.0));
          return arith::SelectOp::create(
              ib, loc, cmpIndex(ib, loc, arith::CmpIPredicate::sgt, i, j), v[0],
              onDiagonal);
        });
    matmul(b, loc, l, xt, tL, false, false, false);
    return success();
  }
};

/// A = V diag(w) V^T with V^T V = I: P = V^T tA V = diag(tw) + Omega
/// diag(w) - diag(w) Omega, Omega = V^T tV antisymmetric. So tw = diag(P)
/// and Omega[i, j] = P[i, j] / (w[j] - w[i]) off the diagonal (0 on it),
/// tV = V Omega.
struct EighTangent {
  static LogicalResult emit(EighOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Location loc = op.getLoc();
    Value tOut = tangentOf(op.getResult()), tA = tangentOf(op.getA());
    if (!tA) {
      zero(tOut);
      return success();
    }
    if (failed(requireStaticShape(op, op.getA())) ||
        failed(requireStaticShape(op, op.getResult())))
      return failure();
    auto type = cast<MemRefType>(op.getA().getType());
    Type elt = type.getElementType();
    int64_t n = type.getDimSize(0);
    bool vectors = op.getPart() == EighPart::vectors;
    Value v = op.getResult();
    if (!vectors) {
      v = scratch(b, op, type, "t_eigh_vectors");
      EighOp::create(b, loc, EighPart::vectors, op.getA(), v);
    }
    Value p = scratch(b, op, type, "t_eigh_p");
    Value sv = scratch(b, op, type, "t_eigh_sv");
    symmetricFromLower(b, loc, tA, p);
    matmul(b, loc, p, v, sv, false, false, false);
    matmul(b, loc, v, sv, p, /*transposeX=*/true, false, false);
    if (!vectors) {
      diagonalInto(b, loc, p, tOut);
      return success();
    }
    Value w = scratch(b, op, MemRefType::get({n}, elt), "t_eigh_values");
    EighOp::create(b, loc, EighPart::values, op.getA(), w);
    Access2D at(op.getContext());
    mapElementwise(b, loc, p, {{p, at.id}, {w, at.row}, {w, at.col}},
                   [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
                     Value gap = arith::SubFOp::create(ib, loc, x[2], x[1]);
                     return offDiagonalRatio(ib, loc, i, j, x[0], gap);
                   });
    matmul(b, loc, v, p, tOut, false, false, false);
    return success();
  }
};

/// A = Q R (m >= n: Q m x n with Q^T Q = I, R n x n upper triangular).
/// With Y = tA R^-1 and X = Q^T Y = Q^T tQ + tR R^-1: Q^T tQ is
/// antisymmetric and tR R^-1 upper triangular, so the strictly lower
/// triangle of X is Omega = Q^T tQ's, and M = X - Omega = tR R^-1 holds
/// 0 below the diagonal, X[i, i] on it and X[i, j] + X[j, i] above.
/// Then tR = M R and tQ = (tA - Q tR) R^-1 = Y - Q M.
struct QRTangent {
  static LogicalResult emit(QROp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Location loc = op.getLoc();
    Value tOut = tangentOf(op.getResult()), tA = tangentOf(op.getA());
    if (!tA) {
      zero(tOut);
      return success();
    }
    if (failed(requireStaticShape(op, op.getA())) ||
        failed(requireStaticShape(op, op.getResult())))
      return failure();
    auto type = cast<MemRefType>(op.getA().getType());
    int64_t m = type.getDimSize(0), n = type.getDimSize(1);
    if (m < n)
      return emitWide(op, b, tA, tOut);
    Type elt = type.getElementType();
    MemRefType square = MemRefType::get({n, n}, elt);
    bool isQ = op.getPart() == QRPart::q;
    Value q = op.getResult(), r = op.getResult();
    if (isQ) {
      r = scratch(b, op, square, "t_qr_r");
      QROp::create(b, loc, QRPart::r, op.getA(), r);
    } else {
      q = scratch(b, op, type, "t_qr_q");
      QROp::create(b, loc, QRPart::q, op.getA(), q);
    }
    // Y^T = R^-T tA^T, a transposed solve on R.
    Value yt = scratch(b, op, MemRefType::get({n, m}, elt), "t_qr_yt");
    Value x = scratch(b, op, square, "t_qr_x");
    TransposeOp::create(b, loc, tA, yt, /*accumulate=*/false);
    SolveOp::create(b, loc, r, yt, yt, /*transpose=*/true);
    matmul(b, loc, q, yt, x, /*transposeX=*/true, /*transposeY=*/true, false);
    Access2D at(op.getContext());
    mapElementwise(
        b, loc, x, {{x, at.id}, {x, at.swapped}},
        [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
          Value upper = arith::SelectOp::create(
              ib, loc, cmpIndex(ib, loc, arith::CmpIPredicate::eq, i, j), v[0],
              arith::AddFOp::create(ib, loc, v[0], v[1]));
          return arith::SelectOp::create(
              ib, loc, cmpIndex(ib, loc, arith::CmpIPredicate::sgt, i, j),
              constant(ib, loc, elt, 0.0), upper);
        });
    if (isQ) {
      TransposeOp::create(b, loc, yt, tOut, /*accumulate=*/false);
      matmul(b, loc, q, x, tOut, false, false, /*accumulate=*/true, -1.0);
    } else {
      matmul(b, loc, x, r, tOut, false, false, false);
    }
    return success();
  }

  /// m < n: Q is m x m (orthogonal) and R = [R1 R2] with R1 m x m, the R of
  /// A's first m columns A1 (Householder reflects column by column, so A1
  /// alone fixes Q). A1's tangent fixes Omega = Q^T tQ as above: X =
  /// Q^T tA1 R1^-1, Omega the strictly lower triangle of X minus its
  /// transpose. Then tQ = Q Omega and, from Q^T tA = Omega R + tR,
  /// tR = Q^T tA - Omega R (all n columns).
  static LogicalResult emitWide(QROp op, OpBuilder &b, Value tA, Value tOut) {
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(op.getA().getType());
    int64_t m = type.getDimSize(0), n = type.getDimSize(1);
    Type elt = type.getElementType();
    MemRefType square = MemRefType::get({m, m}, elt);
    bool isQ = op.getPart() == QRPart::q;
    Value q = op.getResult(), r = op.getResult();
    if (isQ) {
      r = scratch(b, op, MemRefType::get({m, n}, elt), "t_qr_r");
      QROp::create(b, loc, QRPart::r, op.getA(), r);
    } else {
      q = scratch(b, op, square, "t_qr_q");
      QROp::create(b, loc, QRPart::q, op.getA(), q);
    }
    // The square blocks R1 and tA1^T (maps read the first m columns), then
    // Y1^T = R1^-T tA1^T and X = Q^T Y1.
    Access2D at(op.getContext());
    Value r1 = scratch(b, op, square, "t_qr_r1");
    Value yt = scratch(b, op, square, "t_qr_yt");
    Value x = scratch(b, op, square, "t_qr_x");
    auto first = [](OpBuilder &, Value, Value, ArrayRef<Value> v) {
      return v[0];
    };
    mapElementwise(b, loc, r1, {{r, at.id}}, first);
    mapElementwise(b, loc, yt, {{tA, at.swapped}}, first);
    SolveOp::create(b, loc, r1, yt, yt, /*transpose=*/true);
    matmul(b, loc, q, yt, x, /*transposeX=*/true, /*transposeY=*/true, false);
    mapElementwise(
        b, loc, x, {{x, at.id}, {x, at.swapped}},
        [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> v) {
          Value upper = arith::SelectOp::create(
              ib, loc, cmpIndex(ib, loc, arith::CmpIPredicate::eq, i, j),
              constant(ib, loc, elt, 0.0),
              arith::NegFOp::create(ib, loc, v[1]));
          return arith::SelectOp::create(
              ib, loc, cmpIndex(ib, loc, arith::CmpIPredicate::sgt, i, j), v[0],
              upper);
        });
    if (isQ) {
      matmul(b, loc, q, x, tOut, false, false, false);
    } else {
      matmul(b, loc, q, tA, tOut, /*transposeX=*/true, false, false);
      matmul(b, loc, x, r, tOut, false, false, /*accumulate=*/true, -1.0);
    }
    return success();
  }
};

/// A = U diag(s) Vh (k = min(m, n), U m x k, Vh k x n). P = U^T tA V =
/// Omega_U diag(s) + diag(ts) - diag(s) Omega_V, with Omega_U = U^T tU and
/// Omega_V = V^T tV antisymmetric. So ts = diag(P) and, off the diagonal,
/// with F[i, j] = 1 / (s[j]^2 - s[i]^2):
///   Omega_U[i, j] = F[i, j] (s[j] P[i, j] + s[i] P[j, i]),
///   Omega_V[i, j] = F[i, j] (s[i] P[i, j] + s[j] P[j, i]).
/// The parts of tU and tVh outside the spans of U and Vh come from
/// (I - U U^T) tA V and U^T tA (I - V Vh) (zero for a square U or Vh):
///   tU = U Omega_U + (tA V - U P) diag(1/s),
///   tVh = Omega_V^T Vh + diag(1/s) (U^T tA - P Vh).
struct SVDTangent {
  static LogicalResult emit(SVDOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Location loc = op.getLoc();
    Value tOut = tangentOf(op.getResult()), tA = tangentOf(op.getA());
    if (!tA) {
      zero(tOut);
      return success();
    }
    if (failed(requireStaticShape(op, op.getA())) ||
        failed(requireStaticShape(op, op.getResult())))
      return failure();
    auto type = cast<MemRefType>(op.getA().getType());
    int64_t m = type.getDimSize(0), n = type.getDimSize(1);
    int64_t k = std::min(m, n);
    Type elt = type.getElementType();
    MemRefType square = MemRefType::get({k, k}, elt);
    auto factor = [&](SVDPart part, MemRefType t, StringRef name) -> Value {
      if (op.getPart() == part)
        return op.getResult();
      Value f = scratch(b, op, t, name);
      // The values with the vectors (jobz 'S'), the same gesdd call as
      // the vectors' own, so that the factors belong together.
      SVDOp::create(b, loc, part, op.getA(), f,
                    /*with_vectors=*/part == SVDPart::s);
      return f;
    };
    Value u = factor(SVDPart::u, MemRefType::get({m, k}, elt), "t_svd_u");
    Value s = factor(SVDPart::s, MemRefType::get({k}, elt), "t_svd_s");
    Value vh = factor(SVDPart::vh, MemRefType::get({k, n}, elt), "t_svd_vh");
    Value y = scratch(b, op, MemRefType::get({m, k}, elt), "t_svd_y");
    Value p = scratch(b, op, square, "t_svd_p");
    matmul(b, loc, tA, vh, y, false, /*transposeY=*/true, false);
    matmul(b, loc, u, y, p, /*transposeX=*/true, false, false);
    if (op.getPart() == SVDPart::s) {
      diagonalInto(b, loc, p, tOut);
      return success();
    }
    bool isU = op.getPart() == SVDPart::u;
    Access2D at(op.getContext());
    Value omega = scratch(b, op, square, "t_svd_omega");
    mapElementwise(
        b, loc, omega, {{p, at.id}, {p, at.swapped}, {s, at.row}, {s, at.col}},
        [&](OpBuilder &ib, Value i, Value j, ArrayRef<Value> x) {
          // x = P[i, j], P[j, i], s[i], s[j].
          Value first = isU ? x[3] : x[2], second = isU ? x[2] : x[3];
          Value num = arith::AddFOp::create(
              ib, loc, arith::MulFOp::create(ib, loc, first, x[0]),
              arith::MulFOp::create(ib, loc, second, x[1]));
          Value gap = arith::SubFOp::create(
              ib, loc, arith::MulFOp::create(ib, loc, x[3], x[3]),
              arith::MulFOp::create(ib, loc, x[2], x[2]));
          return offDiagonalRatio(ib, loc, i, j, num, gap);
        });
    auto divide = [&](OpBuilder &ib, Value, Value, ArrayRef<Value> x) {
      return arith::DivFOp::create(ib, loc, x[0], x[1]);
    };
    if (isU) {
      // Y = tA V - U P, then tU = Y diag(1/s) + U Omega_U.
      matmul(b, loc, u, p, y, false, false, /*accumulate=*/true, -1.0);
      mapElementwise(b, loc, tOut, {{y, at.id}, {s, at.col}}, divide);
      matmul(b, loc, u, omega, tOut, false, false, /*accumulate=*/true);
    } else {
      // tVh = U^T tA - P Vh, then diag(1/s) tVh + Omega_V^T Vh.
      matmul(b, loc, u, tA, tOut, /*transposeX=*/true, false, false);
      matmul(b, loc, p, vh, tOut, false, false, /*accumulate=*/true, -1.0);
      mapElementwise(b, loc, tOut, {{tOut, at.id}, {s, at.row}}, divide);
      matmul(b, loc, omega, vh, tOut, /*transposeX=*/true, false,
             /*accumulate=*/true);
    }
    return success();
  }
};

} // namespace

void mlir::sdfg::detail::attachFactorisationTangentRules(MLIRContext *ctx) {
  CholeskyOp::attachInterface<TangentModel<CholeskyOp, CholeskyTangent>>(*ctx);
  EighOp::attachInterface<TangentModel<EighOp, EighTangent>>(*ctx);
  QROp::attachInterface<TangentModel<QROp, QRTangent>>(*ctx);
  SVDOp::attachInterface<TangentModel<SVDOp, SVDTangent>>(*ctx);
}
