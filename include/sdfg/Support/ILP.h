//===- ILP.h - A small integer linear programming interface -----*- C++ -*-===//
//
// The checkpointing pass states its store/recompute problem through this
// interface; lp_solve is the backend (lib/Support/LPSolveBackend.cpp is the
// only file that sees its headers, whose macros clash with LLVM's).
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_SUPPORT_ILP_H
#define SDFG_SUPPORT_ILP_H

#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace sdfg {

/// min c^T x subject to linear constraints; variables are binary or
/// continuous with bounds.
class ILPProblem {
public:
  enum class Sense { LessEqual, GreaterEqual, Equal };

  /// Adds a 0/1 variable with objective coefficient `cost`; returns its
  /// index.
  unsigned addBinary(double cost, std::string name = "");
  /// Adds a continuous variable in [lo, hi].
  unsigned addContinuous(double cost, double lo, double hi,
                         std::string name = "");
  /// sum(coef * x[var]) <sense> rhs.
  void addConstraint(std::vector<std::pair<unsigned, double>> terms,
                     Sense sense, double rhs);

  struct Variable {
    double cost;
    double lo, hi;
    bool binary;
    std::string name;
  };
  struct Constraint {
    std::vector<std::pair<unsigned, double>> terms;
    Sense sense;
    double rhs;
  };
  /// Stops branch and bound after this many seconds with the best solution
  /// found (0: no limit).
  void setTimeLimitSeconds(long seconds) { timeLimit = seconds; }
  long getTimeLimitSeconds() const { return timeLimit; }

  const std::vector<Variable> &getVariables() const { return variables; }
  const std::vector<Constraint> &getConstraints() const { return constraints; }

private:
  std::vector<Variable> variables;
  std::vector<Constraint> constraints;
  long timeLimit = 0;
};

struct ILPSolution {
  /// Feasible: a solution within the constraints that the time limit kept
  /// from being proven minimal.
  enum class Status { Optimal, Feasible, Infeasible, Failed };
  Status status = Status::Failed;
  double objective = 0.0;
  std::vector<double> values;
  /// Solver's message when it failed.
  std::string message;
};

/// Solves `problem` to optimality with lp_solve (branch and bound).
ILPSolution solveILP(const ILPProblem &problem);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_SUPPORT_ILP_H
