"""Gradients of time loops under memory limits: loop checkpointing.

    /usr/bin/python3 benchmarks/loop_checkpointing.py [--quick] [--large]
        [--kernels=diffusion1d,stencil2d,rnn] [--svg=FILE]

For a 1-D nonlinear diffusion, a 2-D stencil time loop and an RNN, runs
the forward program, the store-all gradient and the ILP's gradient at
limits from store-all down to 1% of it and the smallest feasible one.
Each configuration runs in a fresh process (checkpoint_memory.py's
method): the native gradient function is called with its arguments
allocated beforehand, and the measured peak is VmHWM after resetting it
minus VmRSS before the call. Printed per limit: the schedule chosen, the
predicted and measured peak, the gradient time, gradient / forward, and
the time the schedule predicts (store-all's gradient time plus the
iterations run again at the forward's time per iteration: an upper bound
where shorter tapes make the reverse sweep faster, flagged when the
measured time exceeds it by more than 20%). --svg writes a
plot of gradient time against the limit. A report, never a test: it flags
measured peaks over the limit or more than 10% off the prediction.

--large runs the issue's size (10^5 points, 10^4 steps: store-all about
8 GB); the default is 10^4 points.
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
sys.path.insert(0, HERE)

import sdfg  # noqa: E402,F401  (before numpy: sdfg/blas.py)

import numpy as np  # noqa: E402

from checkpoint_memory import measure, native_arguments  # noqa: E402

MiB = 2.0 ** 20


def diffusion1d(u0, steps: int):
    # u_t = (D(u) u_x)_x with D(u) = 1 / (1 + u^2), explicit Euler.
    u = u0.copy()
    for t in range(steps):
        D = 1.0 / (1.0 + u * u)
        flux = D[1:] * (u[1:] - u[:-1])
        u[1:-1] += 0.2 * (flux[1:] - flux[:-1])
    return np.sum(u * u)


def stencil2d(u0, steps: int):
    # Heat equation with a nonlinear source.
    u = u0.copy()
    for t in range(steps):
        s = np.exp(-u * u) * u
        u[1:-1, 1:-1] += 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:]
                                + u[1:-1, :-2] - 4.0 * u[1:-1, 1:-1]) \
            + 0.01 * s[1:-1, 1:-1]
    return np.sum(u * u)


def rnn(W, U, x, h0):
    h = h0.copy()
    for t in range(x.shape[0]):
        h = np.tanh(W @ h + U @ x[t])
    return np.sum(h * h)


def make_inputs(name, size):
    rng = np.random.default_rng(0)
    if name == "diffusion1d":
        n, steps = {"quick": (2000, 500), "default": (10000, 10000),
                    "large": (100000, 10000)}[size]
        return diffusion1d, ["u0"], (rng.random(n), steps), steps
    if name == "stencil2d":
        n, steps = {"quick": (64, 100), "default": (256, 500),
                    "large": (512, 1000)}[size]
        return stencil2d, ["u0"], (rng.random((n, n)), steps), steps
    h, d, steps = {"quick": (64, 16, 200), "default": (256, 64, 1000),
                   "large": (512, 128, 4000)}[size]
    return rnn, ["W", "U"], (0.5 * rng.random((h, h)) / np.sqrt(h),
                             rng.random((h, d)) / np.sqrt(d),
                             rng.random((steps, d)), rng.random(h)), steps


def child(name, size, options):
    fn, wrt, args, _ = make_inputs(name, size)
    forward = options.pop("forward", False)
    if forward:
        p = sdfg.program(fn)
        p(*args)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            p(*args)
            times.append(time.perf_counter() - t0)
        print(json.dumps({"time": sorted(times)[1]}))
        return
    longest = options.pop("longest", None)
    t0 = time.perf_counter()
    g = sdfg.grad(fn, wrt, **options)
    if longest is not None:
        # A schedule predicted to take more than `longest` seconds per call
        # (one snapshot: quadratic) is reported, not run.
        with open(os.path.join(g.precompile(*args), "meta.json")) as f:
            info = json.load(f).get("checkpoint") or {}
        rerun = sum(l["recomputed_iterations"] for l in info.get("loops", []))
        if rerun * longest[1] > longest[0]:
            print(json.dumps({"skipped": rerun * longest[1], "info": info}))
            return
    g(*args)
    compile_s = time.perf_counter() - t0
    times, peak = measure(*native_arguments(g, args))
    print(json.dumps({"time": sorted(times)[1], "spread": max(times) /
                      min(times), "peak": peak, "compile": compile_s,
                      "info": g.checkpoint or {}}))


def run_config(name, size, options, cache):
    # glibc and the program give large blocks back, so each measured call
    # allocates (and is timed allocating) what it uses.
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536",
               SDFG_REUSE_MEMORY="0",
               SDFG_CACHE_DIR=cache)
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", name, size,
         json.dumps(options)], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["?"]
        return {"error": last[0]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def schedule(info):
    loops = [l for l in info.get("loops", []) if l["segments"]]
    if not loops:
        return "store-all"
    return "; ".join(
        f"{l['name']}: binomial, {l['snapshots'][0]} snapshots"
        if l.get("schedule") == "binomial" else
        f"{l['name']}: segments {'/'.join(map(str, l['segments']))}, "
        f"{'+'.join(map(str, l['snapshots']))} snapshots"
        for l in loops)


def svg(results, path):
    """Gradient time against memory limit, one line per kernel (log-log),
    drawn by hand: no plotting package is installed here."""
    W, H, M = 640, 400, 60
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    pts = [(r["peak_mib"], r["time_ms"]) for rows in results.values()
           for r in rows]
    if not pts:
        return
    xs = [np.log10(max(p[0], 1e-3)) for p in pts]
    ys = [np.log10(max(p[1], 1e-3)) for p in pts]
    x0, x1 = min(xs) - 0.1, max(xs) + 0.1
    y0, y1 = min(ys) - 0.1, max(ys) + 0.1

    def sx(v):
        return M + (np.log10(max(v, 1e-3)) - x0) / (x1 - x0) * (W - 2 * M)

    def sy(v):
        return H - M - (np.log10(max(v, 1e-3)) - y0) / (y1 - y0) * (H - 2 * M)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" '
           f'height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<line x1="{M}" y1="{H - M}" x2="{W - M}" y2="{H - M}" '
           'stroke="black"/>',
           f'<line x1="{M}" y1="{M}" x2="{M}" y2="{H - M}" stroke="black"/>',
           f'<text x="{W / 2}" y="{H - 15}" text-anchor="middle">measured '
           'peak memory of the gradient call (MiB, log)</text>',
           f'<text x="15" y="{H / 2}" transform="rotate(-90 15 {H / 2})" '
           'text-anchor="middle">gradient time (ms, log)</text>']
    for e in range(int(np.floor(x0)), int(np.ceil(x1)) + 1):
        if x0 <= e <= x1:
            out.append(f'<text x="{sx(10 ** e)}" y="{H - M + 15}" '
                       f'text-anchor="middle">{10 ** e:g}</text>')
    for e in range(int(np.floor(y0)), int(np.ceil(y1)) + 1):
        if y0 <= e <= y1:
            out.append(f'<text x="{M - 5}" y="{sy(10 ** e) + 4}" '
                       f'text-anchor="end">{10 ** e:g}</text>')
    for k, (name, rows) in enumerate(results.items()):
        c = colours[k % len(colours)]
        line = " ".join(f"{sx(r['peak_mib']):.1f},{sy(r['time_ms']):.1f}"
                        for r in sorted(rows, key=lambda r: r["peak_mib"]))
        out.append(f'<polyline points="{line}" fill="none" stroke="{c}" '
                   'stroke-width="2"/>')
        for r in rows:
            out.append(f'<circle cx="{sx(r["peak_mib"]):.1f}" '
                       f'cy="{sy(r["time_ms"]):.1f}" r="3" fill="{c}"/>')
        out.append(f'<text x="{W - M - 5}" y="{M + 15 * k}" fill="{c}" '
                   f'text-anchor="end">{name}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    size = "quick" if "--quick" in sys.argv else \
        "large" if "--large" in sys.argv else "default"
    names = ["diffusion1d", "stencil2d", "rnn"]
    plot = None
    for arg in sys.argv[1:]:
        if arg.startswith("--kernels="):
            names = arg[len("--kernels="):].split(",")
        if arg.startswith("--svg="):
            plot = arg[len("--svg="):]
    cache = tempfile.mkdtemp(prefix="sdfg-loops-")
    print("| kernel | limit | schedule | predicted peak | measured peak | "
          "gradient | gradient / forward | predicted time | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    results = {}
    for name in names:
        steps = make_inputs(name, size)[3]
        fwd = run_config(name, size, {"forward": True}, cache)
        base = run_config(name, size, {"strategy": "store-all"}, cache)
        if "error" in base or "error" in fwd:
            print(f"| {name} | store-all | {base.get('error', '')} "
                  f"{fwd.get('error', '')} | | | | | | |")
            continue
        full = base["info"]["store_all_peak_bytes"]
        per_iter = fwd["time"] / steps
        configs = [("store-all", {"strategy": "store-all"}, base)]
        for frac in (0.5, 0.2, 0.1, 0.05, 0.02, 0.01):
            mem = frac * full / MiB
            configs.append((f"{frac:g} x store-all", {"mem": mem},
                            run_config(name, size, {"mem": mem}, cache)))
        # The smallest feasible limit, from the error of an impossible one.
        low = run_config(name, size, {"mem": 1e-6}, cache)
        text = low.get("error", "")
        if "(" in text and "bytes;" in text:
            smallest = int(text.split("(")[-1].split(" bytes;")[0])
            mem = smallest / MiB * 1.0001
            configs.append(("smallest", {"mem": mem}, run_config(
                name, size, {"mem": mem, "longest": (60.0, per_iter)},
                cache)))
        rows = []
        for label, _, r in configs:
            if "skipped" in r:
                print(f"| {name} | {label} | {schedule(r['info'])} | "
                      f"{r['info'].get('peak_bytes', 0) / MiB:.1f} MiB | | "
                      f"not run: predicted {r['skipped']:.0f} s per call "
                      f"| | | |")
                continue
            if "error" in r:
                msg = r["error"].split("error: ")[-1][:120]
                print(f"| {name} | {label} | {msg} | | | | | | |")
                continue
            info = r["info"]
            pred = info.get("peak_bytes", 0)
            rerun = sum(l["recomputed_iterations"]
                        for l in info.get("loops", []))
            predicted_time = base["time"] + rerun * per_iter
            check = []
            if "limit_bytes" in info and r["peak"] > info["limit_bytes"]:
                check.append("OVER LIMIT")
            if pred and abs(r["peak"] / pred - 1) > 0.10:
                check.append("peak off by >10%")
            if r["time"] > 1.2 * predicted_time:
                check.append("time >20% over prediction")
            rows.append({"peak_mib": r["peak"] / MiB,
                         "time_ms": r["time"] * 1e3})
            print(f"| {name} | {label} | {schedule(info)} | "
                  f"{pred / MiB:.1f} MiB | {r['peak'] / MiB:.1f} MiB | "
                  f"{r['time'] * 1e3:.1f} ms (spread {r['spread']:.2f}) | "
                  f"{r['time'] / fwd['time']:.2f} | "
                  f"{predicted_time * 1e3:.1f} ms | "
                  f"{'; '.join(check) or 'ok'} |", flush=True)
        results[name] = rows
        print(f"| {name} | forward | {steps} steps | | | "
              f"{fwd['time'] * 1e3:.1f} ms | 1 | | |", flush=True)
    if plot:
        svg(results, plot)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]))
    else:
        main()
