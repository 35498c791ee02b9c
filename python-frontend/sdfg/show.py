"""`sdfg.graph` and `python -m sdfg show`: a program as the graph the
DaCe papers draw (states, maps, tasklets, memlets), through
`sdfg-translate --emit=dot`, rendered by Graphviz's `dot` for svg/png."""

import os
import shutil
import subprocess
import tempfile
from typing import Any, Callable, Optional, Sequence, Union

from . import native
from .gradients import grad as _grad
from .program import to_mlir

FORMATS = ("dot", "svg", "png")


def graph(fn: Callable, *args: Any,
          wrt: Union[str, Sequence[str], None] = None,
          output: Any = "return", mem: Optional[float] = None,
          format: str = "dot") -> Union[str, bytes]:
    """The graph of `fn` compiled for `args`: Graphviz text (format="dot")
    or an image ("svg" as text, "png" as bytes; these need Graphviz's
    `dot`). With `wrt` (names), the gradient program sdfg.grad compiles
    (forward and backward sweeps; with `mem`, the checkpoint plan's stored
    containers green and recomputed ones orange)."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    if wrt is None:
        if mem is not None:
            raise ValueError("mem= applies to gradient graphs (give wrt=)")
        text = to_mlir(fn, *args)
    else:
        g = _grad(fn, wrt, output=output, mem=mem)
        directory = g.precompile(*args)
        with open(os.path.join(directory, "input.mlir")) as f:
            text = f.read()
    with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                     delete=False) as f:
        f.write(text)
        path = f.name
    try:
        proc = subprocess.run([native._tool("sdfg-translate"), path,
                               "--emit=dot"], capture_output=True,
                              text=True)
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        raise native.ToolError(proc.stderr.strip())
    dot = proc.stdout
    if format == "dot":
        return dot
    exe = shutil.which("dot")
    if exe is None:
        raise native.ToolError(
            f"format={format!r} needs Graphviz's dot (Debian: apt install "
            "graphviz); format='dot' gives the graph as text")
    out = subprocess.run([exe, f"-T{format}"], input=dot.encode(),
                         capture_output=True)
    if out.returncode != 0:
        raise native.ToolError(out.stderr.decode().strip())
    return out.stdout.decode() if format == "svg" else out.stdout
