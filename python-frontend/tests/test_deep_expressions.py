"""Expressions nested deeper than Python's recursion limit: left-nested
chains of binary operators (`x + x + ... + x`, as generated code writes
them) translate iteratively, whatever their length; what still nests too
deeply is a located FrontendError, never a RecursionError."""

import importlib.util
import sys

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def load(tmp_path, name, source):
    """The module of `source`, written to a file: the frontend reads a
    function's source from its file."""
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\n\n\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


def chain(term, op, n):
    return f" {op} ".join([term] * n)


@pytest.mark.parametrize("n", [400, 2000])
def test_long_sum_translates(tmp_path, n):
    assert n > sys.getrecursionlimit() // 3  # deeper than a recursion goes
    m, _ = load(tmp_path, f"sum{n}", f"def f(x):\n"
                f"    return {chain('x', '+', n)}\n")
    x = np.arange(1.0, 4.0)
    np.testing.assert_array_equal(sdfg.program(m.f)(x), n * x)


def test_long_chains_in_loops_branches_and_helpers(tmp_path):
    n = 2000
    m, _ = load(tmp_path, "chains", f"""\
def helper(x):
    return {chain('x', '*', 3)} - {chain('x * 0.5', '-', n)}


def f(x, s):
    y = x * 0.0
    for c in (1.0, 2.0):
        y += c * ({chain('x', '+', n)})
    for i in range(2):
        if x[0] > 0:
            y -= {chain('s', '+', n)}
    return y + helper(x)
""")
    x = np.arange(1.0, 4.0)
    np.testing.assert_allclose(sdfg.program(m.f)(x, 0.25), m.f(x, 0.25),
                               rtol=1e-14)


def test_gradient_of_a_long_sum(tmp_path):
    m, _ = load(tmp_path, "gsum", f"def f(x):\n"
                f"    return np.sum({chain('x * x', '+', 1000)})\n")
    x = np.arange(1.0, 4.0)
    np.testing.assert_allclose(sdfg.grad(m.f, ["x"])(x)["x"], 2000.0 * x)


def test_what_nests_too_deeply_is_a_located_frontend_error(tmp_path):
    # 900 unary minus signs: right-nested, followed by recursion (Python
    # itself compiles this, to a depth of about 1000).
    m, path = load(tmp_path, "unary", "def f(x):\n    y = x * 2.0\n"
                   f"    return {'-' * 900}y\n")
    with pytest.raises(sdfg.FrontendError, match="nests too deeply") as info:
        sdfg.program(m.f)(np.ones(3))
    assert str(info.value).startswith(f"{path}:6: ")
