//===- ControlFlow.cpp - Loops, branches, parallel loops ------------------===//
//
// scf.for and affine.for become sdfg.loop, scf.if sdfg.if, scf.while
// sdfg.while, scf.parallel and affine.parallel sdfg.map (in a state).
// Loop-carried values and scf.if results live in 0-d transients.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

LogicalResult Converter::storeYield(Operation *yield, ValueRange values,
                                    ArrayRef<Value> into) {
  if (values.empty())
    return success();
  openState(yield->getLoc());
  for (auto [v, c] : llvm::zip(values, into)) {
    Value s = scalar(yield, v);
    if (!s)
      return failure();
    StoreOp::create(b, yield->getLoc(), s, c, ValueRange{},
                    AffineMap::get(b.getContext()), nullptr);
  }
  doneInState.insert(yield);
  return success();
}

LogicalResult Converter::convertScfFor(scf::ForOp f) {
  Operation *op = f;
  auto lb = indexOf(f.getLowerBound()), ub = indexOf(f.getUpperBound()),
       step = indexOf(f.getStep());
  if (!lb || !ub)
    return unsupported(op, "bounds must be affine in loop variables and "
                           "index arguments");
  auto c = step ? dyn_cast<AffineConstantExpr>(step->expr) : nullptr;
  if (!c || c.getValue() <= 0)
    return unsupported(op, "the step must be a positive constant");
  return convertFor(op, *lb, *ub, c.getValue(), *f.getBody(), f.getInitArgs(),
                    f.getResults());
}

LogicalResult Converter::convertAffineFor(affine::AffineForOp f) {
  Operation *op = f;
  auto bound = [&](AffineMap m,
                   ValueRange operands) -> std::optional<IndexExpr> {
    if (m.getNumResults() != 1)
      return std::nullopt;
    auto e = applyMap(m, operands);
    if (!e)
      return std::nullopt;
    return e->front();
  };
  auto lb = bound(f.getLowerBoundMap(), f.getLowerBoundOperands());
  auto ub = bound(f.getUpperBoundMap(), f.getUpperBoundOperands());
  if (!lb || !ub)
    return unsupported(op, "bounds with max/min of several expressions "
                           "are not supported");
  return convertFor(op, *lb, *ub, f.getStepAsInt(), *f.getBody(), f.getInits(),
                    f.getResults());
}

LogicalResult Converter::convertFor(Operation *op, const IndexExpr &lb,
                                    const IndexExpr &ub, int64_t step,
                                    Block &body, ValueRange inits,
                                    ValueRange results) {
  Location loc = op->getLoc();
  // sdfg.loop keeps its bounds and step below 2^62 in magnitude (trip
  // counts and the reversed loop are computed in 64 bits).
  constexpr int64_t kLimit = int64_t(1) << 62;
  auto tooLarge = [&](int64_t v) { return v <= -kLimit || v >= kLimit; };
  if (tooLarge(step))
    return unsupported(op) << ": step " << step
                           << " out of range (must be below 2^62)";
  for (const IndexExpr *e : {&lb, &ub})
    if (auto c = dyn_cast<AffineConstantExpr>(e->expr);
        c && tooLarge(c.getValue()))
      return unsupported(op) << ": bound " << c.getValue()
                             << " out of range (must be below 2^62 in "
                                "magnitude)";
  // Loop-carried values live in 0-d transients: initialised before the
  // loop, rewritten by the yield, read after it.
  SmallVector<Value> carried;
  for (Value init : inits) {
    if (!init.getType().isIntOrFloat())
      return unsupported(op, "only scalar loop-carried values are supported");
    carried.push_back(alloc0d(loc, init.getType()));
  }
  if (!inits.empty() && failed(storeYield(op, inits, carried)))
    return failure();
  doneInState.insert(op);
  closeState();
  SmallVector<Value> atoms;
  AffineExpr l = merge(lb, atoms), u = merge(ub, atoms);
  auto loop = LoopOp::create(b, loc, atoms,
                             AffineMapAttr::get(AffineMap::get(
                                 atoms.size(), 0, {l, u}, b.getContext())),
                             b.getI64IntegerAttr(step));
  Block *inner = new Block();
  loop.getBody().push_back(inner);
  Value iv = inner->addArgument(b.getIndexType(), loc);
  indices[body.getArgument(0)] = IndexExpr{b.getAffineDimExpr(0), {iv}};
  for (auto [arg, c] : llvm::zip(body.getArguments().drop_front(), carried))
    spilled[arg] = c;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(inner);
  for (Operation &o : body) {
    if (failed(convertOp(&o)))
      return failure();
  }
  Operation *term = body.getTerminator();
  if (failed(storeYield(term, term->getOperands(), carried)))
    return failure();
  closeState();
  for (auto [r, c] : llvm::zip(results, carried))
    spilled[r] = c;
  return success();
}

