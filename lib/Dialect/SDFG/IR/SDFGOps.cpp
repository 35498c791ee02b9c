//===- SDFGOps.cpp - sdfg dialect operations ------------------------------===//
//
// The generated op classes (their custom assembly and verifiers are in
// ControlFlowOps.cpp, DataflowOps.cpp and LibraryOps.cpp), and queries over
// ops that the passes share.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"
#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::sdfg;

#include "sdfg/Dialect/SDFG/IR/SDFGEnums.cpp.inc"

#define GET_OP_CLASSES
#include "sdfg/Dialect/SDFG/IR/SDFGOps.cpp.inc"

bool mlir::sdfg::writesContainer(Operation *op, Value container) {
  return op
      ->walk([&](Operation *inner) {
        return getWrittenContainer(inner) == container ? WalkResult::interrupt()
                                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

TypedAttr mlir::sdfg::getTaskletConstant(Value v) {
  auto tasklet = v.getDefiningOp<TaskletOp>();
  if (!tasklet || !tasklet.getInputs().empty())
    return {};
  auto yield = cast<YieldOp>(tasklet.getBody().front().getTerminator());
  Value y = yield.getValues()[cast<OpResult>(v).getResultNumber()];
  TypedAttr attr;
  if (!matchPattern(y, m_Constant(&attr)))
    return {};
  return attr;
}

Value mlir::sdfg::createConstantTasklet(OpBuilder &b, Location loc,
                                        TypedAttr value) {
  Type type = value.getType();
  auto t = TaskletOp::create(b, loc, TypeRange{type}, ValueRange{});
  Block *blk = new Block();
  t.getBody().push_back(blk);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(blk);
  Value c = arith::ConstantOp::create(b, loc, type, value);
  YieldOp::create(b, loc, ValueRange{c});
  return t.getResult(0);
}

Value mlir::sdfg::getWrittenContainer(Operation *op) {
  if (auto s = dyn_cast<StoreOp>(op))
    return s.getMemref();
  if (auto c = dyn_cast<CopyOp>(op))
    return c.getTarget();
  if (auto lib = dyn_cast<LibraryOpInterface>(op))
    return lib.getOutputContainer();
  return {};
}
