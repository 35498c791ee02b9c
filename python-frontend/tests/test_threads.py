"""OpenMP worker spin time (native.NativeModule.set_spin), set before each
call of a forward or gradient program: 20 ms for programs without BLAS
calls, 1 ms for those with them, whatever KMP_BLOCKTIME says if it is set.
Run in child processes: libomp keeps the setting for the calling thread."""

import os
import subprocess
import sys

import pytest

from sdfg import native

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = """
import ctypes, numpy as np, sdfg

@sdfg.program
def double(x):
    return 2.0 * x

@sdfg.program
def product(a, b):
    return 2.0 * (a @ b)

def blocktime(prog, *args):
    prog(*args)
    return ctypes.CDLL(prog.compile(*args).module.library_path
                       ).kmp_get_blocktime()

def total(x):
    return np.sum(np.exp(x))

m = np.ones((8, 8))
print(blocktime(double, np.ones(8)), blocktime(product, m, m))
gt = sdfg.grad(total, ["x"])
gt(np.ones(8))
print(ctypes.CDLL(gt._checked[next(iter(gt._checked))][0].module.library_path
                  ).kmp_get_blocktime())
gp = sdfg.grad(product, ["a"])
gp(m, m)
print(ctypes.CDLL(gp._checked[next(iter(gp._checked))][0].module.library_path
                  ).kmp_get_blocktime())
"""


def _blocktimes(env, tmp_path):
    # A file, not -c: the frontend reads the functions' source.
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    out = subprocess.run([sys.executable, str(probe)], cwd=FRONTEND,
                         env=dict(env, PYTHONPATH=FRONTEND),
                         capture_output=True, text=True, check=True)
    return tuple(int(v) for v in out.stdout.split())


@pytest.fixture
def clean_env(tmp_path):
    env = dict(os.environ, SDFG_CACHE_DIR=str(tmp_path))
    env.pop("KMP_BLOCKTIME", None)
    return env


def test_spin_by_program(clean_env, tmp_path):
    assert (native.OMP_SPIN_MS, native.OMP_SPIN_MS_WITH_BLAS) == (20, 1)
    assert _blocktimes(clean_env, tmp_path) == (20, 1, 20, 1)


def test_environment_wins(clean_env, tmp_path):
    assert _blocktimes(dict(clean_env, KMP_BLOCKTIME="7"),
                      tmp_path) == (7, 7, 7, 7)
