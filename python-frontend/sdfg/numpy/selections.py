"""Reductions of a masked selection `x[mask]` beyond sum, prod and mean
(those are reductions.py's `_reduce_masked`): max/min, std/var,
any/all and count_nonzero. Each is a reduction of np.where(mask, x,
<identity>) over the selected axes, so the selection's length (known
only when the program runs) is never needed as an extent, and gradients
flow to the selected elements only.

NumPy's max or min of an empty selection raises ValueError; so does the
compiled program, when it runs: a count of the selected elements is
checked to be at least 1 (an sdfg.check_index, which call_checks.py
turns into that ValueError).
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import creation, manipulation, operands, reductions, sorting, ufuncs
from .registry import Arguments, no_kwargs, numpy_function
from ..semantics.values import (ConstLeaf, Idx, IdxLeaf, Masked, Op, Value,
                                View, ViewLeaf, as_idx, is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def _selected_count(tr, rows, node):
    """The number of elements (or rows) the mask `rows` selects, int64."""
    return reductions.reduce(tr, "sum", Op("cast", [rows], rows.shape,
                                           np.int64), None, False, node)


def require_selected(tr: "Translator", rows, node: ast.AST) -> None:
    """NumPy's ValueError when the program runs if `rows` selects
    nothing."""
    count = tr.control_index(_selected_count(tr, rows, node), node)
    tr.require_elements(count)


def masked_extremum(tr, name, value, x, rows, x_axes, keepdims, node):
    """np.max/np.min of x[mask] over x's axes `x_axes` (the selected ones
    first): the extremum of np.where(mask, x, <the other extreme>); NaN
    among the selected propagates as in NumPy, unselected ones are
    skipped."""
    kind = "max" if name in ("max", "amax") else "min"
    if x.dtype == np.bool_:
        fill = ConstLeaf(kind == "min", np.bool_)
    elif is_float(x.dtype):
        fill = ConstLeaf(float("-inf") if kind == "max" else float("inf"),
                         x.dtype)
    else:
        info = np.iinfo(x.dtype)
        fill = ConstLeaf(int(info.min if kind == "max" else info.max),
                         x.dtype)
    require_selected(tr, rows, node)
    picked = ufuncs.where(tr, value.mask, x, fill, node)
    whole = len(x_axes) == len(x.shape)
    return reductions.reduce(tr, kind, picked,
                             None if whole and not keepdims else x_axes,
                             keepdims, node)


def _whole_only(tr, name, args, kwargs, node, allowed=()):
    """The selection of a reduction that takes no axis here."""
    no_kwargs(tr, kwargs, node, ("axis",) + tuple(allowed))
    axis = Arguments(tr, args, kwargs, node)(1, "axis")
    if axis is not None:
        ndim = 1 + len(args[0].value.shape) - len(
            getattr(args[0].mask, "origin", args[0].mask).shape)
        if ndim != 1 or axis not in (0, -1):
            raise tr.unsupported(node, f"np.{name} of a masked selection "
                                 "along an axis",
                                 "only the whole selection is reduced; use "
                                 "np.where(mask, x, ...) for axes")


def masked_var(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.var/np.std of x[mask] (ddof= too), as NumPy computes them: the
    mean, the sum of squared deviations of the selected elements, divided
    by max(count - ddof, 0) (nan for an empty selection, inf where
    count == ddof)."""
    _whole_only(tr, name, args, kwargs, node, ("ddof",))
    sel = args[0]
    ddof = kwargs.get("ddof", 0)
    if not isinstance(ddof, int) or isinstance(ddof, bool):
        raise tr.unsupported(node, "a ddof that is not a constant integer")
    x = tr.to_expr(sel.value)
    if x.dtype == np.bool_ or not is_float(x.dtype):
        x = Op("cast", [x], x.shape, np.float64)
    rows = getattr(sel.mask, "origin", sel.mask)
    mean = reductions.reduce(tr, "mean", Masked(x, sel.mask), None, False,
                             node)
    dev = tr.binop("sub", x, mean)
    sq = tr.binop("mul", dev, dev)
    zero = ConstLeaf(0.0, tr.to_expr(sq).dtype)
    total = reductions.reduce(tr, "sum", ufuncs.where(tr, sel.mask, sq, zero,
                                                      node), None, False,
                              node)
    count = _selected_count(tr, rows, node)
    for e in x.shape[len(rows.shape):]:
        count = tr.binop("mul", count, as_idx(e))
    count = tr.binop("sub", count, ddof)
    count = ufuncs.elementwise(tr, "maximum", [count, 0], node)
    count = Op("cast", [tr.to_expr(count)], [], np.float64)
    v = tr.to_expr(tr.binop("div", total, count))
    if v.dtype != x.dtype:
        v = Op("cast", [v], v.shape, x.dtype)  # float32 stays float32
    return ufuncs.elementwise(tr, "sqrt", [v], node) if name == "std" else v


