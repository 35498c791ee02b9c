"""Expressions: names, constants, tuples and lists, attributes, calls,
and the conversions of values to expressions (to_expr, to_bool) and to
control scalars and indices.
"""

import builtins
import sys

import numpy as np

from .. import ir
from .. import numpy as numpy_functions
from . import callables, calls, comprehensions, python_math
from ..semantics import complex_values
from ..semantics.bindings import construct_name
from .global_values import ModuleRef, NUMPY
from ..semantics.values import (ConstLeaf, Expr, Idx, IdxLeaf, Masked, Op,
                                Unavailable,
                     View, ViewLeaf, as_idx, is_float, same_extent)



# The NumPy submodules the frontend implements functions of, and what the
# error for another of their functions says is supported.
_SUBMODULES = {
    "random": "supported are np.random.default_rng(seed) and its "
              "Generator's methods, and np.random.seed(s) with rand, "
              "randn, random, uniform, normal, standard_normal, "
              "exponential, randint",
    "fft": "of np.fft only fft, ifft, fft2, ifft2, fftn, ifftn, rfft, "
           "irfft, fftfreq, rfftfreq, fftshift and ifftshift are supported",
    "linalg": "of np.linalg only norm, solve, inv, det, slogdet, cholesky, "
              "eigh, eigvalsh, qr, svd, pinv, cond, matrix_rank, lstsq, "
              "matrix_power and multi_dot are supported",
}


