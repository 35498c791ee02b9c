//===- SDFGDialect.td - The sdfg dialect -------------------*- tablegen -*-===//
//
// The sdfg dialect: a stateful dataflow multigraph in MLIR, after DaCe.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_SDFGDIALECT_TD
#define SDFG_DIALECT_SDFG_SDFGDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def SDFG_Dialect : Dialect {
  let name = "sdfg";
  let cppNamespace = "::mlir::sdfg";
  let summary = "Stateful dataflow multigraphs for automatic differentiation";
  let description = [{
    The `sdfg` dialect mirrors DaCe's Stateful DataFlow multiGraph (SDFG).
    Structured control flow (`sdfg.state`, `sdfg.loop`, `sdfg.if`) surrounds
    dataflow (`sdfg.load` and `sdfg.store` memlets moving elements in and out
    of `sdfg.tasklet`s, `sdfg.copy` moving array subsets, parallel
    `sdfg.map`s and library ops such as `sdfg.matmul`).

    Containers are builtin `memref`s with the identity (row-major) layout;
    integer symbols such as `N` are `index` values. Index expressions in
    memlets and ranges are affine expressions over SSA index values, printed
    inline (`%A[%i + 1, %j - 1]`). Non-affine indices are computed by a
    tasklet over index values and used as an operand.

    Region kinds:
    * control regions (the body of `sdfg.sdfg`, `sdfg.loop`, and each branch
      of `sdfg.if`) hold `sdfg.state`, `sdfg.loop`, `sdfg.if`, and the scalar
      computations of interstate edges (`sdfg.load`, `sdfg.tasklet`);
      `sdfg.alloc` (transients) may appear only in the body of `sdfg.sdfg`;
    * dataflow regions (the body of `sdfg.state` and of `sdfg.map`) hold
      `sdfg.load`, `sdfg.store`, `sdfg.copy`, `sdfg.tasklet`, `sdfg.map` and,
      directly in a state, library ops.

    Operations in a region execute in order. Iterations of a map are
    independent; conflicting writes must carry a write-conflict resolution
    (`wcr`).
  }];
  let useDefaultAttributePrinterParser = 0;
}

def SDFG_ScheduleKind : I32EnumAttr<"ScheduleKind", "map schedule", [
    I32EnumAttrCase<"sequential", 0>,
    I32EnumAttrCase<"cpu_multicore", 1>,
    I32EnumAttrCase<"gpu_device", 2>]> {
  let cppNamespace = "::mlir::sdfg";
}

def SDFG_WCRKind : I32EnumAttr<"WCRKind", "write-conflict resolution", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"mul", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"max", 3>]> {
  let cppNamespace = "::mlir::sdfg";
}

def SDFG_BroadcastKind : I32EnumAttr<"BroadcastKind",
    "how two broadcast extents meet", [
    I32EnumAttrCase<"operands", 0>,
    I32EnumAttrCase<"assign", 1>]> {
  let cppNamespace = "::mlir::sdfg";
}

def SDFG_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"min", 1>,
    I32EnumAttrCase<"max", 2>]> {
  let cppNamespace = "::mlir::sdfg";
}

def SDFG_DetKind : I32EnumAttr<"DetKind", "determinant quantity", [
    I32EnumAttrCase<"det", 0>,
    I32EnumAttrCase<"sign", 1>,
    I32EnumAttrCase<"logabs", 2>]> {
  let cppNamespace = "::mlir::sdfg";
}

def SDFG_EighPart : I32EnumAttr<"EighPart", "symmetric eigensolver output", [
    I32EnumAttrCase<"values", 0>,
    I32EnumAttrCase<"vectors", 1>]> {
  let cppNamespace = "::mlir::sdfg";
}

def SDFG_QRPart : I32EnumAttr<"QRPart", "QR decomposition output", [
    I32EnumAttrCase<"q", 0>,
    I32EnumAttrCase<"r", 1>]> {
  let cppNamespace = "::mlir::sdfg";
}

def SDFG_SVDPart : I32EnumAttr<"SVDPart", "singular value decomposition output", [
    I32EnumAttrCase<"u", 0>,
    I32EnumAttrCase<"s", 1>,
    I32EnumAttrCase<"vh", 2>]> {
  let cppNamespace = "::mlir::sdfg";
}

#endif // SDFG_DIALECT_SDFG_SDFGDIALECT_TD