LogicalResult Converter::convertIf(scf::IfOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> outs;
  for (Type t : op.getResultTypes()) {
    if (!t.isIntOrFloat())
      return unsupported(op, "only scalar results are supported");
    outs.push_back(alloc0d(loc, t));
  }
  // The condition is read at control level, from its state's transient.
  Value cond = op.getCondition();
  // Not marked done: closing the state spills the condition for us.
  closeState();
  Value c;
  if (Value s = spilled.lookup(cond)) {
    c = LoadOp::create(b, loc, b.getI1Type(), s, ValueRange{},
                       AffineMap::get(b.getContext()));
  } else if (Value a = scalarArgs.lookup(cond)) {
    c = a;
  } else {
    return unsupported(op, "the condition must be computed by arith ops on "
                           "loaded or argument values");
  }
  bool hasElse = !op.getElseRegion().empty();
  auto ifOp = IfOp::create(b, loc, ValueRange{c}, hasElse ? 2 : 1);
  OpBuilder::InsertionGuard guard(b);
  auto fill = [&](Region &from, Region &to) -> LogicalResult {
    to.push_back(new Block());
    b.setInsertionPointToStart(&to.front());
    Block &blk = from.front();
    for (Operation &o : blk)
      if (failed(convertOp(&o)))
        return failure();
    Operation *term = blk.getTerminator();
    if (failed(storeYield(term, term->getOperands(), outs)))
      return failure();
    closeState();
    return success();
  };
  if (failed(fill(op.getThenRegion(), ifOp.getBranches()[0])))
    return failure();
  if (hasElse && failed(fill(op.getElseRegion(), ifOp.getBranches()[1])))
    return failure();
  for (auto [r, o] : llvm::zip(op.getResults(), outs))
    spilled[r] = o;
  return success();
}

LogicalResult Converter::convertWhile(scf::WhileOp op) {
  Location loc = op.getLoc();
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  auto cond = cast<scf::ConditionOp>(before.getTerminator());
  // The carried values live in 0-d transients that the condition region,
  // the body and the code after the loop all read.
  if (cond.getArgs().size() != before.getNumArguments() ||
      llvm::any_of(llvm::enumerate(cond.getArgs()), [&](auto a) {
        return a.value() != before.getArgument(a.index());
      }))
    return unsupported(op, "the condition must forward the loop-carried "
                           "values unchanged");
  SmallVector<Value> carried;
  for (Value init : op.getInits()) {
    if (!init.getType().isIntOrFloat())
      return unsupported(op, "only scalar loop-carried values are supported");
    carried.push_back(alloc0d(loc, init.getType()));
  }
  if (!carried.empty() && failed(storeYield(op, op.getInits(), carried)))
    return failure();
  doneInState.insert(op);
  closeState();
  for (auto [arg, c] : llvm::zip(before.getArguments(), carried))
    spilled[arg] = c;
  for (auto [arg, c] : llvm::zip(after.getArguments(), carried))
    spilled[arg] = c;
  auto loop = WhileOp::create(b, loc);
  loop.getCond().push_back(new Block());
  loop.getBody().push_back(new Block());
  OpBuilder::InsertionGuard guard(b);
  // The condition: interstate loads and tasklets, no state.
  b.setInsertionPointToStart(&loop.getCond().front());
  DenseMap<Value, Value> outer = local;
  ++mapDepth;
  for (Operation &o : before.without_terminator()) {
    bool handled;
    if (failed(trackIndex(&o, handled)))
      return failure();
    if (handled)
      continue;
    if (!isa<memref::LoadOp, affine::AffineLoadOp>(&o) && !isScalarCompute(&o))
      return unsupported(&o, "only loads and scalar arithmetic may compute "
                             "a while condition");
    if (failed(convertDataflow(&o)))
      return failure();
  }
  Value c = scalar(cond, cond.getCondition());
  --mapDepth;
  local = outer;
  if (!c)
    return failure();
  ConditionOp::create(b, loc, c);
  // The body, then the yield into the carried values.
  b.setInsertionPointToStart(&loop.getBody().front());
  for (Operation &o : after.without_terminator())
    if (failed(convertOp(&o)))
      return failure();
  Operation *term = after.getTerminator();
  if (failed(storeYield(term, term->getOperands(), carried)))
    return failure();
  closeState();
  for (auto [r, cc] : llvm::zip(op.getResults(), carried))
    spilled[r] = cc;
  return success();
}

