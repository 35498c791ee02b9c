//===- SDFGOps.cpp - sdfg dialect operations ------------------------------===//
//
// Custom assembly and verifiers of the sdfg ops.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

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

#include "sdfg/Dialect/SDFG/IR/SDFGEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared parsing and printing of index expressions
//===----------------------------------------------------------------------===//

namespace {
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
} // namespace

static void printExpr(OpAsmPrinter &p, AffineExpr e, ValueRange operands) {
  p.printAffineExprOfSSAIds(e, operands, /*symOperands=*/{});
}

static void printExprList(OpAsmPrinter &p, ArrayRef<AffineExpr> exprs,
                          ValueRange operands, StringRef open,
                          StringRef close) {
  p << open;
  llvm::interleaveComma(exprs, p,
                        [&](AffineExpr e) { printExpr(p, e, operands); });
  p << close;
}

static void printSubset(OpAsmPrinter &p, const Subset &subset,
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

static ParseResult parseOptionalWCR(OpAsmParser &parser,
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

static void printOptionalWCR(OpAsmPrinter &p, std::optional<WCRKind> wcr) {
  if (wcr)
    p << " wcr(" << stringifyWCRKind(*wcr) << ")";
}

//===----------------------------------------------------------------------===//
// Region content rules
//===----------------------------------------------------------------------===//

namespace {
enum class ContentKind { Control, TopControl, State, Map };
} // namespace

/// Whether `name` is one of `Ops` (the region rules are decided on names,
/// so that dataflowOnlyOps can list the registered ops that follow them).
template <typename... Ops> static bool isOneOf(OperationName name) {
  return ((name.getTypeID() == TypeID::get<Ops>()) || ...);
}

static bool isAllowedIn(OperationName name, ContentKind kind) {
  switch (kind) {
  case ContentKind::TopControl:
    if (isOneOf<AllocOp>(name))
      return true;
    [[fallthrough]];
  case ContentKind::Control:
    return isOneOf<StateOp, LoopOp, IfOp, WhileOp, LoadOp, TaskletOp,
                   BroadcastExtentOp, CheckIndexOp>(name);
  case ContentKind::State:
    if (name.hasInterface<LibraryOpInterface>())
      return true;
    [[fallthrough]];
  case ContentKind::Map:
    return isOneOf<LoadOp, StoreOp, CopyOp, TaskletOp, BroadcastExtentOp,
                   CheckIndexOp, MapOp>(name);
  }
  llvm_unreachable("unknown region kind");
}

SmallVector<StringRef> mlir::sdfg::dataflowOnlyOps(MLIRContext *ctx) {
  SmallVector<StringRef> names;
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (name.getDialectNamespace() == SDFGDialect::getDialectNamespace() &&
        isAllowedIn(name, ContentKind::State) &&
        !isAllowedIn(name, ContentKind::Control))
      names.push_back(name.getStringRef());
  llvm::sort(names); // the registry's order is a hash table's
  return names;
}

static StringRef describe(ContentKind kind) {
  switch (kind) {
  case ContentKind::TopControl:
    return "states, loops, conditionals, transients and interstate scalar "
           "computations (sdfg.load, sdfg.tasklet, sdfg.broadcast_extent, "
           "sdfg.check_index)";
  case ContentKind::Control:
    return "states, loops, conditionals and interstate scalar computations "
           "(sdfg.load, sdfg.tasklet, sdfg.broadcast_extent, "
           "sdfg.check_index); transients belong in the body of "
           "sdfg.sdfg";
  case ContentKind::State:
    return "memlets, tasklets, index checks, maps and library ops";
  case ContentKind::Map:
    return "memlets, tasklets, index checks and nested maps";
  }
  llvm_unreachable("unknown region kind");
}

static LogicalResult verifyRegionContents(Operation *owner, Region &region,
                                          ContentKind kind) {
  for (Operation &op : region.getOps()) {
    if (isAllowedIn(op.getName(), kind))
      continue;
    return op.emitOpError("is not allowed in the body of '")
           << owner->getName() << "', which may hold only " << describe(kind);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Shared verification of index maps
//===----------------------------------------------------------------------===//

/// Element type check shared by containers and scalar arguments.
static bool isScalarType(Type t) {
  return isa<Float32Type, Float64Type, IndexType>(t) || t.isSignlessInteger();
}

/// WCR combines with arithmetic on the element, atomically in parallel maps.
static LogicalResult verifyWCRType(Operation *op, std::optional<WCRKind> wcr,
                                   Type elt) {
  if (wcr && (elt.isIndex() || elt.isInteger(1)))
    return op->emitOpError() << "wcr needs a float or integer (not i1 or "
                                "index) element type, got "
                             << elt;
  return success();
}

static LogicalResult verifyIndexMap(Operation *op, AffineMap map,
                                    unsigned numOperands, unsigned numResults,
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
static LogicalResult verifyConstantInBounds(Operation *op, MemRefType type,
                                            unsigned dim, AffineExpr expr,
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

static LogicalResult verifyElementAccess(Operation *op, MemRefType type,
                                         AffineMap map, unsigned numOperands) {
  if (failed(verifyIndexMap(op, map, numOperands, type.getRank(), "subset")))
    return failure();
  for (unsigned d = 0; d < type.getRank(); ++d)
    if (failed(verifyConstantInBounds(op, type, d, map.getResult(d), false)))
      return failure();
  return success();
}

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
static LogicalResult verifyRepresentableBounds(Operation *op, int64_t step,
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
// Library ops
//===----------------------------------------------------------------------===//

/// Checks that every container has the given ranks and a common float type.
static LogicalResult verifyFloatOperands(Operation *op,
                                         ArrayRef<MemRefType> types,
                                         ArrayRef<int64_t> ranks) {
  Type elt = types.front().getElementType();
  if (!isa<Float32Type, Float64Type>(elt))
    return op->emitOpError() << "supports f32 and f64 containers, not " << elt;
  for (auto [i, t, r] : llvm::enumerate(types, ranks)) {
    if (t.getElementType() != elt)
      return op->emitOpError("operands must have the same element type");
    if (t.getRank() != r)
      return op->emitOpError() << "operand " << i << " must have rank " << r
                               << ", got " << t.getRank();
  }
  return success();
}

/// Static extents must agree; dynamic ones are checked by the caller's
/// program logic.
static LogicalResult expectSameExtent(Operation *op, int64_t a, int64_t b,
                                      StringRef what) {
  if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
    return op->emitOpError() << what << " mismatch: " << a << " vs " << b;
  return success();
}

LogicalResult MatmulOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), c = getC().getType();
  MemRefType types[] = {a, b, c};
  for (auto [i, t] : llvm::enumerate(types))
    if (t.getRank() != 2 && t.getRank() != 3)
      return emitOpError() << "operand " << i << " must have rank 2 or 3, got "
                           << t.getRank();
  if (failed(verifyFloatOperands(*this, {a, b, c},
                                 {a.getRank(), b.getRank(), c.getRank()})))
    return failure();
  if (getC() == getA() || getC() == getB())
    return emitOpError("output must not alias an input");
  // Rank 3 operands share the leading (batch) extent; a rank 2 operand is
  // the same matrix for every batch entry, a rank 2 output their sum.
  if (a.getRank() == 2 && b.getRank() == 2 && c.getRank() == 3)
    return emitOpError("a batched output needs a batched input");
  int64_t batch = ShapedType::kDynamic;
  for (MemRefType t : types) {
    if (t.getRank() != 3)
      continue;
    if (failed(expectSameExtent(*this, batch, t.getDimSize(0), "batch extent")))
      return failure();
    if (!ShapedType::isDynamic(t.getDimSize(0)))
      batch = t.getDimSize(0);
  }
  unsigned ra = a.getRank() - 2, rb = b.getRank() - 2, rc = c.getRank() - 2;
  int64_t m = a.getDimSize(ra + (getTransposeA() ? 1 : 0));
  int64_t k1 = a.getDimSize(ra + (getTransposeA() ? 0 : 1));
  int64_t k2 = b.getDimSize(rb + (getTransposeB() ? 1 : 0));
  int64_t n = b.getDimSize(rb + (getTransposeB() ? 0 : 1));
  if (failed(expectSameExtent(*this, k1, k2, "inner dimension")) ||
      failed(expectSameExtent(*this, m, c.getDimSize(rc), "row count")) ||
      failed(expectSameExtent(*this, n, c.getDimSize(rc + 1), "column count")))
    return failure();
  return success();
}

LogicalResult GemvOp::verify() {
  MemRefType a = getA().getType(), x = getX().getType(), y = getY().getType();
  if (failed(verifyFloatOperands(*this, {a, x, y}, {2, 1, 1})))
    return failure();
  if (getY() == getX())
    return emitOpError("output must not alias an input");
  int64_t rows = a.getDimSize(getTranspose() ? 1 : 0);
  int64_t cols = a.getDimSize(getTranspose() ? 0 : 1);
  if (failed(expectSameExtent(*this, cols, x.getDimSize(0), "input length")) ||
      failed(expectSameExtent(*this, rows, y.getDimSize(0), "output length")))
    return failure();
  return success();
}

LogicalResult GerOp::verify() {
  MemRefType x = getX().getType(), y = getY().getType(), a = getA().getType();
  if (failed(verifyFloatOperands(*this, {x, y, a}, {1, 1, 2})))
    return failure();
  if (failed(expectSameExtent(*this, a.getDimSize(0), x.getDimSize(0),
                              "row count")) ||
      failed(expectSameExtent(*this, a.getDimSize(1), y.getDimSize(0),
                              "column count")))
    return failure();
  return success();
}

LogicalResult DotOp::verify() {
  MemRefType x = getX().getType(), y = getY().getType(),
             r = getResult().getType();
  if (failed(verifyFloatOperands(*this, {x, y, r}, {1, 1, 0})))
    return failure();
  return expectSameExtent(*this, x.getDimSize(0), y.getDimSize(0),
                          "vector length");
}

LogicalResult TransposeOp::verify() {
  MemRefType in = getInput().getType(), out = getOutput().getType();
  if (failed(verifyFloatOperands(*this, {in, out}, {2, 2})))
    return failure();
  if (getInput() == getOutput())
    return emitOpError("output must not alias the input");
  if (failed(expectSameExtent(*this, in.getDimSize(0), out.getDimSize(1),
                              "extent")) ||
      failed(expectSameExtent(*this, in.getDimSize(1), out.getDimSize(0),
                              "extent")))
    return failure();
  return success();
}

LogicalResult SolveOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), x = getX().getType();
  int64_t rhsRank = b.getRank();
  if (rhsRank != 1 && rhsRank != 2)
    return emitOpError() << "right-hand side must have rank 1 or 2, got "
                         << rhsRank;
  if (failed(verifyFloatOperands(*this, {a, b, x}, {2, rhsRank, rhsRank})))
    return failure();
  if (getX() == getA())
    return emitOpError("output must not alias the matrix");
  if (failed(expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                              "square matrix extent")) ||
      failed(expectSameExtent(*this, a.getDimSize(0), b.getDimSize(0),
                              "right-hand side length")))
    return failure();
  for (int64_t d = 0; d < rhsRank; ++d)
    if (failed(expectSameExtent(*this, b.getDimSize(d), x.getDimSize(d),
                                "solution extent")))
      return failure();
  return success();
}

LogicalResult DetOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  if (failed(verifyFloatOperands(*this, {a, r}, {2, 0})))
    return failure();
  return expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                          "square matrix extent");
}

