"""The on-disk cache of compiled programs (sdfg/cache.py): what its key
covers, damaged entries, whom it trusts, symbol names, its size limit and
`python -m sdfg cache`. Most tests run programs in fresh interpreters
(the cache is what processes share; a crash there fails the test instead
of ending the run)."""

import ctypes
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import pytest

import sdfg
from sdfg import cache, cache_key, native

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("SDFG_CACHE_DIR", str(d))
    return d


def run(script, cache_dir, *argv, env=None, **kwargs):
    """Runs `script` (a file) in a fresh interpreter with the cache
    `cache_dir`; the CompletedProcess."""
    environ = dict(os.environ, SDFG_CACHE_DIR=str(cache_dir),
                   PYTHONPATH=os.pathsep.join(
                       [FRONTEND, os.path.dirname(str(script))]))
    environ.update(env or {})
    return subprocess.run([sys.executable, str(script)] + list(argv),
                          env=environ, capture_output=True, text=True,
                          **kwargs)


def entries(cache_dir):
    """The entry directories of the cache."""
    if not os.path.isdir(cache_dir):
        return []
    return sorted(os.path.join(cache_dir, n) for n in os.listdir(cache_dir)
                  if cache._ENTRY_NAME.match(n))


# ---------------------------------------------------------------------------
# The key: what a function reaches decides what is compiled
# ---------------------------------------------------------------------------

KEYMOD = """
import sys
import numpy as np
ACT = {"2": np.tanh, "3": np.sin}[sys.argv[2]]
"""

KEYS = """
import json
import sys
import numpy as np
import sdfg
import keymod

V = sys.argv[2]
K = float(V)
ACTS = {"2": np.tanh, "3": np.sin}


def make(k):
    def h(z, k=k):
        return z * k
    return h


def make_kw(k):
    def h(z, *, k=k):
        return z * k
    return h


def make_cell(act):
    def h(z):
        return act(z)
    return h


h_default = make(K)
h_kwdefault = make_kw(K)
h_cell = make_cell(ACTS[V])
ACT = ACTS[V]


def by_default(x):
    return h_default(x) + 1.0


def by_kwdefault(x):
    return h_kwdefault(x) + 1.0


def by_cell(x):
    return h_cell(x) + 1.0


def by_global(x):
    return ACT(x) + 1.0


def by_module(x):
    return keymod.ACT(x) + 1.0


fn = globals()[sys.argv[1]]
x = np.linspace(0.1, 0.9, 5)
print(json.dumps([sdfg.program(fn)(x).tolist(), fn(x).tolist()]))
"""


@pytest.mark.parametrize("kind", ["by_default", "by_kwdefault", "by_cell",
                                  "by_global", "by_module"])
def test_what_a_function_reaches_is_part_of_the_key(tmp_path, cache_dir,
                                                    kind):
    # Two processes whose programs have the same source and differ only in
    # a helper's default value, keyword-only default, closure cell, or a
    # global or module attribute holding another NumPy function: the
    # second must not get the first one's library.
    (tmp_path / "keymod.py").write_text(KEYMOD)
    script = tmp_path / "keys.py"
    script.write_text(KEYS)
    for v in ("2", "3"):
        proc = run(script, cache_dir, kind, v)
        assert proc.returncode == 0, proc.stderr
        compiled, expected = json.loads(proc.stdout)
        np.testing.assert_allclose(compiled, expected, rtol=1e-14)
    assert len(entries(cache_dir)) == 2


def make_scaled(k):
    def h(z, k=k):
        return z * k
    return h


def make_scaled_kw(k):
    def h(z, *, k=k):
        return z * k
    return h


def calling(h):
    def f(x):
        return np.sum(h(x)) + 1.0
    return f


def test_rebound_defaults_compile_anew_in_one_process(cache_dir):
    # One Program (its compiled dict) and one Gradient: rebinding
    # __defaults__ or __kwdefaults__ of the helper they call is seen.
    x = np.arange(1.0, 4.0)
    for h, rebind in ((make_scaled(2.0),
                       lambda h, k: setattr(h, "__defaults__", (k,))),
                      (make_scaled_kw(2.0),
                       lambda h, k: setattr(h, "__kwdefaults__", {"k": k}))):
        f = calling(h)
        prog, g = sdfg.program(f), sdfg.grad(f, ["x"])
        assert prog(x) == 13.0
        np.testing.assert_array_equal(g(x)["x"], [2.0, 2.0, 2.0])
        rebind(h, 5.0)
        assert prog(x) == 31.0
        np.testing.assert_array_equal(g(x)["x"], [5.0, 5.0, 5.0])
        rebind(h, 2.0)  # the first library again, from memory
        assert prog(x) == 13.0


