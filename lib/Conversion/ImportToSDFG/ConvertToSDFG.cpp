//===- ConvertToSDFG.cpp - Upstream dialects into the sdfg dialect --------===//
//
// Structural translation of func.func bodies written in arith, math, memref,
// scf, affine and linalg (on memrefs) into sdfg.sdfg:
//
//  * control: scf.for / affine.for -> sdfg.loop, scf.if -> sdfg.if,
//    scf.parallel / affine.parallel -> sdfg.map (in a state);
//  * index arithmetic folds into affine memlet and bound expressions;
//  * straight-line scalar code between control ops becomes one sdfg.state
//    (memref/affine loads and stores -> memlets, arith/math -> tasklets); a
//    scalar used outside its state is kept in a 0-d transient;
//  * loop-carried values (iter_args) and scf.if results live in 0-d
//    transients;
//  * linalg.matmul / matvec / dot -> library ops (accumulating, as linalg
//    does), linalg.generic and linalg.fill -> maps with tasklets, a
//    reduction's `out = out <op> x` -> a WCR store.
//
// Anything else is a located error naming the op.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Conversion/Passes.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_CONVERTTOSDFG
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// An index value as an affine expression over sdfg index values (function
/// index arguments, loop iterators, map parameters).
struct IndexExpr {
  AffineExpr expr;
  SmallVector<Value> atoms;
};

/// Rewrites `e` (over `from`'s atoms) into the numbering of `into`,
/// appending atoms it lacks.
static AffineExpr merge(const IndexExpr &e, SmallVector<Value> &into) {
  SmallVector<AffineExpr> repl;
  for (Value a : e.atoms) {
    auto *it = llvm::find(into, a);
    unsigned pos = it - into.begin();
    if (it == into.end())
      into.push_back(a);
    repl.push_back(getAffineDimExpr(pos, e.expr.getContext()));
  }
  return e.expr.replaceDims(repl);
}

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

  // Index values.
  std::optional<IndexExpr> indexOf(Value v);
  /// The results of affine map `m` applied to `operands` (dims, then
  /// symbols), each an index expression; nullopt if an operand is not
  /// affine.
  std::optional<SmallVector<IndexExpr>> applyMap(AffineMap m,
                                                 ValueRange operands);
  LogicalResult trackIndex(Operation *op, bool &handled);
  AffineMap accessMap(Operation *op, ArrayRef<IndexExpr> idx,
                      SmallVector<Value> &operands);

  // Containers and scalars.
  Value container(Operation *op, Value memref);
  Value scalar(Operation *user, Value v);
  Value alloc0d(Location loc, Type elt);
  Value materialize(Location loc, const IndexExpr &e);

  // States.
  void openState(Location loc);
  void closeState();
  void define(Value upstream, Value value);

  LogicalResult convertBlock(Block &block);
  LogicalResult convertOp(Operation *op);
  LogicalResult convertAlloc(Operation *op);
  /// Converts a load, store or scalar computation into the open state (or
  /// map body).
  LogicalResult convertDataflow(Operation *op);
  LogicalResult convertAccess(Operation *op);
  LogicalResult convertTasklet(Operation *op);
  LogicalResult convertFor(Operation *op, const IndexExpr &lb,
                           const IndexExpr &ub, int64_t step, Block &body,
                           ValueRange inits, ValueRange results);
  LogicalResult convertScfFor(scf::ForOp op);
  LogicalResult convertAffineFor(affine::AffineForOp op);
  LogicalResult convertIf(scf::IfOp op);
  LogicalResult convertWhile(scf::WhileOp op);
  LogicalResult convertParallel(Operation *op, ArrayRef<IndexExpr> lbs,
                                ArrayRef<IndexExpr> ubs,
                                ArrayRef<int64_t> steps, Block &body);
  LogicalResult convertScfParallel(scf::ParallelOp op);
  LogicalResult convertAffineParallel(affine::AffineParallelOp op);
  /// Opens a parallel map over 0 <= p < extent per dimension at the
  /// insertion point and moves the builder into its body; returns the
  /// parameters.
  SmallVector<Value> openStaticMap(Location loc, ArrayRef<int64_t> extents);
  /// Rejects BLAS operands of mixed or non-float types or disagreeing
  /// static extents.
  LogicalResult checkBlasOperands(Operation *op);
  LogicalResult convertMatmul(linalg::MatmulOp op);
  LogicalResult convertMatvec(linalg::MatvecOp op);
  LogicalResult convertDot(linalg::DotOp op);
  LogicalResult convertReduce(linalg::ReduceOp op);
  LogicalResult convertGeneric(linalg::GenericOp op);
  LogicalResult convertFill(linalg::FillOp op);
  /// Stores `values` into the 0-d containers `into` (a yield).
  LogicalResult storeYield(Operation *yield, ValueRange values,
                           ArrayRef<Value> into);
};

} // namespace

//===----------------------------------------------------------------------===//
// Index values
//===----------------------------------------------------------------------===//

std::optional<IndexExpr> Converter::indexOf(Value v) {
  auto it = indices.find(v);
  if (it != indices.end())
    return it->second;
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>())
    return IndexExpr{b.getAffineConstantExpr(c.value()), {}};
  return std::nullopt;
}

std::optional<SmallVector<IndexExpr>> Converter::applyMap(AffineMap m,
                                                          ValueRange operands) {
  SmallVector<Value> atoms;
  SmallVector<AffineExpr> repl;
  for (Value o : operands) {
    auto e = indexOf(o);
    if (!e)
      return std::nullopt;
    repl.push_back(merge(*e, atoms));
  }
  ArrayRef<AffineExpr> all(repl);
  SmallVector<IndexExpr> out;
  for (AffineExpr r : m.getResults())
    out.push_back(
        IndexExpr{r.replaceDimsAndSymbols(all.take_front(m.getNumDims()),
                                          all.drop_front(m.getNumDims())),
                  atoms});
  return out;
}

