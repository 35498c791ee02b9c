"""Forward mode against the forward program and reverse mode, side by
side in one process.

    /usr/bin/python3 benchmarks/forward_mode.py [--repeat 15]
        [--kernels a,b,...]

For kernels of the peer suite at size S (benchmarks/peers/sizes.py; those
that return a float value), times (median of --repeat, each variant in
its own block): the forward program (sdfg.program), the tangent program along
one direction (sdfg.jvp), the gradient (sdfg.grad, store-all) and the
Hessian-vector product (sdfg.hvp, forward over reverse), and prints each
over the forward. The tangent program runs the forward computation with
its tangents beside it and stores nothing; the gradient stores what its
backward sweep reads. A report, not a test.
"""

import argparse
import copy
import inspect
import os
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import sdfg  # noqa: E402
from peers.sizes import SIZES  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402

DEFAULT = ("arc_distance,atax,bicg,correlation,covariance,crank_nicolson,"
           "go_fast,gramschmidt,hdiff,k3mm,layernorm,logreg,mlp,mvt,"
           "self_attention,softmax,thomas,vadv")


def median_time(call, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--kernels", default=DEFAULT)
    ns = ap.parse_args()
    print(f"{'kernel':18s} {'fwd ms':>8s} {'jvp/fwd':>8s} {'grad/fwd':>9s} "
          f"{'hvp/fwd':>8s}")
    ratios = {"jvp": [], "grad": [], "hvp": []}
    for name in ns.kernels.split(","):
        fn = KERNELS[name][0]
        args = SIZES[name]["S"](np.random.default_rng(0))
        names = list(inspect.signature(fn).parameters)
        floats = [isinstance(a, np.ndarray) and a.dtype.kind == "f"
                  for a in args]
        rng = np.random.default_rng(1)
        tangents = [rng.standard_normal(a.shape).astype(a.dtype) if f
                    else None for a, f in zip(args, floats)]
        wrt = [n for n, f in zip(names, floats) if f]
        prog = sdfg.program(fn)
        written = bool(prog.compile(*args).written)

        def fresh():
            return copy.deepcopy(args) if written else args
        calls = {"fwd": lambda: prog(*fresh())}
        try:
            sdfg.jvp(fn, fresh(), tangents)
            calls["jvp"] = lambda: sdfg.jvp(fn, fresh(), tangents)
        except (sdfg.ToolError, sdfg.FrontendError) as e:
            # Kernels that return nothing (they update arguments in place)
            # have no tangent for sdfg.jvp to return.
            print(f"{name:18s} jvp refused: {str(e).splitlines()[0][-60:]}")
            continue
        r = prog(*fresh())
        out = "return:0" if isinstance(r, tuple) else "return"
        g = sdfg.grad(fn, wrt, output=out)
        g(*fresh())
        calls["grad"] = lambda: g(*fresh())
        try:
            sdfg.hvp(fn, fresh(), tangents, output=out)
            calls["hvp"] = lambda: sdfg.hvp(fn, fresh(), tangents,
                                            output=out)
        except sdfg.ToolError:
            pass
        # Each variant in a block of its own after a warm-up call:
        # alternating them call by call let one program's memory traffic
        # (hvp's matrix-sized tangents) slow the next (atax's forward read
        # 90 ms instead of 2.5).
        med = {}
        for k, c in calls.items():
            c()
            med[k] = median_time(c, ns.repeat)
        row = [f"{name:18s}", f"{med['fwd'] * 1e3:8.3f}"]
        for k in ("jvp", "grad", "hvp"):
            if k in med:
                ratios[k].append(med[k] / med["fwd"])
                row.append(f"{med[k] / med['fwd']:8.2f}")
            else:
                row.append(f"{'-':>8s}")
        print(" ".join(row))
    geo = {k: float(np.exp(np.mean(np.log(v)))) for k, v in ratios.items()
           if v}
    print("geometric mean over the forward: " +
          ", ".join(f"{k} {v:.2f}" for k, v in geo.items()))


if __name__ == "__main__":
    main()
