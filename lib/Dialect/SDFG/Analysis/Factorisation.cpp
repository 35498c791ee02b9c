//===- Factorisation.cpp - Matrices whose factorisations are cached -------===//
//
// The CPU lowering keeps a matrix's factorisation between the ops that use
// it (LinearSolve.cpp); the checkpoint memory model counts that cache over
// the same span. Both ask here, so they agree.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/Analysis/Factorisation.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::sdfg;

SmallVector<FactorisedMatrix> mlir::sdfg::factorisedMatrices(SDFGOp sdfg) {
  llvm::MapVector<std::pair<Value, FactorisationKind>,
                  std::pair<Operation *, Operation *>>
      spans;
  Block &body = sdfg.getBody().front();
  for (Operation &top : body) {
    top.walk([&](Operation *op) {
      Value matrix;
      FactorisationKind kind = FactorisationKind::LU;
      if (auto s = dyn_cast<SolveOp>(op)) {
        matrix = s.getA();
      } else if (auto d = dyn_cast<DetOp>(op)) {
        matrix = d.getA();
      } else if (auto e = dyn_cast<EighOp>(op)) {
        matrix = e.getA();
        kind = FactorisationKind::Eigen;
      } else if (auto q = dyn_cast<QROp>(op)) {
        matrix = q.getA();
        kind = FactorisationKind::QR;
      } else if (auto s = dyn_cast<SVDOp>(op)) {
        matrix = s.getA();
        kind = FactorisationKind::SVD;
      }
      if (!matrix || !cast<MemRefType>(matrix.getType()).hasStaticShape())
        return;
      auto [it, inserted] = spans.try_emplace({matrix, kind}, &top, &top);
      it->second.second = &top;
    });
  }
  SmallVector<FactorisedMatrix> result;
  for (auto &[key, span] : spans)
    result.push_back({key.first, key.second, span.first, span.second});
  return result;
}

int64_t mlir::sdfg::factorisationCacheBytes(MemRefType matrix,
                                            FactorisationKind kind) {
  // In 128 bits, saturated: the extents are representable (below 2^62
  // bytes each), their products and sums of several need not be.
  using Wide = __int128;
  Wide n = matrix.getDimSize(0);
  Wide eltBytes = elementBytes(matrix.getElementType());
  Wide rows = matrix.getDimSize(0), cols = matrix.getDimSize(1);
  Wide k = std::min(rows, cols);
  Wide bytes;
  if (kind == FactorisationKind::Eigen)
    bytes = (2 * rows * cols + n) * eltBytes;
  else if (kind == FactorisationKind::QR)
    bytes = (2 * rows * cols + rows * k + k) * eltBytes;
  else if (kind == FactorisationKind::SVD)
    bytes = (rows * cols + rows * k + k + k * cols) * eltBytes + 4;
  else
    bytes = 2 * rows * cols * eltBytes + 4 * n;
  return bytes > std::numeric_limits<int64_t>::max()
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(bytes);
}
