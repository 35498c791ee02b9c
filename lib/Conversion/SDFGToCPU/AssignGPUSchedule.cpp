//===- AssignGPUSchedule.cpp - Outermost parallel maps to the GPU ---------===//

#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/SDFGOps.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGASSIGNGPUSCHEDULE
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {
struct AssignGPUSchedulePass
    : public sdfg::impl::SDFGAssignGPUScheduleBase<AssignGPUSchedulePass> {
  void runOnOperation() override {
    getOperation().walk<WalkOrder::PreOrder>([](MapOp map) {
      if (map.getSchedule() == ScheduleKind::sequential)
        return WalkResult::advance(); // host loop; look inside
      if (map.getSchedule() == ScheduleKind::cpu_multicore)
        map.setSchedule(ScheduleKind::gpu_device);
      // Whatever is nested runs inside this kernel.
      return WalkResult::skip();
    });
  }
};
} // namespace
