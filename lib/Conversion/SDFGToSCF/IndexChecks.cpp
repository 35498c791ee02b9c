//===- IndexChecks.cpp - Bounds checks of data-derived indices ------------===//
//
// An index the program computes from data (an integer array read as a
// subscript, a scalar argument, a loop bound read from an array) can fall
// outside the container. NumPy raises IndexError there; unchecked, the
// access would read or write outside the allocation. Accesses with such
// indices run under a compare per index; a failing access is skipped
// (a load yields zero) and reports the first failure through an exported
// global that the caller reads after the call (GPU kernels through a
// unified-memory record the host copies there at exit). Indices derived only
// from shapes (static extents, sdfg.dim of arguments and index arithmetic
// on them before the first state), constants and the bounds of loops over
// them are trusted: the frontend checks their ranges when compiling (for
// every size its symbols stand for), and a hand-written program with
// symbolic shapes states its sizes in its arguments.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

int64_t mlir::sdfg::detail::sourceLine(Location loc) {
  int64_t line = -1;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      line = file.getLine();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return line;
}

memref::GlobalOp mlir::sdfg::detail::errorGlobal(ModuleOp module,
                                                 StringRef name,
                                                 ArrayRef<int64_t> shape) {
  if (auto g = module.lookupSymbol<memref::GlobalOp>(name))
    return g;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Type i64 = b.getI64Type();
  return memref::GlobalOp::create(
      b, module.getLoc(), name, /*sym_visibility=*/StringAttr(),
      MemRefType::get(shape, i64),
      DenseElementsAttr::get(RankedTensorType::get(shape, i64),
                             b.getI64IntegerAttr(0).getValue()),
      /*constant=*/false, /*alignment=*/IntegerAttr());
}

/// Whether the index value `v` may be data: anything but a constant, a
/// symbol of the sdfg, or the iterator of a map or loop whose bounds are
/// not data themselves.
static bool isDataDerived(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (isa<SDFGOp>(owner))
      return false;
    if (auto map = dyn_cast<MapOp>(owner))
      return llvm::any_of(map.getRangeOperands(), isDataDerived);
    if (auto loop = dyn_cast<LoopOp>(owner))
      return llvm::any_of(loop.getBoundOperands(), isDataDerived);
    return true;
  }
  // A broadcast extent is one of its operands or their minimum.
  if (auto e = v.getDefiningOp<BroadcastExtentOp>())
    return isDataDerived(e.getLhs()) || isDataDerived(e.getRhs());
  // An extent of an argument is a shape, as a static one is.
  if (v.getDefiningOp<DimOp>())
    return false;
  // Index arithmetic on shapes before the first state (a slice's length
  // `n - 2` computed from an extent `n`) is a shape too.
  if (auto t = v.getDefiningOp<TaskletOp>())
    if (isa<SDFGOp>(t->getParentOp()))
      return llvm::any_of(t->getOperands(), isDataDerived);
  return !matchPattern(v, m_Constant());
}

SmallVector<bool> Lowering::dataResults(AffineMap map, ValueRange operands) {
  if (!checkIndices)
    return {};
  SmallVector<bool> data = llvm::map_to_vector(operands, isDataDerived);
  if (!llvm::is_contained(data, true))
    return {};
  unsigned nDims = map.getNumDims();
  return llvm::map_to_vector(map.getResults(), [&](AffineExpr expr) {
    bool fromData = false;
    for (auto [k, d] : llvm::enumerate(data))
      fromData |= d && (k < nDims ? expr.isFunctionOfDim(k)
                                  : expr.isFunctionOfSymbol(k - nDims));
    return fromData;
  });
}

SmallVector<IndexCheck> Lowering::elementChecks(Operation *op, Value memref,
                                                AffineMap map,
                                                ValueRange operands,
                                                ArrayRef<Value> idx) {
  Location loc = op->getLoc();
  SmallVector<IndexCheck> checks;
  for (auto [axis, fromData] : llvm::enumerate(dataResults(map, operands))) {
    if (!fromData || checkedBeforeLoop.contains({op, axis}))
      continue;
    Value extent = memref::DimOp::create(b, loc, memref, axis);
    checks.push_back({inBounds(loc, idx[axis], extent), idx[axis], extent,
                      static_cast<int64_t>(axis)});
  }
  return checks;
}

