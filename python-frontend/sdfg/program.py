"""`sdfg.program` and `sdfg.to_mlir`: NumPy functions compiled natively.

A program is specialised per call signature: array dtypes and shapes,
the values of int and bool arguments, and the dtypes of float arguments.
Compiled libraries are cached in memory and on disk (``$SDFG_CACHE_DIR``,
default ``~/.cache/sdfg``), keyed by the function's source, the module
constants it reads, the signature and the compiler binary; a second process
reuses them without recompiling.
"""

import bisect
import functools
import hashlib
import inspect
import json
import os
import re
import sys
import tempfile
import types

import numpy as np

from . import native
from .errors import FrontendError
from .frontend import translate

_CACHE_VERSION = "8"


def cache_dir():
    d = os.environ.get("SDFG_CACHE_DIR")
    if not d:
        d = os.path.join(os.path.expanduser("~"), ".cache", "sdfg")
    return d


def _arg_key(value):
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape)
    if isinstance(value, (bool, np.bool_)):
        return ("bool", bool(value))
    if isinstance(value, (int, np.integer)):
        return ("int", int(value))
    if isinstance(value, str):
        return ("str", value)
    if value is None:
        return ("none",)
    if isinstance(value, (float, np.floating)):
        dt = value.dtype.str if isinstance(value, np.floating) else "<f8"
        return ("float", dt)
    return ("other", type(value).__name__)


def _global_refs(fn):
    """(scope, name) of each module-level or closed-over value that `fn`,
    its nested code (lambdas, comprehensions, inner functions) and the
    Python functions it calls may read: constants are compiled in and
    arrays become parameters of the fixed shape (Translator.global_array),
    so what they hold is part of a compiled program's key. `scope` is the
    module's dict or the closure cell; names that hold nothing relevant
    now are left out."""
    refs, seen = [], set()

    def code_names(code):
        names = set(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                names |= code_names(c)
        return names

    def module(m, names, depth):
        """`params.W`, `pkg.sub.C`: the attributes of a module of the
        program's own that the code names (packages a few levels down)."""
        if m.__name__.split(".")[0] in ("numpy", "sdfg", "math",
                                        "builtins") or depth == 0 or \
                id(m) in seen:
            return
        seen.add(id(m))
        for attr in sorted(names):
            a = getattr(m, attr, None)
            if isinstance(a, types.ModuleType):
                module(a, names, depth - 1)
            elif _is_constant(a):
                refs.append((m.__dict__, attr))
            elif isinstance(a, types.FunctionType):
                refs.append((m.__dict__, attr))
                visit(a)

    def visit(f):
        if id(f) in seen:
            return
        seen.add(id(f))
        code = f.__code__
        cells = dict(zip(code.co_freevars, f.__closure__ or ()))
        for name in sorted(code_names(code) | set(cells)):
            scope = cells.get(name)
            if scope is not None:
                try:
                    v = scope.cell_contents
                except ValueError:  # not assigned yet
                    continue
            elif name in f.__globals__:
                scope, v = f.__globals__, f.__globals__[name]
            else:
                continue
            if isinstance(v, Program):
                v = v.fn
            if isinstance(v, types.ModuleType):
                module(v, code_names(code), 3)
                continue
            if isinstance(v, types.FunctionType):
                # NumPy's own Python functions are translated, not inlined.
                if not (v.__module__ or "").startswith(("numpy", "sdfg.")):
                    # An inlined function: its source is part of the key.
                    refs.append((scope, name))
                    visit(v)
            elif _is_constant(v):
                refs.append((scope, name))

    visit(fn)
    return refs


def _is_constant(v):
    """Whether the frontend reads `v` as a constant or a global array (or
    a tuple of them)."""
    if isinstance(v, (tuple, list)):
        return all(_is_constant(x) for x in v)
    return isinstance(v, (bool, int, float, str, np.generic, np.ndarray))


def _value_of(scope, name):
    return scope.cell_contents if isinstance(scope, types.CellType) else \
        scope.get(name)


def _global_state(refs):
    """The key of what `refs` (_global_refs) hold now: an array's dtype
    and shape, a called function's source, another value's repr."""
    state = []
    for scope, name in refs:
        v = _value_of(scope, name)
        if isinstance(v, Program):
            v = v.fn
        state.append(_value_key(v))
    return tuple(state)


def _value_key(v):
    """An array's dtype and shape, a function's source digest and the
    constants its closure holds, another value's repr (tuples item by
    item)."""
    if isinstance(v, np.ndarray):
        return _arg_key(v)
    if isinstance(v, types.FunctionType):
        cells = []
        for cell in v.__closure__ or ():
            try:
                c = cell.cell_contents
            except ValueError:
                continue
            if isinstance(c, types.FunctionType):
                cells.append(_code_digest(c.__code__))
            elif _is_constant(c):
                cells.append(_value_key(c))
        return (_code_digest(v.__code__),) + tuple(cells)
    if isinstance(v, (tuple, list)) and any(isinstance(x, np.ndarray)
                                             for x in v):
        return tuple(_value_key(x) for x in v)
    return repr(v)


_CODE_DIGESTS = {}


def _code_digest(code):
    """A hash of the source of the function whose code is `code` (read
    once per code object): an edited helper must not reuse the libraries
    its old version built."""
    digest = _CODE_DIGESTS.get(code)
    if digest is None:
        try:
            text = "".join(inspect.getsourcelines(code)[0]).encode()
        except (OSError, TypeError):
            text = code.co_code + repr(code.co_consts).encode()
        digest = _CODE_DIGESTS[code] = hashlib.sha256(text).hexdigest()[:16]
    return digest


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


@functools.lru_cache(maxsize=None)
def _frontend_stamp():
    """Hash of the frontend's own sources: a changed translator must not
    reuse libraries an older one built."""
    h = hashlib.sha256()
    root = os.path.dirname(os.path.abspath(__file__))
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".py"):
                with open(os.path.join(dirpath, f), "rb") as fh:
                    h.update(f.encode() + fh.read())
    return h.hexdigest()


