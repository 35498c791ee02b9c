"""Array creation: empty/zeros/ones/full (and *_like), array/asarray,
copy, eye/identity, arange/linspace.
"""
import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import dtypes, joining
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
        result = joining.join_arrays(tr, "stack", items, 0, node)
    elif isinstance(obj, (View, Expr, int, float)):
        result = copy(tr, obj, node) if name == "array" else obj
    else:
        raise tr.unsupported(node, f"np.{name} of a value of type "
                             f"{type(obj).__name__}")
    if dtype is None:
        return result
    e = tr.to_expr(result)
    return Op("cast", [e], e.shape, dtypes.dtype_of(tr, dtype, node))


def size_extent(tr: "Translator", v: Value, what: str,
                node: ast.AST) -> Idx:
    """A length argument (np.eye's N, np.arange's stop) as an Idx: a
    constant, or a size expression (symbolic_sizes.py: n, n - 1, 2 * n of
    an argument's extent n) that is never negative, so that the result's
    extent is exact for every size without NumPy's clamp at 0 or its
    error. Any other value would be needed when compiling: refused, and
    a program with size symbols then compiles with constants."""
    if isinstance(v, (int, np.integer)) and not isinstance(
            v, (bool, np.bool_)):
        return Idx(int(v))
    if isinstance(v, Idx):
        if v.is_const() or (tr.is_size_expression(v) and
                            tr.interval(v)[0] >= 0):
            return v
        if tr.is_size_expression(v):
            raise tr.unsupported(node, f"{what} that is negative for some "
                                 "sizes", "NumPy's result is empty or an "
                                 "error there: compiled per size")
    if isinstance(v, (bool, np.bool_, float, np.floating)):
        raise tr.unsupported(node, f"{what} that is not an integer")
    raise tr.unsupported(node, f"{what} computed at run time",
                         "its length must be known when compiling or "
                         "computed from argument shapes")


