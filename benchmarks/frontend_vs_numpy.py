"""Forward time of sdfg.program against NumPy, per kernel, in one run.

    /usr/bin/python3 benchmarks/frontend_vs_numpy.py [--repeat N] [--kernels a,b]

For each kernel: cold compile time (empty cache), NumPy time and our time
(medians over repetitions after a warm-up, inputs copied outside the timed
region), their ratio, and a correctness check against NumPy's result. The
table is printed and written to benchmarks/results/frontend_vs_numpy.md.
Timings are not asserted anywhere: this is a report.
"""

import argparse
import copy
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))

# sdfg first: it picks OpenBLAS's kernels for this CPU before numpy loads
# OpenBLAS (sdfg/blas.py).
import sdfg  # noqa: E402

import numpy as np  # noqa: E402
from corpus import kernels as K  # noqa: E402

# Sizes large enough to measure on a 2-core machine; the interpreted NumPy
# loops of the loop kernels bound them.
INPUTS = {
    "seidel_2d": lambda r: (r.random((120, 120)), 2),
    "jacobi_1d": lambda r: (100, r.random(4000), r.random(4000)),
    "jacobi_2d": lambda r: (20, r.random((400, 400)), r.random((400, 400))),
    "heat_3d": lambda r: (10, r.random((60, 60, 60)), r.random((60, 60, 60))),
    "adi": lambda r: (2, r.random((100, 100))),
    "fdtd_2d": lambda r: (20, r.random((300, 300)), r.random((300, 300)),
                          r.random((300, 300)), r.random(20)),
    "gemm": lambda r: (1.5, 1.2, r.random((400, 400)), r.random((400, 400)),
                       r.random((400, 400))),
    "syrk": lambda r: (1.5, 1.2, r.random((300, 300)), r.random((300, 200))),
    "cholesky": lambda r: (K._spd(r, 200),),
    "lu": lambda r: (K._diag_dominant(r, 120),),
    "trisolv": lambda r: (K._lower_unit_dominant(r, 500), np.zeros(500),
                          r.random(500)),
    "atax": lambda r: (r.random((1000, 800)), r.random(800)),
    "covariance": lambda r: (400.0, r.random((400, 300))),
    "softmax": lambda r: (K._f32n(r, (16, 64, 256), 3.0),),
    "conv2d": lambda r: (r.random((120, 120)), r.random((5, 5))),
    "hdiff": lambda r: (r.random((132, 132, 16)), np.zeros((128, 128, 16)),
                        r.random((128, 128, 16))),
    "go_fast": lambda r: (r.random((1000, 1000)),),
    "arc_distance": lambda r: tuple(r.random((500, 500)) for _ in range(4)),
    "floyd_warshall": lambda r: (K._graph(r, 80),),
    "durbin": lambda r: (0.2 * r.random(400) / (1.0 + np.arange(400)),),
    "csr_matvec": lambda r: K._csr(r, 2000, 2000, 0.01) + (r.random(2000),),
    "graph_allen_cahn": lambda r: K._mesh(r, 100000) + (
        r.random(100000) - 0.5, 10),
    "embedding_bag": lambda r: (r.random((10000, 64)) - 0.5,
                                r.integers(-10000, 10000, (512, 32)),
                                r.random((64, 64))),
}


def median_time(fn, args, repeat):
    times = []
    for _ in range(repeat):
        a = copy.deepcopy(args)
        t0 = time.perf_counter()
        fn(*a)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def same(got, want):
    if isinstance(want, tuple):
        return all(same(g, w) for g, w in zip(got, want))
    if want is None:
        return got is None
    want = np.asarray(want)
    tol = 1e-5 if want.dtype == np.float32 else 1e-9
    return np.allclose(np.asarray(got), want, rtol=tol, atol=tol)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--kernels", default=",".join(INPUTS))
    ns = ap.parse_args()
    names = [n for n in ns.kernels.split(",") if n]
    os.environ["SDFG_CACHE_DIR"] = tempfile.mkdtemp(prefix="sdfg-bench-")
    rows = []
    for i, name in enumerate(names, 1):
        fn = K.KERNELS[name][0]
        args = INPUTS[name](np.random.default_rng(0))
        print(f"[{i}/{len(names)}] {name}", file=sys.stderr, flush=True)
        prog = sdfg.program(fn)
        t0 = time.perf_counter()
        prog.compile(*args)
        compile_s = time.perf_counter() - t0
        a1, a2 = copy.deepcopy(args), copy.deepcopy(args)
        ok = same(prog(*a1), fn(*a2)) and all(
            same(x, y) for x, y in zip(a1, a2) if isinstance(x, np.ndarray))
        reps_np = max(1, ns.repeat if name not in ("seidel_2d", "adi", "lu",
                                                   "floyd_warshall",
                                                   "cholesky", "conv2d")
                      else 1)
        fn(*copy.deepcopy(args))  # warm-up
        t_np = median_time(fn, args, reps_np)
        prog(*copy.deepcopy(args))
        t_ours = median_time(prog, args, ns.repeat)
        rows.append((name, compile_s, t_np, t_ours, t_np / t_ours, ok))
    lines = ["| kernel | compile (s) | NumPy (ms) | sdfg (ms) | speedup | "
             "matches NumPy |", "|---|---:|---:|---:|---:|---|"]
    for name, c, tn, to, sp, ok in rows:
        lines.append(f"| {name} | {c:.2f} | {tn * 1e3:.2f} | {to * 1e3:.3f} "
                     f"| {sp:.1f}x | {'yes' if ok else 'NO'} |")
    speedups = [r[4] for r in rows]
    geo = float(np.exp(np.mean(np.log(speedups))))
    lines.append("")
    lines.append(f"Geometric mean speedup over NumPy: {geo:.1f}x "
                 f"({len(rows)} kernels, {os.cpu_count()} cores, "
                 f"median of {ns.repeat}).")
    text = "\n".join(lines)
    print(text)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "frontend_vs_numpy.md"),
              "w") as f:
        f.write("# sdfg.program forward time vs NumPy\n\n")
        f.write("Command: `/usr/bin/python3 benchmarks/frontend_vs_numpy.py`"
                "\n\n")
        f.write(text + "\n")
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
