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
                           .Default("cblas_ddot")
                     : StringSwitch<StringRef>(base)
                           .Case("gemm", "cblas_sgemm")
                           .Case("gemv", "cblas_sgemv")
                           .Default("cblas_sdot");
}

/// The CBLAS function for `base` on `elt`; on the GPU the runtime's
/// cuBLAS-backed function of the same signature.
static std::string blasName(Type elt, StringRef base, bool gpu) {
  return (gpu ? "sdfg_gpu_" : "") + blasFunction(elt, base).str();
}

LogicalResult Lowering::lowerMatmul(MatmulOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), bm = mapping.lookup(op.getB()),
        c = mapping.lookup(op.getC());
  Type elt = op.getA().getType().getElementType();
  BlasArgs args{b, loc};
  Type i32 = b.getI32Type(), ptr = LLVM::LLVMPointerType::get(b.getContext());
  auto fnTy = b.getFunctionType(
      {i32, i32, i32, i32, i32, i32, elt, ptr, i32, ptr, i32, elt, ptr, i32},
      {});
  func::FuncOp fn = getOrDeclare(loc, blasName(elt, "gemm", gpu), fnTy);
  Value k = args.dimI32(a, op.getTransposeA() ? 0 : 1);
  SmallVector<Value> operands = {
      args.i32(kCblasRowMajor),
      args.i32(op.getTransposeA() ? kCblasTrans : kCblasNoTrans),
      args.i32(op.getTransposeB() ? kCblasTrans : kCblasNoTrans),
      args.dimI32(c, 0),
      args.dimI32(c, 1),
      k,
      args.real(elt, 1.0),
      basePointer(loc, a),
      args.leading(a),
      basePointer(loc, bm),
      args.leading(bm),
      args.real(elt, op.getAccumulate() ? 1.0 : 0.0),
      basePointer(loc, c),
      args.leading(c)};
  func::CallOp::create(b, loc, fn, operands);
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

void mlir::sdfg::detail::forEachElement(OpBuilder &b, Location loc,
                                        Value memref,
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
