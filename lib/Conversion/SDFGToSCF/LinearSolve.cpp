//===- LinearSolve.cpp - Lower sdfg's dense linear algebra to LAPACK ------===//
//
// sdfg.solve and sdfg.det to getrf/getrs, sdfg.cholesky to potrf,
// sdfg.eigh to syevd, sdfg.qr to geqrf (and orgqr for Q), sdfg.svd to
// gesdd.
//
// LAPACK is column-major: the matrix is factorised from a transposed copy
// (so the factors are A's, bit for bit NumPy's), `A X = B` is getrs with
// trans = 'N' and `A^T X = B` with 'T'. The right-hand sides go in as the
// columns of a k x n row-major scratch (column-major n x k).
//
// Factorising is O(n^3), solving O(n^2 k): solves on a container of static
// shape share one cache of the last matrix factorised and its factors,
// allocated over the top-level steps that solve with it (SDFGToSCF.cpp).
// A solve compares the matrix with the cached copy (memcmp) and factorises
// only when it differs, so reuse never depends on an analysis of what
// wrote the matrix: an implicit time loop factorises once, and the
// gradient's transposed solves reuse the forward's factors. The
// eigendecompositions keep such a cache too: `np.linalg.eigh` is a vectors'
// and a values' op on one matrix, and each one's reverse rule recomputes
// the other's result; with the cache all of them share one syevd. So do
// the QR (one geqrf, one orgqr) and singular value (one gesdd)
// decompositions.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "sdfg/Dialect/SDFG/Analysis/Factorisation.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// The exported i64 a singular system writes its op's line to (0: none).
static constexpr StringLiteral kLinalgError = "sdfg_linalg_error";

/// A stack slot in the entry block of the function around the insertion
/// point (a slot at the call would grow the stack per loop iteration).
static Value entrySlot(OpBuilder &b, Location loc, Type type) {
  Block *entry = entryBlock(b);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(entry);
  return memref::AllocaOp::create(b, loc, MemRefType::get({}, type));
}

/// A LAPACK call that found no result (a zero pivot, a matrix that is not
/// positive definite): `result` is filled with NaN rather than the
/// division by zero's mix of infinities, and the op's line goes to the
/// exported flag for the caller to report.
static void reportFailure(OpBuilder &b, Location loc, ModuleOp module,
                          Value result) {
  Type elt = cast<MemRefType>(result.getType()).getElementType();
  Value nan = arith::ConstantOp::create(
      b, loc, elt,
      b.getFloatAttr(elt, std::numeric_limits<double>::quiet_NaN()));
  forEachElement(b, loc, result, [&](ValueRange ivs) {
    memref::StoreOp::create(b, loc, nan, result, ivs);
  });
  memref::GlobalOp global = errorGlobal(module, kLinalgError, {});
  Value flag = memref::GetGlobalOp::create(b, loc, global.getType(),
                                           global.getSymName());
  Value line = arith::ConstantIntOp::create(b, loc, sourceLine(loc), 64);
  memref::StoreOp::create(b, loc, line, flag, ValueRange{});
}

/// `dst[j, i] = src[i, j]`: a row-major matrix into LAPACK's column-major
/// order.
static void copyTransposed(OpBuilder &b, Location loc, Value src, Value dst) {
  forEachElement(b, loc, src, [&](ValueRange ivs) {
    Value v = memref::LoadOp::create(b, loc, src, ivs);
    memref::StoreOp::create(b, loc, v, dst, ValueRange{ivs[1], ivs[0]});
  });
}

static Value constI32(OpBuilder &b, Location loc, int32_t v) {
  return arith::ConstantIntOp::create(b, loc, v, 32);
}

