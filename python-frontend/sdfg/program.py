"""`sdfg.program` and `sdfg.to_mlir`: NumPy functions compiled natively.

A program is specialised per call signature: array dtypes and shapes,
the values of int and bool arguments, and the dtypes of float arguments.
Compiled libraries are cached in memory and on disk (``$SDFG_CACHE_DIR``,
default ``~/.cache/sdfg``; see cache.py), keyed by the function's source,
what it and the functions it calls read from outside (globals, module
attributes, closures, default values), the signature, the options and the
compiler binaries; a second process reuses them without recompiling.
"""

import functools
import inspect
import sys
import threading
import time
from typing import (Any, Callable, Dict, NamedTuple, Optional, Sequence,
                    Tuple, Union)

import numpy as np

from . import cache, cache_key, native
from . import log as _log
from .arguments import argument as _argument
from .arguments import bind as _bind
from .arguments import normalise as _normalise
from .call_checks import check_after_call as _check_after_call
from .call_checks import check_indices as _check_indices
from .call_checks import check_overlap as _check_overlap
from .call_checks import check_writeable as _check_writeable
from .call_checks import written_args as _written_args
from .errors import FrontendError
from .plan_report import format_plan
from .source import from_source
from .source import source_lines as _source_lines
from .frontend import translate

# The on-disk cache's location (see cache.py); kept here for callers of
# sdfg.program.cache_dir.
cache_dir = cache.configured_dir


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


class ForwardMode(NamedTuple):
    """What _build needs to build a tangent program (sdfg.jvp): the
    containers whose tangents it returns, the inputs given tangents; with
    `reverse` = (output, wrt), the tangent program of that gradient
    program (forward over reverse: Hessian-vector products, sdfg.hvp)."""
    outputs: Tuple[str, ...]
    wrt: Tuple[str, ...]
    reverse: Optional[Tuple[str, Tuple[str, ...]]] = None


