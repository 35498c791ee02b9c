//===- GPUDeviceMemory.cpp - Kernel-only buffers in device memory ---------===//
//
// convert-sdfg-to-std{gpu=true} puts every container in unified memory so
// that host code may touch any of them. Most transients are only ever
// touched by kernels and cuBLAS; in plain device memory they cost no page
// faults and cannot oversubscribe the device. A buffer qualifies when no
// host code dereferences it: all its uses are inside gpu.launch bodies,
// its gpu.dealloc, memref.dim, or the base-pointer extraction that hands it
// to the GPU runtime's cuBLAS functions.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGGPUDEVICEMEMORY
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;

namespace {

/// Whether `v`, a pointer or address derived from a buffer, only reaches
/// calls into the GPU runtime's cuBLAS functions (through casts).
bool onlyReachesGPUBlas(Value v) {
  for (Operation *user : v.getUsers()) {
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, LLVM::IntToPtrOp>(user)) {
      if (!onlyReachesGPUBlas(user->getResult(0)))
        return false;
      continue;
    }
    auto call = dyn_cast<func::CallOp>(user);
    if (!call || !call.getCallee().starts_with("sdfg_gpu_cblas_"))
      return false;
  }
  return true;
}

/// Whether host code may dereference the buffer `alloc` returns.
bool hostTouches(gpu::AllocOp alloc) {
  for (OpOperand &use : alloc.getMemref().getUses()) {
    Operation *user = use.getOwner();
    if (user->getParentOfType<gpu::LaunchOp>())
      continue;
    if (isa<gpu::DeallocOp, memref::DimOp>(user))
      continue;
    if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user))
      if (onlyReachesGPUBlas(extract.getResult()))
        continue;
    return true;
  }
  return false;
}

/// The same buffer in device memory. gpu-to-llvm lowers device
/// allocations only in their asynchronous form; waiting right after keeps
/// the program's order, as for the frees.
void moveToDevice(gpu::AllocOp alloc) {
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  Type token = gpu::AsyncTokenType::get(b.getContext());
  Value ready =
      gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
  auto device = gpu::AllocOp::create(b, loc, alloc.getMemref().getType(), token,
                                     ValueRange{ready}, alloc.getDynamicSizes(),
                                     alloc.getSymbolOperands(),
                                     /*hostShared=*/false);
  gpu::WaitOp::create(b, loc, Type(), ValueRange{device.getAsyncToken()});
  alloc.getMemref().replaceAllUsesWith(device.getMemref());
  alloc.erase();
}

struct GPUDeviceMemoryPass
    : public sdfg::impl::SDFGGPUDeviceMemoryBase<GPUDeviceMemoryPass> {
  void runOnOperation() override {
    SmallVector<gpu::AllocOp> moved;
    getOperation().walk([&](gpu::AllocOp alloc) {
      if (alloc.getHostShared() && !alloc.getAsyncToken() &&
          !hostTouches(alloc))
        moved.push_back(alloc);
    });
    for (gpu::AllocOp alloc : moved)
      moveToDevice(alloc);
  }
};
} // namespace