void Lowering::allocFactorisationCache(Location loc,
                                       const FactorisedMatrix &m) {
  auto type = cast<MemRefType>(m.matrix.getType());
  Type elt = type.getElementType();
  // Empty until the first factorisation.
  auto emptyState = [&] {
    Value state = entrySlot(b, loc, b.getI8Type());
    memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 0, 8),
                            state);
    return state;
  };
  if (m.kind == FactorisationKind::Eigen) {
    EigenCache c;
    c.matrix = memref::AllocOp::create(b, loc, type);
    c.vectors = memref::AllocOp::create(b, loc, type);
    c.values = memref::AllocOp::create(
        b, loc, MemRefType::get({type.getDimSize(0)}, elt));
    c.info = entrySlot(b, loc, b.getI32Type());
    c.state = emptyState();
    eigenCaches[m.matrix] = c;
    return;
  }
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  int64_t k = std::min(rows, cols);
  if (m.kind == FactorisationKind::QR) {
    QRCache c;
    c.matrix = memref::AllocOp::create(b, loc, type);
    c.factors =
        memref::AllocOp::create(b, loc, MemRefType::get({cols, rows}, elt));
    c.tau = memref::AllocOp::create(
        b, loc, MemRefType::get({std::max<int64_t>(k, 1)}, elt));
    c.q = memref::AllocOp::create(b, loc, MemRefType::get({k, rows}, elt));
    c.state = emptyState();
    qrCaches[m.matrix] = c;
    return;
  }
  if (m.kind == FactorisationKind::SVD) {
    SVDCache c;
    c.matrix = memref::AllocOp::create(b, loc, type);
    c.values = memref::AllocOp::create(
        b, loc, MemRefType::get({std::max<int64_t>(k, 1)}, elt));
    c.u = memref::AllocOp::create(b, loc, MemRefType::get({k, rows}, elt));
    c.vt = memref::AllocOp::create(b, loc, MemRefType::get({cols, k}, elt));
    c.info = entrySlot(b, loc, b.getI32Type());
    c.state = emptyState();
    svdCaches[m.matrix] = c;
    return;
  }
  SolveCache c;
  c.matrix = memref::AllocOp::create(b, loc, type);
  c.factors = memref::AllocOp::create(b, loc, type);
  c.pivots = memref::AllocOp::create(
      b, loc, MemRefType::get({type.getDimSize(0)}, b.getI32Type()));
  c.info = entrySlot(b, loc, b.getI32Type());
  c.valid = emptyState();
  solveCaches[m.matrix] = c;
}

void Lowering::freeFactorisationCache(Location loc, const FactorisedMatrix &m) {
  SmallVector<Value, 4> buffers;
  if (m.kind == FactorisationKind::Eigen) {
    EigenCache c = eigenCaches.lookup(m.matrix);
    buffers = {c.matrix, c.vectors, c.values};
    eigenCaches.erase(m.matrix);
  } else if (m.kind == FactorisationKind::QR) {
    QRCache c = qrCaches.lookup(m.matrix);
    buffers = {c.matrix, c.factors, c.tau, c.q};
    qrCaches.erase(m.matrix);
  } else if (m.kind == FactorisationKind::SVD) {
    SVDCache c = svdCaches.lookup(m.matrix);
    buffers = {c.matrix, c.values, c.u, c.vt};
    svdCaches.erase(m.matrix);
  } else {
    SolveCache c = solveCaches.lookup(m.matrix);
    buffers = {c.matrix, c.factors, c.pivots};
    solveCaches.erase(m.matrix);
  }
  for (Value v : buffers)
    memref::DeallocOp::create(b, loc, v);
}

void Lowering::refreshUnlessCached(Location loc, Value a, Value cached,
                                   Value state, int64_t need,
                                   function_ref<void()> refresh) {
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value needed = arith::ConstantIntOp::create(b, loc, need, 8);
  Value present = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::uge,
      memref::LoadOp::create(b, loc, state, ValueRange{}), needed);
  // memcmp only when the cache holds enough.
  auto same = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()}, present,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&same.getThenRegion().front());
  func::FuncOp memcmp = getOrDeclare(
      loc, "memcmp", b.getFunctionType({ptr, ptr, b.getI64Type()}, {i32}));
  auto type = cast<MemRefType>(a.getType());
  // Representable: the verifiers bound every container's bytes.
  int64_t bytes = checkedByteSize(type).value_or(0);
  Value diff = func::CallOp::create(
                   b, loc, memcmp,
                   ValueRange{basePointer(loc, a), basePointer(loc, cached),
                              arith::ConstantIntOp::create(b, loc, bytes, 64)})
                   .getResult(0);
  scf::YieldOp::create(b, loc,
                       ValueRange{arith::CmpIOp::create(
                           b, loc, arith::CmpIPredicate::eq, diff,
                           arith::ConstantIntOp::create(b, loc, 0, 32))});
  b.setInsertionPointToStart(&same.getElseRegion().front());
  scf::YieldOp::create(b, loc,
                       ValueRange{arith::ConstantIntOp::create(b, loc, 0, 1)});
  b.setInsertionPointAfter(same);
  Value miss = arith::XOrIOp::create(
      b, loc, same.getResult(0), arith::ConstantIntOp::create(b, loc, 1, 1));
  auto branch = scf::IfOp::create(b, loc, miss, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  memref::CopyOp::create(b, loc, a, cached);
  refresh();
  memref::StoreOp::create(b, loc, needed, state);
}

