//===- Checkpoint.cpp - Store/recompute under a memory limit --------------===//
//
// --sdfg-checkpoint: rebuilds each gradient program made by --sdfg-autodiff
// so that it fits in a memory limit as fast as possible. The store-all
// gradient program (with an anchor where each candidate's recomputation
// would go) gives the memory timeline; the model in
// sdfg/Support/CheckpointModel.h chooses; the gradient program is then
// built again with the chosen containers recomputed.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Support/CheckpointModel.h"
#include "sdfg/Transforms/Differentiate.h"
#include "sdfg/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <chrono>

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_CHECKPOINT
#include "sdfg/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string formatBytes(int64_t bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (bytes >= (1 << 20))
    os << llvm::format("%.1f MiB", bytes / kMiB);
  else if (bytes >= 1024)
    os << llvm::format("%.1f KiB", bytes / 1024.0);
  else
    os << bytes << " B";
  return s;
}

std::string formatNumber(const char *fmt, double v) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format(fmt, v);
  return s;
}

/// Parses "500", "500MiB", "64KiB", "2GiB", "1234B" (MiB by default).
std::optional<int64_t> parseMemory(StringRef text) {
  text = text.trim();
  double scale = kMiB;
  for (auto [suffix, factor] :
       {std::pair<StringRef, double>{"GiB", 1024 * kMiB},
        {"MiB", kMiB},
        {"KiB", 1024.0},
        {"B", 1.0}}) {
    if (text.consume_back(suffix)) {
      scale = factor;
      break;
    }
  }
  double value;
  if (text.trim().getAsDouble(value) || value < 0)
    return std::nullopt;
  return static_cast<int64_t>(value * scale);
}

/// Top-level ops of a gradient program and, for each transient, the first
/// and last of them that use it: code generation allocates a transient
/// before its first top-level use and frees it after the last.
struct Timeline {
  SmallVector<Operation *> steps;
  llvm::DenseMap<Operation *, unsigned> stepOf;
  llvm::MapVector<Value, std::pair<unsigned, unsigned>> live;
};

Timeline buildTimeline(SDFGOp op) {
  Timeline t;
  Block &body = op.getBody().front();
  for (Operation &top : body) {
    if (isa<AllocOp>(top))
      continue;
    unsigned i = t.steps.size();
    t.steps.push_back(&top);
    t.stepOf[&top] = i;
    top.walk([&](Operation *inner) {
      for (Value v : inner->getOperands()) {
        if (!v.getDefiningOp<AllocOp>() || v.getParentBlock() != &body)
          continue;
        auto [it, fresh] = t.live.insert({v, {i, i}});
        if (!fresh)
          it->second.second = i;
      }
    });
  }
  return t;
}

/// The top-level op of `op`'s program that contains it.
Operation *topLevel(Operation *op) {
  while (!isa<SDFGOp>(op->getParentOp()))
    op = op->getParentOp();
  return op;
}

struct CheckpointPass : public sdfg::impl::CheckpointBase<CheckpointPass> {
  using CheckpointBase::CheckpointBase;

  void runOnOperation() override;
  LogicalResult checkpoint(SDFGOp grad, std::optional<int64_t> limit,
                           const llvm::StringMap<int64_t> &symbols);
};