LogicalResult CholeskyOp::verify() {
  MemRefType a = getA().getType(), l = getL().getType();
  if (failed(verifyFloatOperands(*this, {a, l}, {2, 2})))
    return failure();
  if (getA() == getL())
    return emitOpError("output must not alias the input");
  if (failed(expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                              "square matrix extent")))
    return failure();
  for (int64_t d = 0; d < 2; ++d)
    if (failed(expectSameExtent(*this, a.getDimSize(d), l.getDimSize(d),
                                "factor extent")))
      return failure();
  return success();
}

LogicalResult EighOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  bool vectors = getPart() == EighPart::vectors;
  if (failed(verifyFloatOperands(*this, {a, r}, {2, vectors ? 2 : 1})))
    return failure();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  if (failed(expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                              "square matrix extent")))
    return failure();
  for (int64_t d = 0; d < r.getRank(); ++d)
    if (failed(expectSameExtent(*this, a.getDimSize(0), r.getDimSize(d),
                                vectors ? "eigenvector matrix extent"
                                        : "eigenvalue count")))
      return failure();
  return success();
}

/// min(m, n) of two extents, dynamic when either is.
static int64_t smallerExtent(int64_t m, int64_t n) {
  return ShapedType::isDynamic(m) || ShapedType::isDynamic(n)
             ? ShapedType::kDynamic
             : std::min(m, n);
}

