//===- SDFGLibraryOps.td - sdfg library operations ---------*- tablegen -*-===//
//
// BLAS, LAPACK, sorting and reductions as single ops (included by
// SDFGOps.td; their verifiers and LibraryOpInterface methods are in
// lib/Dialect/SDFG/IR/LibraryOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SDFG_DIALECT_SDFG_SDFGLIBRARYOPS_TD
#define SDFG_DIALECT_SDFG_SDFGLIBRARYOPS_TD

//===----------------------------------------------------------------------===//
// Library ops
//===----------------------------------------------------------------------===//

class SDFG_LibraryOp<string mnemonic, list<Trait> traits = []>
    : SDFG_Op<mnemonic, !listconcat(traits, [
        MemoryEffects<[MemRead, MemWrite]>,
        DeclareOpInterfaceMethods<SDFG_LibraryOpInterface>])> {
  let hasVerifier = 1;
}

def SDFG_MatmulOp : SDFG_LibraryOp<"matmul"> {
  let summary = "Matrix-matrix product (GEMM), batched";
  let description = [{
    `C = alpha op(A) op(B)`, or `C += alpha op(A) op(B)` with
    `accumulate`, where `op` transposes (the last two dimensions) when
    `transpose_a` / `transpose_b` is set and `alpha` defaults to 1 (a
    constant factor the frontend folds in: `Q @ K.T / 8.0`). Operands are 2-d or 3-d containers of the same
    float type; the output must not alias an input. A 3-d operand is a
    batch of matrices along its first dimension (the 3-d operands share
    its extent): `C[b] = op(A[b]) op(B[b])`, where a 2-d input is the same
    matrix for every `b`, and a 2-d output holds the sum over `b` (as the
    gradient of a matrix shared by a batch needs). Lowered to one GEMM per
    batch entry, or to a single GEMM when the batch stacks into the rows
    (`X[b] W`, and its gradient `sum_b X[b]^T dY[b]`).

    ```mlir
    sdfg.matmul %X, %W -> %Y : memref<8x32x16xf64>, memref<16x4xf64> -> memref<8x32x4xf64>
    ```
  }];
  let arguments = (ins SDFG_Container:$a, SDFG_Container:$b,
                       SDFG_Container:$c, UnitAttr:$transpose_a,
                       UnitAttr:$transpose_b, UnitAttr:$accumulate,
                       OptionalAttr<F64Attr>:$alpha);
  let assemblyFormat = [{
    $a `,` $b `->` $c attr-dict `:` type($a) `,` type($b) `->` type($c)
  }];
}

def SDFG_GemvOp : SDFG_LibraryOp<"gemv"> {
  let summary = "Matrix-vector product (GEMV)";
  let description = [{
    `y = op(A) * x`, or `y += op(A) * x` with `accumulate`; `op` transposes
    when `transpose` is set.
  }];
  let arguments = (ins SDFG_Container:$a, SDFG_Container:$x,
                       SDFG_Container:$y, UnitAttr:$transpose,
                       UnitAttr:$accumulate);
  let assemblyFormat = [{
    $a `,` $x `->` $y attr-dict `:` type($a) `,` type($x) `->` type($y)
  }];
}

def SDFG_GerOp : SDFG_LibraryOp<"ger"> {
  let summary = "Outer product, rank-one update (GER)";
  let description = [{
    `A = x y^T`, or `A += x y^T` with `accumulate`, for vectors `x` (the
    rows) and `y` (the columns). The reverse-mode rule of `sdfg.gemv` emits
    it for the matrix's gradient, and `sdfg-batch-outer-products` turns the
    updates of a loop into one `sdfg.matmul`.

    ```mlir
    sdfg.ger %dy, %x -> %dA {accumulate} : memref<20xf64>, memref<6xf64> -> memref<20x6xf64>
    ```
  }];
  let arguments = (ins SDFG_Container:$x, SDFG_Container:$y,
                       SDFG_Container:$a, UnitAttr:$accumulate);
  let assemblyFormat = [{
    $x `,` $y `->` $a attr-dict `:` type($x) `,` type($y) `->` type($a)
  }];
}