/// Bytes of a transient; dynamic sizes from index arguments named in
/// `sizes=`.
FailureOr<int64_t> containerBytes(SDFGOp op, Value v,
                                  const llvm::StringMap<int64_t> &symbols) {
  auto alloc = v.getDefiningOp<AllocOp>();
  MemRefType type = alloc.getType();
  Type elt = type.getElementType();
  int64_t bytes = elt.isIndex() ? 8 : (elt.getIntOrFloatBitWidth() + 7) / 8;
  unsigned dyn = 0;
  for (int64_t d : type.getShape()) {
    if (!ShapedType::isDynamic(d)) {
      bytes *= d;
      continue;
    }
    Value size = alloc.getDynamicSizes()[dyn++];
    auto arg = dyn_cast<BlockArgument>(size);
    std::string name = arg && arg.getOwner()->getParentOp() == op
                           ? op.getArgName(arg.getArgNumber())
                           : std::string();
    auto it = symbols.find(name);
    if (name.empty() || it == symbols.end())
      return alloc.emitOpError()
             << "sdfg-checkpoint needs the size of this container: give its "
                "dynamic size "
             << (name.empty() ? std::string("(an index argument)")
                              : "'" + name + "'")
             << " a value with sizes=NAME=VALUE";
    bytes *= it->second;
  }
  return bytes;
}

/// Bytes of a container of static shape.
FailureOr<int64_t> staticBytes(Value v) {
  auto type = cast<MemRefType>(v.getType());
  Type elt = type.getElementType();
  int64_t bytes = elt.isIndex() ? 8 : (elt.getIntOrFloatBitWidth() + 7) / 8;
  return bytes * type.getNumElements();
}

void CheckpointPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (strategy != "ilp" && strategy != "store-all" &&
      strategy != "recompute-all") {
    emitError(module.getLoc(), "sdfg-checkpoint: unknown strategy '")
        << strategy << "' (expected ilp, store-all or recompute-all)";
    return signalPassFailure();
  }
  std::optional<int64_t> limit;
  if (!mem.empty()) {
    limit = parseMemory(mem);
    if (!limit) {
      emitError(module.getLoc(), "sdfg-checkpoint: cannot read mem='")
          << mem << "' (expected a number of MiB, or a number with B, KiB, "
          << "MiB or GiB)";
      return signalPassFailure();
    }
  }
  if (strategy == "ilp" && !limit && recompute.empty()) {
    emitError(module.getLoc(), "sdfg-checkpoint: strategy=ilp needs a memory limit "
                     "(mem=<MiB>)");
    return signalPassFailure();
  }
  llvm::StringMap<int64_t> symbols;
  for (const std::string &entry : sizes) {
    auto [name, value] = StringRef(entry).split('=');
    int64_t v;
    if (name.empty() || value.getAsInteger(10, v) || v < 0) {
      emitError(module.getLoc(), "sdfg-checkpoint: cannot read sizes entry '")
          << entry << "' (expected NAME=VALUE with a non-negative integer)";
      return signalPassFailure();
    }
    symbols[name.trim()] = v;
  }
  SmallVector<SDFGOp> grads;
  for (SDFGOp op : module.getOps<SDFGOp>())
    if (op->hasAttr("sdfg.ad"))
      grads.push_back(op);
  if (grads.empty()) {
    emitError(module.getLoc(), "sdfg-checkpoint: no gradient program in the module; "
                     "run --sdfg-autodiff first");
    return signalPassFailure();
  }
  for (SDFGOp grad : grads)
    if (failed(checkpoint(grad, limit, symbols)))
      return signalPassFailure();
}

