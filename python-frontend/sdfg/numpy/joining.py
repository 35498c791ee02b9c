"""Joining, splitting and repeating arrays: np.concatenate and np.stack,
vstack/hstack/column_stack/dstack, the split family (split, array_split,
hsplit, vsplit, dsplit), tile, repeat, pad, roll and meshgrid.

Every result but split's is a new array whose windows are copies of the
inputs (or of their windows), so a gradient flows back through the
copies; split's pieces are views of the input, as NumPy's are.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import operands
from .manipulation import (atleast, constant_int, normalized_axis, reshape,
                           reversed_view, subscript_items, view_of)
from .registry import Arguments, no_kwargs, numpy_function
from ..semantics.values import ConstLeaf, Idx, Value, ViewLeaf, as_idx

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def _roll(tr, value, shift, axis, node):
    """np.roll by constant shifts: a new array made of two windows of the
    old one per rolled axis (periodic stencils' neighbours)."""
    e = tr.to_expr(value)
    shape = operands.static_shape(tr, e, node, "np.roll")
    if axis is None:
        if len(shape) != 1:
            raise tr.unsupported(node, "np.roll without axis of a "
                                 "multi-dimensional array", "pass axis=")
        axis = 0
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    # A variable bound to a constant (the item of a loop over a tuple)
    # holds it as a constant index expression.
    shifts, axes = ([x.const if isinstance(x, Idx) and x.is_const() else x
                     for x in xs] for xs in (shifts, axes))
    shifts, axes = tuple(shifts), tuple(axes)
    if len(shifts) != len(axes) or not all(
            isinstance(x, int) and not isinstance(x, bool)
            for x in shifts + axes):
        raise tr.unsupported(node, "np.roll with shifts or axes that are "
                             "not constant integers of the same count")
    v = operands.as_view(tr, e, node)
    for k, a in zip(shifts, axes):
        if not -len(shape) <= a < len(shape):
            raise tr.error(f"axis {a} is out of bounds for an array of "
                           f"dimension {len(shape)}", node)
        a %= len(shape)
        n = shape[a]
        k = k % n if n else 0
        out = tr.transient_view([Idx(x) for x in shape], e.dtype, node,
                                "roll")
        if k:
            tr.store(operands.window_view(out, a, 0, k),
                     ViewLeaf(operands.window_view(v, a, n - k, k)))
            tr.store(operands.window_view(out, a, k, n - k),
                     ViewLeaf(operands.window_view(v, a, 0, n - k)))
        else:
            tr.store(out, ViewLeaf(v))
        v = out
    return v


def join_arrays(tr: "Translator", name: str, parts: Value, axis: Value,
                node: ast.AST) -> Value:
    """np.concatenate / np.stack: a new array, each part copied into its
    window (stack: along a new axis)."""
    if not isinstance(parts, (tuple, list)) or not parts:
        raise tr.unsupported(node, f"np.{name} of anything but a list or "
                             "tuple of arrays")
    exprs = [tr.to_expr(p) for p in parts]
    if name == "stack":
        # Each part gains a new axis of extent 1 there (np.newaxis).
        rank = len(exprs[0].shape) + 1
        if not isinstance(axis, int) or not -rank <= axis < rank:
            raise tr.error(f"axis {axis} is out of bounds for the stacked "
                           f"array of dimension {rank}", node)
        axis %= rank
        items = [ast.Slice()] * axis + [ast.Constant(None)] + \
            [ast.Slice()] * (rank - 1 - axis)
        exprs = [ViewLeaf(tr.subscript(operands.as_view(tr, e, node),
                                       [ast.copy_location(i, node)
                                        for i in items], node))
                 for e in exprs]
    shapes = [operands.static_shape(tr, e, node, f"np.{name}") for e in exprs]
    rank = len(shapes[0])
    if not isinstance(axis, int) or not -rank <= axis < rank:
        raise tr.error(f"axis {axis} is out of bounds for arrays of "
                       f"dimension {rank}", node)
    axis %= rank
    for sh in shapes:
        if len(sh) != rank or any(a != b for k, (a, b) in
                                  enumerate(zip(sh, shapes[0]))
                                  if k != axis):
            raise tr.error(f"np.{name}: all the input array dimensions "
                           "except the joined axis must match", node)
    total = sum(sh[axis] for sh in shapes)
    out_shape = list(shapes[0])
    out_shape[axis] = total
    dtype = np.result_type(*[e.dtype for e in exprs])
    out = tr.transient_view([Idx(x) for x in out_shape], dtype, node, name)
    at = 0
    for e, sh in zip(exprs, shapes):
        tr.store(operands.window_view(out, axis, at, sh[axis]), e, cast=True)
        at += sh[axis]
    return out


def split(tr: "Translator", name: str, a: Value, sections: Value, axis: Value,
          node: ast.AST) -> Value:
    """np.split and friends: a list of views of `a` along the axis (as
    NumPy's), at the given indices (clipped as slices are) or into equal
    sections (np.split insists they divide the length; array_split gives
    the first length % n sections one more element)."""
    v = view_of(tr, a, node)
    if name == "hsplit":
        axis = 1 if v.ndim > 1 else 0
    elif name == "vsplit":
        axis = 0
    elif name == "dsplit":
        axis = 2
    least = {"hsplit": 1, "vsplit": 2, "dsplit": 3}.get(name, 1)
    if v.ndim < least:
        raise tr.error(f"{name} only works on arrays of {least} or more "
                       "dimensions", node)
    ax = normalized_axis(tr, axis, v.ndim, node)
    n = as_idx(v.shape[ax])
    if not n.is_const():
        raise tr.unsupported(node, f"np.{name} of a loop-dependent extent")
    n = n.const
    if isinstance(sections, (tuple, list)):
        cuts = [constant_int(tr, c, "split index", node) for c in sections]
        bounds = [0] + [min(max(c + n if c < 0 else c, 0), n) for c in cuts]
        bounds.append(n)
    else:
        k = constant_int(tr, sections, "number of sections", node)
        if k <= 0:
            raise tr.error("number sections must be larger than 0.", node)
        if name != "array_split" and n % k:
            raise tr.error("array split does not result in an equal "
                           "division", node)
        size, extra = divmod(n, k)
        bounds = [0]
        for i in range(k):
            bounds.append(bounds[-1] + size + (1 if i < extra else 0))
    # A later cut before an earlier one gives an empty piece, as a slice.
    return [operands.window_view(v, ax, lo, max(hi - lo, 0))
            for lo, hi in zip(bounds, bounds[1:])]


def stack_along(tr: "Translator", name: str, parts: Value,
                node: ast.AST) -> Value:
    exprs = [tr.to_expr(p) for p in parts]
    if not exprs:
        raise tr.error("need at least one array to concatenate", node)
    if name == "vstack":
        parts, axis = [atleast(tr, p, 2, node) for p in parts], 0
    elif name == "dstack":
        parts, axis = [atleast(tr, p, 3, node) for p in parts], 2
    elif name == "hstack":
        parts = [atleast(tr, p, 1, node) for p in parts]
        axis = 0 if all(len(e.shape) <= 1 for e in exprs) else 1
    else:  # column_stack: vectors become columns
        parts = [tr.subscript(operands.as_view(tr, e, node),
                              subscript_items(node, ["s", "n"]), node)
                 if len(e.shape) == 1 else atleast(tr, e, 2, node)
                 for e in exprs]
        axis = 1
    return join_arrays(tr, "concatenate", parts, axis, node)


def _pad_widths(tr, pad_width, ndim, node):
    def ints(x):
        if isinstance(x, (tuple, list)):
            return [ints(y) for y in x]
        return constant_int(tr, x, "pad width", node)

    widths = np.array(ints(pad_width), dtype=np.int64)
    try:
        widths = np.broadcast_to(widths, (ndim, 2))
    except ValueError:
        raise tr.error(f"np.pad: pad_width {pad_width!r} does not fit an "
                       f"array of dimension {ndim}", node)
    if (widths < 0).any():
        raise tr.error("index can't contain negative values", node)
    return [tuple(int(x) for x in w) for w in widths]


def pad(tr: "Translator", array: Value, pad_width: Value, mode: str,
        value: Value, node: ast.AST) -> Value:
    """np.pad with mode constant, edge, wrap, reflect or symmetric, axis
    by axis as NumPy pads: a new array whose middle is the input and whose
    borders are copies of its windows (or the constant)."""
    modes = ("constant", "edge", "wrap", "reflect", "symmetric")
    if mode not in modes:
        raise tr.unsupported(node, f"np.pad mode {mode!r}",
                             "supported modes: " + ", ".join(modes))
    if mode == "constant" and not isinstance(value, (int, float)):
        raise tr.unsupported(node, "np.pad constant_values other than one "
                             "number")
    e = tr.to_expr(array)
    shape = operands.static_shape(tr, e, node, "np.pad")
    widths = _pad_widths(tr, pad_width, len(shape), node)
    v = operands.as_view(tr, e, node)
    for ax, (before, after) in enumerate(widths):
        if not before and not after:
            continue
        n = shape[ax]
        limit = {"wrap": n, "symmetric": n, "reflect": n - 1,
                 "edge": n if n else 0}.get(mode)
        if limit is not None and max(before, after) > limit:
            raise tr.unsupported(node, f"np.pad mode {mode!r} wider than "
                                 "the array", f"at most {limit} elements "
                                 f"along axis {ax}")
        shape[ax] = n + before + after
        out = tr.transient_view([Idx(x) for x in shape], e.dtype, node,
                                "pad")
        tr.store(operands.window_view(out, ax, before, n), ViewLeaf(v))
        for start, width, at_end in ((0, before, False),
                                     (before + n, after, True)):
            if not width:
                continue
            dest = operands.window_view(out, ax, start, width)
            if mode == "constant":
                src = ConstLeaf(value, e.dtype)
            elif mode == "edge":
                src = ViewLeaf(operands.window_view(
                    v, ax, n - 1 if at_end else 0, 1))
            elif mode == "wrap":
                src = ViewLeaf(operands.window_view(v, ax, 0 if at_end else
                                          n - width, width))
            else:
                skip = 1 if mode == "reflect" else 0
                first = n - skip - width if at_end else skip
                src = ViewLeaf(reversed_view(
                    operands.window_view(v, ax, first, width), ax))
            tr.store(dest, src, cast=True)
        v = out
    return v


def _fresh(tr, out, node):
    """A reshape's result that is a new array in NumPy too (np.tile,
    np.repeat, np.kron): writes into it are fine."""
    tr.reshaped.discard(out.container)
    return out


def tile(tr: "Translator", a: Value, reps: Value, node: ast.AST) -> Value:
    """np.tile: the array broadcast into a (r0, n0, r1, n1, ...) array,
    then merged to (r0 n0, r1 n1, ...)."""
    e = tr.to_expr(a)
    reps = list(reps) if isinstance(reps, (tuple, list)) else [reps]
    reps = [constant_int(tr, r, "tile repetition", node) for r in reps]
    if any(r < 0 for r in reps):
        raise tr.error("negative dimensions are not allowed", node)
    shape = operands.static_shape(tr, e, node, "np.tile")
    rank = max(len(shape), len(reps))
    shape = [1] * (rank - len(shape)) + shape
    reps = [1] * (rank - len(reps)) + reps
    v = operands.as_view(tr, e, node)
    v = tr.subscript(v, subscript_items(node, ["n"] * (rank - v.ndim) +
                               ["s"] * v.ndim), node)
    spread = tr.subscript(v, subscript_items(node, ["n", "s"] * rank), node)
    big = []
    for r, n in zip(reps, shape):
        big += [r, n]
    tmp = tr.transient_view([Idx(x) for x in big], e.dtype, node, "tile")
    tr.store(tmp, ViewLeaf(spread))
    return _fresh(tr, reshape(tr, tmp, tuple(r * n for r, n in
                                                zip(reps, shape)), node),
                  node)


def repeat(tr: "Translator", a: Value, repeats: Value, axis: Value,
           node: ast.AST) -> Value:
    """np.repeat by a constant count: each element broadcast along a new
    axis after its own, then merged into it."""
    e = tr.to_expr(a)
    r = constant_int(tr, repeats, "repeat count (arrays of counts are not "
             "supported)", node)
    if r < 0:
        raise tr.error("negative dimensions are not allowed", node)
    if axis is None:
        e = tr.to_expr(reshape(tr, e, (-1,), node))
        axis = 0
    shape = operands.static_shape(tr, e, node, "np.repeat")
    ax = normalized_axis(tr, axis, len(shape), node)
    v = operands.as_view(tr, e, node)
    spread = tr.subscript(v, subscript_items(node, ["s"] * (ax + 1) + ["n"] +
                                    ["s"] * (len(shape) - ax - 1)), node)
    tmp = tr.transient_view([Idx(x) for x in shape[:ax + 1]] + [Idx(r)] +
                            [Idx(x) for x in shape[ax + 1:]], e.dtype, node,
                            "repeat")
    tr.store(tmp, ViewLeaf(spread))
    new = list(shape)
    new[ax] *= r
    return _fresh(tr, reshape(tr, tmp, tuple(new), node), node)


def meshgrid(tr: "Translator", xs: Value, indexing: Value,
             node: ast.AST) -> Value:
    if indexing not in ("xy", "ij"):
        raise tr.error("Valid values for `indexing` are 'xy' and 'ij'.",
                       node)
    vs = [view_of(tr, reshape(tr, x, (-1,), node)
                if len(tr.to_expr(x).shape) != 1 else x, node) for x in xs]
    shape = [v.shape[0] for v in vs]
    rank = len(vs)
    if indexing == "xy" and rank >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    outs = []
    for i, v in enumerate(vs):
        at = i
        if indexing == "xy" and rank >= 2 and i < 2:
            at = 1 - i
        spread = tr.subscript(v, subscript_items(node, ["s" if d == at else "n"
                                               for d in range(rank)]), node)
        out = tr.transient_view(shape, v.dtype, node, "meshgrid")
        tr.store(out, ViewLeaf(spread))
        outs.append(out)
    return tuple(outs)


@numpy_function("column_stack", "dstack", "hstack", "vstack")
def np_vstack(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    if len(args) != 1 or not isinstance(args[0], (tuple, list)):
        raise tr.unsupported(node, f"np.{name} of anything but a list "
                             "or tuple of arrays")
    return stack_along(tr, name, args[0], node)


@numpy_function("pad")
def np_pad(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("pad_width", "mode", "constant_values")
    return pad(tr, arg(0, "array"), arg(1, "pad_width"),
               arg(2, "mode", "constant"),
               kwargs.get("constant_values", 0), node)


@numpy_function("tile")
def np_tile(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("reps")
    return tile(tr, arg(0, "A"), arg(1, "reps"), node)


@numpy_function("repeat", method=True)
def np_repeat(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("repeats", "axis")
    return repeat(tr, arg(0, "a"), arg(1, "repeats"), arg(2, "axis"),
                  node)


@numpy_function("meshgrid")
def np_meshgrid(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("indexing")
    return meshgrid(tr, args, kwargs.get("indexing", "xy"), node)


@numpy_function("array_split", "dsplit", "hsplit", "split", "vsplit")
def np_split(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis") if name in ("split", "array_split") else only()
    return split(tr, name, arg(0, "ary"),
                 arg(1, "indices_or_sections"), arg(2, "axis", 0), node)


@numpy_function("roll", positional=("a", "shift", "axis"))
def np_roll(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("shift", "axis"))
    return _roll(tr, arg(0, "a"), arg(1, "shift"), arg(2, "axis"), node)


@numpy_function("concatenate", "stack", positional=("arrays", "axis"))
def np_concatenate(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("axis",))
    return join_arrays(tr, name, args[0], arg(1, "axis", 0), node)
