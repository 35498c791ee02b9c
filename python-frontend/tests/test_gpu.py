"""device="gpu": compilation always (no GPU needed), execution where a GPU
and driver are present (else skipped with the reason), and the error a
machine without one gives. device="gpu-emulator" runs the same GPU
programs (kernels, atomics, unified memory, copies) on host threads, so
the GPU code generation is checked on every kernel of the corpus here."""

import copy
import json
import os

import numpy as np
import pytest

import sdfg
from sdfg import native
from corpus.kernels import KERNELS
from test_gradients import _float64_kernels, _inputs, _output_spec
from test_broadcast_extents import mismatched_operands, window_product
from test_indexing import BAD_INDEX_CASES, assert_index_error
from test_loop_indices import past_the_end
from gpu_marks import GPU_REASON, HAS_RUNTIME, needs_gpu

# A stencil time loop, a matmul chain (cuBLAS), reductions (a sum through
# a loop into a scalar, softmax's row sums), a deep-learning layer, and an
# implicit time loop (LAPACK from the host on unified memory).
EXECUTED = ["jacobi_1d", "heat_3d", "k2mm", "go_fast", "softmax", "mlp",
            "crank_nicolson"]


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    # A GPU machine without the compiler runs these tests from a cache that
    # utils/gpu-bundle.sh prebuilt (utils/gpu-check.sh sets this).
    monkeypatch.setenv("SDFG_CACHE_DIR",
                       os.environ.get("SDFG_TEST_CACHE_DIR") or str(tmp_path))


def _wrt(fn, args):
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    return [n for n, a in zip(names, args)
            if isinstance(a, np.ndarray) and a.dtype.kind == "f"]


# Every corpus kernel with a float64 output (test_gradients' set): computed
# once, it runs each kernel in NumPy.
CORPUS = _float64_kernels()


@pytest.mark.skipif(not HAS_RUNTIME, reason="built without the CUDA toolkit")
@pytest.mark.parametrize("name", CORPUS)
def test_gpu_programs_compile_and_link(name, tmp_path):
    # The whole GPU path short of running: frontend, autodiff, kernels to
    # a fat binary, host code linked against the runtime.
    fn, args = _inputs(name)
    source = sdfg.to_mlir(fn, *args, device="gpu")
    assert "schedule(sequential)" not in source
    spec = _output_spec(fn, args)
    out = "__return0" if spec.startswith("return") else spec
    grad = native.run_passes(
        source, [f"--sdfg-autodiff=output={out} "
                 f"wrt={','.join(_wrt(fn, args))}"])
    for text, sub in ((source, "fwd"), (grad, "grad")):
        d = tmp_path / sub
        d.mkdir()
        abi = native.build_library(text, str(d), device="gpu")
        assert (d / "program.so").stat().st_size > 0
        assert abi["functions"]


@pytest.mark.skipif(not HAS_RUNTIME, reason="built without the CUDA toolkit")
def test_gpu_programs_precompile_without_a_gpu(tmp_path):
    # What utils/gpu-bundle.sh relies on: GPU libraries built here, loaded
    # on a GPU machine that has no compiler.
    fn, args = _inputs("k2mm")
    wrt = _wrt(fn, args)
    spec = _output_spec(fn, args)
    d1 = sdfg.program(fn, device="gpu").precompile(*args)
    d2 = sdfg.grad(fn, wrt, output=spec, device="gpu").precompile(*args)
    for d in (d1, d2):
        with open(os.path.join(d, "meta.json")) as f:
            assert json.load(f)["device"] == "gpu"
        assert os.path.getsize(os.path.join(d, "program.so")) > 0


RACY = """
sdfg.sdfg @racy(%A: memref<256xf64>, %S: memref<1xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (256) step (1) schedule(cpu_multicore)
        attributes {disjoint_wcr} {
      %a = sdfg.load %A[%i] : memref<256xf64>
      sdfg.store %a, %S[0] wcr(add) : memref<1xf64>
    }
  }
}
"""


