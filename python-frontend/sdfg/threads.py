"""How many threads compiled programs run on: `sdfg.set_num_threads(n)` and
`sdfg.get_num_threads()`, after PyTorch's functions of those names, with
SDFG_NUM_THREADS in the environment as the initial setting; where no count
is set anywhere (OMP_NUM_THREADS neither), as many as other processes
leave cores free (`automatic`).

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
import time

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


# How often the load of the other processes is measured, in seconds:
# /proc/stat counts in 10 ms ticks, so shorter windows are mostly noise.
LOAD_WINDOW_S = 0.2


class _Load:
    """The last sample: when, the busy ticks of our CPUs, our own CPU
    seconds, and the count decided from the window before it."""
    at = None
    busy = 0
    own = 0.0
    decision = None


def _busy_ticks(cpus):
    """Ticks the CPUs `cpus` spent busy (user, nice, system, irq, softirq,
    steal: time a hypervisor gave to others counts too), or None."""
    try:
        with open("/proc/stat") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    busy = 0
    for line in lines:
        if not line.startswith("cpu") or line.startswith("cpu "):
            continue
        name, *fields = line.split()
        try:
            if int(name[3:]) not in cpus:
                continue
            f = [int(x) for x in fields[:8]]
        except ValueError:
            return None
        busy += f[0] + f[1] + f[2] + f[5] + f[6] + f[7]
    return busy


def automatic():
    """The thread count for the next call where none is set: the cores
    this process may use, less the cores other processes kept busy over
    the last LOAD_WINDOW_S or more (its own threads' time is subtracted),
    at least 1; None where a count is set (set_num_threads,
    SDFG_NUM_THREADS or OMP_NUM_THREADS: that count holds) or the load
    cannot be read. With a team as large as the cores, one that another
    process keeps busy makes every parallel region wait for the thread
    that shares it: measured on 2 cores with one busy process
    (benchmarks/under_load.py), fdtd_2d's gradient ran 9.9x slower than
    unloaded on 2 threads and 1.2x with this count, jacobi_2d 4.4x and
    1.2x."""
    if requested() is not None or os.environ.get("OMP_NUM_THREADS"):
        return None
    now = time.monotonic()
    if _Load.at is not None and now - _Load.at < LOAD_WINDOW_S:
        return _Load.decision
    try:
        cpus = os.sched_getaffinity(0)
    except AttributeError:  # not Linux
        return None
    busy = _busy_ticks(cpus)
    if busy is None:
        return None
    t = os.times()
    own = t.user + t.system
    if _Load.at is not None:
        wall = now - _Load.at
        others = ((busy - _Load.busy) / _TICKS_PER_S - (own - _Load.own)) \
            / wall
        _Load.decision = max(1, min(len(cpus),
                                    int(len(cpus) - others + 0.5)))
    _Load.at, _Load.busy, _Load.own = now, busy, own
    return _Load.decision


_TICKS_PER_S = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

