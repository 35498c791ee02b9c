"""Sorting and order statistics: np.argsort, np.sort (and the in-place
method), np.take_along_axis, np.median, np.percentile and np.quantile.

argsort is the library op `sdfg.argsort` (a stable merge sort when
compiled). A sort is the gather of the array by those positions, so its
gradient is the gather's reversal: each element's gradient goes back to
the position it was sorted from, and the positions themselves (integers)
need none. The order statistics read the sorted array at positions known
when compiling (the extent along the axis is static) and interpolate as
NumPy does, so their gradients are those of the elements they read.
"""

import ast
import math
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import creation, dtypes, manipulation, operands, selections, ufuncs
from .. import ir
from .registry import Arguments, array_method, numpy_call, numpy_function
from ..semantics.values import (ConstLeaf, Op, Value, View, ViewLeaf,
                                as_idx, is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


# NumPy's sorting kinds: every one gives the stable order here (for
# quicksort and heapsort NumPy leaves the order of equal keys unspecified,
# so the stable one is among theirs).
_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


@array_method("sort")
def sort_in_place(tr: "Translator", obj: Value, name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """`a.sort(axis=-1, kind=None)`: sorts the array variable in place."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only("axis", "kind", "order")
    _check_kind(tr, arg(1, "kind"), arg(2, "order"), node)
    if not isinstance(obj, View):
        raise tr.unsupported(node, ".sort() of a temporary value",
                             "use np.sort(...), which returns the result")
    axis = arg(0, "axis", -1)
    if axis is None:
        raise tr.error("a.sort() needs an integer axis (NumPy's in-place "
                       "sort does not flatten)", node)
    tr.store(obj, sort(tr, ViewLeaf(obj), axis, node))
    return None


def _check_kind(tr, kind, order, node):
    if kind not in _KINDS:
        raise tr.error(f"sort kind must be one of {_KINDS[1:]}, got "
                       f"{kind!r}", node)
    if order is not None:
        raise tr.unsupported(node, "sorting by field order",
                             "structured arrays are not supported")


def _constant_q(tr, q, name, node):
    """q as a NumPy array of constants (a number, or a tuple or list of
    them, known when compiling)."""
    if isinstance(q, ConstLeaf):
        q = q.value
    items = q if isinstance(q, (list, tuple)) else [q]
    flat = list(np.ravel(np.array(items, dtype=object)))
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in flat):
        raise tr.unsupported(node, f"np.{name} with q computed at run time",
                             "q must be a number or a list of numbers "
                             "known when compiling")
    return np.array(q, dtype=np.float64)


def _axis(tr, e, axis, node):
    """(array, axis) with axis None meaning the flattened array."""
    if len(e.shape) == 0:
        raise tr.unsupported(node, "sorting a 0-d value")
    if axis is None:
        if len(e.shape) > 1:
            e = tr.to_expr(manipulation.reshape(tr, e, (-1,), node))
        return e, 0
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise tr.unsupported(node, "non-constant axis")
    if not -len(e.shape) <= axis < len(e.shape):
        raise tr.error(f"axis {axis} is out of bounds for an array of "
                       f"dimension {len(e.shape)}", node)
    return e, axis % len(e.shape)


def argsort(tr: "Translator", value: Value, axis: Value,
            node: ast.AST) -> Value:
    """The int64 positions that sort `value` along `axis`: sdfg.argsort of
    a whole container holding it."""
    e, axis = _axis(tr, tr.to_expr(value), axis, node)
    shape = operands.static_shape(tr, e, node, "sorting")
    if e.dtype == np.bool_:
        e = Op("cast", [e], e.shape, np.int64)
    e = dtypes.signed_order(e)  # the library op orders integers signed
    if isinstance(e, ViewLeaf) and e.view.is_whole():
        keys = e.view
    else:
        keys = tr.snapshot(e, node, "keys")
    out = tr.transient_view(shape, np.int64, node, "order")
    ck, co = keys.container, out.container
    tr.em.line(ir.library_op("argsort", [ck.ssa], co.ssa, [ck.mlir_type],
                             co.mlir_type, suffix=f" axis {axis}"))
    return ViewLeaf(out)


def sort(tr: "Translator", value: Value, axis: Value, node: ast.AST) -> Value:
    e, axis = _axis(tr, tr.to_expr(value), axis, node)
    if len(e.shape) == 1 and not as_idx(e.shape[0]).is_const():
        # A length the data gives (np.sort(x[mask])).
        return selections.sort_window(tr, e, node)
    # One array for both the keys and the gather (an expression would be
    # computed twice).
    e = ViewLeaf(operands.as_view(tr, e, node))
    return take_along_axis(tr, e, argsort(tr, e, axis, node), axis, node)


def take_along_axis(tr: "Translator", arr: Value, indices: Value, axis: Value,
                    node: ast.AST) -> Value:
    """arr[..., indices, ...] with the other dimensions matched element by
    element, as np.take_along_axis: a gather."""
    e = tr.to_expr(arr)
    idx = tr.to_expr(indices)
    e, axis = _axis(tr, e, axis, node)
    if len(idx.shape) != len(e.shape):
        raise tr.error("np.take_along_axis: `indices` and `arr` must have "
                       "the same number of dimensions", node)
    items = []
    for d, extent in enumerate(operands.static_shape(tr, e, node,
                                                "np.take_along_axis")):
        if d == axis:
            items.append(idx)
            continue
        # Positions along dimension d, broadcast over the others.
        ramp = creation.ramp(tr, "arange", [extent], {}, node)
        subs = [ast.Constant(None)] * d + [ast.Slice()] + \
            [ast.Constant(None)] * (len(e.shape) - 1 - d)
        items.append(tr.subscript(
            ramp, [ast.copy_location(s, node) for s in subs], node))
    view = operands.as_view(tr, e, node)
    return tr.gather(tr.index_items(view, tuple(items), node), node)


def _take(tr, s, axis, k, node):
    """The slice of `s` at position k along `axis` (the axis dropped)."""
    items = [ast.Slice()] * axis + [ast.Constant(k)]
    return tr.to_expr(tr.subscript(
        s, [ast.copy_location(i, node) for i in items], node))


def quantile(tr: "Translator", value: Value, q: Value, axis: Value,
             method: str, keepdims: bool, node: ast.AST) -> Value:
    """The q-quantile (0 <= q <= 1) of `value` along `axis` (None: all of
    it) by NumPy's `method` ("median": the mean of the middle elements);
    NaN where a line holds a NaN, as in NumPy."""
    e = tr.to_expr(value)
    ndim = len(e.shape)
    e, ax = _axis(tr, e, axis, node)
    if method == "median" and ndim == 1 and not keepdims and \
            not as_idx(e.shape[0]).is_const():
        # A length the data gives (np.median(x[mask])).
        return selections.median_window(tr, e, node)
    shape = operands.static_shape(tr, e, node, "an order statistic")
    n = shape[ax]
    if n == 0:
        raise tr.error("order statistic of an empty array", node)
    s = operands.as_view(tr, sort(tr, e, ax, node), node)
    if method == "median":
        lo, hi = (n - 1) // 2, n // 2
        r = _take(tr, s, ax, lo, node)
        if hi != lo:
            # np.mean of the middle elements: in their float type.
            two = ConstLeaf(2.0, s.dtype) if is_float(s.dtype) else 2.0
            r = tr.binop("div", tr.binop("add", r, _take(tr, s, ax, hi, node)),
                         two)
    else:
        virtual = (n - 1) * q
        below = math.floor(virtual)
        pick = {"lower": below, "higher": math.ceil(virtual),
                "nearest": int(np.around(virtual))}
        if method in pick:
            r = _take(tr, s, ax, min(pick[method], n - 1), node)
        else:
            gamma = virtual - below if method == "linear" else \
                (0.0 if virtual == below else 0.5)
            a = _take(tr, s, ax, below, node)
            b = _take(tr, s, ax, min(below + 1, n - 1), node)
            diff = tr.binop("sub", b, a)
            # NumPy's _lerp: from the nearer end.
            r = tr.binop("sub", b, tr.binop("mul", diff, 1.0 - gamma)) \
                if gamma >= 0.5 else tr.binop("add", a,
                                              tr.binop("mul", diff, gamma))
    r = tr.to_expr(r)
    if (not is_float(r.dtype) and method == "median") or \
            method in ("linear", "midpoint"):
        # Interpolated in q's float64 (a median is the mean of its middle
        # elements, in their float type).
        r = Op("cast", [r], r.shape, np.float64)
    if is_float(s.dtype):
        # NaNs sort last: a line holding one has one at its end.
        nan = Op("isnan", [_take(tr, s, ax, n - 1, node)], r.shape, np.bool_)
        r = tr.to_expr(ufuncs.where(tr, nan, ConstLeaf(float("nan"), r.dtype),
                                r, node))
    if keepdims:
        shape = [1] * ndim if axis is None else \
            [1 if d == ax else x for d, x in enumerate(shape)]
        r = tr.to_expr(manipulation.reshape(tr, r, tuple(shape), node))
    return r


@numpy_function("argsort", method=True)
@numpy_function("sort")
def np_sort(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    arg.only("axis", "kind", "order")
    _check_kind(tr, arg(2, "kind"), arg(3, "order"), node)
    if name == "sort":
        return sort(tr, arg(0, "a"), arg(1, "axis", -1), node)
    return argsort(tr, arg(0, "a"), arg(1, "axis", -1), node)


@numpy_function("take_along_axis")
def np_take_along_axis(tr: "Translator", name: str, args: List[Value],
                       kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    arg.only("axis")
    if len(args) + len(kwargs) != 3:
        raise tr.error("np.take_along_axis takes an array, indices and "
                       "an axis", node)
    return take_along_axis(tr, arg(0, "arr"), arg(1, "indices"),
                           arg(2, "axis"), node)


@numpy_function("median")
def np_median(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    arg.only("axis", "keepdims")
    return quantile(tr, arg(0, "a"), 0.5, arg(1, "axis"), "median",
                    bool(kwargs.get("keepdims", False)), node)


@numpy_function("percentile", "quantile")
def np_percentile(tr: "Translator", name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    # percentile / quantile
    arg.only("axis", "method", "keepdims")
    if len(args) < 2:
        raise tr.error(f"np.{name} takes an array and q", node)
    q = _constant_q(tr, arg(1, "q"), name, node)
    method = arg(3, "method", "linear")
    if method not in _METHODS:
        raise tr.unsupported(node, f"np.{name} method {method!r}",
                             "supported: " + ", ".join(_METHODS))
    keep = bool(arg(4, "keepdims", False))
    scale = 100.0 if name == "percentile" else 1.0
    bound = "[0, 100]" if name == "percentile" else "[0, 1]"
    fractions = []
    for v in np.ravel(q):
        f = float(np.true_divide(v, scale))
        if not 0.0 <= f <= 1.0:
            raise tr.error(f"np.{name}: q must be in {bound}, got {v}", node)
        fractions.append(f)
    results = [quantile(tr, arg(0, "a"), f, arg(2, "axis"), method, keep,
                        node) for f in fractions]
    if np.ndim(q) == 0:
        return results[0]
    stacked = numpy_call(tr, "stack", [results], {}, node)
    shape = tuple(np.shape(q))
    if len(shape) > 1:
        rest = tuple(stacked.shape[1:])
        stacked = manipulation.reshape(tr, stacked, shape + rest, node)
    return stacked