def triple(v):
    return 3.0 * v


def uses_abs(x):
    return x * abs(-2.0)


def test_builtin_shadowed_later_by_a_global(cache_dir):
    # A name the function reads that held nothing in its module when it
    # was first compiled (the builtin answered): defining it later
    # changes what the program computes.
    prog = sdfg.program(uses_abs)
    np.testing.assert_array_equal(prog(np.ones(2)), [2.0, 2.0])
    globals()["abs"] = triple
    try:
        np.testing.assert_array_equal(prog(np.ones(2)), [-6.0, -6.0])
    finally:
        del globals()["abs"]
    np.testing.assert_array_equal(prog(np.ones(2)), [2.0, 2.0])


def test_host_processor_is_part_of_the_key(monkeypatch):
    # Code built for "host" uses this processor's features: another
    # processor (a cache on a shared file system) must not find it.
    here = cache_key.digest("src")
    monkeypatch.setattr(cache_key, "_host_stamp", lambda: "another processor")
    assert cache_key.digest("src") != here
    monkeypatch.setenv("SDFG_TARGET_CPU", "x86-64-v3")
    named = cache_key.digest("src")
    monkeypatch.setattr(cache_key, "_host_stamp", lambda: "a third one")
    assert cache_key.digest("src") == named  # a named processor is the key


# ---------------------------------------------------------------------------
# Damaged entries are verified, rebuilt and reported
# ---------------------------------------------------------------------------

PROGRAM = """
import sys
import numpy as np
import sdfg
from sdfg import native


def f(x, n):
    s = 0.0
    for i in range(n):
        s += np.sum(np.exp(x) * i)
    return s


x = np.linspace(0.0, 1.0, 16)
value = sdfg.program(f)(x, 3)
print(native.compile_count, repr(value))
"""


def _truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def _empty(path):
    open(path, "wb").close()


def _rewrite_ok(entry):
    """ok.json rewritten to match the entry's files as they are now (a
    damage that a hash cannot see)."""
    files = {}
    for name in ("program.so", "meta.json"):
        with open(os.path.join(entry, name), "rb") as f:
            files[name] = cache._record(f.read())
    with open(os.path.join(entry, "ok.json"), "w") as f:
        json.dump({"version": cache_key.VERSION, "files": files}, f)


def _meta_of_another_shape(entry):
    path = os.path.join(entry, "meta.json")
    with open(path) as f:
        meta = json.load(f)
    meta["params"] = [p[:2] for p in meta["params"]]
    meta["abi"]["functions"][0]["name"] = "another"
    with open(path, "w") as f:
        json.dump(meta, f)
    _rewrite_ok(entry)