/// Index arithmetic that stays affine is folded, never emitted.
LogicalResult Converter::trackIndex(Operation *op, bool &handled) {
  handled = false;
  if (op->getNumResults() != 1 || !op->getResult(0).getType().isIndex())
    return success();
  Value r = op->getResult(0);
  if (auto c = dyn_cast<arith::ConstantIndexOp>(op)) {
    indices[r] = IndexExpr{b.getAffineConstantExpr(c.value()), {}};
    handled = true;
    return success();
  }
  auto binary = [&](auto combine) -> LogicalResult {
    auto l = indexOf(op->getOperand(0)), rr = indexOf(op->getOperand(1));
    if (!l || !rr)
      return unsupported(op, "operand is not an affine index value");
    SmallVector<Value> atoms;
    AffineExpr le = merge(*l, atoms), re = merge(*rr, atoms);
    std::optional<AffineExpr> e = combine(le, re);
    if (!e)
      return unsupported(op, "the index expression is not affine");
    indices[r] = IndexExpr{*e, atoms};
    handled = true;
    return success();
  };
  auto constRhs = [](AffineExpr r) { return isa<AffineConstantExpr>(r); };
  if (isa<arith::AddIOp>(op))
    return binary([](AffineExpr l, AffineExpr r) {
      return std::optional<AffineExpr>(l + r);
    });
  if (isa<arith::SubIOp>(op))
    return binary([](AffineExpr l, AffineExpr r) {
      return std::optional<AffineExpr>(l - r);
    });
  if (isa<arith::MulIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r) || isa<AffineConstantExpr>(l))
        return l * r;
      return std::nullopt;
    });
  if (isa<arith::FloorDivSIOp, arith::DivSIOp, arith::DivUIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r))
        return l.floorDiv(r);
      return std::nullopt;
    });
  if (isa<arith::CeilDivSIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r))
        return l.ceilDiv(r);
      return std::nullopt;
    });
  if (isa<arith::RemSIOp, arith::RemUIOp>(op))
    return binary([&](AffineExpr l, AffineExpr r) -> std::optional<AffineExpr> {
      if (constRhs(r))
        return l % r;
      return std::nullopt;
    });
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    auto e = applyMap(apply.getAffineMap(), apply.getMapOperands());
    if (!e)
      return unsupported(op, "operand is not an affine index value");
    indices[r] = e->front();
    handled = true;
    return success();
  }
  return success();
}

AffineMap Converter::accessMap(Operation *op, ArrayRef<IndexExpr> idx,
                               SmallVector<Value> &operands) {
  SmallVector<AffineExpr> results;
  for (const IndexExpr &e : idx)
    results.push_back(merge(e, operands));
  return AffineMap::get(operands.size(), 0, results, op->getContext());
}

//===----------------------------------------------------------------------===//
// Containers, scalars, states
//===----------------------------------------------------------------------===//

Value Converter::container(Operation *op, Value memref) {
  Value c = containers.lookup(memref);
  if (!c)
    unsupported(op, "its memref is not a function argument or an "
                    "allocation of the function");
  return c;
}

Value Converter::alloc0d(Location loc, Type elt) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sdfg.getBody().front());
  return AllocOp::create(b, loc, MemRefType::get({}, elt), ValueRange{})
      .getResult();
}

Value Converter::materialize(Location loc, const IndexExpr &e) {
  if (auto d = dyn_cast<AffineDimExpr>(e.expr))
    return e.atoms[d.getPosition()];
  auto t = TaskletOp::create(b, loc, TypeRange{b.getIndexType()}, e.atoms);
  Block *body = new Block();
  t.getBody().push_back(body);
  SmallVector<Value> args;
  for (Value a : e.atoms)
    args.push_back(body->addArgument(a.getType(), loc));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);
  Value v = expandIndexExpr(b, loc, e.expr, args);
  YieldOp::create(b, loc, ValueRange{v});
  return t.getResult(0);
}

/// `v` as an sdfg value at the insertion point (inside a state or map).
Value Converter::scalar(Operation *user, Value v) {
  if (Value l = local.lookup(v))
    return l;
  Location loc = user->getLoc();
  Value out;
  if (Value arg = scalarArgs.lookup(v)) {
    out = arg;
  } else if (Value c = spilled.lookup(v)) {
    out = LoadOp::create(b, loc, cast<MemRefType>(c.getType()).getElementType(),
                         c, ValueRange{}, AffineMap::get(b.getContext()));
  } else if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
    auto t = TaskletOp::create(b, loc, TypeRange{v.getType()}, ValueRange{});
    Block *body = new Block();
    t.getBody().push_back(body);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    Value c = b.clone(*cst)->getResult(0);
    YieldOp::create(b, loc, ValueRange{c});
    out = t.getResult(0);
  } else if (auto e = indexOf(v)) {
    out = materialize(loc, *e);
  } else {
    unsupported(user, "an operand has no value here (defined by an "
                      "unsupported op?)");
    return nullptr;
  }
  local[v] = out;
  return out;
}

void Converter::openState(Location loc) {
  if (state)
    return;
  state = StateOp::create(b, loc);
  if (state.getBody().empty())
    state.getBody().push_back(new Block());
  b.setInsertionPointToStart(&state.getBody().front());
}

void Converter::define(Value upstream, Value value) {
  local[upstream] = value;
  if (mapDepth == 0)
    definedInState.push_back(upstream);
}

/// Ends the open state; values used after it are kept in 0-d transients.
void Converter::closeState() {
  if (!state)
    return;
  for (Value v : definedInState) {
    bool usedLater = llvm::any_of(
        v.getUsers(), [&](Operation *u) { return !doneInState.contains(u); });
    if (!usedLater || spilled.count(v))
      continue;
    Value c = alloc0d(v.getLoc(), v.getType());
    StoreOp::create(b, v.getLoc(), local.lookup(v), c, ValueRange{},
                    AffineMap::get(b.getContext()), nullptr);
    spilled[v] = c;
  }
  b.setInsertionPointAfter(state);
  state = nullptr;
  local.clear();
  definedInState.clear();
  doneInState.clear();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult Converter::convertBlock(Block &block) {
  for (Operation &op : block) {
    if (failed(convertOp(&op)))
      return failure();
  }
  closeState();
  return success();
}

static bool isScalarCompute(Operation *op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return false;
  if (op->getNumRegions() != 0)
    return false;
  return llvm::all_of(op->getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); });
}

