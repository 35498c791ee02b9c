//===- ForwardDiff.cpp - The --sdfg-forward-diff pass ---------------------===//
//
// Forward-mode AD (Jacobian-vector products). The tangent program is a
// copy of the program in which every container that depends on the
// differentiated inputs has a tangent container, and every op that writes
// such a container is followed by the op that writes its tangent: a store
// by a store of the value's tangent, a copy by the same copy of tangents, a
// library op by its TangentOpInterface rule. Scalar tangents are built
// where the primal values are (a tangent load right after each load, a
// tangent tasklet right after each tasklet), so the tangent of an in-place
// update reads the values the update read. Control flow is the program's
// own: loops, branches and while loops run once, with their tangents.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"
#include "TangentBuilder.h"

#include "sdfg/AutoDiff/Implementations/Register.h"
#include "sdfg/AutoDiff/Interfaces/AutoDiffInterfaces.h"
#include "sdfg/AutoDiff/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_FORWARDDIFF
#include "sdfg/AutoDiff/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

LogicalResult TangentBuilder::resolveNames() {
  if (!wrtOpt.empty())
    wrtNames.assign(wrtOpt.begin(), wrtOpt.end());
  else
    for (unsigned i = 0; i < fwd.getNumArguments(); ++i)
      if (isFloatContainer(fwd.getArgument(i)) &&
          fwd.getArgName(i).rfind("__return", 0) != 0)
        wrtNames.push_back(fwd.getArgName(i));
  if (!outOpt.empty())
    outNames.assign(outOpt.begin(), outOpt.end());
  else if (auto out = fwd.getAdOutput())
    outNames.push_back(out->str());
  else if (fwd.lookupArg("__return0"))
    outNames.push_back("__return0");
  if (wrtNames.empty())
    return fwd.emitOpError("forward mode: no float container argument to "
                           "differentiate with respect to");
  if (outNames.empty())
    return fwd.emitOpError("forward mode: no output; pass outputs=<names>");
  llvm::StringSet<> seen;
  for (const std::string &n : wrtNames) {
    if (!seen.insert(n).second)
      return fwd.emitOpError() << "forward mode: wrt names '" << n << "' twice";
    BlockArgument a = fwd.lookupArg(n);
    if (!a)
      return fwd.emitOpError()
             << "forward mode: wrt name '" << n << "' is not an argument";
    if (!isFloatContainer(a))
      return fwd.emitOpError() << "forward mode: wrt argument '" << n
                               << "' must be a float container";
  }
  llvm::StringSet<> seenOut;
  for (const std::string &n : outNames) {
    if (!seenOut.insert(n).second)
      return fwd.emitOpError()
             << "forward mode: outputs names '" << n << "' twice";
    BlockArgument a = fwd.lookupArg(n);
    if (!a)
      return fwd.emitOpError()
             << "forward mode: output '" << n << "' is not an argument";
    if (!isFloatContainer(a))
      return fwd.emitOpError()
             << "forward mode: output '" << n << "' must be a float container";
  }
  std::string name = (fwd.getSymName() + suffix).str();
  if (Operation *table = SymbolTable::getNearestSymbolTable(fwd))
    if (SymbolTable::lookupSymbolIn(table, name))
      return fwd.emitOpError() << "forward mode: the tangent program's name '"
                               << name << "' is taken; choose another suffix=";
  b.setInsertionPointAfter(fwd);
  jvp = cast<SDFGOp>(b.clone(*fwd));
  jvp.setSymName(name);
  jvp->removeAttr(jvp.getAdOutputAttrName());
  jvp->removeAttr(jvp.getAdWrtAttrName());
  return success();
}