DAMAGES = {
    "truncated program.so": lambda e: _truncate(os.path.join(e,
                                                             "program.so")),
    "empty program.so": lambda e: _empty(os.path.join(e, "program.so")),
    "truncated meta.json": lambda e: _truncate(os.path.join(e, "meta.json")),
    "meta.json of another shape": _meta_of_another_shape,
    "meta.json not JSON": lambda e: (
        open(os.path.join(e, "meta.json"), "w").write("{"), _rewrite_ok(e)),
    "no ok.json": lambda e: os.remove(os.path.join(e, "ok.json")),
    "ok.json not a record": lambda e: open(
        os.path.join(e, "ok.json"), "w").write('{"files": 3}'),
    "program.so a link": lambda e: (
        os.rename(os.path.join(e, "program.so"), os.path.join(e, "real.so")),
        os.symlink("real.so", os.path.join(e, "program.so"))),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_damaged_entry_is_rebuilt_with_a_warning(tmp_path, cache_dir,
                                                 damage):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    first = run(script, cache_dir, check=True)
    count, value = first.stdout.split()
    assert count == "1"
    [entry] = entries(cache_dir)
    DAMAGES[damage](entry)
    second = run(script, cache_dir)
    # Not SIGBUS, SIGSEGV, OSError or JSONDecodeError: the same value,
    # compiled again, and a warning that says what was wrong.
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["1", value]
    assert "CacheWarning" in second.stderr and "damaged" in second.stderr
    # Repaired: a third process finds the entry good.
    third = run(script, cache_dir, check=True)
    assert third.stdout.split() == ["0", value]
    assert "CacheWarning" not in third.stderr


TRUNCATED_WHILE_LOADED = """
import os
import sys
import warnings
import numpy as np
import sdfg
from sdfg import native


def f(x):
    return np.sum(np.exp(x) * x)


x = np.linspace(0.0, 1.0, 16)
p1 = sdfg.program(f)
v1 = p1(x)
path = p1.compile(x).module.library_path
with open(path, "r+b") as fh:  # damaged under this process
    fh.truncate(os.path.getsize(path) // 2)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    v2 = sdfg.program(f)(x)  # another Program: found on disk again
print(v1 == v2, native.compile_count,
      any("damaged" in str(w.message) for w in caught))
sys.stdout.flush()
# The first library's file was truncated under this process: its
# destructors, run at exit, would read the missing pages.
os._exit(0)
"""


def test_library_truncated_after_loading_is_not_used_again(tmp_path,
                                                           cache_dir):
    # The dynamic loader hands back the library it mapped for a path it
    # loaded before: the rebuilt one must be loaded as another.
    script = tmp_path / "trunc.py"
    script.write_text(TRUNCATED_WHILE_LOADED)
    proc = run(script, cache_dir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "2", "True"]


def test_library_changed_between_lookup_and_load_is_rebuilt(tmp_path,
                                                             cache_dir,
                                                             monkeypatch):
    # program.so is checked again right before it is loaded.
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    value = float(run(script, cache_dir, check=True).stdout.split()[1])
    load, damaged = cache.load, []

    def damaging_load(directory, abi):
        if not damaged:
            damaged.append(directory)
            _truncate(os.path.join(directory, "program.so"))
        return load(directory, abi)

    monkeypatch.setattr(cache, "load", damaging_load)
    namespace = {}
    exec(compile(PROGRAM.split("x = np.linspace")[0], str(script), "exec"),
         namespace)
    before = native.compile_count
    with pytest.warns(sdfg.CacheWarning, match="program.so has"):
        r = sdfg.program(namespace["f"])(np.linspace(0.0, 1.0, 16), 3)
    assert r == value and native.compile_count == before + 1
    assert damaged and entries(cache_dir) == damaged


def test_failed_build_leaves_no_entry(cache_dir, monkeypatch):
    # A library that is built but cannot be loaded is not cached: the next
    # call compiles it again.
    build = native.build_library

    def broken(source, directory, *args, **kwargs):
        abi = build(source, directory, *args, **kwargs)
        with open(os.path.join(directory, "program.so"), "wb") as f:
            f.write(b"not a shared library")
        return abi

    def f(x):
        return x * 2.0

    monkeypatch.setattr(native, "build_library", broken)
    with pytest.raises(sdfg.ToolError, match="cannot be loaded"):
        sdfg.program(f)(np.ones(3))
    assert entries(cache_dir) == []
    assert [n for n in os.listdir(cache_dir) if n.startswith(".")] == []
    monkeypatch.setattr(native, "build_library", build)
    np.testing.assert_array_equal(sdfg.program(f)(np.ones(3)), [2.0] * 3)


# ---------------------------------------------------------------------------
# Whom the cache trusts
# ---------------------------------------------------------------------------

EVIL = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
  FILE *f = fopen("%s", "w");
  if (f) { fputs("loaded", f); fclose(f); }
}
void py_f(void) {}
"""


@pytest.fixture
def evil_library(tmp_path):
    """A shared library whose constructor writes a marker file: (its
    path, the marker's)."""
    compiler = shutil.which("cc") or shutil.which("clang") or \
        shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build the planted library")
    marker = tmp_path / "planted-library-ran"
    src = tmp_path / "evil.c"
    src.write_text(EVIL % marker)
    lib = tmp_path / "evil.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(lib), str(src)],
                   check=True)
    # The marker works: loading the library writes it.
    ctypes.CDLL(str(lib))
    assert marker.exists()
    marker.unlink()
    return lib, marker


def test_cache_directory_is_created_private(cache_dir):
    old = os.umask(0)  # whatever the umask, 0700
    try:
        sdfg.program(lambda_free)(np.ones(2))
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(cache_dir).st_mode) == 0o700


def lambda_free(x):
    return x + 1.0