def test_emulator_finds_write_races(tmp_path):
    # disjoint_wcr claims (wrongly) that distinct i write distinct
    # elements, so the kernel adds into S[0] without an atomic from every
    # thread: a race the emulator must report every time, whatever the
    # timing.
    abi = native.build_library(RACY, str(tmp_path), device="gpu-emulator")
    module = native.NativeModule(None, str(tmp_path / "program.so"), abi)
    for _ in range(3):
        module.racy(np.ones(256), np.zeros(1))
        with pytest.raises(RuntimeError, match="255 write"):
            native.check_emulator_races(module)
    # Honest IR (no claim): atomics, no race.
    honest = RACY.replace("\n        attributes {disjoint_wcr}", "")
    d = tmp_path / "honest"
    d.mkdir()
    abi = native.build_library(honest, str(d), device="gpu-emulator")
    module = native.NativeModule(None, str(d / "program.so"), abi)
    s = np.zeros(1)
    module.racy(np.ones(256), s)
    native.check_emulator_races(module)
    assert s[0] == 256.0


SHIFT = """
sdfg.sdfg @shift(%A: memref<257xf64>, %B: memref<257xf64>) {
  sdfg.state {
    sdfg.map (%i) = (0) to (256) step (1) schedule(cpu_multicore) {
      %a = sdfg.load %A[%i + 1] : memref<257xf64>
      sdfg.store %a, %A[%i] : memref<257xf64>
      %b = sdfg.load %B[%i] : memref<257xf64>
      %c = sdfg.tasklet(%b) : (f64) -> f64 {
      ^bb0(%x: f64):
        %y = arith.mulf %x, %x : f64
        sdfg.yield %y : f64
      }
      sdfg.store %c, %B[%i] : memref<257xf64>
    }
  }
}
"""


def test_emulator_finds_read_write_races(tmp_path):
    # Thread i reads A[i + 1], which thread i + 1 writes: on a GPU the read
    # sees the old or the new value, by timing. The emulator counts every
    # such element (1..255) on every call, whatever the timing; B, read and
    # written by the same thread element by element, is no race.
    abi = native.build_library(SHIFT, str(tmp_path), device="gpu-emulator")
    module = native.NativeModule(None, str(tmp_path / "program.so"), abi)
    for _ in range(3):
        B = np.arange(257.0)
        module.shift(np.ones(257), B)
        with pytest.raises(RuntimeError,
                           match=r"255 element\(s\) read by one thread"):
            native.check_emulator_races(module)
        np.testing.assert_array_equal(B[:256], np.arange(256.0) ** 2)
    # Without the race (A read from its own element): nothing to report.
    honest = SHIFT.replace("%A[%i + 1]", "%A[%i]")
    d = tmp_path / "honest"
    d.mkdir()
    abi = native.build_library(honest, str(d), device="gpu-emulator")
    module = native.NativeModule(None, str(d / "program.so"), abi)
    module.shift(np.ones(257), np.ones(257))
    native.check_emulator_races(module)


def test_map_schedules_follow_the_device():
    # jacobi_1d's maps are small: sequential on the CPU (a fork costs more),
    # kernel candidates on the GPU; a reduction likewise.
    fn, args = _inputs("jacobi_1d")
    cpu = sdfg.to_mlir(fn, *args)
    gpu = sdfg.to_mlir(fn, *args, device="gpu")
    assert "schedule(cpu_multicore)" not in cpu
    assert "schedule(sequential)" not in gpu
    assert gpu.count("schedule(cpu_multicore)") == \
        cpu.count("schedule(sequential)") == 2

    def total(x):
        return np.sum(x * x)
    x = np.ones(10)
    assert "wcr(add)" in sdfg.to_mlir(total, x, device="gpu")
    assert "schedule(sequential)" in sdfg.to_mlir(total, x)
    assert "schedule(sequential)" not in sdfg.to_mlir(total, x, device="gpu")


