//===- GPULowering.h - The sdfg lowering for NVIDIA GPUs --------*- C++ -*-===//
//
// Internal to lib/Conversion/SDFGToGPU. The GPU lowering is the CPU
// lowering (SDFGToSCF's Lowering, whose private header it shares) with the
// GPU's hooks: outermost gpu_device maps become gpu.launch kernels, and
// host-level work that touches containers runs as one-thread kernels.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_LIB_CONVERSION_SDFGTOGPU_GPULOWERING_H
#define SDFG_LIB_CONVERSION_SDFGTOGPU_GPULOWERING_H

#include "../SDFGToSCF/Lowering.h"

namespace mlir {
namespace sdfg {
namespace detail {

class GPULowering : public Lowering {
public:
  GPULowering(ModuleOp module, OpBuilder &builder, bool checkIndices)
      : Lowering(module, builder, /*gpu=*/true, checkIndices) {}

  bool runsOnOneThread(Operation *op) override;
  LogicalResult lowerOnOneThread(Operation *op) override;
  LogicalResult lowerGPUMap(MapOp op, ArrayRef<Value> lbs, ArrayRef<Value> ubs,
                            ArrayRef<Value> steps) override;
};

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // SDFG_LIB_CONVERSION_SDFGTOGPU_GPULOWERING_H
