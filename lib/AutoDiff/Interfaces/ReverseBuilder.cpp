//===- ReverseBuilder.cpp - Shared machinery of reverse-mode rules --------===//

#include "sdfg/AutoDiff/Interfaces/ReverseBuilder.h"
#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::sdfg;

SmallVector<Value> ReverseBuilder::lookup(ValueRange fwd) const {
  SmallVector<Value> out;
  for (Value v : fwd)
    out.push_back(lookup(v));
  return out;
}

void ReverseBuilder::loadBounds(Operation *fwdOp) {
  auto it = boundTapes.find(fwdOp);
  if (it == boundTapes.end())
    return;
  for (auto &[operand, slot] : it->second) {
    SmallVector<Value> operands;
    AffineMap m = tapeIndex(slot, {}, {}, operands);
    map.map(operand, load(fwdOp->getLoc(), slot.tape, m, operands));
  }
}

LogicalResult ReverseBuilder::reverseRegion(Region &fwd) {
  SmallVector<Operation *> ops;
  for (Operation &op : fwd.front())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops)) {
    // Loads, tasklets and extents are recomputed by the rules of their
    // users.
    if (isa<LoadOp, TaskletOp, AllocOp, ConditionOp, BroadcastExtentOp,
            CheckIndexOp, DimOp>(op))
      continue;
    auto rule = dyn_cast<ReverseModeOpInterface>(op);
    if (!rule)
      return op->emitOpError("has no reverse-mode rule (rules are attached "
                             "by registerAutoDiffModels)");
    if (beforeReverse)
      beforeReverse(op);
    if (failed(rule.emitReverse(*this)))
      return failure();
  }
  return success();
}

Value ReverseBuilder::recompute(Value fwd) {
  if (Value mapped = map.lookupOrNull(fwd))
    return mapped;
  Operation *def = fwd.getDefiningOp();
  // Symbols, scalar arguments and containers are the same in both passes.
  if (!def || isa<MemRefType>(fwd.getType()))
    return fwd;
  IRMapping local;
  for (Value operand : def->getOperands())
    local.map(operand, recompute(operand));
  Operation *clone = b.clone(*def, local);
  for (auto [from, to] : llvm::zip(def->getResults(), clone->getResults()))
    map.map(from, to);
  return map.lookup(fwd);
}

Value ReverseBuilder::constantTasklet(Location loc, Type type, double value) {
  TypedAttr attr = isa<FloatType>(type)
                       ? TypedAttr(b.getFloatAttr(type, value))
                       : TypedAttr(b.getIntegerAttr(type, (int64_t)value));
  return createConstantTasklet(b, loc, attr);
}

TaskletOp ReverseBuilder::tasklet(
    Location loc, TypeRange results, ValueRange inputs,
    function_ref<SmallVector<Value>(OpBuilder &, ArrayRef<Value>)> fn) {
  auto t = TaskletOp::create(b, loc, results, inputs);
  Block *blk = new Block();
  t.getBody().push_back(blk);
  SmallVector<Value> args;
  for (Value in : inputs)
    args.push_back(blk->addArgument(in.getType(), loc));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blk);
  YieldOp::create(b, loc, fn(b, args));
  return t;
}

void ReverseBuilder::store(Location loc, Value value, Value container,
                           AffineMap m, ValueRange operands, bool accumulate) {
  auto op = StoreOp::create(b, loc, value, container, operands, m, nullptr);
  if (accumulate)
    op.setWcrAttr(WCRKindAttr::get(b.getContext(), WCRKind::add));
}

Value ReverseBuilder::load(Location loc, Value container, AffineMap m,
                           ValueRange operands) {
  Type elt = cast<MemRefType>(container.getType()).getElementType();
  return LoadOp::create(b, loc, elt, container, operands, m);
}

