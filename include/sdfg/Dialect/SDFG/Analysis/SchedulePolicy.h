//===- SchedulePolicy.h - When work runs on every core ----------*- C++ -*-===//
//
// The one home of the thresholds that decide sequential or parallel: the
// Python frontend reads kParallelMapIterations from the tools
// (`sdfg-opt --print-policy`) instead of keeping its own copy, the
// transforms that create maps and the CPU lowering use the rest.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_ANALYSIS_SCHEDULEPOLICY_H
#define SDFG_DIALECT_SDFG_ANALYSIS_SCHEDULEPOLICY_H

#include "sdfg/Dialect/SDFG/IR/SDFGOps.h"

#include <cstdint>

namespace mlir {
namespace sdfg {

/// A map made by the frontend or by a transform runs on every core
/// (cpu_multicore) from this many iterations on, else sequentially.
constexpr int64_t kParallelMapIterations = 4096;

/// For maps nobody scheduled by size (the autodiff's reversals and colour
/// sweeps, hand-written IR), the CPU lowering runs them sequentially below
/// this many iterations: forking and joining costs more. Half of
/// kParallelMapIterations, so that the two colour sweeps of a map made
/// parallel stay parallel.
constexpr int64_t kMinParallelIterations = kParallelMapIterations / 2;

/// Nor below this many operations (loads, stores, arithmetic): waking
/// sleeping workers takes 50-100 us on the VMs measured, and the autodiff's
/// clears and copies of results do two operations per element. Those stay
/// sequential up to 8k elements; a stencil point of eight operations forks
/// from 2048 points.
constexpr int64_t kMinParallelOps = 16384;

/// In a program that calls BLAS or LAPACK, far more: OpenBLAS's workers
/// spin for about 0.1 s after each call, on as many cores as the OpenMP
/// team uses, so a team that forks then shares its cores with them and its
/// barrier waits for descheduled threads. Measured on 2 cores (size S of
/// the peer suite, this threshold vs. none): tight_binding's forward 3.8 ->
/// 1.85 ms and gradient 3.5 -> 2.5, logreg's gradient 3.1 -> 2.55; at size
/// L, where maps of millions of operations outlast the spinning and stay
/// parallel, no change beyond noise (with every map sequential, atax's
/// gradient took 124 ms instead of 97).
constexpr int64_t kMinParallelOpsWithLibrary = int64_t(1) << 22;

/// Sorts and searches fork threads from this much work (their
/// getWorkEstimate), as maps do from kMinParallelOps.
constexpr double kMinParallelSortWork = 16384;

/// The largest container a parallel map's chunks each copy privately to
/// accumulate into: 64 copies of a bias's gradient (a few KiB each) are
/// nothing; of a large array they would cost more memory traffic than the
/// atomics they replace.
constexpr int64_t kMaxPrivateCopyBytes = 256 * 1024;

/// The schedule of a new map of `iterations` iterations on the CPU.
ScheduleKind scheduleForIterations(int64_t iterations);

/// Whether a parallel map's chunks may each accumulate into a private copy
/// of a container of `type` (static shape, int or float elements, at most
/// kMaxPrivateCopyBytes): the CPU lowering makes such copies, and the
/// autodiff keeps a reversed map parallel when its shared accumulations
/// all fit.
bool fitsPrivateCopies(MemRefType type);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_DIALECT_SDFG_ANALYSIS_SCHEDULEPOLICY_H
