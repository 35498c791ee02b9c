//===- CustomCall.cpp - sdfg.custom_call ----------------------------------===//
//
// A call of another sdfg.sdfg whose reverse-mode rule the user gives (the
// frontend's sdfg.custom_vjp): its verifier, the checks of the symbols it
// names, and what it reads, writes and costs as a library op.
//
//===----------------------------------------------------------------------===//

#include "OpHelpers.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

Value CustomCallOp::getOutputContainer() { return getOutput(); }
SmallVector<Value> CustomCallOp::getInputContainers() {
  return SmallVector<Value>(getInputs().begin(), getInputs().end());
}
bool CustomCallOp::accumulatesIntoOutput() { return false; }
// The user's backward programs take the inputs and the output as they were
// right after the call.
SmallVector<Value> CustomCallOp::getReverseReads() {
  SmallVector<Value> reads = getInputContainers();
  reads.push_back(getOutput());
  return reads;
}
// The callee's work is not visible here; a few passes over its operands
// stands for it in the checkpointing's recompute cost.
double CustomCallOp::getWorkEstimate() {
  double n = numElements(getOutput());
  for (Value in : getInputs())
    n += numElements(in);
  return 4 * n;
}
// A call into another function of the module, not into BLAS or LAPACK.
bool CustomCallOp::callsLibrary() { return false; }

LogicalResult CustomCallOp::verify() {
  for (Value v : getOperands())
    if (!cast<MemRefType>(v.getType()).hasStaticShape())
      return emitOpError("operands must have static shapes");
  if (llvm::is_contained(getInputs(), getOutput()))
    return emitOpError("output must not be one of the inputs");
  if (ArrayAttr vjp = getVjpAttr()) {
    if (vjp.size() != getInputs().size())
      return emitOpError("vjp has ")
             << vjp.size() << " entries; expected one per input ("
             << getInputs().size() << ")";
    for (Attribute a : vjp)
      if (!isa<FlatSymbolRefAttr, UnitAttr>(a))
        return emitOpError("vjp entries must be symbols or unit, not ") << a;
  }
  return success();
}

/// The sdfg.sdfg named `name` from `op`'s symbol table, checked to take
/// exactly `types` as its parameters.
static LogicalResult checkCallee(CustomCallOp op,
                                 SymbolTableCollection &symbols,
                                 FlatSymbolRefAttr name, TypeRange types,
                                 StringRef what) {
  auto callee = symbols.lookupNearestSymbolFrom<SDFGOp>(op, name);
  if (!callee)
    return op.emitOpError()
           << what << " " << name << " does not name an sdfg.sdfg";
  if (callee == op->getParentOfType<SDFGOp>())
    return op.emitOpError()
           << what << " " << name << " is the program that calls it";
  if (TypeRange(callee.getArgumentTypes()) != types) {
    InFlightDiagnostic d = op.emitOpError()
                           << what << " " << name << " takes (";
    llvm::interleaveComma(callee.getArgumentTypes(), d);
    d << "), expected (";
    llvm::interleaveComma(types, d);
    return d << ")";
  }
  return success();
}

LogicalResult
CustomCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  SmallVector<Type> types(getInputs().getTypes());
  types.push_back(getOutput().getType());
  if (failed(checkCallee(*this, symbolTable, getCalleeAttr(), types, "callee")))
    return failure();
  ArrayAttr vjp = getVjpAttr();
  if (!vjp)
    return success();
  // (inputs, output, cotangent of the output, cotangent of input k).
  types.push_back(getOutput().getType());
  for (auto [k, entry] : llvm::enumerate(vjp)) {
    auto sym = dyn_cast<FlatSymbolRefAttr>(entry);
    if (!sym)
      continue;
    types.push_back(getInputs()[k].getType());
    if (failed(checkCallee(*this, symbolTable, sym, types,
                           "vjp of input #" + std::to_string(k))))
      return failure();
    types.pop_back();
  }
  return success();
}
