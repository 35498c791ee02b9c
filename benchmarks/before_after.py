"""Two revisions of the compiler side by side, in one run: the forward
benchmark (frontend_vs_numpy.py) and the gradient benchmark
(gradient_vs_forward.py) of each, alternated so that both see the same
machine load.

    /usr/bin/python3 benchmarks/before_after.py OLD_TREE OLD_BUILD \\
        [--rounds 2] [--new-tree .] [--new-build build]

OLD_TREE is a checkout of the older revision (git worktree add), OLD_BUILD
its build directory. For each kernel it prints the compile time, the
forward time and the gradient time of both, as the median over the rounds,
and their ratio new/old (below 1: the new revision is faster). A report,
never a test.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(tree, build, script, extra=()):
    """Runs `script` of `tree` against `build` with a fresh cache; its
    stdout."""
    env = dict(os.environ, SDFG_BUILD_DIR=os.path.abspath(build),
               SDFG_CACHE_DIR=tempfile.mkdtemp(prefix="sdfg-ba-"))
    proc = subprocess.run(
        [sys.executable, os.path.join(tree, "benchmarks", script), *extra],
        cwd=tree, env=env, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"{script} in {tree} failed:\n{proc.stderr[-2000:]}")
    return proc.stdout


def forward_rows(text):
    """{kernel: (compile s, ours ms)} from frontend_vs_numpy's table."""
    rows = {}
    for m in re.finditer(r"^\| (\w+) \| ([\d.]+) \| [\d.]+ \| ([\d.]+) \|",
                         text, re.M):
        rows[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return rows


def gradient_rows(text):
    """{kernel: gradient ms} from gradient_vs_forward's lines."""
    return {m.group(1): float(m.group(2)) for m in re.finditer(
        r"^(\w+)\s+forward\s+[\d.]+ ms\s+gradient\s+([\d.]+) ms", text, re.M)}


def geo(xs):
    return statistics.geometric_mean(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old_tree")
    ap.add_argument("old_build")
    ap.add_argument("--new-tree", default=os.path.dirname(HERE))
    ap.add_argument("--new-build", default=None)
    ap.add_argument("--rounds", type=int, default=2)
    ns = ap.parse_args()
    new_build = ns.new_build or os.path.join(ns.new_tree, "build")
    sides = {"old": (ns.old_tree, ns.old_build),
             "new": (ns.new_tree, new_build)}
    fwd = {s: [] for s in sides}
    grad = {s: [] for s in sides}
    for r in range(ns.rounds):
        for side, (tree, build) in sides.items():
            print(f"round {r + 1}/{ns.rounds}: {side}", file=sys.stderr,
                  flush=True)
            fwd[side].append(forward_rows(run(
                tree, build, "frontend_vs_numpy.py", ("--repeat", "5"))))
            grad[side].append(gradient_rows(run(
                tree, build, "gradient_vs_forward.py")))

    def med(runs, kernel, pick):
        vals = [pick(r[kernel]) for r in runs if kernel in r]
        return statistics.median(vals) if vals else float("nan")

    kernels = sorted(set(fwd["old"][0]) & set(fwd["new"][0]))
    print("| kernel | compile old/new (s) | forward old/new (ms) | "
          "gradient old/new (ms) | forward new/old | gradient new/old |")
    print("|---|---:|---:|---:|---:|---:|")
    ratios_f, ratios_g = [], []
    for k in kernels:
        co, cn = (med(fwd[s], k, lambda x: x[0]) for s in ("old", "new"))
        fo, fn = (med(fwd[s], k, lambda x: x[1]) for s in ("old", "new"))
        go, gn = (med(grad[s], k, lambda x: x) for s in ("old", "new"))
        ratios_f.append(fn / fo)
        if go == go and gn == gn:
            ratios_g.append(gn / go)
        print(f"| {k} | {co:.2f} / {cn:.2f} | {fo:.3f} / {fn:.3f} | "
              f"{go:.2f} / {gn:.2f} | {fn / fo:.2f} | {gn / go:.2f} |")
    print(f"\nGeometric mean new/old: forward {geo(ratios_f):.3f}, "
          f"gradient {geo(ratios_g):.3f} ({len(kernels)} kernels, "
          f"{ns.rounds} rounds alternated, {os.cpu_count()} cores).")


if __name__ == "__main__":
    main()
