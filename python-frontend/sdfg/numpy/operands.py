"""Operand helpers the categories share: an expression as a view, the
static shape of an operand, element counts, windows, result dtypes.
"""

import ast
from typing import TYPE_CHECKING

import numpy as np

from ..semantics.values import Idx, Op, Value, View, ViewLeaf, as_idx, is_float

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def as_view(tr: "Translator", e: Value, node: ast.AST) -> Value:
    if isinstance(e, ViewLeaf):
        return e.view
    return tr.materialize(e, node)


def in_dtype(tr: "Translator", result: Value, dtype: Value) -> Value:
    """An integer or bool product `result` (summed in int64, as np.sum
    sums) in NumPy's dtype for it, the operands' common one: an int32
    matmul is int32 (wrapping as NumPy's), an einsum of bools a bool."""
    e = tr.to_expr(result)
    if is_float(dtype) or e.dtype == dtype:
        return result
    return Op("cast", [e], e.shape, np.dtype(dtype))


def element_count(tr: "Translator", extents: Value, node: ast.AST,
                  what: str) -> Value:
    """The number of elements of `extents`: an int, or an Idx where one
    extent is known only at run time (a window `x[i:i + 3]` at the end of
    its loop); more than one is not affine."""
    total = Idx(1)
    for e in extents:
        e = as_idx(e)
        if e.is_const():
            total = total.scale(e.const)
        elif total.is_const():
            total = e.scale(total.const)
        else:
            raise tr.unsupported(node, f"{what} over several axes of "
                                 "loop-dependent extent")
    return total.const if total.is_const() else total


def static_shape(tr: "Translator", e: Value, node: ast.AST,
                 what: str) -> Value:
    shape = []
    for x in e.shape:
        x = as_idx(x)
        if not x.is_const():
            raise tr.unsupported(node, f"{what} of a loop-dependent shape")
        shape.append(x.const)
    return shape


def window_view(v, axis, start, extent):
    """The part of view `v` from `start` along `axis`, `extent` (an int or
    an Idx) long."""
    base = [(o + Idx(start).scale(st) if d == axis else o, st, d)
            for o, st, d in v.base]
    shape = list(v.shape)
    shape[axis] = as_idx(extent)
    return View(v.container, base, shape)
