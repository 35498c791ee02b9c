//===- IndexMapChecks.cpp - Verification of index maps --------------------===//
//
// What every op that indexes a container checks: index maps over its
// operands, constant indices in bounds, element types and WCR kinds.
//
//===----------------------------------------------------------------------===//

#include "OpHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

//===----------------------------------------------------------------------===//
// Shared verification of index maps
//===----------------------------------------------------------------------===//

/// Element type check shared by containers and scalar arguments.
bool mlir::sdfg::detail::isScalarType(Type t) {
  return isa<Float32Type, Float64Type, IndexType>(t) || t.isSignlessInteger();
}

/// WCR combines with arithmetic on the element, atomically in parallel maps.
LogicalResult mlir::sdfg::detail::verifyWCRType(Operation *op,
                                                std::optional<WCRKind> wcr,
                                                Type elt) {
  if (wcr && (elt.isIndex() || elt.isInteger(1)))
    return op->emitOpError() << "wcr needs a float or integer (not i1 or "
                                "index) element type, got "
                             << elt;
  return success();
}

LogicalResult mlir::sdfg::detail::verifyIndexMap(Operation *op, AffineMap map,
                                                 unsigned numOperands,
                                                 unsigned numResults,
                                                 StringRef what) {
  if (map.getNumSymbols() != 0 || map.getNumDims() != numOperands)
    return op->emitOpError()
           << what << " map has " << map.getNumDims() << " dimensions and "
           << map.getNumSymbols() << " symbols, expected " << numOperands
           << " dimensions (one per index operand)";
  if (map.getNumResults() != numResults)
    return op->emitOpError() << what << " has " << map.getNumResults()
                             << " expressions, expected " << numResults;
  // floordiv, ceildiv and mod by a positive constant only: that is what
  // lowers to integer arithmetic (affine's own expansion fails on the rest,
  // leaving passes without a value).
  LogicalResult result = success();
  for (AffineExpr e : map.getResults())
    e.walk([&](AffineExpr sub) {
      auto bin = dyn_cast<AffineBinaryOpExpr>(sub);
      if (failed(result) || !bin ||
          !llvm::is_contained({AffineExprKind::FloorDiv,
                               AffineExprKind::CeilDiv, AffineExprKind::Mod},
                              bin.getKind()))
        return;
      auto divisor = dyn_cast<AffineConstantExpr>(bin.getRHS());
      if (!divisor) {
        std::string text;
        llvm::raw_string_ostream os(text);
        bin.getRHS().print(os);
        result = op->emitOpError()
                 << what << " divides by '" << text
                 << "'; only positive constant divisors are supported";
      } else if (divisor.getValue() <= 0)
        result = op->emitOpError()
                 << what << " divides by " << divisor.getValue()
                 << "; only positive constant divisors are supported";
    });
  return result;
}

/// Rejects constant indices outside a static extent.
LogicalResult mlir::sdfg::detail::verifyConstantInBounds(Operation *op,
                                                         MemRefType type,
                                                         unsigned dim,
                                                         AffineExpr expr,
                                                         bool exclusiveUpper) {
  auto cst = dyn_cast<AffineConstantExpr>(expr);
  if (!cst || type.isDynamicDim(dim))
    return success();
  int64_t v = cst.getValue(), extent = type.getDimSize(dim);
  int64_t limit = exclusiveUpper ? extent : extent - 1;
  if (v < 0 || v > limit)
    return op->emitOpError() << "index " << v << " is out of bounds for "
                             << "dimension " << dim << " of extent " << extent;
  return success();
}

LogicalResult mlir::sdfg::detail::verifyElementAccess(Operation *op,
                                                      MemRefType type,
                                                      AffineMap map,
                                                      unsigned numOperands) {
  if (failed(verifyIndexMap(op, map, numOperands, type.getRank(), "subset")))
    return failure();
  for (unsigned d = 0; d < type.getRank(); ++d)
    if (failed(verifyConstantInBounds(op, type, d, map.getResult(d), false)))
      return failure();
  return success();
}