/// `succeeded` at the builder's insertion point in the branch where
/// LAPACK's `info` is 0; in the other, `result` holds NaN and the op's line
/// goes to the exported flag (reportFailure).
static void ifSucceeded(OpBuilder &b, Location loc, ModuleOp module, Value info,
                        Value result, function_ref<void()> succeeded) {
  Value ok = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq,
      memref::LoadOp::create(b, loc, info, ValueRange{}), constI32(b, loc, 0));
  auto branch = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  succeeded();
  b.setInsertionPointToStart(&branch.getElseRegion().front());
  reportFailure(b, loc, module, result);
}

/// Fortran passes every scalar by reference.
static Value byRef(OpBuilder &b, Location loc, Value v) {
  Value slot = entrySlot(b, loc, v.getType());
  memref::StoreOp::create(b, loc, v, slot);
  return slot;
}

/// LAPACK's n and leading dimension (max(n, 1)) of the square `a`, as
/// i32 slots to pass by reference.
static std::pair<Value, Value> orderRefs(OpBuilder &b, Location loc, Value a) {
  Value n = arith::IndexCastOp::create(b, loc, b.getI32Type(),
                                       memref::DimOp::create(b, loc, a, 0));
  return {
      byRef(b, loc, n),
      byRef(b, loc, arith::MaxSIOp::create(b, loc, n, constI32(b, loc, 1)))};
}

/// A new column-major copy of the square `a` (the caller frees it): to
/// LAPACK it is `a` itself, and its lower triangle ('L') is the row-major
/// lower triangle NumPy reads.
static Value columnMajorCopy(OpBuilder &b, Location loc, Value a) {
  auto type = cast<MemRefType>(a.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < 2; ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, a, d));
  Value f = memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), sizes);
  copyTransposed(b, loc, a, f);
  return f;
}

Lowering::LUFactors Lowering::factorise(Location loc, Value matrix) {
  Value a = mapping.lookup(matrix);
  auto aType = cast<MemRefType>(a.getType());
  Type elt = aType.getElementType();
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  LUFactors lu;
  std::tie(lu.nRef, lu.ldRef) = orderRefs(b, loc, a);
  func::FuncOp getrf =
      getOrDeclare(loc, elt.isF64() ? "dgetrf_" : "sgetrf_",
                   b.getFunctionType({ptr, ptr, ptr, ptr, ptr, ptr}, {}));
  auto factoriseInto = [&](Value factors, Value pivots, Value info) {
    // Transposed into LAPACK's column-major order: the factors are A's,
    // as NumPy's are (A^T's would round differently, and an exactly zero
    // pivot of one need not be one of the other).
    copyTransposed(b, loc, a, factors);
    func::CallOp::create(
        b, loc, getrf,
        ValueRange{basePointer(loc, lu.nRef), basePointer(loc, lu.nRef),
                   basePointer(loc, factors), basePointer(loc, lu.ldRef),
                   basePointer(loc, pivots), basePointer(loc, info)});
  };

  auto it = solveCaches.find(matrix);
  if (it == solveCaches.end()) {
    // Dynamic shapes: factorise per call into scratch.
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < 2; ++d)
      if (aType.isDynamicDim(d))
        sizes.push_back(memref::DimOp::create(b, loc, a, d));
    lu.factors = memref::AllocOp::create(
        b, loc, MemRefType::get(aType.getShape(), elt), sizes);
    lu.pivots = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, i32),
        ValueRange{memref::DimOp::create(b, loc, a, 0)});
    lu.info = entrySlot(b, loc, i32);
    factoriseInto(lu.factors, lu.pivots, lu.info);
    lu.scratch = {lu.factors, lu.pivots};
    return lu;
  }
  SolveCache c = it->second;
  lu.factors = c.factors, lu.pivots = c.pivots, lu.info = c.info;
  // Reuse the factors when the matrix is, bit for bit, the one they came
  // from.
  refreshUnlessCached(loc, a, c.matrix, c.valid, 1,
                      [&] { factoriseInto(lu.factors, lu.pivots, lu.info); });
  return lu;
}