class Program:
    """A NumPy function compiled through the sdfg dialect."""

    def __init__(self, fn, device="cpu", check_indices=True):
        functools.update_wrapper(self, fn)
        self.fn = fn
        if device not in _DEVICES:
            raise ValueError(f"device must be one of {_DEVICES}, not "
                             f"{device!r}")
        if not isinstance(check_indices, bool):
            raise ValueError(f"check_indices must be True or False, not "
                             f"{check_indices!r}")
        #: Whether indices that come from data are bounds-checked (NumPy's
        #: IndexError); False trusts the caller: an index outside its
        #: array then reads or writes outside it.
        self.check_indices = check_indices
        #: "cpu" (OpenMP, OpenBLAS), "gpu" (CUDA kernels, cuBLAS; arrays
        #: are copied to the GPU and back on every call) or "gpu-emulator"
        #: (the GPU program with its kernels run on host threads).
        self.device = device
        self._compiled = {}
        # What the function reads from outside (cache_key.global_refs, found
        # again when one of the functions, modules or tuples reached there
        # changes: cache_key.reached, cache_key.moved); their values are part of
        # each call's key.
        self._reads = None
        # Calls with this many positional arguments need no binding (the
        # common case: no per-call signature work).
        code = getattr(fn, "__code__", None)
        self._nparams = None if getattr(code, "co_kwonlyargcount", 0) else \
            getattr(code, "co_argcount", None)
        # The function's own source, not that of a function it wraps
        # (functools.wraps), which the translator does not compile.
        self._source = "".join(_source_lines(fn)[0])

    def _key(self, args):
        """What decides the program compiled for `args`: their signature
        (cache_key.arg_key), what the function and the functions it reaches
        read from outside it (globals, module attributes, closure cells,
        default values: cache_key.global_state) and its own defaults."""
        key = tuple(cache_key.arg_key(a) for a in args)
        reads = self._reads
        if reads is None or cache_key.moved(reads[1]):
            # First call, or a name now holds another function, module or
            # tuple, or a function was given other code or defaults: what
            # the program reads must be found again.
            refs = cache_key.global_refs(self.fn)
            reads = self._reads = (refs, cache_key.reached(refs))
        return key + cache_key.global_state(reads[0]) + \
            cache_key.defaults_state(self.fn)

    def bind(self, args, kwargs):
        """`args` completed by `kwargs` and the function's defaults."""
        if kwargs or len(args) != self._nparams:
            return _bind(self.fn, args, kwargs)
        return args

    def to_mlir(self, *args, **kwargs):
        args = self.bind(args, kwargs)
        return translate(self.fn, _normalise(args, self.fn),
                         device=self.device).text

    def compile(self, *args):
        args = _normalise(args, self.fn)
        key = self._key(args)
        entry = self._compiled.get(key)
        if entry is None:
            entry = self._load_or_build(args, key)
            self._compiled[key] = entry
        return entry

    def precompile(self, *args):
        """Builds the library for `args` into the cache without loading it
        (or finds it there); returns its directory. For preparing, on a
        machine with the compiler, a cache that another machine without it
        (say, a GPU node) uses: same sources, same tools (by content) and
        the same $SDFG_TARGET_CPU there, with $SDFG_CACHE_DIR pointing at
        the copy."""
        args = _normalise(self.bind(args, {}), self.fn)
        return self._build(args, self._key(args))[0]

    def _build(self, args, key, autodiff=None):
        """Compiles the library for `args` into the cache unless it is
        there; returns (its directory, its meta). With `autodiff` =
        (output, wrt, plan, unit_seed, with_value, (while capacity, data
        loop capacity)), the library holds the gradient program."""
        return self._find_or_build(args, key, autodiff)[:2]

    def _find_or_build(self, args, key, autodiff=None):
        """_build's (directory, meta), and whether this call compiled it.
        The entry's name is the digest of everything that decides the
        generated code (cache_key.digest adds the frontend's and the tools'
        versions and the processor)."""
        digest = cache_key.digest(self._source, key, autodiff, self.device,
                              self.check_indices)
        found = cache.lookup(digest)
        if autodiff is None:
            what = self.fn.__name__
        elif isinstance(autodiff, ForwardMode):
            what = (f"the tangent program of {self.fn.__name__} wrt "
                    f"{','.join(autodiff.wrt)}")
        else:
            what = (f"the gradient of {self.fn.__name__} wrt "
                    f"{','.join(autodiff[1])}")
        if found is not None:
            _log.cache_hit(what, args, found[0])
            return found[0], _rebased(found[1], self.fn), False
        start = time.perf_counter()
        tr = translate(self.fn, args, device=self.device)
        stages = [("translate", time.perf_counter() - start)]
        source = tr.text
        name = tr.name
        if isinstance(autodiff, ForwardMode):
            passes, of = [], ""
            if autodiff.reverse is not None:
                out, grad_wrt = autodiff.reverse
                # The gradient program (store-all, its own unit seed, no
                # forward results kept), then its tangent program. Without
                # strong zeros: `select(adjoint == 0, 0, ...)` is not
                # differentiable in the adjoint, and its tangent would
                # vanish wherever an adjoint is exactly zero (a 0 label
                # times a log-probability) instead of where it stays zero.
                passes.append(f"--sdfg-autodiff=output={out} "
                              f"wrt={','.join(grad_wrt)} unit-seed=true "
                              "discard-results=true strong-zero=false")
                name += "_grad"
                of = f"of={name} "
            passes += [f"--sdfg-forward-diff={of}outputs="
                       f"{','.join(autodiff.outputs)} "
                       f"wrt={','.join(autodiff.wrt)}",
                       "--mlir-print-debuginfo"]
            t0 = time.perf_counter()
            try:
                source = native.run_passes(source, passes)
            except native.ToolError as e:
                raise native.ToolError(tr.locate(str(e))) from None
            stages.append(("sdfg-opt (forward mode)",
                           time.perf_counter() - t0))
            name += "_jvp"
        elif autodiff is not None:
            out, wrt, plan, unit_seed, with_value, capacity = autodiff
            # The caller gets the gradients, and what the function returns
            # where it asked for that (value_and_grad, vjp); the forward
            # results of other written arguments are never read (the
            # caller's arrays are copies), so the program may skip the
            # work that only they need.
            params = tr.signature.params
            keep = [params[o[1]][1] if o[0] == "arg" else f"__return{k}"
                    for k, o in enumerate(tr.signature.outputs)
                    ] if with_value else []
            # Products hoisted out of loops before differentiating are
            # differentiated as matmuls (the lowering would hoist only the
            # forward's). Under a memory limit the checkpointing must plan
            # without them: the lowering then hoists what the plan leaves
            # room for, and the limit stays feasible whenever it was.
            passes = [] if plan is not None and plan[0] is not None else [
                "--sdfg-hoist-loop-products"]
            # grad's seed is all ones: the program makes it (and folds it
            # into its reads) instead of reading an array of ones.
            passes += [f"--sdfg-autodiff=output={out} wrt={','.join(wrt)} "
                      "discard-results=true" +
                      (f" keep={','.join(keep)}" if keep else "") +
                      (" unit-seed=true" if unit_seed else "") +
                      "".join(f" {opt}={n}" for opt, n in zip(
                          ("while-capacity", "data-loop-capacity"), capacity)
                          if n is not None)]
            if plan is not None:
                passes.append(_checkpoint_option(*plan))
            # With the input's positions kept in the output, diagnostics
            # of the later compile point back to the Python source too.
            passes.append("--mlir-print-debuginfo")
            t0 = time.perf_counter()
            try:
                source = native.run_passes(source, passes)
            except native.ToolError as e:
                raise native.ToolError(tr.locate(str(e))) from None
            stages.append(("sdfg-opt (autodiff)", time.perf_counter() - t0))
            name = tr.name + "_grad"
        # Build in a private directory, then rename: a crash mid-compile
        # never leaves a half-written entry behind.
        staging = cache.staging_dir()
        try:
            t0 = time.perf_counter()
            try:
                abi = native.build_library(
                    source, staging, device=self.device,
                    check_indices=self.check_indices)
            except native.ToolError as e:
                raise native.ToolError(tr.locate(str(e))) from None
            stages.append(("sdfg-translate (lowering, LLVM, link)",
                           time.perf_counter() - t0))
            # What the tools say of the program (its ABI description):
            # Python never reads the IR itself.
            described = native.function_abi(abi, name)
            meta = {
                "name": name,
                "device": self.device,
                "check_indices": self.check_indices,
                "omp_spin_ms": (native.OMP_SPIN_MS_WITH_BLAS
                                if described.get("calls_blas") else
                                native.OMP_SPIN_MS),
                "checkpoint": described.get("checkpoint"),
                "gradient": autodiff is not None,
                "abi": abi,
                "params": [[k, n, str(d) if d is not None else None,
                            list(s) if isinstance(s, tuple) else s]
                           for k, n, d, s in tr.signature.params],
                "outputs": [[o[0], str(o[1]) if o[0] == "array" else o[1],
                             list(o[2]) if o[0] == "array" else None]
                            for o in tr.signature.outputs],
                "returns_tuple": tr.signature.returns_tuple,
                "returns_none": tr.signature.returns_none,
                "index_checks": [list(c) for c in
                                 tr.signature.index_checks],
                "globals": tr.signature.globals,
                "linalg_sites": [list(site) for site in
                                 tr.signature.linalg_sites],
                # For run-time errors that name a generated line (an index
                # out of bounds): [first line, "file:line"] runs.
                "line_sources": _line_runs(tr.sources),
                # Where the function was: the key holds its source, not
                # its file, so the same text elsewhere shares the entry
                # and rebases the locations above (_rebased).
                "origin": _origin(self.fn),
            }
            directory = cache.commit(staging, digest, meta)
        except BaseException:
            native.remove_tree(staging)
            raise
        _log.compiled(what, args, stages, time.perf_counter() - start)
        return directory, meta, True

    def _load_or_build(self, args, key, autodiff=None):
        """The loaded library for `args` (see _build). Its program.so is
        checked against the entry's record right before it is loaded; one
        that changed since is compiled again. A library this call
        compiled that cannot be loaded is not left in the cache."""
        if self.device == "gpu":
            native.gpu_runtime()  # DeviceError now, not a failed dlopen
        for attempt in range(2):
            directory, meta, built = self._find_or_build(args, key, autodiff)
            try:
                module = cache.load(directory, meta["abi"])
            except cache.DamagedEntry as e:
                if attempt:
                    raise native.ToolError(
                        f"the library compiled for {self.fn.__name__} in "
                        f"{directory} changed before it was loaded ({e})"
                    ) from None
                cache.warn_damaged(directory, e)
                cache.discard(directory)
                continue
            except (OSError, AttributeError) as e:
                # dlopen's error, or a function missing from the library.
                if built:
                    cache.discard(directory)
                    raise native.ToolError(
                        f"the library compiled for {self.fn.__name__} "
                        f"cannot be loaded: {e}") from None
                raise native.ToolError(
                    f"the cached program {directory} cannot be loaded "
                    f"here: {e} (`python -m sdfg cache clear` empties the "
                    "cache)") from None
            return _Entry(module, meta, self.fn)

    def __call__(self, *args, **kwargs):
        given = self.bind(args, kwargs)
        args = _normalise(given, self.fn)
        entry = self.compile(*args)
        # `given`: the caller's arrays, which the program's writes reach
        # and which a returned argument is.
        return entry.call(args, given)


