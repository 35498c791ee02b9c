//===- LibraryOps.cpp - The library ops -----------------------------------===//
//
// Verifiers of the library ops (BLAS, LAPACK, sorting, reductions), and
// what each reads, writes and costs, for the analyses that treat library
// ops as opaque steps (LibraryOpInterface.td).
//
//===----------------------------------------------------------------------===//

#include "OpHelpers.h"

#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

double mlir::sdfg::numElements(Value container) {
  double n = 1;
  for (int64_t d : cast<MemRefType>(container.getType()).getShape())
    n *= ShapedType::isDynamic(d) ? 1 : d;
  return n;
}

/// A static extent, or 1.
static double extent(Value container, unsigned dim) {
  int64_t d = cast<MemRefType>(container.getType()).getDimSize(dim);
  return ShapedType::isDynamic(d) ? 1 : d;
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

Value MatmulOp::getOutputContainer() { return getC(); }
SmallVector<Value> MatmulOp::getInputContainers() { return {getA(), getB()}; }
bool MatmulOp::accumulatesIntoOutput() { return getAccumulate(); }
SmallVector<Value> MatmulOp::getReverseReads() { return {getA(), getB()}; }
double MatmulOp::getWorkEstimate() {
  // 2 m n k per batch entry; a shared (rank 2) output sums the batch.
  MemRefType a = getA().getType();
  double k = extent(getA(), a.getRank() - 2 + (getTransposeA() ? 0 : 1));
  double batch = 1;
  for (Value v : {getA(), getB()})
    if (cast<MemRefType>(v.getType()).getRank() == 3)
      batch = extent(v, 0);
  MemRefType c = getC().getType();
  double mn = extent(getC(), c.getRank() - 2) * extent(getC(), c.getRank() - 1);
  return 2 * batch * mn * k + numElements(getA()) + numElements(getB());
}
bool MatmulOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// gemv
//===----------------------------------------------------------------------===//

Value GemvOp::getOutputContainer() { return getY(); }
SmallVector<Value> GemvOp::getInputContainers() { return {getA(), getX()}; }
bool GemvOp::accumulatesIntoOutput() { return getAccumulate(); }
SmallVector<Value> GemvOp::getReverseReads() { return {getA(), getX()}; }
double GemvOp::getWorkEstimate() { return 3 * numElements(getA()); }
bool GemvOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// ger
//===----------------------------------------------------------------------===//

Value GerOp::getOutputContainer() { return getA(); }
SmallVector<Value> GerOp::getInputContainers() { return {getX(), getY()}; }
bool GerOp::accumulatesIntoOutput() { return getAccumulate(); }
SmallVector<Value> GerOp::getReverseReads() { return {getX(), getY()}; }
// A multiply-add and a load and store of A per element.
double GerOp::getWorkEstimate() { return 4 * numElements(getA()); }
bool GerOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// dot
//===----------------------------------------------------------------------===//

Value DotOp::getOutputContainer() { return getResult(); }
SmallVector<Value> DotOp::getInputContainers() { return {getX(), getY()}; }
bool DotOp::accumulatesIntoOutput() { return getAccumulate(); }
SmallVector<Value> DotOp::getReverseReads() { return {getX(), getY()}; }
double DotOp::getWorkEstimate() { return 4 * numElements(getX()); }
bool DotOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

Value TransposeOp::getOutputContainer() { return getOutput(); }
SmallVector<Value> TransposeOp::getInputContainers() { return {getInput()}; }
bool TransposeOp::accumulatesIntoOutput() { return getAccumulate(); }
// Linear: the gradient needs no primal values.
SmallVector<Value> TransposeOp::getReverseReads() { return {}; }
double TransposeOp::getWorkEstimate() { return 2 * numElements(getInput()); }
bool TransposeOp::callsLibrary() { return false; }

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

Value ReduceOp::getOutputContainer() { return getOutput(); }
SmallVector<Value> ReduceOp::getInputContainers() { return {getInput()}; }
bool ReduceOp::accumulatesIntoOutput() { return getAccumulate(); }
SmallVector<Value> ReduceOp::getReverseReads() {
  // A sum is linear; min/max route the gradient to the elements equal to
  // the result.
  if (getKind() == ReduceKind::add)
    return {};
  return {getInput(), getOutput()};
}
double ReduceOp::getWorkEstimate() { return 2 * numElements(getInput()); }
bool ReduceOp::callsLibrary() { return false; }

//===----------------------------------------------------------------------===//
// solve
//===----------------------------------------------------------------------===//

Value SolveOp::getOutputContainer() { return getX(); }
SmallVector<Value> SolveOp::getInputContainers() { return {getA(), getB()}; }
bool SolveOp::accumulatesIntoOutput() { return false; }
// dB = op(A)^-T dX needs A; dA = -dB X^T (or -X dB^T) needs the solution.
SmallVector<Value> SolveOp::getReverseReads() { return {getA(), getX()}; }
double SolveOp::getWorkEstimate() {
  double n = extent(getA(), 0);
  // LU (2/3 n^3) and two triangular solves per right-hand side (2 n^2).
  return 2.0 / 3.0 * n * n * n + 2 * n * numElements(getB()) +
         numElements(getA()) + 2 * numElements(getB());
}
bool SolveOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// det
//===----------------------------------------------------------------------===//

Value DetOp::getOutputContainer() { return getResult(); }
SmallVector<Value> DetOp::getInputContainers() { return {getA()}; }
bool DetOp::accumulatesIntoOutput() { return false; }
// d det = det A^-T, d log|det| = A^-T; the sign is piecewise constant.
SmallVector<Value> DetOp::getReverseReads() {
  switch (getKind()) {
  case DetKind::det:
    return {getA(), getResult()};
  case DetKind::logabs:
    return {getA()};
  case DetKind::sign:
    return {};
  }
  llvm_unreachable("unknown determinant kind");
}
double DetOp::getWorkEstimate() {
  double n = extent(getA(), 0);
  return 2.0 / 3.0 * n * n * n + 2 * numElements(getA());
}
bool DetOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// cholesky
//===----------------------------------------------------------------------===//

Value CholeskyOp::getOutputContainer() { return getL(); }
SmallVector<Value> CholeskyOp::getInputContainers() { return {getA()}; }
bool CholeskyOp::accumulatesIntoOutput() { return false; }
// The rule needs only the factor: dA from L and dL.
SmallVector<Value> CholeskyOp::getReverseReads() { return {getL()}; }
double CholeskyOp::getWorkEstimate() {
  double n = extent(getA(), 0);
  return n * n * n / 3.0 + 2 * numElements(getA());
}
bool CholeskyOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// eigh
//===----------------------------------------------------------------------===//

Value EighOp::getOutputContainer() { return getResult(); }
SmallVector<Value> EighOp::getInputContainers() { return {getA()}; }
bool EighOp::accumulatesIntoOutput() { return false; }
// Both rules recompute what they need from A (the eigenvectors for the
// values' rule, the eigenvalues for the vectors'); the vectors' also
// reads its own result.
SmallVector<Value> EighOp::getReverseReads() {
  if (getPart() == EighPart::values)
    return {getA()};
  return {getA(), getResult()};
}
double EighOp::getWorkEstimate() {
  // Householder tridiagonalisation (4/3 n^3), plus the divide and conquer
  // and back-transformation of the vectors (about 8/3 n^3 more).
  double n = extent(getA(), 0);
  double flops = getPart() == EighPart::values ? 4.0 / 3.0 : 4.0;
  return flops * n * n * n + 2 * numElements(getA());
}
bool EighOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// qr
//===----------------------------------------------------------------------===//

Value QROp::getOutputContainer() { return getResult(); }
SmallVector<Value> QROp::getInputContainers() { return {getA()}; }
bool QROp::accumulatesIntoOutput() { return false; }
// Each rule computes the other factor again from A and reads its own.
SmallVector<Value> QROp::getReverseReads() { return {getA(), getResult()}; }
double QROp::getWorkEstimate() {
  // Householder QR: 2 m n^2 - 2/3 n^3 flops (m >= n), as much again to form
  // Q; a copy in and one out.
  double m = extent(getA(), 0), n = extent(getA(), 1);
  double k = std::min(m, n);
  double flops = 2 * std::max(m, n) * k * k - 2.0 / 3.0 * k * k * k;
  return (getPart() == QRPart::q ? 2 : 1) * flops + numElements(getA()) +
         numElements(getResult());
}
bool QROp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// svd
//===----------------------------------------------------------------------===//

Value SVDOp::getOutputContainer() { return getResult(); }
SmallVector<Value> SVDOp::getInputContainers() { return {getA()}; }
bool SVDOp::accumulatesIntoOutput() { return false; }
// Each rule computes the other factors again from A and reads its own.
SmallVector<Value> SVDOp::getReverseReads() { return {getA(), getResult()}; }
double SVDOp::getWorkEstimate() {
  // Bidiagonalisation (4 m n^2 - 4/3 n^3 for m >= n), about as much again
  // to form the vectors; copies in and out.
  double m = extent(getA(), 0), n = extent(getA(), 1);
  double big = std::max(m, n), k = std::min(m, n);
  double flops = 4 * big * k * k - 4.0 / 3.0 * k * k * k;
  bool vectors = getPart() != SVDPart::s || getWithVectors();
  return (vectors ? 2 : 1) * flops + numElements(getA()) +
         numElements(getResult());
}
bool SVDOp::callsLibrary() { return true; }

//===----------------------------------------------------------------------===//
// argsort
//===----------------------------------------------------------------------===//

Value ArgsortOp::getOutputContainer() { return getResult(); }
SmallVector<Value> ArgsortOp::getInputContainers() { return {getA()}; }
bool ArgsortOp::accumulatesIntoOutput() { return false; }
// Integer positions: no gradient, nothing to read.
SmallVector<Value> ArgsortOp::getReverseReads() { return {}; }
double ArgsortOp::getWorkEstimate() {
  // log2(n) merge passes, each a load, compare and store of both the key
  // and the position per element.
  double n = extent(getA(), getAxis());
  return numElements(getA()) * (4 * std::max(1.0, std::ceil(std::log2(n))) + 2);
}
bool ArgsortOp::callsLibrary() { return false; }

//===----------------------------------------------------------------------===//
// fft
//===----------------------------------------------------------------------===//

Value FftOp::getOutputContainer() { return getResult(); }
SmallVector<Value> FftOp::getInputContainers() { return {getA()}; }
bool FftOp::accumulatesIntoOutput() { return getAccumulate(); }
// Linear: the adjoint is the transform of the other sign applied to the
// cotangent, which needs no forward values.
SmallVector<Value> FftOp::getReverseReads() { return {}; }
double FftOp::getWorkEstimate() {
  // A butterfly (10 flops, 4 loads and stores) per pair per radix-2 stage
  // of every line; Bluestein's lengths run three transforms of the padded
  // length m >= 2n - 1.
  double n = extent(getA(), getAxis());
  double lines = numElements(getA()) / (2 * n);
  bool pow2 = (int64_t(n) & (int64_t(n) - 1)) == 0;
  double m = pow2 ? n : std::exp2(std::ceil(std::log2(2 * n - 1)));
  double stages = std::max(1.0, std::log2(m));
  double perLine = (pow2 ? 1 : 2) * 7 * m * stages + 8 * n;
  return lines * perLine;
}
bool FftOp::callsLibrary() { return false; }

Value SearchsortedOp::getOutputContainer() { return getResult(); }
SmallVector<Value> SearchsortedOp::getInputContainers() {
  return {getValues(), getSorted()};
}
bool SearchsortedOp::accumulatesIntoOutput() { return false; }
// Integer positions: no gradient, nothing to read.
SmallVector<Value> SearchsortedOp::getReverseReads() { return {}; }
double SearchsortedOp::getWorkEstimate() {
  // A load and a compare per halving of the vector, per value.
  double n = extent(getSorted(), 0);
  return numElements(getValues()) * (2 * std::ceil(std::log2(n + 1)) + 2);
}
bool SearchsortedOp::callsLibrary() { return false; }

// Library ops
//===----------------------------------------------------------------------===//

/// Checks that every container has the given ranks and a common float type.
static LogicalResult verifyFloatOperands(Operation *op,
                                         ArrayRef<MemRefType> types,
                                         ArrayRef<int64_t> ranks) {
  Type elt = types.front().getElementType();
  if (!isa<Float32Type, Float64Type>(elt))
    return op->emitOpError() << "supports f32 and f64 containers, not " << elt;
  for (auto [i, t, r] : llvm::enumerate(types, ranks)) {
    if (t.getElementType() != elt)
      return op->emitOpError("operands must have the same element type");
    if (t.getRank() != r)
      return op->emitOpError() << "operand " << i << " must have rank " << r
                               << ", got " << t.getRank();
  }
  return success();
}

/// Static extents must agree; dynamic ones are checked by the caller's
/// program logic.
static LogicalResult expectSameExtent(Operation *op, int64_t a, int64_t b,
                                      StringRef what) {
  if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
    return op->emitOpError() << what << " mismatch: " << a << " vs " << b;
  return success();
}

LogicalResult MatmulOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), c = getC().getType();
  MemRefType types[] = {a, b, c};
  for (auto [i, t] : llvm::enumerate(types))
    if (t.getRank() != 2 && t.getRank() != 3)
      return emitOpError() << "operand " << i << " must have rank 2 or 3, got "
                           << t.getRank();
  if (failed(verifyFloatOperands(*this, {a, b, c},
                                 {a.getRank(), b.getRank(), c.getRank()})))
    return failure();
  if (getC() == getA() || getC() == getB())
    return emitOpError("output must not alias an input");
  // Rank 3 operands share the leading (batch) extent; a rank 2 operand is
  // the same matrix for every batch entry, a rank 2 output their sum.
  if (a.getRank() == 2 && b.getRank() == 2 && c.getRank() == 3)
    return emitOpError("a batched output needs a batched input");
  int64_t batch = ShapedType::kDynamic;
  for (MemRefType t : types) {
    if (t.getRank() != 3)
      continue;
    if (failed(expectSameExtent(*this, batch, t.getDimSize(0), "batch extent")))
      return failure();
    if (!ShapedType::isDynamic(t.getDimSize(0)))
      batch = t.getDimSize(0);
  }
  unsigned ra = a.getRank() - 2, rb = b.getRank() - 2, rc = c.getRank() - 2;
  int64_t m = a.getDimSize(ra + (getTransposeA() ? 1 : 0));
  int64_t k1 = a.getDimSize(ra + (getTransposeA() ? 0 : 1));
  int64_t k2 = b.getDimSize(rb + (getTransposeB() ? 1 : 0));
  int64_t n = b.getDimSize(rb + (getTransposeB() ? 0 : 1));
  if (failed(expectSameExtent(*this, k1, k2, "inner dimension")) ||
      failed(expectSameExtent(*this, m, c.getDimSize(rc), "row count")) ||
      failed(expectSameExtent(*this, n, c.getDimSize(rc + 1), "column count")))
    return failure();
  return success();
}

