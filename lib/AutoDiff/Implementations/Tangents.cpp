//===- Tangents.cpp - Forward-mode rules of the library ops ---------------===//
//
// TangentOpInterface models for sdfg-forward-diff. Products are bilinear:
// the tangent of C = alpha op(A) op(B) is alpha op(tA) op(B) + alpha op(A)
// op(tB), two library ops of the same kind; linear ops (transpose, sums)
// apply themselves to the tangent. Ops without a model (factorisations,
// sorting, min/max reductions) are refused by the pass with a located
// error.
//
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

using namespace mlir;
using namespace mlir::sdfg;

namespace {

using TangentOf = function_ref<Value(Value)>;
using Zero = function_ref<void(Value)>;

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

template <typename OpT, typename Model>
struct TangentModel
    : public TangentOpInterface::ExternalModel<TangentModel<OpT, Model>, OpT> {
  LogicalResult emitTangent(Operation *op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) const {
    return Model::emit(cast<OpT>(op), b, tangentOf, zero);
  }
};

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

struct ReduceTangent {
  static LogicalResult emit(ReduceOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    if (op.getKind() != ReduceKind::add)
      return op.emitOpError("forward mode: the tangent of a ")
             << stringifyReduceKind(op.getKind())
             << " reduction is not implemented (only add)";
    Value tOut = tangentOf(op.getOutput());
    if (Value tIn = tangentOf(op.getInput()))
      ReduceOp::create(b, op.getLoc(), op.getKind(), tIn, tOut,
                       op.getAxesAttr(), op.getAccumulate());
    else if (!op.getAccumulate())
      zero(tOut);
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
}
