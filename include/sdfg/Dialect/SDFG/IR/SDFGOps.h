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
/// What the CPU lowering keeps per matrix container between the ops that
/// factorise it (LinearSolve.cpp): the LU factors (`sdfg.solve`,
/// `sdfg.det`), the eigendecomposition (`sdfg.eigh`), the QR
/// decomposition (`sdfg.qr`) or the singular value decomposition
/// (`sdfg.svd`).
enum class FactorisationKind { LU, Eigen, QR, SVD };
/// A matrix container of static shape with a factorisation cache, over the
/// first and last top-level ops of its sdfg that use it (the memory model
/// counts the cache over that span).
struct FactorisedMatrix {
  Value matrix;
  FactorisationKind kind;
  Operation *first, *last;
};
SmallVector<FactorisedMatrix> factorisedMatrices(SDFGOp sdfg);
/// Bytes of a factorisation cache: a copy of the matrix and the factors
/// (LU: with i32 pivots; eigen: the eigenvectors and eigenvalues; QR:
/// geqrf's factors, their scalars and the formed Q; SVD: U, s and Vh).
int64_t factorisationCacheBytes(MemRefType matrix, FactorisationKind kind);
/// Whether `op` or an op nested in it writes `container`.
bool writesContainer(Operation *op, Value container);
/// Whether a parallel map's chunks may each accumulate into a private copy
/// of a container of `type` (static shape, int or float elements, at most
/// 256 KiB): the CPU lowering makes such copies, and the autodiff keeps a
/// reversed map parallel when its shared accumulations all fit.
bool fitsPrivateCopies(MemRefType type);
/// A tasklet without inputs yielding `value`, at the builder's insertion
/// point.
Value createConstantTasklet(OpBuilder &b, Location loc, TypedAttr value);
/// The constant `v` is, when a tasklet without inputs yields it as one
/// (what createConstantTasklet makes); else null.
TypedAttr getTaskletConstant(Value v);
} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_SDFGOPS_H