/// The fixed point of "written from a varied container": a store whose
/// value carries a varied load, a copy from a varied container, a library
/// op reading one. Iterated over the whole program, so loops need no
/// special treatment.
void TangentBuilder::findVaried() {
  for (const std::string &n : wrtNames)
    varied.insert(jvp.lookupArg(n));
  findVariedFrom();
  // Of those, the ones whose tangents reach an output: a container that
  // only decides control flow (a convergence test's norm) or indices
  // needs none.
  llvm::SetVector<Value> useful;
  for (const std::string &n : outNames)
    useful.insert(jvp.lookupArg(n));
  bool changed = true;
  while (changed) {
    changed = false;
    jvp.walk([&](Operation *op) {
      llvm::SetVector<Value> reads;
      if (auto s = dyn_cast<StoreOp>(op)) {
        if (useful.contains(s.getMemref()))
          collectFloatReads(s.getValue(), reads);
      } else if (auto c = dyn_cast<CopyOp>(op)) {
        if (useful.contains(c.getTarget()))
          reads.insert(c.getSource());
      } else if (auto lib = dyn_cast<LibraryOpInterface>(op)) {
        if (useful.contains(lib.getOutputContainer()))
          for (Value in : lib.getInputContainers())
            reads.insert(in);
      }
      for (Value r : reads)
        changed |= useful.insert(r);
    });
  }
  llvm::SetVector<Value> both;
  for (Value c : varied)
    if (useful.contains(c))
      both.insert(c);
  varied = std::move(both);
}

/// Containers whose float values flow into `v` (through tasklets).
void TangentBuilder::collectFloatReads(Value v, llvm::SetVector<Value> &out) {
  Operation *def = v.getDefiningOp();
  if (auto load = dyn_cast_or_null<LoadOp>(def)) {
    if (isa<FloatType>(v.getType()))
      out.insert(load.getMemref());
  } else if (auto t = dyn_cast_or_null<TaskletOp>(def)) {
    for (Value in : t.getInputs())
      collectFloatReads(in, out);
  }
}

void TangentBuilder::findVariedFrom() {
  bool changed = true;
  while (changed) {
    changed = false;
    llvm::DenseMap<Value, bool> memo;
    jvp.walk([&](Operation *op) {
      Value target;
      if (auto s = dyn_cast<StoreOp>(op)) {
        if (sdfg::detail::carriesGradient(s.getValue(), varied, memo))
          target = s.getMemref();
      } else if (auto c = dyn_cast<CopyOp>(op)) {
        if (varied.contains(c.getSource()))
          target = c.getTarget();
      } else if (auto lib = dyn_cast<LibraryOpInterface>(op)) {
        if (llvm::any_of(lib.getInputContainers(),
                         [&](Value in) { return varied.contains(in); }))
          target = lib.getOutputContainer();
      }
      if (target && isFloatContainer(target) && !stopsGradient(target) &&
          varied.insert(target)) {
        changed = true;
        memo.clear();
      }
    });
  }
}

/// Before the program's first op that is not an sdfg.alloc (the fill
/// states go after every declaration).
void TangentBuilder::setInsertionPointAfterAllocs() {
  Block &body = jvp.getBody().front();
  for (Operation &op : body)
    if (!isa<AllocOp>(op)) {
      b.setInsertionPoint(&op);
      return;
    }
  b.setInsertionPointToEnd(&body);
}

