"""sdfg.set_num_threads / get_num_threads and SDFG_NUM_THREADS: one count
for the OpenMP team of every calling thread and for OpenBLAS (issue 35)."""

import ctypes
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import sdfg
from sdfg import threads

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def restore():
    before = threads._requested
    yield
    threads._requested = before


def _product(a, b):
    return a @ b + 1.0


def _counts(prog, a, b):
    """After a call from this thread: (OpenMP's team size for this
    thread's next region, OpenBLAS's thread count)."""
    prog(a, b)
    lib = ctypes.CDLL(prog.compile(a, b).module.library_path)
    lib.omp_get_max_threads.restype = ctypes.c_int
    lib.openblas_get_num_threads.restype = ctypes.c_int
    return lib.omp_get_max_threads(), lib.openblas_get_num_threads()


def test_count_reaches_openmp_and_openblas(restore):
    a, b = np.ones((40, 30)), np.ones((30, 20))
    prog = sdfg.program(_product)
    sdfg.set_num_threads(1)
    assert sdfg.get_num_threads() == 1
    assert _counts(prog, a, b) == (1, 1)
    sdfg.set_num_threads(3)
    assert _counts(prog, a, b) == (3, 3)
    np.testing.assert_allclose(prog(a, b), a @ b + 1.0)


def test_count_applies_to_other_calling_threads(restore):
    # OpenMP keeps the count per thread: a thread that never called
    # set_num_threads still runs on the count set.
    a, b = np.ones((40, 30)), np.ones((30, 20))
    prog = sdfg.program(_product)
    prog(a, b)
    sdfg.set_num_threads(2)
    seen = []
    worker = threading.Thread(target=lambda: seen.append(
        _counts(prog, a, b)))
    worker.start()
    worker.join()
    assert seen == [(2, 2)]


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2", None])
def test_bad_count_is_value_error(restore, bad):
    with pytest.raises(ValueError, match="number of threads must be a "
                                         "positive integer"):
        sdfg.set_num_threads(bad)


def test_numpy_integer_count(restore):
    sdfg.set_num_threads(np.int64(2))
    assert sdfg.get_num_threads() == 2 and \
        type(sdfg.get_num_threads()) is int


CHILD = textwrap.dedent("""
    import numpy as np
    import sdfg

    def f(a, b):
        return a @ b

    print(sdfg.get_num_threads())
    try:
        sdfg.program(f)(np.ones((4, 4)), np.ones((4, 4)))
        print("ran")
    except ValueError as e:
        print("ValueError:", e)
""")


def _child(tmp_path, value):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=FRONTEND, SDFG_NUM_THREADS=value)
    return subprocess.run([sys.executable, str(script)], env=env,
                          capture_output=True, text=True, timeout=300)


def test_environment_sets_the_initial_count(tmp_path):
    out = _child(tmp_path, "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "ran"]


def test_malformed_environment_is_named(tmp_path):
    out = _child(tmp_path, "two")
    assert out.returncode == 1
    assert "SDFG_NUM_THREADS must be a positive integer, got 'two'" in \
        out.stderr


class _Clock:
    """Stands in for the load's sources: /proc/stat's busy ticks of our
    CPUs, our process's CPU seconds and the monotonic clock."""

    def __init__(self, monkeypatch):
        self.now, self.busy, self.own = 100.0, 0, 0.0
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
        monkeypatch.delenv("SDFG_NUM_THREADS", raising=False)
        monkeypatch.setattr(threads, "_requested", None)
        monkeypatch.setattr(threads._Load, "at", None)
        monkeypatch.setattr(threads._Load, "decision", None)
        monkeypatch.setattr(threads, "_TICKS_PER_S", 100)
        monkeypatch.setattr(threads.os, "sched_getaffinity",
                            lambda pid: {0, 1, 2, 3})
        monkeypatch.setattr(threads, "_busy_ticks", lambda cpus: self.busy)
        monkeypatch.setattr(threads.time, "monotonic", lambda: self.now)
        monkeypatch.setattr(threads.os, "times", lambda: os.times_result(
            (self.own, 0.0, 0.0, 0.0, 0.0)))

    def window(self, seconds, others, own=0.0):
        """`seconds` pass with other processes busy on `others` cores
        and this one on `own`."""
        self.now += seconds
        self.busy += round((others + own) * seconds * 100)
        self.own += own * seconds


def test_automatic_count_leaves_busy_cores_to_others(monkeypatch):
    clock = _Clock(monkeypatch)
    assert threads.automatic() is None  # the first sample: no window yet
    clock.window(1.0, others=0.0, own=3.7)  # our own work is not load
    assert threads.automatic() == 4
    clock.window(1.0, others=1.0, own=2.0)
    assert threads.automatic() == 3
    clock.window(0.1, others=4.0)  # shorter than LOAD_WINDOW_S: kept
    assert threads.automatic() == 3
    clock.window(1.0, others=2.6)
    assert threads.automatic() == 1
    clock.window(1.0, others=9.0)  # at least one thread
    assert threads.automatic() == 1
    clock.window(1.0, others=0.3)
    assert threads.automatic() == 4


def test_automatic_count_yields_to_any_set_count(monkeypatch):
    clock = _Clock(monkeypatch)
    threads.automatic()
    clock.window(1.0, others=2.0)
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert threads.automatic() is None
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setenv("SDFG_NUM_THREADS", "4")
    assert threads.automatic() is None
    monkeypatch.delenv("SDFG_NUM_THREADS")
    sdfg.set_num_threads(4)
    assert threads.automatic() is None


def test_busy_ticks_reads_only_our_cpus(tmp_path, monkeypatch):
    stat = tmp_path / "stat"
    stat.write_text("cpu  9 9 9 9 9 9 9 9 0 0\n"
                    "cpu0 1 2 3 100 100 4 5 6 0 0\n"
                    "cpu1 10 20 30 100 100 40 50 60 0 0\n"
                    "intr 12345\n")
    real_open = open
    monkeypatch.setattr("builtins.open", lambda path, *a, **k: real_open(
        stat if path == "/proc/stat" else path, *a, **k))
    assert threads._busy_ticks({0}) == 1 + 2 + 3 + 4 + 5 + 6
    assert threads._busy_ticks({0, 1}) == 21 + 210
