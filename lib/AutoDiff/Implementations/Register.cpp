//===- Register.cpp - Attach the AD rules to their ops --------------------===//

#include "sdfg/AutoDiff/Implementations/Register.h"
#include "RuleUtils.h"

#include "sdfg/Dialect/SDFG/IR/SDFGDialect.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

void mlir::sdfg::registerAutoDiffModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, SDFGDialect *) {
    mlir::sdfg::detail::attachControlFlowRules(ctx);
    mlir::sdfg::detail::attachMapRules(ctx);
    mlir::sdfg::detail::attachMemletRules(ctx);
    mlir::sdfg::detail::attachSortingRules(ctx);
    mlir::sdfg::detail::attachBLASRules(ctx);
    mlir::sdfg::detail::attachFactorisationRules(ctx);
    mlir::sdfg::detail::attachCustomCallRules(ctx);
    mlir::sdfg::detail::attachFFTRules(ctx);
    mlir::sdfg::detail::attachTangentRules(ctx);
  });
  mlir::sdfg::detail::attachArithMathAdjoints(registry);
}
