"""A compiled program loaded for calls: `LoadedProgram` runs the library
built for one signature of a Program (its arguments checked and passed
through the C ABI, its outputs allocated, the arrays it writes given
back) and holds what every call needs, read once from the build's meta.
gradients.py and forward_mode.py add their calls of gradient and tangent
programs to it.

Split from program.py, which decides which program a call needs and
builds it."""

import sys
import threading

import numpy as np

from . import native, pytrees
from .arguments import argument as _argument
from .call_checks import check_after_call as _check_after_call
from .call_checks import check_indices as _check_indices
from .call_checks import check_overlap as _check_overlap
from .call_checks import check_writeable as _check_writeable
from .call_checks import written_args as _written_args
from .errors import FrontendError


def _global_value(fn, where, module, name):
    """The value a global array parameter takes at a call (see
    Signature.globals)."""
    try:
        if where in ("closure", "closure-of"):
            if where == "closure-of":  # the closure of a module-level name
                fn = fn.__globals__[module]
                fn = getattr(fn, "fn", fn)
            code = fn.__code__
            return fn.__closure__[code.co_freevars.index(name)].cell_contents
        scope = fn.__globals__ if module is None else \
            sys.modules[module].__dict__
        if name.endswith("]"):  # an array of a tuple: `LAYERS[1]`
            base, k = name[:-1].split("[")
            return scope[base][int(k)]
        return scope[name]
    except (KeyError, ValueError):
        raise NameError(f"name '{name}' is not defined") from None


class LoadedProgram:
    def __init__(self, module, meta, fn):
        self.function = getattr(module, meta["name"])
        self.module = module
        self.meta = meta
        self.fn = fn
        # Read once: the checks before every call use it.
        self.written = _written_args(meta)
        params = {p[1]: p for p in meta["params"]}
        self.globals = [(g[1:], np.dtype(params[g[0]][2]),
                         tuple(params[g[0]][3]))
                        for g in meta.get("globals", ())]
        # Per calling thread: the arrays a gradient call needs but does not
        # return, kept for the next call (_call_gradient).
        self._scratch = threading.local()
        # Per output: its shape, with the extents that are size formulas
        # (symbolic_sizes.py) as (constant, ((parameter position, axis or
        # None, coefficient), ...)), read once (calls evaluate them).
        position = {p[1]: k for k, p in enumerate(meta["params"])}
        self.output_shapes = [
            None if kind != "array" else tuple(
                e if type(e) is not dict else
                (e["const"], tuple((position[n], axis, c)
                                   for n, axis, c in e["terms"]))
                for e in shape)
            for kind, _, shape in meta["outputs"]]
        self.symbolic_outputs = any(
            type(e) is tuple for s in self.output_shapes if s for e in s)
        # Every output's shape for a call's arguments in one function, the
        # formulas written out (a call of a 20 us program with symbols
        # spent 2 us interpreting them).
        self.shapes_for = _shapes_function(self.output_shapes) \
            if self.symbolic_outputs else None

    def with_globals(self, args):
        """`args` followed by the global arrays the program reads, as
        their names hold them now."""
        if not self.globals:
            return args
        values = []
        for origin, dtype, shape in self.globals:
            v = _global_value(self.fn, *origin)
            if not (isinstance(v, np.ndarray) and v.shape == shape and
                    v.dtype.newbyteorder("=") == dtype):
                # Program._key covers what the function reads; this is
                # only reached where that scan missed a name.
                raise FrontendError(
                    f"global '{origin[2]}' is no longer an array of dtype "
                    f"{dtype} and shape {shape}, as when "
                    f"{self.fn.__name__} was compiled")
            values.append(v)
        return tuple(args) + tuple(values)

    def check(self, args, given=None, gradient=False):
        """The checks before a call of this program (forward or gradient:
        one place for both), on `args` as _normalise made them and `given`
        as the caller passed them (the same where nothing was converted):
        indices read from index arrays, arguments that share memory where
        the program writes one (the program's call also refuses read-only
        arrays it writes: _check_writeable; a gradient writes copies).
        Returns (args, given) completed by the global arrays the program
        reads."""
        meta = self.meta
        given = args if given is None else tuple(given)
        if meta.get("trees"):
            # The program's parameters are the leaves of the arguments.
            args = pytrees.flatten_values(args)
            given = pytrees.flatten_values(given)
        if self.globals:
            names = self.with_globals(())
            args = tuple(args) + tuple(
                v if type(v) is np.ndarray and v.dtype.isnative else
                _argument(v, None, None, (f"global '{origin[2]}'",
                                          origin[2]))
                for v, (origin, _, _) in zip(names, self.globals))
            given = given + names
        if gradient or meta.get("check_indices", True):
            _check_indices(meta, args, self.written)
        _check_overlap(meta, given, self.written)
        return args, given

    def call(self, args, given=None):
        """Runs the program on `args` (_normalise'd; `given`: the caller's
        arrays, where a written argument's values go back and which a
        returned argument is). Everything a call needs is local to it: the
        object is shared by every thread that calls the program."""
        meta = self.meta
        args, given = self.check(args, given)
        written = self.written
        cargs = []
        writeback = []
        for (kind, name, dtype, _), value, orig in zip(meta["params"], args,
                                                        given):
            if kind == "array":
                arr = value
                if not arr.flags.c_contiguous or not arr.flags.aligned:
                    arr = _contiguous(value)
                # Only what the program writes goes back (a read-only
                # array that is only read is never assigned to).
                if name in written:
                    if not orig.flags.writeable:
                        _check_writeable(meta, given, written)
                    if arr is not value or (value is not orig and
                                            value.base is not orig):
                        writeback.append((orig, arr))
                cargs.append(_float_pairs(arr))
            elif kind == "scalar":
                cargs.append(np.array(value, dtype=dtype))
            elif kind == "index":
                cargs.append(int(value))  # a loop bound (symbols.py)
        outputs = []
        shapes = self.shapes_for(args) if self.shapes_for else \
            self.output_shapes
        for (kind, dtype, _), shape in zip(meta["outputs"], shapes):
            if kind == "array":
                out = self.module.empty(shape, dtype)
                cargs.append(_float_pairs(out))
                outputs.append(out)
            else:
                outputs.append(None)
        self.module.before_call(
            meta.get("omp_spin_ms", native.OMP_SPIN_MS_WITH_BLAS))
        self.function(*cargs)
        # In this thread, right after the call: the error records are the
        # calling thread's.
        _check_after_call(meta, self.module)
        for orig, tmp in writeback:
            orig[...] = tmp
        results = []
        for (kind, dtype, shape), out in zip(meta["outputs"], outputs):
            if kind == "arg":
                results.append(given[dtype])  # dtype holds the param index
            elif len(shape) == 0:
                results.append(out[()])
            else:
                results.append(out)
        return pytrees.result(meta, results)


