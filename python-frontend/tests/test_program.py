"""sdfg.program behaviour beyond the corpus: caching, the CLI, argument
handling, NumPy semantics of in-place updates and returns."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sdfg
from sdfg import native

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def saxpy(a, x, y):
    y[:] = a * x + y
    return np.sum(y)


def test_decorator_and_in_place_update():
    prog = sdfg.program(saxpy)
    x, y = np.arange(5.0), np.ones(5)
    s = prog(2.0, x, y)
    np.testing.assert_array_equal(y, 2.0 * np.arange(5.0) + 1)
    assert isinstance(s, np.float64) and s == y.sum()


def test_specialises_per_signature():
    prog = sdfg.program(saxpy)
    before = native.compile_count
    prog(2.0, np.ones(4), np.ones(4))
    prog(3.0, np.ones(4), np.ones(4))      # same signature: no rebuild
    assert native.compile_count == before + 1
    prog(2.0, np.ones(6), np.ones(6))      # new shape
    prog(2.0, np.ones(4, np.float32), np.ones(4, np.float32))  # new dtype
    assert native.compile_count == before + 3


def test_non_contiguous_arguments_are_updated():
    prog = sdfg.program(saxpy)
    base = np.ones(10)
    y = base[::2]
    prog(1.0, np.arange(5.0), y)
    np.testing.assert_array_equal(base[::2], np.arange(5.0) + 1)
    np.testing.assert_array_equal(base[1::2], np.ones(5))


def returns_argument(A, B):
    A += B
    return A


def test_returning_an_argument_returns_the_same_object():
    A, B = np.ones(3), np.ones(3)
    out = sdfg.program(returns_argument)(A, B)
    assert out is A and np.all(A == 2.0)


def int_data(idx, vals):
    out = np.zeros(4)
    for k in range(idx.shape[0]):
        out[idx[k]] += vals[k]
    return out


def test_int_arrays_as_data():
    idx = np.array([0, 3, 3, 1, 0], dtype=np.int64)
    vals = np.arange(5.0)
    np.testing.assert_array_equal(sdfg.program(int_data)(idx, vals),
                                  int_data(idx, vals))


SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {frontend!r})
    import numpy as np, sdfg
    from sdfg import native
    def kernel(A, n):
        for t in range(n):
            A[1:-1] = 0.5 * (A[:-2] + A[2:])
        return A.sum()
    A = np.linspace(0.0, 1.0, 50)
    r = sdfg.program(kernel)(A, 7)
    print(native.compile_count, repr(float(r)))
""")


def test_disk_cache_survives_processes(tmp_path, cache):
    script = tmp_path / "k.py"
    script.write_text(SCRIPT.format(frontend=FRONTEND))
    env = dict(os.environ, SDFG_CACHE_DIR=str(cache))
    first = subprocess.run([sys.executable, str(script)], env=env,
                           capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, str(script)], env=env,
                            capture_output=True, text=True, check=True)
    n1, r1 = first.stdout.split()
    n2, r2 = second.stdout.split()
    assert (n1, n2) == ("1", "0")  # the second process compiled nothing
    assert r1 == r2


def test_interrupted_compile_leaves_no_entry(cache, monkeypatch):
    prog = sdfg.program(saxpy)

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(native, "build_library", boom)
    with pytest.raises(KeyboardInterrupt):
        prog(1.0, np.ones(3), np.ones(3))
    # Nothing half-written remains: neither an entry nor a staging folder.
    assert not [p for p in os.listdir(cache)]
    monkeypatch.undo()
    monkeypatch.setenv("SDFG_CACHE_DIR", str(cache))
    assert prog(1.0, np.ones(3), np.ones(3)) == 6.0


