"""What the bounds checks of data-derived indices cost, in one run.

    /usr/bin/python3 benchmarks/index_checks.py [--repeat 7] [--rounds 4]

For the kernels of frontend_vs_numpy.py that index with data (a CSR
product, a mesh gather/scatter, an embedding bag), the forward program and
the gradient (w.r.t. every float array argument) compiled with the checks
(the default) and with check_indices=False, side by side: rounds
interleave the two so that machine noise hits both; per variant the
minimum over rounds of the median of --repeat calls. Results are checked
equal before timing. A report, not a test.
"""

import argparse
import copy
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))
sys.path.insert(0, HERE)
os.environ.setdefault("SDFG_CACHE_DIR", tempfile.mkdtemp(prefix="sdfg-"))

import sdfg  # noqa: E402  (before numpy: OpenBLAS's kernels, sdfg/blas.py)

import numpy as np  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402
from frontend_vs_numpy import INPUTS, median_time  # noqa: E402
from gradient_vs_forward import output_of  # noqa: E402

KERNEL_NAMES = ["csr_matvec", "graph_allen_cahn", "embedding_bag"]


def assert_same(a, b):
    if isinstance(a, dict):
        for k in a:
            np.testing.assert_array_equal(a[k], b[k])
    else:
        np.testing.assert_array_equal(a, b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=4)
    opts = ap.parse_args()
    print("| kernel | program | checked ms | unchecked ms | ratio |")
    print("|---|---|---:|---:|---:|")
    for name in KERNEL_NAMES:
        fn = KERNELS[name][0]
        args = INPUTS[name](np.random.default_rng(0))
        wrt = [n for n, a in zip(fn.__code__.co_varnames, args)
               if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
        out = output_of(fn, args)
        for kind in ("forward", "gradient"):
            variants = []
            for check in (True, False):
                if kind == "forward":
                    f = sdfg.program(fn, check_indices=check)
                else:
                    f = sdfg.grad(fn, wrt, output=out, check_indices=check)
                variants.append(f)
            assert_same(variants[0](*copy.deepcopy(args)),
                        variants[1](*copy.deepcopy(args)))
            best = [float("inf")] * 2
            for _ in range(opts.rounds):
                for k, f in enumerate(variants):
                    best[k] = min(best[k],
                                  median_time(f, args, opts.repeat))
            print(f"| {name} | {kind} | {best[0] * 1e3:.3f} | "
                  f"{best[1] * 1e3:.3f} | {best[0] / best[1]:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
