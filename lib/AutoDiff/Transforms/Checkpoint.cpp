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

#include "sdfg/AutoDiff/Implementations/Register.h"
#include "sdfg/AutoDiff/Transforms/CheckpointModelBuilder.h"
#include "sdfg/AutoDiff/Transforms/Differentiate.h"
#include "sdfg/AutoDiff/Transforms/Passes.h"
#include "sdfg/Support/CheckpointModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <chrono>
#include <cmath>
#include <set>

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_CHECKPOINT
#include "sdfg/AutoDiff/Transforms/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using namespace mlir::sdfg;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// `bytes` in B, KiB or MiB: to 0.1 of the unit, or with `roundUp` to
/// 0.001 above it, a limit the user can pass back (0.1 MiB rounded to
/// nearest could name an infeasible one).
std::string formatBytes(int64_t bytes, bool roundUp = false) {
  std::string s;
  llvm::raw_string_ostream os(s);
  auto put = [&](double v, const char *unit) {
    if (roundUp)
      os << llvm::format("%.3f ", std::ceil(v * 1000.0) / 1000.0) << unit;
    else
      os << llvm::format("%.1f ", v) << unit;
  };
  if (bytes >= (1 << 20))
    put(bytes / kMiB, "MiB");
  else if (bytes >= 1024)
    put(bytes / 1024.0, "KiB");
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
  // (NaN fails the comparison; inf and limits past 2^62 bytes are beyond
  // any machine and would overflow the model's 64-bit sums.)
  if (text.trim().getAsDouble(value) || !(value >= 0) || value * scale > 0x1p62)
    return std::nullopt;
  return static_cast<int64_t>(value * scale);
}

/// The schedules the ILP may choose for a loop of `trips` iterations, as
/// snapshot counts per level: one level with 1, 2, 3, 4, 6, 9, ...
/// snapshots; two levels whose last segments are a single iteration or
/// about the square root of the first level's; and for every depth d up
/// to 6, d levels that each split their parent into about trips^(1/d)
/// segments (the least memory for d levels: about d * trips^(1/d)
/// snapshots and one iteration's tapes, for d re-runs of the loop). Each
/// is built and measured, so the menu stays short.
std::vector<SmallVector<int64_t>> loopMenu(int64_t trips) {
  std::vector<SmallVector<int64_t>> menu;
  std::set<SmallVector<int64_t>> seen;
  auto add = [&](SmallVector<int64_t> counts) {
    SmallVector<int64_t> segments = loopSegments(trips, counts);
    if (segments.empty() || !seen.insert(segments).second)
      return;
    menu.push_back(counts);
  };
  // Steps and sums that cannot overflow: trip counts go up to INT64_MAX
  // (a loop's bound is any i64).
  for (int64_t c = 1; c < trips - 1;
       c = c < 4 ? c + 1 : (c > trips - c / 2 ? trips : c + c / 2))
    add({c});
  for (int64_t c = 2; c < trips - 1;) {
    int64_t k = trips / (c + 1) + (trips % (c + 1) != 0); // ceil
    add({c, k - 1});
    int64_t r = static_cast<int64_t>(std::ceil(std::sqrt(double(k))));
    add({c, r});
    c = c > trips / 2 ? trips : c * 2;
  }
  for (int depth = 2; depth <= 6; ++depth) {
    double root = std::pow(double(trips), 1.0 / depth);
    if (root < 2.0)
      break;
    for (int64_t parts : {int64_t(std::floor(root)), int64_t(std::ceil(root)),
                          int64_t(std::ceil(root)) + 1}) {
      if (parts < 2)
        continue;
      // The last level splits what is left into single iterations.
      SmallVector<int64_t> counts(depth - 1, parts - 1);
      SmallVector<int64_t> segments = loopSegments(trips, counts);
      if (segments.size() != counts.size())
        continue;
      counts.push_back(segments.back() - 1);
      add(counts);
    }
  }
  return menu;
}