class Expressions:
    """Evaluates expressions to values.

    A mixin of Translator (translator.py), sharing its state."""

    def control_scalar(self, value, dtype):
        """SSA name of a scalar computed in the current control region."""
        expr = self.to_expr(value)
        if expr.shape and not all(same_extent(e, 1) for e in expr.shape):
            raise self.error("the truth value of an array is ambiguous; use "
                             ".any() or .all() (not supported) or index an "
                             "element")
        with self.em.capture() as buf:
            val = self.emit_scalar(expr, [], len(expr.shape), dtype)
        if not buf.dataflow:
            self.em.splice(buf)
            return val
        # The value was computed with maps: keep it in a 0-d transient and
        # read it back in the control region.
        tmp = self.new_transient([], dtype, "cond")
        with self.em.block(ir.STATE):
            self.em.splice(buf)
            self.emit_store(val, tmp.view(), [])
        name = self.em.fresh("l")
        self.em.line(ir.load(name, tmp.ssa, [], tmp.mlir_type))
        return name

    def control_index(self, value, node):
        """An Idx for `value` usable in the current control region."""
        if isinstance(value, (bool, np.bool_)):
            return Idx(int(value))
        if isinstance(value, (int, np.integer)):
            return Idx(int(value))
        if isinstance(value, Idx):
            return value
        expr = self.to_expr(value)
        if is_float(expr.dtype):
            raise self.error("expected an integer, got a float", node)
        if expr.shape:
            raise self.unsupported(node, "array used as an integer",
                                   "a range bound, a slice bound or a "
                                   "scalar index must be a single integer")
        return Idx.of(self.index_from(self.control_scalar(expr, np.int64)))

    def index_from(self, value):
        """The SSA name of the i64 SSA `value`, read from data, as an
        index (a data name: its sign is known only at run time)."""
        (name,) = self.em.tasklet(
            [(value, "i64")], ["index"],
            lambda tb, args: [tb.index_from_i64(args[0])])
        lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
        self.iter_bounds[name] = (lo, hi)
        self.data_names.add(name)
        return name

    def eval(self, node):
        saved = self.current_node
        self.current_node = node
        try:
            method = getattr(self, "eval_" + type(node).__name__, None)
            if method is None:
                raise self.unsupported(node, construct_name(node))
            return method(node)
        finally:
            self.current_node = saved

    def lookup(self, name, node):
        if name in self.env:
            return self.env[name]
        if name in self.globals:
            g = self.globals[name]
        elif hasattr(builtins, name):
            g = getattr(builtins, name)
        elif name in self.loop_scoped:
            line = self.loop_scoped[name]
            why = ("its shape or position depends on the loop's iterator, "
                   "whose last value is not known when compiling; copy it "
                   "into an array of a fixed shape inside the loop")
            kind = "loop"
            if isinstance(line, tuple):
                line, why, *rest = line
                kind = rest[0] if rest else kind
            raise self.unsupported(
                node, f"'{name}' after the {kind} of line {line}", why)
        else:
            raise self.error(f"name '{name}' is not defined", node)
        return self._python_value(name, g, node)

    def eval_Constant(self, node):
        v = node.value
        if isinstance(v, (bool, int, float)):
            return v
        if v is None:
            return None
        if isinstance(v, str):
            return v  # np.einsum's subscripts; to_expr refuses it elsewhere
        if isinstance(v, Idx):
            return v  # a slice object's bound (Indexing.slice_items)
        if isinstance(v, complex):
            return v  # 1j: complex arithmetic (semantics/complex_values.py)
        raise self.unsupported(node, f"constant {type(v).__name__}")

    def eval_Name(self, node):
        return self.lookup(node.id, node)

    def eval_Tuple(self, node):
        return tuple(self.eval(e) for e in node.elts)

    def eval_List(self, node):
        # Lists of arrays are arguments of np.concatenate and np.stack;
        # nothing else takes one (to_expr refuses it).
        return [self.eval(e) for e in node.elts]

    def eval_Dict(self, node):
        """A dict display with keys known when compiling (`{"W": W, "b":
        b}`): a Python dict of the values, as pytree arguments are, read
        by constant keys or returned (pytrees.build)."""
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise self.unsupported(node, "** in a dict display")
            key = self.eval(k)
            if isinstance(key, Idx) and key.is_const():
                key = key.const
            if isinstance(key, bool) or not isinstance(key, (str, int)):
                raise self.unsupported(k, "dict key computed at run time",
                                       "dict keys are strings or ints "
                                       "known when compiling")
            out[key] = self.eval(v)
        return out

    def eval_ListComp(self, node):
        return comprehensions.unroll(self, node)

    eval_GeneratorExp = eval_ListComp

    def eval_Attribute(self, node):
        base = self.eval(node.value)
        attr = node.attr
        if base is NUMPY:
            return numpy_functions.numpy_attribute(self, attr, node)
        if isinstance(base, ModuleRef):
            # `params.W`, `layers.dense(x)`: a module of the program's own
            # (arrays are passed at each call, functions inlined).
            module = base.module
            if not hasattr(module, attr):
                raise self.error(f"module '{module.__name__}' has no "
                                 f"attribute '{attr}'", node)
            if module.__name__ not in sys.modules or sys.modules[
                    module.__name__] is not module:
                raise self.unsupported(node, f"attribute of module "
                                       f"'{module.__name__}'",
                                       "the module is not imported under "
                                       "its own name")
            return self._python_value(attr, getattr(module, attr), node,
                                      module=module.__name__)
        if base is python_math.MATH:
            return python_math.math_attribute(self, attr, node)
        if isinstance(base, complex_values.Complex):
            return complex_values.attribute(self, base, attr, node)
        if isinstance(base, tuple) and attr in getattr(type(base),
                                                      "_fields", ()):
            return getattr(base, attr)  # a named tuple's field
        if isinstance(base, dict):
            return callables.BoundMethod(base, attr)
        if isinstance(base, Masked) and attr not in (
                "sum", "mean", "prod", "max", "min", "std", "var", "any",
                "all"):
            # x[m].shape, x[m].argmax(): the selection as an array of
            # its own, of a length the data gives.
            base = numpy_functions.selections.compact(self, base, node)
        if isinstance(base, View):
            if attr == "shape":
                return tuple(self._shape_value(e) for e in base.shape)
            if attr == "T":
                return base.transpose()
            if attr == "ndim":
                return base.ndim
            if attr == "size":
                return numpy_functions.element_count(self, base.shape, node,
                                                 "size")
            if attr == "dtype":
                return base.dtype.type
            return callables.BoundMethod(base, attr)
        if isinstance(base, Masked) and attr in (
                "sum", "mean", "prod", "max", "min", "std", "var", "any",
                "all"):
            return callables.BoundMethod(base, attr)
        if isinstance(base, numpy_functions.CompileTimeObject):
            return base.attribute(self, attr, node)
        if isinstance(base, callables.NumpyFunction) and \
                base.name in _SUBMODULES:
            # np.random.X, np.fft.X, np.linalg.X: registered as "random.X"
            # and so on.
            qualified = f"{base.name}.{attr}"
            if numpy_functions.is_numpy_function(qualified):
                return callables.NumpyFunction(qualified)
            raise self.unsupported(node, f"np.{qualified}",
                                   _SUBMODULES[base.name])
        if isinstance(base, callables.NumpyFunction) and attr == "at" \
                and base.name in ("add", "subtract"):
            return callables.NumpyFunction(base.name + ".at")
        if isinstance(base, callables.NumpyFunction) and attr in (
                "outer", "reduce", "accumulate") and isinstance(
                    getattr(np, base.name, None), np.ufunc):
            return callables.NumpyFunction(f"{base.name}.{attr}")
        if isinstance(base, Expr):
            if attr == "shape":
                return tuple(self._shape_value(e) for e in base.shape)
            if attr == "T":
                return self.materialize(base, node).transpose()
            if attr == "dtype":
                return base.dtype.type
            return callables.BoundMethod(base, attr)
        dtype = numpy_functions.as_dtype(base)
        if dtype is not None and attr in ("kind", "itemsize", "name", "char",
                                          "type"):
            # `x.dtype.kind == "f"`: known when compiling.
            return getattr(dtype, attr)
        raise self.unsupported(node, f"attribute '{attr}'")

    def _shape_value(self, e):
        e = as_idx(e)
        return e.const if e.is_const() else e

    def eval_Call(self, node):
        return calls.call(self, node)

    def _int_constant(self, v):
        """A Python int as an int64 operand. One outside int64 is NumPy 2's
        OverflowError (NumPy 1 computed with floats or Python objects;
        as an int64 it would wrap): an error here, when compiling."""
        if not -2 ** 63 <= v < 2 ** 63:
            raise self.error(
                f"an integer constant out of the range of int64: Python "
                f"integer {v} (NumPy 2 raises OverflowError); write it as "
                f"a float ({float(v)!r}) if a float is meant",
                self.current_node)
        return ConstLeaf(v, np.int64)

    def to_expr(self, v):
        if isinstance(v, Expr):
            return v
        if isinstance(v, Unavailable):
            raise v.error
        if isinstance(v, View):
            return ViewLeaf(v)
        if isinstance(v, Idx):
            return self._int_constant(v.const) if v.is_const() else \
                IdxLeaf(v)
        if isinstance(v, ScalarLeafCopy):
            return v.expr
        if isinstance(v, (bool, np.bool_)):
            return ConstLeaf(bool(v), np.bool_)
        if isinstance(v, (int, np.integer)):
            return self._int_constant(int(v))
        if isinstance(v, (float, np.floating)):
            return ConstLeaf(float(v), np.float64)
        if isinstance(v, tuple):
            raise self.unsupported(self.current_node, "tuple used as an array")
        if isinstance(v, Masked):
            # The selection as an array of its own, of a length the data
            # gives (numpy/selections.py).
            return ViewLeaf(numpy_functions.selections.compact(
                self, v, self.current_node))
        if complex_values.is_complex(v):
            # Never silently real: code that takes a real here does not
            # know complex numbers.
            raise complex_values.refuse_real_use(
                self, "a real one is needed")
        raise self.unsupported(self.current_node,
                               f"value of type {type(v).__name__}")

    def to_bool(self, v):
        e = self.to_expr(v)
        if e.dtype == np.bool_:
            return e
        return Op("cast", [e], e.shape, np.bool_)


class ScalarLeafCopy:
    """A scalar variable's value captured before a tuple assignment."""

    def __init__(self, tr, expr):
        tmp = tr.new_transient([], expr.dtype, "snapshot")
        tr.store(tmp.view(), expr)
        self.expr = ViewLeaf(tmp.view())
