"""Gradient times while another process keeps one core busy, with the
thread count fixed at the cores (set_num_threads) and chosen per call from
the cores other processes leave free (the default: sdfg/threads.py).

    env -u OMP_NUM_THREADS /usr/bin/python3 benchmarks/under_load.py \\
        [--kernels jacobi_2d,softmax,...] [--calls 21]

Per kernel of the peer suite at size S: the median gradient time unloaded
(default policy), then, with a busy-looping child process running, fixed
and automatic counts alternated. A report, not a test; OMP_NUM_THREADS
must be unset (it fixes the count too).
"""

import argparse
import copy
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (os.path.join(ROOT, "python-frontend"),
          os.path.join(ROOT, "python-frontend", "tests"),
          os.path.join(HERE, "peers")):
    sys.path.insert(0, p)

import sdfg  # noqa: E402  (before numpy: OpenBLAS's kernels)
import numpy as np  # noqa: E402
from sdfg import threads  # noqa: E402
from sizes import OUTPUT, SIZES, WRT  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402

DEFAULT = "jacobi_2d,heat_3d,bicg,atax,softmax,gemm,vadv,fdtd_2d"


def median_ms(fn, args, calls):
    # Two warm-ups LOAD_WINDOW_S apart: the automatic count is decided
    # from a window of at least that long.
    fn(*copy.deepcopy(args))
    time.sleep(threads.LOAD_WINDOW_S + 0.05)
    fn(*copy.deepcopy(args))
    times = []
    for _ in range(calls):
        a = copy.deepcopy(args)
        t0 = time.perf_counter()
        fn(*a)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernels", default=DEFAULT)
    p.add_argument("--calls", type=int, default=21)
    args = p.parse_args()
    if os.environ.get("OMP_NUM_THREADS"):
        sys.exit("unset OMP_NUM_THREADS: it fixes the thread count")
    cores = sdfg.get_num_threads()
    print(f"{cores} cores; one busy process while loaded\n")
    print("| kernel | unloaded (ms) | loaded, fixed (ms) | loaded, "
          "automatic (ms) |")
    print("|---|---|---|---|")
    for name in args.kernels.split(","):
        fn = KERNELS[name][0]
        inputs = SIZES[name]["S"](np.random.default_rng(0))
        g = sdfg.grad(fn, WRT[name], output=OUTPUT[name],
                      strategy="store-all")
        threads._requested = None
        quiet = median_ms(g, inputs, args.calls)
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            time.sleep(0.5)
            sdfg.set_num_threads(cores)
            fixed = median_ms(g, inputs, args.calls)
            threads._requested = None
            auto = median_ms(g, inputs, args.calls)
        finally:
            busy.kill()
            busy.wait()
        print(f"| {name} | {quiet:.2f} | {fixed:.2f} ({fixed / quiet:.1f}x)"
              f" | {auto:.2f} ({auto / quiet:.1f}x) |")
        time.sleep(0.5)


if __name__ == "__main__":
    main()
