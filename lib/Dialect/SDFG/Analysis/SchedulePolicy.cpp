//===- SchedulePolicy.cpp - When work runs on every core ------------------===//

#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

using namespace mlir;
using namespace mlir::sdfg;

ScheduleKind mlir::sdfg::scheduleForIterations(int64_t iterations) {
  return iterations >= kParallelMapIterations ? ScheduleKind::cpu_multicore
                                              : ScheduleKind::sequential;
}

bool mlir::sdfg::fitsPrivateCopies(MemRefType type) {
  Type elt = type.getElementType();
  // An empty container has no element to accumulate into (any access is
  // out of bounds): nothing to copy, and its copies' views would not be
  // valid IR.
  if (!type.hasStaticShape() || type.getNumElements() == 0 ||
      !(isa<FloatType>(elt) || elt.isSignlessInteger()))
    return false;
  std::optional<int64_t> bytes = checkedByteSize(type);
  return bytes && *bytes <= kMaxPrivateCopyBytes;
}
