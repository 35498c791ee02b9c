//===- ILP.cpp - Building integer linear programs -------------------------===//

#include "sdfg/Support/ILP.h"

using namespace mlir::sdfg;

unsigned ILPProblem::addBinary(double cost, std::string name) {
  variables.push_back({cost, 0.0, 1.0, true, std::move(name)});
  return variables.size() - 1;
}

unsigned ILPProblem::addContinuous(double cost, double lo, double hi,
                                   std::string name) {
  variables.push_back({cost, lo, hi, false, std::move(name)});
  return variables.size() - 1;
}

void ILPProblem::addConstraint(std::vector<std::pair<unsigned, double>> terms,
                               Sense sense, double rhs) {
  constraints.push_back({std::move(terms), sense, rhs});
}