Value Lowering::inBounds(Location loc, Value index, Value extent) {
  // Unsigned: a negative index is a huge one.
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                               extent);
}

IndexCheck Lowering::rangeCheck(Location loc, Value first, Value count,
                                int64_t step, Value extent, int64_t axis) {
  // Its first and last element, when it has one.
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::AddIOp::create(
      b, loc, first,
      arith::MulIOp::create(b, loc, arith::SubIOp::create(b, loc, count, one),
                            arith::ConstantIndexOp::create(b, loc, step)));
  Value empty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, count, one);
  Value firstOk = inBounds(loc, first, extent);
  Value inside =
      arith::AndIOp::create(b, loc, firstOk, inBounds(loc, last, extent));
  Value ok = arith::OrIOp::create(b, loc, empty, inside);
  Value bad = arith::SelectOp::create(b, loc, firstOk, last, first);
  return {ok, bad, extent, axis};
}

SmallVector<IndexCheck>
Lowering::subsetChecks(Location loc, Value memref, const Subset &subset,
                       AffineMap map, ArrayRef<Value> bounds, CopyOp op) {
  SmallVector<IndexCheck> checks;
  SmallVector<bool> data = dataResults(map, op.getIndices());
  if (data.empty())
    return checks;
  for (unsigned d = 0; d < subset.getRank(); ++d) {
    if (!data[2 * d] && !data[2 * d + 1])
      continue;
    Value lo = bounds[2 * d];
    Value extent = memref::DimOp::create(b, loc, memref, d);
    auto axis = static_cast<int64_t>(d);
    if (!subset[d].isRange) {
      checks.push_back({inBounds(loc, lo, extent), lo, extent, axis});
      continue;
    }
    Value step = arith::ConstantIndexOp::create(b, loc, subset[d].step);
    Value count = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, bounds[2 * d + 1], lo), step);
    checks.push_back(rangeCheck(loc, lo, count, subset[d].step, extent, axis));
  }
  return checks;
}

/// The constant `c` when `expr` (over `operands`) is `iterator + c`.
static std::optional<int64_t> offsetFrom(Value iterator, AffineMap map,
                                         AffineExpr expr, ValueRange operands) {
  MLIRContext *ctx = map.getContext();
  unsigned nDims = map.getNumDims();
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  SmallVector<AffineExpr> dims(nDims, zero);
  SmallVector<AffineExpr> syms(map.getNumSymbols(), zero);
  bool uses = false;
  for (auto [k, v] : llvm::enumerate(operands)) {
    bool used = k < nDims ? expr.isFunctionOfDim(k)
                          : expr.isFunctionOfSymbol(k - nDims);
    if (!used)
      continue;
    if (v != iterator)
      return std::nullopt;
    uses = true;
    if (k < nDims)
      dims[k] = d0;
    else
      syms[k - nDims] = d0;
  }
  if (!uses)
    return std::nullopt;
  AffineExpr rest =
      simplifyAffineExpr(expr.replaceDimsAndSymbols(dims, syms) - d0, 1, 0);
  if (auto c = dyn_cast<AffineConstantExpr>(rest))
    return c.getValue();
  return std::nullopt;
}

