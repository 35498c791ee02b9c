"""NumPy functions that rearrange arrays: views (flip, squeeze,
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

import numpy as np

from . import numpy_calls as nc
from .astutil import fix_locations
from .values import ConstLeaf, Idx, View, ViewLeaf, as_idx

FUNCTIONS = {"flip", "flipud", "fliplr", "squeeze", "expand_dims",
             "swapaxes", "moveaxis", "atleast_1d", "atleast_2d",
             "atleast_3d", "vstack", "hstack", "column_stack", "dstack",
             "pad", "tile", "repeat", "meshgrid", "triu", "tril", "diff",
             "split", "array_split", "hsplit", "vsplit", "dsplit"}

# Array methods with the signature of the function of the same name
# (the array first).
METHODS = {"squeeze", "swapaxes", "repeat"}


def call(tr, name, args, kwargs, node):
    arg = nc.Arguments(tr, args, kwargs, node)
    only = arg.only

    if name in ("flip", "flipud", "fliplr"):
        only("axis")
        axis = {"flipud": 0, "fliplr": 1}.get(name, arg(1, "axis"))
        return flip(tr, _view(tr, arg(0, "m"), node), axis, node)
    if name == "squeeze":
        only("axis")
        return squeeze(tr, _view(tr, arg(0, "a"), node), arg(1, "axis"),
                       node)
    if name == "expand_dims":
        only("axis")
        return expand_dims(tr, _view(tr, arg(0, "a"), node),
                           arg(1, "axis"), node)
    if name == "swapaxes":
        only()
        v = _view(tr, args[0], node)
        a, b = (_axis(tr, x, v.ndim, node) for x in args[1:3])
        perm = list(range(v.ndim))
        perm[a], perm[b] = perm[b], perm[a]
        return v.transpose(perm)
    if name == "moveaxis":
        only("source", "destination")
        return moveaxis(tr, _view(tr, arg(0, "a"), node), arg(1, "source"),
                        arg(2, "destination"), node)
    if name.startswith("atleast_"):
        only()
        rank = int(name[len("atleast_")])
        out = tuple(atleast(tr, a, rank, node) for a in args)
        return out[0] if len(out) == 1 else out
    if name in ("vstack", "hstack", "column_stack", "dstack"):
        only()
        if len(args) != 1 or not isinstance(args[0], (tuple, list)):
            raise tr.unsupported(node, f"np.{name} of anything but a list "
                                 "or tuple of arrays")
        return stack_along(tr, name, args[0], node)
    if name == "pad":
        only("pad_width", "mode", "constant_values")
        return pad(tr, arg(0, "array"), arg(1, "pad_width"),
                   arg(2, "mode", "constant"),
                   kwargs.get("constant_values", 0), node)
    if name == "tile":
        only("reps")
        return tile(tr, arg(0, "A"), arg(1, "reps"), node)
    if name == "repeat":
        only("repeats", "axis")
        return repeat(tr, arg(0, "a"), arg(1, "repeats"), arg(2, "axis"),
                      node)
    if name == "meshgrid":
        only("indexing")
        return meshgrid(tr, args, kwargs.get("indexing", "xy"), node)
    if name in ("triu", "tril"):
        only("k")
        return triangle(tr, name, arg(0, "m"), arg(1, "k", 0), node)
    if name in ("split", "array_split", "hsplit", "vsplit", "dsplit"):
        only("axis") if name in ("split", "array_split") else only()
        return split(tr, name, arg(0, "ary"),
                     arg(1, "indices_or_sections"), arg(2, "axis", 0), node)
    if name == "diff":
        only("n", "axis")
        return diff(tr, arg(0, "a"), arg(1, "n", 1), arg(2, "axis", -1),
                    node)
    raise tr.unsupported(node, f"np.{name}")


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

def _view(tr, value, node):
    return nc._as_view(tr, tr.to_expr(value), node)


def _int(tr, v, what, node):
    if isinstance(v, Idx) and v.is_const():
        v = v.const
    if not isinstance(v, int) or isinstance(v, bool):
        raise tr.unsupported(node, f"{what} that is not a constant integer")
    return v


def _axis(tr, axis, ndim, node):
    axis = _int(tr, axis, "axis", node)
    if not -ndim <= axis < ndim:
        raise tr.error(f"axis {axis} is out of bounds for an array of "
                       f"dimension {ndim}", node)
    return axis % ndim


def _axes_tuple(tr, axis, ndim, node):
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = [_axis(tr, a, ndim, node) for a in axes]
    if len(set(out)) != len(out):
        raise tr.error("repeated axis", node)
    return out


def _items(node, kinds):
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


def _reversed(v, axis):
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


# ----------------------------------------------------------------------------
# Views
# ----------------------------------------------------------------------------

def flip(tr, v, axis, node):
    axes = range(v.ndim) if axis is None else _axes_tuple(tr, axis, v.ndim,
                                                           node)
    for a in axes:
        v = _reversed(v, a)
    return v


def squeeze(tr, v, axis, node):
    if axis is None:
        axes = [d for d, e in enumerate(v.shape) if as_idx(e) == Idx(1)]
    else:
        axes = _axes_tuple(tr, axis, v.ndim, node)
        for a in axes:
            if as_idx(v.shape[a]) != Idx(1):
                raise tr.error("cannot select an axis to squeeze out which "
                               "has size not equal to one", node)
    return tr.subscript(v, _items(node, [0 if d in axes else "s"
                                         for d in range(v.ndim)]), node)


def expand_dims(tr, v, axis, node):
    rank = v.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    axes = _axes_tuple(tr, axis, rank, node)
    return tr.subscript(v, _items(node, ["n" if d in axes else "s"
                                         for d in range(rank)]), node)


def moveaxis(tr, v, source, destination, node):
    src = _axes_tuple(tr, source, v.ndim, node)
    dst = _axes_tuple(tr, destination, v.ndim, node)
    if len(src) != len(dst):
        raise tr.error("`source` and `destination` arguments must have the "
                       "same number of elements", node)
    order = [d for d in range(v.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return v.transpose(order)


def atleast(tr, value, rank, node):
    e = tr.to_expr(value)
    n = len(e.shape)
    if n >= rank:
        return value
    if n == 0:
        out = tr.transient_view([Idx(1)] * rank, e.dtype, node, "atleast")
        tr.store(out, e)
        return out
    v = nc._as_view(tr, e, node)
    if rank == 2:  # (N,) -> (1, N)
        kinds = ["n", "s"]
    elif n == 1:  # (N,) -> (1, N, 1)
        kinds = ["n", "s", "n"]
    else:  # (M, N) -> (M, N, 1)
        kinds = ["s", "s", "n"]
    return tr.subscript(v, _items(node, kinds), node)


def triangle(tr, name, m, k, node):
    """np.triu / np.tril: the elements on one side of diagonal k kept,
    the others 0 (the last two axes; leading ones are a stack)."""
    e = tr.to_expr(m)
    if len(e.shape) < 2:
        raise tr.unsupported(node, f"np.{name} of an array with fewer than "
                             "two dimensions")
    k = _int(tr, k, "diagonal offset k", node)
    rows, cols = (nc._static_shape(tr, e, node, f"np.{name}")[-2:])
    r = tr.subscript(nc._ramp(tr, "arange", [rows], {}, node),
                     _items(node, ["s", "n"]), node)
    c = tr.subscript(nc._ramp(tr, "arange", [cols], {}, node),
                     _items(node, ["n", "s"]), node)
    offset = tr.binop("sub", c, r)
    keep = tr.binop("ge" if name == "triu" else "le", offset, k)
    return nc.where(tr, keep, e, ConstLeaf(0, e.dtype), node)


def diff(tr, a, n, axis, node):
    n = _int(tr, n, "n", node)
    if n < 0:
        raise tr.error(f"order must be non-negative but got {n}", node)
    e = tr.to_expr(a)
    if e.dtype == np.bool_:
        raise tr.unsupported(node, "np.diff of a boolean array")
    ax = _axis(tr, axis, len(e.shape), node)
    out = a
    for _ in range(n):
        v = nc._as_view(tr, tr.to_expr(out), node)
        ext = as_idx(v.shape[ax]) - 1
        if ext.is_const() and ext.const < 0:
            ext = Idx(0)
        out = tr.binop("sub", nc._window(v, ax, 1, ext),
                       nc._window(v, ax, 0, ext))
    return out


def split(tr, name, a, sections, axis, node):
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
    ax = _axis(tr, axis, v.ndim, node)
    n = as_idx(v.shape[ax])
    if not n.is_const():
        raise tr.unsupported(node, f"np.{name} of a loop-dependent extent")
    n = n.const
    if isinstance(sections, (tuple, list)):
        cuts = [_int(tr, c, "split index", node) for c in sections]
        bounds = [0] + [min(max(c + n if c < 0 else c, 0), n) for c in cuts]
        bounds.append(n)
    else:
        k = _int(tr, sections, "number of sections", node)
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
    return [nc._window(v, ax, lo, max(hi - lo, 0))
            for lo, hi in zip(bounds, bounds[1:])]


# ----------------------------------------------------------------------------
# New arrays
# ----------------------------------------------------------------------------

def stack_along(tr, name, parts, node):
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
        parts = [tr.subscript(nc._as_view(tr, e, node),
                              _items(node, ["s", "n"]), node)
                 if len(e.shape) == 1 else atleast(tr, e, 2, node)
                 for e in exprs]
        axis = 1
    return nc._join(tr, "concatenate", parts, axis, node)


def _pad_widths(tr, pad_width, ndim, node):
    def ints(x):
        if isinstance(x, (tuple, list)):
            return [ints(y) for y in x]
        return _int(tr, x, "pad width", node)

    widths = np.array(ints(pad_width), dtype=np.int64)
    try:
        widths = np.broadcast_to(widths, (ndim, 2))
    except ValueError:
        raise tr.error(f"np.pad: pad_width {pad_width!r} does not fit an "
                       f"array of dimension {ndim}", node)
    if (widths < 0).any():
        raise tr.error("index can't contain negative values", node)
    return [tuple(int(x) for x in w) for w in widths]


def pad(tr, array, pad_width, mode, value, node):
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
    shape = nc._static_shape(tr, e, node, "np.pad")
    widths = _pad_widths(tr, pad_width, len(shape), node)
    v = nc._as_view(tr, e, node)
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
        tr.store(nc._window(out, ax, before, n), ViewLeaf(v))
        for start, width, at_end in ((0, before, False),
                                     (before + n, after, True)):
            if not width:
                continue
            dest = nc._window(out, ax, start, width)
            if mode == "constant":
                src = ConstLeaf(value, e.dtype)
            elif mode == "edge":
                src = ViewLeaf(nc._window(v, ax, n - 1 if at_end else 0,
                                          1))
            elif mode == "wrap":
                src = ViewLeaf(nc._window(v, ax, 0 if at_end else
                                          n - width, width))
            else:
                skip = 1 if mode == "reflect" else 0
                first = n - skip - width if at_end else skip
                src = ViewLeaf(_reversed(nc._window(v, ax, first, width),
                                         ax))
            tr.store(dest, src, cast=True)
        v = out
    return v


def tile(tr, a, reps, node):
    """np.tile: the array broadcast into a (r0, n0, r1, n1, ...) array,
    then merged to (r0 n0, r1 n1, ...)."""
    e = tr.to_expr(a)
    reps = list(reps) if isinstance(reps, (tuple, list)) else [reps]
    reps = [_int(tr, r, "tile repetition", node) for r in reps]
    if any(r < 0 for r in reps):
        raise tr.error("negative dimensions are not allowed", node)
    shape = nc._static_shape(tr, e, node, "np.tile")
    rank = max(len(shape), len(reps))
    shape = [1] * (rank - len(shape)) + shape
    reps = [1] * (rank - len(reps)) + reps
    v = nc._as_view(tr, e, node)
    v = tr.subscript(v, _items(node, ["n"] * (rank - v.ndim) +
                               ["s"] * v.ndim), node)
    spread = tr.subscript(v, _items(node, ["n", "s"] * rank), node)
    big = []
    for r, n in zip(reps, shape):
        big += [r, n]
    tmp = tr.transient_view([Idx(x) for x in big], e.dtype, node, "tile")
    tr.store(tmp, ViewLeaf(spread))
    return _fresh(tr, nc.reshape(tr, tmp, tuple(r * n for r, n in
                                                zip(reps, shape)), node),
                  node)


def repeat(tr, a, repeats, axis, node):
    """np.repeat by a constant count: each element broadcast along a new
    axis after its own, then merged into it."""
    e = tr.to_expr(a)
    r = _int(tr, repeats, "repeat count (arrays of counts are not "
             "supported)", node)
    if r < 0:
        raise tr.error("negative dimensions are not allowed", node)
    if axis is None:
        e = tr.to_expr(nc.reshape(tr, e, (-1,), node))
        axis = 0
    shape = nc._static_shape(tr, e, node, "np.repeat")
    ax = _axis(tr, axis, len(shape), node)
    v = nc._as_view(tr, e, node)
    spread = tr.subscript(v, _items(node, ["s"] * (ax + 1) + ["n"] +
                                    ["s"] * (len(shape) - ax - 1)), node)
    tmp = tr.transient_view([Idx(x) for x in shape[:ax + 1]] + [Idx(r)] +
                            [Idx(x) for x in shape[ax + 1:]], e.dtype, node,
                            "repeat")
    tr.store(tmp, ViewLeaf(spread))
    new = list(shape)
    new[ax] *= r
    return _fresh(tr, nc.reshape(tr, tmp, tuple(new), node), node)


def meshgrid(tr, xs, indexing, node):
    if indexing not in ("xy", "ij"):
        raise tr.error("Valid values for `indexing` are 'xy' and 'ij'.",
                       node)
    vs = [_view(tr, nc.reshape(tr, x, (-1,), node)
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
        spread = tr.subscript(v, _items(node, ["s" if d == at else "n"
                                               for d in range(rank)]), node)
        out = tr.transient_view(shape, v.dtype, node, "meshgrid")
        tr.store(out, ViewLeaf(spread))
        outs.append(out)
    return tuple(outs)

