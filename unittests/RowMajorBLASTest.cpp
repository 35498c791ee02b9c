//===- RowMajorBLASTest.cpp - Row-major calls on column-major BLAS --------===//
//
// The GPU runtime's cuBLAS calls, checked without a GPU: the rearranged
// call, run by a reference column-major BLAS on the same buffers, must
// give what the row-major CBLAS call means.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Runtime/RowMajorBLAS.h"

#include "gtest/gtest.h"

#include <vector>

using namespace sdfg::runtime;

namespace {

/// Reference column-major gemm (BLAS semantics): X(i, j) = x[i + j * ld].
void columnMajorGemm(bool transA, bool transB, int m, int n, int k,
                     double alpha, const double *a, int lda, const double *b,
                     int ldb, double beta, double *c, int ldc) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int l = 0; l < k; ++l) {
        double x = transA ? a[l + i * lda] : a[i + l * lda];
        double y = transB ? b[j + l * ldb] : b[l + j * ldb];
        sum += x * y;
      }
      c[i + j * ldc] = alpha * sum + beta * c[i + j * ldc];
    }
}

/// Reference column-major gemv: A is rows x cols.
void columnMajorGemv(bool trans, int rows, int cols, double alpha,
                     const double *a, int lda, const double *x, double beta,
                     double *y) {
  int outLen = trans ? cols : rows, inLen = trans ? rows : cols;
  for (int i = 0; i < outLen; ++i) {
    double sum = 0;
    for (int j = 0; j < inLen; ++j)
      sum += (trans ? a[j + i * lda] : a[i + j * lda]) * x[j];
    y[i] = alpha * sum + beta * y[i];
  }
}

/// Reference column-major ger: A(rows x cols) += alpha x y^T.
void columnMajorGer(int rows, int cols, double alpha, const double *x,
                    const double *y, double *a, int lda) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i)
      a[i + j * lda] += alpha * x[i] * y[j];
}

std::vector<double> ramp(int size, double scale) {
  std::vector<double> v(size);
  for (int i = 0; i < size; ++i)
    v[i] = scale * (i % 7) - 0.5 * (i % 3) + 0.25;
  return v;
}

} // namespace

TEST(RowMajorBLAS, GemmAllTransposes) {
  // Non-square shapes and padded leading dimensions, so that a swapped
  // m/n or a wrong leading dimension cannot pass by symmetry.
  const int m = 3, n = 5, k = 4, pad = 2;
  const double alpha = 1.5, beta = -0.5;
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      // Row-major storage: op(A) is m x k, so A is m x k or k x m.
      int aRows = transA ? k : m, aCols = transA ? m : k;
      int bRows = transB ? n : k, bCols = transB ? k : n;
      int lda = aCols + pad, ldb = bCols + pad, ldc = n + pad;
      std::vector<double> a = ramp(aRows * lda, 0.3),
                          b = ramp(bRows * ldb, -0.2), c = ramp(m * ldc, 0.1);
      std::vector<double> want = c;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double sum = 0;
          for (int l = 0; l < k; ++l)
            sum += (transA ? a[l * lda + i] : a[i * lda + l]) *
                   (transB ? b[j * ldb + l] : b[l * ldb + j]);
          want[i * ldc + j] = alpha * sum + beta * c[i * ldc + j];
        }
      ColumnMajorGemm g = rowMajorGemm(transA, transB, m, n, k);
      const double *first = g.firstIsB ? b.data() : a.data();
      const double *second = g.firstIsB ? a.data() : b.data();
      columnMajorGemm(g.transFirst, g.transSecond, g.m, g.n, g.k, alpha, first,
                      g.firstIsB ? ldb : lda, second, g.firstIsB ? lda : ldb,
                      beta, c.data(), ldc);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
          EXPECT_DOUBLE_EQ(c[i * ldc + j], want[i * ldc + j])
              << "transA=" << transA << " transB=" << transB << " at (" << i
              << ", " << j << ")";
    }
}

TEST(RowMajorBLAS, GemvBothTransposes) {
  const int m = 3, n = 5, lda = n + 2;
  const double alpha = 2.0, beta = 0.5;
  std::vector<double> a = ramp(m * lda, 0.4);
  for (bool trans : {false, true}) {
    int inLen = trans ? m : n, outLen = trans ? n : m;
    std::vector<double> x = ramp(inLen, -0.3), y = ramp(outLen, 0.2);
    std::vector<double> want = y;
    for (int i = 0; i < outLen; ++i) {
      double sum = 0;
      for (int j = 0; j < inLen; ++j)
        sum += (trans ? a[j * lda + i] : a[i * lda + j]) * x[j];
      want[i] = alpha * sum + beta * y[i];
    }
    ColumnMajorGemv g = rowMajorGemv(trans, m, n);
    columnMajorGemv(g.trans, g.rows, g.cols, alpha, a.data(), lda, x.data(),
                    beta, y.data());
    for (int i = 0; i < outLen; ++i)
      EXPECT_DOUBLE_EQ(y[i], want[i]) << "trans=" << trans << " at " << i;
  }
}

TEST(RowMajorBLAS, Ger) {
  const int m = 3, n = 5, lda = n + 2;
  const double alpha = -1.5;
  std::vector<double> a = ramp(m * lda, 0.4), x = ramp(m, -0.3),
                      y = ramp(n, 0.7);
  std::vector<double> want = a;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      want[i * lda + j] += alpha * x[i] * y[j];
  ColumnMajorGer g = rowMajorGer(m, n);
  columnMajorGer(g.rows, g.cols, alpha, g.firstIsY ? y.data() : x.data(),
                 g.firstIsY ? x.data() : y.data(), a.data(), lda);
  for (int i = 0; i < m * lda; ++i)
    EXPECT_DOUBLE_EQ(a[i], want[i]) << "at " << i;
}
