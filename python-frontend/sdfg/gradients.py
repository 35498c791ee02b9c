"""`sdfg.grad`, `sdfg.value_and_grad`, `sdfg.vjp`: reverse-mode
gradients of NumPy functions (the sdfg-autodiff pass, and sdfg-checkpoint
under a memory limit), and the call of a compiled gradient program."""

import functools
import inspect
import sys
import threading
from typing import Any, Callable, Dict, Optional, Sequence, Union

import numpy as np

from . import native, pytrees
from . import program as _program_module
from .arguments import normalise as _normalise
from .call_checks import check_after_call as _check_after_call
from .errors import FrontendError
from .frontend.symbolic_sizes import MIN_SYMBOLIC_EXTENT
from .plan_report import format_plan
from .loaded_program import (LoadedProgram, _complex_view, _contiguous,
                             _float_pairs)
from .program import Program, program

_STRATEGIES = ("store-all", "recompute-all", "ilp")


def _checkpoints(checkpoints):
    """checkpoints= as sorted (loop, "S1:S2...") pairs, checked."""
    if checkpoints is None:
        return ()
    if not isinstance(checkpoints, dict):
        raise TypeError(f"checkpoints must be a dict from loop iterator "
                        f"names to snapshot counts, not "
                        f"{type(checkpoints).__name__}")
    out = []
    for name, n in checkpoints.items():
        base, _, ordinal = name.partition("#") if isinstance(name, str) \
            else ("", "", "")
        if not base.isidentifier() or (ordinal and not ordinal.isdigit()):
            raise ValueError(f"checkpoints names loops by their iterator "
                             f"(t, or t#1 for the second loop over t); "
                             f"{name!r} is not one")
        if isinstance(n, (tuple, list)) and len(n) == 2 and \
                n[0] == "binomial":
            s = n[1]
            if isinstance(s, bool) or not isinstance(s, (int, np.integer)) \
                    or s < 1:
                raise ValueError(f"checkpoints[{name!r}] = ('binomial', S) "
                                 f"needs S >= 1 snapshots, not {s!r}")
            out.append((name, f"binomial:{int(s)}"))
            continue
        levels = n if isinstance(n, (tuple, list)) else (n,)
        if not levels or any(
                isinstance(c, bool) or not isinstance(c, (int, np.integer))
                or c < 0 for c in levels):
            raise ValueError(f"checkpoints[{name!r}] must be a non-negative "
                             f"int (snapshots; 0 stores every iteration), "
                             f"a tuple of them (snapshots per level) or "
                             f"('binomial', S), not {n!r}")
        out.append((name, ":".join(str(int(c)) for c in levels)))
    return tuple(sorted(out))