/// Binomial schedules the ILP may choose: 1, 2, 3, 4, 6, 8, 12, ...
/// snapshots, fewer than the trip count (more would store every state).
std::vector<int64_t> binomialMenu(int64_t trips) {
  std::vector<int64_t> menu;
  for (int64_t s = 1; s < trips && s <= 64; s = s < 4 ? s + 1 : s * 3 / 2)
    menu.push_back(s);
  return menu;
}

struct CheckpointPass : public sdfg::impl::CheckpointBase<CheckpointPass> {
  using CheckpointBase::CheckpointBase;

  // The rules are external models: the pass brings them, so a compiler
  // that embeds it needs no registration call of its own.
  void getDependentDialects(DialectRegistry &registry) const override {
    CheckpointBase::getDependentDialects(registry);
    registerAutoDiffModels(registry);
  }

  void runOnOperation() override;
  LogicalResult checkpoint(SDFGOp grad, std::optional<int64_t> limit,
                           const llvm::StringMap<int64_t> &symbols);

private:
  /// A model candidate that checkpoints a loop with some snapshots.
  struct LoopOption {
    std::string loop;
    SmallVector<int64_t> checkpoints;
    /// Snapshots of a binomial schedule (0: uniform `checkpoints`).
    int64_t binomial = 0;
  };
  /// Adds to `problem` per loop that can be checkpointed a candidate per
  /// snapshot count tried, measured by building the gradient with it:
  /// memory relative to store-all at every timeline point, cost the
  /// iterations re-run. `options` gets them in model order after the
  /// containers.
  LogicalResult addLoopOptions(SDFGOp fwd, const DifferentiateOptions &opts,
                               const DifferentiateResult &storeAll,
                               const llvm::StringMap<int64_t> &symbols,
                               CheckpointProblem &problem,
                               std::vector<LoopOption> &options);
  /// What to recompute, and how the choice was made.
  struct Plan {
    std::vector<bool> decision;
    double solveMs = 0;
    bool optimal = true;
  };
  /// The plan the options ask for (recompute=, recompute-all, or the ILP
  /// under `limit`); a located error when none fits or the choice is
  /// inconsistent.
  FailureOr<Plan> decide(const CheckpointModel &model, Location gradLoc,
                         SDFGOp fwd, DifferentiateOptions &opts,
                         std::optional<int64_t> limit, int64_t storeAllPeak);
  /// The `sdfg.checkpoint` summary on the gradient program.
  void record(SDFGOp result, const DifferentiateResult &storeAll,
              const DifferentiateResult &built,
              const DifferentiateOptions &opts, int64_t peak,
              const std::optional<std::string> &peakFormula, int64_t predicted,
              int64_t storeAllPeak, std::optional<int64_t> limit);
  /// With report=true: a remark per candidate and one with the peak.
  void reportPlan(SDFGOp result, const DifferentiateResult &storeAll,
                  const DifferentiateResult &built,
                  const DifferentiateOptions &opts, ArrayRef<bool> isArgument,
                  const llvm::DenseMap<Value, int64_t> &bytesOf,
                  const llvm::DenseMap<Value, std::string> &formulaOf,
                  int64_t peak, const std::optional<std::string> &peakFormula,
                  int64_t storeAllPeak, std::optional<int64_t> limit,
                  const Plan &plan);
};

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
    emitError(module.getLoc(),
              "sdfg-checkpoint: strategy=ilp needs a memory limit "
              "(mem=<MiB>)");
    return signalPassFailure();
  }
  // NAME=VALUE, or NAME=..MAX for any size up to MAX (a plan for every
  // call whose size is within: the frontend's size buckets), stored as
  // NAME and NAME#max (CheckpointModelBuilder's givenSize).
  llvm::StringMap<int64_t> symbols;
  for (const std::string &entry : sizes) {
    auto [name, value] = StringRef(entry).split('=');
    bool atMost = value.consume_front("..");
    int64_t v;
    if (name.trim().empty() || name.contains('#') ||
        value.getAsInteger(10, v) || v < 0) {
      emitError(module.getLoc(), "sdfg-checkpoint: cannot read sizes entry '")
          << entry
          << "' (expected NAME=VALUE or NAME=..MAX with a non-negative "
             "integer)";
      return signalPassFailure();
    }
    symbols[name.trim()] = v;
    if (atMost)
      symbols[(name.trim() + "#max").str()] = 1;
  }
  SmallVector<SDFGOp> grads;
  for (SDFGOp op : module.getOps<SDFGOp>())
    if (op->hasAttr("sdfg.ad"))
      grads.push_back(op);
  if (grads.empty()) {
    emitError(module.getLoc(),
              "sdfg-checkpoint: no gradient program in the module; "
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
  FlatSymbolRefAttr of;
  DifferentiateOptions opts;
  if (failed(readDifferentiateOptions(grad, of, opts)))
    return failure();
  auto fwd = SymbolTable::lookupNearestSymbolFrom<SDFGOp>(grad, of);
  if (!fwd)
    return grad.emitOpError("sdfg-checkpoint needs the forward program ")
           << of << " in the module";
  // The gradient is rebuilt from the forward program after erasing it.
  if (fwd == grad)
    return grad.emitOpError("sdfg.ad names the gradient program itself (")
           << of << ") as its forward program";
  opts.markAnchors = true;
  for (const std::string &entry : checkpoints) {
    auto [name, value] = StringRef(entry).split('=');
    SmallVector<StringRef> parts;
    value.split(parts, ':');
    // LOOP=binomial:S: Revolve with S snapshots.
    bool binomial = parts.size() == 2 && parts.front().trim() == "binomial";
    if (binomial)
      parts.erase(parts.begin());
    SmallVector<int64_t> counts;
    for (StringRef p : parts) {
      int64_t v;
      if (p.trim().getAsInteger(10, v) || v < 0) {
        counts.clear();
        break;
      }
      counts.push_back(v);
    }
    if (name.trim().empty() || counts.empty())
      return emitError(grad.getLoc(),
                       "sdfg-checkpoint: cannot read checkpoints entry '")
             << entry
             << "' (expected LOOP=SNAPSHOTS, LOOP=S1:S2 for two "
                "levels, or LOOP=binomial:S, with non-negative integers)";
    std::string loop = name.trim().str();
    if (opts.checkpoints.count(loop) || opts.binomial.count(loop) ||
        !(binomial ? opts.binomial.emplace(loop, counts.front()).second
                   : opts.checkpoints.emplace(loop, counts).second))
      return emitError(grad.getLoc(), "sdfg-checkpoint: checkpoints names "
                                      "loop '")
             << name.trim() << "' twice";
  }

  // The store-all program, with anchors, is the model's reference.
  Location gradLoc = grad.getLoc();
  grad.erase();
  FailureOr<DifferentiateResult> storeAll = differentiate(fwd, opts);
  if (failed(storeAll))
    return failure();
  SDFGOp ref = storeAll->grad;
  measureSnapshots(*storeAll, symbols);
  FailureOr<CheckpointProblem> problem =
      buildCheckpointModel(*storeAll, symbols);
  if (failed(problem))
    return failure();
  CheckpointModel &model = problem->model;
  // For the report, while the store-all program is alive.
  SmallVector<bool> isArgument;
  for (const RecomputeCandidate &c : storeAll->candidates)
    isArgument.push_back(!c.container.getDefiningOp<AllocOp>());
  const llvm::DenseMap<Value, int64_t> &bytesOf = problem->bytes;
  unsigned numContainers = model.candidates.size();
  std::vector<LoopOption> loopOptions;
  if (strategy == "ilp" && recompute.empty() && limit &&
      failed(addLoopOptions(fwd, opts, *storeAll, symbols, *problem,
                            loopOptions))) {
    ref.erase();
    return failure();
  }

  // Decide.
  unsigned n = model.candidates.size();
  int64_t storeAllPeak = model.peakBytes(std::vector<bool>(n, false));
  FailureOr<Plan> plan = decide(model, gradLoc, fwd, opts, limit, storeAllPeak);
  if (failed(plan)) {
    ref.erase();
    return failure();
  }
  std::vector<bool> &decision = plan->decision;
  int64_t predicted = model.peakBytes(decision);

  // Build the chosen program.
  SmallVector<Operation *> anchors;
  for (const RecomputeCandidate &c : storeAll->candidates)
    anchors.append(c.anchors.begin(), c.anchors.end());
  for (Operation *a : anchors)
    a->erase();
  SDFGOp result = ref;
  bool loopChosen = false;
  for (unsigned i = 0; i < n; ++i) {
    if (!decision[i])
      continue;
    if (i < numContainers) {
      opts.recompute.insert(model.candidates[i].name);
      continue;
    }
    const LoopOption &o = loopOptions[i - numContainers];
    if (o.binomial)
      opts.binomial[o.loop] = o.binomial;
    else
      opts.checkpoints[o.loop] = o.checkpoints;
    loopChosen = true;
  }
  FailureOr<DifferentiateResult> planned;
  const DifferentiateResult *built = &*storeAll;
  if (!opts.recompute.empty() || loopChosen) {
    ref.erase();
    opts.markAnchors = false;
    planned = differentiate(fwd, opts);
    if (failed(planned))
      return failure();
    measureSnapshots(*planned, symbols);
    result = planned->grad;
    built = &*planned;
  }
  // The program as built, measured the same way as the model.
  FailureOr<int64_t> measured = transientPeakBytes(result, symbols);
  if (failed(measured))
    return failure();
  int64_t peak = *measured;
  if (limit && peak > *limit)
    return result.emitOpError("sdfg-checkpoint: the gradient program needs ")
           << formatBytes(peak) << " (" << peak
           << " bytes), more than mem=" << formatBytes(*limit)
           << (strategy == "ilp" && recompute.empty()
                   ? " (the model predicted " + formatBytes(predicted) + ")"
                   : std::string(""));

  // How the peak grows with the sizes, where containers of dynamic size
  // are live there.
  std::optional<std::string> peakFormula = peakBytesFormula(result, symbols);
  record(result, *storeAll, *built, opts, peak, peakFormula, predicted,
         storeAllPeak, limit);
  if (report)
    reportPlan(result, *storeAll, *built, opts, isArgument, bytesOf,
               problem->formulas, peak, peakFormula, storeAllPeak, limit,
               *plan);
  return success();
}

LogicalResult
CheckpointPass::addLoopOptions(SDFGOp fwd, const DifferentiateOptions &opts,
                               const DifferentiateResult &storeAll,
                               const llvm::StringMap<int64_t> &symbols,
                               CheckpointProblem &problem,
                               std::vector<LoopOption> &options) {
  SDFGOp ref = storeAll.grad;
  FailureOr<std::vector<int64_t>> base = transientUsage(ref, symbols);
  if (failed(base))
    return failure();
  CheckpointModel &model = problem.model;
  unsigned numContainers = model.candidates.size();
  // The variants are built beside the reference, whose name they take.
  std::string gradName = ref.getSymName().str();
  ref.setSymName(gradName + ".store-all");
  llvm::scope_exit restore([&] { ref.setSymName(gradName); });
  // Per loop, its options' model indices: a loop's options exclude those
  // of the loops around it. (Measured one at a time, an outer and an inner
  // schedule's savings overlap: the sum would under-count the memory.)
  llvm::DenseMap<Operation *, SmallVector<unsigned>> optionsOf;
  for (const LoopCandidate &l : storeAll.loops) {
    if (!l.binomialEligible || opts.checkpoints.count(l.name) ||
        opts.binomial.count(l.name))
      continue;
    SmallVector<unsigned> &mine = optionsOf[l.loop];
    // Uniform schedules, then binomial ones.
    std::vector<LoopOption> menu;
    if (l.eligible)
      for (const SmallVector<int64_t> &counts : loopMenu(l.trips))
        menu.push_back({l.name, counts, 0});
    for (int64_t s : binomialMenu(l.trips))
      menu.push_back({l.name, {}, s});
    for (const LoopOption &option : menu) {
      DifferentiateOptions o = opts;
      if (option.binomial)
        o.binomial[l.name] = option.binomial;
      else
        o.checkpoints[l.name] = option.checkpoints;
      FailureOr<DifferentiateResult> variant = differentiate(fwd, o);
      if (failed(variant))
        return failure();
      FailureOr<std::vector<int64_t>> usage =
          transientUsage(variant->grad, symbols);
      variant->grad.erase();
      if (failed(usage))
        return failure();
      // Every candidate variant has the reference's top-level ops.
      if (usage->size() != base->size())
        continue;
      unsigned idx = model.candidates.size();
      std::string label = "loop." + l.name;
      if (option.binomial)
        label += ".binomial";
      for (int64_t c : option.binomial ? SmallVector<int64_t>{option.binomial}
                                       : option.checkpoints)
        label += "." + std::to_string(c);
      double rerun = static_cast<double>(
          option.binomial
              ? variant->loops[&l - storeAll.loops.data()].recomputedIterations
              : loopRecomputedIterations(
                    l.trips, loopSegments(l.trips, option.checkpoints)));
      model.candidates.push_back(
          {label, 0, std::max(1.0, rerun * l.iterationCost)});
      for (auto [i, p] : llvm::enumerate(model.timelines.front()))
        if (int64_t delta = (*usage)[i] - (*base)[i])
          p.liveIfRecomputed.push_back({idx, delta});
      for (unsigned other : mine)
        model.exclusive.push_back({other, idx});
      // Containers written in the loop are re-run with it, not recomputed
      // on their own.
      for (unsigned m = 0; m < numContainers; ++m) {
        const RecomputeCandidate &rc =
            storeAll.candidates[problem.candidateIndex[m]];
        if (llvm::any_of(rc.writers,
                         [&](auto &w) { return l.loop->isAncestor(w.first); }))
          model.exclusive.push_back({m, idx});
      }
      for (auto &[other, indices] : optionsOf)
        if (other != l.loop &&
            (other->isAncestor(l.loop) || l.loop->isAncestor(other)))
          for (unsigned j : indices)
            model.exclusive.push_back({j, idx});
      mine.push_back(idx);
      options.push_back(option);
    }
  }
  return success();
}

FailureOr<CheckpointPass::Plan>
CheckpointPass::decide(const CheckpointModel &model, Location gradLoc,
                       SDFGOp fwd, DifferentiateOptions &opts,
                       std::optional<int64_t> limit, int64_t storeAllPeak) {
  unsigned n = model.candidates.size();
  Plan result;
  std::vector<bool> &decision = result.decision;
  decision.assign(n, false);
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
    // (Loop options are only added for the ILP.)
    for (unsigned i = 0; i < n; ++i) {
      decision[i] = true;
      if (!model.admissible(decision))
        decision[i] = false;
    }
  } else if (strategy == "ilp") {
    auto t0 = std::chrono::steady_clock::now();
    CheckpointPlan plan = solveCheckpointModel(model, *limit);
    result.solveMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - t0)
                         .count();
    if (!plan.error.empty() && plan.minFeasibleBytes == 0)
      return emitError(gradLoc, "sdfg-checkpoint: the solver failed: ")
             << plan.error;
    if (!plan.feasible)
      return emitError(gradLoc, "sdfg-checkpoint: no store/recompute plan "
                                "for @")
             << fwd.getSymName() << opts.suffix << " fits in "
             << formatBytes(*limit) << "; the smallest feasible limit is "
             << formatBytes(plan.minFeasibleBytes, /*roundUp=*/true) << " ("
             << plan.minFeasibleBytes << " bytes; storing everything needs "
             << formatBytes(storeAllPeak) << ")";
    decision = plan.recompute;
    result.optimal = plan.optimal;
  }
  for (auto [a, b] : model.exclusive)
    if (decision[a] && decision[b])
      return emitError(gradLoc, "sdfg-checkpoint: cannot recompute both '")
             << model.candidates[a].name << "' and '"
             << model.candidates[b].name << "': recomputing '"
             << model.candidates[a].name << "' re-runs code that reads '"
             << model.candidates[b].name << "' as stored";
  return result;
}

