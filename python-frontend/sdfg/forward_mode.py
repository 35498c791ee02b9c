"""Forward mode: `sdfg.jvp` (Jacobian-vector products, as jax.jvp)
through the sdfg-forward-diff pass, one compiled program computing the
function's results and their tangents in one sweep, storing nothing; and
second order by forward over reverse: `sdfg.hvp` (the tangent program of
the gradient program) and `sdfg.hessian` (column by column)."""

import inspect
import weakref
from typing import Any, Callable, Sequence, Tuple

import numpy as np

from . import native, pytrees
from .arguments import normalise as _normalise
from .arguments import param_name
from .call_checks import check_after_call as _check_after_call
from .errors import FrontendError
from .frontend import translate
from .gradients import Gradient, _argnum_names, float_array_params
from .loaded_program import _contiguous
from .program import ForwardMode, program

# fn -> {(device, check_indices): Program} and the tangent programs loaded
# for it: repeated jvp calls of one function compile and load once.
_PROGRAMS = weakref.WeakKeyDictionary()


def jvp(fn: Callable, primals: Sequence[Any], tangents: Sequence[Any], *,
        output: Any = None, device: str = "cpu",
        check_indices: bool = True) -> Tuple[Any, Any]:
    """(fn(*primals), the tangents of its results): the directional
    derivative of fn at `primals` along `tangents`, as jax.jvp.

    `tangents` has one entry per primal: an array of the argument's shape
    for a float array, a float for a float, None for an argument held
    fixed (ints and bools always; a float argument given None has tangent
    zero and is not differentiated). The result mirrors what fn returns:
    one value or a tuple; each float result's tangent has its shape, a
    non-float result's tangent is None. The caller's arrays are never
    modified (arguments the program writes are copied). output="A", the
    name of an array argument fn updates in place (as sdfg.grad's
    output=), returns (A after the call, its tangent) instead: for
    functions that return nothing.

    The tangent program is sdfg-forward-diff's: it runs fn once with the
    tangents alongside and stores nothing, whatever the loops."""
    prog, args, wrt, tans = _prepare("jvp", fn, primals, tangents, device,
                                     check_indices)
    names = list(inspect.signature(fn).parameters)
    paths, leaves = pytrees.flatten(names, args)
    if output is not None:
        # A parameter, or a leaf of one (`state.x`).
        k = paths.index(output) if output in paths else -1
        if k < 0 or not isinstance(leaves[k], np.ndarray) or \
                leaves[k].dtype.kind != "f":
            raise FrontendError(f"jvp: output '{output}' is not a float "
                                f"array parameter of {fn.__name__}")
    if not wrt:
        # On copies: the caller's arrays stay as they are.
        a = [pytrees.map_leaves(
            lambda _, x: np.array(x) if isinstance(x, np.ndarray) else x,
            n, v) for n, v in zip(names, args)]
        value = prog(*a)
        if output is not None:
            out = dict(zip(*pytrees.flatten(names, a)))[output]
            return out, np.zeros_like(out)
        return value, _zeros_like_results(value)

    def spec(tr):
        outs = [output] if output is not None else \
            _float_outputs(tr.signature)
        if not outs:
            raise FrontendError(
                f"jvp: {fn.__name__} returns no float value to "
                "differentiate (for an argument it updates in place, name "
                "it with output=)")
        return ForwardMode(tuple(outs), tuple(sorted(wrt)))
    entry = _entry(prog, args, ("jvp", tuple(wrt), output), spec)
    arrays = _call(entry, args, tans)
    if output is not None:
        return arrays[output], arrays["t_" + output]
    return _results(entry.meta, arrays)


