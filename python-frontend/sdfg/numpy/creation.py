"""Array creation: empty/zeros/ones/full (and *_like), array/asarray,
copy, eye/identity, arange/linspace.
"""
import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import dtypes, manipulation
from .registry import Arguments, array_method, no_kwargs, numpy_function
from .ufuncs import where
from ..semantics.values import (ConstLeaf, Expr, Idx, IdxLeaf, Op, Value, View,
                                as_idx, is_float)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def create(tr: "Translator", name: str, shape: Value, dtype: Value,
           fill: Value, node: ast.AST) -> Value:
    if not isinstance(shape, tuple):
        shape = (shape,)
    extents = []
    for s in shape:
        if isinstance(s, (int, Idx)) and not isinstance(s, bool):
            extents.append(as_idx(s))
        elif isinstance(s, (View, Expr)) and not is_float(
                tr.to_expr(s).dtype):
            # An int computed at run time.
            extents.append(tr.control_index(s, node))
        else:
            raise tr.unsupported(node, "array shape that is not an integer")
    dtype = dtypes.dtype_of(tr, dtype, node)
    view = tr.transient_view(extents, dtype, node, name)
    if name in ("zeros", "ones", "full"):
        value = {"zeros": 0, "ones": 1}.get(name, fill)
        tr.store(view, tr.to_expr(value), cast=True)
    return view


def _fill_dtype(tr, fill):
    """np.full's dtype without dtype=: the fill value's, as
    np.array(fill) has it (a Python int is int64, a bool bool)."""
    if isinstance(fill, (bool, np.bool_)):
        return np.bool_
    if isinstance(fill, (int, np.integer, Idx)):
        return np.int64
    if isinstance(fill, float):
        return np.float64
    if fill is None:
        return np.float64  # np.full without a value: NumPy's TypeError
    return tr.to_expr(fill).dtype


def copy(tr: "Translator", value: Value, node: ast.AST) -> Value:
    e = tr.to_expr(value)
    v = tr.transient_view(e.shape, e.dtype, node, "copy")
    tr.store(v, e)
    return v


def _array(tr, name, obj, dtype, node):
    """np.array / np.asarray: of a (nested) list or tuple of scalars and
    arrays, their stack (a list comprehension is such a list, see
    comprehensions.py); of an array, a copy (np.array) or the array itself
    (np.asarray); `dtype` casts."""
    if isinstance(obj, (tuple, list)):
        if not obj:
            raise tr.unsupported(node, f"np.{name} of an empty list")
        items = [_array(tr, name, x, None, node)
                 if isinstance(x, (tuple, list)) else x for x in obj]
        result = manipulation.join_arrays(tr, "stack", items, 0, node)
    elif isinstance(obj, (View, Expr, int, float)):
        result = copy(tr, obj, node) if name == "array" else obj
    else:
        raise tr.unsupported(node, f"np.{name} of a value of type "
                             f"{type(obj).__name__}")
    if dtype is None:
        return result
    e = tr.to_expr(result)
    return Op("cast", [e], e.shape, dtypes.dtype_of(tr, dtype, node))


