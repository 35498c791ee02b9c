//===- LibraryOpInterface.td - Library ops' reads and writes -*- tablegen -*-===//
//
// Library ops (BLAS-like nodes) are opaque to the analyses: the autodiff's
// taping, the dead-write elimination, the checkpoint cost model and the
// lowerings ask each op what it reads, writes and costs instead of
// switching over the op kinds.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_LIBRARYOPINTERFACE_TD
#define SDFG_DIALECT_SDFG_LIBRARYOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def SDFG_LibraryOpInterface : OpInterface<"LibraryOpInterface"> {
  let cppNamespace = "::mlir::sdfg";
  let description = [{
    A library op: reads whole input containers and writes one whole output
    container in a single step of a state.
  }];
  let methods = [
    InterfaceMethod<"The container the op writes (every element of it).",
      "::mlir::Value", "getOutputContainer">,
    InterfaceMethod<[{
        The containers whose values the op reads (the output only where it
        is also an operand in its own right, not for `accumulate`).
      }],
      "::llvm::SmallVector<::mlir::Value>", "getInputContainers">,
    InterfaceMethod<"Whether the op adds its result to the output's values.",
      "bool", "accumulatesIntoOutput">,
    InterfaceMethod<[{
        The forward containers whose values the op's reverse-mode rule
        reads, as they are right after the op ran.
      }],
      "::llvm::SmallVector<::mlir::Value>", "getReverseReads">,
    InterfaceMethod<[{
        Element loads, stores and flops of one execution, for the
        checkpointing's recompute cost (dynamic extents count as 1).
      }],
      "double", "getWorkEstimate">,
    InterfaceMethod<[{
        Whether the op lowers to a call into an external library (BLAS,
        LAPACK; cuBLAS from the host on the GPU) rather than to loops.
      }],
      "bool", "callsLibrary">
  ];
}

#endif // SDFG_DIALECT_SDFG_LIBRARYOPINTERFACE_TD
