"""Array manipulation that changes an array's shape or the order of its
axes: transpose, swapaxes, moveaxis, flip, squeeze, expand_dims and
atleast_*d (views of the array), reshape/ravel/flatten (copies), np.take
and .item(), and np.diff; with the helpers the other numpy/ modules share
(constant_int, normalized_axis, subscript_items, reversed_view, view_of,
collapse_axes).

Joining, splitting, tiling, padding and rolling are in joining.py;
diagonals and triangles (diag, trace, fill_diagonal, triu) in
diagonals.py.

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
from . import operands
from .registry import Arguments, array_method, no_kwargs, numpy_function
from ..desugar.astutil import fix_locations
from ..semantics.values import Expr, Idx, Value, View, ViewLeaf, as_idx

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


def view_of(tr, value, node):
    """`value` as a view: itself if it is one, else materialized."""
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


@numpy_function("flip", "fliplr", "flipud")
def np_flip(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    axis = {"flipud": 0, "fliplr": 1}.get(name, arg(1, "axis"))
    return flip(tr, view_of(tr, arg(0, "m"), node), axis, node)


@numpy_function("squeeze", method=True)
def np_squeeze(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    return squeeze(tr, view_of(tr, arg(0, "a"), node), arg(1, "axis"),
                   node)


@numpy_function("expand_dims")
def np_expand_dims(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    return expand_dims(tr, view_of(tr, arg(0, "a"), node),
                       arg(1, "axis"), node)


@numpy_function("swapaxes", method=True)
def np_swapaxes(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    v = view_of(tr, args[0], node)
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
    return moveaxis(tr, view_of(tr, arg(0, "a"), node), arg(1, "source"),
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


@numpy_function("diff")
def np_diff(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("n", "axis")
    return diff(tr, arg(0, "a"), arg(1, "n", 1), arg(2, "axis", -1),
                node)


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
