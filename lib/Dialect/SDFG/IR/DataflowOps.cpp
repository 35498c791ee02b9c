//===- DataflowOps.cpp - Memlets, tasklets, maps --------------------------===//
//
// Custom assembly and verifiers of the ops of dataflow regions: alloc,
// load, store, copy, tasklet, map and broadcast_extent.
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
// AllocOp
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  MemRefType t = getType();
  if (getDynamicSizes().size() != static_cast<size_t>(t.getNumDynamicDims()))
    return emitOpError() << "has " << getDynamicSizes().size()
                         << " dynamic sizes for a type with "
                         << t.getNumDynamicDims() << " dynamic dimensions";
  if (!isScalarType(t.getElementType()))
    return emitOpError() << "unsupported element type " << t.getElementType();
  return verifyRepresentableSize(*this, t, "transient");
}

//===----------------------------------------------------------------------===//
// LoadOp / StoreOp
//===----------------------------------------------------------------------===//

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand memref;
  IndexExprParser exprs(parser);
  SmallVector<AffineExpr> idx;
  MemRefType type;
  if (parser.parseOperand(memref) ||
      exprs.parseExprList(idx, OpAsmParser::Delimiter::Square) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(memref, type, result.operands) ||
      exprs.resolve(result))
    return failure();
  result.addAttribute("map", AffineMapAttr::get(exprs.makeMap(idx)));
  result.addTypes(type.getElementType());
  return success();
}

void LoadOp::print(OpAsmPrinter &p) {
  p << ' ' << getMemref();
  printExprList(p, getMap().getResults(), getIndices(), "[", "]");
  p.printOptionalAttrDict((*this)->getAttrs(), {"map"});
  p << " : " << getMemref().getType();
}

LogicalResult LoadOp::verify() {
  MemRefType t = getMemref().getType();
  if (getResult().getType() != t.getElementType())
    return emitOpError("result type must be the container's element type");
  return verifyElementAccess(*this, t, getMap(), getIndices().size());
}

ParseResult StoreOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand value, memref;
  IndexExprParser exprs(parser);
  SmallVector<AffineExpr> idx;
  MemRefType type;
  if (parser.parseOperand(value) || parser.parseComma() ||
      parser.parseOperand(memref) ||
      exprs.parseExprList(idx, OpAsmParser::Delimiter::Square) ||
      parseOptionalWCR(parser, result) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(value, type.getElementType(), result.operands) ||
      parser.resolveOperand(memref, type, result.operands) ||
      exprs.resolve(result))
    return failure();
  result.addAttribute("map", AffineMapAttr::get(exprs.makeMap(idx)));
  return success();
}

void StoreOp::print(OpAsmPrinter &p) {
  p << ' ' << getValue() << ", " << getMemref();
  printExprList(p, getMap().getResults(), getIndices(), "[", "]");
  printOptionalWCR(p, getWcr());
  p.printOptionalAttrDict((*this)->getAttrs(), {"map", "wcr"});
  p << " : " << getMemref().getType();
}

LogicalResult StoreOp::verify() {
  MemRefType t = getMemref().getType();
  if (getValue().getType() != t.getElementType())
    return emitOpError("value type must be the container's element type");
  if (failed(verifyWCRType(*this, getWcr(), t.getElementType())))
    return failure();
  return verifyElementAccess(*this, t, getMap(), getIndices().size());
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

ParseResult CopyOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand src, dst;
  IndexExprParser exprs(parser);
  SmallVector<SubsetDim> srcDims, dstDims;
  MemRefType srcType, dstType;
  if (parser.parseOperand(src) || exprs.parseSubset(srcDims) ||
      parser.parseKeyword("to") || parser.parseOperand(dst) ||
      exprs.parseSubset(dstDims) || parseOptionalWCR(parser, result) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(srcType) || parser.parseKeyword("to") ||
      parser.parseType(dstType) ||
      parser.resolveOperand(src, srcType, result.operands) ||
      parser.resolveOperand(dst, dstType, result.operands) ||
      exprs.resolve(result))
    return failure();
  MLIRContext *ctx = parser.getContext();
  auto addSubset = [&](const SmallVector<SubsetDim> &dims, StringRef prefix) {
    AffineMap map;
    SmallVector<int64_t> steps;
    SmallVector<bool> ranges;
    Subset(dims).toAttributes(ctx, exprs.getNumOperands(), map, steps, ranges);
    Builder b(ctx);
    result.addAttribute((prefix + "_subset").str(), AffineMapAttr::get(map));
    result.addAttribute((prefix + "_steps").str(),
                        b.getDenseI64ArrayAttr(steps));
    result.addAttribute((prefix + "_ranges").str(),
                        b.getDenseBoolArrayAttr(ranges));
  };
  addSubset(srcDims, "source");
  addSubset(dstDims, "target");
  return success();
}

