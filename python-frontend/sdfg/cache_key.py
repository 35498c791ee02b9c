"""The key of the on-disk cache: everything that changes the generated
code of a compiled program (see cache.py for the entries it names).

The function's source, the signature of the call (`arg_key`), what the
function and every function it reaches read from outside (globals,
module attributes, closure cells, default and keyword-only default
values: `global_refs`, `global_state`, `function_key`), the options of
the build, the frontend's sources and the compiler binaries (by
content), and the processor the code is built for (`digest`).
"""

import dis
import functools
import hashlib
import inspect
import json
import os
import platform
import types

import numpy as np

from . import native, pytrees

# Part of every key: a change of the layout or of what the key holds
# must not find entries an older version wrote.
VERSION = "9"

# ---------------------------------------------------------------------------
# The key
# ---------------------------------------------------------------------------

def arg_key(value):
    """The part of the key one argument of a call decides: an array's
    dtype and shape, an int's or bool's value (compiled in), a float's
    dtype."""
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
    if pytrees.is_node(value):
        # A dict, tuple or list of them (a pytree): its structure, keys
        # and order included, with each leaf's key.
        return pytrees.structure(value, arg_key)
    return ("other", type(value).__name__)


_MISSING = object()


def _unwrap(v):
    """The function an @sdfg.program `v` wraps (the frontend inlines
    that), else `v`."""
    if type(v).__name__ == "Program" and \
            type(v).__module__ == "sdfg.program":
        return v.fn
    return v


def _is_own_function(v):
    """A Python function the frontend inlines (its source, defaults and
    closure are then part of the program), not one of NumPy's or ours,
    which it translates by name."""
    if not isinstance(v, types.FunctionType):
        return False
    module = getattr(v, "__module__", None) or ""
    return not (module.split(".")[0] == "numpy" or
                module.startswith("sdfg."))


def _loaded_globals(code):
    """The names `code` and the code nested in it (lambdas,
    comprehensions, inner functions) read as globals or builtins."""
    names = set()
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            names.add(ins.argval)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _loaded_globals(c)
    return names


