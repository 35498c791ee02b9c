"""Batched outer products: a loop's rank-one gradient updates, one matmul.

    /usr/bin/python3 benchmarks/outer_products.py [--sizes 4000x50x20,...]
        [--repeat 15] [--threads 2]

Logistic regression by gradient descent (the corpus's logreg: X @ w and
X.T @ r each iteration), whose gradient with respect to X adds two outer products per
iteration. One process compiles three versions of the same gradient
program and times them alternately, call by call (median of --repeat):

  per-iteration  every update is a map over X's gradient, as before
                 sdfg-batch-outer-products (max-buffer-ratio=0 first);
  default        the lowering pipeline's choice: batched when X has 8 MiB
                 or more (min-bytes);
  always         batched at every size (min-bytes=0 first).

All three gradients are compared with each other. A report, not a test.
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
from corpus.kernels import logreg  # noqa: E402
from sdfg import native  # noqa: E402


VARIANTS = {
    "per-iteration": ["--sdfg-batch-outer-products=max-buffer-ratio=0"],
    "default": [],
    "always": ["--sdfg-batch-outer-products=min-bytes=0"],
}


def compile_variants(rows, cols, iters, threads):
    rng = np.random.default_rng(0)
    inputs = {"X": rng.random((rows, cols)),
              "y": (rng.random(rows) > 0.5).astype(np.float64),
              "w": np.zeros(cols)}
    text = sdfg.to_mlir(logreg, inputs["X"], inputs["y"], inputs["w"], 0.5,
                        iters)
    grad = native.run_passes(text, [
        "--sdfg-autodiff=output=__return0 wrt=X,w discard-results=true "
        "unit-seed=true"])
    programs = {}
    for name, passes in VARIANTS.items():
        source = native.run_passes(grad, passes) if passes else grad
        module = sdfg.compile_mlir(source)
        module.set_num_threads(threads)
        programs[name] = (module, batched(source))
    return inputs, programs


def batched(source):
    """Whether the lowering will batch the variant's program: the
    pipeline's own run of sdfg-batch-outer-products."""
    out = native.run_passes(source, ["--sdfg-batch-outer-products"])
    return "outer_rows" in out


def arguments(module, inputs):
    """The gradient function's arguments; only `w` is written among the
    inputs (the gradients are outputs the program zeroes itself)."""
    arrays = {}
    for a in module.logreg_grad.args:
        name = a["name"]
        if name in inputs:
            arrays[name] = inputs[name].copy()
        elif name == "lr":
            arrays[name] = np.full((), 0.5)
        else:
            arrays[name] = np.zeros(a["shape"])
    return arrays


def call(module, arrays, inputs):
    """One timed call, in seconds (after restoring `w`)."""
    np.copyto(arrays["w"], inputs["w"])
    values = list(arrays.values())
    t0 = time.perf_counter()
    module.logreg_grad(*values)
    return time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="4000x50x20,10000x100x20,"
                   "20000x100x20,50000x200x20")
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    print(f"{args.threads} thread(s), median of {args.repeat}, ms "
          "(batched marked *)\n")
    print("| X, iterations | per-iteration | default | always | "
          "per-iteration / default |")
    print("|---|---|---|---|---|")
    for size in args.sizes.split(","):
        rows, cols, iters = (int(v) for v in size.split("x"))
        inputs, programs = compile_variants(rows, cols, iters, args.threads)
        arrays = {n: arguments(m, inputs) for n, (m, _) in programs.items()}
        for n, (m, _) in programs.items():
            call(m, arrays[n], inputs)
            for g in ("d_X", "d_w"):
                np.testing.assert_allclose(arrays[n][g],
                                           arrays["per-iteration"][g],
                                           rtol=1e-9, atol=1e-14)
        times = {n: [] for n in programs}
        for _ in range(args.repeat):
            for n, (m, _) in programs.items():
                times[n].append(call(m, arrays[n], inputs))
        med = {n: float(np.median(t)) * 1e3 for n, t in times.items()}
        cell = {n: f"{med[n]:.2f}{'*' if programs[n][1] else ''}"
                for n in programs}
        print(f"| {rows} x {cols} ({rows * cols * 8 / 2**20:.1f} MiB), "
              f"{iters} | {cell['per-iteration']} | {cell['default']} | "
              f"{cell['always']} | "
              f"{med['per-iteration'] / med['default']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
