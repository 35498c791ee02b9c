//===- AutoDiffInterfaces.td - Reverse-mode AD rules -------*- tablegen -*-===//
//
// What the sdfg-autodiff driver asks of an op: scalar ops inside tasklets
// implement ScalarAdjointOpInterface, sdfg ops ReverseModeOpInterface;
// sdfg-forward-diff asks library ops for TangentOpInterface.
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

def SDFG_TangentOpInterface : OpInterface<"TangentOpInterface"> {
  let cppNamespace = "::mlir::sdfg";
  let description = [{
    The forward-mode (tangent) rule of an sdfg library op, for
    `sdfg-forward-diff`: emit, right after the op, ops that write the
    tangent of its output container from the tangents of its inputs.
    Scalar ops inside tasklets need no rule of their own: their tangent is
    built from their ScalarAdjointOpInterface rule (for a real scalar op
    the adjoint rule `d_i = g * df/dx_i` with `g` set to the tangent of
    operand i is that operand's contribution to the tangent).
  }];
  let methods = [
    InterfaceMethod<[{
        Emits at the builder's insertion point the ops that write
        `tangentOf(output container)` (never null when this is called):
        `tangentOf(c)` is the tangent container of `c`, or null where `c`
        does not depend on the differentiated inputs (its tangent is
        zero). `zero(c)` fills a tangent container with zeros (for an op
        none of whose inputs has a tangent and that does not accumulate).
      }],
      "::mlir::LogicalResult", "emitTangent",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::function_ref<::mlir::Value(::mlir::Value)>":$tangentOf,
           "::llvm::function_ref<void(::mlir::Value)>":$zero)>
  ];
}

#endif // SDFG_AUTODIFF_INTERFACES_AUTODIFFINTERFACES_TD