def hvp(fn: Callable, primals: Sequence[Any], tangents: Sequence[Any], *,
        output: Any = "return", device: str = "cpu",
        check_indices: bool = True) -> Tuple[Any, ...]:
    """The Hessian-vector product of sum(output) at `primals` along
    `tangents`: one entry per primal, H v for those given a tangent (the
    arguments differentiated, as in jvp) and None for the others. JAX
    writes it jax.jvp(jax.grad(f), primals, tangents)[1].

    Forward over reverse: the tangent program (sdfg-forward-diff) of the
    gradient program (sdfg-autodiff, store-all), one compiled program;
    `output` chooses the differentiated value as in sdfg.grad."""
    prog, args, wrt, tans = _prepare("hvp", fn, primals, tangents, device,
                                     check_indices)
    if not wrt:
        raise ValueError("hvp: give a tangent for at least one float "
                         "argument")

    def spec(tr):
        out = Gradient(fn, wrt, output, with_seed=False, device=device,
                       check_indices=check_indices)._output_for(args, wrt)
        order = tuple(sorted(wrt))
        return ForwardMode(tuple("d_" + w for w in order), order,
                           (out, order))
    entry = _entry(prog, args, ("hvp", tuple(wrt), repr(output)), spec)
    arrays = _call(entry, args, tans)
    names = list(inspect.signature(fn).parameters)

    def product(path, _):
        t = arrays.get("t_d_" + path) if path in tans else None
        return None if t is None else (t[()] if t.ndim == 0 else t)
    # One entry per argument, in its structure (pytrees.py).
    return tuple(pytrees.map_leaves(product, names[k], args[k])
                 for k in range(min(len(args), len(names))))


def hessian(fn: Callable, argnums: int = 0, *, output: Any = "return",
            device: str = "cpu") -> Callable:
    """jax.hessian for one array argument (`argnums`, an int): a function
    of fn's arguments returning the Hessian of sum(output) with respect to
    it, of shape x.shape + x.shape. Built column by column with hvp (one
    call of the compiled program per element of x): for small inputs."""
    if isinstance(argnums, bool) or not isinstance(argnums, int):
        raise TypeError(f"hessian: argnums must be an int, not {argnums!r}")

    def hess(*args):
        args = list(args)
        if not -len(args) <= argnums < len(args):
            raise ValueError(f"hessian: argnums {argnums} is out of range "
                             f"for {len(args)} argument(s)")
        k = argnums % len(args)
        if pytrees.is_node(args[k]):
            raise TypeError(f"hessian: argument {k} is a "
                            f"{type(args[k]).__name__}; hessian takes one "
                            "array (use sdfg.hvp for dicts and tuples)")
        x = np.asarray(args[k])
        if x.dtype.kind != "f":
            raise TypeError(f"hessian: argument {k} is not a float array")
        cols = []
        for j in range(x.size):
            e = np.zeros(x.size, x.dtype)
            e[j] = 1.0
            tangents = [None] * len(args)
            tangents[k] = e.reshape(x.shape) if x.ndim else float(e[0])
            cols.append(np.asarray(hvp(fn, args, tangents, output=output,
                                       device=device)[k]).reshape(-1))
        h = np.stack(cols, axis=1) if cols else np.zeros((0, 0), x.dtype)
        return h.reshape(x.shape + x.shape)
    return hess


