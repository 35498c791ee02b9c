"""Array extents as size symbols in GPU programs (issue 37): one program
for every size on device="gpu" and "gpu-emulator", as on the CPU (the
kernels' grids are computed from the extents at each call). The emulator
runs the GPU program here; device="gpu" executions need a GPU (skipped
without one) and device="gpu" libraries are built without one."""

import json
import os

import numpy as np
import pytest

import sdfg
from sdfg import native
from sdfg.errors import FrontendError
from sdfg.frontend.translator import translate

from checks import fd_gradient
from gpu_marks import HAS_RUNTIME, needs_gpu


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


DEVICES = [pytest.param("gpu", marks=needs_gpu), "gpu-emulator"]


def rng(seed=0):
    return np.random.default_rng(seed)


def elementwise(a, b):
    return np.sin(a) * b + 2.0 * a


def stencil(a):
    return a[1:-1] - 0.5 * (a[:-2] + a[2:])


def reduction(A):
    return np.sum(A * A, axis=1) + np.max(A)


def matmul(A, B):
    return A @ B


def jacobi2d(A, B, T):
    for t in range(T):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] +
                               A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] +
                               B[2:, 1:-1] + B[:-2, 1:-1])


# (function, arguments for size n, tolerance): the reductions sum in
# another order than NumPy's pairwise sum.
SWEPT = [
    (elementwise, lambda n: (rng(n).random(n), rng(n + 1).random(n)), 1e-15),
    (stencil, lambda n: (rng(n).random(n),), 1e-15),
    (reduction, lambda n: (rng(n).random((n, n + 3)),), 1e-13),
    (matmul, lambda n: (rng(n).random((n, n + 5)),
                        rng(n + 1).random((n + 5, 2 * n))), 1e-13),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fn,make,rtol", SWEPT,
                         ids=[f.__name__ for f, _, _ in SWEPT])
def test_a_sweep_over_sizes_compiles_once(device, fn, make, rtol):
    prog = sdfg.program(fn, device=device, dynamic=True)
    before = native.compile_count
    for n in (8, 13, 40, 97):
        args = make(n)
        got, want = prog(*args), fn(*args)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-15)
    assert native.compile_count - before == 1
    # The program serving every size takes dynamic memrefs.
    entry = prog.compile(*make(21))
    assert entry.meta["device"] == device
    assert all(-1 in p[3] for p in entry.meta["params"])


def test_the_gpu_program_maps_over_the_symbols():
    """The translation for the GPU keeps its kernels' maps (no sequential
    schedule) over the `sdfg.dim` extents: the grid is the host's to
    compute at each call."""
    text = translate(stencil, (np.ones(10),), device="gpu",
                     symbolic=frozenset({"a"})).text
    assert "%a: memref<?xf64>" in text and "sdfg.dim %a, 0" in text
    assert "schedule(sequential)" not in text
    assert "schedule(cpu_multicore)" in text
    assert "check_index" not in text


@pytest.mark.parametrize("device", DEVICES)
def test_time_loop_in_place(device):
    # Kernels launched from a host loop over a loop-bound symbol, on
    # arrays of symbolic extents written in place.
    prog = sdfg.program(jacobi2d, device=device, dynamic=True)
    before = native.compile_count
    for n, T in ((10, 3), (16, 5), (33, 2)):
        A, B = rng(n).random((n, n)), rng(n + 1).random((n, n))
        A2, B2 = A.copy(), B.copy()
        prog(A, B, T)
        jacobi2d(A2, B2, T)
        np.testing.assert_allclose(A, A2, rtol=1e-14)
        np.testing.assert_allclose(B, B2, rtol=1e-14)
    assert native.compile_count - before == 1


def test_by_default_the_first_shape_is_compiled_in():
    # dynamic=None as on the CPU: the first shape specialised, the next
    # one compiles the program that every later shape reuses.
    prog = sdfg.program(stencil, device="gpu-emulator")
    before = native.compile_count
    for n in (10, 20, 30, 10, 55):
        a = rng(n).random(n)
        np.testing.assert_allclose(prog(a), stencil(a), rtol=1e-15)
    assert native.compile_count - before == 2
    assert [p[3] for p in prog.compile(np.ones(10)).meta["params"]] == [[10]]
    assert [p[3] for p in prog.compile(np.ones(77)).meta["params"]] == [[-1]]


def heat_loss(u, dt):
    for t in range(4):
        u[1:-1] = u[1:-1] + dt * (u[2:] - 2.0 * u[1:-1] + u[:-2]) * u[1:-1]
    return np.sum(u * u)


def dense_loss(x, W, b):
    h = np.tanh(x @ W + b)
    return np.sum((h / np.sum(h, axis=1, keepdims=True)) ** 2)