LogicalResult GemvOp::verify() {
  MemRefType a = getA().getType(), x = getX().getType(), y = getY().getType();
  if (failed(verifyFloatOperands(*this, {a, x, y}, {2, 1, 1})))
    return failure();
  if (getY() == getX())
    return emitOpError("output must not alias an input");
  int64_t rows = a.getDimSize(getTranspose() ? 1 : 0);
  int64_t cols = a.getDimSize(getTranspose() ? 0 : 1);
  if (failed(expectSameExtent(*this, cols, x.getDimSize(0), "input length")) ||
      failed(expectSameExtent(*this, rows, y.getDimSize(0), "output length")))
    return failure();
  return success();
}

LogicalResult GerOp::verify() {
  MemRefType x = getX().getType(), y = getY().getType(), a = getA().getType();
  if (failed(verifyFloatOperands(*this, {x, y, a}, {1, 1, 2})))
    return failure();
  if (failed(expectSameExtent(*this, a.getDimSize(0), x.getDimSize(0),
                              "row count")) ||
      failed(expectSameExtent(*this, a.getDimSize(1), y.getDimSize(0),
                              "column count")))
    return failure();
  return success();
}

LogicalResult DotOp::verify() {
  MemRefType x = getX().getType(), y = getY().getType(),
             r = getResult().getType();
  if (failed(verifyFloatOperands(*this, {x, y, r}, {1, 1, 0})))
    return failure();
  return expectSameExtent(*this, x.getDimSize(0), y.getDimSize(0),
                          "vector length");
}

