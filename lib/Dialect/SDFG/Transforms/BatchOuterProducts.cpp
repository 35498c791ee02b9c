//===- BatchOuterProducts.cpp - A loop's rank-one updates as one GEMM -----===//
//
// --sdfg-batch-outer-products: the gradient of a matrix that a loop
// multiplies with a vector (logistic regression's X @ w, an RNN's W @ h) is
// a sum of rank-one updates, one `sdfg.ger` per iteration: T sweeps over
// the matrix, each bound by memory. Gathering the vectors into the rows of
// two buffers and adding their product once, dA += U^T V, reads the matrix
// once and runs at GEMM speed. Floating-point sums are reassociated, as
// BLAS does anyway. The updates it leaves become maps, which map fusion
// can merge with the other sweeps of their state.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/Transforms/LoopUtils.h"
#include "sdfg/Dialect/SDFG/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_BATCHOUTERPRODUCTS
#include "sdfg/Dialect/SDFG/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// Whether every access to `target` inside `loop` is one of `updates`.
bool onlyUpdatedBy(Value target, LoopOp loop, ArrayRef<GerOp> updates) {
  for (Operation *user : target.getUsers())
    if (loop->isProperAncestor(user) &&
        !llvm::is_contained(updates, dyn_cast<GerOp>(user)))
      return false;
  return true;
}

/// The largest divisor of `trips` whose block of iterations fits `limit`
/// gathered elements, `perIteration` each; 1 when there is none. Only the
/// largest kMaxBlockCandidates blocks that fit are tried, so that the cost
/// is bounded whatever the trip count (up to 2^62, which may be prime):
/// batching is an optimisation, and a loop left alone is still right.
constexpr int64_t kMaxBlockCandidates = int64_t(1) << 16;
int64_t blockSize(int64_t trips, int64_t perIteration, double limit) {
  if (trips < 2 || perIteration < 1 || !(limit >= 2.0 * perIteration))
    return 1;
  double fit = std::floor(limit / double(perIteration));
  int64_t largest = fit >= double(trips) ? trips : int64_t(fit);
  int64_t smallest = std::max<int64_t>(2, largest - kMaxBlockCandidates + 1);
  for (int64_t k = largest; k >= smallest; --k)
    if (trips % k == 0 && double(k) * double(perIteration) <= limit)
      return k;
  return 1;
}

