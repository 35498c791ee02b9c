"""`pip install ./python-frontend` into a fresh venv of a Python that is
not Debian's (pyenv's oldest supported, 3.9, where there is one), with
NumPy from PyPI, then a representative subset of the tests run against
the installed package. Skipped where there is no such Python or PyPI
cannot be reached."""

import glob
import os
import shutil
import subprocess

import pytest

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(FRONTEND, "tests")
SUBSET = ["test_jax_api.py", "test_execution.py", "test_arguments.py",
          "test_forward_mode.py"]


def _foreign_python():
    """A Python >= 3.9 that is not the system's (/usr/bin), oldest first:
    $SDFG_TEST_PYTHON, pyenv's versions, python3 on PATH."""
    found = [os.environ.get("SDFG_TEST_PYTHON")]
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found += sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin",
                                           "python3")),
                    key=lambda p: tuple(int(x) for x in
                                        p.split(os.sep)[-3].split(".")[:2]))
    found.append(shutil.which("python3"))
    for py in found:
        if not py or not os.path.exists(py):
            continue
        real = os.path.realpath(py)
        if real.startswith("/usr/bin/") or real.startswith("/bin/"):
            continue
        probe = subprocess.run(
            [py, "-c", "import sys; print(sys.version_info >= (3, 9))"],
            capture_output=True, text=True)
        if probe.stdout.strip() == "True":
            return real
    return None


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def test_pip_install_into_a_fresh_venv(tmp_path):
    py = _foreign_python()
    if py is None:
        pytest.skip("no Python >= 3.9 besides the system's")
    venv = tmp_path / "venv"
    made = _run([py, "-m", "venv", str(venv)])
    assert made.returncode == 0, made.stderr
    vpy = str(venv / "bin" / "python")
    deps = _run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version"
                 "-check", "numpy>=1.24,<3", "pytest"], timeout=600)
    if deps.returncode != 0:
        pytest.skip(f"PyPI cannot be reached: {deps.stderr.strip()[-300:]}")
    inst = _run([vpy, "-m", "pip", "install", "-q", "--disable-pip-version"
                 "-check", FRONTEND], timeout=600)
    if inst.returncode != 0 and "setuptools" in inst.stderr and \
            "No matching distribution" in inst.stderr:
        pytest.skip(f"PyPI cannot be reached: {inst.stderr.strip()[-300:]}")
    assert inst.returncode == 0, inst.stderr
    # The installed package, not this source tree (run from elsewhere).
    where = _run([vpy, "-c", "import sdfg, numpy; print(sdfg.__file__); "
                  "print(numpy.__version__)"], cwd=str(tmp_path))
    assert where.returncode == 0, where.stderr
    path, numpy_version = where.stdout.split()
    assert path.startswith(str(venv)), path
    env = dict(os.environ, SDFG_TEST_INSTALLED="1",
               SDFG_CACHE_DIR=str(tmp_path / "cache"))
    env.setdefault("SDFG_BUILD_DIR", os.path.join(
        os.path.dirname(FRONTEND), "build"))
    env.pop("PYTHONPATH", None)
    run = _run([vpy, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "-k", "not corpus"] +
               [os.path.join(TESTS, t) for t in SUBSET],
               cwd=str(tmp_path), env=env, timeout=1200)
    assert run.returncode == 0, \
        f"{py} with NumPy {numpy_version}:\n{run.stdout[-3000:]}"
    assert " passed" in run.stdout and "failed" not in run.stdout
