//===- ExpandArith.cpp - Expand arith ops without an LLVM lowering --------===//

#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGEXPANDARITH
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;

namespace {
struct ExpandArithPass
    : public sdfg::impl::SDFGExpandArithBase<ExpandArithPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Not populateArithExpandOpsPatterns: it also turns the float min/max
    // ops into selects, which hides reductions from the vectoriser.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