AffineMap ReverseBuilder::tapeIndex(const TapeSlot &slot,
                                    ArrayRef<AffineExpr> extra,
                                    ValueRange extraOps,
                                    SmallVectorImpl<Value> &operands) {
  operands.clear();
  for (Value v : slot.operands)
    operands.push_back(recompute(v));
  unsigned shift = operands.size();
  llvm::append_range(operands, extraOps);
  SmallVector<AffineExpr> exprs(slot.exprs.begin(), slot.exprs.end());
  for (AffineExpr e : extra)
    exprs.push_back(e.shiftDims(extraOps.size(), shift));
  return AffineMap::get(operands.size(), 0, exprs, b.getContext());
}

SmallVector<Value> ReverseBuilder::openMap(Location loc,
                                           ArrayRef<AffineExpr> extents,
                                           ValueRange operands, bool parallel) {
  unsigned rank = extents.size();
  if (rank == 0)
    return {};
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> lbs(rank, b.getAffineConstantExpr(0));
  auto map = MapOp::create(
      b, loc, operands, AffineMap::get(operands.size(), 0, lbs, ctx),
      AffineMap::get(operands.size(), 0, extents, ctx),
      b.getDenseI64ArrayAttr(SmallVector<int64_t>(rank, 1)),
      parallel ? ScheduleKind::cpu_multicore : ScheduleKind::sequential);
  Block *body = new Block();
  map.getBody().push_back(body);
  SmallVector<Value> params;
  for (unsigned i = 0; i < rank; ++i)
    params.push_back(body->addArgument(b.getIndexType(), loc));
  b.setInsertionPointToStart(body);
  return params;
}

SmallVector<Value>
ReverseBuilder::openMap(Location loc, ArrayRef<int64_t> shape, bool parallel) {
  SmallVector<AffineExpr> extents;
  for (int64_t s : shape)
    extents.push_back(b.getAffineConstantExpr(s));
  return openMap(loc, extents, {}, parallel);
}

AffineMap ReverseBuilder::subsetElement(const Subset &subset,
                                        unsigned numOperands,
                                        MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  unsigned k = 0;
  for (const SubsetDim &d : subset.getDims()) {
    if (!d.isRange) {
      exprs.push_back(d.lo);
      continue;
    }
    exprs.push_back(d.lo + getAffineDimExpr(numOperands + k++, ctx) * d.step);
  }
  return AffineMap::get(numOperands + k, 0, exprs, ctx);
}

SmallVector<Value> ReverseBuilder::openSubset(Location loc,
                                              const Subset &subset,
                                              ValueRange operands,
                                              bool parallel) {
  SmallVector<AffineExpr> extents;
  for (unsigned d : subset.getRangeDims())
    extents.push_back(subset.getExtent(d));
  return openMap(loc, extents, operands, parallel);
}

/// The sdfg.sdfg whose body holds (or is) the builder's insertion block.
static SDFGOp enclosingProgram(OpBuilder &b) {
  Operation *parent = b.getInsertionBlock()->getParentOp();
  if (auto sdfg = dyn_cast<SDFGOp>(parent))
    return sdfg;
  return parent->getParentOfType<SDFGOp>();
}

SmallVector<Value> ReverseBuilder::dynamicSizes(Value container) {
  if (auto alloc = container.getDefiningOp<AllocOp>())
    return SmallVector<Value>(alloc.getDynamicSizes());
  // An argument: its sizes are the caller's, read at the top of the
  // program (they dominate every use there).
  auto type = cast<MemRefType>(container.getType());
  Block &body = enclosingProgram(b).getBody().front();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&body);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(DimOp::create(b, container.getLoc(), b.getIndexType(),
                                    container, b.getI64IntegerAttr(d)));
  return sizes;
}

