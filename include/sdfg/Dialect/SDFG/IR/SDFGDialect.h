//===- SDFGDialect.h - The sdfg dialect -------------------------*- C++ -*-===//

#ifndef SDFG_DIALECT_SDFG_SDFGDIALECT_H
#define SDFG_DIALECT_SDFG_SDFGDIALECT_H

#include "mlir/IR/Dialect.h"

#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h.inc"

namespace mlir {
class DialectRegistry;
namespace sdfg {
/// Registers the sdfg dialect, the dialects its regions may hold, and the
/// derivative rules of their scalar ops.
void registerSDFGDialect(DialectRegistry &registry);
} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_SDFGDIALECT_H