LogicalResult Converter::convertDataflow(Operation *op) {
  if (isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
          affine::AffineStoreOp>(op))
    return convertAccess(op);
  if (isa<arith::ConstantOp>(op))
    return success(); // materialised where used
  return convertTasklet(op);
}

LogicalResult Converter::convertAccess(Operation *op) {
  Location loc = op->getLoc();
  auto indexList = [&](ValueRange idx, SmallVector<IndexExpr> &out) {
    for (Value i : idx) {
      auto e = indexOf(i);
      if (!e)
        return unsupported(op, "an index is not an affine function of loop "
                               "variables and index arguments"),
               false;
      out.push_back(*e);
    }
    return true;
  };
  auto affineIndices = [&](AffineMap m, ValueRange operands,
                           SmallVector<IndexExpr> &out) {
    auto e = applyMap(m, operands);
    if (!e)
      return unsupported(op, "an index operand is not affine"), false;
    out = std::move(*e);
    return true;
  };
  // A constant index outside a static extent is undefined behaviour in
  // the input; reported here, naming the op written.
  auto inBounds = [&](Value memref, ArrayRef<IndexExpr> idx) -> bool {
    auto type = cast<MemRefType>(memref.getType());
    for (auto [d, e] : llvm::enumerate(idx)) {
      auto c = dyn_cast<AffineConstantExpr>(e.expr);
      if (!c || type.isDynamicDim(d))
        continue;
      if (c.getValue() < 0 || c.getValue() >= type.getDimSize(d)) {
        unsupported(op) << ": index " << c.getValue()
                        << " is out of bounds for dimension " << d
                        << " of extent " << type.getDimSize(d);
        return false;
      }
    }
    return true;
  };
  auto emitLoad = [&](Value memref, ArrayRef<IndexExpr> idx,
                      Value result) -> LogicalResult {
    if (!inBounds(memref, idx))
      return failure();
    Value c = container(op, memref);
    if (!c)
      return failure();
    SmallVector<Value> operands;
    AffineMap m = accessMap(op, idx, operands);
    define(result, LoadOp::create(b, loc, result.getType(), c, operands, m));
    return success();
  };
  auto emitStore = [&](Value value, Value memref,
                       ArrayRef<IndexExpr> idx) -> LogicalResult {
    if (!inBounds(memref, idx))
      return failure();
    Value c = container(op, memref), v = scalar(op, value);
    if (!c || !v)
      return failure();
    SmallVector<Value> operands;
    AffineMap m = accessMap(op, idx, operands);
    StoreOp::create(b, loc, v, c, operands, m, nullptr);
    return success();
  };

  if (auto l = dyn_cast<memref::LoadOp>(op)) {
    SmallVector<IndexExpr> idx;
    if (!indexList(l.getIndices(), idx))
      return failure();
    return emitLoad(l.getMemref(), idx, l.getResult());
  }
  if (auto s = dyn_cast<memref::StoreOp>(op)) {
    SmallVector<IndexExpr> idx;
    if (!indexList(s.getIndices(), idx))
      return failure();
    return emitStore(s.getValue(), s.getMemref(), idx);
  }
  if (auto l = dyn_cast<affine::AffineLoadOp>(op)) {
    SmallVector<IndexExpr> idx;
    if (!affineIndices(l.getAffineMap(), l.getMapOperands(), idx))
      return failure();
    return emitLoad(l.getMemref(), idx, l.getResult());
  }
  auto s = cast<affine::AffineStoreOp>(op);
  SmallVector<IndexExpr> idx;
  if (!affineIndices(s.getAffineMap(), s.getMapOperands(), idx))
    return failure();
  return emitStore(s.getValue(), s.getMemref(), idx);
}

/// A scalar computation: one tasklet. Constants are cloned into it.
LogicalResult Converter::convertTasklet(Operation *op) {
  Location loc = op->getLoc();
  SmallVector<Value> inputs, upstreamInputs;
  for (Value o : op->getOperands()) {
    if (o.getDefiningOp<arith::ConstantOp>() ||
        llvm::is_contained(upstreamInputs, o))
      continue;
    Value v = scalar(op, o);
    if (!v)
      return failure();
    inputs.push_back(v);
    upstreamInputs.push_back(o);
  }
  auto t = TaskletOp::create(b, loc, op->getResultTypes(), inputs);
  Block *body = new Block();
  t.getBody().push_back(body);
  IRMapping inner;
  for (auto [u, v] : llvm::zip(upstreamInputs, inputs))
    inner.map(u, body->addArgument(v.getType(), loc));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(body);
    for (Value o : op->getOperands())
      if (auto c = o.getDefiningOp<arith::ConstantOp>();
          c && !inner.contains(o))
        inner.map(o, b.clone(*c)->getResult(0));
    Operation *clone = b.clone(*op, inner);
    YieldOp::create(b, loc, clone->getResults());
  }
  for (auto [r, v] : llvm::zip(op->getResults(), t.getResults()))
    define(r, v);
  return success();
}

