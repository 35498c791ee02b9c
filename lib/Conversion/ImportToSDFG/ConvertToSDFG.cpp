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

#include "Converter.h"
#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_CONVERTTOSDFG
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

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
