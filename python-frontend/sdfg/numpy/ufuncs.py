"""Element-wise NumPy functions (NumPy's ufuncs and what is composed of
them): the unary and binary arithmetic ones, np.where, clip, fmax/fmin,
logical and bitwise ones, isclose/allclose, hypot, logaddexp, rounding,
angle conversions, heaviside, sinc, float_power; the ufunc methods
np.<ufunc>.outer/.reduce/.accumulate and np.add.at/np.subtract.at.

Formulas are chosen so that their gradients, which the autodiff takes
through the pieces, are finite where NumPy's function is differentiable:
logaddexp shifts by the larger argument inside the exponentials and the
shift cancels in the derivative; sinc divides by a denominator that is
never zero.
"""

import ast
import math
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from . import dtypes, manipulation, operands, reductions
from .registry import (Arguments, array_method, no_kwargs, numpy_call,
                       numpy_function)
from ..semantics.values import Expr, Masked, Op, Value, View, is_float

if TYPE_CHECKING:
    from ..frontend.translator import Translator


_UNARY = {"exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "abs",
          "absolute", "floor", "ceil", "sinh", "cosh", "arcsin", "arccos",
          "arctan", "arcsinh", "arccosh", "arctanh", "exp2", "log2",
          "log10", "log1p", "expm1", "cbrt", "square", "sign", "isnan",
          "isinf", "isfinite", "negative"}


_BINARY = {"add": "add", "subtract": "sub", "multiply": "mul",
           "divide": "div", "true_divide": "div", "maximum": "maximum",
           "minimum": "minimum", "power": "pow", "arctan2": "arctan2",
           "copysign": "copysign",
           "floor_divide": "floordiv", "mod": "mod", "remainder": "mod",
           "fmod": "fmod"}


# ufunc.reduce / ufunc.accumulate as the NumPy function that computes the
# same (np.add.reduce is np.sum with axis 0 by default).
_UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max",
                 "minimum": "min", "logical_and": "all", "logical_or": "any"}


_UFUNC_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod",
                     "maximum": "maximum", "minimum": "minimum"}


# Every np.<ufunc>.outer/.reduce/.accumulate (registry.numpy_call tries the
# name's last part when the whole name is not registered).
@numpy_function(".outer", ".reduce", ".accumulate")
def _ufunc_method(tr, name, args, kwargs, node):
    """np.<ufunc>.outer(a, b), .reduce(a, axis=0, keepdims=False) and
    .accumulate(a, axis=0)."""
    ufunc, method = name.rsplit(".", 1)
    if method == "outer":
        no_kwargs(tr, kwargs, node)
        if len(args) != 2:
            raise tr.error(f"np.{name} takes two arguments", node)
        a, b = args
        if isinstance(a, (View, Expr)) and isinstance(b, (View, Expr)) \
                and a.shape and b.shape:
            # a's every element against all of b: a gets b's axes, last.
            na, nb = len(a.shape), len(b.shape)
            a = manipulation.expand_dims(
                tr, operands.as_view(tr, tr.to_expr(a), node),
                tuple(range(na, na + nb)), node)
        return numpy_call(tr, ufunc, [a, b], {}, node)
    table = _UFUNC_REDUCE if method == "reduce" else _UFUNC_ACCUMULATE
    if ufunc not in table:
        raise tr.unsupported(node, f"np.{name}",
                             f"{method} is supported for "
                             + ", ".join(f"np.{u}" for u in table))
    allowed = ("axis", "keepdims") if method == "reduce" else ("axis",)
    no_kwargs(tr, kwargs, node, allowed)
    if len(args) not in (1, 2):
        raise tr.error(f"np.{name} takes an array and an axis", node)
    # Unlike np.sum and np.cumsum, the methods' axis defaults to 0.
    axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
    if axis is None and method == "accumulate":
        raise tr.error("accumulate does not allow multiple axes", node)
    if not (isinstance(args[0], (View, Expr)) and args[0].shape):
        raise tr.unsupported(node, f"np.{name} of a scalar")
    if method == "accumulate" and ufunc in ("maximum", "minimum"):
        return reductions.cumulative(tr, args[0], axis, node, op=ufunc)
    rest = {"axis": axis}
    if "keepdims" in kwargs:
        rest["keepdims"] = kwargs["keepdims"]
    return numpy_call(tr, table[ufunc], [args[0]], rest, node)


