//===- Functions.cpp - Each sdfg.sdfg as a func.func with the C ABI ------===//
//
// The part of convert-sdfg-to-scf (and -gpu) around the body: the function
// and its signature, the arguments as memref descriptors, and where the
// transients and factorisation caches are allocated and freed.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Builds a memref descriptor over a bare row-major pointer and casts it to
/// the memref type; the cast cancels against the one the memref-to-LLVM
/// conversion inserts.
static Value buildMemRef(OpBuilder &b, Location loc, MemRefType type, Value ptr,
                         ArrayRef<Value> dynSizes) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  unsigned rank = type.getRank();
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> fields = {ptrTy, ptrTy, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto structTy = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value desc = LLVM::PoisonOp::create(b, loc, structTy);
  auto cst = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, ptr, ArrayRef<int64_t>{1});
  desc =
      LLVM::InsertValueOp::create(b, loc, desc, cst(0), ArrayRef<int64_t>{2});
  SmallVector<Value> sizes;
  unsigned dyn = 0;
  for (int64_t s : type.getShape())
    sizes.push_back(ShapedType::isDynamic(s) ? dynSizes[dyn++] : cst(s));
  Value stride = cst(1);
  for (int d = rank - 1; d >= 0; --d) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, sizes[d], ArrayRef<int64_t>{3, static_cast<int64_t>(d)});
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, stride, ArrayRef<int64_t>{4, static_cast<int64_t>(d)});
    if (d > 0)
      stride = LLVM::MulOp::create(b, loc, stride, sizes[d]);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

/// Frees a unified-memory buffer (the GPU runtime's free is asynchronous
/// on a stream; waiting keeps the program's order).
void mlir::sdfg::detail::freeShared(OpBuilder &b, Location loc, Value memref) {
  Type token = gpu::AsyncTokenType::get(b.getContext());
  Value ready =
      gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
  Value done = gpu::DeallocOp::create(b, loc, token, ValueRange{ready}, memref)
                   .getAsyncToken();
  gpu::WaitOp::create(b, loc, Type(), ValueRange{done});
}

/// The dynamic extents of a transient of `type`, as the allocation should
/// see them: memref.alloc multiplies them by the element size without
/// checking (2^61 doubles would wrap to a few bytes, then be written past).
/// When their size in bytes is negative or past kMaxRepresentable, the
/// first becomes one that makes the allocation just past that bound and
/// the others 1: no allocation of that size succeeds, and the checked
/// malloc (CallGuards.cpp) reports it to the caller.
static SmallVector<Value> representableSizes(OpBuilder &b, Location loc,
                                             MemRefType type,
                                             ArrayRef<Value> sizes) {
  if (sizes.empty())
    return SmallVector<Value>(sizes);
  SmallVector<int64_t> staticExtents;
  for (int64_t d : type.getShape())
    if (!ShapedType::isDynamic(d))
      staticExtents.push_back(d);
  // Representable: the verifier checks the static part.
  int64_t unit = checkedByteSize(staticExtents, type.getElementType())
                     .value_or(kMaxRepresentable);
  Type i64 = b.getI64Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  Value bytes = cst(unit);
  Value bad = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (Value size : sizes) {
    Value n = arith::IndexCastOp::create(b, loc, i64, size);
    bad = arith::OrIOp::create(
        b, loc, bad,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, n, cst(0)));
    auto product = arith::MulUIExtendedOp::create(b, loc, bytes, n);
    bad = arith::OrIOp::create(
        b, loc, bad,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                              product.getHigh(), cst(0)));
    bytes = product.getLow();
  }
  bad = arith::OrIOp::create(
      b, loc, bad,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, bytes,
                            cst(kMaxRepresentable)));
  SmallVector<Value> result;
  for (auto [k, size] : llvm::enumerate(sizes)) {
    // A static extent of 0 makes every size 0 bytes: only a negative
    // dynamic extent is bad, and an empty array stands for it.
    int64_t fallback = unit == 0 ? 0
                       : k == 0  ? kMaxRepresentable / unit + 1
                                 : 1;
    result.push_back(arith::SelectOp::create(
        b, loc, bad, arith::ConstantIndexOp::create(b, loc, fallback), size));
  }
  return result;
}

/// Transients up to this size go on the stack on the CPU: enough for the
/// scalars and short vectors of recurrences, far below any thread's stack.
static constexpr int64_t kMaxStackTransientBits = 64 * 64;

