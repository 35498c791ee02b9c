//===- Dataflow.cpp - States: containers, memlets, tasklets ---------------===//
//
// Straight-line code between control ops becomes one sdfg.state: memref
// and affine loads and stores become memlets, arith and math tasklets.
// Values used after their state are kept in 0-d transients.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

//===----------------------------------------------------------------------===//
// Containers, scalars, states
//===----------------------------------------------------------------------===//

Value Converter::container(Operation *op, Value memref) {
  Value c = containers.lookup(memref);
  if (!c)
    unsupported(op, "its memref is not a function argument or an "
                    "allocation of the function");
  return c;
}

Value Converter::alloc0d(Location loc, Type elt) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sdfg.getBody().front());
  return AllocOp::create(b, loc, MemRefType::get({}, elt), ValueRange{})
      .getResult();
}

Value Converter::materialize(Location loc, const IndexExpr &e) {
  if (auto d = dyn_cast<AffineDimExpr>(e.expr))
    return e.atoms[d.getPosition()];
  auto t = TaskletOp::create(b, loc, TypeRange{b.getIndexType()}, e.atoms);
  Block *body = new Block();
  t.getBody().push_back(body);
  SmallVector<Value> args;
  for (Value a : e.atoms)
    args.push_back(body->addArgument(a.getType(), loc));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Value v = expandIndexExpr(b, loc, e.expr, args);
  YieldOp::create(b, loc, ValueRange{v});
  return t.getResult(0);
}

/// `v` as an sdfg value at the insertion point (inside a state or map).
Value Converter::scalar(Operation *user, Value v) {
  if (Value l = local.lookup(v))
    return l;
  Location loc = user->getLoc();
  Value out;
  if (Value arg = scalarArgs.lookup(v)) {
    out = arg;
  } else if (Value c = spilled.lookup(v)) {
    out = LoadOp::create(b, loc, cast<MemRefType>(c.getType()).getElementType(),
                         c, ValueRange{}, AffineMap::get(b.getContext()));
  } else if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
    auto t = TaskletOp::create(b, loc, TypeRange{v.getType()}, ValueRange{});
    Block *body = new Block();
    t.getBody().push_back(body);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    Value c = b.clone(*cst)->getResult(0);
    YieldOp::create(b, loc, ValueRange{c});
    out = t.getResult(0);
  } else if (auto e = indexOf(v)) {
    out = materialize(loc, *e);
  } else {
    unsupported(user, "an operand has no value here (defined by an "
                      "unsupported op?)");
    return nullptr;
  }
  local[v] = out;
  return out;
}

void Converter::openState(Location loc) {
  if (state)
    return;
  state = StateOp::create(b, loc);
  if (state.getBody().empty())
    state.getBody().push_back(new Block());
  b.setInsertionPointToStart(&state.getBody().front());
}

void Converter::define(Value upstream, Value value) {
  local[upstream] = value;
  if (mapDepth == 0)
    definedInState.push_back(upstream);
}

/// Ends the open state; values used after it are kept in 0-d transients.
void Converter::closeState() {
  if (!state)
    return;
  for (Value v : definedInState) {
    bool usedLater = llvm::any_of(
        v.getUsers(), [&](Operation *u) { return !doneInState.contains(u); });
    if (!usedLater || spilled.count(v))
      continue;
    Value c = alloc0d(v.getLoc(), v.getType());
    StoreOp::create(b, v.getLoc(), local.lookup(v), c, ValueRange{},
                    AffineMap::get(b.getContext()), nullptr);
    spilled[v] = c;
  }
  b.setInsertionPointAfter(state);
  state = nullptr;
  local.clear();
  definedInState.clear();
  doneInState.clear();
}

LogicalResult Converter::convertAlloc(Operation *op) {
  auto type = cast<MemRefType>(op->getResult(0).getType());
  if (!type.getLayout().isIdentity())
    return unsupported(op, "only identity layouts are supported");
  if (op->getParentOp() != fn.getOperation())
    return unsupported(op, "allocations must be at the top of the "
                           "function, not inside loops or branches");
  SmallVector<Value> sizes;
  for (Value s : op->getOperands()) {
    auto e = indexOf(s);
    if (!e || !isa<AffineDimExpr>(e->expr))
      return unsupported(op, "a dynamic size must be an index argument");
    sizes.push_back(e->atoms[cast<AffineDimExpr>(e->expr).getPosition()]);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sdfg.getBody().front());
  containers[op->getResult(0)] =
      AllocOp::create(b, op->getLoc(), type, sizes).getResult();
  return success();
}

//===----------------------------------------------------------------------===//
// Loads, stores, tasklets
//===----------------------------------------------------------------------===//

bool mlir::sdfg::detail::isScalarCompute(Operation *op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return false;
  if (op->getNumRegions() != 0)
    return false;
  return llvm::all_of(op->getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); });
}

