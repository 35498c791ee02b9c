"""np.triu_indices / np.tril_indices (and _from), np.diag_indices and the
.item() method, against NumPy bit for bit; gradients through the
selections they make."""

import numpy as np
import pytest

import sdfg

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def upper(A):
    i, j = np.triu_indices(5)
    return A[i, j]


def strictly_lower(A):
    i, j = np.tril_indices(5, -1)
    return A[i, j].sum()


def rectangular(A):
    r, c = np.triu_indices(4, 1, 6)
    return r * 10 + c


def past_the_corner(A):
    return np.tril_indices(4, 3, 3)


def empty_triangle(A):
    r, c = np.triu_indices(3, 5)
    return r, c


def zero_below(A):
    r, c = np.tril_indices_from(A, k=-1)
    A[r, c] = 0.0
    return A


def from_shape(A):
    r, c = np.triu_indices_from(A, 2)
    return A[r, c] * 2.0


def diagonal(A):
    r, c = np.diag_indices(5)
    return A[r, c] + 1.0


def only_element(x):
    return x * x[2:3].item()


def flat_and_multi(x, A):
    return x * x.item(3) + A.item(1, 2) + A.item(7) + A.item((4, 4))


def value_not_view(x):
    s = x.item(0)
    x[0] = 100.0
    return s + x.item(-1)


def triangle_loss(A):
    r, c = np.triu_indices(5, 1)
    v = A[r, c]
    return np.sum(v * v) + A.item(0, 1) * A.item(2, 2)


@pytest.mark.parametrize("fn,args", [
    (upper, lambda r: (r.random((5, 5)),)),
    (strictly_lower, lambda r: (r.random((5, 5)),)),
    (rectangular, lambda r: (r.random((5, 5)),)),
    (past_the_corner, lambda r: (r.random((5, 5)),)),
    (empty_triangle, lambda r: (r.random((5, 5)),)),
    (zero_below, lambda r: (r.random((4, 6)),)),
    (from_shape, lambda r: (r.random((6, 5)),)),
    (diagonal, lambda r: (r.random((5, 5)),)),
    (only_element, lambda r: (r.random(8),)),
    (flat_and_multi, lambda r: (r.random(8), r.random((5, 5)))),
    (value_not_view, lambda r: (r.random(8),)),
])
def test_matches_numpy_bitwise(fn, args):
    a = args(np.random.default_rng(5))
    ref = [x.copy() for x in a]
    ours = [x.copy() for x in a]
    want, got = fn(*ref), sdfg.program(fn)(*ours)
    if not isinstance(want, tuple):
        want, got = (want,), (got,)
    for g, w in zip(list(got) + ours, list(want) + ref):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def test_gradient():
    A = np.random.default_rng(6).random((5, 5))
    np.testing.assert_allclose(sdfg.grad(triangle_loss, argnums=0)(A),
                               fd_gradient(triangle_loss, [A], 0),
                               rtol=1e-7, atol=1e-9)


def size_from_data(A):
    return np.triu_indices(int(A[0, 0]))


def not_one_element(x):
    return x.item()


def float_index(x):
    return x.item(1.0)


@pytest.mark.parametrize("fn,match", [
    (size_from_data, "computed at run time"),
    (not_one_element, "array of size 1"),
    (float_index, "integer indices"),
])
def test_refused(fn, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(np.ones((3, 3)) * 3.0)
