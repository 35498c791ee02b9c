//===- Differentiate.cpp - Reverse-mode AD of one sdfg --------------------===//
//
// differentiate(): the phases of a Differentiator in order, from the copy
// of the forward program to the backward sweep and the options recorded
// for sdfg-checkpoint. The per-op reverse rules are external models of the
// ops (lib/AutoDiff/Implementations), called through ReverseBuilder.
//
//===----------------------------------------------------------------------===//

#include "AutoDiffInternals.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

LogicalResult Differentiator::run() {
  if (failed(resolveNames()))
    return failure();
  createGradientProgram();
  if (failed(countWhileIterations()))
    return failure();
  analyseActivity();
  collectNeeded();
  if (opts.printCCS) {
    annotateCCS();
    return success();
  }
  if (failed(addGradientArguments()) || failed(resolveLoopCheckpoints()) ||
      failed(chooseRecomputed()) || failed(tapeWrites()) ||
      failed(tapeConditions()) || failed(tapeDataBounds()))
    return failure();
  result.forwardEnd = &grad.getBody().front().back();
  if (failed(copyResults()) || failed(zeroGradients()) ||
      failed(fillArguments()))
    return failure();
  prepareRecomputation();
  markDeadClears();
  if (failed(buildBackward()) || failed(checkpointLoops()))
    return failure();
  sinkFills();
  if (failed(dropUnrewoundCopies()))
    return failure();
  // The extents read for copies that were dropped again.
  eraseUnusedDims(grad);
  recordOptions();
  return success();
}

/// The output and wrt names, from the options or the program's attributes,
/// checked; and the gradient program's name, checked to be free.
LogicalResult Differentiator::resolveNames() {
  // Default: ad_output, else the (first) return value of the frontend.
  outName = !opts.output.empty()
                ? opts.output
                : fwd.getAdOutput().value_or("__return0").str();
  BlockArgument outArg = fwd.lookupArg(outName);
  if (!outArg)
    return fwd.emitOpError()
           << "autodiff output '" << outName << "' is not an argument";
  auto outType = dyn_cast<MemRefType>(outArg.getType());
  if (!outType || !isa<FloatType>(outType.getElementType()))
    return fwd.emitOpError()
           << "autodiff output '" << outName << "' must be a float container";
  if (!opts.wrt.empty())
    wrtNames.assign(opts.wrt.begin(), opts.wrt.end());
  else if (auto attr = fwd.getAdWrt())
    for (Attribute a : *attr)
      wrtNames.push_back(cast<StringAttr>(a).str());
  else
    for (unsigned i = 0; i < fwd.getNumArguments(); ++i) {
      auto m = dyn_cast<MemRefType>(fwd.getArgument(i).getType());
      if (m && isa<FloatType>(m.getElementType()) &&
          fwd.getArgument(i) != outArg)
        wrtNames.push_back(fwd.getArgName(i));
    }
  llvm::StringSet<> seenWrt;
  for (const std::string &n : wrtNames) {
    // One gradient argument per name: a second d_<n> would make the
    // gradient program's signature invalid.
    if (!seenWrt.insert(n).second)
      return fwd.emitOpError() << "autodiff wrt names '" << n << "' twice";
    BlockArgument a = fwd.lookupArg(n);
    if (!a)
      return fwd.emitOpError()
             << "autodiff wrt name '" << n << "' is not an argument";
    auto m = dyn_cast<MemRefType>(a.getType());
    if (!m || !isa<FloatType>(m.getElementType()))
      return fwd.emitOpError()
             << "autodiff wrt argument '" << n << "' must be a float container";
  }

  gradName = (fwd.getSymName() + opts.suffix).str();
  if (Operation *table = SymbolTable::getNearestSymbolTable(fwd))
    if (SymbolTable::lookupSymbolIn(table, gradName))
      return fwd.emitOpError()
             << "autodiff: the gradient program's name '" << gradName
             << "' is taken ("
             << (opts.suffix.empty() ? "an empty suffix" : "a symbol exists")
             << "); choose another suffix=";
  return success();
}

void Differentiator::createGradientProgram() {
  // The gradient program starts as a copy of the forward program.
  b.setInsertionPointAfter(fwd);
  grad = cast<SDFGOp>(b.clone(*fwd));
  result.grad = grad;
  grad.setSymName(gradName);
  grad->removeAttr(grad.getAdOutputAttrName());
  grad->removeAttr(grad.getAdWrtAttrName());
  out = grad.lookupArg(outName);
  rb.whileCapacity = opts.whileCapacity;
  rb.strongZero = opts.strongZero;
  rb.dataLoopCapacity = opts.dataLoopCapacity;
}

