//===- FFT.cpp - Lower sdfg.fft -------------------------------------------===//
//
// sdfg.fft is emitted as scf loops rather than a call: no FFT library whose
// license fits is packaged here (FFTW is GPL), and the algorithms are
// short. Each line along the axis is copied into two f64 scratch vectors
// (real and imaginary parts), transformed in place and written back, so
// that f32 data gets f64 arithmetic and every line reads its data
// contiguously.
//
// Power-of-two lengths: the iterative radix-2 Cooley-Tukey transform (a
// bit-reversal permutation, then log2 n stages of butterflies). Other
// lengths: Bluestein's chirp-z algorithm. With c_j = exp(s i pi j^2 / n)
// (s the transform's sign), jk = (j^2 + k^2 - (k - j)^2) / 2 gives
//   X_k = c_k sum_j (x_j c_j) conj(c_{k-j}),
// a cyclic convolution once padded to a power of two m >= 2n - 1, computed
// by two radix-2 transforms per line; the transform of conj(c) is done
// once per op. A mixed-radix transform would be faster for lengths with
// small factors, but Bluestein covers every length (primes included) with
// one code path. The twiddles cos/sin(2 pi k / m) and the chirps' angles
// pi (j^2 mod 2n) / n are computed in f64 from exact integer ratios, so
// the error grows as log n ulps, as pocketfft's (NumPy's) does.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "sdfg/Conversion/SDFGToSCF/LoopNests.h"
#include "sdfg/Dialect/SDFG/Analysis/SchedulePolicy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

