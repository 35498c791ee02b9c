//===- IndexUtils.h - Index expressions, ranges and subsets -----*- C++ -*-===//
//
// Helpers over the affine index expressions of the sdfg dialect, shared by
// the verifiers, the lowering and (later) the AD and checkpointing passes.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_INDEXUTILS_H
#define SDFG_DIALECT_SDFG_INDEXUTILS_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <optional>

namespace mlir {
namespace sdfg {

/// The bound on every size the dialect represents: bounds, steps and trip
/// counts of loops and maps, extents, and the bytes of a container. Below it,
/// sums and differences of two such values, the byte offsets of elements
/// and the lowering's index arithmetic stay within 64 bits; what is beyond
/// it is a located diagnostic when compiling, never a wrapped value.
inline constexpr int64_t kMaxRepresentable = int64_t(1) << 62;

/// Number of iterations of `for (i = lb; step > 0 ? i < ub : i > ub;
/// i += step)`, i.e. Python's `len(range(lb, ub, step))`. `step` != 0.
/// Exact for any int64 operands (computed in 128 bits); a count past
/// INT64_MAX saturates there.
int64_t tripCount(int64_t lb, int64_t ub, int64_t step);

/// The last value the iterator takes, `lb + (tripCount - 1) * step`; only
/// meaningful when the trip count is positive. Reversed loops start here
/// (not at `ub - 1`, which is wrong for |step| > 1).
int64_t lastIteration(int64_t lb, int64_t ub, int64_t step);

/// Bytes of one element of a container (index counts as 8, i1 as 1).
int64_t elementBytes(Type elementType);

/// Bytes of a container of `shape` (static extents) and `elementType`, or
/// std::nullopt when the shape has a dynamic or negative extent or the
/// size exceeds kMaxRepresentable (overflow-checked, never wraps).
std::optional<int64_t> checkedByteSize(ArrayRef<int64_t> shape,
                                       Type elementType);
inline std::optional<int64_t> checkedByteSize(MemRefType type) {
  return checkedByteSize(type.getShape(), type.getElementType());
}

/// Fails, with a located error on `op` naming `what`, when `type` has a
/// static size past kMaxRepresentable bytes (its dynamic extents are
/// checked when it is allocated, at run time).
LogicalResult verifyRepresentableSize(Operation *op, MemRefType type,
                                      const llvm::Twine &what);

/// Evaluates `expr` with the given dimension values; std::nullopt when a
/// dimension it uses is unknown, or on division by zero.
std::optional<int64_t> evaluate(AffineExpr expr,
                                ArrayRef<std::optional<int64_t>> dims);

/// Emits arith ops on `index` computing `expr` over `operands` (one per
/// dimension of the expression). Handles semi-affine products and
/// floor/ceil division and modulo with Python semantics.
Value expandIndexExpr(OpBuilder &b, Location loc, AffineExpr expr,
                      ValueRange operands);

/// One dimension of a subset: an element (`lo`) or a range `lo : hi : step`
/// with exclusive `hi`.
struct SubsetDim {
  AffineExpr lo;
  AffineExpr hi;
  int64_t step = 1;
  bool isRange = false;
};

/// A subset of a container as stored on sdfg.copy: a map with two results
/// per dimension (lo, hi), the steps, and which dimensions are ranges.
class Subset {
public:
  Subset() = default;
  Subset(AffineMap map, ArrayRef<int64_t> steps, ArrayRef<bool> ranges);
  explicit Subset(SmallVector<SubsetDim> dims) : dims(std::move(dims)) {}

  unsigned getRank() const { return dims.size(); }
  const SubsetDim &operator[](unsigned i) const { return dims[i]; }
  ArrayRef<SubsetDim> getDims() const { return dims; }

  /// Dimensions that survive (ranges), in order.
  SmallVector<unsigned> getRangeDims() const;

  /// Extent of range dimension `i` (ceil((hi - lo) / step), at least 0) as
  /// an affine expression.
  AffineExpr getExtent(unsigned i) const;

  /// Extents of the range dimensions when they are constants.
  SmallVector<std::optional<int64_t>> getConstantShape() const;

  /// Encodes back into the attribute form of sdfg.copy.
  void toAttributes(MLIRContext *ctx, unsigned numOperands, AffineMap &map,
                    SmallVectorImpl<int64_t> &steps,
                    SmallVectorImpl<bool> &ranges) const;

private:
  SmallVector<SubsetDim> dims;
};

} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_INDEXUTILS_H
