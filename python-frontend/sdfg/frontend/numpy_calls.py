"""NumPy functions and array methods, and the scalar ops they lower to."""

import ast

import numpy as np

from .values import (ConstLeaf, Expr, Idx, IdxLeaf, Masked, Op, View,
                     ViewLeaf, as_idx, is_float, mlir_scalar, same_extent)

# ----------------------------------------------------------------------------
# Scalar code inside tasklets
# ----------------------------------------------------------------------------

_FLOAT_UNARY = {
    "exp": "math.exp", "log": "math.log", "sqrt": "math.sqrt",
    "sin": "math.sin", "cos": "math.cos", "tan": "math.tan",
    "tanh": "math.tanh", "abs": "math.absf", "floor": "math.floor",
    "ceil": "math.ceil", "sinh": "math.sinh", "cosh": "math.cosh",
    "arcsin": "math.asin", "arccos": "math.acos", "arctan": "math.atan",
    "arcsinh": "math.asinh", "arccosh": "math.acosh",
    "arctanh": "math.atanh", "exp2": "math.exp2", "log2": "math.log2",
    "log10": "math.log10", "log1p": "math.log1p", "expm1": "math.expm1",
    "cbrt": "math.cbrt", "rint": "math.roundeven", "trunc": "math.trunc",
}

_CMP_F = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq",
          "ne": "une"}
_CMP_I = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq",
          "ne": "ne"}


def _int_divisor(tb, b, dt, ty):
    """(b is 0 or -1, b with those replaced by 1): the divisors for which
    the hardware division traps (0, and -1 of the minimum integer), where
    NumPy returns a value instead."""
    zero = tb.op(f"arith.cmpi eq, {b}, {tb.const(0, dt)}", ty)
    minus_one = tb.op(f"arith.cmpi eq, {b}, {tb.const(-1, dt)}", ty)
    special = tb.op(f"arith.ori {zero}, {minus_one}", "i1")
    return special, tb.op(f"arith.select {special}, {tb.const(1, dt)}, {b}",
                          ty)


def gen_op(tb, e, args, arg_dtypes):
    """Emits the scalar code of Op `e` given its argument SSA names."""
    op, dt = e.op, e.dtype
    ty = mlir_scalar(dt)
    if op == "cast":
        return tb.convert(args[0], arg_dtypes[0], dt)
    if op in _CMP_F:
        ct = np.result_type(*arg_dtypes)
        a = [tb.convert(x, d, ct) for x, d in zip(args, arg_dtypes)]
        if is_float(ct):
            return tb.op(f"arith.cmpf {_CMP_F[op]}, {a[0]}, {a[1]}",
                         mlir_scalar(ct))
        pred = _CMP_I[op]
        if ct == np.bool_:
            # i1 compared signed has True = -1: bools compare unsigned.
            pred = pred.replace("s", "u", 1) if pred[0] == "s" else pred
        return tb.op(f"arith.cmpi {pred}, {a[0]}, {a[1]}", mlir_scalar(ct))
    if op in ("and", "or", "xor"):
        a = [tb.convert(x, d, np.bool_) for x, d in zip(args, arg_dtypes)]
        return tb.op(f"arith.{op}i {a[0]}, {a[1]}", "i1")
    if op in ("bitand", "bitor", "bitxor"):
        a = [tb.convert(x, d, dt) for x, d in zip(args, arg_dtypes)]
        return tb.op(f"arith.{op[3:]}i {a[0]}, {a[1]}", ty)
    if op == "bitnot":
        a = tb.convert(args[0], arg_dtypes[0], dt)
        return tb.op(f"arith.xori {a}, {tb.const(-1, dt)}", ty)
    if op in ("shl", "shr"):
        a = [tb.convert(x, d, dt) for x, d in zip(args, arg_dtypes)]
        bits = tb.const(dt.itemsize * 8, dt)
        # Unsigned compare: a negative count is out of range too.
        inside = tb.op(f"arith.cmpi ult, {a[1]}, {bits}", ty)
        safe = tb.op(f"arith.select {inside}, {a[1]}, {tb.const(0, dt)}",
                     ty)
        if op == "shl":
            moved = tb.op(f"arith.shli {a[0]}, {safe}", ty)
            out = tb.const(0, dt)
        else:
            moved = tb.op(f"arith.shrsi {a[0]}, {safe}", ty)
            # All bits shifted out leave the sign: 0 or -1.
            out = tb.op(f"arith.shrsi {a[0]}, "
                        f"{tb.const(dt.itemsize * 8 - 1, dt)}", ty)
        return tb.op(f"arith.select {inside}, {moved}, {out}", ty)
    if op == "not":
        a = tb.convert(args[0], arg_dtypes[0], np.bool_)
        true = tb.const(True, np.bool_)
        return tb.op(f"arith.xori {a}, {true}", "i1")
    if op == "where":
        c = tb.convert(args[0], arg_dtypes[0], np.bool_)
        x = tb.convert(args[1], arg_dtypes[1], dt)
        y = tb.convert(args[2], arg_dtypes[2], dt)
        return tb.op(f"arith.select {c}, {x}, {y}", ty)
    a = [tb.convert(x, d, dt) for x, d in zip(args, arg_dtypes)]
    f = is_float(dt)
    if op == "add":
        return tb.op(f"arith.{'addf' if f else 'addi'} {a[0]}, {a[1]}", ty)
    if op == "sub":
        return tb.op(f"arith.{'subf' if f else 'subi'} {a[0]}, {a[1]}", ty)
    if op == "mul":
        return tb.op(f"arith.{'mulf' if f else 'muli'} {a[0]}, {a[1]}", ty)
    if op == "div":
        return tb.op(f"arith.divf {a[0]}, {a[1]}", ty)
    if op == "floordiv":
        if f:
            q = tb.op(f"arith.divf {a[0]}, {a[1]}", ty)
            return tb.op(f"math.floor {q}", ty)
        special, safe = _int_divisor(tb, a[1], dt, ty)
        q = tb.op(f"arith.floordivsi {a[0]}, {safe}", ty)
        # x // -1 is -x (wrapping at the minimum, as NumPy); x // 0 is 0.
        zero = tb.const(0, dt)
        minus = tb.op(f"arith.subi {zero}, {a[0]}", ty)
        by_minus_one = tb.op(f"arith.cmpi eq, {a[1]}, {tb.const(-1, dt)}",
                             ty)
        other = tb.op(f"arith.select {by_minus_one}, {minus}, {zero}", ty)
        return tb.op(f"arith.select {special}, {other}, {q}", ty)
    if op == "fmod":
        # C's fmod: the sign of the dividend (x % 0 is NaN for floats, 0
        # for integers, as NumPy).
        if f:
            return tb.op(f"arith.remf {a[0]}, {a[1]}", ty)
        special, safe = _int_divisor(tb, a[1], dt, ty)
        r = tb.op(f"arith.remsi {a[0]}, {safe}", ty)
        return tb.op(f"arith.select {special}, {tb.const(0, dt)}, {r}", ty)
    if op == "mod":
        # Python/NumPy semantics: the result has the sign of the divisor.
        if f:
            r = tb.op(f"arith.remf {a[0]}, {a[1]}", ty)
            zero = tb.const(0.0, dt)
            rneg = tb.op(f"arith.cmpf olt, {r}, {zero}", ty)
            bneg = tb.op(f"arith.cmpf olt, {a[1]}, {zero}", ty)
            rnz = tb.op(f"arith.cmpf une, {r}, {zero}", ty)
        else:
            special, safe = _int_divisor(tb, a[1], dt, ty)
            r = tb.op(f"arith.remsi {a[0]}, {safe}", ty)
            zero = tb.const(0, dt)
            # x % 0 is 0 in NumPy, and so is x % -1.
            r = tb.op(f"arith.select {special}, {zero}, {r}", ty)
            rneg = tb.op(f"arith.cmpi slt, {r}, {zero}", ty)
            bneg = tb.op(f"arith.cmpi slt, {a[1]}, {zero}", ty)
            rnz = tb.op(f"arith.cmpi ne, {r}, {zero}", ty)
        differ = tb.op(f"arith.xori {rneg}, {bneg}", "i1")
        fix = tb.op(f"arith.andi {rnz}, {differ}", "i1")
        adj = tb.op(f"arith.{'addf' if f else 'addi'} {r}, {a[1]}", ty)
        return tb.op(f"arith.select {fix}, {adj}, {r}", ty)
    if op == "pow":
        base, exp = e.args
        if isinstance(exp, ConstLeaf) and float(exp.value).is_integer() and \
                0 <= exp.value <= 4:
            n = int(exp.value)
            if n == 0:
                return tb.const(1, dt)
            acc = a[0]
            for _ in range(n - 1):
                acc = tb.op(f"arith.{'mulf' if f else 'muli'} {acc}, {a[0]}",
                            ty)
            return acc
        if f:
            return tb.op(f"math.powf {a[0]}, {a[1]}", ty)
        # An integer to a constant power n >= 0 (Translator.binop rejects
        # the others): square and multiply, wrapping as NumPy does.
        n, acc, square = int(exp.value), tb.const(1, dt), a[0]
        while n:
            if n & 1:
                acc = tb.op(f"arith.muli {acc}, {square}", ty)
            n >>= 1
            if n:
                square = tb.op(f"arith.muli {square}, {square}", ty)
        return acc
    if op == "neg":
        if f:
            return tb.op(f"arith.negf {a[0]}", ty)
        zero = tb.const(0, dt)
        return tb.op(f"arith.subi {zero}, {a[0]}", ty)
    if op == "abs" and not f:
        return tb.op(f"math.absi {a[0]}", ty)
    if op in ("fmax", "fmin") and not f:
        return tb.op(f"arith.{'maxsi' if op == 'fmax' else 'minsi'} "
                     f"{a[0]}, {a[1]}", ty)
    if op in ("fmax", "fmin"):
        # The other operand where one is NaN; else the larger (smaller).
        pred = "oge" if op == "fmax" else "ole"
        keep = tb.op(f"arith.cmpf {pred}, {a[0]}, {a[1]}", ty)
        bnan = tb.op(f"arith.cmpf uno, {a[1]}, {a[1]}", ty)
        first = tb.op(f"arith.ori {keep}, {bnan}", "i1")
        return tb.op(f"arith.select {first}, {a[0]}, {a[1]}", ty)
    if op == "square":
        return tb.op(f"arith.{'mulf' if f else 'muli'} {a[0]}, {a[0]}", ty)
    if op == "sign":
        zero, one = tb.const(0, dt), tb.const(1, dt)
        pred = ("arith.cmpf ogt", "arith.cmpf olt") if f else \
            ("arith.cmpi sgt", "arith.cmpi slt")
        pos = tb.op(f"{pred[0]}, {a[0]}, {zero}", ty)
        neg = tb.op(f"{pred[1]}, {a[0]}, {zero}", ty)
        mone = tb.const(-1, dt)
        inner = tb.op(f"arith.select {neg}, {mone}, {zero}", ty)
        out = tb.op(f"arith.select {pos}, {one}, {inner}", ty)
        if f:  # NaN stays NaN
            nan = tb.op(f"arith.cmpf uno, {a[0]}, {a[0]}", ty)
            out = tb.op(f"arith.select {nan}, {a[0]}, {out}", ty)
        return out
    if op in ("isnan", "isinf", "isfinite"):
        x = tb.convert(args[0], arg_dtypes[0], np.float64) \
            if not is_float(arg_dtypes[0]) else args[0]
        xt = mlir_scalar(arg_dtypes[0] if is_float(arg_dtypes[0])
                         else np.float64)
        if op == "isnan":
            return tb.op(f"arith.cmpf uno, {x}, {x}", xt)
        ax = tb.op(f"math.absf {x}", xt)
        inf = tb.const(float("inf"), arg_dtypes[0] if is_float(
            arg_dtypes[0]) else np.float64)
        return tb.op(f"arith.cmpf {'oeq' if op == 'isinf' else 'olt'}, "
                     f"{ax}, {inf}", xt)
    if op in _FLOAT_UNARY:
        return tb.op(f"{_FLOAT_UNARY[op]} {a[0]}", ty)
    if op == "arctan2":
        return tb.op(f"math.atan2 {a[0]}, {a[1]}", ty)
    if op == "copysign":
        return tb.op(f"math.copysign {a[0]}, {a[1]}", ty)
    if op == "maximum":
        return tb.op(f"arith.{'maximumf' if f else 'maxsi'} {a[0]}, {a[1]}",
                     ty)
    if op == "minimum":
        return tb.op(f"arith.{'minimumf' if f else 'minsi'} {a[0]}, {a[1]}",
                     ty)
    raise AssertionError(f"unknown op {op}")