Value Differentiator::addArgOfType(Type type, const std::string &name) {
  unsigned idx = grad.getNumArguments();
  NamedAttrList attrs;
  attrs.append("sdfg.name", StringAttr::get(ctx, name));
  if (failed(grad.insertArgument(idx, type, attrs.getDictionary(ctx),
                                 grad.getLoc()))) {
    grad.emitOpError("autodiff cannot add argument ") << name;
    return Value();
  }
  return Value(grad.getArgument(idx));
}

// --- Gradient arguments: d_<wrt>..., then d_<output> unless it is one.
LogicalResult Differentiator::addGradientArguments() {
  for (const std::string &n : wrtNames) {
    Value w = grad.lookupArg(n);
    Value d = addArg(w, "d_" + n);
    if (!d)
      return failure();
    wrtGradients.push_back({w, d});
    if (w == out)
      seedArg = d;
    if (active.contains(w) || w == out)
      rb.gradients[w] = d;
  }
  if (!rb.gradients.count(out)) {
    Value d = addArg(out, "d_" + outName);
    if (!d)
      return failure();
    seedArg = d;
    // The seed is consumed; with discard-results the caller does not read
    // what is left of it.
    if (opts.discardResults)
      grad.setArgAttr(cast<BlockArgument>(d).getArgNumber(), "sdfg.discardable",
                      b.getUnitAttr());
    if (active.contains(out))
      rb.gradients[out] = d;
  }
  return success();
}

// --- The backward program rewinds the containers it restores; keep the
// forward results: each written argument is copied to fwd_<name>.
LogicalResult Differentiator::copyResults() {
  Block &body = grad.getBody().front();
  b.setInsertionPointToEnd(&body);
  unsigned numOriginal = fwd.getNumArguments();
  llvm::SetVector<Value> writtenArgs;
  for (const WriteInfo &w : writes)
    if (auto arg = dyn_cast<BlockArgument>(w.target))
      if (arg.getOwner() == &body && arg.getArgNumber() < numOriginal)
        writtenArgs.insert(arg);
  llvm::StringSet<> keep;
  for (const std::string &n : opts.keep) {
    BlockArgument kept = grad.lookupArg(n);
    if (!kept || kept.getArgNumber() >= numOriginal)
      return grad.emitOpError("autodiff keep name '")
             << n << "' is not an argument";
    keep.insert(n);
  }
  for (Value arg : writtenArgs) {
    unsigned argNumber = cast<BlockArgument>(arg).getArgNumber();
    if (opts.discardResults && !keep.contains(grad.getArgName(argNumber))) {
      grad.setArgAttr(argNumber, "sdfg.discardable", b.getUnitAttr());
      continue;
    }
    auto type = cast<MemRefType>(arg.getType());
    std::string name =
        "fwd_" + grad.getArgName(cast<BlockArgument>(arg).getArgNumber());
    Value copy = addArg(arg, name);
    if (!copy)
      return failure();
    OpBuilder::InsertionGuard guard(b);
    auto state = StateOp::create(b, grad.getLoc(), StringRef("results"));
    resultCopies.push_back({arg, copy, state});
    b.setInsertionPointToStart(&state.getBody().front());
    unsigned rank = type.getRank();
    SmallVector<Value> params = rb.openContainerMap(grad.getLoc(), arg, true);
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value v = LoadOp::create(b, grad.getLoc(), type.getElementType(), arg,
                             params, id);
    StoreOp::create(b, grad.getLoc(), v, copy, params, id, nullptr);
  }
  return success();
}

// --- Gradients of the other active containers: zeroed transients.
LogicalResult Differentiator::zeroGradients() {
  Block &body = grad.getBody().front();
  b.setInsertionPointToEnd(&body);
  for (Value v : active) {
    if (rb.gradients.count(v))
      continue;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(&body, body.begin());
    rb.gradients[v] = rb.allocateLike(grad.getLoc(), v);
  }
  for (Value v : active) {
    Value g = rb.gradients.lookup(v);
    if (!g.getDefiningOp<AllocOp>())
      continue;
    Operation *last = &body.back();
    rb.fill(grad.getLoc(), g, 0.0, /*inState=*/false);
    fills.push_back({g, last->getNextNode()});
  }
  return success();
}

