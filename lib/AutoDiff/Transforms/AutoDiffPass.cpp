//===- AutoDiffPass.cpp - The --sdfg-autodiff pass ------------------------===//
//
// Reads the pass options and differentiates each sdfg.sdfg that names an
// output (differentiate(), Differentiate.cpp).
//
//===----------------------------------------------------------------------===//

#include "sdfg/AutoDiff/Implementations/Register.h"
#include "sdfg/AutoDiff/Transforms/Differentiate.h"
#include "sdfg/AutoDiff/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_AUTODIFF
#include "sdfg/AutoDiff/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

struct AutoDiffPass : public sdfg::impl::AutoDiffBase<AutoDiffPass> {
  using AutoDiffBase::AutoDiffBase;

  // The rules are external models: the pass brings them, so a compiler
  // that embeds it needs no registration call of its own.
  void getDependentDialects(DialectRegistry &registry) const override {
    AutoDiffBase::getDependentDialects(registry);
    registerAutoDiffModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<SDFGOp> targets;
    for (SDFGOp op : module.getOps<SDFGOp>()) {
      if (!of.empty() && op.getSymName() != of)
        continue;
      if (!output.empty() || op.getAdOutput() || op.lookupArg("__return0"))
        targets.push_back(op);
    }
    if (!of.empty() && targets.empty()) {
      module.emitError("sdfg-autodiff: no sdfg.sdfg named '")
          << of << "' to differentiate";
      return signalPassFailure();
    }
    if (targets.empty()) {
      module.emitError("sdfg-autodiff: no sdfg.sdfg names an output to "
                       "differentiate; pass output=<name> or set ad_output");
      return signalPassFailure();
    }
    DifferentiateOptions opts;
    opts.output = output;
    opts.wrt.assign(wrt.begin(), wrt.end());
    opts.suffix = suffix;
    opts.whileCapacity = whileCapacity;
    opts.dataLoopCapacity = dataLoopCapacity;
    opts.accumulate = accumulate;
    opts.discardResults = discardResults;
    opts.unitSeed = unitSeed;
    opts.strongZero = strongZero;
    opts.keep.assign(keep.begin(), keep.end());
    if (!keep.empty() && !discardResults) {
      module.emitError("sdfg-autodiff: keep= needs discard-results=true");
      return signalPassFailure();
    }
    opts.printCCS = printCCS;
    if (whileCapacity <= 0) {
      module.emitError("sdfg-autodiff: while-capacity must be positive");
      return signalPassFailure();
    }
    if (dataLoopCapacity <= 0) {
      module.emitError("sdfg-autodiff: data-loop-capacity must be positive");
      return signalPassFailure();
    }
    for (SDFGOp op : targets)
      if (failed(differentiate(op, opts)))
        return signalPassFailure();
  }
};

} // namespace
