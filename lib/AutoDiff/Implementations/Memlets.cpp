//===- Memlets.cpp - Reverse rules of stores, copies and reductions
//---------===//
//
// Memlet writes hand their gradient to the value written, clear the
// overwritten gradient and restore the overwritten primal value from the
// tape; reads accumulate into gradients with wcr(add). Transposes and
// reductions move or combine elements and are reversed alike.
//===----------------------------------------------------------------------===//

#include "RuleUtils.h"

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

static LogicalResult reverseStore(StoreOp op, ReverseBuilder &rb) {
  Value grad = rb.gradientOf(op.getMemref());
  auto tapeIt = rb.tapes.find(op);
  bool taped = tapeIt != rb.tapes.end();
  if (!grad && !taped)
    return success();
  Location loc = op.getLoc();
  OpBuilder &b = rb.b;
  Type elt = op.getValue().getType();
  SmallVector<Value> idx = recomputeAll(rb, op.getIndices());
  AffineMap m = op.getMap();
  std::optional<WCRKind> wcr = op.getWcr();

  Value g;
  auto census = rb.census.find(op);
  if (grad && census != rb.census.end()) {
    // A min/max/mul accumulated by a map, with the census of all its
    // contributions (emitCensus). min/max: the contributions equal to the
    // result share its gradient (the container still holds the result;
    // the old value's share is left in the gradient by
    // scaleOldValueGradients). mul: a factor's adjoint is the product of
    // the others: the nonzero product over it when no factor is zero, the
    // nonzero product for the one zero factor, else nothing.
    const ReverseBuilder::Census &c = census->second;
    g = rb.load(loc, grad, m, idx);
    Value v = rb.recompute(op.getValue());
    Value count = rb.load(loc, c.count, m, idx);
    bool mul = *wcr == WCRKind::mul;
    Value other = mul ? rb.load(loc, c.nonzero, m, idx)
                      : rb.load(loc, op.getMemref(), m, idx);
    Value dv = scalarTasklet(
        rb, loc, {g, v, count, other}, elt,
        [&](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
          auto cst = [&](double x) -> Value {
            return arith::ConstantOp::create(ib, l, elt,
                                             ib.getFloatAttr(elt, x));
          };
          auto eq = [&](Value x, Value y) -> Value {
            return arith::CmpFOp::create(ib, l, arith::CmpFPredicate::OEQ, x,
                                         y);
          };
          if (!mul) {
            Value share = arith::DivFOp::create(ib, l, a[0], a[2]);
            return arith::SelectOp::create(ib, l, eq(a[1], a[3]), share,
                                           cst(0.0));
          }
          Value gp = arith::MulFOp::create(ib, l, a[0], a[3]);
          Value noZero = arith::DivFOp::create(ib, l, gp, a[1]);
          Value oneZero = arith::SelectOp::create(
              ib, l,
              arith::AndIOp::create(ib, l, eq(a[2], cst(1.0)),
                                    eq(a[1], cst(0.0))),
              gp, cst(0.0));
          return arith::SelectOp::create(ib, l, eq(a[2], cst(0.0)), noZero,
                                         oneZero);
        });
    return rb.backprop(op.getValue(), dv);
  }
  if (grad) {
    g = rb.load(loc, grad, m, idx);
    if ((!wcr || *wcr != WCRKind::add) &&
        !rb.deadClears.contains(op.getOperation())) {
      // An overwrite (or a product/min/max) consumes the gradient; what
      // reaches the old value is written back below.
      Value zero = rb.constantTasklet(loc, elt, 0.0);
      rb.store(loc, zero, grad, m, idx, /*accumulate=*/false);
    }
  }
  Value old;
  if (taped) {
    const TapeSlot &slot = tapeIt->second.front();
    SmallVector<Value> tops;
    AffineMap tm = rb.tapeIndex(slot, {}, {}, tops);
    old = rb.load(loc, slot.tape, tm, tops);
    // Restore the element to its value before this store, so that the
    // rules of earlier ops read the data they read in the forward pass.
    rb.store(loc, old, op.getMemref(), m, idx, /*accumulate=*/false);
  }
  if (!grad || !isa<FloatType>(elt))
    return success();
  if (failed(checkRecomputable(op.getValue(), op)))
    return failure();
  Value adjV = g;
  if (wcr && *wcr != WCRKind::add) {
    if (!old)
      return op.emitOpError("autodiff needs the old value of this wcr target");
    Value v = rb.recompute(op.getValue());
    WCRKind kind = *wcr;
    // Adjoints of the written value and of the old element.
    auto pair =
        TaskletOp::create(b, loc, TypeRange{elt, elt}, ValueRange{g, old, v});
    Block *blk = new Block();
    pair.getBody().push_back(blk);
    Value bg = blk->addArgument(elt, loc), bo = blk->addArgument(elt, loc),
          bv = blk->addArgument(elt, loc);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(blk);
      Value dv, dold;
      if (kind == WCRKind::mul) {
        dv = arith::MulFOp::create(b, loc, bg, bo);
        dold = arith::MulFOp::create(b, loc, bg, bv);
      } else {
        auto pred = kind == WCRKind::max ? arith::CmpFPredicate::OGE
                                         : arith::CmpFPredicate::OLE;
        Value took = arith::CmpFOp::create(b, loc, pred, bv, bo);
        Value zero =
            arith::ConstantOp::create(b, loc, elt, b.getFloatAttr(elt, 0.0));
        dv = arith::SelectOp::create(b, loc, took, bg, zero);
        dold = arith::SelectOp::create(b, loc, took, zero, bg);
      }
      YieldOp::create(b, loc, ValueRange{dv, dold});
    }
    adjV = pair.getResult(0);
    rb.store(loc, pair.getResult(1), grad, m, idx, /*accumulate=*/false);
  }
  return rb.backprop(op.getValue(), adjV);
}

