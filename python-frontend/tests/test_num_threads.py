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
