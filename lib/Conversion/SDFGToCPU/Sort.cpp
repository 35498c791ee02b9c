//===- Sort.cpp - Lower sdfg.argsort and sdfg.searchsorted
//-----------------===//
//
// sdfg.argsort as a stable bottom-up merge sort, one line along the axis at
// a time, emitted as scf loops rather than a call: libc's qsort is not
// stable (NumPy's `kind="stable"` is, and a gradient through a sort must
// pick one element among equal keys consistently with the forward) and its
// comparator would reach the keys through global state. The sort moves
// (key, position) pairs between two pairs of scratch buffers, so that each
// merge pass reads its keys contiguously rather than through the
// positions; the buffer pair a pass reads is selected by a loop-carried
// flag (arith.select on memrefs) instead of copying back after each pass.
// sdfg.searchsorted is a binary search per value in the same order.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

namespace {

/// Whether key `x` goes strictly before key `y`: ascending, with NaNs
/// after every number (NumPy's order), and integers signed.
Value sortsBefore(OpBuilder &b, Location loc, Value x, Value y) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  Value less = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
  Value yNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
  Value xNumber =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x);
  return arith::OrIOp::create(b, loc, less,
                              arith::AndIOp::create(b, loc, yNaN, xNumber));
}

/// The two runs src[lo, mid) and src[mid, hi) (keys and positions) merged
/// into dst[lo, hi); of equal keys, the left run's first (stability).
void emitMerge(OpBuilder &b, Location loc, Value srcKeys, Value srcPos,
               Value dstKeys, Value dstPos, Value lo, Value mid, Value hi) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lastLeft = arith::SubIOp::create(b, loc, mid, one);
  Value lastRight = arith::SubIOp::create(b, loc, hi, one);
  auto loop = scf::ForOp::create(b, loc, lo, hi, one, ValueRange{lo, mid});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value k = loop.getInductionVar();
  Value i = loop.getRegionIterArg(0), j = loop.getRegionIterArg(1);
  // Both candidates are loaded every step, from clamped indices: the left
  // run is never empty (mid > lo), and where the right one is, the clamp
  // reads the left run's last element, which is then not taken.
  Value ic = arith::MinUIOp::create(b, loc, i, lastLeft);
  Value jc = arith::MinUIOp::create(b, loc, j, lastRight);
  Value ki = memref::LoadOp::create(b, loc, srcKeys, ic);
  Value kj = memref::LoadOp::create(b, loc, srcKeys, jc);
  Value leftLeft =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, mid);
  Value rightLeft =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, j, hi);
  Value trueV = arith::ConstantIntOp::create(b, loc, 1, 1);
  Value leftDone = arith::XOrIOp::create(b, loc, leftLeft, trueV);
  Value rightFirst = arith::AndIOp::create(
      b, loc, rightLeft,
      arith::OrIOp::create(b, loc, leftDone, sortsBefore(b, loc, kj, ki)));
  Value pi = memref::LoadOp::create(b, loc, srcPos, ic);
  Value pj = memref::LoadOp::create(b, loc, srcPos, jc);
  memref::StoreOp::create(
      b, loc, arith::SelectOp::create(b, loc, rightFirst, kj, ki), dstKeys, k);
  memref::StoreOp::create(
      b, loc, arith::SelectOp::create(b, loc, rightFirst, pj, pi), dstPos, k);
  Value stepRight =
      arith::IndexCastUIOp::create(b, loc, b.getIndexType(), rightFirst);
  Value stepLeft = arith::SubIOp::create(b, loc, one, stepRight);
  scf::YieldOp::create(b, loc,
                       ValueRange{arith::AddIOp::create(b, loc, i, stepLeft),
                                  arith::AddIOp::create(b, loc, j, stepRight)});
}

