//===- Sort.cpp - Lower sdfg.argsort and sdfg.searchsorted ---------------===//
//
// sdfg.argsort sorts one line along the axis at a time, emitted as scf
// loops rather than a call: libc's qsort is not stable (NumPy's
// `kind="stable"` is, and a gradient through a sort must pick one element
// among equal keys consistently with the forward) and its comparator would
// reach the keys through global state. Lines of 256 and more are sorted by
// a least significant digit radix sort of the keys mapped to unsigned
// integers in NumPy's order (linear work, no compare chains); shorter ones
// by a bottom-up merge sort. Both move (key, position) pairs between two
// pairs of scratch buffers, so that each pass reads its keys contiguously
// rather than through the positions; the buffer pair a pass reads is
// selected by a flag (arith.select on memrefs) instead of copying back
// after each pass. sdfg.searchsorted is a binary search per value in the
// same order.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"

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

/// `x` as an unsigned 64-bit integer in NumPy's order: the sign bit of
/// integers flipped; for floats, the IEEE bits with all bits flipped for
/// negatives and the sign bit for the rest, -0.0 made +0.0 (NumPy's sort
/// compares them equal, so they keep their order) and every NaN the
/// largest key (after +inf, in their order).
Value orderedKey(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Type bits = b.getIntegerType(width), i64 = b.getI64Type();
  auto constant = [&](Type t, const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(t, v));
  };
  Value sign = constant(bits, APInt::getSignMask(width));
  Value u;
  if (auto ft = dyn_cast<FloatType>(type)) {
    Value zero = arith::ConstantOp::create(b, loc, ft, b.getFloatAttr(ft, 0));
    Value plain = arith::BitcastOp::create(
        b, loc, bits, arith::AddFOp::create(b, loc, x, zero));
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, plain,
                              constant(bits, APInt(width, 0)));
    Value ones = constant(bits, APInt::getAllOnes(width));
    Value flip = arith::SelectOp::create(b, loc, negative, ones, sign);
    u = arith::XOrIOp::create(b, loc, plain, flip);
    Value nan = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
    u = arith::SelectOp::create(b, loc, nan, ones, u);
  } else {
    u = arith::XOrIOp::create(b, loc, x, sign);
  }
  return width < 64 ? arith::ExtUIOp::create(b, loc, i64, u).getResult() : u;
}

/// The positions that sort `n` keys (`load(k)`) stably, by a least
/// significant digit radix sort of their ordered keys (orderedKey), 8 bits
/// a pass: one pass counts every digit's values, then each pass whose
/// digit is not the same for all keys scatters (key, position) pairs to
/// their digit's next slot. Linear in n: past a few thousand elements
/// several times faster than the merge sort, whose passes are chains of
/// dependent compares. Calls `store(k, position)` for the result.
constexpr int64_t kDigitBits = 8;