LogicalResult Converter::convertOp(Operation *op) {
  bool handled;
  if (failed(trackIndex(op, handled)))
    return failure();
  if (handled)
    return success();

  if (isa<func::ReturnOp>(op)) {
    if (op->getNumOperands() != 0)
      return unsupported(op, "results must be written into memref "
                             "arguments");
    return success();
  }
  if (isa<memref::DeallocOp>(op))
    return success(); // transients are freed by the lowering
  if (isa<memref::AllocOp, memref::AllocaOp>(op))
    return convertAlloc(op);
  if (isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
          affine::AffineStoreOp>(op) ||
      isScalarCompute(op)) {
    if (!isa<arith::ConstantOp>(op))
      openState(op->getLoc());
    if (failed(convertDataflow(op)))
      return failure();
    doneInState.insert(op);
    return success();
  }

  // Linalg.
  if (auto mm = dyn_cast<linalg::MatmulOp>(op))
    return convertMatmul(mm);
  if (auto mv = dyn_cast<linalg::MatvecOp>(op))
    return convertMatvec(mv);
  if (auto dot = dyn_cast<linalg::DotOp>(op))
    return convertDot(dot);
  if (auto red = dyn_cast<linalg::ReduceOp>(op))
    return convertReduce(red);
  if (auto g = dyn_cast<linalg::GenericOp>(op))
    return convertGeneric(g);
  if (auto f = dyn_cast<linalg::FillOp>(op))
    return convertFill(f);

  // Control flow.
  if (auto f = dyn_cast<scf::ForOp>(op))
    return convertScfFor(f);
  if (auto f = dyn_cast<affine::AffineForOp>(op))
    return convertAffineFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return convertIf(i);
  if (auto w = dyn_cast<scf::WhileOp>(op))
    return convertWhile(w);
  if (auto p = dyn_cast<scf::ParallelOp>(op))
    return convertScfParallel(p);
  if (auto p = dyn_cast<affine::AffineParallelOp>(op))
    return convertAffineParallel(p);
  if (isa<scf::YieldOp, affine::AffineYieldOp>(op))
    return success(); // handled by the enclosing loop
  return unsupported(op);
}

LogicalResult Converter::convertAlloc(Operation *op) {
  auto type = cast<MemRefType>(op->getResult(0).getType());
  if (!type.getLayout().isIdentity())
    return unsupported(op, "only identity layouts are supported");
  if (op->getParentOp() != fn.getOperation())
    return unsupported(op, "allocations must be at the top of the "
                           "function, not inside loops or branches");
  SmallVector<Value> sizes;
  for (Value s : op->getOperands()) {
    auto e = indexOf(s);
    if (!e || !isa<AffineDimExpr>(e->expr))
      return unsupported(op, "a dynamic size must be an index argument");
    sizes.push_back(e->atoms[cast<AffineDimExpr>(e->expr).getPosition()]);
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&sdfg.getBody().front());
  containers[op->getResult(0)] =
      AllocOp::create(b, op->getLoc(), type, sizes).getResult();
  return success();
}

//===----------------------------------------------------------------------===//
// Library ops
//===----------------------------------------------------------------------===//

// Library ops, in a state: BLAS takes operands of one float type and
// agreeing extents (linalg also takes mixed types, with casts).
LogicalResult Converter::checkBlasOperands(Operation *op) {
  auto dps = cast<DestinationStyleOpInterface>(op);
  SmallVector<MemRefType> types;
  for (Value v : llvm::concat<Value>(dps.getDpsInputs(), dps.getDpsInits()))
    if (auto t = dyn_cast<MemRefType>(v.getType()))
      types.push_back(t);
  if (types.size() != 3)
    return success();
  Type elt = types[0].getElementType();
  if (!elt.isF32() && !elt.isF64())
    return unsupported(op, "operands must be f32 or f64 memrefs");
  if (llvm::any_of(types,
                   [&](MemRefType t) { return t.getElementType() != elt; }))
    return unsupported(op, "operands must have one element type");
  // The extents each pair of operands shares: (operand, dim) pairs.
  using Dim = std::pair<unsigned, unsigned>;
  SmallVector<std::pair<Dim, Dim>> same;
  if (isa<linalg::MatmulOp>(op))
    same = {{{0, 1}, {1, 0}}, {{0, 0}, {2, 0}}, {{1, 1}, {2, 1}}};
  else if (isa<linalg::MatvecOp>(op))
    same = {{{0, 1}, {1, 0}}, {{0, 0}, {2, 0}}};
  else
    same = {{{0, 0}, {1, 0}}};
  for (auto [x, y] : same) {
    if (x.second >= types[x.first].getRank() ||
        y.second >= types[y.first].getRank())
      return unsupported(op, "operands of unexpected rank");
    int64_t a = types[x.first].getDimSize(x.second),
            c = types[y.first].getDimSize(y.second);
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(c) && a != c)
      return unsupported(op)
             << ": extent " << a << " of operand " << x.first << " (dimension "
             << x.second << ") does not match extent " << c << " of operand "
             << y.first << " (dimension " << y.second << ")";
  }
  return success();
}

LogicalResult Converter::convertMatmul(linalg::MatmulOp mm) {
  Operation *op = mm;
  Location loc = op->getLoc();
  if (failed(checkBlasOperands(op)))
    return failure();
  if (!mm.hasPureBufferSemantics() || mm.hasUserDefinedMaps())
    return unsupported(op, "only plain matmul on memrefs (no indexing "
                           "maps: transpose explicitly)");
  openState(loc);
  Value a = container(op, mm.getDpsInputs()[0]),
        bb = container(op, mm.getDpsInputs()[1]),
        c = container(op, mm.getDpsInits()[0]);
  if (!a || !bb || !c)
    return failure();
  MatmulOp::create(b, loc, a, bb, c, false, false, /*accumulate=*/true,
                   /*alpha=*/FloatAttr());
  doneInState.insert(op);
  return success();
}

LogicalResult Converter::convertMatvec(linalg::MatvecOp mv) {
  Operation *op = mv;
  Location loc = op->getLoc();
  if (failed(checkBlasOperands(op)))
    return failure();
  if (!mv.hasPureBufferSemantics())
    return unsupported(op, "only on memrefs");
  openState(loc);
  Value a = container(op, mv.getDpsInputs()[0]),
        x = container(op, mv.getDpsInputs()[1]),
        y = container(op, mv.getDpsInits()[0]);
  if (!a || !x || !y)
    return failure();
  GemvOp::create(b, loc, a, x, y, false, /*accumulate=*/true);
  doneInState.insert(op);
  return success();
}

LogicalResult Converter::convertDot(linalg::DotOp dot) {
  Operation *op = dot;
  Location loc = op->getLoc();
  if (failed(checkBlasOperands(op)))
    return failure();
  if (!dot.hasPureBufferSemantics())
    return unsupported(op, "only on memrefs");
  openState(loc);
  Value x = container(op, dot.getDpsInputs()[0]),
        y = container(op, dot.getDpsInputs()[1]),
        r = container(op, dot.getDpsInits()[0]);
  if (!x || !y || !r)
    return failure();
  DotOp::create(b, loc, x, y, r, /*accumulate=*/true);
  doneInState.insert(op);
  return success();
}

