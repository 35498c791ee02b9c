//===- SDFGOps.td - sdfg dialect operations ----------------*- tablegen -*-===//
//
// Operations of the sdfg dialect.
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_SDFGOPS_TD
#define SDFG_DIALECT_SDFG_SDFGOPS_TD

include "sdfg/Dialect/SDFG/IR/SDFGDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "sdfg/Dialect/SDFG/IR/LibraryOpInterface.td"

class SDFG_Op<string mnemonic, list<Trait> traits = []>
    : Op<SDFG_Dialect, mnemonic, traits>;

// Containers: ranked memrefs in the default row-major layout.
def SDFG_Container : Type<
    And<[IsMemRefTypePred,
         CPred<"::llvm::cast<::mlir::MemRefType>($_self).getLayout().isIdentity()">]>,
    "memref with identity layout", "::mlir::MemRefType">;

def SDFG_Scalar : AnyTypeOf<[F32, F64, AnySignlessInteger, Index]>;

//===----------------------------------------------------------------------===//
// sdfg.sdfg
//===----------------------------------------------------------------------===//

def SDFG_SDFGOp : SDFG_Op<"sdfg", [
    IsolatedFromAbove, Symbol, FunctionOpInterface, SingleBlock, NoTerminator,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>
  ]> {
  let summary = "A stateful dataflow multigraph (a function)";
  let description = [{
    A function-like op holding one control region. Arguments are containers
    (memrefs in row-major layout), scalars (float or integer, passed by
    value) and integer symbols (`index`). The op has no results: outputs are
    written into container arguments. `ad_output` and `ad_wrt` optionally
    name the container differentiated and the inputs differentiated against;
    argument names come from the `sdfg.name` argument attribute (default
    `argN`).

    C ABI (used by the Python frontend through ctypes): one exported C
    function per `sdfg.sdfg`, same name, returning void. Arguments in
    declaration order: a container contributes a pointer to its first
    element followed by one `int64_t` per dynamic dimension, in order; an
    `index` contributes an `int64_t`; a scalar is passed by value in its
    C type (`double`, `float`, `int32_t`, ...).

    Example:
    ```mlir
    sdfg.sdfg @scale(%A: memref<?xf64>, %N: index, %alpha: f64) {
      sdfg.state "body" {
        sdfg.map (%i) = (0) to (%N) step (1) schedule(cpu_multicore) {
          %a = sdfg.load %A[%i] : memref<?xf64>
          %r = sdfg.tasklet(%a, %alpha) : (f64, f64) -> f64 {
          ^bb0(%x: f64, %s: f64):
            %m = arith.mulf %x, %s : f64
            sdfg.yield %m : f64
          }
          sdfg.store %r, %A[%i] : memref<?xf64>
        }
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<StrAttr>:$ad_output,
                       OptionalAttr<StrArrayAttr>:$ad_wrt);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// The user-visible name of argument `i` (`sdfg.name`, else `argI`).
    std::string getArgName(unsigned i);
    /// The argument named `name`, if any.
    ::mlir::BlockArgument lookupArg(::llvm::StringRef name);
  }];
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def SDFG_StateOp : SDFG_Op<"state", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects
  ]> {
  let summary = "A state: one dataflow graph";
  let description = [{
    Holds dataflow: memlet ops, tasklets, maps and library ops, executed in
    order. An optional label names the state for diagnostics and reports.

    ```mlir
    sdfg.state "init" {
      sdfg.copy %A[0 : 4] to %B[0 : 4] : memref<4xf64> to memref<4xf64>
    }
    ```
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$label);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "($label^)? attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins CArg<"::llvm::StringRef", "{}">:$label)>];
}

def SDFG_LoopOp : SDFG_Op<"loop", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<LoopLikeOpInterface, ["getLoopInductionVars"]>
  ]> {
  let summary = "A loop region";
  let description = [{
    A sequential loop with Python `range` semantics: the iterator starts at
    the lower bound and advances by the constant, non-zero `step` while it is
    below the bound (positive step) or above it (negative step). Bounds are
    affine expressions over index values in scope (symbols, outer
    iterators, results of tasklets over index values, which makes any
    non-affine or data-dependent bound expressible).

    ```mlir
    sdfg.loop %t = 0 to %T step 1 { ... }
    sdfg.loop %i = %N - 1 to -1 step -2 { ... }
    ```
  }];
  let arguments = (ins Variadic<Index>:$bound_operands,
                       AffineMapAttr:$bounds,
                       I64Attr:$step);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::BlockArgument getIterator() { return getBody().getArgument(0); }
    ::mlir::AffineExpr getLowerExpr() { return getBounds().getResult(0); }
    ::mlir::AffineExpr getUpperExpr() { return getBounds().getResult(1); }
    int64_t getStepValue() { return getStepAttr().getInt(); }
  }];
}

def SDFG_IfOp : SDFG_Op<"if", [
    NoTerminator, RecursiveMemoryEffects
  ]> {
  let summary = "A conditional block with one or more branches";
  let description = [{
    Runs the first branch whose condition is true; an optional last branch
    without condition (`else`) runs when none is. Conditions are `i1`
    values computed in the enclosing control region, for example from
    array data loaded by `sdfg.load`.

    ```mlir
    sdfg.if %c0 { ... } elif %c1 { ... } else { ... }
    ```
  }];
  let arguments = (ins Variadic<I1>:$conditions);
  let regions = (region VariadicRegion<SizedRegion<1>>:$branches);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    bool hasElse() { return getBranches().size() > getConditions().size(); }
  }];
}

def SDFG_WhileOp : SDFG_Op<"while", [
    NoTerminator, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<LoopLikeOpInterface>]> {
  let summary = "A loop with a data-dependent trip count";
  let description = [{
    Evaluates the `cond` region (interstate scalar computations ending in
    `sdfg.condition`) and runs the `body` control region while the
    condition holds. For loops whose trip count depends on data, such as
    Python `while` loops.

    ```mlir
    sdfg.while {
      %r = sdfg.load %res[] : memref<f64>
      %c = sdfg.tasklet(%r) : (f64) -> i1 { ... }
      sdfg.condition %c
    } do {
      sdfg.state { ... }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$cond, SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
}

def SDFG_ConditionOp : SDFG_Op<"condition", [HasParent<"WhileOp">]> {
  let summary = "The condition of an sdfg.while";
  let description = [{
    Must be the last operation of the condition region of `sdfg.while`.
  }];
  let arguments = (ins I1:$condition);
  let assemblyFormat = "$condition attr-dict";
}

//===----------------------------------------------------------------------===//
// Containers
//===----------------------------------------------------------------------===//

def SDFG_AllocOp : SDFG_Op<"alloc", [MemoryEffects<[MemAlloc]>]> {
  let summary = "A transient container";
  let description = [{
    Declares a transient container. Its contents are undefined until
    written; code generation allocates it before the first top-level op of
    the SDFG that uses it and frees it after the last one, so memory is held
    only while needed and never allocated inside loops. Dynamic sizes are
    given as index operands, one per `?` dimension. Only allowed directly in
    the body of `sdfg.sdfg`. The optional `name` (the frontend's variable
    name) is how reports and pass options such as `sdfg-checkpoint`'s
    `recompute=` refer to it; unnamed transients are `transient<k>`, in
    order of declaration. With the unit attribute `sdfg.stop_gradient` the
    container is a constant to differentiation: `sdfg-autodiff` and
    `sdfg-forward-diff` give it no gradient or tangent, whatever is
    written into it (the frontend's `sdfg.stop_gradient(x)` is a copy of
    `x` into such a container).

    ```mlir
    %tmp = sdfg.alloc(%N) {name = "tmp"} : memref<?x4xf64>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes,
                       OptionalAttr<StrAttr>:$name);
  let results = (outs SDFG_Container:$result);
  let assemblyFormat = "`(` $dynamic_sizes `)` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memlets
//===----------------------------------------------------------------------===//

def SDFG_LoadOp : SDFG_Op<"load", [MemoryEffects<[MemRead]>]> {
  let summary = "Element read memlet";
  let description = [{
    Reads one element of a container; indices are affine expressions over
    the index operands.

    ```mlir
    %v = sdfg.load %A[%i - 1, %j] : memref<?x?xf64>
    ```
  }];
  let arguments = (ins SDFG_Container:$memref, Variadic<Index>:$indices,
                       AffineMapAttr:$map);
  let results = (outs SDFG_Scalar:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def SDFG_StoreOp : SDFG_Op<"store", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Element write memlet, with optional write-conflict resolution";
  let description = [{
    Writes one element of a container. With `wcr`, the value is combined
    with the element (`add`, `mul`, `min`, `max`), atomically when the store
    runs inside a parallel map.

    ```mlir
    sdfg.store %v, %B[%i, %j] : memref<?x?xf64>
    sdfg.store %v, %sum[] wcr(add) : memref<f64>
    ```
  }];
  let arguments = (ins SDFG_Scalar:$value, SDFG_Container:$memref,
                       Variadic<Index>:$indices, AffineMapAttr:$map,
                       OptionalAttr<SDFG_WCRKind>:$wcr);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def SDFG_CopyOp : SDFG_Op<"copy", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Subset-to-subset memlet between containers";
  let description = [{
    Copies a subset of one container into a subset of another. Each
    dimension of a subset is an element index `e` (the dimension is dropped)
    or a range `lo : hi` or `lo : hi : step` (exclusive upper bound, positive
    constant step). After dropping element dimensions both subsets must have
    the same rank, and the same extents where they are constant. With `wcr`
    the elements are combined into the destination. Source and destination
    must not overlap unless they are the same elements.

    ```mlir
    sdfg.copy %A[%i, 0 : %N] to %B[0 : %N] wcr(add)
        : memref<?x?xf64> to memref<?xf64>
    ```
  }];
  let arguments = (ins SDFG_Container:$source, SDFG_Container:$target,
                       Variadic<Index>:$indices,
                       AffineMapAttr:$source_subset,
                       DenseI64ArrayAttr:$source_steps,
                       DenseBoolArrayAttr:$source_ranges,
                       AffineMapAttr:$target_subset,
                       DenseI64ArrayAttr:$target_steps,
                       DenseBoolArrayAttr:$target_ranges,
                       OptionalAttr<SDFG_WCRKind>:$wcr);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::sdfg::Subset getSourceSubsetInfo();
    ::mlir::sdfg::Subset getTargetSubsetInfo();
  }];
}

//===----------------------------------------------------------------------===//
// Tasklets and maps
//===----------------------------------------------------------------------===//

def SDFG_TaskletOp : SDFG_Op<"tasklet", [
    IsolatedFromAbove, SingleBlockImplicitTerminator<"YieldOp">, Pure
  ]> {
  let summary = "A pure scalar computation";
  let description = [{
    A region over scalar inputs using `arith` and `math` operations, ending
    in `sdfg.yield` with one value per result.

    ```mlir
    %r = sdfg.tasklet(%a, %b) : (f64, f64) -> f64 {
    ^bb0(%x: f64, %y: f64):
      %s = arith.addf %x, %y : f64
      sdfg.yield %s : f64
    }
    ```
  }];
  let arguments = (ins Variadic<SDFG_Scalar>:$inputs);
  let results = (outs Variadic<SDFG_Scalar>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def SDFG_YieldOp : SDFG_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"TaskletOp">
  ]> {
  let summary = "Tasklet terminator";
  let arguments = (ins Variadic<SDFG_Scalar>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [OpBuilder<(ins), [{ /* nothing to do */ }]>];
}

def SDFG_MapOp : SDFG_Op<"map", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<LoopLikeOpInterface, ["getLoopInductionVars"]>
  ]> {
  let summary = "A parallel N-d range";
  let description = [{
    Runs its body for every point of an N-d range whose iterations are
    independent. Bounds are affine expressions over index values in scope
    (lower inclusive, upper exclusive), steps positive constants. The
    schedule says where the map runs: `sequential`, `cpu_multicore` (OpenMP
    threads) or `gpu_device` (a GPU kernel). `disjoint_wcr` asserts that
    iterations with distinct values of the first parameter write distinct
    elements through wcr memlets, so code that splits the first parameter
    across threads needs no atomics for them; iterations that share it may
    write the same element (the GPU lowering, whose threads also differ in
    the other parameters, keeps atomics for those writes).

    ```mlir
    sdfg.map (%i, %j) = (1, 1) to (%N - 1, %N - 1) step (1, 1)
        schedule(cpu_multicore) { ... }
    ```
  }];
  let arguments = (ins Variadic<Index>:$range_operands,
                       AffineMapAttr:$lower_bounds,
                       AffineMapAttr:$upper_bounds,
                       DenseI64ArrayAttr:$steps,
                       SDFG_ScheduleKind:$schedule,
                       UnitAttr:$disjoint_wcr);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    unsigned getNumParams() { return getBody().getNumArguments(); }
    ::mlir::Block::BlockArgListType getParams() {
      return getBody().getArguments();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Run-time checks
//===----------------------------------------------------------------------===//

def SDFG_BroadcastExtentOp : SDFG_Op<"broadcast_extent", [
    MemoryEffects<[MemWrite]>]> {
  let summary = "NumPy's broadcast of two extents known only at run time";
  let description = [{
    The extent that NumPy's broadcasting gives one dimension. With
    `operands` (two operands of an element-wise operation) `lhs` and `rhs`
    agree, or one of them is 1 and the result is the other. With `assign`
    (a source of extent `lhs` assigned into a destination of extent `rhs`)
    they agree or the source is 1, and the result is `rhs`. Any other pair
    is NumPy's ValueError: the op then reports the failure through the
    program's error record (the first failure of a call wins; see
    `sdfg_index_error` in docs/c-abi.md: axis -1 for `operands`, -2 for
    `assign`, the index and extent fields holding `lhs` and `rhs`) and
    yields `min(lhs, rhs)`, so that accesses the result sizes stay inside
    both operands until the caller sees the error.

    A frontend emits it where it cannot compare two extents when compiling
    (windows clamped at the end of an array, bounds read from data), so
    that a mismatch is an error rather than a read past an array. Where one
    operand may be 1 and the other not, it indexes that operand at
    `min(i, extent - 1)`, which is NumPy's broadcast of a length-1 axis.
    The op has an effect (the report), so it is never removed for having
    no uses; it folds away when the extents are equal or constants.

    ```mlir
    %n = sdfg.broadcast_extent operands %la, %lb
    %m = sdfg.broadcast_extent assign %src, %dst
    ```
  }];
  let arguments = (ins SDFG_BroadcastKind:$kind, Index:$lhs, Index:$rhs);
  let results = (outs Index:$result);
  let assemblyFormat = "$kind $lhs `,` $rhs attr-dict";
  let hasFolder = 1;
}

def SDFG_CheckIndexOp : SDFG_Op<"check_index", [MemoryEffects<[MemWrite]>]> {
  let summary = "An index NumPy bounds-checks, checked when the program runs";
  let description = [{
    Yields `index`, and reports NumPy's IndexError through the program's
    error record (the first failure of a call wins; see `sdfg_index_error`
    in docs/c-abi.md) unless `0 <= index < extent`, with `axis` and
    `extent` as the frontend's array has them: the bounds of a view (a
    window of a container, an axis of it), which the accesses' own checks
    against the container cannot see. An access indexed by the result is
    still checked against its container (the result is not trusted), so
    a failing one outside it is skipped.

    A frontend emits it where an index that compiling cannot prove in
    range is read in a loop (`u[i + 1]` over every `i`; `w[k]` of a window
    `w`); indices it can prove in range need none. Axis -3 checks index 0
    against the extent of an axis that a reduction without identity (max,
    min, argmax) reduces: a failure there is NumPy's ValueError for an
    empty array, not an IndexError.

    ```mlir
    %j = sdfg.check_index %i, %n axis 0
    ```
  }];
  let arguments = (ins Index:$index, Index:$extent, I64Attr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$index `,` $extent `axis` $axis attr-dict";
}

def SDFG_DimOp : SDFG_Op<"dim", [Pure]> {
  let summary = "An extent of a container";
  let description = [{
    The extent of `container` along `axis`: for an argument of dynamic
    shape, what the caller passed (the C ABI's size arguments); for a
    transient, its allocation's size. An interstate scalar computation (or
    a value read in a state or map), so that programs and the passes that
    build loops and maps over whole containers (autodiff's fills and
    copies of arguments of dynamic shape) can name the sizes only the call
    knows.

    ```mlir
    %n = sdfg.dim %A, 1 : memref<?x?xf64>
    ```
  }];
  let arguments = (ins SDFG_Container:$container, I64Attr:$axis);
  let results = (outs Index:$result);
  let assemblyFormat = "$container `,` $axis attr-dict `:` type($container)";
  let hasVerifier = 1;
}

def SDFG_PrintOp : SDFG_Op<"print", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Records the values of containers for the caller to print";
  let description = [{
    Appends the values of `values` (whole containers, static shapes), each
    as its bytes after a header of `site`, its position and its size, to
    the calling thread's print log (`sdfg_print_data`, `sdfg_print_size`
    in docs/design/c-abi.md), which the caller reads, prints and empties
    after the call: the Python frontend formats each record as NumPy
    would (`print(...)` inside a compiled program, like
    `jax.debug.print`), with what `site` says of the text around the
    values. In a state, on the calling thread (not in maps); the CPU only.
    Autodiff keeps it in the forward sweep (a gradient program prints
    what the forward program prints) and gives it no derivative.

    ```mlir
    sdfg.print site 0 (%loss, %u : memref<f64>, memref<16xf64>)
    sdfg.print site 1
    ```
  }];
  let arguments = (ins Variadic<SDFG_Container>:$values, I64Attr:$site);
  let assemblyFormat = [{
    `site` $site (` ` `(` $values^ `:` type($values) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

include "sdfg/Dialect/SDFG/IR/SDFGLibraryOps.td"

#endif // SDFG_DIALECT_SDFG_SDFGOPS_TD
