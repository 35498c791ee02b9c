"""JAX's checkpointed scans beside our loop checkpointing, at the same
memory (issue 34's comparison).

    PYTHON_WITH_JAX benchmarks/loop_checkpointing_jax.py [--quick]
        [--kernels=diffusion1d,stencil2d,rnn]

Needs a Python with `jax` (float64 enabled here); ours runs through the
same interpreter with the frontend from python-frontend/ (the system
NumPy is fine: a venv made with --system-site-packages works). Per kernel
of benchmarks/loop_checkpointing.py, at its default size:

- JAX: `jax.jit(jax.grad(f))` with the time loop a `lax.scan` of the
  step: storing every step's residuals ("store-all"), with the step under
  `jax.checkpoint` (one carry per step), and as a scan of k-step chunks
  each under `jax.checkpoint` (T/k carries and one chunk's residuals: the
  usual way to trade time for memory in JAX), for several k;
- ours: `sdfg.grad(f, mem=...)` at each JAX configuration's measured peak
  (the ILP picks the schedule for that memory).

Each configuration runs in a fresh process; time is the median of 3
calls after a warm-up. JAX's memory is XLA's own count of the compiled
gradient's temporaries (`memory_analysis().temp_size_in_bytes`: XLA
reuses the first call's buffers, so the resident set shows little);
ours is measured as in checkpoint_memory.py (VmHWM after resetting it
minus VmRSS before the call, arguments allocated beforehand), and the
limit we are given is JAX's figure. Both gradients are checked against each other
(rtol 1e-9) before timing. A report, never a test.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python-frontend"))
sys.path.insert(0, HERE)

MiB = 2.0 ** 20


def _status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def jax_step(name):
    """The loop body as a JAX function of (carry, x_t) -> carry, and how
    the loss is formed from the final carry."""
    import jax.numpy as jnp

    if name == "diffusion1d":
        def step(u, _):
            D = 1.0 / (1.0 + u * u)
            flux = D[1:] * (u[1:] - u[:-1])
            return u.at[1:-1].add(0.2 * (flux[1:] - flux[:-1])), None
        return step, lambda u: jnp.sum(u * u)
    if name == "stencil2d":
        def step(u, _):
            s = jnp.exp(-u * u) * u
            lap = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                   - 4.0 * u[1:-1, 1:-1])
            return u.at[1:-1, 1:-1].add(0.1 * lap + 0.01 * s[1:-1, 1:-1]), \
                None
        return step, lambda u: jnp.sum(u * u)
    raise ValueError(name)


def jax_grad(name, args, mode, k):
    """jit(grad) of the kernel over its differentiated arguments."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    if name == "rnn":
        W, U, x, h0 = args

        def loss(W, U):
            def step(h, xt):
                return jnp.tanh(W @ h + U @ xt), None
            return jnp.sum(run(step, h0, x) ** 2)
    else:
        u0, steps = args
        step, final = jax_step(name)

        def loss(u0):
            return final(run(step, u0, None, steps))

    def run(step, c0, xs, length=None):
        T = length if xs is None else xs.shape[0]
        if mode == "store-all":
            return lax.scan(step, c0, xs, length=T)[0]
        if mode == "per-step":
            return lax.scan(jax.checkpoint(step), c0, xs, length=T)[0]
        # Chunks of k steps, each under jax.checkpoint (T divisible by k).
        chunk_xs = None if xs is None else xs.reshape((T // k, k) +
                                                      xs.shape[1:])

        @jax.checkpoint
        def chunk(c, cx):
            return lax.scan(step, c, cx, length=k)[0], None
        return lax.scan(chunk, c0, chunk_xs, length=T // k)[0]

    argnums = (0, 1) if name == "rnn" else (0,)
    g = jax.jit(jax.grad(loss, argnums=argnums))
    diff = args[:2] if name == "rnn" else args[:1]
    return g, diff


def child_jax(name, size, mode, k):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from loop_checkpointing import make_inputs

    _, _, args, _ = make_inputs(name, size)
    g, diff = jax_grad(name, args, mode, k)
    dev = [jnp.asarray(a) for a in diff]
    jax.block_until_ready(g(*dev))  # compile
    # XLA keeps the buffers of the first call for the next ones, so the
    # resident set does not show a call's temporaries: the compiler's
    # own figure does (temporaries, outputs and arguments excluded, as
    # ours are).
    peak = g.lower(*dev).compile().memory_analysis().temp_size_in_bytes
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        jax.block_until_ready(g(*dev))
        times.append(time.perf_counter() - t0)
    print(json.dumps({"time": sorted(times)[1], "peak": peak}))


def check(name):
    """Our gradient and JAX's agree (a smaller size, float64)."""
    import jax
    jax.config.update("jax_enable_x64", True)
    import numpy as np
    import sdfg
    from loop_checkpointing import make_inputs

    fn, wrt, args, _ = make_inputs(name, "quick")
    ours = sdfg.grad(fn, wrt)(*args)
    g, diff = jax_grad(name, args, "store-all", 1)
    theirs = g(*diff)
    for w, t in zip(wrt, theirs):
        np.testing.assert_allclose(ours[w], np.asarray(t), rtol=1e-9,
                                   atol=1e-12)


def spawn(argv, cache):
    # glibc and the program give large blocks back, so each measured call
    # allocates (and is timed allocating) what it uses.
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536",
               SDFG_REUSE_MEMORY="0",
               SDFG_CACHE_DIR=cache, XLA_FLAGS="--xla_cpu_multi_thread_eigen"
               "=true")
    proc = subprocess.run([sys.executable] + argv, capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1:] or ["?"]
        return {"error": last[0]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    size = "quick" if "--quick" in sys.argv else "default"
    names = ["diffusion1d", "stencil2d", "rnn"]
    for arg in sys.argv[1:]:
        if arg.startswith("--kernels="):
            names = arg[len("--kernels="):].split(",")
    from loop_checkpointing import make_inputs
    cache = tempfile.mkdtemp(prefix="sdfg-loops-jax-")
    ours_script = os.path.join(HERE, "loop_checkpointing.py")
    print("| kernel | JAX configuration | JAX peak | JAX gradient | ours at "
          "that memory: schedule | our peak | our gradient | JAX / ours |")
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        check(name)
        steps = make_inputs(name, size)[3]
        configs = [("store-all", 1), ("per-step", 1)]
        for k in (10, 50, 100, 500, 1000):
            if k < steps and steps % k == 0:
                configs.append(("chunks", k))
        for mode, k in configs:
            label = f"chunks of {k}" if mode == "chunks" else mode
            j = spawn([os.path.abspath(__file__), "--child", name, size,
                       mode, str(k)], cache)
            if "error" in j:
                print(f"| {name} | {label} | {j['error'][:100]} | | | | | |")
                continue
            mem = max(j["peak"], 1) / MiB
            o = spawn([ours_script, "--child", name, size,
                       json.dumps({"mem": mem})], cache)
            if "error" in o:
                msg = o["error"].split("error: ")[-1][:100]
                print(f"| {name} | {label} | {mem:.1f} MiB | "
                      f"{j['time'] * 1e3:.1f} ms | {msg} | | | |", flush=True)
                continue
            from loop_checkpointing import schedule
            print(f"| {name} | {label} | {mem:.1f} MiB | "
                  f"{j['time'] * 1e3:.1f} ms | {schedule(o['info'])} | "
                  f"{o['peak'] / MiB:.1f} MiB | {o['time'] * 1e3:.1f} ms | "
                  f"{j['time'] / o['time']:.2f} |", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child_jax(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        main()