/// out = out <op> reduce(in): the library reduction, accumulating.
LogicalResult Converter::convertReduce(linalg::ReduceOp red) {
  Operation *op = red;
  Location loc = op->getLoc();
  if (!red.hasPureBufferSemantics() || red.getNumDpsInputs() != 1)
    return unsupported(op, "only single-input reductions on memrefs");
  Block &body = red.getCombiner().front();
  Operation *combiner = body.getTerminator()->getOperand(0).getDefiningOp();
  std::optional<ReduceKind> kind;
  if (combiner && body.getOperations().size() == 2) {
    if (isa<arith::AddFOp, arith::AddIOp>(combiner))
      kind = ReduceKind::add;
    else if (isa<arith::MaximumFOp, arith::MaxSIOp>(combiner))
      kind = ReduceKind::max;
    else if (isa<arith::MinimumFOp, arith::MinSIOp>(combiner))
      kind = ReduceKind::min;
  }
  if (!kind)
    return unsupported(op, "the combiner must be one add, maximum or "
                           "minimum");
  openState(loc);
  Value in = container(op, red.getDpsInputs()[0]),
        out = container(op, red.getDpsInits()[0]);
  if (!in || !out)
    return failure();
  ReduceOp::create(b, loc, ReduceKindAttr::get(b.getContext(), *kind), in, out,
                   b.getDenseI64ArrayAttr(red.getDimensions()),
                   b.getUnitAttr());
  doneInState.insert(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Loops and branches
//===----------------------------------------------------------------------===//

LogicalResult Converter::convertScfFor(scf::ForOp f) {
  Operation *op = f;
  auto lb = indexOf(f.getLowerBound()), ub = indexOf(f.getUpperBound()),
       step = indexOf(f.getStep());
  if (!lb || !ub)
    return unsupported(op, "bounds must be affine in loop variables and "
                           "index arguments");
  auto c = step ? dyn_cast<AffineConstantExpr>(step->expr) : nullptr;
  if (!c || c.getValue() <= 0)
    return unsupported(op, "the step must be a positive constant");
  return convertFor(op, *lb, *ub, c.getValue(), *f.getBody(), f.getInitArgs(),
                    f.getResults());
}

LogicalResult Converter::convertAffineFor(affine::AffineForOp f) {
  Operation *op = f;
  auto bound = [&](AffineMap m,
                   ValueRange operands) -> std::optional<IndexExpr> {
    if (m.getNumResults() != 1)
      return std::nullopt;
    auto e = applyMap(m, operands);
    if (!e)
      return std::nullopt;
    return e->front();
  };
  auto lb = bound(f.getLowerBoundMap(), f.getLowerBoundOperands());
  auto ub = bound(f.getUpperBoundMap(), f.getUpperBoundOperands());
  if (!lb || !ub)
    return unsupported(op, "bounds with max/min of several expressions "
                           "are not supported");
  return convertFor(op, *lb, *ub, f.getStepAsInt(), *f.getBody(), f.getInits(),
                    f.getResults());
}

LogicalResult Converter::convertScfParallel(scf::ParallelOp p) {
  Operation *op = p;
  if (p.getNumReductions() != 0)
    return unsupported(op, "reductions (scf.reduce with operands) are not "
                           "supported; accumulate into a memref instead");
  SmallVector<IndexExpr> lbs, ubs;
  SmallVector<int64_t> steps;
  for (auto [l, u, s] :
       llvm::zip(p.getLowerBound(), p.getUpperBound(), p.getStep())) {
    auto le = indexOf(l), ue = indexOf(u), se = indexOf(s);
    auto c = se ? dyn_cast<AffineConstantExpr>(se->expr) : nullptr;
    if (!le || !ue || !c || c.getValue() <= 0)
      return unsupported(op, "bounds must be affine and steps positive "
                             "constants");
    lbs.push_back(*le);
    ubs.push_back(*ue);
    steps.push_back(c.getValue());
  }
  return convertParallel(op, lbs, ubs, steps, *p.getBody());
}

LogicalResult Converter::convertAffineParallel(affine::AffineParallelOp p) {
  Operation *op = p;
  if (p.getNumResults() != 0)
    return unsupported(op, "reductions are not supported");
  SmallVector<IndexExpr> lbs, ubs;
  SmallVector<int64_t> steps(p.getSteps());
  for (unsigned d = 0; d < p.getNumDims(); ++d) {
    AffineMap lm = p.getLowerBoundMap(d), um = p.getUpperBoundMap(d);
    if (lm.getNumResults() != 1 || um.getNumResults() != 1)
      return unsupported(op, "bounds with max/min are not supported");
    auto conv = [&](AffineMap m,
                    ValueRange operands) -> std::optional<IndexExpr> {
      auto e = applyMap(m, operands);
      if (!e)
        return std::nullopt;
      return e->front();
    };
    auto l = conv(lm, p.getLowerBoundsOperands());
    auto u = conv(um, p.getUpperBoundsOperands());
    if (!l || !u)
      return unsupported(op, "bounds must be affine");
    lbs.push_back(*l);
    ubs.push_back(*u);
  }
  return convertParallel(op, lbs, ubs, steps, *p.getBody());
}

LogicalResult Converter::storeYield(Operation *yield, ValueRange values,
                                    ArrayRef<Value> into) {
  if (values.empty())
    return success();
  openState(yield->getLoc());
  for (auto [v, c] : llvm::zip(values, into)) {
    Value s = scalar(yield, v);
    if (!s)
      return failure();
    StoreOp::create(b, yield->getLoc(), s, c, ValueRange{},
                    AffineMap::get(b.getContext()), nullptr);
  }
  doneInState.insert(yield);
  return success();
}

LogicalResult Converter::convertFor(Operation *op, const IndexExpr &lb,
                                    const IndexExpr &ub, int64_t step,
                                    Block &body, ValueRange inits,
                                    ValueRange results) {
  Location loc = op->getLoc();
  // sdfg.loop keeps its bounds and step below 2^62 in magnitude (trip
  // counts and the reversed loop are computed in 64 bits).
  constexpr int64_t kLimit = int64_t(1) << 62;
  auto tooLarge = [&](int64_t v) { return v <= -kLimit || v >= kLimit; };
  if (tooLarge(step))
    return unsupported(op) << ": step " << step
                           << " out of range (must be below 2^62)";
  for (const IndexExpr *e : {&lb, &ub})
    if (auto c = dyn_cast<AffineConstantExpr>(e->expr);
        c && tooLarge(c.getValue()))
      return unsupported(op) << ": bound " << c.getValue()
                             << " out of range (must be below 2^62 in "
                                "magnitude)";
  // Loop-carried values live in 0-d transients: initialised before the
  // loop, rewritten by the yield, read after it.
  SmallVector<Value> carried;
  for (Value init : inits) {
    if (!init.getType().isIntOrFloat())
      return unsupported(op, "only scalar loop-carried values are supported");
    carried.push_back(alloc0d(loc, init.getType()));
  }
  if (!inits.empty() && failed(storeYield(op, inits, carried)))
    return failure();
  doneInState.insert(op);
  closeState();
  SmallVector<Value> atoms;
  AffineExpr l = merge(lb, atoms), u = merge(ub, atoms);
  auto loop = LoopOp::create(b, loc, atoms,
                             AffineMapAttr::get(AffineMap::get(
                                 atoms.size(), 0, {l, u}, b.getContext())),
                             b.getI64IntegerAttr(step));
  Block *inner = new Block();
  loop.getBody().push_back(inner);
  Value iv = inner->addArgument(b.getIndexType(), loc);
  indices[body.getArgument(0)] = IndexExpr{b.getAffineDimExpr(0), {iv}};
  for (auto [arg, c] : llvm::zip(body.getArguments().drop_front(), carried))
    spilled[arg] = c;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(inner);
  for (Operation &o : body) {
    if (failed(convertOp(&o)))
      return failure();
  }
  Operation *term = body.getTerminator();
  if (failed(storeYield(term, term->getOperands(), carried)))
    return failure();
  closeState();
  for (auto [r, c] : llvm::zip(results, carried))
    spilled[r] = c;
  return success();
}

LogicalResult Converter::convertIf(scf::IfOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> outs;
  for (Type t : op.getResultTypes()) {
    if (!t.isIntOrFloat())
      return unsupported(op, "only scalar results are supported");
    outs.push_back(alloc0d(loc, t));
  }
  // The condition is read at control level, from its state's transient.
  Value cond = op.getCondition();
  // Not marked done: closing the state spills the condition for us.
  closeState();
  Value c;
  if (Value s = spilled.lookup(cond)) {
    c = LoadOp::create(b, loc, b.getI1Type(), s, ValueRange{},
                       AffineMap::get(b.getContext()));
  } else if (Value a = scalarArgs.lookup(cond)) {
    c = a;
  } else {
    return unsupported(op, "the condition must be computed by arith ops on "
                           "loaded or argument values");
  }
  bool hasElse = !op.getElseRegion().empty();
  auto ifOp = IfOp::create(b, loc, ValueRange{c}, hasElse ? 2 : 1);
  OpBuilder::InsertionGuard guard(b);
  auto fill = [&](Region &from, Region &to) -> LogicalResult {
    to.push_back(new Block());
    b.setInsertionPointToStart(&to.front());
    Block &blk = from.front();
    for (Operation &o : blk)
      if (failed(convertOp(&o)))
        return failure();
    Operation *term = blk.getTerminator();
    if (failed(storeYield(term, term->getOperands(), outs)))
      return failure();
    closeState();
    return success();
  };
  if (failed(fill(op.getThenRegion(), ifOp.getBranches()[0])))
    return failure();
  if (hasElse && failed(fill(op.getElseRegion(), ifOp.getBranches()[1])))
    return failure();
  for (auto [r, o] : llvm::zip(op.getResults(), outs))
    spilled[r] = o;
  return success();
}

LogicalResult Converter::convertWhile(scf::WhileOp op) {
  Location loc = op.getLoc();
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  auto cond = cast<scf::ConditionOp>(before.getTerminator());
  // The carried values live in 0-d transients that the condition region,
  // the body and the code after the loop all read.
  if (cond.getArgs().size() != before.getNumArguments() ||
      llvm::any_of(llvm::enumerate(cond.getArgs()), [&](auto a) {
        return a.value() != before.getArgument(a.index());
      }))
    return unsupported(op, "the condition must forward the loop-carried "
                           "values unchanged");
  SmallVector<Value> carried;
  for (Value init : op.getInits()) {
    if (!init.getType().isIntOrFloat())
      return unsupported(op, "only scalar loop-carried values are supported");
    carried.push_back(alloc0d(loc, init.getType()));
  }
  if (!carried.empty() && failed(storeYield(op, op.getInits(), carried)))
    return failure();
  doneInState.insert(op);
  closeState();
  for (auto [arg, c] : llvm::zip(before.getArguments(), carried))
    spilled[arg] = c;
  for (auto [arg, c] : llvm::zip(after.getArguments(), carried))
    spilled[arg] = c;
  auto loop = WhileOp::create(b, loc);
  loop.getCond().push_back(new Block());
  loop.getBody().push_back(new Block());
  OpBuilder::InsertionGuard guard(b);
  // The condition: interstate loads and tasklets, no state.
  b.setInsertionPointToStart(&loop.getCond().front());
  DenseMap<Value, Value> outer = local;
  ++mapDepth;
  for (Operation &o : before.without_terminator()) {
    bool handled;
    if (failed(trackIndex(&o, handled)))
      return failure();
    if (handled)
      continue;
    if (!isa<memref::LoadOp, affine::AffineLoadOp>(&o) && !isScalarCompute(&o))
      return unsupported(&o, "only loads and scalar arithmetic may compute "
                             "a while condition");
    if (failed(convertDataflow(&o)))
      return failure();
  }
  Value c = scalar(cond, cond.getCondition());
  --mapDepth;
  local = outer;
  if (!c)
    return failure();
  ConditionOp::create(b, loc, c);
  // The body, then the yield into the carried values.
  b.setInsertionPointToStart(&loop.getBody().front());
  for (Operation &o : after.without_terminator())
    if (failed(convertOp(&o)))
      return failure();
  Operation *term = after.getTerminator();
  if (failed(storeYield(term, term->getOperands(), carried)))
    return failure();
  closeState();
  for (auto [r, cc] : llvm::zip(op.getResults(), carried))
    spilled[r] = cc;
  return success();
}

LogicalResult Converter::convertParallel(Operation *op, ArrayRef<IndexExpr> lbs,
                                         ArrayRef<IndexExpr> ubs,
                                         ArrayRef<int64_t> steps, Block &body) {
  Location loc = op->getLoc();
  openState(loc);
  SmallVector<Value> atoms;
  SmallVector<AffineExpr> l, u;
  for (auto [le, ue] : llvm::zip(lbs, ubs)) {
    l.push_back(merge(le, atoms));
    u.push_back(merge(ue, atoms));
  }
  MLIRContext *ctx = b.getContext();
  auto map =
      MapOp::create(b, loc, atoms,
                    AffineMapAttr::get(AffineMap::get(atoms.size(), 0, l, ctx)),
                    AffineMapAttr::get(AffineMap::get(atoms.size(), 0, u, ctx)),
                    b.getDenseI64ArrayAttr(steps),
                    ScheduleKindAttr::get(ctx, ScheduleKind::cpu_multicore));
  Block *inner = new Block();
  map.getBody().push_back(inner);
  for (BlockArgument a : body.getArguments())
    indices[a] = IndexExpr{b.getAffineDimExpr(0),
                           {inner->addArgument(b.getIndexType(), loc)}};
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(inner);
  // The body is dataflow only: its values are private to each iteration.
  DenseMap<Value, Value> outer = local;
  ++mapDepth;
  for (Operation &o : body) {
    if (isa<scf::ReduceOp, affine::AffineYieldOp>(&o))
      continue;
    bool handled;
    if (failed(trackIndex(&o, handled)))
      return failure();
    if (handled)
      continue;
    if (isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
            affine::AffineStoreOp>(&o) ||
        isScalarCompute(&o)) {
      if (failed(convertDataflow(&o)))
        return failure();
      continue;
    }
    if (isa<scf::ParallelOp, affine::AffineParallelOp>(&o)) {
      if (failed(convertOp(&o)))
        return failure();
      continue;
    }
    --mapDepth;
    return unsupported(&o, "only loads, stores, scalar arithmetic and "
                           "nested parallel loops may appear in a parallel "
                           "loop body");
  }
  --mapDepth;
  local = outer;
  doneInState.insert(op);
  return success();
}

/// The WCR kind of a reduction body `yield(out <op> x)` and x, if the
/// combiner is one the dialect has.
static std::optional<std::pair<WCRKind, Value>>
matchReduction(Value yielded, BlockArgument out) {
  Operation *def = yielded.getDefiningOp();
  if (!def || def->getNumOperands() != 2)
    return std::nullopt;
  Value other;
  if (def->getOperand(0) == out)
    other = def->getOperand(1);
  else if (def->getOperand(1) == out)
    other = def->getOperand(0);
  else
    return std::nullopt;
  if (other == out)
    return std::nullopt;
  if (isa<arith::AddFOp, arith::AddIOp>(def))
    return std::make_pair(WCRKind::add, other);
  if (isa<arith::MulFOp, arith::MulIOp>(def))
    return std::make_pair(WCRKind::mul, other);
  if (isa<arith::MaximumFOp, arith::MaxSIOp>(def))
    return std::make_pair(WCRKind::max, other);
  if (isa<arith::MinimumFOp, arith::MinSIOp>(def))
    return std::make_pair(WCRKind::min, other);
  return std::nullopt;
}

SmallVector<Value> Converter::openStaticMap(Location loc,
                                            ArrayRef<int64_t> extents) {
  MLIRContext *ctx = b.getContext();
  unsigned n = extents.size();
  SmallVector<AffineExpr> zeros(n, getAffineConstantExpr(0, ctx)), ubs;
  for (int64_t e : extents)
    ubs.push_back(getAffineConstantExpr(e, ctx));
  auto map =
      MapOp::create(b, loc, ValueRange{},
                    AffineMapAttr::get(AffineMap::get(0, 0, zeros, ctx)),
                    AffineMapAttr::get(AffineMap::get(0, 0, ubs, ctx)),
                    b.getDenseI64ArrayAttr(SmallVector<int64_t>(n, 1)),
                    ScheduleKindAttr::get(ctx, ScheduleKind::cpu_multicore));
  Block *inner = new Block();
  map.getBody().push_back(inner);
  SmallVector<Value> params;
  for (unsigned d = 0; d < n; ++d)
    params.push_back(inner->addArgument(b.getIndexType(), loc));
  b.setInsertionPointToStart(inner);
  return params;
}

LogicalResult Converter::convertGeneric(linalg::GenericOp op) {
  Location loc = op.getLoc();
  if (!op.hasPureBufferSemantics())
    return unsupported(op, "only linalg on memrefs (bufferize first)");
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return unsupported(op, "loop ranges must be static");
  openState(loc);
  MLIRContext *ctx = b.getContext();
  unsigned n = ranges.size();
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> params = openStaticMap(loc, ranges);
  DenseMap<Value, Value> outer = local;
  ++mapDepth;
  auto fail = [&](const Twine &why) {
    --mapDepth;
    local = outer;
    return unsupported(op, why);
  };
  Block &body = op.getRegion().front();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool reduces = llvm::any_of(op.getIteratorTypesArray(), [](auto t) {
    return t == utils::IteratorType::reduction;
  });
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  // A reduction's combiner `out <op> x` becomes the WCR of the store: it is
  // not computed, and `out` is not read for it.
  llvm::DenseSet<Operation *> combiners;
  SmallVector<std::pair<WCRKind, Value>> reductions;
  if (reduces) {
    for (unsigned k = 0; k < op.getNumDpsInits(); ++k) {
      BlockArgument out = body.getArgument(op.getNumDpsInputs() + k);
      auto red = matchReduction(yield.getOperand(k), out);
      if (!red)
        return fail("a reduction body must yield 'out <op> x' with op "
                    "add, mul, max or min");
      combiners.insert(yield.getOperand(k).getDefiningOp());
      reductions.push_back(*red);
    }
  }
  // Inputs (and outputs the body reads) are loaded per point.
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = body.getArgument(operand.getOperandNumber());
    if (op.isDpsInit(&operand) &&
        llvm::all_of(arg.getUsers(),
                     [&](Operation *u) { return combiners.contains(u); }))
      continue;
    Value c = containers.lookup(operand.get());
    if (!c)
      return fail("an operand is not a function argument or allocation");
    AffineMap m = maps[operand.getOperandNumber()];
    if (cast<MemRefType>(c.getType()).getRank() == 0 && m.getNumResults() == 0)
      m = AffineMap::get(n, 0, {}, ctx);
    local[arg] = LoadOp::create(b, loc, arg.getType(), c, params, m);
  }
  for (Operation &o : body.without_terminator()) {
    if (combiners.contains(&o))
      continue;
    if (isa<linalg::IndexOp>(o)) {
      local[o.getResult(0)] = params[cast<linalg::IndexOp>(o).getDim()];
      continue;
    }
    if (!isScalarCompute(&o))
      return fail(Twine("the body holds '") + o.getName().getStringRef() + "'");
    if (failed(convertDataflow(&o))) {
      --mapDepth;
      local = outer;
      return failure();
    }
  }
  for (auto [k, init] : llvm::enumerate(op.getDpsInitsMutable())) {
    Value value = yield.getOperand(k);
    std::optional<WCRKind> wcr;
    if (reduces) {
      wcr = reductions[k].first;
      value = reductions[k].second;
    }
    Value v = local.lookup(value);
    if (!v)
      v = scalar(yield, value);
    if (!v)
      return fail("a yielded value has no definition here");
    Value c = containers.lookup(init.get());
    AffineMap m = maps[op.getNumDpsInputs() + k];
    auto store = StoreOp::create(b, loc, v, c, params, m, nullptr);
    if (wcr)
      store.setWcrAttr(WCRKindAttr::get(ctx, *wcr));
  }
  --mapDepth;
  local = outer;
  doneInState.insert(op);
  return success();
}

LogicalResult Converter::convertFill(linalg::FillOp op) {
  Location loc = op.getLoc();
  if (!op.hasPureBufferSemantics())
    return unsupported(op, "only linalg on memrefs (bufferize first)");
  Value c = containers.lookup(op.getDpsInits()[0]);
  if (!c)
    return unsupported(op, "its memref is not a function argument or an "
                           "allocation of the function");
  auto type = cast<MemRefType>(c.getType());
  if (!type.hasStaticShape())
    return unsupported(op, "the filled memref must have a static shape");
  openState(loc);
  Value v = scalar(op, op.getDpsInputs()[0]);
  if (!v)
    return failure();
  if (type.getRank() == 0) {
    StoreOp::create(b, loc, v, c, ValueRange{}, AffineMap::get(b.getContext()),
                    nullptr);
    doneInState.insert(op);
    return success();
  }
  MLIRContext *ctx = b.getContext();
  unsigned n = type.getRank();
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> params = openStaticMap(loc, type.getShape());
  StoreOp::create(b, loc, v, c, params,
                  AffineMap::getMultiDimIdentityMap(n, ctx), nullptr);
  doneInState.insert(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

LogicalResult Converter::run() {
  if (fn.isExternal())
    return success();
  if (fn.getNumResults() != 0)
    return fn.emitOpError("convert-to-sdfg: results must be written into "
                          "memref arguments (the sdfg C ABI returns "
                          "nothing)");
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("convert-to-sdfg: only structured control flow "
                          "(one block) is supported");
  SmallVector<Attribute> argAttrs;
  for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes())) {
    auto m = dyn_cast<MemRefType>(t);
    if (m && !m.getLayout().isIdentity())
      return fn.emitOpError("convert-to-sdfg: argument ")
             << i << " has a non-identity layout";
    if (!m && !t.isIntOrIndexOrFloat())
      return fn.emitOpError("convert-to-sdfg: argument ")
             << i << " has unsupported type " << t;
    // Names for --sdfg-autodiff: the argument's sdfg.name if given.
    NamedAttrList attrs;
    if (auto name = fn.getArgAttrOfType<StringAttr>(i, "sdfg.name"))
      attrs.append("sdfg.name", name);
    argAttrs.push_back(attrs.getDictionary(fn.getContext()));
  }
  b.setInsertionPoint(fn);
  sdfg = SDFGOp::create(b, fn.getLoc(), fn.getSymNameAttr(),
                        TypeAttr::get(fn.getFunctionType()),
                        b.getArrayAttr(argAttrs), nullptr, nullptr, nullptr);
  Block *entry = new Block();
  sdfg.getBody().push_back(entry);
  for (auto [arg, t] : llvm::zip(fn.getArguments(), fn.getArgumentTypes())) {
    Value a = entry->addArgument(t, arg.getLoc());
    if (isa<MemRefType>(t))
      containers[arg] = a;
    else if (t.isIndex())
      indices[arg] = IndexExpr{b.getAffineDimExpr(0), {a}};
    else
      scalarArgs[arg] = a;
  }
  b.setInsertionPointToEnd(entry);
  // What was built must also verify before it replaces the function: the
  // upstream ops accept sizes and bounds the sdfg dialect does not (a
  // memref of 2^60 f64, a loop bound of INT64_MIN). Their verifiers'
  // located errors are the import's errors, never invalid IR passed on.
  if (failed(convertBlock(fn.getBody().front())) || failed(verify(sdfg))) {
    sdfg.erase();
    return failure();
  }
  fn.erase();
  return success();
}

namespace {
struct ConvertToSDFGPass
    : public sdfg::impl::ConvertToSDFGBase<ConvertToSDFGPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto fn : llvm::to_vector(module.getOps<func::FuncOp>())) {
      Converter c(fn);
      if (failed(c.run()))
        return signalPassFailure();
    }
  }
};
} // namespace