LogicalResult
CheckpointPass::checkpoint(SDFGOp grad, std::optional<int64_t> limit,
                           const llvm::StringMap<int64_t> &symbols) {
  auto ad = dyn_cast<DictionaryAttr>(grad->getAttr("sdfg.ad"));
  auto of = ad ? ad.getAs<FlatSymbolRefAttr>("of") : nullptr;
  auto output = ad ? ad.getAs<StringAttr>("output") : nullptr;
  auto wrtAttr = ad ? ad.getAs<ArrayAttr>("wrt") : nullptr;
  auto suffixAttr = ad ? ad.getAs<StringAttr>("suffix") : nullptr;
  auto cap = ad ? ad.getAs<IntegerAttr>("while_capacity") : nullptr;
  if (!of || !output || !wrtAttr || !suffixAttr || !cap)
    return grad.emitOpError("sdfg-checkpoint: malformed sdfg.ad attribute "
                            "(expected of, output, wrt, suffix, "
                            "while_capacity)");
  auto fwd = SymbolTable::lookupNearestSymbolFrom<SDFGOp>(grad, of);
  if (!fwd)
    return grad.emitOpError("sdfg-checkpoint needs the forward program ")
           << of << " in the module";
  DifferentiateOptions opts;
  opts.output = output.str();
  for (Attribute a : wrtAttr)
    opts.wrt.push_back(cast<StringAttr>(a).str());
  opts.suffix = suffixAttr.str();
  opts.whileCapacity = cap.getInt();
  opts.markAnchors = true;

  // The store-all program, with anchors, is the model's reference.
  Location gradLoc = grad.getLoc();
  grad.erase();
  FailureOr<DifferentiateResult> storeAll = differentiate(fwd, opts);
  if (failed(storeAll))
    return failure();
  SDFGOp ref = storeAll->grad;
  Timeline tl = buildTimeline(ref);
  unsigned numSteps = tl.steps.size();
  unsigned fwdEnd = tl.stepOf.lookup(storeAll->forwardEnd);

  llvm::DenseMap<Value, int64_t> bytesOf;
  for (auto &[v, range] : tl.live) {
    FailureOr<int64_t> b = containerBytes(ref, v, symbols);
    if (failed(b))
      return failure();
    bytesOf[v] = *b;
  }

  // Candidates of the model: the forwarded transients that can be
  // recomputed. Their containers and tapes leave the base.
  CheckpointModel model;
  SmallVector<unsigned> modelIndex; // model candidate -> storeAll candidate
  llvm::DenseMap<Value, unsigned> candidateOf;
  llvm::DenseSet<Value> variable;
  for (auto [k, c] : llvm::enumerate(storeAll->candidates)) {
    if (!c.eligible || !tl.live.count(c.container))
      continue;
    candidateOf[c.container] = model.candidates.size();
    modelIndex.push_back(k);
    model.candidates.push_back(
        {c.name, bytesOf.lookup(c.container), std::max(c.cost, 1.0)});
    variable.insert(c.container);
    variable.insert(c.tapes.begin(), c.tapes.end());
  }
  std::vector<TimelinePoint> points(numSteps);
  for (auto &[v, range] : tl.live)
    if (!variable.contains(v))
      for (unsigned i = range.first; i <= range.second; ++i)
        points[i].baseBytes += bytesOf.lookup(v);
  for (auto [m, k] : llvm::enumerate(modelIndex)) {
    const RecomputeCandidate &c = storeAll->candidates[k];
    unsigned idx = m;
    std::vector<int64_t> stored(numSteps), recomputed(numSteps);
    auto add = [&](std::vector<int64_t> &into, unsigned from, unsigned to,
                   int64_t bytes) {
      for (unsigned i = from; i <= to && i < numSteps; ++i)
        into[i] += bytes;
    };
    Value x = c.container;
    auto [first, last] = tl.live.lookup(x);
    int64_t xb = bytesOf.lookup(x);
    add(stored, first, last, xb);
    for (Value t : c.tapes)
      if (tl.live.count(t)) {
        auto [tf, tlast] = tl.live.lookup(t);
        add(stored, tf, tlast, bytesOf.lookup(t));
      }
    // Recomputed: the forward container lives through its forward uses; the
    // fresh one from the first recomputation to the last backward read.
    unsigned lastFwd = first, firstAnchor = numSteps, lastAnchor = 0;
    unsigned lastRead = 0;
    bool readBack = false;
    for (unsigned i = first; i <= last; ++i) {
      bool uses = false;
      llvm::SetVector<Value> reads;
      tl.steps[i]->walk([&](Operation *inner) {
        uses |= llvm::is_contained(inner->getOperands(), x);
      });
      collectContainerReads(tl.steps[i], reads);
      if (uses && i <= fwdEnd)
        lastFwd = i;
      if (i > fwdEnd && reads.contains(x)) {
        lastRead = i;
        readBack = true;
      }
    }
    for (auto [a, w] : llvm::zip(c.anchors, c.anchorWriters)) {
      unsigned s = tl.stepOf.lookup(topLevel(a));
      firstAnchor = std::min(firstAnchor, s);
      lastAnchor = std::max(lastAnchor, s);
      // Scratch copies of what the writer also writes live during the
      // recomputation only.
      for (Value z : c.scratch[w]) {
        FailureOr<int64_t> zb = z.getDefiningOp<AllocOp>()
                                    ? containerBytes(ref, z, symbols)
                                    : staticBytes(z);
        if (failed(zb))
          return failure();
        add(recomputed, s, s, *zb);
      }
    }
    add(recomputed, first, lastFwd, xb);
    if (readBack && firstAnchor < numSteps)
      add(recomputed, std::min(firstAnchor, lastRead), lastRead, xb);
    // The writers' transient inputs must live until the last
    // recomputation.
    for (Value y : c.inputs) {
      if (!tl.live.count(y) || candidateOf.count(y))
        continue;
      unsigned yLast = tl.live.lookup(y).second;
      if (firstAnchor < numSteps && yLast < lastAnchor)
        add(recomputed, yLast + 1, lastAnchor, bytesOf.lookup(y));
    }
    for (unsigned i = 0; i < numSteps; ++i) {
      if (stored[i])
        points[i].liveIfStored.push_back({idx, stored[i]});
      if (recomputed[i])
        points[i].liveIfRecomputed.push_back({idx, recomputed[i]});
    }
    for (Value y : c.inputs)
      if (auto it = candidateOf.find(y); it != candidateOf.end())
        model.exclusive.push_back({idx, it->second});
  }
  model.timelines.push_back(std::move(points));

  // Decide.
  unsigned n = model.candidates.size();
  std::vector<bool> decision(n, false);
  int64_t storeAllPeak = model.peakBytes(decision);
  double solveMs = 0;
  bool optimal = true;
  if (!recompute.empty()) {
    for (const std::string &name : recompute) {
      auto it = llvm::find_if(
          model.candidates, [&](const Candidate &c) { return c.name == name; });
      if (it != model.candidates.end())
        decision[it - model.candidates.begin()] = true;
      else
        opts.recompute.insert(name); // differentiate names the problem
    }
  } else if (strategy == "recompute-all") {
    for (unsigned i = 0; i < n; ++i) {
      decision[i] = true;
      if (!model.admissible(decision))
        decision[i] = false;
    }
  } else if (strategy == "ilp") {
    auto t0 = std::chrono::steady_clock::now();
    CheckpointPlan plan = solveCheckpointModel(model, *limit);
    solveMs = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
    if (!plan.error.empty() && plan.minFeasibleBytes == 0) {
      ref.erase();
      return emitError(gradLoc, "sdfg-checkpoint: the solver failed: ")
             << plan.error;
    }
    if (!plan.feasible) {
      ref.erase();
      return emitError(gradLoc, "sdfg-checkpoint: no store/recompute plan "
                                "for @")
             << fwd.getSymName() << opts.suffix << " fits in "
             << formatBytes(*limit) << "; the smallest feasible limit is "
             << formatBytes(plan.minFeasibleBytes) << " ("
             << plan.minFeasibleBytes << " bytes; storing everything needs "
             << formatBytes(storeAllPeak) << ")";
    }
    decision = plan.recompute;
    optimal = plan.optimal;
  }
  if (!model.admissible(decision)) {
    ref.erase();
    return emitError(gradLoc, "sdfg-checkpoint: the containers chosen "
                              "cannot all be recomputed: one re-runs code "
                              "that reads another as stored");
  }
  int64_t predicted = model.peakBytes(decision);

  // Build the chosen program.
  SmallVector<Operation *> anchors;
  for (const RecomputeCandidate &c : storeAll->candidates)
    anchors.append(c.anchors.begin(), c.anchors.end());
  for (Operation *a : anchors)
    a->erase();
  SDFGOp result = ref;
  for (unsigned i = 0; i < n; ++i)
    if (decision[i])
      opts.recompute.insert(model.candidates[i].name);
  if (!opts.recompute.empty()) {
    ref.erase();
    opts.markAnchors = false;
    FailureOr<DifferentiateResult> planned = differentiate(fwd, opts);
    if (failed(planned))
      return failure();
    result = planned->grad;
  }
  // The program as built, measured the same way as the model.
  Timeline final = buildTimeline(result);
  std::vector<int64_t> usage(final.steps.size());
  for (auto &[v, range] : final.live) {
    FailureOr<int64_t> b = containerBytes(result, v, symbols);
    if (failed(b))
      return failure();
    for (unsigned i = range.first; i <= range.second; ++i)
      usage[i] += *b;
  }
  int64_t peak = 0;
  for (int64_t u : usage)
    peak = std::max(peak, u);
  if (limit && peak > *limit)
    return result.emitOpError("sdfg-checkpoint: the gradient program needs ")
           << formatBytes(peak) << " (" << peak
           << " bytes), more than mem=" << formatBytes(*limit)
           << (strategy == "ilp" && recompute.empty()
                   ? " (the model predicted " + formatBytes(predicted) + ")"
                   : std::string(""));

  // Record and report.
  Builder b(result.getContext());
  SmallVector<Attribute> recomputedNames, storedNames;
  for (const RecomputeCandidate &c : storeAll->candidates)
    (opts.recompute.contains(c.name) ? recomputedNames : storedNames)
        .push_back(b.getStringAttr(c.name));
  SmallVector<NamedAttribute> summary = {
      b.getNamedAttr("strategy", b.getStringAttr(recompute.empty()
                                                     ? strategy
                                                     : std::string("manual"))),
      b.getNamedAttr("peak_bytes", b.getI64IntegerAttr(peak)),
      b.getNamedAttr("model_peak_bytes", b.getI64IntegerAttr(predicted)),
      b.getNamedAttr("store_all_peak_bytes", b.getI64IntegerAttr(storeAllPeak)),
      b.getNamedAttr("recompute", b.getArrayAttr(recomputedNames)),
      b.getNamedAttr("store", b.getArrayAttr(storedNames))};
  if (limit)
    summary.push_back(
        b.getNamedAttr("limit_bytes", b.getI64IntegerAttr(*limit)));
  result->setAttr("sdfg.checkpoint", b.getDictionaryAttr(summary));

  if (report) {
    for (const RecomputeCandidate &c : storeAll->candidates) {
      bool re = opts.recompute.contains(c.name);
      int64_t tapeBytes = 0;
      for (Value t : c.tapes)
        tapeBytes += bytesOf.lookup(t);
      InFlightDiagnostic d =
          emitRemark(result.getLoc())
          << "'" << c.name << "': " << formatBytes(bytesOf.lookup(c.container));
      if (tapeBytes)
        d << " + " << formatBytes(tapeBytes) << " of overwritten values";
      d << ", recompute cost " << formatNumber("%.3g", c.cost) << ": "
        << (re ? "recompute" : "store");
      if (!c.eligible)
        d << " (cannot recompute: " << c.reason << ")";
    }
    InFlightDiagnostic d =
        emitRemark(result.getLoc())
        << "peak memory " << formatBytes(peak)
        << " (storing everything: " << formatBytes(storeAllPeak);
    if (limit)
      d << "; limit " << formatBytes(*limit);
    d << ")";
    if (strategy == "ilp" && recompute.empty())
      d << "; ILP with " << n << " variables solved in "
        << formatNumber("%.1f", solveMs) << " ms"
        << (optimal ? "" : " (time limit: best plan found)");
  }
  return success();
}

} // namespace