void CheckpointPass::record(SDFGOp result, const DifferentiateResult &storeAll,
                            const DifferentiateResult &built,
                            const DifferentiateOptions &opts, int64_t peak,
                            const std::optional<std::string> &peakFormula,
                            int64_t predicted, int64_t storeAllPeak,
                            std::optional<int64_t> limit) {
  Builder b(result.getContext());
  SmallVector<Attribute> recomputedNames, storedNames;
  for (const RecomputeCandidate &c : storeAll.candidates)
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
  if (peakFormula)
    summary.push_back(
        b.getNamedAttr("peak_formula", b.getStringAttr(*peakFormula)));
  SmallVector<Attribute> loops;
  auto ints = [&](ArrayRef<int64_t> v) {
    SmallVector<Attribute> out;
    for (int64_t x : v)
      out.push_back(b.getI64IntegerAttr(x));
    return b.getArrayAttr(out);
  };
  for (const LoopCandidate &l : built.loops) {
    SmallVector<NamedAttribute> entry = {
        b.getNamedAttr("name", b.getStringAttr(l.name)),
        b.getNamedAttr("trips", b.getI64IntegerAttr(l.trips)),
        b.getNamedAttr("while", b.getBoolAttr(l.isWhile)),
        b.getNamedAttr("schedule",
                       b.getStringAttr(l.segments.empty() ? "store-all"
                                       : l.binomial       ? "binomial"
                                                          : "uniform")),
        b.getNamedAttr("segments", ints(l.segments)),
        b.getNamedAttr("snapshots", ints(l.snapshots)),
        b.getNamedAttr("snapshot_bytes", b.getI64IntegerAttr(l.snapshotBytes)),
        b.getNamedAttr("recomputed_iterations",
                       b.getI64IntegerAttr(l.recomputedIterations))};
    if (l.dataTrips)
      entry.push_back(b.getNamedAttr("data_trips", b.getBoolAttr(true)));
    if (l.sizeTrips)
      entry.push_back(b.getNamedAttr("size_trips", b.getBoolAttr(true)));
    if (!l.eligible && l.segments.empty())
      entry.push_back(b.getNamedAttr("reason", b.getStringAttr(l.reason)));
    loops.push_back(b.getDictionaryAttr(entry));
  }
  summary.push_back(b.getNamedAttr("loops", b.getArrayAttr(loops)));
  if (limit)
    summary.push_back(
        b.getNamedAttr("limit_bytes", b.getI64IntegerAttr(*limit)));
  result->setAttr("sdfg.checkpoint", b.getDictionaryAttr(summary));
}

