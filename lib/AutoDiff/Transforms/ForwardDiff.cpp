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

namespace {

bool isFloatContainer(Value v) {
  auto m = dyn_cast<MemRefType>(v.getType());
  return m && isa<FloatType>(m.getElementType());
}

/// Builds the tangent program of one sdfg.sdfg.
class TangentBuilder {
public:
  TangentBuilder(SDFGOp fwd, ArrayRef<std::string> wrt,
                 ArrayRef<std::string> outputs, StringRef suffix)
      : fwd(fwd), b(fwd.getContext()), rb(b), wrtOpt(wrt), outOpt(outputs),
        suffix(suffix) {}

  LogicalResult run();

private:
  LogicalResult resolveNames();
  void findVaried();
  void findVariedFrom();
  void collectFloatReads(Value v, llvm::SetVector<Value> &out);
  LogicalResult createTangentContainers();
  LogicalResult rewrite(Operation *op);
  Value tangentOf(Value v);
  LogicalResult differentiateTasklet(TaskletOp task);
  Value zeroSource(Value like, Location loc);
  Value transientLike(Value like, Location loc, StringRef name);
  LogicalResult chooserTangent(StoreOp s, Value tc);
  void forEachElement(Value container, Location loc,
                      function_ref<void(ValueRange, AffineMap)> body);
  void collectAllReads(Value v, llvm::SetVector<Value> &out);

  SDFGOp fwd, jvp;
  OpBuilder b;
  ReverseBuilder rb;
  ArrayRef<std::string> wrtOpt, outOpt;
  StringRef suffix;
  SmallVector<std::string> wrtNames, outNames;
  /// Containers that depend on the differentiated inputs.
  llvm::SetVector<Value> varied;
  /// Container -> its tangent container.
  llvm::DenseMap<Value, Value> tangent;
  /// The tangent containers (written in maps beside their primals).
  llvm::DenseSet<Value> tangentContainers;
  /// Scalar -> its tangent (null: zero).
  llvm::DenseMap<Value, Value> scalar;
  /// Element type -> a transient of zeros, the source of copies whose
  /// values have no tangent.
  llvm::DenseMap<Type, Value> zeros;
  bool failedRule = false;
};

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
      if (target && isFloatContainer(target) && varied.insert(target)) {
        changed = true;
        memo.clear();
      }
    });
  }
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
    if (!type.hasStaticShape())
      return jvp.emitOpError()
             << "forward mode: argument '"
             << jvp.getArgName(cast<BlockArgument>(c).getArgNumber())
             << "' is written from differentiated values and has a "
                "dynamic shape; differentiate with respect to it or give "
                "it a static shape";
    b.setInsertionPointToStart(&body);
    std::string name =
        "t_" + jvp.getArgName(cast<BlockArgument>(c).getArgNumber());
    tangent[c] = AllocOp::create(b, jvp.getLoc(), type, ValueRange(),
                                 b.getStringAttr(name));
  }
  // Every tangent but the inputs' starts at zero (where the program does
  // not write it, or writes it from values with no tangent).
  Operation *first = nullptr;
  for (Operation &op : body)
    if (!isa<AllocOp>(op)) {
      first = &op;
      break;
    }
  if (first)
    b.setInsertionPoint(first);
  else
    b.setInsertionPointToEnd(&body);
  for (auto &[c, t] : tangent) {
    tangentContainers.insert(t);
    if (!inputs.contains(t))
      rb.fill(jvp.getLoc(), t, 0.0, /*inState=*/false);
  }
  return success();
}

Value TangentBuilder::tangentOf(Value v) {
  auto it = scalar.find(v);
  if (it != scalar.end())
    return it->second;
  Value t;
  if (auto load = v.getDefiningOp<LoadOp>()) {
    Value tc = tangent.lookup(load.getMemref());
    if (tc && isa<FloatType>(v.getType())) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(load);
      t = LoadOp::create(b, load.getLoc(), v.getType(), tc, load.getIndices(),
                         load.getMap());
    }
  } else if (auto task = v.getDefiningOp<TaskletOp>()) {
    if (failed(differentiateTasklet(task))) {
      failedRule = true;
      return Value();
    }
    return scalar.lookup(v);
  }
  scalar[v] = t;
  return t;
}

