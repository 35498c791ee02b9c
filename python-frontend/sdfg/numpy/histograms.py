"""np.histogram, np.bincount and np.digitize, whose results have a
length known when compiling: the number of bins (an int, or the length
of an array of edges), bincount's minlength=, digitize's x's shape.

Counts are sums over the data of one-hot flags (bin b's count is the
sum over elements j of [bin of j == b], times weights[j] if given): a
map over (bin, element), deterministic; counts are exact, weighted ones
agree with NumPy's to rounding (the compiler vectorises the sums; NumPy
adds them in order), and the gradient with respect to the weights is
the one-hot flags. The work is bins x elements.

What NumPy raises only on reading the data is checked when the program
runs (sdfg.check_index with a negative axis, which call_checks.py turns
into NumPy's ValueError): a histogram range taken from data that is not
finite, edges that do not increase, bincount's input outside
[0, minlength), digitize's bins neither increasing nor decreasing.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from .. import ir
from . import creation, manipulation, operands, reductions, ufuncs
from .registry import Arguments, numpy_call, numpy_function
from ..semantics.values import (ConstLeaf, Expr, Idx, Op, Value, View,
                                ViewLeaf, as_idx, is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator

# The negative axes of sdfg.check_index that call_checks.py reads as
# these errors.
RANGE_NOT_FINITE = -5
EDGES_NOT_INCREASING = -6
BINCOUNT_OUTSIDE = -7
BINS_NOT_MONOTONIC = -8


def check_when_run(tr, index, extent, code, node):
    """An error (call_checks.py's for `code`) when the program runs
    unless 0 <= index < extent (ints or int64 0-d values)."""
    index, extent = tr.control_index(index, node), \
        tr.control_index(extent, node)
    # Where the operand computed from data is (index_place).
    with tr.index_place(index if tr.is_data_index(index) else extent):
        name = tr.em.fresh("k")
        tr.em.line(ir.check_index(name, tr.index_ssa(index),
                                  tr.index_ssa(extent), code))


def _flat(tr, value, node, what):
    """A 1-d view of an array argument (NumPy ravels it)."""
    e = tr.to_expr(value)
    if not e.shape:
        return manipulation.reshape(tr, e, (1,), node)
    for x in e.shape:
        if not as_idx(x).is_const():
            raise tr.unsupported(node, f"{what} of an array of a size known "
                                 "only at run time")
    if len(e.shape) != 1:
        return manipulation.reshape(tr, e, (-1,), node)
    if isinstance(e, ViewLeaf):
        return e.view
    return tr.materialize(e, node, "data")


def _row(tr, v, node):
    """v[None, :]"""
    return tr.subscript(v, manipulation.subscript_items(node, ["n", "s"]),
                        node)


def _column(tr, v, node):
    """v[:, None]"""
    return tr.subscript(v, manipulation.subscript_items(node, ["s", "n"]),
                        node)


def _one_hot_sum(tr, flags, weights, node):
    """Per row b of the (bins, elements) bool `flags`: the number of
    flags set, or the sum of the weights where set, in element order."""
    if weights is None:
        vals = Op("cast", [tr.to_expr(flags)], tr.to_expr(flags).shape,
                  np.int64)
    else:
        vals = ufuncs.where(tr, flags, _row(tr, weights, node),
                            ConstLeaf(0.0, np.float64), node)
    return reductions.reduce(tr, "sum", vals, 1, False, node)


def _weights(tr, weights, n, node, what):
    if weights is None:
        return None
    w = _flat(tr, weights, node, what)
    if w.dtype != np.float64:
        raise tr.unsupported(node, f"{what} with weights of dtype "
                             f"{w.dtype}", "pass float64 weights")
    if not as_idx(w.shape[0]) == as_idx(n):
        raise tr.error("weights should have the same shape as a.", node)
    return w


def _gather(tr, edges, idx):
    """edges[idx] read element by element where it is used."""
    # Imported here: semantics.indexing imports this package.
    from ..semantics.indexing import Fancy, FancyLeaf
    idx = tr.to_expr(idx)
    return FancyLeaf(Fancy(edges, [0], [idx], idx.shape, 0))


@numpy_function("histogram", positional=("a", "bins", "range", "density",
                                         "weights"))
def np_histogram(tr: "Translator", name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.histogram(a, bins=10, range=None, density=None, weights=None):
    (counts, edges) as NumPy's: int64 counts (float64 with weights or
    density), float64 edges for an int `bins`, the given edges (a copy)
    for an array `bins`."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only("bins", "range", "density", "weights")
    bins, rng = arg(1, "bins", 10), arg(2, "range")
    density = arg(3, "density")
    if density is not None and not isinstance(density, (bool, np.bool_)):
        raise tr.unsupported(node, "np.histogram with a density= that is "
                             "not a constant True or False")
    a = _flat(tr, arg(0, "a"), node, "np.histogram")
    if is_float(a.dtype) and a.dtype != np.float64:
        raise tr.unsupported(node, f"np.histogram of {a.dtype} data",
                             "NumPy's edges are then of that type; pass "
                             "float64 data (x.astype(np.float64))")
    n_data = a.shape[0]
    w = _weights(tr, arg(4, "weights"), n_data, node, "np.histogram")
    af = ViewLeaf(a) if a.dtype == np.float64 else \
        Op("cast", [ViewLeaf(a)], a.shape, np.float64)
    if isinstance(bins, (int, np.integer)) and not isinstance(
            bins, (bool, np.bool_)):
        counts, edges = _uniform(tr, af, int(bins), rng, w, node)
    elif isinstance(bins, (View, Expr)):
        # NumPy ignores range= where the edges are given.
        counts, edges = _by_edges(tr, af, bins, w, node)
    else:
        raise tr.unsupported(node, "np.histogram with bins that are not "
                             "an int or an array of edges",
                             "NumPy's named estimators ('auto', ...) are "
                             "not supported")
    if density:
        db = Op("cast", [tr.to_expr(numpy_call(tr, "diff", [edges], {},
                                               node))],
                [Idx(as_idx(edges.shape[0]).const - 1)], np.float64)
        total = reductions.reduce(tr, "sum", counts, None, False, node)
        counts = tr.binop("div", tr.binop("div", counts, db), total)
    return tr.materialize(counts, node, "hist"), edges


def _uniform(tr, af, nbins, rng, w, node):
    """NumPy's bin arithmetic for equal bins (numpy/lib/histograms.py):
    i = int((a - first) * (nbins / (last - first))), the last edge in the
    last bin, then one step down or up where a lies below edges[i] or at
    or above edges[i + 1] (rounding); data outside [first, last] (and
    NaN) counted nowhere."""
    if nbins < 1:
        raise tr.error("`bins` must be positive, when an integer", node)
    if rng is not None:
        if not (isinstance(rng, tuple) and len(rng) == 2 and all(
                isinstance(v, (int, float, np.integer, np.floating))
                and not isinstance(v, bool) for v in rng)):
            raise tr.unsupported(node, "np.histogram with a range= that is "
                                 "not a pair of constant numbers",
                                 "omit range= to bin between the data's "
                                 "min and max")
        first, last = float(rng[0]), float(rng[1])
        if first > last:
            raise tr.error("max must be larger than min in range "
                           "parameter.", node)
        if not (np.isfinite(first) and np.isfinite(last)):
            raise tr.error(f"supplied range of [{first}, {last}] is not "
                           "finite", node)
        if first == last:
            first, last = first - 0.5, last + 0.5
        first, last = ConstLeaf(first, np.float64), \
            ConstLeaf(last, np.float64)
    elif as_idx(af.shape[0]).const == 0:
        first, last = ConstLeaf(0.0, np.float64), ConstLeaf(1.0, np.float64)
    else:
        lo = tr.materialize(reductions.reduce(tr, "min", af, None, False,
                                              node), node, "first")
        hi = tr.materialize(reductions.reduce(tr, "max", af, None, False,
                                              node), node, "last")
        finite = tr.binop("and", ufuncs.elementwise(tr, "isfinite", [lo],
                                                    node),
                          ufuncs.elementwise(tr, "isfinite", [hi], node))
        check_when_run(tr, 0, Op("cast", [tr.to_expr(finite)], [],
                                 np.int64), RANGE_NOT_FINITE, node)
        same = tr.binop("eq", lo, hi)
        first = tr.materialize(ufuncs.where(
            tr, same, tr.binop("sub", lo, 0.5), lo, node), node, "first")
        last = tr.materialize(ufuncs.where(
            tr, same, tr.binop("add", hi, 0.5), hi, node), node, "last")
        first, last = ViewLeaf(first), ViewLeaf(last)
    edges = tr.materialize(numpy_call(tr, "linspace",
                                      [first, last, nbins + 1], {}, node),
                           node, "edges")
    norm = tr.binop("div", ConstLeaf(float(nbins), np.float64),
                    tr.binop("sub", last, first))
    keep = tr.binop("and", tr.binop("ge", af, first),
                    tr.binop("le", af, last))
    inside = ufuncs.where(tr, keep, af, first, node)
    f = tr.binop("mul", tr.binop("sub", inside, first), norm)
    i = Op("cast", [tr.to_expr(f)], af.shape, np.int64)
    i = ufuncs.where(tr, tr.binop("eq", i, nbins), nbins - 1, i, node)
    i = ViewLeaf(tr.materialize(i, node, "bin"))
    below = tr.binop("lt", inside, _gather(tr, edges, i))
    i = ViewLeaf(tr.materialize(ufuncs.where(
        tr, below, tr.binop("sub", i, 1), i, node), node, "bin"))
    above = tr.binop("and", tr.binop("ge", inside, _gather(
        tr, edges, tr.binop("add", i, 1))), tr.binop("ne", i, nbins - 1))
    i = ufuncs.where(tr, above, tr.binop("add", i, 1), i, node)
    i = tr.materialize(ufuncs.where(tr, keep, i, -1, node), node, "bin")
    ramp = creation.ramp(tr, "arange", [nbins], {}, node)
    flags = tr.binop("eq", _row(tr, i, node), _column(tr, ramp, node))
    return _one_hot_sum(tr, flags, w, node), edges


def _by_edges(tr, af, bins, w, node):
    """Bins between given edges: bin b holds edges[b] <= a < edges[b+1],
    the last one its right edge too (NumPy's searchsorted of the sorted
    data); NumPy's ValueError when the program runs unless the edges
    increase."""
    e = tr.to_expr(bins)
    if len(e.shape) != 1 or not as_idx(e.shape[0]).is_const():
        raise tr.error("`bins` must be 1d, when an array", node)
    nedges = as_idx(e.shape[0]).const
    if nedges < 2:
        raise tr.error("`bins` must have at least 2 edges", node)
    edges = tr.materialize(Op("cast", [e], e.shape, e.dtype), node, "edges")
    ef = ViewLeaf(edges) if edges.dtype == np.float64 else \
        Op("cast", [ViewLeaf(edges)], edges.shape, np.float64)
    ef = tr.materialize(ef, node, "edges")
    nb = nedges - 1
    lo = View(ef.container, [(Idx(0), 1, 0)], [Idx(nb)])
    hi = View(ef.container, [(Idx(1), 1, 0)], [Idx(nb)])
    falls = reductions.reduce(tr, "sum", Op("cast", [tr.to_expr(
        tr.binop("gt", lo, hi))], [Idx(nb)], np.int64), None, False, node)
    check_when_run(tr, falls, 1, EDGES_NOT_INCREASING, node)
    row = _row(tr, tr.materialize(af, node, "data"), node)
    lo_c, hi_c = _column(tr, lo, node), _column(tr, hi, node)
    is_last = _column(tr, creation.ramp(tr, "arange", [nb], {}, node),
                      node)
    below_hi = ufuncs.where(tr, tr.binop("eq", is_last, nb - 1),
                            tr.binop("le", row, hi_c),
                            tr.binop("lt", row, hi_c), node)
    flags = tr.binop("and", tr.binop("ge", row, lo_c), below_hi)
    return _one_hot_sum(tr, flags, w, node), edges


@numpy_function("bincount", positional=("x", "weights", "minlength"))
def np_bincount(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.bincount(x, weights=None, minlength=k) with k a constant: k
    bins (int64 counts; float64 sums with weights). NumPy's result is
    longer where x holds a value >= k, a length only the data knows: the
    compiled program raises ValueError then, as for a negative value."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only("weights", "minlength")
    k = arg(2, "minlength", 0)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or \
            k < 1:
        raise tr.unsupported(node, "np.bincount without a constant "
                             "minlength >= 1",
                             "the result's length max(x) + 1 depends on the "
                             "data; give minlength=k with every value of x "
                             "below k (checked when the program runs)")
    k = int(k)
    x = _flat(tr, arg(0, "x"), node, "np.bincount")
    if x.dtype == np.bool_ or is_float(x.dtype):
        raise tr.error("Cannot cast array data from dtype('float64') to "
                       "dtype('int64') according to the rule 'safe'"
                       if is_float(x.dtype) else
                       "np.bincount takes an array of integers", node)
    w = _weights(tr, arg(1, "weights"), x.shape[0], node, "np.bincount")
    if as_idx(x.shape[0]).const > 0:
        xe = Op("cast", [ViewLeaf(x)], x.shape, np.int64)
        for kind in ("min", "max"):
            check_when_run(tr, reductions.reduce(tr, kind, xe, None, False,
                                                 node), k, BINCOUNT_OUTSIDE,
                           node)
    ramp = creation.ramp(tr, "arange", [k], {}, node)
    flags = tr.binop("eq", _row(tr, x, node), _column(tr, ramp, node))
    return tr.materialize(_one_hot_sum(tr, flags, w, node), node,
                          "bincount")


@numpy_function("digitize", positional=("x", "bins", "right"))
def np_digitize(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.digitize(x, bins, right=False): per element of x, the index of
    its bin (int64) as NumPy's searchsorted gives it: for increasing bins
    the number of edges <= x (< x with right=True), for decreasing ones
    the number > x (>= x); a NaN after every edge. Which way the edges go
    is found when the program runs (NumPy's ValueError if neither)."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only("bins", "right")
    right = arg(2, "right", False)
    if not isinstance(right, (bool, np.bool_)):
        raise tr.unsupported(node, "np.digitize with a right= that is not "
                             "a constant True or False")
    x = tr.to_expr(arg(0, "x"))
    b = tr.to_expr(arg(1, "bins"))
    if len(b.shape) != 1 or not as_idx(b.shape[0]).is_const():
        raise tr.error("object too deep for desired array"
                       if len(b.shape) > 1 else "bins must be a 1-d array "
                       "of a size known when compiling", node)
    if is_float(x.dtype) != is_float(b.dtype) or x.dtype == np.bool_:
        x = Op("cast", [x], x.shape, np.float64)
        b = Op("cast", [b], b.shape, np.float64)
    nb = as_idx(b.shape[0]).const
    edges = tr.materialize(b, node, "bins")
    xs = [Idx(e) if isinstance(e, int) else e for e in x.shape]
    if nb > 1:
        lo = operands.window_view(edges, 0, 0, nb - 1)
        hi = operands.window_view(edges, 0, 1, nb - 1)

        def never(op):
            # 1 where no neighbouring edges compare by `op`, else 0.
            bad = reductions.reduce(tr, "sum", Op("cast", [tr.to_expr(
                tr.binop(op, hi, lo))], [Idx(nb - 1)], np.int64), None,
                False, node)
            return tr.binop("eq", bad, 0)
        up, down = never("lt"), never("gt")
        check_when_run(tr, 0, Op("cast", [tr.to_expr(tr.binop(
            "or", up, down))], [], np.int64), BINS_NOT_MONOTONIC, node)
    else:
        up = ConstLeaf(True, np.bool_)
    # (elements..., edges): each element against every edge.
    items = ["s"] * len(xs) + ["n"]
    xe = tr.to_expr(x)
    if not isinstance(xe, ViewLeaf):
        xe = ViewLeaf(tr.materialize(xe, node, "x"))
    col = tr.subscript(xe.view, manipulation.subscript_items(node, items),
                       node) if xs else xe
    row = edges

    def count(op):
        flags = tr.to_expr(tr.binop(op, row, col))
        return reductions.reduce(tr, "sum", Op("cast", [flags], flags.shape,
                                               np.int64),
                                 len(xs) if xs else None, False, node)
    inc = count("lt" if right else "le")
    dec = count("ge" if right else "gt")
    out = ufuncs.where(tr, up, inc, dec, node)
    if is_float(xe.dtype):
        nan = ufuncs.elementwise(tr, "isnan", [xe], node)
        out = ufuncs.where(tr, nan, ufuncs.where(tr, up, nb, 0, node), out,
                           node)
    return tr.materialize(out, node, "digitized")