/// `dst[row, p] = src[p]` for every p: one sequential map in the current
/// state, `row` an affine expression of `iv`.
void copyRow(OpBuilder &b, Location loc, Value src, Value dst, AffineExpr row,
             Value iv) {
  MLIRContext *ctx = b.getContext();
  // The buffer's static extent (the vector's may be dynamic).
  int64_t len = cast<MemRefType>(dst.getType()).getDimSize(1);
  auto map = MapOp::create(
      b, loc, ValueRange{}, AffineMap::get(0, 0, {b.getAffineConstantExpr(0)}),
      AffineMap::get(0, 0, {b.getAffineConstantExpr(len)}),
      b.getDenseI64ArrayAttr({1}), ScheduleKind::sequential);
  Block *body = new Block();
  map.getBody().push_back(body);
  Value p = body->addArgument(b.getIndexType(), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Type elt = cast<MemRefType>(src.getType()).getElementType();
  Value v = LoadOp::create(b, loc, elt, src, ValueRange{p},
                           AffineMap::getMultiDimIdentityMap(1, ctx));
  StoreOp::create(b, loc, v, dst, ValueRange{iv, p},
                  AffineMap::get(2, 0, {row, getAffineDimExpr(1, ctx)}, ctx),
                  nullptr);
}

/// `A[i, j] (+)= x[i] * y[j]` as a parallel map in place of `ger`.
void expand(GerOp ger) {
  OpBuilder b(ger);
  Location loc = ger.getLoc();
  MLIRContext *ctx = b.getContext();
  auto type = cast<MemRefType>(ger.getA().getType());
  SmallVector<AffineExpr> lbs(2, b.getAffineConstantExpr(0)), ubs;
  for (int64_t d : type.getShape())
    ubs.push_back(b.getAffineConstantExpr(d));
  auto map = MapOp::create(b, loc, ValueRange{}, AffineMap::get(0, 0, lbs, ctx),
                           AffineMap::get(0, 0, ubs, ctx),
                           b.getDenseI64ArrayAttr({1, 1}),
                           ScheduleKind::cpu_multicore);
  Block *body = new Block();
  map.getBody().push_back(body);
  Value i = body->addArgument(b.getIndexType(), loc);
  Value j = body->addArgument(b.getIndexType(), loc);
  b.setInsertionPointToStart(body);
  Type elt = type.getElementType();
  AffineMap first = AffineMap::get(2, 0, getAffineDimExpr(0, ctx), ctx);
  AffineMap second = AffineMap::get(2, 0, getAffineDimExpr(1, ctx), ctx);
  AffineMap both = AffineMap::getMultiDimIdentityMap(2, ctx);
  Value x = LoadOp::create(b, loc, elt, ger.getX(), ValueRange{i, j}, first);
  Value y = LoadOp::create(b, loc, elt, ger.getY(), ValueRange{i, j}, second);
  Value v = scalarTasklet(b, loc, {x, y}, [&](OpBuilder &ib, auto a) -> Value {
    return arith::MulFOp::create(ib, loc, a[0], a[1]);
  });
  // A plain read-add-write (each element is one iteration's own), which
  // sdfg-fuse-maps can merge with other sweeps; a wcr store it leaves.
  if (ger.getAccumulate()) {
    Value old = LoadOp::create(b, loc, elt, ger.getA(), ValueRange{i, j}, both);
    v = scalarTasklet(b, loc, {old, v}, [&](OpBuilder &ib, auto a) -> Value {
      return arith::AddFOp::create(ib, loc, a[0], a[1]);
    });
  }
  StoreOp::create(b, loc, v, ger.getA(), ValueRange{i, j}, both, nullptr);
  ger.erase();
}

struct BatchOuterProductsPass
    : public sdfg::impl::BatchOuterProductsBase<BatchOuterProductsPass> {
  using BatchOuterProductsBase::BatchOuterProductsBase;

  // Checked once, before any program runs (see HoistLoopProducts).
  LogicalResult initialize(MLIRContext *ctx) override {
    if (maxBufferRatio < 0)
      return emitError(UnknownLoc::get(ctx),
                       "sdfg-batch-outer-products: max-buffer-ratio must not "
                       "be negative, got ")
             << maxBufferRatio.getValue();
    return success();
  }

  void runOnOperation() override {
    // Innermost loops first: an inner loop's updates become one matmul,
    // which its outer loop leaves alone.
    SmallVector<LoopOp> loops;
    getOperation().walk([&](LoopOp loop) { loops.push_back(loop); });
    for (LoopOp loop : loops)
      batch(loop);
    if (!expandRest)
      return;
    SmallVector<GerOp> rest;
    getOperation().walk([&](GerOp ger) { rest.push_back(ger); });
    for (GerOp ger : rest)
      if (ger.getA().getType().hasStaticShape())
        expand(ger);
  }

  /// Bytes of batch buffers added to each checkpointed gradient so far.
  llvm::DenseMap<Operation *, int64_t> spent;

  void batch(LoopOp loop) {
    std::optional<int64_t> trips = constantTrips(loop);
    if (!trips || *trips < 2)
      return;
    // Accumulating updates directly in the loop's states (not under an
    // sdfg.if or a nested loop, so each runs once per iteration), by
    // target, in program order.
    llvm::MapVector<Value, SmallVector<GerOp>> groups;
    for (auto state : loop.getBody().front().getOps<StateOp>())
      for (auto ger : state.getBody().front().getOps<GerOp>())
        if (ger.getAccumulate())
          groups[ger.getA()].push_back(ger);
    for (auto &[target, updates] : groups) {
      if (!onlyUpdatedBy(target, loop, updates))
        continue;
      auto type = cast<MemRefType>(target.getType());
      if (!type.hasStaticShape())
        continue;
      int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
      // A matrix that stays in cache takes the T updates about as fast as
      // the matmul (4000 x 50, 1.6 MB: 20% slower batched; 20000 x 100,
      // 16 MB: twice as fast).
      unsigned width = type.getElementType().getIntOrFloatBitWidth() / 8;
      if (double(rows) * double(cols) * width < double(minBytes))
        continue;
      // rows + cols cannot overflow (each is at most 2^62); the products
      // can for huge matrices, which are then left alone.
      int64_t perIteration;
      if (llvm::MulOverflow(int64_t(updates.size()), rows + cols, perIteration))
        continue;
      double limit = maxBufferRatio * double(rows) * double(cols);
      // Under a memory limit, the buffers must fit what the checkpointing
      // left of it (the peak it planned does not include them).
      auto sdfg = loop->getParentOfType<SDFGOp>();
      std::optional<int64_t> left = headroom(sdfg);
      if (left)
        limit = std::min(limit, double(*left - spent[sdfg]) / width);
      int64_t block = blockSize(*trips, perIteration, limit);
      if (block < 2)
        continue;
      // The two buffers must be containers the dialect represents.
      int64_t bytes;
      if (llvm::MulOverflow(block, perIteration, bytes) ||
          llvm::MulOverflow(bytes, int64_t(width), bytes) ||
          bytes > kMaxRepresentable)
        continue;
      spent[sdfg] += bytes;
      rewrite(loop, target, updates, block, *trips);
    }
  }

  /// Replaces `updates` by copies of their vectors into row
  /// `(iteration mod block) * updates.size() + k` of two buffers, added to
  /// `target` by one matmul after every `block` iterations.
  void rewrite(LoopOp loop, Value target, MutableArrayRef<GerOp> updates,
               int64_t block, int64_t trips) {
    Location loc = updates.front()->getLoc();
    MLIRContext *ctx = loop.getContext();
    OpBuilder b(ctx);
    auto type = cast<MemRefType>(target.getType());
    int64_t n = int64_t(updates.size()) * block;
    auto sdfgOp = loop->getParentOfType<SDFGOp>();
    b.setInsertionPointToStart(&sdfgOp.getBody().front());
    auto buffer = [&](int64_t len, StringRef name) -> Value {
      return AllocOp::create(b, loc,
                             MemRefType::get({n, len}, type.getElementType()),
                             ValueRange{}, b.getStringAttr(name));
    };
    Value xs = buffer(type.getDimSize(0), "outer_rows");
    Value ys = buffer(type.getDimSize(1), "outer_cols");
    AffineExpr slot = iterationNumber(loop);
    if (block < trips)
      slot = slot % block;
    Value iv = loop.getIterator();
    for (auto [k, ger] : llvm::enumerate(updates)) {
      b.setInsertionPoint(ger);
      AffineExpr row = slot * int64_t(updates.size()) + int64_t(k);
      copyRow(b, ger.getLoc(), ger.getX(), xs, row, iv);
      copyRow(b, ger.getLoc(), ger.getY(), ys, row, iv);
      ger.erase();
    }
    auto addProduct = [&]() {
      auto state = StateOp::create(b, loc, StringRef("outer_products"));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&state.getBody().front());
      MatmulOp::create(b, loc, xs, ys, target, /*transpose_a=*/true,
                       /*transpose_b=*/false, /*accumulate=*/true,
                       /*alpha=*/nullptr);
    };
    if (block == trips) {
      b.setInsertionPointAfter(loop);
      addProduct();
      return;
    }
    // Every `block`-th iteration, the last of its block (block divides the
    // trip count, so the last iteration is one).
    Block &body = loop.getBody().front();
    b.setInsertionPointToEnd(&body);
    auto full =
        TaskletOp::create(b, loc, TypeRange{b.getI1Type()}, ValueRange{iv});
    Block *fb = new Block();
    full.getBody().push_back(fb);
    Value arg = fb->addArgument(b.getIndexType(), loc);
    {
      // slot = ((iv - lb) / step) mod block, exact and non-negative.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(fb);
      int64_t lb = cast<AffineConstantExpr>(loop.getLowerExpr()).getValue();
      int64_t step = loop.getStepValue();
      auto index = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(b, loc, v);
      };
      Value offset = step > 0 ? arith::SubIOp::create(b, loc, arg, index(lb))
                              : arith::SubIOp::create(b, loc, index(lb), arg);
      Value number =
          arith::DivUIOp::create(b, loc, offset, index(std::abs(step)));
      Value s = arith::RemUIOp::create(b, loc, number, index(block));
      YieldOp::create(
          b, loc,
          ValueRange{arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s,
                                           index(block - 1))});
    }
    auto cond = IfOp::create(b, loc, ValueRange{full.getResult(0)}, 1);
    Block *then = new Block();
    cond.getBranches().front().push_back(then);
    b.setInsertionPointToStart(then);
    addProduct();
  }
};

} // namespace