class Gradient:
    """`sdfg.grad` / `sdfg.vjp`: the gradient of one output of a NumPy
    function with respect to some of its arguments."""

    def __init__(self, fn, wrt, output, with_seed, mem=None, strategy=None,
                 recompute=None, device="cpu", with_value=True,
                 while_capacity=None, data_loop_capacity=None,
                 check_indices=True, checkpoints=None, report=False,
                 argnums=None, has_aux=False):
        # An explicit strategy runs --sdfg-checkpoint (even store-all, which
        # then reports its peak in .checkpoint).
        explicit = strategy is not None
        if strategy is None:
            strategy = "ilp" if mem is not None else "store-all"
        if strategy not in _STRATEGIES:
            raise ValueError(f"strategy must be one of {_STRATEGIES}, not "
                             f"{strategy!r}")
        if isinstance(fn, Gradient):
            # program(fn) would read the source of the function it wraps
            # and differentiate that again: the first derivative.
            raise NotImplementedError(
                "sdfg.grad of a gradient is not supported: "
                f"{getattr(fn, '__name__', 'this')} is already a gradient "
                "(sdfg.grad, sdfg.value_and_grad or sdfg.vjp); for second "
                "derivatives use sdfg.hvp(fn, primals, tangents) "
                "(Hessian-vector products, forward over reverse) or "
                "sdfg.hessian(fn) on the original function")
        if mem is not None:
            if isinstance(mem, (bool, np.bool_)) or not isinstance(
                    mem, (int, float, np.integer, np.floating)) or \
                    not 0 < mem < float("inf"):
                raise ValueError(f"mem must be a positive, finite number of "
                                 f"MiB, not {mem!r}")
        if strategy == "ilp" and mem is None and not recompute:
            raise ValueError("strategy='ilp' needs mem= (the limit in MiB)")
        for name, n in (("while_capacity", while_capacity),
                        ("data_loop_capacity", data_loop_capacity)):
            if n is not None and (isinstance(n, bool) or
                                  not isinstance(n, int) or n <= 0):
                raise ValueError(f"{name} must be a positive int, not {n!r}")
        self._capacity = (while_capacity, data_loop_capacity)
        if isinstance(recompute, str):
            recompute = [recompute]
        recompute = tuple(recompute or ())
        for name in recompute:
            # Names of the function's arrays (`A1`, `D_1`; a global's
            # "global.W"): anything else would be read as other options.
            if not isinstance(name, str) or not name or not all(
                    part.isidentifier() for part in name.split(".")):
                raise ValueError(
                    f"recompute names the arrays to recompute by their "
                    f"variable names; {name!r} is not a name")
        checkpoints = _checkpoints(checkpoints)
        self._report = bool(report)
        self._plan = None
        if mem is not None or explicit or recompute or checkpoints:
            self._plan = (mem, strategy, recompute, checkpoints)
        #: The checkpoint decision of the last compiled gradient: peak and
        #: limit in bytes, containers recomputed and stored (None without
        #: mem/strategy).
        self.checkpoint = None
        # A program's options (its symbols) are the gradient's too.
        self.program = program(
            fn, device, check_indices,
            static_argnames=getattr(fn, "static_argnames", ()),
            dynamic=getattr(fn, "dynamic", None)) \
            if isinstance(fn, Program) else program(fn, device, check_indices)
        #: How a call returns the gradients: "dict" by name (wrt), as JAX
        #: does for argnums: "one" array (an int) or a "tuple" (a tuple).
        self._form = "dict"
        if argnums is not None:
            if wrt is not None:
                raise TypeError("give wrt (parameter names) or argnums "
                                "(positions), not both")
            wrt, self._form = _argnum_names(self.program.fn, argnums)
        if isinstance(wrt, str):
            wrt = [wrt]
        #: The names differentiated; None: every float array argument of
        #: the call (_wrt_for).
        self.wrt = None if wrt is None else list(wrt)
        if self.wrt is not None and not self.wrt:
            raise ValueError("wrt must name at least one argument")
        twice = sorted({w for w in self.wrt or () if self.wrt.count(w) > 1})
        if twice:
            # The result is a dict by name: a name twice has one gradient.
            raise ValueError(f"wrt names {', '.join(map(repr, twice))} "
                             f"more than once")
        if not isinstance(has_aux, bool):
            raise TypeError(f"has_aux must be True or False, not "
                            f"{has_aux!r}")
        #: fn returns (output, aux): the first is differentiated, the
        #: second comes back with the gradients (JAX's has_aux).
        self.has_aux = has_aux
        if has_aux:
            if output != "return":
                raise ValueError("has_aux=True differentiates fn's first "
                                 "returned value; output= cannot choose "
                                 "another")
            output = "return:0"
            with_value = True
        self.output = output
        self.with_seed = with_seed
        self.with_value = with_value
        # last_value: what the calling thread's last call returned (each
        # thread its own; a call's results never pass through shared
        # state).
        self._local = threading.local()
        self._checked = {}  # signature -> (compiled entry, output container)
        # Array extents as symbols (Program._keys): per key with them left
        # out, those the gradient program takes, and the first shapes.
        self._symbols, self._first = {}, {}
        functools.update_wrapper(self, self.program.fn)

    def _output_container(self, params):
        out = self.output
        if out == "return":
            return "__return0"
        if isinstance(out, str) and out.startswith("return:"):
            try:
                k = int(out.split(":", 1)[1])
            except ValueError:
                raise FrontendError(f"output '{out}': K in 'return:K' must "
                                    "be an integer") from None
            return f"__return{k}"
        names = [p[1] for p in params]
        if out not in names:
            raise FrontendError(f"output '{out}' is not a parameter of "
                                f"{self.program.fn.__name__} (expected "
                                "'return', 'return:K' or a parameter name)")
        return out

    def _wrt_for(self, args):
        """The names differentiated in a call with `args`: wrt, or every
        parameter given a float array."""
        if self.wrt is not None:
            return self.wrt
        wrt = float_array_params(self.program.fn, args)
        if not wrt:
            raise FrontendError(
                f"{self.program.fn.__name__} is given no float array to "
                "differentiate with respect to; name the arguments with "
                "wrt= (or argnums=)")
        return wrt

    def _output_for(self, args, wrt):
        """The container holding the differentiated output, after checking
        wrt and output against the signature of `args`."""
        tr = _program_module.translate(self.program.fn, args,
                                       device=self.program.device)
        params = tr.signature.params
        kinds = {p[1]: p[0] for p in params}
        for w in wrt:
            if w not in kinds:
                hint = ""
                if any(g[3] == w for g in tr.signature.globals):
                    hint = (f" ('{w}' is a global array it reads, which is "
                            "not differentiated: pass it as an argument)")
                raise FrontendError(f"wrt name '{w}' is not a parameter of "
                                    f"{self.program.fn.__name__}{hint}")
            if kinds[w] == "const":
                raise FrontendError(f"cannot differentiate with respect to "
                                    f"'{w}': int and bool arguments are "
                                    "compile-time constants")
            dt = [p[2] for p in params if p[1] == w][0]
            # Complex: (dL/dre, dL/dim), returned in JAX's convention.
            if np.dtype(dt).kind not in "fc":
                raise FrontendError(f"cannot differentiate with respect to "
                                    f"'{w}' of dtype {dt}")
        out = self._output_container(params)
        if out.startswith("__return"):
            k = int(out[len("__return"):])
            outs = tr.signature.outputs
            name = self.program.fn.__name__
            # The values returned at the top level: their output numbers,
            # None for a dict, list or tuple among them (pytrees.build).
            tree = tr.signature.return_tree
            # (Less the hidden lengths of arrays the data sizes, the last
            # outputs: pytrees.cut_lengths.)
            top = list(range(len(outs) - len(getattr(tr.signature,
                                                     "lengths", ()))))
            if tree is not None:
                kind, items = next(iter(tree.items()))
                top = [None if isinstance(t, dict) else t for t in items] \
                    if kind == "tuple" else [None]
            if self.has_aux and (tr.signature.returns_none or
                                 len(top) < 2):
                raise FrontendError(
                    f"has_aux=True: {name} must return a pair (output, "
                    f"aux); it returns {len(top)} value(s)")
            if self.output == "return" and len(top) > 1:
                # As JAX: the gradient of which of them? Not silently the
                # first.
                raise FrontendError(
                    f"{name} returns {len(top)} values; choose the one to "
                    f"differentiate with output='return:K' (K from 0 to "
                    f"{len(top) - 1}), or return their sum")
            if k < 0:
                k += len(top)  # return:-1 is the last, as in Python
            if tr.signature.returns_none or not 0 <= k < len(top):
                raise FrontendError(f"output '{self.output}': "
                                    f"{name} returns "
                                    f"{len(top)} value(s)")
            if top[k] is None:
                raise FrontendError(
                    f"output '{self.output}': {name} returns a dict, list "
                    "or tuple there; differentiate one array or float "
                    "(return their sum)")
            k = top[k]
            out = f"__return{k}"
            if outs[k][0] == "arg":
                out = params[outs[k][1]][1]
                out_dtype = params[outs[k][1]][2]
            else:
                out_dtype = outs[k][1]
        else:
            out_dtype = [p[2] for p in params if p[1] == out][0]
        if np.dtype(out_dtype).kind == "c":
            # As JAX: the gradient of a complex output is not one array.
            raise FrontendError(f"output '{self.output}' is complex "
                                f"({np.dtype(out_dtype)}): grad requires "
                                "real-valued outputs (differentiate its "
                                ".real, .imag or abs)")
        if np.dtype(out_dtype).kind != "f":
            raise FrontendError(f"output '{self.output}' has dtype "
                                f"{np.dtype(out_dtype)}; only float outputs "
                                "can be differentiated")
        return out

    def _autodiff(self, out, wrt, sizes=()):
        """What _build needs to know to build this gradient program
        (`sizes`: sdfg-checkpoint's bounds of the size symbols, where a
        plan is made for a bucket of sizes)."""
        plan = self._plan
        if plan is not None and sizes:
            plan = plan + (tuple(sizes),)
        # In a fixed order: the program is the same for any order of wrt
        # (its gradients are found by name).
        return (out, tuple(sorted(wrt)), plan, not self.with_seed,
                self.with_value, self._capacity)

    def _size_bucket(self, args, symbolic):
        """For a plan under a memory limit with array extents as symbols:
        (sdfg-checkpoint's sizes= entries bounding each symbolic extent of
        the arguments, their gradients and forward copies by the next
        power of two, that bucket). The plan then holds for every call
        whose extents are within the bucket (memory grows with the
        sizes), which keys the program: one compile per bucket."""
        if self._plan is None or not symbolic:
            return (), ()
        names = list(inspect.signature(self.program.fn).parameters)
        entries, bucket = [], []
        # The leaves of dict, tuple and list arguments too (`p.W`).
        for name, a in zip(*pytrees.flatten(names, args)):
            if name not in symbolic or type(a) is not np.ndarray:
                continue
            for axis, n in enumerate(a.shape):
                if n < MIN_SYMBOLIC_EXTENT:
                    continue
                top = 1 << (int(n) - 1).bit_length()
                bucket.append(top)
                entries += [f"{p}{name}.{axis}=..{top}"
                            for p in ("", "d_", "fwd_")]
        return tuple(entries), tuple(bucket)

    @property
    def last_value(self):
        """What the function returned in the last call (vjp and
        value_and_grad; grad's program does not compute it)."""
        if not self.with_value:
            raise AttributeError(
                "sdfg.grad does not compute the function's value (its "
                "program skips the work only the value needs); use "
                "sdfg.value_and_grad")
        return getattr(self._local, "value", None)

    def precompile(self, *args):
        """Builds the gradient library for `args` into the cache without
        loading it; returns its directory (see Program.precompile)."""
        args = _normalise(self.program.bind(args, {}), self.program.fn)
        wrt = self._leaf_wrt(args, self._wrt_for(args))
        out = self._output_for(args, wrt)
        key, symbolic, _ = self.program._keys(
            args, ints=False, learnt=self._symbols, first=self._first)
        sizes, bucket = self._size_bucket(args, symbolic)
        key += (("bucket",) + bucket,) if bucket else ()
        return self.program._build(args, key, self._autodiff(out, wrt, sizes),
                                   symbolic=symbolic)[0]

    def __call__(self, *args, seed=None, **kwargs):
        value, grads = self._value_and_grads(args, kwargs, seed)
        self._local.value = value
        if self.has_aux:
            return grads, _aux(value)
        return grads

    def _shaped(self, grads):
        """The gradients of a call in the form the caller asked for."""
        if self._form == "one":
            return next(iter(grads.values()))
        if self._form == "tuple":
            return tuple(grads.values())
        return grads

    def _value_and_grads(self, args, kwargs, seed=None):
        """(what the function returns, the gradients) of one call; only
        values local to the call carry them."""
        given = self.program.bind(args, kwargs)
        args = _normalise(given, self.program.fn)
        if self.with_seed and seed is None:
            raise TypeError("vjp needs seed= (the cotangent of the output)")
        if not self.with_seed and seed is not None:
            raise TypeError("grad takes no seed; use sdfg.vjp")
        # The caller's arrays are never modified: the ones the program
        # writes are copied in _call_gradient.
        key, symbolic, base = self.program._keys(
            args, ints=False, learnt=self._symbols, first=self._first)
        sizes, bucket = self._size_bucket(args, symbolic)
        key += (("bucket",) + bucket,) if bucket else ()
        cached = self._checked.get(key)
        if cached is not None:
            entry, out, named, wrt = cached
        else:
            named = self._wrt_for(args)
            # The leaves differentiated: `params` stands for its float
            # arrays (pytrees.py).
            wrt = self._leaf_wrt(args, named)
            out = self._output_for(args, wrt)
            try:
                try:
                    entry = self.program._load_or_build(
                        args, key, self._autodiff(out, wrt, sizes),
                        symbolic=symbolic)
                except (native.ToolError, FrontendError):
                    if not symbolic:
                        raise
                    # The gradient with array extents as symbols did not
                    # compile (a checkpoint plan, a library op's tape):
                    # this signature's shapes are compiled in from now
                    # on, and the error, if any, is theirs.
                    self._symbols[base] = frozenset()
                    key, symbolic, base = self.program._keys(
                        args, ints=False, learnt=self._symbols,
                        first=self._first)
                    entry = self.program._load_or_build(
                        args, key, self._autodiff(out, wrt))
            except native.ToolError as e:
                if self._plan is not None and (
                        self._plan[2] and "cannot recompute" in str(e) or
                        self._plan[3] and "cannot checkpoint loop" in str(e)):
                    # A recompute= name the program has no use for: an
                    # invalid argument of grad (and still the compiler's
                    # located diagnostic).
                    raise native.OptionError(str(e)) from None
                raise
            self._checked[key] = (entry, out, named, wrt)
            if self._report:
                print(format_plan(entry.meta.get("checkpoint"),
                                  self.program.fn.__name__),
                      file=sys.stderr)
        # The plan of the program compiled for these arguments (per
        # signature, the same for every call of it).
        self.checkpoint = entry.meta.get("checkpoint")
        # The forward results computed on the way (what `fn` returns)
        # come back with the gradients.
        value, grads = entry.call_gradient(args, wrt, out, seed, given,
                                           with_value=self.with_value)
        if wrt != named:
            # In the structure of the arguments named.
            grads = pytrees.regroup(self._names(), args, named, grads)
        return value, self._shaped(grads)

    def _names(self):
        return list(inspect.signature(self.program.fn).parameters)

    def _leaf_wrt(self, args, wrt):
        """The leaf parameters that the names in `wrt` stand for (each
        once, in order)."""
        try:
            leaves = pytrees.leaves_to_differentiate(self._names(), args,
                                                     wrt)
        except TypeError as e:
            raise FrontendError(f"cannot differentiate {self.program.fn.__name__}: {e}") from None
        return list(dict.fromkeys(leaves))


