//===- CheckpointModelBuilderTest.cpp - Model of a gradient program -------===//
//
// The model built from the store-all program must predict, for every
// store/recompute decision, exactly the peak of the program built with
// those decisions (measured the way code generation allocates).
//
//===----------------------------------------------------------------------===//

#include "sdfg/AutoDiff/Transforms/CheckpointModelBuilder.h"
#include "sdfg/AutoDiff/Implementations/Register.h"
#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::sdfg;

namespace {

/// The paper's example as the frontend writes it, on 4x4 float32 arrays.
const char *kPaper = R"mlir(
sdfg.sdfg @paper(%C: memref<4x4xf32> {sdfg.name = "C"},
                 %D: memref<4x4xf32> {sdfg.name = "D"},
                 %r: memref<f32> {sdfg.name = "r"}) attributes {ad_output = "r"} {
  %A0 = sdfg.alloc() {name = "A0"} : memref<4x4xf32>
  %s0 = sdfg.alloc() {name = "s0"} : memref<4x4xf32>
  %D1 = sdfg.alloc() {name = "D1"} : memref<4x4xf32>
  %A1 = sdfg.alloc() {name = "A1"} : memref<4x4xf32>
  %s1 = sdfg.alloc() {name = "s1"} : memref<4x4xf32>
  %sum = sdfg.alloc() {name = "sum"} : memref<f32>
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %c = sdfg.load %C[%i, %j] : memref<4x4xf32>
      %d = sdfg.load %D[%i, %j] : memref<4x4xf32>
      %p = sdfg.tasklet(%c, %d) : (f32, f32) -> f32 {
      ^bb0(%a: f32, %b: f32):
        %m = arith.mulf %a, %b : f32
        sdfg.yield %m : f32
      }
      sdfg.store %p, %A0[%i, %j] : memref<4x4xf32>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %a = sdfg.load %A0[%i, %j] : memref<4x4xf32>
      %s = sdfg.tasklet(%a) : (f32) -> f32 {
      ^bb0(%x: f32):
        %y = math.sin %x : f32
        sdfg.yield %y : f32
      }
      sdfg.store %s, %s0[%i, %j] : memref<4x4xf32>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %d = sdfg.load %D[%i, %j] : memref<4x4xf32>
      %s = sdfg.tasklet(%d) : (f32) -> f32 {
      ^bb0(%x: f32):
        %six = arith.constant 6.0 : f32
        %y = arith.mulf %x, %six : f32
        sdfg.yield %y : f32
      }
      sdfg.store %s, %D1[%i, %j] : memref<4x4xf32>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %c = sdfg.load %C[%i, %j] : memref<4x4xf32>
      %d = sdfg.load %D1[%i, %j] : memref<4x4xf32>
      %p = sdfg.tasklet(%c, %d) : (f32, f32) -> f32 {
      ^bb0(%a: f32, %b: f32):
        %m = arith.mulf %a, %b : f32
        sdfg.yield %m : f32
      }
      sdfg.store %p, %A1[%i, %j] : memref<4x4xf32>
    }
  }
  sdfg.state {
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %a = sdfg.load %A1[%i, %j] : memref<4x4xf32>
      %s = sdfg.tasklet(%a) : (f32) -> f32 {
      ^bb0(%x: f32):
        %y = math.sin %x : f32
        sdfg.yield %y : f32
      }
      sdfg.store %s, %s1[%i, %j] : memref<4x4xf32>
    }
  }
  sdfg.state {
    %z = sdfg.tasklet() : () -> f32 {
      %c0 = arith.constant 0.0 : f32
      sdfg.yield %c0 : f32
    }
    sdfg.store %z, %sum[] : memref<f32>
    sdfg.map (%i, %j) = (0, 0) to (4, 4) step (1, 1) schedule(sequential) {
      %a = sdfg.load %s0[%i, %j] : memref<4x4xf32>
      %b = sdfg.load %s1[%i, %j] : memref<4x4xf32>
      %t = sdfg.tasklet(%a, %b) : (f32, f32) -> f32 {
      ^bb0(%x: f32, %y: f32):
        %v = arith.addf %x, %y : f32
        sdfg.yield %v : f32
      }
      sdfg.store %t, %sum[] wcr(add) : memref<f32>
    }
    %v = sdfg.load %sum[] : memref<f32>
    sdfg.store %v, %r[] : memref<f32>
  }
}
)mlir";

