//===- RegionRules.cpp - Which ops each region may hold -------------------===//
//
// Control regions hold states and control flow, dataflow regions memlets,
// tasklets and maps (see the dialect description). The rules are decided
// on operation names so that dataflowOnlyOps can list the ops they allow.
//
//===----------------------------------------------------------------------===//

#include "OpHelpers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

//===----------------------------------------------------------------------===//
// Region content rules
//===----------------------------------------------------------------------===//

/// Whether `name` is one of `Ops` (the region rules are decided on names,
/// so that dataflowOnlyOps can list the registered ops that follow them).
template <typename... Ops> static bool isOneOf(OperationName name) {
  return ((name.getTypeID() == TypeID::get<Ops>()) || ...);
}

static bool isAllowedIn(OperationName name, ContentKind kind) {
  switch (kind) {
  case ContentKind::TopControl:
    if (isOneOf<AllocOp>(name))
      return true;
    [[fallthrough]];
  case ContentKind::Control:
    return isOneOf<StateOp, LoopOp, IfOp, WhileOp, LoadOp, TaskletOp,
                   BroadcastExtentOp, CheckIndexOp, DimOp>(name);
  case ContentKind::State:
    if (name.hasInterface<LibraryOpInterface>() || isOneOf<PrintOp>(name))
      return true;
    [[fallthrough]];
  case ContentKind::Map:
    return isOneOf<LoadOp, StoreOp, CopyOp, TaskletOp, BroadcastExtentOp,
                   CheckIndexOp, DimOp, MapOp>(name);
  }
  llvm_unreachable("unknown region kind");
}

SmallVector<StringRef> mlir::sdfg::dataflowOnlyOps(MLIRContext *ctx) {
  SmallVector<StringRef> names;
  for (RegisteredOperationName name : ctx->getRegisteredOperations())
    if (name.getDialectNamespace() == SDFGDialect::getDialectNamespace() &&
        isAllowedIn(name, ContentKind::State) &&
        !isAllowedIn(name, ContentKind::Control))
      names.push_back(name.getStringRef());
  llvm::sort(names); // the registry's order is a hash table's
  return names;
}

static StringRef describe(ContentKind kind) {
  switch (kind) {
  case ContentKind::TopControl:
    return "states, loops, conditionals, transients and interstate scalar "
           "computations (sdfg.load, sdfg.tasklet, sdfg.broadcast_extent, "
           "sdfg.check_index, sdfg.dim)";
  case ContentKind::Control:
    return "states, loops, conditionals and interstate scalar computations "
           "(sdfg.load, sdfg.tasklet, sdfg.broadcast_extent, "
           "sdfg.check_index, sdfg.dim); transients belong in the body of "
           "sdfg.sdfg";
  case ContentKind::State:
    return "memlets, tasklets, index checks, maps, library ops and prints";
  case ContentKind::Map:
    return "memlets, tasklets, index checks and nested maps";
  }
  llvm_unreachable("unknown region kind");
}

LogicalResult mlir::sdfg::detail::verifyRegionContents(Operation *owner,
                                                       Region &region,
                                                       ContentKind kind) {
  for (Operation &op : region.getOps()) {
    if (isAllowedIn(op.getName(), kind))
      continue;
    return op.emitOpError("is not allowed in the body of '")
           << owner->getName() << "', which may hold only " << describe(kind);
  }
  return success();
}