LogicalResult QROp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  if (failed(verifyFloatOperands(*this, {a, r}, {2, 2})))
    return failure();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  // Q is m x k, R is k x n, k = min(m, n) (known when both are static).
  int64_t m = a.getDimSize(0), n = a.getDimSize(1);
  int64_t k = smallerExtent(m, n);
  bool q = getPart() == QRPart::q;
  if (failed(expectSameExtent(*this, q ? m : k, r.getDimSize(0),
                              q ? "Q row count" : "R row count")) ||
      failed(expectSameExtent(*this, q ? k : n, r.getDimSize(1),
                              q ? "Q column count" : "R column count")))
    return failure();
  return success();
}

LogicalResult SVDOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  bool values = getPart() == SVDPart::s;
  if (failed(verifyFloatOperands(*this, {a, r}, {2, values ? 1 : 2})))
    return failure();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  // U is m x k, s is k, Vh is k x n, k = min(m, n) (known when static).
  int64_t m = a.getDimSize(0), n = a.getDimSize(1);
  int64_t k = smallerExtent(m, n);
  switch (getPart()) {
  case SVDPart::u:
    if (failed(expectSameExtent(*this, m, r.getDimSize(0), "U row count")) ||
        failed(expectSameExtent(*this, k, r.getDimSize(1), "U column count")))
      return failure();
    break;
  case SVDPart::s:
    if (failed(expectSameExtent(*this, k, r.getDimSize(0),
                                "singular value count")))
      return failure();
    break;
  case SVDPart::vh:
    if (failed(expectSameExtent(*this, k, r.getDimSize(0), "Vh row count")) ||
        failed(expectSameExtent(*this, n, r.getDimSize(1), "Vh column count")))
      return failure();
    break;
  }
  if (!values && getWithVectors())
    return emitOpError("with_vectors applies to the singular values only");
  return success();
}