LogicalResult Lowering::lowerSolve(SolveOp op) {
  Location loc = op.getLoc();
  Value rhs = mapping.lookup(op.getB()), x = mapping.lookup(op.getX());
  Type elt = op.getA().getType().getElementType();
  bool vector = cast<MemRefType>(rhs.getType()).getRank() == 1;
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  LUFactors lu = factorise(loc, op.getA());
  Value n = memref::DimOp::create(b, loc, mapping.lookup(op.getA()), 0);
  Value k = vector ? arith::ConstantIndexOp::create(b, loc, 1).getResult()
                   : memref::DimOp::create(b, loc, rhs, 1).getResult();
  int64_t dyn = ShapedType::kDynamic;
  Value cols = memref::AllocOp::create(b, loc, MemRefType::get({dyn, dyn}, elt),
                                       ValueRange{k, n});
  lu.scratch.push_back(cols);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  // A zero pivot: no solution to give.
  ifSucceeded(b, loc, module, lu.info, x, [&] {
    // Read all of B before writing X: X may be B.
    forEachElement(b, loc, rhs, [&](ValueRange ivs) {
      Value v = memref::LoadOp::create(b, loc, rhs, ivs);
      memref::StoreOp::create(b, loc, v, cols,
                              ValueRange{vector ? zero : ivs[1], ivs[0]});
    });
    Value trans = byRef(
        b, loc,
        arith::ConstantIntOp::create(b, loc, op.getTranspose() ? 'T' : 'N', 8));
    Value kRef = byRef(b, loc, arith::IndexCastOp::create(b, loc, i32, k));
    // The trailing argument is the hidden length of the character
    // argument (gfortran's calling convention).
    func::FuncOp getrs = getOrDeclare(
        loc, elt.isF64() ? "dgetrs_" : "sgetrs_",
        b.getFunctionType(
            {ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, b.getI64Type()}, {}));
    Value solveInfo = entrySlot(b, loc, i32);
    func::CallOp::create(
        b, loc, getrs,
        ValueRange{basePointer(loc, trans), basePointer(loc, lu.nRef),
                   basePointer(loc, kRef), basePointer(loc, lu.factors),
                   basePointer(loc, lu.ldRef), basePointer(loc, lu.pivots),
                   basePointer(loc, cols), basePointer(loc, lu.ldRef),
                   basePointer(loc, solveInfo),
                   arith::ConstantIntOp::create(b, loc, 1, 64)});
    forEachElement(b, loc, x, [&](ValueRange ivs) {
      Value v = memref::LoadOp::create(
          b, loc, cols, ValueRange{vector ? zero : ivs[1], ivs[0]});
      memref::StoreOp::create(b, loc, v, x, ivs);
    });
  });
  for (Value v : lu.scratch)
    memref::DeallocOp::create(b, loc, v);
  return success();
}

LogicalResult Lowering::lowerDet(DetOp op) {
  Location loc = op.getLoc();
  Type elt = op.getA().getType().getElementType();
  LUFactors lu = factorise(loc, op.getA());
  // det A = (-1)^(row interchanges) * prod U_ii. An exactly singular A
  // (getrf's info > 0) still has its complete factors, with a zero U_ii:
  // 0, sign 0 and log 0 = -inf follow without a branch, as in NumPy.
  Value n = memref::DimOp::create(b, loc, mapping.lookup(op.getA()), 0);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  DetKind kind = op.getKind();
  auto real = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, elt, b.getFloatAttr(elt, v));
  };
  Value init = real(kind == DetKind::logabs ? 0.0 : 1.0);
  auto loop = scf::ForOp::create(
      b, loc, zero, n, one,
      ValueRange{init, arith::ConstantIntOp::create(b, loc, 0, 1)});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value i = loop.getInductionVar();
    Value acc = loop.getRegionIterArgs()[0];
    Value odd = loop.getRegionIterArgs()[1];
    Value u = memref::LoadOp::create(b, loc, lu.factors, ValueRange{i, i});
    // Pivots are 1-based row numbers: row i was swapped unless ipiv = i+1.
    Value piv = memref::LoadOp::create(b, loc, lu.pivots, ValueRange{i});
    Value row = arith::IndexCastOp::create(
        b, loc, b.getI32Type(), arith::AddIOp::create(b, loc, i, one));
    Value swapped =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, piv, row);
    odd = arith::XOrIOp::create(b, loc, odd, swapped);
    if (kind == DetKind::det) {
      acc = arith::MulFOp::create(b, loc, acc, u);
    } else if (kind == DetKind::logabs) {
      Value mag = math::AbsFOp::create(b, loc, u);
      acc =
          arith::AddFOp::create(b, loc, acc, math::LogOp::create(b, loc, mag));
    } else {
      // sign(u): -1, 0 or 1.
      Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, u,
                                        real(0.0));
      Value neg = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, u,
                                        real(0.0));
      Value s = arith::SelectOp::create(
          b, loc, pos, real(1.0),
          arith::SelectOp::create(b, loc, neg, real(-1.0), real(0.0)));
      acc = arith::MulFOp::create(b, loc, acc, s);
    }
    scf::YieldOp::create(b, loc, ValueRange{acc, odd});
  }
  Value result = loop.getResult(0);
  if (kind != DetKind::logabs) {
    Value negated = arith::NegFOp::create(b, loc, result);
    result =
        arith::SelectOp::create(b, loc, loop.getResult(1), negated, result);
  }
  memref::StoreOp::create(b, loc, result, mapping.lookup(op.getResult()),
                          ValueRange{});
  for (Value v : lu.scratch)
    memref::DeallocOp::create(b, loc, v);
  return success();
}

