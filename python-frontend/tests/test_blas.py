"""OpenBLAS kernel choice (sdfg/blas.py): from the CPU's flags, never over
the user's choice, never after OpenBLAS is loaded."""

import ctypes
import os
import subprocess
import sys

import pytest

from sdfg import blas

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_core_from_flags():
    avx512 = {"sse3", "avx2", "fma", "avx512f", "avx512cd", "avx512bw",
              "avx512dq", "avx512vl"}
    assert blas.core_for(avx512) == "SkylakeX"
    # Xeon Phi style AVX-512 without BW/DQ/VL: not SkylakeX's kernels.
    assert blas.core_for({"avx2", "fma", "avx512f", "avx512cd"}) == "Haswell"
    assert blas.core_for({"avx2", "fma"}) == "Haswell"
    assert blas.core_for({"avx", "sse4_2"}) is None
    assert blas.core_for(set()) is None


def test_flags_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse3 avx2 fma\n"
                    "processor\t: 1\nflags\t\t: fpu\n")
    assert blas.cpu_flags(str(info)) == {"fpu", "sse3", "avx2", "fma"}
    assert blas.cpu_flags(str(tmp_path / "missing")) == set()


def test_which_openblas_counts(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/"
                    "openblas-pthread/libopenblasp-r0.3.21.so\n")
    assert blas.openblas_loaded(str(maps))
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /venv/numpy.libs/"
                    "libscipy_openblas64_-ff651d7f.so\n")
    assert not blas.openblas_loaded(str(maps))


def test_the_users_choice_stands(monkeypatch):
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Haswell")
    assert blas.choose_core() == "Haswell"
    assert os.environ["OPENBLAS_CORETYPE"] == "Haswell"


def test_nothing_is_set_once_openblas_is_loaded(monkeypatch):
    # Loaded (by Debian's numpy already, or here): too late to choose.
    ctypes.CDLL("libopenblas.so.0")
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    assert blas.openblas_loaded()
    assert blas.choose_core() is None
    assert "OPENBLAS_CORETYPE" not in os.environ


@pytest.mark.skipif(blas.core_for(blas.cpu_flags()) is None,
                    reason="a CPU without AVX2: OpenBLAS decides")
def test_importing_sdfg_first_picks_the_kernels():
    script = ("import ctypes, sdfg, numpy\n"
              "lib = ctypes.CDLL('libopenblas.so.0')\n"
              "lib.openblas_get_corename.restype = ctypes.c_char_p\n"
              "print(lib.openblas_get_corename().decode())\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    env["PYTHONPATH"] = FRONTEND
    out = subprocess.run([sys.executable, "-c", script], env=env,
                         capture_output=True, text=True, check=True)
    want = blas.core_for(blas.cpu_flags())
    assert out.stdout.strip().lower() == want.lower()
