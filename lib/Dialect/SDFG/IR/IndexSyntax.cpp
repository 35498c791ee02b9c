//===- IndexSyntax.cpp - Custom assembly of index expressions -------------===//
//
// Printing and parsing of affine index expressions over SSA values,
// subsets and write-conflict resolutions, for the ops' custom assembly.
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
// Shared parsing and printing of index expressions
//===----------------------------------------------------------------------===//

void mlir::sdfg::detail::printExpr(OpAsmPrinter &p, AffineExpr e,
                                   ValueRange operands) {
  p.printAffineExprOfSSAIds(e, operands, /*symOperands=*/{});
}

void mlir::sdfg::detail::printExprList(OpAsmPrinter &p,
                                       ArrayRef<AffineExpr> exprs,
                                       ValueRange operands, StringRef open,
                                       StringRef close) {
  p << open;
  llvm::interleaveComma(exprs, p,
                        [&](AffineExpr e) { printExpr(p, e, operands); });
  p << close;
}

void mlir::sdfg::detail::printSubset(OpAsmPrinter &p, const Subset &subset,
                                     ValueRange operands) {
  p << '[';
  llvm::interleaveComma(subset.getDims(), p, [&](const SubsetDim &d) {
    printExpr(p, d.lo, operands);
    if (!d.isRange)
      return;
    p << " : ";
    printExpr(p, d.hi, operands);
    if (d.step != 1)
      p << " : " << d.step;
  });
  p << ']';
}

ParseResult mlir::sdfg::detail::parseOptionalWCR(OpAsmParser &parser,
                                                 OperationState &state) {
  if (failed(parser.parseOptionalKeyword("wcr")))
    return success();
  StringRef kind;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLParen() || parser.parseKeyword(&kind) ||
      parser.parseRParen())
    return failure();
  std::optional<WCRKind> wcr = symbolizeWCRKind(kind);
  if (!wcr)
    return parser.emitError(loc, "unknown wcr kind '")
           << kind << "'; expected add, mul, min or max";
  state.addAttribute("wcr", WCRKindAttr::get(parser.getContext(), *wcr));
  return success();
}

void mlir::sdfg::detail::printOptionalWCR(OpAsmPrinter &p,
                                          std::optional<WCRKind> wcr) {
  if (wcr)
    p << " wcr(" << stringifyWCRKind(*wcr) << ")";
}