LogicalResult Converter::convertScfParallel(scf::ParallelOp p) {
  Operation *op = p;
  if (p.getNumReductions() != 0)
    return unsupported(op, "reductions (scf.reduce with operands) are not "
                           "supported; accumulate into a memref instead");
  SmallVector<IndexExpr> lbs, ubs;
  SmallVector<int64_t> steps;
  for (auto [l, u, s] :
       llvm::zip(p.getLowerBound(), p.getUpperBound(), p.getStep())) {
    auto le = indexOf(l), ue = indexOf(u), se = indexOf(s);
    auto c = se ? dyn_cast<AffineConstantExpr>(se->expr) : nullptr;
    if (!le || !ue || !c || c.getValue() <= 0)
      return unsupported(op, "bounds must be affine and steps positive "
                             "constants");
    lbs.push_back(*le);
    ubs.push_back(*ue);
    steps.push_back(c.getValue());
  }
  return convertParallel(op, lbs, ubs, steps, *p.getBody());
}

LogicalResult Converter::convertAffineParallel(affine::AffineParallelOp p) {
  Operation *op = p;
  if (p.getNumResults() != 0)
    return unsupported(op, "reductions are not supported");
  SmallVector<IndexExpr> lbs, ubs;
  SmallVector<int64_t> steps(p.getSteps());
  for (unsigned d = 0; d < p.getNumDims(); ++d) {
    AffineMap lm = p.getLowerBoundMap(d), um = p.getUpperBoundMap(d);
    if (lm.getNumResults() != 1 || um.getNumResults() != 1)
      return unsupported(op, "bounds with max/min are not supported");
    auto conv = [&](AffineMap m,
                    ValueRange operands) -> std::optional<IndexExpr> {
      auto e = applyMap(m, operands);
      if (!e)
        return std::nullopt;
      return e->front();
    };
    auto l = conv(lm, p.getLowerBoundsOperands());
    auto u = conv(um, p.getUpperBoundsOperands());
    if (!l || !u)
      return unsupported(op, "bounds must be affine");
    lbs.push_back(*l);
    ubs.push_back(*u);
  }
  return convertParallel(op, lbs, ubs, steps, *p.getBody());
}

LogicalResult Converter::convertParallel(Operation *op, ArrayRef<IndexExpr> lbs,
                                         ArrayRef<IndexExpr> ubs,
                                         ArrayRef<int64_t> steps, Block &body) {
  Location loc = op->getLoc();
  openState(loc);
  SmallVector<Value> atoms;
  SmallVector<AffineExpr> l, u;
  for (auto [le, ue] : llvm::zip(lbs, ubs)) {
    l.push_back(merge(le, atoms));
    u.push_back(merge(ue, atoms));
  }
  MLIRContext *ctx = b.getContext();
  auto map =
      MapOp::create(b, loc, atoms,
                    AffineMapAttr::get(AffineMap::get(atoms.size(), 0, l, ctx)),
                    AffineMapAttr::get(AffineMap::get(atoms.size(), 0, u, ctx)),
                    b.getDenseI64ArrayAttr(steps),
                    ScheduleKindAttr::get(ctx, ScheduleKind::cpu_multicore));
  Block *inner = new Block();
  map.getBody().push_back(inner);
  for (BlockArgument a : body.getArguments())
    indices[a] = IndexExpr{b.getAffineDimExpr(0),
                           {inner->addArgument(b.getIndexType(), loc)}};
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(inner);
  // The body is dataflow only: its values are private to each iteration,
  // and its branches become selects.
  for (Operation &o : llvm::make_early_inc_range(body))
    if (auto branch = dyn_cast<scf::IfOp>(o))
      if (failed(flattenIf(branch)))
        return failure();
  DenseMap<Value, Value> outer = local;
  ++mapDepth;
  for (Operation &o : body) {
    if (isa<scf::ReduceOp, affine::AffineYieldOp>(&o))
      continue;
    bool handled;
    if (failed(trackIndex(&o, handled)))
      return failure();
    if (handled)
      continue;
    if (isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
            affine::AffineStoreOp>(&o) ||
        isScalarCompute(&o)) {
      if (failed(convertDataflow(&o)))
        return failure();
      continue;
    }
    if (isa<scf::ParallelOp, affine::AffineParallelOp>(&o)) {
      if (failed(convertOp(&o)))
        return failure();
      continue;
    }
    --mapDepth;
    return unsupported(&o, "only loads, stores, scalar arithmetic and "
                           "nested parallel loops may appear in a parallel "
                           "loop body");
  }
  --mapDepth;
  local = outer;
  doneInState.insert(op);
  return success();
}
