"""The bundled examples, newest capability last:

1. an unmodified NumPy function (jacobi2d.py) compiled with sdfg.program,
   run, and printed next to NumPy's own result (and the hand-written dialect
   version, jacobi2d.mlir, checked against it);
2. the gradient of an in-place NumPy time loop (seidel2d.py) with
   sdfg.grad, checked against central finite differences;
3. the paper's store/recompute example (paper_ilp.py) differentiated under
   a memory limit below what storing everything needs: the ILP picks what
   to recompute, and the gradient is the same as with everything stored;
4. the gradient of a time loop on an unstructured mesh (graph_diffusion.py:
   gathers with integer arrays, np.add.at scatters) with respect to the
   edge conductances and the initial state, checked against finite
   differences;
5. the gradient of a Gaussian process's negative log marginal likelihood
   (gp_likelihood.py: np.linalg.slogdet and np.linalg.solve of a kernel
   matrix built by broadcasting) with respect to the length-scale, the
   noise level and the input locations, checked against finite
   differences.

Exits non-zero when anything disagrees.
"""

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python-frontend"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import sdfg  # noqa: E402
from jacobi2d import jacobi2d  # noqa: E402
from gp_likelihood import gp_nll  # noqa: E402
from graph_diffusion import graph_diffusion  # noqa: E402
from paper_ilp import paper_ilp  # noqa: E402
from seidel2d import seidel2d  # noqa: E402


