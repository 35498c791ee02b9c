"""What `np.<attr>` is in a program: a dtype or scalar type, a constant
(pi, e, inf, nan, newaxis) or a registered function."""

import numpy as np

from ..frontend.callables import NumpyFunction
from .dtypes import ABSTRACT_TYPES, DTYPES
from .registry import is_numpy_function


def numpy_attribute(tr, attr: str, node):
    """The compile-time value of np.<attr>."""
    if attr in DTYPES:
        return DTYPES[attr]
    if attr in ABSTRACT_TYPES:
        return ABSTRACT_TYPES[attr]
    if attr in ("complex128", "complex64", "cdouble", "csingle",
                "complexfloating"):
        # Complex dtypes (numpy/complex_functions.py).
        return getattr(np, attr)
    if attr in ("pi", "e", "inf", "nan"):
        return float(getattr(np, attr))
    if attr == "newaxis":
        return None
    if attr == "random":
        return NumpyFunction("random")  # its functions: expressions.py
    if attr == "fft":
        return NumpyFunction("fft")  # its functions: expressions.py
    if is_numpy_function(attr):
        return NumpyFunction(attr)
    raise tr.unsupported(node, f"np.{attr}",
                         "this NumPy function is not supported by the sdfg "
                         "frontend")
