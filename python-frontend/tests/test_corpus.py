"""Every kernel of the corpus, compiled with sdfg.program, against NumPy.

Results (returned values and arguments updated in place) must match NumPy:
relative error <= 1e-12 in float64 (1e-5 for float32 kernels).
"""

import copy

import numpy as np
import pytest

import sdfg
from corpus.kernels import KERNELS


def _tolerance(args):
    if any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args):
        return 1e-5, 1e-6
    return 1e-12, 1e-13


def _compare(got, want, rtol, atol, what):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), what
        for k, (g, w) in enumerate(zip(got, want)):
            _compare(g, w, rtol, atol, f"{what}[{k}]")
        return
    if want is None:
        assert got is None, what
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert g.dtype == w.dtype, f"{what}: dtype {g.dtype} != {w.dtype}"
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=what)


def _check_against_numpy(name, seed, **options):
    """Kernel `name` compiled with sdfg.program(fn, **options) on inputs
    of `seed`: its result and the arguments it updates equal NumPy's."""
    fn, inputs = KERNELS[name]
    args = inputs(np.random.default_rng(seed))
    ref_args = copy.deepcopy(args)
    our_args = copy.deepcopy(args)
    want = fn(*ref_args)
    got = sdfg.program(fn, **options)(*our_args)
    rtol, atol = _tolerance(args)
    _compare(got, want, rtol, atol, f"{name} result")
    for k, (g, w) in enumerate(zip(our_args, ref_args)):
        if isinstance(w, np.ndarray):
            _compare(g, w, rtol, atol, f"{name} argument {k}")


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_matches_numpy(name, tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))
    _check_against_numpy(name, 0)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_kernel_with_symbolic_sizes_matches_numpy(name, tmp_path,
                                                  monkeypatch):
    """The same kernels compiled with array extents as symbols from the
    first call (frontend/symbolic_sizes.py): a different program (dynamic
    memrefs, allocations sized when it runs, bounds proved for every
    size), the same results; kernels the symbols cannot serve compile
    their shapes in by themselves."""
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))
    _check_against_numpy(name, 1, dynamic=True)