def _prepare(what, fn, primals, tangents, device, check_indices):
    """(the Program of fn, the normalised arguments, the names given
    tangents, name -> tangent array) of a jvp/hvp call."""
    primals, tangents = tuple(primals), tuple(tangents)
    if len(primals) != len(tangents):
        raise TypeError(f"{what}: {len(primals)} primal(s) but "
                        f"{len(tangents)} tangent(s); give one tangent (or "
                        "None) per primal")
    cache = _PROGRAMS.setdefault(fn, {})
    prog = cache.get((device, check_indices))
    if prog is None:
        prog = cache[(device, check_indices)] = program(fn, device,
                                                        check_indices)
    args = _normalise(prog.bind(primals, {}), fn)
    if any(isinstance(x, np.ndarray) and x.dtype.kind == "c"
           for x in pytrees.flatten_values(args)):
        # Tangent programs take float arrays (their complex layout is
        # not threaded through them yet).
        raise FrontendError(f"{what}: complex arguments are not supported "
                            "by forward mode; use sdfg.grad (or sdfg.vjp) "
                            "of a real output, or pass .real and .imag as "
                            "float arrays")
    # The tangent of a dict, tuple or list argument has its structure
    # (None for a part held fixed); both are taken leaf by leaf.
    pairs = []
    for k, (a, t) in enumerate(zip(args, tangents)):
        name = param_name(fn, k)
        pytrees.matching(f"{what}: the tangent", name, a, t)
        if t is None or not pytrees.is_node(a):
            pairs.append((name, a, t))
            continue
        tangent_of = dict(pytrees.leaves(name, t))
        pairs += [(path, leaf, tangent_of.get(path))
                  for path, leaf in pytrees.leaves(name, a)]
    wrt, tans = [], {}
    for name, a, t in pairs:
        if t is None:
            continue
        if isinstance(a, np.ndarray) and a.dtype.kind == "f":
            t = np.asarray(t)
            if t.shape != a.shape:
                raise ValueError(f"{what}: the tangent of '{name}' has "
                                 f"shape {t.shape}, the argument {a.shape}")
            # No copy unless needed: _call copies the tangents of written
            # arguments (the caller's arrays are never modified).
            t = np.ascontiguousarray(t, dtype=a.dtype)
        elif isinstance(a, (float, np.floating)):
            t = np.array(float(t), dtype=np.float64)
        else:
            kind = type(a).__name__
            if isinstance(a, np.ndarray):
                kind += f" of dtype {a.dtype}"
            raise TypeError(
                f"{what}: a tangent is given for '{name}', a {kind}; only "
                "float arrays and floats have tangents (pass None)")
        wrt.append(name)
        tans[name] = t
    return prog, args, wrt, tans


def _entry(prog, args, what, spec):
    """The loaded tangent program of `prog` for `args` and `what` (the
    kind and its options), compiled from spec(translation) once."""
    key = prog._key(args)
    loaded = getattr(prog, "_forward_entries", None)
    if loaded is None:
        loaded = prog._forward_entries = {}
    entry = loaded.get((key, what))
    if entry is None:
        tr = translate(prog.fn, args, device=prog.device)
        entry = prog._load_or_build(args, key, spec(tr))
        loaded[(key, what)] = entry
    return entry


def _float_outputs(signature):
    """The containers of fn's float results (returned arrays and scalars,
    and arguments returned as they are)."""
    params = signature.params
    outs = []
    for k, o in enumerate(signature.outputs):
        if o[0] == "arg":
            p = params[o[1]]
            if p[2] is not None and np.dtype(p[2]).kind == "f" and \
                    p[0] == "array":
                outs.append(p[1])
        elif np.dtype(o[1]).kind == "f":
            outs.append(f"__return{k}")
    return outs


def _zeros_like_results(value):
    def zero(v):
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            return np.zeros_like(v)
        if isinstance(v, (float, np.floating)):
            return type(v)(0.0)
        return None
    if isinstance(value, tuple):
        return tuple(zero(v) for v in value)
    return zero(value)


def _call(entry, args, tans):
    """Runs a tangent program: its C arguments found by name in the ABI
    (parameters, __return<k>; d_<x> gradients and their seed in a tangent
    program of a gradient; t_<name> tangents). Returns the arrays by
    name."""
    meta, module = entry.meta, entry.module
    args, _ = entry.check(args, None, gradient=True)
    abi = native.function_abi(meta["abi"], meta["name"])
    arrays = {}
    for (kind, name, dtype, _), a in zip(meta["params"], args):
        if kind == "array":
            arrays[name] = np.array(a, order="C") if name in entry.written \
                else _contiguous(a)
        elif kind == "scalar":
            arrays[name] = np.array(a, dtype=dtype)
    for k, (kind, dtype, shape) in enumerate(meta["outputs"]):
        if kind == "array" and np.dtype(dtype).kind == "c":
            raise FrontendError("jvp: complex results are not supported "
                                "by forward mode; return .real and .imag")
        if kind == "array":
            arrays[f"__return{k}"] = module.empty(shape, dtype)
    for name, t in tans.items():
        # A written argument's tangent is updated in place with it.
        arrays["t_" + name] = np.array(t) if name in entry.written else t

    def like(name):
        """The array for an argument the caller does not give: gradients,
        seeds, forward copies and tangents are shaped as what they are
        of."""
        if name in arrays:
            return arrays[name]
        if name == "ad_status":
            arrays[name] = np.zeros((), np.int64)
            return arrays[name]
        for prefix in ("t_", "d_", "fwd_"):
            if name.startswith(prefix):
                of = like(name[len(prefix):])
                arrays[name] = module.empty(of.shape, of.dtype)
                return arrays[name]
        raise AssertionError(f"unexpected argument {name}")
    cargs = [like(a["name"]) for a in abi["args"]]
    module.before_call(meta.get("omp_spin_ms", native.OMP_SPIN_MS_WITH_BLAS))
    entry.function(*cargs)
    _check_after_call(meta, module)
    if arrays.get("ad_status", 0) != 0:
        raise RuntimeError(
            "a while loop, or a for loop whose bounds are read from arrays, "
            "ran more iterations than the gradient program stores values "
            "for; the Hessian-vector product is not valid")
    return arrays


