"""Run time of every corpus kernel compiled with array extents as symbols
(`sdfg.program(f, dynamic=True)`) against the program specialised to its
shapes (`dynamic=False`), side by side in one process.

    /usr/bin/python3 benchmarks/symbolic_corpus.py [--repeat 31]

Per kernel of python-frontend/tests/corpus (their test sizes), the median
over the repeats of the ratio of the two calls of each repeat
(alternating, fresh copies of the arguments outside the timing), and how
many kernels the symbols serve (the others compile their shapes in by
themselves and are left out). Prints the distribution of the ratios
(median, 10th-90th percentile, the largest) and the kernels beyond 1.10.
A report, not a test.
"""

import argparse
import copy
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))

import sdfg  # noqa: E402
from sdfg.arguments import normalise  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402


def symbolic_arrays(prog, args):
    """Whether the program compiled for `args` takes array extents as
    symbols (the translation with them succeeded)."""
    a = normalise(copy.deepcopy(args), prog.fn)
    _, symbolic = prog._symbolic_key(a)
    _, _, arrays = prog._base_key(a)
    return any(n in symbolic for _, n in arrays)


def timed(prog, args):
    a = copy.deepcopy(args)
    t0 = time.perf_counter()
    prog(*a)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=31)
    opts = ap.parse_args()
    os.environ["SDFG_CACHE_DIR"] = tempfile.mkdtemp()
    rows = []
    for name, (fn, inputs) in sorted(KERNELS.items()):
        args = inputs(np.random.default_rng(0))
        sym = sdfg.program(fn, dynamic=True)
        if not symbolic_arrays(sym, args):
            continue
        static = sdfg.program(fn, dynamic=False)
        timed(sym, args), timed(static, args)  # compile, warm up
        ratios, t_sym = [], []
        for _ in range(opts.repeat):
            a, b = timed(sym, args), timed(static, args)
            ratios.append(a / b)
            t_sym.append(a)
        rows.append((name, float(np.median(ratios)),
                     1e3 * float(np.median(t_sym))))
    r = np.array([x[1] for x in rows])
    lo, hi = np.percentile(r, [10, 90])
    print(f"{len(rows)} of {len(KERNELS)} kernels compile with symbolic "
          f"extents; ratio symbolic/static run time: median "
          f"{np.median(r):.3f}, 10th-90th percentile {lo:.2f}-{hi:.2f}, "
          f"largest {r.max():.2f}")
    slow = [x for x in rows if x[1] > 1.10]
    for name, ratio, ms in sorted(slow, key=lambda x: -x[1]):
        print(f"  {name:<24} {ratio:6.2f}  ({ms:.3f} ms symbolic)")


if __name__ == "__main__":
    main()
