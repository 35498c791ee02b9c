//===- MergeGPUModules.cpp - One gpu.module per program -------------------===//

#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGMERGEGPUMODULES
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;

namespace {
struct MergeGPUModulesPass
    : public sdfg::impl::SDFGMergeGPUModulesBase<MergeGPUModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
    if (kernels.size() < 2)
      return;
    gpu::GPUModuleOp target = kernels.front();
    MLIRContext *ctx = &getContext();
    // (old module name, old kernel name) -> new kernel name in `target`.
    llvm::StringMap<llvm::StringMap<std::string>> renamed;
    for (gpu::GPUModuleOp from : ArrayRef(kernels).drop_front()) {
      Block &body = from.getBodyRegion().front();
      bool onlyKernels = llvm::all_of(body, [](Operation &op) {
        return isa<gpu::GPUFuncOp>(op) || op.hasTrait<OpTrait::IsTerminator>();
      });
      auto funcs = llvm::to_vector(body.getOps<gpu::GPUFuncOp>());
      if (!onlyKernels || funcs.size() != 1)
        continue;
      gpu::GPUFuncOp fn = funcs.front();
      std::string oldName = fn.getName().str();
      // The module's name is unique in the parent module, so it is unique
      // among the kernels of `target` too (they are named after modules).
      std::string newName = from.getName().str();
      fn.setName(newName);
      fn->moveBefore(&target.getBodyRegion().front().back());
      renamed[from.getName()][oldName] = newName;
      from.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      SymbolRefAttr kernel = launch.getKernel();
      auto byModule = renamed.find(kernel.getRootReference().getValue());
      if (byModule == renamed.end())
        return;
      auto name = byModule->second.find(kernel.getLeafReference().getValue());
      if (name == byModule->second.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          target.getNameAttr(), {FlatSymbolRefAttr::get(ctx, name->second)}));
    });
  }
};
} // namespace
