"""Time and peak memory of gradients under memory limits (--sdfg-checkpoint).

    /usr/bin/python3 benchmarks/checkpoint_memory.py [--quick] [--kernels=a,b]

For the paper's example (C, D float32 3620 x 3620), three time-loop
kernels and an implicit one (a linear solve per step), runs the gradient with store-all, recompute-all and the ILP at
several limits. Each configuration runs in a fresh process: the gradient
program's native function is called directly with arguments allocated and
touched beforehand, so the measured peak (VmHWM after resetting it, minus
VmRSS before the call; glibc and the program (SDFG_REUSE_MEMORY=0) told to
return large blocks to the system) is
what the program itself allocates, the quantity `mem` limits. A report,
not a test: it prints a Markdown table and flags any measurement over its
limit or more than 10% off the prediction.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "utils", "example"))

# sdfg first: it picks OpenBLAS's kernels for this CPU before numpy loads
# OpenBLAS (sdfg/blas.py).
import sdfg  # noqa: E402,F401

import numpy as np  # noqa: E402

from paper_ilp import paper_ilp as paper  # noqa: E402

MiB = 2.0 ** 20


# --------------------------------------------------------------------------
# Kernels
# --------------------------------------------------------------------------

def nonlinear_diffusion(u, steps: int):
    # du/dt = div(D(u) grad u) with D(u) = 1 / (1 + u^2).
    for t in range(steps):
        D = 1.0 / (1.0 + u * u)
        fx = D[1:, :] * (u[1:, :] - u[:-1, :])
        fy = D[:, 1:] * (u[:, 1:] - u[:, :-1])
        u[1:-1, :] += 0.1 * (fx[1:, :] - fx[:-1, :])
        u[:, 1:-1] += 0.1 * (fy[:, 1:] - fy[:, :-1])
    return np.sum(u * u)


def advection(u, steps: int):
    # u_t + a(u) u_x = 0 with a(u) = tanh(u), centred differences.
    for t in range(steps):
        a = np.tanh(u)
        adv = a[:, 1:-1] * (u[:, 2:] - u[:, :-2])
        u[:, 1:-1] -= 0.05 * adv
    return np.sum(u * u)


def reaction(u, steps: int):
    # Heat equation with a nonlinear source s(u) = exp(-u^2) u.
    for t in range(steps):
        s = np.exp(-u * u)
        r = s * u
        u[1:-1, 1:-1] += 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]) \
            + 0.01 * r[1:-1, 1:-1]
    return np.sum(u * u)


def implicit_diffusion(u, K, steps: int):
    # Backward Euler with a dense operator, then a pointwise nonlinearity:
    # one linear solve per step (the LU cache lives through the loop).
    M = np.eye(u.shape[0]) + K
    for t in range(steps):
        u = np.linalg.solve(M, u)
        u = u + 0.01 * np.tanh(u)
    return np.sum(u * u)


def make_inputs(name, quick):
    rng = np.random.default_rng(0)
    if name == "paper":
        n = 1024 if quick else 3620
        return paper, ["C", "D"], (rng.random((n, n), np.float32),
                                   rng.random((n, n), np.float32))
    if name == "implicit_diffusion":
        n, m, steps = (128, 64, 10) if quick else (512, 256, 20)
        return implicit_diffusion, ["u", "K"], (
            rng.random((n, m)), 0.1 * rng.random((n, n)) / n, steps)
    n, steps = (128, 10) if quick else (512, 40)
    fn = {"nonlinear_diffusion": nonlinear_diffusion, "advection": advection,
          "reaction": reaction}[name]
    return fn, ["u"], (rng.random((n, n)), steps)


# --------------------------------------------------------------------------
# One configuration, in a fresh process
# --------------------------------------------------------------------------

def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def native_arguments(g, args):
    """The arguments of gradient `g`'s native function for `args` (by ABI
    name: inputs copied in, d___return seeds ones, the rest zeros),
    allocated and touched before measuring."""
    entry, _ = next(iter(g._checked.values()))
    by_name = {p[1]: a for p, a in zip(entry.meta["params"], args)}
    cargs = []
    for a in entry.function.args:
        if a["kind"] != "array":
            raise RuntimeError("scalar argument in benchmark kernel")
        value = np.zeros(a["shape"], dtype=a["dtype"])
        if a["name"] in by_name:
            value[...] = by_name[a["name"]]
        if a["name"].startswith("d___return"):
            value[...] = 1
        cargs.append(value)
    return entry.function, cargs


def measure(function, cargs, calls=3):
    """Times of `calls` calls of `function` on fresh copies of `cargs`
    (after a warm-up call: threads, page tables) and the most any call
    added to the resident set (VmHWM reset before each)."""
    function(*[c.copy() for c in cargs])
    times, peak = [], 0
    for _ in range(calls):
        run = [c.copy() for c in cargs]
        before = _status("VmRSS")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current RSS
        t0 = time.perf_counter()
        function(*run)
        times.append(time.perf_counter() - t0)
        peak = max(peak, _status("VmHWM") - before)
    return times, peak


def child(name, quick, options):
    fn, wrt, args = make_inputs(name, quick)
    g = sdfg.grad(fn, wrt, **options)
    g(*args)  # compile, and check it runs
    times, peak = measure(*native_arguments(g, args))
    info = g.checkpoint or {}
    print(json.dumps({"time": sorted(times)[1], "peak": peak, "info": info}))


def run_config(name, quick, options, cache):
    # glibc and the program give large blocks back, so each measured call
    # allocates (and is timed allocating) what it uses.
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536",
               SDFG_REUSE_MEMORY="0",
               SDFG_CACHE_DIR=cache)
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", name,
         "quick" if quick else "full", json.dumps(options)],
        capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["?"]
        return {"error": last[0]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    quick = "--quick" in sys.argv
    cache = tempfile.mkdtemp(prefix="sdfg-bench-")
    rows = []
    names = ["paper", "nonlinear_diffusion", "advection", "reaction",
             "implicit_diffusion"]
    for arg in sys.argv[1:]:
        if arg.startswith("--kernels="):
            names = arg[len("--kernels="):].split(",")
    for name in names:
        base = run_config(name, quick, {"strategy": "store-all"}, cache)
        every = run_config(name, quick, {"strategy": "recompute-all"}, cache)
        configs = [("store-all", {"strategy": "store-all"}, base),
                   ("recompute-all", {"strategy": "recompute-all"}, every)]
        hi = base["info"]["store_all_peak_bytes"] if "info" in base else 0
        lo = every["info"]["peak_bytes"] if "info" in every else 0
        if name == "paper" and not quick:
            limits = [600, 500, 450, 400, 300]
        else:
            limits = [(lo + f * (hi - lo)) / MiB for f in (0.75, 0.5, 0.25)]
            limits.append(lo / MiB * 0.9)  # infeasible
        for mem in limits:
            opts = {"mem": mem, "strategy": "ilp"}
            configs.append((f"ilp mem={mem:.1f}", opts,
                            run_config(name, quick, opts, cache)))
        for label, _, r in configs:
            rows.append((name, label, r))
            print(f"{name:20s} {label:22s} "
                  + (r["error"] if "error" in r else
                     f"{r['peak'] / MiB:8.1f} MiB {r['time'] * 1e3:8.1f} ms"),
                  file=sys.stderr)
    print("| kernel | configuration | recomputed | predicted peak | "
          "measured peak | measured / predicted | time | check |")
    print("|---|---|---|---|---|---|---|---|")
    base_time = {}
    for name, label, r in rows:
        if "error" in r:
            msg = r["error"].split("error: ")[-1]
            print(f"| {name} | {label} | | | | | | {msg} |")
            continue
        info = r["info"]
        pred = info["peak_bytes"]
        ratio = r["peak"] / pred if pred else float("nan")
        if label == "store-all":
            base_time[name] = r["time"]
        ok = []
        if "limit_bytes" in info and r["peak"] > info["limit_bytes"]:
            ok.append("OVER LIMIT")
        if pred and abs(ratio - 1) > 0.10:
            ok.append("off by more than 10%")
        slow = r["time"] / base_time.get(name, r["time"])
        print(f"| {name} | {label} | {', '.join(info['recompute']) or '-'} "
              f"| {pred / MiB:.1f} MiB | {r['peak'] / MiB:.1f} MiB | "
              f"{ratio:.3f} | {r['time'] * 1e3:.1f} ms ({slow:.2f}x) | "
              f"{'; '.join(ok) or 'ok'} |")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3] == "quick", json.loads(sys.argv[4]))
    else:
        main()