# ----------------------------------------------------------------------------
# Calls
# ----------------------------------------------------------------------------

class BoundMethod:
    """`A.sum`, `A.copy`... before it is called."""

    def __init__(self, obj, name):
        self.obj = obj
        self.name = name


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
_REDUCE = {"sum", "max", "min", "mean", "amax", "amin", "prod"}
_CREATE = {"empty", "zeros", "ones", "ndarray", "full"}
# Functions built from the element-wise ops, reductions and views above.
_MORE = {"clip", "fmax", "fmin", "var", "std", "trace", "diag", "diagonal",
         "concatenate", "stack", "reshape", "ravel", "einsum", "roll",
         "array", "asarray",
         "argmax", "argmin", "cumsum",
         "eye", "identity", "arange", "linspace", "any", "all", "linalg",
         "linalg.norm", "linalg.solve", "linalg.inv", "linalg.det",
         "linalg.slogdet", "linalg.cholesky", "linalg.eigh", "linalg.qr",
         "linalg.svd",
         "linalg.eigvalsh"}
# Array methods that are the function of the same name, the array first.
_METHODS = {"clip", "var", "std", "trace", "diagonal", "cumsum", "argmax",
            "argmin", "any", "all", "take"}
_LIKE = {"empty_like", "zeros_like", "ones_like", "full_like"}
_DTYPES = {"float64": np.float64, "float32": np.float32, "int64": np.int64,
           "int32": np.int32, "bool_": np.bool_, "double": np.float64,
           "single": np.float32}
# NumPy's abstract scalar types, for np.issubdtype(x.dtype, np.floating).
_ABSTRACT_TYPES = {"floating": np.floating, "integer": np.integer,
                   "signedinteger": np.signedinteger, "number": np.number,
                   "inexact": np.inexact, "generic": np.generic}


def as_dtype(v):
    """The NumPy dtype a compile-time value names (`x.dtype`, np.float32,
    float), else None."""
    if isinstance(v, np.dtype):
        return v
    if isinstance(v, type) and (issubclass(v, np.generic) or
                                v in (float, int, bool)):
        return np.dtype(v)
    return None


class NumpyFunction:
    def __init__(self, name):
        self.name = name


class UserFunction:
    """A Python function of the program's modules, called: inlined."""

    def __init__(self, fn):
        self.fn = fn


class LocalFunction:
    """A function defined in the program (`def rhs(z): ...`), called:
    inlined, reading free variables from its defining scope."""

    def __init__(self, node, defaults, scope):
        self.node, self.defaults, self.scope = node, defaults, scope


class LocalLambda:
    """A lambda of the program (`f = lambda z: -k * z ** 3`): its body is
    evaluated at each call, in the scope it was defined in as that scope
    is then (Python's late binding), with the parameters bound."""

    def __init__(self, node, defaults, scope):
        self.node, self.defaults, self.scope = node, defaults, scope


def numpy_attribute(tr, attr, node):
    if attr in _DTYPES:
        return _DTYPES[attr]
    if attr in _ABSTRACT_TYPES:
        return _ABSTRACT_TYPES[attr]
    if attr in ("pi", "e", "inf", "nan"):
        return float(getattr(np, attr))
    if attr == "newaxis":
        return None
    from . import math_functions, searching, shape_functions, sorting
    if attr in math_functions.FUNCTIONS or \
            attr in shape_functions.FUNCTIONS or \
            attr in sorting.FUNCTIONS or attr in searching.FUNCTIONS:
        return NumpyFunction(attr)
    if attr in _UNARY or attr in _BINARY or attr in _REDUCE or \
            attr in _CREATE or attr in _LIKE or attr in (
                "dot", "matmul", "transpose", "copy", "where", "outer",
                "take", "fill_diagonal", "issubdtype", "divmod") or \
            attr in _MORE:
        return NumpyFunction(attr)
    raise tr.unsupported(node, f"np.{attr}",
                         "this NumPy function is not supported by the sdfg "
                         "frontend")


def call(tr, node):
    tr._call_func_node = node.func
    try:
        func = tr.eval(node.func)
    finally:
        tr._call_func_node = None
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
    if isinstance(func, NumpyFunction):
        return numpy_call(tr, func.name, args, kwargs, node)
    if isinstance(func, UserFunction):
        return tr.inline_call(func.fn, args, kwargs, node)
    if isinstance(func, LocalLambda):
        return tr.call_lambda(func, args, kwargs, node)
    if isinstance(func, LocalFunction):
        return tr.call_local(func, args, kwargs, node)
    if isinstance(func, BoundMethod):
        return method_call(tr, func.obj, func.name, args, kwargs, node)
    from . import math_functions
    if isinstance(func, math_functions.MathFunction):
        return math_functions.math_call(tr, func, args, kwargs, node)
    if func is round:
        _no_kwargs(tr, kwargs, node, ("ndigits",))
        ndigits = kwargs.get("ndigits", args[1] if len(args) > 1 else None)
        if isinstance(args[0], (int, float)) and not isinstance(args[0],
                                                                bool):
            return round(args[0], ndigits)
        if ndigits is not None:
            return math_functions.round_(tr, args[0], ndigits, node)
        e = tr.to_expr(math_functions.round_(tr, args[0], 0, node))
        return e if not is_float(e.dtype) else Op("cast", [e], e.shape,
                                                  np.int64)
    if func is sum:
        _no_kwargs(tr, kwargs, node, ("start",))
        start = kwargs.get("start", args[1] if len(args) > 1 else 0)
        items = args[0]
        if isinstance(items, (tuple, list)):
            total = start
            for x in items:
                total = tr.binop("add", total, x)
            return total
        if isinstance(items, (View, Expr)) and len(items.shape) > 0:
            # Python's sum iterates over the first axis.
            return tr.binop("add", reduce(tr, "sum", items, 0, False, node),
                            start)
        raise tr.unsupported(node, "sum() of a scalar")
    if func is slice:
        # `sl = slice(1, -1)`; `A[sl, sl]` reads it as `A[1:-1, 1:-1]`.
        _no_kwargs(tr, kwargs, node)
        if not 1 <= len(args) <= 3:
            raise tr.error("slice expected 1 to 3 arguments", node)
        return slice(*[None if a is None else tr.control_index(a, node)
                       for a in args])
    if func is divmod:
        _no_kwargs(tr, kwargs, node)
        if len(args) != 2:
            raise tr.error("divmod expected 2 arguments", node)
        return (tr.binop("floordiv", args[0], args[1]),
                tr.binop("mod", args[0], args[1]))
    if func is range:
        raise tr.unsupported(node, "range outside a for loop")
    if func in (abs,):
        _no_kwargs(tr, kwargs, node)
        return elementwise(tr, "abs", args, node)
    if func in (min, max):
        _no_kwargs(tr, kwargs, node)
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
                result = elementwise(tr, "maximum" if func is max
                                     else "minimum", [result, a], node)
        return result
    if func in (float, int, bool):
        _no_kwargs(tr, kwargs, node)
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
        if isinstance(v, (View, Expr)) and v.shape:
            e = as_idx(v.shape[0])
            return e.const if e.is_const() else e
        if isinstance(v, tuple):
            return len(v)
        raise tr.unsupported(node, "len() of a scalar")
    if isinstance(func, type) and issubclass(func, np.generic):
        (v,) = args
        if isinstance(v, (int, float, bool)) and func in (
                np.float32, np.int32):
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


# ufunc.reduce / ufunc.accumulate as the NumPy function that computes the
# same (np.add.reduce is np.sum with axis 0 by default).
_UFUNC_REDUCE = {"add": "sum", "multiply": "prod", "maximum": "max",
                 "minimum": "min", "logical_and": "all", "logical_or": "any"}
_UFUNC_ACCUMULATE = {"add": "cumsum", "multiply": "cumprod",
                     "maximum": "maximum", "minimum": "minimum"}


