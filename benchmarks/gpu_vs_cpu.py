"""Forward and gradient time on the GPU against the CPU path, same machine.

    /usr/bin/python3 benchmarks/gpu_vs_cpu.py --precompile   # here
    utils/gpu-check.sh                                       # on the GPU node

The GPU machines lent to this project have no LLVM/MLIR, so everything is
compiled ahead (`--precompile`, run by utils/gpu-bundle.sh into the bundle's
cache) and loaded there from that cache. Per kernel and size of
benchmarks/peers/sizes.py (and the corpus's test size): our forward
(sdfg.program) and store-all gradient (sdfg.grad) with device="cpu" and
device="gpu", side by side in one process, medians of --repeat runs after a
warm-up. Every GPU result is checked against the CPU one (forward results
and gradients, rtol 1e-8; 2e-5 for float32 kernels) before it is timed. Results are written to --out
as results.jsonl (one line per case, as soon as it is measured, so a run
cut short keeps what it did) and results.md. A report, not a test.
"""

import argparse
import copy
import json
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python-frontend"))
sys.path.insert(0, os.path.join(ROOT, "python-frontend", "tests"))
sys.path.insert(0, HERE)

# sdfg first: it picks OpenBLAS's kernels for this CPU before numpy loads
# OpenBLAS (sdfg/blas.py).
import sdfg  # noqa: E402

import numpy as np  # noqa: E402
from sdfg.program import cache_dir  # noqa: E402
from corpus.kernels import KERNELS  # noqa: E402
from peers.sizes import OUTPUT, SIZES, WRT  # noqa: E402

# (kernel, sizes): a stencil time loop, a matmul chain, reductions and a
# deep-learning layer, as in the issue; L only where a store-all gradient
# stays well inside a few seconds on the CPU of a GPU node.
CASES = [
    ("jacobi_2d", ("S", "L")),
    ("heat_3d", ("S", "L")),
    ("k2mm", ("S", "L")),
    ("go_fast", ("S", "L")),
    ("softmax", ("S",)),
    ("mlp", ("S",)),
]


def _parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--precompile", action="store_true",
                   help="only build every program into the cache")
    p.add_argument("--kernels", default="",
                   help="comma-separated subset of the kernels above")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--budget", type=float, default=300,
                   help="seconds; cases not started by then are skipped")
    p.add_argument("--out", default=os.path.join(HERE, "results", "gpu"))
    p.add_argument("--gpu-device", default="gpu",
                   help="gpu-emulator tries the script without a GPU")
    return p.parse_args()


def _cases(selected):
    for name, sizes in CASES:
        if selected and name not in selected:
            continue
        for size in sizes:
            yield name, size


def _args(name, size):
    return SIZES[name][size](np.random.default_rng(0))


def _programs(name, device):
    fn = KERNELS[name][0]
    return (sdfg.program(fn, device=device),
            sdfg.grad(fn, WRT[name], output=OUTPUT[name], device=device))


def _time(fn, args, repeat, fresh, cap=20.0):
    """Median seconds of fn(*args) after one warm-up, fewer runs past `cap`
    seconds. With `fresh`, every run gets its own copy of the arguments
    (in-place kernels), made before the clock starts."""
    runs = [copy.deepcopy(args) if fresh else args
            for _ in range(repeat + 1)]
    fn(*runs[0])
    times = []
    start = time.perf_counter()
    for a in runs[1:]:
        t = time.perf_counter()
        fn(*a)
        times.append(time.perf_counter() - t)
        if time.perf_counter() - start > cap:
            break
    return statistics.median(times)


def _agree(a, b):
    if isinstance(a, tuple):
        return all(_agree(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is b
    # Parallel sums round differently: float32 kernels agree to its epsilon.
    single = np.asarray(b).dtype == np.float32
    return np.allclose(a, b, rtol=2e-5 if single else 1e-8,
                       atol=1e-6 if single else 1e-10)


def _device_name():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version",
             "--format=csv,noheader"], capture_output=True, text=True,
            timeout=30)
        return out.stdout.strip() or "unknown GPU"
    except (OSError, subprocess.SubprocessError):
        return "unknown GPU"


