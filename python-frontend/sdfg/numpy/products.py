"""Products: dot, matmul (and the @ operator, through the translator),
outer, einsum, tensordot, inner, vdot, kron, cross; their lowering to
BLAS library calls or to loops, with scalar factors folded into the
call.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import joining, manipulation, operands, reductions
from .. import ir
from .registry import Arguments, array_method, no_kwargs, numpy_function
from ..desugar.astutil import fix_locations
from ..semantics.values import (ConstLeaf, Op, Value, ViewLeaf, as_idx,
                                is_float, same_extent)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def matmul(tr: "Translator", a: Value, b: Value, node: ast.AST) -> Value:
    from . import complex_functions
    if complex_functions.cv.is_complex(a) or \
            complex_functions.cv.is_complex(b):
        return complex_functions.product(tr, "matmul", [a, b], {}, node)
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    if ea.dtype == np.bool_ and eb.dtype == np.bool_:
        # NumPy's product of bools is or of ands: whether any term is set.
        counts = matmul(tr, Op("cast", [ea], ea.shape, np.float64),
                        Op("cast", [eb], eb.shape, np.float64), node)
        return tr.binop("gt", counts, 0.0)
    product = _matmul(tr, a, b, node, 1.0)
    product = product.leaf if isinstance(product, _Scaled) else product
    return operands.in_dtype(tr, product, np.result_type(ea.dtype, eb.dtype))


def scaled_matmul(tr: "Translator", a: Value, b: Value, node: ast.AST,
                  alpha: Value) -> Value:
    """alpha (a @ b) for a float constant alpha: (the product, True) where a
    GEMM computes it with that alpha, else (a @ b, False) for the caller to
    scale as the program says."""
    from . import complex_functions
    if complex_functions.cv.is_complex(a) or \
            complex_functions.cv.is_complex(b):
        return matmul(tr, a, b, node), False
    product = _matmul(tr, a, b, node, alpha)
    if isinstance(product, _Scaled):
        return product.leaf, True
    return product, False


class _Scaled:
    """A GEMM's result with alpha already applied."""

    def __init__(self, leaf):
        self.leaf = leaf


def _alpha_attr(alpha):
    return [] if alpha == 1.0 else [f"alpha = {float(alpha)!r} : f64"]


def _matmul(tr, a, b, node, alpha):
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    ra, rb = len(ea.shape), len(eb.shape)
    if ra == 0 or rb == 0:
        raise tr.error("matmul: input operand does not have enough "
                       "dimensions", node)
    k1 = ea.shape[-1]
    k2 = eb.shape[0] if rb == 1 else eb.shape[-2]
    if not same_extent(k1, k2):
        if as_idx(k1).is_const() and as_idx(k2).is_const():
            raise tr.error(f"matmul: mismatch in the contracted dimension "
                           f"({as_idx(k1).const} vs {as_idx(k2).const})",
                           node)
        raise tr.error("matmul: cannot prove the contracted extents equal",
                       node)
    dtype = np.result_type(ea.dtype, eb.dtype)
    if ra > 2 or rb > 2:
        batched = _batched_blas(tr, ea, eb, dtype, node, alpha)
        return _Scaled(batched) if batched is not None else \
            _batched_matmul(tr, ea, eb, node)
    if ra == 1 and rb == 1:
        # Inner product as a fused reduction: works on any views.
        return reductions.reduce(tr, "sum", tr.binop("mul", ea, eb), None,
                                 False, node)
    # Constants or size symbols (symbolic_sizes.py): the library op's
    # lowering reads a `?` extent from its container.
    static = all(as_idx(s).is_const() or tr.is_size_expression(s)
                 for s in list(ea.shape) + list(eb.shape))
    if not static or not is_float(dtype):
        return _matmul_loops(tr, ea, eb, node)
    scaled = _scale_after(tr, ea, eb, node, alpha)
    if scaled is not None:
        return scaled
    va = blas_operand(tr, ea, dtype, node)
    vb = blas_operand(tr, eb, dtype, node)
    if ra == 2 and rb == 2:
        out = tr.transient_view([ea.shape[0], eb.shape[1]], dtype, node,
                                "matmul")
        flags = []
        if va.is_whole_transposed():
            flags.append("transpose_a")
        if vb.is_whole_transposed():
            flags.append("transpose_b")
        flags += _alpha_attr(alpha)
        ca, cb, co = va.container, vb.container, out.container
        tr.em.line(ir.library_op("matmul", [ca.ssa, cb.ssa], co.ssa,
                                 [ca.mlir_type, cb.mlir_type], co.mlir_type,
                                 flags))
        return _Scaled(ViewLeaf(out))
    if ra == 2:  # matrix @ vector
        mat, vec, rows = va, vb, ea.shape[0]
        transposed = va.is_whole_transposed()
    else:  # vector @ matrix = A^T x
        mat, vec, rows = vb, va, eb.shape[1]
        transposed = not vb.is_whole_transposed()
    out = tr.transient_view([rows], dtype, node, "gemv")
    cm, cv, co = mat.container, vec.container, out.container
    tr.em.line(ir.library_op("gemv", [cm.ssa, cv.ssa], co.ssa,
                             [cm.mlir_type, cv.mlir_type], co.mlir_type,
                             ["transpose"] if transposed else []))
    return ViewLeaf(out)


