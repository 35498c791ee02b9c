//===- Register.h - Attach the AD rules to their ops ------------*- C++ -*-===//

#ifndef SDFG_AUTODIFF_IMPLEMENTATIONS_REGISTER_H
#define SDFG_AUTODIFF_IMPLEMENTATIONS_REGISTER_H

namespace mlir {
class DialectRegistry;
namespace sdfg {

/// Attaches every reverse-mode rule: ReverseModeOpInterface to the sdfg
/// ops, ScalarAdjointOpInterface to the arith and math ops tasklets use.
/// The sdfg-autodiff and sdfg-checkpoint passes call it themselves (as
/// dependent dialects), so embedding compilers need not.
void registerAutoDiffModels(DialectRegistry &registry);

} // namespace sdfg
} // namespace mlir

#endif // SDFG_AUTODIFF_IMPLEMENTATIONS_REGISTER_H