def _argnum_names(fn, argnums):
    """(the parameter names at positions `argnums`, the form a call
    returns the gradients in): JAX's argnums, an int (one array) or a
    tuple of ints (a tuple); negative positions count from the end."""
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    one = isinstance(argnums, (int, np.integer)) and \
        not isinstance(argnums, bool)
    nums = (argnums,) if one else argnums
    if not isinstance(nums, (tuple, list)) or not nums or any(
            isinstance(k, bool) or not isinstance(k, (int, np.integer))
            for k in nums):
        raise TypeError(f"argnums must be an int or a non-empty tuple of "
                        f"ints, not {argnums!r}")
    names = []
    for k in nums:
        if not -len(params) <= k < len(params):
            raise ValueError(f"argnums {k} is out of range: "
                             f"{fn.__name__} has {len(params)} positional "
                             "parameter(s)")
        names.append(params[k].name)
    if len(set(names)) != len(names):
        raise ValueError(f"argnums {argnums!r} names a parameter twice")
    return names, "one" if one else "tuple"


def float_array_params(fn, args):
    """The parameters of `fn` that `args` give float arrays: what grad,
    grad of grad and check_grads differentiate by default."""
    return [n for n, a in zip(inspect.signature(fn).parameters, args)
            if isinstance(a, np.ndarray) and a.dtype.kind in "fc" or
            pytrees.is_node(a) and any(
                isinstance(x, np.ndarray) and x.dtype.kind == "f"
                for x in pytrees.flatten_values((a,)))]