def ramp(tr: "Translator", name: str, args: List[Value],
         kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.arange(start, stop, step): a new 1-d array whose element p is
    start + p * step."""
    no_kwargs(tr, kwargs, node, ("dtype",))
    vals = list(args)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in vals):
        raise tr.unsupported(node, f"np.{name} of values computed at run "
                             "time", "its length must be known when "
                             "compiling")
    start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (
        vals[0], vals[1], vals[2] if len(vals) > 2 else 1)
    n = max(0, int(np.ceil((stop - start) / step)))
    floating = any(isinstance(v, float) for v in (start, stop, step))
    dtype = dtypes.dtype_of(tr, kwargs.get(
        "dtype", np.float64 if floating else np.int64), node)
    out = tr.transient_view([Idx(n)], dtype, node, name)
    schedule = tr.schedule_for([Idx(n)], None)  # parallel where it pays
    with tr.open_map([Idx(n)], schedule) as coords:
        value = tr.binop("add", tr.binop("mul", IdxLeaf(coords[0]), step),
                         start)
        val = tr.emit_scalar(tr.to_expr(value), coords, 1, dtype)
        tr.emit_store(val, out, coords)
    return out


@numpy_function("eye", positional=("N",))
@numpy_function("identity", positional=("n", "dtype"))
def np_eye(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("dtype",))
    n = args[0]
    dtype = arg(1, "dtype", np.float64) if name == "identity" else \
        kwargs.get("dtype", np.float64)
    out = create(tr, "zeros", (n, n), dtype, None, node)
    tr.store(manipulation.diagonal_view(tr, out, node), ConstLeaf(1,
                                                                  out.dtype),
             cast=True)
    return out


@numpy_function("arange")
def np_arange(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return ramp(tr, name, args, kwargs, node)


@numpy_function("linspace", positional=("start", "stop", "num", "endpoint",
                                        "retstep", "dtype", "axis"))
def np_linspace(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.linspace(start, stop, num): the endpoints may be computed at run
    time (`np.linspace(x.min(), x.max(), 16)`), the length is known when
    compiling. NumPy's own arithmetic, so the values are its bits:
    y[p] = p * step + start with step = (stop - start) / div, or
    p / div * delta + start where step underflows to 0, and y[-1] = stop
    with endpoint=True; an integer dtype takes the floor."""
    arg = Arguments(tr, args, kwargs, node)
    start, stop = arg(0, "start"), arg(1, "stop")
    num, endpoint = arg(2, "num", 50), arg(3, "endpoint", True)
    retstep, dtype = arg(4, "retstep", False), arg(5, "dtype", None)
    if arg(6, "axis", 0) != 0:
        raise tr.unsupported(node, "np.linspace with axis=")
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)):
        raise tr.unsupported(node, "np.linspace with a length computed at "
                             "run time", "its length (num) must be known "
                             "when compiling; the endpoints may be "
                             "computed")
    if not isinstance(endpoint, bool) or not isinstance(retstep, bool):
        raise tr.unsupported(node, "np.linspace with endpoint= or retstep= "
                             "computed at run time")
    num = int(num)
    if num < 0:
        raise tr.error(f"Number of samples, {num}, must be non-negative.",
                       node)
    ends = []
    for v in (start, stop):
        if isinstance(v, (int, float)):
            v = ConstLeaf(float(v), np.float64)
        e = tr.to_expr(v)
        if e.shape or e.dtype.kind not in "biuf":
            raise tr.unsupported(node, "np.linspace of array or non-numeric "
                                 "endpoints", "give scalar endpoints")
        ends.append(Op("cast", [e], [], np.float64))
    start, stop = ends
    out_dtype = np.dtype(np.float64) if dtype is None else \
        dtypes.dtype_of(tr, dtype, node)
    div = num - 1 if endpoint else num
    delta = tr.binop("sub", stop, start)
    step = tr.binop("div", delta, float(div)) if div > 0 else \
        ConstLeaf(float("nan"), np.float64)
    out = tr.transient_view([Idx(num)], out_dtype, node, name)
    schedule = tr.schedule_for([Idx(num)], None)
    with tr.open_map([Idx(num)], schedule) as coords:
        p = Op("cast", [IdxLeaf(coords[0])], [], np.float64)
        if div > 0:
            scaled = where(tr, tr.binop("eq", step, 0.0),
                           tr.binop("mul", tr.binop("div", p, float(div)),
                                    delta),
                           tr.binop("mul", p, step), node)
        else:
            scaled = tr.binop("mul", p, delta)
        value = tr.binop("add", scaled, start)
        if endpoint and num > 1:
            last = tr.binop("eq", IdxLeaf(coords[0]), num - 1)
            value = where(tr, last, stop, value, node)
        if not is_float(out_dtype):
            value = Op("floor", [tr.to_expr(value)], [], np.float64)
        val = tr.emit_scalar(tr.to_expr(value), coords, 1, out_dtype)
        tr.emit_store(val, out, coords)
    return (out, step) if retstep else out


@numpy_function("empty", "full", "ndarray", "ones", "zeros")
def np_create(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node, ("dtype", "shape", "fill_value"))
    shape = kwargs.get("shape", args[0] if args else None)
    dtype = kwargs.get("dtype", args[1] if len(args) > 1 and
                       name != "full" else np.float64)
    fill = None
    if name == "full":
        fill = kwargs.get("fill_value", args[1] if len(args) > 1
                          else None)
        dtype = kwargs.get("dtype", args[2] if len(args) > 2
                           else _fill_dtype(tr, fill))
    return create(tr, name, shape, dtype, fill, node)


@numpy_function("empty_like", "full_like", "ones_like", "zeros_like")
def np_create_like(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node, ("dtype",))
    proto = tr.to_expr(args[0])
    dtype = kwargs.get("dtype", proto.dtype)
    fill = args[1] if name == "full_like" else None
    return create(tr, name[:-5], tuple(proto.shape), dtype, fill, node)


@numpy_function("copy")
def np_copy(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    return copy(tr, args[0], node)


@numpy_function("array", "asarray")
def np_array(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node, ("dtype",))
    return _array(tr, name, args[0], kwargs.get(
        "dtype", args[1] if len(args) > 1 else None), node)


@array_method("copy")
def copy_method(tr: "Translator", obj: Value, name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return copy(tr, obj, node)
