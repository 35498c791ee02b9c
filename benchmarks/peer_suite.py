"""Forward and gradient time, memory and compile time against the peers.

    benchmarks/peers/setup.sh                        # once: venv with JAX,
                                                     # PyTorch, matplotlib
    /usr/bin/python3 benchmarks/peer_suite.py [--size S|L]
        [--kernels a,b,...] [--repeat 5] [--threads 2] [--out DIR]

The suite itself runs under the system Python, whose NumPy shares Debian's
OpenBLAS with our compiled programs (two OpenBLAS builds in one process
spin against each other's thread pools); JAX and PyTorch run in child
processes of the venv's Python, which also draws the plots.

Per kernel of benchmarks/peers/sizes.py, side by side in one process: NumPy
forward; our forward (sdfg.program) and gradient (sdfg.grad, store-all);
JAX `jax.jit(jax.grad(...))` and PyTorch autograd on the versions in
benchmarks/peers/{jax,torch}_kernels.py; medians over --repeat runs after a
warm-up, the same thread count for everyone. Every gradient is checked
against central finite differences of the NumPy kernel (float64, one
random direction, steps 1e-6 and 1e-7) in the same run; a wrong one is reported as wrong and not
timed. Also: cold-cache compile time of our forward and gradient, the
predicted peak memory of our gradient with everything stored and with the
ILP at a limit below that (the prediction matches measured peaks within
0.3%: benchmarks/checkpoint_memory.py), and the lines of each version.

Writes results.csv, results.md and PNG plots into --out (default
benchmarks/results/peers-<size>). A report, not a test.
"""

import argparse
import copy
import csv
import inspect
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", default="S", choices=["S", "L"])
    p.add_argument("--kernels", default="")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", default="")
    p.add_argument("--no-peers", action="store_true",
                   help="only NumPy and ours (no JAX/PyTorch needed)")
    p.add_argument("--peer-timeout", type=float, default=300,
                   help="seconds for one peer's check and timing")
    p.add_argument("--bind", action="store_true",
                   help="pin OpenMP threads (OMP_PROC_BIND=spread, "
                   "OMP_PLACES=cores) for every tool: on VMs, a woken "
                   "worker can land on its caller's vCPU and stay there")
    p.add_argument("--peer-child", default="", help=argparse.SUPPRESS)
    p.add_argument("--plot-only", default="", help=argparse.SUPPRESS)
    return p.parse_args()


ARGS = _parse()
# Thread counts must be set before the libraries start their pools.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = str(ARGS.threads)
if ARGS.threads == 1:
    os.environ["XLA_FLAGS"] = ("--xla_cpu_multi_thread_eigen=false "
                               "intra_op_parallelism_threads=1")
if ARGS.bind:
    # Inherited by the peers' child processes (PyTorch's OpenMP honours
    # them too).
    os.environ["OMP_PROC_BIND"] = "spread"
    os.environ["OMP_PLACES"] = "cores"
os.environ.setdefault("SDFG_CACHE_DIR", tempfile.mkdtemp(prefix="sdfg-"))

sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))
sys.path.insert(0, HERE)

# sdfg first: it picks OpenBLAS's kernels for this CPU before numpy loads
# OpenBLAS (sdfg/blas.py).
import sdfg  # noqa: E402

import numpy as np  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402
from peers.sizes import DOMAIN, OUTPUT, SIZES, WRT  # noqa: E402

jax = torch = None
JAX_LOSSES, JAX_UNSUPPORTED, TORCH_LOSSES, TORCH_UNSUPPORTED = {}, {}, {}, {}
if ARGS.peer_child:  # only the children run the peers
    import jax  # noqa: E402
    jax.config.update("jax_enable_x64", True)
    import torch  # noqa: E402
    torch.set_num_threads(ARGS.threads)
    from peers.jax_kernels import LOSSES as JAX_LOSSES  # noqa: E402
    from peers.jax_kernels import UNSUPPORTED as JAX_UNSUPPORTED  # noqa: E402
    from peers.torch_kernels import LOSSES as TORCH_LOSSES  # noqa: E402
    from peers.torch_kernels import UNSUPPORTED as TORCH_UNSUPPORTED  # noqa