/// Sorts each run of `width` elements of keys/pos (the last one shorter)
/// by insertion, stably: a key moves left past the keys it sorts strictly
/// before. Short runs sort faster this way than by the first merge
/// passes, whose per-step overhead dominates on them.
void emitInsertionRuns(OpBuilder &b, Location loc, Value keys, Value pos,
                       Value n, int64_t width) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value widthV = arith::ConstantIndexOp::create(b, loc, width);
  auto runs = scf::ForOp::create(b, loc, zero, n, widthV);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(runs.getBody());
  Value lo = runs.getInductionVar();
  Value hi = arith::MinSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo, widthV), n);
  auto items = scf::ForOp::create(
      b, loc, arith::AddIOp::create(b, loc, lo, one), hi, one);
  b.setInsertionPointToStart(items.getBody());
  Value i = items.getInductionVar();
  Value key = memref::LoadOp::create(b, loc, keys, i);
  Value p = memref::LoadOp::create(b, loc, pos, i);
  Type idx = b.getIndexType();
  auto shift = scf::WhileOp::create(b, loc, TypeRange{idx}, ValueRange{i});
  {
    OpBuilder::InsertionGuard inner(b);
    Block *before = b.createBlock(&shift.getBefore(), {}, {idx}, {loc});
    Value j = before->getArgument(0);
    // keys[j - 1], clamped to the run so that the load stays in bounds
    // when j == lo (and the comparison is then ignored).
    Value prev = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, j, one), lo);
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, lo);
    Value moves = arith::AndIOp::create(
        b, loc, inside,
        sortsBefore(b, loc, key, memref::LoadOp::create(b, loc, keys, prev)));
    scf::ConditionOp::create(b, loc, moves, ValueRange{j});
    Block *after = b.createBlock(&shift.getAfter(), {}, {idx}, {loc});
    Value k = after->getArgument(0);
    Value left = arith::SubIOp::create(b, loc, k, one);
    memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, keys, left),
                            keys, k);
    memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, pos, left),
                            pos, k);
    scf::YieldOp::create(b, loc, ValueRange{left});
  }
  memref::StoreOp::create(b, loc, key, keys, shift.getResult(0));
  memref::StoreOp::create(b, loc, p, pos, shift.getResult(0));
}

/// The loop nest over [lbs, ubs) calling `body` with the induction
/// variables, its first dimension an scf.parallel when `parallel` (the
/// sort's lines, the search's values).
void emitNest(OpBuilder &b, Location loc, ArrayRef<Value> lbs,
              ArrayRef<Value> ubs, ArrayRef<Value> steps, bool parallel,
              function_ref<void(ValueRange)> body) {
  OpBuilder::InsertionGuard guard(b);
  if (!parallel) {
    loopNest(b, loc, lbs, ubs, steps, body);
    return;
  }
  auto par = scf::ParallelOp::create(b, loc, lbs[0], ubs[0], steps[0]);
  b.setInsertionPoint(par.getBody()->getTerminator());
  Value first = par.getInductionVars()[0];
  loopNest(b, loc, lbs.drop_front(), ubs.drop_front(), steps.drop_front(),
           [&](ValueRange ivs) {
             SmallVector<Value> all = {first};
             all.append(ivs.begin(), ivs.end());
             body(all);
           });
}

} // namespace

LogicalResult Lowering::lowerArgsort(ArgsortOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), result = mapping.lookup(op.getResult());
  auto type = cast<MemRefType>(a.getType());
  int64_t axis = op.getAxis();
  Type key = type.getElementType(), i64 = b.getI64Type();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value n = memref::DimOp::create(b, loc, a, axis);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (d == axis)
      continue;
    lbs.push_back(cst(0));
    ubs.push_back(memref::DimOp::create(b, loc, a, d));
    steps.push_back(cst(1));
  }

  auto sortLine = [&](ValueRange line) {
    auto at = [&](Value k) {
      SmallVector<Value> idx(line.begin(), line.end());
      idx.insert(idx.begin() + axis, k);
      return idx;
    };
    Value zero = cst(0), one = cst(1);
    auto buffer = [&](Type elt) -> Value {
      return memref::AllocOp::create(
          b, loc, MemRefType::get({ShapedType::kDynamic}, elt), ValueRange{n});
    };
    Value keys[2] = {buffer(key), buffer(key)};
    Value pos[2] = {buffer(i64), buffer(i64)};
    {
      auto fill = scf::ForOp::create(b, loc, zero, n, one);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(fill.getBody());
      Value k = fill.getInductionVar();
      memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, a, at(k)),
                              keys[0], k);
      memref::StoreOp::create(
          b, loc, arith::IndexCastOp::create(b, loc, i64, k), pos[0], k);
    }
    constexpr int64_t kInsertionRun = 16;
    emitInsertionRuns(b, loc, keys[0], pos[0], n, kInsertionRun);
    // Passes of doubling run width; `flipped`: the sorted runs are in the
    // second pair of buffers.
    Value falseV = arith::ConstantIntOp::create(b, loc, 0, 1);
    auto passes =
        scf::WhileOp::create(b, loc, TypeRange{b.getIndexType(), b.getI1Type()},
                             ValueRange{cst(kInsertionRun), falseV});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before =
          b.createBlock(&passes.getBefore(), {},
                        {b.getIndexType(), b.getI1Type()}, {loc, loc});
      Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         before->getArgument(0), n);
      scf::ConditionOp::create(b, loc, more, before->getArguments());
      Block *after =
          b.createBlock(&passes.getAfter(), {},
                        {b.getIndexType(), b.getI1Type()}, {loc, loc});
      Value width = after->getArgument(0), flipped = after->getArgument(1);
      auto pick = [&](Value *pair, bool source) -> Value {
        return arith::SelectOp::create(b, loc, flipped, pair[source ? 1 : 0],
                                       pair[source ? 0 : 1]);
      };
      Value srcKeys = pick(keys, true), srcPos = pick(pos, true);
      Value dstKeys = pick(keys, false), dstPos = pick(pos, false);
      Value twice = arith::MulIOp::create(b, loc, width, cst(2));
      auto runs = scf::ForOp::create(b, loc, zero, n, twice);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(runs.getBody());
        Value lo = runs.getInductionVar();
        Value mid = arith::MinSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, lo, width), n);
        Value hi = arith::MinSIOp::create(
            b, loc, arith::AddIOp::create(b, loc, lo, twice), n);
        emitMerge(b, loc, srcKeys, srcPos, dstKeys, dstPos, lo, mid, hi);
      }
      Value trueV = arith::ConstantIntOp::create(b, loc, 1, 1);
      scf::YieldOp::create(
          b, loc,
          ValueRange{twice, arith::XOrIOp::create(b, loc, flipped, trueV)});
    }
    Value sorted =
        arith::SelectOp::create(b, loc, passes.getResult(1), pos[1], pos[0]);
    {
      auto copy = scf::ForOp::create(b, loc, zero, n, one);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(copy.getBody());
      Value k = copy.getInductionVar();
      memref::StoreOp::create(b, loc, memref::LoadOp::create(b, loc, sorted, k),
                              result, at(k));
    }
    for (Value buf : {keys[0], keys[1], pos[0], pos[1]})
      memref::DeallocOp::create(b, loc, buf);
  };

  // Lines in parallel (the first line dimension distributed) where there
  // is enough work to pay for the fork, as for maps (isSmallWork); on the
  // GPU target the sort runs on the host, sequentially.
  constexpr double kMinParallelWork = 16384;
  bool dynamic = !type.hasStaticShape();
  bool parallel = !gpu && parallelDepth == 0 && !lbs.empty() &&
                  (dynamic || (type.getDimSize(axis) < type.getNumElements() &&
                               op.getWorkEstimate() >= kMinParallelWork));
  emitNest(b, loc, lbs, ubs, steps, parallel, sortLine);
  return success();
}