LogicalResult TransposeOp::verify() {
  MemRefType in = getInput().getType(), out = getOutput().getType();
  if (failed(verifyFloatOperands(*this, {in, out}, {2, 2})))
    return failure();
  if (getInput() == getOutput())
    return emitOpError("output must not alias the input");
  if (failed(expectSameExtent(*this, in.getDimSize(0), out.getDimSize(1),
                              "extent")) ||
      failed(expectSameExtent(*this, in.getDimSize(1), out.getDimSize(0),
                              "extent")))
    return failure();
  return success();
}

LogicalResult SolveOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType(), x = getX().getType();
  int64_t rhsRank = b.getRank();
  if (rhsRank != 1 && rhsRank != 2)
    return emitOpError() << "right-hand side must have rank 1 or 2, got "
                         << rhsRank;
  if (failed(verifyFloatOperands(*this, {a, b, x}, {2, rhsRank, rhsRank})))
    return failure();
  if (getX() == getA())
    return emitOpError("output must not alias the matrix");
  if (failed(expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                              "square matrix extent")) ||
      failed(expectSameExtent(*this, a.getDimSize(0), b.getDimSize(0),
                              "right-hand side length")))
    return failure();
  for (int64_t d = 0; d < rhsRank; ++d)
    if (failed(expectSameExtent(*this, b.getDimSize(d), x.getDimSize(d),
                                "solution extent")))
      return failure();
  return success();
}

