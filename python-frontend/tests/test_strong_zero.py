"""Gradients through branches a program discards: where an operation's
result gets a zero adjoint its operands get zero too (strong zero), so an
infinite or NaN local derivative on a discarded branch (sqrt at 0, log of
a negative number, division by zero) does not poison the gradient. Checked
against central finite differences (float64) away from the kinks and
against the analytic values at them."""

import warnings

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def where_log(x):
    return np.sum(np.where(x > 0, np.log(x), x))


def sqrt_then_where(x):
    y = np.sqrt(x)          # a separate array: its adjoint flows through memory
    return np.sum(np.where(x > 0, y, 0.0))


def x_log_x(x):
    return np.sum(np.where(x > 0, x * np.log(x), 0.0))


def safe_ratio(x, y):
    return np.sum(np.where(y != 0, x / y, 0.0))


def branch_in_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s += np.sqrt(x[i])
    return s


def power_or_reflect(x):
    return np.sum(np.where(x > 0, x ** 1.5, -x))


def taken_sqrt(x):
    return np.sum(np.sqrt(x))


def _fd(fn, args, k, h=1e-6):
    """Central differences of fn in each element of argument k."""
    out = np.zeros_like(args[k])
    for i in range(args[k].size):
        plus = [a.copy() for a in args]
        minus = [a.copy() for a in args]
        plus[k].flat[i] += h
        minus[k].flat[i] -= h
        out.flat[i] = (fn(*plus) - fn(*minus)) / (2 * h)
    return out


X = np.array([-2.0, -0.5, 0.0, 0.25, 4.0, 9.0])
# Analytic gradients (at 0 the discarded branch's value: the taken one's
# derivative, 0 for a constant branch, 1 for `x`).
EXPECTED = {
    where_sqrt: np.where(X > 0, 0.5 / np.sqrt(np.maximum(X, 1e-300)), 0.0),
    where_log: np.where(X > 0, 1 / np.where(X > 0, X, 1.0), 1.0),
    sqrt_then_where: np.where(X > 0, 0.5 / np.sqrt(np.maximum(X, 1e-300)),
                              0.0),
    x_log_x: np.where(X > 0, np.log(np.where(X > 0, X, 1.0)) + 1, 0.0),
    branch_in_loop: np.where(X > 0, 0.5 / np.sqrt(np.maximum(X, 1e-300)),
                             0.0),
    power_or_reflect: np.where(X > 0, 1.5 * np.sqrt(np.maximum(X, 0.0)),
                               -1.0),
}


@pytest.mark.parametrize("fn", list(EXPECTED), ids=lambda f: f.__name__)
def test_discarded_branch_gives_zero(fn):
    g = sdfg.grad(fn, ["x"])(X.copy())["x"]
    assert np.all(np.isfinite(g)), g
    np.testing.assert_allclose(g, EXPECTED[fn], rtol=1e-13, atol=0)
    away = X != 0  # finite differences straddle the kink at 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fd = _fd(fn, [X.copy()], 0)
    np.testing.assert_allclose(g[away], fd[away], rtol=1e-7, atol=1e-9)


def test_division_by_zero_discarded():
    x = np.array([1.5, -2.0, 3.0, 0.5])
    y = np.array([0.0, 4.0, 0.0, -2.0])
    g = sdfg.grad(safe_ratio, ["x", "y"])(x, y)
    np.testing.assert_allclose(g["x"], [0.0, 0.25, 0.0, -0.5], rtol=1e-15)
    np.testing.assert_allclose(g["y"], [0.0, 2.0 / 16, 0.0, -0.5 / 4],
                               rtol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fd = _fd(safe_ratio, [x, y], 1)
    away = y != 0
    np.testing.assert_allclose(g["y"][away], fd[away], rtol=1e-7)


def test_taken_branch_keeps_its_infinities():
    """Strong zero only applies to zero adjoints: a singular derivative on
    the path to the result still shows (d sqrt(x)/dx is inf at 0 and NaN
    below)."""
    g = sdfg.grad(taken_sqrt, ["x"])(np.array([-1.0, 0.0, 4.0]))["x"]
    assert np.isnan(g[0]) and g[1] == np.inf and g[2] == 0.25
