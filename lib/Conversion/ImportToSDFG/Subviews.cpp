//===- Subviews.cpp - memref.subview as an index transform ----------------===//
//
// A subview (static strides, any offsets and sizes) is no container of its
// own: accesses through it address its source at `offset + stride * i`
// per kept dimension (a dropped unit dimension at its offset), and
// memref.dim of it is its size. Nested subviews compose.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// An index expression of an op's mixed (static or SSA) value.
std::optional<IndexExpr> Converter::indexOfMixed(OpFoldResult v) {
  if (auto attr = dyn_cast<Attribute>(v))
    return IndexExpr{b.getAffineConstantExpr(cast<IntegerAttr>(attr).getInt()),
                     {}};
  return indexOf(cast<Value>(v));
}

LogicalResult Converter::trackSubview(memref::SubViewOp op) {
  Subview view;
  view.source = op.getSource();
  llvm::SmallBitVector dropped = op.getDroppedDims();
  for (auto [d, stride] : llvm::enumerate(op.getStaticStrides())) {
    if (ShapedType::isDynamic(stride))
      return unsupported(op, "strides must be constants");
    std::optional<IndexExpr> offset = indexOfMixed(op.getMixedOffsets()[d]);
    std::optional<IndexExpr> size = indexOfMixed(op.getMixedSizes()[d]);
    if (!offset || !size)
      return unsupported(op, "offsets and sizes must be affine in loop "
                             "variables and index arguments");
    view.offsets.push_back(*offset);
    view.strides.push_back(stride);
    view.dropped.push_back(dropped.test(d));
    if (!dropped.test(d))
      view.sizes.push_back(*size);
  }
  subviews[op.getResult()] = std::move(view);
  return success();
}

Value Converter::resolveView(Value memref, SmallVector<IndexExpr> &idx) {
  while (true) {
    auto it = subviews.find(memref);
    if (it == subviews.end())
      return memref;
    const Subview &view = it->second;
    SmallVector<IndexExpr> outer;
    unsigned k = 0;
    for (auto [d, offset] : llvm::enumerate(view.offsets)) {
      if (view.dropped[d]) {
        outer.push_back(offset);
        continue;
      }
      SmallVector<Value> atoms;
      AffineExpr o = merge(offset, atoms), i = merge(idx[k++], atoms);
      outer.push_back(IndexExpr{o + i * view.strides[d], atoms});
    }
    idx = std::move(outer);
    memref = view.source;
  }
}