LogicalResult Lowering::lowerCholesky(CholeskyOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), l = mapping.lookup(op.getL());
  auto type = cast<MemRefType>(a.getType());
  Type elt = type.getElementType();
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value f = columnMajorCopy(b, loc, a);
  auto [nRef, ldRef] = orderRefs(b, loc, a);
  Value uplo = byRef(b, loc, arith::ConstantIntOp::create(b, loc, 'L', 8));
  Value info = entrySlot(b, loc, i32);
  func::FuncOp potrf = getOrDeclare(
      loc, elt.isF64() ? "dpotrf_" : "spotrf_",
      b.getFunctionType({ptr, ptr, ptr, ptr, ptr, b.getI64Type()}, {}));
  func::CallOp::create(b, loc, potrf,
                       ValueRange{basePointer(loc, uplo),
                                  basePointer(loc, nRef), basePointer(loc, f),
                                  basePointer(loc, ldRef),
                                  basePointer(loc, info),
                                  arith::ConstantIntOp::create(b, loc, 1, 64)});
  // Not positive definite: no factor to give.
  ifSucceeded(b, loc, module, info, l, [&] {
    Value zero = arith::ConstantOp::create(b, loc, elt, b.getFloatAttr(elt, 0));
    forEachElement(b, loc, l, [&](ValueRange ivs) {
      Value lower = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                          ivs[0], ivs[1]);
      Value v = memref::LoadOp::create(b, loc, f, ValueRange{ivs[1], ivs[0]});
      memref::StoreOp::create(
          b, loc, arith::SelectOp::create(b, loc, lower, v, zero), l, ivs);
    });
  });
  memref::DeallocOp::create(b, loc, f);
  return success();
}

