//===- ControlFlow.cpp - Reverse rules of states and control flow
//-----------===//
//
// Control flow is reversed structurally: a state becomes a state of its
// reversed body, a loop runs backwards over the same iterations, a
// conditional takes the branch recorded on its tape and a while loop runs
// its recorded number of iterations.
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

static LogicalResult reverseState(StateOp op, ReverseBuilder &rb) {
  if (!needsReverse(rb, op))
    return success();
  OpBuilder::InsertionGuard guard(rb.b);
  std::string label = op.getLabel() ? ("reverse " + *op.getLabel()).str()
                                    : std::string("reverse");
  auto state = StateOp::create(rb.b, op.getLoc(), StringRef(label));
  rb.b.setInsertionPointToStart(&state.getBody().front());
  // Values recomputed inside this state are not visible after it.
  IRMapping saved = rb.map;
  LogicalResult r = rb.reverseRegion(op.getBody());
  rb.map = saved;
  return r;
}

static LogicalResult reverseLoop(LoopOp op, ReverseBuilder &rb) {
  if (!needsReverse(rb, op))
    return success();
  rb.loadBounds(op);
  // Same iterations, backwards: from the last executed iteration
  // lb + ((ub - lb - 1) floordiv s) * s down to lb (exclusive bound
  // lb - s), so any step sign and size is exact.
  AffineExpr lb = op.getLowerExpr(), ub = op.getUpperExpr();
  int64_t s = op.getStepValue();
  AffineExpr last = s > 0 ? lb + ((ub - lb - 1).floorDiv(s)) * s
                          : lb - ((lb - ub - 1).floorDiv(-s)) * (-s);
  AffineMap bounds = AffineMap::get(op.getBounds().getNumDims(), 0,
                                    {last, lb - s}, op.getContext());
  // With constant bounds: a loop without iterations has nothing to
  // reverse, and the reversed bounds must stay in the range the verifier
  // allows (a zero-trip loop's "last iteration" may lie far below it).
  auto lbConst = dyn_cast<AffineConstantExpr>(lb);
  auto ubConst = dyn_cast<AffineConstantExpr>(ub);
  if (lbConst && ubConst &&
      (s > 0 ? ubConst.getValue() <= lbConst.getValue()
             : ubConst.getValue() >= lbConst.getValue()))
    return success();
  constexpr int64_t kLimit = int64_t(1) << 62;
  for (AffineExpr e : bounds.getResults())
    if (auto c = dyn_cast<AffineConstantExpr>(e);
        c && (c.getValue() <= -kLimit || c.getValue() >= kLimit))
      return op.emitOpError() << "autodiff cannot reverse this loop: its "
                                 "reversed bound "
                              << c.getValue()
                              << " is out of range (must be below 2^62 in "
                                 "magnitude)";
  SmallVector<Value> operands = recomputeAll(rb, op.getBoundOperands());
  OpBuilder::InsertionGuard guard(rb.b);
  auto loop =
      LoopOp::create(rb.b, op.getLoc(), operands, AffineMapAttr::get(bounds),
                     rb.b.getI64IntegerAttr(-s));
  rb.reversedLoops[op] = loop;
  Block *body = new Block();
  loop.getBody().push_back(body);
  Value iv = body->addArgument(rb.b.getIndexType(), op.getLoc());
  IRMapping saved = rb.map;
  rb.map.map(op.getIterator(), iv);
  rb.b.setInsertionPointToStart(body);
  LogicalResult r = rb.reverseRegion(op.getBody());
  rb.map = saved;
  return r;
}

static LogicalResult reverseIf(IfOp op, ReverseBuilder &rb) {
  if (!needsReverse(rb, op))
    return success();
  auto it = rb.tapes.find(op);
  if (it == rb.tapes.end())
    return op.emitOpError("autodiff found no stored condition for this branch");
  // The branch taken is read back from the tape: re-evaluating the
  // condition could see data the program overwrote since.
  SmallVector<Value> conds;
  for (const TapeSlot &slot : it->second) {
    SmallVector<Value> operands;
    AffineMap m = rb.tapeIndex(slot, {}, {}, operands);
    conds.push_back(rb.load(op.getLoc(), slot.tape, m, operands));
  }
  OpBuilder::InsertionGuard guard(rb.b);
  auto rev = IfOp::create(rb.b, op.getLoc(), conds, op.getBranches().size());
  for (auto [fwd, bwd] : llvm::zip(op.getBranches(), rev.getBranches())) {
    Block *blk = new Block();
    bwd.push_back(blk);
    rb.b.setInsertionPointToStart(blk);
    IRMapping saved = rb.map;
    LogicalResult r = rb.reverseRegion(fwd);
    rb.map = saved;
    if (failed(r))
      return failure();
  }
  return success();
}

static LogicalResult reverseWhile(WhileOp op, ReverseBuilder &rb) {
  if (!needsReverse(rb, op))
    return success();
  auto it = rb.whileLoops.find(op);
  if (it == rb.whileLoops.end())
    return op.emitOpError("autodiff found no iteration count for this loop");
  auto [counter, index] = it->second;
  Location loc = op.getLoc();
  OpBuilder &b = rb.b;
  // The iterations this execution ran (the counter is restored per
  // execution like any overwritten value), capped by the tape capacity.
  Value count =
      rb.load(loc, counter, AffineMap::get(b.getContext()), ValueRange{});
  int64_t cap = rb.whileCapacity;
  Value trips = scalarTasklet(
      rb, loc, {count}, b.getIndexType(),
      [cap](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
        Value i = arith::IndexCastOp::create(ib, l, ib.getIndexType(), a[0]);
        Value c = arith::ConstantIndexOp::create(ib, l, cap);
        return arith::MinSIOp::create(ib, l, i, c);
      });
  AffineExpr d0 = b.getAffineDimExpr(0);
  AffineMap bounds = AffineMap::get(1, 0, {d0 - 1, b.getAffineConstantExpr(-1)},
                                    b.getContext());
  OpBuilder::InsertionGuard guard(b);
  auto loop =
      LoopOp::create(b, loc, ValueRange{trips}, AffineMapAttr::get(bounds),
                     b.getI64IntegerAttr(-1));
  rb.reversedLoops[op] = loop;
  Block *body = new Block();
  loop.getBody().push_back(body);
  Value iv = body->addArgument(b.getIndexType(), loc);
  IRMapping saved = rb.map;
  rb.map.map(index, iv);
  b.setInsertionPointToStart(body);
  LogicalResult r = rb.reverseRegion(op.getBody());
  rb.map = saved;
  return r;
}

void mlir::sdfg::detail::attachControlFlowRules(MLIRContext *ctx) {
  StateOp::attachInterface<ReverseRule<StateOp, reverseState>>(*ctx);
  LoopOp::attachInterface<ReverseRule<LoopOp, reverseLoop>>(*ctx);
  IfOp::attachInterface<ReverseRule<IfOp, reverseIf>>(*ctx);
  WhileOp::attachInterface<ReverseRule<WhileOp, reverseWhile>>(*ctx);
}
