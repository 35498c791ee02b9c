"""Int loop bounds as symbols (frontend/symbols.py) against compiling each
value in: compile counts and times over a sweep, and run time of the
symbolic program against the specialised one, side by side in one process.

    /usr/bin/python3 benchmarks/symbolic_sizes.py [--repeat 21]

For three time-loop kernels (a 1-d heat equation, a 2-d Jacobi sweep, an
explicit Euler integration of a damped oscillator), a sweep over 10 step
counts T compiled both ways (the default, and static_argnames=("T",),
which compiles each T in as before), each with a fresh cache; then, at the
largest T, the median time of a call of each program (alternating
calls), and the median over the repeats of the ratio of the two calls of
each repeat, with its 10th-90th percentile spread. A report, not
a test.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))

import sdfg  # noqa: E402
from sdfg import native  # noqa: E402


def heat_1d(u, T, dt):
    for t in range(T):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def jacobi_2d(A, B, T):
    for t in range(1, T):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] +
                               A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] +
                               B[2:, 1:-1] + B[:-2, 1:-1])
    return np.sum(A)


def oscillator(x, v, T, dt):
    for t in range(T):
        a = -x - 0.1 * v
        x = x + dt * v
        v = v + dt * a
    return np.sum(x * x + v * v)


def cases(rng):
    return [
        ("heat_1d", heat_1d, lambda T: (rng.random(20000), T, 0.1)),
        ("jacobi_2d", jacobi_2d,
         lambda T: (rng.random((200, 200)), rng.random((200, 200)), T)),
        ("oscillator", oscillator,
         lambda T: (rng.random(5000), rng.random(5000), T, 0.01)),
    ]


def sweep(prog, make, steps):
    """(compiles, seconds) of calling `prog` once per step count."""
    n0 = native.compile_count
    t0 = time.perf_counter()
    for T in steps:
        prog(*make(T))
    return native.compile_count - n0, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=21)
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    steps = [50 * k for k in range(1, 11)]
    print(f"sweep over T = {steps[0]}..{steps[-1]} (10 values); run time "
          f"at T = {steps[-1]}, median of {opts.repeat}")
    print(f"{'kernel':<12}{'compiles':>10}{'(static)':>10}{'sweep s':>10}"
          f"{'(static)':>10}{'symbolic ms':>13}{'static ms':>11}"
          f"{'ratio':>8}{'spread':>16}")
    for name, fn, make in cases(rng):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["SDFG_CACHE_DIR"] = cache
            symbolic = sdfg.program(fn)
            static = sdfg.program(fn, static_argnames=("T",))
            c_sym, t_sym = sweep(symbolic, make, steps)
            c_st, t_st = sweep(static, make, steps)
            args = make(steps[-1])
            times = {"sym": [], "st": []}
            for _ in range(opts.repeat):
                for key, prog in (("sym", symbolic), ("st", static)):
                    a = [x.copy() if isinstance(x, np.ndarray) else x
                         for x in args]
                    t0 = time.perf_counter()
                    prog(*a)
                    times[key].append(time.perf_counter() - t0)
            ms = {k: 1e3 * float(np.median(v)) for k, v in times.items()}
            ratios = np.array(times["sym"]) / np.array(times["st"])
            lo, hi = np.percentile(ratios, [10, 90])
            print(f"{name:<12}{c_sym:>10}{c_st:>10}{t_sym:>10.2f}"
                  f"{t_st:>10.2f}{ms['sym']:>13.3f}{ms['st']:>11.3f}"
                  f"{float(np.median(ratios)):>8.3f}"
                  f"{f'{lo:.2f}-{hi:.2f}':>16}")


if __name__ == "__main__":
    main()
