"""Print the sdfg dialect of a NumPy function; draw it; show or empty
the cache.

    python -m sdfg FILE FUNCTION [ARG ...]
    python -m sdfg show FILE FUNCTION [ARG ...] [--format dot|svg|png]
                   [--wrt NAMES] [--mem MIB] [-o OUT]
    python -m sdfg cache info
    python -m sdfg cache clear

Each ARG describes one argument: an array as DTYPE[D0,D1,...] (for example
float64[100,100]), an int as its value (20), a float as a value with a
decimal point (1.5), a bool as true/false. The output can be fed to
sdfg-opt and sdfg-translate. (A FILE named `cache` is given as ./cache.)

`cache info` prints where the compiled programs are cached
($SDFG_CACHE_DIR), how many there are, their size and the size limit
($SDFG_CACHE_MAX_BYTES); `cache clear` removes them. `show` writes the
program's graph (states, maps, tasklets, memlets; sdfg.graph) to OUT or
stdout: with --wrt the gradient program, with --mem its checkpoint plan
(stored containers green, recomputed ones orange).
"""

import argparse
import importlib.util
import inspect
import os
import re
import sys

import numpy as np

from . import cache
from .errors import CacheError, FrontendError
from .native import ToolError
from .program import to_mlir

_ARRAY = re.compile(r"^(float64|float32|u?int64|u?int32|u?int16|u?int8|bool)"
                    r"\[([0-9, ]*)\]$")


def parse_arg(text):
    m = _ARRAY.match(text)
    if m:
        dims = [int(d) for d in m.group(2).split(",") if d.strip()]
        return np.zeros(dims, dtype=m.group(1))
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"cannot read argument '{text}': expected DTYPE[dims], an int, "
            "a float or true/false")


def _size(n):
    """`n` bytes, and in KiB...TiB where that is shorter."""
    if n < 1024:
        return f"{n} bytes"
    x = n
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        x /= 1024
        if x < 1024 or unit == "TiB":
            return f"{x:.1f} {unit} ({n} bytes)"


def cache_main(argv):
    """`python -m sdfg cache info|clear`."""
    parser = argparse.ArgumentParser(
        prog="python -m sdfg cache",
        description="Show or empty the cache of compiled programs.")
    parser.add_argument("command", choices=("info", "clear"))
    ns = parser.parse_args(argv)
    try:
        if ns.command == "clear":
            n = cache.clear()
            print(f"removed {n} cached program(s) from "
                  f"{cache.configured_dir()}")
            return 0
        info = cache.info()
        limit = info["limit"]
    except (CacheError, ValueError, OSError) as e:
        print(f"python -m sdfg cache: error: {e}", file=sys.stderr)
        return 1
    print(f"location: {info['location']}" +
          ("" if info["exists"] else " (not created yet)"))
    print(f"entries:  {info['entries']}")
    print(f"size:     {_size(info['bytes'])}")
    print(f"limit:    {_size(limit)}, $SDFG_CACHE_MAX_BYTES")
    return 0


def _arity_error(fn, name, args):
    """The message for `args` that do not fit the parameters of `fn`
    (which the command line gives positionally), or None."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in
                  (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    keyword_only = [p.name for p in params if p.kind == p.KEYWORD_ONLY and
                    p.default is p.empty]
    if keyword_only:
        return (f"{name} has keyword-only parameters without defaults "
                f"({', '.join(keyword_only)}), which the command line "
                "cannot give")
    if any(p.kind == p.VAR_POSITIONAL for p in params) or \
            len(required) <= len(args) <= len(positional):
        return None
    if len(required) == len(positional):
        takes = f"{len(positional)} argument" + \
            ("" if len(positional) == 1 else "s")
    else:
        takes = f"{len(required)} to {len(positional)} arguments"
    names = ", ".join(p.name for p in positional)
    return f"{name} takes {takes} ({names}), {len(args)} given"


def _load(file, name):
    """(the function `name` of Python file `file`, None) or (None, an
    error message)."""
    if not os.path.exists(file):
        return None, f"no such file: {file}"
    spec = importlib.util.spec_from_file_location("_sdfg_cli_module", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    if fn is None or not callable(fn):
        return None, f"{file} defines no function '{name}'"
    return getattr(fn, "fn", fn), None  # an sdfg.program-decorated one


def show_main(argv):
    """`python -m sdfg show FILE FUNCTION [ARG ...]`."""
    from .show import FORMATS, graph
    parser = argparse.ArgumentParser(
        prog="python -m sdfg show",
        description="Draw the sdfg graph of a NumPy function (or of its "
                    "gradient program).")
    parser.add_argument("file", help="Python file defining the function")
    parser.add_argument("function", help="name of the function")
    parser.add_argument("args", nargs="*", type=parse_arg,
                        help="argument descriptions, e.g. float64[10,10] 5")
    parser.add_argument("--format", choices=FORMATS, default="dot")
    parser.add_argument("--wrt", help="comma-separated names: draw the "
                        "gradient program with respect to them")
    parser.add_argument("--mem", type=float, help="memory limit (MiB) of "
                        "the gradient's checkpoint plan")
    parser.add_argument("-o", dest="out", help="output file (default: "
                        "stdout; png needs one)")
    ns = parser.parse_args(argv)
    fn, message = _load(ns.file, ns.function)
    if message is None:
        message = _arity_error(fn, ns.function, ns.args)
    if message is None and ns.format == "png" and not ns.out:
        message = "--format png needs -o FILE"
    if message is not None:
        print(f"python -m sdfg show: error: {message}", file=sys.stderr)
        return 1
    try:
        out = graph(fn, *ns.args, format=ns.format, mem=ns.mem,
                    wrt=ns.wrt.split(",") if ns.wrt else None)
    except (FrontendError, ToolError, ValueError) as e:
        print(f"python -m sdfg show: error: {e}", file=sys.stderr)
        return 1
    if ns.out:
        with open(ns.out, "wb" if isinstance(out, bytes) else "w") as f:
            f.write(out)
    else:
        sys.stdout.write(out)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["cache"]:
        return cache_main(argv[1:])
    if argv[:1] == ["show"]:
        return show_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m sdfg",
        description="Print the sdfg dialect of a NumPy function.")
    parser.add_argument("file", help="Python file defining the function")
    parser.add_argument("function", help="name of the function")
    parser.add_argument("args", nargs="*", type=parse_arg,
                        help="argument descriptions, e.g. float64[10,10] 5")
    ns = parser.parse_args(argv)
    fn, message = _load(ns.file, ns.function)
    if message is None:
        message = _arity_error(fn, ns.function, ns.args)
    if message is not None:
        print(f"python -m sdfg: error: {message}", file=sys.stderr)
        return 1
    try:
        sys.stdout.write(to_mlir(fn, *ns.args))
    except FrontendError as e:
        print(f"python -m sdfg: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
