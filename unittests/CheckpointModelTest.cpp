//===- CheckpointModelTest.cpp - Store/recompute decisions ----------------===//

#include "sdfg/Support/CheckpointModel.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <random>

using namespace mlir::sdfg;

namespace {

constexpr int64_t MiB = 1 << 20;

/// The paper's example (section "Motivating example"): A0 = C*D, then D is
/// overwritten twice, with A1 and A2 computed in between; every Ai is read
/// by the backward pass. C, D and the gradients are always live (base);
/// storing Ai keeps it live from its computation to its use in the
/// backward pass; recomputing it needs it live only around its use.
CheckpointModel paperExample() {
  CheckpointModel m;
  int64_t a = 50 * MiB;
  // A0 is the cheapest to recompute: C and the original D are restored by
  // the time A0 is needed again.
  m.candidates = {{"A0", a, 1.0}, {"A1", a, 2.0}, {"A2", a, 3.0}};
  int64_t base = 6 * a; // C, D, their gradients, the tapes of D, s
  std::vector<TimelinePoint> t;
  // Forward: each Ai allocated in turn.
  t.push_back({base, {{0, a}}, {{0, a}}});
  t.push_back({base, {{0, a}, {1, a}}, {{1, a}}});
  t.push_back({base, {{0, a}, {1, a}, {2, a}}, {{2, a}}});
  // Backward: uses of A2, A1, A0 in turn; a recomputed Ai is live only at
  // its own use.
  t.push_back({base + a, {{0, a}, {1, a}, {2, a}}, {{2, a}}});
  t.push_back({base + a, {{0, a}, {1, a}}, {{1, a}}});
  t.push_back({base + a, {{0, a}}, {{0, a}}});
  m.timelines.push_back(t);
  return m;
}

TEST(CheckpointModel, PaperExampleStoresA1A2AndRecomputesA0) {
  CheckpointModel m = paperExample();
  // Storing everything peaks at base + a + 3a = 500 MiB; one byte less
  // forces a recomputation: the cheapest that fits.
  CheckpointPlan all = solveCheckpointModel(m, 500 * MiB);
  ASSERT_TRUE(all.feasible);
  EXPECT_EQ(all.recompute, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(all.peakBytes, 500 * MiB);

  CheckpointPlan tight = solveCheckpointModel(m, 500 * MiB - 1);
  ASSERT_TRUE(tight.feasible);
  // Recomputing A2 does not lower the peak at the first backward point (A0,
  // A1 and the recomputed A2 are all live there); recomputing A0, the
  // cheapest, does.
  EXPECT_EQ(tight.recompute, (std::vector<bool>{true, false, false}));
  EXPECT_LE(tight.peakBytes, 500 * MiB - 1);
}

TEST(CheckpointModel, InfeasibleLimitReportsTheSmallestFeasibleOne) {
  CheckpointModel m = paperExample();
  CheckpointPlan p = solveCheckpointModel(m, 100 * MiB);
  ASSERT_FALSE(p.feasible);
  EXPECT_TRUE(p.error.empty());
  // Recomputing everything leaves base + one Ai at every point.
  EXPECT_EQ(p.minFeasibleBytes, 7 * 50 * MiB + 50 * MiB);
  CheckpointPlan q = solveCheckpointModel(m, p.minFeasibleBytes);
  EXPECT_TRUE(q.feasible);
  CheckpointPlan r = solveCheckpointModel(m, p.minFeasibleBytes - 1);
  EXPECT_FALSE(r.feasible);
}

/// Exhaustive search, for comparison.
std::pair<double, bool> bruteForce(const CheckpointModel &m, int64_t limit,
                                   std::vector<bool> &best) {
  unsigned n = m.candidates.size();
  double bestCost = std::numeric_limits<double>::infinity();
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<bool> r(n);
    double cost = 0;
    for (unsigned i = 0; i < n; ++i) {
      r[i] = (mask >> i) & 1;
      if (r[i])
        cost += m.candidates[i].recomputeCost;
    }
    if (m.admissible(r) && m.peakBytes(r) <= limit && cost < bestCost) {
      bestCost = cost;
      best = r;
    }
  }
  return {bestCost, bestCost < std::numeric_limits<double>::infinity()};
}

CheckpointModel randomModel(std::mt19937 &rng, unsigned n, unsigned points,
                            unsigned paths) {
  std::uniform_int_distribution<int64_t> bytes(1, 100);
  std::uniform_int_distribution<int> coin(0, 2);
  std::uniform_real_distribution<double> cost(1.0, 10.0);
  CheckpointModel m;
  for (unsigned i = 0; i < n; ++i)
    m.candidates.push_back({"c" + std::to_string(i), bytes(rng), cost(rng)});
  for (unsigned t = 0; t < paths; ++t) {
    std::vector<TimelinePoint> tl;
    for (unsigned p = 0; p < points; ++p) {
      TimelinePoint pt;
      pt.baseBytes = bytes(rng);
      for (unsigned i = 0; i < n; ++i) {
        int c = coin(rng);
        if (c == 1)
          pt.liveIfStored.push_back({i, m.candidates[i].bytes});
        else if (c == 2)
          pt.liveIfRecomputed.push_back({i, bytes(rng) / 2});
      }
      tl.push_back(pt);
    }
    m.timelines.push_back(tl);
  }
  // A few pairs that cannot both be recomputed.
  std::uniform_int_distribution<unsigned> pick(0, n - 1);
  for (unsigned k = 0; k < n / 3; ++k) {
    unsigned a = pick(rng), b = pick(rng);
    if (a != b)
      m.exclusive.push_back({a, b});
  }
  return m;
}

TEST(CheckpointModel, ExclusivePairsAreNotBothRecomputed) {
  // Two candidates, each alone too big: only recomputing both would fit,
  // which the pair forbids.
  CheckpointModel m;
  m.candidates = {{"x", 10, 1.0}, {"y", 10, 1.0}};
  m.timelines = {{{5, {{0, 10}, {1, 10}}, {}}}};
  CheckpointPlan free = solveCheckpointModel(m, 5);
  ASSERT_TRUE(free.feasible);
  EXPECT_EQ(free.recompute, (std::vector<bool>{true, true}));
  m.exclusive.push_back({0, 1});
  CheckpointPlan p = solveCheckpointModel(m, 5);
  EXPECT_FALSE(p.feasible);
  EXPECT_EQ(p.minFeasibleBytes, 15);
}

TEST(CheckpointModel, NoCandidates) {
  CheckpointModel m;
  m.timelines = {{{7, {}, {}}, {9, {}, {}}}};
  CheckpointPlan ok = solveCheckpointModel(m, 9);
  EXPECT_TRUE(ok.feasible);
  EXPECT_EQ(ok.peakBytes, 9);
  CheckpointPlan no = solveCheckpointModel(m, 8);
  EXPECT_FALSE(no.feasible);
  EXPECT_EQ(no.minFeasibleBytes, 9);
}

TEST(CheckpointModel, MatchesExhaustiveSearch) {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 60; ++trial) {
    CheckpointModel m = randomModel(rng, 6, 5, 1 + trial % 3);
    std::vector<bool> none(6, false);
    int64_t limit = m.peakBytes(none) - (trial * 7) % 150;
    std::vector<bool> best;
    auto [cost, feasible] = bruteForce(m, limit, best);
    CheckpointPlan plan = solveCheckpointModel(m, limit);
    ASSERT_TRUE(plan.error.empty()) << plan.error;
    ASSERT_EQ(plan.feasible, feasible) << "trial " << trial;
    if (feasible) {
      EXPECT_NEAR(plan.cost, cost, 1e-6) << "trial " << trial;
      EXPECT_LE(m.peakBytes(plan.recompute), limit);
      EXPECT_EQ(plan.peakBytes, m.peakBytes(plan.recompute));
    } else {
      // The reported minimum is attainable and nothing smaller is.
      int64_t least = std::numeric_limits<int64_t>::max();
      for (unsigned mask = 0; mask < 64; ++mask) {
        std::vector<bool> r(6);
        for (unsigned i = 0; i < 6; ++i)
          r[i] = (mask >> i) & 1;
        if (m.admissible(r))
          least = std::min(least, m.peakBytes(r));
      }
      EXPECT_EQ(plan.minFeasibleBytes, least) << "trial " << trial;
    }
  }
}