def SDFG_DotOp : SDFG_LibraryOp<"dot"> {
  let summary = "Inner product of two vectors";
  let description = [{
    `r = x . y` (or `r += x . y` with `accumulate`) with `r` a 0-d container.
  }];
  let arguments = (ins SDFG_Container:$x, SDFG_Container:$y,
                       SDFG_Container:$result, UnitAttr:$accumulate);
  let assemblyFormat = [{
    $x `,` $y `->` $result attr-dict `:` type($x) `,` type($y) `->` type($result)
  }];
}

def SDFG_TransposeOp : SDFG_LibraryOp<"transpose"> {
  let summary = "Matrix transpose";
  let description = [{
    `B = A^T` (or `B += A^T` with `accumulate`) for 2-d containers.
  }];
  let arguments = (ins SDFG_Container:$input, SDFG_Container:$output,
                       UnitAttr:$accumulate);
  let assemblyFormat = [{
    $input `->` $output attr-dict `:` type($input) `->` type($output)
  }];
}

def SDFG_ReduceOp : SDFG_LibraryOp<"reduce"> {
  let summary = "Reduction over axes";
  let description = [{
    Reduces `input` over `axes` with `add`, `min` or `max` into `output`,
    whose shape is the input's without the reduced axes (or with them kept
    as extent 1: keepdims). With `accumulate` the result is combined into
    the output with the same operation.

    ```mlir
    sdfg.reduce add %A -> %s axes [0, 1] : memref<?x?xf64> -> memref<f64>
    ```
  }];
  let arguments = (ins SDFG_ReduceKind:$kind, SDFG_Container:$input,
                       SDFG_Container:$output, DenseI64ArrayAttr:$axes,
                       UnitAttr:$accumulate);
  let assemblyFormat = [{
    $kind $input `->` $output `axes` $axes attr-dict `:` type($input) `->`
    type($output)
  }];
}

def SDFG_SolveOp : SDFG_LibraryOp<"solve"> {
  let summary = "Solution of a linear system (LU with partial pivoting)";
  let description = [{
    `X = op(A)^-1 B`: solves `op(A) X = B`, where `op` transposes when
    `transpose` is set, for a square `A` (n x n) and a right-hand side `B`
    that is a vector (n) or a matrix (n x k); `X` has `B`'s shape. `X` may
    be `B` itself (solved in place) but must not alias `A`. Lowered to
    LAPACK's getrf/getrs on copies of `A` and `B` (n^2 + nk + n elements of
    scratch during the call).

    When `A` is singular (an exactly zero pivot), `X` is filled with NaN and
    the op's source line is written to the exported i64
    `sdfg_linalg_error` of the compiled module (the Python frontend raises
    `numpy.linalg.LinAlgError` from it).

    ```mlir
    sdfg.solve %A, %b -> %x : memref<8x8xf64>, memref<8xf64> -> memref<8xf64>
    ```
  }];
  let arguments = (ins SDFG_Container:$a, SDFG_Container:$b,
                       SDFG_Container:$x, UnitAttr:$transpose);
  let assemblyFormat = [{
    $a `,` $b `->` $x attr-dict `:` type($a) `,` type($b) `->` type($x)
  }];
}

def SDFG_DetOp : SDFG_LibraryOp<"det"> {
  let summary = "Determinant of a square matrix (LU with partial pivoting)";
  let description = [{
    Writes into the 0-d `result` the determinant of the square `A` (`det`),
    its sign (`sign`: -1, 0 or 1) or the logarithm of its absolute value
    (`logabs`), as NumPy's `det` and `slogdet`. From LAPACK's getrf: the
    product of the pivots, negated per row interchange. A singular `A`
    (an exactly zero pivot) gives 0, 0 and -inf, as in NumPy. The
    factorisation is shared with the `sdfg.solve`s on the same container
    (see `sdfg.solve`).

    ```mlir
    sdfg.det logabs %A -> %r : memref<8x8xf64> -> memref<f64>
    ```
  }];
  let arguments = (ins SDFG_DetKind:$kind, SDFG_Container:$a,
                       SDFG_Container:$result);
  let assemblyFormat = [{
    $kind $a `->` $result attr-dict `:` type($a) `->` type($result)
  }];
}