static LogicalResult reverseCopy(CopyOp op, ReverseBuilder &rb) {
  Value dB = rb.gradientOf(op.getTarget());
  auto tapeIt = rb.tapes.find(op);
  if (!dB && tapeIt == rb.tapes.end())
    return success();
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Subset src = op.getSourceSubsetInfo(), dst = op.getTargetSubsetInfo();
  SmallVector<Value> ops = recomputeAll(rb, op.getIndices());
  unsigned n = ops.size();
  AffineMap srcElem = ReverseBuilder::subsetElement(src, n, ctx);
  AffineMap dstElem = ReverseBuilder::subsetElement(dst, n, ctx);
  std::optional<WCRKind> wcr = op.getWcr();
  if (dB) {
    if (wcr && *wcr != WCRKind::add)
      return op.emitOpError("autodiff of sdfg.copy with wcr(")
             << stringifyWCRKind(*wcr) << ") is not supported yet";
    // dA[src] += dB[dst]; an overwrite clears dB[dst].
    OpBuilder::InsertionGuard guard(rb.b);
    SmallVector<Value> params = rb.openSubset(loc, dst, ops, false);
    SmallVector<Value> idx(ops);
    llvm::append_range(idx, params);
    Value g = rb.load(loc, dB, dstElem, idx);
    if (Value dA = rb.gradientOf(op.getSource()))
      rb.store(loc, g, dA, srcElem, idx, /*accumulate=*/true);
    if (!wcr && !rb.deadClears.contains(op.getOperation())) {
      Value zero = rb.constantTasklet(loc, g.getType(), 0.0);
      rb.store(loc, zero, dB, dstElem, idx, /*accumulate=*/false);
    }
  }
  if (tapeIt != rb.tapes.end()) {
    // Put back the overwritten target elements.
    const TapeSlot &slot = tapeIt->second.front();
    OpBuilder::InsertionGuard guard(rb.b);
    SmallVector<Value> params = rb.openSubset(loc, dst, ops, true);
    SmallVector<AffineExpr> extra;
    for (unsigned i = 0; i < params.size(); ++i)
      extra.push_back(getAffineDimExpr(i, ctx));
    SmallVector<Value> tops;
    AffineMap tm = rb.tapeIndex(slot, extra, params, tops);
    Value old = rb.load(loc, slot.tape, tm, tops);
    SmallVector<Value> idx(ops);
    llvm::append_range(idx, params);
    rb.store(loc, old, op.getTarget(), dstElem, idx, /*accumulate=*/false);
  }
  return success();
}