def main():
    n, tsteps = 400, 50
    rng = np.random.default_rng(42)
    A0, B0 = rng.random((n, n)), rng.random((n, n))

    prog = sdfg.program(jacobi2d)
    t0 = time.perf_counter()
    prog.compile(A0, B0, tsteps)
    compile_s = time.perf_counter() - t0

    A, B = A0.copy(), B0.copy()
    prog(A.copy(), B.copy(), tsteps)  # warm-up (thread pool start)
    t0 = time.perf_counter()
    ours = prog(A, B, tsteps)
    ours_s = time.perf_counter() - t0

    eA, eB = A0.copy(), B0.copy()
    t0 = time.perf_counter()
    ref = jacobi2d(eA, eB, tsteps)
    numpy_s = time.perf_counter() - t0

    # The same program written directly in the sdfg dialect.
    with open(os.path.join(HERE, "jacobi2d.mlir")) as f:
        module = sdfg.compile_mlir(f.read())
    mA, mB = A0.copy(), B0.copy()
    module.jacobi2d(mA, mB, n, tsteps)

    err = max(np.max(np.abs(A - eA)), np.max(np.abs(B - eB)),
              np.max(np.abs(mA - eA)))
    print(f"Jacobi-2D in NumPy, N={n}, TSTEPS={tsteps}: "
          f"sdfg.program compiled it in {compile_s:.2f} s")
    print(f"  {'':>12} {'sdfg':>16} {'NumPy':>16}")
    for (i, j) in [(1, 1), (n // 2, n // 3), (n - 2, n - 2)]:
        print(f"  A[{i},{j}]".ljust(14) + f"{A[i, j]:16.10f} {eA[i, j]:16.10f}")
    print(f"  {'sum(A)':<12} {ours:16.8f} {ref:16.8f}")
    print(f"  {'time (ms)':<12} {ours_s * 1e3:16.2f} {numpy_s * 1e3:16.2f}")
    print(f"  max |difference| = {err:.3e}; speedup {numpy_s / ours_s:.1f}x")
    if not (err <= 1e-12 and abs(ours - ref) <= 1e-9 * abs(ref)):
        print("MISMATCH between sdfg and NumPy", file=sys.stderr)
        return 1
    print("OK: results agree")
    return gradient_example()


def gradient_example():
    n, tsteps = 40, 5
    A = np.random.default_rng(7).random((n, n))
    t0 = time.perf_counter()
    grad = sdfg.grad(seidel2d, ["A"])(A, tsteps)["A"]
    grad_s = time.perf_counter() - t0
    # Central finite differences along a random direction.
    d = np.random.default_rng(8).standard_normal(A.shape)
    h = 1e-6
    fd = (seidel2d(A + h * d, tsteps) - seidel2d(A - h * d, tsteps)) / (2 * h)
    ad = float(np.sum(grad * d))
    print()
    print(f"Gradient of sum(A**2) after Seidel-2D (N={n}, TSTEPS={tsteps}, "
          f"in place) w.r.t. the initial A, by sdfg.grad "
          f"(compile + run {grad_s:.2f} s):")
    print(f"  dOut/dA[1:4, 1:4] =\n{np.array2string(grad[1:4, 1:4], precision=6)}")
    if not agrees(ad, fd):
        return 1
    return memory_limit_example()


def memory_limit_example():
    n = 1000
    rng = np.random.default_rng(9)
    C, D = rng.random((n, n)), rng.random((n, n))
    stored = sdfg.grad(paper_ilp, ["C", "D"], strategy="store-all")
    ref = stored(C, D)
    need = stored.checkpoint["store_all_peak_bytes"] / 2**20
    limit = need - 1.5 * C.nbytes / 2**20
    limited = sdfg.grad(paper_ilp, ["C", "D"], mem=limit)
    g = limited(C, D)
    info = limited.checkpoint
    err = max(float(np.max(np.abs(g[k] - ref[k]))) for k in g)
    print()
    print(f"The paper's store/recompute example (N={n}, float64): storing "
          f"everything needs {need:.1f} MiB; with mem={limit:.1f} the ILP "
          f"recomputes {', '.join(info['recompute'])} and stores "
          f"{', '.join(info['store'])}; predicted peak "
          f"{info['peak_bytes'] / 2**20:.1f} MiB")
    print(f"  max |gradient difference| against store-all = {err:.1e}")
    if not (err <= 1e-12 and info["peak_bytes"] <= limit * 2**20
            and info["recompute"] == ["A0", "A1"]):
        print("MISMATCH under the memory limit", file=sys.stderr)
        return 1
    print("OK: same gradient within the memory limit")
    return mesh_example()


def mesh_example():
    n, steps = 20000, 10
    rng = np.random.default_rng(10)
    # A ring of n nodes plus n/2 random chords.
    src = np.concatenate([np.arange(n), rng.integers(0, n, n // 2)])
    dst = np.concatenate([(np.arange(n) + 1) % n, rng.integers(0, n, n // 2)])
    w, u = 0.5 + rng.random(src.shape[0]), rng.random(n) - 0.5
    t0 = time.perf_counter()
    g = sdfg.grad(graph_diffusion, ["w", "u"])(src, dst, w, u, steps)
    grad_s = time.perf_counter() - t0
    dw, du = rng.standard_normal(w.shape), rng.standard_normal(u.shape)
    h = 1e-6
    fd = (graph_diffusion(src, dst, w + h * dw, u + h * du, steps) -
          graph_diffusion(src, dst, w - h * dw, u - h * du, steps)) / (2 * h)
    ad = float(np.sum(g["w"] * dw) + np.sum(g["u"] * du))
    print()
    print(f"Gradient of a reaction-diffusion time loop on a mesh of {n} "
          f"nodes and {src.shape[0]} edges ({steps} steps; u[src], "
          f"np.add.at) w.r.t. the conductances and the initial state "
          f"(compile + run {grad_s:.2f} s):")
    if not agrees(ad, fd):
        return 1
    return gp_example()


def gp_example():
    n = 400
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(-3.0, 3.0, n))
    y = np.sin(2.0 * x) + 0.1 * rng.standard_normal(n)
    log_ell, log_noise = np.log(0.7), np.log(0.05)
    t0 = time.perf_counter()
    g = sdfg.grad(gp_nll, ["x", "log_ell", "log_noise"])(x, y, log_ell,
                                                        log_noise)
    grad_s = time.perf_counter() - t0
    dx = rng.standard_normal(n)
    h = 1e-6
    fd = (gp_nll(x + h * dx, y, log_ell + h, log_noise - h) -
          gp_nll(x - h * dx, y, log_ell - h, log_noise + h)) / (2 * h)
    ad = float(np.sum(g["x"] * dx) + g["log_ell"] - g["log_noise"])
    print()
    print(f"Gradient of a Gaussian process's negative log likelihood ({n} "
          f"points; np.linalg.slogdet and solve of the kernel matrix) "
          f"w.r.t. the length-scale, the noise and the inputs "
          f"(compile + run {grad_s:.2f} s):")
    print(f"  d/d log_ell = {g['log_ell']:.6f}, "
          f"d/d log_noise = {g['log_noise']:.6f}")
    return 0 if agrees(ad, fd) else 1


def agrees(ad, fd):
    """Prints the directional derivative from sdfg.grad next to the finite
    difference; whether they agree to 1e-6."""
    rel = abs(fd - ad) / abs(fd)
    print(f"  directional derivative: sdfg.grad {ad:.10f}, "
          f"finite differences {fd:.10f}, relative error {rel:.1e}")
    if not rel <= 1e-6:
        print("MISMATCH between the gradient and finite differences",
              file=sys.stderr)
        return False
    print("OK: gradient agrees with finite differences")
    return True


if __name__ == "__main__":
    sys.exit(main())