Value ReverseBuilder::allocateLike(Location loc, Value container,
                                   StringAttr name, ArrayRef<int64_t> leading) {
  auto like = cast<MemRefType>(container.getType());
  SmallVector<int64_t> shape(leading);
  llvm::append_range(shape, like.getShape());
  auto type = MemRefType::get(shape, like.getElementType());
  SmallVector<Value> sizes = dynamicSizes(container);
  OpBuilder::InsertionGuard guard(b);
  // After the sizes where they were read at the top of the program.
  Block &body = enclosingProgram(b).getBody().front();
  Operation *after = nullptr;
  for (Value s : sizes)
    if (Operation *def = s.getDefiningOp();
        def && def->getBlock() == &body &&
        (!after || after->isBeforeInBlock(def)))
      after = def;
  if (after)
    b.setInsertionPointAfter(after);
  else
    b.setInsertionPointToStart(&body);
  return AllocOp::create(b, loc, type, sizes, name);
}

void mlir::sdfg::eraseUnusedDims(Operation *program) {
  for (Block &block : program->getRegion(0))
    for (Operation &op : llvm::make_early_inc_range(block))
      if (isa<DimOp>(op) && op.use_empty())
        op.erase();
}

SmallVector<Value>
ReverseBuilder::openContainerMap(Location loc, Value container, bool parallel) {
  auto type = cast<MemRefType>(container.getType());
  // Extents: static, or the dynamic sizes of the alloc that made it or the
  // caller's (an argument).
  SmallVector<AffineExpr> extents;
  SmallVector<Value> operands;
  SmallVector<Value> sizes = dynamicSizes(container);
  unsigned dyn = 0;
  for (int64_t s : type.getShape()) {
    if (!ShapedType::isDynamic(s)) {
      extents.push_back(b.getAffineConstantExpr(s));
      continue;
    }
    operands.push_back(sizes[dyn++]);
    extents.push_back(b.getAffineDimExpr(operands.size() - 1));
  }
  return openMap(loc, extents, operands, parallel);
}

void ReverseBuilder::fill(Location loc, Value container, double value,
                          bool inState) {
  OpBuilder::InsertionGuard guard(b);
  if (!inState) {
    auto state = StateOp::create(b, loc, StringRef("zero"));
    b.setInsertionPointToStart(&state.getBody().front());
  }
  auto type = cast<MemRefType>(container.getType());
  SmallVector<Value> params = openContainerMap(loc, container, true);
  Value v = constantTasklet(loc, type.getElementType(), value);
  store(loc, v, container,
        AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext()),
        params, false);
}

namespace {
/// Whether `a`, an operand adjoint a scalar rule built from the result
/// adjoint `g`, is `g` scaled or selected by constants and conditions only
/// (`g`, `-g`, `select(c, g, 0)`): it is zero wherever `g` is.
bool scalesAdjointOnly(Value a, Value g, unsigned depth = 0) {
  if (a == g)
    return true;
  Operation *def = a.getDefiningOp();
  if (!def || depth > 4)
    return false;
  if (isa<arith::ConstantOp>(def))
    return true;
  if (!isa<arith::NegFOp, arith::SelectOp, arith::ExtFOp, arith::TruncFOp>(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value v) {
    return !isa<FloatType>(v.getType()) || scalesAdjointOnly(v, g, depth + 1);
  });
}
} // namespace

