//===- Linalg.cpp - linalg ops on memrefs into the sdfg dialect -----------===//
//
// linalg.matmul, matvec, dot and reduce become library ops (accumulating,
// as linalg does); linalg.generic and linalg.fill become maps with
// tasklets, a reduction's `out = out <op> x` a WCR store.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

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
// Maps
//===----------------------------------------------------------------------===//

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

SmallVector<Value> Converter::openMap(Location loc,
                                      ArrayRef<IndexExpr> extents) {
  MLIRContext *ctx = b.getContext();
  unsigned n = extents.size();
  SmallVector<Value> atoms;
  SmallVector<AffineExpr> zeros(n, getAffineConstantExpr(0, ctx)), ubs;
  for (const IndexExpr &e : extents)
    ubs.push_back(merge(e, atoms));
  auto map = MapOp::create(
      b, loc, atoms,
      AffineMapAttr::get(AffineMap::get(atoms.size(), 0, zeros, ctx)),
      AffineMapAttr::get(AffineMap::get(atoms.size(), 0, ubs, ctx)),
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

IndexExpr Converter::extentOf(Value container, unsigned axis) {
  auto type = cast<MemRefType>(container.getType());
  if (!type.isDynamicDim(axis))
    return IndexExpr{b.getAffineConstantExpr(type.getDimSize(axis)), {}};
  OpBuilder::InsertionGuard guard(b);
  Block &body = sdfg.getBody().front();
  if (Operation *def = container.getDefiningOp();
      def && def->getBlock() == &body)
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(&body);
  Value extent = DimOp::create(b, container.getLoc(), b.getIndexType(),
                               container, b.getI64IntegerAttr(axis));
  return IndexExpr{b.getAffineDimExpr(0), {extent}};
}

LogicalResult Converter::convertGeneric(linalg::GenericOp op) {
  Location loc = op.getLoc();
  if (!op.hasPureBufferSemantics())
    return unsupported(op, "only linalg on memrefs (bufferize first)");
  // Each loop's range: static, or the extent (sdfg.dim) of an operand
  // dimension that the loop alone indexes.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<IndexExpr> extents;
  SmallVector<AffineMap> operandMaps = op.getIndexingMapsArray();
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (!ShapedType::isDynamic(range)) {
      extents.push_back(IndexExpr{b.getAffineConstantExpr(range), {}});
      continue;
    }
    std::optional<IndexExpr> extent;
    for (OpOperand &operand : op->getOpOperands()) {
      Value c = containers.lookup(operand.get());
      AffineMap m = operandMaps[operand.getOperandNumber()];
      for (auto [r, e] : llvm::enumerate(m.getResults()))
        if (!extent && c && e == getAffineDimExpr(d, op.getContext()))
          extent = extentOf(c, r);
    }
    if (!extent)
      return unsupported(op, "a loop's range is dynamic and no operand "
                             "dimension is indexed by that loop alone");
    extents.push_back(*extent);
  }
  openState(loc);
  MLIRContext *ctx = b.getContext();
  unsigned n = ranges.size();
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Value> params = openMap(loc, extents);
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
  SmallVector<IndexExpr> extents;
  for (unsigned d = 0; d < type.getRank(); ++d)
    extents.push_back(extentOf(c, d));
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
  SmallVector<Value> params = openMap(loc, extents);
  StoreOp::create(b, loc, v, c, params,
                  AffineMap::getMultiDimIdentityMap(n, ctx), nullptr);
  doneInState.insert(op);
  return success();
}
