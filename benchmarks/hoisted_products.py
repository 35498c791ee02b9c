"""Hoisted loop products: covariance's row loop as one matmul, before or
after differentiating.

    /usr/bin/python3 benchmarks/hoisted_products.py [--sizes 400x300,...]
        [--repeat 15] [--threads 2]

The corpus's covariance and correlation compute row i of a symmetric
product per iteration, `data[:, i] @ data[:, i:M]`. sdfg-hoist-loop-products
computes the whole product `data^T data` with one GEMM before the loop. One
process compiles two gradients of each kernel (d sum(result) / d data) and
times them alternately, call by call (median of --repeat):

  after-ad   differentiated as written, the loop's products hoisted only in
             the forward sweep (by the lowering pipeline): what a gradient
             under a memory limit gets;
  before-ad  the pass before sdfg-autodiff, which then differentiates the
             matmul (two GEMMs): what `sdfg.grad` does without a limit.

Both gradients are compared with each other. A report, not a test.
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))

import sdfg  # noqa: E402
from corpus.kernels import correlation, covariance  # noqa: E402
from sdfg import native  # noqa: E402

AUTODIFF = ("--sdfg-autodiff=output=__return0 wrt=data discard-results=true "
            "unit-seed=true")
VARIANTS = {
    "after-ad": [AUTODIFF],
    "before-ad": ["--sdfg-hoist-loop-products", AUTODIFF],
}


def compile_variants(fn, inputs, threads):
    text = sdfg.to_mlir(fn, inputs["float_n"], inputs["data"])
    programs = {}
    for name, passes in VARIANTS.items():
        module = sdfg.compile_mlir(native.run_passes(text, passes))
        module.set_num_threads(threads)
        programs[name] = getattr(module, fn.__name__ + "_grad")
    return programs


def arguments(function, inputs):
    """The gradient function's arguments: copies of the inputs, zeros for
    the gradients (which the program overwrites)."""
    return {a["name"]: (inputs[a["name"]].copy() if a["name"] in inputs
                        else np.zeros(a["shape"]))
            for a in function.args}


def call(function, arrays, inputs):
    """One timed call, in seconds (after restoring the inputs, which the
    kernels update in place)."""
    for name, value in inputs.items():
        np.copyto(arrays[name], value)
    values = list(arrays.values())
    t0 = time.perf_counter()
    function(*values)
    return time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="400x300,1400x1200")
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    print(f"{args.threads} thread(s), median of {args.repeat}, ms\n")
    print("| kernel | data | after-ad | before-ad | after / before |")
    print("|---|---|---|---|---|")
    for fn in (covariance, correlation):
        for size in args.sizes.split(","):
            n, m = (int(v) for v in size.split("x"))
            rng = np.random.default_rng(0)
            inputs = {"float_n": np.full((), float(n)),
                      "data": rng.random((n, m))}
            programs = compile_variants(fn, inputs, args.threads)
            arrays = {k: arguments(f, inputs) for k, f in programs.items()}
            for k, f in programs.items():
                call(f, arrays[k], inputs)
                np.testing.assert_allclose(arrays[k]["d_data"],
                                           arrays["after-ad"]["d_data"],
                                           rtol=1e-9, atol=1e-12)
            times = {k: [] for k in programs}
            for _ in range(args.repeat):
                for k, f in programs.items():
                    times[k].append(call(f, arrays[k], inputs))
            med = {k: float(np.median(t)) * 1e3 for k, t in times.items()}
            print(f"| {fn.__name__} | {n} x {m} | {med['after-ad']:.2f} | "
                  f"{med['before-ad']:.2f} | "
                  f"{med['after-ad'] / med['before-ad']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
