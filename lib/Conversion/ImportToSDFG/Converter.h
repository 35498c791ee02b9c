//===- Converter.h - The converter of --convert-to-sdfg ---------*- C++ -*-===//
//
// The Converter turns one func.func into an sdfg.sdfg; its methods are
// defined by topic: IndexValues.cpp (index arithmetic folded into affine
// expressions), Dataflow.cpp (states, containers, loads, stores, tasklets),
// ControlFlow.cpp (loops, branches, parallel loops), Linalg.cpp (library
// ops, linalg.generic, linalg.fill) and ConvertToSDFG.cpp (the dispatch
// over ops, the function and the pass). Private to
// lib/Conversion/ImportToSDFG.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_IMPORTTOSDFG_CONVERTER_H
#define LIB_CONVERSION_IMPORTTOSDFG_CONVERTER_H

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace mlir {
namespace sdfg {
namespace detail {

/// An index value as an affine expression over sdfg index values (function
/// index arguments, loop iterators, map parameters).
struct IndexExpr {
  AffineExpr expr;
  SmallVector<Value> atoms;
};

/// Rewrites `e` (over `from`'s atoms) into the numbering of `into`,
/// appending atoms it lacks (IndexValues.cpp).
AffineExpr merge(const IndexExpr &e, SmallVector<Value> &into);

/// Whether `op` is arith or math on scalars, which a tasklet computes
/// (Dataflow.cpp).
bool isScalarCompute(Operation *op);

/// A memref.subview: the source it addresses, per source dimension the
/// offset and (static) stride and whether the view drops it, and the
/// view's sizes (Subviews.cpp).
struct Subview {
  Value source;
  SmallVector<IndexExpr> offsets;
  SmallVector<int64_t> strides;
  SmallVector<bool> dropped;
  SmallVector<IndexExpr> sizes;
};

/// Converts one func.func into an sdfg.sdfg that replaces it.
class Converter {
public:
  Converter(func::FuncOp fn) : fn(fn), b(fn) {}
  LogicalResult run();

private:
  func::FuncOp fn;
  OpBuilder b;
  SDFGOp sdfg;
  DenseMap<Value, Value> containers;
  DenseMap<Value, IndexExpr> indices;
  DenseMap<Value, Subview> subviews;
  DenseMap<Value, Value> spilled;
  DenseMap<Value, Value> scalarArgs;
  // The open state (null at control level) and the values defined in it.
  StateOp state;
  DenseMap<Value, Value> local;
  SmallVector<Value> definedInState;
  llvm::DenseSet<Operation *> doneInState;
  /// Nesting of map bodies being filled (their values are not spilled).
  unsigned mapDepth = 0;

  InFlightDiagnostic unsupported(Operation *op, const Twine &why = "") {
    auto d = op->emitOpError("convert-to-sdfg: cannot convert '")
             << op->getName() << "'";
    if (!why.isTriviallyEmpty())
      d << ": " << why;
    return d;
  }

  // IndexValues.cpp: index values.
  std::optional<IndexExpr> indexOf(Value v);
  /// The results of affine map `m` applied to `operands` (dims, then
  /// symbols), each an index expression; nullopt if an operand is not
  /// affine.
  std::optional<SmallVector<IndexExpr>> applyMap(AffineMap m,
                                                 ValueRange operands);
  LogicalResult trackIndex(Operation *op, bool &handled);
  LogicalResult trackDim(memref::DimOp op, bool &handled);

  // Subviews.cpp: views as index transforms.
  std::optional<IndexExpr> indexOfMixed(OpFoldResult v);
  LogicalResult trackSubview(memref::SubViewOp op);
  /// The memref (an argument or allocation) that `memref` views, with
  /// `idx` (indices into the view) rewritten into its indices.
  Value resolveView(Value memref, SmallVector<IndexExpr> &idx);
  AffineMap accessMap(Operation *op, ArrayRef<IndexExpr> idx,
                      SmallVector<Value> &operands);

  // Dataflow.cpp: containers and scalars.
  Value container(Operation *op, Value memref);
  Value scalar(Operation *user, Value v);
  Value alloc0d(Location loc, Type elt);
  Value materialize(Location loc, const IndexExpr &e);

  // Dataflow.cpp: states.
  void openState(Location loc);
  void closeState();
  void define(Value upstream, Value value);

  // Dataflow.cpp: what goes into states.
  LogicalResult convertAlloc(Operation *op);
  /// Converts a load, store or scalar computation into the open state (or
  /// map body).
  LogicalResult convertDataflow(Operation *op);
  LogicalResult convertAccess(Operation *op);
  LogicalResult convertTasklet(Operation *op);

  // ConvertToSDFG.cpp: the dispatch over ops.
  LogicalResult convertBlock(Block &block);
  LogicalResult convertOp(Operation *op);

  // ControlFlow.cpp: loops and branches.
  /// Stores `values` into the 0-d containers `into` (a yield).
  LogicalResult storeYield(Operation *yield, ValueRange values,
                           ArrayRef<Value> into);
  LogicalResult convertScfFor(scf::ForOp op);
  LogicalResult convertAffineFor(affine::AffineForOp op);
  LogicalResult convertFor(Operation *op, const IndexExpr &lb,
                           const IndexExpr &ub, int64_t step, Block &body,
                           ValueRange inits, ValueRange results);
  LogicalResult convertIf(scf::IfOp op);
  LogicalResult convertWhile(scf::WhileOp op);
  LogicalResult convertScfParallel(scf::ParallelOp op);
  LogicalResult convertAffineParallel(affine::AffineParallelOp op);
  /// An scf.if of a parallel loop body rewritten (in the input) into
  /// selects and stores of both branches, where that is exact
  /// (IfConversion.cpp).
  LogicalResult flattenIf(scf::IfOp op);
  LogicalResult convertParallel(Operation *op, ArrayRef<IndexExpr> lbs,
                                ArrayRef<IndexExpr> ubs,
                                ArrayRef<int64_t> steps, Block &body);

  // Linalg.cpp: library ops and maps.
  /// Rejects BLAS operands of mixed or non-float types or disagreeing
  /// static extents.
  LogicalResult checkBlasOperands(Operation *op);
  LogicalResult convertMatmul(linalg::MatmulOp op);
  LogicalResult convertMatvec(linalg::MatvecOp op);
  LogicalResult convertDot(linalg::DotOp op);
  LogicalResult convertReduce(linalg::ReduceOp op);
  /// Opens a parallel map over 0 <= p < extent per dimension at the
  /// insertion point and moves the builder into its body; returns the
  /// parameters.
  SmallVector<Value> openMap(Location loc, ArrayRef<IndexExpr> extents);
  /// The extent of `container` along `axis`: a constant, or sdfg.dim read
  /// at the top of the program.
  IndexExpr extentOf(Value container, unsigned axis);
  LogicalResult convertGeneric(linalg::GenericOp op);
  LogicalResult convertFill(linalg::FillOp op);
};

} // namespace detail
} // namespace sdfg
} // namespace mlir

#endif // LIB_CONVERSION_IMPORTTOSDFG_CONVERTER_H