// The d_<wrt> arguments start from zero too, unless the caller's values
// are to be added to (inactive inputs get zero gradients either way).
// sdfg-eliminate-dead-writes drops the fills that the first backward
// write makes redundant, which is why they are here and not the caller's.
// A unit seed is filled here too; constant folding in
// sdfg-eliminate-dead-writes turns the reads of it into ones.
LogicalResult Differentiator::fillArguments() {
  Block &body = grad.getBody().front();
  // (Over the caller's extents where a shape is dynamic: sdfg.dim.)
  if (opts.unitSeed) {
    Operation *last = &body.back();
    rb.fill(grad.getLoc(), seedArg, 1.0, /*inState=*/false);
    fills.push_back({seedArg, last->getNextNode()});
  }
  if (!opts.accumulate) {
    for (auto [w, d] : wrtGradients) {
      if (w == out)
        continue;
      Operation *last = &body.back();
      rb.fill(grad.getLoc(), d, 0.0, /*inState=*/false);
      fills.push_back({d, last->getNextNode()});
    }
  }
  return success();
}

// --- Clears nobody reads. Reversing an overwrite zeroes the gradient it
// consumed, so that the reversals of earlier accesses to the old value
// start from zero. When no forward op before the write touches the
// container (the write is outside loops, so it is not its own earlier
// access) and its gradient is not returned to the caller (a wrt
// argument), that zero is never read: typically the seed of a returned
// array, a full sweep saved.
void Differentiator::markDeadClears() {
  Block &body = grad.getBody().front();
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned k = 0;
  for (Operation &op : body) {
    position[&op] = k++;
    if (&op == result.forwardEnd)
      break;
  }
  llvm::DenseSet<Value> returned;
  for (const std::string &n : wrtNames)
    returned.insert(grad.lookupArg(n));
  for (const WriteInfo &w : writes) {
    if (!isa<StoreOp, CopyOp>(w.op) || w.readsTarget ||
        returned.contains(w.target))
      continue;
    Operation *top = body.findAncestorOpInBlock(*w.op);
    if (!top || !position.count(top))
      continue;
    bool inLoop = false;
    for (Operation *p = w.op->getParentOp(); p && p != grad.getOperation();
         p = p->getParentOp())
      inLoop |= isa<LoopOp, WhileOp>(p);
    if (inLoop)
      continue;
    unsigned at = position.lookup(top);
    bool earlier = llvm::any_of(w.target.getUsers(), [&](Operation *u) {
      if (u == w.op)
        return false;
      Operation *t = body.findAncestorOpInBlock(*u);
      auto it = position.find(t);
      return it != position.end() && it->second <= at;
    });
    if (!earlier)
      rb.deadClears.insert(w.op);
  }
}

// --- The backward program.
LogicalResult Differentiator::buildBackward() {
  b.setInsertionPointToEnd(&grad.getBody().front());
  if (failed(rb.reverseRegion(grad.getBody())))
    return failure();
  rb.beforeReverse = nullptr;

  // The backward program reads the recomputed containers.
  for (auto [x, y] : fresh)
    for (Operation *op = result.forwardEnd->getNextNode(); op;
         op = op->getNextNode())
      op->walk([&, x = x, y = y](Operation *inner) {
        inner->replaceUsesOfWith(x, y);
      });
  return success();
}

// Gradient containers are zeroed just before their first use, so they
// occupy memory only from there on.
void Differentiator::sinkFills() {
  for (auto [g, fill] : fills) {
    for (Operation *op = fill->getNextNode(); op; op = op->getNextNode()) {
      bool uses = false;
      op->walk([&, g = g](Operation *inner) {
        uses |= llvm::is_contained(inner->getOperands(), g);
      });
      if (uses) {
        fill->moveBefore(op);
        break;
      }
    }
  }
}

// An argument the backward program does not rewind holds its forward
// result on return: no fwd_<name> copy (a sweep over it, and an array
// the caller would allocate) for it.
LogicalResult Differentiator::dropUnrewoundCopies() {
  llvm::BitVector unrewound(grad.getNumArguments());
  for (ResultCopy &r : resultCopies) {
    bool rewound = false;
    for (Operation *op = r.state->getNextNode(); op && !rewound;
         op = op->getNextNode())
      rewound = writesContainer(op, r.arg);
    if (rewound)
      continue;
    r.state.erase();
    unrewound.set(cast<BlockArgument>(r.copy).getArgNumber());
  }
  if (unrewound.any() && failed(grad.eraseArguments(unrewound)))
    return grad.emitOpError("autodiff cannot remove unused fwd_ arguments");
  return success();
}