def _aux(value):
    """The aux of has_aux=True: what fn returns after its output (one
    value, or a tuple of the rest where it returns more than two)."""
    return value[1] if len(value) == 2 else tuple(value[1:])


def grad(fn: Callable, wrt: Union[str, Sequence[str], None] = None,
         output: Any = "return",
         mem: Optional[float] = None, strategy: Optional[str] = None,
         recompute: Optional[Sequence[str]] = None, device: str = "cpu",
         while_capacity: Optional[int] = None,
         data_loop_capacity: Optional[int] = None,
         check_indices: bool = True,
         checkpoints: Optional[Dict[str, int]] = None,
         report: bool = False, *,
         argnums: Union[int, Sequence[int], None] = None,
         has_aux: bool = False) -> "Gradient":
    """d sum(output) / d wrt for each name in `wrt`, as a dict.

    Without `wrt`, with respect to every argument given a float array.
    `argnums` chooses by position instead, as JAX's: an int returns one
    array, a tuple of ints a tuple. has_aux=True: fn returns (output, aux)
    and the call returns (gradients, aux), as JAX's.

    `mem` is a memory limit in MiB for what the gradient program allocates
    besides its arguments (--sdfg-checkpoint); `strategy` is "store-all"
    (the default without `mem`), "ilp" (the default with `mem`: the fastest
    plan within the limit) or "recompute-all"; `recompute` names forwarded
    arrays to recompute by hand. An infeasible limit raises ToolError with
    the smallest feasible one. device="gpu" runs the gradient program on
    the GPU, "gpu-emulator" runs the GPU program on the host (see
    `program`). The values stored in loops whose trip count is known only
    at run time cover `while_capacity` iterations of each execution of a
    while loop (default 4096) and `data_loop_capacity` iterations, over
    all executions, of a for loop whose bounds are read from arrays
    (default 2**20); a run past either raises RuntimeError.
    check_indices=False drops the bounds checks of indices that come from
    data (see `program`).

    Under `mem`, the ILP may also checkpoint loops (for loops at any
    depth, named by their iterator, and while loops, "while0", ...): keep
    snapshots of the loop's state every few iterations and re-run each
    segment in the backward program instead of storing every iteration
    (report: `.checkpoint["loops"]`). `checkpoints={"t": 16}` forces 16
    snapshots for the loop over `t` (0: store every iteration), with or
    without `mem`; `{"t": (16, 8)}` adds a second level (each of the 17
    segments split by 8 snapshots of its own when it runs again);
    `{"t": ("binomial", 8)}` uses Revolve's binomial schedule with 8
    snapshots and one iteration's tapes (the fewest iterations run again
    for that memory; counted loops only).
    report=True prints the plan (per loop and per array) to stderr at
    each compile.

    sdfg.grad of an sdfg.grad differentiates the sum of its gradients
    (forward over reverse, see sdfg.hvp): grad(grad(f, argnums=0)) of a
    function of a float is its second derivative, as in JAX."""
    if isinstance(fn, Gradient) and output == "return" and mem is None \
            and strategy is None and not recompute and not has_aux:
        from .forward_mode import GradOfGrad
        return GradOfGrad(fn, wrt, argnums)
    return Gradient(fn, wrt, output, with_seed=False, mem=mem,
                    strategy=strategy, recompute=recompute, device=device,
                    with_value=False, while_capacity=while_capacity,
                    data_loop_capacity=data_loop_capacity,
                    check_indices=check_indices, checkpoints=checkpoints,
                    report=report, argnums=argnums, has_aux=has_aux)


