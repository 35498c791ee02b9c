//===- SDFGToGPU.cpp - Lower sdfg for NVIDIA GPUs -------------------------===//

#include "GPULowering.h"

#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_CONVERTSDFGTOGPU
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

namespace {
struct ConvertSDFGToGPUPass
    : public sdfg::impl::ConvertSDFGToGPUBase<ConvertSDFGToGPUPass> {
  using ConvertSDFGToGPUBase::ConvertSDFGToGPUBase;
  void runOnOperation() override {
    if (failed(lowerSDFGs(getOperation(), [&](ModuleOp m, OpBuilder &b) {
          return std::make_unique<GPULowering>(m, b, checkIndices);
        })))
      signalPassFailure();
  }
};
} // namespace