// What sdfg-checkpoint needs to differentiate the program again (read
// back by readDifferentiateOptions).
void Differentiator::recordOptions() {
  auto strings = [&](ArrayRef<std::string> names) {
    SmallVector<Attribute> out;
    for (const std::string &n : names)
      out.push_back(b.getStringAttr(n));
    return b.getArrayAttr(out);
  };
  NamedAttrList ad;
  ad.set("of", FlatSymbolRefAttr::get(fwd.getSymNameAttr()));
  ad.set("output", b.getStringAttr(outName));
  ad.set("wrt", strings(wrtNames));
  ad.set("suffix", b.getStringAttr(opts.suffix));
  ad.set("while_capacity", b.getI64IntegerAttr(opts.whileCapacity));
  ad.set("data_loop_capacity", b.getI64IntegerAttr(opts.dataLoopCapacity));
  if (opts.accumulate)
    ad.set("accumulate", b.getUnitAttr());
  if (opts.unitSeed)
    ad.set("unit_seed", b.getUnitAttr());
  if (!opts.strongZero)
    ad.set("weak_zero", b.getUnitAttr());
  if (opts.discardResults) {
    ad.set("discard_results", b.getUnitAttr());
    ad.set("keep", strings(opts.keep));
  }
  grad->setAttr("sdfg.ad", ad.getDictionary(ctx));
}

std::string mlir::sdfg::containerName(SDFGOp op, Value c) {
  if (auto arg = dyn_cast<BlockArgument>(c))
    if (arg.getOwner()->getParentOp() == op)
      return op.getArgName(arg.getArgNumber());
  unsigned k = 0;
  for (AllocOp a : op.getBody().getOps<AllocOp>()) {
    if (a.getResult() == c) {
      if (!a.getName())
        return "transient" + std::to_string(k);
      // Names given twice are told apart by their order.
      unsigned same = 0, before = 0;
      for (AllocOp o : op.getBody().getOps<AllocOp>())
        if (o.getName() == a.getName()) {
          ++same;
          if (o == a)
            before = same - 1;
        }
      std::string n = a.getName()->str();
      return same > 1 ? n + "#" + std::to_string(before) : n;
    }
    ++k;
  }
  return "?";
}

LogicalResult mlir::sdfg::readDifferentiateOptions(SDFGOp grad,
                                                   FlatSymbolRefAttr &of,
                                                   DifferentiateOptions &opts) {
  auto ad = dyn_cast_or_null<DictionaryAttr>(grad->getAttr("sdfg.ad"));
  of = ad ? ad.getAs<FlatSymbolRefAttr>("of") : nullptr;
  auto output = ad ? ad.getAs<StringAttr>("output") : nullptr;
  auto wrt = ad ? ad.getAs<ArrayAttr>("wrt") : nullptr;
  auto suffix = ad ? ad.getAs<StringAttr>("suffix") : nullptr;
  auto cap = ad ? ad.getAs<IntegerAttr>("while_capacity") : nullptr;
  if (!of || !output || !wrt || !suffix || !cap)
    return grad.emitOpError("sdfg-checkpoint: malformed sdfg.ad attribute "
                            "(expected of, output, wrt, suffix, "
                            "while_capacity)");
  opts.output = output.str();
  auto names = [&](ArrayAttr list, StringRef key,
                   SmallVectorImpl<std::string> &into) -> LogicalResult {
    for (Attribute a : list) {
      auto name = dyn_cast<StringAttr>(a);
      if (!name)
        return grad.emitOpError("sdfg-checkpoint: sdfg.ad `")
               << key << "` must list names (strings), not " << a;
      into.push_back(name.str());
    }
    return success();
  };
  if (failed(names(wrt, "wrt", opts.wrt)))
    return failure();
  opts.suffix = suffix.str();
  opts.whileCapacity = cap.getInt();
  if (auto dataCap = ad.getAs<IntegerAttr>("data_loop_capacity"))
    opts.dataLoopCapacity = dataCap.getInt();
  opts.accumulate = ad.contains("accumulate");
  opts.unitSeed = ad.contains("unit_seed");
  opts.strongZero = !ad.contains("weak_zero");
  opts.discardResults = ad.contains("discard_results");
  if (auto kept = ad.getAs<ArrayAttr>("keep"))
    if (failed(names(kept, "keep", opts.keep)))
      return failure();
  return success();
}

FailureOr<DifferentiateResult>
mlir::sdfg::differentiate(SDFGOp fwd, const DifferentiateOptions &opts) {
  DifferentiateResult result;
  if (failed(Differentiator(fwd, opts, result).run())) {
    if (result.grad)
      result.grad.erase();
    return failure();
  }
  return result;
}
