//===- Dot.h - sdfg programs as Graphviz graphs -----------------*- C++ -*-===//
//
// sdfg-translate --emit=dot (lib/Target/DotEmitter.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_TARGET_DOT_H
#define SDFG_TARGET_DOT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir {
namespace sdfg {

/// Writes every sdfg.sdfg of `module` as one Graphviz digraph: states,
/// control flow, maps, tasklets, library ops, access nodes and memlets
/// with their subsets; containers a checkpoint plan stores or recomputes
/// are coloured.
void writeDot(ModuleOp module, llvm::raw_ostream &os);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_TARGET_DOT_H