def test_planted_libraries_are_never_loaded(tmp_path, cache_dir,
                                            evil_library):
    # One beside program.so, and one in its place (ok.json unchanged):
    # neither is loaded; the entry is rebuilt.
    lib, marker = evil_library
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    value = run(script, cache_dir, check=True).stdout.split()[1]
    [entry] = entries(cache_dir)
    for name in ("evil.so", "libopenblas.so.0", "libm.so.6", "libomp.so.5"):
        shutil.copy(lib, os.path.join(entry, name))
    shutil.copy(lib, os.path.join(entry, "program.so"))
    proc = run(script, cache_dir)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["1", value]
    assert "damaged" in proc.stderr
    assert not marker.exists()


@pytest.mark.parametrize("where", ["cache", "entry", "file"])
def test_writable_by_others_is_refused(tmp_path, cache_dir, evil_library,
                                       where):
    # An attacker who can write there forges ok.json too: the permissions
    # are what is checked, and nothing is loaded.
    lib, marker = evil_library
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    run(script, cache_dir, check=True)
    [entry] = entries(cache_dir)
    shutil.copy(lib, os.path.join(entry, "program.so"))
    _rewrite_ok(entry)
    target = {"cache": cache_dir, "entry": entry,
              "file": os.path.join(entry, "program.so")}[where]
    os.chmod(target, 0o777 if where != "file" else 0o666)
    proc = run(script, cache_dir)
    assert proc.returncode == 1
    assert "CacheError: refusing to use the program cache" in proc.stderr
    assert "others can write it" in proc.stderr
    assert not marker.exists()
    if where == "cache":
        info = subprocess.run(
            [sys.executable, "-m", "sdfg", "cache", "info"],
            env=dict(os.environ, SDFG_CACHE_DIR=str(cache_dir),
                     PYTHONPATH=FRONTEND), capture_output=True, text=True)
        assert info.returncode == 1 and "refusing" in info.stderr


def test_writable_parent_is_refused(tmp_path, monkeypatch):
    # Whoever can write the directory above can replace the cache.
    parent = tmp_path / "shared"
    parent.mkdir()
    os.chmod(parent, 0o777)
    monkeypatch.setenv("SDFG_CACHE_DIR", str(parent / "cache"))
    with pytest.raises(sdfg.CacheError, match=f"the directory {parent} "
                                              "above it"):
        sdfg.program(lambda_free)(np.ones(2))
    os.chmod(parent, 0o1777)  # sticky, as /tmp: others cannot replace it
    np.testing.assert_array_equal(sdfg.program(lambda_free)(np.ones(2)),
                                  [2.0, 2.0])


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_entry_of_another_user_is_refused(tmp_path, cache_dir):
    script = tmp_path / "prog.py"
    script.write_text(PROGRAM)
    run(script, cache_dir, check=True)
    [entry] = entries(cache_dir)
    os.chown(entry, 65534, 65534)
    proc = run(script, cache_dir)
    assert proc.returncode == 1
    assert "owned by another user (uid 65534)" in proc.stderr