LogicalResult DetOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  if (failed(verifyFloatOperands(*this, {a, r}, {2, 0})))
    return failure();
  return expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                          "square matrix extent");
}

LogicalResult CholeskyOp::verify() {
  MemRefType a = getA().getType(), l = getL().getType();
  if (failed(verifyFloatOperands(*this, {a, l}, {2, 2})))
    return failure();
  if (getA() == getL())
    return emitOpError("output must not alias the input");
  if (failed(expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                              "square matrix extent")))
    return failure();
  for (int64_t d = 0; d < 2; ++d)
    if (failed(expectSameExtent(*this, a.getDimSize(d), l.getDimSize(d),
                                "factor extent")))
      return failure();
  return success();
}

LogicalResult EighOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  bool vectors = getPart() == EighPart::vectors;
  if (failed(verifyFloatOperands(*this, {a, r}, {2, vectors ? 2 : 1})))
    return failure();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  if (failed(expectSameExtent(*this, a.getDimSize(0), a.getDimSize(1),
                              "square matrix extent")))
    return failure();
  for (int64_t d = 0; d < r.getRank(); ++d)
    if (failed(expectSameExtent(*this, a.getDimSize(0), r.getDimSize(d),
                                vectors ? "eigenvector matrix extent"
                                        : "eigenvalue count")))
      return failure();
  return success();
}

