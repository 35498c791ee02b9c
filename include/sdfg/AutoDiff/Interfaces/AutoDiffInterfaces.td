//===- AutoDiffInterfaces.td - Reverse-mode AD rules -------*- tablegen -*-===//
//
// What the sdfg-autodiff driver asks of an op: scalar ops inside tasklets
// implement ScalarAdjointOpInterface, sdfg ops ReverseModeOpInterface.
// Both are attached as external models (lib/AutoDiff/Implementations, one
// file per family of ops, registered by registerAutoDiffModels), so the
// dialect itself knows nothing of AD and a new rule touches one folder.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_AUTODIFF_INTERFACES_AUTODIFFINTERFACES_TD
#define SDFG_AUTODIFF_INTERFACES_AUTODIFFINTERFACES_TD

include "mlir/IR/OpBase.td"

def SDFG_ScalarAdjointOpInterface : OpInterface<"ScalarAdjointOpInterface"> {
  let cppNamespace = "::mlir::sdfg";
  let description = [{
    The derivative rule of a scalar operation inside a tasklet: given the
    adjoint of its (single) result, emit the adjoints of its operands. Ops
    that are not differentiable in an operand (comparisons, integer
    operands) leave that entry null.
  }];
  let methods = [
    InterfaceMethod<[{
        Emits, at the builder's insertion point, the adjoints of the
        operands. `primal` maps the op's operands and result to their values
        at that point; `operandAdjoints` receives one value (or null) per
        operand.
      }],
      "::mlir::LogicalResult", "emitAdjoint",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::IRMapping &":$primal,
           "::mlir::Value":$resultAdjoint,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)>,
    InterfaceMethod<[{
        Which operands' primal values emitAdjoint reads, given which
        operands carry a gradient (`varying`, one flag per operand): the
        driver keeps those values for the backward program and no others
        (Enzyme's cacheValues). A product by a constant needs only the
        constant; a sum needs nothing.
      }],
      "void", "getNeededPrimals",
      (ins "::llvm::ArrayRef<bool>":$varying,
           "::llvm::SmallVectorImpl<unsigned> &":$needed)>
  ];
}

def SDFG_ReverseModeOpInterface : OpInterface<"ReverseModeOpInterface"> {
  let cppNamespace = "::mlir::sdfg";
  let description = [{
    The reverse-mode rule of an sdfg op: emit, at the reverse builder's
    insertion point, the backward counterpart of the op (adjoint
    propagation, clearing of overwritten gradients, restoring of overwritten
    primal values).
  }];
  let methods = [
    InterfaceMethod<"Emits the backward counterpart of this op.",
      "::mlir::LogicalResult", "emitReverse",
      (ins "::mlir::sdfg::ReverseBuilder &":$rb)>
  ];
}

#endif // SDFG_AUTODIFF_INTERFACES_AUTODIFFINTERFACES_TD
