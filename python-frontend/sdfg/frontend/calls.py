"""Calls in expressions: dispatches a call to the NumPy registry, an
array method, an inlined user function or lambda, or one of Python's
builtins (round, sum, slice, divmod, abs, min, max, float/int/bool,
len, NumPy scalar types).
"""

import ast
from typing import TYPE_CHECKING

import numpy as np

from . import callables, custom_calls, printing, python_math
from ..custom_vjp import cotangent, custom_vjp
from ..semantics.values import (ConstLeaf, Expr, Idx, Masked, Op, Value, View,
                                as_idx, is_float, same_extent)
from .. import markers
from ..semantics import complex_values
from ..numpy import reductions, registry, ufuncs

if TYPE_CHECKING:
    from .translator import Translator


def call(tr: "Translator", node: ast.Call) -> Value:
    tr._call_func_node = node.func
    try:
        func = tr.eval(node.func)
    finally:
        tr._call_func_node = None
    if func is print:
        # Its f-strings are read as text and values, not evaluated.
        return printing.call(tr, node)
    args = [tr.eval(a) for a in node.args]
    for a in node.args:
        if isinstance(a, ast.Starred):
            raise tr.unsupported(a, "starred argument")
    kwargs = {}
    for kw in node.keywords:
        if kw.arg is None:
            raise tr.unsupported(node, "**kwargs")
        if kw.arg == "out":
            raise tr.unsupported(node, "out= inside an expression",
                                 "a call given out= must be a statement "
                                 "of its own or the whole right side of "
                                 "an assignment to a name")
        kwargs[kw.arg] = tr.eval(kw.value)
    if isinstance(func, callables.NumpyFunction):
        return registry.numpy_call(tr, func.name, args, kwargs, node)
    if isinstance(func, custom_vjp):
        return custom_calls.call(tr, func, args, kwargs, node)
    if isinstance(func, callables.UserFunction):
        if func.fn is cotangent:
            return _cotangent(tr, args, node)
        if func.fn is markers.stop_gradient:
            registry.no_kwargs(tr, kwargs, node)
            if len(args) != 1:
                raise tr.error("stop_gradient takes one argument", node)
            return tr.stop_gradient(args[0], node)
        return tr.inline_call(func.fn, args, kwargs, node)
    if isinstance(func, callables.LocalLambda):
        return tr.call_lambda(func, args, kwargs, node)
    if isinstance(func, callables.LocalFunction):
        return tr.call_local(func, args, kwargs, node)
    if isinstance(func, callables.BoundMethod) and isinstance(func.obj,
                                                              dict):
        return dict_method(tr, func.obj, func.name, args, kwargs, node)
    if isinstance(func, callables.BoundMethod):
        return registry.method_call(tr, func.obj, func.name, args, kwargs,
                                    node)
    if isinstance(func, python_math.MathFunction):
        return python_math.math_call(tr, func, args, kwargs, node)
    if func is round:
        registry.no_kwargs(tr, kwargs, node, ("ndigits",))
        ndigits = kwargs.get("ndigits", args[1] if len(args) > 1 else None)
        if isinstance(args[0], (int, float)) and not isinstance(args[0],
                                                                bool):
            return round(args[0], ndigits)
        if ndigits is not None:
            return ufuncs.round_(tr, args[0], ndigits, node)
        e = tr.to_expr(ufuncs.round_(tr, args[0], 0, node))
        return e if not is_float(e.dtype) else Op("cast", [e], e.shape,
                                                  np.int64)
    if func is sum:
        registry.no_kwargs(tr, kwargs, node, ("start",))
        start = kwargs.get("start", args[1] if len(args) > 1 else 0)
        items = args[0]
        if isinstance(items, (tuple, list)):
            total = start
            for x in items:
                total = tr.binop("add", total, x)
            return total
        if isinstance(items, (View, Expr)) and len(items.shape) > 0:
            # Python's sum iterates over the first axis.
            return tr.binop("add", reductions.reduce(tr, "sum", items, 0,
                                                     False, node),
                            start)
        raise tr.unsupported(node, "sum() of a scalar")
    if func is slice:
        # `sl = slice(1, -1)`; `A[sl, sl]` reads it as `A[1:-1, 1:-1]`.
        registry.no_kwargs(tr, kwargs, node)
        if not 1 <= len(args) <= 3:
            raise tr.error("slice expected 1 to 3 arguments", node)
        return slice(*[None if a is None else tr.control_index(a, node)
                       for a in args])
    if func is divmod:
        registry.no_kwargs(tr, kwargs, node)
        if len(args) != 2:
            raise tr.error("divmod expected 2 arguments", node)
        return (tr.binop("floordiv", args[0], args[1]),
                tr.binop("mod", args[0], args[1]))
    if func in (list, tuple):
        # Of a Python sequence or dict (its keys), when compiling:
        # `list(params.keys())`, `tuple(shape)`.
        registry.no_kwargs(tr, kwargs, node)
        if len(args) == 1 and isinstance(args[0], (tuple, list, dict)):
            return func(args[0])
        raise tr.unsupported(node, f"{func.__name__}() of an array",
                             "use the array itself (or .tolist() outside "
                             "the compiled function)")
    if func is range:
        raise tr.unsupported(node, "range outside a for loop")
    if func in (abs,) and len(args) == 1 and \
            complex_values.is_complex(args[0]):
        return complex_values.absolute(tr, args[0])
    if func in (abs,):
        registry.no_kwargs(tr, kwargs, node)
        return ufuncs.elementwise(tr, "abs", args, node)
    if func in (min, max):
        registry.no_kwargs(tr, kwargs, node)
        if len(args) == 1 and isinstance(args[0], (tuple, list)):
            # Of a list, tuple or comprehension: of its items.
            if not args[0]:
                raise tr.error(f"{func.__name__}() arg is an empty "
                               "sequence", node)
            args = list(args[0])
            if len(args) == 1:
                return args[0]
        elif len(args) < 2:
            raise tr.unsupported(node, f"{func.__name__} of one iterable")
        result = args[0]
        for a in args[1:]:
            if all(isinstance(x, (int, float)) for x in (result, a)):
                result = func(result, a)
            elif all(isinstance(x, (int, Idx)) and not isinstance(x, bool)
                     for x in (result, a)) and (
                         as_idx(result).is_const() and as_idx(a).is_const()
                         or same_extent(result, a)):
                # Extents (zip's length): constants, or provably equal.
                result = func(as_idx(result).const, as_idx(a).const) \
                    if as_idx(result).is_const() else as_idx(result)
            else:
                result = ufuncs.elementwise(tr, "maximum" if func is max
                                     else "minimum", [result, a], node)
        return result
    if func in (float, int, bool):
        registry.no_kwargs(tr, kwargs, node)
        (v,) = args
        if isinstance(v, (int, float, bool)):
            return func(v)
        e = tr.to_expr(v)
        target = {float: np.float64, int: np.int64, bool: np.bool_}[func]
        if func is int and isinstance(v, Idx):
            return v
        return Op("cast", [e], e.shape, target)
    if func is len:
        (v,) = args
        if isinstance(v, Masked):
            v = tr.to_expr(v)  # the selection as an array of its own
        if isinstance(v, (View, Expr, complex_values.Complex)) and v.shape:
            e = as_idx(v.shape[0])
            return e.const if e.is_const() else e
        if isinstance(v, (tuple, list, dict)):
            return len(v)
        raise tr.unsupported(node, "len() of a scalar")
    if isinstance(func, type) and issubclass(func, np.generic):
        (v,) = args
        if isinstance(v, int) and not isinstance(v, bool) and issubclass(
                func, np.integer) and not np.iinfo(func).min <= v <= \
                np.iinfo(func).max:
            # NumPy 1.24 wraps with a DeprecationWarning; NumPy 2 raises.
            raise tr.error(f"Python integer {v} out of bounds for "
                           f"{np.dtype(func).name}", node)
        if isinstance(v, (int, float, bool)) and func in (
                np.float32, np.int32, np.int16, np.int8, np.uint64,
                np.uint32, np.uint16, np.uint8):
            # A scalar of that type, not a Python number: `s =
            # np.float32(0)` accumulates in float32 and `np.int32(0)` in
            # int32 (wrapping), as NumPy's.
            with np.errstate(over="ignore"):
                c = func(v)
            return ConstLeaf(c.item(), func)
        if isinstance(v, (int, float, bool)):
            return func(v).item()
        e = tr.to_expr(v)
        return Op("cast", [e], e.shape, func)
    raise tr.unsupported(node, "call of " + ast.unparse(node.func),
                         "only NumPy functions and array methods can be "
                         "called")