class ValueAndGradient(Gradient):
    """`sdfg.value_and_grad`: a Gradient whose call returns (value, grads)."""

    def __call__(self, *args, seed=None, **kwargs):
        value, grads = self._value_and_grads(args, kwargs, seed)
        self._local.value = value
        if self.has_aux:
            return (value[0], _aux(value)), grads
        return value, grads


def value_and_grad(fn: Callable,
                   wrt: Union[str, Sequence[str], None] = None,
                   output: Any = "return", mem: Optional[float] = None,
                   strategy: Optional[str] = None,
                   recompute: Optional[Sequence[str]] = None,
                   device: str = "cpu", while_capacity: Optional[int] = None,
                   data_loop_capacity: Optional[int] = None,
                   check_indices: bool = True,
                   checkpoints: Optional[Dict[str, int]] = None,
                   report: bool = False, *,
                   argnums: Union[int, Sequence[int], None] = None,
                   has_aux: bool = False) -> "ValueAndGradient":
    """Like grad, but the callable returns (value, gradients): value is
    what `fn` returns for those arguments (as sdfg.program(fn) would
    return it), computed by the same program as the gradients; with
    has_aux=True ((output, aux), gradients), as JAX's."""
    return ValueAndGradient(fn, wrt, output, with_seed=False, mem=mem,
                            strategy=strategy, recompute=recompute,
                            device=device, while_capacity=while_capacity,
                            data_loop_capacity=data_loop_capacity,
                            check_indices=check_indices,
                            checkpoints=checkpoints, report=report,
                            argnums=argnums, has_aux=has_aux)


