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
