"""Values a program reads from outside its arguments: module and closure
arrays, numbers, functions and modules (Translator mixin).

A global array becomes a hidden parameter (`%global.NAME`) passed on
every call and never differentiated; numbers and functions are constants
of the translation (program.py keys its cache on them).
"""

import ast
import math
import sys
import types
from typing import Any, Optional

import numpy as np

from ..custom_vjp import custom_vjp
from .. import numpy as numpy_functions
from . import callables, python_math
from ..semantics.values import SUPPORTED_DTYPES, Container


class GlobalValues:
    """Translator methods that bind the values of globals and closures."""

    def global_array(self, name, value, node, origin=None):
        """A module-level (or closed-over) NumPy array the function reads:
        a hidden parameter of the program, passed by the caller at every
        call (the array the name holds then: in-place updates from either
        side are seen, as in Python), never differentiated. `origin`
        (see _global_origin) where the name alone does not find it."""
        if origin is None:
            origin = self._global_origin(name, value, node)
        view = self.global_views.get(origin)
        if view is not None:
            return view
        if value.dtype.type not in SUPPORTED_DTYPES:
            raise self.unsupported(node, f"global array '{name}' of dtype "
                                   f"{value.dtype}")
        # A big-endian array is passed as a native copy (program.py's
        # _normalise), written back where the program writes it.
        dtype = value.dtype if value.dtype.isnative else \
            value.dtype.newbyteorder("=")
        where, module, var = origin
        label = "global." + (f"{module}." if module else "") + \
            var.replace("[", ".").replace("]", "")
        c = Container(f"%{label}", value.shape, dtype, "arg", label)
        c.ndarray = True
        self.em.reserved.add(c.ssa)
        # After the other params, before the outputs (a return statement
        # may read a global after its first value's output is made).
        at = sum(1 for p in self.param_containers if p.kind != "output")
        self.param_containers.insert(at, c)
        self.sig.params.append(("array", label, dtype, value.shape))
        self.sig.globals.append([label, where, module, var])
        view = self.global_views[origin] = c.view()
        return view

    def _global_origin(self, name, value, node):
        """Where the caller finds the array `name` names at each call:
        ("closure", None, name) for a free variable of the function,
        ("module", None, name) for one of its module, ("module", M, name)
        for one of the module M of a function it calls, ("closure-of", H,
        name) for a free variable of the function it calls as module-level
        name H."""
        fn = self.inlining[0]
        code = fn.__code__
        if name in code.co_freevars and fn.__closure__[
                code.co_freevars.index(name)].cell_contents is value:
            return ("closure", None, name)
        if fn.__globals__.get(name) is value:
            return ("module", None, name)
        callee = next((f for f in reversed(self.inlining)
                       if isinstance(f, types.FunctionType)), fn)
        code = callee.__code__
        if name in code.co_freevars and callee.__closure__[
                code.co_freevars.index(name)].cell_contents is value:
            # A closure the function calls by a module-level name
            # (`step = make_step(L)`): found through that name.
            holder = next((n for n, v in fn.__globals__.items()
                           if v is callee or inlinable(v) is callee), None)
            if holder is not None:
                return ("closure-of", holder, name)
        module = getattr(callee, "__module__", None)
        if callee.__globals__.get(name) is value and module and getattr(
                sys.modules.get(module), "__dict__", None) is \
                callee.__globals__:
            return ("module", module, name)
        raise self.unsupported(node, f"array '{name}' of an enclosing "
                               "function of a called function",
                               "pass it as an argument")

    def _python_value(self, name, g, node, module=None):
        """What the program reads for the Python value `g` that `name`
        names outside it (a global, a closure's variable, or, with
        `module`, the attribute `name` of that module)."""
        if g is np:
            return NUMPY
        if g is math:
            return python_math.MATH
        fname = getattr(g, "__name__", None)
        if isinstance(fname, str) and callable(g):
            # `from numpy import exp`, `from math import sqrt`. (vars():
            # NumPy warns on getattr of its removed aliases, np.bool.)
            if vars(np).get(fname) is g:
                return numpy_functions.numpy_attribute(self, fname, node)
            if getattr(math, fname, None) is g:
                return python_math.math_attribute(self, fname, node)
        if isinstance(g, (bool, int, float, np.number, np.bool_)):
            return g.item() if isinstance(g, (np.number, np.bool_)) else g
        if isinstance(g, tuple) and all(isinstance(x, (int, float))
                                        for x in g):
            return g
        if isinstance(g, str) or (isinstance(g, tuple) and g and all(
                isinstance(x, str) for x in g)):
            # A mode string (`MODE = "relu"`), compared with constants.
            return g
        if isinstance(g, list) and g and all(
                isinstance(x, (int, float)) and not isinstance(x, bool)
                for x in g):
            # Coefficients (`COEFS = [0.1, 0.2]`): read when compiling,
            # like a tuple (the key holds them: a changed one recompiles).
            return tuple(g)
        origin = None if module is None else ("module", module, name)
        if isinstance(g, np.ndarray):
            return self.global_array(name, g, node, origin)
        if isinstance(g, tuple) and g and all(isinstance(x, np.ndarray)
                                              for x in g):
            # `LAYERS = (W1, W2)`: each array found again through the
            # tuple at every call.
            where, mod, var = origin or self._global_origin(name, g, node)
            return tuple(self.global_array(name, x, node,
                                           (where, mod, f"{var}[{k}]"))
                         for k, x in enumerate(g))
        if isinstance(g, types.ModuleType):
            return ModuleRef(g)
        if g in (range, abs, min, max, float, int, len, bool, round, sum,
                 divmod, slice, list, tuple, print):
            return g
        if isinstance(g, type) and issubclass(g, np.generic):
            return g
        if g is complex:
            return g  # a dtype (dtype=complex: numpy/complex_functions.py)
        if isinstance(g, custom_vjp):
            return g  # called through custom_calls.py
        if inlinable(g) is not None:
            # Called here, or passed on to a helper that calls it (an
            # integrator's right-hand side, `rk4(rhs, y, dt)`): inlined
            # where it is called.
            return callables.UserFunction(inlinable(g))
        if callable(g) and isinstance(self.current_node, ast.Name) and \
                isinstance(getattr(self, "_call_func_node", None), ast.Name) \
                and self._call_func_node is node:
            raise self.unsupported(node, f"call of {name}",
                                   "only NumPy functions and array methods "
                                   "can be called")
        raise self.unsupported(node, f"global '{name}' of type "
                               f"{type(g).__name__}")


class ModuleRef:
    """A module other than NumPy's and math's, as a value of the
    program (its attributes are read by eval_Attribute)."""

    def __init__(self, module):
        self.module = module


def inlinable(g: Any) -> Optional[types.FunctionType]:
    """The Python function whose calls the frontend inlines when a global
    names `g`: a plain function, or the one an @sdfg.program wraps (its
    compiled form is for calls from Python); None for anything else."""
    if isinstance(g, types.FunctionType):
        return g
    if type(g).__module__ == "sdfg.program" and \
            type(g).__name__ == "Program" and \
            isinstance(getattr(g, "fn", None), types.FunctionType):
        return g.fn
    return None


class _NumpyModule:
    """Marker for the numpy module in expressions."""


NUMPY = _NumpyModule()