def _code_names(code):
    """Every name `code` and its nested code use (globals, attributes)."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def global_refs(fn):
    """(scope, name) of each value outside `fn` that the translation of
    `fn` may read: the globals and closure cells of `fn`, of its nested
    code and of every Python function it reaches (called by name, held by
    a closure cell, an attribute of one of the program's modules), the
    attributes of those modules that the code names, and the global
    names it reads that hold nothing now (a later definition of one
    would change what they mean). `scope` is a module's dict or a
    closure cell. Constants are compiled in and arrays become parameters
    of their shape (Translator.global_array), so what each holds is part
    of the key (global_state)."""
    refs, seen = [], set()

    def module(m, names, depth):
        """`params.W`, `pkg.sub.C`: the attributes of a module of the
        program's own that the code names (packages a few levels down)."""
        if m.__name__.split(".")[0] in ("numpy", "sdfg", "math",
                                        "builtins") or depth == 0 or \
                id(m) in seen:
            return
        seen.add(id(m))
        for attr in sorted(names):
            if attr not in m.__dict__:
                continue
            a = _unwrap(m.__dict__[attr])
            refs.append((m.__dict__, attr))
            if isinstance(a, types.ModuleType):
                module(a, names, depth - 1)
            elif _is_own_function(a):
                visit(a)

    def value(v, names):
        v = _unwrap(v)
        rule = _custom_vjp_parts(v)
        if rule is not None:
            # An sdfg.custom_vjp: its function, fwd and bwd are compiled.
            for f in rule:
                if _is_own_function(f):
                    visit(f)
            return
        if isinstance(v, types.ModuleType):
            module(v, names, 3)
        elif _is_own_function(v):
            visit(v)
        elif isinstance(v, (tuple, list)):
            for x in v:
                if isinstance(x, (types.ModuleType, types.FunctionType)):
                    value(x, names)

    def visit(f):
        if id(f) in seen:
            return
        seen.add(id(f))
        code = f.__code__
        names = _code_names(code)
        for name, cell in zip(code.co_freevars, f.__closure__ or ()):
            try:
                v = cell.cell_contents
            except ValueError:  # not assigned yet
                continue
            refs.append((cell, name))
            value(v, names)
        for name in sorted(_loaded_globals(code)):
            refs.append((f.__globals__, name))
            if name in f.__globals__:
                value(f.__globals__[name], names)

    visit(fn)
    return refs


def value_of(scope, name):
    """What `name` holds in `scope` (a dict or a closure cell) now;
    _MISSING where nothing."""
    if type(scope) is dict:
        return scope.get(name, _MISSING)
    try:
        return scope.cell_contents
    except ValueError:
        return _MISSING


def global_state(refs):
    """The key of what `refs` (global_refs) hold now."""
    return tuple(value_key(value_of(scope, name)) for scope, name in refs)


def reached(refs):
    """What global_refs found by following `refs`' values: the values
    that are not plain data, and for functions their code and defaults,
    to be compared by identity at each call (`moved`)."""
    out = []
    for scope, name in refs:
        v = value_of(scope, name)
        u = _unwrap(v)
        if v is _MISSING or isinstance(u, (types.FunctionType,
                                           types.ModuleType, tuple, list)) \
                or _custom_vjp_parts(u) is not None:
            out.append((scope, name, v, _identity(u)))
    return out


def _identity(v):
    if isinstance(v, types.FunctionType):
        return (v.__code__, v.__defaults__, v.__kwdefaults__)
    rule = _custom_vjp_parts(v)
    if rule is not None:
        # defvjp again gives other functions to follow.
        return rule
    return None


def _custom_vjp_parts(v):
    """(fun, fwd, bwd) of an sdfg.custom_vjp object, else None."""
    try:
        return v.__sdfg_custom_vjp__
    except Exception:  # any object: only ours has it
        return None


def moved(reach):
    """Whether a value `reached` recorded is no longer there (a name
    rebound to another function, module or tuple; a function given other
    code or defaults): what the program reads must then be found again."""
    for scope, name, v, ident in reach:
        now = value_of(scope, name)
        if now is not v:
            return True
        if ident is not None:
            u = _unwrap(now)
            if any(a is not b for a, b in zip(_identity(u), ident)):
                return True
    return False


_PLAIN = (int, float, bool, str, type(None))


def value_key(v, seen=None):
    """The part of the key a value read from outside the function
    decides: an array's dtype and shape (arrays are parameters), a
    function's source digest, defaults and closure (function_key), a
    module's name, a NumPy or math function's name, another value's type
    and repr (tuples and lists item by item where they hold more than
    plain numbers and strings)."""
    t = type(v)
    if t in _PLAIN:
        return repr(v)
    if t is types.ModuleType:
        return ("module", v.__name__)
    if v is _MISSING:
        return "<missing>"
    if t is tuple or t is list:
        if all(type(x) in _PLAIN for x in v):
            return (t.__name__, repr(v))
        return (t.__name__,) + tuple(value_key(x, seen) for x in v)
    if isinstance(v, np.ndarray):
        return arg_key(v)
    if isinstance(v, np.generic):
        return ("scalar", v.dtype.str, repr(v.item()))
    v = _unwrap(v)
    if isinstance(v, types.ModuleType):
        return ("module", v.__name__)
    if _is_own_function(v):
        return function_key(v, seen)
    rule = _custom_vjp_parts(v)
    if rule is not None:
        return ("custom_vjp",) + tuple(
            function_key(f, seen) if _is_own_function(f) else repr(f)
            for f in rule)
    if callable(v):
        # NumPy's functions and ufuncs, math's, builtins, scalar types:
        # translated by what they are, which their name says.
        return ("callable", type(v).__name__,
                getattr(v, "__module__", None),
                getattr(v, "__qualname__", None) or
                getattr(v, "__name__", None))
    if t.__repr__ is object.__repr__:
        # Its repr is only its address, which says nothing the frontend
        # reads (and would differ in every process).
        return (t.__module__, t.__qualname__)
    try:
        return (t.__module__, t.__qualname__, repr(v))
    except Exception:  # a repr that fails: no key is shared for it
        return (t.__module__, t.__qualname__, id(v))


def function_key(f, seen=None):
    """A Python function the program inlines: its source's digest, its
    default and keyword-only default values, and what its closure cells
    hold (functions among them in turn): a call that leaves a parameter
    out compiles its default in, and `def make(k): def h(z, k=k)` makes
    functions of one source that differ only there."""
    seen = set() if seen is None else seen
    if id(f) in seen:
        return ("function", code_digest(f.__code__))
    seen.add(id(f))
    code = f.__code__
    key = ["function", code_digest(code)]
    if f.__defaults__:
        key.append(("defaults",) + tuple(value_key(d, seen)
                                         for d in f.__defaults__))
    if f.__kwdefaults__:
        key.append(("kwdefaults",) + tuple(
            (k, value_key(d, seen))
            for k, d in sorted(f.__kwdefaults__.items())))
    for name, cell in zip(code.co_freevars, f.__closure__ or ()):
        try:
            c = cell.cell_contents
        except ValueError:
            continue
        key.append((name, value_key(c, seen)))
    return tuple(key)


def defaults_state(fn):
    """The default and keyword-only default values of the program's own
    function (Program.bind completes a call with them)."""
    d, kw = fn.__defaults__, getattr(fn, "__kwdefaults__", None)
    if not d and not kw:
        return ()
    return (("defaults",) + tuple(value_key(v) for v in d or ()),
            ("kwdefaults",) + tuple((k, value_key(v))
                                    for k, v in sorted((kw or {}).items())))


_CODE_DIGESTS = {}


def code_digest(code):
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


@functools.lru_cache(maxsize=None)
def frontend_stamp():
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


def tool_stamp():
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


@functools.lru_cache(maxsize=None)
def _host_stamp():
    """This machine's processor (model and features): code built for
    "host" uses all its features, and a cache shared with a machine of
    another processor (a home directory on NFS) must not hand that one
    instructions it lacks."""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read().split("\n\n")[0]
        lines = [ln for ln in text.splitlines()
                 if ln.split(":")[0].strip() in
                 ("vendor_id", "model name", "flags", "Features",
                  "CPU implementer", "CPU part")]
    except OSError:
        lines = []
    lines.append(platform.machine() + " " + platform.processor())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def target_stamp():
    """The processor the code is built for: $SDFG_TARGET_CPU by name,
    "host" by what this machine's processor is."""
    cpu = native.target_cpu()
    return cpu if cpu != "host" else "host:" + _host_stamp()


def digest(*parts):
    """The name of the entry for a build that `parts` (the function's
    source, the call's key, the build's options) describe, with this
    version of the frontend and the tools for this processor."""
    text = json.dumps([VERSION, tool_stamp(), frontend_stamp(),
                       target_stamp()] + [repr(p) for p in parts])
    return hashlib.sha256(text.encode()).hexdigest()[:32]