void CopyOp::print(OpAsmPrinter &p) {
  p << ' ' << getSource();
  printSubset(p, getSourceSubsetInfo(), getIndices());
  p << " to " << getTarget();
  printSubset(p, getTargetSubsetInfo(), getIndices());
  printOptionalWCR(p, getWcr());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {"source_subset", "source_steps", "source_ranges",
                           "target_subset", "target_steps", "target_ranges",
                           "wcr"});
  p << " : " << getSource().getType() << " to " << getTarget().getType();
}

Subset CopyOp::getSourceSubsetInfo() {
  return Subset(getSourceSubset(), getSourceSteps(), getSourceRanges());
}

Subset CopyOp::getTargetSubsetInfo() {
  return Subset(getTargetSubset(), getTargetSteps(), getTargetRanges());
}

static LogicalResult verifySubsetAttrs(Operation *op, MemRefType t,
                                       AffineMap map, ArrayRef<int64_t> steps,
                                       ArrayRef<bool> ranges,
                                       unsigned numOperands, StringRef what) {
  unsigned rank = t.getRank();
  if (failed(verifyIndexMap(op, map, numOperands, 2 * rank, what)))
    return failure();
  if (steps.size() != rank || ranges.size() != rank)
    return op->emitOpError() << what << " needs one step and one range flag "
                             << "per dimension (" << rank << ")";
  for (unsigned d = 0; d < rank; ++d) {
    if (steps[d] <= 0)
      return op->emitOpError() << what << " step must be positive";
    if (failed(verifyConstantInBounds(op, t, d, map.getResult(2 * d),
                                      ranges[d])) ||
        failed(
            verifyConstantInBounds(op, t, d, map.getResult(2 * d + 1), true)))
      return failure();
  }
  return success();
}

LogicalResult CopyOp::verify() {
  MemRefType st = getSource().getType(), tt = getTarget().getType();
  if (st.getElementType() != tt.getElementType())
    return emitOpError("source and target element types differ");
  if (failed(verifyWCRType(*this, getWcr(), tt.getElementType())))
    return failure();
  unsigned n = getIndices().size();
  if (failed(verifySubsetAttrs(*this, st, getSourceSubset(), getSourceSteps(),
                               getSourceRanges(), n, "source subset")) ||
      failed(verifySubsetAttrs(*this, tt, getTargetSubset(), getTargetSteps(),
                               getTargetRanges(), n, "target subset")))
    return failure();
  auto srcShape = getSourceSubsetInfo().getConstantShape();
  auto dstShape = getTargetSubsetInfo().getConstantShape();
  if (srcShape.size() != dstShape.size())
    return emitOpError() << "source subset has " << srcShape.size()
                         << " range dimensions but target subset has "
                         << dstShape.size();
  for (auto [i, s, d] : llvm::enumerate(srcShape, dstShape))
    if (s && d && *s != *d)
      return emitOpError() << "extent " << *s << " of source range dimension "
                           << i << " differs from target extent " << *d;
  return success();
}

//===----------------------------------------------------------------------===//
// TaskletOp
//===----------------------------------------------------------------------===//

LogicalResult TaskletOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size() << " inputs but its "
                         << "body takes " << body.getNumArguments()
                         << " arguments";
  for (auto [i, in, arg] :
       llvm::enumerate(getInputs().getTypes(), body.getArgumentTypes()))
    if (in != arg)
      return emitOpError() << "input " << i << " has type " << in
                           << " but body argument has type " << arg;
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError()
           << "yields " << yield.getValues().size() << " values of types "
           << yield.getValues().getTypes() << " but the tasklet returns "
           << getResultTypes();
  return success();
}

