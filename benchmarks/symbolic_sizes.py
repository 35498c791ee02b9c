"""Sizes as symbols (frontend/symbols.py: int loop bounds;
frontend/symbolic_sizes.py: array extents) against compiling each value
in: compile counts and times over a sweep, and run time of the symbolic
program against the specialised one, side by side in one process.

    /usr/bin/python3 benchmarks/symbolic_sizes.py [--repeat 21]

Two sweeps, each over 10 values and compiled three ways (dynamic=True:
symbols from the first call; static_argnames= naming every size argument,
which compiles each value in as before; and the default, dynamic=None,
which compiles the first shape in and then the symbolic program: its
compile count is the "(auto)" column), each with a fresh cache:
- step counts T of three time-loop kernels (a 1-d heat equation, a 2-d
  Jacobi sweep, an explicit Euler integration of a damped oscillator);
- array sizes n of four kernels (the heat equation and Jacobi sweep at a
  fixed T, a dense layer with a softmax-like normalisation, a 2-d
  five-point Laplacian with a reduction).
Then, at the largest value, the median time of a call of each program
(alternating calls), and the median over the repeats of the ratio of the
two calls of each repeat, with its 10th-90th percentile spread. A report,
not a test.
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


def dense(x, W, b):
    h = np.tanh(x @ W + b)
    return h / np.sum(h * h, axis=1, keepdims=True)


def laplace_2d(u):
    r = u[1:-1, 1:-1] * -4.0 + u[:-2, 1:-1] + u[2:, 1:-1] + \
        u[1:-1, :-2] + u[1:-1, 2:]
    return np.sqrt(np.sum(r * r))


def step_cases(rng):
    """(name, function, arguments for a value, the size arguments)."""
    return [
        ("heat_1d", heat_1d, lambda T: (rng.random(20000), T, 0.1),
         ("u", "T")),
        ("jacobi_2d", jacobi_2d,
         lambda T: (rng.random((200, 200)), rng.random((200, 200)), T),
         ("A", "B", "T")),
        ("oscillator", oscillator,
         lambda T: (rng.random(5000), rng.random(5000), T, 0.01),
         ("x", "v", "T")),
    ]


def size_cases(rng):
    return [
        ("heat_1d", heat_1d, lambda n: (rng.random(200 * n), 100, 0.1),
         ("u", "T")),
        ("jacobi_2d", jacobi_2d,
         lambda n: (rng.random((20 * n, 20 * n)), rng.random((20 * n, 20 * n)),
                    20), ("A", "B", "T")),
        ("dense", dense,
         lambda n: (rng.random((8 * n + 3, 48)),
                    rng.random((48, 16 * n + 5)), rng.random(16 * n + 5)),
         ("x", "W", "b")),
        ("laplace_2d", laplace_2d, lambda n: (rng.random((30 * n, 30 * n)),),
         ("u",)),
    ]


def sweep(prog, make, values):
    """(compiles, seconds) of calling `prog` once per value."""
    n0 = native.compile_count
    t0 = time.perf_counter()
    for v in values:
        prog(*make(v))
    return native.compile_count - n0, time.perf_counter() - t0


def report(title, cases, values, repeat):
    print(f"{title}: sweep over {values[0]}..{values[-1]} (10 values); run "
          f"time at {values[-1]}, median of {repeat}")
    print(f"{'kernel':<12}{'compiles':>10}{'(static)':>10}{'(auto)':>8}"
          f"{'sweep s':>10}"
          f"{'(static)':>10}{'symbolic ms':>13}{'static ms':>11}"
          f"{'ratio':>8}{'spread':>16}")
    for name, fn, make, sizes in cases:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["SDFG_CACHE_DIR"] = cache
            symbolic = sdfg.program(fn, dynamic=True)
            static = sdfg.program(fn, static_argnames=sizes)
            c_sym, t_sym = sweep(symbolic, make, values)
            c_st, t_st = sweep(static, make, values)
            with tempfile.TemporaryDirectory() as own:
                os.environ["SDFG_CACHE_DIR"] = own
                c_def, _ = sweep(sdfg.program(fn), make, values)
            os.environ["SDFG_CACHE_DIR"] = cache
            args = make(values[-1])
            times = {"sym": [], "st": []}
            for _ in range(repeat):
                for key, prog in (("sym", symbolic), ("st", static)):
                    a = [x.copy() if isinstance(x, np.ndarray) else x
                         for x in args]
                    t0 = time.perf_counter()
                    prog(*a)
                    times[key].append(time.perf_counter() - t0)
            ms = {k: 1e3 * float(np.median(v)) for k, v in times.items()}
            ratios = np.array(times["sym"]) / np.array(times["st"])
            lo, hi = np.percentile(ratios, [10, 90])
            print(f"{name:<12}{c_sym:>10}{c_st:>10}{c_def:>8}{t_sym:>10.2f}"
                  f"{t_st:>10.2f}{ms['sym']:>13.3f}{ms['st']:>11.3f}"
                  f"{float(np.median(ratios)):>8.3f}"
                  f"{f'{lo:.2f}-{hi:.2f}':>16}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=21)
    opts = ap.parse_args()
    rng = np.random.default_rng(0)
    report("step counts T", step_cases(rng), [50 * k for k in range(1, 11)],
           opts.repeat)
    print()
    report("array sizes (n)", size_cases(rng), list(range(1, 11)),
           opts.repeat)


if __name__ == "__main__":
    main()
