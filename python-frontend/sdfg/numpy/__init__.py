"""The NumPy functions and array methods the frontend translates, as a
registry by category:

- ufuncs.py: element-wise functions (exp, add, where, clip, logical_*,
  hypot, ...), ufunc methods (np.add.outer/.reduce/.accumulate, np.add.at)
- reductions.py: sum, mean, max, var, any, argmax, cumsum, nan*, ...
- creation.py: zeros, ones, full, *_like, array, copy, eye, arange, ...
- manipulation.py: transpose, reshape, flip, squeeze, take, diff, ...;
  joining.py: concatenate, stack, split, tile, repeat, pad, roll, ...;
  diagonals.py: diag, diagonal, trace, fill_diagonal, triu, tril
- products.py: dot, matmul, outer, einsum, tensordot, kron, cross, ...
- linalg.py: np.linalg.*
- statistics.py, polynomials.py, sorting.py, searching.py
- index_arrays.py: triu_indices, tril_indices, diag_indices
- histograms.py: histogram, bincount, digitize; selections.py: x[mask]
  reductions and arrays the data sizes (x[mask] as a value, nonzero,
  flatnonzero, argwhere, unique)
- random.py: np.random.default_rng(seed) and its Generator, the legacy
  np.random.seed + rand/randn/...
- fft.py: np.fft.* (the library op sdfg.fft on complex containers)
- complex_functions.py: the functions and methods of complex arrays
  (numpy_call/method_call dispatch there; semantics/complex_values.py)
- dtypes.py: dtypes, np.issubdtype, .astype; operands.py: shared helpers
- registry.py: the decorators and the lookup (numpy_call, method_call);
  attributes.py: what np.<attr> is.

Adding a NumPy function touches this folder only: write its
implementation in the module of its category and register it. The
translator finds it by name (np.<name>, and with method=True the array
method of that name):

    @numpy_function("cbrt_plus", positional=("x", "c"))
    def np_cbrt_plus(tr, name, args, kwargs, node):
        arg = Arguments(tr, args, kwargs, node)
        arg.only("c")
        return tr.binop("add", elementwise(tr, "cbrt", [arg(0, "x")], node),
                        arg(1, "c", 0.0))

An implementation gets the Translator `tr` (its to_expr, binop, store,
error, unsupported, ...), the name called (one implementation may serve
several names), the evaluated arguments and the ast.Call node (for
errors), and returns the value (an Expr, a View, a Python constant, a
tuple of those, or None). Compose the existing ops wherever possible:
their gradients then come for free. A new module must be imported below.
"""

# Each module registers its functions when imported.
from . import (creation, diagonals, dtypes, histograms, index_arrays,
               joining, linalg, manipulation, polynomials, products,
               reductions, searching, selections, sorting, statistics,
               ufuncs)
from . import random  # np.random.*: a Generator known when compiling
from . import complex_functions  # complex arrays (numpy_call's dispatch)
from . import fft  # np.fft.*: the library op sdfg.fft on complex arrays
from .attributes import numpy_attribute
from .dtypes import as_dtype
from .operands import element_count
from .products import matmul, scaled_matmul
from .registry import (CompileTimeObject, is_numpy_function, method_call,
                       numpy_call)
from .ufuncs import where

__all__ = ["creation", "dtypes", "histograms", "index_arrays",
           "linalg", "selections", "manipulation", "joining", "diagonals",
           "polynomials",
           "products", "reductions", "searching", "sorting", "statistics",
           "ufuncs", "random", "complex_functions", "fft",
           "CompileTimeObject",
           "as_dtype", "element_count", "is_numpy_function", "matmul",
           "method_call",
           "numpy_attribute", "numpy_call", "scaled_matmul", "where"]
