//===- EmulateGPU.cpp - The GPU program of sdfg run on the host -----------===//
//
// Rewrites what convert-sdfg-to-gpu produces so that the CPU runs
// it: kernels, their atomics, the unified-memory containers and the copies
// in and out are kept exactly as the GPU path generates them, only the
// launch and the runtime calls change. Every thread of a launch becomes one
// point of an scf.parallel (OpenMP), so threads really run concurrently and
// a missing atomic can show as a wrong result. This is valid for kernels that
// use no shared memory and no intra-block synchronisation, which is all
// that the sdfg GPU lowering emits; anything else is rejected.
//
//===----------------------------------------------------------------------===//

#include "sdfg/Conversion/Passes.h"
#include "sdfg/Conversion/SDFGToSCF/LoopNests.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace sdfg {
#define GEN_PASS_DEF_SDFGEMULATEGPU
#include "sdfg/Conversion/Passes.h.inc"
} // namespace sdfg
} // namespace mlir

using namespace mlir;
using mlir::sdfg::forEachElement;

namespace {

/// The value of dimension `dim` in (x, y, z).
Value pick(const gpu::KernelDim3 &d, gpu::Dimension dim) {
  switch (dim) {
  case gpu::Dimension::x:
    return d.x;
  case gpu::Dimension::y:
    return d.y;
  case gpu::Dimension::z:
    return d.z;
  }
  llvm_unreachable("unknown gpu dimension");
}

/// The counters of racing writes and of racing reads the emulated program
/// keeps (see instrumentRaces), created once per module.
constexpr StringLiteral kRaceCounter = "sdfg_emulator_races";
constexpr StringLiteral kReadRaceCounter = "sdfg_emulator_read_races";

Value raceCounter(OpBuilder &b, Location loc, ModuleOp module, StringRef name) {
  auto global = module.lookupSymbol<memref::GlobalOp>(name);
  if (!global) {
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    Type i64 = top.getI64Type();
    global = memref::GlobalOp::create(
        top, module.getLoc(), name, /*sym_visibility=*/StringAttr(),
        MemRefType::get({}, i64),
        DenseElementsAttr::get(RankedTensorType::get({}, i64),
                               top.getI64IntegerAttr(0).getValue()),
        /*constant=*/false, /*alignment=*/IntegerAttr());
  }
  return memref::GetGlobalOp::create(b, loc, global.getType(), name);
}

/// Whether `buffer` comes from outside the emulated launch `par` (a
/// container, not a thread's local).
bool fromOutside(scf::ParallelOp par, Value buffer) {
  return !par->isAncestor(buffer.getParentBlock()->getParentOp());
}

/// A buffer of `buffer`'s shape with i64 elements, allocated at the
/// builder's insertion point.
Value shadowOf(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, buffer, d));
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), b.getI64Type()), sizes);
}

