//===- GPUKernels.cpp - gpu_device maps as gpu.launch kernels -------------===//
//
// One thread per point of the map's last (up to) three dimensions, x on the
// innermost so that neighbouring threads touch neighbouring elements of
// row-major containers (coalesced); grid-stride loops where a dimension
// needs more blocks than CUDA's grid allows. gpu-kernel-outlining later turns
// each gpu.launch into a gpu.func.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::sdfg;
using namespace mlir::sdfg::detail;

/// Threads per block (x, y, z) by the number of parallel dimensions:
/// 256 threads, with a warp's 32 along the contiguous dimension.
static constexpr int64_t kBlockShape[3][3] = {
    {256, 1, 1}, {32, 8, 1}, {32, 4, 2}};
/// CUDA's limits on the grid (blocks along x, y, z, on every card since
/// compute capability 3.0). A longer dimension is covered by grid-stride
/// loops: a 3-d map of 140001 x 2 x 2 would otherwise ask for 70001
/// blocks along z, which cuLaunchKernel refuses.
static constexpr int64_t kMaxGrid[3] = {2147483647, 65535, 65535};

LogicalResult GPULowering::lowerGPUMap(MapOp op, ArrayRef<Value> lbs,
                                       ArrayRef<Value> ubs,
                                       ArrayRef<Value> steps) {
  Location loc = op.getLoc();
  unsigned n = op.getNumParams();
  unsigned par = std::min(n, 3u);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = cst(0), one = cst(1);
  // Thread dimension k (x = 0) runs map dimension n - 1 - k.
  SmallVector<Value> trips, grid, block;
  for (unsigned k = 0; k < 3; ++k) {
    block.push_back(cst(kBlockShape[par - 1][k]));
    if (k >= par) {
      grid.push_back(one);
      continue;
    }
    unsigned d = n - 1 - k;
    Value trip = arith::CeilDivSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ubs[d], lbs[d]), steps[d]);
    trip = arith::MaxSIOp::create(b, loc, trip, zero);
    trips.push_back(trip);
    // A launch needs at least one block; its threads' loops run no
    // iteration then.
    Value blocks = arith::CeilDivSIOp::create(b, loc, trip, block.back());
    blocks = arith::MaxSIOp::create(b, loc, blocks, one);
    grid.push_back(arith::MinSIOp::create(b, loc, blocks, cst(kMaxGrid[k])));
  }
  auto launch = gpu::LaunchOp::create(b, loc, grid[0], grid[1], grid[2],
                                      block[0], block[1], block[2]);
  OpBuilder::InsertionGuard guard(b);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(terminator);

  gpu::KernelDim3 bid = launch.getBlockIds(), tid = launch.getThreadIds(),
                  bdim = launch.getBlockSize(), gdim = launch.getGridSize();
  Value ids[3][4] = {{bid.x, tid.x, bdim.x, gdim.x},
                     {bid.y, tid.y, bdim.y, gdim.y},
                     {bid.z, tid.z, bdim.z, gdim.z}};
  // Each thread runs the points linear, linear + (grid * block), ... of
  // its dimensions (one point unless the grid was capped); the loop's
  // bound also idles the excess threads of the last block.
  for (int k = par - 1; k >= 0; --k) {
    unsigned d = n - 1 - k;
    Value linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, ids[k][0], ids[k][2]), ids[k][1]);
    Value stride = arith::MulIOp::create(b, loc, ids[k][3], ids[k][2]);
    auto loop = scf::ForOp::create(b, loc, linear, trips[k], stride);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value param = arith::AddIOp::create(
        b, loc, lbs[d],
        arith::MulIOp::create(b, loc, loop.getInductionVar(), steps[d]));
    mapping.map(op.getParams()[d], param);
  }
  // Leading dimensions beyond the third: loops in every thread.
  openLoops(op, 0, n - par, lbs, ubs, steps);
  // A WCR write is atomic unless the threads' parameters select distinct
  // elements (writesThreadPrivate). disjoint_wcr vouches for the first
  // parameter only: the autodiff's colour sweeps give it to maps whose
  // iterations with the same first parameter may well collide, which the
  // CPU, distributing the first parameter alone, never sees. Nested maps
  // run sequentially in each thread.
  SmallVector<Value, 3> distinct;
  for (unsigned k = 0; k < par; ++k) {
    unsigned d = n - 1 - k;
    if (!(d == 0 && op.getDisjointWcr()))
      distinct.push_back(op.getParams()[d]);
  }
  threadParams = distinct;
  ++parallelDepth;
  ++atomicDepth;
  LogicalResult result = lowerRegion(op.getBody());
  --atomicDepth;
  --parallelDepth;
  threadParams.reset();
  return result;
}

bool GPULowering::runsOnOneThread(Operation *op) {
  if (!gpu || parallelDepth > 0 || op->getNumResults() > 0 ||
      !isa<StateOp, LoopOp, IfOp, WhileOp>(op))
    return false;
  bool touchesData = false;
  WalkResult r = op->walk([&](Operation *inner) {
    if (isLibraryCall(inner))
      return WalkResult::interrupt(); // cuBLAS, called from the host
    if (auto map = dyn_cast<MapOp>(inner))
      if (map.getSchedule() == ScheduleKind::gpu_device)
        return WalkResult::interrupt(); // a kernel launched from the host
    if (isa<LoadOp, StoreOp, CopyOp, TransposeOp, ReduceOp>(inner))
      touchesData = true;
    return WalkResult::advance();
  });
  return touchesData && !r.wasInterrupted();
}

/// Scalar states and element loops (Python loops over elements, the
/// autodiff's reversals of them) between kernels would otherwise run on
/// the host over unified memory, moving pages back and forth at every
/// access; one GPU thread runs them where the data is.
LogicalResult GPULowering::lowerOnOneThread(Operation *op) {
  Location loc = op->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
  OpBuilder::InsertionGuard guard(b);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(b, loc);
  b.setInsertionPoint(terminator);
  // One thread: every write is its own (no atomics), nested maps are
  // loops.
  threadParams = SmallVector<Value, 3>();
  ++parallelDepth;
  LogicalResult result = lowerOp(op);
  --parallelDepth;
  threadParams.reset();
  return result;
}