LogicalResult ArgsortOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  Type elt = a.getElementType();
  if (!isa<FloatType>(elt) && !(elt.isSignlessInteger() && !elt.isInteger(1)))
    return emitOpError() << "sorts floats or integers, not " << elt;
  if (!r.getElementType().isInteger(64))
    return emitOpError() << "result must hold i64 positions, not "
                         << r.getElementType();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  if (a.getRank() == 0)
    return emitOpError("needs an array of rank at least 1");
  if (r.getRank() != a.getRank())
    return emitOpError() << "result rank " << r.getRank()
                         << " differs from the input's " << a.getRank();
  for (int64_t d = 0; d < a.getRank(); ++d)
    if (failed(expectSameExtent(*this, a.getDimSize(d), r.getDimSize(d),
                                "result extent")))
      return failure();
  // Read signed: the attribute's getter is unsigned.
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= a.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << a.getRank();
  return success();
}

LogicalResult SearchsortedOp::verify() {
  MemRefType v = getValues().getType(), a = getSorted().getType(),
             r = getResult().getType();
  Type elt = a.getElementType();
  if (!isa<FloatType>(elt) && !(elt.isSignlessInteger() && !elt.isInteger(1)))
    return emitOpError() << "searches floats or integers, not " << elt;
  if (v.getElementType() != elt)
    return emitOpError() << "values of type " << v.getElementType()
                         << " searched in a vector of " << elt;
  if (a.getRank() != 1)
    return emitOpError() << "the sorted operand must be 1-d, not of rank "
                         << a.getRank();
  if (!r.getElementType().isInteger(64))
    return emitOpError() << "result must hold i64 positions, not "
                         << r.getElementType();
  if (getResult() == getValues() || getResult() == getSorted())
    return emitOpError("output must not alias an input");
  if (r.getRank() != v.getRank())
    return emitOpError() << "result rank " << r.getRank()
                         << " differs from the values' " << v.getRank();
  for (int64_t d = 0; d < v.getRank(); ++d)
    if (failed(expectSameExtent(*this, v.getDimSize(d), r.getDimSize(d),
                                "result extent")))
      return failure();
  return success();
}