def vjp(fn: Callable, wrt: Union[str, Sequence[str], None] = None,
        output: Any = "return",
        mem: Optional[float] = None, strategy: Optional[str] = None,
        recompute: Optional[Sequence[str]] = None, device: str = "cpu",
        while_capacity: Optional[int] = None,
        data_loop_capacity: Optional[int] = None,
        check_indices: bool = True,
        checkpoints: Optional[Dict[str, int]] = None,
        report: bool = False, *,
        argnums: Union[int, Sequence[int], None] = None) -> "Gradient":
    """Like grad, but the callable takes seed= (the output's cotangent)."""
    return Gradient(fn, wrt, output, with_seed=True, mem=mem,
                    strategy=strategy, recompute=recompute, device=device,
                    while_capacity=while_capacity,
                    data_loop_capacity=data_loop_capacity,
                    check_indices=check_indices, checkpoints=checkpoints,
                    report=report, argnums=argnums)


def _gradient_array(module, like):
    """The array a d_<w> gradient (or grad's seed) is written into. The
    program overwrites every element (sdfg-autodiff's accumulate=false,
    unit-seed=true), so it is not initialised here; the tests fill it with
    NaN to check that."""
    return module.empty(like.shape, like.dtype)


def _call_gradient(self, args, wrt, out, seed, given=None, with_value=True):
    """Calls a gradient program; its C arguments are found by name in the
    ABI description: parameters and outputs, d_<x> gradients (d_<output>
    is the seed), fwd_<x> forward results, ad_status. Returns (what the
    function returns, {w: gradient}); with with_value=False (sdfg.grad) what
    the function returns is not meaningful, and the arrays that carry it,
    the copies of written arguments and the unit seed are this thread's
    scratch, kept for its next call: fresh ones would be faulted in and
    zeroed by the kernel each call (a float32 softmax's gradient at 16 MiB
    spent about a third of its time so), as the program's own blocks were
    before it kept them (docs/design/c-abi.md, "Memory between calls"). No
    other state is kept on the shared objects (several threads may call
    at once)."""
    meta = self.meta
    args, given = self.check(args, given, gradient=True)
    keep = {}
    reuse = not with_value and native.reuse_memory()
    if reuse:
        keep = getattr(self._scratch, "arrays", None)
        if keep is None:
            keep = self._scratch.arrays = {}

    def scratch(role, shape, dtype):
        """A `shape` x `dtype` array for `role` (a tuple: parameter names
        and output numbers must not meet) that outlives the call where
        nothing of the call reaches the caller through it."""
        a = keep.get(role)
        if a is None or a.shape != tuple(shape) or a.dtype != dtype:
            a = self.module.empty(shape, dtype)
            if reuse:
                keep[role] = a
        return a
    abi = meta.get("_gradient_abi")
    if abi is None:  # looked up once per loaded program
        abi = meta["_gradient_abi"] = native.function_abi(meta["abi"],
                                                          meta["name"])
    # The arguments the program writes (the ABI description says which)
    # are copied so that the caller's arrays stay untouched; the others are
    # passed as they are (read only). A written argument that the backward
    # program rewinds has a fwd_<name> copy of its forward result; the
    # others hold it themselves on return.
    written = self.written
    arrays = {}
    # The seed is the caller's gradient where the output is also
    # differentiated (an argument updated in place).
    scratch_seed = seed is None and out not in wrt
    for (kind, name, dtype, _), a in zip(meta["params"], args):
        if kind == "array":
            if name in written:
                copy = scratch(("arg", name), np.shape(a), np.asarray(a).dtype)
                np.copyto(copy, a)
                arrays[name] = _float_pairs(copy)
            else:
                arrays[name] = _float_pairs(_contiguous(a))
        elif kind == "scalar":
            arrays[name] = np.array(a, dtype=dtype)
    shapes = self.shapes_for(args) if self.shapes_for else \
        self.output_shapes
    for k, ((kind, dtype, _), shape) in enumerate(zip(meta["outputs"],
                                                      shapes)):
        if kind == "array":
            arrays[f"__return{k}"] = _float_pairs(
                scratch(("return", k), shape, dtype))
    target = arrays[out]
    if scratch_seed:
        # The program fills its unit seed itself (unit-seed=true).
        seed_arr = scratch(("seed",), target.shape, target.dtype)
    elif seed is None:
        seed_arr = _gradient_array(self.module, target)
    else:
        seed_arr = np.array(seed, dtype=target.dtype, order="C")
        cut = [j for k, j in meta.get("lengths", ())
               if out == f"__return{k}"]
        if cut and seed_arr.shape[1:] == target.shape[1:] and \
                0 < seed_arr.shape[0] <= target.shape[0]:
            # An array the data sizes (pytrees.cut_lengths): its output is
            # as long as it can be; the seed's rows are checked against
            # its length after the call.
            rows = seed_arr.shape[0]
            seed_arr = np.zeros(target.shape, target.dtype)
            seed_arr[:rows] = seed
            cut = (cut[0], rows)
        else:
            cut = None
        if cut is None and seed_arr.shape != target.shape:
            raise ValueError(f"seed has shape {seed_arr.shape}, the output "
                             f"has shape {target.shape}")
    # seed_arr is ours (np.array copies the caller's seed): an output that
    # is also differentiated receives its gradient in it.
    grads = {w: (seed_arr if w == out else
                 _gradient_array(self.module, arrays[w]))
             for w in wrt}
    forward = {}
    status = np.zeros((), np.int64)
    cargs = []
    for a in abi["args"]:
        name = a["name"]
        if name in arrays:
            cargs.append(arrays[name])
        elif name == "ad_status":
            cargs.append(status)
        elif name.startswith("fwd_"):
            like = arrays[name[4:]]
            forward[name[4:]] = scratch(("fwd", name), like.shape, like.dtype)
            cargs.append(forward[name[4:]])
        elif name.startswith("d_") and name[2:] in grads:
            cargs.append(grads[name[2:]])
        elif name == "d_" + out:
            cargs.append(seed_arr)
        else:
            raise AssertionError(f"unexpected gradient argument {name}")
    self.module.before_call(
        meta.get("omp_spin_ms", native.OMP_SPIN_MS_WITH_BLAS))
    self.function(*cargs)
    _check_after_call(meta, self.module)
    if status != 0:
        raise RuntimeError(
            "a while loop, or a for loop whose bounds are read from "
            "arrays, ran more iterations than the gradient program stores "
            "values for; the gradient is not valid (raise while_capacity= "
            "or data_loop_capacity= of sdfg.grad)")
    values = []
    for k, (kind, dtype, shape) in enumerate(meta["outputs"]):
        name = meta["params"][dtype][1] if kind == "arg" else f"__return{k}"
        o = forward.get(name, arrays[name])
        if kind == "arg":
            dtype = meta["params"][dtype][2]
        if np.dtype(dtype).kind == "c":
            o = _complex_view(o, dtype)
        values.append(o[()] if o.ndim == 0 else o)
    if seed is not None and cut and int(values[cut[0]]) != cut[1]:
        raise ValueError(f"seed has shape {np.shape(seed)}, the output has "
                         f"{int(values[cut[0]])} rows")
    value = pytrees.result(meta, values)
    result = {}
    complex_params = {n: d for kind, n, d, _ in meta["params"]
                      if kind == "array" and np.dtype(d).kind == "c"}
    for w in wrt:
        g = grads[w]
        if w in complex_params:
            # (dL/dre, dL/dim) in JAX's convention: dL/dre - i dL/dim.
            g = _complex_view(g, complex_params[w]).conj()
        result[w] = g[()] if g.ndim == 0 else g
    return value, result


LoadedProgram.call_gradient = _call_gradient
