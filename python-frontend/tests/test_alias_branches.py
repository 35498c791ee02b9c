"""Names bound to one array or another in a branch decided at run time,
then updated in place (desugar/alias_branches.py): the update reaches the
array the name was bound to, as in NumPy; in loops too, where the name is
bound anew in each iteration (ping-pong buffers chosen by parity).
Forward bit for bit against NumPy, gradients against finite differences.
"""

import numpy as np
import pytest

import sdfg

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def first_bound_in_branch(x, y, s):
    if s > 0.0:
        a = x
    else:
        a = y
    a[0] = 1.0
    return x + y


def rebound_from_data(x, y):
    a = x
    if x[0] > 0.5:
        a = y
    a[1:] = 2.0 * a[:-1]
    return a.sum() + x[2]


def parity_ping_pong(A, B, n):
    for it in range(n):
        src = A if it % 2 == 0 else B
        dst = B if it % 2 == 0 else A
        dst[1:-1] = 0.5 * (src[:-2] + src[2:])
    return A + B


def parity_tuple(A, B, n):
    for it in range(n):
        if it % 2 == 0:
            src, dst = A, B
        else:
            src, dst = B, A
        dst[1:-1] = src[1:-1] + 0.1 * (src[:-2] - 2.0 * src[1:-1] + src[2:])
    return A * B


def larger_one(A, B, n):
    for it in range(n):
        if A[0] > B[0]:
            big = A
        else:
            big = B
        big[0] -= 0.25
    return A + B


def choose_rows(M, k):
    r = M[0] if k > 0.5 else M[1]
    r *= 3.0
    return M


def nested(x, y, z):
    a = x
    if x[0] > 0.3:
        a = y
        if y[1] > 0.5:
            a = z
    a += 1.0
    return x * 1.0 + y * 2.0 + z * 3.0


def early_return(x, y):
    a = x
    if x[0] > 0.5:
        a = y
        a[0] = 7.0
        return a * 2.0
    a[1] = 5.0
    return a + y


@pytest.mark.parametrize("fn,make", [
    (first_bound_in_branch, lambda r: (r.random(5), r.random(5), 1.0)),
    (first_bound_in_branch, lambda r: (r.random(5), r.random(5), -1.0)),
    (rebound_from_data, lambda r: (r.random(6) * 0.4, r.random(6))),
    (rebound_from_data, lambda r: (r.random(6) + 0.6, r.random(6))),
    (parity_ping_pong, lambda r: (r.random(12), r.random(12), 5)),
    (parity_ping_pong, lambda r: (r.random(12), r.random(12), 4)),
    (parity_tuple, lambda r: (r.random(12), r.random(12), 7)),
    (larger_one, lambda r: (r.random(6), r.random(6), 9)),
    (choose_rows, lambda r: (r.random((3, 4)), 0.7)),
    (choose_rows, lambda r: (r.random((3, 4)), 0.2)),
    (nested, lambda r: (np.array([0.1, 0.9]), r.random(2), r.random(2))),
    (nested, lambda r: (np.array([0.9, 0.9]), np.array([0.0, 0.9]),
                        r.random(2))),
    (nested, lambda r: (np.array([0.9, 0.9]), np.array([0.0, 0.1]),
                        r.random(2))),
    (early_return, lambda r: (np.array([0.9, 0.2, 0.3]), r.random(3))),
    (early_return, lambda r: (np.array([0.1, 0.2, 0.3]), r.random(3))),
])
def test_matches_numpy(fn, make):
    args = make(np.random.default_rng(7))
    ref = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*ref)
    got = sdfg.program(fn)(*ours)
    np.testing.assert_array_equal(got, want)
    for g, w in zip(ours, ref):
        np.testing.assert_array_equal(g, w)


def ping_pong_loss(A, B):
    A, B = A.copy(), B.copy()
    for it in range(6):
        src = A if it % 2 == 0 else B
        dst = B if it % 2 == 0 else A
        dst[1:-1] = src[1:-1] + 0.2 * (src[:-2] - 2.0 * src[1:-1] + src[2:])
        dst[1:-1] = np.sin(dst[1:-1]) * src[1:-1]
    return np.sum(A * B)


def branch_loss(x, y):
    x, y = x.copy(), y.copy()
    a = x
    if x[0] > 0.5:
        a = y
    a[1:] = a[1:] * a[:-1]
    return np.sum(x * y) + np.sum(a)


@pytest.mark.parametrize("fn,x0", [(ping_pong_loss, 0.3),
                                   (branch_loss, 0.3),
                                   (branch_loss, 0.8)])
def test_gradient(fn, x0):
    r = np.random.default_rng(8)
    A, B = r.random(10) + 0.5, r.random(10) + 0.5
    A[0] = x0
    got = sdfg.grad(fn, argnums=(0, 1))(A, B)
    for k in range(2):
        np.testing.assert_allclose(got[k], fd_gradient(fn, [A, B], k),
                                   rtol=1e-7, atol=1e-9)


def carried_alias(x, y):
    a = x
    for t in range(3):
        a[t] += 1.0
        a = y
    return x + y


def test_alias_carried_by_a_loop_is_still_refused():
    # Which array `a` names depends on the iteration: no arm can hold the
    # rest of the loop (see the design note in alias_branches.py).
    with pytest.raises(sdfg.FrontendError,
                       match="alias of a rebound array updated in place"):
        sdfg.program(carried_alias)(np.zeros(3), np.zeros(3))


def test_copies_are_bounded(tmp_path, monkeypatch):
    # Fourteen branches in a row, each rebinding `a` and updating it: the
    # rest of the function in each arm would make 2^14 copies. The pass
    # stops copying at its budget and the translator refuses the rest,
    # quickly and with the reason.
    src = "def many(x, y):\n    a = x\n"
    for k in range(14):
        src += (f"    if x[{k % 4}] > {0.1 * k}:\n        a = y\n"
                f"    else:\n        a = x\n    a[{k % 4}] += 1.0\n")
    src += "    return x + y\n"
    (tmp_path / "many_branches.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    from many_branches import many
    with pytest.raises(sdfg.FrontendError,
                       match="alias of a rebound array updated in place"):
        sdfg.program(many)(np.zeros(4), np.zeros(4))