namespace {
/// One sdfg.sdfg as a func.func with the C ABI (docs/design/c-abi.md):
/// arguments become memref descriptors over the pointers passed (unified
/// copies on the GPU), transients live from the top-level op that first
/// uses them to the one that last does, and the body is lowered op by op
/// by the Lowering that `make` returns.
class FunctionLowering {
public:
  FunctionLowering(SDFGOp sdfgOp, ModuleOp module)
      : sdfgOp(sdfgOp), module(module), loc(sdfgOp.getLoc()), b(sdfgOp) {}

  LogicalResult run(LoweringFactory make);

private:
  void createFunction();
  void mapArguments();
  void planLifetimes();
  bool onStack(AllocOp a) const;
  void allocate(AllocOp a);
  void release(AllocOp a);
  LogicalResult lowerBody();
  void finish();

  SDFGOp sdfgOp;
  ModuleOp module;
  Location loc;
  OpBuilder b;
  Block *entry = nullptr;
  std::unique_ptr<Lowering> lowering;
  bool gpu = false;
  /// On the GPU, (host buffer, unified copy) of every container argument.
  SmallVector<std::pair<Value, Value>> shared;
  /// The top-level ops, and by position what is allocated before and
  /// freed after each.
  SmallVector<Operation *> top;
  DenseMap<unsigned, SmallVector<AllocOp>> allocAt, freeAfter;
  DenseMap<unsigned, SmallVector<FactorisedMatrix>> cacheAt, uncacheAfter;
  Operation *lastAlloca = nullptr;
};
} // namespace

LogicalResult FunctionLowering::run(LoweringFactory make) {
  createFunction();
  lowering = make(module, b);
  gpu = lowering->targetsGPU();
  lowering->callsLibrary = sdfgOp
                               .walk([](Operation *op) {
                                 return isLibraryCall(op)
                                            ? WalkResult::interrupt()
                                            : WalkResult::advance();
                               })
                               .wasInterrupted();
  mapArguments();
  planLifetimes();
  if (failed(lowerBody()))
    return failure();
  finish();
  return success();
}

void FunctionLowering::createFunction() {
  MLIRContext *ctx = module.getContext();
  Type i64 = IntegerType::get(ctx, 64);
  auto ptrTy = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> abiTypes;
  for (Type t : sdfgOp.getArgumentTypes()) {
    if (auto m = dyn_cast<MemRefType>(t)) {
      abiTypes.push_back(ptrTy);
      abiTypes.append(m.getNumDynamicDims(), i64);
    } else if (t.isIndex()) {
      abiTypes.push_back(i64);
    } else {
      abiTypes.push_back(t);
    }
  }
  auto func = func::FuncOp::create(b, loc, sdfgOp.getSymName(),
                                   b.getFunctionType(abiTypes, {}));
  entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
}

void FunctionLowering::mapArguments() {
  unsigned pos = 0;
  for (BlockArgument arg : sdfgOp.getArguments()) {
    Type t = arg.getType();
    if (auto m = dyn_cast<MemRefType>(t)) {
      Value ptr = entry->getArgument(pos++);
      SmallVector<Value> dyn;
      for (int64_t i = 0, e = m.getNumDynamicDims(); i < e; ++i)
        dyn.push_back(entry->getArgument(pos++));
      Value host = buildMemRef(b, loc, m, ptr, dyn);
      if (gpu) {
        SmallVector<Value> sizes;
        for (int64_t d = 0; d < m.getRank(); ++d)
          if (m.isDynamicDim(d))
            sizes.push_back(memref::DimOp::create(b, loc, host, d));
        Value dev = gpu::AllocOp::create(b, loc, m, Type(), ValueRange{}, sizes,
                                         ValueRange{}, /*hostShared=*/true)
                        .getMemref();
        memref::CopyOp::create(b, loc, host, dev);
        shared.push_back({host, dev});
        host = dev;
      }
      lowering->mapping.map(arg, host);
    } else if (t.isIndex()) {
      Value v = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                           entry->getArgument(pos++));
      lowering->mapping.map(arg, v);
    } else {
      lowering->mapping.map(arg, entry->getArgument(pos++));
    }
  }
}