_TOOL_HASHES = {}


def _tool_stamp():
    """Hashes of sdfg-opt and sdfg-translate: a rebuilt compiler must not
    reuse libraries an older one built. By content, not date, so that a
    cache built on one machine is found on another that has the same tools
    (see Program.precompile)."""
    stamps = []
    for tool in ("sdfg-opt", "sdfg-translate"):
        path = os.path.join(native.tools_dir(), tool)
        try:
            st = os.stat(path)
        except OSError:
            stamps.append("missing")
            continue
        key = (path, st.st_size, st.st_mtime_ns)
        digest = _TOOL_HASHES.get(key)
        if digest is None:
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            digest = _TOOL_HASHES[key] = h.hexdigest()
        stamps.append(digest)
    return ",".join(stamps)


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
        # What the function reads from its module and closure (found once:
        # _global_refs); their values are part of each call's key.
        self._global_refs = None
        self._global_funcs = []  # (scope, name, function) among them
        # Calls with this many positional arguments need no binding (the
        # common case: no per-call signature work).
        code = getattr(fn, "__code__", None)
        self._nparams = None if getattr(code, "co_kwonlyargcount", 0) else \
            getattr(code, "co_argcount", None)
        try:
            self._source = inspect.getsource(fn)
        except (OSError, TypeError) as e:
            raise FrontendError(f"cannot read the source of {fn!r}: {e}")

    def _key(self, args):
        key = tuple(_arg_key(a) for a in args)
        refs = self._global_refs
        if refs is None or any(_value_of(scope, name) is not f
                               for scope, name, f in self._global_funcs):
            # First call, or a name now holds another function (whose own
            # globals and closure are then what the program reads).
            refs = self._global_refs = _global_refs(self.fn)
            values = [(scope, name, _value_of(scope, name))
                      for scope, name in refs]
            self._global_funcs = [
                ref for ref in values
                if isinstance(ref[2], (types.FunctionType, Program))]
        return key + _global_state(refs) if refs else key

    def bind(self, args, kwargs):
        """`args` completed by `kwargs` and the function's defaults."""
        if kwargs or len(args) != self._nparams:
            return _bind(self.fn, args, kwargs)
        return args

    def to_mlir(self, *args, **kwargs):
        args = self.bind(args, kwargs)
        return translate(self.fn, _normalise(args), device=self.device).text

    def compile(self, *args):
        args = _normalise(args)
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
        args = _normalise(self.bind(args, {}))
        return self._build(args, self._key(args))[0]

    def _build(self, args, key, autodiff=None):
        """Compiles the library for `args` into the cache unless it is
        there; returns (its directory, its meta). With `autodiff` =
        (output, wrt, plan, unit_seed, with_value, (while capacity, data
        loop capacity)), the library holds the gradient program."""
        digest = hashlib.sha256(json.dumps(
            [_CACHE_VERSION, self._source, repr(key),
             _tool_stamp(), _frontend_stamp(), repr(autodiff),
             self.device, native.target_cpu(),
             self.check_indices]).encode()
        ).hexdigest()[:32]
        directory = os.path.join(cache_dir(), digest)
        lib = os.path.join(directory, "program.so")
        meta_path = os.path.join(directory, "meta.json")
        if os.path.exists(lib) and os.path.exists(meta_path):
            with open(meta_path) as f:
                return directory, _rebased(json.load(f), self.fn)
        tr = translate(self.fn, args, device=self.device)
        source = tr.text
        name = tr.name
        checkpoint = None
        if autodiff is not None:
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
            try:
                source = native.run_passes(source, passes)
            except native.ToolError as e:
                raise native.ToolError(tr.locate(str(e))) from None
            checkpoint = _read_checkpoint(source)
            name = tr.name + "_grad"
        os.makedirs(cache_dir(), exist_ok=True)
        # Build in a private directory, then rename: a crash mid-compile
        # never leaves a half-written entry behind.
        staging = tempfile.mkdtemp(prefix=".build-", dir=cache_dir())
        try:
            try:
                abi = native.build_library(
                    source, staging, device=self.device,
                    check_indices=self.check_indices)
            except native.ToolError as e:
                raise native.ToolError(tr.locate(str(e))) from None
            meta = {
                "name": name,
                "device": self.device,
                "check_indices": self.check_indices,
                "omp_spin_ms": _spin_for(source),
                "checkpoint": checkpoint,
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
            with open(os.path.join(staging, "meta.json"), "w") as f:
                json.dump(meta, f)
            try:
                os.rename(staging, directory)
            except OSError:
                # Another process finished first; use its entry.
                native.remove_tree(staging)
        except BaseException:
            native.remove_tree(staging)
            raise
        return directory, meta

    def _load_or_build(self, args, key, autodiff=None):
        """The loaded library for `args` (see _build)."""
        if self.device == "gpu":
            native.gpu_runtime()  # DeviceError now, not a failed dlopen
        directory, meta = self._build(args, key, autodiff)
        module = native.NativeModule(
            None, os.path.join(directory, "program.so"), meta["abi"])
        return _Entry(module, meta, self.fn)

    def __call__(self, *args, **kwargs):
        args = self.bind(args, kwargs)
        entry = self.compile(*args)
        return entry.call(_normalise(args))


_STRATEGIES = ("store-all", "recompute-all", "ilp")
_DEVICES = ("cpu", "gpu", "gpu-emulator")


def _checkpoint_option(mem, strategy, recompute):
    parts = [f"strategy={strategy}"]
    if mem is not None:
        parts.append(f"mem={float(mem)!r}MiB")
    if recompute:
        parts.append("recompute=" + ",".join(recompute))
    return "--sdfg-checkpoint=" + " ".join(parts)


def _read_checkpoint(source):
    """The sdfg.checkpoint attribute of the gradient program, as a dict."""
    m = re.search(r"sdfg\.checkpoint = \{(.*?)\}", source)
    if m is None:
        return None
    text = m.group(1)
    info = {k: int(v) for k, v in re.findall(r"(\w+) = (-?\d+) : i64", text)}
    for key in ("recompute", "store"):
        lst = re.search(key + r" = \[(.*?)\]", text)
        info[key] = re.findall(r'"([^"]*)"', lst.group(1)) if lst else []
    st = re.search(r'strategy = "([^"]*)"', text)
    info["strategy"] = st.group(1) if st else None
    return info


class Gradient:
    """`sdfg.grad` / `sdfg.vjp`: the gradient of one output of a NumPy
    function with respect to some of its arguments."""

    def __init__(self, fn, wrt, output, with_seed, mem=None, strategy=None,
                 recompute=None, device="cpu", with_value=True,
                 while_capacity=None, data_loop_capacity=None,
                 check_indices=True):
        # An explicit strategy runs --sdfg-checkpoint (even store-all, which
        # then reports its peak in .checkpoint).
        explicit = strategy is not None
        if strategy is None:
            strategy = "ilp" if mem is not None else "store-all"
        if strategy not in _STRATEGIES:
            raise ValueError(f"strategy must be one of {_STRATEGIES}, not "
                             f"{strategy!r}")
        if mem is not None:
            if isinstance(mem, bool) or not isinstance(mem, (int, float)) \
                    or not mem > 0:
                raise ValueError(f"mem must be a positive number of MiB, "
                                 f"not {mem!r}")
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
        self._plan = None
        if mem is not None or explicit or recompute:
            self._plan = (mem, strategy, recompute)
        #: The checkpoint decision of the last compiled gradient: peak and
        #: limit in bytes, containers recomputed and stored (None without
        #: mem/strategy).
        self.checkpoint = None
        self.program = program(fn, device, check_indices)
        if isinstance(wrt, str):
            wrt = [wrt]
        self.wrt = list(wrt)
        if not self.wrt:
            raise ValueError("wrt must name at least one argument")
        self.output = output
        self.with_seed = with_seed
        self.with_value = with_value
        self._last_value = None
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

    def _output_for(self, args):
        """The container holding the differentiated output, after checking
        wrt and output against the signature of `args`."""
        tr = translate(self.program.fn, args, device=self.program.device)
        params = tr.signature.params
        kinds = {p[1]: p[0] for p in params}
        for w in self.wrt:
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

    def _autodiff(self, out):
        """What _build needs to know to build this gradient program."""
        return (out, tuple(self.wrt), self._plan, not self.with_seed,
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
        return self._last_value

    def precompile(self, *args):
        """Builds the gradient library for `args` into the cache without
        loading it; returns its directory (see Program.precompile)."""
        args = self.program.bind(args, {})
        out = self._output_for(args)
        return self.program._build(
            args, self.program._key(args),
            self._autodiff(out))[0]

    def __call__(self, *args, seed=None, **kwargs):
        args = self.program.bind(args, kwargs)
        if self.with_seed and seed is None:
            raise TypeError("vjp needs seed= (the cotangent of the output)")
        if not self.with_seed and seed is not None:
            raise TypeError("grad takes no seed; use sdfg.vjp")
        # The caller's arrays are never modified: the ones the program
        # writes are copied in _call_gradient.
        key = self.program._key(args)
        cached = self._checked.get(key)
        if cached is not None:
            entry, out = cached
            result = entry.call_gradient(args, self.wrt, out, seed)
            self._last_value = entry.last_value
            self.checkpoint = entry.meta.get("checkpoint")
            return result
        out = self._output_for(args)
        entry = self.program._load_or_build(
            args, key, self._autodiff(out))
        self._checked[key] = (entry, out)
        self.checkpoint = entry.meta.get("checkpoint")
        result = entry.call_gradient(args, self.wrt, out, seed)
        # The forward results computed on the way (what `fn` returns).
        self._last_value = entry.last_value
        return result


def grad(fn, wrt, output="return", mem=None, strategy=None, recompute=None,
         device="cpu", while_capacity=None, data_loop_capacity=None,
         check_indices=True):
    """d sum(output) / d wrt for each name in `wrt`, as a dict.

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
    data (see `program`)."""
    return Gradient(fn, wrt, output, with_seed=False, mem=mem,
                    strategy=strategy, recompute=recompute, device=device,
                    with_value=False, while_capacity=while_capacity,
                    data_loop_capacity=data_loop_capacity,
                    check_indices=check_indices)


class ValueAndGradient(Gradient):
    """`sdfg.value_and_grad`: a Gradient whose call returns (value, grads)."""

    def __call__(self, *args, **kwargs):
        grads = super().__call__(*args, **kwargs)
        return self._last_value, grads


def value_and_grad(fn, wrt, output="return", mem=None, strategy=None,
                   recompute=None, device="cpu", while_capacity=None,
                   data_loop_capacity=None, check_indices=True):
    """Like grad, but the callable returns (value, gradients): value is
    what `fn` returns for those arguments (as sdfg.program(fn) would
    return it), computed by the same program as the gradients."""
    return ValueAndGradient(fn, wrt, output, with_seed=False, mem=mem,
                            strategy=strategy, recompute=recompute,
                            device=device, while_capacity=while_capacity,
                            data_loop_capacity=data_loop_capacity,
                            check_indices=check_indices)


def vjp(fn, wrt, output="return", mem=None, strategy=None, recompute=None,
        device="cpu", while_capacity=None, data_loop_capacity=None,
        check_indices=True):
    """Like grad, but the callable takes seed= (the output's cotangent)."""
    return Gradient(fn, wrt, output, with_seed=True, mem=mem,
                    strategy=strategy, recompute=recompute, device=device,
                    while_capacity=while_capacity,
                    data_loop_capacity=data_loop_capacity,
                    check_indices=check_indices)


def _spin_for(source):
    """OpenMP spin time for a program (native.NativeModule.set_spin):
    short when it calls BLAS, whose threads a spinning worker slows."""
    if any(op in source for op in ("sdfg.matmul", "sdfg.gemv", "sdfg.dot")):
        return native.OMP_SPIN_MS_WITH_BLAS
    return native.OMP_SPIN_MS


def _written_args(meta):
    """The names of the arguments the program writes (its ABI description
    says which)."""
    abi = [f for f in meta["abi"]["functions"] if f["name"] == meta["name"]]
    return frozenset(a["name"] for a in abi[0]["args"] if a.get("written"))


def _check_indices(meta, args, written):
    """IndexError, as NumPy raises it, for an index array argument with a
    value outside the extent it indexes (Signature.index_checks). An
    argument the program writes is skipped: its values at the subscript
    may differ from the caller's."""
    checks = meta.get("index_checks")
    if not checks:
        return
    values = {name: value for (kind, name, _, _), value in
              zip(meta["params"], args) if kind == "array"}
    for name, extent, where in checks:
        a = values.get(name)
        if name in written or a is None or a.size == 0:
            continue
        lo, hi = int(a.min()), int(a.max())
        bad = lo if lo < -extent else hi if hi >= extent else None
        if bad is not None:
            raise IndexError(f"{where}: index {bad} is out of bounds for "
                             f"size {extent} (in argument '{name}')")


def _check_overlap(meta, args, written):
    """ValueError for two array arguments that share memory where the
    program writes one of them: it reads and writes its arguments as
    separate arrays (a write into one would reach the other mid-way,
    where NumPy's order of operations decides what each sees)."""
    if not written:
        return
    arrays = [(name, value) for (kind, name, _, _), value in
              zip(meta["params"], args) if kind == "array"]
    for i, (n1, a1) in enumerate(arrays):
        for n2, a2 in arrays[i + 1:]:
            if (n1 in written or n2 in written) and \
                    np.may_share_memory(a1, a2):
                changed = n1 if n1 in written else n2
                if n1.startswith("global.") or n2.startswith("global."):
                    # Module-level arrays are passed as arguments too.
                    def show(n):
                        return (f"global '{n[len('global.'):]}'"
                                if n.startswith("global.") else
                                f"argument '{n}'")
                    raise ValueError(
                        f"{show(n1)} and {show(n2)} share memory and the "
                        f"program writes {show(changed)}: the compiled "
                        "program reads and writes them as separate arrays; "
                        "index one array in the function instead of a view "
                        "of it (A[2:8] for Av = A[2:8]), or pass a copy")
                raise ValueError(
                    f"arguments '{n1}' and '{n2}' share memory and the "
                    f"program writes '{changed}': pass a copy of one of "
                    "them")


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


def _python_line(meta, line):
    """The Python `file:line` that generated sdfg line `line` came from."""
    runs = meta.get("line_sources") or []
    k = bisect.bisect_right([first for first, _ in runs], line) - 1
    if k >= 0 and runs[k][1] is not None:
        return runs[k][1]
    return f"generated sdfg line {line}"


def _check_after_call(meta, module):
    """After a call: an index out of bounds, a singular matrix, the GPU
    runtime's error, or the emulator's races."""
    bad = native.take_index_error(module)
    if bad is not None:
        line, index, axis, extent = bad
        where = _python_line(meta, line)
        # Negative axes: extents known only at run time that do not
        # broadcast (sdfg.broadcast_extent), NumPy's ValueError.
        if axis == -1:
            raise ValueError(f"{where}: operands could not be broadcast "
                             f"together with extents {index} and {extent}")
        if axis == -2:
            raise ValueError(f"{where}: could not broadcast input array "
                             f"from extent {index} into extent {extent}")
        if axis == -3:
            raise ValueError(f"{where}: zero-size array to a reduction "
                             "operation (max, min, argmax or argmin) which "
                             "has no identity")
        if index < 0:
            # The frontend adds the size to a negative index read from data
            # (NumPy's counting from the end) before the access; what is
            # still negative there was this before.
            index -= extent
        raise IndexError(f"{where}: index {index} is out of bounds for "
                         f"axis {axis} with size {extent}")
    if meta.get("linalg_sites"):
        native.check_linalg_error(module, meta["linalg_sites"])
    device = meta.get("device")
    if device == "gpu":
        native.check_gpu_error()
    elif device == "gpu-emulator":
        native.check_emulator_races(module)


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

    def with_globals(self, args):
        """`args` followed by the global arrays the program reads, as
        their names hold them now."""
        if not self.globals:
            return args
        values = []
        for origin, dtype, shape in self.globals:
            v = _global_value(self.fn, *origin)
            if not (isinstance(v, np.ndarray) and v.dtype == dtype and
                    v.shape == shape):
                # Program._key covers what the function reads; this is
                # only reached where that scan missed a name.
                raise FrontendError(
                    f"global '{origin[2]}' is no longer an array of dtype "
                    f"{dtype} and shape {shape}, as when "
                    f"{self.fn.__name__} was compiled")
            values.append(v)
        return tuple(args) + tuple(values)

    def call(self, args):
        meta = self.meta
        args = self.with_globals(args)
        if meta.get("check_indices", True):
            _check_indices(meta, args, self.written)
        _check_overlap(meta, args, self.written)
        cargs = []
        writeback = []
        for (kind, name, dtype, _), value in zip(meta["params"], args):
            if kind == "array":
                arr = value
                if not arr.flags.c_contiguous or not arr.flags.aligned:
                    arr = _contiguous(value)
                    writeback.append((value, arr))
                cargs.append(arr)
            elif kind == "scalar":
                cargs.append(np.array(value, dtype=dtype))
        outputs = []
        for kind, dtype, shape in meta["outputs"]:
            if kind == "array":
                out = np.empty(shape, dtype=dtype)
                cargs.append(out)
                outputs.append(out)
            else:
                outputs.append(None)
        self.module.set_spin(
            meta.get("omp_spin_ms", native.OMP_SPIN_MS_WITH_BLAS))
        self.function(*cargs)
        _check_after_call(meta, self.module)
        for orig, tmp in writeback:
            orig[...] = tmp
        results = []
        for (kind, dtype, shape), out in zip(meta["outputs"], outputs):
            if kind == "arg":
                results.append(args[dtype])  # dtype holds the param index
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


def _gradient_array(like):
    """The array a d_<w> gradient (or grad's seed) is written into. The
    program overwrites every element (sdfg-autodiff's accumulate=false,
    unit-seed=true), so it is not initialised here; the tests fill it with
    NaN to check that."""
    return np.empty_like(like)


def _call_gradient(self, args, wrt, out, seed):
    """Calls a gradient program; its C arguments are found by name in the
    ABI description: parameters and outputs, d_<x> gradients (d_<output>
    is the seed), fwd_<x> forward results, ad_status."""
    meta = self.meta
    args = self.with_globals(args)
    _check_indices(meta, args, self.written)
    abi = meta.get("_gradient_abi")
    if abi is None:  # looked up once per loaded program
        abi = meta["_gradient_abi"] = [
            f for f in meta["abi"]["functions"] if f["name"] == meta["name"]]
    # The arguments the program writes (the ABI description says which)
    # are copied so that the caller's arrays stay untouched; the others are
    # passed as they are (read only). A written argument that the backward
    # program rewinds has a fwd_<name> copy of its forward result; the
    # others hold it themselves on return.
    written = self.written
    arrays = {}
    for (kind, name, dtype, _), value in zip(meta["params"], args):
        if kind == "array":
            arrays[name] = (np.array(value, copy=True, order="C")
                            if name in written
                            else _contiguous(value))
        elif kind == "scalar":
            arrays[name] = np.array(value, dtype=dtype)
    for k, (kind, dtype, shape) in enumerate(meta["outputs"]):
        if kind == "array":
            arrays[f"__return{k}"] = np.empty(shape, dtype=dtype)
    target = arrays[out]
    if seed is None:
        # The program fills its unit seed itself (unit-seed=true).
        seed_arr = _gradient_array(target)
    else:
        seed_arr = np.array(seed, dtype=target.dtype, order="C")
        if seed_arr.shape != target.shape:
            raise ValueError(f"seed has shape {seed_arr.shape}, the output "
                             f"has shape {target.shape}")
    # seed_arr is ours (np.array copies the caller's seed): an output that
    # is also differentiated receives its gradient in it.
    grads = {w: (seed_arr if w == out else _gradient_array(arrays[w]))
             for w in wrt}
    forward = {}
    status = np.zeros((), np.int64)
    cargs = []
    for a in abi[0]["args"]:
        name = a["name"]
        if name in arrays:
            cargs.append(arrays[name])
        elif name == "ad_status":
            cargs.append(status)
        elif name.startswith("fwd_"):
            forward[name[4:]] = np.empty_like(arrays[name[4:]])
            cargs.append(forward[name[4:]])
        elif name.startswith("d_") and name[2:] in grads:
            cargs.append(grads[name[2:]])
        elif name == "d_" + out:
            cargs.append(seed_arr)
        else:
            raise AssertionError(f"unexpected gradient argument {name}")
    self.module.set_spin(
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
        self.last_value = None
    elif meta["returns_tuple"]:
        self.last_value = tuple(values)
    else:
        self.last_value = values[0]
    result = {}
    for w in wrt:
        g = grads[w]
        result[w] = g[()] if g.ndim == 0 else g
    return result


_Entry.call_gradient = _call_gradient


def _bind(fn, args, kwargs):
    """The arguments of a call of `fn` with keywords and defaults, in the
    order of its parameters (keyword-only ones last, as the translator
    takes them): Python's TypeError for a missing or unknown one."""
    signature = inspect.signature(fn)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
           for p in signature.parameters.values()):
        return tuple(bound.args)  # the translator rejects the signature
    return tuple(bound.arguments[n] for n in signature.parameters)


def _normalise(args):
    return tuple(args)


def program(fn=None, device="cpu", check_indices=True):
    """Compiles an unmodified NumPy function; usable as a decorator
    (``@sdfg.program`` or ``@sdfg.program(device="gpu")``).

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
    if fn is None:
        return lambda f: program(f, device, check_indices)
    if isinstance(fn, Program):
        if fn.device == device and fn.check_indices == check_indices:
            return fn
        fn = fn.fn
    return Program(fn, device, check_indices)


def to_mlir(fn, *args, device="cpu"):
    """The sdfg-dialect text of `fn` specialised for `args` (map schedules
    chosen for `device`)."""
    return program(fn, device).to_mlir(*args)