/// Makes the data races of the launch `par` emulates deterministic to
/// find, whatever the timing (two threads that never meet are caught):
///  - write-write: every plain store to a buffer from outside the kernel
///    also swaps the writing thread's number into a shadow buffer (-1
///    before the launch); a store that finds another thread's number there
///    counts one race in sdfg_emulator_races;
///  - read-write: for each buffer from outside that the kernel both reads
///    (plain loads) and writes (stores or atomics), every access also
///    folds its thread into a per-element summary of the readers and one
///    of the writers (-1 nobody, a thread's number, -2 several threads);
///    after the launch, an element read and written by anything but one
///    and the same thread counts one race in sdfg_emulator_read_races
///    (on a GPU the read sees the old or the new value, by timing).
/// The caller reads both counters after the call.
void instrumentRaces(OpBuilder &b, Location loc, scf::ParallelOp par,
                     ValueRange ubs, ModuleOp module) {
  SmallVector<memref::StoreOp> stores;
  SmallVector<Operation *> writes;
  SmallVector<memref::LoadOp> loads;
  par.getBody()->walk([&](Operation *op) {
    if (auto s = dyn_cast<memref::StoreOp>(op)) {
      if (fromOutside(par, s.getMemref())) {
        stores.push_back(s);
        writes.push_back(s);
      }
    } else if (auto a = dyn_cast<memref::AtomicRMWOp>(op)) {
      if (fromOutside(par, a.getMemref()))
        writes.push_back(a);
    } else if (auto g = dyn_cast<memref::GenericAtomicRMWOp>(op)) {
      if (fromOutside(par, g.getMemref()))
        writes.push_back(g);
    } else if (auto l = dyn_cast<memref::LoadOp>(op)) {
      if (fromOutside(par, l.getMemref()))
        loads.push_back(l);
    }
  });
  auto written = [](Operation *op) {
    if (auto s = dyn_cast<memref::StoreOp>(op))
      return std::make_pair(s.getMemref(), ValueRange(s.getIndices()));
    if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
      return std::make_pair(a.getMemref(), ValueRange(a.getIndices()));
    auto g = cast<memref::GenericAtomicRMWOp>(op);
    return std::make_pair(g.getMemref(), ValueRange(g.getIndices()));
  };
  llvm::SmallPtrSet<Value, 8> writtenBuffers;
  for (Operation *w : writes)
    writtenBuffers.insert(written(w).first);
  if (writtenBuffers.empty())
    return;
  Type i64 = b.getI64Type();
  Value none = arith::ConstantIntOp::create(b, loc, -1, 64);
  Value several = arith::ConstantIntOp::create(b, loc, -2, 64);
  Value one = arith::ConstantIntOp::create(b, loc, 1, 64);
  Value counter = raceCounter(b, loc, module, kRaceCounter);
  // Shadows of written buffers (write-write) and the readers' and writers'
  // summaries of buffers also read (read-write).
  llvm::MapVector<Value, Value> shadows, readers, writers;
  for (memref::StoreOp s : stores)
    if (!shadows.count(s.getMemref()))
      shadows[s.getMemref()] = shadowOf(b, loc, s.getMemref());
  for (memref::LoadOp l : loads) {
    Value buffer = l.getMemref();
    if (writtenBuffers.contains(buffer) && !readers.count(buffer)) {
      readers[buffer] = shadowOf(b, loc, buffer);
      writers[buffer] = shadowOf(b, loc, buffer);
    }
  }
  for (auto *table : {&shadows, &readers, &writers})
    for (auto &entry : *table)
      forEachElement(b, loc, entry.second, [&](ValueRange idx) {
        memref::StoreOp::create(b, loc, none, entry.second, idx);
      });
  Value readCounter =
      readers.empty() ? Value() : raceCounter(b, loc, module, kReadRaceCounter);
  // The thread's number, row-major over the loop's dimensions.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(par.getBody());
  Value tid = par.getInductionVars()[0];
  for (unsigned d = 1; d < ubs.size(); ++d)
    tid = arith::AddIOp::create(b, loc,
                                arith::MulIOp::create(b, loc, tid, ubs[d]),
                                par.getInductionVars()[d]);
  tid = arith::IndexCastOp::create(b, loc, i64, tid);
  for (memref::StoreOp s : stores) {
    b.setInsertionPointAfter(s);
    Value previous =
        memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::assign, tid,
                                    shadows[s.getMemref()], s.getIndices());
    Value set =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, previous, none);
    Value other =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, previous, tid);
    Value race = arith::AndIOp::create(b, loc, set, other);
    auto ifRace = scf::IfOp::create(b, loc, TypeRange{}, race, false);
    b.setInsertionPoint(ifRace.thenBlock()->getTerminator());
    memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one,
                                counter, ValueRange{});
  }
  // Folds the thread into a summary: itself when empty or already its
  // own, else "several".
  auto note = [&](Operation *after, Value summary, ValueRange idx) {
    b.setInsertionPointAfter(after);
    auto rmw = memref::GenericAtomicRMWOp::create(b, loc, summary, idx);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(rmw.getBody());
    Value cur = rmw.getCurrentValue();
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cur, none);
    Value mine =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cur, tid);
    Value keep = arith::OrIOp::create(b, loc, empty, mine);
    memref::AtomicYieldOp::create(
        b, loc, arith::SelectOp::create(b, loc, keep, tid, several));
  };
  for (memref::LoadOp l : loads)
    if (Value summary = readers.lookup(l.getMemref()))
      note(l, summary, l.getIndices());
  for (Operation *w : writes) {
    auto [buffer, idx] = written(w);
    if (Value summary = writers.lookup(buffer))
      note(w, summary, idx);
  }
  // After the launch: the read-write verdict per element, then the
  // shadows go.
  b.setInsertionPointAfter(par);
  for (auto &entry : readers) {
    Value read = entry.second, wrote = writers[entry.first];
    forEachElement(b, loc, read, [&](ValueRange idx) {
      Value r = memref::LoadOp::create(b, loc, read, idx);
      Value w = memref::LoadOp::create(b, loc, wrote, idx);
      Value isRead =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, none);
      Value isWritten =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, w, none);
      // Not one and the same thread: different, or both "several".
      Value apart = arith::OrIOp::create(
          b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, w),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, r, several));
      Value race = arith::AndIOp::create(
          b, loc, arith::AndIOp::create(b, loc, isRead, isWritten), apart);
      auto ifRace = scf::IfOp::create(b, loc, TypeRange{}, race, false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(ifRace.thenBlock()->getTerminator());
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addi, one,
                                  readCounter, ValueRange{});
    });
  }
  for (auto *table : {&shadows, &readers, &writers})
    for (auto &entry : *table)
      memref::DeallocOp::create(b, loc, entry.second);
}

