//===- Passes.td - sdfg transformation passes --------------*- tablegen -*-===//

#ifndef SDFG_TRANSFORMS_PASSES_TD
#define SDFG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AutoDiff : Pass<"sdfg-autodiff", "::mlir::ModuleOp"> {
  let summary = "Reverse-mode automatic differentiation of sdfg programs";
  let description = [{
    For every `sdfg.sdfg` with an output to differentiate (the `output`
    option, else its `ad_output` attribute), adds `@<name>_grad`: the
    forward program followed by the backward program. Its arguments are the
    original ones, then `d_<w>` for each differentiated input `w` (`wrt`
    option, else `ad_wrt`, else every float container argument), then
    `d_<output>` unless the output is also an input, then `fwd_<a>` for
    every argument `a` the program writes: the backward program rewinds
    the arguments to their values on entry, and `fwd_<a>` receives the
    forward result. Programs with `sdfg.while` loops also get `ad_status`
    (an i64 the caller zeroes): it becomes 1 when a while loop ran more
    iterations than `while-capacity`, the number of iterations the stored
    values cover. On entry `d_<output>`
    holds the cotangent seed (ones for the gradient of `sum(output)`) and
    the `d_<w>` hold zeros; on exit the `d_<w>` hold the vector-Jacobian
    product.

    The pass
    * finds the Critical Computation Subgraph: containers that depend on
      the inputs and influence the output, by dataflow analysis iterated to
      a fixed point over loops (no unrolling); only they get gradients;
    * stores, before it is overwritten, every value the backward program
      reads (store-all, restore-on-reverse): one tape per write, with one
      dimension per enclosing loop (sized by its trip count) and map
      parameter; branch conditions are stored too;
    * reverses the program op by op through ReverseModeOpInterface: loops
      run their iterations backwards (any step), maps keep their range and
      schedule, reads accumulate gradients with `wcr(add)`, writes clear
      the gradient they overwrite; tasklets are differentiated through the
      ScalarAdjointOpInterface rules of their arith/math ops; matmul and
      gemv gradients call BLAS.

    With `print-ccs=true` the pass only annotates each differentiated
    sdfg.sdfg with `sdfg.ccs` (the active containers) and `sdfg.needed`
    (the containers whose overwritten values the backward program reads),
    for inspection and tests.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"",
           "Name of the container to differentiate (default: ad_output)">,
    ListOption<"wrt", "wrt", "std::string",
               "Names of the inputs to differentiate against (default: "
               "ad_wrt, else every float container argument)">,
    Option<"suffix", "suffix", "std::string", /*default=*/"\"_grad\"",
           "Suffix of the gradient program's name">,
    Option<"whileCapacity", "while-capacity", "int64_t", /*default=*/"4096",
           "Iterations of one execution of an sdfg.while that the stored "
           "values can cover; more sets ad_status to 1 (the gradient is then "
           "not valid)">,
    Option<"printCCS", "print-ccs", "bool", /*default=*/"false",
           "Only annotate each sdfg.sdfg with its active containers "
           "(sdfg.ccs attribute) and the containers it tapes">
  ];
}

#endif // SDFG_TRANSFORMS_PASSES_TD