LogicalResult TaskletOp::verifyRegions() {
  for (Operation &op : getBody().getOps()) {
    if (isa<YieldOp>(op) ||
        isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      continue;
    return op.emitOpError("is not allowed in a tasklet, which may hold only "
                          "arith and math operations");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

ParseResult MapOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> params;
  IndexExprParser exprs(parser);
  SmallVector<AffineExpr> lbs, ubs;
  SmallVector<int64_t> steps;
  StringRef schedule;
  SMLoc schedLoc;
  if (parser.parseArgumentList(params, OpAsmParser::Delimiter::Paren) ||
      parser.parseEqual() ||
      exprs.parseExprList(lbs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("to") ||
      exprs.parseExprList(ubs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("step") ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren,
          [&]() { return parser.parseInteger(steps.emplace_back()); }) ||
      parser.parseKeyword("schedule") || parser.parseLParen() ||
      (schedLoc = parser.getCurrentLocation(),
       parser.parseKeyword(&schedule)) ||
      parser.parseRParen())
    return failure();
  std::optional<ScheduleKind> kind = symbolizeScheduleKind(schedule);
  if (!kind)
    return parser.emitError(schedLoc, "unknown schedule '")
           << schedule << "'; expected sequential, cpu_multicore or "
           << "gpu_device";
  Builder &b = parser.getBuilder();
  result.addAttribute("lower_bounds", AffineMapAttr::get(exprs.makeMap(lbs)));
  result.addAttribute("upper_bounds", AffineMapAttr::get(exprs.makeMap(ubs)));
  result.addAttribute("steps", b.getDenseI64ArrayAttr(steps));
  result.addAttribute("schedule",
                      ScheduleKindAttr::get(parser.getContext(), *kind));
  if (exprs.resolve(result) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (auto &p : params)
    p.type = b.getIndexType();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, params);
}

void MapOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getParams(), p,
                        [&](BlockArgument a) { p.printOperand(a); });
  p << ") = ";
  printExprList(p, getLowerBounds().getResults(), getRangeOperands(), "(", ")");
  p << " to ";
  printExprList(p, getUpperBounds().getResults(), getRangeOperands(), "(", ")");
  p << " step (";
  llvm::interleaveComma(getSteps(), p);
  p << ") schedule(" << stringifyScheduleKind(getSchedule()) << ")";
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {"lower_bounds", "upper_bounds", "steps", "schedule"});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult MapOp::verify() {
  unsigned n = getBody().getNumArguments();
  if (n == 0)
    return emitOpError("needs at least one parameter");
  for (BlockArgument a : getParams())
    if (!a.getType().isIndex())
      return emitOpError("parameters must be of index type");
  unsigned nops = getRangeOperands().size();
  if (failed(
          verifyIndexMap(*this, getLowerBounds(), nops, n, "lower bounds")) ||
      failed(verifyIndexMap(*this, getUpperBounds(), nops, n, "upper bounds")))
    return failure();
  if (getSteps().size() != n)
    return emitOpError() << "has " << n << " parameters but "
                         << getSteps().size() << " steps";
  for (int64_t s : getSteps()) {
    if (s <= 0)
      return emitOpError("steps must be positive");
    if (failed(verifyRepresentableBounds(*this, s, {})))
      return failure();
  }
  if (failed(
          verifyRepresentableBounds(*this, 1, getLowerBounds().getResults())) ||
      failed(
          verifyRepresentableBounds(*this, 1, getUpperBounds().getResults())))
    return failure();
  return success();
}

LogicalResult MapOp::verifyRegions() {
  return verifyRegionContents(*this, getBody(), ContentKind::Map);
}

//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// BroadcastExtentOp
//===----------------------------------------------------------------------===//

OpFoldResult BroadcastExtentOp::fold(FoldAdaptor adaptor) {
  // Only to one of the operands: pairs that broadcast whatever their
  // values (equal extents; a length-1 source). A mismatch of constants
  // stays, so that the program still reports it when it runs.
  auto isOne = [](Attribute a) {
    auto i = dyn_cast_or_null<IntegerAttr>(a);
    return i && i.getValue().isOne();
  };
  // Constants reach sdfg code as tasklets that yield them.
  Attribute l = adaptor.getLhs(), r = adaptor.getRhs();
  if (!l)
    l = getTaskletConstant(getLhs());
  if (!r)
    r = getTaskletConstant(getRhs());
  if (getLhs() == getRhs() || (l && l == r))
    return getRhs();
  if (isOne(l))
    return getRhs();
  if (getKind() == BroadcastKind::operands && isOne(r))
    return getLhs();
  return {};
}

//===----------------------------------------------------------------------===//
// print
//===----------------------------------------------------------------------===//

LogicalResult PrintOp::verify() {
  if (getSiteAttr().getInt() < 0)
    return emitOpError("site must be non-negative");
  for (Value v : getValues())
    if (!cast<MemRefType>(v.getType()).hasStaticShape())
      return emitOpError("values must have static shapes");
  return success();
}

//===----------------------------------------------------------------------===//
// dim
//===----------------------------------------------------------------------===//

LogicalResult DimOp::verify() {
  int64_t rank = getContainer().getType().getRank();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for a container "
                                << "of rank " << rank;
  return success();
}