/// A time loop: tmp = tanh(u) each step, read by a product in the same
/// step; the update goes through v (a reader that overwrote u would need
/// u's old value to recompute tmp, so tmp would have to be stored).
const char *kLoop = R"mlir(
sdfg.sdfg @loop(%u: memref<8xf64> {sdfg.name = "u"}) attributes {ad_output = "u", ad_wrt = ["u"]} {
  %tmp = sdfg.alloc() {name = "tmp"} : memref<8xf64>
  %v = sdfg.alloc() {name = "v"} : memref<8xf64>
  sdfg.loop %t = 0 to 5 step 1 {
    sdfg.state {
      sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
        %x = sdfg.load %u[%i] : memref<8xf64>
        %y = sdfg.tasklet(%x) : (f64) -> f64 {
        ^bb0(%a: f64):
          %r = math.tanh %a : f64
          sdfg.yield %r : f64
        }
        sdfg.store %y, %tmp[%i] : memref<8xf64>
      }
    }
    sdfg.state {
      sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
        %x = sdfg.load %u[%i] : memref<8xf64>
        %y = sdfg.load %tmp[%i] : memref<8xf64>
        %z = sdfg.tasklet(%x, %y) : (f64, f64) -> f64 {
        ^bb0(%a: f64, %b: f64):
          %p = arith.mulf %b, %b : f64
          %q = arith.addf %a, %p : f64
          sdfg.yield %q : f64
        }
        sdfg.store %z, %v[%i] : memref<8xf64>
      }
    }
    sdfg.state {
      sdfg.map (%i) = (0) to (8) step (1) schedule(sequential) {
        %x = sdfg.load %v[%i] : memref<8xf64>
        sdfg.store %x, %u[%i] : memref<8xf64>
      }
    }
  }
}
)mlir";

class ModelBuilder : public ::testing::Test {
protected:
  ModelBuilder() {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, math::MathDialect>();
    registerSDFGDialect(registry);
    registerAutoDiffModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  SDFGOp parse(const char *src) {
    module = parseSourceString<ModuleOp>(src, &ctx);
    EXPECT_TRUE(module);
    return *module->getOps<SDFGOp>().begin();
  }

  /// For every decision vector: the model's peak equals the peak of the
  /// program built with those decisions.
  void checkEveryDecision(SDFGOp fwd, const CheckpointProblem &problem,
                          const std::vector<RecomputeCandidate> &cands) {
    unsigned n = problem.model.candidates.size();
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      std::vector<bool> decision(n);
      DifferentiateOptions opts;
      for (unsigned i = 0; i < n; ++i) {
        decision[i] = (mask >> i) & 1;
        if (decision[i])
          opts.recompute.insert(cands[problem.candidateIndex[i]].name);
      }
      if (!problem.model.admissible(decision))
        continue;
      FailureOr<DifferentiateResult> built = differentiate(fwd, opts);
      ASSERT_TRUE(succeeded(built));
      FailureOr<int64_t> peak = transientPeakBytes(built->grad, {});
      ASSERT_TRUE(succeeded(peak));
      EXPECT_EQ(*peak, problem.model.peakBytes(decision)) << "mask " << mask;
      built->grad.erase();
    }
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(ModelBuilder, PaperExample) {
  SDFGOp fwd = parse(kPaper);
  DifferentiateOptions opts;
  opts.markAnchors = true;
  FailureOr<DifferentiateResult> storeAll = differentiate(fwd, opts);
  ASSERT_TRUE(succeeded(storeAll));
  FailureOr<CheckpointProblem> problem = buildCheckpointModel(*storeAll, {});
  ASSERT_TRUE(succeeded(problem));
  const CheckpointModel &m = problem->model;
  // A0 and A1 are read by sin's derivative; D1 by the product's.
  ASSERT_EQ(m.candidates.size(), 3u);
  EXPECT_EQ(m.candidates[0].name, "A0");
  EXPECT_EQ(m.candidates[1].name, "D1");
  EXPECT_EQ(m.candidates[2].name, "A1");
  for (const Candidate &c : m.candidates)
    EXPECT_EQ(c.bytes, 64);
  // One elementwise product re-run: 16 multiplications, 32 loads, 16
  // stores.
  EXPECT_EQ(m.candidates[0].recomputeCost, 64.0);
  // Recomputing A1 re-runs code that reads D1 as stored.
  ASSERT_EQ(m.exclusive.size(), 1u);
  EXPECT_EQ(m.exclusive[0], (std::pair<unsigned, unsigned>{2, 1}));
  FailureOr<int64_t> storeAllPeak = transientPeakBytes(storeAll->grad, {});
  ASSERT_TRUE(succeeded(storeAllPeak));
  EXPECT_EQ(m.peakBytes({false, false, false}), *storeAllPeak);
  std::vector<RecomputeCandidate> cands = storeAll->candidates;
  storeAll->grad.erase();
  checkEveryDecision(fwd, *problem, cands);
}

TEST_F(ModelBuilder, TimeLoop) {
  SDFGOp fwd = parse(kLoop);
  DifferentiateOptions opts;
  opts.markAnchors = true;
  FailureOr<DifferentiateResult> storeAll = differentiate(fwd, opts);
  ASSERT_TRUE(succeeded(storeAll));
  FailureOr<CheckpointProblem> problem = buildCheckpointModel(*storeAll, {});
  ASSERT_TRUE(succeeded(problem));
  const CheckpointModel &m = problem->model;
  ASSERT_EQ(m.candidates.size(), 1u);
  EXPECT_EQ(m.candidates[0].name, "tmp");
  // Five steps of 8 tanh, 8 loads and 8 stores.
  EXPECT_EQ(m.candidates[0].recomputeCost, 5 * 24.0);
  // Storing keeps tmp and its five overwritten copies; recomputing keeps
  // tmp alone (once in the forward, once in the backward program).
  EXPECT_EQ(m.peakBytes({false}) - m.peakBytes({true}), 5 * 64);
  std::vector<RecomputeCandidate> cands = storeAll->candidates;
  storeAll->grad.erase();
  checkEveryDecision(fwd, *problem, cands);
}

} // namespace