def _ufunc_method(tr, name, args, kwargs, node):
    """np.<ufunc>.outer(a, b), .reduce(a, axis=0, keepdims=False) and
    .accumulate(a, axis=0)."""
    ufunc, method = name.rsplit(".", 1)
    if method == "outer":
        _no_kwargs(tr, kwargs, node)
        if len(args) != 2:
            raise tr.error(f"np.{name} takes two arguments", node)
        from . import shape_functions
        a, b = args
        if isinstance(a, (View, Expr)) and isinstance(b, (View, Expr)) \
                and a.shape and b.shape:
            # a's every element against all of b: a gets b's axes, last.
            na, nb = len(a.shape), len(b.shape)
            a = shape_functions.expand_dims(
                tr, _as_view(tr, tr.to_expr(a), node),
                tuple(range(na, na + nb)), node)
        return numpy_call(tr, ufunc, [a, b], {}, node)
    table = _UFUNC_REDUCE if method == "reduce" else _UFUNC_ACCUMULATE
    if ufunc not in table:
        raise tr.unsupported(node, f"np.{name}",
                             f"{method} is supported for "
                             + ", ".join(f"np.{u}" for u in table))
    allowed = ("axis", "keepdims") if method == "reduce" else ("axis",)
    _no_kwargs(tr, kwargs, node, allowed)
    if len(args) not in (1, 2):
        raise tr.error(f"np.{name} takes an array and an axis", node)
    # Unlike np.sum and np.cumsum, the methods' axis defaults to 0.
    axis = kwargs.get("axis", args[1] if len(args) > 1 else 0)
    if axis is None and method == "accumulate":
        raise tr.error("accumulate does not allow multiple axes", node)
    if not (isinstance(args[0], (View, Expr)) and args[0].shape):
        raise tr.unsupported(node, f"np.{name} of a scalar")
    if method == "accumulate" and ufunc in ("maximum", "minimum"):
        return _cumsum(tr, args[0], axis, node, op=ufunc)
    rest = {"axis": axis}
    if "keepdims" in kwargs:
        rest["keepdims"] = kwargs["keepdims"]
    return numpy_call(tr, table[ufunc], [args[0]], rest, node)


def _no_kwargs(tr, kwargs, node, allowed=()):
    for k in kwargs:
        if k not in allowed:
            raise tr.unsupported(node, f"keyword argument '{k}'")


class Arguments:
    """One call's arguments as NumPy binds them: `arg(k, key)` is the
    keyword `key` if given, else the k-th positional argument, else the
    default; `arg.only(...)` rejects keywords outside the list given."""

    def __init__(self, tr, args, kwargs, node):
        self.tr, self.args, self.kwargs, self.node = tr, args, kwargs, node

    def __call__(self, k, key, default=None):
        if key in self.kwargs:
            return self.kwargs[key]
        return self.args[k] if len(self.args) > k else default

    def only(self, *allowed):
        _no_kwargs(self.tr, self.kwargs, self.node, allowed)


