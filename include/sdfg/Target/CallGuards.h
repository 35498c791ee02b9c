//===- CallGuards.h - Checked allocation and per-call records ---*- C++ -*-===//
//
// What every compiled program gets around its exported functions, at the
// level of LLVM IR: checked allocations that turn a failed malloc into an
// error the caller can read, and error records that belong to the calling
// thread. See docs/design/c-abi.md ("Errors of a call").
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_TARGET_CALLGUARDS_H
#define SDFG_TARGET_CALLGUARDS_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
namespace sdfg {

/// The thread-local i64 that a call whose allocation failed leaves the
/// number of bytes it asked for in (0: none).
inline constexpr llvm::StringLiteral kAllocError = "sdfg_alloc_error";

/// Rewrites `module` (the lowered program, before optimisation) so that:
/// - every `malloc` of the program is checked: a failure records the bytes
///   requested in `sdfg_alloc_error`, frees what the call allocated so far
///   and returns from the exported function (a longjmp to a guard set up
///   on entry); inside a parallel region, where no thread can leave alone,
///   it prints the size and aborts;
/// - every exported function is such a guard around the original body;
/// - the error records (`sdfg_index_error`, `sdfg_linalg_error`,
///   `sdfg_alloc_error`) are thread-local, so calls from several threads
///   never see each other's errors.
/// Returns false with `error` set if the module cannot be rewritten.
bool addCallGuards(llvm::Module &module, std::string &error);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_TARGET_CALLGUARDS_H