def _scalar_factor(e):
    """(s, x) for an operand `s * x` or `x * s` with s a 0-d value of x's
    dtype (or a constant, which does not change it), else None."""
    if not (isinstance(e, Op) and e.op == "mul" and len(e.shape) > 0):
        return None
    for s, x in (e.args, reversed(e.args)):
        if len(s.shape) == 0 and list(x.shape) == list(e.shape) and \
                x.dtype == e.dtype and (isinstance(s, ConstLeaf)
                                        or s.dtype == e.dtype):
            return s, x
    return None


def _scale_after(tr, ea, eb, node, alpha):
    """(s a) @ b and a @ (s b) as s (a @ b) when the product is no larger
    than the scaled operand (always for a matrix-vector product): the
    scaled operand is then never materialised, BLAS reads the arrays
    themselves, and the gradient's reversal of the scaling runs over the
    product instead of the operand (gesummv's `alpha * A @ x`). Rounds
    differently from NumPy's order by an ulp or so. None when no operand
    is scaled."""
    fa, fb = _scalar_factor(ea), _scalar_factor(eb)
    if fa is None and fb is None:
        return None
    rows = ea.shape[0] if len(ea.shape) == 2 else 1
    cols = eb.shape[1] if len(eb.shape) == 2 else 1
    product = as_idx(rows).const * as_idx(cols).const
    factors, a, b = [], ea, eb
    for f, e in ((fa, "a"), (fb, "b")):
        if f is None:
            continue
        size = 1
        for x in f[1].shape:
            size *= as_idx(x).const
        if product > size:
            continue
        factors.append(f[0])
        if e == "a":
            a = f[1]
        else:
            b = f[1]
    if not factors:
        return None
    inner = _matmul(tr, a, b, node, alpha)
    leaf = inner.leaf if isinstance(inner, _Scaled) else inner
    for s in factors:
        leaf = tr.binop("mul", s, leaf)
    return _Scaled(leaf) if isinstance(inner, _Scaled) else leaf


def blas_operand(tr: "Translator", e: Value, dtype: Value,
                 node: ast.AST) -> Value:
    """A whole container (or a whole transposed matrix) for BLAS."""
    if isinstance(e, ViewLeaf) and e.dtype == dtype and (
            e.view.is_whole() or e.view.is_whole_transposed()):
        return e.view
    v = tr.transient_view(e.shape, dtype, node, "operand")
    tr.store(v, e)
    return v