LogicalResult Converter::convertDataflow(Operation *op) {
  if (isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
          affine::AffineStoreOp>(op))
    return convertAccess(op);
  if (isa<arith::ConstantOp>(op))
    return success(); // materialised where used
  return convertTasklet(op);
}

LogicalResult Converter::convertAccess(Operation *op) {
  Location loc = op->getLoc();
  auto indexList = [&](ValueRange idx, SmallVector<IndexExpr> &out) {
    for (Value i : idx) {
      auto e = indexOf(i);
      if (!e)
        return unsupported(op, "an index is not an affine function of loop "
                               "variables and index arguments"),
               false;
      out.push_back(*e);
    }
    return true;
  };
  auto affineIndices = [&](AffineMap m, ValueRange operands,
                           SmallVector<IndexExpr> &out) {
    auto e = applyMap(m, operands);
    if (!e)
      return unsupported(op, "an index operand is not affine"), false;
    out = std::move(*e);
    return true;
  };
  // A constant index outside a static extent is undefined behaviour in
  // the input; reported here, naming the op written.
  auto inBounds = [&](Value memref, ArrayRef<IndexExpr> idx) -> bool {
    auto type = cast<MemRefType>(memref.getType());
    for (auto [d, e] : llvm::enumerate(idx)) {
      auto c = dyn_cast<AffineConstantExpr>(e.expr);
      if (!c || type.isDynamicDim(d))
        continue;
      if (c.getValue() < 0 || c.getValue() >= type.getDimSize(d)) {
        unsupported(op) << ": index " << c.getValue()
                        << " is out of bounds for dimension " << d
                        << " of extent " << type.getDimSize(d);
        return false;
      }
    }
    return true;
  };
  auto emitLoad = [&](Value memref, SmallVector<IndexExpr> idx,
                      Value result) -> LogicalResult {
    memref = resolveView(memref, idx);
    if (!inBounds(memref, idx))
      return failure();
    Value c = container(op, memref);
    if (!c)
      return failure();
    SmallVector<Value> operands;
    AffineMap m = accessMap(op, idx, operands);
    define(result, LoadOp::create(b, loc, result.getType(), c, operands, m));
    return success();
  };
  auto emitStore = [&](Value value, Value memref,
                       SmallVector<IndexExpr> idx) -> LogicalResult {
    memref = resolveView(memref, idx);
    if (!inBounds(memref, idx))
      return failure();
    Value c = container(op, memref), v = scalar(op, value);
    if (!c || !v)
      return failure();
    SmallVector<Value> operands;
    AffineMap m = accessMap(op, idx, operands);
    StoreOp::create(b, loc, v, c, operands, m, nullptr);
    return success();
  };

  if (auto l = dyn_cast<memref::LoadOp>(op)) {
    SmallVector<IndexExpr> idx;
    if (!indexList(l.getIndices(), idx))
      return failure();
    return emitLoad(l.getMemref(), idx, l.getResult());
  }
  if (auto s = dyn_cast<memref::StoreOp>(op)) {
    SmallVector<IndexExpr> idx;
    if (!indexList(s.getIndices(), idx))
      return failure();
    return emitStore(s.getValue(), s.getMemref(), idx);
  }
  if (auto l = dyn_cast<affine::AffineLoadOp>(op)) {
    SmallVector<IndexExpr> idx;
    if (!affineIndices(l.getAffineMap(), l.getMapOperands(), idx))
      return failure();
    return emitLoad(l.getMemref(), idx, l.getResult());
  }
  auto s = cast<affine::AffineStoreOp>(op);
  SmallVector<IndexExpr> idx;
  if (!affineIndices(s.getAffineMap(), s.getMapOperands(), idx))
    return failure();
  return emitStore(s.getValue(), s.getMemref(), idx);
}

/// A scalar computation: one tasklet. Constants are cloned into it.
LogicalResult Converter::convertTasklet(Operation *op) {
  Location loc = op->getLoc();
  SmallVector<Value> inputs, upstreamInputs;
  for (Value o : op->getOperands()) {
    if (o.getDefiningOp<arith::ConstantOp>() ||
        llvm::is_contained(upstreamInputs, o))
      continue;
    Value v = scalar(op, o);
    if (!v)
      return failure();
    inputs.push_back(v);
    upstreamInputs.push_back(o);
  }
  auto t = TaskletOp::create(b, loc, op->getResultTypes(), inputs);
  Block *body = new Block();
  t.getBody().push_back(body);
  IRMapping inner;
  for (auto [u, v] : llvm::zip(upstreamInputs, inputs))
    inner.map(u, body->addArgument(v.getType(), loc));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    for (Value o : op->getOperands())
      if (auto c = o.getDefiningOp<arith::ConstantOp>();
          c && !inner.contains(o))
        inner.map(o, b.clone(*c)->getResult(0));
    Operation *clone = b.clone(*op, inner);
    YieldOp::create(b, loc, clone->getResults());
  }
  for (auto [r, v] : llvm::zip(op->getResults(), t.getResults()))
    define(r, v);
  return success();
}