def test_unusable_cache_falls_back_to_a_private_directory(tmp_path,
                                                          monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    configured = str(blocker / "cache")
    monkeypatch.setenv("SDFG_CACHE_DIR", configured)
    with pytest.warns(sdfg.CacheWarning, match="cannot be used"):
        r = sdfg.program(lambda_free)(np.ones(2))
    np.testing.assert_array_equal(r, [2.0, 2.0])
    fallback = cache._FALLBACKS[configured]
    assert stat.S_IMODE(os.stat(fallback).st_mode) == 0o700
    assert len(entries(fallback)) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning per process
        sdfg.program(lambda_free)(np.ones(3))


READ_ONLY = """
import warnings
import numpy as np
import sdfg
from sdfg import native


def f(x, n):
    s = 0.0
    for i in range(n):
        s += np.sum(np.exp(x) * i)
    return s


x = np.linspace(0.0, 1.0, 16)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    cached = sdfg.program(f)(x, 3)    # in the read-only cache
    count = native.compile_count
    # Compiled into the fallback: extents below 8 are compiled in.
    other = sdfg.program(f)(x[:5], 4)
print(count, native.compile_count, repr(cached), repr(other),
      sum("cannot be used" in str(w.message) for w in caught))
"""


def test_read_only_cache_is_read_and_falls_back_for_builds(tmp_path):
    # A cache this process cannot write (a prebuilt one, as for GPU nodes):
    # its entries are loaded, new programs go to a private directory.
    shared = tempfile.mkdtemp()  # readable by the unprivileged user below
    try:
        os.chmod(shared, 0o755)
        script = os.path.join(shared, "ro.py")
        with open(script, "w") as f:
            f.write(READ_ONLY)
        os.chmod(script, 0o644)
        cache_dir = os.path.join(shared, "cache")
        prog = os.path.join(shared, "prog.py")
        with open(prog, "w") as f:
            f.write(PROGRAM)
        value = run(prog, cache_dir, check=True).stdout.split()[1]
        os.chmod(cache_dir, 0o555)
        kwargs = {}
        if os.geteuid() == 0:  # root writes anywhere: run as nobody
            def drop():
                os.setgid(65534)
                os.setuid(65534)
            kwargs = dict(preexec_fn=drop, cwd="/")
        proc = run(script, cache_dir, env={"HOME": shared}, **kwargs)
        assert proc.returncode == 0, proc.stderr
        before, after, cached, other, warned = proc.stdout.split()
        assert (before, after, warned) == ("0", "1", "1")
        assert float(cached) == float(value)
        x = np.linspace(0.0, 1.0, 16)
        assert float(other) == pytest.approx(np.sum(np.exp(x[:5])) * 6,
                                             rel=1e-14)
        assert len(entries(cache_dir)) == 1  # nothing written there
    finally:
        os.chmod(os.path.join(shared, "cache"), 0o755)
        shutil.rmtree(shared, ignore_errors=True)


# ---------------------------------------------------------------------------
# Symbol names
# ---------------------------------------------------------------------------

NAMES = ["malloc", "free", "memcpy", "exp", "sqrt", "abort", "main",
         "kmp_set_blocktime", "omp_get_num_threads", "sdfg_index_error",
         "sdfg_linalg_error", "__sdfg_report_index_error", "cblas_ddot",
         "dgetrf_", "größe"]

SYMBOLS = """
import numpy as np
import sdfg
import names

x = np.linspace(0.0, 1.0, 8)
idx = np.array([1, 2, 7])
for name in {names!r}:
    fn = getattr(names, name)
    got = sdfg.program(fn)(x, idx)
    assert abs(got - fn(x, idx)) < 1e-12, (name, got, fn(x, idx))
g = sdfg.grad(names.malloc, ["x"])(x, idx)["x"]
expected = np.exp(x) * (1 + x) + 2 * x
expected[idx] += 1.0
assert np.allclose(g, expected, rtol=1e-13), (g, expected)
try:
    sdfg.program(names.malloc)(x, np.array([9]))
except IndexError as e:
    print("IndexError", e)
print("ok")
"""


def test_functions_named_like_c_and_runtime_symbols(tmp_path, cache_dir):
    # Each is exported under a prefix that C, its libraries and the sdfg
    # runtime never use (translator.symbol_name).
    (tmp_path / "names.py").write_text("import numpy as np\n" + "".join(
        f"\n\ndef {n}(x, idx):\n"
        f"    return np.sum(x * np.exp(x)) + np.sum(x[idx]) + np.dot(x, x)\n"
        for n in NAMES))
    script = tmp_path / "symbols.py"
    script.write_text(SYMBOLS.format(names=NAMES))
    proc = run(script, cache_dir)
    assert proc.returncode == 0, proc.stderr
    assert "index 9 is out of bounds" in proc.stdout
    assert proc.stdout.strip().endswith("ok")


def test_symbol_names():
    from sdfg.frontend.translator import symbol_name
    assert symbol_name("malloc") == "py_malloc"
    assert symbol_name("größe") == "pyx_" + "größe".encode().hex()
    # Injective: no ASCII name is spelled like a non-ASCII one.
    assert symbol_name("x_" + "größe".encode().hex()) != symbol_name("größe")
    assert sdfg.to_mlir(lambda_free, np.ones(2)).startswith(
        "sdfg.sdfg @py_lambda_free(")


# ---------------------------------------------------------------------------
# Size limit and least-recently-used eviction
# ---------------------------------------------------------------------------

SIZES = """
import sys
import numpy as np
import sdfg


def g(x):
    return np.sum(np.sin(x) * x)


for n in sys.argv[1:]:
    sdfg.program(g)(np.ones(int(n)))
"""


def g(x):
    return np.sum(np.sin(x) * x)


def _entry_for(cache_dir, n):
    for e in entries(cache_dir):
        with open(os.path.join(e, "meta.json")) as f:
            if json.load(f)["params"][0][3] == [n]:
                return e
    return None


def test_least_recently_used_entries_are_evicted(tmp_path, cache_dir,
                                                 monkeypatch):
    script = tmp_path / "sizes.py"
    script.write_text(SIZES)
    run(script, cache_dir, "1", "2", "3", check=True)
    e1, e2, e3 = (_entry_for(cache_dir, n) for n in (1, 2, 3))
    now = time.time()
    for age, e in ((300, e1), (200, e2), (100, e3)):
        os.utime(e, (now - age, now - age))
    sizes = {d: s for _, d, s in cache._entries(str(cache_dir))}
    prog = sdfg.program(g)
    prog(np.ones(1))  # loads e1: now the most recently used, and in use
    assert os.stat(e1).st_mtime >= now - 1
    limit = int(3.5 * max(sizes.values()))
    monkeypatch.setenv("SDFG_CACHE_MAX_BYTES", str(limit))
    prog(np.ones(4))  # a fourth entry: over the limit by about one
    e4 = _entry_for(cache_dir, 4)
    assert entries(cache_dir) == sorted([e1, e3, e4])
    monkeypatch.setenv("SDFG_CACHE_MAX_BYTES", "0")
    prog(np.ones(5))  # all go, but those this process loaded
    assert entries(cache_dir) == sorted([e1, e4, _entry_for(cache_dir, 5)])
    assert prog(np.ones(1)) == pytest.approx(np.sin(1.0))


def test_size_limit_setting(monkeypatch):
    monkeypatch.delenv("SDFG_CACHE_MAX_BYTES", raising=False)
    assert cache.max_bytes() == 2 << 30
    for text, n in (("1000", 1000), ("2G", 2 << 30), ("1.5M", 3 << 19),
                    ("64KiB", 65536), ("0", 0)):
        monkeypatch.setenv("SDFG_CACHE_MAX_BYTES", text)
        assert cache.max_bytes() == n
    monkeypatch.setenv("SDFG_CACHE_MAX_BYTES", "lots")
    with pytest.raises(ValueError, match="SDFG_CACHE_MAX_BYTES='lots'"):
        cache.max_bytes()


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------

def cli(*argv, cache_dir=None):
    env = dict(os.environ, PYTHONPATH=FRONTEND)
    if cache_dir is not None:
        env["SDFG_CACHE_DIR"] = str(cache_dir)
    return subprocess.run([sys.executable, "-m", "sdfg"] + list(argv),
                          env=env, capture_output=True, text=True)


def test_cli_cache_info_and_clear(tmp_path, cache_dir):
    script = tmp_path / "sizes.py"
    script.write_text(SIZES)
    run(script, cache_dir, "1", "2", check=True)
    info = cli("cache", "info", cache_dir=cache_dir)
    assert info.returncode == 0, info.stderr
    total = sum(s for _, _, s in cache._entries(str(cache_dir)))
    assert f"location: {cache_dir}\n" in info.stdout
    assert "entries:  2\n" in info.stdout
    assert f"({total} bytes)" in info.stdout
    assert "limit:    2.0 GiB (2147483648 bytes)" in info.stdout
    cleared = cli("cache", "clear", cache_dir=cache_dir)
    assert cleared.returncode == 0, cleared.stderr
    assert f"removed 2 cached program(s) from {cache_dir}" in cleared.stdout
    assert entries(cache_dir) == []
    assert "entries:  0\n" in cli("cache", "info",
                                  cache_dir=cache_dir).stdout
    bad = cli("cache", "list", cache_dir=cache_dir)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_cli_argument_count_mismatch_is_a_clear_error(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text("def f(A, n, c):\n    A[:] = A * c\n\n\n"
                   "def g(A, c=2.0):\n    A[:] = A * c\n")
    for argv, message in (
            (("f", "float64[4]", "2"), "f takes 3 arguments (A, n, c), "
                                       "2 given"),
            (("f", "float64[4]", "2", "1.0", "3"),
             "f takes 3 arguments (A, n, c), 4 given"),
            (("g",), "g takes 1 to 2 arguments (A, c), 0 given")):
        proc = cli(str(src), *argv)
        assert proc.returncode == 1
        assert proc.stderr == f"python -m sdfg: error: {message}\n"
    ok = cli(str(src), "g", "float64[4]")
    assert ok.returncode == 0 and "sdfg.sdfg @py_g(" in ok.stdout
