//===- BinomialScheduleTest.cpp - Revolve's counts and splits -------------===//
//
// The binomial schedule must re-run the fewest iterations possible. A
// dynamic program over every split point gives that minimum; the closed
// form and the split rule the generated code uses must reach it.
//
//===----------------------------------------------------------------------===//

#include "sdfg/AutoDiff/Transforms/Differentiate.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <vector>

using namespace mlir::sdfg;

namespace {

/// Iterations run again to reverse `steps` iterations from a snapshot at
/// the first, with `slots` snapshots (that one included), at best:
/// advance m, store a snapshot, reverse the rest with one slot fewer,
/// then the first m with all of them.
class Optimum {
public:
  explicit Optimum(int64_t maxSteps, int64_t maxSlots)
      : table(maxSlots + 1, std::vector<int64_t>(maxSteps + 1, -1)) {}

  int64_t operator()(int64_t steps, int64_t slots) {
    if (steps <= 1)
      return 0;
    if (slots <= 1)
      return steps * (steps - 1) / 2;
    int64_t &r = table[slots][steps];
    if (r >= 0)
      return r;
    r = INT64_MAX;
    for (int64_t m = 1; m < steps; ++m)
      r = std::min(r, m + (*this)(steps - m, slots - 1) + (*this)(m, slots));
    return r;
  }

private:
  std::vector<std::vector<int64_t>> table;
};

/// The schedule the generated code follows, counted.
int64_t scheduled(int64_t steps, int64_t slots) {
  if (steps <= 1)
    return 0;
  if (slots <= 1)
    return steps * (steps - 1) / 2;
  int64_t m = binomialAdvance(steps, slots);
  EXPECT_GE(m, 1);
  EXPECT_LT(m, steps);
  return m + scheduled(steps - m, slots - 1) + scheduled(m, slots);
}

TEST(BinomialSchedule, ClosedFormIsTheOptimum) {
  Optimum best(300, 8);
  for (int64_t slots = 1; slots <= 8; ++slots)
    for (int64_t trips = 0; trips <= 300; ++trips)
      EXPECT_EQ(binomialRecomputedIterations(trips, slots), best(trips, slots))
          << trips << " iterations, " << slots << " snapshots";
}

TEST(BinomialSchedule, TheRunTimeSplitReachesTheOptimum) {
  Optimum best(300, 8);
  for (int64_t slots = 2; slots <= 8; ++slots)
    for (int64_t steps = 2; steps <= 300; ++steps)
      EXPECT_EQ(scheduled(steps, slots), best(steps, slots))
          << steps << " iterations, " << slots << " snapshots";
}

TEST(BinomialSchedule, KnownValues) {
  // With as many snapshots as iterations, each runs again once (but the
  // last); with one, reversing is quadratic.
  EXPECT_EQ(binomialRecomputedIterations(10, 10), 9);
  EXPECT_EQ(binomialRecomputedIterations(10, 1), 45);
  // 10^4 iterations, 100 snapshots: repetition number t = 3 (C(103, 3)
  // >= 10^4 > C(102, 2)), t * T - C(103, 2) iterations.
  EXPECT_EQ(binomialRecomputedIterations(10000, 100), 3 * 10000 - 5253);
  // Large counts stay exact or saturate, never wrap.
  EXPECT_GT(binomialRecomputedIterations(int64_t(1) << 40, 2), 0);
  EXPECT_EQ(binomialRecomputedIterations(int64_t(1) << 40, 1), INT64_MAX);
}

} // namespace
