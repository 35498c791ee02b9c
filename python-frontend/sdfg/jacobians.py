"""`sdfg.jacfwd` and `sdfg.jacrev`: dense Jacobians, as JAX's, column by
column with sdfg.jvp (one call per input element) or row by row with
sdfg.vjp (one call per output element). For small inputs or outputs: each
column or row is one call of one compiled program."""

import inspect
from typing import Any, Callable

import numpy as np

from . import pytrees
from .forward_mode import jvp
from .gradients import _argnum_names, vjp


def _argnums(fn, argnums):
    names, form = _argnum_names(fn, argnums)
    positions = [list(inspect.signature(fn).parameters).index(n)
                 for n in names]
    return names, positions, form


def _output_of(value, output, what):
    """The array `output` names among what fn returned."""
    if output == "return":
        if isinstance(value, tuple):
            raise ValueError(f"{what}: the function returns {len(value)} "
                             "values; choose one with output='return:K'")
        return value
    if isinstance(output, str) and output.startswith("return:"):
        return value[int(output.split(":", 1)[1])]
    raise ValueError(f"{what}: output must be 'return' or 'return:K', not "
                     f"{output!r}")


def jacfwd(fn: Callable, argnums: Any = 0, *, output: Any = "return",
           device: str = "cpu") -> Callable:
    """jax.jacfwd: a function of fn's arguments returning the Jacobian of
    `output` (an array or float fn returns) with respect to the argument
    at `argnums` (an int; a tuple gives a tuple of Jacobians), of shape
    output.shape + argument.shape. One sdfg.jvp call per element of the
    argument."""
    names, positions, form = _argnums(fn, argnums)

    def jacobian(*args):
        args = list(args)
        out = []
        y = None
        for name, k in zip(names, positions):
            # Leaf by leaf (a dict, tuple or list argument gives the
            # Jacobians in its structure, as JAX's).
            jacs = {}
            for path, x in pytrees.leaves(name, args[k]):
                x = np.asarray(x)
                if x.dtype.kind != "f":
                    if not pytrees.is_node(args[k]):
                        raise TypeError(f"jacfwd: argument '{name}' is not "
                                        "a float array or float")
                    jacs[path] = None
                    continue
                cols = []
                for j in range(x.size):
                    e = np.zeros(x.size, np.float64)
                    e[j] = 1.0
                    t = e.reshape(x.shape) if x.ndim else 1.0
                    tangents = [None] * len(args)
                    tangents[k] = pytrees.map_leaves(
                        lambda p, _: t if p == path else None, name,
                        args[k])
                    value, tangent = jvp(fn, args, tangents, device=device)
                    y = np.asarray(_output_of(value, output, "jacfwd"))
                    cols.append(np.asarray(_output_of(tangent, output,
                                                      "jacfwd")).reshape(-1))
                if y is None:
                    y = np.asarray(_output_of(jvp(
                        fn, args, [None] * len(args), device=device)[0],
                        output, "jacfwd"))
                jac = np.stack(cols, axis=-1) if cols else \
                    np.zeros((y.size, 0), y.dtype)
                jacs[path] = jac.reshape(y.shape + x.shape)
            out.append(pytrees.map_leaves(lambda p, _: jacs[p], name,
                                          args[k]))
        return out[0] if form == "one" else tuple(out)
    return jacobian


def jacrev(fn: Callable, argnums: Any = 0, *, output: Any = "return",
           device: str = "cpu") -> Callable:
    """jax.jacrev: as jacfwd, row by row with sdfg.vjp (one call per
    element of the output; each call gives the row for every argument at
    once)."""
    names, positions, form = _argnums(fn, argnums)
    v = vjp(fn, names, output=output, device=device)

    def jacobian(*args):
        args = list(args)
        y = np.asarray(_output_of(v.program(*[pytrees.map_leaves(
            lambda _, a: np.copy(a) if isinstance(a, np.ndarray) else a,
            "", a) for a in args]), output, "jacrev"))
        rows = {}
        for i in range(y.size):
            seed = np.zeros(y.size, y.dtype)
            seed[i] = 1.0
            g = v(*args, seed=seed.reshape(y.shape))
            for n in names:
                # Leaf by leaf (gradients of a dict argument are a dict).
                for path, leaf in pytrees.leaves(n, g[n]):
                    if leaf is not None:
                        rows.setdefault(path, []).append(
                            np.asarray(leaf).reshape(-1))
        out = []
        for n, k in zip(names, positions):
            def jac(path, x):
                x = np.asarray(x)
                if x.dtype.kind != "f":
                    return None
                r = rows.get(path)
                j = np.stack(r) if r else np.zeros((0, x.size), y.dtype)
                return j.reshape(y.shape + x.shape)
            out.append(pytrees.map_leaves(jac, n, args[k]))
        return out[0] if form == "one" else tuple(out)
    return jacobian
