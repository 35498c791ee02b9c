"""Parallel reductions into one element (a full np.sum/np.max, a gradient
of a scalar read across a parallel map) are split into 64 fixed chunks
whose partial results are combined in chunk order (MapReductions.cpp):
the same bits with 1, 2 or 3 threads, and as close to the exact value as
NumPy. Run in child processes: OMP_NUM_THREADS is read when libomp
starts."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import sdfg

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROBE = """
import numpy as np, sdfg

def total(x):
    return np.sum(x)

def peak(x):
    return np.max(x), np.min(x)

def f32_total(y):
    return np.sum(y * y)

def scaled(alpha, x):
    return np.sum(np.sin(alpha * x))

def affine(x, w, b, c):
    return np.sum(np.tanh(x * w + b + c[:, None]))

rng = np.random.default_rng(7)
x = rng.standard_normal((300, 301))
y = rng.standard_normal((200, 211)).astype(np.float32)
g = sdfg.grad(scaled, ["alpha"])(1.3, x)["alpha"]
db = sdfg.grad(affine, ["b", "c"])(x, 0.5 * x[0], x[1], x[:, 2])["b"]
print(float(sdfg.program(total)(x)).hex(),
      *(float(v).hex() for v in sdfg.program(peak)(x)),
      float(sdfg.program(f32_total)(y)).hex(), float(g).hex(),
      *(float(v).hex() for v in db))
"""


def _results(threads, tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    env = dict(os.environ, SDFG_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=FRONTEND, OMP_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, str(probe)], cwd=FRONTEND,
                         env=env, capture_output=True, text=True, check=True)
    return [float.fromhex(v) for v in out.stdout.split()]


def test_same_bits_for_any_thread_count(tmp_path):
    one = _results(1, tmp_path)
    assert _results(2, tmp_path) == one
    assert _results(3, tmp_path) == one
    rng = np.random.default_rng(7)
    x = rng.standard_normal((300, 301))
    y = rng.standard_normal((200, 211)).astype(np.float32)
    total, top, bottom, f32_total, galpha = one[:5]
    # A bias's gradient: column sums over rows, which the reversed map
    # (distributed over rows for the row sums of d_c) accumulates in a
    # private copy per chunk of rows.
    db = np.array(one[5:])
    want = np.sum(1.0 - np.tanh(x * (0.5 * x[0]) + x[1] + x[:, 2:3]) ** 2,
                  axis=0)
    np.testing.assert_allclose(db, want, rtol=1e-12)
    assert total == pytest.approx(math.fsum(x.ravel()), rel=1e-12, abs=1e-11)
    assert (top, bottom) == (x.max(), x.min())
    exact = math.fsum(float(v) * float(v) for v in y.ravel())
    assert f32_total == pytest.approx(exact, rel=1e-5)
    assert galpha == pytest.approx(math.fsum((x * np.cos(1.3 * x)).ravel()),
                                   rel=1e-12)


def test_full_reduction_is_parallel(tmp_path, monkeypatch):
    # Above the size where maps fork threads, a full reduction's map is
    # cpu_multicore: the chunked combine is what runs, not a serial loop.
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))

    def total(x):
        return np.sum(x)

    big = sdfg.to_mlir(total, np.ones((300, 301)))
    assert "schedule(cpu_multicore)" in big
    small = sdfg.to_mlir(total, np.ones((30, 31)))
    assert "schedule(cpu_multicore)" not in small


def test_nan_reaches_full_max(tmp_path, monkeypatch):
    # A NaN in any chunk survives the combine of the chunks' maxima.
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))

    def peak(x):
        return np.max(x), np.min(x)

    x = np.random.default_rng(1).standard_normal(100000)
    p = sdfg.program(peak)
    for where in (0, 51234, 99999):
        z = x.copy()
        z[where] = np.nan
        top, bottom = p(z)
        assert np.isnan(top) and np.isnan(bottom)
    assert p(x) == (x.max(), x.min())