def elementwise(tr: "Translator", op: str, args: List[Value],
                node: ast.AST) -> Value:
    sel = tr.masked_operands(args, node)
    if sel is not None:
        mask, args = sel
        return Masked(elementwise(tr, op, args, node), mask)
    if all(isinstance(a, (int, float)) and not isinstance(a, bool)
           for a in args):
        import math
        py = {"exp": math.exp, "log": math.log, "sqrt": math.sqrt,
              "sin": math.sin, "cos": math.cos, "tan": math.tan,
              "tanh": math.tanh, "abs": abs, "floor": math.floor,
              "ceil": math.ceil, "arctan2": math.atan2, "maximum": max,
              "copysign": math.copysign, "fmod": math.fmod,
              "minimum": min}
        if op in py:
            return py[op](*args)
    if len(args) == 1:
        e = tr.to_expr(args[0])
        dtype = e.dtype
        if op == "negative":
            return tr.negate(e, node)
        if op in ("isnan", "isinf", "isfinite"):
            return Op(op, [e], e.shape, np.bool_)
        if op == "square" and dtype == np.bool_:
            dtype = np.dtype(np.int8)  # NumPy's square of bools
        if op not in ("abs", "square", "sign") and not is_float(dtype):
            dtype = dtypes.float_type(tr, dtype, op, node)
        if op in ("floor", "ceil") and not is_float(e.dtype):
            # NumPy 1.x: the integers, as float64.
            return Op("cast", [e], e.shape, dtype)
        return Op(op, [e], e.shape, dtype)
    if op in ("add", "sub", "mul", "div", "pow", "floordiv", "mod"):
        return tr.binop(op, args[0], args[1])
    a, b = tr.to_expr(args[0]), tr.to_expr(args[1])
    if op in ("maximum", "minimum", "fmax", "fmin") and \
            a.dtype == np.bool_ and b.dtype == np.bool_:
        # Of bools: or and and, bool as NumPy's.
        return tr.logical("or" if op in ("maximum", "fmax") else "and", a, b)
    shape = tr.broadcast_shapes(a.shape, b.shape)
    dtype = tr.result_dtype("add", a, b)
    if op in ("arctan2", "copysign") and not is_float(dtype):
        dtype = dtypes.float_type(tr, dtype, op, node)
    return Op(op, [a, b], shape, dtype)


def where(tr: "Translator", cond: Value, x: Value, y: Value,
          node: ast.AST) -> Value:
    c, a, b = tr.to_bool(cond), tr.to_expr(x), tr.to_expr(y)
    shape = tr.broadcast_shapes(c.shape, tr.broadcast_shapes(a.shape,
                                                              b.shape))
    dtype = np.dtype(np.bool_) if a.dtype == np.bool_ and \
        b.dtype == np.bool_ else tr.result_dtype("where", a, b)
    return Op("where", [c, a, b], shape, dtype)


def _one(tr, args, name, node):
    if len(args) != 1:
        raise tr.error(f"np.{name} takes one argument", node)
    return args[0]


