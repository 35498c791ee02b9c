"""Index arrays whose length is known when compiling: np.triu_indices,
np.tril_indices (and their _from variants), np.diag_indices (whose
length n may also be a size expression; a triangle's n * (n + 1) / 2 is
not affine in a size symbol, so those stay compiled per size).

Their bodies are written in NumPy (`_triangle`) and inlined as the
program's own functions are: a counter walks the triangle row by row,
so the order is NumPy's (row-major) without a table of row offsets.
"""
import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import creation
from .registry import Arguments, numpy_function
from ..semantics.values import Value, View

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def _triangle(n, m, k, upper, count):
    rows = np.empty(count, dtype=np.int64)
    cols = np.empty(count, dtype=np.int64)
    p = 0
    for i in range(n):
        lo = max(i + k, 0) if upper else 0
        hi = m if upper else min(i + k + 1, m)
        for j in range(lo, hi):
            rows[p] = i
            cols[p] = j
            p += 1
    return rows, cols


def _constant_int(tr, v, what, node):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise tr.unsupported(node, f"{what} computed at run time",
                             "the number of indices must be known when "
                             "compiling")
    return int(v)


@numpy_function("triu_indices", "tril_indices", positional=("n", "k", "m"))
def np_triangle_indices(tr: "Translator", name: str, args: List[Value],
                        kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.triu_indices(n, k=0, m=None): the (rows, cols) int64 arrays of
    the upper (lower) triangle of an n x m matrix from diagonal k."""
    arg = Arguments(tr, args, kwargs, node)
    n = _constant_int(tr, arg(0, "n"), f"np.{name} of a size", node)
    k = _constant_int(tr, arg(1, "k", 0), f"np.{name} with a diagonal",
                      node)
    m = arg(2, "m", None)
    m = n if m is None else _constant_int(tr, m, f"np.{name} of a size",
                                          node)
    upper = name == "triu_indices"
    mask = np.triu(np.ones((max(n, 0), max(m, 0)), bool), k) if upper \
        else np.tril(np.ones((max(n, 0), max(m, 0)), bool), k)
    return tr.inline_call(_triangle, [max(n, 0), max(m, 0), k, upper,
                                      int(mask.sum())], {}, node)


@numpy_function("triu_indices_from", "tril_indices_from",
                positional=("arr", "k"))
def np_triangle_indices_from(tr: "Translator", name: str, args: List[Value],
                             kwargs: Dict[str, Value], node: ast.AST
                             ) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    a = arg(0, "arr")
    if not isinstance(a, View) or a.ndim != 2:
        raise tr.error(f"np.{name}: input array must be 2-d", node)
    shape = [tr.control_index(e, node) for e in a.shape]
    if not all(e.is_const() for e in shape):
        raise tr.unsupported(node, f"np.{name} of an array whose shape is "
                             "only known at run time")
    return np_triangle_indices(tr, name[:-len("_from")],
                               [shape[0].const, arg(1, "k", 0),
                                shape[1].const], {}, node)


@numpy_function("diag_indices", positional=("n", "ndim"))
def np_diag_indices(tr: "Translator", name: str, args: List[Value],
                    kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.diag_indices(n, ndim=2): ndim copies of arange(n); n may be a
    size expression (an argument's extent)."""
    arg = Arguments(tr, args, kwargs, node)
    n = creation.size_extent(tr, arg(0, "n"), "np.diag_indices of a size",
                             node)
    ndim = _constant_int(tr, arg(1, "ndim", 2), "np.diag_indices' ndim",
                         node)
    ramp = creation.ramp(tr, "arange", [n], {}, node)
    return tuple([ramp] * ndim)