def masked_any(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.any/np.all/np.count_nonzero of x[mask]: False, True and 0 for an
    empty selection, as NumPy's."""
    _whole_only(tr, name, args, kwargs, node)
    sel = args[0]
    x = tr.to_expr(sel.value)
    flags = x if x.dtype == np.bool_ else tr.to_expr(tr.binop("ne", x, 0))
    flags = Op("cast", [flags], flags.shape, np.int64)
    fill = 1 if name == "all" else 0
    picked = ufuncs.where(tr, sel.mask, flags, ConstLeaf(fill, np.int64),
                          node)
    if name == "count_nonzero":
        return reductions.reduce(tr, "sum", picked, None, False, node)
    r = reductions.reduce(tr, "max" if name == "any" else "min", picked,
                          None, False, node)
    return tr.binop("ne", r, 0)


def compact(tr: "Translator", sel: Masked, node: ast.AST) -> View:
    """x[mask] as an array of its own (NumPy's copy): a transient as long
    as the selection can be (the mask's element count, known when
    compiling), viewed to the run-time length, the number selected (an
    index computed from the data). Element j selected goes to position
    (number selected before j), in a loop over the elements (a scatter:
    gradients flow back to the selected elements); the unselected ones
    all go to one slot past the view, which nothing reads. A mask of x's
    leading dimensions selects rows, as NumPy's."""
    # Imported here: semantics.indexing imports this package.
    from ..semantics.indexing import Fancy
    x = tr.to_expr(sel.value)
    rows = tr.to_expr(getattr(sel.mask, "origin", sel.mask))
    r = len(rows.shape)
    for e in x.shape:
        if not as_idx(e).is_const():
            raise tr.unsupported(node, "a masked selection of an array of "
                                 "a size known only at run time")
    sel_shape = [as_idx(e).const for e in rows.shape]
    rest = [as_idx(e).const for e in x.shape[r:]]
    total = int(np.prod(sel_shape))
    flags = Op("cast", [rows], rows.shape, np.int64)
    if r != 1:
        flags = ViewLeaf(manipulation.reshape(tr, flags, (total,), node))
        x = ViewLeaf(manipulation.reshape(tr, x, tuple([total] + rest),
                                          node))
    out = tr.transient_view([Idx(total + 1)] + [Idx(e) for e in rest],
                            x.dtype, node, "selected")
    if total == 0:
        count = Idx(0)
    else:
        before = reductions.cumulative(tr, flags, 0, node)
        last = ViewLeaf(View(before.container, [(Idx(total - 1), 1, None)],
                             []))
        count = tr.control_index(last, node)
        # The number selected lies in [0, total]: the bound sizes what
        # reads the selection.
        (name,) = count.terms
        tr.iter_bounds[name] = (0, total)
        at = ufuncs.where(tr, flags, tr.binop("sub", ViewLeaf(before), 1),
                          total, node)
        tr.scatter(Fancy(out, [0], [tr.to_expr(at)], [Idx(total)], 0), x,
                   node)
    view = View(out.container, out.base, [count] + [Idx(e) for e in rest])
    view.fresh = True
    return view


def _static(tr, e, node, what):
    for x in e.shape:
        if not as_idx(x).is_const():
            raise tr.unsupported(node, f"{what} of an array of a size known "
                                 "only at run time")
    return [as_idx(x).const for x in e.shape]


def _flags(tr, e):
    """e != 0 (NumPy's truth of each element)."""
    return e if e.dtype == np.bool_ else tr.to_expr(tr.binop("ne", e, 0))


def _coordinates(tr, shape, flags, d, node):
    """The index along axis `d` of each element of an array of `shape`
    (np.indices(shape)[d]), as an int64 expression of that shape."""
    ramp = creation.ramp(tr, "arange", [shape[d]], {}, node)
    if len(shape) > 1:
        ramp = tr.subscript(ramp, manipulation.subscript_items(
            node, ["s" if k == d else "n" for k in range(len(shape))]),
            node)
    # Broadcast to the whole shape: + 0 * flags (exact).
    zero = tr.binop("mul", Op("cast", [flags], flags.shape, np.int64), 0)
    return tr.to_expr(tr.binop("add", ramp, zero))


@numpy_function("nonzero", "flatnonzero", "argwhere", positional=("a",))
def np_nonzero(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.nonzero (a tuple of index arrays, one per axis), np.flatnonzero
    (positions in the flattened array) and np.argwhere ((count, ndim)
    indices), int64, in row-major order: compactions of the positions
    by the truth of the elements."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only()
    a = arg(0, "a")
    e = tr.to_expr(a)
    shape = _static(tr, e, node, f"np.{name}")
    if not shape and name != "flatnonzero":
        raise tr.unsupported(node, f"np.{name} of a 0-d value",
                             "NumPy deprecates it; use np.atleast_1d")
    flags = _flags(tr, e)
    if name == "flatnonzero" or not shape:
        total = int(np.prod(shape))
        flat = flags if len(shape) == 1 else ViewLeaf(
            manipulation.reshape(tr, flags, (total,), node))
        ramp = creation.ramp(tr, "arange", [total], {}, node)
        return compact(tr, Masked(ramp, flat), node)
    coords = [_coordinates(tr, shape, flags, d, node)
              for d in range(len(shape))]
    if name == "nonzero":
        return tuple(compact(tr, Masked(c, flags), node) for c in coords)
    # argwhere: the rows of a (elements, ndim) table that the flattened
    # flags select.
    total = int(np.prod(shape))
    table = tr.transient_view([Idx(total), Idx(len(shape))], np.int64, node,
                              "coordinates")
    for d, c in enumerate(coords):
        column = View(table.container, [(Idx(0), 1, 0), (Idx(d), 1, None)],
                      [Idx(total)])
        flat = c if len(shape) == 1 else ViewLeaf(
            manipulation.reshape(tr, c, (total,), node))
        tr.store(column, flat)
    flat = flags if len(shape) == 1 else ViewLeaf(
        manipulation.reshape(tr, flags, (total,), node))
    return compact(tr, Masked(table, flat), node)


@numpy_function("unique", positional=("ar", "return_index",
                                      "return_inverse", "return_counts"))
def np_unique(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.unique(ar, return_counts=False): the sorted distinct values of
    the flattened array (one NaN for all NaNs, as NumPy's equal_nan), and
    with return_counts how often each occurs (int64): the sorted values
    compacted where each differs from the one before."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only("return_index", "return_inverse", "return_counts")
    for k, key in ((1, "return_index"), (2, "return_inverse")):
        if arg(k, key, False) is not False:
            raise tr.unsupported(node, f"np.unique with {key}=")
    counts = arg(3, "return_counts", False)
    if not isinstance(counts, (bool, np.bool_)):
        raise tr.unsupported(node, "np.unique with a return_counts= that is "
                             "not a constant True or False")
    e = tr.to_expr(arg(0, "ar"))
    shape = _static(tr, e, node, "np.unique")
    total = int(np.prod(shape))
    if len(shape) != 1:
        e = ViewLeaf(manipulation.reshape(tr, e, (total,), node))
    s = tr.materialize(sorting.sort(tr, e, 0, node), node, "sorted")
    if total == 0:
        keep = ViewLeaf(tr.transient_view([Idx(0)], np.bool_, node, "keep"))
    else:
        keep = tr.transient_view([Idx(total)], np.bool_, node, "keep")
        tr.store(View(keep.container, [(Idx(0), 1, None)], []),
                 ConstLeaf(True, np.bool_))
        if total > 1:
            here = operands.window_view(s, 0, 1, total - 1)
            prev = operands.window_view(s, 0, 0, total - 1)
            new = tr.binop("ne", here, prev)
            if is_float(s.dtype):
                both = tr.binop("and", ufuncs.elementwise(
                    tr, "isnan", [here], node), ufuncs.elementwise(
                    tr, "isnan", [prev], node))
                new = tr.binop("and", new, Op("not", [tr.to_expr(both)],
                                              [Idx(total - 1)], np.bool_))
            tr.store(operands.window_view(keep, 0, 1, total - 1), new)
        keep = ViewLeaf(keep)
    values = compact(tr, Masked(s, keep), node)
    if not counts:
        return values
    ramp = creation.ramp(tr, "arange", [total], {}, node)
    starts = compact(tr, Masked(ramp, keep), node)
    n = starts.shape[0]
    # One past the last start: the number of elements (the slot past the
    # view, which the compaction leaves free to write).
    tr.store(View(starts.container, [(n, 1, None)], []),
             ConstLeaf(total, np.int64))
    nxt = View(starts.container, [(Idx(1), 1, 0)], [n])
    return values, tr.materialize(tr.binop("sub", nxt, starts), node,
                                  "counts")


def _fill(dtype):
    """What sorts after every value of `dtype` (NumPy sorts NaN last)."""
    if dtype == np.bool_:
        return True
    if is_float(dtype):
        return float("nan")
    return int(np.iinfo(dtype).max)


def sort_window(tr: "Translator", e, node: ast.AST) -> View:
    """np.sort of a 1-d array whose length n is known only at run time (a
    selection x[mask], np.unique's values): its container's length, the
    bound on n, padded with what sorts after every value, sorted, and
    viewed to n. The first n sorted values are those of the array: the
    padding sorts last, equal to the array's largest values at most."""
    n = as_idx(e.shape[0])
    bound = tr.bounded_length(n, node)
    buf = tr.transient_view([Idx(bound)], e.dtype, node, "padded")
    tr.store(buf, ConstLeaf(_fill(e.dtype), e.dtype))
    tr.store(operands.window_view(buf, 0, 0, n), e)
    s = operands.as_view(tr, sorting.sort(tr, ViewLeaf(buf), 0, node), node)
    return operands.window_view(s, 0, 0, n)


def median_window(tr: "Translator", e, node: ast.AST) -> Value:
    """np.median of a 1-d array whose length n is known only at run time:
    the sorted values' middle one, or the mean of the middle two, in the
    float type (float64 for integers); NaN where the array holds a NaN,
    or is empty (NumPy's mean of nothing, with its warning)."""
    n = as_idx(e.shape[0])
    if tr.upper_extent(n, node) == 0:
        return ConstLeaf(float("nan"), e.dtype if is_float(e.dtype)
                         else np.float64)
    s = sort_window(tr, e, node)
    count = IdxLeaf(n)

    def at(k):
        # The k-th sorted value (k an int64 expression, clamped into the
        # container: an empty array reads its padding, never used).
        k = ufuncs.elementwise(tr, "maximum", [k, 0], node)
        i = tr.control_index(k, node)
        return ViewLeaf(View(s.container, [(i, 1, None)], []))

    lo = at(tr.binop("floordiv", tr.binop("sub", count, 1), 2))
    hi = at(tr.binop("floordiv", count, 2))
    last = at(tr.binop("sub", count, 1))
    dtype = e.dtype if is_float(e.dtype) else np.dtype(np.float64)
    if not is_float(e.dtype):
        lo, hi = Op("cast", [lo], [], dtype), Op("cast", [hi], [], dtype)
    mean = tr.binop("div", tr.binop("add", lo, hi), ConstLeaf(2.0, dtype))
    odd = tr.binop("eq", tr.binop("mod", count, 2), 1)
    r = ufuncs.where(tr, odd, lo, mean, node)
    void = tr.binop("eq", count, 0)
    if is_float(e.dtype):
        void = tr.binop("or", void, ufuncs.elementwise(tr, "isnan", [last],
                                                       node))
    return tr.to_expr(ufuncs.where(tr, void, ConstLeaf(float("nan"), dtype),
                                   r, node))
