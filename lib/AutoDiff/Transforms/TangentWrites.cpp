//===- TangentWrites.cpp - The tangent of each write ----------------------===//
//
// sdfg-forward-diff's rewrite of one write op: the scalar tangents of the
// value a store writes (a tangent load after each load, a tangent tasklet
// after each tasklet), the store, copy or library op that writes its
// tangent, and the census that gives max/min accumulations in maps their
// tangents.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"
#include "TangentBuilder.h"

#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

Value TangentBuilder::tangentOf(Value v) {
  auto it = scalar.find(v);
  if (it != scalar.end())
    return it->second;
  Value t;
  if (auto load = v.getDefiningOp<LoadOp>()) {
    Value tc = tangent.lookup(load.getMemref());
    if (tc && isa<FloatType>(v.getType())) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(load);
      t = LoadOp::create(b, load.getLoc(), v.getType(), tc, load.getIndices(),
                         load.getMap());
    }
  } else if (auto task = v.getDefiningOp<TaskletOp>()) {
    if (failed(differentiateTasklet(task))) {
      failedRule = true;
      return Value();
    }
    return scalar.lookup(v);
  }
  scalar[v] = t;
  return t;
}

/// The tangent tasklet of `task`, right after it: its inputs are the
/// primal inputs and their tangents; its body recomputes the primal ops
/// and, after each, its tangent: the sum over operands i of the op's
/// adjoint rule for operand i applied to operand i's tangent.
LogicalResult TangentBuilder::differentiateTasklet(TaskletOp task) {
  for (Value r : task.getResults())
    scalar[r] = Value();
  SmallVector<Value> inputs(task.getInputs());
  SmallVector<int> tangentIndex(inputs.size(), -1);
  SmallVector<Value> tangentInputs;
  for (auto [i, in] : llvm::enumerate(task.getInputs()))
    if (Value t = tangentOf(in)) {
      tangentIndex[i] = inputs.size() + tangentInputs.size();
      tangentInputs.push_back(t);
    }
  if (failedRule)
    return failure();
  SmallVector<unsigned> floatResults;
  SmallVector<Type> types;
  for (auto [i, r] : llvm::enumerate(task.getResults()))
    if (isa<FloatType>(r.getType())) {
      floatResults.push_back(i);
      types.push_back(r.getType());
    }
  if (tangentInputs.empty() || floatResults.empty())
    return success();
  inputs.append(tangentInputs);

  Location loc = task.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(task);
  auto nt = TaskletOp::create(b, loc, types, inputs);
  Block *blk = new Block();
  nt.getBody().push_back(blk);
  for (Value in : inputs)
    blk->addArgument(in.getType(), loc);
  Block &old = task.getBody().front();
  IRMapping primal;
  llvm::DenseMap<Value, Value> tan;
  for (auto [i, arg] : llvm::enumerate(old.getArguments())) {
    primal.map(arg, blk->getArgument(i));
    if (tangentIndex[i] >= 0)
      tan[arg] = blk->getArgument(tangentIndex[i]);
  }
  b.setInsertionPointToStart(blk);
  for (Operation &op : old.without_terminator()) {
    Operation *copy = b.clone(op, primal);
    SmallVector<std::pair<unsigned, Value>> terms;
    for (auto [i, operand] : llvm::enumerate(op.getOperands()))
      if (Value t = tan.lookup(operand))
        terms.push_back({(unsigned)i, t});
    if (terms.empty() || op.getNumResults() != 1 ||
        !isa<FloatType>(op.getResult(0).getType()))
      continue;
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      // Precision casts are linear: the tangent is cast alike (the
      // adjoint rule casts the other way).
      Operation *cast = b.clone(*copy);
      cast->setOperand(0, terms.front().second);
      tan[op.getResult(0)] = cast->getResult(0);
      continue;
    }
    auto rule = dyn_cast<ScalarAdjointOpInterface>(copy);
    if (!rule || op.getNumRegions() != 0)
      return op.emitOpError("forward mode: no derivative rule for this op");
    Value sum;
    for (auto [i, t] : terms) {
      SmallVector<Value> d;
      IRMapping same;
      if (failed(rule.emitAdjoint(b, same, t, d)))
        return failure();
      if (i >= d.size() || !d[i])
        continue;
      if (d[i].getType() != op.getResult(0).getType())
        return op.emitOpError("forward mode: the derivative rule of this op "
                              "changes the type; no tangent for it yet");
      sum = sum ? arith::AddFOp::create(b, op.getLoc(), sum, d[i]) : d[i];
    }
    if (sum)
      tan[op.getResult(0)] = sum;
  }
  auto yield = cast<YieldOp>(old.getTerminator());
  SmallVector<Value> yields;
  for (unsigned i : floatResults) {
    Value t = tan.lookup(yield.getValues()[i]);
    if (!t) {
      Type ty = types[yields.size()];
      t = arith::ConstantOp::create(b, loc, ty, b.getFloatAttr(ty, 0.0));
    }
    yields.push_back(t);
  }
  YieldOp::create(b, loc, yields);
  // The rules build every operand's adjoint; drop the ones no tangent
  // uses.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*blk)))
    if (isOpTriviallyDead(&op))
      op.erase();
  for (auto [k, i] : llvm::enumerate(floatResults))
    scalar[task.getResult(i)] = nt.getResult(k);
  return success();
}

