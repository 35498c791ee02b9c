//===- RuleUtils.cpp - Helpers shared by the reverse rules
//------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Whether reversing `op` emits anything: it (or an op inside it) writes an
/// active container or restores a taped one.
bool mlir::sdfg::detail::needsReverse(ReverseBuilder &rb, Operation *op) {
  bool need = false;
  op->walk([&](Operation *inner) {
    if (need)
      return;
    if (!isa<IfOp>(inner) && rb.tapes.count(inner))
      need = true;
    Value w = getWrittenContainer(inner);
    if (w && rb.gradientOf(w))
      need = true;
  });
  return need;
}

/// Index operands of a forward op, recomputed at the insertion point.
SmallVector<Value> mlir::sdfg::detail::recomputeAll(ReverseBuilder &rb,
                                                    ValueRange vals) {
  SmallVector<Value> out;
  for (Value v : vals)
    out.push_back(rb.recompute(v));
  return out;
}

/// A scalar computed by a tasklet over `inputs` in the backward program.
Value mlir::sdfg::detail::scalarTasklet(
    ReverseBuilder &rb, Location loc, ValueRange inputs, Type result,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> fn) {
  return rb
      .tasklet(loc, TypeRange{result}, inputs,
               [&](OpBuilder &b, ArrayRef<Value> args) -> SmallVector<Value> {
                 return {fn(b, loc, args)};
               })
      .getResult(0);
}

/// Checks that the loads feeding `value` still see, at `user`, the data
/// they read: nothing between them and `user` in the same block writes the
/// container they read. Recomputing them in the backward program relies
/// on it.
LogicalResult mlir::sdfg::detail::checkRecomputable(Value value,
                                                    Operation *user) {
  Operation *def = value.getDefiningOp();
  if (!def || def->getBlock() != user->getBlock())
    return success();
  if (auto load = dyn_cast<LoadOp>(def)) {
    for (Operation *op = def->getNextNode(); op && op != user;
         op = op->getNextNode()) {
      bool writes = false;
      op->walk([&](Operation *inner) {
        if (getWrittenContainer(inner) == load.getMemref())
          writes = true;
      });
      if (writes)
        return op->emitOpError("overwrites data that a later write in the "
                               "same state reads; autodiff needs the read "
                               "and the overwrite in separate states");
    }
    return success();
  }
  if (auto t = dyn_cast<TaskletOp>(def))
    for (Value in : t.getInputs())
      if (failed(checkRecomputable(in, user)))
        return failure();
  return success();
}

/// `container[idx] += value` where no other iteration of the enclosing map
/// touches the element: a plain read-modify-write, not an atomic wcr.
void mlir::sdfg::detail::accumulateUnique(ReverseBuilder &rb, Location loc,
                                          Value value, Value container,
                                          AffineMap map, ValueRange operands) {
  Value old = rb.load(loc, container, map, operands);
  Value sum =
      scalarTasklet(rb, loc, {old, value}, value.getType(),
                    [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
                      return arith::AddFOp::create(ib, l, a[0], a[1]);
                    });
  rb.store(loc, sum, container, map, operands, /*accumulate=*/false);
}

/// Restores a library op's output from its tape (whole container).
void mlir::sdfg::detail::restoreWhole(ReverseBuilder &rb, Operation *op,
                                      Value container) {
  auto it = rb.tapes.find(op);
  if (it == rb.tapes.end())
    return;
  const TapeSlot &slot = it->second.front();
  auto type = cast<MemRefType>(container.getType());
  unsigned rank = type.getRank();
  Location loc = op->getLoc();
  MLIRContext *ctx = rb.b.getContext();
  OpBuilder::InsertionGuard guard(rb.b);
  SmallVector<Value> params = rb.openMap(loc, type.getShape(), true);
  SmallVector<AffineExpr> extra;
  for (unsigned i = 0; i < rank; ++i)
    extra.push_back(rb.b.getAffineDimExpr(i));
  SmallVector<Value> tops;
  AffineMap tm = rb.tapeIndex(slot, extra, params, tops);
  Value v = rb.load(loc, slot.tape, tm, tops);
  rb.store(loc, v, container, AffineMap::getMultiDimIdentityMap(rank, ctx),
           params, false);
}

Value mlir::sdfg::detail::allocateAtEntry(ReverseBuilder &rb, Location loc,
                                          MemRefType type) {
  auto sdfg =
      rb.b.getInsertionBlock()->getParentOp()->getParentOfType<SDFGOp>();
  OpBuilder::InsertionGuard guard(rb.b);
  rb.b.setInsertionPointToStart(&sdfg.getBody().front());
  return AllocOp::create(rb.b, loc, type, ValueRange{});
}

LogicalResult mlir::sdfg::detail::requireStatic(Operation *op, Value v) {
  if (!cast<MemRefType>(v.getType()).hasStaticShape())
    return op->emitOpError("autodiff of this op needs static shapes");
  return success();
}

mlir::sdfg::detail::Access2D::Access2D(MLIRContext *ctx) {
  AffineExpr i = getAffineDimExpr(0, ctx), j = getAffineDimExpr(1, ctx);
  id = AffineMap::get(2, 0, {i, j}, ctx);
  swapped = AffineMap::get(2, 0, {j, i}, ctx);
  row = AffineMap::get(2, 0, {i}, ctx);
  col = AffineMap::get(2, 0, {j}, ctx);
}

void mlir::sdfg::detail::mapElementwise(
    OpBuilder &b, Location loc, Value out,
    ArrayRef<std::pair<Value, AffineMap>> ins,
    function_ref<Value(OpBuilder &, Value, Value, ArrayRef<Value>)> fn) {
  ReverseBuilder rb(b);
  auto type = cast<MemRefType>(out.getType());
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> p = rb.openMap(loc, type.getShape(), true);
  SmallVector<Value> args = {p[0], p[1]};
  for (auto [c, map] : ins)
    args.push_back(rb.load(loc, c, map, p));
  TaskletOp t =
      rb.tasklet(loc, {type.getElementType()}, args,
                 [&](OpBuilder &ib, ArrayRef<Value> x) -> SmallVector<Value> {
                   return {fn(ib, x[0], x[1], x.drop_front(2))};
                 });
  rb.store(loc, t.getResult(0), out,
           AffineMap::getMultiDimIdentityMap(2, b.getContext()), p,
           /*accumulate=*/false);
}

Value mlir::sdfg::detail::offDiagonalRatio(OpBuilder &ib, Location loc, Value i,
                                           Value j, Value num, Value gap) {
  Value q = arith::DivFOp::create(ib, loc, num, gap);
  Value zero = arith::ConstantOp::create(ib, loc, q.getType(),
                                         ib.getFloatAttr(q.getType(), 0));
  return arith::SelectOp::create(
      ib, loc, arith::CmpIOp::create(ib, loc, arith::CmpIPredicate::eq, i, j),
      zero, q);
}