/// min(m, n) of two extents, dynamic when either is.
static int64_t smallerExtent(int64_t m, int64_t n) {
  return ShapedType::isDynamic(m) || ShapedType::isDynamic(n)
             ? ShapedType::kDynamic
             : std::min(m, n);
}

LogicalResult QROp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  if (failed(verifyFloatOperands(*this, {a, r}, {2, 2})))
    return failure();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  // Q is m x k, R is k x n, k = min(m, n) (known when both are static).
  int64_t m = a.getDimSize(0), n = a.getDimSize(1);
  int64_t k = smallerExtent(m, n);
  bool q = getPart() == QRPart::q;
  if (failed(expectSameExtent(*this, q ? m : k, r.getDimSize(0),
                              q ? "Q row count" : "R row count")) ||
      failed(expectSameExtent(*this, q ? k : n, r.getDimSize(1),
                              q ? "Q column count" : "R column count")))
    return failure();
  return success();
}

LogicalResult SVDOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  bool values = getPart() == SVDPart::s;
  if (failed(verifyFloatOperands(*this, {a, r}, {2, values ? 1 : 2})))
    return failure();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  // U is m x k, s is k, Vh is k x n, k = min(m, n) (known when static).
  int64_t m = a.getDimSize(0), n = a.getDimSize(1);
  int64_t k = smallerExtent(m, n);
  switch (getPart()) {
  case SVDPart::u:
    if (failed(expectSameExtent(*this, m, r.getDimSize(0), "U row count")) ||
        failed(expectSameExtent(*this, k, r.getDimSize(1), "U column count")))
      return failure();
    break;
  case SVDPart::s:
    if (failed(expectSameExtent(*this, k, r.getDimSize(0),
                                "singular value count")))
      return failure();
    break;
  case SVDPart::vh:
    if (failed(expectSameExtent(*this, k, r.getDimSize(0), "Vh row count")) ||
        failed(expectSameExtent(*this, n, r.getDimSize(1), "Vh column count")))
      return failure();
    break;
  }
  if (!values && getWithVectors())
    return emitOpError("with_vectors applies to the singular values only");
  return success();
}