void FunctionLowering::planLifetimes() {
  // Transients live from the top-level op that first uses them to the one
  // that last does: memory is allocated when needed and returned as soon as
  // possible (a gradient program frees forward temporaries before the
  // backward pass allocates its own).
  Block &body = sdfgOp.getBody().front();
  for (Operation &op : body)
    top.push_back(&op);
  DenseMap<Operation *, unsigned> position;
  for (auto [i, op] : llvm::enumerate(top))
    position[op] = i;
  for (AllocOp alloc : body.getOps<AllocOp>()) {
    std::optional<unsigned> first, last;
    for (Operation *user : alloc->getUsers()) {
      Operation *anc = body.findAncestorOpInBlock(*user);
      unsigned p = position.lookup(anc);
      first = first ? std::min(*first, p) : p;
      last = last ? std::max(*last, p) : p;
    }
    if (!first)
      continue; // never used: never allocated
    allocAt[*first].push_back(alloc);
    freeAfter[*last].push_back(alloc);
  }
  // The factorisation caches of the solves and eigendecompositions
  // (LinearSolve.cpp), per matrix container of static shape, over the
  // top-level steps that use it.
  for (const FactorisedMatrix &m : factorisedMatrices(sdfgOp)) {
    cacheAt[position.lookup(m.first)].push_back(m);
    uncacheAfter[position.lookup(m.last)].push_back(m);
  }
}

/// Small fixed-size transients on the CPU (the scalars of loop recurrences
/// and their adjoints) live on the stack, in the entry block where LLVM
/// promotes them to registers: heap memory would be loaded and stored in
/// every iteration, and every store to an array might alias it.
bool FunctionLowering::onStack(AllocOp a) const {
  auto type = cast<MemRefType>(a.getType());
  Type elt = type.getElementType();
  if (gpu || !type.hasStaticShape() || !elt.isIntOrIndexOrFloat())
    return false;
  std::optional<int64_t> bytes = checkedByteSize(type);
  return bytes && *bytes <= kMaxStackTransientBits / 8;
}

void FunctionLowering::allocate(AllocOp a) {
  if (onStack(a)) {
    OpBuilder::InsertionGuard guard(b);
    if (lastAlloca)
      b.setInsertionPointAfter(lastAlloca);
    else
      b.setInsertionPointToStart(entry);
    lastAlloca =
        memref::AllocaOp::create(b, a.getLoc(), cast<MemRefType>(a.getType()));
    lowering->mapping.map(a.getResult(), lastAlloca->getResult(0));
    return;
  }
  SmallVector<Value> sizes;
  for (Value v : a.getDynamicSizes())
    sizes.push_back(lowering->mapping.lookup(v));
  sizes = representableSizes(b, a.getLoc(), a.getType(), sizes);
  Value mem = gpu ? gpu::AllocOp::create(b, a.getLoc(), a.getType(), Type(),
                                         ValueRange{}, sizes, ValueRange{},
                                         /*hostShared=*/true)
                        .getMemref()
                  : memref::AllocOp::create(b, a.getLoc(), a.getType(), sizes,
                                            b.getI64IntegerAttr(64))
                        .getResult();
  lowering->mapping.map(a.getResult(), mem);
}

void FunctionLowering::release(AllocOp a) {
  if (onStack(a))
    return;
  if (gpu)
    freeShared(b, a.getLoc(), lowering->mapping.lookup(a));
  else
    memref::DeallocOp::create(b, a.getLoc(), lowering->mapping.lookup(a));
}

LogicalResult FunctionLowering::lowerBody() {
  for (auto [i, op] : llvm::enumerate(top)) {
    for (AllocOp a : allocAt.lookup(i))
      allocate(a);
    for (const FactorisedMatrix &m : cacheAt.lookup(i))
      lowering->allocFactorisationCache(op->getLoc(), m);
    if (failed(lowering->lowerOp(op)))
      return failure();
    for (const FactorisedMatrix &m : uncacheAfter.lookup(i))
      lowering->freeFactorisationCache(op->getLoc(), m);
    for (AllocOp a : freeAfter.lookup(i))
      release(a);
  }
  return success();
}

void FunctionLowering::finish() {
  for (auto [host, dev] : shared) {
    memref::CopyOp::create(b, loc, dev, host);
    freeShared(b, loc, dev);
  }
  lowering->reportFailedIndexAtExit(loc);
  func::ReturnOp::create(b, loc);
  sdfgOp.erase();
}

LogicalResult mlir::sdfg::detail::lowerSDFGs(ModuleOp module,
                                             LoweringFactory make) {
  SmallVector<SDFGOp> sdfgs(module.getOps<SDFGOp>());
  for (SDFGOp op : sdfgs)
    if (failed(FunctionLowering(op, module).run(make)))
      return failure();
  expandPreciseMath(module);
  return success();
}
