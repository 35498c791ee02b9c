"""Print the sdfg dialect of a NumPy function.

    python -m sdfg FILE FUNCTION [ARG ...]

Each ARG describes one argument: an array as DTYPE[D0,D1,...] (for example
float64[100,100]), an int as its value (20), a float as a value with a
decimal point (1.5), a bool as true/false. The output can be fed to
sdfg-opt and sdfg-translate.
"""

import argparse
import importlib.util
import os
import re
import sys

import numpy as np

from .errors import FrontendError
from .program import to_mlir

_ARRAY = re.compile(r"^(float64|float32|int64|int32|bool)\[([0-9, ]*)\]$")


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


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m sdfg",
        description="Print the sdfg dialect of a NumPy function.")
    parser.add_argument("file", help="Python file defining the function")
    parser.add_argument("function", help="name of the function")
    parser.add_argument("args", nargs="*", type=parse_arg,
                        help="argument descriptions, e.g. float64[10,10] 5")
    ns = parser.parse_args(argv)
    if not os.path.exists(ns.file):
        print(f"python -m sdfg: error: no such file: {ns.file}",
              file=sys.stderr)
        return 1
    spec = importlib.util.spec_from_file_location("_sdfg_cli_module",
                                                  ns.file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, ns.function, None)
    if fn is None or not callable(fn):
        print(f"python -m sdfg: error: {ns.file} defines no function "
              f"'{ns.function}'", file=sys.stderr)
        return 1
    fn = getattr(fn, "fn", fn)  # an sdfg.program-decorated function
    try:
        sys.stdout.write(to_mlir(fn, *ns.args))
    except FrontendError as e:
        print(f"python -m sdfg: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