MiB = 2.0 ** 20
FD_TOL = 1e-5
# Two tools whose directional derivatives agree this closely compute the
# same gradient: if both disagree with finite differences, the FD is what
# is off (a sum that is constant in the inputs, a branch flipped by h).
AGREE_TOL = 1e-9
QUIET = 0.3
WARM = 2
VENV_PYTHON = os.path.join(HERE, ".venv", "bin", "python")


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def progress(i, n, name, stage):
    width = 30
    done = int(width * i / n)
    sys.stderr.write(f"\r[{'#' * done}{'.' * (width - done)}] {i}/{n} "
                     f"{name:<18} {stage:<22}")
    sys.stderr.flush()


def median_time(fn, prepare, repeat):
    """Median wall time of fn(*prepare()) over `repeat` runs after one
    warm-up; prepare() runs outside the timed region. After the warm-up the
    process idles for QUIET seconds: OpenBLAS worker threads spin for about
    0.1 s after their last call (numpy's FD runs, compiles), and on a
    2-core machine one spinning thread halves an OpenMP team's speed and
    stalls its barriers - measured up to 14x on a 0.25 ms kernel. The
    first calls after that idle time run slow on this VM (fdtd_2d's
    gradient: 4.5 and 4.4 ms, then 0.4; with 7 timed calls a few such made
    its forward read 2.5 ms against 0.17), so WARM more calls go untimed."""
    fn(*prepare())
    time.sleep(QUIET)
    for _ in range(WARM):
        fn(*prepare())
    times = []
    for _ in range(repeat):
        a = prepare()
        t0 = time.perf_counter()
        fn(*a)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def code_lines(fn):
    """Lines of a function's source that are neither blank, comments nor
    docstrings."""
    if fn is None:
        return None
    src = inspect.getsource(fn)
    lines = set()
    prev = tokenize.INDENT
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
                        tokenize.INDENT, tokenize.DEDENT):
            prev = tok.type
            continue
        if tok.type == tokenize.STRING and prev in (
                tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT):
            prev = tok.type
            continue  # a docstring
        prev = tok.type
        lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines)


def is_loop_kernel(fn):
    src = inspect.getsource(fn)
    return "for " in src or "while " in src


def summed(fn, args, spec):
    names = list(inspect.signature(fn).parameters)
    run = copy.deepcopy(list(args))
    r = fn(*run)
    if spec == "return":
        return float(np.sum(r))
    if spec.startswith("return:"):
        return float(np.sum(r[int(spec[7:])]))
    return float(np.sum(run[names.index(spec)]))


def to64(args):
    return tuple(a.astype(np.float64) if isinstance(a, np.ndarray)
                 and a.dtype == np.float32 else a for a in args)


def fd_directional(fn, args, spec, wrt, dirs, h=1e-6):
    names = list(inspect.signature(fn).parameters)

    def shifted(s):
        a = list(copy.deepcopy(args))
        for w in wrt:
            i = names.index(w)
            a[i] = a[i] + s * h * dirs[w]
        return summed(fn, a, spec)
    return (shifted(1.0) - shifted(-1.0)) / (2 * h)


def check(grads, dirs, fds):
    """Against central differences at two steps: a kernel with branches on
    data (np.where, minmod) can flip one between x+h and x-h, which puts a
    jump into one of them, not (in practice) into both."""
    ad = sum(float(np.sum(np.asarray(grads[w], dtype=np.float64) * dirs[w]))
             for w in dirs)
    err = min(abs(ad - fd) / max(abs(fd), 1.0) for fd in fds)
    return err <= FD_TOL, err, ad


def agree(a, b):
    return a is not None and b is not None and \
        abs(a - b) <= AGREE_TOL * max(abs(a), abs(b), 1.0)


def reconcile(row):
    """A tool that misses FD but agrees with another tool is right (the FD
    is unreliable there); one that agrees with no one is wrong and loses
    its time."""
    tools = ("ours", "jax", "torch")
    for t in tools:
        if row.get(f"{t}_ok") is not False:
            continue
        mates = [u for u in tools if u != t and
                 agree(row.get(f"{t}_ad"), row.get(f"{u}_ad"))]
        if mates:
            row[f"{t}_ok"] = True
            row[f"{t}_fd_note"] = "FD unreliable: agrees with " + \
                ", ".join(mates)
            if t != "ours":
                row[f"{t}_note"] = ""
        else:
            row[f"{t}_grad"] = None


# --------------------------------------------------------------------------
# Peers
# --------------------------------------------------------------------------

