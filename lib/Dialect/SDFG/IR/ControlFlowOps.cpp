//===- ControlFlowOps.cpp - sdfg.sdfg, state, loop, if, while -------------===//
//
// Custom assembly and verifiers of the program and its control flow, and
// their LoopLikeOpInterface.
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
// SDFGOp
//===----------------------------------------------------------------------===//

ParseResult SDFGOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &b, ArrayRef<Type> args, ArrayRef<Type> results,
                      function_interface_impl::VariadicFlag, std::string &) {
    return b.getFunctionType(args, results);
  };
  if (function_interface_impl::parseFunctionOp(
          parser, result, /*allowVariadic=*/false,
          getFunctionTypeAttrName(result.name), buildType,
          getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name)))
    return failure();
  // An empty body `{}` parses to a region without blocks; give it its entry
  // block so that the op is well formed.
  Region &body = *result.regions.front();
  if (body.empty()) {
    auto fnType = cast<FunctionType>(
        cast<TypeAttr>(
            result.attributes.get(getFunctionTypeAttrName(result.name)))
            .getValue());
    Block *block = new Block();
    for (Type t : fnType.getInputs())
      block->addArgument(t, result.location);
    body.push_back(block);
  }
  return success();
}

void SDFGOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(
      p, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

void SDFGOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setNameFn) {
  // Print arguments under their source names (%A, %N) when they have one.
  for (unsigned i = 0, e = getNumArguments(); i < e; ++i)
    if (auto name = getArgAttrOfType<StringAttr>(i, "sdfg.name"))
      setNameFn(getArgument(i), name.getValue());
}

std::string SDFGOp::getArgName(unsigned i) {
  if (auto name = getArgAttrOfType<StringAttr>(i, "sdfg.name"))
    return name.str();
  return "arg" + std::to_string(i);
}

BlockArgument SDFGOp::lookupArg(StringRef name) {
  for (unsigned i = 0, e = getNumArguments(); i < e; ++i)
    if (getArgName(i) == name)
      return getArgument(i);
  return {};
}

LogicalResult SDFGOp::verify() {
  if (!getResultTypes().empty())
    return emitOpError("must not have results; outputs are written into "
                       "container arguments");
  llvm::StringSet<> names;
  for (auto [i, t] : llvm::enumerate(getArgumentTypes())) {
    if (auto m = dyn_cast<MemRefType>(t)) {
      if (!m.getLayout().isIdentity())
        return emitOpError() << "argument " << i
                             << " must have the identity (row-major) layout";
      if (!isScalarType(m.getElementType()))
        return emitOpError()
               << "argument " << i << " has unsupported element type "
               << m.getElementType();
      if (failed(
              verifyRepresentableSize(*this, m, "argument " + llvm::Twine(i))))
        return failure();
    } else if (!isScalarType(t)) {
      return emitOpError() << "argument " << i << " has type " << t
                           << "; expected a memref, a scalar or index";
    }
    if (!names.insert(getArgName(i)).second)
      return emitOpError() << "duplicate argument name '" << getArgName(i)
                           << "'";
  }
  if (auto out = getAdOutput()) {
    BlockArgument arg = lookupArg(*out);
    if (!arg)
      return emitOpError() << "ad_output names unknown argument '" << *out
                           << "'";
    auto m = dyn_cast<MemRefType>(arg.getType());
    if (!m || !isa<FloatType>(m.getElementType()))
      return emitOpError() << "ad_output '" << *out
                           << "' must be a float container";
  }
  if (auto wrt = getAdWrt()) {
    for (Attribute a : *wrt) {
      StringRef n = cast<StringAttr>(a).getValue();
      BlockArgument arg = lookupArg(n);
      if (!arg)
        return emitOpError() << "ad_wrt names unknown argument '" << n << "'";
      Type t = arg.getType();
      if (auto m = dyn_cast<MemRefType>(t))
        t = m.getElementType();
      if (!isa<FloatType>(t))
        return emitOpError()
               << "ad_wrt argument '" << n << "' is not of float type";
    }
  }
  return success();
}

