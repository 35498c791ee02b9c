//===- LibraryOps.cpp - Lower sdfg library ops to CBLAS and loops ---------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

// CBLAS enum values (cblas.h); OpenBLAS as packaged by Debian uses 32-bit
// integers (LP64) for sizes.
static constexpr int32_t kCblasRowMajor = 101;
static constexpr int32_t kCblasNoTrans = 111;
static constexpr int32_t kCblasTrans = 112;

func::FuncOp Lowering::getOrDeclare(Location loc, StringRef name,
                                    FunctionType type) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  auto f = func::FuncOp::create(b, loc, name, type);
  f.setPrivate();
  return f;
}

Value Lowering::basePointer(Location loc, Value memref) {
  Value idx = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
}

LogicalResult Lowering::checkLibraryExtents(Operation *op) {
  constexpr int64_t kMaxBlasInt = std::numeric_limits<int32_t>::max();
  Location loc = op->getLoc();
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type)
      continue;
    for (auto [d, extent] : llvm::enumerate(type.getShape())) {
      if (!ShapedType::isDynamic(extent)) {
        if (extent > kMaxBlasInt)
          return op->emitOpError()
                 << "extent " << extent << " of " << type
                 << " exceeds the 32-bit integers of the BLAS/LAPACK "
                    "interface (at most 2^31-1)";
        continue;
      }
      Value dim = memref::DimOp::create(b, loc, mapping.lookup(operand), d);
      Value limit = arith::ConstantIndexOp::create(b, loc, kMaxBlasInt);
      Value ok =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, dim, limit);
      reportUnless(loc, IndexCheck{ok, dim, limit, /*axis=*/-4});
    }
  }
  return success();
}

namespace {
/// Small builder helpers for BLAS argument lists.
struct BlasArgs {
  OpBuilder &b;
  Location loc;

  Value i32(int32_t v) { return arith::ConstantIntOp::create(b, loc, v, 32); }
  Value dimI32(Value memref, int64_t d) {
    Value idx = memref::DimOp::create(b, loc, memref, d);
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), idx);
  }
  /// Leading dimension: BLAS requires at least 1 even for empty matrices.
  Value leading(Value memref) {
    return arith::MaxSIOp::create(b, loc, dimI32(memref, 1), i32(1));
  }
  Value real(Type t, double v) {
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  }
};
} // namespace

static StringRef blasFunction(Type elt, StringRef base) {
  return elt.isF64() ? StringSwitch<StringRef>(base)
                           .Case("gemm", "cblas_dgemm")
                           .Case("gemv", "cblas_dgemv")
                           .Case("ger", "cblas_dger")
                           .Default("cblas_ddot")
                     : StringSwitch<StringRef>(base)
                           .Case("gemm", "cblas_sgemm")
                           .Case("gemv", "cblas_sgemv")
                           .Case("ger", "cblas_sger")
                           .Default("cblas_sdot");
}

/// The CBLAS function for `base` on `elt`; on the GPU the runtime's
/// cuBLAS-backed function of the same signature.
static std::string blasName(Type elt, StringRef base, bool gpu) {
  return (gpu ? "sdfg_gpu_" : "") + blasFunction(elt, base).str();
}

/// The aligned base pointer of `memref` advanced by `elements` elements.
static Value offsetPointer(OpBuilder &b, Location loc, Value memref,
                           Value elements) {
  auto type = cast<MemRefType>(memref.getType());
  Value idx = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value bytes = arith::MulIOp::create(
      b, loc, elements,
      arith::ConstantIndexOp::create(
          b, loc, type.getElementType().getIntOrFloatBitWidth() / 8));
  Value i64 = arith::IndexCastOp::create(
      b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, idx, bytes));
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), i64);
}

func::FuncOp Lowering::declareGemm(Location loc, Type elt) {
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto fnTy = b.getFunctionType(
      {i32, i32, i32, i32, i32, i32, elt, ptr, i32, ptr, i32, elt, ptr, i32},
      {});
  return getOrDeclare(loc, blasName(elt, "gemm", gpu), fnTy);
}

