"""break and continue (rewritten into flags and branches before
translation), forward against NumPy and gradients against finite
differences, over inputs that take the exits at different iterations."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def first_large(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.9:
            break
        s += x[i] ** 2
    return s


def skip_large(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            continue
        s += x[i] ** 2
    return s


def nested_exits(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            if j > i:
                break
            if x[j] < 0.2:
                continue
            s = s + x[i] * x[j]
        if s > 3.0:
            break
    return s


def while_until(x):
    s = 1.0
    n = 0
    while n < 100:
        s = s * (1.0 + x[n % 5] * 0.1)
        if s > 2.0:
            break
        n += 1
    return s


def elif_exits(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.1:
            continue
        elif x[i] > 0.95:
            break
        else:
            s += np.sin(x[i])
        s = s * 1.01
    return s


CASES = [first_large, skip_large, nested_exits, while_until, elif_exits]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_forward_and_gradient(fn, seed):
    rng = np.random.default_rng(seed)
    x = rng.random(12)
    np.testing.assert_allclose(sdfg.program(fn)(x), fn(x), rtol=1e-14)
    g = sdfg.grad(fn, ["x"])(x)["x"]
    d = rng.standard_normal(x.shape)
    h = 1e-7  # small enough not to move an exit
    fd = (fn(x + h * d) - fn(x - h * d)) / (2 * h)
    assert abs(float(np.sum(g * d)) - fd) <= 1e-6 * max(abs(fd), 1.0)
