//===- AutoDiffInterfaces.h - Reverse-mode AD rules -------------*- C++ -*-===//
//
// The interfaces the sdfg-autodiff driver calls (AutoDiffInterfaces.td).
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_AUTODIFF_INTERFACES_AUTODIFFINTERFACES_H
#define SDFG_AUTODIFF_INTERFACES_AUTODIFFINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir {
namespace sdfg {
class ReverseBuilder;
} // namespace sdfg
} // namespace mlir

#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h.inc"

#endif // SDFG_AUTODIFF_INTERFACES_AUTODIFFINTERFACES_H
