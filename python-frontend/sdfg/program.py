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
import os
import time
from typing import Any, Callable, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import cache, cache_key, native, pytrees
from . import log as _log
from .arguments import bind as _bind
from .arguments import normalise as _normalise
from .errors import FrontendError
from .loaded_program import LoadedProgram
from .source import from_source
from .source import source_lines as _source_lines
from .frontend import translate
from .frontend.symbolic_sizes import MIN_SYMBOLIC_EXTENT, SIZE_SUFFIX
from .frontend.symbols import loop_bound_ints, shape_pattern

# The on-disk cache's location (see cache.py); kept here for callers of
# sdfg.program.cache_dir.
cache_dir = cache.configured_dir


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

    def __init__(self, fn, device="cpu", check_indices=True,
                 static_argnames=(), dynamic=None):
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
        if dynamic not in (None, True, False):
            raise ValueError(f"dynamic must be None, True or False, not "
                             f"{dynamic!r}")
        #: Array extents as size symbols (frontend/symbolic_sizes.py), as
        #: torch.compile's `dynamic`: None compiles the first shape of a
        #: signature in and the others with symbols (one more compile,
        #: then none); True uses symbols from the first call; False never.
        self.dynamic = dynamic
        # Per key with extents left out: the shapes of its first call.
        self._first_shapes = {}
        # Per signature of a call's arguments: Program._pattern's result.
        self._patterns = {}
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
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        #: Int parameters always compiled in as constants (JAX's
        #: static_argnames); the others that only bound for loops are
        #: symbols (frontend/symbols.py).
        self.static_argnames = tuple(static_argnames)
        try:
            names = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            names = []
        unknown = [n for n in self.static_argnames if n not in names]
        if unknown:
            raise ValueError(f"static_argnames names {unknown}, which are "
                             f"not parameters of {fn.__name__}")
        self._names = names
        bounds = loop_bound_ints(self._source, names)
        self._loop_bounds = [(k, n) for k, n in enumerate(names)
                             if n in bounds and n not in self.static_argnames]
        # Per key of a call with the loop-bound ints left out: the ones the
        # compiled program takes as symbols (those it could not are keyed
        # by value).
        self._symbols = {}

    def _key(self, args, keys=None):
        """What decides the program compiled for `args`: their signature
        (cache_key.arg_key, or `keys` per argument), what the function and
        the functions it reaches read from outside it (globals, module
        attributes, closure cells, default values: cache_key.global_state)
        and its own defaults."""
        key = tuple(keys) if keys is not None else \
            tuple(cache_key.arg_key(a) for a in args)
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
        key, symbolic, base = self._keys(args)
        entry = self._compiled.get(key)
        if entry is None:
            try:
                entry = self._load_or_build(args, key, symbolic=symbolic)
            except (native.ToolError, FrontendError):
                if not symbolic:
                    raise
                # The program with symbols did not compile (a construct
                # the compiler handles only with constants): constants
                # for this signature from now on, and the error (if any)
                # is theirs. (A cache that is refused is not this: its
                # CacheError stands.)
                self._symbols[base] = frozenset()
                return self.compile(*args)
            self._compiled[key] = entry
        return entry

    def _symbolic_candidates(self, args, ints=True):
        """(int parameters that may be symbols, array parameters whose
        extents may be) for `args`, as (position, name) pairs; no ints
        where `ints` is False (gradient programs)."""
        with_ints = ints
        ints = [(k, n) for k, n in self._loop_bounds if with_ints and
                k < len(args) and _is_int(args[k])]
        loop_bounds = {n for _, n in self._loop_bounds}
        arrays = []
        if _SYMBOLIC_SHAPES and self.dynamic is not False:
            # Arrays by their extents, and the other ints (a shape, an
            # extent to compare with one) as size symbols named
            # `n:size` (symbolic_sizes.py), in the order of the
            # parameters (the duck sizing of the translation follows it).
            for k, n in enumerate(self._names[:len(args)]):
                a = args[k]
                if n in self.static_argnames:
                    continue
                if pytrees.is_node(a):
                    # The array leaves of a dict, tuple or list, named by
                    # their paths as the translator names their parameters
                    # (`params.W`: pytrees.py).
                    arrays += [(k, p) for p, v in _tree_leaves(n, a)
                               if _symbolic_array(v)]
                elif _symbolic_array(a):
                    arrays.append((k, n))
                elif with_ints and _is_int(a) and n not in loop_bounds \
                        and a >= MIN_SYMBOLIC_EXTENT:
                    arrays.append((k, n + SIZE_SUFFIX))
        return ints, arrays

    def _pattern(self, args, ints=True):
        """(per argument its key with the candidate symbols left out, the
        candidate ints, the candidate arrays and size ints, their names,
        their values): what _base_key needs, found once per signature
        (arg_key) of the arguments; every call of a program with symbols
        looks it up."""
        memo = (tuple(cache_key.arg_key(a) for a in args), ints)
        found = self._patterns.get(memo)
        if found is not None:
            return found
        ints, arrays = self._symbolic_candidates(args, ints)
        keys = list(memo[0])
        for k, _ in ints:
            keys[k] = ("int", "symbol")
        # The candidates' values: an argument, or a leaf of one by path.
        leaves = {p: v for k in {k for k, n in arrays
                                 if pytrees.is_node(args[k])}
                  for p, v in _tree_leaves(self._names[k], args[k])}
        given = [leaves[n] if n in leaves else args[k] for k, n in arrays]
        pattern = shape_pattern([_extents(v) for v in given])
        keyed = {}
        for (k, n), p, v in zip(arrays, pattern, given):
            keyed[n] = keys[k] = ("array", v.dtype.str, p) if \
                type(v) is np.ndarray else ("int", "size", p)
        for k in {k for k, _ in arrays if pytrees.is_node(args[k])}:
            # A tree's key with its candidate leaves keyed as above and
            # the others as they are (structure visits them in order).
            order = iter([keyed[p] if p in keyed else cache_key.arg_key(v)
                          for p, v in _tree_leaves(self._names[k], args[k])])
            keys[k] = pytrees.structure(args[k], lambda _: next(order))
        values = {n: int(args[k]) for k, n in ints}
        values.update((n, _extents(v)) for (_, n), v in zip(arrays, given))
        found = (tuple(keys), ints, arrays,
                 tuple(n for _, n in ints + arrays), values)
        if len(self._patterns) >= 4096:  # a long sweep: start again
            self._patterns.clear()
        self._patterns[memo] = found
        return found

    def _base_key(self, args, ints=True, pattern=None):
        """(the key of a call with its candidate symbols left out, the
        candidates): ints by nothing, arrays and size ints by their dtype
        and extent pattern (symbols.shape_pattern). `pattern`: _pattern's
        answer for `args` where the caller has it."""
        keys, ints, arrays, names, _ = pattern or self._pattern(args, ints)
        base = self._key(args, keys) + (("symbols",) + names,)
        return base, ints, arrays

    def _symbolic_key(self, args):
        return self._keys(args)[:2]

    def _keys(self, args, ints=True, learnt=None, first=None):
        """(the key of a call whose loop-bound ints and array extents may
        be symbols, the names of those that are, the key those were learnt
        under): symbols are left out of
        the key, the other candidates (where the translation with symbols
        failed) are in it by value. Translations are tried with every
        candidate, then with the ints alone, then with none.

        Gradients pass `ints=False` and their own `learnt` (base -> the
        symbols) and `first` (base -> the first shapes)."""
        learnt = self._symbols if learnt is None else learnt
        first = self._first_shapes if first is None else first
        pattern = self._pattern(args, ints)
        values = pattern[4]
        base, ints, arrays = self._base_key(args, ints, pattern)
        if arrays and self.dynamic is None:
            shapes = tuple(values[n] for _, n in arrays)
            if first.setdefault(base, shapes) == shapes:
                # The first shapes (and any call with them later) compile
                # in: a program called with one shape runs at the
                # specialised program's speed.
                base += (("first", shapes),)
                arrays = []
        if not ints and not arrays:
            return base, frozenset(), base
        symbolic = learnt.get(base)
        if symbolic is None:
            symbolic = frozenset()
            names = [n for _, n in ints + arrays]
            tries = [frozenset(names),
                     # without the ints as sizes, then with loop bounds
                     # only
                     frozenset(n for n in names if not n.endswith(
                         SIZE_SUFFIX)),
                     frozenset(n for _, n in ints)]
            tries = list(dict.fromkeys(t for t in tries if t))
            for names in tries:
                try:
                    translate(self.fn, args, device=self.device,
                              symbolic=names)
                except Exception:
                    # A use the symbol cannot serve (a loop unrolled by
                    # its trip count, a subscript it no longer bounds, an
                    # extent an operation needs when compiling): the
                    # next try, then constants (whose translation reports
                    # the program's own errors).
                    continue
                symbolic = names
                break
            learnt[base] = symbolic
        if len(symbolic) == len(ints) + len(arrays):
            return base, symbolic, base  # every candidate is a symbol
        fixed = tuple(values[n] for _, n in ints + arrays
                      if n not in symbolic)
        return base + fixed, symbolic, base

    def precompile(self, *args):
        """Builds the library for `args` into the cache without loading it
        (or finds it there); returns its directory. For preparing, on a
        machine with the compiler, a cache that another machine without it
        (say, a GPU node) uses: same sources, same tools (by content) and
        the same $SDFG_TARGET_CPU there, with $SDFG_CACHE_DIR pointing at
        the copy."""
        args = _normalise(self.bind(args, {}), self.fn)
        key, symbolic = self._symbolic_key(args)
        return self._build(args, key, symbolic=symbolic)[0]

    def _build(self, args, key, autodiff=None, symbolic=frozenset()):
        """Compiles the library for `args` into the cache unless it is
        there; returns (its directory, its meta). With `autodiff` =
        (output, wrt, plan, unit_seed, with_value, (while capacity, data
        loop capacity)), the library holds the gradient program."""
        return self._find_or_build(args, key, autodiff, symbolic)[:2]

    def _find_or_build(self, args, key, autodiff=None, symbolic=frozenset()):
        """_build's (directory, meta), and whether this call compiled it.
        The entry's name is the digest of everything that decides the
        generated code (cache_key.digest adds the frontend's and the tools'
        versions and the processor)."""
        digest = cache_key.digest(self._source, key, autodiff, self.device,
                                  self.check_indices, sorted(symbolic))
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
        tr = translate(self.fn, args, device=self.device, symbolic=symbolic)
        stages = [("translate", time.perf_counter() - start)]
        source = tr.text
        name = tr.name
        if isinstance(autodiff, ForwardMode):
            # `of=`: the module also holds the programs of custom_vjp
            # functions, which are not differentiated.
            passes, of = [], f"of={name} "
            if autodiff.reverse is not None:
                out, grad_wrt = autodiff.reverse
                # The gradient program (store-all, its own unit seed, no
                # forward results kept), then its tangent program. Without
                # strong zeros: `select(adjoint == 0, 0, ...)` is not
                # differentiable in the adjoint, and its tangent would
                # vanish wherever an adjoint is exactly zero (a 0 label
                # times a log-probability) instead of where it stays zero.
                passes.append(f"--sdfg-autodiff=of={name} output={out} "
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
            passes += [f"--sdfg-autodiff=of={tr.name} output={out} "
                       f"wrt={','.join(wrt)} "
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
                # Whether some argument is a dict, tuple or list: a call
                # passes their leaves (pytrees.py).
                "trees": pytrees.has_nodes(args),
                "return_tree": tr.signature.return_tree,
                "returns_tuple": tr.signature.returns_tuple,
                "returns_none": tr.signature.returns_none,
                # [output, hidden output holding its first extent]: an
                # array whose length the data gives (pytrees.cut_lengths).
                "lengths": getattr(tr.signature, "lengths", []),
                "index_checks": [list(c) for c in
                                 tr.signature.index_checks],
                "globals": tr.signature.globals,
                "linalg_sites": [list(site) for site in
                                 tr.signature.linalg_sites],
                # What its print calls print (call_checks.print_log).
                "print_sites": tr.signature.print_sites,
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

    def _load_or_build(self, args, key, autodiff=None, symbolic=frozenset()):
        """The loaded library for `args` (see _build). Its program.so is
        checked against the entry's record right before it is loaded; one
        that changed since is compiled again. A library this call
        compiled that cannot be loaded is not left in the cache."""
        if self.device == "gpu":
            native.gpu_runtime()  # DeviceError now, not a failed dlopen
        for attempt in range(2):
            directory, meta, built = self._find_or_build(args, key, autodiff,
                                                         symbolic)
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
            return LoadedProgram(module, meta, self.fn)

    def __call__(self, *args, **kwargs):
        given = self.bind(args, kwargs)
        args = _normalise(given, self.fn)
        entry = self.compile(*args)
        # `given`: the caller's arrays, which the program's writes reach
        # and which a returned argument is.
        return entry.call(args, given)


_DEVICES = ("cpu", "gpu", "gpu-emulator")

# Whether array extents and size ints may be symbols
# (frontend/symbolic_sizes.py); $SDFG_SYMBOLIC_SHAPES=0 when the module is
# imported compiles every shape in, whatever `dynamic` says (for comparing
# and for telling whether a problem comes from the symbols).
_SYMBOLIC_SHAPES = os.environ.get("SDFG_SYMBOLIC_SHAPES", "1")[:1] != "0"


def _checkpoint_option(mem, strategy, recompute, checkpoints=(), sizes=()):
    parts = [f"strategy={strategy}"]
    if mem is not None:
        parts.append(f"mem={float(mem)!r}MiB")
    if recompute:
        parts.append("recompute=" + ",".join(recompute))
    if checkpoints:
        parts.append("checkpoints=" + ",".join(f"{k}={v}"
                                               for k, v in checkpoints))
    if sizes:
        parts.append("sizes=" + ",".join(sizes))
    return "--sdfg-checkpoint=" + " ".join(parts)


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


def _is_int(v):
    return isinstance(v, (int, np.integer)) and \
        not isinstance(v, (bool, np.bool_))


def _extents(v):
    """An array's shape, an int as a 1-d one (shape_pattern's input)."""
    return v.shape if type(v) is np.ndarray else (int(v),)


def _symbolic_array(v):
    """Whether array argument (or leaf) `v` may have size symbols: one
    with an extent of MIN_SYMBOLIC_EXTENT or more (a complex one's
    trailing axis of 2, which is not in its shape, stays compiled in)."""
    return type(v) is np.ndarray and \
        any(e >= MIN_SYMBOLIC_EXTENT for e in v.shape)


def _tree_leaves(name, tree):
    """(path, leaf) of pytree argument `name`; none where its keys cannot
    name parameters (the translation reports that, located)."""
    try:
        return list(pytrees.leaves(name, tree))
    except TypeError:
        return []


def program(fn: Optional[Callable] = None, device: str = "cpu",
            check_indices: bool = True, *, source: Optional[str] = None,
            name: Optional[str] = None,
            static_argnames: Sequence[str] = (),
            dynamic: Optional[bool] = None) -> Any:
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
    an index outside its array then reads or writes outside it, as in C.

    An int argument used only as a bound of `for ... in range(...)` loops
    (a time loop's step count) is a symbol of the compiled program: calls
    with other values reuse it. Other ints, and those named in
    `static_argnames` (as JAX's), are compiled in: each value compiles
    once.

    Array extents (of 8 or more) are size symbols as torch.compile's
    `dynamic` makes them: with dynamic=None a signature's first shapes are
    compiled in and a call with other shapes compiles one program for all
    of them (per pattern of equal extents: docs/design/symbolic-sizes.md);
    dynamic=True uses symbols from the first call, dynamic=False compiles
    every shape in, as do arrays named in `static_argnames`."""
    if source is not None:
        if fn is not None:
            raise TypeError("sdfg.program takes a function or source=, "
                            "not both")
        fn = from_source(source, name)
    elif name is not None:
        raise TypeError("name= chooses a function of source=")
    if fn is None:
        return lambda f: program(f, device, check_indices,
                                 static_argnames=static_argnames,
                                 dynamic=dynamic)
    from .gradients import Gradient
    if isinstance(fn, Gradient):
        # Its source is that of the function it differentiates (it wraps
        # it): compiling it would silently compile that function instead.
        raise TypeError(
            f"sdfg.program takes a Python function, not a gradient "
            f"({getattr(fn, '__name__', 'this')} is an sdfg.grad, "
            "value_and_grad or vjp object, compiled when it is called: "
            "call it directly)")
    if isinstance(fn, Program):
        if fn.device == device and fn.check_indices == check_indices and \
                fn.static_argnames == tuple(static_argnames) and \
                fn.dynamic == dynamic:
            return fn
        fn = fn.fn
    return Program(fn, device, check_indices, static_argnames, dynamic)


def to_mlir(fn: Callable, *args: Any, device: str = "cpu") -> str:
    """The sdfg-dialect text of `fn` specialised for `args` (map schedules
    chosen for `device`)."""
    return program(fn, device).to_mlir(*args)