static LogicalResult reverseTranspose(TransposeOp op, ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(op.getOutput());
  if (dOut) {
    if (Value dIn = rb.gradientOf(op.getInput()))
      TransposeOp::create(rb.b, op.getLoc(), dOut, dIn, /*accumulate=*/true);
    if (!op.getAccumulate())
      rb.fill(op.getLoc(), dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getOutput());
  return success();
}

static LogicalResult reverseReduce(ReduceOp op, ReverseBuilder &rb) {
  Value dOut = rb.gradientOf(op.getOutput());
  if (dOut) {
    Location loc = op.getLoc();
    if (failed(requireStatic(op, op.getInput())))
      return failure();
    if (op.getAccumulate() && op.getKind() != ReduceKind::add)
      return op.emitOpError("autodiff of an accumulating min/max reduction is "
                            "not supported yet");
    MemRefType in = op.getInput().getType();
    MLIRContext *ctx = op.getContext();
    unsigned rank = in.getRank();
    bool keepDims = op.getOutput().getType().getRank() == in.getRank();
    SmallVector<AffineExpr> outIdx;
    for (unsigned d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(op.getAxes(), (int64_t)d);
      if (!reduced)
        outIdx.push_back(getAffineDimExpr(d, ctx));
      else if (keepDims)
        outIdx.push_back(getAffineConstantExpr(0, ctx));
    }
    AffineMap toOut = AffineMap::get(rank, 0, outIdx, ctx);
    AffineMap ident = AffineMap::getMultiDimIdentityMap(rank, ctx);
    if (Value dIn = rb.gradientOf(op.getInput())) {
      OpBuilder::InsertionGuard guard(rb.b);
      SmallVector<Value> p = rb.openMap(loc, in.getShape(), true);
      Value g = rb.load(loc, dOut, toOut, p);
      Value contrib = g;
      if (op.getKind() != ReduceKind::add) {
        // Elements equal to the extremum receive its gradient.
        Value x = rb.load(loc, op.getInput(), ident, p);
        Value r = rb.load(loc, op.getOutput(), toOut, p);
        contrib = scalarTasklet(
            rb, loc, {g, x, r}, g.getType(),
            [](OpBuilder &ib, Location l, ArrayRef<Value> a) -> Value {
              Value hit = arith::CmpFOp::create(
                  ib, l, arith::CmpFPredicate::OEQ, a[1], a[2]);
              Value zero = arith::ConstantOp::create(
                  ib, l, a[0].getType(), ib.getFloatAttr(a[0].getType(), 0.0));
              return arith::SelectOp::create(ib, l, hit, a[0], zero);
            });
      }
      accumulateUnique(rb, loc, contrib, dIn, ident, p);
    }
    if (!op.getAccumulate())
      rb.fill(loc, dOut, 0.0, /*inState=*/true);
  }
  restoreWhole(rb, op, op.getOutput());
  return success();
}

void mlir::sdfg::detail::attachMemletRules(MLIRContext *ctx) {
  StoreOp::attachInterface<ReverseRule<StoreOp, reverseStore>>(*ctx);
  CopyOp::attachInterface<ReverseRule<CopyOp, reverseCopy>>(*ctx);
  TransposeOp::attachInterface<ReverseRule<TransposeOp, reverseTranspose>>(
      *ctx);
  ReduceOp::attachInterface<ReverseRule<ReduceOp, reverseReduce>>(*ctx);
}
