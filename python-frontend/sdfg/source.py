"""Where the frontend reads a function's source, and `sdfg.from_source`
for functions that exist only as text (generated code, `exec`).

The translator parses the function's own source text (never its
bytecode), which Python finds through `linecache`: files, IPython and
Jupyter cells (IPython registers each cell's text there) and the texts
`from_source` registers. Functions defined by `python -c` or a bare
`exec` keep no source; they get one message saying what works instead.
"""

import hashlib
import inspect
import linecache
from typing import Any, Callable, Dict, Optional

from .errors import FrontendError


def source_lines(fn):
    """(lines, first line number) of `fn`'s own source (not of what it
    wraps: a decorated wrapper, or an sdfg.grad object, would otherwise
    silently compile the wrapped function); FrontendError where there is
    none."""
    try:
        return inspect.getsourcelines(getattr(fn, "__code__", fn))
    except (OSError, TypeError) as e:
        raise FrontendError(no_source_message(fn, e),
                            source_file(fn)) from None


def source_file(fn):
    """The file (or linecache name: "<ipython-input-...>") `fn` was
    defined in, "<unknown>" where Python does not know."""
    try:
        return inspect.getsourcefile(fn) or _code_file(fn)
    except TypeError:
        return "<unknown>"


def _code_file(fn):
    code = getattr(fn, "__code__", None)
    return getattr(code, "co_filename", None) or "<unknown>"


def no_source_message(fn, error):
    """Why `fn`'s source cannot be read, and what to do instead."""
    name = getattr(fn, "__qualname__", None) or repr(fn)
    where = _code_file(fn)
    if where in ("<string>", "<stdin>") or where.startswith("<"):
        how = ("functions defined by `python -c`, a bare exec() or the "
               "plain interactive interpreter keep no source text")
    else:
        how = f"Python could not read it ({error})"
    return (f"cannot read the source of {name} (defined in {where}): {how}; "
            "the compiler translates source, not bytecode. Define it in a "
            "file, an IPython/Jupyter cell, or pass its text: "
            "sdfg.program(source=TEXT) or sdfg.from_source(TEXT)")


def from_source(text: str, name: Optional[str] = None,
                globals: Optional[Dict[str, Any]] = None) -> Callable:
    """The function `name` defined by Python source `text` (the only
    function it defines when `name` is None), with its source readable by
    the compiler: for generated code, or where `exec` would lose it.

    `text` runs as a module would, in a fresh namespace (or in `globals`,
    which it then updates): it imports what it uses (`import numpy as
    np`). Its name in tracebacks and diagnostics is
    "<sdfg-source-HASH>", HASH of the text, so equal texts share compiled
    programs in the cache."""
    if not isinstance(text, str):
        raise TypeError(f"source must be a str of Python code, not "
                        f"{type(text).__name__}")
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    filename = f"<sdfg-source-{digest}>"
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    # mtime None: linecache.checkcache keeps entries with no file behind
    # them (as IPython's cells are kept).
    linecache.cache[filename] = (len(text), None, lines, filename)
    try:
        code = compile(text, filename, "exec")
    except SyntaxError as e:
        raise FrontendError(f"source does not parse: {e.msg}",
                            filename, e.lineno or 0) from None
    scope = {"__name__": f"sdfg_source_{digest}"} if globals is None \
        else globals
    exec(code, scope)
    functions = {k: v for k, v in scope.items()
                 if inspect.isfunction(v) and
                 v.__code__.co_filename == filename}
    if name is not None:
        if name not in functions:
            raise FrontendError(
                f"source defines no function named {name!r} (it defines "
                f"{', '.join(sorted(functions)) or 'none'})", filename)
        return functions[name]
    if len(functions) != 1:
        raise FrontendError(
            f"source defines {len(functions)} functions "
            f"({', '.join(sorted(functions)) or 'none'}); choose one "
            "with name=", filename)
    return next(iter(functions.values()))
