//===- ILPTest.cpp - The lp_solve-backed ILP interface --------------------===//

#include "sdfg/Support/ILP.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <random>

using namespace mlir::sdfg;

namespace {

TEST(ILP, SolvesAKnapsackToOptimality) {
  // max 5a + 4b + 3c s.t. 2a + 3b + c <= 5  ==  min -(...)
  ILPProblem p;
  unsigned a = p.addBinary(-5), b = p.addBinary(-4), c = p.addBinary(-3);
  p.addConstraint({{a, 2}, {b, 3}, {c, 1}}, ILPProblem::Sense::LessEqual, 5);
  ILPSolution s = solveILP(p);
  ASSERT_EQ(s.status, ILPSolution::Status::Optimal);
  EXPECT_DOUBLE_EQ(s.objective, -9.0); // b + ... no: a + b = 9 (weight 5)
  EXPECT_EQ(s.values[a] + s.values[b] + s.values[c], 2.0);
  EXPECT_DOUBLE_EQ(s.values[a], 1.0);
  EXPECT_DOUBLE_EQ(s.values[b], 1.0);
}

TEST(ILP, ReportsInfeasibility) {
  ILPProblem p;
  unsigned a = p.addBinary(1), b = p.addBinary(1);
  p.addConstraint({{a, 1}, {b, 1}}, ILPProblem::Sense::GreaterEqual, 3);
  EXPECT_EQ(solveILP(p).status, ILPSolution::Status::Infeasible);
}

TEST(ILP, MixesContinuousAndBinaryVariables) {
  // min m s.t. m >= 4 - 3x, m >= 1 + 2x, x binary -> x = 1, m = 3.
  ILPProblem p;
  unsigned x = p.addBinary(0);
  unsigned m = p.addContinuous(1, 0, 100);
  p.addConstraint({{m, 1}, {x, 3}}, ILPProblem::Sense::GreaterEqual, 4);
  p.addConstraint({{m, 1}, {x, -2}}, ILPProblem::Sense::GreaterEqual, 1);
  ILPSolution s = solveILP(p);
  ASSERT_EQ(s.status, ILPSolution::Status::Optimal);
  EXPECT_DOUBLE_EQ(s.values[x], 1.0);
  EXPECT_NEAR(s.values[m], 3.0, 1e-9);
}

TEST(ILP, EqualityConstraints) {
  ILPProblem p;
  unsigned a = p.addBinary(2), b = p.addBinary(1), c = p.addBinary(3);
  p.addConstraint({{a, 1}, {b, 1}, {c, 1}}, ILPProblem::Sense::Equal, 2);
  ILPSolution s = solveILP(p);
  ASSERT_EQ(s.status, ILPSolution::Status::Optimal);
  EXPECT_DOUBLE_EQ(s.objective, 3.0);
  EXPECT_DOUBLE_EQ(s.values[c], 0.0);
}

} // namespace