/// The tangent tasklet of `task`, right after it: its inputs are the
/// primal inputs and their tangents; its body recomputes the primal ops
/// and, after each, its tangent: the sum over operands i of the op's
/// adjoint rule for operand i applied to operand i's tangent.
LogicalResult TangentBuilder::differentiateTasklet(TaskletOp task) {
  for (Value r : task.getResults())
    scalar[r] = Value();
  SmallVector<Value> inputs(task.getInputs());
  SmallVector<int> tangentIndex(inputs.size(), -1);
  SmallVector<Value> tangentInputs;
  for (auto [i, in] : llvm::enumerate(task.getInputs()))
    if (Value t = tangentOf(in)) {
      tangentIndex[i] = inputs.size() + tangentInputs.size();
      tangentInputs.push_back(t);
    }
  if (failedRule)
    return failure();
  SmallVector<unsigned> floatResults;
  SmallVector<Type> types;
  for (auto [i, r] : llvm::enumerate(task.getResults()))
    if (isa<FloatType>(r.getType())) {
      floatResults.push_back(i);
      types.push_back(r.getType());
    }
  if (tangentInputs.empty() || floatResults.empty())
    return success();
  inputs.append(tangentInputs);

  Location loc = task.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(task);
  auto nt = TaskletOp::create(b, loc, types, inputs);
  Block *blk = new Block();
  nt.getBody().push_back(blk);
  for (Value in : inputs)
    blk->addArgument(in.getType(), loc);
  Block &old = task.getBody().front();
  IRMapping primal;
  llvm::DenseMap<Value, Value> tan;
  for (auto [i, arg] : llvm::enumerate(old.getArguments())) {
    primal.map(arg, blk->getArgument(i));
    if (tangentIndex[i] >= 0)
      tan[arg] = blk->getArgument(tangentIndex[i]);
  }
  b.setInsertionPointToStart(blk);
  for (Operation &op : old.without_terminator()) {
    Operation *copy = b.clone(op, primal);
    SmallVector<std::pair<unsigned, Value>> terms;
    for (auto [i, operand] : llvm::enumerate(op.getOperands()))
      if (Value t = tan.lookup(operand))
        terms.push_back({(unsigned)i, t});
    if (terms.empty() || op.getNumResults() != 1 ||
        !isa<FloatType>(op.getResult(0).getType()))
      continue;
    if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      // Precision casts are linear: the tangent is cast alike (the
      // adjoint rule casts the other way).
      Operation *cast = b.clone(*copy);
      cast->setOperand(0, terms.front().second);
      tan[op.getResult(0)] = cast->getResult(0);
      continue;
    }
    auto rule = dyn_cast<ScalarAdjointOpInterface>(copy);
    if (!rule || op.getNumRegions() != 0)
      return op.emitOpError("forward mode: no derivative rule for this op");
    Value sum;
    for (auto [i, t] : terms) {
      SmallVector<Value> d;
      IRMapping same;
      if (failed(rule.emitAdjoint(b, same, t, d)))
        return failure();
      if (i >= d.size() || !d[i])
        continue;
      if (d[i].getType() != op.getResult(0).getType())
        return op.emitOpError("forward mode: the derivative rule of this op "
                              "changes the type; no tangent for it yet");
      sum = sum ? arith::AddFOp::create(b, op.getLoc(), sum, d[i]) : d[i];
    }
    if (sum)
      tan[op.getResult(0)] = sum;
  }
  auto yield = cast<YieldOp>(old.getTerminator());
  SmallVector<Value> yields;
  for (unsigned i : floatResults) {
    Value t = tan.lookup(yield.getValues()[i]);
    if (!t) {
      Type ty = types[yields.size()];
      t = arith::ConstantOp::create(b, loc, ty, b.getFloatAttr(ty, 0.0));
    }
    yields.push_back(t);
  }
  YieldOp::create(b, loc, yields);
  // The rules build every operand's adjoint; drop the ones no tangent
  // uses.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*blk)))
    if (isOpTriviallyDead(&op))
      op.erase();
  for (auto [k, i] : llvm::enumerate(floatResults))
    scalar[task.getResult(i)] = nt.getResult(k);
  return success();
}

/// A transient shaped as `like`, declared at the top of the program (its
/// dynamic sizes those of the alloc that made `like`); null where `like`
/// is an argument of dynamic shape.
Value TangentBuilder::transientLike(Value like, Location loc, StringRef name) {
  auto type = cast<MemRefType>(like.getType());
  SmallVector<Value> sizes;
  if (!type.hasStaticShape()) {
    auto alloc = like.getDefiningOp<AllocOp>();
    if (!alloc)
      return Value();
    sizes.assign(alloc.getDynamicSizes().begin(),
                 alloc.getDynamicSizes().end());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(alloc);
    return AllocOp::create(b, loc, type, sizes, b.getStringAttr(name));
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&jvp.getBody().front());
  return AllocOp::create(b, loc, type, sizes, b.getStringAttr(name));
}

