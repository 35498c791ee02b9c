//===- Passes.td - Reverse-mode AD and checkpointing -------*- tablegen -*-===//

#ifndef SDFG_AUTODIFF_TRANSFORMS_PASSES_TD
#define SDFG_AUTODIFF_TRANSFORMS_PASSES_TD

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
    every written argument `a` that the backward program rewinds (restores
    overwritten values of, to read them): `fwd_<a>` receives the forward
    result. Other written arguments hold their forward result on return.
    Programs with `sdfg.while` loops, or with values stored in loops whose
    bounds are read from data, also get `ad_status` (an i64 the caller
    zeroes): it becomes 1 when a while loop ran more iterations than
    `while-capacity`, or such a loop more (over all its executions) than
    `data-loop-capacity`, the number of iterations the stored values
    cover. On entry `d_<output>` holds the cotangent seed (ones for
    the gradient of `sum(output)`); on exit the `d_<w>` hold the
    vector-Jacobian product, whatever they held on entry (with
    `accumulate=true`, added to it).

    The pass
    * finds the Critical Computation Subgraph: containers that depend on
      the inputs and influence the output, by dataflow analysis iterated to
      a fixed point over loops (no unrolling); only they get gradients;
    * stores, before it is overwritten, every value the backward program
      reads (store-all, restore-on-reverse): one tape per write, with one
      dimension per enclosing loop (sized by its trip count) and map
      parameter, or, under a loop whose trip count is data, one slot per
      iteration of that loop counted over all its executions; a trip
      count computed from index arguments and `sdfg.dim` extents (before
      the first state) is a `?` dimension, sized when the call starts;
      branch conditions are stored too;
    * reverses the program op by op through ReverseModeOpInterface: loops
      run their iterations backwards (any step), maps keep their range and
      schedule, reads accumulate gradients with `wcr(add)`, writes clear
      the gradient they overwrite; tasklets are differentiated through the
      ScalarAdjointOpInterface rules of their arith/math ops (with
      `strong-zero`, the default, a zero result adjoint gives zero operand
      adjoints even where a local derivative is infinite or NaN, so that a
      branch `np.where` discards cannot poison the gradient); matmul and
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
    Option<"of", "of", "std::string", /*default=*/"",
           "Name of the sdfg.sdfg to differentiate (default: every one with "
           "the output)">,
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
    Option<"dataLoopCapacity", "data-loop-capacity", "int64_t",
           /*default=*/"1048576",
           "Iterations, summed over all its executions, of an sdfg.loop "
           "whose bounds are read from data that the stored values can "
           "cover; more sets ad_status to 1 (the gradient is then not "
           "valid)">,
    Option<"accumulate", "accumulate", "bool", /*default=*/"false",
           "Add the gradients to what the d_<wrt> arguments hold on entry "
           "instead of overwriting them">,
    Option<"discardResults", "discard-results", "bool", /*default=*/"false",
           "Only the gradients and the forward results of the arguments in "
           "`keep` matter to the caller: the other written arguments are "
           "marked sdfg.discardable, get no fwd_ copy and hold unspecified "
           "values on return, and sdfg-eliminate-dead-writes drops the work "
           "that only they needed">,
    ListOption<"keep", "keep", "std::string",
               "With discard-results: written arguments whose forward "
               "results the caller reads">,
    Option<"unitSeed", "unit-seed", "bool", /*default=*/"false",
           "The cotangent is all ones (the gradient of sum(output)): the "
           "program fills d_<output> itself and ignores what it holds on "
           "entry">,
    Option<"strongZero", "strong-zero", "bool", /*default=*/"true",
           "An operand's adjoint is zero wherever its result's is, also "
           "where the local derivative is infinite or NaN (a branch "
           "np.where discards: sqrt at 0, log of a negative number); false "
           "propagates 0 * inf = NaN as JAX and PyTorch do">,
    Option<"printCCS", "print-ccs", "bool", /*default=*/"false",
           "Only annotate each sdfg.sdfg with its active containers "
           "(sdfg.ccs attribute) and the containers it tapes">
  ];
}