def numpy_call(tr, name, args, kwargs, node):
    if name in _UNARY:
        _no_kwargs(tr, kwargs, node)
        if len(args) != 1:
            raise tr.error(f"np.{name} takes one argument", node)
        op = "abs" if name == "absolute" else name
        return elementwise(tr, op, args, node)
    if name in _BINARY:
        _no_kwargs(tr, kwargs, node)
        if len(args) != 2:
            raise tr.error(f"np.{name} takes two arguments", node)
        return elementwise(tr, _BINARY[name], args, node)
    if name == "divmod":
        _no_kwargs(tr, kwargs, node)
        if len(args) != 2:
            raise tr.error("np.divmod takes two arguments", node)
        return (elementwise(tr, "floordiv", args, node),
                elementwise(tr, "mod", args, node))
    if name == "issubdtype":
        _no_kwargs(tr, kwargs, node)
        if len(args) != 2 or not all(
                isinstance(a, type) or isinstance(a, np.dtype) for a in args):
            raise tr.unsupported(node, "np.issubdtype of values other than "
                                 "dtypes and NumPy's scalar types")
        return bool(np.issubdtype(args[0], args[1]))
    if name in _REDUCE:
        _no_kwargs(tr, kwargs, node, ("axis", "keepdims") + (
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
            dtype = np.dtype(_dtype(tr, dtype, node))
            e = tr.to_expr(a)
            a = Op("cast", [e], e.shape, dtype)
        r = reduce(tr, name, a, arg(1, "axis"),
                   bool(kwargs.get("keepdims", False)), node)
        return r if dtype is None else _in_dtype(tr, r, dtype)
    if name in _CREATE:
        _no_kwargs(tr, kwargs, node, ("dtype", "shape", "fill_value"))
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
    if name in _LIKE:
        _no_kwargs(tr, kwargs, node, ("dtype",))
        proto = tr.to_expr(args[0])
        dtype = kwargs.get("dtype", proto.dtype)
        fill = args[1] if name == "full_like" else None
        return create(tr, name[:-5], tuple(proto.shape), dtype, fill, node)
    if name in ("dot", "matmul"):
        _no_kwargs(tr, kwargs, node)
        if name == "dot":
            _check_dot(tr, args, node)
        return matmul(tr, args[0], args[1], node)
    if name == "transpose":
        _no_kwargs(tr, kwargs, node, ("axes",))
        axes = kwargs.get("axes", args[1] if len(args) > 1 else None)
        return transpose(tr, args[0], axes, node)
    if name == "copy":
        _no_kwargs(tr, kwargs, node)
        return copy(tr, args[0], node)
    if name in ("array", "asarray"):
        _no_kwargs(tr, kwargs, node, ("dtype",))
        return _array(tr, name, args[0], kwargs.get(
            "dtype", args[1] if len(args) > 1 else None), node)
    if name == "where":
        _no_kwargs(tr, kwargs, node)
        if len(args) != 3:
            raise tr.unsupported(node, "np.where with one argument")
        return where(tr, *args, node)
    if name in _MORE:
        return _more(tr, name, args, kwargs, node)
    from . import math_functions, searching, shape_functions, sorting
    if name in shape_functions.FUNCTIONS:
        return shape_functions.call(tr, name, args, kwargs, node)
    if name in sorting.FUNCTIONS:
        return sorting.call(tr, name, args, kwargs, node)
    if name in searching.FUNCTIONS:
        return searching.call(tr, name, args, kwargs, node)
    if name in math_functions.FUNCTIONS:
        return math_functions.call(tr, name, args, kwargs, node)
    if name.endswith((".outer", ".reduce", ".accumulate")):
        return _ufunc_method(tr, name, args, kwargs, node)
    if name == "fill_diagonal":
        return _fill_diagonal(tr, args, kwargs, node)
    if name in ("add.at", "subtract.at"):
        _no_kwargs(tr, kwargs, node)
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
    if name == "take":
        _no_kwargs(tr, kwargs, node, ("axis",))
        if len(args) not in (2, 3):
            raise tr.error("np.take takes an array, indices and an axis",
                           node)
        axis = kwargs.get("axis", args[2] if len(args) > 2 else None)
        a = _as_view(tr, tr.to_expr(args[0]), node)
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
    if name == "outer":
        _no_kwargs(tr, kwargs, node)
        a, b = (tr.to_expr(x) for x in args)
        a = _as_view(tr, a, node)
        b = _as_view(tr, b, node)
        if a.ndim != 1 or b.ndim != 1:
            raise tr.unsupported(node, "np.outer of non-vectors")
        col = tr.subscript(a, [ast.Slice(), ast.Constant(None)], node)
        row = tr.subscript(b, [ast.Constant(None), ast.Slice()], node)
        return tr.binop("mul", col, row)
    raise tr.unsupported(node, f"np.{name}")


def method_call(tr, obj, name, args, kwargs, node):
    if name in ("sum", "mean", "prod") and "dtype" in kwargs:
        return numpy_call(tr, name, [obj] + list(args), kwargs, node)
    if name in ("sum", "max", "min", "mean", "prod"):
        _no_kwargs(tr, kwargs, node, ("axis", "keepdims"))
        axis = kwargs.get("axis", args[0] if args else None)
        return reduce(tr, name, obj, axis,
                      bool(kwargs.get("keepdims", False)), node)
    if name == "copy":
        return copy(tr, obj, node)
    if name == "reshape":
        _no_kwargs(tr, kwargs, node)
        shape = args[0] if len(args) == 1 else tuple(args)
        return reshape(tr, obj, shape, node)
    if name in ("ravel", "flatten"):
        _no_kwargs(tr, kwargs, node)
        if args:
            raise tr.unsupported(node, f".{name}() with an order",
                                 "only the C order is supported")
        out = reshape(tr, obj, (-1,), node)
        if name == "flatten":
            # A copy in NumPy too: its own array, written freely.
            tr.reshaped.discard(out.container)
            tr.reshape_sources.pop(out.container, None)
        return out
    if name == "transpose":
        return transpose(tr, obj, args if args else None, node)
    if name in ("dot",):
        _check_dot(tr, [obj] + list(args), node)
        return matmul(tr, obj, args[0], node)
    if name in _UNARY:
        return elementwise(tr, name, [obj], node)
    if name == "astype":
        (dtype,) = args
        e = tr.to_expr(obj)
        return Op("cast", [e], e.shape, _dtype(tr, dtype, node))
    if name in _BINARY:
        return elementwise(tr, _BINARY[name], [obj] + args, node)
    from . import math_functions, searching, shape_functions, sorting
    if name == "sort":
        return sorting.method_call(tr, obj, name, args, kwargs, node)
    if name in _METHODS or name in shape_functions.METHODS or \
            name in math_functions.METHODS or name in sorting.METHODS or \
            name in searching.METHODS:
        # The method of the NumPy function of that name, the array first.
        return numpy_call(tr, name, [obj] + list(args), kwargs, node)
    raise tr.unsupported(node, f"array method .{name}()")


# ----------------------------------------------------------------------------
# Element-wise, reductions, creation
# ----------------------------------------------------------------------------

def elementwise(tr, op, args, node):
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
            dtype = np.dtype(np.float64)
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
        dtype = np.dtype(np.float64)
    return Op(op, [a, b], shape, dtype)


def where(tr, cond, x, y, node):
    c, a, b = tr.to_bool(cond), tr.to_expr(x), tr.to_expr(y)
    shape = tr.broadcast_shapes(c.shape, tr.broadcast_shapes(a.shape,
                                                              b.shape))
    dtype = np.dtype(np.bool_) if a.dtype == np.bool_ and \
        b.dtype == np.bool_ else tr.result_dtype("where", a, b)
    return Op("where", [c, a, b], shape, dtype)


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


def reduce(tr, name, value, axis, keepdims, node):
    if isinstance(value, Masked):
        return _reduce_masked(tr, name, value, axis, keepdims, node)
    e = tr.to_expr(value)
    if e.dtype == np.bool_ and name in ("max", "amax", "min", "amin"):
        # Of bools: any and all, bool as NumPy's.
        flags = reduce(tr, name, Op("cast", [e], e.shape, np.int8), axis,
                       keepdims, node)
        return tr.binop("ne", flags, 0)
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
        lbs = ", ".join("0" for _ in params)
        ubs = ", ".join(as_idx(x).render() for x in e.shape)
        steps = ", ".join("1" for _ in params)
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
        with tr.em.block(f"sdfg.map ({', '.join(params)}) = ({lbs}) to "
                         f"({ubs}) step ({steps}) schedule({schedule})"):
            val = tr.emit_scalar(e, coords, rank, dtype)
            tr.emit_store(val, out, out_coords, kind)
    if name == "mean":
        count = element_count(tr, [e.shape[d] for d in axes], node,
                              "mean")
        mean = tr.binop("div", ViewLeaf(out), count if isinstance(
            count, Idx) else float(count))
        # In the sum's type, as NumPy's mean (a float32 mean is float32
        # even where the sum is a 0-d value, which divides as float64).
        mean = tr.to_expr(mean)
        return mean if mean.dtype == dtype else \
            Op("cast", [mean], mean.shape, dtype)
    return ViewLeaf(out)


def _reduce_masked(tr, name, value, axis, keepdims, node):
    """np.sum/np.prod/np.mean of x[mask]: the reduction of np.where(mask,
    x, identity); the mean divides by the number selected (0/0 = nan on
    an empty selection, as NumPy's mean). max and min are not: NumPy
    raises on an empty selection, where the identity would be returned.
    The selection's first axis (NumPy's x[mask] has 1 + x.ndim - mask.ndim
    axes: the selected elements or rows, then x's remaining ones) has a
    length only the data knows, so an axis= must include it."""
    if name not in ("sum", "prod", "mean"):
        raise tr.unsupported(node, f"np.{name} of a masked selection",
                             "NumPy raises on an empty selection; use "
                             f"np.{name}(np.where(mask, x, <identity>))")
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
    identity = 1 if name == "prod" else 0
    if x.dtype == np.bool_:
        x = Op("cast", [x], x.shape, np.int64)
    picked = where(tr, value.mask, x, ConstLeaf(identity, x.dtype), node)
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


def _dtype(tr, dtype, node):
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise tr.unsupported(node, "dtype argument",
                             "dtype must be a NumPy type such as np.float64 "
                             "or A.dtype")
    if dt.type not in (np.float64, np.float32, np.int64, np.int32, np.bool_):
        raise tr.unsupported(node, f"dtype {dt}")
    return dt


def create(tr, name, shape, dtype, fill, node):
    if not isinstance(shape, tuple):
        shape = (shape,)
    extents = []
    for s in shape:
        if isinstance(s, (int, Idx)) and not isinstance(s, bool):
            extents.append(as_idx(s))
        elif isinstance(s, (View, Expr)) and not is_float(
                tr.to_expr(s).dtype):
            extents.append(tr.control_index(s, node))  # an int computed at run time
        else:
            raise tr.unsupported(node, "array shape that is not an integer")
    dtype = _dtype(tr, dtype, node)
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


def copy(tr, value, node):
    e = tr.to_expr(value)
    v = tr.transient_view(e.shape, e.dtype, node, "copy")
    tr.store(v, e)
    return v


def transpose(tr, value, axes, node):
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


def _as_view(tr, e, node):
    if isinstance(e, ViewLeaf):
        return e.view
    return tr.materialize(e, node)


def matmul(tr, a, b, node):
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    if ea.dtype == np.bool_ and eb.dtype == np.bool_:
        # NumPy's product of bools is or of ands: whether any term is set.
        counts = matmul(tr, Op("cast", [ea], ea.shape, np.float64),
                        Op("cast", [eb], eb.shape, np.float64), node)
        return tr.binop("gt", counts, 0.0)
    product = _matmul(tr, a, b, node, 1.0)
    product = product.leaf if isinstance(product, _Scaled) else product
    return _in_dtype(tr, product, np.result_type(ea.dtype, eb.dtype))


def _in_dtype(tr, result, dtype):
    """An integer or bool product `result` (summed in int64, as np.sum
    sums) in NumPy's dtype for it, the operands' common one: an int32
    matmul is int32 (wrapping as NumPy's), an einsum of bools a bool."""
    e = tr.to_expr(result)
    if is_float(dtype) or e.dtype == dtype:
        return result
    return Op("cast", [e], e.shape, np.dtype(dtype))


def scaled_matmul(tr, a, b, node, alpha):
    """alpha (a @ b) for a float constant alpha: (the product, True) where a
    GEMM computes it with that alpha, else (a @ b, False) for the caller to
    scale as the program says."""
    product = _matmul(tr, a, b, node, alpha)
    if isinstance(product, _Scaled):
        return product.leaf, True
    return product, False


class _Scaled:
    """A GEMM's result with alpha already applied."""

    def __init__(self, leaf):
        self.leaf = leaf


def _alpha_attr(alpha):
    return [] if alpha == 1.0 else [f"alpha = {float(alpha)!r} : f64"]


def _matmul(tr, a, b, node, alpha):
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    ra, rb = len(ea.shape), len(eb.shape)
    if ra == 0 or rb == 0:
        raise tr.error("matmul: input operand does not have enough "
                       "dimensions", node)
    k1 = ea.shape[-1]
    k2 = eb.shape[0] if rb == 1 else eb.shape[-2]
    if not same_extent(k1, k2):
        if as_idx(k1).is_const() and as_idx(k2).is_const():
            raise tr.error(f"matmul: mismatch in the contracted dimension "
                           f"({as_idx(k1).const} vs {as_idx(k2).const})",
                           node)
        raise tr.error("matmul: cannot prove the contracted extents equal",
                       node)
    dtype = np.result_type(ea.dtype, eb.dtype)
    if ra > 2 or rb > 2:
        batched = _batched_blas(tr, ea, eb, dtype, node, alpha)
        return _Scaled(batched) if batched is not None else \
            _batched_matmul(tr, ea, eb, node)
    if ra == 1 and rb == 1:
        # Inner product as a fused reduction: works on any views.
        return reduce(tr, "sum", tr.binop("mul", ea, eb), None, False, node)
    static = all(as_idx(s).is_const() for s in list(ea.shape) +
                 list(eb.shape))
    if not static or not is_float(dtype):
        return _matmul_loops(tr, ea, eb, node)
    scaled = _scale_after(tr, ea, eb, node, alpha)
    if scaled is not None:
        return scaled
    va = _blas_operand(tr, ea, dtype, node)
    vb = _blas_operand(tr, eb, dtype, node)
    if ra == 2 and rb == 2:
        out = tr.transient_view([ea.shape[0], eb.shape[1]], dtype, node,
                                "matmul")
        flags = []
        if va.is_whole_transposed():
            flags.append("transpose_a")
        if vb.is_whole_transposed():
            flags.append("transpose_b")
        flags += _alpha_attr(alpha)
        attr = f" {{{', '.join(flags)}}}" if flags else ""
        ca, cb, co = va.container, vb.container, out.container
        tr.em.line(f"sdfg.matmul {ca.ssa}, {cb.ssa} -> {co.ssa}{attr} : "
                   f"{ca.mlir_type}, {cb.mlir_type} -> {co.mlir_type}")
        return _Scaled(ViewLeaf(out))
    if ra == 2:  # matrix @ vector
        mat, vec, rows = va, vb, ea.shape[0]
        transposed = va.is_whole_transposed()
    else:  # vector @ matrix = A^T x
        mat, vec, rows = vb, va, eb.shape[1]
        transposed = not vb.is_whole_transposed()
    out = tr.transient_view([rows], dtype, node, "gemv")
    attr = " {transpose}" if transposed else ""
    cm, cv, co = mat.container, vec.container, out.container
    tr.em.line(f"sdfg.gemv {cm.ssa}, {cv.ssa} -> {co.ssa}{attr} : "
               f"{cm.mlir_type}, {cv.mlir_type} -> {co.mlir_type}")
    return ViewLeaf(out)


def _scalar_factor(e):
    """(s, x) for an operand `s * x` or `x * s` with s a 0-d value of x's
    dtype (or a constant, which does not change it), else None."""
    if not (isinstance(e, Op) and e.op == "mul" and len(e.shape) > 0):
        return None
    for s, x in (e.args, reversed(e.args)):
        if len(s.shape) == 0 and list(x.shape) == list(e.shape) and \
                x.dtype == e.dtype and (isinstance(s, ConstLeaf)
                                        or s.dtype == e.dtype):
            return s, x
    return None


def _scale_after(tr, ea, eb, node, alpha):
    """(s a) @ b and a @ (s b) as s (a @ b) when the product is no larger
    than the scaled operand (always for a matrix-vector product): the
    scaled operand is then never materialised, BLAS reads the arrays
    themselves, and the gradient's reversal of the scaling runs over the
    product instead of the operand (gesummv's `alpha * A @ x`). Rounds
    differently from NumPy's order by an ulp or so. None when no operand
    is scaled."""
    fa, fb = _scalar_factor(ea), _scalar_factor(eb)
    if fa is None and fb is None:
        return None
    rows = ea.shape[0] if len(ea.shape) == 2 else 1
    cols = eb.shape[1] if len(eb.shape) == 2 else 1
    product = as_idx(rows).const * as_idx(cols).const
    factors, a, b = [], ea, eb
    for f, e in ((fa, "a"), (fb, "b")):
        if f is None:
            continue
        size = 1
        for x in f[1].shape:
            size *= as_idx(x).const
        if product > size:
            continue
        factors.append(f[0])
        if e == "a":
            a = f[1]
        else:
            b = f[1]
    if not factors:
        return None
    inner = _matmul(tr, a, b, node, alpha)
    leaf = inner.leaf if isinstance(inner, _Scaled) else inner
    for s in factors:
        leaf = tr.binop("mul", s, leaf)
    return _Scaled(leaf) if isinstance(inner, _Scaled) else leaf


def _blas_operand(tr, e, dtype, node):
    """A whole container (or a whole transposed matrix) for BLAS."""
    if isinstance(e, ViewLeaf) and e.dtype == dtype and (
            e.view.is_whole() or e.view.is_whole_transposed()):
        return e.view
    v = tr.transient_view(e.shape, dtype, node, "operand")
    tr.store(v, e)
    return v


# The positional parameters _more handles per function; NumPy's further
# ones (np.diagonal's offset, np.eye's M and k, ...) are rejected rather
# than ignored.
_MORE_POSITIONAL = {
    "clip": ("a", "a_min", "a_max"), "fmax": ("x1", "x2"),
    "fmin": ("x1", "x2"), "var": ("a", "axis"), "std": ("a", "axis"),
    "diag": ("v", "k"), "diagonal": ("a", "offset"),
    "trace": ("a", "offset"), "eye": ("N",),
    "identity": ("n", "dtype"), "cumsum": ("a", "axis"), "ravel": ("a",),
    "any": ("a", "axis"), "all": ("a", "axis"), "argmax": ("a", "axis"),
    "argmin": ("a", "axis"), "roll": ("a", "shift", "axis"),
    "concatenate": ("arrays", "axis"), "stack": ("arrays", "axis"),
    "reshape": ("a", "newshape"), "linalg.norm": ("x", "ord", "axis"),
}


def _more(tr, name, args, kwargs, node):
    """NumPy functions expressed with the frontend's own ops: each is an
    element-wise tree, a reduction or a view, so gradients come from the
    rules those already have."""
    arg = Arguments(tr, args, kwargs, node)
    names = _MORE_POSITIONAL.get(name)
    if names is not None and len(args) > len(names):
        raise tr.unsupported(
            node, f"np.{name} with more than {len(names)} positional "
            f"argument{'s' if len(names) > 1 else ''}",
            f"the parameters after {', '.join(names)} are not supported")
    if name == "clip":
        _no_kwargs(tr, kwargs, node, ("a_min", "a_max"))
        x, lo, hi = arg(0, "a"), arg(1, "a_min"), arg(2, "a_max")
        if lo is not None:
            x = elementwise(tr, "maximum", [x, lo], node)
        if hi is not None:
            x = elementwise(tr, "minimum", [x, hi], node)
        return x
    if name in ("fmax", "fmin"):
        _no_kwargs(tr, kwargs, node)
        a, b = (tr.to_expr(v) for v in args)
        if a.dtype == np.bool_ and b.dtype == np.bool_:
            return tr.logical("or" if name == "fmax" else "and", a, b)
        shape = tr.broadcast_shapes(a.shape, b.shape)
        return Op(name, [a, b], shape, tr.result_dtype("add", a, b))
    if name in ("var", "std"):
        _no_kwargs(tr, kwargs, node, ("axis", "keepdims", "ddof"))
        x = tr.to_expr(args[0])
        axis = arg(1, "axis")
        keep = bool(kwargs.get("keepdims", False))
        ddof = kwargs.get("ddof", 0)
        mean = reduce(tr, "mean", x, axis, True, node)
        dev = tr.binop("sub", x, mean)
        total = reduce(tr, "sum", tr.binop("mul", dev, dev), axis, keep,
                       node)
        count = element_count(tr, [x.shape[d] for d in _axes(
            tr, axis, len(x.shape), node)], node, f"np.{name}") - ddof
        # NumPy divides by max(N - ddof, 0): inf, or nan for an empty one.
        count = tr.ceil_div(count, 1) if isinstance(count, Idx) else \
            float(max(count, 0))
        v = tr.to_expr(tr.binop("div", total, count))
        if is_float(x.dtype) and v.dtype != x.dtype:
            v = Op("cast", [v], v.shape, x.dtype)  # float32 stays float32
        return elementwise(tr, "sqrt", [v], node) if name == "std" else v
    if name in ("diag", "diagonal", "trace"):
        key = "k" if name == "diag" else "offset"
        _no_kwargs(tr, kwargs, node, (key,))
        k = arg(1, key, 0)
        if isinstance(k, Idx) and k.is_const():
            k = k.const
        if not isinstance(k, int) or isinstance(k, bool):
            raise tr.unsupported(node, f"np.{name} with a {key} that is "
                                 "not a constant integer")
        v = _as_view(tr, tr.to_expr(args[0]), node)
        if name == "diag" and v.ndim == 1:
            n = as_idx(v.shape[0])
            if not n.is_const():
                raise tr.unsupported(node, "np.diag of a loop-dependent "
                                     "length")
            n = n.const + abs(k)
            out = create(tr, "zeros", (n, n), v.dtype, None, node)
            tr.store(_diagonal(tr, out, node, k), ViewLeaf(v))
            return out
        if v.ndim != 2:
            raise tr.unsupported(node, f"np.{name} of a {v.ndim}-d array")
        d = _diagonal(tr, v, node, k)
        if name == "trace":
            return reduce(tr, "sum", ViewLeaf(d), None, False, node)
        d.readonly = True  # NumPy's diagonal is a read-only view
        return d
    if name in ("eye", "identity"):
        _no_kwargs(tr, kwargs, node, ("dtype",))
        n = args[0]
        dtype = arg(1, "dtype", np.float64) if name == "identity" else \
            kwargs.get("dtype", np.float64)
        out = create(tr, "zeros", (n, n), dtype, None, node)
        tr.store(_diagonal(tr, out, node), ConstLeaf(1, out.dtype),
                 cast=True)
        return out
    if name in ("arange", "linspace"):
        return _ramp(tr, name, args, kwargs, node)
    if name == "einsum":
        _no_kwargs(tr, kwargs, node)
        return _einsum(tr, args, node)
    if name == "roll":
        _no_kwargs(tr, kwargs, node, ("shift", "axis"))
        return _roll(tr, arg(0, "a"), arg(1, "shift"), arg(2, "axis"), node)
    if name in ("argmax", "argmin"):
        _no_kwargs(tr, kwargs, node, ("axis", "keepdims"))
        return _argext(tr, name, arg(0, "a"), arg(1, "axis"), node,
                       bool(kwargs.get("keepdims", False)))
    if name == "cumsum":
        _no_kwargs(tr, kwargs, node, ("axis", "dtype"))
        a = arg(0, "a")
        if kwargs.get("dtype") is not None:
            e = tr.to_expr(a)
            a = Op("cast", [e], e.shape,
                   np.dtype(_dtype(tr, kwargs["dtype"], node)))
        return _cumsum(tr, a, arg(1, "axis"), node)
    if name in ("concatenate", "stack"):
        _no_kwargs(tr, kwargs, node, ("axis",))
        return _join(tr, name, args[0], arg(1, "axis", 0), node)
    if name == "reshape":
        _no_kwargs(tr, kwargs, node)
        return reshape(tr, args[0], arg(1, "newshape"), node)
    if name == "ravel":
        _no_kwargs(tr, kwargs, node)
        return reshape(tr, args[0], (-1,), node)
    if name in ("any", "all"):
        _no_kwargs(tr, kwargs, node, ("axis",))
        x = tr.to_expr(args[0])
        flags = Op("cast", [tr.binop("ne", x, 0) if x.dtype != np.bool_
                            else x], x.shape, np.int64)
        r = reduce(tr, "max" if name == "any" else "min", flags,
                   arg(1, "axis"), False, node)
        return tr.binop("ne", r, 0)
    if name == "linalg":
        return NumpyFunction("linalg")
    if name == "linalg.norm":
        _no_kwargs(tr, kwargs, node, ("ord", "axis", "keepdims"))
        return _norm(tr, tr.to_expr(args[0]), arg(1, "ord"), arg(2, "axis"),
                     bool(kwargs.get("keepdims", False)), node)
    if name in ("linalg.solve", "linalg.inv"):
        return _linalg_solve(tr, name[len("linalg."):], args, kwargs, node)
    if name in ("linalg.det", "linalg.slogdet"):
        return _linalg_det(tr, name[len("linalg."):], args, kwargs, node)
    if name == "linalg.cholesky":
        return _linalg_cholesky(tr, args, kwargs, node)
    if name in ("linalg.eigh", "linalg.eigvalsh"):
        return _linalg_eigh(tr, name[len("linalg."):], args, dict(kwargs),
                            node)
    if name == "linalg.qr":
        return _linalg_qr(tr, args, kwargs, node)
    if name == "linalg.svd":
        return _linalg_svd(tr, args, kwargs, node)
    raise tr.unsupported(node, f"np.{name}")


def _norm(tr, x, order, axis, keepdims, node):
    """np.linalg.norm: vector norms of any order over one axis (or a
    vector); the Frobenius norm and the 1- and inf-norms of matrices (the
    largest column or row sum); the 2-, -2- and nuclear norms from the
    singular values (gesdd's, as NumPy's)."""
    def total(v, ax, kind="sum"):
        return reduce(tr, kind, v, ax, keepdims, node)

    e = tr.to_expr(x)
    if not is_float(e.dtype):
        x = Op("cast", [e], e.shape, np.dtype(np.float64))  # as NumPy's
    rank = len(x.shape)
    if axis is None:
        axes = tuple(range(rank))
    else:
        axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    if order is None or (order == "fro" and len(axes) == 2):
        return elementwise(tr, "sqrt", [total(tr.binop("mul", x, x), axis)],
                           node)
    ax = elementwise(tr, "abs", [x], node)
    if len(axes) == 1:
        if not isinstance(order, (int, float)) or isinstance(order, bool):
            raise tr.error(f"invalid norm order {order!r} for vectors", node)
        if order == float("inf"):
            return total(ax, axis, "max")
        if order == float("-inf"):
            return total(ax, axis, "min")
        if order == 0:
            nz = Op("cast", [tr.binop("ne", x, 0)], x.shape, np.float64)
            return total(nz, axis)
        if order == 1:
            return total(ax, axis)
        if order == 2:
            return elementwise(tr, "sqrt", [total(tr.binop("mul", x, x),
                                                  axis)], node)
        p = float(order)
        # NumPy raises in place: the result keeps x's float type.
        root = ConstLeaf(1.0 / p, tr.to_expr(x).dtype)
        return tr.binop("pow", total(tr.binop("pow", ax, p), axis), root)
    if len(axes) == 2 and order in (2, -2, "nuc"):
        # Of the singular values: the largest, the smallest, their sum.
        if keepdims or sorted(a % rank for a in axes) != [0, 1] or \
                rank != 2:
            raise tr.unsupported(node, f"np.linalg.norm with ord {order!r} "
                                 "of anything but a whole matrix")
        s = singular_values(tr, "norm", x, node)
        kind = {2: "max", -2: "min", "nuc": "sum"}[order]
        return reduce(tr, kind, s, None, False, node)
    if len(axes) != 2 or order not in (1, -1, float("inf"), float("-inf")):
        raise tr.unsupported(node, f"np.linalg.norm of a matrix with ord "
                             f"{order!r}", "matrices: None, 'fro', 1, -1, "
                             "2, -2, inf, -inf, 'nuc'")
    if keepdims:
        raise tr.unsupported(node, "keepdims with a matrix norm order")
    rows, cols = (a % rank for a in axes)
    summed = cols if order in (float("inf"), float("-inf")) else rows
    other = rows if summed == cols else cols
    sums = reduce(tr, "sum", ax, summed, False, node)
    kind = "max" if order > 0 else "min"
    return reduce(tr, kind, sums, other - (other > summed), False, node)


def _square_matrix(tr, name, args, kwargs, node, arity=1):
    """The checks np.linalg's LU-based functions share: the argument count,
    the CPU, one square matrix of static shape. Returns (matrix, n)."""
    _no_kwargs(tr, kwargs, node)
    if len(args) != arity:
        raise tr.error(f"np.linalg.{name} takes {arity} argument"
                       f"{'s' if arity > 1 else ''}", node)
    a = tr.to_expr(args[0])
    n, m = _static_matrix(tr, name, a, node, "square matrix")
    if n != m:
        raise tr.error(f"np.linalg.{name}: the matrix must be square, got "
                       f"{n}x{m}", node)
    return a, n


def _linalg_det(tr, name, args, kwargs, node):
    """np.linalg.det(A) and np.linalg.slogdet(A) (a (sign, logabsdet)
    pair): sdfg.det ops sharing one LU factorisation; the gradient of
    log|det A| is A^-T (det A times that for det)."""
    a, n = _square_matrix(tr, name, args, kwargs, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    va = _blas_operand(tr, a, dtype, node)
    # det A^T = det A: a transposed view is taken as it is.
    kinds = ["det"] if name == "det" else ["sign", "logabs"]
    results = []
    for kind in kinds:
        out = tr.transient_view([], dtype, node, kind)
        ca, co = va.container, out.container
        tr.em.line(f"sdfg.det {kind} {ca.ssa} -> {co.ssa} : {ca.mlir_type} "
                   f"-> {co.mlir_type}")
        results.append(ViewLeaf(out))
    return results[0] if name == "det" else tuple(results)


def _linalg_cholesky(tr, args, kwargs, node):
    """np.linalg.cholesky(A): an sdfg.cholesky, which reads the lower
    triangle of its container as NumPy reads A's."""
    a, n = _square_matrix(tr, "cholesky", args, kwargs, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    va = _blas_operand(tr, a, dtype, node)
    if va.is_whole_transposed():
        # A.T's lower triangle is its container's upper one.
        va = tr.snapshot(a, node, "operand")
    out = tr.transient_view([n, n], dtype, node, "cholesky")
    ca, co = va.container, out.container
    tr.em.line(f"sdfg.cholesky {ca.ssa} -> {co.ssa} : {ca.mlir_type} -> "
               f"{co.mlir_type}")
    tr.sig.linalg_sites.append(("np.linalg.cholesky", tr.em.where()))
    return ViewLeaf(out)


def _linalg_eigh(tr, name, args, kwargs, node):
    """np.linalg.eigh(A) (eigenvalues, eigenvectors) and eigvalsh(A): one
    sdfg.eigh per result wanted (sharing one eigensolve when compiled), reading A's lower triangle (UPLO='L') or
    its upper one (the transpose's lower)."""
    uplo = kwargs.pop("UPLO", args[1] if len(args) > 1 else "L")
    if uplo not in ("L", "U"):
        raise tr.error("UPLO argument must be 'L' or 'U'", node)
    a, n = _square_matrix(tr, name, args[:1], kwargs, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    if uplo == "U":
        a = tr.to_expr(transpose(tr, a, None, node))
    va = _blas_operand(tr, a, dtype, node)
    if va.is_whole_transposed():
        # The container's lower triangle is the view's upper one.
        va = tr.snapshot(a, node, "operand")
    # The vectors first: the compiled ops on one matrix share a cache, and
    # the values are then a copy of that eigensolve's rather than a second
    # one.
    parts = ["values"] if name == "eigvalsh" else ["vectors", "values"]
    results = []
    for part in parts:
        out = tr.transient_view([n] if part == "values" else [n, n], dtype,
                                node, part)
        ca, co = va.container, out.container
        tr.em.line(f"sdfg.eigh {part} {ca.ssa} -> {co.ssa} : {ca.mlir_type} "
                   f"-> {co.mlir_type}")
        results.append(ViewLeaf(out))
    tr.sig.linalg_sites.append((f"np.linalg.{name}", tr.em.where()))
    return results[0] if name == "eigvalsh" else tuple(reversed(results))


def _linalg_qr(tr, args, kwargs, node):
    """np.linalg.qr(A, mode): the reduced (Q, R), or R alone (mode "r"),
    one sdfg.qr per factor (LAPACK's geqrf, orgqr for Q: NumPy's factors,
    signs included). "complete" is the reduced pair where A has no more
    rows than columns; otherwise its Q has columns A does not determine
    and is rejected."""
    _no_kwargs(tr, kwargs, node, ("mode",))
    if len(args) not in (1, 2):
        raise tr.error("np.linalg.qr takes the matrix and a mode", node)
    mode = kwargs.get("mode", args[1] if len(args) > 1 else "reduced")
    if mode not in ("reduced", "r", "complete"):
        raise tr.unsupported(node, f"np.linalg.qr with mode {mode!r}",
                             "modes: 'reduced', 'r', 'complete' (for "
                             "matrices with no more rows than columns)")
    va, m, n, dtype = _matrix_operand(tr, "qr", args[0], node)
    k = min(m, n)
    if mode == "complete" and m > n:
        raise tr.unsupported(node, "np.linalg.qr with mode 'complete' of a "
                             "matrix with more rows than columns",
                             "use the reduced Q (mode='reduced')")
    parts = ["r"] if mode == "r" else ["q", "r"]
    results = []
    for part in parts:
        out = tr.transient_view([m, k] if part == "q" else [k, n], dtype,
                                node, part.upper())
        ca, co = va.container, out.container
        tr.em.line(f"sdfg.qr {part} {ca.ssa} -> {co.ssa} : {ca.mlir_type} "
                   f"-> {co.mlir_type}")
        results.append(ViewLeaf(out))
    # Its gradient solves with R: a singular one raises as a solve's.
    tr.sig.linalg_sites.append(("np.linalg.qr", tr.em.where()))
    return results[0] if mode == "r" else tuple(results)


def _static_matrix(tr, name, a, node, what="matrix"):
    """The extents of `a`, one 2-d array of static shape, for np.linalg."""
    if len(a.shape) != 2:
        raise tr.unsupported(node, f"np.linalg.{name} of a {len(a.shape)}-d "
                             "array", f"only one {what} (no stacks)")
    if not all(as_idx(e).is_const() for e in a.shape):
        raise tr.unsupported(node, f"np.linalg.{name} of a matrix whose "
                             "shape depends on a loop")
    return tuple(as_idx(e).const for e in a.shape)


def _matrix_operand(tr, name, value, node):
    """A 2-d float matrix of static shape as a whole container LAPACK can
    read row-major (a transposed view is copied): (view, m, n, dtype)."""
    a = tr.to_expr(value)
    m, n = _static_matrix(tr, name, a, node)
    dtype = a.dtype if is_float(a.dtype) else np.dtype(np.float64)
    va = _blas_operand(tr, a, dtype, node)
    if va.is_whole_transposed():
        va = tr.snapshot(a, node, "operand")
    return va, m, n, dtype


def singular_values(tr, name, value, node):
    """The singular values of a matrix (np.linalg.svd's compute_uv=False:
    gesdd without vectors), for svd and the matrix norms that need them."""
    va, m, n, dtype = _matrix_operand(tr, name, value, node)
    out = tr.transient_view([min(m, n)], dtype, node, "s")
    ca, co = va.container, out.container
    tr.em.line(f"sdfg.svd s {ca.ssa} -> {co.ssa} : {ca.mlir_type} -> "
               f"{co.mlir_type}")
    tr.sig.linalg_sites.append((f"np.linalg.{name}", tr.em.where()))
    return ViewLeaf(out)


def _linalg_svd(tr, args, kwargs, node):
    """np.linalg.svd(A, full_matrices, compute_uv): one sdfg.svd per factor
    (LAPACK's gesdd, as NumPy calls it). The full U or Vh of a matrix that
    is not square has columns A does not determine: full_matrices=True
    (NumPy's default) is the reduced factors for square matrices and
    rejected otherwise."""
    name = "svd"
    _no_kwargs(tr, kwargs, node, ("full_matrices", "compute_uv",
                                  "hermitian"))
    if not 1 <= len(args) <= 4:
        raise tr.error("np.linalg.svd takes the matrix, full_matrices, "
                       "compute_uv and hermitian", node)
    arg = Arguments(tr, args, kwargs, node)
    full = arg(1, "full_matrices", True)
    uv = arg(2, "compute_uv", True)
    if arg(3, "hermitian", False) is not False:
        raise tr.unsupported(node, "np.linalg.svd with hermitian=True",
                             "use np.linalg.eigh for symmetric matrices")
    if not isinstance(full, bool) or not isinstance(uv, bool):
        raise tr.unsupported(node, "np.linalg.svd with full_matrices or "
                             "compute_uv computed at run time")
    if not uv:
        return singular_values(tr, name, args[0], node)
    va, m, n, dtype = _matrix_operand(tr, name, args[0], node)
    if full and m != n:
        raise tr.unsupported(node, "np.linalg.svd with full_matrices=True "
                             "of a matrix that is not square",
                             "pass full_matrices=False (the reduced U and "
                             "Vh)")
    k = min(m, n)
    results = []
    for part, shape in (("u", [m, k]), ("s", [k]), ("vh", [k, n])):
        out = tr.transient_view(shape, dtype, node, part.upper())
        ca, co = va.container, out.container
        flag = " {with_vectors}" if part == "s" else ""
        tr.em.line(f"sdfg.svd {part} {ca.ssa} -> {co.ssa}{flag} : "
                   f"{ca.mlir_type} -> {co.mlir_type}")
        results.append(ViewLeaf(out))
    tr.sig.linalg_sites.append(("np.linalg.svd", tr.em.where()))
    return tuple(results)


def _linalg_solve(tr, name, args, kwargs, node):
    """np.linalg.solve(A, b) and np.linalg.inv(A) (= solve(A, I)): an
    sdfg.solve (LAPACK's LU with partial pivoting), whose reverse-mode rule
    is one more solve with the transposed matrix."""
    a, n = _square_matrix(tr, name, args, kwargs, node,
                          2 if name == "solve" else 1)
    if name == "solve":
        b = tr.to_expr(args[1])
        if len(b.shape) not in (1, 2):
            raise tr.unsupported(node, f"np.linalg.solve with a "
                                 f"{len(b.shape)}-d right-hand side",
                                 "a vector or a matrix")
        if not all(as_idx(e).is_const() for e in b.shape):
            raise tr.unsupported(node, "np.linalg.solve with a right-hand "
                                 "side whose shape depends on a loop")
        if as_idx(b.shape[0]).const != n:
            raise tr.error(f"np.linalg.solve: the right-hand side has "
                           f"{as_idx(b.shape[0]).const} rows, the matrix "
                           f"{n}", node)
        dtype = np.result_type(a.dtype, b.dtype)
    else:
        dtype = a.dtype
    if not is_float(dtype):
        dtype = np.dtype(np.float64)
    if name == "inv":
        b = numpy_call(tr, "eye", [n], {"dtype": dtype}, node)
    va = _blas_operand(tr, a, dtype, node)
    if isinstance(b, ViewLeaf) and b.dtype == dtype and b.view.is_whole():
        vb = b.view
    else:
        vb = tr.transient_view(b.shape, dtype, node, "rhs")
        tr.store(vb, b)
    out = tr.transient_view(b.shape, dtype, node, name)
    attr = " {transpose}" if va.is_whole_transposed() else ""
    ca, cb, co = va.container, vb.container, out.container
    tr.em.line(f"sdfg.solve {ca.ssa}, {cb.ssa} -> {co.ssa}{attr} : "
               f"{ca.mlir_type}, {cb.mlir_type} -> {co.mlir_type}")
    tr.sig.linalg_sites.append((f"np.linalg.{name}", tr.em.where()))
    return ViewLeaf(out)


def _einsum(tr, args, node):
    """np.einsum with explicit or implicit output: every operand is viewed
    in one index order (missing indices as new axes), the product reduced
    over the summed indices. A pair of matrices that is a matrix product
    (ij,jk->ik and its transposes) calls BLAS instead."""
    if not args or not isinstance(args[0], str):
        raise tr.unsupported(node, "np.einsum without a subscripts string")
    spec = args[0].replace(" ", "")
    ops = [tr.to_expr(a) for a in args[1:]]
    if "." in spec:
        raise tr.unsupported(node, "np.einsum with '...'")
    lhs, arrow, out = spec.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        raise tr.error(f"np.einsum: {len(terms)} subscripts for "
                       f"{len(ops)} operands", node)
    if not arrow:
        # Implicit output: the letters written once, over all operands as
        # given (a trace 'ii' has none).
        letters = "".join(terms)
        out = "".join(sorted(c for c in set(letters)
                             if letters.count(c) == 1))
    for k, (t, e) in enumerate(zip(terms, ops)):
        if not t.isalpha() or len(t) != len(e.shape):
            raise tr.error(f"np.einsum: subscript '{t}' does not match an "
                           f"operand of dimension {len(e.shape)}", node)
        if len(set(t)) != len(t):
            # A repeated index ('ii', 'bii'): the operand's diagonal over
            # those axes, a view.
            v = _as_view(tr, e, node)
            while len(set(t)) != len(t):
                c = next(c for c in t if t.count(c) > 1)
                p = t.index(c)
                q = t.index(c, p + 1)
                if not same_extent(v.shape[p], v.shape[q]):
                    raise tr.error(
                        f"dimensions in operand {k} for collapsing index "
                        f"'{c}' don't match ({as_idx(v.shape[p]).render()} "
                        f"!= {as_idx(v.shape[q]).render()})", node)
                v = _collapse_axes(v, p, q)
                t = t[:q] + t[q + 1:]
            terms[k], ops[k] = t, ViewLeaf(v)
    letters = "".join(terms)
    if len(set(out)) != len(out) or any(c not in letters for c in out):
        raise tr.error(f"np.einsum: invalid output subscript '{out}'", node)
    if len(ops) == 2 and all(len(t) == 2 for t in terms) and \
            len(out) == 2:
        (a, b), (c, d) = terms
        shared = set(terms[0]) & set(terms[1])
        if len(shared) == 1 and set(out) == set(terms[0] + terms[1]) - \
                shared:
            k = shared.pop()
            x = ops[0] if a != k else transpose(tr, ops[0], None, node)
            y = ops[1] if d != k else transpose(tr, ops[1], None, node)
            rows, cols = (b if a == k else a), (c if d == k else d)
            r = matmul(tr, x, y, node)
            return r if out == rows + cols else transpose(tr, r, None, node)
    order = out + "".join(dict.fromkeys(c for c in letters if c not in out))
    prod = None
    for t, e in zip(terms, ops):
        v = _as_view(tr, e, node)
        v = v.transpose(sorted(range(len(t)), key=lambda i: order.index(t[i])))
        present = sorted(t, key=order.index)
        items = [ast.Slice() if c in present else ast.Constant(None)
                 for c in order]
        v = tr.subscript(v, [ast.copy_location(i, node) for i in items],
                         node)
        prod = ViewLeaf(v) if prod is None else tr.binop("mul", prod, v)
    summed = tuple(range(len(out), len(order)))
    if not summed:
        # One operand, nothing summed ('ii->i', 'ij->ji'): NumPy returns a
        # view of it, which writes reach.
        if len(ops) == 1 and isinstance(prod, ViewLeaf):
            return prod.view
        return prod
    dtype = np.result_type(*[tr.to_expr(e).dtype for e in ops])
    return _in_dtype(tr, reduce(tr, "sum", prod, summed, False, node), dtype)


def _fill_diagonal(tr, args, kwargs, node):
    """np.fill_diagonal(a, val) on a 2-d array variable, in place: a[i, i]
    for i below min(a.shape) (wrap=False), from a scalar or from a vector
    of the diagonal's length (NumPy repeats a shorter one; not here)."""
    _no_kwargs(tr, kwargs, node, ("wrap",))
    if len(args) != 2:
        raise tr.error("np.fill_diagonal takes an array and a value", node)
    if kwargs.get("wrap", False):
        raise tr.unsupported(node, "np.fill_diagonal with wrap=True")
    a = args[0]
    if not (isinstance(a, View) and a.ndim == 2):
        raise tr.unsupported(node, "np.fill_diagonal of anything but a 2-d "
                             "array variable")
    d = _diagonal(tr, a, node)
    val = args[1]
    if isinstance(val, (View, Expr)) and len(val.shape) > 0:
        e = tr.to_expr(val)
        if len(e.shape) != 1 or not same_extent(e.shape[0], d.shape[0]):
            raise tr.unsupported(node, "np.fill_diagonal with values that "
                                 "are not a scalar or a vector of the "
                                 "diagonal's length")
    tr.store(d, tr.to_expr(val), cast=True)
    return None


def _collapse_axes(v, p, q):
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
    shape = _static_shape(tr, e, node, "np.roll")
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
    v = _as_view(tr, e, node)
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
            tr.store(_window(out, a, 0, k), ViewLeaf(_window(v, a, n - k, k)))
            tr.store(_window(out, a, k, n - k),
                     ViewLeaf(_window(v, a, 0, n - k)))
        else:
            tr.store(out, ViewLeaf(v))
        v = out
    return v


def _cumsum(tr, value, axis, node, op="add"):
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
    shape = _static_shape(tr, e, node, what)
    if axis is None:
        if len(shape) != 1:
            e = ViewLeaf(reshape(tr, e, (-1,), node))
            shape = [int(np.prod(shape))]
        axis = 0
    if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
        raise tr.error(f"axis {axis} is out of bounds", node)
    axis %= len(shape)
    dtype = e.dtype
    if op in ("add", "mul") and not is_float(dtype) and dtype.itemsize < 8:
        dtype = np.dtype(np.int64)  # as np.sum: bools and int32 add in int64
    src = _as_view(tr, e, node)
    out = tr.transient_view([Idx(x) for x in shape], dtype, node,
                            what[3:].split(".")[0])
    n = shape[axis]
    if n == 0:
        return out
    tr.store(_window(out, axis, 0, 1), ViewLeaf(_window(src, axis, 0, 1)),
             cast=True)
    if n == 1:
        return out
    with tr.control_section():
        i = tr.em.fresh("i")
        tr.iter_bounds[i] = (1, n - 1)
        with tr.em.block(f"sdfg.loop {i} = 1 to {n} step 1"):
            with tr.em.block("sdfg.state"):
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
                    step = elementwise(tr, op, [at(out, -1), at(src, 0)],
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
    shape = _static_shape(tr, e, node, f"np.{name}")
    if axis is None:
        size = int(np.prod(shape))
        if size == 0:
            raise tr.error(f"attempt to get {name} of an empty sequence",
                           node)
        pos = reshape(tr, _ramp(tr, "arange", [size], {}, node), shape,
                      node) if len(shape) > 1 else \
            _ramp(tr, "arange", [size], {}, node)
        ext = reduce(tr, kind, e, None, False, node)
    else:
        if not isinstance(axis, int) or not -len(shape) <= axis < len(shape):
            raise tr.error(f"axis {axis} is out of bounds", node)
        axis %= len(shape)
        ramp = _ramp(tr, "arange", [shape[axis]], {}, node)
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
    cand = where(tr, hit, pos, big, node)
    return reduce(tr, "min", cand, axis, keepdims, node)


def _window_cumulative(tr, e, op, what, node):
    """np.cumsum & co. of a 1-d window whose length is known only at run
    time: a loop over it carrying the running value in a 0-d transient
    (which starts at op's identity, so no iteration reads before the
    window), in order, as NumPy accumulates."""
    n = as_idx(e.shape[0])
    dtype = e.dtype
    if op in ("add", "mul") and not is_float(dtype) and dtype.itemsize < 8:
        dtype = np.dtype(np.int64)  # as np.sum: bools and int32 add in int64
    src = _as_view(tr, e, node)
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
        with tr.em.block(f"sdfg.loop {i} = 0 to {n.render()} step 1"):
            with tr.em.block("sdfg.state"):
                def at(v):
                    # Element i, as a 0-d view.
                    base = [(o + Idx.of(i).scale(st), st, None) if d == 0
                            else (o, st, d) for o, st, d in v.base]
                    return View(v.container, base, [])
                here, item = at(out), at(src)
                if op in ("add", "mul"):
                    step = tr.binop(op, ViewLeaf(acc), ViewLeaf(item))
                else:
                    step = elementwise(tr, op, [ViewLeaf(acc), ViewLeaf(item)],
                                       node)
                tr.store(here, step, cast=True)
                tr.store(acc, ViewLeaf(at(out)), cast=True)
    return out


def _window_argext(tr, name, kind, e, keepdims, node):
    """np.argmax / np.argmin of a 1-d window whose length is known only
    at run time (`x[i:i + 3]` at the end of its loop): positions from a
    ramp as long as the window can be, cut to its length."""
    n = as_idx(e.shape[0])
    hi = tr.upper_extent(n, node)
    ramp = _ramp(tr, "arange", [hi], {}, node)
    pos = ViewLeaf(_window(ramp, 0, 0, n))
    ext = reduce(tr, kind, e, None, True, node)
    hit = tr.binop("eq", e, ext)
    if is_float(e.dtype):
        nan = Op("isnan", [e], e.shape, np.bool_)
        hit = Op("or", [hit, nan], hit.shape, np.bool_)
    cand = where(tr, hit, pos, hi, node)
    return reduce(tr, "min", cand, None, keepdims, node)


def element_count(tr, extents, node, what):
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


def _static_shape(tr, e, node, what):
    shape = []
    for x in e.shape:
        x = as_idx(x)
        if not x.is_const():
            raise tr.unsupported(node, f"{what} of a loop-dependent shape")
        shape.append(x.const)
    return shape


def _window(v, axis, start, extent):
    """The part of view `v` from `start` along `axis`, `extent` (an int or
    an Idx) long."""
    base = [(o + Idx(start).scale(st) if d == axis else o, st, d)
            for o, st, d in v.base]
    shape = list(v.shape)
    shape[axis] = as_idx(extent)
    return View(v.container, base, shape)


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
        result = _join(tr, "stack", items, 0, node)
    elif isinstance(obj, (View, Expr, int, float)):
        result = copy(tr, obj, node) if name == "array" else obj
    else:
        raise tr.unsupported(node, f"np.{name} of a value of type "
                             f"{type(obj).__name__}")
    if dtype is None:
        return result
    e = tr.to_expr(result)
    return Op("cast", [e], e.shape, _dtype(tr, dtype, node))


def _join(tr, name, parts, axis, node):
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
        exprs = [ViewLeaf(tr.subscript(_as_view(tr, e, node),
                                       [ast.copy_location(i, node)
                                        for i in items], node))
                 for e in exprs]
    shapes = [_static_shape(tr, e, node, f"np.{name}") for e in exprs]
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
        tr.store(_window(out, axis, at, sh[axis]), e, cast=True)
        at += sh[axis]
    return out


def reshape(tr, value, newshape, node):
    """A new array holding `value`'s elements in row-major order, shaped
    `newshape` (one -1 inferred). Two affine copies: into a flat buffer
    over the old shape, out of it over the new one. NumPy returns a view
    that writes reach the original through; here the result is a copy,
    and writing into it is rejected (Translator.reshaped)."""
    e = tr.to_expr(value)
    old = _static_shape(tr, e, node, "reshape")
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
            tr.em.line(f"{name} = sdfg.load {c.ssa}"
                       f"[{linear(coords, new).render()}] : {c.mlir_type}")
            tr.emit_store(name, out, coords)
    tr.reshaped.add(out.container)
    # The array it copies from, where NumPy's reshape is a view of it (of
    # a computed value it is a new array): a later write into that array
    # while a name holds this copy is rejected (Translator.store).
    if isinstance(e, ViewLeaf):
        tr.reshape_sources[out.container] = {e.view.container}
    return out


def _diagonal(tr, v, node, k=0):
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


def _ramp(tr, name, args, kwargs, node):
    """np.arange(start, stop, step) / np.linspace(start, stop, num): a new
    1-d array whose element p is start + p * step."""
    _no_kwargs(tr, kwargs, node, ("dtype", "num", "endpoint"))
    vals = list(args)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in vals):
        raise tr.unsupported(node, f"np.{name} of values computed at run "
                             "time", "its length must be known when "
                             "compiling")
    if name == "arange":
        start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (
            vals[0], vals[1], vals[2] if len(vals) > 2 else 1)
        n = max(0, int(np.ceil((stop - start) / step)))
        floating = any(isinstance(v, float) for v in (start, stop, step))
        dtype = np.dtype(kwargs.get("dtype",
                                    np.float64 if floating else np.int64))
    else:
        start, stop = vals[0], vals[1]
        n = int(kwargs.get("num", vals[2] if len(vals) > 2 else 50))
        end = kwargs.get("endpoint", True)
        step = (stop - start) / max(n - 1 if end else n, 1)
        dtype = np.dtype(kwargs.get("dtype", np.float64))
    out = tr.transient_view([Idx(n)], dtype, node, name)
    with tr.open_map([Idx(n)], "sequential") as coords:
        value = tr.binop("add", tr.binop("mul", IdxLeaf(coords[0]), step),
                         start)
        val = tr.emit_scalar(tr.to_expr(value), coords, 1, dtype)
        tr.emit_store(val, out, coords)
    return out


def _check_dot(tr, args, node):
    """np.dot agrees with matmul up to two dimensions only (beyond, it
    contracts a's last axis with b's second-to-last over all pairs)."""
    if any(len(tr.to_expr(a).shape) > 2 for a in args[:2]):
        raise tr.unsupported(node, "np.dot of arrays with more than two "
                             "dimensions", "use @ (np.matmul) for stacks of "
                             "matrices")


def _batched_blas(tr, ea, eb, dtype, node, alpha=1.0):
    """A stack of matrices times a matrix or a stack of the same length
    (3-d and 2-d operands of static shape, float): one batched sdfg.matmul
    (BLAS), whose gradient is batched GEMMs too. None where it does not
    apply (vectors, more dimensions, broadcast batches)."""
    ra, rb = len(ea.shape), len(eb.shape)
    if ra not in (2, 3) or rb not in (2, 3) or not is_float(dtype):
        return None
    if not all(as_idx(e).is_const() for e in list(ea.shape) +
               list(eb.shape)):
        return None
    shape_a = [as_idx(e).const for e in ea.shape]
    shape_b = [as_idx(e).const for e in eb.shape]
    if ra == 3 and rb == 3 and shape_a[0] != shape_b[0]:
        return None
    batch = shape_a[0] if ra == 3 else shape_b[0]

    def operand(e):
        if len(e.shape) == 2:
            v = _blas_operand(tr, e, dtype, node)
            return v, v.is_whole_transposed()
        if isinstance(e, ViewLeaf) and e.dtype == dtype:
            if e.view.is_whole():
                return e.view, False
            if e.view.is_whole_batch_transposed():
                return e.view, True
        v = tr.transient_view(e.shape, dtype, node, "operand")
        tr.store(v, e)
        return v, False

    (va, ta), (vb, tb) = operand(ea), operand(eb)
    out = tr.transient_view([batch, shape_a[-2], shape_b[-1]], dtype, node,
                            "matmul")
    flags = [f for f, on in (("transpose_a", ta), ("transpose_b", tb)) if on]
    flags += _alpha_attr(alpha)
    attr = f" {{{', '.join(flags)}}}" if flags else ""
    ca, cb, co = va.container, vb.container, out.container
    tr.em.line(f"sdfg.matmul {ca.ssa}, {cb.ssa} -> {co.ssa}{attr} : "
               f"{ca.mlir_type}, {cb.mlir_type} -> {co.mlir_type}")
    return ViewLeaf(out)


def _batched_matmul(tr, ea, eb, node):
    """NumPy's matmul of stacks of matrices (the last two dimensions;
    leading ones broadcast; a vector operand is a row or a column): one
    fused reduction over the contracted dimension, out[..., i, j] = sum_k
    a[..., i, k, None] * b[..., None, k, j]. No BLAS call: a batch is not
    one container, and the autodiff differentiates the reduction like any
    map."""
    va, vb = _as_view(tr, ea, node), _as_view(tr, eb, node)
    ra, rb = va.ndim, vb.ndim
    full = ast.Slice()
    new = ast.Constant(None)
    if rb == 1:  # out[..., i] = sum_k a[..., i, k] * b[k]
        return reduce(tr, "sum", tr.binop("mul", va, vb), ra - 1, False,
                      node)
    if ra == 1:  # out[..., j] = sum_k a[k] * b[..., k, j]
        col = tr.subscript(va, [full, new], node)
        prod = tr.binop("mul", col, vb)
        return reduce(tr, "sum", prod, len(prod.shape) - 2, False, node)
    a4 = tr.subscript(va, [ast.Constant(Ellipsis), full, full, new], node)
    b4 = tr.subscript(vb, [ast.Constant(Ellipsis), new, full, full], node)
    prod = tr.binop("mul", a4, b4)
    return reduce(tr, "sum", prod, len(prod.shape) - 2, False, node)


def _matmul_loops(tr, ea, eb, node):
    """Matmul over views with loop-dependent shapes: a fused reduction."""
    ra, rb = len(ea.shape), len(eb.shape)
    if ra == 2 and rb == 1:
        # out[i] = sum_k a[i, k] * b[k]
        prod = tr.binop("mul", ea, eb)
        return reduce(tr, "sum", prod, 1, False, node)
    if ra == 1 and rb == 2:
        va = _as_view(tr, ea, node)
        col = tr.subscript(va, [ast.Slice(), ast.Constant(None)], node)
        prod = tr.binop("mul", col, eb)
        return reduce(tr, "sum", prod, 0, False, node)
    va = _as_view(tr, ea, node)
    vb = _as_view(tr, eb, node)
    # out[i, j] = sum_k a[i, k, None] * b[None, k, j] over k
    a3 = tr.subscript(va, [ast.Slice(), ast.Slice(), ast.Constant(None)],
                      node)
    b3 = tr.subscript(vb, [ast.Constant(None), ast.Slice(), ast.Slice()],
                      node)
    return reduce(tr, "sum", tr.binop("mul", a3, b3), 1, False, node)
