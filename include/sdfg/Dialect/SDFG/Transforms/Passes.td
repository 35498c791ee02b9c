//===- Passes.td - Transformations of sdfg programs --------*- tablegen -*-===//
//
// Each runs on one sdfg.sdfg (isolated from above), so the pass manager may
// run them on the programs of a module in parallel; pipelines nest them
// (`pm.nest<SDFGOp>()`), and sdfg-opt nests them implicitly.
//
#ifndef SDFG_DIALECT_SDFG_TRANSFORMS_PASSES_TD
#define SDFG_DIALECT_SDFG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EliminateDeadWrites : Pass<"sdfg-eliminate-dead-writes",
                               "::mlir::sdfg::SDFGOp"> {
  let summary = "Remove zero fills and stores whose values are never read";
  let description = [{
    Gradient programs zero every gradient container before the backward
    program accumulates into it and clear each consumed gradient after its
    last use. In the program's top-level order (the ops of top-level
    states, and top-level loops, branches and while loops as a whole) this
    pass removes

    * the reads of a container filled with a constant (a map storing it at
      every element, or a store of it into a 0-d container): loads up to
      the next op that writes the container become the constant (an op
      that reads it otherwise, a library op or copy, keeps the fill and
      ends this). The fill itself goes when that next writer writes every
      element exactly once: a map whose single store to it indexes it by
      the map's parameters over the whole shape, reading it only at that
      element before the store (then a constant too), or, for a fill of
      +0, a `matmul`, `gemv`, `dot`, `transpose` or `reduce add` into it,
      whose `accumulate` flag (or the map store's `wcr(add)`) is dropped.
      A fill whose reads all became constants goes with the dead writes
      below;
    * a store of zero that a later `wcr(add)` store of the same block, to
      the same element, adds to (with nothing in between touching the
      container): the later store writes instead. This one applies inside
      loops too;
    * every write to a discardable container that no later op reads: all
      writes of the ops after its last reader, and the stores in that
      reader's map body that follow its reads (an iteration sees only its
      own writes). Discardable are transients (`sdfg.alloc`) and arguments
      marked `sdfg.discardable` (results the caller does not read, see
      sdfg-autodiff's `discard-results`). Only reads into other containers
      count: a `wcr` store or an accumulating library op reads the
      container only to write it;
    * every write, anywhere, to the discardable containers whose values
      reach only each other: followed through tasklets (and loads they
      index) into the containers that stores, copies and library ops
      write, a container is kept if its values reach a non-discardable
      container, a kept one, or anything else (a loop bound, a condition).
      This removes a transient accumulated in a loop that nothing reads
      after it;
    * the copy of a transient into another container (a map loading one
      and storing the other at the same element over the whole shape:
      a returned result) when nothing touches the transient after it and
      nothing touches the target from the transient's first access to the
      copy: the transient's writers write the target instead;

    then the tasklet computations, inputs and loads, empty maps and states,
    and allocations left unused, and again the dead writes that this
    uncovers, until none is left. Inside loops only the clear-then-add
    case and the containers whose values reach nothing live change. The lowering pipelines run it first, so it needs no
    place in hand-written pipelines.
  }];
}

def FuseMaps : Pass<"sdfg-fuse-maps", "::mlir::sdfg::SDFGOp"> {
  let summary = "Merge maps of a state over the same range into one sweep";
  let description = [{
    In each state, appends the body of a later map to an earlier one when

    * both are flat (loads, tasklets and stores without wcr: maps that
      accumulate keep their own schemes) and have the same range,
      schedule and range operands, without `disjoint_wcr`;
    * every container one of them writes and the other touches is accessed
      at one and the same element throughout both, an element whose index
      names every map parameter (so only that iteration sees it);
    * the later map conflicts with no op in between (neither writes a
      container the other touches) and uses no value defined after the
      earlier one.

    Each iteration then runs the first body and then the second, which is
    what running the maps one after the other computes, in one sweep over
    the data instead of two: the two rank-1 updates of atax's and bicg's
    gradients, elementwise chains. The lowering pipelines run it after
    sdfg-eliminate-dead-writes.
  }];
}

