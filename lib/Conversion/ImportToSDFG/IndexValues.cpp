//===- IndexValues.cpp - Index arithmetic as affine expressions -----------===//
//
// Index values (function index arguments, loop iterators, map parameters
// and the affine arithmetic on them) are never emitted: they fold into the
// affine expressions of memlets and bounds.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

AffineExpr mlir::sdfg::detail::merge(const IndexExpr &e,
                                     SmallVector<Value> &into) {
  SmallVector<AffineExpr> repl;
  for (Value a : e.atoms) {
    auto *it = llvm::find(into, a);
    unsigned pos = it - into.begin();
    if (it == into.end())
      into.push_back(a);
    repl.push_back(getAffineDimExpr(pos, e.expr.getContext()));
  }
  return e.expr.replaceDims(repl);
}

std::optional<IndexExpr> Converter::indexOf(Value v) {
  auto it = indices.find(v);
  if (it != indices.end())
    return it->second;
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return IndexExpr{b.getAffineConstantExpr(c.value()), {}};
  return std::nullopt;
}

std::optional<SmallVector<IndexExpr>> Converter::applyMap(AffineMap m,
                                                          ValueRange operands) {
  SmallVector<Value> atoms;
  SmallVector<AffineExpr> repl;
  for (Value o : operands) {
    auto e = indexOf(o);
    if (!e)
      return std::nullopt;
    repl.push_back(merge(*e, atoms));
  }
  ArrayRef<AffineExpr> all(repl);
  SmallVector<IndexExpr> out;
  for (AffineExpr r : m.getResults())
    out.push_back(
        IndexExpr{r.replaceDimsAndSymbols(all.take_front(m.getNumDims()),
                                          all.drop_front(m.getNumDims())),
                  atoms});
  return out;
}

/// Index arithmetic that stays affine is folded, never emitted.
LogicalResult Converter::trackIndex(Operation *op, bool &handled) {
  handled = false;
  if (auto view = dyn_cast<memref::SubViewOp>(op)) {
    handled = true;
    return trackSubview(view);
  }
  if (op->getNumResults() != 1 || !op->getResult(0).getType().isIndex())
    return success();
  Value r = op->getResult(0);
  if (auto c = dyn_cast<arith::ConstantIndexOp>(op)) {
    indices[r] = IndexExpr{b.getAffineConstantExpr(c.value()), {}};
    handled = true;
    return success();
  }
  auto binary = [&](auto combine) -> LogicalResult {
    auto l = indexOf(op->getOperand(0)), rr = indexOf(op->getOperand(1));
    if (!l || !rr)
      return unsupported(op, "operand is not an affine index value");
    SmallVector<Value> atoms;
    AffineExpr le = merge(*l, atoms), re = merge(*rr, atoms);
    std::optional<AffineExpr> e = combine(le, re);
    if (!e)
      return unsupported(op, "the index expression is not affine");
    indices[r] = IndexExpr{*e, atoms};
    handled = true;
    return success();
  };
  auto constRhs = [](AffineExpr r) { return isa<AffineConstantExpr>(r); };
  if (isa<arith::AddIOp>(op))
    return binary([](AffineExpr l, AffineExpr r) {
      return std::optional<AffineExpr>(l + r);
    });
  if (isa<arith::SubIOp>(op))
    return binary([](AffineExpr l, AffineExpr r) {
      return std::optional<AffineExpr>(l - r);
    });
  if (isa<arith::MulIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r) || isa<AffineConstantExpr>(l))
        return l * r;
      return std::nullopt;
    });
  if (isa<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r))
        return l.floorDiv(r);
      return std::nullopt;
    });
  if (isa<arith::CeilDivSIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r))
        return l.ceilDiv(r);
      return std::nullopt;
    });
  if (isa<arith::RemSIOp, arith::RemUIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r))
        return l % r;
      return std::nullopt;
    });
  if (auto dim = dyn_cast<memref::DimOp>(op))
    return trackDim(dim, handled);
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    auto e = applyMap(apply.getAffineMap(), apply.getMapOperands());
    if (!e)
      return unsupported(op, "operand is not an affine index value");
    indices[r] = e->front();
    handled = true;
    return success();
  }
  return success();
}

/// `memref.dim`: a static extent is a constant; a dynamic one is read by
/// sdfg.dim at the top of the program, next to the container (it then
/// dominates every loop bound and subscript that uses it: extentOf). Of a
/// subview, its size.
LogicalResult Converter::trackDim(memref::DimOp op, bool &handled) {
  std::optional<int64_t> axis = op.getConstantIndex();
  if (!axis)
    return unsupported(op, "the dimension must be a constant");
  if (auto view = subviews.find(op.getSource()); view != subviews.end()) {
    // A view's extent is its size.
    if (*axis < 0 || *axis >= int64_t(view->second.sizes.size()))
      return unsupported(op, "the dimension is out of range");
    indices[op.getResult()] = view->second.sizes[*axis];
    handled = true;
    return success();
  }
  Value c = container(op, op.getSource());
  if (!c)
    return failure();
  auto type = cast<MemRefType>(c.getType());
  if (*axis < 0 || *axis >= type.getRank())
    return unsupported(op, "the dimension is out of range");
  indices[op.getResult()] = extentOf(c, *axis);
  handled = true;
  return success();
}

AffineMap Converter::accessMap(Operation *op, ArrayRef<IndexExpr> idx,
                               SmallVector<Value> &operands) {
  SmallVector<AffineExpr> results;
  for (const IndexExpr &e : idx)
    results.push_back(merge(e, operands));
  return AffineMap::get(operands.size(), 0, results, op->getContext());
}
