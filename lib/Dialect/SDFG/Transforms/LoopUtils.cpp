//===- LoopUtils.cpp - Facts about loops shared by the passes -------------===//

#include "sdfg/Dialect/SDFG/Transforms/LoopUtils.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::sdfg;

std::optional<int64_t> mlir::sdfg::constantTrips(LoopOp loop) {
  auto lb = dyn_cast<AffineConstantExpr>(loop.getLowerExpr());
  auto ub = dyn_cast<AffineConstantExpr>(loop.getUpperExpr());
  if (!lb || !ub)
    return std::nullopt;
  return std::max<int64_t>(
      tripCount(lb.getValue(), ub.getValue(), loop.getStepValue()), 0);
}

AffineExpr mlir::sdfg::iterationNumber(LoopOp loop) {
  MLIRContext *ctx = loop.getContext();
  int64_t lb = cast<AffineConstantExpr>(loop.getLowerExpr()).getValue();
  int64_t step = loop.getStepValue();
  AffineExpr iv = getAffineDimExpr(0, ctx);
  return step > 0 ? (iv - lb).floorDiv(step) : (lb - iv).floorDiv(-step);
}

std::optional<int64_t> mlir::sdfg::headroom(SDFGOp sdfg) {
  auto summary = sdfg->getAttrOfType<DictionaryAttr>("sdfg.checkpoint");
  if (!summary)
    return std::nullopt;
  auto limit = summary.getAs<IntegerAttr>("limit_bytes");
  auto peak = summary.getAs<IntegerAttr>("peak_bytes");
  if (!limit || !peak)
    return std::nullopt;
  // A summary with a negative byte count is not one the checkpointing
  // wrote: nothing is left to spend (and the difference of two
  // non-negative values cannot overflow).
  if (limit.getInt() < 0 || peak.getInt() < 0)
    return 0;
  return std::max<int64_t>(limit.getInt() - peak.getInt(), 0);
}

Value mlir::sdfg::scalarTasklet(
    OpBuilder &b, Location loc, ValueRange inputs,
    function_ref<Value(OpBuilder &, ArrayRef<Value>)> fn) {
  auto t =
      TaskletOp::create(b, loc, TypeRange{inputs.front().getType()}, inputs);
  Block *body = new Block();
  t.getBody().push_back(body);
  SmallVector<Value> args;
  for (Value in : inputs)
    args.push_back(body->addArgument(in.getType(), loc));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  YieldOp::create(b, loc, ValueRange{fn(b, args)});
  return t.getResult(0);
}