def dict_method(tr: "Translator", d: dict, name: str, args: list,
                kwargs: dict, node: ast.Call) -> Value:
    """`d.items()`, `d.keys()`, `d.values()`, `d.get(key[, default])` of
    a Python dict (a pytree argument): evaluated when compiling, as lists
    (a loop over them is unrolled)."""
    registry.no_kwargs(tr, kwargs, node)
    if name in ("items", "keys", "values") and not args:
        return {"items": lambda: [tuple(kv) for kv in d.items()],
                "keys": lambda: list(d), "values": lambda: list(d.values())
                }[name]()
    if name == "get" and len(args) in (1, 2):
        key = args[0]
        if isinstance(key, Idx) and key.is_const():
            key = key.const
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            raise tr.unsupported(node, "dict key computed at run time")
        return d.get(key, args[1] if len(args) == 2 else None)
    raise tr.unsupported(node, f"dict method .{name}()",
                         "of a dict's methods, items(), keys(), values() "
                         "and get() are supported")


def _cotangent(tr: "Translator", args: list, node: ast.Call) -> Value:
    """`__cot(bwd(res, g), k, n)` in a vjp program (custom_calls.py): the
    k-th cotangent, bwd's result checked to be a tuple of n, as JAX's
    custom_vjp requires."""
    cotangents, k, n = args
    if not isinstance(cotangents, (tuple, list)) or len(cotangents) != n:
        what = (f"a {type(cotangents).__name__} of {len(cotangents)}"
                if isinstance(cotangents, (tuple, list)) else "one value")
        raise custom_calls.BadCotangents(
            f"must return a tuple with one cotangent per argument of the "
            f"function ({n}), as JAX's; it returns {what}")
    if cotangents[k] is None:
        raise custom_calls.NoCotangent()
    return cotangents[k]
