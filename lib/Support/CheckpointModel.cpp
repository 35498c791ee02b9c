//===- CheckpointModel.cpp - Store/recompute under a memory limit ---------===//

#include "sdfg/Support/CheckpointModel.h"
#include "sdfg/Support/ILP.h"

#include <algorithm>
#include <cmath>

using namespace mlir::sdfg;

/// Branch and bound stops here with its best solution: a compile must not
/// hang on a hard instance.
static constexpr long kTimeLimitSeconds = 20;

int64_t CheckpointModel::peakBytes(const std::vector<bool> &recompute) const {
  int64_t peak = 0;
  for (const auto &timeline : timelines)
    for (const TimelinePoint &p : timeline) {
      int64_t total = p.baseBytes;
      for (auto [c, bytes] : p.liveIfStored)
        if (!recompute[c])
          total += bytes;
      for (auto [c, bytes] : p.liveIfRecomputed)
        if (recompute[c])
          total += bytes;
      peak = std::max(peak, total);
    }
  return peak;
}

bool CheckpointModel::admissible(const std::vector<bool> &recompute) const {
  for (auto [a, b] : exclusive)
    if (recompute[a] && recompute[b])
      return false;
  return true;
}

/// r_a + r_b <= 1 for every exclusive pair.
static void addExclusions(const CheckpointModel &model, ILPProblem &ilp) {
  for (auto [a, b] : model.exclusive)
    ilp.addConstraint({{a, 1.0}, {b, 1.0}}, ILPProblem::Sense::LessEqual, 1.0);
}

/// Adds, for every timeline point, "memory at the point <= limit", with the
/// limit a constant (`limitVar` < 0) or a variable.
static void addMemoryConstraints(const CheckpointModel &model, ILPProblem &ilp,
                                 double limit, int limitVar) {
  for (const auto &timeline : model.timelines)
    for (const TimelinePoint &p : timeline) {
      // base + sum_stored bytes_c (1 - r_c) + sum_recomputed extra_c r_c
      //   <= limit
      double rhs = limit - static_cast<double>(p.baseBytes);
      std::vector<std::pair<unsigned, double>> terms;
      for (auto [c, stored] : p.liveIfStored) {
        double bytes = static_cast<double>(stored);
        rhs -= bytes;
        terms.push_back({c, -bytes});
      }
      for (auto [c, bytes] : p.liveIfRecomputed)
        terms.push_back({c, static_cast<double>(bytes)});
      if (limitVar >= 0)
        terms.push_back({static_cast<unsigned>(limitVar), -1.0});
      ilp.addConstraint(std::move(terms), ILPProblem::Sense::LessEqual, rhs);
    }
}

CheckpointPlan mlir::sdfg::solveCheckpointModel(const CheckpointModel &model,
                                                int64_t memLimitBytes) {
  CheckpointPlan plan;
  unsigned n = model.candidates.size();
  if (n == 0) {
    // Nothing to decide (lp_solve rejects an empty problem).
    plan.peakBytes = model.peakBytes({});
    plan.feasible = plan.peakBytes <= memLimitBytes;
    plan.optimal = true;
    if (!plan.feasible)
      plan.minFeasibleBytes = plan.peakBytes;
    return plan;
  }
  // The solver works in floating point with a relative feasibility
  // tolerance; a plan that misses the limit by a few bytes is re-solved
  // with the limit tightened by the excess, until it fits exactly.
  double limit = static_cast<double>(memLimitBytes);
  ILPSolution sol;
  for (int attempt = 0; attempt < 8; ++attempt) {
    ILPProblem ilp;
    for (const Candidate &c : model.candidates)
      ilp.addBinary(c.recomputeCost, c.name);
    addMemoryConstraints(model, ilp, limit, -1);
    addExclusions(model, ilp);
    ilp.setTimeLimitSeconds(kTimeLimitSeconds);
    sol = solveILP(ilp);
    if (sol.status != ILPSolution::Status::Optimal &&
        sol.status != ILPSolution::Status::Feasible)
      break;
    std::vector<bool> r(n);
    for (unsigned i = 0; i < n; ++i)
      r[i] = sol.values[i] > 0.5;
    int64_t excess = model.peakBytes(r) - memLimitBytes;
    if (excess <= 0)
      break;
    limit -= static_cast<double>(excess);
  }
  if (sol.status == ILPSolution::Status::Optimal ||
      sol.status == ILPSolution::Status::Feasible) {
    plan.optimal = sol.status == ILPSolution::Status::Optimal;
    plan.feasible = true;
    plan.recompute.resize(n);
    for (unsigned i = 0; i < n; ++i)
      plan.recompute[i] = sol.values[i] > 0.5;
    plan.cost = sol.objective;
    plan.peakBytes = model.peakBytes(plan.recompute);
    if (plan.peakBytes > memLimitBytes) {
      plan.feasible = false;
      plan.error = "the solver could not meet the limit exactly";
    }
    return plan;
  }
  if (sol.status == ILPSolution::Status::Failed) {
    plan.error = sol.message;
    return plan;
  }
  // Infeasible: the smallest limit that any decision meets, by minimising
  // the limit itself.
  ILPProblem least;
  for (const Candidate &c : model.candidates)
    least.addBinary(0.0, c.name);
  int limitVar = least.addContinuous(1.0, 0.0, 1e18, "limit");
  addMemoryConstraints(model, least, 0.0, limitVar);
  addExclusions(model, least);
  least.setTimeLimitSeconds(kTimeLimitSeconds);
  ILPSolution lsol = solveILP(least);
  if (lsol.status != ILPSolution::Status::Optimal &&
      lsol.status != ILPSolution::Status::Feasible) {
    plan.error = "cannot compute the smallest feasible limit: " + lsol.message;
    return plan;
  }
  std::vector<bool> best(n);
  for (unsigned i = 0; i < n; ++i)
    best[i] = lsol.values[i] > 0.5;
  // Evaluate exactly (the LP objective is a double).
  plan.minFeasibleBytes = model.peakBytes(best);
  return plan;
}
