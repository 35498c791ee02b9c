//===- AutoDiffInterfaces.td - Reverse-mode AD rules -------*- tablegen -*-===//
//
// AD rules live with the ops: scalar ops inside tasklets implement
// ScalarAdjointOpInterface (attached to arith/math ops as external models),
// sdfg ops implement ReverseModeOpInterface. The sdfg-autodiff driver only
// walks the program and calls them.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_AUTODIFFINTERFACES_TD
#define SDFG_DIALECT_SDFG_AUTODIFFINTERFACES_TD

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
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandAdjoints)>
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

#endif // SDFG_DIALECT_SDFG_AUTODIFFINTERFACES_TD