LogicalResult ReverseBuilder::backprop(Value fwd, Value adjoint) {
  if (!isa<FloatType>(fwd.getType()))
    return success();
  Operation *def = fwd.getDefiningOp();
  if (!def)
    return success(); // a scalar argument or iterator: not a container
  Location loc = def->getLoc();
  if (auto load = dyn_cast<LoadOp>(def)) {
    Value grad = gradientOf(load.getMemref());
    if (!grad)
      return success();
    SmallVector<Value> idx;
    for (Value v : load.getIndices())
      idx.push_back(recompute(v));
    store(loc, adjoint, grad, load.getMap(), idx, /*accumulate=*/true);
    return success();
  }
  auto tasklet = dyn_cast<TaskletOp>(def);
  if (!tasklet)
    return def->emitOpError("cannot be differentiated through");
  unsigned which = cast<OpResult>(fwd).getResultNumber();
  SmallVector<Value> inputs;
  for (Value in : tasklet.getInputs())
    inputs.push_back(recompute(in));
  inputs.push_back(adjoint);
  Block &fbody = tasklet.getBody().front();
  SmallVector<Type> adjTypes;
  SmallVector<unsigned> floatInputs;
  for (auto [i, in] : llvm::enumerate(tasklet.getInputs()))
    if (isa<FloatType>(in.getType())) {
      adjTypes.push_back(in.getType());
      floatInputs.push_back(i);
    }
  if (floatInputs.empty())
    return success();
  LogicalResult status = success();
  TaskletOp t = this->tasklet(
      loc, adjTypes, inputs, [&](OpBuilder &b, ArrayRef<Value> args) {
        // Primal values: the forward body, cloned.
        IRMapping primal;
        for (auto [farg, arg] : llvm::zip(fbody.getArguments(), args))
          primal.map(farg, arg);
        for (Operation &op : fbody.without_terminator())
          b.clone(op, primal);
        // Reverse sweep over the body.
        DenseMap<Value, Value> adj;
        auto yield = cast<YieldOp>(fbody.getTerminator());
        adj[yield.getValues()[which]] = args.back();
        auto accumulate = [&](Value v, Value a) {
          Value &slot = adj[v];
          slot = slot ? arith::AddFOp::create(b, loc, slot, a).getResult() : a;
        };
        for (Operation &op :
             llvm::reverse(llvm::make_range(fbody.begin(), --fbody.end()))) {
          if (op.getNumResults() != 1)
            continue;
          Value g = adj.lookup(op.getResult(0));
          if (!g)
            continue;
          auto rule = dyn_cast<ScalarAdjointOpInterface>(&op);
          if (!rule) {
            status = op.emitOpError("has no derivative rule (needed by "
                                    "sdfg-autodiff)");
            break;
          }
          SmallVector<Value> d;
          if (failed(rule.emitAdjoint(b, primal, g, d))) {
            status = failure();
            break;
          }
          // Strong zero: an operand's adjoint is zero wherever the
          // result's is, also where the local derivative is infinite or
          // NaN. Otherwise a branch that np.where (or a max, or a product
          // with zero) discards poisons the gradient: the adjoint of
          // sqrt(x) at x <= 0 would be 0 * inf, of x * log(x) at x < 0
          // 0 * NaN, where finite differences (and the derivative of the
          // program, which does not depend on that branch) give 0.
          Value gIsZero;
          for (auto [operand, a] : llvm::zip(op.getOperands(), d)) {
            if (!a)
              continue;
            if (strongZero && !scalesAdjointOnly(a, g)) {
              Value zero = arith::ConstantOp::create(
                  b, loc, a.getType(), b.getFloatAttr(a.getType(), 0.0));
              if (!gIsZero)
                gIsZero = arith::CmpFOp::create(
                    b, loc, arith::CmpFPredicate::OEQ, g,
                    arith::ConstantOp::create(
                        b, loc, g.getType(), b.getFloatAttr(g.getType(), 0.0)));
              a = arith::SelectOp::create(b, loc, gIsZero, zero, a);
            }
            accumulate(operand, a);
          }
        }
        SmallVector<Value> outs;
        for (unsigned i : floatInputs) {
          Value a = adj.lookup(fbody.getArgument(i));
          if (!a) {
            Type ty = fbody.getArgument(i).getType();
            a = arith::ConstantOp::create(b, loc, ty, b.getFloatAttr(ty, 0.0));
          }
          outs.push_back(a);
        }
        return outs;
      });
  if (failed(status))
    return failure();
  for (auto [k, i] : llvm::enumerate(floatInputs))
    if (failed(backprop(tasklet.getInputs()[i], t.getResult(k))))
      return failure();
  return success();
}