void emitRadixArgsort(OpBuilder &b, Location loc, Value n, unsigned width,
                      function_ref<Value(Value)> load,
                      function_ref<void(Value, Value)> store) {
  Type i64 = b.getI64Type(), idx = b.getIndexType();
  auto cst = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto c64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, i64, v);
  };
  const int64_t passes = (width + kDigitBits - 1) / kDigitBits,
                radix = int64_t(1) << kDigitBits;
  auto buffer = [&](Type elt) -> Value {
    return memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, elt), ValueRange{n});
  };
  Value keys[2] = {buffer(i64), buffer(i64)};
  Value pos[2] = {buffer(i64), buffer(i64)};
  Value counts = memref::AllocOp::create(
      b, loc, MemRefType::get({passes, radix}, idx), ValueRange{});
  Value zero = cst(0), one = cst(1);
  auto digit = [&](Value u, int64_t d) -> Value {
    Value shifted =
        d ? arith::ShRUIOp::create(b, loc, u, c64(kDigitBits * d)).getResult()
          : u;
    return arith::IndexCastUIOp::create(
        b, loc, idx, arith::AndIOp::create(b, loc, shifted, c64(radix - 1)));
  };
  {
    auto d = scf::ForOp::create(b, loc, zero, cst(passes), one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(d.getBody());
    auto v = scf::ForOp::create(b, loc, zero, cst(radix), one);
    b.setInsertionPointToStart(v.getBody());
    memref::StoreOp::create(
        b, loc, zero, counts,
        ValueRange{d.getInductionVar(), v.getInductionVar()});
  }
  {
    auto fill = scf::ForOp::create(b, loc, zero, n, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(fill.getBody());
    Value k = fill.getInductionVar();
    Value u = orderedKey(b, loc, load(k));
    memref::StoreOp::create(b, loc, u, keys[0], k);
    memref::StoreOp::create(b, loc, arith::IndexCastOp::create(b, loc, i64, k),
                            pos[0], k);
    for (int64_t d = 0; d < passes; ++d) {
      SmallVector<Value> at = {cst(d), digit(u, d)};
      Value c = memref::LoadOp::create(b, loc, counts, at);
      memref::StoreOp::create(b, loc, arith::AddIOp::create(b, loc, c, one),
                              counts, at);
    }
  }
  // Counts to first slots; a digit whose value all keys share (the high
  // bytes of small integers, the exponent of values of one binade) needs
  // no pass.
  Value first = memref::LoadOp::create(b, loc, keys[0], zero);
  Value flipped = arith::ConstantIntOp::create(b, loc, 0, 1);
  for (int64_t d = 0; d < passes; ++d) {
    Value shared = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        memref::LoadOp::create(b, loc, counts,
                               ValueRange{cst(d), digit(first, d)}),
        n);
    auto sums =
        scf::ForOp::create(b, loc, zero, cst(radix), one, ValueRange{zero});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(sums.getBody());
      SmallVector<Value> at = {cst(d), sums.getInductionVar()};
      Value c = memref::LoadOp::create(b, loc, counts, at);
      Value running = sums.getRegionIterArg(0);
      memref::StoreOp::create(b, loc, running, counts, at);
      scf::YieldOp::create(
          b, loc, ValueRange{arith::AddIOp::create(b, loc, running, c)});
    }
    auto pass = scf::IfOp::create(b, loc, TypeRange{b.getI1Type()}, shared,
                                  /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&pass.getThenRegion().front());
      scf::YieldOp::create(b, loc, ValueRange{flipped});
      b.setInsertionPointToStart(&pass.getElseRegion().front());
      auto pick = [&](Value *pair, bool source) -> Value {
        return arith::SelectOp::create(b, loc, flipped, pair[source ? 1 : 0],
                                       pair[source ? 0 : 1]);
      };
      Value srcKeys = pick(keys, true), srcPos = pick(pos, true);
      Value dstKeys = pick(keys, false), dstPos = pick(pos, false);
      auto scatter = scf::ForOp::create(b, loc, zero, n, one);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(scatter.getBody());
        Value k = scatter.getInductionVar();
        Value u = memref::LoadOp::create(b, loc, srcKeys, k);
        SmallVector<Value> at = {cst(d), digit(u, d)};
        Value slot = memref::LoadOp::create(b, loc, counts, at);
        memref::StoreOp::create(
            b, loc, arith::AddIOp::create(b, loc, slot, one), counts, at);
        memref::StoreOp::create(b, loc, u, dstKeys, slot);
        memref::StoreOp::create(
            b, loc, memref::LoadOp::create(b, loc, srcPos, k), dstPos, slot);
      }
      Value trueV = arith::ConstantIntOp::create(b, loc, 1, 1);
      scf::YieldOp::create(
          b, loc, ValueRange{arith::XOrIOp::create(b, loc, flipped, trueV)});
    }
    flipped = pass.getResult(0);
  }
  Value sorted = arith::SelectOp::create(b, loc, flipped, pos[1], pos[0]);
  {
    auto copy = scf::ForOp::create(b, loc, zero, n, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(copy.getBody());
    Value k = copy.getInductionVar();
    store(k, memref::LoadOp::create(b, loc, sorted, k));
  }
  for (Value buf : {keys[0], keys[1], pos[0], pos[1], counts})
    memref::DeallocOp::create(b, loc, buf);
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

/// Lines at least this long are sorted by radix sort (emitRadixArgsort).
constexpr int64_t kMinRadixSort = 256;

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
    // Long lines by radix sort, short ones (where its 256-entry counts
    // per byte cost more than the merge passes) by merge sort; decided
    // here when the length is static, else at run time.
    OpBuilder::InsertionGuard guard(b);
    auto radixSort = [&] {
      emitRadixArgsort(
          b, loc, n, key.getIntOrFloatBitWidth(),
          [&](Value k) -> Value {
            return memref::LoadOp::create(b, loc, a, at(k));
          },
          [&](Value k, Value p) {
            memref::StoreOp::create(b, loc, p, result, at(k));
          });
    };
    int64_t length = type.getDimSize(axis);
    if (!ShapedType::isDynamic(length)) {
      if (length >= kMinRadixSort)
        return radixSort();
    } else {
      auto choice = scf::IfOp::create(
          b, loc, TypeRange{},
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, n,
                                cst(kMinRadixSort)),
          /*withElseRegion=*/true);
      b.setInsertionPoint(choice.getThenRegion().front().getTerminator());
      radixSort();
      b.setInsertionPoint(choice.getElseRegion().front().getTerminator());
    }
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
  bool dynamic = !type.hasStaticShape();
  bool parallel = !gpu && parallelDepth == 0 && !lbs.empty() &&
                  (dynamic || (type.getDimSize(axis) < type.getNumElements() &&
                               op.getWorkEstimate() >= kMinParallelSortWork));
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
  bool parallel =
      !gpu && parallelDepth == 0 && !lbs.empty() &&
      (!type.hasStaticShape() || op.getWorkEstimate() >= kMinParallelSortWork);
  emitNest(b, loc, lbs, ubs, steps, parallel, search);
  return success();
}