def test_target_cpu_builds_for_another_processor(monkeypatch):
    # SDFG_TARGET_CPU picks the processor and is part of the cache key: the
    # same program is built once per processor, and a bad name is a
    # ToolError naming it.
    prog = sdfg.program(saxpy)
    before = native.compile_count
    assert prog(2.0, np.ones(4), np.ones(4)) == 12.0
    monkeypatch.setenv("SDFG_TARGET_CPU", "x86-64-v2")
    prog = sdfg.program(saxpy)
    assert prog(2.0, np.ones(4), np.ones(4)) == 12.0
    assert native.compile_count == before + 2
    monkeypatch.setenv("SDFG_TARGET_CPU", "no-such-cpu")
    with pytest.raises(sdfg.ToolError, match="'no-such-cpu' is not a "
                                             "processor"):
        sdfg.program(saxpy)(2.0, np.ones(4), np.ones(4))


def test_precompile_builds_without_loading(cache):
    prog = sdfg.program(saxpy)
    g = sdfg.grad(saxpy, wrt=["x", "y"])
    args = (2.0, np.arange(4.0), np.ones(4))
    before = native.compile_count
    d1 = prog.precompile(*args)
    d2 = g.precompile(*args)
    assert native.compile_count == before + 2
    for d in (d1, d2):
        assert os.path.dirname(d) == str(cache)
        assert os.path.exists(os.path.join(d, "program.so"))
    assert prog.precompile(*args) == d1  # found, not rebuilt
    # Calls find them: nothing more is compiled.
    assert prog(*args) == 2.0 * 6 + 4
    grads = g(*args)
    assert native.compile_count == before + 2
    np.testing.assert_allclose(grads["x"], 2.0 * np.ones(4))


def test_to_mlir_is_valid_dialect():
    text = sdfg.to_mlir(saxpy, 2.0, np.ones(4), np.ones(4))
    assert text.startswith("sdfg.sdfg @py_saxpy(")
    opt = os.path.join(native.tools_dir(), "sdfg-opt")
    proc = subprocess.run([opt], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "sdfg.map" in proc.stdout


def test_cli_prints_the_dialect(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text("import numpy as np\n"
                   "def f(A, n):\n"
                   "    for i in range(n):\n"
                   "        A[i] = A[i] * 2.0\n")
    env = dict(os.environ, PYTHONPATH=FRONTEND)
    proc = subprocess.run([sys.executable, "-m", "sdfg", str(src), "f",
                           "float64[8]", "4"], env=env, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert "sdfg.sdfg @py_f(%A: memref<8xf64>" in proc.stdout
    assert "sdfg.loop" in proc.stdout and "to 4 step 1" in proc.stdout
    bad = subprocess.run([sys.executable, "-m", "sdfg", str(src), "g"],
                         env=env, capture_output=True, text=True)
    assert bad.returncode == 1
    assert "defines no function 'g'" in bad.stderr


def pairwise_exp_step(pos, mass, dt):
    for s in range(2):
        d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
        inv = np.exp(np.sum(d ** 2, axis=2))
        pos += dt * np.sum(inv[:, :, None] * d * mass[None, :, None], axis=1)
    return pos


def test_slp_vectorised_libmvec_calls_compute_numpys_values():
    # LLVM 22's SLP vectoriser broke this module (a use before its
    # definition) on AVX2 machines and the program ran garbage (fuzz round
    # 8); sdfg-translate now verifies and re-optimises without SLP.
    rng = np.random.default_rng(1)
    P, M = rng.random((4, 3)), rng.random(4)
    got = sdfg.program(pairwise_exp_step)(P.copy(), M, 0.3)
    np.testing.assert_allclose(got, pairwise_exp_step(P.copy(), M, 0.3),
                               rtol=1e-13)


def test_cached_entry_locates_errors_where_the_function_is(tmp_path,
                                                           monkeypatch):
    # The same source text in two files shares one cached library; a
    # run-time error names the file and line of the function called.
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))
    src = ("def f(x):\n    s = 0.0\n    for i in range(x.shape[0]):\n"
           "        s += x[i + 1]\n    return s\n")
    (tmp_path / "first_copy.py").write_text(src)
    (tmp_path / "second_copy.py").write_text("import numpy\n\n\n\n" + src)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    for name, line in (("first_copy", 4), ("second_copy", 8)):
        module = importlib.import_module(name)
        with pytest.raises(IndexError, match=rf"{name}.py:{line}: index 4"):
            sdfg.program(module.f)(np.arange(4.0))
    assert len(os.listdir(tmp_path / "cache")) == 1