@pytest.mark.parametrize("fn,make", [
    (heat_loss, lambda n: (rng(n).random(n), 0.1)),
    (dense_loss, lambda n: (rng(n).random((n, n + 2)),
                            rng(n + 1).random((n + 2, n + 3)),
                            rng(n + 2).random(n + 3))),
], ids=["heat_loss", "dense_loss"])
def test_gradients_over_sizes_compile_once(fn, make):
    """The gradient program on the emulator: a tape of T x (n - 2) sized
    when the call starts (heat_loss), a matmul's adjoints (dense_loss);
    equal to central differences at every size, one compile."""
    g = sdfg.grad(sdfg.program(fn, dynamic=True), argnums=0,
                  device="gpu-emulator")
    before = native.compile_count
    for n in (9, 16):
        args = make(n)
        np.testing.assert_allclose(g(*args), fd_gradient(fn, list(args), 0),
                                   rtol=1e-6, atol=1e-8)
    assert native.compile_count - before == 1


def test_gradient_under_a_memory_limit_plans_per_size_bucket():
    # As on the CPU: sizes 9 to 16 share the program planned for 16.
    g = sdfg.grad(sdfg.program(heat_loss, dynamic=True), argnums=0,
                  mem=1.0, device="gpu-emulator")
    before = native.compile_count
    for n in (9, 16, 17):
        u = rng(n).random(n)
        np.testing.assert_allclose(
            g(u, 0.1), fd_gradient(heat_loss, [u, 0.1], 0), rtol=1e-6,
            atol=1e-8)
    assert native.compile_count - before == 2


def halves(a):
    return a.reshape(2, a.shape[0] // 2).sum(axis=0)


def sorted_twice(a):
    return np.sort(a) * 2.0


@pytest.mark.parametrize("fn", [halves, sorted_twice])
def test_programs_the_symbols_cannot_serve_compile_constants(fn):
    """A reshape to a shape computed from an extent, a sort: the symbolic
    translation is refused and each shape is compiled in, with NumPy's
    results."""
    prog = sdfg.program(fn, device="gpu-emulator", dynamic=True)
    before = native.compile_count
    for n in (10, 12):
        a = rng(n).random(n)
        np.testing.assert_allclose(prog(a), fn(a), rtol=1e-15)
        assert [p[3] for p in prog.compile(a).meta["params"]] == [[n]]
    assert native.compile_count - before == 2


def printed(a):
    print(a[0])
    return a * 2.0


def test_a_construct_the_gpu_refuses_is_its_located_error():
    # The symbolic try fails, and so does the fallback to constants: the
    # caller gets the GPU's located refusal, not a crash.
    prog = sdfg.program(printed, device="gpu-emulator", dynamic=True)
    with pytest.raises(FrontendError, match="print on the GPU"):
        prog(np.ones(12))


@pytest.mark.skipif(not HAS_RUNTIME, reason="built without the CUDA toolkit")
def test_gpu_libraries_with_symbols_build_without_a_gpu():
    """device="gpu": the program and its gradient (kernels to PTX and a
    fat binary, cuBLAS for the matmul, host code computing the grids) are
    built once for every size: other sizes find the same library."""
    prog = sdfg.program(dense_loss, device="gpu", dynamic=True)
    grad = sdfg.grad(prog, argnums=0, device="gpu")
    dirs = set()
    for n in (10, 24):
        # A hidden width of 3 (below 8) is compiled in.
        args = (rng(n).random((n, n + 2)), rng(n + 1).random((n + 2, 3)),
                rng(n + 2).random(3))
        dirs.add((prog.precompile(*args), grad.precompile(*args)))
    assert len(dirs) == 1
    for d in dirs.pop():
        with open(os.path.join(d, "meta.json")) as f:
            meta = json.load(f)
        assert meta["device"] == "gpu"
        assert [p[3] for p in meta["params"]] == [[-1, -1], [-1, 3], [3]]
        assert os.path.getsize(os.path.join(d, "program.so")) > 0


RACY = """
sdfg.sdfg @racy(%A: memref<?xf64>, %S: memref<1xf64>) {
  %n = sdfg.dim %A, 0 : memref<?xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(cpu_multicore)
        attributes {disjoint_wcr} {
      %a = sdfg.load %A[%i] : memref<?xf64>
      sdfg.store %a, %S[0] wcr(add) : memref<1xf64>
    }
  }
}
"""


def test_emulator_finds_races_in_kernels_of_symbolic_extent(tmp_path):
    # The emulator's race records cover a kernel whose grid is computed
    # at the call: every one of the n - 1 conflicting writes of a wrong
    # disjoint_wcr claim is counted, for each n.
    abi = native.build_library(RACY, str(tmp_path), device="gpu-emulator")
    module = native.NativeModule(None, str(tmp_path / "program.so"), abi)
    for n in (100, 300):
        module.racy(np.ones(n), np.zeros(1))
        with pytest.raises(RuntimeError, match=f"{n - 1} write"):
            native.check_emulator_races(module)
