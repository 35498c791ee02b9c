//===- OpHelpers.h - Shared by the op definition files ----------*- C++ -*-===//
//
// Private to lib/Dialect/SDFG/IR: the custom assembly of index expressions
// (IndexSyntax.cpp), the region content rules (RegionRules.cpp) and the
// verification of index maps (IndexMapChecks.cpp) that the files defining
// the ops (ControlFlowOps.cpp, DataflowOps.cpp, LibraryOps.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_LIB_DIALECT_SDFG_IR_OPHELPERS_H
#define SDFG_LIB_DIALECT_SDFG_IR_OPHELPERS_H

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/IR/OpImplementation.h"

namespace mlir {
namespace sdfg {
namespace detail {

/// Parses affine expressions over SSA index values one at a time and numbers
/// the values it meets across all of them, so that one operand list serves
/// every expression of an op (dimension k of every expression is operand k).
class IndexExprParser {
public:
  explicit IndexExprParser(OpAsmParser &parser) : parser(parser) {}

  ParseResult parseExpr(AffineExpr &expr) {
    SmallVector<OpAsmParser::UnresolvedOperand> dims, syms;
    if (parser.parseAffineExprOfSSAIds(dims, syms, expr))
      return failure();
    MLIRContext *ctx = parser.getContext();
    SmallVector<AffineExpr> dimRepl, symRepl;
    for (auto &d : dims)
      dimRepl.push_back(getAffineDimExpr(lookup(d), ctx));
    for (auto &s : syms)
      symRepl.push_back(getAffineDimExpr(lookup(s), ctx));
    expr = expr.replaceDimsAndSymbols(dimRepl, symRepl);
    return success();
  }

  /// Parses `(e, e, ...)` or `[e, ...]`.
  ParseResult parseExprList(SmallVectorImpl<AffineExpr> &exprs,
                            OpAsmParser::Delimiter delim) {
    return parser.parseCommaSeparatedList(
        delim, [&]() { return parseExpr(exprs.emplace_back()); });
  }

  /// Parses `[d, d, ...]` where each `d` is `e`, `e : e` or `e : e : step`.
  ParseResult parseSubset(SmallVectorImpl<SubsetDim> &dims) {
    return parser.parseCommaSeparatedList(
        OpAsmParser::Delimiter::Square, [&]() -> ParseResult {
          SubsetDim d;
          if (parseExpr(d.lo))
            return failure();
          if (succeeded(parser.parseOptionalColon())) {
            d.isRange = true;
            if (parseExpr(d.hi))
              return failure();
            if (succeeded(parser.parseOptionalColon()) &&
                parser.parseInteger(d.step))
              return failure();
          } else {
            d.hi = d.lo + 1;
          }
          dims.push_back(d);
          return success();
        });
  }

  unsigned getNumOperands() const { return operands.size(); }

  ParseResult resolve(OperationState &state) {
    Type indexTy = parser.getBuilder().getIndexType();
    return parser.resolveOperands(operands, indexTy, state.operands);
  }

  AffineMap makeMap(ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(operands.size(), 0, exprs, parser.getContext());
  }

private:
  unsigned lookup(const OpAsmParser::UnresolvedOperand &o) {
    for (auto [i, e] : llvm::enumerate(operands))
      if (e.name == o.name && e.number == o.number)
        return i;
    operands.push_back(o);
    return operands.size() - 1;
  }

  OpAsmParser &parser;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
};

/// Which ops a region may hold (RegionRules.cpp).
enum class ContentKind { Control, TopControl, State, Map };

void printExpr(OpAsmPrinter &p, AffineExpr e, ValueRange operands);

void printExprList(OpAsmPrinter &p, ArrayRef<AffineExpr> exprs,
                   ValueRange operands, StringRef open, StringRef close);

void printSubset(OpAsmPrinter &p, const Subset &subset, ValueRange operands);

ParseResult parseOptionalWCR(OpAsmParser &parser, OperationState &state);

void printOptionalWCR(OpAsmPrinter &p, std::optional<WCRKind> wcr);

LogicalResult verifyRegionContents(Operation *owner, Region &region,
                                   ContentKind kind);

/// Element type check shared by containers and scalar arguments.
bool isScalarType(Type t);

/// WCR combines with arithmetic on the element, atomically in parallel maps.
LogicalResult verifyWCRType(Operation *op, std::optional<WCRKind> wcr,
                            Type elt);

LogicalResult verifyIndexMap(Operation *op, AffineMap map, unsigned numOperands,
                             unsigned numResults, StringRef what);

/// Rejects constant indices outside a static extent.
LogicalResult verifyConstantInBounds(Operation *op, MemRefType type,
                                     unsigned dim, AffineExpr expr,
                                     bool exclusiveUpper);

LogicalResult verifyElementAccess(Operation *op, MemRefType type, AffineMap map,
                                  unsigned numOperands);

/// Trip counts, the reversed loop (step -s, from the last iterate) and the
/// lowering's index arithmetic are computed in 64 bits: constant bounds and
/// steps of loops and maps stay below kMaxRepresentable in magnitude.
LogicalResult verifyRepresentableBounds(Operation *op, int64_t step,
                                        ArrayRef<AffineExpr> bounds);

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // SDFG_LIB_DIALECT_SDFG_IR_OPHELPERS_H