def test_bad_device_is_rejected():
    fn = KERNELS["jacobi_1d"][0]
    with pytest.raises(ValueError, match="device must be one of"):
        sdfg.program(fn, device="tpu")
    with pytest.raises(ValueError, match="device must be one of"):
        sdfg.grad(fn, wrt="A", device="cuda")


@pytest.mark.skipif(GPU_REASON is None, reason="a GPU is present")
def test_no_gpu_is_a_clear_error():
    fn, args = _inputs("jacobi_1d")
    with pytest.raises(sdfg.DeviceError, match="device='gpu'"):
        sdfg.program(fn, device="gpu")(*copy.deepcopy(args))
    with pytest.raises(sdfg.DeviceError, match="device='gpu'"):
        sdfg.grad(fn, wrt=["A"], output="A", device="gpu")(
            *copy.deepcopy(args))


# The GPU runs the kernels that stand for the classes (time to run
# is scarce there); the emulator runs the whole corpus.
EXECUTIONS = ([pytest.param("gpu", n, marks=needs_gpu) for n in EXECUTED] +
              [("gpu-emulator", n) for n in CORPUS])


@pytest.mark.parametrize("device,name", EXECUTIONS)
def test_gpu_forward_matches_cpu(device, name):
    fn, args = _inputs(name)
    cpu_args, gpu_args = copy.deepcopy(args), copy.deepcopy(args)
    want = sdfg.program(fn)(*cpu_args)
    got = sdfg.program(fn, device=device)(*gpu_args)
    if want is not None:
        if not isinstance(want, tuple):
            got, want = (got,), (want,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)
    for a, b in zip(gpu_args, cpu_args):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("device,name", EXECUTIONS)
def test_gpu_gradient_matches_cpu_and_fd(device, name):
    fn, args = _inputs(name)
    spec = _output_spec(fn, args)
    wrt = _wrt(fn, args)
    want = sdfg.grad(fn, wrt, output=spec)(*copy.deepcopy(args))
    got = sdfg.grad(fn, wrt, output=spec, device=device)(
        *copy.deepcopy(args))
    for w in wrt:
        np.testing.assert_allclose(got[w], want[w], rtol=1e-9, atol=1e-11)
    # And directly against central differences along a random direction.
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    rng = np.random.default_rng(3)
    dirs = {w: rng.standard_normal(np.shape(args[names.index(w)]))
            for w in wrt}

    def total(s):
        a = list(copy.deepcopy(args))
        for w in wrt:
            a[names.index(w)] = a[names.index(w)] + s * dirs[w]
        r = fn(*a)
        if spec.startswith("return"):
            r = r if spec == "return" else r[int(spec[7:])]
            return float(np.sum(r))
        return float(np.sum(a[names.index(spec)]))
    h = 1e-6
    fd = (total(h) - total(-h)) / (2 * h)
    ad = sum(float(np.sum(got[w] * dirs[w])) for w in wrt)
    assert abs(ad - fd) <= 1e-5 * max(1.0, abs(fd))


# Indices computed from data, out of bounds: the kernels skip the access
# and the host raises NumPy's IndexError, as on the CPU.
INDEX_ERRORS = [
    pytest.param(device, *case, marks=[needs_gpu] if device == "gpu" else [],
                 id=f"{device}-{case[0].__name__}-{k}")
    for device in ("gpu", "gpu-emulator")
    for k, case in enumerate(BAD_INDEX_CASES)]


@pytest.mark.parametrize("device,fn,args,wrt,statement", INDEX_ERRORS)
def test_gpu_index_error_matches_cpu(device, fn, args, wrt, statement):
    assert_index_error(fn, args, wrt, statement, device)



def _scaled_window(u, w):
    return np.sum(w[0] * u[2:])


def _squared_scaled_window(u, c):
    return np.sum((c * u[1:]) ** 2)


