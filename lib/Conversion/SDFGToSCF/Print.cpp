//===- Print.cpp - sdfg.print as records in the print log -----------------===//
//
// Each sdfg.print appends to the calling thread's print log through the
// runtime's __sdfg_print (CallGuards.cpp) a record {site, -1, 0} and then
// one per value: the site, the value's position and its bytes. The caller
// formats and prints the log after the call (Python's print, NumPy's
// formatting), so the program itself never formats text.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

LogicalResult Lowering::lowerPrint(PrintOp op) {
  // Kernels cannot append to a host thread's log.
  if (gpu)
    return op.emitOpError("is not supported on the GPU");
  Location loc = op.getLoc();
  Type i64 = b.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  func::FuncOp fn = getOrDeclare(loc, "__sdfg_print",
                                 b.getFunctionType({i64, i64, ptr, i64}, {}));
  auto constant = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  // A record of position -1 and no bytes starts each print: one without
  // values still prints its text.
  Value null = LLVM::ZeroOp::create(b, loc, ptr);
  func::CallOp::create(
      b, loc, fn,
      ValueRange{constant(op.getSite()), constant(-1), null, constant(0)});
  for (auto [k, value] : llvm::enumerate(op.getValues())) {
    auto type = cast<MemRefType>(value.getType());
    // Memrefs of i1 hold a byte per element.
    int64_t bytes = type.getNumElements() *
                    ((type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
    func::CallOp::create(b, loc, fn,
                         ValueRange{constant(op.getSite()), constant(k),
                                    basePointer(loc, mapping.lookup(value)),
                                    constant(bytes)});
  }
  return success();
}