def _shapes_function(shapes):
    """A function from a call's arguments to the shapes of its outputs
    (LoadedProgram.output_shapes' form; None for an output that is not an array):
    the extents that are size formulas (a constant plus multiples of
    argument extents and size ints: frontend/symbolic_sizes.py) are
    written out as Python expressions and compiled once, so a call
    evaluates them without walking the formulas."""
    def extent(e):
        if type(e) is int:
            return repr(e)
        const, terms = e
        parts = [repr(const)] if const or not terms else []
        for k, axis, c in terms:
            term = f"int(a[{int(k)}])" if axis is None else \
                f"a[{int(k)}].shape[{int(axis)}]"
            parts.append(term if c == 1 else f"{int(c)} * {term}")
        return " + ".join(parts)

    def shape(s):
        if s is None:
            return "None"
        return "(" + "".join(extent(e) + ", " for e in s) + ")"

    source = "lambda a: (" + "".join(shape(s) + ", " for s in shapes) + ")"
    return eval(source, {"int": int})


def _float_pairs(a):
    """A complex array as the program takes it: its memory viewed as
    floats with a trailing axis of 2 (docs/design/complex-numbers.md);
    other arrays as they are."""
    if a.dtype.kind != "c":
        return a
    return a.reshape(a.shape + (1,)).view(
        np.float32 if a.dtype == np.complex64 else np.float64)


def _complex_view(a, dtype):
    """A float-pair array viewed back as complex `dtype`."""
    return a.view(dtype).reshape(a.shape[:-1])


def _contiguous(a):
    """`a` as a C-contiguous array of its own shape (np.ascontiguousarray
    makes a 0-d array 1-d)."""
    return np.ascontiguousarray(a) if np.ndim(a) else np.array(a)
