//===- AssignGPUSchedule.cpp - Outermost parallel maps to the GPU ---------===//

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGASSIGNGPUSCHEDULE
#include "sdfg/Dialect/SDFG/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {
bool hasParallelMap(MapOp map) {
  WalkResult r = map.getBody().walk([](MapOp inner) {
    return inner.getSchedule() == ScheduleKind::sequential
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return r.wasInterrupted();
}

struct AssignGPUSchedulePass
    : public sdfg::impl::SDFGAssignGPUScheduleBase<AssignGPUSchedulePass> {
  void runOnOperation() override {
    getOperation().walk<WalkOrder::PreOrder>([](MapOp map) {
      // A sequential map is still a map (independent iterations, WCR for
      // shared elements): sequential is the CPU's choice for small maps
      // and for reversals whose accumulations would need compare-and-swap
      // loops there. On the GPU, atomics are native and host code would
      // pull unified memory back, so it becomes a kernel too, unless it
      // holds parallel maps: then it stays a host loop launching them.
      if (map.getSchedule() == ScheduleKind::sequential && hasParallelMap(map))
        return WalkResult::advance();
      if (map.getSchedule() != ScheduleKind::gpu_device)
        map.setSchedule(ScheduleKind::gpu_device);
      // Whatever is nested runs inside this kernel.
      return WalkResult::skip();
    });
  }
};
} // namespace
