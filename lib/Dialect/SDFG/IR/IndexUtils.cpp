//===- IndexUtils.cpp - Index expressions, ranges and subsets -------------===//

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MathExtras.h"
#include <limits>

using namespace mlir;
using namespace mlir::sdfg;

int64_t mlir::sdfg::tripCount(int64_t lb, int64_t ub, int64_t step) {
  // 128 bits: `ub - lb + step - 1` overflows int64 for bounds that the
  // verifiers accept (|bound| and |step| below 2^62).
  using Wide = __int128;
  Wide trips = 0;
  if (step > 0 && ub > lb)
    trips = (Wide(ub) - lb + step - 1) / step;
  else if (step < 0 && lb > ub)
    trips = (Wide(lb) - ub - step - 1) / -Wide(step);
  else if (step == 0)
    llvm::report_fatal_error("tripCount: step must not be zero");
  return trips > std::numeric_limits<int64_t>::max()
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(trips);
}

int64_t mlir::sdfg::lastIteration(int64_t lb, int64_t ub, int64_t step) {
  __int128 last = __int128(lb) + (__int128(tripCount(lb, ub, step)) - 1) * step;
  return static_cast<int64_t>(last);
}

int64_t mlir::sdfg::elementBytes(Type elementType) {
  if (elementType.isIndex())
    return 8;
  if (elementType.isIntOrFloat())
    return std::max<int64_t>(
        llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8), 1);
  return 8; // pointers and anything else the dialect may hold
}

std::optional<int64_t> mlir::sdfg::checkedByteSize(ArrayRef<int64_t> shape,
                                                   Type elementType) {
  int64_t bytes = elementBytes(elementType);
  for (int64_t extent : shape) {
    if (ShapedType::isDynamic(extent) || extent < 0 ||
        llvm::MulOverflow(bytes, extent, bytes) || bytes > kMaxRepresentable)
      return std::nullopt;
  }
  return bytes;
}

LogicalResult mlir::sdfg::verifyRepresentableSize(Operation *op,
                                                  MemRefType type,
                                                  const llvm::Twine &what) {
  SmallVector<int64_t> extents;
  for (int64_t extent : type.getShape())
    if (!ShapedType::isDynamic(extent))
      extents.push_back(extent);
  if (checkedByteSize(extents, type.getElementType()))
    return success();
  return op->emitOpError()
         << what << " of type " << type
         << " is too large: its size in bytes is not representable (the "
            "limit is 2^62 bytes)";
}

static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::optional<int64_t>
mlir::sdfg::evaluate(AffineExpr expr, ArrayRef<std::optional<int64_t>> dims) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue();
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    if (d.getPosition() >= dims.size())
      return std::nullopt;
    return dims[d.getPosition()];
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt; // symbols are not used by the dialect
  std::optional<int64_t> l = evaluate(bin.getLHS(), dims);
  std::optional<int64_t> r = evaluate(bin.getRHS(), dims);
  if (!l || !r)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return *l + *r;
  case AffineExprKind::Mul:
    return *l * *r;
  case AffineExprKind::FloorDiv:
    if (*r == 0)
      return std::nullopt;
    return floorDiv(*l, *r);
  case AffineExprKind::CeilDiv:
    if (*r == 0)
      return std::nullopt;
    return -floorDiv(-*l, *r);
  case AffineExprKind::Mod:
    if (*r == 0)
      return std::nullopt;
    return *l - floorDiv(*l, *r) * *r;
  default:
    return std::nullopt;
  }
}

Value mlir::sdfg::expandIndexExpr(OpBuilder &b, Location loc, AffineExpr expr,
                                  ValueRange operands) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return arith::ConstantIndexOp::create(b, loc, c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return operands[d.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(expr);
  Value l = expandIndexExpr(b, loc, bin.getLHS(), operands);
  Value r = expandIndexExpr(b, loc, bin.getRHS(), operands);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return b.createOrFold<arith::AddIOp>(loc, l, r);
  case AffineExprKind::Mul:
    return b.createOrFold<arith::MulIOp>(loc, l, r);
  case AffineExprKind::FloorDiv:
    return b.createOrFold<arith::FloorDivSIOp>(loc, l, r);
  case AffineExprKind::CeilDiv:
    return b.createOrFold<arith::CeilDivSIOp>(loc, l, r);
  case AffineExprKind::Mod: {
    // Python semantics: the result takes the sign of the divisor.
    Value rem = b.createOrFold<arith::RemSIOp>(loc, l, r);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value remNeg = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                                 rem, zero);
    Value divNeg =
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, r, zero);
    Value remNonZero =
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, rem, zero);
    Value signsDiffer = b.createOrFold<arith::XOrIOp>(loc, remNeg, divNeg);
    Value fix = b.createOrFold<arith::AndIOp>(loc, remNonZero, signsDiffer);
    Value adjusted = b.createOrFold<arith::AddIOp>(loc, rem, r);
    return b.createOrFold<arith::SelectOp>(loc, fix, adjusted, rem);
  }
  default:
    llvm_unreachable("symbols are not used by the sdfg dialect");
  }
}

Subset::Subset(AffineMap map, ArrayRef<int64_t> steps, ArrayRef<bool> ranges) {
  for (unsigned i = 0, e = steps.size(); i < e; ++i)
    dims.push_back(
        {map.getResult(2 * i), map.getResult(2 * i + 1), steps[i], ranges[i]});
}

SmallVector<unsigned> Subset::getRangeDims() const {
  SmallVector<unsigned> out;
  for (auto [i, d] : llvm::enumerate(dims))
    if (d.isRange)
      out.push_back(i);
  return out;
}

AffineExpr Subset::getExtent(unsigned i) const {
  const SubsetDim &d = dims[i];
  return (d.hi - d.lo).ceilDiv(d.step);
}

SmallVector<std::optional<int64_t>> Subset::getConstantShape() const {
  SmallVector<std::optional<int64_t>> shape;
  for (unsigned i : getRangeDims()) {
    std::optional<int64_t> v = evaluate(getExtent(i), {});
    if (v && *v < 0)
      v = 0;
    shape.push_back(v);
  }
  return shape;
}

void Subset::toAttributes(MLIRContext *ctx, unsigned numOperands,
                          AffineMap &map, SmallVectorImpl<int64_t> &steps,
                          SmallVectorImpl<bool> &ranges) const {
  SmallVector<AffineExpr> exprs;
  for (const SubsetDim &d : dims) {
    exprs.push_back(d.lo);
    exprs.push_back(d.hi);
    steps.push_back(d.step);
    ranges.push_back(d.isRange);
  }
  map = AffineMap::get(numOperands, 0, exprs, ctx);
}
