"""Benchmark sizes of the corpus kernels for the peer comparison.

SIZES[name]["S"] and SIZES[name]["L"] are functions rng -> tuple of
arguments with exactly the argument kinds of the NumPy kernel in
python-frontend/tests/corpus/kernels.py (float64 arrays, float32 where the
corpus uses float32, Python ints for sizes and time steps, Python floats for
scalars), built with the corpus's own input helpers so inputs stay well
conditioned.

* "S" (small): quick; the NumPy kernel runs in roughly 1-20 ms.
* "L" (large): the NPBench "paper" preset where a 2-core machine with
  24 GiB allows it, else the largest size that keeps the NumPy forward
  at about 2 s or less (a few seconds for kernels that loop over elements
  in Python) and keeps every store-all gradient (time steps x array size)
  under about 3 GiB. Where L differs from the paper preset, the comment
  says why.

WRT[name] lists the float ndarray arguments (the gradient is taken w.r.t.
all of them), OUTPUT[name] the output spec of test_gradients._output_spec
("return", "return:0" or the name of the argument updated in place) and
DOMAIN[name] a coarse domain label.
"""

import inspect
import math
import os
import sys

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
for _p in (os.path.join(_ROOT, "python-frontend", "tests"),
           os.path.join(_ROOT, "python-frontend")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from corpus import kernels as K  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402

try:
    from test_gradients import _output_spec  # noqa: E402
except ImportError:  # test_gradients needs pytest; the peer venv lacks it
    import copy

    def _output_spec(fn, args):
        """Copy of test_gradients._output_spec: the first float result,
        else the first float argument updated in place."""
        run = copy.deepcopy(args)
        r = fn(*run)
        if r is not None:
            first = r[0] if isinstance(r, tuple) else r
            if np.asarray(first).dtype.kind == "f":
                return "return:0" if isinstance(r, tuple) else "return"
        names = list(inspect.signature(fn).parameters)
        for n, before, after in zip(names, args, run):
            if isinstance(before, np.ndarray) and before.dtype.kind == "f" \
                    and not np.array_equal(before, after):
                return n
        return None


# --------------------------------------------------------------------------
# Input generators (argument order of the NumPy kernels)
# --------------------------------------------------------------------------

def _jacobi_1d(N, T):
    return lambda rng: (T, rng.random(N), rng.random(N))


def _jacobi_2d(N, T):
    return lambda rng: (T, rng.random((N, N)), rng.random((N, N)))


def _heat_3d(N, T):
    return lambda rng: (T, rng.random((N, N, N)), rng.random((N, N, N)))


def _seidel_2d(N, T):
    return lambda rng: (rng.random((N, N)), T)


def _fdtd_2d(NX, NY, T):
    return lambda rng: (T, rng.random((NX, NY)), rng.random((NX, NY)),
                        rng.random((NX, NY)), rng.random(T))


def _adi(N, T):
    return lambda rng: (T, rng.random((N, N)))


def _heat_1d_bc(N, T):
    return lambda rng: (rng.random(N), 0.25, T, 2)


def _cavity_flow(n, nt, nit):
    # NPBench's initialisation: fluid at rest, dx = 2 / (n - 1) and
    # dt = 0.1 / ((nx - 1) (ny - 1)).
    def inputs(rng):
        d = 2.0 / (n - 1)
        return (n, n, nt, nit, np.zeros((n, n)), np.zeros((n, n)),
                0.1 / ((n - 1) * (n - 1)), d, d, np.zeros((n, n)), 1.0, 0.1)
    return inputs


def _hdiff(I, J, KK):
    return lambda rng: (rng.random((I + 4, J + 4, KK)), np.zeros((I, J, KK)),
                        rng.random((I, J, KK)))


def _vadv(I, J, KK):
    return lambda rng: (rng.random((I, J, KK)), rng.random((I, J, KK)),
                        rng.random((I + 1, J, KK)), rng.random((I, J, KK)),
                        rng.random((I, J, KK)), 3.0)


def _minmod_advection(N, T):
    return lambda rng: (rng.random(N), 0.5, T)


def _gramschmidt(M, N):
    def inputs(rng):
        A = rng.random((M, N))
        A[:N, :N] += 10.0 * np.eye(N)
        return (A,)
    return inputs


def _durbin(N):
    return lambda rng: (0.2 * rng.random(N) / (1.0 + np.arange(N)),)


def _csr_matvec(N, density):
    return lambda rng: K._csr(rng, N, N, density) + (rng.random(N),)


def _graph(N, T):
    return lambda rng: K._mesh(rng, N) + (rng.random(N) - 0.5, T)


def _embedding_bag(V, D, B, L):
    return lambda rng: (rng.random((V, D)) - 0.5,
                        rng.integers(-V, V, (B, L)), rng.random((D, D)))


def _crank_nicolson(N, T):
    return lambda rng: (rng.random(N), 0.2 + 0.3 * rng.random(N), T)


def _tight_binding(N):
    return lambda rng: (rng.standard_normal(N), 0.5 + rng.random(N - 1))


def _layernorm(N, D):
    return lambda rng: (K._f32n(rng, (N, D)), K._f32(rng, (D,)),
                        K._f32n(rng, (D,), 0.1))


def _self_attention(B, S, D):
    # Weights scaled by 1 / sqrt(D), as initialisers do.
    def inputs(rng):
        return (rng.standard_normal((B, S, D)),) + tuple(
            rng.standard_normal((D, D)) / math.sqrt(D) for _ in range(4))
    return inputs


def _trisolv(N):
    return lambda rng: (K._lower_unit_dominant(rng, N), np.zeros(N),
                        rng.random(N))


def _symm(M, N):
    def inputs(rng):
        A = rng.random((M, M))
        return (1.5, 1.2, rng.random((M, N)), A + A.T, rng.random((M, N)))
    return inputs


def _syr2k(N, M):
    return lambda rng: (1.5, 1.2, rng.random((N, N)), rng.random((N, M)),
                        rng.random((N, M)))


def _syrk(N, M):
    return lambda rng: (1.5, 1.2, rng.random((N, N)), rng.random((N, M)))


def _trmm(M, N):
    return lambda rng: (1.5, rng.random((M, M)), rng.random((M, N)))


def _gemm(NI, NJ, NK):
    return lambda rng: (1.5, 1.2, rng.random((NI, NJ)), rng.random((NI, NK)),
                        rng.random((NK, NJ)))


def _k2mm(NI, NJ, NK, NL):
    return lambda rng: (1.5, 1.2, rng.random((NI, NK)), rng.random((NK, NJ)),
                        rng.random((NJ, NL)), rng.random((NI, NL)))


def _k3mm(NI, NJ, NK, NL, NM):
    return lambda rng: (K._f32(rng, (NI, NK)), K._f32(rng, (NK, NJ)),
                        K._f32(rng, (NJ, NM)), K._f32(rng, (NM, NL)))


def _atax(M, N):
    return lambda rng: (rng.random((M, N)), rng.random(N))


def _bicg(M, N):
    return lambda rng: (rng.random((N, M)), rng.random(M), rng.random(N))


def _mvt(N):
    return lambda rng: (rng.random(N), rng.random(N), rng.random(N),
                        rng.random(N), rng.random((N, N)))


def _gemver(N):
    return lambda rng: (1.5, 1.2, rng.random((N, N)), rng.random(N),
                        rng.random(N), rng.random(N), rng.random(N),
                        np.zeros(N), np.zeros(N), rng.random(N),
                        rng.random(N))


def _gesummv(N):
    return lambda rng: (1.5, 1.2, rng.random((N, N)), rng.random((N, N)),
                        rng.random(N))


def _doitgen(NR, NQ, NP):
    return lambda rng: (rng.random((NR, NQ, NP)), rng.random((NP, NP)))


def _thomas(N):
    return lambda rng: (rng.random(N), 4.0 + rng.random(N), rng.random(N),
                        rng.random(N))


def _softmax(B, R, C):
    return lambda rng: (K._f32n(rng, (B, R, C), 3.0),)


def _conv2d(H, W, KW):
    return lambda rng: (rng.random((H, W)), rng.random((KW, KW)))


def _mlp(N, C_in, S0, S1, S2):
    # Weights scaled by 1 / sqrt(fan-in) so the logits stay O(1) at any
    # width (the corpus's fixed scales saturate the softmax at NPBench's).
    def inputs(rng):
        return (K._f32n(rng, (N, C_in)),
                K._f32n(rng, (C_in, S0), 1.0 / math.sqrt(C_in)),
                K._f32n(rng, (S0,), 0.1),
                K._f32n(rng, (S0, S1), 1.0 / math.sqrt(S0)),
                K._f32n(rng, (S1,), 0.1),
                K._f32n(rng, (S1, S2), 1.0 / math.sqrt(S1)),
                K._f32n(rng, (S2,), 0.1))
    return inputs


def _logreg(n, d, iters):
    return lambda rng: (rng.random((n, d)),
                        (rng.random(n) > 0.5).astype(np.float64),
                        np.zeros(d), 0.5, iters)


def _go_fast(N):
    return lambda rng: (rng.random((N, N)),)


def _arc_distance(R, C):
    return lambda rng: (rng.random((R, C)), rng.random((R, C)),
                        rng.random((R, C)), rng.random((R, C)))


def _nbody(N, nsteps):
    return lambda rng: (rng.random((N, 3)), 0.1 * (rng.random((N, 3)) - 0.5),
                        0.5 + rng.random(N), 0.01, nsteps, 0.1, 1.0)


def _stats(N, M):
    # correlation / covariance: data has N samples (rows) of M variables.
    return lambda rng: (float(N), rng.random((N, M)))


def _deriche(W, H):
    return lambda rng: (0.25, rng.random((W, H)))


def _cholesky(N):
    return lambda rng: (K._spd(rng, N),)


def _lu(N):
    return lambda rng: (K._diag_dominant(rng, N),)


def _ludcmp(N):
    return lambda rng: (K._diag_dominant(rng, N), rng.random(N))


# --------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------

# Comments give NPBench's "paper" preset where L differs from it, and why.
SIZES = {
    # Stencils.
    "jacobi_1d": {"S": _jacobi_1d(4000, 100),
                  "L": _jacobi_1d(32000, 4000)},            # paper
    # paper N=2800, T=1000 would store 63 GB of time steps: NPBench's L
    "jacobi_2d": {"S": _jacobi_2d(150, 20), "L": _jacobi_2d(700, 200)},
    # paper N=120, T=500 would store 14 GB: NPBench's L
    "heat_3d": {"S": _heat_3d(30, 10), "L": _heat_3d(70, 100)},
    # paper N=400, T=100 (element loops in Python, ~20 s): NPBench's L
    "seidel_2d": {"S": _seidel_2d(40, 2), "L": _seidel_2d(200, 40)},
    # paper 1000x1200, T=500 would store 14 GB: NPBench's L grid, 100 steps
    "fdtd_2d": {"S": _fdtd_2d(100, 120, 20), "L": _fdtd_2d(800, 900, 100)},
    # paper N=200, T=100 (element loops, ~11 s): 20 steps
    "adi": {"S": _adi(30, 2), "L": _adi(200, 20)},
    # not in NPBench; store-all 2000 x 100000 doubles = 1.6 GB
    "heat_1d_bc": {"S": _heat_1d_bc(10000, 100),
                   "L": _heat_1d_bc(100000, 2000)},
    # paper nt=700 (~2.5 s, 2.8 GB of pressure iterates): 200 steps
    "cavity_flow": {"S": _cavity_flow(41, 10, 20),
                    "L": _cavity_flow(101, 200, 50)},
    # not in NPBench (element loops)
    "minmod_advection": {"S": _minmod_advection(200, 10),
                         "L": _minmod_advection(4000, 250)},
    # Weather.
    "hdiff": {"S": _hdiff(64, 64, 40), "L": _hdiff(256, 256, 160)},  # paper
    "vadv": {"S": _vadv(64, 64, 40), "L": _vadv(256, 256, 160)},     # paper
    # Solvers / factorisations: paper N=2000 for cholesky, lu, ludcmp (their
    # element loops take 4-8 s); N chosen for ~0.3 s.
    "cholesky": {"S": _cholesky(60), "L": _cholesky(700)},
    "lu": {"S": _lu(40), "L": _lu(500)},
    "ludcmp": {"S": _ludcmp(40), "L": _ludcmp(500)},
    # paper N=16000: a 2 GB matrix plus its 2 GB gradient
    "trisolv": {"S": _trisolv(2000), "L": _trisolv(8000)},
    "gramschmidt": {"S": _gramschmidt(70, 60),
                    "L": _gramschmidt(240, 200)},           # paper
    # paper N=16000: y[:k] rewritten N times, 1 GB store-all (and
    # JAX's masked version stores ~4x that)
    "durbin": {"S": _durbin(1000), "L": _durbin(8000)},
    # not in NPBench
    "thomas": {"S": _thomas(5000), "L": _thomas(500000)},
    # Dense linear algebra. symm, syr2k, syrk: paper 1000 x 1200 (element
    # loops, 5-10 s); NPBench's L-like sizes.
    "symm": {"S": _symm(40, 50), "L": _symm(500, 600)},
    "syr2k": {"S": _syr2k(50, 35), "L": _syr2k(600, 500)},
    "syrk": {"S": _syrk(70, 50), "L": _syrk(600, 500)},
    # paper 1000 x 1200 (strided element dots, ~3 s): NPBench's L
    "trmm": {"S": _trmm(65, 80), "L": _trmm(600, 700)},
    "gemm": {"S": _gemm(400, 440, 480),
             "L": _gemm(2000, 2300, 2600)},                  # paper
    "k2mm": {"S": _k2mm(300, 320, 340, 360),
             "L": _k2mm(3200, 3600, 4400, 4800)},            # paper
    "k3mm": {"S": _k3mm(400, 420, 440, 460, 480),
             "L": _k3mm(3200, 3600, 4000, 4400, 4800)},      # paper
    # paper 220 x 250 x 270 (4-deep element loops: ~20 min)
    "doitgen": {"S": _doitgen(6, 5, 24), "L": _doitgen(25, 20, 80)},
    # Matrix-vector kernels: paper matrices of 2-3 GB (plus as much again for
    # their gradients) reduced to about 1 GB (atax, bicg, mvt: NPBench's M).
    "atax": {"S": _atax(2000, 2500), "L": _atax(10000, 12500)},
    "bicg": {"S": _bicg(2000, 2500), "L": _bicg(10000, 12500)},
    "mvt": {"S": _mvt(2000), "L": _mvt(11000)},
    "gemver": {"S": _gemver(500), "L": _gemver(8000)},      # paper
    "gesummv": {"S": _gesummv(1000), "L": _gesummv(8000)},  # paper 11200
    # Deep learning. softmax: paper 64 x 16 x 512 x 512 float32 (1 GiB, with
    # ~3 such intermediates), the corpus's 3-D form of NPBench's L.
    "softmax": {"S": _softmax(128, 64, 64), "L": _softmax(1024, 448, 448)},
    # NPBench's conv2d_bias is multi-channel (paper: 256 x 256, K=20, ~15 s
    # in the corpus's element loops): one 256 x 256 plane, K=7
    "conv2d": {"S": _conv2d(40, 40, 3), "L": _conv2d(256, 256, 7)},
    "mlp": {"S": _mlp(8, 3, 3000, 1000, 100),
            "L": _mlp(8, 3, 30000, 10000, 1000)},           # paper
    # not in NPBench
    "logreg": {"S": _logreg(4000, 50, 20), "L": _logreg(50000, 200, 100)},
    # Other.
    # paper N=12500: the forward is one 1.2 GB array add, bound by page
    # faults (0.3-4 s here)
    "go_fast": {"S": _go_fast(1500), "L": _go_fast(8000)},
    "arc_distance": {"S": _arc_distance(300, 300),
                     "L": _arc_distance(3200, 3125)},       # paper (1e7)
    # paper N=100 over 1000 steps (pair loops in Python, ~20 s): 100 steps
    "nbody": {"S": _nbody(12, 6), "L": _nbody(100, 100)},
    "correlation": {"S": _stats(400, 300), "L": _stats(1400, 1200)},  # paper
    "covariance": {"S": _stats(400, 300), "L": _stats(1400, 1200)},   # paper
    # paper 7680 x 4320 (element loops, ~4 min)
    "deriche": {"S": _deriche(64, 32), "L": _deriche(1000, 600)},
    # Indexing with data (not in NPBench). CSR: 1% and 0.1% nonzeros.
    "csr_matvec": {"S": _csr_matvec(2000, 0.01), "L": _csr_matvec(20000, 0.001)},
    "graph_allen_cahn": {"S": _graph(10000, 10), "L": _graph(400000, 20)},
    "embedding_bag": {"S": _embedding_bag(10000, 64, 512, 32),
                      "L": _embedding_bag(100000, 128, 4096, 64)},
    # Dense linear solves (LAPACK): one per time step.
    "crank_nicolson": {"S": _crank_nicolson(400, 20),
                       "L": _crank_nicolson(2000, 50)},
    # A symmetric eigenproblem (LAPACK syevd): values and vectors.
    "tight_binding": {"S": _tight_binding(200), "L": _tight_binding(1000)},
    # A transformer layer's attention (batch x sequence x model width).
    "self_attention": {"S": _self_attention(16, 256, 64),
                       "L": _self_attention(64, 512, 128)},
    # A transformer's LayerNorm over a batch of tokens (float32).
    "layernorm": {"S": _layernorm(1024, 1024), "L": _layernorm(16384, 4096)},
}

DOMAIN = {
    "jacobi_1d": "stencil", "jacobi_2d": "stencil", "heat_3d": "stencil",
    "seidel_2d": "stencil", "fdtd_2d": "stencil", "adi": "stencil",
    "heat_1d_bc": "stencil", "cavity_flow": "stencil",
    "minmod_advection": "stencil",
    "hdiff": "weather", "vadv": "weather",
    "cholesky": "solver", "lu": "solver", "ludcmp": "solver",
    "trisolv": "solver", "gramschmidt": "solver", "durbin": "solver",
    "thomas": "solver",
    "symm": "dense-la", "syr2k": "dense-la", "syrk": "dense-la",
    "trmm": "dense-la", "gemm": "dense-la", "k2mm": "dense-la",
    "k3mm": "dense-la", "doitgen": "dense-la",
    "atax": "vectorised-la", "bicg": "vectorised-la", "mvt": "vectorised-la",
    "gemver": "vectorised-la", "gesummv": "vectorised-la",
    "softmax": "deep-learning", "conv2d": "deep-learning",
    "mlp": "deep-learning", "logreg": "deep-learning",
    "go_fast": "other", "arc_distance": "other", "nbody": "other",
    "correlation": "other", "covariance": "other", "deriche": "other",
    "csr_matvec": "sparse", "graph_allen_cahn": "sparse",
    "embedding_bag": "deep-learning",
    "crank_nicolson": "solver",
    "tight_binding": "solver",
    "self_attention": "deep-learning",
    "layernorm": "deep-learning",
}


def _float_arrays(fn, args):
    names = list(inspect.signature(fn).parameters)
    return [n for n, a in zip(names, args)
            if isinstance(a, np.ndarray) and a.dtype.kind == "f"]


WRT = {}
OUTPUT = {}
for _name, _sizes in SIZES.items():
    _fn = KERNELS[_name][0]
    _args = _sizes["S"](np.random.default_rng(0))
    WRT[_name] = _float_arrays(_fn, _args)
    OUTPUT[_name] = _output_spec(_fn, _args)