_STRATEGIES = ("store-all", "recompute-all", "ilp")
_DEVICES = ("cpu", "gpu", "gpu-emulator")


def _checkpoint_option(mem, strategy, recompute, checkpoints=()):
    parts = [f"strategy={strategy}"]
    if mem is not None:
        parts.append(f"mem={float(mem)!r}MiB")
    if recompute:
        parts.append("recompute=" + ",".join(recompute))
    if checkpoints:
        parts.append("checkpoints=" + ",".join(f"{k}={v}"
                                               for k, v in checkpoints))
    return "--sdfg-checkpoint=" + " ".join(parts)


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
        self.program = program(fn, device, check_indices)
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
        names = list(inspect.signature(self.program.fn).parameters)
        wrt = [n for n, a in zip(names, args)
               if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
        if not wrt:
            raise FrontendError(
                f"{self.program.fn.__name__} is given no float array to "
                "differentiate with respect to; name the arguments with "
                "wrt= (or argnums=)")
        return wrt

    def _output_for(self, args, wrt):
        """The container holding the differentiated output, after checking
        wrt and output against the signature of `args`."""
        tr = translate(self.program.fn, args, device=self.program.device)
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
            if np.dtype(dt).kind != "f":
                raise FrontendError(f"cannot differentiate with respect to "
                                    f"'{w}' of dtype {dt}")
        out = self._output_container(params)
        if out.startswith("__return"):
            k = int(out[len("__return"):])
            outs = tr.signature.outputs
            name = self.program.fn.__name__
            if self.has_aux and (tr.signature.returns_none or
                                 len(outs) < 2):
                raise FrontendError(
                    f"has_aux=True: {name} must return a pair (output, "
                    f"aux); it returns {len(outs)} value(s)")
            if self.output == "return" and len(outs) > 1:
                # As JAX: the gradient of which of them? Not silently the
                # first.
                raise FrontendError(
                    f"{name} returns {len(outs)} values; choose the one to "
                    f"differentiate with output='return:K' (K from 0 to "
                    f"{len(outs) - 1}), or return their sum")
            if k < 0:
                k += len(outs)  # return:-1 is the last, as in Python
            if tr.signature.returns_none or not 0 <= k < len(outs):
                raise FrontendError(f"output '{self.output}': "
                                    f"{name} returns "
                                    f"{len(outs)} value(s)")
            out = f"__return{k}"
            if outs[k][0] == "arg":
                out = params[outs[k][1]][1]
                out_dtype = params[outs[k][1]][2]
            else:
                out_dtype = outs[k][1]
        else:
            out_dtype = [p[2] for p in params if p[1] == out][0]
        if np.dtype(out_dtype).kind != "f":
            raise FrontendError(f"output '{self.output}' has dtype "
                                f"{np.dtype(out_dtype)}; only float outputs "
                                "can be differentiated")
        return out

    def _autodiff(self, out, wrt):
        """What _build needs to know to build this gradient program."""
        # In a fixed order: the program is the same for any order of wrt
        # (its gradients are found by name).
        return (out, tuple(sorted(wrt)), self._plan, not self.with_seed,
                self.with_value, self._capacity)

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
        wrt = self._wrt_for(args)
        out = self._output_for(args, wrt)
        return self.program._build(
            args, self.program._key(args),
            self._autodiff(out, wrt))[0]

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
        key = self.program._key(args)
        cached = self._checked.get(key)
        if cached is not None:
            entry, out, wrt = cached
        else:
            wrt = self._wrt_for(args)
            out = self._output_for(args, wrt)
            try:
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
            self._checked[key] = (entry, out, wrt)
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
        return value, self._shaped(grads)


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




def _origin(fn):
    """[source file, first line] of function `fn`."""
    code = getattr(fn, "__code__", None)
    return [inspect.getsourcefile(fn) or "<unknown>",
            getattr(code, "co_firstlineno", 1)]


def _rebased(meta, fn):
    """`meta` of a library built from the same source text at another
    place (another file, or lines above it changed): its "file:line"
    locations in that function's file moved to where `fn` is."""
    old = meta.get("origin")
    new = _origin(fn)
    if not old or old == new:
        return meta
    prefix, shift = old[0] + ":", new[1] - old[1]

    def move(where):
        if isinstance(where, str) and where.startswith(prefix) and \
                where[len(prefix):].isdigit():
            return f"{new[0]}:{int(where[len(prefix):]) + shift}"
        return where

    meta = dict(meta)
    meta["line_sources"] = [[k, move(w)]
                            for k, w in meta.get("line_sources") or []]
    meta["linalg_sites"] = [[f, move(w)]
                            for f, w in meta.get("linalg_sites") or []]
    meta["index_checks"] = [[n, e, move(w)]
                            for n, e, w in meta.get("index_checks") or []]
    meta["origin"] = new
    return meta


def _line_runs(sources):
    """`sources` (the Python line of each generated line) as [first
    generated line, "file:line"] pairs, one per run of equal entries."""
    runs = []
    for k, src in enumerate(sources, start=1):
        if not runs or runs[-1][1] != src:
            runs.append([k, src])
    return runs


class _Entry:
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
                cargs.append(arr)
            elif kind == "scalar":
                cargs.append(np.array(value, dtype=dtype))
        outputs = []
        for kind, dtype, shape in meta["outputs"]:
            if kind == "array":
                out = self.module.empty(shape, dtype)
                cargs.append(out)
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
        if meta["returns_none"]:
            return None
        if meta["returns_tuple"]:
            return tuple(results)
        return results[0]


def _contiguous(a):
    """`a` as a C-contiguous array of its own shape (np.ascontiguousarray
    makes a 0-d array 1-d)."""
    return np.ascontiguousarray(a) if np.ndim(a) else np.array(a)


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
                arrays[name] = copy
            else:
                arrays[name] = _contiguous(a)
        elif kind == "scalar":
            arrays[name] = np.array(a, dtype=dtype)
    for k, (kind, dtype, shape) in enumerate(meta["outputs"]):
        if kind == "array":
            arrays[f"__return{k}"] = scratch(("return", k), shape, dtype)
    target = arrays[out]
    if scratch_seed:
        # The program fills its unit seed itself (unit-seed=true).
        seed_arr = scratch(("seed",), target.shape, target.dtype)
    elif seed is None:
        seed_arr = _gradient_array(self.module, target)
    else:
        seed_arr = np.array(seed, dtype=target.dtype, order="C")
        if seed_arr.shape != target.shape:
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
        values.append(o[()] if o.ndim == 0 else o)
    if meta["returns_none"]:
        value = None
    elif meta["returns_tuple"]:
        value = tuple(values)
    else:
        value = values[0]
    result = {}
    for w in wrt:
        g = grads[w]
        result[w] = g[()] if g.ndim == 0 else g
    return value, result


_Entry.call_gradient = _call_gradient


def program(fn: Optional[Callable] = None, device: str = "cpu",
            check_indices: bool = True, *, source: Optional[str] = None,
            name: Optional[str] = None) -> Any:
    """Compiles an unmodified NumPy function; usable as a decorator
    (``@sdfg.program`` or ``@sdfg.program(device="gpu")``).

    `source=` compiles a function given as Python text instead (generated
    code; see sdfg.from_source, which `name=` is passed to).

    With device="gpu" the outermost parallel maps run as CUDA kernels and
    library ops on cuBLAS; arrays go in and out as NumPy arrays (copied to
    the GPU and back). Raises DeviceError where no GPU can be used.

    device="gpu-emulator" compiles exactly as for the GPU, then runs each
    kernel's threads as an OpenMP loop on the host and library ops on
    CBLAS: for checking the GPU code generation where there is no GPU (it
    is not a fast path).

    An index computed from data (an index array, a value read from an
    array, a loop bound read from one) is bounds-checked where it is used,
    and an index outside its array raises NumPy's IndexError after the
    call. check_indices=False compiles without those checks, for callers
    that vouch for their indices (a CSR product runs about 1.3x faster);
    an index outside its array then reads or writes outside it, as in C."""
    if source is not None:
        if fn is not None:
            raise TypeError("sdfg.program takes a function or source=, "
                            "not both")
        fn = from_source(source, name)
    elif name is not None:
        raise TypeError("name= chooses a function of source=")
    if fn is None:
        return lambda f: program(f, device, check_indices)
    if isinstance(fn, Gradient):
        # Its source is that of the function it differentiates (it wraps
        # it): compiling it would silently compile that function instead.
        raise TypeError(
            f"sdfg.program takes a Python function, not a gradient "
            f"({getattr(fn, '__name__', 'this')} is an sdfg.grad, "
            "value_and_grad or vjp object, compiled when it is called: "
            "call it directly)")
    if isinstance(fn, Program):
        if fn.device == device and fn.check_indices == check_indices:
            return fn
        fn = fn.fn
    return Program(fn, device, check_indices)


def to_mlir(fn: Callable, *args: Any, device: str = "cpu") -> str:
    """The sdfg-dialect text of `fn` specialised for `args` (map schedules
    chosen for `device`)."""
    return program(fn, device).to_mlir(*args)