LogicalResult SDFGOp::verifyRegions() {
  return verifyRegionContents(*this, getBody(), ContentKind::TopControl);
}

//===----------------------------------------------------------------------===//
// StateOp
//===----------------------------------------------------------------------===//

void StateOp::build(OpBuilder &b, OperationState &state, StringRef label) {
  if (!label.empty())
    state.addAttribute(getLabelAttrName(state.name), b.getStringAttr(label));
  Region *r = state.addRegion();
  r->push_back(new Block());
}

LogicalResult StateOp::verify() {
  if (getBody().getNumArguments() != 0)
    return emitOpError("body must not have arguments");
  return success();
}

LogicalResult StateOp::verifyRegions() {
  return verifyRegionContents(*this, getBody(), ContentKind::State);
}

//===----------------------------------------------------------------------===//
// LoopOp
//===----------------------------------------------------------------------===//

ParseResult LoopOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  IndexExprParser exprs(parser);
  AffineExpr lb, ub;
  int64_t step;
  SMLoc stepLoc;
  if (parser.parseArgument(iv) || parser.parseEqual() || exprs.parseExpr(lb) ||
      parser.parseKeyword("to") || exprs.parseExpr(ub) ||
      parser.parseKeyword("step") ||
      (stepLoc = parser.getCurrentLocation(), parser.parseInteger(step)))
    return failure();
  Builder &b = parser.getBuilder();
  result.addAttribute("bounds", AffineMapAttr::get(exprs.makeMap({lb, ub})));
  result.addAttribute("step", b.getI64IntegerAttr(step));
  if (exprs.resolve(result) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  iv.type = b.getIndexType();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  return success();
}

void LoopOp::print(OpAsmPrinter &p) {
  p << ' ' << getIterator() << " = ";
  printExpr(p, getLowerExpr(), getBoundOperands());
  p << " to ";
  printExpr(p, getUpperExpr(), getBoundOperands());
  p << " step " << getStepValue();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {"bounds", "step"});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

/// Trip counts, the reversed loop (step -s, from the last iterate) and the
/// lowering's index arithmetic are computed in 64 bits: constant bounds and
/// steps of loops and maps stay below kMaxRepresentable in magnitude.
LogicalResult
mlir::sdfg::detail::verifyRepresentableBounds(Operation *op, int64_t step,
                                              ArrayRef<AffineExpr> bounds) {
  auto tooLarge = [](int64_t v) {
    return v <= -kMaxRepresentable || v >= kMaxRepresentable;
  };
  if (tooLarge(step))
    return op->emitOpError()
           << "step " << step << " out of range (|step| must be below 2^62)";
  for (AffineExpr bound : bounds)
    if (auto c = dyn_cast<AffineConstantExpr>(bound);
        c && tooLarge(c.getValue()))
      return op->emitOpError() << "bound " << c.getValue()
                               << " out of range (must be below 2^62 in "
                                  "magnitude)";
  return success();
}

LogicalResult LoopOp::verify() {
  if (failed(verifyIndexMap(*this, getBounds(), getBoundOperands().size(), 2,
                            "bounds")))
    return failure();
  if (getStepValue() == 0)
    return emitOpError("step must not be zero");
  if (failed(verifyRepresentableBounds(*this, getStepValue(),
                                       getBounds().getResults())))
    return failure();
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("body must have one index argument (the iterator)");
  return success();
}

LogicalResult LoopOp::verifyRegions() {
  return verifyRegionContents(*this, getBody(), ContentKind::Control);
}

//===----------------------------------------------------------------------===//
// IfOp
//===----------------------------------------------------------------------===//