def precompile(selected):
    from test_gpu import EXECUTED, _wrt
    from test_gradients import _inputs, _output_spec
    from test_indexing import BAD_INDEX_CASES
    n = 0
    # What test_gpu.py's GPU executions call, at the corpus's test sizes.
    for name in EXECUTED:
        fn, args = _inputs(name)
        spec, wrt = _output_spec(fn, args), _wrt(fn, args)
        for device in ("cpu", "gpu"):
            sdfg.program(fn, device=device).precompile(
                *copy.deepcopy(args))
            sdfg.grad(fn, wrt, output=spec, device=device).precompile(
                *copy.deepcopy(args))
            n += 2
    # And its index errors (checked against NumPy's message).
    for fn, args, wrt, _ in BAD_INDEX_CASES:
        sdfg.program(fn, device="gpu").precompile(*copy.deepcopy(args))
        sdfg.grad(fn, wrt, device="gpu").precompile(*copy.deepcopy(args))
        n += 2
    # Its grid-stride kernels (maps past CUDA's 65535 blocks) and its
    # run-time checks (broadcast extents, loop indices).
    from test_broadcast_extents import mismatched_operands, window_product
    from test_gpu import TALL
    from test_loop_indices import past_the_end
    for fn, rows, wshape in TALL:
        x = np.linspace(0.1, 1.0, rows)
        w = np.arange(1.0, 1.0 + np.prod(wshape)).reshape(wshape) / 3
        sdfg.program(fn, device="gpu").precompile(x, w)
        sdfg.grad(fn, ["x", "w"], device="gpu").precompile(x, w)
        n += 2
    x = np.linspace(0.5, 2.0, 12)
    y = np.cos(x)
    for device in ("cpu", "gpu"):
        sdfg.grad(window_product, ["y"], device=device).precompile(x, y)
    for fn, args in ((window_product, (x, y)), (mismatched_operands, (x, y)),
                     (past_the_end, (x,))):
        sdfg.program(fn, device="gpu").precompile(*args)
    n += 5
    for name, size in _cases(selected):
        args = _args(name, size)
        for device in ("cpu", "gpu"):
            prog, grad = _programs(name, device)
            prog.precompile(*args)
            grad.precompile(*args)
            n += 2
        print(f"precompiled {name} {size}", flush=True)
    print(f"{n} programs in {cache_dir()}")


def run(opts, selected):
    os.makedirs(opts.out, exist_ok=True)
    jsonl = os.path.join(opts.out, "results.jsonl")
    rows = []
    header = {"date": time.strftime("%Y-%m-%d"),
              "gpu": (_device_name() if opts.gpu_device == "gpu"
                      else opts.gpu_device),
              "cpu": platform.processor() or platform.machine(),
              "threads": os.cpu_count(),
              "target_cpu": os.environ.get("SDFG_TARGET_CPU", "host")}
    with open(jsonl, "w") as f:
        f.write(json.dumps(header) + "\n")
    deadline = time.time() + opts.budget
    for name, size in _cases(selected):
        row = {"kernel": name, "size": size}
        if time.time() > deadline:
            row["skipped"] = "time budget"
        else:
            try:
                row.update(_measure(name, size, opts.repeat,
                                    opts.gpu_device))
            except Exception as e:  # report, keep going
                row["error"] = f"{type(e).__name__}: {e}"[:500]
        rows.append(row)
        print(json.dumps(row), flush=True)
        with open(jsonl, "a") as f:
            f.write(json.dumps(row) + "\n")
    _write_markdown(os.path.join(opts.out, "results.md"), header, rows)


def _measure(name, size, repeat, gpu_device):
    args = _args(name, size)
    cpu_prog, cpu_grad = _programs(name, "cpu")
    gpu_prog, gpu_grad = _programs(name, gpu_device)
    row = {}
    ca, ga = copy.deepcopy(args), copy.deepcopy(args)
    want, got = cpu_prog(*ca), gpu_prog(*ga)
    row["forward_agrees"] = bool(_agree(got, want) and all(
        _agree(x, y) for x, y in zip(ga, ca) if isinstance(x, np.ndarray)))
    gw, gg = cpu_grad(*args), gpu_grad(*args)
    row["gradient_agrees"] = all(_agree(gg[w], gw[w]) for w in gw)
    if not (row["forward_agrees"] and row["gradient_agrees"]):
        return row
    # In-place kernels run on fresh copies each time, as in the peer suite;
    # gradients never modify their arguments.
    row["cpu_forward"] = _time(cpu_prog, args, repeat, fresh=True)
    row["gpu_forward"] = _time(gpu_prog, args, repeat, fresh=True)
    row["cpu_gradient"] = _time(cpu_grad, args, repeat, fresh=False)
    row["gpu_gradient"] = _time(gpu_grad, args, repeat, fresh=False)
    return row


def _ms(x):
    return f"{1e3 * x:.2f}"


def _write_markdown(path, header, rows):
    lines = [f"GPU against CPU, {header['date']}: {header['gpu']}; CPU "
             f"{header['cpu']} ({header['threads']} threads, code for "
             f"{header['target_cpu']}). Milliseconds, medians. GPU times "
             "include copying the arguments to the GPU and back.",
             "",
             "| kernel | size | CPU fwd | GPU fwd | CPU grad | GPU grad | "
             "GPU speed-up fwd / grad |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if "cpu_forward" not in r:
            why = r.get("skipped") or r.get("error") or (
                "forward disagrees" if not r.get("forward_agrees")
                else "gradient disagrees")
            lines.append(f"| {r['kernel']} | {r['size']} | {why} ||||| ")
            continue
        lines.append(
            f"| {r['kernel']} | {r['size']} | {_ms(r['cpu_forward'])} | "
            f"{_ms(r['gpu_forward'])} | {_ms(r['cpu_gradient'])} | "
            f"{_ms(r['gpu_gradient'])} | "
            f"{r['cpu_forward'] / r['gpu_forward']:.1f}x / "
            f"{r['cpu_gradient'] / r['gpu_gradient']:.1f}x |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    opts = _parse()
    selected = [k for k in opts.kernels.split(",") if k]
    if opts.precompile:
        precompile(selected)
    else:
        run(opts, selected)


if __name__ == "__main__":
    main()