/// gpu.launch -> scf.parallel over (block z, y, x, thread z, y, x).
LogicalResult emulateLaunch(gpu::LaunchOp launch, bool checkRaces) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError("cannot be emulated: asynchronous launch");
  if (launch.hasClusterSize() || launch.getDynamicSharedMemorySize() ||
      launch.getNumWorkgroupAttributions() ||
      !launch.getPrivateAttributions().empty())
    return launch.emitOpError("cannot be emulated: clusters, shared or "
                              "private memory attributions");
  if (!launch.getBody().hasOneBlock())
    return launch.emitOpError("cannot be emulated: a body of several blocks");
  // Threads of a block run in any order and concurrently: anything that
  // relies on them meeting (barriers, shuffles, shared memory) has no
  // meaning here.
  WalkResult unsupported = launch.getBody().walk([](Operation *op) {
    if (isa<gpu::GPUDialect>(op->getDialect()) &&
        !isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
             gpu::TerminatorOp>(op)) {
      op->emitOpError("cannot be emulated on the host");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return failure();

  Location loc = launch.getLoc();
  OpBuilder b(launch);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  SmallVector<Value> ubs = {grid.z, grid.y, grid.x, block.z, block.y, block.x};
  auto par = scf::ParallelOp::create(b, loc, SmallVector<Value>(6, zero), ubs,
                                     SmallVector<Value>(6, one));
  SmallVector<Value> iv(par.getInductionVars());
  gpu::KernelDim3 blockIds{iv[2], iv[1], iv[0]};
  gpu::KernelDim3 threadIds{iv[5], iv[4], iv[3]};

  IRMapping map;
  auto mapDim3 = [&](gpu::KernelDim3 from, gpu::KernelDim3 to) {
    map.map(from.x, to.x);
    map.map(from.y, to.y);
    map.map(from.z, to.z);
  };
  mapDim3(launch.getBlockIds(), blockIds);
  mapDim3(launch.getThreadIds(), threadIds);
  mapDim3(launch.getGridSize(), grid);
  mapDim3(launch.getBlockSize(), block);
  b.setInsertionPoint(par.getBody()->getTerminator());
  for (Operation &op : launch.getBody().front().without_terminator())
    b.clone(op, map);
  ModuleOp module = launch->getParentOfType<ModuleOp>();
  launch.erase();
  if (checkRaces) {
    b.setInsertionPoint(par);
    instrumentRaces(b, loc, par, ubs, module);
  }

  // Index queries, where the kernel uses them instead of the block
  // arguments.
  par.getBody()->walk([&](Operation *op) {
    Value v;
    if (auto q = dyn_cast<gpu::ThreadIdOp>(op))
      v = pick(threadIds, q.getDimension());
    else if (auto q = dyn_cast<gpu::BlockIdOp>(op))
      v = pick(blockIds, q.getDimension());
    else if (auto q = dyn_cast<gpu::BlockDimOp>(op))
      v = pick(block, q.getDimension());
    else if (auto q = dyn_cast<gpu::GridDimOp>(op))
      v = pick(grid, q.getDimension());
    else
      return;
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
  });
  return success();
}

/// Host-level gpu ops: unified memory becomes host memory; waits, whose
/// order the host keeps anyway, disappear.
LogicalResult emulateHostOps(ModuleOp module) {
  SmallVector<Operation *> dead;
  WalkResult result = module.walk([&](Operation *op) {
    if (!isa<gpu::GPUDialect>(op->getDialect()))
      return WalkResult::advance();
    OpBuilder b(op);
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      // Unified and device memory alike (sdfg-gpu-device-memory makes the
      // latter asynchronous, followed by a wait).
      Value mem = memref::AllocOp::create(
          b, op->getLoc(), alloc.getMemref().getType(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), b.getI64IntegerAttr(64));
      alloc.getMemref().replaceAllUsesWith(mem);
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      memref::DeallocOp::create(b, op->getLoc(), dealloc.getMemref());
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      memref::CopyOp::create(b, op->getLoc(), copy.getSrc(), copy.getDst());
    } else if (!isa<gpu::WaitOp>(op)) {
      op->emitOpError("cannot be emulated on the host");
      return WalkResult::interrupt();
    }
    dead.push_back(op);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  // Async tokens only flow between these ops, forward in program order:
  // erasing backwards removes every user before its producer.
  for (Operation *op : llvm::reverse(dead)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

/// sdfg_gpu_cblas_* (cuBLAS in the GPU runtime) -> cblas_* (OpenBLAS): the
/// runtime's functions have the CBLAS signatures.
void useHostBLAS(ModuleOp module) {
  constexpr StringLiteral prefix = "sdfg_gpu_";
  SymbolTable symbols(module);
  for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    StringRef name = fn.getSymName();
    if (!name.starts_with(prefix) || !fn.isExternal())
      continue;
    auto hostName =
        StringAttr::get(module.getContext(), name.drop_front(prefix.size()));
    if (failed(SymbolTable::replaceAllSymbolUses(fn, hostName, module)))
      continue;
    if (symbols.lookup(hostName))
      symbols.erase(fn);
    else
      symbols.setSymbolName(fn, hostName);
  }
}

struct EmulateGPUPass : public sdfg::impl::SDFGEmulateGPUBase<EmulateGPUPass> {
  using SDFGEmulateGPUBase::SDFGEmulateGPUBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module.getOps<gpu::GPUModuleOp>().empty()) {
      module.emitError("sdfg-emulate-gpu runs before gpu-kernel-outlining: "
                       "this module already holds gpu.module kernels");
      return signalPassFailure();
    }
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp l : launches)
      if (failed(emulateLaunch(l, checkRaces)))
        return signalPassFailure();
    if (failed(emulateHostOps(module)))
      return signalPassFailure();
    useHostBLAS(module);
  }
};
} // namespace