LogicalResult Lowering::lowerEigh(EighOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), result = mapping.lookup(op.getResult());
  auto type = cast<MemRefType>(a.getType());
  Type elt = type.getElementType();
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  bool vectors = op.getPart() == EighPart::vectors;
  Value nIdx = memref::DimOp::create(b, loc, a, 0);
  // syevd of the column-major copy `f` of A, eigenvalues into `w`: it
  // overwrites `f` with the eigenvectors (as columns) when asked for them.
  auto decompose = [&](Value f, Value w, Value info) {
    Value nRef, ldRef;
    std::tie(nRef, ldRef) = orderRefs(b, loc, a);
    Value jobz = byRef(
        b, loc, arith::ConstantIntOp::create(b, loc, vectors ? 'V' : 'N', 8));
    Value uplo = byRef(b, loc, arith::ConstantIntOp::create(b, loc, 'L', 8));
    Type i64 = b.getI64Type();
    func::FuncOp syevd =
        getOrDeclare(loc, elt.isF64() ? "dsyevd_" : "ssyevd_",
                     b.getFunctionType({ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr,
                                        ptr, ptr, ptr, i64, i64},
                                       {}));
    Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
    auto call = [&](Value work, Value lwork, Value iwork, Value liwork) {
      func::CallOp::create(
          b, loc, syevd,
          ValueRange{basePointer(loc, jobz), basePointer(loc, uplo),
                     basePointer(loc, nRef), basePointer(loc, f),
                     basePointer(loc, ldRef), basePointer(loc, w),
                     basePointer(loc, work), basePointer(loc, lwork),
                     basePointer(loc, iwork), basePointer(loc, liwork),
                     basePointer(loc, info), one, one});
    };
    // A workspace query first, as NumPy makes: with the optimal workspace
    // the tridiagonalisation runs blocked, and its rounding is NumPy's.
    Value workSize = entrySlot(b, loc, elt), iworkSize = entrySlot(b, loc, i32);
    call(workSize, byRef(b, loc, constI32(b, loc, -1)), iworkSize,
         byRef(b, loc, constI32(b, loc, -1)));
    Value lwork = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::FPToSIOp::create(
            b, loc, i32,
            memref::LoadOp::create(b, loc, workSize, ValueRange{})));
    Value liwork = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        memref::LoadOp::create(b, loc, iworkSize, ValueRange{}));
    // Never below the documented minimum (1 + 6n + 2n^2 and 3 + 5n with
    // vectors, 2n + 1 and 1 without).
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value minWork, minIwork;
    if (vectors) {
      Value nn = arith::MulIOp::create(b, loc, nIdx, nIdx);
      minWork = arith::AddIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, idx(1),
                                arith::MulIOp::create(b, loc, idx(6), nIdx)),
          arith::MulIOp::create(b, loc, idx(2), nn));
      minIwork = arith::AddIOp::create(
          b, loc, idx(3), arith::MulIOp::create(b, loc, idx(5), nIdx));
    } else {
      minWork = arith::AddIOp::create(
          b, loc, idx(1), arith::MulIOp::create(b, loc, idx(2), nIdx));
      minIwork = idx(1);
    }
    lwork = arith::MaxSIOp::create(b, loc, lwork, minWork);
    liwork = arith::MaxSIOp::create(b, loc, liwork, minIwork);
    Value work = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, elt),
        ValueRange{lwork});
    Value iwork = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, i32),
        ValueRange{liwork});
    auto i32Ref = [&](Value v) {
      return byRef(b, loc, arith::IndexCastOp::create(b, loc, i32, v));
    };
    call(work, i32Ref(lwork), iwork, i32Ref(liwork));
    for (Value v : {work, iwork})
      memref::DeallocOp::create(b, loc, v);
  };

  Value f, w, info;
  SmallVector<Value, 2> scratch;
  auto it = eigenCaches.find(op.getA());
  if (it == eigenCaches.end()) {
    // Dynamic shapes: decompose per call into scratch.
    f = columnMajorCopy(b, loc, a);
    w = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, elt), ValueRange{nIdx});
    info = entrySlot(b, loc, i32);
    decompose(f, w, info);
    scratch = {f, w};
  } else {
    // Reuse the last decomposition when it is of this matrix, bit for bit,
    // and has what this op needs (the vectors' op needs the vectors; the
    // values' op takes the values of either).
    EigenCache c = it->second;
    f = c.vectors, w = c.values, info = c.info;
    refreshUnlessCached(loc, a, c.matrix, c.state, vectors ? 2 : 1, [&] {
      copyTransposed(b, loc, a, f);
      decompose(f, w, info);
    });
  }
  // No convergence: no result to give.
  ifSucceeded(b, loc, module, info, result, [&] {
    forEachElement(b, loc, result, [&](ValueRange ivs) {
      // Column k of the column-major f is eigenvector k: V[i, k] = f[k, i]
      // in memref (row-major) indexing.
      Value v = vectors ? memref::LoadOp::create(b, loc, f,
                                                 ValueRange{ivs[1], ivs[0]})
                        : memref::LoadOp::create(b, loc, w, ivs);
      memref::StoreOp::create(b, loc, v, result, ivs);
    });
  });
  for (Value v : scratch)
    memref::DeallocOp::create(b, loc, v);
  return success();
}

/// LAPACK's `name` taking (dims..., A, lda, tau, work, lwork, info) by
/// reference, called after the workspace query NumPy makes too (the
/// blocked algorithm, NumPy's rounding), with a workspace of at least
/// `minWork` elements.
void Lowering::withWorkspace(Location loc, Type elt, Value minWork,
                             function_ref<void(Value, Value)> call) {
  Type i32 = b.getI32Type();
  Value size = entrySlot(b, loc, elt);
  call(size, byRef(b, loc, constI32(b, loc, -1)));
  Value lwork = arith::MaxSIOp::create(
      b, loc,
      arith::FPToSIOp::create(
          b, loc, i32, memref::LoadOp::create(b, loc, size, ValueRange{})),
      arith::MaxSIOp::create(b, loc, minWork, constI32(b, loc, 1)));
  Value work = memref::AllocOp::create(
      b, loc, MemRefType::get({ShapedType::kDynamic}, elt),
      ValueRange{arith::IndexCastOp::create(b, loc, b.getIndexType(), lwork)});
  call(work, byRef(b, loc, lwork));
  memref::DeallocOp::create(b, loc, work);
}