LogicalResult TangentBuilder::createTangentContainers() {
  MLIRContext *ctx = jvp.getContext();
  auto addArg = [&](Value like, const std::string &name) -> Value {
    unsigned idx = jvp.getNumArguments();
    NamedAttrList attrs;
    attrs.append("sdfg.name", StringAttr::get(ctx, name));
    if (failed(jvp.insertArgument(idx, like.getType(), attrs.getDictionary(ctx),
                                  jvp.getLoc())))
      return Value();
    return jvp.getArgument(idx);
  };
  // Tangent arguments: t_<w> in, then t_<output> out (one argument where
  // an output is also differentiated: an argument updated in place).
  llvm::DenseSet<Value> inputs;
  for (const std::string &n : wrtNames) {
    Value w = jvp.lookupArg(n);
    Value t = addArg(w, "t_" + n);
    if (!t)
      return jvp.emitOpError("forward mode cannot add argument t_") << n;
    tangent[w] = t;
    inputs.insert(t);
  }
  for (const std::string &n : outNames) {
    Value o = jvp.lookupArg(n);
    if (tangent.count(o))
      continue;
    Value t = addArg(o, "t_" + n);
    if (!t)
      return jvp.emitOpError("forward mode cannot add argument t_") << n;
    tangent[o] = t;
  }
  Block &body = jvp.getBody().front();
  // Transients get a transient tangent next to them; other written
  // arguments a transient at the top (their tangent starts at zero: they
  // are not differentiated).
  for (Value c : varied) {
    if (tangent.count(c))
      continue;
    auto type = cast<MemRefType>(c.getType());
    if (auto alloc = c.getDefiningOp<AllocOp>()) {
      b.setInsertionPointAfter(alloc);
      StringAttr name;
      if (auto n = alloc.getName())
        name = b.getStringAttr("t_" + n->str());
      tangent[c] = AllocOp::create(b, alloc.getLoc(), type,
                                   alloc.getDynamicSizes(), name);
      continue;
    }
    b.setInsertionPointToStart(&body);
    std::string name =
        "t_" + jvp.getArgName(cast<BlockArgument>(c).getArgNumber());
    tangent[c] = rb.allocateLike(jvp.getLoc(), c, b.getStringAttr(name));
  }
  // Every tangent but the inputs' starts at zero (where the program does
  // not write it, or writes it from values with no tangent).
  setInsertionPointAfterAllocs();
  for (auto &[c, t] : tangent) {
    tangentContainers.insert(t);
    if (!inputs.contains(t))
      rb.fill(jvp.getLoc(), t, 0.0, /*inState=*/false);
  }
  return success();
}

LogicalResult TangentBuilder::run() {
  if (failed(resolveNames()))
    return failure();
  findVaried();
  if (failed(createTangentContainers()))
    return failure();
  SmallVector<Operation *> writes;
  jvp.walk([&](Operation *op) {
    if (isa<StoreOp, CopyOp, LibraryOpInterface>(op))
      writes.push_back(op);
  });
  for (Operation *op : writes)
    if (failed(rewrite(op)))
      return failure();
  eraseUnusedDims(jvp);
  return success();
}

namespace {

struct ForwardDiffPass : public sdfg::impl::ForwardDiffBase<ForwardDiffPass> {
  using ForwardDiffBase::ForwardDiffBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    ForwardDiffBase::getDependentDialects(registry);
    registerAutoDiffModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<SDFGOp> targets;
    for (SDFGOp op : module.getOps<SDFGOp>()) {
      if (!of.empty() ? op.getSymName() == of
                      : !outputs.empty() || op.getAdOutput() ||
                            op.lookupArg("__return0"))
        targets.push_back(op);
    }
    if (of.empty() && targets.empty()) {
      module.emitError("sdfg-forward-diff: no sdfg.sdfg names an output; "
                       "pass outputs=<names> or set ad_output");
      return signalPassFailure();
    }
    if (!of.empty() && targets.empty()) {
      module.emitError("sdfg-forward-diff: no sdfg.sdfg named '")
          << of << "' to differentiate";
      return signalPassFailure();
    }
    if (targets.size() > 1 && (!wrt.empty() || !outputs.empty())) {
      module.emitError("sdfg-forward-diff: wrt= and outputs= name "
                       "arguments of one program; choose it with of=");
      return signalPassFailure();
    }
    SmallVector<std::string> w(wrt.begin(), wrt.end());
    SmallVector<std::string> o(outputs.begin(), outputs.end());
    for (SDFGOp op : targets)
      if (failed(TangentBuilder(op, w, o, suffix).run()))
        return signalPassFailure();
  }
};

} // namespace