SmallVector<IndexCheck> Lowering::loopChecks(LoopOp loop, Value first,
                                             Value trips) {
  SmallVector<IndexCheck> checks;
  if (!checkIndices || !llvm::any_of(loop.getBoundOperands(), isDataDerived))
    return checks;
  Location loc = loop.getLoc();
  Value iterator = loop.getIterator();
  auto check = [&](Operation *access, Value container, AffineMap map,
                   ValueRange operands) {
    Value memref = mapping.lookupOrNull(container);
    if (!memref)
      return;
    for (auto [axis, expr] : llvm::enumerate(map.getResults())) {
      std::optional<int64_t> c = offsetFrom(iterator, map, expr, operands);
      if (!c)
        continue;
      Value lo = arith::AddIOp::create(
          b, loc, first, arith::ConstantIndexOp::create(b, loc, *c));
      Value extent = memref::DimOp::create(b, loc, memref, axis);
      IndexCheck range = rangeCheck(loc, lo, trips, loop.getStepValue(), extent,
                                    static_cast<int64_t>(axis));
      range.line = sourceLine(access->getLoc());
      checks.push_back(range);
      checkedBeforeLoop.insert({access, axis});
    }
  };
  // Only accesses every iteration makes: directly in the body's states
  // (not under a branch, which a `break` also becomes, nor in a nested loop
  // or map, which may run no iteration).
  for (auto state : loop.getBody().getOps<StateOp>()) {
    for (Operation &op : state.getBody().getOps()) {
      if (auto l = dyn_cast<LoadOp>(op))
        check(l, l.getMemref(), l.getMap(), l.getIndices());
      else if (auto s = dyn_cast<StoreOp>(op))
        check(s, s.getMemref(), s.getMap(), s.getIndices());
    }
  }
  return checks;
}

Value Lowering::guardAccess(Location loc, ArrayRef<IndexCheck> checks,
                            Type resultType, function_ref<Value()> access) {
  if (checks.empty())
    return access();
  Value ok = checks.front().ok;
  for (const IndexCheck &c : checks.drop_front())
    ok = arith::AndIOp::create(b, loc, ok, c.ok);
  TypeRange results = resultType ? TypeRange(resultType) : TypeRange();
  auto branch = scf::IfOp::create(b, loc, results, ok, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  Value v = access();
  if (resultType)
    scf::YieldOp::create(b, loc, v);
  b.setInsertionPointToStart(branch.elseBlock());
  reportBadIndex(loc, checks);
  if (!resultType)
    return Value();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(resultType));
  scf::YieldOp::create(b, loc, zero);
  return branch.getResult(0);
}

LogicalResult Lowering::lowerBroadcastExtent(BroadcastExtentOp op) {
  Location loc = op.getLoc();
  Value lhs = mapping.lookup(op.getLhs()), rhs = mapping.lookup(op.getRhs());
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y)
        .getResult();
  };
  bool operands = op.getKind() == BroadcastKind::operands;
  // Valid pairs: equal, or a length-1 source (either side for operands).
  Value same = eq(lhs, rhs);
  Value ok = arith::OrIOp::create(b, loc, same, eq(lhs, one));
  Value result = rhs;
  if (operands) {
    Value rhsOne = eq(rhs, one);
    ok = arith::OrIOp::create(b, loc, ok, rhsOne);
    result = arith::SelectOp::create(b, loc, rhsOne, lhs, rhs);
  }
  // A pair that does not broadcast: the smaller extent keeps the accesses
  // the result sizes inside both operands until the caller raises.
  Value smaller = arith::MinSIOp::create(b, loc, lhs, rhs);
  result = arith::SelectOp::create(b, loc, ok, result, smaller);
  mapping.map(op.getResult(), result);
  // The record's axis field tells the caller which NumPy error this is.
  reportUnless(loc, IndexCheck{ok, lhs, rhs, operands ? -1 : -2});
  return success();
}

