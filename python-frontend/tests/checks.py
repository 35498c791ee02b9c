"""Checks shared by the test files of single-matrix NumPy programs."""

import numpy as np

import sdfg


def assert_forward_and_gradient(fn, A, rng):
    """`fn(A)` compiled equals NumPy's to rounding, and so does what it
    leaves in A; its gradient's directional derivative along a random
    direction equals the central finite difference (float64)."""
    with np.errstate(all="ignore"):
        want_A = A.copy()
        want = fn(want_A)
        got_A = A.copy()
        got = sdfg.program(fn)(got_A)
        np.testing.assert_allclose(got, want, rtol=1e-13)
        np.testing.assert_allclose(got_A, want_A, rtol=1e-14)
        g = sdfg.grad(fn, ["A"])(A.copy())["A"]
        d = rng.standard_normal(A.shape)
        h = 1e-6
        fd = (fn(A + h * d) - fn(A - h * d)) / (2 * h)
    ad = float(np.sum(g * d))
    assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


def fd_gradient(fn, args, k, h=1e-6):
    """Central differences of sum(fn(*args)) with respect to args[k] (an
    array), element by element (float64)."""
    x = args[k]
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[j] = h
        up = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        down = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        up[k], down[k] = x + e, x - e
        g[j] = (np.sum(fn(*up)) - np.sum(fn(*down))) / (2 * h)
    return g
