"""Polynomials: vander, polyval, polyfit.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import linalg, manipulation, operands, reductions
from .registry import Arguments, numpy_call, numpy_function
from ..semantics.values import (ConstLeaf, Idx, Op, Value, ViewLeaf, as_idx,
                                is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def vander(tr: "Translator", x: Value, n: Value, increasing: Value,
           node: ast.AST) -> Value:
    """np.vander: the columns x^(N-1), ..., x, 1 (reversed with
    increasing), each the previous one times x, as NumPy's products."""
    e = tr.to_expr(x)
    if len(e.shape) != 1:
        raise tr.error("x must be a one-dimensional array or sequence.",
                       node)
    if n is None:
        n = as_idx(e.shape[0]).const
    n = manipulation.constant_int(tr, n, "N", node)
    if not isinstance(increasing, bool):
        raise tr.unsupported(node, "np.vander with increasing computed at "
                             "run time")
    powers = []
    for k in range(n):
        powers.append(ConstLeaf(1, e.dtype) if k == 0 else
                      e if k == 1 else tr.binop("mul", powers[-1], e))
    if not increasing:
        powers.reverse()
    if not powers:
        raise tr.unsupported(node, "np.vander with N=0")
    dtype = np.promote_types(e.dtype, np.int_)  # NumPy's vander
    out = tr.transient_view([e.shape[0], Idx(n)], dtype, node, "vander")
    for k, col in enumerate(powers):
        column = manipulation.subscript_items(node, ["s", k])
        tr.store(tr.subscript(out, column, node), tr.to_expr(col), cast=True)
    return out


def polyval(tr: "Translator", p: Value, x: Value, node: ast.AST) -> Value:
    """np.polyval: Horner's rule over the coefficients (highest power
    first), a vector of static length."""
    ep = tr.to_expr(p)
    if len(ep.shape) != 1 or not as_idx(ep.shape[0]).is_const():
        raise tr.unsupported(node, "np.polyval with coefficients that are "
                             "not a vector of static length")
    vp = operands.as_view(tr, ep, node)
    # NumPy's loop, from zeros of x's shape and type: y = y * x + p[k].
    ex = tr.to_expr(x)
    y = Op("cast", [tr.binop("mul", ex, 0)], ex.shape,
           ex.dtype if ex.dtype != np.bool_ else np.int64)
    for k in range(as_idx(ep.shape[0]).const):
        c = tr.subscript(vp, manipulation.subscript_items(node, [k]), node)
        y = tr.binop("add", tr.binop("mul", y, x), ViewLeaf(c))
    return y


def polyfit(tr: "Translator", x: Value, y: Value, deg: Value, rcond: Value,
            node: ast.AST) -> Value:
    """np.polyfit(x, y, deg): NumPy's least squares on the Vandermonde
    matrix with its columns scaled to unit norm (rcond len(x) * eps by
    default), the coefficients highest power first."""
    deg = manipulation.constant_int(tr, deg, "deg", node)
    if deg < 0:
        raise tr.error("expected deg >= 0", node)
    ex = tr.to_expr(x)
    if len(ex.shape) != 1:
        raise tr.error("expected 1D vector for x", node)
    if not is_float(ex.dtype):
        ex = Op("cast", [ex], ex.shape, np.float64)
    m = as_idx(ex.shape[0]).const
    if rcond is None:
        rcond = m * float(np.finfo(ex.dtype).eps)
    lhs = vander(tr, ex, deg + 1, False, node)
    scale = numpy_call(tr, "sqrt", [reductions.reduce(
        tr, "sum", tr.binop("mul", ViewLeaf(lhs), ViewLeaf(lhs)), 0, False,
        node)], {}, node)
    scaled = tr.binop("div", ViewLeaf(lhs), scale)
    c = linalg.lstsq(tr, scaled, y, rcond, node)[0]
    ec = tr.to_expr(c)
    if len(ec.shape) == 2:
        scale = tr.subscript(operands.as_view(tr, tr.to_expr(scale), node),
                             manipulation.subscript_items(node, ["s",
                                                                 "n"]), node)
    return tr.binop("div", ec, scale)


@numpy_function("vander")
def np_vander(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("N", "increasing")
    return vander(tr, arg(0, "x"), arg(1, "N"),
                  arg(2, "increasing", False), node)


@numpy_function("polyval")
def np_polyval(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    return polyval(tr, arg(0, "p"), arg(1, "x"), node)


@numpy_function("polyfit")
def np_polyfit(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("rcond", "full", "w", "cov")
    for pos, flag in ((4, "full"), (6, "cov")):
        if arg(pos, flag, False) is not False:
            raise tr.unsupported(node, f"np.polyfit with {flag}=True")
    if arg(5, "w") is not None:
        raise tr.unsupported(node, "np.polyfit with weights")
    return polyfit(tr, arg(0, "x"), arg(1, "y"), arg(2, "deg"),
                   arg(3, "rcond"), node)
