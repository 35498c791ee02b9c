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
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include "sdfg/Dialect/SDFG/IndexUtils.h"
#include "sdfg/Dialect/SDFG/SDFGDialect.h"
#include "sdfg/Dialect/SDFG/SDFGEnums.h.inc"

namespace mlir {
namespace sdfg {
class ReverseBuilder;
} // namespace sdfg
} // namespace mlir

#include "sdfg/Dialect/SDFG/AutoDiffInterfaces.h.inc"
#include "sdfg/Dialect/SDFG/LibraryOpInterface.h.inc"

#define GET_OP_CLASSES
#include "sdfg/Dialect/SDFG/SDFGOps.h.inc"

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
/// The matrix containers of static shape that `sdfg.solve`s and
/// `sdfg.det`s of `sdfg` factorise, each with the first and last top-level
/// ops of `sdfg` that do: the CPU lowering keeps one LU cache per matrix
/// over that span (see LinearSolve.cpp), which the memory model counts.
llvm::MapVector<Value, std::pair<Operation *, Operation *>>
factorisedMatrices(SDFGOp sdfg);
/// Bytes of the LU cache of a matrix (a copy, the factors, i32 pivots).
int64_t factorisationCacheBytes(MemRefType matrix);
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
