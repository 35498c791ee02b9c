//===- Factorisation.h - Matrices whose factorisations are cached -*- C++ -*-=//
//
// Lowering policy the memory model must agree with: which matrix containers
// keep a factorisation cache, over which top-level ops, and its size.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_ANALYSIS_FACTORISATION_H
#define SDFG_DIALECT_SDFG_ANALYSIS_FACTORISATION_H

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

namespace mlir {
namespace sdfg {

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

} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_ANALYSIS_FACTORISATION_H
