"""Gradient time over forward time of sdfg.program, per kernel, in one run.

    /usr/bin/python3 benchmarks/gradient_vs_forward.py

Uses the benchmark sizes of frontend_vs_numpy.py; the gradient is of the
first float result (or the array updated in place) w.r.t. every float array
argument; medians of 3 runs after a warm-up. A report, not a test.
"""

import copy
import inspect
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))
sys.path.insert(0, HERE)
os.environ.setdefault("SDFG_CACHE_DIR", tempfile.mkdtemp(prefix="sdfg-"))

# sdfg first: it picks OpenBLAS's kernels for this CPU before numpy loads
# OpenBLAS (sdfg/blas.py).
import sdfg  # noqa: E402

import numpy as np  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402
from frontend_vs_numpy import INPUTS  # noqa: E402

KERNEL_NAMES = ["seidel_2d", "jacobi_2d", "heat_3d", "gemm", "cholesky",
                "conv2d", "atax", "go_fast", "hdiff", "lu", "csr_matvec",
                "graph_allen_cahn", "embedding_bag"]


def output_of(fn, args):
    names = list(inspect.signature(fn).parameters)
    run = copy.deepcopy(args)
    r = fn(*run)
    if r is not None:
        return "return:0" if isinstance(r, tuple) else "return"
    return [n for n, x, y in zip(names, args, run)
            if isinstance(x, np.ndarray) and not np.array_equal(x, y)][0]


def median_time(f, args):
    ts = []
    for _ in range(3):
        a = copy.deepcopy(args)
        t0 = time.perf_counter()
        f(*a)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def main():
    rows = []
    for name in KERNEL_NAMES:
        fn = KERNELS[name][0]
        args = INPUTS[name](np.random.default_rng(0))
        names = list(inspect.signature(fn).parameters)
        wrt = [n for n, x in zip(names, args)
               if isinstance(x, np.ndarray) and x.dtype.kind == "f"]
        prog = sdfg.program(fn)
        grad = sdfg.grad(fn, wrt, output=output_of(fn, args))
        prog(*copy.deepcopy(args))
        grad(*copy.deepcopy(args))
        tf, tg = median_time(prog, args), median_time(grad, args)
        rows.append((name, tf, tg))
        print(f"{name:12s} forward {tf * 1e3:8.2f} ms  gradient "
              f"{tg * 1e3:8.2f} ms  ratio {tg / tf:5.1f}", flush=True)
    geo = float(np.exp(np.mean([np.log(g / f) for _, f, g in rows])))
    print(f"geometric mean gradient/forward: {geo:.1f}")


if __name__ == "__main__":
    main()