void Lowering::callWithWorkspace(Location loc, StringRef name,
                                 ArrayRef<Value> dims, Value f, Value ld,
                                 Value tau, Value info, Value minWork) {
  Type elt = cast<MemRefType>(f.getType()).getElementType();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  SmallVector<Type> args(dims.size() + 6, ptr);
  func::FuncOp fn = getOrDeclare(loc, name, b.getFunctionType(args, {}));
  withWorkspace(loc, elt, minWork, [&](Value work, Value lwork) {
    SmallVector<Value> operands;
    for (Value d : dims)
      operands.push_back(basePointer(loc, byRef(b, loc, d)));
    for (Value v : {f, ld, tau, work, lwork, info})
      operands.push_back(basePointer(loc, v));
    func::CallOp::create(b, loc, fn, operands);
  });
}

LogicalResult Lowering::lowerQR(QROp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), result = mapping.lookup(op.getResult());
  auto type = cast<MemRefType>(a.getType());
  Type elt = type.getElementType();
  Type i32 = b.getI32Type();
  bool q = op.getPart() == QRPart::q, f64 = elt.isF64();
  Value mIdx = memref::DimOp::create(b, loc, a, 0);
  Value nIdx = memref::DimOp::create(b, loc, a, 1);
  Value kIdx = arith::MinSIOp::create(b, loc, mIdx, nIdx);
  auto i32Of = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, i32, v).getResult();
  };
  Value m = i32Of(mIdx), n = i32Of(nIdx), k = i32Of(kIdx);
  Value ld =
      byRef(b, loc, arith::MaxSIOp::create(b, loc, m, constI32(b, loc, 1)));
  Value info = entrySlot(b, loc, i32);
  // geqrf on the column-major m x n `f` (f[j, i] = A[i, j], leading
  // dimension m); orgqr forms Q in the first k columns of `g` holding
  // geqrf's factors. Householder QR always completes (info < 0 is an
  // argument error, which these calls do not make).
  auto geqrf = [&](Value f, Value tau) {
    callWithWorkspace(loc, f64 ? "dgeqrf_" : "sgeqrf_", {m, n}, f, ld, tau,
                      info, n);
  };
  auto orgqr = [&](Value g, Value tau) {
    callWithWorkspace(loc, f64 ? "dorgqr_" : "sorgqr_", {m, k, k}, g, ld, tau,
                      info, k);
  };
  Value f, qBuf;
  SmallVector<Value, 2> scratch;
  auto it = qrCaches.find(op.getA());
  if (it == qrCaches.end()) {
    // Dynamic shapes: decompose per op into scratch.
    f = memref::AllocOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic, ShapedType::kDynamic}, elt),
        ValueRange{nIdx, mIdx});
    copyTransposed(b, loc, a, f);
    Value tau = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, elt),
        ValueRange{arith::MaxSIOp::create(
            b, loc, kIdx, arith::ConstantIndexOp::create(b, loc, 1))});
    geqrf(f, tau);
    if (q)
      orgqr(f, tau);
    qBuf = f;
    scratch = {f, tau};
  } else {
    // Reuse the last decomposition when it is of this matrix, bit for bit;
    // Q is formed once, from a copy of the factors (R stays readable).
    QRCache c = it->second;
    f = c.factors, qBuf = c.q;
    refreshUnlessCached(loc, a, c.matrix, c.state, 1, [&] {
      copyTransposed(b, loc, a, f);
      geqrf(f, c.tau);
    });
    if (q) {
      Value formed = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::uge,
          memref::LoadOp::create(b, loc, c.state, ValueRange{}),
          arith::ConstantIntOp::create(b, loc, 2, 8));
      auto form = scf::IfOp::create(b, loc, formed, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&form.getElseRegion().front());
      forEachElement(b, loc, qBuf, [&](ValueRange ivs) {
        memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, f, ivs),
                                qBuf, ivs);
      });
      orgqr(qBuf, c.tau);
      memref::StoreOp::create(
          b, loc, arith::ConstantIntOp::create(b, loc, 2, 8), c.state);
    }
  }
  // R below its diagonal is zero.
  Value zero = arith::ConstantOp::create(b, loc, elt, b.getFloatAttr(elt, 0));
  forEachElement(b, loc, result, [&](ValueRange ivs) {
    Value v = memref::LoadOp::create(b, loc, q ? qBuf : f,
                                     ValueRange{ivs[1], ivs[0]});
    if (!q) {
      Value upper = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                          ivs[0], ivs[1]);
      v = arith::SelectOp::create(b, loc, upper, v, zero);
    }
    memref::StoreOp::create(b, loc, v, result, ivs);
  });
  for (Value v : scratch)
    memref::DeallocOp::create(b, loc, v);
  return success();
}