def ForwardDiff : Pass<"sdfg-forward-diff", "::mlir::ModuleOp"> {
  let summary = "Forward-mode automatic differentiation (Jacobian-vector "
                "products) of sdfg programs";
  let description = [{
    For every `sdfg.sdfg` with an output (the `outputs` option, else its
    `ad_output` attribute, else `__return0`), adds `@<name>_jvp`: the
    program computing its results and, with them, their tangents. Its
    arguments are the original ones, then `t_<w>` for each differentiated
    input `w` (`wrt` option, else every float container argument): the
    tangent (direction) of that input on entry; then `t_<o>` for each
    output `o` that is not also an input: its tangent on exit, the
    Jacobian-vector product. An input updated in place that is also an
    output has one `t_` argument, read on entry and holding the output's
    tangent on exit.

    Every container that depends on a differentiated input (found by a
    dataflow fixed point over the whole program, loops included) gets a
    tangent container, zero at the start; each op that writes such a
    container is followed by the op that writes its tangent:
    * a store by a store of the value's tangent (same indices and
      `wcr(add)`); the value's tangent is computed where the value is: a
      load of the tangent container after each load, and after each
      tasklet a tangent tasklet built from the ScalarAdjointOpInterface
      rules of its arith/math ops (for a real scalar op, its adjoint rule
      for operand i applied to operand i's tangent is that operand's
      contribution);
    * a copy by the same copy of the tangents (of zeros where the source
      has none);
    * a library op by its TangentOpInterface rule: products (matmul, gemv,
      ger, dot) are bilinear, two library ops; transpose and sums are
      linear; a solve's tangent is another solve, a determinant's a solve
      and a trace; cholesky, eigh, qr and svd differentiate their defining
      identities (computing the other factors again);
    * max/min reductions and `wcr(max|min)` stores by the mean tangent of
      the elements equal to the result (JAX's rule).
    Loops, branches and while loops are the program's own, so the tangent
    program does about twice the program's arithmetic and stores nothing.
    Stores with `wcr(mul)`, accumulating max/min reductions, outputs of
    dynamic shape and `sdfg.custom_call` (its user rule is reverse-mode
    only) are refused with a located error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
  let options = [
    Option<"of", "of", "std::string", /*default=*/"",
           "Name of the sdfg.sdfg to differentiate (default: every one with "
           "an output)">,
    ListOption<"outputs", "outputs", "std::string",
               "Names of the containers whose tangents the program returns "
               "(default: ad_output, else __return0)">,
    ListOption<"wrt", "wrt", "std::string",
               "Names of the inputs given tangents (default: every float "
               "container argument but the frontend's __return<k>)">,
    Option<"suffix", "suffix", "std::string", /*default=*/"\"_jvp\"",
           "Suffix of the tangent program's name">
  ];
}

def Checkpoint : Pass<"sdfg-checkpoint", "::mlir::ModuleOp"> {
  let summary = "Store or recompute forwarded values under a memory limit";
  let description = [{
    Runs after `sdfg-autodiff` on every gradient program it made (they carry
    an `sdfg.ad` attribute naming their forward program, which must still
    be in the module) and rebuilds it so that it fits in the memory limit
    `mem` as fast as possible.

    The backward program reads some values the forward program computed
    (forwarded containers). Each forwarded transient is either stored (kept
    alive from the forward into the backward program, and its overwritten
    values taped) or recomputed: the backward program re-runs the state
    that wrote it, into a fresh container, just before it first reads that
    value, so the forward container dies with the forward program. Values
    written inside loops and branches are recomputed per iteration and per
    branch, inside the reversed loop or branch. A transient can be
    recomputed when its writers are states that write only it, every read
    sees a value written in the reader's own scope (no value carried across
    iterations), and the writers' inputs are not overwritten before the
    value is last read (or are stored themselves); the report says why
    others cannot.

    `strategy=ilp` (the default) solves the paper's integer linear program
    with lp_solve: one binary per candidate; a memory timeline with one
    point per top-level op of the gradient program, where transients live
    from the first to the last top-level op that uses them (exactly how
    code generation allocates them); stored and recomputed variants as
    terms in the decision variables; pairs that cannot both be recomputed
    excluded; minimum total recomputation cost (arithmetic operations and
    elements moved, times executions) with every point at most `mem`.
    Memory is what the gradient program allocates itself (transients,
    tapes, gradients of transients); its arguments belong to the caller.
    Because allocation is per top-level op, all control-flow paths share
    one timeline. An infeasible limit is an error that states the smallest
    feasible one.

    Values carried across iterations of an `sdfg.loop` (at any depth) or a
    top-level `sdfg.while` are not recomputed on their own; the loop is
    checkpointed instead: the forward
    program keeps snapshots of the loop's state at segment starts and the
    tapes of one segment, and the reversed loop runs each earlier segment
    again from its snapshot before reversing it (segments may be split
    again, up to several levels). With `mem`, the ILP chooses per loop
    among schedules it builds and measures (one binary each, exclusive per
    loop), jointly with the containers; `checkpoints=t=16` forces 16
    snapshots for the loop over `t` (`t=16:8`: two levels; 0: every
    iteration stored); `t=binomial:8` uses Griewank and Walther's binomial
    schedule (Revolve) with 8 snapshots and one iteration's tapes,
    computed at run time from the trip count (so it also applies to
    top-level loops whose trip count is read from data, and to while
    loops). The ILP's menu has both kinds. Loops are named by the frontend's iterator name
    (`sdfg.name` attribute; `t#1` for the second loop over `t`),
    `loop<k>` by position or `while<k>`.

    `strategy=store-all` keeps the autodiff result; `strategy=recompute-all`
    recomputes every candidate it can; `recompute=A,B` chooses by name.
    With `mem` the chosen plan is checked against the limit. `sizes=N=100`
    gives values to index arguments that size dynamic containers, and
    `sizes=x.0=1000` to the extent of argument `x` along axis 0 (its
    `sdfg.dim`); sizes computed from those in the program's body (a
    tape's trip count `N - 2`) follow. `sizes=x.0=..1024` stands for any
    extent up to 1024: each container is counted at the largest size the
    given ranges allow (interval arithmetic), so the plan holds for every
    call within them (the Python frontend plans per power-of-two bucket of
    sizes). With
    `report=true` a remark lists every forwarded container (size, cost,
    decision), every top-level loop (trip count, segments, snapshots,
    iterations run again, or why it cannot be checkpointed) and the
    predicted peak; where containers of dynamic size are live at the peak,
    also as a formula in the sizes (`peak memory 17.2 KiB = 1600 + 16*x.0
    B`: the bytes at the program point that peaks for the sizes given, so
    a lower bound of the peak at other sizes). The decision is also
    recorded on the gradient program as the `sdfg.checkpoint` attribute
    (the formula as `peak_formula`).
  }];
  let options = [
    Option<"mem", "mem", "std::string", /*default=*/"",
           "Memory limit of the gradient program: a number of MiB, or with a "
           "unit (B, KiB, MiB, GiB)">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"ilp\"",
           "ilp, store-all or recompute-all">,
    ListOption<"recompute", "recompute", "std::string",
               "Forwarded transients to recompute (overrides strategy)">,
    ListOption<"sizes", "sizes", "std::string",
               "NAME=VALUE values of index arguments, and NAME.AXIS=VALUE "
               "extents of arguments, that size dynamic containers "
               "(NAME=..MAX: any value up to MAX)">,
    ListOption<"checkpoints", "checkpoints", "std::string",
               "LOOP=SNAPSHOTS: checkpoint a loop (its iterator name, "
               "loop<k> or while<k>) with that many snapshots (LOOP=S1:S2: "
               "two levels; 0: store every iteration; LOOP=binomial:S: "
               "Revolve with S snapshots); overrides the ILP for that "
               "loop">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit remarks with every forwarded container, its size (for a "
           "dynamic one at the sizes given and as a formula in them), "
           "recomputation cost and decision, each loop's schedule, and the "
           "predicted peak memory (with dynamic sizes also as a formula)">
  ];
}

#endif // SDFG_AUTODIFF_TRANSFORMS_PASSES_TD