def jax_setup(name, args, wrt):
    loss = JAX_LOSSES[name]
    names = list(inspect.signature(loss).parameters)
    argnums = tuple(names.index(w) for w in wrt)
    static = tuple(i for i, a in enumerate(args)
                   if isinstance(a, (int, np.integer)) and
                   not isinstance(a, bool))
    g = jax.jit(jax.grad(loss, argnums=argnums), static_argnums=static)
    jargs = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a
             for a in args]

    def run(*a):
        out = g(*a)
        jax.block_until_ready(out)
        return out
    return run, (lambda: jargs), argnums


def torch_setup(name, args, wrt):
    loss = TORCH_LOSSES[name]
    names = list(inspect.signature(loss).parameters)
    idx = [names.index(w) for w in wrt]

    # The same leaves every call, as JAX's (and, for kernels that write no
    # argument, ours): only their accumulated gradients are cleared.
    t = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a
         for a in args]
    for i in idx:
        t[i].requires_grad_(True)

    def prepare():
        for i in idx:
            t[i].grad = None
        return t

    def run(*t):
        loss(*t).backward()
        # Arguments that do not reach the output get no gradient.
        return [t[i].grad if t[i].grad is not None else torch.zeros_like(t[i])
                for i in idx]
    return run, prepare, idx