/// A model shaped like a program: candidate i is produced at forward step
/// p_i and read back at the mirrored backward step; stored, it is live in
/// between; recomputed, only around its use.
CheckpointModel programLikeModel(std::mt19937 &rng, unsigned n,
                                 unsigned steps) {
  std::uniform_int_distribution<unsigned> step(0, steps - 1);
  std::uniform_int_distribution<int64_t> bytes(1, 100);
  std::uniform_real_distribution<double> cost(1.0, 10.0);
  CheckpointModel m;
  std::vector<unsigned> produced(n);
  for (unsigned i = 0; i < n; ++i) {
    m.candidates.push_back({"c" + std::to_string(i), bytes(rng), cost(rng)});
    produced[i] = step(rng);
  }
  std::vector<TimelinePoint> tl(2 * steps);
  for (unsigned t = 0; t < 2 * steps; ++t)
    tl[t].baseBytes = 50;
  for (unsigned i = 0; i < n; ++i) {
    unsigned use = 2 * steps - 1 - produced[i];
    for (unsigned t = produced[i]; t <= use; ++t)
      tl[t].liveIfStored.push_back({i, m.candidates[i].bytes});
    tl[use].liveIfRecomputed.push_back({i, m.candidates[i].bytes});
  }
  m.timelines.push_back(tl);
  return m;
}

TEST(CheckpointModel, SolveTimeAtScale) {
  // Reported, not asserted: 10, 100 and 1000 decision variables.
  std::mt19937 rng(7);
  for (unsigned n : {10u, 100u, 1000u}) {
    CheckpointModel m = programLikeModel(rng, n, 50);
    std::vector<bool> none(n, false);
    int64_t limit = m.peakBytes(none) * 7 / 10;
    auto t0 = std::chrono::steady_clock::now();
    CheckpointPlan plan = solveCheckpointModel(m, limit);
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
    ASSERT_TRUE(plan.error.empty()) << plan.error;
    ASSERT_TRUE(plan.feasible);
    EXPECT_LE(m.peakBytes(plan.recompute), limit);
    std::printf("[ solve time ] %u variables, 100 timeline points: %.1f ms "
                "(%s)\n",
                n, ms, plan.optimal ? "optimal" : "time limit reached");
  }
}

} // namespace