LogicalResult Lowering::lowerMatmul(MatmulOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), bm = mapping.lookup(op.getB()),
        c = mapping.lookup(op.getC());
  Type elt = op.getA().getType().getElementType();
  BlasArgs args{b, loc};
  Type i32 = b.getI32Type();
  func::FuncOp fn = declareGemm(loc, elt);
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  // The matrix dimensions are the last two; a leading one is the batch.
  unsigned ra = op.getA().getType().getRank() - 2,
           rb = op.getB().getType().getRank() - 2,
           rc = op.getC().getType().getRank() - 2;
  auto dim = [&](Value m, unsigned d) -> Value {
    return memref::DimOp::create(b, loc, m, d);
  };
  auto toI32 = [&](Value idx) -> Value {
    return arith::IndexCastOp::create(b, loc, i32, idx);
  };
  auto leading = [&](Value m, unsigned r) -> Value {
    return arith::MaxSIOp::create(b, loc, toI32(dim(m, r + 1)), args.i32(1));
  };
  Value alpha =
      args.real(elt, op.getAlpha() ? op.getAlpha()->convertToDouble() : 1.0);
  auto gemm = [&](Value pa, Value pb, Value pc, Value m, Value n, Value k,
                  Value beta) {
    func::CallOp::create(b, loc, fn,
                         ValueRange{args.i32(kCblasRowMajor),
                                    args.i32(ta ? kCblasTrans : kCblasNoTrans),
                                    args.i32(tb ? kCblasTrans : kCblasNoTrans),
                                    toI32(m), toI32(n), toI32(k), alpha, pa,
                                    leading(a, ra), pb, leading(bm, rb), beta,
                                    pc, leading(c, rc)});
  };
  Value m = dim(c, rc), n = dim(c, rc + 1), k = dim(a, ra + (ta ? 0 : 1));
  Value keep = args.real(elt, op.getAccumulate() ? 1.0 : 0.0);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  if (ra == 0 && rb == 0) {
    gemm(basePointer(loc, a), basePointer(loc, bm), basePointer(loc, c), m, n,
         k, keep);
    return success();
  }
  Value batch = dim(ra ? a : bm, 0);
  // The batch stacks into rows where the matrices are contiguous: X[b] W
  // is one GEMM of (batch m) rows, sum_b X[b]^T Y[b] one of inner extent
  // (batch k).
  if (ra && !ta && !rb && rc) {
    gemm(basePointer(loc, a), basePointer(loc, bm), basePointer(loc, c),
         arith::MulIOp::create(b, loc, batch, m), n, k, keep);
    return success();
  }
  if (ra && ta && rb && !tb && !rc) {
    gemm(basePointer(loc, a), basePointer(loc, bm), basePointer(loc, c), m, n,
         arith::MulIOp::create(b, loc, batch, k), keep);
    return success();
  }
  // One GEMM per batch entry; a shared output sums them (the first one
  // overwrites it unless accumulating; an empty batch leaves zeros).
  int64_t staticBatch =
      cast<MemRefType>((ra ? op.getA() : op.getB()).getType()).getDimSize(0);
  if (!rc && !op.getAccumulate() && staticBatch <= 0) {
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, batch, zero);
    auto ifEmpty = scf::IfOp::create(b, loc, empty, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifEmpty.getThenRegion().front());
    Value z = args.real(elt, 0.0);
    forEachElement(b, loc, c, [&](ValueRange ivs) {
      memref::StoreOp::create(b, loc, z, c, ivs);
    });
  }
  auto loop = scf::ForOp::create(b, loc, zero, batch,
                                 arith::ConstantIndexOp::create(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value i = loop.getInductionVar();
  auto entry = [&](Value mem, unsigned r) {
    if (!r)
      return basePointer(loc, mem);
    Value size = arith::MulIOp::create(b, loc, dim(mem, 1), dim(mem, 2));
    return offsetPointer(b, loc, mem, arith::MulIOp::create(b, loc, i, size));
  };
  Value beta = keep;
  if (!rc && !op.getAccumulate()) {
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, i, zero);
    beta = arith::SelectOp::create(b, loc, first, args.real(elt, 0.0),
                                   args.real(elt, 1.0));
  }
  gemm(entry(a, ra), entry(bm, rb), entry(c, rc), m, n, k, beta);
  return success();
}

