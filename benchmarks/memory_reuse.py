"""Time of programs that allocate large blocks, with the memory a program
frees kept for its next call (the default) and given back to the system
(SDFG_REUSE_MEMORY=0), alternated round by round in child processes.

    /usr/bin/python3 benchmarks/memory_reuse.py [--rounds 3] [--quick]

Kernels: a float32 softmax over the last axis of a 16x16x128x128 array
(forward and gradient: 16 MiB temporaries and outputs), a 1-D nonlinear
diffusion time loop's store-all gradient (10^4 points, 10^4 steps: 1.5 GB
of tapes) and bicg's gradient (two matrix-vector products with a
2500x2000 matrix, whose 40 MB gradient the caller drops after each call:
kept, its block serves the next call's result). Prints, per kernel, the median over the rounds of each child's
median time and the spread (min-max of the rounds). A report, not a test.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))


def softmax(x):
    tmp_max = np.max(x, axis=-1, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=-1, keepdims=True)
    return tmp_out / tmp_sum


def median_ms(fn, args, calls):
    fn(*args)
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def child(quick):
    rng = np.random.default_rng(0)
    shape = (4, 16, 128, 128) if quick else (16, 16, 128, 128)
    x = rng.random(shape).astype(np.float32)
    n, steps = (2000, 2000) if quick else (10000, 10000)
    u = rng.random(n)
    out = {
        "softmax forward": median_ms(sdfg.program(softmax), (x,), 20),
        "softmax gradient": median_ms(sdfg.grad(softmax, ["x"]), (x,), 20),
        "diffusion1d forward": median_ms(sdfg.program(diffusion1d),
                                         (u, steps), 5),
        "diffusion1d gradient": median_ms(sdfg.grad(diffusion1d, ["u0"]),
                                          (u, steps), 5),
        "bicg gradient, 2500x2000": median_ms(
            sdfg.grad(bicg, ["A", "p", "r"], output="return:0"),
            (rng.random((2500, 2000)), rng.random(2000), rng.random(2500)),
            20),
    }
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.quick)
        return
    cache = tempfile.mkdtemp(prefix="sdfg-reuse-")
    runs = {"0": [], "1": []}
    for _ in range(args.rounds):
        for mode in ("0", "1"):
            env = dict(os.environ, SDFG_REUSE_MEMORY=mode,
                       SDFG_CACHE_DIR=cache)
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child"] +
                (["--quick"] if args.quick else []),
                capture_output=True, text=True, env=env)
            if proc.returncode != 0:
                sys.exit(proc.stderr[-2000:])
            runs[mode].append(json.loads(proc.stdout.splitlines()[-1]))
    print("| program | given back (ms) | kept (ms) | speedup |")
    print("|---|---|---|---|")
    for name in runs["0"][0]:
        off = [r[name] for r in runs["0"]]
        on = [r[name] for r in runs["1"]]
        print(f"| {name} | {statistics.median(off):.1f} "
              f"({min(off):.1f}-{max(off):.1f}) | {statistics.median(on):.1f}"
              f" ({min(on):.1f}-{max(on):.1f}) | "
              f"{statistics.median(off) / statistics.median(on):.2f}x |")


# sdfg first: it picks OpenBLAS's kernels for this CPU before numpy loads
# OpenBLAS (sdfg/blas.py).
import sdfg  # noqa: E402
import numpy as np  # noqa: E402
from loop_checkpointing import diffusion1d  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))
from corpus.kernels import bicg  # noqa: E402

if __name__ == "__main__":
    main()
