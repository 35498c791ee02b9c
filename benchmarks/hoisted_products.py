"""Hoisted loop products: a loop's matrix-vector products as one matmul,
before or after differentiating.

    /usr/bin/python3 benchmarks/hoisted_products.py [--repeat 15]
        [--threads 2]

The corpus's covariance and correlation compute row i of a symmetric
product per iteration, `data[:, i] @ data[:, i:M]`; a dense layer applied
sample by sample, `Y[b] = W @ X[b]`, one row of X W^T; trmm's in-place
`B[i, j] += A[i+1:, i] @ B[i+1:, j]`, entries of (strict_lower(A))^T B.
sdfg-hoist-loop-products computes the whole product with one GEMM before
the loop. One process compiles two gradients of each kernel and times them
alternately, call by call (median of --repeat):

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
from corpus.kernels import trmm as corpus_trmm  # noqa: E402
from sdfg import native  # noqa: E402



def per_sample(W, X):
    B = X.shape[0]
    Y = np.zeros((B, W.shape[0]))
    for b in range(B):
        Y[b] = W @ X[b]
    return np.tanh(Y)


def trmm(alpha, A, B):
    # The corpus's trmm, B := alpha (I + strict_lower(A))^T B in place:
    # each row's products read rows the loop has not written yet.
    corpus_trmm(alpha, A, B)
    return np.tanh(B)


def _trmm(m, n):
    rng = np.random.default_rng(0)
    return {"alpha": np.full((), 1.5), "A": rng.random((m, m)) - 0.5,
            "B": rng.random((m, n)) - 0.5}


def _stats(n, m):
    rng = np.random.default_rng(0)
    return {"float_n": np.full((), float(n)), "data": rng.random((n, m))}


def _layer(batch, out, inp):
    rng = np.random.default_rng(0)
    return {"W": rng.random((out, inp)) - 0.5, "X": rng.random((batch, inp))}


# kernel, label, inputs, differentiated arguments
CASES = [
    (covariance, "400 x 300", _stats(400, 300), ["data"]),
    (covariance, "1400 x 1200", _stats(1400, 1200), ["data"]),
    (correlation, "400 x 300", _stats(400, 300), ["data"]),
    (correlation, "1400 x 1200", _stats(1400, 1200), ["data"]),
    (per_sample, "W 256 x 512, 1000 samples", _layer(1000, 256, 512),
     ["W", "X"]),
    (trmm, "65 x 80", _trmm(65, 80), ["A", "B"]),
    (trmm, "400 x 500", _trmm(400, 500), ["A", "B"]),
]


def compile_variants(fn, inputs, wrt, threads):
    autodiff = (f"--sdfg-autodiff=output=__return0 wrt={','.join(wrt)} "
                "discard-results=true unit-seed=true")
    variants = {"after-ad": [autodiff],
                "before-ad": ["--sdfg-hoist-loop-products", autodiff]}
    text = sdfg.to_mlir(fn, *inputs.values())
    programs = {}
    for name, passes in variants.items():
        module = sdfg.compile_mlir(native.run_passes(text, passes))
        module.set_num_threads(threads)
        programs[name] = getattr(module, "py_" + fn.__name__ + "_grad")
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
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()
    print(f"{args.threads} thread(s), median of {args.repeat}, ms\n")
    print("| kernel | size | after-ad | before-ad | after / before |")
    print("|---|---|---|---|---|")
    for fn, label, inputs, wrt in CASES:
        programs = compile_variants(fn, inputs, wrt, args.threads)
        arrays = {k: arguments(f, inputs) for k, f in programs.items()}
        for k, f in programs.items():
            call(f, arrays[k], inputs)
            for name in wrt:
                np.testing.assert_allclose(arrays[k]["d_" + name],
                                           arrays["after-ad"]["d_" + name],
                                           rtol=1e-9, atol=1e-12)
        times = {k: [] for k in programs}
        for _ in range(args.repeat):
            for k, f in programs.items():
                times[k].append(call(f, arrays[k], inputs))
        med = {k: float(np.median(t)) * 1e3 for k, t in times.items()}
        print(f"| {fn.__name__} | {label} | {med['after-ad']:.2f} | "
              f"{med['before-ad']:.2f} | "
              f"{med['after-ad'] / med['before-ad']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
