//===- Passes.td - sdfg conversion passes ------------------*- tablegen -*-===//

#ifndef SDFG_CONVERSION_PASSES_TD
#define SDFG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertSDFGToSCF : Pass<"convert-sdfg-to-scf", "::mlir::ModuleOp"> {
  let summary = "Lower the sdfg dialect to func, scf, memref, arith and math";
  let description = [{
    Translates every `sdfg.sdfg` into a `func.func` of the same name whose
    signature is the dialect's C ABI (see the `sdfg.sdfg` documentation):
    pointers for containers, `i64` for dynamic sizes and symbols, scalars by
    value. Inside, containers become memref descriptors over those pointers.

    * `sdfg.loop` becomes `scf.for`, normalised to a unit-stride counter
      when the step is negative (Python `range` semantics, any step);
    * the outermost `cpu_multicore`/`gpu_device` map becomes `scf.parallel`
      (OpenMP after `convert-scf-to-openmp`) unless it is statically known
      to do under 2048 iterations, nested maps and loops included (forking
      would cost more); nested, small and `sequential` maps become
      `scf.for` nests;
    * memlets become `memref.load`/`memref.store`; a `wcr` store inside a
      parallel map becomes an atomic read-modify-write so that concurrent
      iterations accumulate correctly;
    * `sdfg.matmul`, `sdfg.gemv` and `sdfg.dot` call CBLAS (OpenBLAS);
      transposes and reductions become loop nests;
    * an access whose index depends on data (a tasklet's result, a load,
      the iterator of a loop or map with such bounds) is bounds-checked
      with `check-indices` (the default): it runs under
      `scf.if` and, when an index is outside the container, is skipped (a
      load yields 0) and the first failure is recorded for the caller in
      the exported `sdfg_index_error` = {line, index, axis, extent}: in a
      stack slot reported at the function's exit outside parallel maps,
      by a call to a cold function inside them. A loop whose bounds are
      data checks the accesses each iteration makes at its iterator plus
      a constant once, before it runs (and does not run if one fails);
    * transients are allocated (64-byte aligned) before the first
      top-level op that uses them and freed after the last one; never
      inside loops; a WCR write of one element per map (a sum into a
      scalar) accumulates in registers and meets memory once per chunk
      (in a parallel map, once: the chunks' partial results go to slots
      that one thread combines in chunk order after the loop, so the
      result does not depend on the number of threads); WCR writes of
      a parallel map that its threads share, into a small container (a
      bias's gradient), go to a private copy per chunk, combined in chunk
      order after the loop.
  }];
  let options = [
    Option<"checkIndices", "check-indices", "bool", /*default=*/"true",
           "Bounds-check indices computed from data; a failure "
           "skips the access and is reported in sdfg_index_error">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def ConvertSDFGToGPU : Pass<"convert-sdfg-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower the sdfg dialect for NVIDIA GPUs: kernels and "
                "unified memory";
  let description = [{
    As `convert-sdfg-to-scf`, except that the outermost `gpu_device` maps
    become `gpu.launch` kernels (see `sdfg-lower-to-gpu`): the map's last three
    dimensions go to the grid and blocks (x innermost), earlier ones are
    loops in each thread, WCR writes are atomic, nested maps run
    sequentially per thread. A failed index check in a kernel claims a
    unified-memory record (compare-and-swap of its line) that the host
    copies into `sdfg_index_error` at exit. States and control ops that touch
    containers but hold no kernel or library op run as one-thread kernels
    (data stays on the device). Containers then live in unified memory
    (`gpu.alloc host_shared`): arguments are copied in at entry and back at
    exit, so the C ABI is unchanged and host-side states (scalar tasklets,
    sequential loops) keep working on the same buffers. Library ops call
    the cuBLAS-backed `sdfg_gpu_cblas_*` functions of the sdfg GPU runtime;
    LAPACK ops (solve, det, cholesky) run on the host between kernels, on
    the unified-memory containers.
  }];
  let options = [
    Option<"checkIndices", "check-indices", "bool", /*default=*/"true",
           "Bounds-check indices computed from data, in kernels too; a "
           "failure skips the access and is reported in sdfg_index_error">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def SDFGMergeGPUModules : Pass<"sdfg-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Put all outlined GPU kernels into one gpu.module";
  let description = [{
    gpu-kernel-outlining gives every kernel its own `gpu.module`, hence its
    own binary, PTX file and module load at run time. This pass moves every
    kernel into the first module (renamed after the module it came from,
    which is unique) and retargets the `gpu.launch_func` ops: one binary per
    program. Modules holding anything besides kernels are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def SDFGGPUDeviceMemory : Pass<"sdfg-gpu-device-memory", "::mlir::ModuleOp"> {
  let summary = "Put buffers that only GPU code touches in device memory";
  let description = [{
    Runs on the output of `convert-sdfg-to-gpu`, which puts every
    container in unified memory (`gpu.alloc host_shared`) so that host code
    may touch any of them. A buffer that no host code dereferences (all its
    uses are inside `gpu.launch` bodies, its `gpu.dealloc`, `memref.dim`,
    or the base pointer handed to the GPU runtime's cuBLAS functions)
    loses `host_shared`: plain device memory (`cuMemAlloc`) costs no page
    faults and cannot oversubscribe the device. Whole copies between such
    a buffer and host memory (an argument's copies in and out) become
    driver copies (`gpu.memcpy`). Containers that host states read or
    write stay in unified memory.
  }];
}

def SDFGEmulateGPU : Pass<"sdfg-emulate-gpu", "::mlir::ModuleOp"> {
  let summary = "Run the GPU program on the host CPU (testing without a GPU)";
  let description = [{
    Takes the output of `convert-sdfg-to-gpu` (before kernel
    outlining) and makes it a host program, keeping the kernels' code,
    their atomics, the unified-memory containers and the copies in and out
    exactly as the GPU path generates them:

    * each `gpu.launch` becomes one `scf.parallel` over all its threads
      (block z, y, x, thread z, y, x), so that after
      `convert-scf-to-openmp` threads run concurrently and a write that
      needed an atomic can show as a wrong result (when host threads
      happen to meet on it: a best effort, not a race detector); block and
      thread ids and sizes become the loop indices and the launch's
      operands;
    * `gpu.alloc` (unified or device memory) becomes `memref.alloc`
      (64-byte aligned), `gpu.dealloc` `memref.dealloc`, `gpu.memcpy`
      `memref.copy`; `gpu.wait` and async tokens go;
    * calls to the GPU runtime's cuBLAS-backed `sdfg_gpu_cblas_*` call the
      CBLAS function of the same signature instead;
    * with `check-races` (the default), every plain store a kernel makes
      to a buffer from outside it also records the writing thread in a
      shadow buffer; a store that finds another thread of the same launch
      there counts a race in the exported global `sdfg_emulator_races`.
      For a buffer the kernel both reads (plain loads) and writes (stores
      or atomics), every access also folds its thread into a per-element
      summary of readers and one of writers (nobody, one thread, several);
      after the launch, each element read and written by anything but one
      and the same thread counts a race in `sdfg_emulator_read_races`.
      The Python frontend raises an error when either is not zero. Unlike
      waiting for threads to meet, this finds every write-write and
      read-write race the run exercises, deterministically. Costs a shadow
      buffer per written buffer and an atomic swap per store, two summary
      buffers and an atomic update per access of read-and-written buffers,
      and a sweep over those after each launch.

    It is what `sdfg-lower-to-gpu-emulator`, `sdfg-translate
    --target=gpu-emulator` and Python's `device="gpu-emulator"` run: the
    GPU code generation checked on machines without a GPU. Kernels with
    shared memory, clusters, barriers or other gpu ops that need threads
    of a block to meet are rejected, as are modules already outlined.
  }];
  let options = [
    Option<"checkRaces", "check-races", "bool", /*default=*/"true",
           "Count stores of one element by several threads of a launch "
           "(sdfg_emulator_races) and elements one thread reads and another "
           "writes (sdfg_emulator_read_races)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def SDFGExpandArith : Pass<"sdfg-expand-arith"> {
  let summary = "Expand the arith ops LLVM has no instruction for, and only those";
  let description = [{
    Rewrites `arith.ceildivsi`, `arith.ceildivui`, `arith.floordivsi` and
    the scaling extensions and truncations into arith ops that
    `convert-arith-to-llvm` lowers. Upstream's `arith-expand` does this too
    but also expands `arith.maximumf`, `minimumf`, `maxnumf` and `minnumf`
    into compares and selects; LLVM's loop vectoriser recognises min/max
    reductions through the `llvm.maximum`/`llvm.minimum` intrinsics those
    ops lower to, not through the expanded selects, so a row maximum (the
    first pass of every softmax) stayed scalar, one element per compare
    chain. With this pass in place of `arith-expand` the host pipelines
    keep the intrinsics, and NaN propagation (`maximumf` returns NaN when
    either operand is NaN, as `np.max` does) is LLVM's to keep.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def SDFGPartitionWorksharingLoops
    : Pass<"sdfg-partition-worksharing-loops", "::mlir::ModuleOp"> {
  let summary = "Give each thread its share of a parallel loop without the worksharing runtime";
  let description = [{
    Runs after `convert-scf-to-openmp`. An `omp.parallel` region that holds
    only an `omp.wsloop` over a one-dimensional loop (no schedule,
    reduction, private, linear or ordered clause: what the lowering of a
    parallel map becomes) is rewritten so that each thread computes its
    contiguous share of the iterations from `omp_get_thread_num` and
    `omp_get_num_threads` and runs it as an `scf.for`. That is the same
    split as OpenMP's static schedule, without the two costs the runtime
    adds to every such loop: the barrier that ends the worksharing loop
    (the region's own join follows at once) and, in Debian's libomp, a
    debug message formatted with `vsnprintf` on every
    `__kmpc_for_static_init` (4% of a time loop's gradient, measured with
    perf). Time loops enter such regions thousands of times per call.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def SDFGCheckHostInput : Pass<"sdfg-check-host-input", "::mlir::ModuleOp"> {
  let summary = "Reject upstream ops whose undefined behaviour crashes the "
                "upstream lowering";
  let description = [{
    The first pass of the host lowering in `sdfg-lower-to-cpu`,
    `sdfg-lower-to-gpu` and `sdfg-lower-to-gpu-emulator`, which also lower
    the functions an embedding compiler keeps beside the sdfgs. Some ops
    of those functions have undefined behaviour that the upstream folders
    and conversions do not expect and crash on; each is a located error
    here instead: `memref.dim` with a constant index outside the memref's
    rank.
  }];
}

def SDFGCheckLowered : Pass<"sdfg-check-lowered", "::mlir::ModuleOp"> {
  let summary = "Report ops that a lowering to LLVM left behind";
  let description = [{
    The last pass of `sdfg-lower-to-cpu`, `sdfg-lower-to-gpu` and
    `sdfg-lower-to-gpu-emulator`. A dialect conversion that cannot convert
    an op leaves it in place (and wraps the values it uses in
    `builtin.unrealized_conversion_cast`), so a module holding ops the
    pipeline does not lower (a `tensor` op, a `vector` op, a linalg op on
    tensors) would otherwise pass with success and only fail, far from
    its source, in the translation to LLVM IR. This pass fails instead,
    with one error per kind of op left, at the first such op: what is
    left must be the LLVM dialect, OpenMP, `gpu.binary` and
    `gpu.launch_func` (both translate to LLVM IR). A cast left alone (its
    users were lowered) is reported only when nothing else is.
  }];
}

def ConvertToSDFG : Pass<"convert-to-sdfg", "::mlir::ModuleOp"> {
  let summary = "Import func/scf/affine/memref/arith/math/linalg into sdfg";
  let description = [{
    Translates every `func.func` with a body into an `sdfg.sdfg` of the same
    name and signature, so that programs held in upstream dialects reach
    the autodiff, checkpointing and lowering passes:

    * `scf.for` and `affine.for` (constant positive step, single-expression
      bounds) become `sdfg.loop`; `scf.if` becomes `sdfg.if`; `scf.while`
      whose condition forwards its carried values unchanged becomes
      `sdfg.while` (the condition from interstate loads and tasklets);
      `scf.parallel` and `affine.parallel` become `sdfg.map`; an `scf.if`
      in a parallel loop body becomes selects (both branches computed,
      one store per element) where its branches hold only arithmetic that
      cannot trap and store the same elements;
    * `memref.dim` of a dynamic extent becomes `sdfg.dim` at the top of
      the program (a static one a constant): memrefs of dynamic shape
      import, and differentiate, with their extents as the caller's;
    * `memref.subview` with constant strides (any offsets and sizes,
      rank-reducing, nested) addresses its source: an access through it
      becomes a memlet of the source at `offset + stride * index`;
    * index arithmetic (`arith` on `index`, `affine.apply`) folds into the
      affine expressions of memlets and bounds; it must stay affine in loop
      variables and `index` arguments;
    * the scalar code between two control ops becomes one `sdfg.state`:
      `memref`/`affine` loads and stores become memlets, each `arith` or
      `math` op a tasklet; a scalar used after its state, a loop-carried
      value (`iter_args`) and an `scf.if` result live in 0-d transients;
    * `memref.alloc`/`alloca` at the top of the function become transients
      (`memref.dealloc` is dropped: the lowering frees them);
    * `linalg.matmul`, `linalg.matvec` and `linalg.dot` on memrefs become
      `sdfg.matmul`/`gemv`/`dot` with `accumulate` (linalg adds into its
      output); `linalg.generic` (each loop's range static, or the extent
      of an operand dimension that loop alone indexes) becomes a map with
      one tasklet per body op, a reduction yielding `out <op> x` (add,
      mul, max, min) a WCR store of x; `linalg.reduce` (add, maximum,
      minimum) becomes `sdfg.reduce` with `accumulate`; `linalg.fill` a
      map over the memref's extents.

    Arguments keep their `sdfg.name` attribute (the names `--sdfg-autodiff`
    takes); without it they are `arg0`, `arg1`, ... Anything else is an
    error at the op, naming it: results of functions, calls, other
    `scf.while` forms, reductions of `scf.parallel`, non-affine indices,
    tensors, ...
  }];
  let dependentDialects = [
    "::mlir::sdfg::SDFGDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect"
  ];
}

#endif // SDFG_CONVERSION_PASSES_TD