def run_peer(name, peer, fd):
    """Checks and times one peer in a child process; returns row fields."""
    if not os.path.exists(VENV_PYTHON):
        return {f"{peer}_note": "no venv: run benchmarks/peers/setup.sh"}
    cmd = [VENV_PYTHON, os.path.abspath(__file__), "--peer-child",
           f"{name}:{peer}:{fd[0]!r},{fd[1]!r}", "--size", ARGS.size, "--repeat",
           str(ARGS.repeat), "--threads", str(ARGS.threads)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=ARGS.peer_timeout)
    except subprocess.TimeoutExpired:
        return {f"{peer}_note": f"over {ARGS.peer_timeout:.0f} s (timeout)"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {f"{peer}_note": f"failed: {last}"[:160]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def peer_child(spec):
    """The child side of run_peer: prints the row fields as JSON."""
    name, peer, fd = spec.split(":")
    fd = [float(v) for v in fd.split(",")]
    fn = KERNELS[name][0]
    wrt = WRT[name]
    names = list(inspect.signature(fn).parameters)
    args = SIZES[name][ARGS.size](np.random.default_rng(0))
    args64 = to64(args)
    drng = np.random.default_rng(1)
    dirs = {w: drng.standard_normal(np.shape(args64[names.index(w)]))
            for w in wrt}
    losses, unsupported, setup = (
        (JAX_LOSSES, JAX_UNSUPPORTED, jax_setup) if peer == "jax" else
        (TORCH_LOSSES, TORCH_UNSUPPORTED, torch_setup))
    out = {}
    if name not in losses:
        out[f"{peer}_note"] = unsupported.get(name, "not written")
    else:
        out[f"lines_{peer}"] = code_lines(losses[name])
        run64, prep64, _ = setup(name, args64, wrt)
        grads = {w: np.asarray(o.detach() if hasattr(o, "detach") else o)
                 for w, o in zip(wrt, run64(*prep64()))}
        ok, err, ad = check(grads, dirs, fd)
        out[f"{peer}_ok"], out[f"{peer}_err"] = ok, err
        out[f"{peer}_ad"] = ad
        if not ok:
            out[f"{peer}_note"] = f"wrong gradient (rel. error {err:.1e})"
        # Timed even when FD disagrees: the parent keeps the time only if
        # another tool computes the same gradient (reconcile).
        run, prepare, _ = setup(name, args, wrt)
        out[f"{peer}_grad"] = median_time(run, prepare, ARGS.repeat)
    print(json.dumps(out))


# --------------------------------------------------------------------------
# One kernel
# --------------------------------------------------------------------------

def bench(name, size, repeat, step):
    fn = KERNELS[name][0]
    wrt, spec = WRT[name], OUTPUT[name]
    rng = np.random.default_rng(0)
    args = SIZES[name][size](rng)
    names = list(inspect.signature(fn).parameters)
    row = {"kernel": name, "domain": DOMAIN.get(name, "other"),
           "loop": is_loop_kernel(fn), "lines_numpy": code_lines(fn)}

    # Arguments are copied before a timed call only when the kernel writes
    # one; otherwise every call gets the same arrays,
    # as JAX's and PyTorch's calls do. A fresh copy of an 18 MB input
    # evicts the caches each call: go_fast's gradient, which reads 1500 of
    # its 2.25M elements, read 0.9 ms after a copy and 0.3 ms without.
    # Whether the kernel writes an argument: NumPy's run on a copy says.
    probe = copy.deepcopy(args)
    fn(*probe)
    written = any(isinstance(a, np.ndarray) and
                  not np.array_equal(a, b, equal_nan=True)
                  for a, b in zip(args, probe))

    def prep():
        return copy.deepcopy(args) if written else args

    step("numpy forward")
    row["numpy_fwd"] = median_time(fn, prep, repeat)

    # Finite differences in float64 along one random direction.
    step("finite differences")
    args64 = to64(args)
    drng = np.random.default_rng(1)
    dirs = {w: drng.standard_normal(np.shape(args64[names.index(w)]))
            for w in wrt}
    fd = [fd_directional(fn, args64, spec, wrt, dirs, h)
          for h in (1e-6, 1e-7)]

    # Ours: cold-cache compile, forward, gradient.
    cache = tempfile.mkdtemp(prefix="sdfg-cold-")
    os.environ["SDFG_CACHE_DIR"] = cache
    step("ours: compile forward")
    prog = sdfg.program(fn)
    t0 = time.perf_counter()
    prog.compile(*args)
    row["compile_fwd"] = time.perf_counter() - t0
    step("ours: forward")
    row["ours_fwd"] = median_time(prog, prep, repeat)
    step("ours: compile gradient")
    g = sdfg.grad(fn, wrt, output=spec, strategy="store-all")
    t0 = time.perf_counter()
    g(*prep())
    first = time.perf_counter() - t0
    step("ours: gradient")
    row["ours_grad"] = median_time(g, prep, repeat)
    row["compile_grad"] = max(first - row["ours_grad"], 0.0)
    row["peak_store_all"] = g.checkpoint["peak_bytes"]
    # Correctness in float64 (float32 kernels are timed in float32).
    g64 = sdfg.grad(fn, wrt, output=spec)
    ok, err, ad = check(g64(*copy.deepcopy(args64)), dirs, fd)
    row["ours_ok"], row["ours_err"], row["ours_ad"] = ok, err, ad

    # ILP at a limit between recompute-all and store-all.
    step("ours: ILP below store-all")
    every = sdfg.grad(fn, wrt, output=spec, strategy="recompute-all")
    every(*prep())
    lo = every.checkpoint["peak_bytes"]
    hi = row["peak_store_all"]
    row["ilp_limit"] = row["peak_ilp"] = row["ilp_grad"] = None
    row["ilp_recompute"] = ""
    if lo < hi:
        limit = (lo + hi) / 2
        try:
            ilp = sdfg.grad(fn, wrt, output=spec, mem=limit / MiB)
            ilp(*prep())
            row["ilp_limit"] = limit
            row["peak_ilp"] = ilp.checkpoint["peak_bytes"]
            row["ilp_recompute"] = " ".join(ilp.checkpoint["recompute"])
            row["ilp_grad"] = median_time(ilp, prep, repeat)
        except sdfg.ToolError as e:
            row["ilp_recompute"] = f"failed: {e}"[:160]

    # Peers, each in a child process with a time limit (eager PyTorch
    # autograd is quadratic on element-wise loops at large sizes).
    for peer in ("jax", "torch"):
        row[f"{peer}_grad"] = None
        row[f"{peer}_ok"] = None
        row[f"{peer}_note"] = ""
        row[f"lines_{peer}"] = None
        if ARGS.no_peers:
            row[f"{peer}_note"] = "not run (--no-peers)"
            continue
        step(f"{peer}: check and time")
        row.update(run_peer(name, peer, fd))
    reconcile(row)
    return row


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------

def fmt_t(t):
    if t is None:
        return "-"
    return f"{t * 1e3:.2f}" if t < 1 else f"{t * 1e3:.0f}"


def ratio(a, b):
    return a / b if a and b else None


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def write_report(rows, out, size):
    os.makedirs(out, exist_ok=True)
    keys = sorted({k for r in rows for k in r})
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    md = []
    bound = ", OpenMP threads pinned (--bind)" if ARGS.bind else ""
    md.append(f"Size {size}, {ARGS.threads} thread(s){bound}, median of "
              f"{ARGS.repeat}; times in ms. Speedups are peer gradient time "
              "over ours; grad/fwd is our gradient over our forward.\n")
    md.append("| kernel | NumPy fwd | ours fwd | vs NumPy | ours grad | "
              "grad/fwd | JAX grad | vs JAX | PyTorch grad | vs PyTorch | "
              "lines NumPy/JAX/PyTorch | compile fwd/grad (s) | peak store-all"
              " / ILP (limit) MiB |")
    md.append("|---" * 13 + "|")
    for r in rows:
        def peer(p):
            if r.get(f"{p}_grad") is None:
                return "-", r.get(f"{p}_note") or "-"
            s = ratio(r[f"{p}_grad"], r["ours_grad"])
            return fmt_t(r[f"{p}_grad"]), f"{s:.1f}x" if s else "-"
        jt, js = peer("jax")
        tt, ts = peer("torch")
        fwd_speed = ratio(r["numpy_fwd"], r["ours_fwd"])
        gf = ratio(r["ours_grad"], r["ours_fwd"])
        ours_grad = fmt_t(r["ours_grad"]) if r["ours_ok"] else \
            f"WRONG ({r['ours_err']:.1e})"
        mem = f"{r['peak_store_all'] / MiB:.1f}"
        if r.get("peak_ilp") is not None:
            mem += (f" / {r['peak_ilp'] / MiB:.1f} "
                    f"({r['ilp_limit'] / MiB:.1f})")
        lines = "/".join("-" if r.get(k) is None else str(r[k])
                         for k in ("lines_numpy", "lines_jax", "lines_torch"))
        md.append(
            f"| {r['kernel']}{' (loop)' if r['loop'] else ''} | "
            f"{fmt_t(r['numpy_fwd'])} | {fmt_t(r['ours_fwd'])} | "
            f"{fwd_speed:.1f}x | {ours_grad} | "
            f"{gf:.1f} | {jt} | {js} | {tt} | {ts} | {lines} | "
            f"{r['compile_fwd']:.1f}/{r['compile_grad']:.1f} | {mem} |"
            if fwd_speed and gf else
            f"| {r['kernel']} | {fmt_t(r['numpy_fwd'])} | "
            f"{fmt_t(r['ours_fwd'])} | - | {ours_grad} | - | {jt} | {js} | "
            f"{tt} | {ts} | {lines} | - | {mem} |")
    md.append("")
    md += targets(rows)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    plots(rows, out)
    return "\n".join(md)


def targets(rows):
    out = ["### Targets", ""]
    gf = geomean([ratio(r["ours_grad"], r["ours_fwd"]) for r in rows])
    out.append(f"- gradient/forward geometric mean: {gf:.2f} "
               f"(target <= 3){'' if gf and gf <= 3 else ': MISSED'}")
    for what, key_a, key_b, scale in (
            ("forward vs NumPy", "numpy_fwd", "ours_fwd", 1),
            ("gradient vs JAX", "jax_grad", "ours_grad", 1),
            ("gradient vs PyTorch", "torch_grad", "ours_grad", 1)):
        sp = [(r["kernel"], r["loop"], ratio(r[key_a], r[key_b]))
              for r in rows]
        have = [(k, lp, s) for k, lp, s in sp if s]
        if not have:
            continue
        g = geomean([s for _, _, s in have])
        slower = [f"{k} ({s:.2f}x)" for k, _, s in have if s < 1]
        loops = [f"{k} ({s:.1f}x)" for k, lp, s in have if lp and s < 10]
        out.append(f"- {what}: geometric mean {g:.1f}x over {len(have)} "
                   "kernels; slower on: " + (", ".join(slower) or "none") +
                   "; loop kernels under 10x: " + (", ".join(loops) or
                                                   "none"))
    unreliable = [f"{r['kernel']} ({t}: {r[f'{t}_fd_note'][15:]})"
                  for r in rows for t in ("ours", "jax", "torch")
                  if r.get(f"{t}_fd_note")]
    if unreliable:
        out.append("- finite differences unreliable, gradient accepted "
                   "because independent tools agree to "
                   f"{AGREE_TOL:.0e}: " + ", ".join(unreliable))
    wrong = [r["kernel"] for r in rows if not r["ours_ok"]]
    out.append("- wrong gradients (ours): " + (", ".join(wrong) or "none"))
    for p in ("jax", "torch"):
        bad = [r["kernel"] for r in rows if r.get(f"{p}_ok") is False]
        out.append(f"- wrong gradients ({p}): " + (", ".join(bad) or "none"))
    return out


def read_rows(out):
    """results.csv back into typed rows (for --plot-only)."""
    def typed(v):
        if v in ("", "None"):
            return None
        if v in ("True", "False"):
            return v == "True"
        try:
            return int(v)
        except ValueError:
            pass
        try:
            return float(v)
        except ValueError:
            return v
    with open(os.path.join(out, "results.csv")) as f:
        return [{k: typed(v) for k, v in r.items()} for r in csv.DictReader(f)]


def plots(rows, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # The system Python has no matplotlib; the venv's draws them.
        if os.path.exists(VENV_PYTHON) and not ARGS.plot_only:
            subprocess.run([VENV_PYTHON, os.path.abspath(__file__),
                            "--plot-only", out], check=False)
        else:
            print("matplotlib not available: no plots", file=sys.stderr)
        return
    names = [r["kernel"] for r in rows]
    x = np.arange(len(rows))
    for peer, label in (("jax", "JAX jit(grad)"), ("torch", "PyTorch")):
        sp = [ratio(r.get(f"{peer}_grad"), r["ours_grad"]) or np.nan
              for r in rows]
        fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.35), 4))
        ax.bar(x, sp, color=["tab:green" if s >= 1 else "tab:red"
                             for s in np.nan_to_num(sp, nan=1)])
        ax.set_yscale("log")
        ax.axhline(1, color="k", lw=0.8)
        ax.set_xticks(x, names, rotation=75, fontsize=7)
        ax.set_ylabel(f"{label} gradient time / ours")
        ax.set_title(f"Gradient speedup over {label} (higher is better)")
        fig.tight_layout()
        fig.savefig(os.path.join(out, f"speedup_over_{peer}.png"), dpi=110)
        plt.close(fig)
    gf = [ratio(r["ours_grad"], r["ours_fwd"]) or np.nan for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.35), 4))
    ax.axhspan(3, 5, color="tab:blue", alpha=0.15, label="cheap gradient 3-5")
    ax.bar(x, gf, color="tab:blue")
    ax.set_yscale("log")
    ax.set_xticks(x, names, rotation=75, fontsize=7)
    ax.set_ylabel("our gradient time / our forward time")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gradient_over_forward.png"), dpi=110)
    plt.close(fig)
    mem = [r for r in rows if r.get("peak_ilp") is not None]
    if mem:
        fig, ax = plt.subplots(figsize=(max(6, len(mem) * 0.5), 4))
        xm = np.arange(len(mem))
        ax.bar(xm - 0.2, [r["peak_store_all"] / MiB for r in mem], 0.4,
               label="store-all")
        ax.bar(xm + 0.2, [r["peak_ilp"] / MiB for r in mem], 0.4,
               label="ILP")
        ax.scatter(xm + 0.2, [r["ilp_limit"] / MiB for r in mem],
                   color="k", marker="_", s=200, label="limit", zorder=3)
        ax.set_xticks(xm, [r["kernel"] for r in mem], rotation=75,
                      fontsize=7)
        ax.set_ylabel("predicted peak (MiB)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "memory_vs_limit.png"), dpi=110)
        plt.close(fig)


def main():
    names = [k for k in ARGS.kernels.split(",") if k] or sorted(SIZES)
    unknown = [k for k in names if k not in SIZES]
    if unknown:
        sys.exit(f"unknown kernels: {', '.join(unknown)}")
    rows = []
    for i, name in enumerate(names):
        def step(stage, i=i, name=name):
            progress(i, len(names), name, stage)
        try:
            rows.append(bench(name, ARGS.size, ARGS.repeat, step))
        except Exception as e:
            sys.stderr.write(f"\n{name}: failed: {type(e).__name__}: {e}\n")
    progress(len(names), len(names), "", "done")
    sys.stderr.write("\n")
    out = ARGS.out or os.path.join(HERE, "results", f"peers-{ARGS.size}")
    print(write_report(rows, out, ARGS.size))
    print(f"\nwritten to {out}", file=sys.stderr)


if __name__ == "__main__":
    if ARGS.peer_child:
        peer_child(ARGS.peer_child)
    elif ARGS.plot_only:
        plots(read_rows(ARGS.plot_only), ARGS.plot_only)
    else:
        main()
