//===- LibraryOps.cpp - LibraryOpInterface of the library ops -------------===//
//
// What each library op reads, writes and costs, for the analyses that treat
// library ops as opaque steps (see LibraryOpInterface.td).
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::sdfg;

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
