//===- PartitionWorksharingLoops.cpp - Static shares without the runtime --===//
//
// A parallel map lowered by convert-scf-to-openmp is an omp.parallel region
// around one omp.wsloop. Each thread's share under a static schedule is a
// closed form of its number and the team's size, so the threads compute it
// themselves: no __kmpc_for_static_init (which formats a debug message in
// Debian's libomp) and no barrier at the loop's end (the region's join
// follows it). See the pass description in Conversion/Passes.td.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGPARTITIONWORKSHARINGLOOPS
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;

namespace {

/// The loop nest of `loop` when it is the only work of its parallel region
/// and carries no clause that the static split would ignore.
omp::LoopNestOp plainLoop(omp::WsloopOp loop) {
  auto parallel = dyn_cast<omp::ParallelOp>(loop->getParentOp());
  if (!parallel || parallel.getRegion().getBlocks().size() != 1)
    return nullptr;
  Block &region = parallel.getRegion().front();
  if (&region.front() != loop.getOperation() ||
      !isa<omp::TerminatorOp>(loop->getNextNode()))
    return nullptr;
  if (loop.getScheduleKind() || loop.getOrdered() || loop.getOrder() ||
      !loop.getReductionVars().empty() || !loop.getPrivateVars().empty() ||
      !loop.getLinearVars().empty() || !loop.getAllocateVars().empty() ||
      loop.getScheduleSimd())
    return nullptr;
  auto nest = dyn_cast<omp::LoopNestOp>(loop.getWrappedLoop());
  if (!nest || nest.getIVs().size() != 1 || nest.getLoopInclusive() ||
      nest.getRegion().getBlocks().size() != 1 ||
      !nest.getIVs().front().getType().isIndex())
    return nullptr;
  return nest;
}

/// The declaration of the OpenMP query `name` (() -> i32), added if the
/// module has none; null if the module holds something else by that name
/// (an embedding compiler's own declaration), which is then left alone.
func::FuncOp declare(ModuleOp module, StringRef name, Type i32) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  FunctionType type = b.getFunctionType({}, {i32});
  if (Operation *existing = module.lookupSymbol(name)) {
    auto f = dyn_cast<func::FuncOp>(existing);
    return f && f.getFunctionType() == type ? f : nullptr;
  }
  auto f = func::FuncOp::create(b, module.getLoc(), name, type);
  f.setPrivate();
  return f;
}

struct PartitionWorksharingLoopsPass
    : public sdfg::impl::SDFGPartitionWorksharingLoopsBase<
          PartitionWorksharingLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<omp::WsloopOp, omp::LoopNestOp>> loops;
    module.walk([&](omp::WsloopOp loop) {
      if (omp::LoopNestOp nest = plainLoop(loop))
        loops.emplace_back(loop, nest);
    });
    if (loops.empty())
      return;
    Type i32 = IntegerType::get(&getContext(), 32);
    func::FuncOp threadNum = declare(module, "omp_get_thread_num", i32);
    if (!threadNum)
      return;
    func::FuncOp numThreads = declare(module, "omp_get_num_threads", i32);
    if (!numThreads)
      return;
    for (auto [loop, nest] : loops)
      partition(loop, nest, threadNum, numThreads);
  }

  /// Thread t of n runs iterations [t*c, min((t+1)*c, trips)) with
  /// c = ceil(trips / n): OpenMP's static schedule without a chunk size.
  void partition(omp::WsloopOp loop, omp::LoopNestOp nest,
                 func::FuncOp threadNum, func::FuncOp numThreads) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value lb = nest.getLoopLowerBounds().front();
    Value ub = nest.getLoopUpperBounds().front();
    Value step = nest.getLoopSteps().front();
    auto index = [&](Value v) {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
    };
    Value t = index(func::CallOp::create(b, loc, threadNum).getResult(0));
    Value n = index(func::CallOp::create(b, loc, numThreads).getResult(0));
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    Value trips = arith::MaxSIOp::create(
        b, loc, zero, arith::CeilDivSIOp::create(b, loc, span, step));
    Value chunk = arith::CeilDivSIOp::create(b, loc, trips, n);
    Value first = arith::MinSIOp::create(
        b, loc, arith::MulIOp::create(b, loc, t, chunk), trips);
    Value last = arith::MinSIOp::create(
        b, loc, arith::AddIOp::create(b, loc, first, chunk), trips);
    auto at = [&](Value k) {
      return arith::AddIOp::create(b, loc, lb,
                                   arith::MulIOp::create(b, loc, k, step));
    };
    auto share = scf::ForOp::create(b, loc, at(first), at(last), step);
    // The loop nest's body, its omp.yield now an scf.yield, runs in an
    // scf.execute_region: the memref.alloca_scope convert-scf-to-openmp
    // wraps it in becomes several blocks before scf-to-cf runs, which an
    // scf.for body may not hold.
    b.setInsertionPoint(share.getBody()->getTerminator());
    auto iteration = scf::ExecuteRegionOp::create(b, loc, TypeRange());
    Block &body = nest.getRegion().front();
    body.getArgument(0).replaceAllUsesWith(share.getInductionVar());
    Operation *yield = body.getTerminator();
    b.setInsertionPoint(yield);
    scf::YieldOp::create(b, yield->getLoc());
    yield->erase();
    Block *into = new Block();
    iteration.getRegion().push_back(into);
    into->getOperations().splice(into->end(), body.getOperations());
    loop.erase();
  }
};

} // namespace