def float_operands(tr: "Translator", args: List[Value], count: Value,
                   name: str, node: ast.AST, by_width: bool = False
                   ) -> Value:
    """The arguments as float expressions (ints convert, as NumPy's
    floating-point ufuncs do: with `by_width`, in the float type of
    their common integer type, as np.hypot's int16 operands are
    float32; else in float64)."""
    if len(args) != count:
        raise tr.error(f"np.{name} takes {count} argument"
                       f"{'s' if count > 1 else ''}", node)
    exprs = [tr.to_expr(a) for a in args]
    all_ints = not any(is_float(e.dtype) for e in exprs)
    common = exprs[0].dtype if len(exprs) == 1 else \
        tr.result_dtype("add", exprs[0], exprs[1])
    out = []
    for e in exprs:
        if not is_float(e.dtype):
            target = np.dtype(np.float64)
            if by_width:
                # Ints among floats: each in its own float type (the
                # ufunc's promotion does the rest).
                target = dtypes.float_type(
                    tr, common if all_ints else e.dtype, name, node)
            e = Op("cast", [e], e.shape, target)
        out.append(e)
    return out


def logaddexp(tr: "Translator", a: Value, b: Value, node: ast.AST) -> Value:
    """log(exp(a) + exp(b)) = m + log(exp(a - m) + exp(b - m)) with m the
    larger argument (0 where it is infinite, so that infinities come out
    as NumPy's). The derivative in a is exp(a - m) / sum whichever
    argument the maximum's gradient credits: its terms cancel."""
    m = elementwise(tr, "maximum", [a, b], node)
    shift = where(tr, Op("isinf", [m], m.shape, np.bool_), 0.0, m, node)
    total = tr.binop("add",
                     elementwise(tr, "exp", [tr.binop("sub", a, shift)],
                                    node),
                     elementwise(tr, "exp", [tr.binop("sub", b, shift)],
                                    node))
    return tr.binop("add", shift, elementwise(tr, "log", [total], node))


def round_(tr: "Translator", a: Value, decimals: Value,
           node: ast.AST) -> Value:
    """NumPy's round half to even, scaled by 10**decimals as NumPy does."""
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return float(np.round(a, decimals))
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise tr.unsupported(node, "decimals that are not a constant "
                             "integer")
    e = tr.to_expr(a)
    if not is_float(e.dtype):
        if decimals >= 0:
            return e
        raise tr.unsupported(node, "rounding integers to negative decimals")
    if decimals == 0:
        return Op("rint", [e], e.shape, e.dtype)
    scale = 10.0 ** abs(decimals)
    up = "mul" if decimals > 0 else "div"
    down = "div" if decimals > 0 else "mul"
    scaled = tr.to_expr(tr.binop(up, e, scale))
    return tr.binop(down, Op("rint", [scaled], scaled.shape, e.dtype), scale)


