//===- SDFGOps.h - sdfg dialect operations ----------------------*- C++ -*-===//

#ifndef SDFG_DIALECT_SDFG_SDFGOPS_H
#define SDFG_DIALECT_SDFG_SDFGOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h"
#include "sdfg/Dialect/SDFG/IR/SDFGEnums.h.inc"

#include "sdfg/Dialect/SDFG/IR/LibraryOpInterface.h.inc"

#define GET_OP_CLASSES
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h.inc"

namespace mlir {
namespace sdfg {
/// The container `op` itself writes (a store, copy or library op's
/// output), or null.
Value getWrittenContainer(Operation *op);
/// Whether `op` is a library op that lowers to a call into an external
/// library (BLAS, LAPACK).
inline bool isLibraryCall(Operation *op) {
  auto lib = dyn_cast<LibraryOpInterface>(op);
  return lib && lib.callsLibrary();
}
/// Elements of a container, dynamic extents counted as 1 (for cost
/// estimates).
double numElements(Value container);
/// The sdfg ops that may appear only in dataflow regions (states and maps),
/// by name: the frontend opens a state around them (`sdfg-opt
/// --print-policy` lists them).
SmallVector<StringRef> dataflowOnlyOps(MLIRContext *ctx);
/// Whether `op` or an op nested in it writes `container`.
bool writesContainer(Operation *op, Value container);
/// A tasklet without inputs yielding `value`, at the builder's insertion
/// point.
Value createConstantTasklet(OpBuilder &b, Location loc, TypedAttr value);
/// The constant `v` is, when a tasklet without inputs yields it as one
/// (what createConstantTasklet makes); else null.
TypedAttr getTaskletConstant(Value v);
} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_SDFGOPS_H
