//===- LPSolveBackend.cpp - solveILP on lp_solve --------------------------===//
//
// The only translation unit that includes lp_lib.h: its macros (LE, GE, EQ,
// TRUE, FALSE, MIN, MAX...) break LLVM headers, so none are included here.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Support/ILP.h"

#include <lpsolve/lp_lib.h>

#include <memory>

using namespace mlir::sdfg;

ILPSolution mlir::sdfg::solveILP(const ILPProblem &problem) {
  ILPSolution result;
  const auto &vars = problem.getVariables();
  int n = static_cast<int>(vars.size());
  std::unique_ptr<lprec, void (*)(lprec *)> lp(make_lp(0, n), delete_lp);
  if (!lp) {
    result.message = "lp_solve could not create the model";
    return result;
  }
  set_verbose(lp.get(), NEUTRAL);
  // Objective and variable kinds (lp_solve columns are 1-based).
  std::vector<double> row(n + 1, 0.0);
  for (int j = 0; j < n; ++j) {
    row[j + 1] = vars[j].cost;
    if (vars[j].binary) {
      set_binary(lp.get(), j + 1, 1);
    } else {
      set_bounds(lp.get(), j + 1, vars[j].lo, vars[j].hi);
    }
  }
  set_obj_fn(lp.get(), row.data());
  set_minim(lp.get());
  set_add_rowmode(lp.get(), 1);
  for (const auto &c : problem.getConstraints()) {
    // lp_solve wants each column once per row: merge repeated variables.
    std::vector<double> dense(n, 0.0);
    std::vector<char> used(n, 0);
    for (auto [var, coef] : c.terms) {
      dense[var] += coef;
      used[var] = 1;
    }
    std::vector<double> coefs;
    std::vector<int> cols;
    for (int j = 0; j < n; ++j)
      if (used[j] && dense[j] != 0.0) {
        coefs.push_back(dense[j]);
        cols.push_back(j + 1);
      }
    int type = c.sense == ILPProblem::Sense::LessEqual      ? LE
               : c.sense == ILPProblem::Sense::GreaterEqual ? GE
                                                            : EQ;
    if (!add_constraintex(lp.get(), static_cast<int>(coefs.size()),
                          coefs.data(), cols.data(), type, c.rhs)) {
      result.message = "lp_solve rejected a constraint";
      return result;
    }
  }
  set_add_rowmode(lp.get(), 0);
  if (problem.getTimeLimitSeconds() > 0)
    set_timeout(lp.get(), problem.getTimeLimitSeconds());
  int status = solve(lp.get());
  if (status == INFEASIBLE) {
    result.status = ILPSolution::Status::Infeasible;
    return result;
  }
  if (status != OPTIMAL && status != SUBOPTIMAL) {
    result.message = "lp_solve returned status " + std::to_string(status);
    return result;
  }
  // SUBOPTIMAL: the time limit stopped branch and bound at a feasible,
  // possibly non-minimal, solution.
  result.status = status == OPTIMAL ? ILPSolution::Status::Optimal
                                    : ILPSolution::Status::Feasible;
  result.objective = get_objective(lp.get());
  result.values.assign(n, 0.0);
  get_variables(lp.get(), result.values.data());
  return result;
}