def SDFG_CholeskyOp : SDFG_LibraryOp<"cholesky"> {
  let summary = "Cholesky factor of a symmetric positive definite matrix";
  let description = [{
    `L` (n x n, lower triangular, zeros above the diagonal) with
    `L L^T = A`, from the lower triangle of `A` only, as NumPy's
    `linalg.cholesky`; LAPACK's potrf on a column-major copy. When `A` is
    not positive definite, `L` is filled with NaN and the op's source line
    is written to the exported i64 `sdfg_linalg_error` (see `sdfg.solve`).
    `L` must not alias `A`.

    ```mlir
    sdfg.cholesky %A -> %L : memref<8x8xf64> -> memref<8x8xf64>
    ```
  }];
  let arguments = (ins SDFG_Container:$a, SDFG_Container:$l);
  let assemblyFormat = [{
    $a `->` $l attr-dict `:` type($a) `->` type($l)
  }];
}

def SDFG_EighOp : SDFG_LibraryOp<"eigh"> {
  let summary = "Eigenvalues or eigenvectors of a symmetric matrix";
  let description = [{
    Of the symmetric matrix whose lower triangle is that of the square `A`
    (n x n; the upper triangle is not read, as in NumPy's `linalg.eigh`):
    `values` writes the eigenvalues in ascending order into the vector
    `result` (n), `vectors` the orthonormal eigenvectors, as the columns of
    `result` (n x n) in the same order. LAPACK's syevd on a column-major
    copy: `values` without vectors (NumPy's `eigvalsh`), `vectors` with
    them (NumPy's `eigh`, whose eigenvectors these are, signs included).
    When syevd does not converge, `result` is filled with NaN and the op's
    source line is written to the exported i64 `sdfg_linalg_error` (see
    `sdfg.solve`). `result` must not alias `A`. The ops on one container
    of static shape share a cache of the last decomposition (a copy of the
    matrix, the vectors and the values): syevd runs again only when memcmp
    finds the matrix changed, or the vectors are wanted and the cached
    solve had none, so the values after the vectors cost a copy.

    The gradient reads the lower triangle too: it flows into the elements
    of `A` on and below the diagonal. That of the eigenvectors divides by
    the differences of eigenvalues and is not finite for a repeated one.

    ```mlir
    sdfg.eigh values %A -> %w : memref<8x8xf64> -> memref<8xf64>
    sdfg.eigh vectors %A -> %V : memref<8x8xf64> -> memref<8x8xf64>
    ```
  }];
  let arguments = (ins SDFG_EighPart:$part, SDFG_Container:$a,
                       SDFG_Container:$result);
  let assemblyFormat = [{
    $part $a `->` $result attr-dict `:` type($a) `->` type($result)
  }];
}

def SDFG_QROp : SDFG_LibraryOp<"qr"> {
  let summary = "Factor of the reduced QR decomposition of a matrix";
  let description = [{
    Of `A` (m x n, k = min(m, n)), `A = Q R` with `Q` (m x k) of orthonormal
    columns and `R` (k x n) upper triangular: `q` writes `Q` into `result`,
    `r` writes `R` (zeros below the diagonal). LAPACK's geqrf (Householder)
    on a column-major copy, then orgqr for `Q`: NumPy's
    `linalg.qr(A, mode="reduced")`, signs included (R's diagonal may be
    negative). `result` must not alias `A`.

    The gradient (Walter and Lehmann's, as TensorFlow's) needs m >= n and
    `R` nonsingular (A of full column rank): with G = Q^T dQ, H = R dR^T,
    `dA = Q dR + (dQ + Q (tril(G - G^T + H - H^T) - G)) R^-T`. Each part's
    rule adds its share and computes the other factor again from `A`.

    ```mlir
    sdfg.qr q %A -> %Q : memref<8x5xf64> -> memref<8x5xf64>
    sdfg.qr r %A -> %R : memref<8x5xf64> -> memref<5x5xf64>
    ```
  }];
  let arguments = (ins SDFG_QRPart:$part, SDFG_Container:$a,
                       SDFG_Container:$result);
  let assemblyFormat = [{
    $part $a `->` $result attr-dict `:` type($a) `->` type($result)
  }];
}

def SDFG_SVDOp : SDFG_LibraryOp<"svd"> {
  let summary = "Factor of the reduced singular value decomposition";
  let description = [{
    Of `A` (m x n, k = min(m, n)), `A = U diag(s) Vh` with `U` (m x k) and
    `Vh` (k x n) of orthonormal columns and rows and the singular values
    `s` (k) in descending order: `u`, `s` or `vh` writes that factor into
    `result`. LAPACK's gesdd (divide and conquer) on a column-major copy,
    as NumPy's `linalg.svd(A, full_matrices=False)` calls it (jobz 'S');
    the values alone (`s` without `with_vectors`) as NumPy's
    `compute_uv=False` (jobz 'N'). When gesdd does not converge, `result`
    is filled with NaN and the op's line goes to `sdfg_linalg_error` (see
    `sdfg.solve`). `result` must not alias `A`.

    The gradient (Townsend's): with F[i, j] = 1 / (s[j]^2 - s[i]^2) off
    the diagonal, the singular values add `U diag(ds) Vh`; the singular
    vectors add `U (F o (U^T dU - dU^T U)) diag(s) Vh + (I - U U^T) dU
    diag(1/s) Vh` and `U diag(s) (F o (Vh dVh^T - dVh Vh^T)) Vh + U
    diag(1/s) dVh (I - Vh^T Vh)`: finite for distinct nonzero singular
    values. Each rule computes the other factors again from `A`.

    ```mlir
    sdfg.svd u %A -> %U : memref<6x4xf64> -> memref<6x4xf64>
    sdfg.svd s %A -> %s {with_vectors} : memref<6x4xf64> -> memref<4xf64>
    sdfg.svd vh %A -> %Vh : memref<6x4xf64> -> memref<4x4xf64>
    ```
  }];
  let arguments = (ins SDFG_SVDPart:$part, SDFG_Container:$a,
                       SDFG_Container:$result, UnitAttr:$with_vectors);
  let assemblyFormat = [{
    $part $a `->` $result attr-dict `:` type($a) `->` type($result)
  }];
}

def SDFG_ArgsortOp : SDFG_LibraryOp<"argsort"> {
  let summary = "Indices that sort an array along one axis (stable)";
  let description = [{
    Writes into the i64 `result` (the shape of `a`) the positions along
    `axis` that put each line of `a` along that axis in ascending order,
    as NumPy's `argsort(a, axis, kind="stable")`: equal elements keep their
    order, and NaNs go last. `a` holds floats or integers; `result` must
    not alias it. Lines of 256 and more: a stable radix sort, a byte per
    pass, of the keys mapped to unsigned integers in that order (-0.0 and
    0.0 equal); shorter ones: a stable bottom-up merge sort; both move
    (key, position) pairs between two scratch buffers of the line's
    length, lines in parallel on the CPU; on the GPU it runs on the host
    over unified memory.

    The op has no gradient (its result is integer): a sort is a gather by
    these positions, whose reversal scatters the gradient back.

    ```mlir
    sdfg.argsort %a axis 1 -> %p : memref<4x8xf64> -> memref<4x8xi64>
    ```
  }];
  let arguments = (ins SDFG_Container:$a, I64Attr:$axis,
                       SDFG_Container:$result);
  let assemblyFormat = [{
    $a `axis` $axis `->` $result attr-dict `:` type($a) `->` type($result)
  }];
}

def SDFG_FftOp : SDFG_LibraryOp<"fft"> {
  let summary = "Discrete Fourier transform along one axis (complex data)";
  let description = [{
    Writes into `result` the unscaled discrete Fourier transform of each
    line of `a` along `axis`: `result[.., k, ..] = sum_j a[.., j, ..]
    exp(-2 pi i j k / n)`, or with `inverse` the sign `+` and still no
    `1/n` (the frontend applies NumPy's `norm` scaling), so that the op is
    linear and its adjoint is the op of the other sign. With `accumulate`
    the transform is added to `result`'s values.

    The data are complex in NumPy's memory layout: a container of f64 or
    f32 whose last dimension has extent 2 (real and imaginary parts
    interleaved); `axis` is one of the other dimensions, and `result` has
    the type of `a` and must not alias it. Any length n >= 1: an iterative
    radix-2 Cooley-Tukey transform when n is a power of two, else
    Bluestein's chirp-z algorithm, which writes the transform as a
    convolution computed by power-of-two transforms of length m >= 2n - 1.
    Twiddles and chirps are cos/sin of exact integer ratios in f64 and the
    arithmetic is f64 (f32 data is widened), with scratch lines of length
    n or m; lines in parallel on the CPU; on the GPU it runs on the host
    over unified memory.

    ```mlir
    sdfg.fft %x axis 0 -> %X : memref<100x2xf64> -> memref<100x2xf64>
    sdfg.fft %X axis 1 inverse -> %y : memref<4x8x2xf32> -> memref<4x8x2xf32>
    ```
  }];
  let arguments = (ins SDFG_Container:$a, I64Attr:$axis, UnitAttr:$inverse,
                       SDFG_Container:$result, UnitAttr:$accumulate);
  let assemblyFormat = [{
    $a `axis` $axis (`inverse` $inverse^)? `->` $result attr-dict `:`
    type($a) `->` type($result)
  }];
}

def SDFG_SearchsortedOp : SDFG_LibraryOp<"searchsorted"> {
  let summary = "Insertion positions of values in a sorted vector";
  let description = [{
    Writes into the i64 `result` (the shape of `values`), for each element
    `v` of `values`, the position in the ascending 1-d `sorted` where `v`
    would be inserted to keep it sorted, as NumPy's
    `searchsorted(sorted, values, side)`: the number of elements that sort
    before `v` (side left, the default), or that `v` does not sort before
    (`right`), in NumPy's order (NaNs after every number). `sorted` and
    `values` hold the same float or integer type; `result` must alias
    neither. A binary search per value, values in parallel on the CPU; on
    the GPU it runs on the host over unified memory. What it returns for
    an unsorted `sorted` is unspecified (as in NumPy, which does not
    check).

    The op has no gradient (its result is integer): the gathers that read
    its positions (np.interp) carry the gradient.

    ```mlir
    sdfg.searchsorted %x in %xp right -> %j
        : memref<50xf64> in memref<8xf64> -> memref<50xi64>
    ```
  }];
  let arguments = (ins SDFG_Container:$values, SDFG_Container:$sorted,
                       UnitAttr:$right, SDFG_Container:$result);
  let assemblyFormat = [{
    $values `in` $sorted (`right` $right^)? `->` $result attr-dict `:`
    type($values) `in` type($sorted) `->` type($result)
  }];
}

def SDFG_CustomCallOp : SDFG_LibraryOp<"custom_call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A call of another sdfg.sdfg, with user-given derivatives";
  let description = [{
    Runs the sdfg.sdfg `callee` on `inputs`, writing its result into
    `output`: the callee's parameters are the inputs' types followed by the
    output's. Autodiff does not look inside the callee: its reverse-mode
    rule is the user's (the frontend's `sdfg.custom_vjp`). `vjp` has one
    entry per input, a symbol or `unit` where the input gets no gradient;
    the symbol names an sdfg.sdfg taking the inputs, the output, the
    output's cotangent and a container of the input's type, into which it
    writes that input's cotangent (which the reverse rule adds to the
    input's gradient). Shapes are static; the output is none of the inputs.
    Forward mode has no rule for it (as JAX's custom_vjp has none).

    ```mlir
    sdfg.custom_call @clip(%x) -> %y {vjp = [@clip_vjp0]}
        : (memref<8xf64>) -> memref<8xf64>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<SDFG_Container>:$inputs,
                       SDFG_Container:$output,
                       OptionalAttr<ArrayAttr>:$vjp);
  let assemblyFormat = [{
    $callee `(` $inputs `)` `->` $output attr-dict `:`
    `(` type($inputs) `)` `->` type($output)
  }];
}

#endif // SDFG_DIALECT_SDFG_SDFGLIBRARYOPS_TD
