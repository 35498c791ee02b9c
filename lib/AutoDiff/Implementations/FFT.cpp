//===- FFT.cpp - Reverse and forward rules of sdfg.fft --------------------===//
//
// The unscaled transform is linear, y = F x with F[k, j] = w^(jk), w =
// exp(-+2 pi i / n), and F is symmetric, so its adjoint (the conjugate
// transpose, as the gradient of a real loss w.r.t. the real and imaginary
// parts needs) is conj(F): the transform of the other sign, unscaled.
// Both rules are therefore sdfg.fft again: the reverse one from the
// output's gradient into the input's, the forward one from the input's
// tangent into the output's. No forward values are read.
//
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

static LogicalResult reverseFft(FftOp op, ReverseBuilder &rb) {
  if (Value dy = rb.gradientOf(op.getResult())) {
    Location loc = op.getLoc();
    if (Value dx = rb.gradientOf(op.getA()))
      FftOp::create(rb.b, loc, dy, op.getAxis(), !op.getInverse(), dx,
                    /*accumulate=*/true);
    // The output was overwritten: what its old value got is gone.
    if (!op.getAccumulate())
      rb.fill(loc, dy, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getResult());
  return success();
}

namespace {
struct FftTangent {
  static LogicalResult emit(FftOp op, OpBuilder &b, TangentOf tangentOf,
                            Zero zero) {
    Value tOut = tangentOf(op.getResult());
    if (Value tIn = tangentOf(op.getA()))
      FftOp::create(b, op.getLoc(), tIn, op.getAxis(), op.getInverse(), tOut,
                    op.getAccumulate());
    else if (!op.getAccumulate())
      zero(tOut);
    return success();
  }
};
} // namespace

void mlir::sdfg::detail::attachFFTRules(MLIRContext *ctx) {
  FftOp::attachInterface<ReverseRule<FftOp, reverseFft>>(*ctx);
  FftOp::attachInterface<TangentModel<FftOp, FftTangent>>(*ctx);
}
