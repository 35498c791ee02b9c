//===- RowMajorBLAS.h - Row-major BLAS calls on column-major BLAS -*- C++ -*-=//
//
// The GPU runtime implements CBLAS's row-major gemm, gemv and ger on cuBLAS,
// which is column-major. A row-major m x n matrix with leading dimension ld
// is, byte for byte, its n x m transpose in column-major order with the same
// leading dimension, so each call becomes a column-major call on the same
// buffers with the roles rearranged as below. Kept apart from the runtime
// (header-only, no CUDA) so that the rearrangement is unit-tested against a
// reference column-major BLAS on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_RUNTIME_ROWMAJORBLAS_H
#define SDFG_RUNTIME_ROWMAJORBLAS_H

namespace sdfg {
namespace runtime {

/// A column-major gemm: C(m x n) = alpha op(first) op(second) + beta C.
struct ColumnMajorGemm {
  bool transFirst, transSecond;
  int m, n, k;
  /// Whether the first operand is the row-major call's B (else A).
  bool firstIsB;
};

/// Row-major C(m x n) = op(A) op(B) is column-major C^T = op(B)^T op(A)^T,
/// where the stored buffers already are A^T and B^T: the operands swap,
/// each keeps its transpose flag, and the shape is (n, m, k).
inline ColumnMajorGemm rowMajorGemm(bool transA, bool transB, int m, int n,
                                    int k) {
  return {transB, transA, n, m, k, /*firstIsB=*/true};
}

/// A column-major gemv: y = alpha op(A) x + beta y, A rows x cols.
struct ColumnMajorGemv {
  bool trans;
  int rows, cols;
};

/// Row-major op(A) x with A m x n: the buffer is A^T (n x m) in column-major
/// order, so the transpose flag flips and rows and columns swap.
inline ColumnMajorGemv rowMajorGemv(bool trans, int m, int n) {
  return {!trans, n, m};
}

/// A column-major ger: A(rows x cols) += alpha first second^T.
struct ColumnMajorGer {
  int rows, cols;
  /// Whether the first vector is the row-major call's y (else x).
  bool firstIsY;
};

/// Row-major A(m x n) += x y^T is column-major A^T(n x m) += y x^T on the
/// same buffer: the vectors swap, and so do rows and columns.
inline ColumnMajorGer rowMajorGer(int m, int n) {
  return {n, m, /*firstIsY=*/true};
}

} // namespace runtime
} // namespace sdfg

#endif // SDFG_RUNTIME_ROWMAJORBLAS_H
