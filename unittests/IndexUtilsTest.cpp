//===- IndexUtilsTest.cpp - Trip counts and index expressions -------------===//

#include "sdfg/Dialect/SDFG/IR/IndexUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

#include <limits>

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// Python's len(range(lb, ub, step)), by enumeration.
int64_t pythonLen(int64_t lb, int64_t ub, int64_t step) {
  int64_t n = 0;
  for (int64_t i = lb; step > 0 ? i < ub : i > ub; i += step)
    ++n;
  return n;
}

TEST(TripCount, MatchesPythonRangeForAllSigns) {
  for (int64_t lb = -7; lb <= 7; ++lb)
    for (int64_t ub = -7; ub <= 7; ++ub)
      for (int64_t step : {-4, -3, -2, -1, 1, 2, 3, 5})
        EXPECT_EQ(tripCount(lb, ub, step), pythonLen(lb, ub, step))
            << "range(" << lb << ", " << ub << ", " << step << ")";
}

TEST(LastIteration, IsTheLastValueVisited) {
  // range(10, 0, -3) visits 10, 7, 4, 1: reversing it must start at 1, not
  // at ub + 1 (the reference implementation's mistake).
  EXPECT_EQ(lastIteration(10, 0, -3), 1);
  EXPECT_EQ(lastIteration(0, 10, 3), 9);
  EXPECT_EQ(lastIteration(0, 9, 3), 6);
  EXPECT_EQ(lastIteration(5, 6, 1), 5);
  for (int64_t lb = -6; lb <= 6; ++lb)
    for (int64_t ub = -6; ub <= 6; ++ub)
      for (int64_t step : {-3, -1, 2, 4}) {
        if (tripCount(lb, ub, step) == 0)
          continue;
        int64_t last = lb;
        for (int64_t i = lb; step > 0 ? i < ub : i > ub; i += step)
          last = i;
        EXPECT_EQ(lastIteration(lb, ub, step), last);
      }
}

TEST(TripCount, ExactAtTheBoundsVerifiersAccept) {
  // `ub - lb + step - 1` overflowed int64 here (UBSan), for bounds and
  // steps below 2^62 that the verifiers accept.
  constexpr int64_t big = kMaxRepresentable - 1;
  EXPECT_EQ(tripCount(-big, big, 1), 2 * big);
  EXPECT_EQ(tripCount(-big, big, big), 2);
  EXPECT_EQ(tripCount(big, -big, -big), 2);
  EXPECT_EQ(tripCount(big, -big, -1), 2 * big);
  EXPECT_EQ(lastIteration(big, -big, -big), 0);
  // Past int64: saturated, never wrapped to a small or negative count.
  constexpr int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(tripCount(std::numeric_limits<int64_t>::min(), max, 1), max);
  EXPECT_EQ(tripCount(0, max, max), 1);
}

TEST(ByteSize, CheckedAgainstTheRepresentableBound) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_EQ(checkedByteSize({3, 4}, b.getF64Type()), 96);
  EXPECT_EQ(checkedByteSize({}, b.getF32Type()), 4);
  EXPECT_EQ(checkedByteSize({5}, b.getIndexType()), 40);
  EXPECT_EQ(checkedByteSize({7}, b.getI1Type()), 7);
  EXPECT_EQ(checkedByteSize({0, int64_t(1) << 61}, b.getF64Type()), 0);
  // 2^59 doubles are exactly the bound; one more element is not.
  EXPECT_EQ(checkedByteSize({int64_t(1) << 59}, b.getF64Type()),
            kMaxRepresentable);
  EXPECT_EQ(checkedByteSize({(int64_t(1) << 59) + 1}, b.getF64Type()),
            std::nullopt);
  // 2^61 doubles: 2^64 bytes, which a plain product wraps to 0.
  EXPECT_EQ(checkedByteSize({int64_t(1) << 61}, b.getF64Type()), std::nullopt);
  EXPECT_EQ(
      checkedByteSize({int64_t(1) << 32, int64_t(1) << 32}, b.getI8Type()),
      std::nullopt);
  EXPECT_EQ(checkedByteSize({ShapedType::kDynamic}, b.getF64Type()),
            std::nullopt);
  EXPECT_EQ(checkedByteSize({-5}, b.getF64Type()), std::nullopt);
}

class IndexExprTest : public ::testing::Test {
protected:
  IndexExprTest() { ctx.loadDialect<arith::ArithDialect>(); }
  AffineExpr d(unsigned i) { return getAffineDimExpr(i, &ctx); }
  AffineExpr c(int64_t v) { return getAffineConstantExpr(v, &ctx); }
  MLIRContext ctx;
};

TEST_F(IndexExprTest, EvaluatesWithPythonDivisionSemantics) {
  std::optional<int64_t> x = -7, y = 2;
  EXPECT_EQ(evaluate(d(0).floorDiv(2), {x}), -4); // -7 // 2
  EXPECT_EQ(evaluate(d(0).ceilDiv(2), {x}), -3);
  EXPECT_EQ(evaluate(d(0) % 3, {x}), 2); // -7 % 3
  EXPECT_EQ(evaluate(d(0) * d(1) + 1, {x, y}), -13);
  EXPECT_EQ(evaluate(d(0) + 1, {std::nullopt}), std::nullopt);
  EXPECT_EQ(evaluate(d(3), {x}), std::nullopt);
  EXPECT_EQ(evaluate(c(5) - 8, {}), -3);
}

TEST_F(IndexExprTest, ExpandFoldsConstants) {
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module->getBody());
  Value v = expandIndexExpr(b, b.getUnknownLoc(), (c(6) + 4).floorDiv(3), {});
  auto cst = v.getDefiningOp<arith::ConstantIndexOp>();
  ASSERT_TRUE(cst);
  EXPECT_EQ(cst.value(), 3);
}

TEST_F(IndexExprTest, ExpandUsesOperandsAndArithOps) {
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module->getBody());
  Value n = arith::ConstantIndexOp::create(b, b.getUnknownLoc(), 10);
  Value m = arith::ConstantIndexOp::create(b, b.getUnknownLoc(), 3);
  // Constant operands fold: (10 - 1) mod 3 + 3 * 10.
  Value v = expandIndexExpr(b, b.getUnknownLoc(),
                            (d(0) - 1) % d(1) + d(1) * d(0), {n, m});
  auto cst = v.getDefiningOp<arith::ConstantIndexOp>();
  ASSERT_TRUE(cst);
  EXPECT_EQ(cst.value(), 30);
}

} // namespace