LogicalResult Lowering::lowerSearchsorted(SearchsortedOp op) {
  Location loc = op.getLoc();
  Value values = mapping.lookup(op.getValues());
  Value sorted = mapping.lookup(op.getSorted());
  Value result = mapping.lookup(op.getResult());
  auto type = cast<MemRefType>(values.getType());
  bool right = op.getRight();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value n = memref::DimOp::create(b, loc, sorted, 0);

  auto search = [&](ValueRange idx) {
    Value v = memref::LoadOp::create(b, loc, values, idx);
    Type index = b.getIndexType();
    // [lo, hi) holds the answer; each step halves it. Left: the first
    // position whose element v does not go after; right: the first whose
    // element goes after v.
    auto loop = scf::WhileOp::create(b, loc, TypeRange{index, index},
                                     ValueRange{cst(0), n});
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before =
          b.createBlock(&loop.getBefore(), {}, {index, index}, {loc, loc});
      Value open =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                before->getArgument(0), before->getArgument(1));
      scf::ConditionOp::create(b, loc, open, before->getArguments());
      Block *after =
          b.createBlock(&loop.getAfter(), {}, {index, index}, {loc, loc});
      Value lo = after->getArgument(0), hi = after->getArgument(1);
      Value mid = arith::ShRUIOp::create(
          b, loc, arith::AddIOp::create(b, loc, lo, hi), cst(1));
      Value x = memref::LoadOp::create(b, loc, sorted, mid);
      Value beyond;
      if (right) {
        Value trueV = arith::ConstantIntOp::create(b, loc, 1, 1);
        beyond =
            arith::XOrIOp::create(b, loc, sortsBefore(b, loc, v, x), trueV);
      } else {
        beyond = sortsBefore(b, loc, x, v);
      }
      Value next = arith::AddIOp::create(b, loc, mid, cst(1));
      scf::YieldOp::create(
          b, loc,
          ValueRange{arith::SelectOp::create(b, loc, beyond, next, lo),
                     arith::SelectOp::create(b, loc, beyond, hi, mid)});
    }
    memref::StoreOp::create(
        b, loc,
        arith::IndexCastOp::create(b, loc, b.getI64Type(), loop.getResult(0)),
        result, idx);
  };

  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    lbs.push_back(cst(0));
    ubs.push_back(memref::DimOp::create(b, loc, values, d));
    steps.push_back(cst(1));
  }
  // Values in parallel (the first dimension distributed) where the work
  // pays for the fork, as for the sort's lines; on the GPU target the
  // search runs on the host, sequentially.
  constexpr double kMinParallelWork = 16384;
  bool parallel =
      !gpu && parallelDepth == 0 && !lbs.empty() &&
      (!type.hasStaticShape() || op.getWorkEstimate() >= kMinParallelWork);
  emitNest(b, loc, lbs, ubs, steps, parallel, search);
  return success();
}