LogicalResult ArgsortOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  Type elt = a.getElementType();
  if (!isa<FloatType>(elt) && !(elt.isSignlessInteger() && !elt.isInteger(1)))
    return emitOpError() << "sorts floats or integers, not " << elt;
  if (!r.getElementType().isInteger(64))
    return emitOpError() << "result must hold i64 positions, not "
                         << r.getElementType();
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  if (a.getRank() == 0)
    return emitOpError("needs an array of rank at least 1");
  if (r.getRank() != a.getRank())
    return emitOpError() << "result rank " << r.getRank()
                         << " differs from the input's " << a.getRank();
  for (int64_t d = 0; d < a.getRank(); ++d)
    if (failed(expectSameExtent(*this, a.getDimSize(d), r.getDimSize(d),
                                "result extent")))
      return failure();
  // Read signed: the attribute's getter is unsigned.
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= a.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << a.getRank();
  return success();
}

LogicalResult FftOp::verify() {
  MemRefType a = getA().getType(), r = getResult().getType();
  Type elt = a.getElementType();
  if (!elt.isF64() && !elt.isF32())
    return emitOpError() << "transforms f64 or f32 complex data, not " << elt;
  if (a != r)
    return emitOpError() << "result type " << r << " differs from the input's "
                         << a;
  if (getA() == getResult())
    return emitOpError("output must not alias the input");
  if (a.getRank() < 2)
    return emitOpError("needs complex data: rank at least 2, the last "
                       "dimension (re, im) of extent 2");
  if (a.getDimSize(a.getRank() - 1) != 2)
    return emitOpError() << "the last dimension holds (re, im) and must have "
                            "extent 2, not "
                         << a.getDimSize(a.getRank() - 1);
  // Read signed: the attribute's getter is unsigned.
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0 || axis >= a.getRank() - 1)
    return emitOpError() << "axis " << axis << " out of range: the data has "
                         << a.getRank() - 1 << " complex dimension(s)";
  if (a.getDimSize(axis) == 0)
    return emitOpError("transforms lines of length at least 1, not 0");
  return success();
}

LogicalResult SearchsortedOp::verify() {
  MemRefType v = getValues().getType(), a = getSorted().getType(),
             r = getResult().getType();
  Type elt = a.getElementType();
  if (!isa<FloatType>(elt) && !(elt.isSignlessInteger() && !elt.isInteger(1)))
    return emitOpError() << "searches floats or integers, not " << elt;
  if (v.getElementType() != elt)
    return emitOpError() << "values of type " << v.getElementType()
                         << " searched in a vector of " << elt;
  if (a.getRank() != 1)
    return emitOpError() << "the sorted operand must be 1-d, not of rank "
                         << a.getRank();
  if (!r.getElementType().isInteger(64))
    return emitOpError() << "result must hold i64 positions, not "
                         << r.getElementType();
  if (getResult() == getValues() || getResult() == getSorted())
    return emitOpError("output must not alias an input");
  if (r.getRank() != v.getRank())
    return emitOpError() << "result rank " << r.getRank()
                         << " differs from the values' " << v.getRank();
  for (int64_t d = 0; d < v.getRank(); ++d)
    if (failed(expectSameExtent(*this, v.getDimSize(d), r.getDimSize(d),
                                "result extent")))
      return failure();
  return success();
}

LogicalResult ReduceOp::verify() {
  MemRefType in = getInput().getType(), out = getOutput().getType();
  if (getInput() == getOutput())
    return emitOpError("output must not alias the input");
  if (in.getElementType() != out.getElementType())
    return emitOpError("input and output element types differ");
  if (!isScalarType(in.getElementType()) || in.getElementType().isInteger(1))
    return emitOpError() << "unsupported element type " << in.getElementType();
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError("needs at least one axis");
  for (auto [i, a] : llvm::enumerate(axes)) {
    if (a < 0 || a >= in.getRank())
      return emitOpError() << "axis " << a << " is out of range for rank "
                           << in.getRank();
    if (i > 0 && a <= axes[i - 1])
      return emitOpError("axes must be strictly increasing");
  }
  bool keepDims = out.getRank() == in.getRank();
  if (!keepDims &&
      out.getRank() != in.getRank() - static_cast<int64_t>(axes.size()))
    return emitOpError() << "output rank " << out.getRank()
                         << " must be the input rank " << in.getRank()
                         << " without the reduced axes, or equal to it";
  unsigned o = 0;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    bool reduced = llvm::is_contained(axes, d);
    if (reduced && !keepDims)
      continue;
    int64_t expected = reduced ? 1 : in.getDimSize(d);
    if (failed(expectSameExtent(*this, expected, out.getDimSize(o++),
                                "output extent")))
      return failure();
  }
  return success();
}