/// A transient shaped as `like`, declared at the top of the program (its
/// dynamic sizes those of the alloc that made `like`); null where `like`
/// is an argument of dynamic shape.
Value TangentBuilder::transientLike(Value like, Location loc, StringRef name) {
  auto type = cast<MemRefType>(like.getType());
  SmallVector<Value> sizes;
  if (!type.hasStaticShape()) {
    auto alloc = like.getDefiningOp<AllocOp>();
    if (!alloc)
      return Value();
    sizes.assign(alloc.getDynamicSizes().begin(),
                 alloc.getDynamicSizes().end());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(alloc);
    return AllocOp::create(b, loc, type, sizes, b.getStringAttr(name));
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&jvp.getBody().front());
  return AllocOp::create(b, loc, type, sizes, b.getStringAttr(name));
}

/// The tangent of `C[e] max= v` (or min=): the tangent of the value that
/// wins, the mean of the tangents of all that tie with it (JAX's rule for
/// max reductions). Outside maps the store runs alone: the new tangent
/// is chosen between the stored value's and the element's by comparing
/// the two values. Inside a map every contribution is concurrent: after
/// the map, a census map recomputes each contribution, compares it with
/// the final element and adds its tangent and a count where they are
/// equal; the element's value before the map counts as one more
/// contribution (it is kept with its tangent before the map).
LogicalResult TangentBuilder::chooserTangent(StoreOp s, Value tc) {
  Location loc = s.getLoc();
  bool isMax = *s.getWcr() == WCRKind::max;
  Type ft = s.getValue().getType();
  auto choose = [&](OpBuilder &ob, Value v, Value old, Value tv, Value told) {
    auto pred = isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT;
    auto predOld =
        isMax ? arith::CmpFPredicate::OLT : arith::CmpFPredicate::OGT;
    Value wins = arith::CmpFOp::create(ob, loc, pred, v, old);
    Value loses = arith::CmpFOp::create(ob, loc, predOld, v, old);
    Value half =
        arith::ConstantOp::create(ob, loc, ft, ob.getFloatAttr(ft, 0.5));
    Value mean = arith::MulFOp::create(
        ob, loc, half, arith::AddFOp::create(ob, loc, tv, told));
    Value tie = arith::SelectOp::create(ob, loc, loses, told, mean);
    return arith::SelectOp::create(ob, loc, wins, tv, tie).getResult();
  };
  MapOp outer;
  for (Operation *p = s->getParentOp(); p && !isa<StateOp, SDFGOp>(p);
       p = p->getParentOp())
    if (auto m = dyn_cast<MapOp>(p))
      outer = m;
  if (!outer) {
    Value tv = tangentOf(s.getValue());
    if (failedRule)
      return failure();
    // Sequential: read the element and its tangent before the store.
    b.setInsertionPoint(s);
    Value old =
        LoadOp::create(b, loc, ft, s.getMemref(), s.getIndices(), s.getMap());
    Value told = LoadOp::create(b, loc, ft, tc, s.getIndices(), s.getMap());
    if (!tv)
      tv = rb.constantTasklet(loc, ft, 0.0);
    b.setInsertionPointAfter(s);
    Value t = rb.tasklet(loc, ft, ValueRange{s.getValue(), old, tv, told},
                         [&](OpBuilder &ob, ArrayRef<Value> a) {
                           return SmallVector<Value>{
                               choose(ob, a[0], a[1], a[2], a[3])};
                         })
                  .getResult(0);
    StoreOp::create(b, loc, t, tc, s.getIndices(), s.getMap(), nullptr);
    return success();
  }
  // In a map: everything the census recomputes must be as the map left
  // it.
  llvm::SetVector<Value> written, reads;
  outer.walk([&](Operation *op) {
    if (auto w = dyn_cast<StoreOp>(op))
      written.insert(w.getMemref());
    else if (auto c = dyn_cast<CopyOp>(op))
      written.insert(c.getTarget());
    else if (auto lib = dyn_cast<LibraryOpInterface>(op))
      written.insert(lib.getOutputContainer());
  });
  collectLoadedContainers(s.getValue(), reads);
  for (Value i : s.getIndices())
    collectLoadedContainers(i, reads);
  for (Value r : reads)
    if (written.contains(r) && !tangentContainers.contains(r))
      return s.emitOpError("forward mode: the tangent of this wcr(")
             << stringifyWCRKind(*s.getWcr())
             << ") store needs values its map overwrites; not implemented";
  Value c = s.getMemref();
  Value before = transientLike(c, loc, "t_before");
  Value tBefore = transientLike(c, loc, "t_before_tangent");
  Value sum = transientLike(c, loc, "t_tie_tangents");
  Value count = transientLike(c, loc, "t_ties");
  if (!before || !tBefore || !sum || !count)
    return s.emitOpError("forward mode: the tangent of a wcr(")
           << stringifyWCRKind(*s.getWcr())
           << ") store into an argument of dynamic shape is not implemented";
  // Before the map: the element values and tangents it starts from.
  b.setInsertionPoint(outer);
  forEachElement(c, loc, [&](ValueRange e, AffineMap id) {
    rb.store(loc, rb.load(loc, c, id, e), before, id, e, false);
    rb.store(loc, rb.load(loc, tc, id, e), tBefore, id, e, false);
  });
  rb.fill(loc, sum, 0.0, /*inState=*/true);
  rb.fill(loc, count, 0.0, /*inState=*/true);
  // After it: the census, a copy of the map that only counts.
  b.setInsertionPointAfter(outer);
  IRMapping m;
  auto census = cast<MapOp>(b.clone(*outer, m));
  auto s2 = cast<StoreOp>(m.lookup(s.getOperation()));
  SmallVector<Operation *> drop;
  census.walk([&](Operation *op) {
    if (op != s2 && isa<StoreOp, CopyOp, LibraryOpInterface>(op))
      drop.push_back(op);
  });
  for (Operation *op : drop)
    op->erase();
  Value v2 = s2.getValue();
  Value tv2 = tangentOf(v2);
  if (failedRule)
    return failure();
  b.setInsertionPoint(s2);
  Value fin = LoadOp::create(b, loc, ft, c, s2.getIndices(), s2.getMap());
  if (!tv2)
    tv2 = rb.constantTasklet(loc, ft, 0.0);
  auto counted = rb.tasklet(
      loc, {ft, ft}, ValueRange{v2, fin, tv2},
      [&](OpBuilder &ob, ArrayRef<Value> a) {
        Value eq = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OEQ,
                                         a[0], a[1]);
        Value zero =
            arith::ConstantOp::create(ob, loc, ft, ob.getFloatAttr(ft, 0.0));
        Value one =
            arith::ConstantOp::create(ob, loc, ft, ob.getFloatAttr(ft, 1.0));
        return SmallVector<Value>{
            arith::SelectOp::create(ob, loc, eq, a[2], zero),
            arith::SelectOp::create(ob, loc, eq, one, zero)};
      });
  Value targets[] = {sum, count};
  for (auto [k, target] : llvm::enumerate(targets)) {
    auto add = StoreOp::create(b, loc, counted.getResult(k), target,
                               s2.getIndices(), s2.getMap(), nullptr);
    add.setWcrAttr(WCRKindAttr::get(b.getContext(), WCRKind::add));
  }
  s2.erase();
  // Loads and tasklets only the dropped stores used.
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    census.walk([&](Operation *op) {
      if (op != census && isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    changed = !dead.empty();
  }
  // Then each element's tangent: the mean over the contributions equal
  // to the result, the value it started from included.
  b.setInsertionPointAfter(census);
  forEachElement(c, loc, [&](ValueRange e, AffineMap id) {
    SmallVector<Value> in = {
        rb.load(loc, c, id, e), rb.load(loc, before, id, e),
        rb.load(loc, tBefore, id, e), rb.load(loc, sum, id, e),
        rb.load(loc, count, id, e)};
    Value t =
        rb.tasklet(loc, ft, in, [&](OpBuilder &ob, ArrayRef<Value> a) {
            Value kept = arith::CmpFOp::create(
                ob, loc, arith::CmpFPredicate::OEQ, a[0], a[1]);
            Value zero = arith::ConstantOp::create(ob, loc, ft,
                                                   ob.getFloatAttr(ft, 0.0));
            Value one = arith::ConstantOp::create(ob, loc, ft,
                                                  ob.getFloatAttr(ft, 1.0));
            Value num = arith::AddFOp::create(
                ob, loc, a[3],
                arith::SelectOp::create(ob, loc, kept, a[2], zero));
            Value den = arith::AddFOp::create(
                ob, loc, a[4],
                arith::SelectOp::create(ob, loc, kept, one, zero));
            return SmallVector<Value>{arith::DivFOp::create(ob, loc, num, den)};
          }).getResult(0);
    rb.store(loc, t, tc, id, e, false);
  });
  return success();
}

/// Opens a map over every element of `container` at the insertion point
/// (in a state) and calls `body` with its parameters and the identity map.
void TangentBuilder::forEachElement(
    Value container, Location loc,
    function_ref<void(ValueRange, AffineMap)> body) {
  OpBuilder::InsertionGuard guard(b);
  auto type = cast<MemRefType>(container.getType());
  SmallVector<Value> params = rb.openContainerMap(loc, container, true);
  body(params,
       AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext()));
}

