"""NumPy's dtypes and scalar types as the program names them
(np.float32, x.dtype, float), np.issubdtype and the astype method.
"""
import ast
from typing import TYPE_CHECKING, Dict, List

import numpy as np
from .registry import (CompileTimeObject, array_method, no_kwargs,
                       numpy_function)
from ..semantics.values import (SUPPORTED_DTYPES, ConstLeaf, Expr, Op, Value,
                                View)

if TYPE_CHECKING:
    from ..frontend.translator import Translator


DTYPES = {"float64": np.float64, "float32": np.float32, "int64": np.int64,
           "int32": np.int32, "bool_": np.bool_, "double": np.float64,
           "single": np.float32, "int16": np.int16, "int8": np.int8,
           "uint64": np.uint64, "uint32": np.uint32, "uint16": np.uint16,
           "uint8": np.uint8, "byte": np.int8, "ubyte": np.uint8,
           "short": np.int16, "ushort": np.uint16}


# NumPy's abstract scalar types, for np.issubdtype(x.dtype, np.floating).
ABSTRACT_TYPES = {"floating": np.floating, "integer": np.integer,
                   "signedinteger": np.signedinteger, "number": np.number,
                   "unsignedinteger": np.unsignedinteger,
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


_KNOWN = [np.dtype(t) for t in SUPPORTED_DTYPES]


def dtype_of(tr: "Translator", dtype: Value, node: ast.AST) -> Value:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise tr.unsupported(node, "dtype argument",
                             "dtype must be a NumPy type such as np.float64 "
                             "or A.dtype")
    if dt.type not in SUPPORTED_DTYPES:
        if dt in _KNOWN:
            # The same dtype under another name (np.uintc for uint32).
            return _KNOWN[_KNOWN.index(dt)]
        raise tr.unsupported(node, f"dtype {dt}")
    return dt


def float_type(tr: "Translator", dtype: np.dtype, name: str,
               node: ast.AST) -> np.dtype:
    """The float type NumPy's floating-point ufuncs (np.sqrt, np.exp,
    np.floor of integers) compute integers of `dtype` in: float32 for
    16-bit ones, float64 for wider ones (and, as before, for bools).
    8-bit integers give NumPy's float16, which compiled programs lack: a
    located error."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype
    if dtype.kind in "iu" and dtype.itemsize == 1:
        raise tr.unsupported(
            node, f"np.{name} of {dtype} values (NumPy computes them in "
            "float16, which compiled programs do not have)",
            "convert first: x.astype(np.float32) or x.astype(np.float64)")
    if dtype.kind in "iu" and dtype.itemsize == 2:
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def signed_order(e: Op) -> Op:
    """Unsigned integers as the signed ones of their width in the same
    order (the top bit flipped: uint8's 0 is -128, 255 is 127): for the
    compiled operations that compare signed (max/min writes, sort and
    search keys). Other dtypes as they are."""
    if e.dtype.kind != "u":
        return e
    signed = np.dtype(f"int{e.dtype.itemsize * 8}")
    top = ConstLeaf(np.iinfo(signed).min, signed)
    return Op("bitxor", [Op("cast", [e], e.shape, signed), top], e.shape,
              signed)


def unsigned_order(e: Op, dtype: np.dtype) -> Op:
    """The inverse of signed_order: `e` (of the signed type) as `dtype`."""
    top = ConstLeaf(np.iinfo(e.dtype).min, e.dtype)
    back = Op("bitxor", [e, top], e.shape, e.dtype)
    return Op("cast", [back], e.shape, dtype)


class IntegerInfo(CompileTimeObject):
    """`np.iinfo(np.uint8)`: the limits of an integer type, known when
    compiling (`np.iinfo(x.dtype).max` is a Python int)."""

    def __init__(self, info: np.iinfo):
        self.info = info

    def attribute(self, tr: "Translator", name: str, node: ast.AST):
        if name in ("min", "max", "bits"):
            v = int(getattr(self.info, name))
            # uint64's max is beyond the int64 Python ints compile to: a
            # constant of its own type (value-based casting still sees
            # the value).
            return v if v < 2 ** 63 else ConstLeaf(v, np.uint64)
        if name == "dtype":
            return self.info.dtype.type
        raise tr.unsupported(node, f"np.iinfo attribute '{name}'",
                             "min, max, bits and dtype are supported")

    def bind(self, tr: "Translator", name: str, existing: Value,
             node: ast.AST) -> None:
        pass  # a constant: the same on every path

    def method(self, tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
        raise tr.unsupported(node, f"np.iinfo method '{name}'")


@numpy_function("iinfo")
def np_iinfo(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    no_kwargs(tr, kwargs, node)
    if len(args) != 1:
        raise tr.error("np.iinfo takes one argument", node)
    (v,) = args
    dt = as_dtype(v)
    if dt is None and isinstance(v, (View, Expr)):
        # NumPy 1.24 reads an array as an object: its ValueError.
        raise tr.error("Invalid integer data type 'O'. (np.iinfo takes "
                       "the dtype: np.iinfo(x.dtype))", node)
    if dt is None or dt.kind not in "iu":
        raise tr.error(f"Invalid integer data type {dt.kind!r}."
                       if dt is not None else "np.iinfo takes an integer "
                       "dtype", node)
    return IntegerInfo(np.iinfo(dt))


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