void CheckpointPass::reportPlan(
    SDFGOp result, const DifferentiateResult &storeAll,
    const DifferentiateResult &built, const DifferentiateOptions &opts,
    ArrayRef<bool> isArgument, const llvm::DenseMap<Value, int64_t> &bytesOf,
    const llvm::DenseMap<Value, std::string> &formulaOf, int64_t peak,
    const std::optional<std::string> &peakFormula, int64_t storeAllPeak,
    std::optional<int64_t> limit, const Plan &plan) {
  for (auto [k, c] : llvm::enumerate(storeAll.candidates)) {
    bool re = opts.recompute.contains(c.name);
    int64_t tapeBytes = 0;
    // Sizes only the call knows: the bytes at the sizes given, and as a
    // formula in them (`= 8*N*(x.0 - 2) B`).
    SmallVector<std::string> tapeFormulas;
    for (Value t : c.tapes) {
      tapeBytes += bytesOf.lookup(t);
      auto f = formulaOf.find(t);
      if (f != formulaOf.end())
        tapeFormulas.push_back(f->second);
    }
    bool isArg = isArgument[k];
    InFlightDiagnostic d = emitRemark(result.getLoc())
                           << "'" << c.name << "': ";
    if (isArg) {
      d << "argument";
    } else {
      d << formatBytes(bytesOf.lookup(c.container));
      auto f = formulaOf.find(c.container);
      if (f != formulaOf.end())
        d << " = " << f->second << " B";
    }
    if (tapeBytes) {
      d << " + " << formatBytes(tapeBytes);
      if (!tapeFormulas.empty())
        d << " = " << llvm::join(tapeFormulas, " + ") << " B";
      d << " of overwritten values";
    }
    if (!isArg)
      d << ", recompute cost " << formatNumber("%.3g", c.cost);
    d << ": " << (re ? "recompute" : "store");
    if (!c.eligible)
      d << " (cannot recompute: " << c.reason << ")";
  }
  for (const LoopCandidate &l : built.loops) {
    InFlightDiagnostic d = emitRemark(result.getLoc())
                           << "loop '" << l.name << "': ";
    if (l.isWhile)
      d << "up to " << l.trips << " iterations (while-capacity), ";
    else if (l.dataTrips)
      d << (l.sizeTrips ? "trip count from the call's sizes, "
                        : "trip count from data, ");
    else if (l.trips)
      d << l.trips << " iterations, ";
    if (!l.eligible && l.segments.empty()) {
      d << "store every iteration (cannot checkpoint: " << l.reason
        << (l.binomialEligible ? "; a binomial schedule takes it at run time"
                               : "")
        << ")";
      continue;
    }
    if (l.segments.empty()) {
      d << "store every iteration (snapshot " << formatBytes(l.snapshotBytes)
        << ")";
      continue;
    }
    if (l.binomial) {
      d << "binomial, " << l.snapshots.front() << " snapshots of "
        << formatBytes(l.snapshotBytes) << ", " << l.recomputedIterations
        << " iterations run again"
        << (l.dataTrips ? " (if it ran data-loop-capacity iterations)" : "");
      continue;
    }
    d << "segments of ";
    llvm::interleave(l.segments, d, " then ");
    d << ", ";
    llvm::interleave(l.snapshots, d, " + ");
    d << " snapshots of " << formatBytes(l.snapshotBytes) << ", "
      << l.recomputedIterations << " iterations run again";
  }
  InFlightDiagnostic d = emitRemark(result.getLoc())
                         << "peak memory " << formatBytes(peak);
  if (peakFormula)
    d << " = " << *peakFormula << " B";
  if (!sizes.empty()) {
    // The numbers are for these sizes (the largest, with NAME=..MAX).
    d << " at sizes ";
    llvm::interleave(sizes, d, ", ");
  }
  d << " (storing everything: " << formatBytes(storeAllPeak);
  if (limit)
    d << "; limit " << formatBytes(*limit);
  d << ")";
  if (strategy == "ilp" && recompute.empty())
    d << "; ILP with " << plan.decision.size() << " variables solved in "
      << formatNumber("%.1f", plan.solveMs) << " ms"
      << (plan.optimal ? "" : " (time limit: best plan found)");
}

} // namespace
