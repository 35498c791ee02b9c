//===- SubsetTest.cpp - Subsets of containers -----------------------------===//

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::sdfg;

namespace {

class SubsetTest : public ::testing::Test {
protected:
  AffineExpr d(unsigned i) { return getAffineDimExpr(i, &ctx); }
  AffineExpr c(int64_t v) { return getAffineConstantExpr(v, &ctx); }
  MLIRContext ctx;
};

TEST_F(SubsetTest, ElementDimensionsAreDropped) {
  // A[i, 0:10:3, 2:5]
  Subset s({{d(0), d(0) + 1, 1, false},
            {c(0), c(10), 3, true},
            {c(2), c(5), 1, true}});
  EXPECT_EQ(s.getRank(), 3u);
  EXPECT_EQ(s.getRangeDims(), (SmallVector<unsigned>{1, 2}));
  auto shape = s.getConstantShape();
  ASSERT_EQ(shape.size(), 2u);
  EXPECT_EQ(shape[0], 4); // 0, 3, 6, 9
  EXPECT_EQ(shape[1], 3);
}

TEST_F(SubsetTest, SymbolicExtentsAreUnknownAndEmptyRangesClampToZero) {
  Subset s({{c(0), d(0), 1, true}, {c(5), c(2), 1, true}});
  auto shape = s.getConstantShape();
  EXPECT_EQ(shape[0], std::nullopt);
  EXPECT_EQ(shape[1], 0);
  // The extent expression still evaluates once the symbol is known.
  std::optional<int64_t> n = 7;
  EXPECT_EQ(evaluate(s.getExtent(0), {n}), 7);
}

TEST_F(SubsetTest, RoundTripsThroughAttributes) {
  Subset s({{d(1) - 1, d(1), 1, false}, {c(0), d(0) * 2, 2, true}});
  AffineMap map;
  SmallVector<int64_t> steps;
  SmallVector<bool> ranges;
  s.toAttributes(&ctx, 2, map, steps, ranges);
  EXPECT_EQ(map.getNumDims(), 2u);
  EXPECT_EQ(map.getNumResults(), 4u);
  Subset back(map, steps, ranges);
  for (unsigned i = 0; i < 2; ++i) {
    EXPECT_EQ(back[i].lo, s[i].lo);
    EXPECT_EQ(back[i].hi, s[i].hi);
    EXPECT_EQ(back[i].step, s[i].step);
    EXPECT_EQ(back[i].isRange, s[i].isRange);
  }
}

} // namespace
