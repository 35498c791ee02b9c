"""Allocations of compiled programs: a size that cannot be represented or a
malloc that fails reaches Python as MemoryError naming the bytes, the call
frees what it had allocated, and the program stays usable (issue 32)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import sdfg
from sdfg import native

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A transient whose length is an argument: memref.alloc multiplies it by 8
# unchecked, so 2^61 used to wrap to a 64-byte allocation that the map then
# wrote past.
DYNAMIC = """
sdfg.sdfg @fill(%y: memref<4xf64> {sdfg.name = "y"}, %n: index {sdfg.name = "n"}) {
  %t = sdfg.alloc(%n) {name = "t"} : memref<?xf64>
  sdfg.state {
    sdfg.map (%i) = (0) to (%n) step (1) schedule(sequential) {
      %c = sdfg.tasklet() : () -> f64 {
        %one = arith.constant 1.5 : f64
        sdfg.yield %one : f64
      }
      sdfg.store %c, %t[%i] : memref<?xf64>
    }
    sdfg.map (%i) = (0) to (4) step (1) schedule(sequential) {
      %v = sdfg.load %t[%i] : memref<?xf64>
      sdfg.store %v, %y[%i] : memref<4xf64>
    }
  }
}
"""


@pytest.fixture(scope="module")
def dynamic():
    return native.compile_mlir(DYNAMIC)


@pytest.mark.parametrize("n", [2**61, 2**62 - 1, 2**59, -1, -(2**62)])
def test_unrepresentable_dynamic_size_fails_the_allocation(dynamic, n):
    y = np.zeros(4)
    dynamic.fill(y, n)
    failed = native.take_alloc_error(dynamic)
    # The size asked for is past 2^62 bytes (the clamped request), never a
    # wrapped small one; nothing was written.
    assert failed is not None and failed > 2**62
    assert np.all(y == 0)
    assert native.take_alloc_error(dynamic) is None  # cleared


def test_program_usable_after_failed_allocation(dynamic):
    y = np.zeros(4)
    dynamic.fill(y, 2**61)
    assert native.take_alloc_error(dynamic) is not None
    dynamic.fill(y, 8)
    assert native.take_alloc_error(dynamic) is None
    assert np.all(y == 1.5)


def test_huge_static_transient_is_a_compile_error():
    # 2^61 doubles: 2^64 bytes do not fit in 64 bits.
    def f(x):
        t = np.zeros(2**61)
        t[0] = x[0]
        return t[0]

    with pytest.raises((sdfg.FrontendError, native.ToolError),
                       match="too large"):
        sdfg.program(f)(np.ones(3))


# Run in a child whose address space is limited, so that the allocation
# fails whatever the machine's overcommit policy (with overcommit the
# kernel would grant 8 GB and the OOM killer end the test run instead).
LIMITED = textwrap.dedent("""
    import resource, sys
    import numpy as np
    limit = 6 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import sdfg

    def heat(u, steps):
        for t in range(steps):
            u[:] = np.sin(u) * 0.999
        return np.sum(u)

    u = np.linspace(0.0, 1.0, 100000)
    g = sdfg.grad(heat, ["u"])
    try:
        g(u, 10000)   # a tape of 10^4 x 10^5 doubles: 8 GB
    except MemoryError as e:
        print("MemoryError:", e)
    else:
        print("no error")
    # The caller's array is untouched and the program still works.
    assert np.all(u == np.linspace(0.0, 1.0, 100000))
    small = g(u, 3)["u"]
    x = u.copy()
    expected = np.ones_like(u)
    for t in range(3):
        expected *= np.cos(x) * 0.999
        x = np.sin(x) * 0.999
    assert np.allclose(small, expected, rtol=1e-12, atol=0), "gradient"
    print("small ok")
""")


def _run_limited(tmp_path, source):
    """Runs `source` in a child process (from a file: the frontend reads
    the source); the lines it printed, the first a MemoryError's."""
    env = dict(os.environ, PYTHONPATH=FRONTEND)
    script = tmp_path / "limited.py"
    script.write_text(source)
    out = subprocess.run([sys.executable, str(script)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("MemoryError:"), out.stdout
    return lines


def test_tape_larger_than_memory_raises_memory_error(tmp_path):
    lines = _run_limited(tmp_path, LIMITED)
    # It names the bytes (the tape: 8e9 and the allocator's padding) and
    # suggests a memory limit.
    assert "could not allocate 80000000" in lines[0]
    assert "mem=" in lines[0]
    assert lines[1] == "small ok"


def _halve(x):
    y = x[0] * 1.0
    while y > 1:
        y = np.sqrt(y)
    return y


def test_while_capacity_past_representable_is_located_error():
    # 2^61 slots of 8 bytes: the tape's size wrapped and landed on the
    # stack (a wrong gradient, SIGBUS or SIGSEGV); now an error naming
    # the loop's line.
    x = np.array([1e6])
    for capacity in (2**61, 2**60, 2**63 - 1):
        with pytest.raises(native.ToolError,
                           match=r"test_allocation.py:\d+: error: .*more "
                                 r"than 2\^62 bytes"):
            sdfg.grad(_halve, ["x"], while_capacity=capacity)(x)


WHILE_LIMITED = textwrap.dedent("""
    import resource
    import numpy as np
    limit = 6 << 30
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import sdfg

    def halve(x):
        y = x[0] * 1.0
        while y > 1:
            y = np.sqrt(y)
        return y

    x = np.array([1e6])
    try:
        sdfg.grad(halve, ["x"], while_capacity=2**34)(x)   # 128 GiB
    except MemoryError as e:
        print("MemoryError:", e)
    g = sdfg.grad(halve, ["x"], while_capacity=64)(x)["x"][0]
    # The chain rule through the 56 square roots until y rounds to 1.
    y, expected = 1e6, 1.0
    while y > 1:
        expected *= 0.5 / np.sqrt(y)
        y = np.sqrt(y)
    assert abs(g - expected) <= 1e-12 * expected, (g, expected)
    print("small ok")
""")


def test_while_capacity_beyond_memory_raises_memory_error(tmp_path):
    lines = _run_limited(tmp_path, WHILE_LIMITED)
    assert "137438953" in lines[0]  # 2^34 * 8 bytes and padding
    assert lines[1] == "small ok"