LogicalResult Lowering::lowerGemv(GemvOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), x = mapping.lookup(op.getX()),
        y = mapping.lookup(op.getY());
  Type elt = op.getA().getType().getElementType();
  BlasArgs args{b, loc};
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto fnTy = b.getFunctionType(
      {i32, i32, i32, i32, elt, ptr, i32, ptr, i32, elt, ptr, i32}, {});
  func::FuncOp fn = getOrDeclare(loc, blasName(elt, "gemv", gpu), fnTy);
  SmallVector<Value> operands = {
      args.i32(kCblasRowMajor),
      args.i32(op.getTranspose() ? kCblasTrans : kCblasNoTrans),
      args.dimI32(a, 0),
      args.dimI32(a, 1),
      args.real(elt, 1.0),
      basePointer(loc, a),
      args.leading(a),
      basePointer(loc, x),
      args.i32(1),
      args.real(elt, op.getAccumulate() ? 1.0 : 0.0),
      basePointer(loc, y),
      args.i32(1)};
  func::CallOp::create(b, loc, fn, operands);
  return success();
}

LogicalResult Lowering::lowerGer(GerOp op) {
  Location loc = op.getLoc();
  Value x = mapping.lookup(op.getX()), y = mapping.lookup(op.getY()),
        a = mapping.lookup(op.getA());
  Type elt = op.getA().getType().getElementType();
  BlasArgs args{b, loc};
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value one = args.real(elt, 1.0);
  if (!op.getAccumulate()) {
    // GER only accumulates: an overwrite is the GEMM of the m x 1 and
    // 1 x n matrices with beta = 0 (so also on the GPU, through cuBLAS).
    func::CallOp::create(
        b, loc, declareGemm(loc, elt),
        ValueRange{args.i32(kCblasRowMajor), args.i32(kCblasNoTrans),
                   args.i32(kCblasNoTrans), args.dimI32(a, 0),
                   args.dimI32(a, 1), args.i32(1), one, basePointer(loc, x),
                   args.i32(1), basePointer(loc, y), args.leading(a),
                   args.real(elt, 0.0), basePointer(loc, a), args.leading(a)});
    return success();
  }
  auto fnTy =
      b.getFunctionType({i32, i32, i32, elt, ptr, i32, ptr, i32, ptr, i32}, {});
  func::FuncOp fn = getOrDeclare(loc, blasName(elt, "ger", gpu), fnTy);
  func::CallOp::create(b, loc, fn,
                       ValueRange{args.i32(kCblasRowMajor), args.dimI32(a, 0),
                                  args.dimI32(a, 1), one, basePointer(loc, x),
                                  args.i32(1), basePointer(loc, y), args.i32(1),
                                  basePointer(loc, a), args.leading(a)});
  return success();
}

LogicalResult Lowering::lowerDot(DotOp op) {
  Location loc = op.getLoc();
  Value x = mapping.lookup(op.getX()), y = mapping.lookup(op.getY()),
        r = mapping.lookup(op.getResult());
  Type elt = op.getX().getType().getElementType();
  BlasArgs args{b, loc};
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto fnTy = b.getFunctionType({i32, ptr, i32, ptr, i32}, {elt});
  func::FuncOp fn = getOrDeclare(loc, blasName(elt, "dot", gpu), fnTy);
  auto call = func::CallOp::create(
      b, loc, fn,
      ValueRange{args.dimI32(x, 0), basePointer(loc, x), args.i32(1),
                 basePointer(loc, y), args.i32(1)});
  std::optional<WCRKind> wcr;
  if (op.getAccumulate())
    wcr = WCRKind::add;
  emitWrite(loc, call.getResult(0), r, {}, wcr);
  return success();
}