def _einsum(tr, args, node):
    """np.einsum with explicit or implicit output: every operand is viewed
    in one index order (missing indices as new axes), the product reduced
    over the summed indices. A pair of matrices that is a matrix product
    (ij,jk->ik and its transposes) calls BLAS instead."""
    if not args or not isinstance(args[0], str):
        raise tr.unsupported(node, "np.einsum without a subscripts string")
    spec = args[0].replace(" ", "")
    ops = [tr.to_expr(a) for a in args[1:]]
    if "." in spec:
        raise tr.unsupported(node, "np.einsum with '...'")
    lhs, arrow, out = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise tr.error(f"np.einsum: {len(terms)} subscripts for "
                       f"{len(ops)} operands", node)
    if not arrow:
        # Implicit output: the letters written once, over all operands as
        # given (a trace 'ii' has none).
        letters = "".join(terms)
        out = "".join(sorted(c for c in set(letters)
                             if letters.count(c) == 1))
    for k, (t, e) in enumerate(zip(terms, ops)):
        if not t.isalpha() or len(t) != len(e.shape):
            raise tr.error(f"np.einsum: subscript '{t}' does not match an "
                           f"operand of dimension {len(e.shape)}", node)
        if len(set(t)) != len(t):
            # A repeated index ('ii', 'bii'): the operand's diagonal over
            # those axes, a view.
            v = operands.as_view(tr, e, node)
            while len(set(t)) != len(t):
                c = next(c for c in t if t.count(c) > 1)
                p = t.index(c)
                q = t.index(c, p + 1)
                if not same_extent(v.shape[p], v.shape[q]):
                    raise tr.error(
                        f"dimensions in operand {k} for collapsing index "
                        f"'{c}' don't match ({as_idx(v.shape[p]).render()} "
                        f"!= {as_idx(v.shape[q]).render()})", node)
                v = manipulation.collapse_axes(v, p, q)
                t = t[:q] + t[q + 1:]
            terms[k], ops[k] = t, ViewLeaf(v)
    letters = "".join(terms)
    if len(set(out)) != len(out) or any(c not in letters for c in out):
        raise tr.error(f"np.einsum: invalid output subscript '{out}'", node)
    if len(ops) == 2 and all(len(t) == 2 for t in terms) and \
            len(out) == 2:
        (a, b), (c, d) = terms
        shared = set(terms[0]) & set(terms[1])
        if len(shared) == 1 and set(out) == set(terms[0] + terms[1]) - \
                shared:
            k = shared.pop()
            x = ops[0] if a != k else manipulation.transpose(tr, ops[0], None,
                                                             node)
            y = ops[1] if d != k else manipulation.transpose(tr, ops[1], None,
                                                             node)
            rows, cols = (b if a == k else a), (c if d == k else d)
            r = matmul(tr, x, y, node)
            return r if out == rows + cols else \
                manipulation.transpose(tr, r, None, node)
    order = out + "".join(dict.fromkeys(c for c in letters if c not in out))
    prod = None
    for t, e in zip(terms, ops):
        v = operands.as_view(tr, e, node)
        v = v.transpose(sorted(range(len(t)), key=lambda i: order.index(t[i])))
        present = sorted(t, key=order.index)
        items = [ast.Slice() if c in present else ast.Constant(None)
                 for c in order]
        v = tr.subscript(v, [ast.copy_location(i, node) for i in items],
                         node)
        prod = ViewLeaf(v) if prod is None else tr.binop("mul", prod, v)
    summed = tuple(range(len(out), len(order)))
    if not summed:
        # One operand, nothing summed ('ii->i', 'ij->ji'): NumPy returns a
        # view of it, which writes reach.
        if len(ops) == 1 and isinstance(prod, ViewLeaf):
            return prod.view
        return prod
    dtype = np.result_type(*[tr.to_expr(e).dtype for e in ops])
    return operands.in_dtype(tr, reductions.reduce(tr, "sum", prod, summed,
                                                   False, node), dtype)