namespace {

/// A complex f64 scalar.
struct Complex {
  Value re, im;
};

/// Emits the index and f64 arithmetic of the transform at `b`'s insertion
/// point.
struct FftEmitter {
  OpBuilder &b;
  Location loc;

  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value f64(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64Type(),
                                     b.getF64FloatAttr(v));
  }
  Value toF64(Value index) {
    Value i = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
    return arith::UIToFPOp::create(b, loc, b.getF64Type(), i);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Complex mul(Complex x, Complex y) {
    return {sub(mul(x.re, y.re), mul(x.im, y.im)),
            add(mul(x.re, y.im), mul(x.im, y.re))};
  }
  /// A vector of `n` f64 values (scratch; freed by the caller).
  Value vector(Value n) {
    return memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, b.getF64Type()),
        ValueRange{n});
  }
  Complex load(Value re, Value im, Value k) {
    return {memref::LoadOp::create(b, loc, re, k),
            memref::LoadOp::create(b, loc, im, k)};
  }
  void store(Complex v, Value re, Value im, Value k) {
    memref::StoreOp::create(b, loc, v.re, re, k);
    memref::StoreOp::create(b, loc, v.im, im, k);
  }
  /// `body(k)` for k in [lo, hi) step `step`.
  void loop(Value lo, Value hi, Value step, function_ref<void(Value)> body) {
    auto f = scf::ForOp::create(b, loc, lo, hi, step);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(f.getBody());
    body(f.getInductionVar());
  }
  void loop(Value lo, Value hi, function_ref<void(Value)> body) {
    loop(lo, hi, cst(1), body);
  }

  /// The smallest power of two >= `n` (n >= 1).
  Value nextPowerOfTwo(Value n) {
    Type idx = b.getIndexType();
    auto w = scf::WhileOp::create(b, loc, TypeRange{idx}, ValueRange{cst(1)});
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&w.getBefore(), {}, {idx}, {loc});
    Value p = before->getArgument(0);
    scf::ConditionOp::create(
        b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p, n),
        ValueRange{p});
    Block *after = b.createBlock(&w.getAfter(), {}, {idx}, {loc});
    scf::YieldOp::create(b, loc,
                         ValueRange{arith::ShLIOp::create(
                             b, loc, after->getArgument(0), cst(1))});
    return w.getResult(0);
  }

  /// cos and sin of 2 pi k / m for k in [0, m / 2): the twiddles of a
  /// radix-2 transform of length m, for either sign.
  std::pair<Value, Value> twiddles(Value m) {
    Value half = arith::ShRUIOp::create(b, loc, m, cst(1));
    Value cosT = vector(half), sinT = vector(half);
    Value mF = toF64(m);
    loop(cst(0), half, [&](Value k) {
      Value angle = arith::DivFOp::create(
          b, loc, mul(f64(2 * llvm::numbers::pi), toF64(k)), mF);
      memref::StoreOp::create(b, loc, math::CosOp::create(b, loc, angle), cosT,
                              k);
      memref::StoreOp::create(b, loc, math::SinOp::create(b, loc, angle), sinT,
                              k);
    });
    return {cosT, sinT};
  }

  /// The unscaled transform of (re, im), of power-of-two length m, in
  /// place: sign -1 (`forward`) or +1, with the twiddles of `twiddles(m)`.
  void radix2(Value re, Value im, Value m, Value cosT, Value sinT,
              bool forward) {
    Type idx = b.getIndexType();
    Value zero = cst(0), one = cst(1);
    // Bit-reversal permutation: j runs through the bit-reversed
    // counterparts of i (adding one at the top bit, carrying downwards).
    {
      auto perm = scf::ForOp::create(b, loc, one, m, one, ValueRange{zero});
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(perm.getBody());
      Value i = perm.getInductionVar();
      Value top = arith::ShRUIOp::create(b, loc, m, one);
      auto carry =
          scf::WhileOp::create(b, loc, TypeRange{idx, idx},
                               ValueRange{perm.getRegionIterArg(0), top});
      {
        OpBuilder::InsertionGuard inner(b);
        Block *before =
            b.createBlock(&carry.getBefore(), {}, {idx, idx}, {loc, loc});
        Value j = before->getArgument(0), bit = before->getArgument(1);
        Value set =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                  arith::AndIOp::create(b, loc, j, bit), zero);
        scf::ConditionOp::create(b, loc, set, before->getArguments());
        Block *after =
            b.createBlock(&carry.getAfter(), {}, {idx, idx}, {loc, loc});
        scf::YieldOp::create(
            b, loc,
            ValueRange{
                arith::XOrIOp::create(b, loc, after->getArgument(0),
                                      after->getArgument(1)),
                arith::ShRUIOp::create(b, loc, after->getArgument(1), one)});
      }
      Value j =
          arith::XOrIOp::create(b, loc, carry.getResult(0), carry.getResult(1));
      auto swap = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, j),
          /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(swap.thenBlock()->getTerminator());
        Complex x = load(re, im, i), y = load(re, im, j);
        store(y, re, im, i);
        store(x, re, im, j);
      }
      scf::YieldOp::create(b, loc, ValueRange{j});
    }
    // Stages of butterflies over blocks of 2 * half, half = 1, 2, 4, ...
    auto stages = scf::WhileOp::create(b, loc, TypeRange{idx}, ValueRange{one});
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&stages.getBefore(), {}, {idx}, {loc});
    scf::ConditionOp::create(b, loc,
                             arith::CmpIOp::create(b, loc,
                                                   arith::CmpIPredicate::ult,
                                                   before->getArgument(0), m),
                             before->getArguments());
    Block *after = b.createBlock(&stages.getAfter(), {}, {idx}, {loc});
    Value half = after->getArgument(0);
    Value width = arith::ShLIOp::create(b, loc, half, one);
    Value stride = arith::DivUIOp::create(b, loc, m, width);
    loop(zero, m, width, [&](Value start) {
      loop(zero, half, [&](Value k) {
        Value t = arith::MulIOp::create(b, loc, k, stride);
        Value s = memref::LoadOp::create(b, loc, sinT, t);
        Complex w = {memref::LoadOp::create(b, loc, cosT, t),
                     forward ? arith::NegFOp::create(b, loc, s).getResult()
                             : s};
        Value p = arith::AddIOp::create(b, loc, start, k);
        Value q = arith::AddIOp::create(b, loc, p, half);
        Complex u = load(re, im, p);
        Complex v = mul(load(re, im, q), w);
        store({add(u.re, v.re), add(u.im, v.im)}, re, im, p);
        store({sub(u.re, v.re), sub(u.im, v.im)}, re, im, q);
      });
    });
    scf::YieldOp::create(b, loc, ValueRange{width});
  }
};

} // namespace

