"""sdfg.graph and `python -m sdfg show`: programs as Graphviz graphs."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import sdfg

FRONTEND = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def heat(u, T):
    for t in range(T):
        u[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def test_forward_graph():
    dot = sdfg.graph(heat, np.ones(16), 4)
    assert dot.startswith("digraph sdfg {")
    assert 'label="sdfg @py_heat";' in dot
    assert 'label="for t = 0 to 4 step 1"' in dot
    # The stencil: a map over the interior, its tasklet and memlets.
    assert 'label="map (i) = (0) to (14)' in dot
    assert 'label="u[i + 2]"' in dot and 'label="u[i]"' in dot
    assert '[shape=ellipse, label="u", penwidth=2];' in dot


def test_gradient_graph_and_plan():
    dot = sdfg.graph(heat, np.ones(16), 4, wrt="u")
    assert 'label="sdfg @py_heat_grad";' in dot
    # The reversed loop runs backwards.
    assert 'step -1"' in dot
    # Between the smallest feasible plan (520 B) and storing all (560 B).
    planned = sdfg.graph(heat, np.ones(16), 4, wrt=["u"], mem=530 / 2**20)
    assert "fillcolor=" in planned


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's dot is not installed")
def test_svg_and_png():
    svg = sdfg.graph(heat, np.ones(16), 4, format="svg")
    assert "<svg" in svg and "py_heat" in svg
    png = sdfg.graph(heat, np.ones(16), 4, format="png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_graph_options():
    with pytest.raises(ValueError, match="format"):
        sdfg.graph(heat, np.ones(16), 4, format="pdf")
    with pytest.raises(ValueError, match="wrt"):
        sdfg.graph(heat, np.ones(16), 4, mem=1.0)


def test_show_command(tmp_path):
    src = tmp_path / "k.py"
    src.write_text("import numpy as np\n\ndef f(x):\n"
                   "    return np.sum(np.sin(x) * x)\n")
    out = tmp_path / "f.dot"
    env = dict(os.environ, PYTHONPATH=FRONTEND)
    run = subprocess.run([sys.executable, "-m", "sdfg", "show", str(src),
                          "f", "float64[8]", "--wrt", "x", "-o", str(out)],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert 'label="sdfg @py_f_grad";' in out.read_text()
    bad = subprocess.run([sys.executable, "-m", "sdfg", "show", str(src),
                          "f", "float64[8]", "--format", "png"],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 1 and "png needs -o" in bad.stderr
