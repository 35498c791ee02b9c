//===- IfConversion.cpp - Branches of a parallel loop body as selects -----===//
//
// A map body holds dataflow only (memlets and tasklets), so an scf.if in
// the body of a parallel loop is converted into straight-line code before
// the body is imported: both branches are computed and each element they
// store is stored once, with `select(cond, then value, else value)`. This
// is exact where computing the branch not taken has no effect: its ops
// are float arithmetic or integer arithmetic that cannot trap (no
// division), it loads nothing (a load the program skips may lie outside
// its array) and both branches store the same elements (the same memref
// at the same index values), each once.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

namespace {

/// Why `block` (a branch) cannot be computed unconditionally, or "".
StringRef unsafeBranch(Block &block) {
  for (Operation &op : block) {
    if (isa<scf::YieldOp, memref::StoreOp>(op))
      continue;
    if (isa<memref::LoadOp, affine::AffineLoadOp>(op))
      return "a branch loads (computed unconditionally, the load could lie "
             "outside its array)";
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::CeilDivSIOp,
            arith::CeilDivUIOp, arith::FloorDivSIOp, arith::RemSIOp,
            arith::RemUIOp>(op))
      return "a branch divides integers (computed unconditionally, it "
             "could divide by zero)";
    if (!isScalarCompute(&op))
      return "a branch holds other than scalar arithmetic and stores";
  }
  return "";
}

SmallVector<memref::StoreOp> storesOf(Block &block) {
  SmallVector<memref::StoreOp> stores;
  for (Operation &op : block)
    if (auto s = dyn_cast<memref::StoreOp>(op))
      stores.push_back(s);
  return stores;
}

bool sameElement(memref::StoreOp a, memref::StoreOp b) {
  return a.getMemRef() == b.getMemRef() &&
         llvm::equal(a.getIndices(), b.getIndices());
}

} // namespace

LogicalResult Converter::flattenIf(scf::IfOp op) {
  StringRef why = unsafeBranch(*op.thenBlock());
  if (why.empty() && op.elseBlock())
    why = unsafeBranch(*op.elseBlock());
  if (!why.empty())
    return unsupported(op, "in a parallel loop body, ") << why;
  SmallVector<memref::StoreOp> thenStores = storesOf(*op.thenBlock());
  SmallVector<memref::StoreOp> elseStores;
  if (op.elseBlock())
    elseStores = storesOf(*op.elseBlock());
  // Each element stored once by each branch, the same elements.
  SmallVector<std::pair<memref::StoreOp, memref::StoreOp>> pairs;
  for (auto [k, t] : llvm::enumerate(thenStores)) {
    for (memref::StoreOp other : ArrayRef(thenStores).drop_front(k + 1))
      if (sameElement(t, other))
        return unsupported(op, "in a parallel loop body, a branch stores "
                               "one element twice");
    auto match = llvm::find_if(
        elseStores, [&](memref::StoreOp e) { return sameElement(t, e); });
    if (match == elseStores.end())
      return unsupported(op, "in a parallel loop body, the branches must "
                             "store the same elements");
    pairs.push_back({t, *match});
  }
  if (pairs.size() != elseStores.size())
    return unsupported(op, "in a parallel loop body, the branches must store "
                           "the same elements");
  // Both branches before the if, then one store per element and a select
  // per result.
  OpBuilder builder(op);
  IRMapping thenMap, elseMap;
  auto cloneBranch = [&](Block *block, IRMapping &map) {
    if (!block)
      return;
    for (Operation &inner : *block)
      if (!isa<scf::YieldOp, memref::StoreOp>(inner))
        builder.clone(inner, map);
  };
  cloneBranch(op.thenBlock(), thenMap);
  cloneBranch(op.elseBlock(), elseMap);
  Location loc = op.getLoc();
  Value cond = op.getCondition();
  for (auto [t, e] : pairs) {
    Value v = arith::SelectOp::create(
        builder, loc, cond, thenMap.lookupOrDefault(t.getValueToStore()),
        elseMap.lookupOrDefault(e.getValueToStore()));
    memref::StoreOp::create(builder, t.getLoc(), v, t.getMemRef(),
                            t.getIndices());
  }
  for (auto [k, result] : llvm::enumerate(op.getResults())) {
    Value a = thenMap.lookupOrDefault(op.thenYield().getOperand(k));
    Value b = elseMap.lookupOrDefault(op.elseYield().getOperand(k));
    result.replaceAllUsesWith(
        arith::SelectOp::create(builder, loc, cond, a, b));
  }
  op.erase();
  return success();
}
