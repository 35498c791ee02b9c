"""Array manipulation: transpose, reshape/ravel, concatenate/stack, take,
roll, diag/diagonal/trace, fill_diagonal, and the rearrangements below.

views (flip, squeeze,
expand_dims, swapaxes, moveaxis, atleast_*d), stacking (vstack, hstack,
column_stack, dstack), padding, tiling and repeating, meshgrid, triangles
(triu, tril) and differences (diff).

Each is built from views, copies into windows and element-wise trees the
frontend already has, so the autodiff differentiates them through the
rules those have: a view's gradient lands in the elements it shows, a
copy's flows back to its source. Views stay views (writes through
np.flip or np.swapaxes reach the original, as in NumPy); functions NumPy
documents as returning new arrays return new arrays.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from .. import ir
from . import creation, operands, reductions, ufuncs
from .registry import Arguments, array_method, no_kwargs, numpy_function
from ..desugar.astutil import fix_locations
from ..semantics.values import (ConstLeaf, Expr, Idx, Value, View, ViewLeaf,
                                as_idx, same_extent)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def transpose(tr: "Translator", value: Value, axes: Value,
              node: ast.AST) -> Value:
    if isinstance(value, View):
        v = value
    else:
        v = tr.materialize(value, node)
    if axes is not None:
        axes = tuple(axes) if isinstance(axes, (tuple, list)) else axes
        if not isinstance(axes, tuple) or not all(isinstance(a, int)
                                                  for a in axes):
            raise tr.unsupported(node, "non-constant transpose axes")
        n = v.ndim
        if any(not -n <= a < n for a in axes):
            raise tr.error(f"axis out of bounds for an array of dimension "
                           f"{n} in transpose axes {axes}", node)
        axes = tuple(a % n if n else a for a in axes)
        if sorted(axes) != list(range(n)):
            raise tr.error(f"transpose axes {axes} are not a permutation of "
                           f"the {n} axes", node)
    return v.transpose(axes)


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


def collapse_axes(v, p, q):
    """View v with axis q following axis p (p < q, equal extents): the
    elements whose coordinates p and q are equal, axis q removed."""
    def renumber(d):
        if d is None:
            return None
        if d == q:
            return p
        return d - 1 if d > q else d
    base = [(o, s, renumber(d)) for o, s, d in v.base]
    shape = [e for d, e in enumerate(v.shape) if d != q]
    return View(v.container, base, shape, v.readonly)


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


def reshape(tr: "Translator", value: Value, newshape: Value,
            node: ast.AST) -> Value:
    """A new array holding `value`'s elements in row-major order, shaped
    `newshape` (one -1 inferred). Two affine copies: into a flat buffer
    over the old shape, out of it over the new one. NumPy returns a view
    that writes reach the original through; here the result is a copy,
    and writing into it is rejected (Translator.reshaped)."""
    e = tr.to_expr(value)
    old = operands.static_shape(tr, e, node, "reshape")
    if isinstance(newshape, (int, Idx)):
        newshape = (newshape,)
    new = []
    for x in newshape:
        if isinstance(x, Idx) and x.is_const():
            x = x.const
        if not isinstance(x, int) or isinstance(x, bool):
            raise tr.unsupported(node, "reshape to a shape computed at run "
                                 "time")
        new.append(x)
    size = int(np.prod(old))
    if new.count(-1) > 1:
        raise tr.error("can only specify one unknown dimension", node)
    if -1 in new:
        known = int(np.prod([x for x in new if x != -1]))
        if known == 0 or size % known:
            raise tr.error(f"cannot reshape array of size {size} into shape "
                           f"{tuple(new)}", node)
        new[new.index(-1)] = size // known
    if int(np.prod(new)) != size:
        raise tr.error(f"cannot reshape array of size {size} into shape "
                       f"{tuple(new)}", node)

    def linear(coords, shape):
        idx, stride = Idx(0), 1
        for c, n in zip(reversed(coords), reversed(shape)):
            idx = idx + c.scale(stride)
            stride *= n
        return idx

    flat = tr.transient_view([Idx(size)], e.dtype, node, "flat")
    if len(old) <= 1:
        # (A 0-d value broadcasts into its one element.)
        tr.store(flat, e)
    else:
        with tr.open_map([Idx(n) for n in old],
                         tr.schedule_for(old, None)) as coords:
            val = tr.emit_scalar(e, coords, len(old), e.dtype)
            tr.emit_store(val, flat, [linear(coords, old)])
    if len(new) == 1:
        out = flat
    elif not new:
        out = tr.transient_view([], e.dtype, node, "reshaped")
        tr.store(out, tr.to_expr(tr.subscript(
            flat, [ast.copy_location(ast.Constant(0), node)], node)))
    else:
        out = tr.transient_view([Idx(n) for n in new], e.dtype, node,
                                "reshaped")
        with tr.open_map([Idx(n) for n in new],
                         tr.schedule_for(new, None)) as coords:
            name = tr.em.fresh("l")
            c = flat.container
            tr.em.line(ir.load(name, c.ssa, [linear(coords, new).render()],
                               c.mlir_type))
            tr.emit_store(name, out, coords)
    tr.reshaped.add(out.container)
    # The array it copies from, where NumPy's reshape is a view of it (of
    # a computed value it is a new array): a later write into that array
    # while a name holds this copy is rejected (Translator.store).
    if isinstance(e, ViewLeaf):
        tr.reshape_sources[out.container] = {e.view.container}
    return out


def diagonal_view(tr: "Translator", v: Value, node: ast.AST,
                  k: Value = 0) -> Value:
    """Diagonal k of a 2-d view (above the main one for k > 0, below for
    k < 0), as a 1-d view of the same elements (both container indices
    follow one coordinate)."""
    a, b = (as_idx(e) for e in v.shape)
    if not (a.is_const() and b.is_const()):
        raise tr.unsupported(node, "diagonal of a loop-dependent shape")
    shift = {0: max(-k, 0), 1: max(k, 0)}  # first row, first column
    base = [(o, s, None) if d is None else
            (o + Idx(shift[d]).scale(s) if shift[d] else o, s, 0)
            for o, s, d in v.base]
    n = max(0, min(a.const - shift[0], b.const - shift[1]))
    return View(v.container, base, [Idx(n)])


def _view(tr, value, node):
    return operands.as_view(tr, tr.to_expr(value), node)


def constant_int(tr: "Translator", v: Value, what: str,
                 node: ast.AST) -> Value:
    if isinstance(v, Idx) and v.is_const():
        v = v.const
    if not isinstance(v, int) or isinstance(v, bool):
        raise tr.unsupported(node, f"{what} that is not a constant integer")
    return v


def normalized_axis(tr: "Translator", axis: Value, ndim: Value,
                    node: ast.AST) -> Value:
    axis = constant_int(tr, axis, "axis", node)
    if not -ndim <= axis < ndim:
        raise tr.error(f"axis {axis} is out of bounds for an array of "
                       f"dimension {ndim}", node)
    return axis % ndim


def _axes_tuple(tr, axis, ndim, node):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = [normalized_axis(tr, a, ndim, node) for a in axes]
    if len(set(out)) != len(out):
        raise tr.error("repeated axis", node)
    return out


def subscript_items(node, kinds):
    """AST subscript items: ':' for 's', 'None' for 'n', '::-1' for 'r',
    an integer for an int."""
    out = []
    for k in kinds:
        if k == "s":
            item = ast.Slice()
        elif k == "n":
            item = ast.Constant(None)
        elif k == "r":
            item = ast.Slice(step=ast.Constant(-1))
        else:
            item = ast.Constant(k)
        out.append(fix_locations(ast.copy_location(item, node)))
    return out


def reversed_view(v, axis):
    """`v` read backwards along `axis` (a view, like v[::-1])."""
    n = as_idx(v.shape[axis])
    base = [(o + (n - 1).scale(st), -st, d) if d == axis else (o, st, d)
            for o, st, d in v.base]
    return View(v.container, base, list(v.shape), v.readonly)


def _fresh(tr, out, node):
    """A reshape's result that is a new array in NumPy too (np.tile,
    np.repeat, np.kron): writes into it are fine."""
    tr.reshaped.discard(out.container)
    return out


def flip(tr: "Translator", v: Value, axis: Value, node: ast.AST) -> Value:
    axes = range(v.ndim) if axis is None else _axes_tuple(tr, axis, v.ndim,
                                                           node)
    for a in axes:
        v = reversed_view(v, a)
    return v


def squeeze(tr: "Translator", v: Value, axis: Value, node: ast.AST) -> Value:
    if axis is None:
        axes = [d for d, e in enumerate(v.shape) if as_idx(e) == Idx(1)]
    else:
        axes = _axes_tuple(tr, axis, v.ndim, node)
        for a in axes:
            if as_idx(v.shape[a]) != Idx(1):
                raise tr.error("cannot select an axis to squeeze out which "
                               "has size not equal to one", node)
    return tr.subscript(v, subscript_items(node, [0 if d in axes else "s"
                                         for d in range(v.ndim)]), node)


def expand_dims(tr: "Translator", v: Value, axis: Value,
                node: ast.AST) -> Value:
    rank = v.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    axes = _axes_tuple(tr, axis, rank, node)
    return tr.subscript(v, subscript_items(node, ["n" if d in axes else "s"
                                         for d in range(rank)]), node)


def moveaxis(tr: "Translator", v: Value, source: Value, destination: Value,
             node: ast.AST) -> Value:
    src = _axes_tuple(tr, source, v.ndim, node)
    dst = _axes_tuple(tr, destination, v.ndim, node)
    if len(src) != len(dst):
        raise tr.error("`source` and `destination` arguments must have the "
                       "same number of elements", node)
    order = [d for d in range(v.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return v.transpose(order)


def atleast(tr: "Translator", value: Value, rank: Value,
            node: ast.AST) -> Value:
    e = tr.to_expr(value)
    n = len(e.shape)
    if n >= rank:
        return value
    if n == 0:
        out = tr.transient_view([Idx(1)] * rank, e.dtype, node, "atleast")
        tr.store(out, e)
        return out
    v = operands.as_view(tr, e, node)
    if rank == 2:  # (N,) -> (1, N)
        kinds = ["n", "s"]
    elif n == 1:  # (N,) -> (1, N, 1)
        kinds = ["n", "s", "n"]
    else:  # (M, N) -> (M, N, 1)
        kinds = ["s", "s", "n"]
    return tr.subscript(v, subscript_items(node, kinds), node)


def triangle(tr: "Translator", name: str, m: Value, k: Value,
             node: ast.AST) -> Value:
    """np.triu / np.tril: the elements on one side of diagonal k kept,
    the others 0 (the last two axes; leading ones are a stack)."""
    e = tr.to_expr(m)
    if len(e.shape) < 2:
        raise tr.unsupported(node, f"np.{name} of an array with fewer than "
                             "two dimensions")
    k = constant_int(tr, k, "diagonal offset k", node)
    rows, cols = (operands.static_shape(tr, e, node, f"np.{name}")[-2:])
    r = tr.subscript(creation.ramp(tr, "arange", [rows], {}, node),
                     subscript_items(node, ["s", "n"]), node)
    c = tr.subscript(creation.ramp(tr, "arange", [cols], {}, node),
                     subscript_items(node, ["n", "s"]), node)
    offset = tr.binop("sub", c, r)
    keep = tr.binop("ge" if name == "triu" else "le", offset, k)
    return ufuncs.where(tr, keep, e, ConstLeaf(0, e.dtype), node)


def diff(tr: "Translator", a: Value, n: Value, axis: Value,
         node: ast.AST) -> Value:
    n = constant_int(tr, n, "n", node)
    if n < 0:
        raise tr.error(f"order must be non-negative but got {n}", node)
    e = tr.to_expr(a)
    if e.dtype == np.bool_:
        raise tr.unsupported(node, "np.diff of a boolean array")
    ax = normalized_axis(tr, axis, len(e.shape), node)
    out = a
    for _ in range(n):
        v = operands.as_view(tr, tr.to_expr(out), node)
        ext = as_idx(v.shape[ax]) - 1
        if ext.is_const() and ext.const < 0:
            ext = Idx(0)
        out = tr.binop("sub", operands.window_view(v, ax, 1, ext),
                       operands.window_view(v, ax, 0, ext))
    return out


def split(tr: "Translator", name: str, a: Value, sections: Value, axis: Value,
          node: ast.AST) -> Value:
    """np.split and friends: a list of views of `a` along the axis (as
    NumPy's), at the given indices (clipped as slices are) or into equal
    sections (np.split insists they divide the length; array_split gives
    the first length % n sections one more element)."""
    v = _view(tr, a, node)
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
    vs = [_view(tr, reshape(tr, x, (-1,), node)
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


@numpy_function("flip", "fliplr", "flipud")
def np_flip(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    axis = {"flipud": 0, "fliplr": 1}.get(name, arg(1, "axis"))
    return flip(tr, _view(tr, arg(0, "m"), node), axis, node)


@numpy_function("squeeze", method=True)
def np_squeeze(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    return squeeze(tr, _view(tr, arg(0, "a"), node), arg(1, "axis"),
                   node)


@numpy_function("expand_dims")
def np_expand_dims(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    return expand_dims(tr, _view(tr, arg(0, "a"), node),
                       arg(1, "axis"), node)


@numpy_function("swapaxes", method=True)
def np_swapaxes(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    v = _view(tr, args[0], node)
    a, b = (normalized_axis(tr, x, v.ndim, node) for x in args[1:3])
    perm = list(range(v.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return v.transpose(perm)


@numpy_function("moveaxis")
def np_moveaxis(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("source", "destination")
    return moveaxis(tr, _view(tr, arg(0, "a"), node), arg(1, "source"),
                    arg(2, "destination"), node)


@numpy_function("atleast_1d", "atleast_2d", "atleast_3d")
def np_atleast_1d(tr: "Translator", name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    rank = int(name[len("atleast_")])
    out = tuple(atleast(tr, a, rank, node) for a in args)
    return out[0] if len(out) == 1 else out


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


@numpy_function("tril", "triu")
def np_triu(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("k")
    return triangle(tr, name, arg(0, "m"), arg(1, "k", 0), node)


@numpy_function("array_split", "dsplit", "hsplit", "split", "vsplit")
def np_split(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis") if name in ("split", "array_split") else only()
    return split(tr, name, arg(0, "ary"),
                 arg(1, "indices_or_sections"), arg(2, "axis", 0), node)


@numpy_function("diff")
def np_diff(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("n", "axis")
    return diff(tr, arg(0, "a"), arg(1, "n", 1), arg(2, "axis", -1),
                node)


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
        if not n.is_const():
            raise tr.unsupported(node, "np.diag of a loop-dependent "
                                 "length")
        n = n.const + abs(k)
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


@numpy_function("reshape", positional=("a", "newshape"))
def np_reshape(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node)
    return reshape(tr, args[0], arg(1, "newshape"), node)


@numpy_function("ravel", positional=("a",))
def np_ravel(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    return reshape(tr, args[0], (-1,), node)


@numpy_function("transpose")
def np_transpose(tr: "Translator", name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node, ("axes",))
    axes = kwargs.get("axes", args[1] if len(args) > 1 else None)
    return transpose(tr, args[0], axes, node)


@numpy_function("fill_diagonal")
def np_fill_diagonal(tr: "Translator", name: str, args: List[Value],
                     kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return _fill_diagonal(tr, args, kwargs, node)


@numpy_function("take", method=True)
def np_take(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node, ("axis",))
    if len(args) not in (2, 3):
        raise tr.error("np.take takes an array, indices and an axis",
                       node)
    axis = kwargs.get("axis", args[2] if len(args) > 2 else None)
    a = operands.as_view(tr, tr.to_expr(args[0]), node)
    if axis is None:
        if a.ndim != 1:
            raise tr.unsupported(node, "np.take without axis on a "
                                 "multi-dimensional array",
                                 "pass axis= (or ravel the array)")
        axis = 0
    if not isinstance(axis, int):
        raise tr.unsupported(node, "non-constant axis")
    if not -a.ndim <= axis < a.ndim:
        raise tr.error(f"axis {axis} is out of bounds for an array of "
                       f"dimension {a.ndim}", node)
    axis %= a.ndim
    idx = args[1]
    if not (isinstance(idx, (View, Expr)) and len(idx.shape) > 0):
        slices = (ast.Slice(),) * axis
        items = [ast.copy_location(x, node) for x in slices]
        item = ast.copy_location(ast.Name("__take"), node)
        return tr.subscript(a, items + [item], node,
                            values={id(item): idx})
    items = [ast.copy_location(ast.Slice(), node) for _ in range(axis)]
    item = ast.copy_location(ast.Name("__take"), node)
    fancy = tr.fancy_subscript(a, items + [item], {id(item): idx},
                               [axis], node)
    return tr.gather(fancy, node)


@array_method("reshape")
def reshape_method(tr: "Translator", obj: Value, name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    shape = args[0] if len(args) == 1 else tuple(args)
    return reshape(tr, obj, shape, node)


@array_method("ravel", "flatten")
def ravel_method(tr: "Translator", obj: Value, name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if args:
        raise tr.unsupported(node, f".{name}() with an order",
                             "only the C order is supported")
    out = reshape(tr, obj, (-1,), node)
    if name == "flatten":
        # A copy in NumPy too: its own array, written freely.
        tr.reshaped.discard(out.container)
        tr.reshape_sources.pop(out.container, None)
    return out


@array_method("transpose")
def transpose_method(tr: "Translator", obj: Value, name: str,
                     args: List[Value], kwargs: Dict[str, Value],
                     node: ast.AST) -> Value:
    return transpose(tr, obj, args if args else None, node)


@array_method("item")
def item_method(tr: "Translator", obj: Value, name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """a.item(), a.item(k) (flat index), a.item(i, j): one element as a
    scalar, read as `a[i, j]` is (a value, not a view of `a`)."""
    no_kwargs(tr, kwargs, node)
    a = tr.to_expr(obj)
    if len(args) == 1 and isinstance(args[0], tuple):
        args = list(args[0])
    if not args:
        count = 1
        for e in a.shape:
            e = as_idx(e)
            count = count * e.const if e.is_const() else None
            if count is None:
                break
        if count is None:
            raise tr.unsupported(node, ".item() of an array whose size is "
                                 "only known at run time",
                                 "index it: a.item(0) or a[0, 0]")
        if count != 1:
            raise tr.error("can only convert an array of size 1 to a "
                           "Python scalar", node)
        args = [0] * len(a.shape)
    if len(args) == 1 and len(a.shape) != 1:
        obj = reshape(tr, obj, (-1,), node)
    elif len(args) != len(a.shape):
        raise tr.error("incorrect number of indices for array", node)
    for v in args:
        if isinstance(v, (bool, float)) or (
                isinstance(v, (View, Expr)) and (
                    v.shape or not np.issubdtype(tr.to_expr(v).dtype,
                                                 np.integer))):
            raise tr.error(".item() takes integer indices", node)
    items = [ast.copy_location(ast.Name(f"__item{k}"), node)
             for k in range(len(args))]
    return tr.subscript(operands.as_view(tr, tr.to_expr(obj), node)
                        if not isinstance(obj, View) else obj, items, node,
                        values={id(it): v for it, v in zip(items, args)})