@pytest.mark.parametrize("fn,wrt", [(_scaled_window, "w"),
                                    (_squared_scaled_window, "c")])
def test_emulator_gradient_of_a_coefficient_read_by_every_thread(fn, wrt):
    # Every thread adds to the coefficient's gradient; with the window's
    # offset the reversal was marked disjoint_wcr, and the kernel added
    # without atomics (the emulator reported the race).
    u = np.linspace(0.0, 1.0, 8) ** 2
    coef = np.array([0.5]) if wrt == "w" else 0.5
    want = sdfg.grad(fn, [wrt])(u, coef)[wrt]
    got = sdfg.grad(fn, [wrt], device="gpu-emulator")(u, coef)[wrt]
    np.testing.assert_allclose(got, want, rtol=1e-13)
    exact = np.sum(u[2:]) if wrt == "w" else 2 * 0.5 * np.sum(u[1:] ** 2)
    np.testing.assert_allclose(want, exact, rtol=1e-13)


def _tall_3d(x, w):
    return np.sum(np.sin(x[:, None, None] * w))


def _tall_2d(x, w):
    return np.sum(np.sin(x[:, None] * w))


TALL = [(_tall_3d, 140001, (1, 2, 2)), (_tall_2d, 600001, (1, 2))]


@pytest.mark.parametrize("device", [pytest.param("gpu", marks=needs_gpu),
                                    "gpu-emulator"])
@pytest.mark.parametrize("fn,rows,wshape", TALL,
                         ids=[f.__name__ for f, _, _ in TALL])
def test_grid_beyond_cuda_limits(device, fn, rows, wshape):
    # 140001 x 2 x 2 threads in blocks of 32 x 4 x 2 would need 70001
    # blocks along z, 600001 x 2 in blocks of 32 x 8 75001 along y: CUDA
    # allows 65535. The grid is capped and each thread loops over the
    # rows left (grid-stride); every row must still be computed once.
    x = np.linspace(0.1, 1.0, rows)
    w = np.arange(1.0, 1.0 + np.prod(wshape)).reshape(wshape) / 3
    text = sdfg.to_mlir(fn, x, w, device="gpu")
    assert f"to ({rows}, " in text  # one map over all rows
    want = fn(x, w)
    assert sdfg.program(fn, device=device)(x, w) == pytest.approx(
        want, rel=1e-11)
    g = sdfg.grad(fn, ["x", "w"], device=device)(x, w)
    xs = x.reshape((-1,) + (1,) * (len(wshape) - 1))
    np.testing.assert_allclose(
        g["x"], np.sum(np.cos(xs * w) * w, axis=tuple(range(1, len(wshape)))),
        rtol=1e-12)
    np.testing.assert_allclose(g["w"], np.sum(np.cos(xs * w) * xs, axis=0,
                                              keepdims=True), rtol=1e-10)


@pytest.mark.parametrize("device", [
    pytest.param("gpu", marks=needs_gpu), "gpu-emulator"])
def test_run_time_checks_match_cpu(device):
    # sdfg.broadcast_extent and sdfg.check_index on the GPU target: the
    # length-1 window broadcasts, mismatched windows raise ValueError and
    # a loop index past the end IndexError, as on the CPU.
    x = np.linspace(0.5, 2.0, 12)
    y = np.cos(x)
    np.testing.assert_allclose(
        sdfg.program(window_product, device=device)(x, y),
        window_product(x, y), rtol=1e-13)
    g = sdfg.grad(window_product, ["y"], device=device)(x, y)["y"]
    np.testing.assert_allclose(
        g, sdfg.grad(window_product, ["y"])(x, y)["y"], rtol=1e-13)
    with pytest.raises(ValueError, match="could not be broadcast"):
        sdfg.program(mismatched_operands, device=device)(x, y)
    with pytest.raises(IndexError, match="index 12 is out of bounds"):
        sdfg.program(past_the_end, device=device)(x)
