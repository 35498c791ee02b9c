"""OpenMP worker spin time set on loading a program (native._short_omp_spin):
20 ms unless KMP_BLOCKTIME says otherwise. Run in child processes: the
setting belongs to the calling thread and cannot be undone."""

import os
import subprocess
import sys

import pytest

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = """
import ctypes, numpy as np, sdfg
@sdfg.program
def double(x):
    return 2.0 * x
assert double(np.ones(8))[0] == 2.0
lib = ctypes.CDLL(double.compile(np.ones(8)).module.library_path)
print(lib.kmp_get_blocktime())
"""


def _blocktime(env, tmp_path):
    # A file, not -c: the frontend reads the function's source.
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    out = subprocess.run([sys.executable, str(probe)], cwd=FRONTEND,
                         env=dict(env, PYTHONPATH=FRONTEND),
                         capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1])


@pytest.fixture
def clean_env(tmp_path):
    env = dict(os.environ, SDFG_CACHE_DIR=str(tmp_path))
    env.pop("KMP_BLOCKTIME", None)
    return env


def test_default_spin(clean_env, tmp_path):
    from sdfg import native
    assert native.OMP_SPIN_MS == 20
    assert _blocktime(clean_env, tmp_path) == 20


def test_environment_wins(clean_env, tmp_path):
    assert _blocktime(dict(clean_env, KMP_BLOCKTIME="7"), tmp_path) == 7
