"""Statistics and signals: average, cov, corrcoef, convolve, correlate,
gradient (numerical differences) and trapz (trapezoid), composed of
the element-wise ops, reductions and products.
"""
import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from .. import ir
from . import joining, manipulation, operands, products, reductions
from .registry import Arguments, numpy_call, numpy_function
from ..semantics.values import (ConstLeaf, Expr, Idx, Op, Value, View,
                                ViewLeaf, as_idx, is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def average(tr: "Translator", a: Value, axis: Value, weights: Value,
            keepdims: bool, node: ast.AST) -> Value:
    if weights is None:
        return reductions.reduce(tr, "mean", a, axis, keepdims, node)
    e, w = tr.to_expr(a), tr.to_expr(weights)
    if len(w.shape) == 1 and len(e.shape) > 1:
        if not isinstance(axis, int):
            raise tr.error("Axis must be specified when shapes of a and "
                           "weights differ.", node)
        ax = axis % len(e.shape)
        v = operands.as_view(tr, w, node)
        w = tr.subscript(v, reductions.spread_along(node, len(e.shape), ax),
                         node)
    w = tr.to_expr(w)
    if not is_float(w.dtype):
        w = Op("cast", [w], w.shape, np.float64)
    num = reductions.reduce(tr, "sum", tr.binop("mul", e, w), axis, keepdims,
                            node)
    spread = tr.transient_view(e.shape, w.dtype, node, "weights")
    tr.store(spread, w)
    den = reductions.reduce(tr, "sum", spread, axis, keepdims, node)
    return tr.binop("div", num, den)


def convolve(tr: "Translator", name: str, a: Value, v: Value, mode: str,
             node: ast.AST) -> Value:
    """np.convolve and np.correlate of two vectors: the full result is a
    loop over the shorter vector's elements, each adding the longer one,
    scaled, into its window (direct convolution, as NumPy's; the autodiff
    takes the loop like a time loop's); 'same' and 'valid' are windows of
    it, where NumPy puts them. correlate(a, v) is convolve(a, v[::-1])."""
    if mode not in ("full", "same", "valid"):
        raise tr.error(f"np.{name}: mode must be one of 'valid', 'same' or "
                       f"'full', not {mode!r}", node)
    ea, ev = tr.to_expr(a), tr.to_expr(v)
    for e, what in ((ea, "a"), (ev, "v")):
        if len(e.shape) != 1:
            raise tr.unsupported(node, f"np.{name} of an array of "
                                 f"{len(e.shape)} dimensions",
                                 "both operands must be vectors")
        if not as_idx(e.shape[0]).is_const():
            raise tr.unsupported(node, f"np.{name} of a loop-dependent "
                                 "length")
        if as_idx(e.shape[0]).const == 0:
            raise tr.error(f"{what} cannot be empty", node)
    va, vv = operands.as_view(tr, ea, node), operands.as_view(tr, ev, node)
    if name == "correlate":
        vv = manipulation.reversed_view(vv, 0)
    n, m = as_idx(va.shape[0]).const, as_idx(vv.shape[0]).const
    # Both are arrays to NumPy: the common type, whatever element scales
    # the longer vector here (bool stays bool: or of ands, as NumPy's).
    dtype = np.result_type(va.dtype, vv.dtype)
    long, short = (va, vv) if n >= m else (vv, va)
    big, small = max(n, m), min(n, m)
    out = tr.transient_view([Idx(big + small - 1)], dtype, node, name)
    tr.store(out, ConstLeaf(0, dtype))
    with tr.control_section():
        j = tr.em.fresh("i")
        tr.iter_bounds[j] = (0, small - 1)
        with tr.em.block(ir.loop(j, 0, small, 1)):
            with tr.em.block(ir.STATE):
                at = Idx.of(j)
                # Element j along the vectors' one view dimension (the
                # container's other dimensions stay where the view fixed
                # them: a row A[1] of a matrix).
                window = View(out.container,
                              [(o + at.scale(st), st, d) if d == 0
                               else (o, st, d) for o, st, d in out.base],
                              [Idx(big)])
                scale = View(short.container,
                             [(o + at.scale(st), st, None) if d == 0
                              else (o, st, d) for o, st, d in short.base],
                             [])
                terms = [ViewLeaf(v) for v in (long, scale)]
                terms = [t if t.dtype == dtype else
                         Op("cast", [t], t.shape, dtype) for t in terms]
                if dtype == np.bool_:
                    new = tr.logical("or", ViewLeaf(window),
                                     tr.logical("and", *terms))
                else:
                    new = tr.binop("add", ViewLeaf(window),
                                   tr.binop("mul", *terms))
                tr.store(window, new, cast=True)
    if mode == "full":
        return out
    if mode == "same":
        # NumPy's correlate swaps a shorter `a` with `v` and reverses the
        # result: its window is the mirror of convolve's.
        start = small // 2 if name == "correlate" and n < m else \
            (small - 1) // 2
        length = big
    else:
        start, length = small - 1, big - small + 1
    return operands.window_view(out, 0, start, length)


def numerical_gradient(tr: "Translator", f: Value, spacing: Value, axis: Value,
                       edge_order: Value, node: ast.AST) -> Value:
    """np.gradient with uniform spacings (one for all axes or one per
    axis): NumPy's second-order central differences inside and first- or
    second-order one-sided ones at the edges, in NumPy's operation order;
    a list of arrays for several axes, as NumPy's."""
    e = tr.to_expr(f)
    ndim = len(e.shape)
    if axis is None:
        axes = list(range(ndim))
    else:
        axes = [manipulation.normalized_axis(tr, a, ndim, node) for a in (
            axis if isinstance(axis, (tuple, list)) else (axis,))]
    if edge_order not in (1, 2):
        raise tr.error("'edge_order' greater than 2 not supported", node)
    if len(spacing) == 0:
        steps = [1.0] * len(axes)
    elif len(spacing) == 1:
        steps = list(spacing) * len(axes)
    elif len(spacing) == len(axes):
        steps = list(spacing)
    else:
        raise tr.error("invalid number of arguments", node)
    for h in steps:
        if isinstance(h, (View, Expr)) and len(tr.to_expr(h).shape) > 0:
            raise tr.unsupported(node, "np.gradient with coordinate arrays",
                                 "uniform spacings (numbers) only")
    if not is_float(e.dtype):
        e = Op("cast", [e], e.shape, np.float64)
    v = operands.as_view(tr, e, node)
    outs = []
    for ax, h in zip(axes, steps):
        n = as_idx(v.shape[ax])
        if not n.is_const():
            raise tr.unsupported(node, "np.gradient along a loop-dependent "
                                 "extent")
        n = n.const
        if n < edge_order + 1:
            raise tr.error("Shape of array too small to calculate a "
                           "numerical gradient, at least (edge_order + 1) "
                           "elements are required.", node)
        out = tr.transient_view(list(v.shape), e.dtype, node, "gradient")

        def part(view, start, length):
            return ViewLeaf(operands.window_view(view, ax, start, length))

        tr.store(operands.window_view(out, ax, 1, n - 2), tr.binop(
            "div", tr.binop("sub", part(v, 2, n - 2), part(v, 0, n - 2)),
            tr.binop("mul", 2.0, h)))
        if edge_order == 1:
            first = tr.binop("div", tr.binop("sub", part(v, 1, 1),
                                             part(v, 0, 1)), h)
            last = tr.binop("div", tr.binop("sub", part(v, n - 1, 1),
                                            part(v, n - 2, 1)), h)
        else:
            def combo(ks, offsets):
                total = None
                for k, o in zip(ks, offsets):
                    term = tr.binop("mul", tr.binop("div", k, h),
                                    part(v, o, 1))
                    total = term if total is None else tr.binop(
                        "add", total, term)
                return total
            first = combo((-1.5, 2.0, -0.5), (0, 1, 2))
            last = combo((0.5, -2.0, 1.5), (n - 3, n - 2, n - 1))
        tr.store(operands.window_view(out, ax, 0, 1), first, cast=True)
        tr.store(operands.window_view(out, ax, n - 1, 1), last, cast=True)
        outs.append(out)
    return outs[0] if len(outs) == 1 else outs


def covariance(tr: "Translator", name: str, m: Value, y: Value, rowvar: Value,
               bias: Value, ddof: Value, node: ast.AST) -> Value:
    """np.cov and np.corrcoef: the variables are rows (columns with
    rowvar=False), observations the other axis; the centred data times its
    transpose over N - ddof (ddof 1, 0 with bias). corrcoef divides by the
    outer product of the standard deviations and clips to [-1, 1], as
    NumPy."""
    for flag, what in ((rowvar, "rowvar"), (bias, "bias")):
        if not isinstance(flag, (bool, int)) or isinstance(flag, Idx):
            raise tr.unsupported(node, f"np.{name} with {what} computed at "
                                 "run time")
    if ddof is not None:
        ddof = manipulation.constant_int(tr, ddof, "ddof", node)
    rows = []
    for part in (m, y) if y is not None else (m,):
        e = tr.to_expr(part)
        if len(e.shape) > 2:
            raise tr.error(f"{'m' if part is m else 'y'} has more than 2 "
                           "dimensions", node)
        v = manipulation.atleast(tr, e, 2, node)
        v = operands.as_view(tr, tr.to_expr(v), node)
        if not rowvar and len(e.shape) == 2:
            v = v.transpose([1, 0])
        rows.append(v)
    X = rows[0] if len(rows) == 1 else joining.stack_along(tr, "vstack",
                                                           rows, node)
    X = tr.to_expr(X)
    if X.dtype != np.float64:
        # NumPy computes in float64 whatever the input (float32 too).
        X = Op("cast", [X], X.shape, np.float64)
    n = as_idx(X.shape[1])
    if not n.is_const():
        raise tr.unsupported(node, f"np.{name} of a loop-dependent number "
                             "of observations")
    if ddof is None:
        ddof = 0 if bias else 1
    centred = tr.binop("sub", X, reductions.reduce(tr, "mean", X, 1, True,
                                                   node))
    cv = operands.as_view(tr, centred, node)
    c = tr.binop("div", products.matmul(tr, cv, cv.transpose([1, 0]), node),
                 float(max(n.const - ddof, 0)))
    if name == "corrcoef":
        cv = operands.as_view(tr, c, node)
        d = numpy_call(tr, "sqrt", [numpy_call(tr, "diagonal", [cv],
                                                     {}, node)], {}, node)
        dv = operands.as_view(tr, tr.to_expr(d), node)
        col = tr.subscript(dv, manipulation.subscript_items(node, ["s", "n"]),
                           node)
        row = tr.subscript(dv, manipulation.subscript_items(node, ["n", "s"]),
                           node)
        c = tr.binop("div", tr.binop("div", cv, col), row)
        c = numpy_call(tr, "clip", [c, -1.0, 1.0], {}, node)
    one = all(len(tr.to_expr(p).shape) < 2 for p in (m, y) if p is not None)
    if one and y is None:
        # A single variable: NumPy's 0-d result.
        return tr.subscript(operands.as_view(tr, tr.to_expr(c), node),
                            manipulation.subscript_items(node, [0, 0]), node)
    return c


def trapezoid(tr: "Translator", y: Value, x: Value, dx: Value, axis: Value,
              node: ast.AST) -> Value:
    e = tr.to_expr(y)
    ax = manipulation.normalized_axis(tr, axis, len(e.shape), node)
    v = operands.as_view(tr, e, node)
    n = as_idx(v.shape[ax]) - 1
    mid = tr.binop("add", operands.window_view(v, ax, 1, n),
                   operands.window_view(v, ax, 0, n))
    if x is None:
        d = dx
    else:
        xe = tr.to_expr(x)
        d = manipulation.diff(tr, xe, 1, -1 if len(xe.shape) == 1 else ax,
                              node)
        if len(xe.shape) == 1 and len(e.shape) > 1:
            d = tr.subscript(operands.as_view(tr, tr.to_expr(d), node),
                             reductions.spread_along(node, len(e.shape),
                                                     ax), node)
    return tr.binop("mul", reductions.reduce(tr, "sum", tr.binop("mul", mid,
                                                                 d), ax,
                                     False, node), 0.5)


@numpy_function("convolve", "correlate")
def np_convolve(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("mode")
    return convolve(tr, name, arg(0, "a"), arg(1, "v"),
                    arg(2, "mode", "full" if name == "convolve"
                        else "valid"), node)


@numpy_function("corrcoef", "cov")
def np_cov(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    if name == "cov":
        only("y", "rowvar", "bias", "ddof")
        bias, ddof = arg(3, "bias", False), arg(4, "ddof")
    else:
        only("y", "rowvar")
        bias, ddof = False, None
    return covariance(tr, name, arg(0, "m"), arg(1, "y"),
                      arg(2, "rowvar", True), bias, ddof, node)


@numpy_function("average")
def np_average(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis", "weights", "keepdims")
    return average(tr, arg(0, "a"), arg(1, "axis"), arg(2, "weights"),
                   bool(kwargs.get("keepdims", False)), node)


@numpy_function("trapezoid", "trapz")
def np_trapz(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("x", "dx", "axis")
    return trapezoid(tr, arg(0, "y"), arg(1, "x"), arg(2, "dx", 1.0),
                     arg(3, "axis", -1), node)


@numpy_function("gradient")
def np_gradient(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis", "edge_order")
    return numerical_gradient(tr, args[0], args[1:],
                              kwargs.get("axis"),
                              kwargs.get("edge_order", 1), node)