LogicalResult Lowering::lowerFft(FftOp op) {
  Location loc = op.getLoc();
  Value a = mapping.lookup(op.getA()), result = mapping.lookup(op.getResult());
  auto type = cast<MemRefType>(a.getType());
  int64_t axis = op.getAxis(), parts = type.getRank() - 1;
  bool forward = !op.getInverse(), accumulate = op.getAccumulate();
  Type elt = type.getElementType();
  FftEmitter e{b, loc};
  Value n = memref::DimOp::create(b, loc, a, axis);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < parts; ++d) {
    if (d == axis)
      continue;
    lbs.push_back(e.cst(0));
    ubs.push_back(memref::DimOp::create(b, loc, a, d));
    steps.push_back(e.cst(1));
  }

  // Lines in parallel (the first line dimension distributed) where the
  // work pays for the fork, as for argsort; on the GPU target the
  // transform runs on the host, sequentially.
  bool dynamic = !type.hasStaticShape();
  bool parallel =
      !gpu && parallelDepth == 0 && !lbs.empty() &&
      (dynamic || (2 * type.getDimSize(axis) < type.getNumElements() &&
                   op.getWorkEstimate() >= kMinParallelOps));

  // The whole op for power-of-two lengths or for the others (Bluestein).
  auto emitAll = [&](bool pow2) {
    FftEmitter o{b, loc};
    // Bluestein: the padded length m, the chirp c and the transform of
    // the convolution's kernel conj(c), shared by every line.
    Value m = pow2 ? n
                   : o.nextPowerOfTwo(arith::SubIOp::create(
                         b, loc, arith::ShLIOp::create(b, loc, n, o.cst(1)),
                         o.cst(1)));
    std::pair<Value, Value> tw = o.twiddles(m);
    Value cosT = tw.first, sinT = tw.second;
    Value chirpRe, chirpIm, kernelRe, kernelIm;
    SmallVector<Value> scratch = {cosT, sinT};
    if (!pow2) {
      chirpRe = o.vector(n);
      chirpIm = o.vector(n);
      kernelRe = o.vector(m);
      kernelIm = o.vector(m);
      scratch.append({chirpRe, chirpIm, kernelRe, kernelIm});
      Value twoN = arith::ShLIOp::create(b, loc, n, o.cst(1));
      Value nF = o.toF64(n);
      o.loop(o.cst(0), m, [&](Value k) {
        o.store({o.f64(0), o.f64(0)}, kernelRe, kernelIm, k);
      });
      o.loop(o.cst(0), n, [&](Value j) {
        // j^2 mod 2n keeps the angle in [0, 2 pi) and exact: c_j is
        // periodic in j^2 with period 2n.
        Value r = arith::RemUIOp::create(
            b, loc, arith::MulIOp::create(b, loc, j, j), twoN);
        Value angle = arith::DivFOp::create(
            b, loc, o.mul(o.f64(llvm::numbers::pi), o.toF64(r)), nF);
        Value c = math::CosOp::create(b, loc, angle);
        Value s = math::SinOp::create(b, loc, angle);
        Value ns = arith::NegFOp::create(b, loc, s);
        o.store({c, forward ? ns : s}, chirpRe, chirpIm, j);
        // The kernel conj(c_j) at j and at -j (mod m).
        Complex conj = {c, forward ? s : ns};
        o.store(conj, kernelRe, kernelIm, j);
        Value mirror = arith::RemUIOp::create(
            b, loc, arith::SubIOp::create(b, loc, m, j), m);
        o.store(conj, kernelRe, kernelIm, mirror);
      });
      o.radix2(kernelRe, kernelIm, m, cosT, sinT, /*forward=*/true);
    }

    auto line = [&](ValueRange ivs) {
      OpBuilder::InsertionGuard guard(b);
      FftEmitter l{b, loc};
      auto at = [&](Value k, int64_t part) {
        SmallVector<Value> idx(ivs.begin(), ivs.end());
        idx.insert(idx.begin() + axis, k);
        idx.push_back(l.cst(part));
        return idx;
      };
      auto read = [&](Value k) -> Complex {
        Value v[2];
        for (int64_t part : {0, 1}) {
          v[part] = memref::LoadOp::create(b, loc, a, at(k, part));
          if (elt != b.getF64Type())
            v[part] = arith::ExtFOp::create(b, loc, b.getF64Type(), v[part]);
        }
        return {v[0], v[1]};
      };
      auto write = [&](Complex x, Value k) {
        Value v[2] = {x.re, x.im};
        for (int64_t part : {0, 1}) {
          Value out = v[part];
          if (elt != b.getF64Type())
            out = arith::TruncFOp::create(b, loc, elt, out);
          SmallVector<Value> idx = at(k, part);
          if (accumulate)
            out = arith::AddFOp::create(
                b, loc, memref::LoadOp::create(b, loc, result, idx), out);
          memref::StoreOp::create(b, loc, out, result, idx);
        }
      };
      Value re = l.vector(m), im = l.vector(m);
      if (pow2) {
        l.loop(l.cst(0), n, [&](Value k) { l.store(read(k), re, im, k); });
        l.radix2(re, im, m, cosT, sinT, forward);
        l.loop(l.cst(0), n, [&](Value k) { write(l.load(re, im, k), k); });
      } else {
        // a_j = x_j c_j, zero-padded to m; its convolution with the
        // kernel by transforms of length m (the inverse unscaled, hence
        // the 1/m); X_k = c_k (a * conj(c))_k.
        l.loop(l.cst(0), n, [&](Value j) {
          l.store(l.mul(read(j), l.load(chirpRe, chirpIm, j)), re, im, j);
        });
        l.loop(n, m, [&](Value j) {
          l.store({l.f64(0), l.f64(0)}, re, im, j);
        });
        l.radix2(re, im, m, cosT, sinT, /*forward=*/true);
        l.loop(l.cst(0), m, [&](Value k) {
          l.store(l.mul(l.load(re, im, k), l.load(kernelRe, kernelIm, k)), re,
                  im, k);
        });
        l.radix2(re, im, m, cosT, sinT, /*forward=*/false);
        Value scale = arith::DivFOp::create(b, loc, l.f64(1), l.toF64(m));
        l.loop(l.cst(0), n, [&](Value k) {
          Complex x = l.mul(l.load(re, im, k), l.load(chirpRe, chirpIm, k));
          write({l.mul(x.re, scale), l.mul(x.im, scale)}, k);
        });
      }
      memref::DeallocOp::create(b, loc, re);
      memref::DeallocOp::create(b, loc, im);
    };

    if (!parallel) {
      loopNest(b, loc, lbs, ubs, steps, line);
    } else {
      OpBuilder::InsertionGuard guard(b);
      auto par = scf::ParallelOp::create(b, loc, lbs[0], ubs[0], steps[0]);
      b.setInsertionPoint(par.getBody()->getTerminator());
      Value first = par.getInductionVars()[0];
      loopNest(b, loc, ArrayRef(lbs).drop_front(), ArrayRef(ubs).drop_front(),
               ArrayRef(steps).drop_front(), [&](ValueRange ivs) {
                 SmallVector<Value> all = {first};
                 all.append(ivs.begin(), ivs.end());
                 line(all);
               });
    }
    for (Value buf : scratch)
      memref::DeallocOp::create(b, loc, buf);
  };

  // The algorithm is chosen here when the length is static, else at run
  // time (n a power of two: n & (n - 1) == 0).
  int64_t length = type.getDimSize(axis);
  if (!ShapedType::isDynamic(length)) {
    emitAll(llvm::isPowerOf2_64(length));
    return success();
  }
  Value low = arith::AndIOp::create(b, loc, n,
                                    arith::SubIOp::create(b, loc, n, e.cst(1)));
  auto choice = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, low, e.cst(0)),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(choice.thenBlock()->getTerminator());
  emitAll(true);
  b.setInsertionPoint(choice.elseBlock()->getTerminator());
  emitAll(false);
  return success();
}