LogicalResult ReduceOp::verify() {
  MemRefType in = getInput().getType(), out = getOutput().getType();
  if (getInput() == getOutput())
    return emitOpError("output must not alias the input");
  if (in.getElementType() != out.getElementType())
    return emitOpError("input and output element types differ");
  if (!isScalarType(in.getElementType()) || in.getElementType().isInteger(1))
    return emitOpError() << "unsupported element type " << in.getElementType();
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError("needs at least one axis");
  for (auto [i, a] : llvm::enumerate(axes)) {
    if (a < 0 || a >= in.getRank())
      return emitOpError() << "axis " << a << " is out of range for rank "
                           << in.getRank();
    if (i > 0 && a <= axes[i - 1])
      return emitOpError("axes must be strictly increasing");
  }
  bool keepDims = out.getRank() == in.getRank();
  if (!keepDims &&
      out.getRank() != in.getRank() - static_cast<int64_t>(axes.size()))
    return emitOpError() << "output rank " << out.getRank()
                         << " must be the input rank " << in.getRank()
                         << " without the reduced axes, or equal to it";
  unsigned o = 0;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    bool reduced = llvm::is_contained(axes, d);
    if (reduced && !keepDims)
      continue;
    int64_t expected = reduced ? 1 : in.getDimSize(d);
    if (failed(expectSameExtent(*this, expected, out.getDimSize(o++),
                                "output extent")))
      return failure();
  }
  return success();
}

#define GET_OP_CLASSES
#include "sdfg/Dialect/SDFG/IR/SDFGOps.cpp.inc"

bool mlir::sdfg::writesContainer(Operation *op, Value container) {
  return op
      ->walk([&](Operation *inner) {
        return getWrittenContainer(inner) == container ? WalkResult::interrupt()
                                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

TypedAttr mlir::sdfg::getTaskletConstant(Value v) {
  auto tasklet = v.getDefiningOp<TaskletOp>();
  if (!tasklet || !tasklet.getInputs().empty())
    return {};
  auto yield = cast<YieldOp>(tasklet.getBody().front().getTerminator());
  Value y = yield.getValues()[cast<OpResult>(v).getResultNumber()];
  TypedAttr attr;
  if (!matchPattern(y, m_Constant(&attr)))
    return {};
  return attr;
}

Value mlir::sdfg::createConstantTasklet(OpBuilder &b, Location loc,
                                        TypedAttr value) {
  Type type = value.getType();
  auto t = TaskletOp::create(b, loc, TypeRange{type}, ValueRange{});
  Block *blk = new Block();
  t.getBody().push_back(blk);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blk);
  Value c = arith::ConstantOp::create(b, loc, type, value);
  YieldOp::create(b, loc, ValueRange{c});
  return t.getResult(0);
}

Value mlir::sdfg::getWrittenContainer(Operation *op) {
  if (auto s = dyn_cast<StoreOp>(op))
    return s.getMemref();
  if (auto c = dyn_cast<CopyOp>(op))
    return c.getTarget();
  if (auto lib = dyn_cast<LibraryOpInterface>(op))
    return lib.getOutputContainer();
  return {};
}

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
