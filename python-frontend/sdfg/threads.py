"""How many threads compiled programs run on: `sdfg.set_num_threads(n)` and
`sdfg.get_num_threads()`, after PyTorch's functions of those names, with
SDFG_NUM_THREADS in the environment as the initial setting.

One count for both runtimes a program uses: OpenMP's team for its parallel
maps and OpenBLAS's threads for its matrix products (two pools of two
threads each on a 2-core machine compete for the cores whenever a BLAS
call follows a parallel region). OpenMP keeps the count per calling
thread, so it is applied before each call from any thread whose last
setting differs; OpenBLAS keeps one count for the process (NumPy's BLAS
included, where NumPy uses the system's OpenBLAS, as torch.set_num_threads
does for PyTorch's). Unset, OpenMP and OpenBLAS decide (OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS, else one thread per core).
"""

import os

import numpy as np

_requested = None


def _positive(n, what):
    """`n` as an int: Python's or NumPy's integers, not bools or floats."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"{what} must be a positive integer, got {n!r}")
    n = int(n)
    if n < 1:
        raise ValueError(f"{what} must be a positive integer, got {n}")
    return n


def set_num_threads(n):
    """Runs the parallel maps and the BLAS calls of compiled programs on
    `n` threads from now on (ValueError unless n is a positive integer)."""
    global _requested
    _requested = _positive(n, "the number of threads")


def requested():
    """The count set by set_num_threads or SDFG_NUM_THREADS, or None. A
    malformed SDFG_NUM_THREADS is a ValueError naming it (at the first
    call of a program, not at import)."""
    if _requested is not None:
        return _requested
    value = os.environ.get("SDFG_NUM_THREADS")
    if value is None or value == "":
        return None
    try:
        parsed = int(value)
    except ValueError:
        parsed = value
    return _positive(parsed, "SDFG_NUM_THREADS")


def get_num_threads():
    """The threads compiled programs run on: the count set, else the
    first of OMP_NUM_THREADS, else the cores this process may use."""
    n = requested()
    if n is not None:
        return n
    first = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if first.isdigit() and int(first) > 0:
        return int(first)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
