//===- CustomCall.cpp - The reverse rule of sdfg.custom_call --------------===//
//
// The user's derivative (the frontend's sdfg.custom_vjp): for each input
// that carries a gradient, the backward program calls the vjp program the
// op names for it, on the inputs and output as they were after the call
// and on the output's cotangent, into a scratch container, and adds the
// result to the input's gradient.
//
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

static LogicalResult reverseCustomCall(CustomCallOp op, ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(op.getOutput());
  if (dOut) {
    ArrayAttr vjp = op.getVjpAttr();
    Location loc = op.getLoc();
    OpBuilder &b = rb.b;
    for (auto [k, input] : llvm::enumerate(op.getInputs())) {
      Value dIn = rb.gradientOf(input);
      if (!dIn)
        continue;
      if (!vjp)
        return op.emitOpError()
               << "has no vjp: the call of " << op.getCalleeAttr()
               << " cannot be differentiated";
      // A unit entry: the user's rule gives this input no cotangent (JAX's
      // None), so its gradient gets nothing from here.
      auto sym = dyn_cast<FlatSymbolRefAttr>(vjp[k]);
      if (!sym)
        continue;
      auto type = cast<MemRefType>(input.getType());
      Value cot = allocateAtEntry(rb, loc, type);
      SmallVector<Value> operands(op.getInputs());
      operands.append({op.getOutput(), dOut});
      CustomCallOp::create(b, loc, sym, operands, cot, ArrayAttr());
      OpBuilder::InsertionGuard guard(b);
      AffineMap id =
          AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
      SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
      rb.store(loc, rb.load(loc, cot, id, p), dIn, id, p,
               /*accumulate=*/true);
    }
    // The output is overwritten by the call: its old value has no
    // gradient from here.
    rb.fill(loc, dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getOutput());
  return success();
}

void mlir::sdfg::detail::attachCustomCallRules(MLIRContext *ctx) {
  CustomCallOp::attachInterface<ReverseRule<CustomCallOp, reverseCustomCall>>(
      *ctx);
}
