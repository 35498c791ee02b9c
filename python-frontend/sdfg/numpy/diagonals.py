"""Diagonals and triangles of matrices: np.diag (of a matrix its
diagonal, of a vector a matrix), np.diagonal and np.trace (also as array
methods), np.fill_diagonal, np.triu and np.tril, all through
diagonal_view (the 1-d view of a matrix's diagonal) or a mask.

A diagonal is a view of the matrix's elements (read-only from
np.diagonal, as NumPy's), so its gradient lands on them; triu and tril
are np.where over a mask of positions.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

from . import creation, operands, reductions, ufuncs
from .manipulation import constant_int, subscript_items
from .registry import Arguments, no_kwargs, numpy_function
from ..semantics.values import (ConstLeaf, Expr, Idx, Value, View, ViewLeaf,
                                as_idx, same_extent)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def diagonal_view(tr: "Translator", v: Value, node: ast.AST,
                  k: Value = 0) -> Value:
    """Diagonal k of a 2-d view (above the main one for k > 0, below for
    k < 0), as a 1-d view of the same elements (both container indices
    follow one coordinate)."""
    a, b = (as_idx(e) for e in v.shape)
    shift = {0: max(-k, 0), 1: max(k, 0)}  # first row, first column
    rows, cols = a - shift[0], b - shift[1]
    if a.is_const() and b.is_const():
        n = Idx(max(0, min(rows.const, cols.const)))
    elif (rows - cols).is_const() and tr.is_size_expression(rows):
        # Extents of size symbols differing by a constant (an n x n
        # matrix): the shorter is the length, where never negative.
        n = cols if (rows - cols).const >= 0 else rows
        if tr.interval(n)[0] < 0:
            raise tr.unsupported(node, "diagonal whose length is negative "
                                 "for some sizes")
    elif tr.is_size_expression(rows) or tr.is_size_expression(cols):
        # min(n, m) of two symbols is not affine: compiled per size.
        raise tr.unsupported(node, "diagonal of an array whose extents are "
                             "unrelated size symbols")
    else:
        raise tr.unsupported(node, "diagonal of a loop-dependent shape")
    base = [(o, s, None) if d is None else
            (o + Idx(shift[d]).scale(s) if shift[d] else o, s, 0)
            for o, s, d in v.base]
    return View(v.container, base, [n])


def _fill_diagonal(tr, args, kwargs, node):
    """np.fill_diagonal(a, val) on a 2-d array variable, in place: a[i, i]
    for i below min(a.shape) (wrap=False), from a scalar or from a vector
    of the diagonal's length (NumPy repeats a shorter one; not here)."""
    no_kwargs(tr, kwargs, node, ("wrap",))
    if len(args) != 2:
        raise tr.error("np.fill_diagonal takes an array and a value", node)
    if kwargs.get("wrap", False):
        raise tr.unsupported(node, "np.fill_diagonal with wrap=True")
    a = args[0]
    if not (isinstance(a, View) and a.ndim == 2):
        raise tr.unsupported(node, "np.fill_diagonal of anything but a 2-d "
                             "array variable")
    d = diagonal_view(tr, a, node)
    val = args[1]
    if isinstance(val, (View, Expr)) and len(val.shape) > 0:
        e = tr.to_expr(val)
        if len(e.shape) != 1 or not same_extent(e.shape[0], d.shape[0]):
            raise tr.unsupported(node, "np.fill_diagonal with values that "
                                 "are not a scalar or a vector of the "
                                 "diagonal's length")
    tr.store(d, tr.to_expr(val), cast=True)
    return None


def triangle(tr: "Translator", name: str, m: Value, k: Value,
             node: ast.AST) -> Value:
    """np.triu / np.tril: the elements on one side of diagonal k kept,
    the others 0 (the last two axes; leading ones are a stack)."""
    e = tr.to_expr(m)
    if len(e.shape) < 2:
        raise tr.unsupported(node, f"np.{name} of an array with fewer than "
                             "two dimensions")
    k = constant_int(tr, k, "diagonal offset k", node)
    rows, cols = e.shape[-2:]
    if not all(tr.is_size_expression(x) for x in (rows, cols)):
        # Extents of size symbols make symbolic aranges (creation.ramp).
        rows, cols = (operands.static_shape(tr, e, node, f"np.{name}")[-2:])
    r = tr.subscript(creation.ramp(tr, "arange", [rows], {}, node),
                     subscript_items(node, ["s", "n"]), node)
    c = tr.subscript(creation.ramp(tr, "arange", [cols], {}, node),
                     subscript_items(node, ["n", "s"]), node)
    offset = tr.binop("sub", c, r)
    keep = tr.binop("ge" if name == "triu" else "le", offset, k)
    return ufuncs.where(tr, keep, e, ConstLeaf(0, e.dtype), node)


@numpy_function("tril", "triu")
def np_triu(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("k")
    return triangle(tr, name, arg(0, "m"), arg(1, "k", 0), node)


@numpy_function("diag", positional=("v", "k"))
@numpy_function("diagonal", "trace", positional=("a", "offset"), method=True)
def np_diag(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    key = "k" if name == "diag" else "offset"
    no_kwargs(tr, kwargs, node, (key,))
    k = arg(1, key, 0)
    if isinstance(k, Idx) and k.is_const():
        k = k.const
    if not isinstance(k, int) or isinstance(k, bool):
        raise tr.unsupported(node, f"np.{name} with a {key} that is "
                             "not a constant integer")
    v = operands.as_view(tr, tr.to_expr(args[0]), node)
    if name == "diag" and v.ndim == 1:
        n = as_idx(v.shape[0])
        if not (n.is_const() or tr.is_size_expression(n)):
            raise tr.unsupported(node, "np.diag of a loop-dependent "
                                 "length")
        n = n + abs(k)
        out = creation.create(tr, "zeros", (n, n), v.dtype, None, node)
        tr.store(diagonal_view(tr, out, node, k), ViewLeaf(v))
        return out
    if v.ndim != 2:
        raise tr.unsupported(node, f"np.{name} of a {v.ndim}-d array")
    d = diagonal_view(tr, v, node, k)
    if name == "trace":
        return reductions.reduce(tr, "sum", ViewLeaf(d), None, False, node)
    d.readonly = True  # NumPy's diagonal is a read-only view
    return d


@numpy_function("fill_diagonal")
def np_fill_diagonal(tr: "Translator", name: str, args: List[Value],
                     kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _fill_diagonal(tr, args, kwargs, node)
