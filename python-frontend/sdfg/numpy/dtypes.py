"""NumPy's dtypes and scalar types as the program names them
(np.float32, x.dtype, float), np.issubdtype and the astype method.
"""
import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np
from .registry import array_method, no_kwargs, numpy_function
from ..semantics.values import Op, Value

if TYPE_CHECKING:
    from ..frontend.translator import Translator


DTYPES = {"float64": np.float64, "float32": np.float32, "int64": np.int64,
           "int32": np.int32, "bool_": np.bool_, "double": np.float64,
           "single": np.float32}


# NumPy's abstract scalar types, for np.issubdtype(x.dtype, np.floating).
ABSTRACT_TYPES = {"floating": np.floating, "integer": np.integer,
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


def dtype_of(tr: "Translator", dtype: Value, node: ast.AST) -> Value:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise tr.unsupported(node, "dtype argument",
                             "dtype must be a NumPy type such as np.float64 "
                             "or A.dtype")
    if dt.type not in (np.float64, np.float32, np.int64, np.int32, np.bool_):
        raise tr.unsupported(node, f"dtype {dt}")
    return dt


@numpy_function("issubdtype")
def np_issubdtype(tr: "Translator", name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if len(args) != 2 or not all(
            isinstance(a, type) or isinstance(a, np.dtype) for a in args):
        raise tr.unsupported(node, "np.issubdtype of values other than "
                             "dtypes and NumPy's scalar types")
    return bool(np.issubdtype(args[0], args[1]))


@array_method("astype")
def astype_method(tr: "Translator", obj: Value, name: str, args: List[Value],
                  kwargs: Dict[str, Value], node: ast.AST) -> Value:
    (dtype,) = args
    e = tr.to_expr(obj)
    return Op("cast", [e], e.shape, dtype_of(tr, dtype, node))
