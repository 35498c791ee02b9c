"""Outcomes that must not depend on the last bits of a BLAS/LAPACK result,
which differ between CPUs (OpenBLAS picks its kernels by processor). Here
the gradient of np.linalg.qr: A rank-deficient matrix's R has a diagonal
entry that is a rounding error, exactly zero with some kernels and
~1e-16 with others; the gradient raises LinAlgError for it with every
kernel (the rule counts |R_kk| <= max|R_kk| * max(m, n) * eps as zero,
NumPy's matrix_rank cutoff), and stays finite for a full-rank matrix,
however ill-conditioned."""

import os
import subprocess
import sys

import numpy as np
import pytest

import sdfg
from sdfg import blas

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def qr_r_part(A):
    R = np.linalg.qr(A, mode="r")
    return np.sum(R ** 2 * np.arange(A.shape[1]))


def qr_q_part(A):
    Q, R = np.linalg.qr(A)
    return np.sum(Q * np.arange(A.shape[1]))


def rank_deficient(rng):
    """Matrices of rank below their column count whatever the rounding:
    a column a multiple of another (R's entry is then a rounding error)
    or zero (R's entry exactly zero)."""
    a, b = rng.standard_normal((6, 1)), rng.standard_normal((6, 1))
    return {"multiple": np.hstack([a, 2.0 * a, b]),
            "multiple_last": np.hstack([a, b, 3.0 * a]),
            "ones": np.hstack([np.ones((4, 1)), 2.0 * np.ones((4, 1))]),
            "zero_column": np.hstack([a, np.zeros((6, 1)), b])}


@pytest.mark.parametrize("fn", [qr_r_part, qr_q_part])
def test_qr_gradient_of_rank_deficient_matrices_raises(fn):
    for name, A in rank_deficient(np.random.default_rng(3)).items():
        assert np.linalg.matrix_rank(A) < A.shape[1], name
        with pytest.raises(np.linalg.LinAlgError, match=r"Singular matrix "
                           r"\(np.linalg.qr at .*test_kernel_independence"):
            sdfg.grad(fn, ["A"])(A)


def test_qr_gradient_of_ill_conditioned_full_rank_matrix():
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((6, 1)), rng.standard_normal((6, 1))
    A = np.hstack([a, a + 1e-7 * rng.standard_normal((6, 1)), b])
    assert np.linalg.matrix_rank(A) == 3 and np.linalg.cond(A) > 1e6
    g = sdfg.grad(qr_r_part, ["A"])(A)["A"]
    d = rng.standard_normal(A.shape)
    h = 1e-6
    fd = (qr_r_part(A + h * d) - qr_r_part(A - h * d)) / (2 * h)
    assert abs(np.sum(g * d) - fd) <= 1e-6 * max(abs(fd), 1.0)


CHILD = """
import numpy as np, sdfg
from test_kernel_independence import qr_r_part, rank_deficient
for name, A in rank_deficient(np.random.default_rng(3)).items():
    try:
        sdfg.grad(qr_r_part, ["A"])(A)
        print(name, "finite")
    except np.linalg.LinAlgError:
        print(name, "raised")
"""


def test_qr_gradient_raises_with_every_kernel_family(tmp_path):
    # The kernel families this CPU can run, oldest first: Nehalem (SSE),
    # Sandybridge (AVX), Haswell (AVX2, FMA), SkylakeX (AVX-512). OpenBLAS
    # reads OPENBLAS_CORETYPE when it is loaded: one process each.
    flags = blas.cpu_flags()
    cores = ["Nehalem"] + [core for core, need in (
        ("Sandybridge", {"avx"}), ("Haswell", {"avx2", "fma"}),
        ("SkylakeX", {"avx512f", "avx512bw", "avx512dq", "avx512vl"}))
        if need <= flags]
    for core in cores:
        env = dict(os.environ, OPENBLAS_CORETYPE=core,
                   PYTHONPATH=os.pathsep.join([FRONTEND, os.path.join(
                       FRONTEND, "tests")]))
        out = subprocess.run([sys.executable, "-c", CHILD], env=env,
                             capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        outcomes = dict(line.split() for line in out.stdout.splitlines())
        assert outcomes == {name: "raised" for name in (
            "multiple", "multiple_last", "ones", "zero_column")}, (core,
                                                                  outcomes)