LogicalResult Lowering::lowerCustomCall(CustomCallOp op) {
  // The callee's kernels would need a device-side call; the host program
  // around GPU kernels has no such path yet.
  if (gpu)
    return op.emitOpError("is not supported on the GPU");
  // The callee is another sdfg.sdfg of the module, lowered to a function
  // of the same name taking a bare pointer per (static) container.
  Location loc = op.getLoc();
  SmallVector<Value> args;
  for (Value v : op.getOperands())
    args.push_back(basePointer(loc, mapping.lookup(v)));
  func::CallOp::create(b, loc, op.getCallee(), TypeRange{}, args);
  return success();
}

void mlir::sdfg::forEachElement(OpBuilder &b, Location loc, Value memref,
                                function_ref<void(ValueRange)> body) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 0) {
    body({});
    return;
  }
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lbs.push_back(zero);
    ubs.push_back(memref::DimOp::create(b, loc, memref, d));
    steps.push_back(one);
  }
  loopNest(b, loc, lbs, ubs, steps, body);
}

void mlir::sdfg::loopNest(OpBuilder &b, Location loc, ValueRange lbs,
                          ValueRange ubs, ValueRange steps,
                          function_ref<void(ValueRange)> body) {
  scf::buildLoopNest(b, loc, lbs, ubs, steps,
                     [&](OpBuilder &nested, Location, ValueRange ivs) {
                       OpBuilder::InsertionGuard guard(b);
                       b.setInsertionPoint(nested.getInsertionBlock(),
                                           nested.getInsertionPoint());
                       body(ivs);
                     });
}

LogicalResult Lowering::lowerTranspose(TransposeOp op) {
  Location loc = op.getLoc();
  Value in = mapping.lookup(op.getInput()),
        out = mapping.lookup(op.getOutput());
  std::optional<WCRKind> wcr;
  if (op.getAccumulate())
    wcr = WCRKind::add;
  forEachElement(b, loc, in, [&](ValueRange ivs) {
    Value v = memref::LoadOp::create(b, loc, in, ivs);
    emitWrite(loc, v, out, ValueRange{ivs[1], ivs[0]}, wcr);
  });
  return success();
}

/// The neutral element of a reduction.
static Value identity(OpBuilder &b, Location loc, ReduceKind kind, Type t) {
  if (auto ft = dyn_cast<FloatType>(t)) {
    double v = kind == ReduceKind::add ? 0.0
               : kind == ReduceKind::min
                   ? std::numeric_limits<double>::infinity()
                   : -std::numeric_limits<double>::infinity();
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  }
  unsigned width = t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
  APInt v = kind == ReduceKind::add   ? APInt::getZero(width)
            : kind == ReduceKind::min ? APInt::getSignedMaxValue(width)
                                      : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
}

LogicalResult Lowering::lowerReduce(ReduceOp op) {
  Location loc = op.getLoc();
  Value in = mapping.lookup(op.getInput()),
        out = mapping.lookup(op.getOutput());
  Type elt = op.getInput().getType().getElementType();
  WCRKind wcr = op.getKind() == ReduceKind::add   ? WCRKind::add
                : op.getKind() == ReduceKind::min ? WCRKind::min
                                                  : WCRKind::max;
  if (!op.getAccumulate()) {
    Value init = identity(b, loc, op.getKind(), elt);
    forEachElement(b, loc, out, [&](ValueRange ivs) {
      memref::StoreOp::create(b, loc, init, out, ivs);
    });
  }
  bool keepDims =
      op.getOutput().getType().getRank() == op.getInput().getType().getRank();
  ArrayRef<int64_t> axes = op.getAxes();
  forEachElement(b, loc, in, [&](ValueRange ivs) {
    SmallVector<Value> outIdx;
    Value zero;
    for (auto [d, iv] : llvm::enumerate(ivs)) {
      if (!llvm::is_contained(axes, static_cast<int64_t>(d))) {
        outIdx.push_back(iv);
      } else if (keepDims) {
        if (!zero)
          zero = arith::ConstantIndexOp::create(b, loc, 0);
        outIdx.push_back(zero);
      }
    }
    Value v = memref::LoadOp::create(b, loc, in, ivs);
    emitWrite(loc, v, out, outIdx, wcr);
  });
  return success();
}