def _ramp_length(tr, name, start, stop, step, node):
    """np.arange's length ceil((stop - start) / step) where an end is an
    Idx: the ends' difference is a constant (`arange(i, i + 3)`), or a
    size expression over a step of 1 or -1 (else it is not affine in the
    size symbols)."""
    if any(isinstance(v, float) for v in (start, stop, step)):
        raise tr.unsupported(node, f"np.{name} of a float and a value "
                             "computed at run time", "its length must be "
                             "known when compiling")
    if not isinstance(step, int):
        raise tr.unsupported(node, f"np.{name} with a step computed at "
                             "run time", "its length must be known when "
                             "compiling")
    span = as_idx(stop) - as_idx(start)
    if span.is_const():
        return Idx(max(0, -(-span.const // step)))
    if step not in (1, -1):
        raise tr.unsupported(node, f"np.{name} with a step other than 1 "
                             "or -1 over a length computed from a size",
                             "that length is not affine in the size: "
                             "compiled per size")
    return size_extent(tr, span.scale(step), f"np.{name} of a length",
                       node)


def ramp(tr: "Translator", name: str, args: List[Value],
         kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.arange(start, stop, step): a new 1-d array whose element p is
    start + p * step. The ends may be size expressions (`arange(n)` of an
    argument's extent n, `arange(1, n - 1)`) where the step is 1 or -1."""
    no_kwargs(tr, kwargs, node, ("dtype",))
    vals = [v.const if isinstance(v, Idx) and v.is_const() else v
            for v in args]
    if len(vals) == 4 and "dtype" not in kwargs:
        # np.arange(start, stop, step, dtype)
        kwargs, vals = dict(kwargs, dtype=vals[3]), vals[:3]
    if not 1 <= len(vals) <= 3:
        raise tr.unsupported(node, f"np.{name} with {len(vals)} "
                             "positional arguments",
                             "give ([start,] stop[, step][, dtype])")
    if not all(isinstance(v, (int, float, Idx)) and not isinstance(v, bool)
               for v in vals):
        raise tr.unsupported(node, f"np.{name} of values computed at run "
                             "time", "its length must be known when "
                             "compiling")
    start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (
        vals[0], vals[1], vals[2] if len(vals) > 2 else 1)
    if step == 0:
        raise tr.error("division by zero (np.arange's step is 0)", node)
    if any(isinstance(v, Idx) for v in vals):
        n = _ramp_length(tr, name, start, stop, step, node)
        start = tr.to_expr(start)
    else:
        n = Idx(max(0, int(np.ceil((stop - start) / step))))
    floating = any(isinstance(v, float) for v in (start, stop, step))
    dtype = dtypes.dtype_of(tr, kwargs.get(
        "dtype", np.float64 if floating else np.int64), node)
    out = tr.transient_view([n], dtype, node, name)
    schedule = tr.schedule_for([n], None)  # parallel where it pays
    with tr.open_map([n], schedule) as coords:
        value = tr.binop("add", tr.binop("mul", IdxLeaf(coords[0]), step),
                         start)
        val = tr.emit_scalar(tr.to_expr(value), coords, 1, dtype)
        tr.emit_store(val, out, coords)
    return out


def _band(tr, name, rows, cols, k, op, dtype, node):
    """A rows x cols array whose element (i, j) is 1 where j - i `op` k
    (eq: np.eye's diagonal k, le: np.tri's triangle), else 0: one map
    over the whole array, so the extents may be size expressions and k
    any integer (a diagonal outside the array leaves it all 0s)."""
    if isinstance(k, Idx) and k.is_const():
        k = k.const
    integral = isinstance(k, (int, np.integer, Idx)) or (
        isinstance(k, (View, Expr)) and not tr.to_expr(k).shape and
        tr.to_expr(k).dtype.kind in "iu")
    if isinstance(k, (bool, np.bool_)) or not integral:
        raise tr.unsupported(node, f"np.{name} with a diagonal k that is "
                             "not an integer")
    k = tr.to_expr(int(k) if isinstance(k, np.integer) else k)
    dtype = dtypes.dtype_of(tr, dtype, node)
    shape = [rows, cols]
    out = tr.transient_view(shape, dtype, node, name)
    with tr.open_map(shape, tr.schedule_for(shape, None)) as coords:
        i, j = coords
        on = tr.binop(op, IdxLeaf(j - i), k)
        val = tr.emit_scalar(tr.to_expr(on), coords, 2, dtype)
        tr.emit_store(val, out, coords)
    return out


@numpy_function("eye", "tri", positional=("N", "M", "k", "dtype"))
@numpy_function("identity", positional=("n", "dtype"))
def np_eye(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.eye(N, M=None, k=0, dtype=float), np.identity(n, dtype=float)
    and np.tri(N, M=None, k=0, dtype=float); the sizes may be size
    expressions (np.eye(n) of an argument's extent n)."""
    arg = Arguments(tr, args, kwargs, node)
    if name == "identity":
        arg.only("n", "dtype")
        n = size_extent(tr, arg(0, "n"), "np.identity of a size", node)
        m, k, dtype = n, 0, arg(1, "dtype", None)
    else:
        arg.only("N", "M", "k", "dtype")
        n = size_extent(tr, arg(0, "N"), f"np.{name} of a size", node)
        m = arg(1, "M", None)
        m = n if m is None else size_extent(tr, m, f"np.{name} of a size",
                                            node)
        k, dtype = arg(2, "k", 0), arg(3, "dtype", None)
    return _band(tr, name, n, m, k, "le" if name == "tri" else "eq",
                 np.float64 if dtype is None else dtype, node)


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
    if isinstance(num, Idx) and num.is_const():
        num = num.const
    if isinstance(num, bool) or not isinstance(num, (int, np.integer,
                                                     Idx)):
        raise tr.unsupported(node, "np.linspace with a length computed at "
                             "run time", "its length (num) must be known "
                             "when compiling or computed from argument "
                             "shapes; the endpoints may be computed")
    if not isinstance(endpoint, bool) or not isinstance(retstep, bool):
        raise tr.unsupported(node, "np.linspace with endpoint= or retstep= "
                             "computed at run time")
    if isinstance(num, Idx):
        # A size expression (np.linspace(a, b, n) of an extent n): every
        # size must have div > 0, as the constant case decides below.
        num = size_extent(tr, num, "np.linspace of a length", node)
        div = num - 1 if endpoint else num
        if tr.interval(div)[0] <= 0:
            raise tr.unsupported(node, "np.linspace of a length that is "
                                 f"{'1 or ' if endpoint else ''}0 for some "
                                 "sizes")
        divf = Op("cast", [IdxLeaf(div)], [], np.float64)
        positive = many = True
    else:
        num = int(num)
        if num < 0:
            raise tr.error(f"Number of samples, {num}, must be "
                           "non-negative.", node)
        div = num - 1 if endpoint else num
        divf, positive, many = float(div), div > 0, num > 1
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
    delta = tr.binop("sub", stop, start)
    step = tr.binop("div", delta, divf) if positive else \
        ConstLeaf(float("nan"), np.float64)
    extent = as_idx(num)
    out = tr.transient_view([extent], out_dtype, node, name)
    schedule = tr.schedule_for([extent], None)
    with tr.open_map([extent], schedule) as coords:
        p = Op("cast", [IdxLeaf(coords[0])], [], np.float64)
        if positive:
            scaled = where(tr, tr.binop("eq", step, 0.0),
                           tr.binop("mul", tr.binop("div", p, divf),
                                    delta),
                           tr.binop("mul", p, step), node)
        else:
            scaled = tr.binop("mul", p, delta)
        value = tr.binop("add", scaled, start)
        if endpoint and many:
            last = tr.binop("eq", IdxLeaf(coords[0]),
                            tr.to_expr(extent - 1))
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
