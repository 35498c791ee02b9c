//===- GPUDeviceMemory.cpp - Kernel-only buffers in device memory ---------===//
//
// convert-sdfg-to-gpu puts every container in unified memory so
// that host code may touch any of them. Most transients are only ever
// touched by kernels and cuBLAS; in plain device memory they cost no page
// faults and cannot oversubscribe the device. A buffer qualifies when no
// host code dereferences it: all its uses are inside gpu.launch bodies,
// its gpu.dealloc, memref.dim, the base-pointer extraction that hands it
// to the GPU runtime's cuBLAS functions, or whole copies from or to host
// memory (an argument's copies in and out), which become driver copies.
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
    // Address arithmetic (a batch entry's offset) keeps it an address.
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::AddIOp,
            LLVM::IntToPtrOp>(user)) {
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

/// Whether host code may dereference the buffer `alloc` returns, other than
/// by whole-buffer copies from or to host memory (the arguments' copies in
/// and out), which are collected in `copies`.
bool hostTouches(gpu::AllocOp alloc, SmallVectorImpl<memref::CopyOp> &copies) {
  for (OpOperand &use : alloc.getMemref().getUses()) {
    Operation *user = use.getOwner();
    if (user->getParentOfType<gpu::LaunchOp>())
      continue;
    if (isa<gpu::DeallocOp, memref::DimOp>(user))
      continue;
    if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user))
      if (onlyReachesGPUBlas(extract.getResult()))
        continue;
    if (auto copy = dyn_cast<memref::CopyOp>(user)) {
      Value other = copy.getSource() == alloc.getMemref() ? copy.getTarget()
                                                          : copy.getSource();
      if (!other.getDefiningOp<gpu::AllocOp>() &&
          other.getType() == alloc.getMemref().getType()) {
        copies.push_back(copy);
        continue;
      }
    }
    return true;
  }
  return false;
}

/// The asynchronous op `build` makes from (its token type, the token it
/// waits on), between a fresh token and a wait for its own: gpu-to-llvm
/// lowers allocations and copies in device memory only in that form, and
/// the waits keep the program's order.
template <typename OpT, typename Build>
OpT waitedFor(OpBuilder &b, Location loc, Build build) {
  Type token = gpu::AsyncTokenType::get(b.getContext());
  Value ready =
      gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
  OpT op = build(token, ready);
  gpu::WaitOp::create(b, loc, Type(), ValueRange{op.getAsyncToken()});
  return op;
}

/// A host-device copy as the driver's copy.
void copyByDriver(memref::CopyOp copy) {
  OpBuilder b(copy);
  waitedFor<gpu::MemcpyOp>(b, copy.getLoc(), [&](Type token, Value ready) {
    return gpu::MemcpyOp::create(b, copy.getLoc(), token, ValueRange{ready},
                                 copy.getTarget(), copy.getSource());
  });
  copy.erase();
}

/// The same buffer in device memory.
void moveToDevice(gpu::AllocOp alloc) {
  OpBuilder b(alloc);
  auto device =
      waitedFor<gpu::AllocOp>(b, alloc.getLoc(), [&](Type token, Value ready) {
        return gpu::AllocOp::create(
            b, alloc.getLoc(), alloc.getMemref().getType(), token,
            ValueRange{ready}, alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/false);
      });
  alloc.getMemref().replaceAllUsesWith(device.getMemref());
  alloc.erase();
}

struct GPUDeviceMemoryPass
    : public sdfg::impl::SDFGGPUDeviceMemoryBase<GPUDeviceMemoryPass> {
  void runOnOperation() override {
    SmallVector<gpu::AllocOp> moved;
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](gpu::AllocOp alloc) {
      SmallVector<memref::CopyOp> own;
      if (alloc.getHostShared() && !alloc.getAsyncToken() &&
          !hostTouches(alloc, own)) {
        moved.push_back(alloc);
        copies.append(own);
      }
    });
    for (memref::CopyOp copy : copies)
      copyByDriver(copy);
    for (gpu::AllocOp alloc : moved)
      moveToDevice(alloc);
  }
};
} // namespace
