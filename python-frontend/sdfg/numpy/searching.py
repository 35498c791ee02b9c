"""Searching sorted vectors: np.searchsorted (and the array method) and
np.interp.

searchsorted is the library op `sdfg.searchsorted` (a binary search per
value when compiled); its integer positions carry no gradient. interp is
NumPy's piecewise-linear formula evaluated on the knots those positions
select (gathers of xp and fp), so its gradient with respect to x, xp and
fp is that of the formula on the interval each x falls in.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import dtypes, manipulation, operands, ufuncs
from .. import ir
from .registry import Arguments, numpy_call, numpy_function
from ..semantics.values import Op, Value, ViewLeaf, is_float

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def _search_keys(tr, e, dtype, node, hint):
    """A whole container holding `e` converted to `dtype`."""
    if e.dtype != dtype:
        e = Op("cast", [e], e.shape, dtype)
    e = dtypes.signed_order(e)  # the library op orders integers signed
    if isinstance(e, ViewLeaf) and e.view.is_whole():
        return e.view
    return tr.snapshot(e, node, hint)


def searchsorted(tr: "Translator", a: Value, v: Value, side: Value,
                 sorter: Value, node: ast.AST) -> Value:
    """The int64 positions where the values `v` would go in the ascending
    1-d `a` (ordered by `sorter` when given), as NumPy's searchsorted."""
    a, v = tr.to_expr(a), tr.to_expr(v)
    if len(a.shape) != 1:
        raise tr.error(f"np.searchsorted: the sorted array must be 1-d, not "
                       f"of dimension {len(a.shape)}", node)
    if sorter is not None:
        order = tr.to_expr(sorter)
        if len(order.shape) != 1 or is_float(order.dtype) or \
                order.dtype == np.bool_:
            raise tr.error("np.searchsorted: sorter must be a 1-d integer "
                           "array", node)
        a = ViewLeaf(tr.gather(tr.index_items(operands.as_view(tr, a, node),
                                              order, node), node))
    operands.static_shape(tr, a, node, "searchsorted")
    shape = operands.static_shape(tr, v, node, "searchsorted")
    # Both compared in their common type, as NumPy does; booleans as
    # integers.
    dtype = np.result_type(a.dtype, v.dtype)
    if dtype == np.bool_:
        dtype = np.dtype(np.int64)
    if not (is_float(dtype) or np.issubdtype(dtype, np.integer)):
        raise tr.unsupported(node, f"np.searchsorted of {dtype} values")
    keys = _search_keys(tr, a, dtype, node, "sorted")
    values = _search_keys(tr, v, dtype, node, "values")
    out = tr.transient_view(shape, np.int64, node, "positions")
    ck, cv, co = keys.container, values.container, out.container
    tr.em.line(ir.searchsorted(cv.ssa, ck.ssa, side == "right", co.ssa,
                               cv.mlir_type, ck.mlir_type, co.mlir_type))
    return ViewLeaf(out)


def _at(tr, view, positions, node):
    """view[positions] for int64 positions, read lazily: each element is
    loaded in the map that consumes it (no gathered copy)."""
    from ..semantics.indexing import FancyLeaf
    return FancyLeaf(tr.index_items(view, positions, node))


def _item(tr, view, k, node):
    """view[k] for a constant k."""
    return tr.to_expr(tr.subscript(
        view, [ast.copy_location(ast.Constant(k), node)], node))