/// The tangent of `C[e] max= v` (or min=): the tangent of the value that
/// wins, the mean of the tangents of all that tie with it (JAX's rule for
/// max reductions). Outside maps the store runs alone: the new tangent
/// is chosen between the stored value's and the element's by comparing
/// the two values. Inside a map every contribution is concurrent: after
/// the map, a census map recomputes each contribution, compares it with
/// the final element and adds its tangent and a count where they are
/// equal; the element's value before the map counts as one more
/// contribution (it is kept with its tangent before the map).
LogicalResult TangentBuilder::chooserTangent(StoreOp s, Value tc) {
  Location loc = s.getLoc();
  bool isMax = *s.getWcr() == WCRKind::max;
  Type ft = s.getValue().getType();
  auto choose = [&](OpBuilder &ob, Value v, Value old, Value tv, Value told) {
    auto pred = isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT;
    auto predOld =
        isMax ? arith::CmpFPredicate::OLT : arith::CmpFPredicate::OGT;
    Value wins = arith::CmpFOp::create(ob, loc, pred, v, old);
    Value loses = arith::CmpFOp::create(ob, loc, predOld, v, old);
    Value half =
        arith::ConstantOp::create(ob, loc, ft, ob.getFloatAttr(ft, 0.5));
    Value mean = arith::MulFOp::create(
        ob, loc, half, arith::AddFOp::create(ob, loc, tv, told));
    Value tie = arith::SelectOp::create(ob, loc, loses, told, mean);
    return arith::SelectOp::create(ob, loc, wins, tv, tie).getResult();
  };
  MapOp outer;
  for (Operation *p = s->getParentOp(); p && !isa<StateOp, SDFGOp>(p);
       p = p->getParentOp())
    if (auto m = dyn_cast<MapOp>(p))
      outer = m;
  if (!outer) {
    Value tv = tangentOf(s.getValue());
    if (failedRule)
      return failure();
    // Sequential: read the element and its tangent before the store.
    b.setInsertionPoint(s);
    Value old =
        LoadOp::create(b, loc, ft, s.getMemref(), s.getIndices(), s.getMap());
    Value told = LoadOp::create(b, loc, ft, tc, s.getIndices(), s.getMap());
    if (!tv)
      tv = rb.constantTasklet(loc, ft, 0.0);
    b.setInsertionPointAfter(s);
    Value t = rb.tasklet(loc, ft, ValueRange{s.getValue(), old, tv, told},
                         [&](OpBuilder &ob, ArrayRef<Value> a) {
                           return SmallVector<Value>{
                               choose(ob, a[0], a[1], a[2], a[3])};
                         })
                  .getResult(0);
    StoreOp::create(b, loc, t, tc, s.getIndices(), s.getMap(), nullptr);
    return success();
  }
  // In a map: everything the census recomputes must be as the map left
  // it.
  llvm::SetVector<Value> written, reads;
  outer.walk([&](Operation *op) {
    if (auto w = dyn_cast<StoreOp>(op))
      written.insert(w.getMemref());
    else if (auto c = dyn_cast<CopyOp>(op))
      written.insert(c.getTarget());
    else if (auto lib = dyn_cast<LibraryOpInterface>(op))
      written.insert(lib.getOutputContainer());
  });
  collectAllReads(s.getValue(), reads);
  for (Value i : s.getIndices())
    collectAllReads(i, reads);
  for (Value r : reads)
    if (written.contains(r) && !tangentContainers.contains(r))
      return s.emitOpError("forward mode: the tangent of this wcr(")
             << stringifyWCRKind(*s.getWcr())
             << ") store needs values its map overwrites; not implemented";
  Value c = s.getMemref();
  Value before = transientLike(c, loc, "t_before");
  Value tBefore = transientLike(c, loc, "t_before_tangent");
  Value sum = transientLike(c, loc, "t_tie_tangents");
  Value count = transientLike(c, loc, "t_ties");
  if (!before || !tBefore || !sum || !count)
    return s.emitOpError("forward mode: the tangent of a wcr(")
           << stringifyWCRKind(*s.getWcr())
           << ") store into an argument of dynamic shape is not implemented";
  // Before the map: the element values and tangents it starts from.
  b.setInsertionPoint(outer);
  forEachElement(c, loc, [&](ValueRange e, AffineMap id) {
    rb.store(loc, rb.load(loc, c, id, e), before, id, e, false);
    rb.store(loc, rb.load(loc, tc, id, e), tBefore, id, e, false);
  });
  rb.fill(loc, sum, 0.0, /*inState=*/true);
  rb.fill(loc, count, 0.0, /*inState=*/true);
  // After it: the census, a copy of the map that only counts.
  b.setInsertionPointAfter(outer);
  IRMapping m;
  auto census = cast<MapOp>(b.clone(*outer, m));
  auto s2 = cast<StoreOp>(m.lookup(s.getOperation()));
  SmallVector<Operation *> drop;
  census.walk([&](Operation *op) {
    if (op != s2 && isa<StoreOp, CopyOp, LibraryOpInterface>(op))
      drop.push_back(op);
  });
  for (Operation *op : drop)
    op->erase();
  Value v2 = s2.getValue();
  Value tv2 = tangentOf(v2);
  if (failedRule)
    return failure();
  b.setInsertionPoint(s2);
  Value fin = LoadOp::create(b, loc, ft, c, s2.getIndices(), s2.getMap());
  if (!tv2)
    tv2 = rb.constantTasklet(loc, ft, 0.0);
  auto counted = rb.tasklet(
      loc, {ft, ft}, ValueRange{v2, fin, tv2},
      [&](OpBuilder &ob, ArrayRef<Value> a) {
        Value eq = arith::CmpFOp::create(ob, loc, arith::CmpFPredicate::OEQ,
                                         a[0], a[1]);
        Value zero =
            arith::ConstantOp::create(ob, loc, ft, ob.getFloatAttr(ft, 0.0));
        Value one =
            arith::ConstantOp::create(ob, loc, ft, ob.getFloatAttr(ft, 1.0));
        return SmallVector<Value>{
            arith::SelectOp::create(ob, loc, eq, a[2], zero),
            arith::SelectOp::create(ob, loc, eq, one, zero)};
      });
  Value targets[] = {sum, count};
  for (auto [k, target] : llvm::enumerate(targets)) {
    auto add = StoreOp::create(b, loc, counted.getResult(k), target,
                               s2.getIndices(), s2.getMap(), nullptr);
    add.setWcrAttr(WCRKindAttr::get(b.getContext(), WCRKind::add));
  }
  s2.erase();
  // Loads and tasklets only the dropped stores used.
  bool changed = true;
  while (changed) {
    changed = false;
    SmallVector<Operation *> dead;
    census.walk([&](Operation *op) {
      if (op != census && isOpTriviallyDead(op))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    changed = !dead.empty();
  }
  // Then each element's tangent: the mean over the contributions equal
  // to the result, the value it started from included.
  b.setInsertionPointAfter(census);
  forEachElement(c, loc, [&](ValueRange e, AffineMap id) {
    SmallVector<Value> in = {
        rb.load(loc, c, id, e), rb.load(loc, before, id, e),
        rb.load(loc, tBefore, id, e), rb.load(loc, sum, id, e),
        rb.load(loc, count, id, e)};
    Value t =
        rb.tasklet(loc, ft, in, [&](OpBuilder &ob, ArrayRef<Value> a) {
            Value kept = arith::CmpFOp::create(
                ob, loc, arith::CmpFPredicate::OEQ, a[0], a[1]);
            Value zero = arith::ConstantOp::create(ob, loc, ft,
                                                   ob.getFloatAttr(ft, 0.0));
            Value one = arith::ConstantOp::create(ob, loc, ft,
                                                  ob.getFloatAttr(ft, 1.0));
            Value num = arith::AddFOp::create(
                ob, loc, a[3],
                arith::SelectOp::create(ob, loc, kept, a[2], zero));
            Value den = arith::AddFOp::create(
                ob, loc, a[4],
                arith::SelectOp::create(ob, loc, kept, one, zero));
            return SmallVector<Value>{arith::DivFOp::create(ob, loc, num, den)};
          }).getResult(0);
    rb.store(loc, t, tc, id, e, false);
  });
  return success();
}

/// Opens a map over every element of `container` at the insertion point
/// (in a state) and calls `body` with its parameters and the identity map.
void TangentBuilder::forEachElement(
    Value container, Location loc,
    function_ref<void(ValueRange, AffineMap)> body) {
  OpBuilder::InsertionGuard guard(b);
  auto type = cast<MemRefType>(container.getType());
  SmallVector<AffineExpr> extents;
  SmallVector<Value> operands;
  auto alloc = container.getDefiningOp<AllocOp>();
  unsigned dyn = 0;
  for (int64_t n : type.getShape()) {
    if (!ShapedType::isDynamic(n)) {
      extents.push_back(b.getAffineConstantExpr(n));
      continue;
    }
    operands.push_back(alloc.getDynamicSizes()[dyn++]);
    extents.push_back(b.getAffineDimExpr(operands.size() - 1));
  }
  SmallVector<Value> params = rb.openMap(loc, extents, operands, true);
  body(params,
       AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext()));
}

/// Containers read to compute `v` (its values and indices).
void TangentBuilder::collectAllReads(Value v, llvm::SetVector<Value> &out) {
  Operation *def = v.getDefiningOp();
  if (auto load = dyn_cast_or_null<LoadOp>(def)) {
    out.insert(load.getMemref());
    for (Value i : load.getIndices())
      collectAllReads(i, out);
  } else if (def && isa<TaskletOp, BroadcastExtentOp>(def)) {
    for (Value in : def->getOperands())
      collectAllReads(in, out);
  }
}

/// A container of zeros shaped as `like` (static shapes), the source of a
/// copy whose values have no tangent.
Value TangentBuilder::zeroSource(Value like, Location loc) {
  auto type = cast<MemRefType>(like.getType());
  if (Value z = zeros.lookup(type))
    return z;
  if (!type.hasStaticShape())
    return Value();
  OpBuilder::InsertionGuard guard(b);
  Block &body = jvp.getBody().front();
  b.setInsertionPointToStart(&body);
  Value z =
      AllocOp::create(b, loc, type, ValueRange(), b.getStringAttr("t_zeros"));
  // After every alloc (fills are states).
  Operation *first = nullptr;
  for (Operation &op : body)
    if (!isa<AllocOp>(op)) {
      first = &op;
      break;
    }
  b.setInsertionPoint(first);
  rb.fill(loc, z, 0.0, /*inState=*/false);
  zeros[type] = z;
  return z;
}

LogicalResult TangentBuilder::rewrite(Operation *op) {
  if (auto s = dyn_cast<StoreOp>(op)) {
    Value tc = tangent.lookup(s.getMemref());
    if (!tc)
      return success();
    if (s.getWcr() &&
        (*s.getWcr() == WCRKind::max || *s.getWcr() == WCRKind::min))
      return chooserTangent(s, tc);
    if (s.getWcr() && *s.getWcr() != WCRKind::add)
      return s.emitOpError("forward mode: the tangent of a wcr(")
             << stringifyWCRKind(*s.getWcr()) << ") store is not implemented";
    Value t = tangentOf(s.getValue());
    if (failedRule)
      return failure();
    b.setInsertionPointAfter(s);
    if (!t) {
      if (s.getWcr())
        return success(); // adds nothing to the tangent
      t = rb.constantTasklet(s.getLoc(), s.getValue().getType(), 0.0);
    }
    auto ts = cast<StoreOp>(b.clone(*s));
    ts.getValueMutable().assign(t);
    ts.getMemrefMutable().assign(tc);
    return success();
  }
  if (auto c = dyn_cast<CopyOp>(op)) {
    Value tc = tangent.lookup(c.getTarget());
    if (!tc)
      return success();
    if (c.getWcr() && *c.getWcr() != WCRKind::add)
      return c.emitOpError("forward mode: the tangent of a wcr(")
             << stringifyWCRKind(*c.getWcr()) << ") copy is not implemented";
    Value ts = tangent.lookup(c.getSource());
    if (!ts) {
      if (c.getWcr())
        return success();
      ts = zeroSource(c.getSource(), c.getLoc());
      if (!ts)
        return c.emitOpError("forward mode: a copy of values with no "
                             "tangent from a container of dynamic shape "
                             "into one with a tangent is not implemented");
    }
    b.setInsertionPointAfter(c);
    auto tcopy = cast<CopyOp>(b.clone(*c));
    tcopy.getSourceMutable().assign(ts);
    tcopy.getTargetMutable().assign(tc);
    return success();
  }
  if (auto lib = dyn_cast<LibraryOpInterface>(op)) {
    Value out = lib.getOutputContainer();
    if (!tangent.lookup(out))
      return success();
    auto rule = dyn_cast<TangentOpInterface>(op);
    if (!rule)
      return op->emitOpError("forward mode has no tangent rule for this op "
                             "yet (reverse mode, sdfg-autodiff, has one)");
    b.setInsertionPointAfter(op);
    return rule.emitTangent(
        b, [&](Value c) { return tangent.lookup(c); },
        [&](Value t) { rb.fill(op->getLoc(), t, 0.0, /*inState=*/true); });
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
  return success();
}

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
