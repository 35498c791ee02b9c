"""The compiler's scheduling policy, as the tools state it.

The frontend makes the same choices the compiler's transforms make (a map
of at least so many iterations runs on every core) and follows the
dialect's region rules (which ops need a state around them), so it asks
the tools once per process (`sdfg-opt --print-policy`, from SchedulePolicy.h) rather
than keeping a copy that could drift. The compiled-program cache keys on
the tools' hashes (cache_key.py), so a changed policy recompiles.
"""

import functools
import json
import subprocess

from . import native


@functools.lru_cache(maxsize=None)
def _policy() -> dict:
    proc = subprocess.run([native._tool("sdfg-opt"), "--print-policy"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise native.ToolError("sdfg-opt --print-policy failed: "
                               + proc.stderr.strip())
    return json.loads(proc.stdout)


def parallel_map_iterations() -> int:
    """A map of at least this many iterations runs on every core."""
    return int(_policy()["parallel_map_iterations"])


@functools.lru_cache(maxsize=None)
def dataflow_only_ops() -> tuple:
    """The sdfg ops that may appear only in states and maps (the dialect's
    region rules): the emitter opens a state around them."""
    return tuple(_policy()["dataflow_only_ops"])