def interp(tr: "Translator", x: Value, xp: Value, fp: Value, left: Value,
           right: Value, node: ast.AST) -> Value:
    """NumPy's np.interp: fp linearly interpolated at x between the knots
    xp (ascending, not checked, as in NumPy), fp[0] (or `left`) before
    the first knot and fp[-1] (or `right`) after the last; float64."""
    f64 = np.dtype(np.float64)
    x, xp, fp = (tr.to_expr(e) for e in (x, xp, fp))
    for what, e in (("xp", xp), ("fp", fp)):
        if len(e.shape) != 1:
            raise tr.error(f"np.interp: {what} must be 1-d, not of "
                           f"dimension {len(e.shape)}", node)
    n = operands.static_shape(tr, xp, node, "np.interp")[0]
    if operands.static_shape(tr, fp, node, "np.interp")[0] != n:
        raise tr.error("np.interp: fp and xp are not of the same length",
                       node)
    if n == 0:
        raise tr.error("np.interp: array of sample points is empty", node)
    for e in (x, xp, fp):
        if not (is_float(e.dtype) or np.issubdtype(e.dtype, np.integer) or
                e.dtype == np.bool_):
            raise tr.unsupported(node, f"np.interp of {e.dtype} values")

    def f(e):
        e = tr.to_expr(e)
        return e if e.dtype == f64 else Op("cast", [e], e.shape, f64)

    def where(c, a, b):
        return tr.to_expr(ufuncs.where(tr, c, a, b, node))

    x = f(x)
    if not x.shape:
        # The gathers below take arrays of positions.
        r = interp(tr, manipulation.reshape(tr, x, (1,), node), xp, fp, left,
                   right,
                   node)
        return tr.to_expr(manipulation.reshape(tr, r, (), node))
    xs = ViewLeaf(_search_keys(tr, x, f64, node, "x"))
    xpv = _search_keys(tr, f(xp), f64, node, "xp")
    fpv = _search_keys(tr, f(fp), f64, node, "fp")
    xp0, xpn = _item(tr, xpv, 0, node), _item(tr, xpv, n - 1, node)
    fp0, fpn = _item(tr, fpv, 0, node), _item(tr, fpv, n - 1, node)
    lval = fp0 if left is None else f(left)
    rval = fpn if right is None else f(right)
    if n == 1:
        # (NumPy's one-knot case: a NaN x compares false both ways and
        # gets fp[0].)
        return where(tr.binop("lt", xs, xp0), lval,
                     where(tr.binop("gt", xs, xp0), rval, fp0))
    # The interval [xp[j], xp[j + 1]) each x is in, clamped to the first
    # and last (the ends take the branches below).
    j = tr.binop("sub", searchsorted(tr, ViewLeaf(xpv), xs, "right", None,
                                     node), 1)
    j = tr.to_expr(numpy_call(tr, "clip", [j, 0, n - 2], {}, node))
    j1 = tr.to_expr(tr.binop("add", j, 1))
    x0, x1 = _at(tr, xpv, j, node), _at(tr, xpv, j1, node)
    y0, y1 = _at(tr, fpv, j, node), _at(tr, fpv, j1, node)
    # A zero-width interval is only ever selected where another branch
    # replaces its value; a unit width there keeps its (unused) slope and
    # the slope's gradient finite.
    width = tr.binop("sub", x1, x0)
    width = where(tr.binop("eq", width, 0.0), 1.0, width)
    slope = tr.binop("div", tr.binop("sub", y1, y0), width)
    r = tr.binop("add", tr.binop("mul", slope, tr.binop("sub", xs, x0)), y0)
    # NumPy's fallbacks where that is NaN (infinite fp): from the right
    # knot, then the common value of a flat interval.
    nan = Op("isnan", [tr.to_expr(r)], tr.to_expr(r).shape, np.bool_)
    r = where(nan, tr.binop("add", tr.binop("mul", slope,
                                            tr.binop("sub", xs, x1)), y1), r)
    nan = Op("isnan", [r], r.shape, np.bool_)
    r = where(tr.logical("and", nan, tr.binop("eq", y0, y1)), y0, r)
    # Exactly on a knot: its value.
    r = where(tr.binop("eq", xs, x0), y0, r)
    r = where(tr.binop("ge", xs, xpn), fpn, r)
    r = where(tr.binop("lt", xs, xp0), lval, r)
    r = where(tr.binop("gt", xs, xpn), rval, r)
    return where(Op("isnan", [xs], xs.shape, np.bool_), xs, r)


@numpy_function("searchsorted", method=True)
def np_searchsorted(tr: "Translator", name: str, args: List[Value],
                    kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    arg.only("a", "v", "side", "sorter")
    if arg(0, "a") is None or arg(1, "v") is None:
        raise tr.error("np.searchsorted takes a sorted array and values",
                       node)
    side = arg(2, "side", "left")
    if side not in ("left", "right"):
        raise tr.error(f"np.searchsorted: side must be 'left' or "
                       f"'right', got {side!r}", node)
    return searchsorted(tr, arg(0, "a"), arg(1, "v"), side,
                        arg(3, "sorter"), node)


@numpy_function("interp")
def np_interp(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    arg.only("x", "xp", "fp", "left", "right", "period")
    if any(arg(k, key) is None for k, key in enumerate(("x", "xp", "fp"))):
        raise tr.error("np.interp takes x, xp and fp", node)
    if arg(5, "period") is not None:
        raise tr.unsupported(node, "np.interp with period",
                             "write the wrap-around with np.mod and pass "
                             "the knots extended by one period")
    return interp(tr, arg(0, "x"), arg(1, "xp"), arg(2, "fp"),
                  arg(3, "left"), arg(4, "right"), node)