def HoistLoopProducts : Pass<"sdfg-hoist-loop-products",
                              "::mlir::sdfg::SDFGOp"> {
  let summary = "Compute a loop's products of unchanged matrices as one "
                "matmul before the loop";
  let description = [{
    A loop that multiplies slices of matrices it never writes, one row of
    the result per iteration (covariance's
    `cov[i, i:M] = data[:, i] @ data[:, i:M]`, correlation's, a row loop
    `out[i] = X[:, i] @ Y`), runs one matrix-vector product per iteration,
    bound by memory. Every such product is an entry of one matrix product
    of the whole matrices, `P = op(A) op(B)`, which a GEMM computes at
    several times the speed even when the loop needs only part of it
    (covariance uses the upper triangle). This pass finds, in the states
    of an `sdfg.loop`, maps of the form

    ```mlir
    sdfg.map (%k, %j) = (0, 0) to (K, ...) ... {
      %a = sdfg.load %A[%k, x] ...      // x, y: any indices without %k
      %b = sdfg.load %B[%k, y] ...
      %p = sdfg.tasklet(%a, %b) { mulf }
      sdfg.store %p, %T[...] wcr(add)   // indices without %k
    }
    ```

    where `%k` runs over a whole dimension of both matrices (either
    dimension of each) and the loop writes neither `A` nor `B`, computes
    `P` (`sdfg.matmul`, a new transient `products`) in a state before the
    loop, and replaces the map by one without `%k` that adds `P[x, y]`.
    The reduced index may be `%k + c` in both loads, over part of the
    dimension: constant bounds, or bounds that move with `x` (or `y`), as
    trmm's `B[i, j] += A[i+1:, i] @ B[i+1:, j]` reduces over rows `i + 1`
    on; that operand is then first copied with zeros outside the range
    (a transient `masked`, a triangle for trmm), so that `P` holds exactly
    the sums the loop needs. The product goes before the outermost of the
    loops around the map (each directly in the next) where it is admissible,
    once for all their iterations. A loop may also write an operand when
    each of its iterations `i` (ascending) writes only row `i` of some
    dimension in which the multiplied loads read rows `i + 1` or beyond:
    rows no iteration has written yet, so the product of the operand as it
    was before the loop holds (trmm updates `B` in place this way).
    Likewise an `sdfg.gemv` of a matrix the loop only reads with a vector
    that a map earlier in the same state fills with row or column g of
    another such matrix (the frontend's `Y[b] = W @ X[b]`, `X[:, i] @ A`)
    becomes a map `y[j] (+)= P[g, j]`. And a loop over k from 0 to K
    (one state, one map) directly inside the loop, whose map adds
    `f * ... * A[k, x] * B[k, y]` to the element it reads and writes
    (`C[idx] = C[idx] + ...`, the factors loads that do not depend on k:
    syrk's `C[i, :i+1] += alpha * A[i, k] * A[:i+1, k]`; a sum of such
    products, one matrix each, as in syr2k), becomes one state with a map
    adding `f * ... * P[x, y] + ...`. Products with the same
    operands in one loop share `P`. Gradients follow: the matmul's reverse is two GEMMs
    instead of two sweeps per iteration (gradients 2-5x faster:
    benchmarks/hoisted_products.py).

    A product is hoisted only where it costs at most `max-flops-ratio`
    times the flops of the products the loop computes (the loop's trip
    count and the map's extents must be constants, or functions of the
    loop's iterator) and `P` holds at most `max-bytes`. The sums are
    reassociated, as any BLAS does.

    Run it before `sdfg-autodiff` (the Python frontend does, unless a
    memory limit is given) so that the gradient differentiates the
    matmul; the lowering pipelines run it too, first, for forward
    programs. In a gradient planned under a limit (its `sdfg.checkpoint`
    summary has `limit_bytes`) the products of all hoisted loops fit in
    what the plan left, or nothing is hoisted: the user's limit holds.
  }];
  let options = [
    Option<"maxFlopsRatio", "max-flops-ratio", "double", /*default=*/"3.0",
           "Largest cost of the whole product, in multiples of the products "
           "the loop computes (0: hoist nothing)">,
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"268435456",
           "Largest product matrix, in bytes">
  ];
}

def BatchOuterProducts : Pass<"sdfg-batch-outer-products",
                               "::mlir::sdfg::SDFGOp"> {
  let summary = "Add a loop's rank-one updates of a matrix as one matmul";
  let description = [{
    A loop that multiplies a matrix with a vector in each iteration
    (logistic regression's `X @ w`, a recurrent layer's `W @ h`) has a
    gradient that adds one outer product to the matrix's gradient per
    iteration: `sdfg.ger`, a sweep over the whole matrix each time, bound
    by memory. For an `sdfg.loop` with constant bounds and a container
    that, inside the loop, only accumulating `sdfg.ger`s in the loop's own
    states touch (k of them per iteration), this pass copies each update's
    vectors into a row of two buffers and adds them all at once,
    `A += X^T Y` (`sdfg.matmul` with `transpose_a`): one pass over the
    matrix, at GEMM speed. Only matrices of at least `min-bytes` (8 MiB)
    are batched: the flops are the same, and a matrix that stays in cache
    takes T rank-one updates about as fast as the matmul (measured on two
    cores of an EPYC with 2 MiB L2 per core: logistic regression's
    gradient with a 4000 x 50 matrix 20% slower batched, 10000 x 100 even,
    20000 x 100 twice as fast, 50000 x 200 1.45 times).

    The buffers hold `B * k` rows, B the largest divisor of the trip count
    whose rows fit `max-buffer-ratio` times the matrix's element count;
    when B is smaller than the trip count, the product is added after every
    B-th iteration (inside the loop, under an `sdfg.if`). Loops whose B
    would be 1 are left as they are. The sums are reassociated, as any BLAS
    does.

    With `expand-rest` (the default), every update left (outside loops, or
    not batched) becomes a parallel map `A[i, j] += x[i] * y[j]`, which
    sdfg-fuse-maps can merge with other sweeps of its state (atax's two
    updates of one matrix) and which runs on the program's OpenMP threads
    instead of competing with OpenBLAS's for the cores (on two cores two
    `cblas_dger` calls took atax's gradient from 6 to 11 ms).

    The lowering pipelines run this pass after sdfg-eliminate-dead-writes
    and before sdfg-fuse-maps, that is after `sdfg-checkpoint` has planned
    the memory. In a gradient planned under a limit (its `sdfg.checkpoint`
    summary has `limit_bytes`), the buffers of all batched loops together
    fit in what the plan left, `limit_bytes - peak_bytes`, or the loops
    are not batched: the user's limit holds. Without a limit they add at
    most `max-buffer-ratio` times each batched matrix to the peak.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"maxBufferRatio", "max-buffer-ratio", "double", /*default=*/"1.0",
           "Largest size of the two buffers, in multiples of the matrix "
           "they update (0: batch nothing)">,
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"8388608",
           "Smallest matrix, in bytes, whose updates are batched">,
    Option<"expandRest", "expand-rest", "bool", /*default=*/"true",
           "Turn the updates left alone into maps">
  ];
}

def SDFGAssignGPUSchedule : Pass<"sdfg-gpu-schedule", "::mlir::sdfg::SDFGOp"> {
  let summary = "Run the outermost maps as GPU kernels";
  let description = [{
    Gives every map that no other map encloses the `gpu_device` schedule
    (enclosing loops stay on the host and launch the kernel once per
    iteration). Maps nested in a kernel keep their schedule; the GPU
    lowering runs them sequentially per thread. A `sequential` map is
    still a map (independent iterations, WCR for shared elements):
    sequential is the CPU's choice for small maps and for reversals whose
    accumulations would need compare-and-swap loops there, while on the
    GPU atomics are native and host code would pull unified memory back.
    So it becomes a kernel too, unless it holds a parallel map: then it
    stays a host loop and the maps inside become the kernels.
  }];
}

#endif // SDFG_DIALECT_SDFG_TRANSFORMS_PASSES_TD
