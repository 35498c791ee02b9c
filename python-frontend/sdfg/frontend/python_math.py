"""Python's math module on scalars: math.f(x) is folded when its
arguments are constants, else the NumPy function of the same meaning.
"""

import ast
import math
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from ..numpy import registry, ufuncs
from ..semantics.values import Op, Value

if TYPE_CHECKING:
    from .translator import Translator


class _MathModule:
    """Marker for the math module in expressions."""


MATH = _MathModule()


class MathFunction:
    def __init__(self, name):
        self.name = name


# math function -> the NumPy function computing it on a float.
_MATH = {"sqrt": "sqrt", "exp": "exp", "log2": "log2", "log10": "log10",
         "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos",
         "tan": "tan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
         "asin": "arcsin", "acos": "arccos", "atan": "arctan",
         "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
         "atan2": "arctan2", "fabs": "abs", "pow": "power",
         "hypot": "hypot", "degrees": "degrees", "radians": "radians",
         "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
         "exp2": "exp2", "cbrt": "cbrt", "log": "log",
         "copysign": "copysign",
         # These return Python ints.
         "floor": "floor", "ceil": "ceil", "trunc": "trunc"}


def math_attribute(tr: "Translator", attr: str, node: ast.AST) -> Value:
    if attr in ("pi", "e", "tau", "inf", "nan"):
        return getattr(math, attr)
    if attr in _MATH:
        return MathFunction(attr)
    raise tr.unsupported(node, f"math.{attr}", "of the math module only "
                         "the constants and " + ", ".join(sorted(_MATH)) +
                         " are supported")


def math_call(tr: "Translator", fn: MathFunction, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """math.f(x) of scalars: folded when the arguments are constants,
    else the NumPy function on a float, an int64 for floor, ceil and
    trunc (Python's math returns ints there)."""
    name = fn.name
    if kwargs:
        raise tr.unsupported(node, f"keyword arguments of math.{name}")
    if all(isinstance(a, (int, float)) and not isinstance(a, bool)
           for a in args):
        try:
            return getattr(math, name)(*args)
        except (ValueError, OverflowError, TypeError) as e:
            raise tr.error(f"math.{name}{tuple(args)}: {e}", node)
    exprs = [tr.to_expr(a) for a in args]
    if any(len(e.shape) for e in exprs):
        raise tr.error(f"math.{name} takes scalars, not arrays: use "
                       f"np.{_MATH[name]}", node)
    if name == "log" and len(exprs) == 2:
        x, base = ufuncs.float_operands(tr, exprs, 2, "log", node)
        return tr.binop("div", ufuncs.elementwise(tr, "log", [x], node),
                        ufuncs.elementwise(tr, "log", [base], node))
    arity = 2 if name in ("atan2", "pow", "hypot", "copysign") else 1
    if len(exprs) != arity:
        raise tr.error(f"math.{name} takes {arity} argument"
                       f"{'s' if arity > 1 else ''}", node)
    if name.startswith("is"):
        return registry.numpy_call(tr, _MATH[name], exprs, {}, node)
    floats = ufuncs.float_operands(tr, exprs, arity, name, node)
    result = registry.numpy_call(tr, _MATH[name], floats, {}, node)
    if name in ("floor", "ceil", "trunc"):
        e = tr.to_expr(result)
        return Op("cast", [e], e.shape, np.int64)
    return result