def _results(meta, arrays):
    """(what fn returns, the tangents of it) from a jvp program's arrays."""
    values, tangents = [], []
    for k, (kind, dtype, shape) in enumerate(meta["outputs"]):
        name = meta["params"][dtype][1] if kind == "arg" else f"__return{k}"
        v = arrays[name]
        t = arrays.get("t_" + name)
        values.append(v[()] if v.ndim == 0 else v)
        tangents.append(None if t is None else (t[()] if t.ndim == 0 else t))
    if meta["returns_none"]:
        return None, None
    return pytrees.result(meta, values), pytrees.result(meta, tangents,
                                                        values)


class GradOfGrad:
    """sdfg.grad of an sdfg.grad: d sum(inner gradients) / d wrt, the
    gradient of the sum of the first derivatives, as grad(grad(f)) in JAX
    for a scalar argument (f''). It is a Hessian-vector product with ones
    along the inner gradient's arguments (and zeros along the outer's
    others), one compiled program (sdfg.hvp)."""

    def __init__(self, inner, wrt, argnums):
        if type(inner) is not Gradient or inner.with_seed or \
                inner.has_aux or inner._plan is not None:
            raise NotImplementedError(
                "sdfg.grad of a gradient needs a plain sdfg.grad (no seed, "
                "value, has_aux or memory plan); for second derivatives "
                "in general use sdfg.hvp or sdfg.hessian on the original "
                "function")
        self.inner = inner
        fn = inner.program.fn
        self._form = "dict"
        if argnums is not None:
            if wrt is not None:
                raise TypeError("give wrt (parameter names) or argnums "
                                "(positions), not both")
            wrt, self._form = _argnum_names(fn, argnums)
        self.wrt = [wrt] if isinstance(wrt, str) else \
            (None if wrt is None else list(wrt))

    def __call__(self, *args, **kwargs):
        inner = self.inner
        fn = inner.program.fn
        given = inner.program.bind(args, kwargs)
        normal = _normalise(given, fn)
        first = inner._wrt_for(normal)
        outer = self.wrt if self.wrt is not None else \
            float_array_params(fn, normal)
        names = list(inspect.signature(fn).parameters)
        def filled(value):
            def leaf(_, x):
                if isinstance(x, np.ndarray):
                    return np.full_like(x, value) if x.dtype.kind == "f" \
                        else None
                return float(value) if isinstance(x, float) else None
            return leaf
        tangents = []
        for n, a in zip(names, normal):
            # (Leaf by leaf in a dict, tuple or list argument.)
            if n in first:
                tangents.append(pytrees.map_leaves(filled(1.0), n, a))
            elif n in outer:
                tangents.append(pytrees.map_leaves(filled(0.0), n, a))
            else:
                tangents.append(None)
        hv = hvp(fn, given, tangents, output=inner.output,
                 device=inner.program.device,
                 check_indices=inner.program.check_indices)
        for n in outer:
            if n not in names:
                raise FrontendError(f"wrt name '{n}' is not a parameter of "
                                    f"{fn.__name__}")
        grads = {n: hv[names.index(n)] for n in outer}
        if self._form == "one":
            return next(iter(grads.values()))
        if self._form == "tuple":
            return tuple(grads.values())
        return grads
