//===- LoopLikeTest.cpp - sdfg loops as upstream's LoopLikeOpInterface ----===//
//
// Upstream utilities see sdfg.loop, sdfg.map and sdfg.while as loops: the
// regions that repeat and the induction variables.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h"
#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::sdfg;

namespace {

const char *kLoops = R"mlir(
sdfg.sdfg @f(%X: memref<8x8xf64>, %N: index) {
  sdfg.loop %t = 0 to %N step 2 {
    sdfg.state {
      sdfg.map (%i, %j) = (0, 0) to (8, 8) step (1, 1) schedule(sequential) {
        %x = sdfg.load %X[%i, %j] : memref<8x8xf64>
        sdfg.store %x, %X[%j, %i] : memref<8x8xf64>
      }
    }
  }
  sdfg.while {
    %x = sdfg.load %X[0, 0] : memref<8x8xf64>
    %c = sdfg.tasklet(%x) : (f64) -> i1 {
    ^bb0(%v: f64):
      %l = arith.constant 1.0 : f64
      %r = arith.cmpf olt, %v, %l : f64
      sdfg.yield %r : i1
    }
    sdfg.condition %c
  } do {
    sdfg.state {
    }
  }
}
)mlir";

TEST(LoopLike, LoopsMapsAndWhileLoops) {
  MLIRContext ctx;
  DialectRegistry registry;
  registerSDFGDialect(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kLoops, &ctx);
  ASSERT_TRUE(module);

  SDFGOp f = *module->getOps<SDFGOp>().begin();
  LoopOp loop = *f.getOps<LoopOp>().begin();
  auto loopLike = cast<LoopLikeOpInterface>(loop.getOperation());
  ASSERT_EQ(loopLike.getLoopRegions().size(), 1u);
  EXPECT_EQ(loopLike.getLoopRegions()[0], &loop.getBody());
  std::optional<SmallVector<Value>> ivs = loopLike.getLoopInductionVars();
  ASSERT_TRUE(ivs && ivs->size() == 1);
  EXPECT_EQ((*ivs)[0], loop.getIterator());

  MapOp map;
  loop.walk([&](MapOp m) { map = m; });
  ASSERT_TRUE(map);
  ivs = cast<LoopLikeOpInterface>(map.getOperation()).getLoopInductionVars();
  ASSERT_TRUE(ivs && ivs->size() == 2);
  EXPECT_EQ((*ivs)[0], map.getParams()[0]);
  EXPECT_EQ((*ivs)[1], map.getParams()[1]);
  // The load is defined inside the map, the container outside it.
  auto mapLike = cast<LoopLikeOpInterface>(map.getOperation());
  LoadOp load = *map.getBody().getOps<LoadOp>().begin();
  EXPECT_FALSE(mapLike.isDefinedOutsideOfLoop(load.getResult()));
  EXPECT_TRUE(mapLike.isDefinedOutsideOfLoop(load.getMemref()));

  WhileOp whileOp = *f.getOps<WhileOp>().begin();
  auto whileLike = cast<LoopLikeOpInterface>(whileOp.getOperation());
  ASSERT_EQ(whileLike.getLoopRegions().size(), 2u);
  EXPECT_EQ(whileLike.getLoopRegions()[0], &whileOp.getCond());
  EXPECT_EQ(whileLike.getLoopRegions()[1], &whileOp.getBody());
  EXPECT_FALSE(whileLike.getLoopInductionVars());
}

} // namespace