void Lowering::reportUnless(Location loc, const IndexCheck &check) {
  if (!checkIndices)
    return;
  auto failed = scf::IfOp::create(
      b, loc, TypeRange(),
      arith::XOrIOp::create(b, loc, check.ok,
                            arith::ConstantIntOp::create(b, loc, 1, 1)),
      /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(failed.thenBlock());
  reportBadIndex(loc, check);
}

LogicalResult Lowering::lowerCheckIndex(CheckIndexOp op) {
  Location loc = op.getLoc();
  Value index = mapping.lookup(op.getIndex());
  mapping.map(op.getResult(), index);
  if (!checkIndices)
    return success();
  Value extent = mapping.lookup(op.getExtent());
  reportUnless(loc, IndexCheck{inBounds(loc, index, extent), index, extent,
                               static_cast<int64_t>(op.getAxis())});
  return success();
}

/// The out-of-line report of a failed check (created once per module):
/// `report(record, line, index, axis, extent)` claims `record` (a
/// {line, index, axis, extent} memref) for the first failure. Noinline and
/// cold, so that checked loops stay small. Threads of a parallel map claim
/// the calling thread's stack record of the call (failedIndex); at exit the
/// call's record is reported into `sdfg_index_error`, which is thread-local
/// (CallGuards.cpp), so that concurrent calls never see each other's
/// failures.
static func::FuncOp reportFunction(ModuleOp module) {
  static constexpr StringLiteral name = "__sdfg_report_index_error";
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  Location loc = module.getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = b.getI64Type();
  auto recordType = MemRefType::get({4}, i64);
  auto fn = func::FuncOp::create(
      b, loc, name, b.getFunctionType({recordType, i64, i64, i64, i64}, {}));
  fn.setPrivate();
  fn->setAttr("passthrough", b.getStrArrayAttr({"noinline", "cold"}));
  Block *body = fn.addEntryBlock();
  b.setInsertionPointToStart(body);
  Value record = body->getArgument(0);
  // Line 0 means "none yet": the first thread to fail claims the record;
  // later ones leave it, so it is one failure's, whole.
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
  Value first = arith::ConstantIndexOp::create(b, loc, 0);
  auto claim = memref::GenericAtomicRMWOp::create(b, loc, record, first);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(claim.getBody());
    Value cur = claim.getCurrentValue();
    Value unset =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cur, zero);
    memref::AtomicYieldOp::create(
        b, loc,
        arith::SelectOp::create(b, loc, unset, body->getArgument(1), cur));
  }
  Value won = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                    claim.getResult(), zero);
  auto ifWon = scf::IfOp::create(b, loc, TypeRange(), won, false);
  b.setInsertionPointToStart(ifWon.thenBlock());
  for (unsigned k = 1; k < 4; ++k)
    memref::StoreOp::create(
        b, loc, body->getArgument(k + 1), record,
        ValueRange{arith::ConstantIndexOp::create(b, loc, k)});
  b.setInsertionPointToEnd(body);
  func::ReturnOp::create(b, loc);
  return fn;
}

void Lowering::reportBadIndex(Location loc, ArrayRef<IndexCheck> checks) {
  // The first failing check, by selects from the last.
  Type i64 = b.getI64Type();
  auto asI64 = [&](Value v) {
    return arith::IndexCastOp::create(b, loc, i64, v).getResult();
  };
  int64_t here = sourceLine(loc);
  Value index, axis, extent, line;
  for (const IndexCheck &c : llvm::reverse(checks)) {
    Value i = asI64(c.index), e = asI64(c.extent);
    Value a = arith::ConstantIntOp::create(b, loc, c.axis, 64);
    // Line 0 would read as "no failure".
    int64_t where = c.line ? c.line : here;
    Value l = arith::ConstantIntOp::create(b, loc, where ? where : -1, 64);
    if (!index) {
      index = i, axis = a, extent = e, line = l;
      continue;
    }
    Value bad = arith::XOrIOp::create(
        b, loc, c.ok, arith::ConstantIntOp::create(b, loc, 1, 1));
    index = arith::SelectOp::create(b, loc, bad, i, index);
    axis = arith::SelectOp::create(b, loc, bad, a, axis);
    extent = arith::SelectOp::create(b, loc, bad, e, extent);
    line = arith::SelectOp::create(b, loc, bad, l, line);
  }
  Value fields[] = {line, index, axis, extent};
  Operation *parent = b.getInsertionBlock()->getParentOp();
  if (gpu && (isa<gpu::LaunchOp>(parent) ||
              parent->getParentOfType<gpu::LaunchOp>())) {
    reportInKernel(loc, fields);
    return;
  }
  // The first failure goes to a stack slot of the call, reported once when
  // the function returns: a call here could write any memory as far as
  // LLVM knows, and values carried through memory in the loop around (an
  // accumulator) would be stored and reloaded every iteration.
  if (!failedIndex) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entryBlock(b));
    failedIndex = memref::AllocaOp::create(b, loc, MemRefType::get({4}, i64));
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    Value first = arith::ConstantIndexOp::create(b, loc, 0);
    memref::StoreOp::create(b, loc, zero, failedIndex, first);
  }
  if (parallelDepth > 0) {
    // The threads of a parallel map share the slot: claimed atomically.
    SmallVector<Value> args{failedIndex};
    llvm::append_range(args, fields);
    func::CallOp::create(b, loc, reportFunction(module), args);
    return;
  }
  Value seen = recordField(loc, failedIndex, 0);
  Value unset =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, seen,
                            arith::ConstantIntOp::create(b, loc, 0, 64));
  auto ifFirst = scf::IfOp::create(b, loc, TypeRange(), unset, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifFirst.thenBlock());
  for (auto [k, v] : llvm::enumerate(fields))
    memref::StoreOp::create(
        b, loc, v, failedIndex,
        ValueRange{arith::ConstantIndexOp::create(b, loc, k)});
}

