//===- CheckLowered.cpp - Fail on ops a lowering to LLVM left behind ------===//

#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGCHECKLOWERED
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;

namespace {
/// Whether `op` translates to LLVM IR as it is.
bool isLowered(Operation *op) {
  Dialect *dialect = op->getDialect();
  if (isa_and_nonnull<LLVM::LLVMDialect, omp::OpenMPDialect>(dialect))
    return true;
  return isa<ModuleOp, gpu::BinaryOp, gpu::LaunchFuncOp>(op);
}

struct CheckLoweredPass
    : public sdfg::impl::SDFGCheckLoweredBase<CheckLoweredPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> reported;
    Operation *firstCast = nullptr;
    bool failed = false;
    auto report = [&](Operation *op) {
      failed = true;
      // One error per kind: a thousand linalg.fill are one problem.
      if (reported.insert(op->getName().getStringRef()).second)
        op->emitError() << "'" << op->getName()
                        << "' is not lowered to the LLVM dialect by this "
                           "pipeline (it lowers sdfg ops and the "
                           "func/scf/affine/memref/arith/math code, and "
                           "linalg on memrefs, around them)";
    };
    // Pre-order: an unlowered op's regions are not searched (their ops are
    // its business), except a function's, whose body says more than its
    // name; a terminator left because its parent was is not reported.
    std::function<bool(Operation *)> check = [&](Operation *op) {
      bool found = false;
      for (Region &region : op->getRegions())
        for (Operation &inner : region.getOps()) {
          if (isLowered(&inner)) {
            found |= check(&inner);
            continue;
          }
          if (isa<UnrealizedConversionCastOp>(inner)) {
            if (!firstCast)
              firstCast = &inner;
            continue;
          }
          if (inner.hasTrait<OpTrait::IsTerminator>())
            continue;
          if (isa<FunctionOpInterface>(inner) && check(&inner)) {
            found = true;
            continue;
          }
          if (auto fn = dyn_cast<FunctionOpInterface>(inner)) {
            failed = true;
            fn->emitError()
                << "function @" << fn.getName()
                << " is not lowered to the LLVM dialect: its "
                   "type "
                << fn.getFunctionType() << " has no LLVM form in this pipeline";
            found = true;
            continue;
          }
          report(&inner);
          found = true;
        }
      return found;
    };
    check(module);
    if (!failed && firstCast) {
      firstCast->emitError()
          << "a value of type " << firstCast->getOperandTypes()
          << " was left converted to " << firstCast->getResultTypes()
          << " by the lowering (unrealized_conversion_cast): a type that "
             "has no LLVM form in this pipeline";
      failed = true;
    }
    if (failed)
      signalPassFailure();
  }
};
} // namespace