@numpy_function("allclose", "isclose")
def np_isclose(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    def ew(op, *xs):
        return elementwise(tr, op, list(xs), node)
    # NumPy's test: |a - b| <= atol + rtol |b| where both are finite,
    # equality otherwise (infinities of one sign are close), NaNs only
    # with equal_nan.
    only("a", "b", "rtol", "atol", "equal_nan")
    a, b = tr.to_expr(arg(0, "a")), tr.to_expr(arg(1, "b"))
    rtol, atol = arg(2, "rtol", 1e-05), arg(3, "atol", 1e-08)
    equal_nan = arg(4, "equal_nan", False)
    if not isinstance(equal_nan, bool):
        raise tr.unsupported(node, f"np.{name} with equal_nan computed "
                             "at run time")
    finite = tr.logical("and", Op("isfinite", [a], a.shape, np.bool_),
                        Op("isfinite", [b], b.shape, np.bool_))
    within = tr.binop("le", ew("abs", tr.binop("sub", a, b)),
                      tr.binop("add", atol,
                               tr.binop("mul", rtol, ew("abs", b))))
    close = where(tr, finite, within, tr.binop("eq", a, b), node)
    if equal_nan:
        close = tr.logical("or", close, tr.logical(
            "and", Op("isnan", [a], a.shape, np.bool_),
            Op("isnan", [b], b.shape, np.bool_)))
    if name == "isclose":
        return close
    return numpy_call(tr, "all", [close], {}, node)


@numpy_function("bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor",
                "invert", "left_shift", "right_shift")
def np_invert(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    unary = name in ("invert", "bitwise_not")
    want = 1 if unary else 2
    if len(args) != want:
        raise tr.error(f"np.{name} takes {want} argument"
                       f"{'s' if want > 1 else ''}", node)
    if unary:
        return tr.invert(args[0], node)
    if name.endswith("_shift"):
        return tr.shift("shl" if name == "left_shift" else "shr",
                        args[0], args[1], node)
    return tr.bitwise(name[len("bitwise_"):], args[0], args[1], node)


@numpy_function("logical_and", "logical_not", "logical_or", "logical_xor")
def np_logical_and(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    # Truth values of any operand (nonzero), combined; bool results.
    only()
    want = 1 if name == "logical_not" else 2
    if len(args) != want:
        raise tr.error(f"np.{name} takes {want} argument"
                       f"{'s' if want > 1 else ''}", node)
    if name == "logical_not":
        return tr.unary("not", tr.to_bool(args[0]))
    r = tr.logical(name[len("logical_"):], args[0], args[1])
    return bool(r) if isinstance(r, (bool, int)) else r


@numpy_function("hypot")
def np_hypot(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    def ew(op, *xs):
        return elementwise(tr, op, list(xs), node)
    only()
    a, b = float_operands(tr, args, 2, name, node, by_width=True)
    return ew("sqrt", tr.binop("add", tr.binop("mul", a, a),
                               tr.binop("mul", b, b)))


@numpy_function("logaddexp", "logaddexp2")
def np_logaddexp(tr: "Translator", name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    a, b = float_operands(tr, args, 2, name, node, by_width=True)
    if name == "logaddexp2":
        ln2 = math.log(2.0)
        r = logaddexp(tr, tr.binop("mul", a, ln2), tr.binop("mul", b, ln2),
                      node)
        return tr.binop("div", r, ln2)
    return logaddexp(tr, a, b, node)


@numpy_function("reciprocal")
def np_reciprocal(tr: "Translator", name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    (x,) = float_operands(tr, args, 1, name, node)
    return tr.binop("div", 1.0, x)


@numpy_function("fix", "rint", "trunc")
def np_rint(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    e = tr.to_expr(_one(tr, args, name, node))
    if not is_float(e.dtype):
        # NumPy 1.x: the integers, as float64 (float32 of int16).
        return Op("cast", [e], e.shape,
                  dtypes.float_type(tr, e.dtype, name, node))
    return Op("rint" if name == "rint" else "trunc", [e], e.shape,
              e.dtype)


@numpy_function("around", "round_")
@numpy_function("round", method=True)
def np_round(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only("decimals")
    return round_(tr, arg(0, "a"), arg(1, "decimals", 0), node)


@numpy_function("deg2rad", "degrees", "rad2deg", "radians")
def np_deg2rad(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    (x,) = float_operands(tr, args, 1, name, node)
    factor = math.pi / 180 if name in ("deg2rad", "radians") else \
        180 / math.pi
    return tr.binop("mul", x, factor)


@numpy_function("heaviside")
def np_heaviside(tr: "Translator", name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    x, h0 = float_operands(tr, args, 2, name, node)
    inner = where(tr, tr.binop("gt", x, 0), 1.0, h0, node)
    step = where(tr, tr.binop("lt", x, 0), 0.0, inner, node)
    return where(tr, Op("isnan", [x], x.shape, np.bool_), x, step,
                    node)


@numpy_function("sinc")
def np_sinc(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    def ew(op, *xs):
        return elementwise(tr, op, list(xs), node)
    only()
    (x,) = float_operands(tr, args, 1, name, node)
    zero = tr.binop("eq", x, 0)
    safe = tr.binop("mul", where(tr, zero, 1.0, x, node), math.pi)
    return where(tr, zero, 1.0, tr.binop("div", ew("sin", safe),
                                             safe), node)


@numpy_function("float_power")
def np_float_power(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    only = arg.only
    only()
    a, b = (tr.to_expr(x) for x in args)
    return tr.binop("pow", Op("cast", [a], a.shape, np.float64),
                    Op("cast", [b], b.shape, np.float64))


@numpy_function("clip", positional=("a", "a_min", "a_max"), method=True)
def np_clip(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    no_kwargs(tr, kwargs, node, ("a_min", "a_max"))
    x, lo, hi = arg(0, "a"), arg(1, "a_min"), arg(2, "a_max")
    if lo is not None:
        x = elementwise(tr, "maximum", [x, lo], node)
    if hi is not None:
        x = elementwise(tr, "minimum", [x, hi], node)
    return x


@numpy_function("fmax", "fmin", positional=("x1", "x2"))
def np_fmax(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    a, b = (tr.to_expr(v) for v in args)
    if a.dtype == np.bool_ and b.dtype == np.bool_:
        return tr.logical("or" if name == "fmax" else "and", a, b)
    shape = tr.broadcast_shapes(a.shape, b.shape)
    return Op(name, [a, b], shape, tr.result_dtype("add", a, b))


@numpy_function("abs", "absolute", "arccos", "arccosh", "arcsin", "arcsinh",
                "arctan", "arctanh", "cbrt", "ceil", "cos", "cosh", "exp",
                "exp2", "expm1", "floor", "isfinite", "isinf", "isnan", "log",
                "log10", "log1p", "log2", "negative", "sign", "sin", "sinh",
                "sqrt", "square", "tan", "tanh")
def np_unary(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if len(args) != 1:
        raise tr.error(f"np.{name} takes one argument", node)
    op = "abs" if name == "absolute" else name
    return elementwise(tr, op, args, node)


@numpy_function("add", "arctan2", "copysign", "divide", "floor_divide", "fmod",
                "maximum", "minimum", "mod", "multiply", "power", "remainder",
                "subtract", "true_divide")
def np_binary(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if len(args) != 2:
        raise tr.error(f"np.{name} takes two arguments", node)
    return elementwise(tr, _BINARY[name], args, node)


@numpy_function("divmod")
def np_divmod(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if len(args) != 2:
        raise tr.error("np.divmod takes two arguments", node)
    return (elementwise(tr, "floordiv", args, node),
            elementwise(tr, "mod", args, node))


@numpy_function("where")
def np_where(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if len(args) != 3:
        raise tr.unsupported(node, "np.where with one argument")
    return where(tr, *args, node)


@numpy_function("add.at", "subtract.at")
def np_add_at(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if len(args) != 3:
        raise tr.error(f"np.{name} takes three arguments (array, "
                       "indices, values)", node)
    if name == "subtract.at":
        # x[idx] -= v for each index, repeated ones all applied: the
        # accumulation of -v.
        args = [args[0], args[1], tr.binop("sub", 0, args[2])]
    target = args[0]
    if not (isinstance(target, View) and target.ndim > 0):
        raise tr.unsupported(node, "np.add.at into a non-array",
                             "the first argument must be an array "
                             "variable")
    if target.container.kind == "arg":
        # Into an argument: the contributions are summed into a zeroed
        # transient first, then added. The autodiff restores an
        # accumulated container from the write that initialised it,
        # which an argument's accumulation lacks.
        staged = tr.transient_view(list(target.shape), target.dtype,
                                   node, "scattered")
        tr.store(staged, 0)
        fancy = tr.index_items(staged, args[1], node)
        tr.scatter(fancy, args[2], node, wcr="add")
        tr.store(target, tr.binop("add", target, staged))
        return None
    fancy = tr.index_items(target, args[1], node)
    tr.scatter(fancy, args[2], node, wcr="add")
    return None


@array_method(*sorted(_UNARY))
def unary_method(tr: "Translator", obj: Value, name: str, args: List[Value],
                 kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return elementwise(tr, name, [obj], node)


@array_method(*_BINARY)
def binary_method(tr: "Translator", obj: Value, name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    return elementwise(tr, _BINARY[name], [obj] + args, node)
