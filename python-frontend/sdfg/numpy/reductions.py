"""Reductions and scans: sum, prod, mean, max/min (amax/amin), var, std,
any, all, argmax/argmin, count_nonzero, the nan-reductions, and the
cumulative cumsum/cumprod, over any axes, with keepdims and dtype= as
NumPy's.
"""

import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from .. import ir
from . import creation, dtypes, manipulation, operands, selections, ufuncs
from .registry import (Arguments, array_method, no_kwargs, numpy_call,
                       numpy_function)
from ..semantics.values import (ConstLeaf, Idx, Masked, Op, Value, View,
                                ViewLeaf, as_idx, is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def _axes(tr, axis, ndim, node):
    if axis is None:
        return list(range(ndim))
    axes = list(axis) if isinstance(axis, tuple) else [axis]
    out = []
    for a in axes:
        if not isinstance(a, int):
            raise tr.unsupported(node, "non-constant axis")
        if a < -ndim or a >= ndim:
            raise tr.error(f"axis {a} is out of bounds for an array of "
                           f"dimension {ndim}", node)
        out.append(a % ndim)
    return sorted(set(out))


def reduce(tr: "Translator", name: str, value: Value, axis: Value,
           keepdims: bool, node: ast.AST) -> Value:
    if isinstance(value, Masked):
        return _reduce_masked(tr, name, value, axis, keepdims, node)
    e = tr.to_expr(value)
    if e.dtype == np.bool_ and name in ("max", "amax", "min", "amin"):
        # Of bools: any and all, bool as NumPy's.
        flags = reduce(tr, name, Op("cast", [e], e.shape, np.int8), axis,
                       keepdims, node)
        return tr.binop("ne", flags, 0)
    if e.dtype.kind == "u" and name in ("max", "amax", "min", "amin"):
        return _unsigned_extremum(tr, name, e, axis, keepdims, node)
    kind = {"sum": "add", "mean": "add", "max": "max", "amax": "max",
            "min": "min", "amin": "min", "prod": "mul"}[name]
    axes = _axes(tr, axis, len(e.shape), node)
    out_shape = [Idx(1) if d in axes else e.shape[d]
                 for d in range(len(e.shape))
                 if keepdims or d not in axes]
    dtype = e.dtype
    if name == "mean" and not is_float(dtype):
        dtype = np.dtype(np.float64)
    if kind in ("add", "mul") and (dtype == np.bool_ or (
            np.issubdtype(dtype, np.integer) and dtype.itemsize < 8)):
        # NumPy sums and multiplies small integers in the platform's
        # 64-bit integer (unsigned ones unsigned).
        dtype = np.dtype(np.uint64 if np.issubdtype(dtype, np.unsignedinteger)
                         else np.int64)
    if kind in ("max", "min"):
        for d in axes:
            x = as_idx(e.shape[d])
            if x.is_const() and x.const == 0:
                raise tr.error(
                    "zero-size array to reduction operation "
                    f"{'maximum' if kind == 'max' else 'minimum'} which has "
                    "no identity", node)
            if not x.is_const():
                tr.require_elements(x)
    out = tr.transient_view(out_shape, dtype, node, name)
    if kind == "add":
        init = 0
    elif kind == "mul":
        init = 1
    elif is_float(dtype):
        init = float("-inf") if kind == "max" else float("inf")
    else:
        info = np.iinfo(dtype)
        init = int(info.min if kind == "max" else info.max)
    tr.store(out, ConstLeaf(init, dtype))
    # Map over the input; each element combines into its output slot.
    rank = len(e.shape)
    params = [tr.em.fresh("p") for _ in range(rank)]
    for p, ext in zip(params, e.shape):
        tr.iter_bounds[p] = (0, tr.upper_extent(ext, node) - 1)
    coords = [Idx.of(p) for p in params]
    out_coords = [Idx(0) if d in axes else coords[d] for d in range(rank)
                  if keepdims or d not in axes]
    if rank == 0:
        val = tr.emit_scalar(e, [], 0, dtype)
        tr.emit_store(val, out, [], kind)
    else:
        lbs = ["0"] * len(params)
        ubs = [as_idx(x).render() for x in e.shape]
        steps = ["1"] * len(params)
        # Parallel when large and some dimension is kept: the CPU lowering
        # distributes the first kept one, each thread owning its output
        # elements, so each is still summed in order (deterministic). Not
        # when that dimension is the innermost (a sum over rows into one
        # row): the threads would split each row and share a cache line at
        # every split for every row summed (covariance's forward: 7x
        # slower). A full reduction is parallel too: the lowering sums
        # fixed chunks (the same for any number of threads) and combines
        # their partial sums in chunk order, so its bits do not vary.
        kept = [d for d in range(rank) if d not in axes]
        schedule = tr.schedule_for(e.shape, None)
        if tr.device == "cpu" and kept and kept[0] == rank - 1:
            schedule = "sequential"
        with tr.em.block(ir.map_(params, lbs, ubs, steps, schedule)):
            val = tr.emit_scalar(e, coords, rank, dtype)
            tr.emit_store(val, out, out_coords, kind)
    if name == "mean":
        count = operands.element_count(tr, [e.shape[d] for d in axes], node,
                              "mean")
        mean = tr.binop("div", ViewLeaf(out), count if isinstance(
            count, Idx) else float(count))
        # In the sum's type, as NumPy's mean (a float32 mean is float32
        # even where the sum is a 0-d value, which divides as float64).
        mean = tr.to_expr(mean)
        return mean if mean.dtype == dtype else \
            Op("cast", [mean], mean.shape, dtype)
    return ViewLeaf(out)


def _unsigned_extremum(tr, name, e, axis, keepdims, node):
    """max/min of unsigned integers: the compiled reduction (a write
    with max/min resolution) compares signed, so the values are mapped
    to the signed type of their width with the order kept (the top bit
    flipped: 0 -> -128, 255 -> 127 for uint8), reduced, and mapped
    back."""
    r = reduce(tr, name, dtypes.signed_order(e), axis, keepdims, node)
    return dtypes.unsigned_order(tr.to_expr(r), e.dtype)


def _reduce_masked(tr, name, value, axis, keepdims, node):
    """np.sum/np.prod/np.mean of x[mask]: the reduction of np.where(mask,
    x, identity); the mean divides by the number selected (0/0 = nan on
    an empty selection, as NumPy's mean); max and min check when the
    program runs that something is selected (numpy/selections.py).
    The selection's first axis (NumPy's x[mask] has 1 + x.ndim - mask.ndim
    axes: the selected elements or rows, then x's remaining ones) has a
    length only the data knows, so an axis= must include it."""
    if name not in ("sum", "prod", "mean", "max", "amax", "min", "amin"):
        raise tr.unsupported(node, f"np.{name} of a masked selection")
    x = tr.to_expr(value.value)
    rows = getattr(value.mask, "origin", value.mask)
    r = len(rows.shape)  # x's axes the mask selects over
    ndim = 1 + len(x.shape) - r  # the selection's
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        if not all(isinstance(a, int) and not isinstance(a, bool)
                   for a in axes):
            raise tr.unsupported(node, "a masked selection reduced over an "
                                 "axis that is not a constant integer")
        for a in axes:
            if not -ndim <= a < ndim:
                raise tr.error(f"axis {a} is out of bounds for array of "
                               f"dimension {ndim}", node)
        axes = tuple(sorted({a % ndim for a in axes}))
    if 0 not in axes:
        raise tr.unsupported(node, "a masked selection reduced along its "
                             "other axes only",
                             "the result's length is the number of selected "
                             "elements, known only at run time; reduce over "
                             "axis 0 too, or use np.where(mask, x, 0)")
    if keepdims and r != 1:
        raise tr.unsupported(node, "keepdims on a selection by a mask of "
                             "several dimensions")
    # Axis 0 of the selection is x's first r axes; axis j > 0 is x's r-1+j.
    x_axes = tuple(range(r)) + tuple(r - 1 + a for a in axes if a > 0)
    if name in ("max", "amax", "min", "amin"):
        # NumPy raises on an empty selection: a check when it runs.
        return selections.masked_extremum(tr, name, value, x, rows, x_axes,
                                          keepdims, node)
    identity = 1 if name == "prod" else 0
    if x.dtype == np.bool_:
        x = Op("cast", [x], x.shape, np.int64)
    picked = ufuncs.where(tr, value.mask, x, ConstLeaf(identity, x.dtype),
                          node)
    whole = len(x_axes) == len(x.shape)
    total = reduce(tr, "prod" if name == "prod" else "sum", picked,
                   None if whole and not keepdims else x_axes, keepdims,
                   node)
    if name != "mean":
        return total
    count = reduce(tr, "sum", Op("cast", [rows], rows.shape, np.float64),
                   None, False, node)
    for a in x_axes[r:]:
        count = tr.binop("mul", count, as_idx(x.shape[a]))
    mean = tr.binop("div", total, count)
    if is_float(x.dtype) and tr.to_expr(mean).dtype != x.dtype:
        # NumPy's mean keeps a float32 selection's type.
        e = tr.to_expr(mean)
        mean = Op("cast", [e], e.shape, x.dtype)
    return mean


def cumulative(tr: "Translator", value: Value, axis: Value, node: ast.AST,
               op: str = "add") -> Value:
    """np.cumsum (op add), np.cumprod (op mul), np.maximum.accumulate and
    np.minimum.accumulate (ops maximum, minimum) along one axis: a loop
    over it (each step combines the previous partial results, a map over
    the other axes), in order, as NumPy accumulates."""
    what = {"add": "np.cumsum", "mul": "np.cumprod"}.get(
        op, f"np.{op}.accumulate")
    e = tr.to_expr(value)
    if len(e.shape) == 1 and not as_idx(e.shape[0]).is_const() and \
            axis in (None, 0, -1):
        return _window_cumulative(tr, e, op, what, node)
    shape = operands.static_shape(tr, e, node, what)
    if axis is None:
        if len(shape) != 1:
            e = ViewLeaf(manipulation.reshape(tr, e, (-1,), node))
            shape = [int(np.prod(shape))]
        axis = 0
    if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
        raise tr.error(f"axis {axis} is out of bounds", node)
    axis %= len(shape)
    dtype = e.dtype
    if op in ("add", "mul") and not is_float(dtype) and dtype.itemsize < 8:
        # As np.sum: bools and small ints add in int64, unsigned ones in
        # uint64.
        dtype = np.dtype(np.uint64 if dtype.kind == "u" else np.int64)
    src = operands.as_view(tr, e, node)
    out = tr.transient_view([Idx(x) for x in shape], dtype, node,
                            what[3:].split(".")[0])
    n = shape[axis]
    if n == 0:
        return out
    tr.store(operands.window_view(out, axis, 0, 1),
             ViewLeaf(operands.window_view(src, axis, 0, 1)),
             cast=True)
    if n == 1:
        return out
    with tr.control_section():
        i = tr.em.fresh("i")
        tr.iter_bounds[i] = (1, n - 1)
        with tr.em.block(ir.loop(i, 1, n, 1)):
            with tr.em.block(ir.STATE):
                def at(v, offset):
                    base = [(o + Idx.of(i).scale(st) + Idx(offset).scale(st)
                             if d == axis else o, st, d)
                            for o, st, d in v.base]
                    shp = list(v.shape)
                    shp[axis] = Idx(1)
                    return View(v.container, base, shp)
                if op in ("add", "mul"):
                    step = tr.binop(op, at(out, -1), at(src, 0))
                else:
                    # NaN-propagating, as np.maximum.
                    step = ufuncs.elementwise(tr, op, [at(out, -1), at(src,
                                                                       0)],
                                       node)
                tr.store(at(out, 0), step, cast=True)
    return out


def _argext(tr, name, value, axis, node, keepdims=False):
    """np.argmax / np.argmin: the first position holding the extremum
    (the smallest index among the ties, as NumPy), as int64; with
    `keepdims` the reduced axes stay, of length 1."""
    e = tr.to_expr(value)
    if e.dtype == np.bool_:
        e = Op("cast", [e], e.shape, np.int64)
    kind = "max" if name == "argmax" else "min"
    if len(e.shape) == 1 and not as_idx(e.shape[0]).is_const() and \
            axis in (None, 0, -1):
        return _window_argext(tr, name, kind, e, keepdims, node)
    shape = operands.static_shape(tr, e, node, f"np.{name}")
    if axis is None:
        size = int(np.prod(shape))
        if size == 0:
            raise tr.error(f"attempt to get {name} of an empty sequence",
                           node)
        pos = manipulation.reshape(tr, creation.ramp(tr, "arange", [size], {},
                                                     node), shape,
                      node) if len(shape) > 1 else \
            creation.ramp(tr, "arange", [size], {}, node)
        ext = reduce(tr, kind, e, None, False, node)
    else:
        if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
            raise tr.error(f"axis {axis} is out of bounds", node)
        axis %= len(shape)
        ramp = creation.ramp(tr, "arange", [shape[axis]], {}, node)
        items = [ast.Constant(None)] * axis + [ast.Slice()] + \
            [ast.Constant(None)] * (len(shape) - 1 - axis)
        pos = tr.subscript(ramp, [ast.copy_location(i, node)
                                  for i in items], node)
        ext = reduce(tr, kind, e, axis, True, node)
    hit = tr.binop("eq", e, ext)
    if is_float(e.dtype):
        # The extremum is NaN where any element is: NumPy gives the first.
        nan = Op("isnan", [e], e.shape, np.bool_)
        hit = Op("or", [hit, nan], hit.shape, np.bool_)
    big = int(np.prod(shape))
    cand = ufuncs.where(tr, hit, pos, big, node)
    return reduce(tr, "min", cand, axis, keepdims, node)


def _window_cumulative(tr, e, op, what, node):
    """np.cumsum & co. of a 1-d window whose length is known only at run
    time: a loop over it carrying the running value in a 0-d transient
    (which starts at op's identity, so no iteration reads before the
    window), in order, as NumPy accumulates."""
    n = as_idx(e.shape[0])
    dtype = e.dtype
    if op in ("add", "mul") and not is_float(dtype) and dtype.itemsize < 8:
        # As np.sum: bools and small ints add in int64, unsigned ones in
        # uint64.
        dtype = np.dtype(np.uint64 if dtype.kind == "u" else np.int64)
    src = operands.as_view(tr, e, node)
    out = tr.transient_view([n], dtype, node, what[3:].split(".")[0])
    acc = tr.transient_view([], dtype, node, "running")
    if op in ("add", "mul"):
        identity = 0 if op == "add" else 1
    elif is_float(dtype):
        identity = float("-inf") if op == "maximum" else float("inf")
    else:
        info = np.iinfo(dtype)
        identity = int(info.min if op == "maximum" else info.max)
    tr.store(acc, ConstLeaf(identity, dtype), cast=True)
    with tr.control_section():
        i = tr.em.fresh("i")
        tr.iter_bounds[i] = (0, max(tr.upper_extent(n, node) - 1, 0))
        with tr.em.block(ir.loop(i, 0, n.render(), 1)):
            with tr.em.block(ir.STATE):
                def at(v):
                    # Element i, as a 0-d view.
                    base = [(o + Idx.of(i).scale(st), st, None) if d == 0
                            else (o, st, d) for o, st, d in v.base]
                    return View(v.container, base, [])
                here, item = at(out), at(src)
                if op in ("add", "mul"):
                    step = tr.binop(op, ViewLeaf(acc), ViewLeaf(item))
                else:
                    step = ufuncs.elementwise(tr, op, [ViewLeaf(acc),
                                                       ViewLeaf(item)],
                                       node)
                tr.store(here, step, cast=True)
                tr.store(acc, ViewLeaf(at(out)), cast=True)
    return out


def _window_argext(tr, name, kind, e, keepdims, node):
    """np.argmax / np.argmin of a 1-d window whose length is known only
    at run time (`x[i:i + 3]` at the end of its loop): positions from a
    ramp as long as the window can be, cut to its length."""
    n = as_idx(e.shape[0])
    (hi,) = tr.container_extents([n], node)
    ramp = creation.ramp(tr, "arange", [hi], {}, node)
    pos = ViewLeaf(operands.window_view(ramp, 0, 0, n))
    ext = reduce(tr, kind, e, None, True, node)
    hit = tr.binop("eq", e, ext)
    if is_float(e.dtype):
        nan = Op("isnan", [e], e.shape, np.bool_)
        hit = Op("or", [hit, nan], hit.shape, np.bool_)
    cand = ufuncs.where(tr, hit, pos, hi, node)
    return reduce(tr, "min", cand, None, keepdims, node)


def spread_along(node, rank, keep):
    """Subscript items viewing a vector along axis `keep` of `rank`."""
    return manipulation.subscript_items(
        node, ["s" if d == keep else "n" for d in range(rank)])


def nan_reduce(tr: "Translator", name: str, a: Value, axis: Value,
               keepdims: bool, node: ast.AST) -> Value:
    e = tr.to_expr(a)
    plain = {"nansum": "sum", "nanmean": "mean", "nanprod": "prod",
             "nanmax": "max", "nanmin": "min"}[name]
    if not is_float(e.dtype):
        return reduce(tr, plain, e, axis, keepdims, node)
    nan = Op("isnan", [e], e.shape, np.bool_)
    if name in ("nanmax", "nanmin"):
        # The extremum of the numbers; NaN where a slice holds only NaNs
        # (NumPy warns and returns NaN there).
        skip = float("-inf") if name == "nanmax" else float("inf")
        kept = ufuncs.where(tr, nan, ConstLeaf(skip, e.dtype), e, node)
        ext = reduce(tr, plain, kept, axis, keepdims, node)
        numbers = reduce(tr, "max", Op("cast", [Op("not", [nan],
                                                      nan.shape, np.bool_)],
                                          e.shape, np.int64), axis,
                            keepdims, node)
        return ufuncs.where(tr, tr.binop("eq", numbers, 0), float("nan"), ext,
                        node)
    identity = 1.0 if name == "nanprod" else 0.0
    kept = ufuncs.where(tr, nan, ConstLeaf(identity, e.dtype), e, node)
    total = reduce(tr, "prod" if name == "nanprod" else "sum", kept,
                      axis, keepdims, node)
    if name != "nanmean":
        return total
    count = reduce(tr, "sum", Op("cast", [Op("not", [nan], nan.shape,
                                                 np.bool_)],
                                    e.shape, np.float64), axis, keepdims,
                      node)
    return tr.binop("div", total, count)


@numpy_function("nanmax", "nanmean", "nanmin", "nanprod", "nansum")
def np_nansum(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis", "keepdims")
    return nan_reduce(tr, name, arg(0, "a"), arg(1, "axis"),
                      bool(kwargs.get("keepdims", False)), node)


@numpy_function("count_nonzero")
def np_count_nonzero(tr: "Translator", name: str, args: List[Value],
                     kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    if args and isinstance(args[0], Masked):
        return selections.masked_any(tr, name, args, kwargs, node)
    only = arg.only
    only("axis", "keepdims")
    e = tr.to_expr(arg(0, "a"))
    flags = Op("cast", [tr.binop("ne", e, 0) if e.dtype != np.bool_
                        else e], e.shape, np.int64)
    return reduce(tr, "sum", flags, arg(1, "axis"),
                     bool(kwargs.get("keepdims", False)), node)


@numpy_function("cumprod", method=True)
def np_cumprod(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("axis")
    return cumulative(tr, arg(0, "a"), arg(1, "axis"), node, "mul")


@numpy_function("std", "var", positional=("a", "axis"), method=True)
def np_var(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    if isinstance(args[0], Masked):
        return selections.masked_var(tr, name, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("axis", "keepdims", "ddof"))
    x = tr.to_expr(args[0])
    axis = arg(1, "axis")
    keep = bool(kwargs.get("keepdims", False))
    ddof = kwargs.get("ddof", 0)
    mean = reduce(tr, "mean", x, axis, True, node)
    dev = tr.binop("sub", x, mean)
    total = reduce(tr, "sum", tr.binop("mul", dev, dev), axis, keep,
                   node)
    count = operands.element_count(tr, [x.shape[d] for d in _axes(
        tr, axis, len(x.shape), node)], node, f"np.{name}") - ddof
    # NumPy divides by max(N - ddof, 0): inf, or nan for an empty one.
    count = tr.ceil_div(count, 1) if isinstance(count, Idx) else \
        float(max(count, 0))
    v = tr.to_expr(tr.binop("div", total, count))
    if is_float(x.dtype) and v.dtype != x.dtype:
        v = Op("cast", [v], v.shape, x.dtype)  # float32 stays float32
    return ufuncs.elementwise(tr, "sqrt", [v], node) if name == "std" else v


@numpy_function("argmax", "argmin", positional=("a", "axis"), method=True)
def np_argmax(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("axis", "keepdims"))
    return _argext(tr, name, arg(0, "a"), arg(1, "axis"), node,
                   bool(kwargs.get("keepdims", False)))


@numpy_function("cumsum", positional=("a", "axis"), method=True)
def np_cumsum(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("axis", "dtype"))
    a = arg(0, "a")
    if kwargs.get("dtype") is not None:
        e = tr.to_expr(a)
        a = Op("cast", [e], e.shape,
               np.dtype(dtypes.dtype_of(tr, kwargs["dtype"], node)))
    return cumulative(tr, a, arg(1, "axis"), node)


@numpy_function("all", "any", positional=("a", "axis"), method=True)
def np_any(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    if isinstance(args[0], Masked):
        return selections.masked_any(tr, name, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("axis",))
    x = tr.to_expr(args[0])
    flags = Op("cast", [tr.binop("ne", x, 0) if x.dtype != np.bool_
                        else x], x.shape, np.int64)
    r = reduce(tr, "max" if name == "any" else "min", flags,
               arg(1, "axis"), False, node)
    return tr.binop("ne", r, 0)


@numpy_function("amax", "amin", "max", "mean", "min", "prod", "sum")
def np_reduction(tr: "Translator", name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node, ("axis", "keepdims") + (
        ("dtype",) if name in ("sum", "mean", "prod") else ()))
    if len(args) > 2:
        raise tr.unsupported(
            node, f"np.{name} with more than 2 positional arguments",
            "the parameters after a, axis are not supported (give "
            "keepdims= as a keyword)")
    if not args:
        raise tr.error(f"np.{name} takes an array argument", node)
    arg = Arguments(tr, args, kwargs, node)
    a = args[0]
    dtype = kwargs.get("dtype")
    if dtype is not None:
        # The accumulator's and the result's type, as NumPy's dtype=.
        dtype = np.dtype(dtypes.dtype_of(tr, dtype, node))
        e = tr.to_expr(a)
        a = Op("cast", [e], e.shape, dtype)
    r = reduce(tr, name, a, arg(1, "axis"),
               bool(kwargs.get("keepdims", False)), node)
    return r if dtype is None else operands.in_dtype(tr, r, dtype)


@array_method("sum", "max", "min", "mean", "prod")
def reduction_method(tr: "Translator", obj: Value, name: str,
                     args: List[Value], kwargs: Dict[str, Value],
                     node: ast.AST) -> Value:
    if name in ("sum", "mean", "prod") and "dtype" in kwargs:
        return numpy_call(tr, name, [obj] + list(args), kwargs, node)
    no_kwargs(tr, kwargs, node, ("axis", "keepdims"))
    axis = kwargs.get("axis", args[0] if args else None)
    return reduce(tr, name, obj, axis, bool(kwargs.get("keepdims", False)),
                  node)