Block *mlir::sdfg::detail::entryBlock(OpBuilder &b) {
  Operation *parent = b.getInsertionBlock()->getParentOp();
  auto fn = dyn_cast<func::FuncOp>(parent);
  if (!fn)
    fn = parent->getParentOfType<func::FuncOp>();
  return &fn.getBody().front();
}

void Lowering::reportInKernel(Location loc, ArrayRef<Value> fields) {
  Type i64 = b.getI64Type();
  if (!kernelFailedIndex) {
    // Allocated and cleared by the host at entry; kernels capture it (the
    // outlining makes it a kernel argument), the host reads it at exit.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entryBlock(b));
    kernelFailedIndex =
        gpu::AllocOp::create(b, loc, MemRefType::get({4}, i64), Type(),
                             ValueRange{}, ValueRange{}, ValueRange{},
                             /*hostShared=*/true)
            .getMemref();
    memref::StoreOp::create(
        b, loc, arith::ConstantIntOp::create(b, loc, 0, 64), kernelFailedIndex,
        ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
  }
  // The line field claims the record (0: unclaimed), as in the host's
  // report function; the thread that claims it writes the rest.
  Value linePtr = basePointer(loc, kernelFailedIndex);
  auto claim = LLVM::AtomicCmpXchgOp::create(
      b, loc, linePtr, arith::ConstantIntOp::create(b, loc, 0, 64), fields[0],
      LLVM::AtomicOrdering::acq_rel, LLVM::AtomicOrdering::monotonic);
  Value won = LLVM::ExtractValueOp::create(b, loc, claim, 1);
  auto ifWon = scf::IfOp::create(b, loc, TypeRange(), won, false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifWon.thenBlock());
  for (unsigned k = 1; k < fields.size(); ++k)
    memref::StoreOp::create(
        b, loc, fields[k], kernelFailedIndex,
        ValueRange{arith::ConstantIndexOp::create(b, loc, k)});
}

Value Lowering::recordField(Location loc, Value record, int64_t k) {
  return memref::LoadOp::create(
      b, loc, record, ValueRange{arith::ConstantIndexOp::create(b, loc, k)});
}

void Lowering::reportFailedIndexAtExit(Location loc) {
  // The host code's record, then the kernels': when both caught a
  // failure, either is a true one of this call, and the report function
  // keeps the first it is given.
  auto reportIfSet = [&](Value record) {
    Value failed = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, recordField(loc, record, 0),
        arith::ConstantIntOp::create(b, loc, 0, 64));
    auto ifFailed = scf::IfOp::create(b, loc, TypeRange(), failed, false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifFailed.thenBlock());
    memref::GlobalOp global = errorGlobal(module, kIndexError, {4});
    SmallVector<Value> fields{memref::GetGlobalOp::create(
        b, loc, global.getType(), global.getSymName())};
    for (int64_t k = 0; k < 4; ++k)
      fields.push_back(recordField(loc, record, k));
    func::CallOp::create(b, loc, reportFunction(module), fields);
  };
  if (failedIndex)
    reportIfSet(failedIndex);
  if (kernelFailedIndex) {
    reportIfSet(kernelFailedIndex);
    freeShared(b, loc, kernelFailedIndex);
  }
}
