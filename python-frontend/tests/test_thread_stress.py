"""One compiled program, and one value_and_grad, called from several
threads at once (docs/Reliability.md, "Threads"): every call gets its own
results, and exactly the calls that pass an index outside the array raise
IndexError (the generated code's error records are per thread, read in the
calling thread right after its call)."""

import sys
import threading

import numpy as np
import pytest

import sdfg

THREADS = 6


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def pick(x, idx):
    return x[idx[0]] * 2.0


def pick_scaled(x, idx, s):
    return x[idx[0]] * s


def roles(t):
    """Which calls of thread `t` pass a bad index: every one, none, or
    every other one."""
    return ("bad", "good", "mixed")[t % 3]


def hammer(call, check, calls):
    """Runs `call(t, k, bad)` from THREADS threads at once, `calls` times
    each; `check(t, k, bad, result or exception)` returns what is wrong
    with one call (or None). Returns the problems, and the calls made."""
    problems, lock = [], threading.Lock()
    start = threading.Barrier(THREADS)

    def worker(t):
        start.wait()
        for k in range(calls):
            role = roles(t)
            bad = role == "bad" or (role == "mixed" and k % 2 == 0)
            try:
                outcome = call(t, k, bad)
            except Exception as e:  # noqa: BLE001 -- checked below
                outcome = e
            problem = check(t, k, bad, outcome)
            if problem is not None:
                with lock:
                    problems.append(problem)

    threads = [threading.Thread(target=worker, args=(t,))
               for t in range(THREADS)]
    # Threads take turns at the interpreter every few microseconds (not
    # every 5 ms): a race between two Python statements shows within the
    # test's calls.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=600)
            assert not th.is_alive(), "a thread did not finish"
    finally:
        sys.setswitchinterval(interval)
    return problems


def index_for(t, k, bad, n):
    """A good index (in [-n, n)) or a bad one (outside), different per
    thread and call."""
    good = (7 * t + 3 * k) % (2 * n) - n
    return (n + (t * 31 + k) % 50) if bad else good


def check_outcome(t, k, bad, outcome, want):
    if bad:
        if not isinstance(outcome, IndexError):
            return (f"thread {t} call {k}: a bad index gave {outcome!r}, "
                    "not IndexError")
        return None
    if isinstance(outcome, Exception):
        return f"thread {t} call {k}: a good index raised {outcome!r}"
    if not np.array_equal(np.asarray(outcome, dtype=object),
                          np.asarray(want, dtype=object)):
        return f"thread {t} call {k}: got {outcome!r}, want {want!r}"
    return None


def test_program_from_many_threads():
    prog = sdfg.program(pick)
    n = 16
    xs = [np.arange(n) + 100.0 * t for t in range(THREADS)]
    assert prog(xs[0], np.array([1])) == 2.0  # compiled before the threads

    def call(t, k, bad):
        return prog(xs[t], np.array([index_for(t, k, bad, n)]))

    def check(t, k, bad, outcome):
        i = index_for(t, k, bad, n)
        return check_outcome(t, k, bad, outcome,
                             None if bad else 2.0 * xs[t][i])

    calls = 6000
    problems = hammer(call, check, calls)
    assert not problems, (f"{len(problems)} of {THREADS * calls} calls "
                          "wrong: " + "; ".join(problems[:5]))


def test_value_and_grad_from_many_threads():
    vg = sdfg.value_and_grad(pick_scaled, ["x"])
    n = 16
    xs = [np.arange(n) + 100.0 * t for t in range(THREADS)]
    vg(xs[0], np.array([0]), 1.0)

    def call(t, k, bad):
        s = float(t * 1000 + k)  # a float argument: one compiled program
        value, grads = vg(xs[t], np.array([index_for(t, k, bad, n)]), s)
        # The calling thread's own last value.
        assert vg.last_value is value, "last_value of another call"
        return value, grads["x"]

    def check(t, k, bad, outcome):
        i = index_for(t, k, bad, n)
        if bad or isinstance(outcome, Exception):
            return check_outcome(t, k, bad, outcome, None)
        s = float(t * 1000 + k)
        one_hot = np.zeros(n)
        one_hot[i] = s
        value, grad = outcome
        if value != xs[t][i] * s or not np.array_equal(grad, one_hot):
            return (f"thread {t} call {k}: value {value} and gradient "
                    f"{grad}, want {xs[t][i] * s} and {one_hot}")
        return None

    calls = 6000
    problems = hammer(call, check, calls)
    assert not problems, (f"{len(problems)} of {THREADS * calls} calls "
                          "wrong: " + "; ".join(problems[:5]))


def test_first_calls_from_many_threads_compile_and_agree():
    # The program is compiled by whichever threads get there first; every
    # thread's results are right.
    prog = sdfg.program(pick)
    n = 8
    x = np.arange(n) * 1.5

    def call(t, k, bad):
        return prog(x, np.array([index_for(t, k, bad, n)]))

    def check(t, k, bad, outcome):
        i = index_for(t, k, bad, n)
        return check_outcome(t, k, bad, outcome, None if bad else 2.0 * x[i])

    problems = hammer(call, check, 20)
    assert not problems, "; ".join(problems[:5])


PARSE_RACE = r"""
import gc, sys, threading, time
from sdfg.desugar.astutil import parse
# Many thread switches, and a collection (running __del__, which yields)
# inside nearly every parse: the conditions under which CPython 3.11's
# AST conversion, unguarded, fails with "recursion depth mismatch".
sys.setswitchinterval(1e-6)
gc.set_threshold(5)
src = "def f(x):\n" + "".join(
    f"    y{i} = ((x + {i}) * (x - {i})) / (x + 1)\n" for i in range(300))

class Cycle:
    def __init__(self):
        self.me = self
    def __del__(self):
        time.sleep(0)

errors = []
def work():
    for _ in range(30):
        [Cycle() for _ in range(20)]
        try:
            parse(src)
        except SystemError as e:
            errors.append(repr(e))
            return
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(errors)
sys.exit(1 if errors else 0)
"""


def test_frontend_parses_one_thread_at_a_time():
    # The first calls of programs from several threads parse their sources
    # at once; the frontend's parse must not fail under thread switches.
    import subprocess
    r = subprocess.run([sys.executable, "-c", PARSE_RACE],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
