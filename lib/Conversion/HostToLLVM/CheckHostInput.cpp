//===- CheckHostInput.cpp - Undefined behaviour the lowering crashes on ---===//
//
// The host lowering also lowers an embedding compiler's own functions. An
// op with undefined behaviour there (memref.dim of a dimension the memref
// does not have) is legal IR, but the upstream folders index out of range
// on it; a located error here keeps the tools from crashing.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGCHECKHOSTINPUT
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;

namespace {
struct CheckHostInputPass
    : public sdfg::impl::SDFGCheckHostInputBase<CheckHostInputPass> {
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](memref::DimOp dim) {
      std::optional<int64_t> index = dim.getConstantIndex();
      auto type = dyn_cast<ShapedType>(dim.getSource().getType());
      if (!index || !type || !type.hasRank() ||
          (*index >= 0 && *index < type.getRank()))
        return WalkResult::advance();
      dim.emitOpError("dimension ")
          << *index << " is out of range for a memref of rank "
          << type.getRank() << " (undefined behaviour)";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
