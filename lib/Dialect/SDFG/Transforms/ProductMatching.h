//===- ProductMatching.h - Loops' vector products, recognised ---*- C++ -*-===//
//
// What --sdfg-hoist-loop-products recognises, apart from how it rewrites
// it: maps reducing products of two matrices' elements over one dimension
// (a whole one, or a range bounded by the other operand's index: a
// triangle), the frontend's row copies feeding a gemv, syrk-style
// accumulating loops, and whether a loop reads a container only as it was
// when the loop began.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_TRANSFORMS_PRODUCTMATCHING_H
#define SDFG_TRANSFORMS_PRODUCTMATCHING_H

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "llvm/ADT/MapVector.h"

#include <optional>

namespace mlir {
namespace sdfg {
namespace products {

/// Whether the index expressions of an access (`map` over `operands`) read
/// `v` in result `d`, or in any result.
bool readsIn(AffineMap map, ValueRange operands, Value v, unsigned d);
bool reads(AffineMap map, ValueRange operands, Value v);

/// The one dimension of a rank-2 load that `k` indexes, exactly as `k`
/// itself, with the other dimension free of `k`.
std::optional<unsigned> reductionDim(LoadOp load, Value k);

/// An index expression as `sum(coefficient * value) + constant` over the
/// SSA values it reads; only sums and products with constants have one.
struct LinearIndex {
  llvm::SmallMapVector<Value, int64_t, 4> terms; // no zero coefficients
  int64_t constant = 0;

  static std::optional<LinearIndex> of(AffineExpr expr, ValueRange operands);
  int64_t coefficient(Value v) const { return terms.lookup(v); }
  /// Whether the index is `v` itself.
  bool isValue(Value v) const {
    return terms.size() == 1 && coefficient(v) == 1 && constant == 0;
  }
  /// `*this + scale * o`; std::nullopt on overflow.
  std::optional<LinearIndex> plus(const LinearIndex &o,
                                  int64_t scale = 1) const;
  bool operator==(const LinearIndex &o) const;
};

/// The reduction of a contraction runs over part of the reduced dimension,
/// bounded by the free index of one operand: that operand's elements
/// outside `bounds` (a map (free index) -> (lo, hi)) count as zero.
struct Mask {
  bool onLhs;
  AffineMap bounds;
};

/// `T[...] += A[r, x] * B[r, y]` (either dimension of A and B), with
/// r = k + c over a parameter k of the map: over the whole of that
/// dimension, or over a range the mask describes.
struct Contraction {
  MapOp map;
  LoadOp lhs, rhs;
  StoreOp store;
  unsigned k;              // the reduced parameter
  unsigned lhsDim, rhsDim; // the dimensions k indexes
  std::optional<Mask> mask;
};

std::optional<Contraction> matchContraction(MapOp map);

/// Whether `loop` only reads `container`: element loads, library ops and
/// copies that read it (a library op writes only its output container).
bool onlyReadIn(Value container, LoopOp loop);

/// Whether each of `loads` (inside `loop`) reads an element of `container`
/// as it was when `loop` began: the loop only reads it, or writes it only
/// through element stores into "row" `i` (its iterator, ascending) of some
/// dimension in which every load reads a row beyond `i` (trmm's
/// `B[i, j] += A[i+1:, i] @ B[i+1:, j]`). Without loads: whether the loop
/// only reads it.
bool readsEntryValues(Value container, ArrayRef<LoadOp> loads, LoopOp loop);

/// `x[p] = X[..., p, ...]` for every element of `x`: the frontend's copy of
/// a matrix's row or column into a vector operand.
struct RowCopy {
  MapOp map;
  LoadOp load;
  unsigned dim; // the dimension of X that p runs along
};

std::optional<RowCopy> matchRowCopy(MapOp map, Value x);

/// A loop over k (0 to K, one state holding one map) that adds products to
/// elements it does not index by k, as syrk's inner loop does:
/// `C[idx] = C[idx] + f * ... * A[k, x] * B[k, y] + ...`, each term's
/// factors f loads that do not depend on k. Over the whole loop each term
/// adds `f * ... * P[x, y]`.
struct Term {
  LoadOp lhs, rhs;
  unsigned lhsDim = 0, rhsDim = 0;
  SmallVector<LoadOp> factors;
};

struct Accumulation {
  LoopOp loop;
  MapOp map;
  LoadOp old;
  SmallVector<Term> terms;
  StoreOp store;
};

std::optional<Accumulation> matchAccumulation(LoopOp loop);

} // namespace products
} // namespace sdfg
} // namespace mlir

#endif // SDFG_TRANSFORMS_PRODUCTMATCHING_H