ParseResult IfOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> conds;
  auto parseBranch = [&]() -> ParseResult {
    Region *r = result.addRegion();
    if (parser.parseRegion(*r))
      return failure();
    if (r->empty())
      r->push_back(new Block());
    return success();
  };
  if (parser.parseOperand(conds.emplace_back()) || parseBranch())
    return failure();
  while (succeeded(parser.parseOptionalKeyword("elif")))
    if (parser.parseOperand(conds.emplace_back()) || parseBranch())
      return failure();
  if (succeeded(parser.parseOptionalKeyword("else")) && parseBranch())
    return failure();
  if (parser.resolveOperands(conds, parser.getBuilder().getI1Type(),
                             result.operands) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return success();
}

void IfOp::print(OpAsmPrinter &p) {
  for (auto [i, region] : llvm::enumerate(getBranches())) {
    if (i < getConditions().size())
      p << (i == 0 ? " " : " elif ") << getConditions()[i] << ' ';
    else
      p << " else ";
    p.printRegion(region);
  }
  p.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult IfOp::verify() {
  size_t nc = getConditions().size(), nb = getBranches().size();
  if (nc == 0)
    return emitOpError("needs at least one condition");
  if (nb != nc && nb != nc + 1)
    return emitOpError() << "has " << nc << " conditions and " << nb
                         << " branches; expected one branch per condition "
                            "and at most one else branch";
  for (Region &r : getBranches())
    if (r.front().getNumArguments() != 0)
      return emitOpError("branches must not have arguments");
  return success();
}

LogicalResult IfOp::verifyRegions() {
  for (Region &r : getBranches())
    if (failed(verifyRegionContents(*this, r, ContentKind::Control)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// WhileOp
//===----------------------------------------------------------------------===//

ParseResult WhileOp::parse(OpAsmParser &parser, OperationState &result) {
  // `{}` parses to a region without blocks; both regions need their block.
  auto parseBody = [&](Region *r) -> ParseResult {
    if (parser.parseRegion(*r))
      return failure();
    if (r->empty())
      r->push_back(new Block());
    return success();
  };
  if (parseBody(result.addRegion()) || parser.parseKeyword("do") ||
      parseBody(result.addRegion()) ||
      parser.parseOptionalAttrDict(result.attributes))
    return failure();
  return success();
}

void WhileOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printRegion(getCond());
  p << " do ";
  p.printRegion(getBody());
  p.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult WhileOp::verifyRegions() {
  Block &cond = getCond().front();
  if (cond.getNumArguments() != 0 || getBody().front().getNumArguments() != 0)
    return emitOpError("regions must not have arguments");
  if (cond.empty() || !isa<ConditionOp>(cond.back()))
    return emitOpError("condition region must end with sdfg.condition");
  for (Operation &op : cond) {
    if (isa<LoadOp, TaskletOp>(op) || &op == &cond.back())
      continue;
    return op.emitOpError("is not allowed in the condition of 'sdfg.while', "
                          "which may hold only sdfg.load, sdfg.tasklet and "
                          "a final sdfg.condition");
  }
  return verifyRegionContents(*this, getBody(), ContentKind::Control);
}

//===----------------------------------------------------------------------===//
// LoopLikeOpInterface
//===----------------------------------------------------------------------===//

// Loops, maps and while loops are loops to upstream's utilities (their
// bodies repeat; a loop's iterator and a map's parameters are its induction
// variables). None carries SSA values across iterations: containers do.

SmallVector<Region *> LoopOp::getLoopRegions() { return {&getBody()}; }
std::optional<SmallVector<Value>> LoopOp::getLoopInductionVars() {
  return SmallVector<Value>{getIterator()};
}

SmallVector<Region *> MapOp::getLoopRegions() { return {&getBody()}; }
std::optional<SmallVector<Value>> MapOp::getLoopInductionVars() {
  return SmallVector<Value>(getParams().begin(), getParams().end());
}

SmallVector<Region *> WhileOp::getLoopRegions() {
  return {&getCond(), &getBody()};
}