/// A container of zeros shaped as `like` (static shapes), the source of a
/// copy whose values have no tangent.
Value TangentBuilder::zeroSource(Value like, Location loc) {
  auto type = cast<MemRefType>(like.getType());
  if (Value z = zeros.lookup(type))
    return z;
  if (!type.hasStaticShape())
    return Value();
  OpBuilder::InsertionGuard guard(b);
  Block &body = jvp.getBody().front();
  b.setInsertionPointToStart(&body);
  Value z =
      AllocOp::create(b, loc, type, ValueRange(), b.getStringAttr("t_zeros"));
  setInsertionPointAfterAllocs();
  rb.fill(loc, z, 0.0, /*inState=*/false);
  zeros[type] = z;
  return z;
}

LogicalResult TangentBuilder::rewrite(Operation *op) {
  if (auto s = dyn_cast<StoreOp>(op)) {
    Value tc = tangent.lookup(s.getMemref());
    if (!tc)
      return success();
    if (s.getWcr() &&
        (*s.getWcr() == WCRKind::max || *s.getWcr() == WCRKind::min))
      return chooserTangent(s, tc);
    if (s.getWcr() && *s.getWcr() != WCRKind::add)
      return s.emitOpError("forward mode: the tangent of a wcr(")
             << stringifyWCRKind(*s.getWcr()) << ") store is not implemented";
    Value t = tangentOf(s.getValue());
    if (failedRule)
      return failure();
    b.setInsertionPointAfter(s);
    if (!t) {
      if (s.getWcr())
        return success(); // adds nothing to the tangent
      t = rb.constantTasklet(s.getLoc(), s.getValue().getType(), 0.0);
    }
    auto ts = cast<StoreOp>(b.clone(*s));
    ts.getValueMutable().assign(t);
    ts.getMemrefMutable().assign(tc);
    return success();
  }
  if (auto c = dyn_cast<CopyOp>(op)) {
    Value tc = tangent.lookup(c.getTarget());
    if (!tc)
      return success();
    if (c.getWcr() && *c.getWcr() != WCRKind::add)
      return c.emitOpError("forward mode: the tangent of a wcr(")
             << stringifyWCRKind(*c.getWcr()) << ") copy is not implemented";
    Value ts = tangent.lookup(c.getSource());
    if (!ts) {
      if (c.getWcr())
        return success();
      ts = zeroSource(c.getSource(), c.getLoc());
      if (!ts)
        return c.emitOpError("forward mode: a copy of values with no "
                             "tangent from a container of dynamic shape "
                             "into one with a tangent is not implemented");
    }
    b.setInsertionPointAfter(c);
    auto tcopy = cast<CopyOp>(b.clone(*c));
    tcopy.getSourceMutable().assign(ts);
    tcopy.getTargetMutable().assign(tc);
    return success();
  }
  if (auto lib = dyn_cast<LibraryOpInterface>(op)) {
    Value out = lib.getOutputContainer();
    if (!tangent.lookup(out))
      return success();
    auto rule = dyn_cast<TangentOpInterface>(op);
    if (!rule)
      return op->emitOpError("forward mode has no tangent rule for this op "
                             "yet (reverse mode, sdfg-autodiff, has one)");
    b.setInsertionPointAfter(op);
    return rule.emitTangent(
        b, [&](Value c) { return tangent.lookup(c); },
        [&](Value t) { rb.fill(op->getLoc(), t, 0.0, /*inState=*/true); });
  }
  return success();
}
