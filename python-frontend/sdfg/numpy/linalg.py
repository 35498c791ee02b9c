"""np.linalg: norm, solve, inv, det, slogdet, cholesky, eigh,
eigvalsh, qr, svd, pinv, cond, matrix_rank, lstsq, matrix_power,
multi_dot; the factorisations are library ops (LAPACK when compiled)
with their own gradient rules, the rest is composed of them.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import manipulation, operands, products, reductions, ufuncs
from .. import ir
from .registry import Arguments, no_kwargs, numpy_call, numpy_function
from ..frontend import callables
from ..semantics.values import (ConstLeaf, Op, Unavailable, Value, ViewLeaf,
                                as_idx, is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def _norm(tr, x, order, axis, keepdims, node):
    """np.linalg.norm: vector norms of any order over one axis (or a
    vector); the Frobenius norm and the 1- and inf-norms of matrices (the
    largest column or row sum); the 2-, -2- and nuclear norms from the
    singular values (gesdd's, as NumPy's)."""
    def total(v, ax, kind="sum"):
        return reductions.reduce(tr, kind, v, ax, keepdims, node)

    e = tr.to_expr(x)
    if not is_float(e.dtype):
        x = Op("cast", [e], e.shape, np.dtype(np.float64))  # as NumPy's
    rank = len(x.shape)
    if axis is None:
        axes = tuple(range(rank))
    else:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if order is None or (order == "fro" and len(axes) == 2):
        return ufuncs.elementwise(tr, "sqrt", [total(tr.binop("mul", x, x),
                                                     axis)],
                           node)
    ax = ufuncs.elementwise(tr, "abs", [x], node)
    if len(axes) == 1:
        if not isinstance(order, (int, float)) or isinstance(order, bool):
            raise tr.error(f"invalid norm order {order!r} for vectors", node)
        if order == float("inf"):
            return total(ax, axis, "max")
        if order == float("-inf"):
            return total(ax, axis, "min")
        if order == 0:
            nz = Op("cast", [tr.binop("ne", x, 0)], x.shape, np.float64)
            return total(nz, axis)
        if order == 1:
            return total(ax, axis)
        if order == 2:
            return ufuncs.elementwise(tr, "sqrt", [total(tr.binop("mul", x, x),
                                                  axis)], node)
        p = float(order)
        # NumPy raises in place: the result keeps x's float type.
        root = ConstLeaf(1.0 / p, tr.to_expr(x).dtype)
        return tr.binop("pow", total(tr.binop("pow", ax, p), axis), root)
    if len(axes) == 2 and order in (2, -2, "nuc"):
        # Of the singular values: the largest, the smallest, their sum.
        if keepdims or sorted(a % rank for a in axes) != [0, 1] or \
                rank != 2:
            raise tr.unsupported(node, f"np.linalg.norm with ord {order!r} "
                                 "of anything but a whole matrix")
        s = singular_values(tr, "norm", x, node)
        kind = {2: "max", -2: "min", "nuc": "sum"}[order]
        return reductions.reduce(tr, kind, s, None, False, node)
    if len(axes) != 2 or order not in (1, -1, float("inf"), float("-inf")):
        raise tr.unsupported(node, f"np.linalg.norm of a matrix with ord "
                             f"{order!r}", "matrices: None, 'fro', 1, -1, "
                             "2, -2, inf, -inf, 'nuc'")
    if keepdims:
        raise tr.unsupported(node, "keepdims with a matrix norm order")
    rows, cols = (a % rank for a in axes)
    summed = cols if order in (float("inf"), float("-inf")) else rows
    other = rows if summed == cols else cols
    sums = reductions.reduce(tr, "sum", ax, summed, False, node)
    kind = "max" if order > 0 else "min"
    return reductions.reduce(tr, kind, sums, other - (other > summed), False,
                             node)


def _square_matrix(tr, name, args, kwargs, node, arity=1):
    """The checks np.linalg's LU-based functions share: the argument count,
    the CPU, one square matrix of static shape. Returns (matrix, n)."""
    no_kwargs(tr, kwargs, node)
    if len(args) != arity:
        raise tr.error(f"np.linalg.{name} takes {arity} argument"
                       f"{'s' if arity > 1 else ''}", node)
    a = tr.to_expr(args[0])
    n, m = _static_matrix(tr, name, a, node, "square matrix")
    if n != m:
        raise tr.error(f"np.linalg.{name}: the matrix must be square, got "
                       f"{n}x{m}", node)
    return a, n


def _linalg_det(tr, name, args, kwargs, node):
    """np.linalg.det(A) and np.linalg.slogdet(A) (a (sign, logabsdet)
    pair): sdfg.det ops sharing one LU factorisation; the gradient of
    log|det A| is A^-T (det A times that for det)."""
    a, n = _square_matrix(tr, name, args, kwargs, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    va = products.blas_operand(tr, a, dtype, node)
    # det A^T = det A: a transposed view is taken as it is.
    kinds = ["det"] if name == "det" else ["sign", "logabs"]
    results = []
    for kind in kinds:
        out = tr.transient_view([], dtype, node, kind)
        ca, co = va.container, out.container
        tr.em.line(ir.library_op("det", [ca.ssa], co.ssa, [ca.mlir_type],
                                 co.mlir_type, prefix=f"{kind} "))
        results.append(ViewLeaf(out))
    return results[0] if name == "det" else tuple(results)


def _linalg_cholesky(tr, args, kwargs, node):
    """np.linalg.cholesky(A): an sdfg.cholesky, which reads the lower
    triangle of its container as NumPy reads A's."""
    a, n = _square_matrix(tr, "cholesky", args, kwargs, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    va = products.blas_operand(tr, a, dtype, node)
    if va.is_whole_transposed():
        # A.T's lower triangle is its container's upper one.
        va = tr.snapshot(a, node, "operand")
    out = tr.transient_view([n, n], dtype, node, "cholesky")
    ca, co = va.container, out.container
    tr.em.line(ir.library_op("cholesky", [ca.ssa], co.ssa, [ca.mlir_type],
                             co.mlir_type))
    tr.sig.linalg_sites.append(("np.linalg.cholesky", tr.em.where()))
    return ViewLeaf(out)


def _linalg_eigh(tr, name, args, kwargs, node):
    """np.linalg.eigh(A) (eigenvalues, eigenvectors) and eigvalsh(A): one
    sdfg.eigh per result wanted (sharing one eigensolve when compiled), reading A's lower triangle (UPLO='L') or
    its upper one (the transpose's lower)."""
    uplo = kwargs.pop("UPLO", args[1] if len(args) > 1 else "L")
    if uplo not in ("L", "U"):
        raise tr.error("UPLO argument must be 'L' or 'U'", node)
    a, n = _square_matrix(tr, name, args[:1], kwargs, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    if uplo == "U":
        a = tr.to_expr(manipulation.transpose(tr, a, None, node))
    va = products.blas_operand(tr, a, dtype, node)
    if va.is_whole_transposed():
        # The container's lower triangle is the view's upper one.
        va = tr.snapshot(a, node, "operand")
    # The vectors first: the compiled ops on one matrix share a cache, and
    # the values are then a copy of that eigensolve's rather than a second
    # one.
    parts = ["values"] if name == "eigvalsh" else ["vectors", "values"]
    results = []
    for part in parts:
        out = tr.transient_view([n] if part == "values" else [n, n], dtype,
                                node, part)
        ca, co = va.container, out.container
        tr.em.line(ir.library_op("eigh", [ca.ssa], co.ssa, [ca.mlir_type],
                                 co.mlir_type, prefix=f"{part} "))
        results.append(ViewLeaf(out))
    tr.sig.linalg_sites.append((f"np.linalg.{name}", tr.em.where()))
    return results[0] if name == "eigvalsh" else tuple(reversed(results))


def _linalg_qr(tr, args, kwargs, node):
    """np.linalg.qr(A, mode): the reduced (Q, R), or R alone (mode "r"),
    one sdfg.qr per factor (LAPACK's geqrf, orgqr for Q: NumPy's factors,
    signs included). "complete" is the reduced pair where A has no more
    rows than columns; otherwise its Q has columns A does not determine
    and is rejected."""
    no_kwargs(tr, kwargs, node, ("mode",))
    if len(args) not in (1, 2):
        raise tr.error("np.linalg.qr takes the matrix and a mode", node)
    mode = kwargs.get("mode", args[1] if len(args) > 1 else "reduced")
    if mode not in ("reduced", "r", "complete"):
        raise tr.unsupported(node, f"np.linalg.qr with mode {mode!r}",
                             "modes: 'reduced', 'r', 'complete' (for "
                             "matrices with no more rows than columns)")
    va, m, n, dtype = _matrix_operand(tr, "qr", args[0], node)
    k = min(m, n)
    if mode == "complete" and m > n:
        raise tr.unsupported(node, "np.linalg.qr with mode 'complete' of a "
                             "matrix with more rows than columns",
                             "use the reduced Q (mode='reduced')")
    parts = ["r"] if mode == "r" else ["q", "r"]
    results = []
    for part in parts:
        out = tr.transient_view([m, k] if part == "q" else [k, n], dtype,
                                node, part.upper())
        ca, co = va.container, out.container
        tr.em.line(ir.library_op("qr", [ca.ssa], co.ssa, [ca.mlir_type],
                                 co.mlir_type, prefix=f"{part} "))
        results.append(ViewLeaf(out))
    # Its gradient solves with R: a singular one raises as a solve's.
    tr.sig.linalg_sites.append(("np.linalg.qr", tr.em.where()))
    return results[0] if mode == "r" else tuple(results)


def _static_matrix(tr, name, a, node, what="matrix"):
    """The extents of `a`, one 2-d array of static shape, for np.linalg."""
    if len(a.shape) != 2:
        raise tr.unsupported(node, f"np.linalg.{name} of a {len(a.shape)}-d "
                             "array", f"only one {what} (no stacks)")
    if not all(as_idx(e).is_const() for e in a.shape):
        raise tr.unsupported(node, f"np.linalg.{name} of a matrix whose "
                             "shape depends on a loop")
    return tuple(as_idx(e).const for e in a.shape)


def _matrix_operand(tr, name, value, node):
    """A 2-d float matrix of static shape as a whole container LAPACK can
    read row-major (a transposed view is copied): (view, m, n, dtype)."""
    a = tr.to_expr(value)
    m, n = _static_matrix(tr, name, a, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    va = products.blas_operand(tr, a, dtype, node)
    if va.is_whole_transposed():
        va = tr.snapshot(a, node, "operand")
    return va, m, n, dtype


def singular_values(tr: "Translator", name: str, value: Value,
                    node: ast.AST) -> Value:
    """The singular values of a matrix (np.linalg.svd's compute_uv=False:
    gesdd without vectors), for svd and the matrix norms that need them."""
    va, m, n, dtype = _matrix_operand(tr, name, value, node)
    out = tr.transient_view([min(m, n)], dtype, node, "s")
    ca, co = va.container, out.container
    tr.em.line(ir.library_op("svd", [ca.ssa], co.ssa, [ca.mlir_type],
                             co.mlir_type, prefix="s "))
    tr.sig.linalg_sites.append((f"np.linalg.{name}", tr.em.where()))
    return ViewLeaf(out)


def _linalg_svd(tr, args, kwargs, node):
    """np.linalg.svd(A, full_matrices, compute_uv): one sdfg.svd per factor
    (LAPACK's gesdd, as NumPy calls it). The full U or Vh of a matrix that
    is not square has columns A does not determine: full_matrices=True
    (NumPy's default) is the reduced factors for square matrices and
    rejected otherwise."""
    name = "svd"
    no_kwargs(tr, kwargs, node, ("full_matrices", "compute_uv",
                                  "hermitian"))
    if not 1 <= len(args) <= 4:
        raise tr.error("np.linalg.svd takes the matrix, full_matrices, "
                       "compute_uv and hermitian", node)
    arg = Arguments(tr, args, kwargs, node)
    full = arg(1, "full_matrices", True)
    uv = arg(2, "compute_uv", True)
    if arg(3, "hermitian", False) is not False:
        raise tr.unsupported(node, "np.linalg.svd with hermitian=True",
                             "use np.linalg.eigh for symmetric matrices")
    if not isinstance(full, bool) or not isinstance(uv, bool):
        raise tr.unsupported(node, "np.linalg.svd with full_matrices or "
                             "compute_uv computed at run time")
    if not uv:
        return singular_values(tr, name, args[0], node)
    va, m, n, dtype = _matrix_operand(tr, name, args[0], node)
    if full and m != n:
        raise tr.unsupported(node, "np.linalg.svd with full_matrices=True "
                             "of a matrix that is not square",
                             "pass full_matrices=False (the reduced U and "
                             "Vh)")
    k = min(m, n)
    results = []
    for part, shape in (("u", [m, k]), ("s", [k]), ("vh", [k, n])):
        out = tr.transient_view(shape, dtype, node, part.upper())
        ca, co = va.container, out.container
        tr.em.line(ir.library_op("svd", [ca.ssa], co.ssa, [ca.mlir_type],
                                 co.mlir_type,
                                 ["with_vectors"] if part == "s" else [],
                                 prefix=f"{part} "))
        results.append(ViewLeaf(out))
    tr.sig.linalg_sites.append(("np.linalg.svd", tr.em.where()))
    return tuple(results)


def _linalg_solve(tr, name, args, kwargs, node):
    """np.linalg.solve(A, b) and np.linalg.inv(A) (= solve(A, I)): an
    sdfg.solve (LAPACK's LU with partial pivoting), whose reverse-mode rule
    is one more solve with the transposed matrix."""
    a, n = _square_matrix(tr, name, args, kwargs, node,
                          2 if name == "solve" else 1)
    if name == "solve":
        b = tr.to_expr(args[1])
        if len(b.shape) not in (1, 2):
            raise tr.unsupported(node, f"np.linalg.solve with a "
                                 f"{len(b.shape)}-d right-hand side",
                                 "a vector or a matrix")
        if not all(as_idx(e).is_const() for e in b.shape):
            raise tr.unsupported(node, "np.linalg.solve with a right-hand "
                                 "side whose shape depends on a loop")
        if as_idx(b.shape[0]).const != n:
            raise tr.error(f"np.linalg.solve: the right-hand side has "
                           f"{as_idx(b.shape[0]).const} rows, the matrix "
                           f"{n}", node)
        dtype = np.result_type(a.dtype, b.dtype)
    else:
        dtype = a.dtype
    if not is_float(dtype):
        dtype = np.dtype(np.float64)
    if name == "inv":
        b = numpy_call(tr, "eye", [n], {"dtype": dtype}, node)
    va = products.blas_operand(tr, a, dtype, node)
    if isinstance(b, ViewLeaf) and b.dtype == dtype and b.view.is_whole():
        vb = b.view
    else:
        vb = tr.transient_view(b.shape, dtype, node, "rhs")
        tr.store(vb, b)
    out = tr.transient_view(b.shape, dtype, node, name)
    ca, cb, co = va.container, vb.container, out.container
    tr.em.line(ir.library_op("solve", [ca.ssa, cb.ssa], co.ssa,
                             [ca.mlir_type, cb.mlir_type], co.mlir_type,
                             ["transpose"] if va.is_whole_transposed()
                             else []))
    tr.sig.linalg_sites.append((f"np.linalg.{name}", tr.em.where()))
    return ViewLeaf(out)


def from_singular_values(tr: "Translator", name: str, args: List[Value],
                         kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.linalg.pinv (V diag(1/s) U^T over the singular values above
    rcond times the largest, NumPy's cutoff), cond (the 2-norm condition
    number s[0] / s[-1], or its inverse for p=-2) and matrix_rank (the
    singular values above S.max() * max(M, N) * eps, or tol)."""
    arg = Arguments(tr, args, kwargs, node)
    a = tr.to_expr(arg(0, "a" if name == "pinv" else "x" if name == "cond"
                       else "A"))
    if len(a.shape) != 2:
        raise tr.unsupported(node, f"np.linalg.{name} of a "
                             f"{len(a.shape)}-d array",
                             "only one matrix (no stacks)")
    if name == "cond":
        arg.only("p")
        p = arg(1, "p")
        if p not in (None, 2, -2):
            raise tr.unsupported(node, f"np.linalg.cond with p={p!r}",
                                 "p None, 2 or -2 (of the singular values)")
        s = singular_values(tr, "cond", a, node)
        first = operands.window_view(s.view, 0, 0, 1)
        last = operands.window_view(s.view, 0, as_idx(s.shape[0]).const - 1, 1)
        num, den = (first, last) if p != -2 else (last, first)
        return reductions.reduce(tr, "sum", tr.binop("div", ViewLeaf(num),
                                             ViewLeaf(den)), None, False,
                         node)
    if name == "matrix_rank":
        arg.only("tol", "hermitian")
        if arg(2, "hermitian", False) is not False:
            raise tr.unsupported(node, "np.linalg.matrix_rank with "
                                 "hermitian=True")
        s = singular_values(tr, "matrix_rank", a, node)
        tol = arg(1, "tol")
        if tol is None:
            m, n = (as_idx(e).const for e in a.shape)
            eps = float(np.finfo(s.dtype).eps)
            tol = tr.binop("mul", reductions.reduce(tr, "max", s, None, False,
                                                    node),
                           max(m, n) * eps)
        return numpy_call(tr, "count_nonzero", [tr.binop("gt", s, tol)],
                             {}, node)
    arg.only("rcond", "hermitian")
    if arg(2, "hermitian", False) is not False:
        raise tr.unsupported(node, "np.linalg.pinv with hermitian=True")
    rcond = arg(1, "rcond", 1e-15)
    u, s, vh = numpy_call(tr, "linalg.svd", [a],
                             {"full_matrices": False}, node)
    _, inv = _reciprocal_above(tr, s, rcond, node)
    vt = operands.as_view(tr, tr.to_expr(vh), node).transpose([1, 0])
    inv_row = tr.subscript(operands.as_view(tr, tr.to_expr(inv), node),
                           manipulation.subscript_items(node, ["n",
                                                               "s"]), node)
    scaled = tr.binop("mul", ViewLeaf(vt), inv_row)
    return products.matmul(tr, scaled, operands.as_view(tr, tr.to_expr(u),
                                                        node)
                     .transpose([1, 0]), node)


def _reciprocal_above(tr, s, rcond, node):
    """(kept, inv): the singular values `s` above rcond times the largest
    (NumPy's cutoff for pinv and lstsq), and 1/s where kept, 0 elsewhere.
    The divisor is 1 where not kept, so that no gradient flows through a
    division by a (near) zero the result does not use."""
    largest = reductions.reduce(tr, "max", s, None, True, node)
    kept = tr.binop("gt", s, tr.binop("mul", rcond, largest))
    one = ConstLeaf(1.0, s.dtype)
    inv = ufuncs.where(tr, kept, tr.binop("div", one, ufuncs.where(
        tr, kept, s, one, node)), ConstLeaf(0.0, s.dtype), node)
    return kept, inv


def lstsq(tr: "Translator", a: Value, b: Value, rcond: Value,
          node: ast.AST) -> Value:
    """np.linalg.lstsq(a, b, rcond): the minimum-norm least-squares solution
    from the singular values above rcond times the largest (NumPy's
    default 'warn' or -1: machine precision; None: eps * max(M, N)), as
    V diag(1/s) U^T b; the rank and the singular values. The residuals'
    shape depends on the rank (empty unless A has full column rank and
    more rows than columns): using them is a located error."""
    ea = tr.to_expr(a)
    m, n = _static_matrix(tr, "lstsq", ea, node)
    eb = tr.to_expr(b)
    if len(eb.shape) not in (1, 2) or \
            not as_idx(eb.shape[0]).is_const() or \
            as_idx(eb.shape[0]).const != m:
        raise tr.error("np.linalg.lstsq: b must have as many rows as a "
                       f"({m})", node)
    eps = float(np.finfo(ea.dtype if is_float(ea.dtype)
                         else np.float64).eps)
    if rcond is None:
        rcond = eps * max(m, n)
    elif isinstance(rcond, str) or (isinstance(rcond, (int, float)) and
                                    rcond < 0):
        rcond = eps
    u, s, vh = numpy_call(tr, "linalg.svd", [ea],
                             {"full_matrices": False}, node)
    kept, inv = _reciprocal_above(tr, s, rcond, node)
    ut = operands.as_view(tr, tr.to_expr(u), node).transpose([1, 0])
    utb = tr.to_expr(products.matmul(tr, ut, eb, node))
    if len(utb.shape) == 2:
        inv = tr.subscript(operands.as_view(tr, tr.to_expr(inv), node),
                           manipulation.subscript_items(node, ["s",
                                                               "n"]), node)
    scaled = tr.binop("mul", utb, inv)
    v = operands.as_view(tr, tr.to_expr(vh), node).transpose([1, 0])
    x = products.matmul(tr, v, scaled, node)
    rank = tr.to_expr(numpy_call(tr, "count_nonzero", [kept], {}, node))
    rank = Op("cast", [rank], rank.shape, np.int32)  # LAPACK's, as NumPy's
    residuals = Unavailable(tr.unsupported(
        node, "the residuals of np.linalg.lstsq",
        "their shape depends on the rank; compute "
        "np.sum((b - a @ x) ** 2, axis=0)"))
    return (x, residuals, rank, s)


def matrix_power(tr: "Translator", a: Value, n: Value, node: ast.AST) -> Value:
    """A constant power by repeated squaring (GEMMs); negative powers of
    the inverse."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise tr.unsupported(node, "np.linalg.matrix_power with an exponent "
                             "that is not a constant integer")
    e = tr.to_expr(a)
    shape = operands.static_shape(tr, e, node, "np.linalg.matrix_power")
    if len(shape) != 2 or shape[0] != shape[1]:
        raise tr.unsupported(node, "np.linalg.matrix_power of anything but "
                             "one square matrix")
    if n == 0:
        return numpy_call(tr, "eye", [shape[0]], {"dtype": e.dtype}, node)
    if n < 0:
        e = tr.to_expr(numpy_call(tr, "linalg.inv", [e], {}, node))
        n = -n
    result, base = None, e
    while True:
        if n & 1:
            result = base if result is None else products.matmul(tr, result,
                                                                 base,
                                                           node)
        n >>= 1
        if not n:
            return result
        base = products.matmul(tr, base, base, node)


@numpy_function("linalg.lstsq")
def np_linalg_lstsq(tr: "Translator", name: str, args: List[Value],
                    kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("rcond")
    return lstsq(tr, arg(0, "a"), arg(1, "b"), arg(2, "rcond", "warn"),
                 node)


@numpy_function("linalg.cond", "linalg.matrix_rank", "linalg.pinv")
def np_linalg_pinv(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return from_singular_values(tr, name[len("linalg."):], args, kwargs,
                                node)


@numpy_function("linalg.matrix_power")
def np_linalg_matrix_power(tr: "Translator", name: str, args: List[Value],
                           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    return matrix_power(tr, args[0], args[1], node)


@numpy_function("linalg.multi_dot")
def np_linalg_multi_dot(tr: "Translator", name: str, args: List[Value],
                        kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    if len(args) != 1 or not isinstance(args[0], (tuple, list)) or \
            len(args[0]) < 2:
        raise tr.error("np.linalg.multi_dot takes a list of at least "
                       "two arrays", node)
    out = args[0][0]
    for m in args[0][1:]:
        out = products.matmul(tr, out, m, node)
    return out


@numpy_function("linalg")
def np_linalg(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return callables.NumpyFunction("linalg")


@numpy_function("linalg.norm", positional=("x", "ord", "axis"))
def np_linalg_norm(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("ord", "axis", "keepdims"))
    return _norm(tr, tr.to_expr(args[0]), arg(1, "ord"), arg(2, "axis"),
                 bool(kwargs.get("keepdims", False)), node)


@numpy_function("linalg.inv", "linalg.solve")
def np_linalg_solve(tr: "Translator", name: str, args: List[Value],
                    kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _linalg_solve(tr, name[len("linalg."):], args, kwargs, node)


@numpy_function("linalg.det", "linalg.slogdet")
def np_linalg_det(tr: "Translator", name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _linalg_det(tr, name[len("linalg."):], args, kwargs, node)


@numpy_function("linalg.cholesky")
def np_linalg_cholesky(tr: "Translator", name: str, args: List[Value],
                       kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _linalg_cholesky(tr, args, kwargs, node)


@numpy_function("linalg.eigh", "linalg.eigvalsh")
def np_linalg_eigh(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _linalg_eigh(tr, name[len("linalg."):], args, dict(kwargs),
                        node)


@numpy_function("linalg.qr")
def np_linalg_qr(tr: "Translator", name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _linalg_qr(tr, args, kwargs, node)


@numpy_function("linalg.svd")
def np_linalg_svd(tr: "Translator", name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _linalg_svd(tr, args, kwargs, node)
