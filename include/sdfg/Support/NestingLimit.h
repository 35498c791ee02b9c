//===- NestingLimit.h - Refuse inputs nested too deeply ---------*- C++ -*-===//
//
// MLIR's parser, verifiers and our passes recurse once per nested region;
// 5,000 nested loops overflowed the tools' stack (upstream mlir-opt too).
// The tools check the nesting of their input before parsing it and refuse
// what is deeper than they can process with a located error.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_SUPPORT_NESTINGLIMIT_H
#define SDFG_SUPPORT_NESTINGLIMIT_H

#include "llvm/Support/SourceMgr.h"

namespace mlir {
namespace sdfg {

/// The deepest nesting of braces (regions, attribute dictionaries) the
/// tools accept. Real programs nest a few tens of levels; at this depth
/// every pass of the pipeline stays within an 8 MiB stack with room to
/// spare (2,000 levels were measured to pass; sanitizers' frames are
/// larger).
inline constexpr unsigned kMaxNestingDepth = 500;

/// Scans buffer `bufferId` of `sourceMgr` lexically (strings and `//`
/// comments skipped) and reports, at the first brace past `maxDepth`
/// levels, an error through `sourceMgr`. Returns false if it did.
bool checkNestingDepth(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                       unsigned maxDepth = kMaxNestingDepth);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_SUPPORT_NESTINGLIMIT_H