def _check_dot(tr, args, node):
    """np.dot agrees with matmul up to two dimensions only (beyond, it
    contracts a's last axis with b's second-to-last over all pairs)."""
    if any(len(tr.to_expr(a).shape) > 2 for a in args[:2]):
        raise tr.unsupported(node, "np.dot of arrays with more than two "
                             "dimensions", "use @ (np.matmul) for stacks of "
                             "matrices")


def _batched_blas(tr, ea, eb, dtype, node, alpha=1.0):
    """A stack of matrices times a matrix or a stack of the same length
    (3-d and 2-d operands of static shape, float): one batched sdfg.matmul
    (BLAS), whose gradient is batched GEMMs too. None where it does not
    apply (vectors, more dimensions, broadcast batches)."""
    ra, rb = len(ea.shape), len(eb.shape)
    if ra not in (2, 3) or rb not in (2, 3) or not is_float(dtype):
        return None
    if not all(as_idx(e).is_const() for e in list(ea.shape) +
               list(eb.shape)):
        return None
    shape_a = [as_idx(e).const for e in ea.shape]
    shape_b = [as_idx(e).const for e in eb.shape]
    if ra == 3 and rb == 3 and shape_a[0] != shape_b[0]:
        return None
    batch = shape_a[0] if ra == 3 else shape_b[0]

    def operand(e):
        if len(e.shape) == 2:
            v = blas_operand(tr, e, dtype, node)
            return v, v.is_whole_transposed()
        if isinstance(e, ViewLeaf) and e.dtype == dtype:
            if e.view.is_whole():
                return e.view, False
            if e.view.is_whole_batch_transposed():
                return e.view, True
        v = tr.transient_view(e.shape, dtype, node, "operand")
        tr.store(v, e)
        return v, False

    (va, ta), (vb, tb) = operand(ea), operand(eb)
    out = tr.transient_view([batch, shape_a[-2], shape_b[-1]], dtype, node,
                            "matmul")
    flags = [f for f, on in (("transpose_a", ta), ("transpose_b", tb)) if on]
    flags += _alpha_attr(alpha)
    ca, cb, co = va.container, vb.container, out.container
    tr.em.line(ir.library_op("matmul", [ca.ssa, cb.ssa], co.ssa,
                             [ca.mlir_type, cb.mlir_type], co.mlir_type,
                             flags))
    return ViewLeaf(out)


def _batched_matmul(tr, ea, eb, node):
    """NumPy's matmul of stacks of matrices (the last two dimensions;
    leading ones broadcast; a vector operand is a row or a column): one
    fused reduction over the contracted dimension, out[..., i, j] = sum_k
    a[..., i, k, None] * b[..., None, k, j]. No BLAS call: a batch is not
    one container, and the autodiff differentiates the reduction like any
    map."""
    va, vb = operands.as_view(tr, ea, node), operands.as_view(tr, eb, node)
    ra, rb = va.ndim, vb.ndim
    full = ast.Slice()
    new = ast.Constant(None)
    if rb == 1:  # out[..., i] = sum_k a[..., i, k] * b[k]
        return reductions.reduce(tr, "sum", tr.binop("mul", va, vb), ra - 1,
                                 False,
                      node)
    if ra == 1:  # out[..., j] = sum_k a[k] * b[..., k, j]
        col = tr.subscript(va, [full, new], node)
        prod = tr.binop("mul", col, vb)
        return reductions.reduce(tr, "sum", prod, len(prod.shape) - 2, False,
                                 node)
    a4 = tr.subscript(va, [ast.Constant(Ellipsis), full, full, new], node)
    b4 = tr.subscript(vb, [ast.Constant(Ellipsis), new, full, full], node)
    prod = tr.binop("mul", a4, b4)
    return reductions.reduce(tr, "sum", prod, len(prod.shape) - 2, False, node)


