"""Sorting, searching and order statistics against NumPy, in one run.

    /usr/bin/python3 benchmarks/sorting.py [--repeat 7] [--rounds 3]

np.sort of vectors of growing length, a median per row and a least
trimmed squares loss (the corpus kernel trimmed_squares' body on a larger
problem), np.interp of many points in a table and a lookup of bins
by np.searchsorted: NumPy's time, our forward's and our gradient's (w.r.t. every
float array), rounds interleaving the three so that machine noise hits
all; per column the minimum over rounds of the median of --repeat calls.
Forward results are checked equal to NumPy's before timing. A report,
not a test.
"""

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, HERE)
os.environ.setdefault("SDFG_CACHE_DIR", tempfile.mkdtemp(prefix="sdfg-"))

import sdfg  # noqa: E402  (before numpy: OpenBLAS's kernels, sdfg/blas.py)

import numpy as np  # noqa: E402
from frontend_vs_numpy import median_time  # noqa: E402


def sort_vector(x):
    return np.sum(np.sort(x) * np.linspace(0.0, 1.0, x.shape[0]))


def row_medians(A):
    return np.sum(np.median(A, axis=1) ** 2)


def trimmed_squares(X, y, w):
    r = X @ w - y
    h = 3 * r.shape[0] // 4
    return np.sum(np.sort(r * r)[:h])


def interpolate(x, xp, fp):
    return np.sum(np.interp(x, xp, fp) ** 2)


def binned(x, edges, rates):
    return np.sum(rates[np.searchsorted(edges, x)] * x)


def cases():
    rng = np.random.default_rng(0)
    for n in (1000, 100000, 1000000):
        yield f"sort {n}", sort_vector, (rng.standard_normal(n),)
    yield "median 2000x101", row_medians, (rng.standard_normal((2000, 101)),)
    yield "trimmed squares 100000x8", trimmed_squares, (
        rng.standard_normal((100000, 8)), rng.standard_normal(100000),
        rng.standard_normal(8))
    knots = np.sort(rng.random(1000))
    yield "interp 1000000 in 1000", interpolate, (
        rng.random(1000000) * 1.2 - 0.1, knots, rng.standard_normal(1000))
    yield "bins 1000000 in 1000", binned, (
        rng.random(1000000), knots, rng.standard_normal(1001))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    opts = ap.parse_args()
    print("| case | NumPy ms | ours fwd ms | vs NumPy | ours grad ms | "
          "grad/fwd |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, fn, args in cases():
        names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
        prog = sdfg.program(fn)
        grad = sdfg.grad(fn, list(names))
        want = fn(*args)
        got = prog(*args)
        if not np.isclose(got, want, rtol=1e-12):
            sys.exit(f"{name}: ours {got} != NumPy's {want}")
        grad(*args)
        best = [float("inf")] * 3
        for _ in range(opts.rounds):
            for k, f in enumerate((fn, prog, grad)):
                best[k] = min(best[k], median_time(f, args, opts.repeat))
        numpy_t, fwd, g = (t * 1e3 for t in best)
        print(f"| {name} | {numpy_t:.3f} | {fwd:.3f} | {numpy_t / fwd:.2f}x "
              f"| {g:.3f} | {g / fwd:.2f} |")


if __name__ == "__main__":
    main()