LogicalResult Lowering::lowerSVD(SVDOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), result = mapping.lookup(op.getResult());
  Type elt = cast<MemRefType>(a.getType()).getElementType();
  Type i32 = b.getI32Type(), i64 = b.getI64Type(),
       ptr = LLVM::LLVMPointerType::get(b.getContext());
  SVDPart part = op.getPart();
  bool vectors = part != SVDPart::s || op.getWithVectors();
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto i32Of = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, i32, v).getResult();
  };
  Value mIdx = memref::DimOp::create(b, loc, a, 0);
  Value nIdx = memref::DimOp::create(b, loc, a, 1);
  Value kIdx = arith::MinSIOp::create(b, loc, mIdx, nIdx);
  auto atLeastOne = [&](Value v) -> Value {
    return arith::MaxSIOp::create(b, loc, v, idx(1));
  };
  auto alloc = [&](Type t, ValueRange sizes) -> Value {
    SmallVector<int64_t> shape(sizes.size(), ShapedType::kDynamic);
    return memref::AllocOp::create(b, loc, MemRefType::get(shape, t), sizes);
  };
  // gesdd of a column-major copy of A (f[j, i] = A[i, j], leading
  // dimension m), jobz 'S' with vectors (U, m x k, at u[c, i]; Vh, k x n,
  // at vt[j, r]) or 'N' (u and vt 1-element placeholders); a workspace
  // query first, as NumPy's.
  auto gesdd = [&](bool withVectors, Value s, Value u, Value vt, Value info) {
    Value f = alloc(elt, {nIdx, mIdx});
    copyTransposed(b, loc, a, f);
    Value iwork =
        alloc(i32, {atLeastOne(arith::MulIOp::create(b, loc, idx(8), kIdx))});
    Value jobz =
        byRef(b, loc,
              arith::ConstantIntOp::create(b, loc, withVectors ? 'S' : 'N', 8));
    Value m = byRef(b, loc, i32Of(mIdx)), n = byRef(b, loc, i32Of(nIdx));
    Value lda = byRef(b, loc, i32Of(atLeastOne(mIdx)));
    Value ldu = byRef(b, loc, i32Of(withVectors ? atLeastOne(mIdx) : idx(1)));
    Value ldvt = byRef(b, loc, i32Of(withVectors ? atLeastOne(kIdx) : idx(1)));
    SmallVector<Type> args(14, ptr);
    args.push_back(i64);
    func::FuncOp fn = getOrDeclare(loc, elt.isF64() ? "dgesdd_" : "sgesdd_",
                                   b.getFunctionType(args, {}));
    withWorkspace(loc, elt, constI32(b, loc, 1), [&](Value work, Value lwork) {
      SmallVector<Value> operands;
      for (Value v :
           {jobz, m, n, f, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info})
        operands.push_back(basePointer(loc, v));
      operands.push_back(arith::ConstantIntOp::create(b, loc, 1, 64));
      func::CallOp::create(b, loc, fn, operands);
    });
    for (Value v : {f, iwork})
      memref::DeallocOp::create(b, loc, v);
  };
  Value s, u, vt, info;
  SmallVector<Value, 3> scratch;
  auto it = svdCaches.find(op.getA());
  if (it == svdCaches.end()) {
    // Dynamic shapes: decompose per op into scratch.
    s = alloc(elt, {atLeastOne(kIdx)});
    u = vectors ? alloc(elt, {kIdx, mIdx}) : alloc(elt, {idx(1), idx(1)});
    vt = vectors ? alloc(elt, {nIdx, kIdx}) : alloc(elt, {idx(1), idx(1)});
    info = entrySlot(b, loc, i32);
    gesdd(vectors, s, u, vt, info);
    scratch = {s, u, vt};
  } else {
    // Reuse the last decomposition when it is of this matrix, bit for bit,
    // and has what this op needs (vectors, or the values of either call).
    SVDCache c = it->second;
    s = c.values, u = c.u, vt = c.vt, info = c.info;
    refreshUnlessCached(loc, a, c.matrix, c.state, vectors ? 2 : 1,
                        [&] { gesdd(vectors, s, u, vt, info); });
  }
  // No convergence: no result to give.
  ifSucceeded(b, loc, module, info, result, [&] {
    forEachElement(b, loc, result, [&](ValueRange ivs) {
      Value v;
      if (part == SVDPart::s)
        v = memref::LoadOp::create(b, loc, s, ivs);
      else
        v = memref::LoadOp::create(b, loc, part == SVDPart::u ? u : vt,
                                   ValueRange{ivs[1], ivs[0]});
      memref::StoreOp::create(b, loc, v, result, ivs);
    });
  });
  for (Value v : scratch)
    memref::DeallocOp::create(b, loc, v);
  return success();
}