def _matmul_loops(tr, ea, eb, node):
    """Matmul over views with loop-dependent shapes: a fused reduction."""
    ra, rb = len(ea.shape), len(eb.shape)
    if ra == 2 and rb == 1:
        # out[i] = sum_k a[i, k] * b[k]
        prod = tr.binop("mul", ea, eb)
        return reductions.reduce(tr, "sum", prod, 1, False, node)
    if ra == 1 and rb == 2:
        va = operands.as_view(tr, ea, node)
        col = tr.subscript(va, [ast.Slice(), ast.Constant(None)], node)
        prod = tr.binop("mul", col, eb)
        return reductions.reduce(tr, "sum", prod, 0, False, node)
    va = operands.as_view(tr, ea, node)
    vb = operands.as_view(tr, eb, node)
    # out[i, j] = sum_k a[i, k, None] * b[None, k, j] over k
    a3 = tr.subscript(va, [ast.Slice(), ast.Slice(), ast.Constant(None)],
                      node)
    b3 = tr.subscript(vb, [ast.Constant(None), ast.Slice(), ast.Slice()],
                      node)
    return reductions.reduce(tr, "sum", tr.binop("mul", a3, b3), 1, False,
                             node)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def tensordot(tr: "Translator", a: Value, b: Value, axes: Value,
              node: ast.AST) -> Value:
    """np.tensordot as the einsum it is (BLAS where that is a matrix
    product)."""
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    ra, rb = len(ea.shape), len(eb.shape)
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(ra, rb):
            raise tr.error("shape-mismatch for sum", node)
        ax_a, ax_b = list(range(ra - axes, ra)), list(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax_a, ax_b = ([x] if isinstance(x, int) else list(x) for x in axes)
        if len(ax_a) != len(ax_b) or not all(
                isinstance(x, int) for x in ax_a + ax_b):
            raise tr.error("shape-mismatch for sum", node)
        ax_a = [x % ra for x in ax_a]
        ax_b = [x % rb for x in ax_b]
    else:
        raise tr.unsupported(node, "np.tensordot axes other than an integer "
                             "or a pair of axis lists")
    if ra + rb > len(_LETTERS):
        raise tr.unsupported(node, "np.tensordot of arrays with more than "
                             f"{len(_LETTERS)} dimensions in all")
    for i, j in zip(ax_a, ax_b):
        if as_idx(ea.shape[i]) != as_idx(eb.shape[j]):
            raise tr.error("shape-mismatch for sum", node)
    sa = list(_LETTERS[:ra])
    sb = list(_LETTERS[ra:ra + rb])
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    out = [c for k, c in enumerate(sa) if k not in ax_a] + \
        [c for k, c in enumerate(sb) if k not in ax_b]
    if not out and ra == 1 and rb == 1:
        return matmul(tr, ea, eb, node)
    spec = f"{''.join(sa)},{''.join(sb)}->{''.join(out)}"
    return _einsum(tr, [spec, ea, eb], node)


def kron(tr: "Translator", a: Value, b: Value, node: ast.AST) -> Value:
    """np.kron of arrays of equal dimension: out[i p + k, j q + l] =
    a[i, j] b[k, l], the interleaved outer product merged."""
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    ra, rb = len(ea.shape), len(eb.shape)
    if ra != rb or ra == 0 or 2 * ra > len(_LETTERS):
        raise tr.unsupported(node, "np.kron of arrays of different "
                             "dimensions")
    sa, sb = _LETTERS[:ra], _LETTERS[ra:2 * ra]
    out = "".join(x + y for x, y in zip(sa, sb))
    prod = _einsum(tr, [f"{sa},{sb}->{out}", ea, eb], node)
    shape_a = operands.static_shape(tr, ea, node, "np.kron")
    shape_b = operands.static_shape(tr, eb, node, "np.kron")
    merged = manipulation.reshape(tr, prod, tuple(x * y for x,
                                                  y in zip(shape_a,
                                                              shape_b)),
                        node)
    tr.reshaped.discard(merged.container)
    return merged


def cross(tr: "Translator", a: Value, b: Value, axis: Value,
          node: ast.AST) -> Value:
    """np.cross of 3-vectors along `axis` (stacks broadcast)."""
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    va, vb = operands.as_view(tr, ea, node), operands.as_view(tr, eb, node)
    xa, xb = (manipulation.normalized_axis(tr, axis, v.ndim,
                                           node) for v in (va, vb))
    if as_idx(va.shape[xa]) != as_idx(3) or as_idx(vb.shape[xb]) != \
            as_idx(3):
        raise tr.unsupported(node, "np.cross of vectors that do not have "
                             "three components")
    va, vb = va.transpose(_last(va.ndim, xa)), vb.transpose(_last(vb.ndim,
                                                                  xb))

    def comp(v, k):
        return tr.subscript(v, _component(node, k), node)

    parts = []
    for i, j, k in ((1, 2, 0), (2, 0, 1), (0, 1, 2)):
        parts.append(tr.binop("sub", tr.binop("mul", comp(va, i),
                                              comp(vb, j)),
                              tr.binop("mul", comp(va, j), comp(vb, i))))
    rank = len(tr.to_expr(parts[0]).shape) + 1
    out = joining.join_arrays(tr, "stack", parts, -1, node)
    return out if axis % rank == rank - 1 else out.transpose(
        _move_last(rank, axis % rank))


def _last(rank, axis):
    return [d for d in range(rank) if d != axis] + [axis]


def _move_last(rank, axis):
    order = list(range(rank - 1))
    order.insert(axis, rank - 1)
    return order


def _component(node, k):
    items = [ast.Constant(Ellipsis), ast.Constant(k)]
    return [fix_locations(ast.copy_location(i, node))
            for i in items]


@numpy_function("tensordot")
def np_tensordot(tr: "Translator", name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axes")
    return tensordot(tr, args[0], args[1], arg(2, "axes", 2), node)


@numpy_function("inner")
def np_inner(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    a, b = (tr.to_expr(x) for x in args)
    if not a.shape or not b.shape:
        return tr.binop("mul", a, b)
    return tensordot(tr, a, b, ([len(a.shape) - 1], [len(b.shape) - 1]),
                     node)


@numpy_function("vdot")
def np_vdot(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    a, b = (tr.to_expr(x) for x in args)
    if [as_idx(x) for x in a.shape] != [as_idx(x) for x in b.shape]:
        a = tr.to_expr(manipulation.reshape(tr, a, (-1,), node))
        b = tr.to_expr(manipulation.reshape(tr, b, (-1,), node))
    return operands.in_dtype(tr, reductions.reduce(tr, "sum", tr.binop("mul",
                                                                       a, b),
                                      None, False, node),
                        np.result_type(a.dtype, b.dtype))


@numpy_function("kron")
def np_kron(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    return kron(tr, args[0], args[1], node)


@numpy_function("cross")
def np_cross(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    return cross(tr, args[0], args[1], arg(2, "axis", -1), node)


@numpy_function("einsum")
def np_einsum(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    return _einsum(tr, args, node)


@numpy_function("dot", "matmul")
def np_dot(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if name == "dot":
        _check_dot(tr, args, node)
    return matmul(tr, args[0], args[1], node)


@numpy_function("outer")
def np_outer(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    a, b = (tr.to_expr(x) for x in args)
    a = operands.as_view(tr, a, node)
    b = operands.as_view(tr, b, node)
    if a.ndim != 1 or b.ndim != 1:
        raise tr.unsupported(node, "np.outer of non-vectors")
    col = tr.subscript(a, [ast.Slice(), ast.Constant(None)], node)
    row = tr.subscript(b, [ast.Constant(None), ast.Slice()], node)
    return tr.binop("mul", col, row)


@array_method("dot")
def dot_method(tr: "Translator", obj: Value, name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    _check_dot(tr, [obj] + list(args), node)
    return matmul(tr, obj, args[0], node)
