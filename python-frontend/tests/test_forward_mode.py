"""Forward mode: sdfg.jvp (the sdfg-forward-diff pass) against central
finite differences and against reverse mode, on small programs and on
every float64 kernel of the corpus."""

import copy
import inspect

import numpy as np
import pytest

import sdfg
from corpus.kernels import KERNELS
from test_gradients import _inputs, _output_spec, _sum_output


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def layer(x, W, alpha, n):
    y = np.tanh(W @ x) * alpha
    for _ in range(n):
        y = 0.5 * y + np.sin(y)
    s = 0.0
    for i in range(y.shape[0]):
        if y[i] > 0:
            s += y[i] * x[i]
    return np.sum(y * y) + s, y


def _fd(fn, args, dirs, k, h=1e-6):
    """Central difference of result k of fn along dirs ({position: dir})."""
    def at(s):
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        for p, d in dirs.items():
            a[p] = a[p] + s * h * d
        return np.asarray(fn(*a)[k], dtype=np.float64)
    return (at(1.0) - at(-1.0)) / (2 * h)


RNG = np.random.default_rng(3)
X = RNG.standard_normal(3)
W = RNG.standard_normal((3, 3))


def test_jvp_matches_finite_differences():
    v, V = RNG.standard_normal(3), RNG.standard_normal((3, 3))
    args = (X, W, 1.3, 2)
    (val, y), (tval, ty) = sdfg.jvp(layer, args, (v, V, None, None))
    want_val, want_y = layer(*args)
    assert val == pytest.approx(want_val, rel=1e-13)
    np.testing.assert_allclose(y, want_y, rtol=1e-13)
    dirs = {0: v, 1: V}
    assert tval == pytest.approx(float(_fd(layer, args, dirs, 0)), rel=1e-7)
    np.testing.assert_allclose(ty, _fd(layer, args, dirs, 1), rtol=1e-7,
                               atol=1e-9)


def test_jvp_agrees_with_reverse_mode():
    v = RNG.standard_normal(3)
    args = (X, W, 1.3, 2)
    _, (tval, _) = sdfg.jvp(layer, args, (v, None, None, None))
    g = sdfg.grad(layer, ["x"], output="return:0")(*args)["x"]
    assert tval == pytest.approx(float(g @ v), rel=1e-12)


def test_jvp_of_a_float_scalar_and_zero_tangents():
    args = (X, W, 1.3, 2)
    (_, y), (_, ty) = sdfg.jvp(layer, args, (None, None, 1.0, None))
    np.testing.assert_allclose(ty, _fd(layer, args, {2: 1.0}, 1),
                               rtol=1e-7, atol=1e-9)
    # No tangent at all: the results and zero tangents.
    (val, y2), (tval, ty2) = sdfg.jvp(layer, args, (None,) * 4)
    assert tval == 0.0 and not ty2.any()
    np.testing.assert_array_equal(y2, y)


def scale_in_place(x, c):
    x *= c
    x[0] = 1.0
    return x


def test_jvp_leaves_the_callers_arrays_alone():
    x = np.arange(1.0, 4.0)
    t = np.ones(3)
    val, tan = sdfg.jvp(scale_in_place, (x, 2.0), (t, None))
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(t, np.ones(3))
    np.testing.assert_array_equal(val, [1.0, 4.0, 6.0])
    # x[0] = 1.0 overwrites the tangent with zero.
    np.testing.assert_array_equal(tan, [0.0, 2.0, 2.0])


@pytest.mark.parametrize("tangents, error, match", [
    ((np.ones(3),), TypeError, "1 tangent"),
    ((np.ones(4), None, None, None), ValueError, "shape"),
    ((None, None, None, 1), TypeError, "only float arrays and floats"),
])
def test_jvp_bad_tangents(tangents, error, match):
    with pytest.raises(error, match=match):
        sdfg.jvp(layer, (X, W, 1.3, 2), tangents)


def solve_it(A, b, B):
    return np.linalg.solve(A, b), np.linalg.solve(A.T, B)


def test_jvp_of_solve():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b, B = rng.standard_normal(3), rng.standard_normal((3, 2))
    dA, db, dB = (rng.standard_normal(s) for s in ((3, 3), 3, (3, 2)))
    args = (A, b, B)
    dirs = {0: dA, 1: db, 2: dB}
    _, (tx, tX) = sdfg.jvp(solve_it, args, (dA, db, dB))
    np.testing.assert_allclose(tx, _fd(solve_it, args, dirs, 0), rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_allclose(tX, _fd(solve_it, args, dirs, 1), rtol=1e-7,
                               atol=1e-9)


def _jvp_kernels():
    out = []
    for name in sorted(KERNELS):
        fn, args = _inputs(name)
        spec = _output_spec(fn, args)
        if spec in ("return", "return:0") and name not in FLOAT32_OUTPUT:
            out.append(name)
    return out


# Float32 results: finite differences cannot check them to 1e-6.
FLOAT32_OUTPUT = {"layernorm"}


@pytest.mark.parametrize("name", _jvp_kernels())
def test_corpus_jvp(name):
    fn, args = _inputs(name)
    spec = _output_spec(fn, args)
    rng = np.random.default_rng(1)
    tangents = [rng.standard_normal(a.shape)
                if isinstance(a, np.ndarray) and a.dtype.kind == "f" else None
                for a in args]
    _, t = sdfg.jvp(fn, copy.deepcopy(args), tangents)
    t = t[0] if spec == "return:0" else t
    h = 1e-6

    def shifted(s):
        a = [x + s * h * d if d is not None else copy.deepcopy(x)
             for x, d in zip(args, tangents)]
        return _sum_output(fn, a, spec)

    fd = (shifted(1.0) - shifted(-1.0)) / (2 * h)
    got = float(np.sum(t))
    assert abs(fd - got) <= 1e-6 * max(abs(fd), 1.0), (fd, got)


def cubic(x, y):
    return np.sum(x ** 3) + x[0] * x[1] * y


def test_hvp_and_hessian_analytic():
    x = np.array([1.0, -2.0, 0.5])
    v = np.array([0.3, 1.0, -2.0])
    hx, hy = sdfg.hvp(cubic, (x, 1.5), (v, None))
    H = np.diag(6 * x)
    H[0, 1] = H[1, 0] = 1.5
    np.testing.assert_allclose(hx, H @ v, rtol=1e-14)
    assert hy is None
    np.testing.assert_allclose(sdfg.hessian(cubic)(x, 1.5), H, rtol=1e-14)
    # Mixed: d/dy of d/dx along (v, 1) and its y component.
    hx2, hy2 = sdfg.hvp(cubic, (x, 1.5), (v, 1.0))
    np.testing.assert_allclose(hx2, H @ v + np.array([x[1], x[0], 0.0]),
                               rtol=1e-14)
    assert hy2 == pytest.approx(x[1] * v[0] + x[0] * v[1], rel=1e-14)


def test_hvp_matches_finite_differences_of_the_gradient():
    def loss(x, W):
        return layer(x, W, 1.3, 2)[0]
    v, V = RNG.standard_normal(3), RNG.standard_normal((3, 3))
    hx, hW = sdfg.hvp(loss, (X, W), (v, V))
    g = sdfg.grad(loss, ["x", "W"])
    h = 1e-5
    up, down = g(X + h * v, W + h * V), g(X - h * v, W - h * V)
    np.testing.assert_allclose(hx, (up["x"] - down["x"]) / (2 * h),
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(hW, (up["W"] - down["W"]) / (2 * h),
                               rtol=1e-6, atol=1e-7)


def test_hessian_is_symmetric_through_loops_and_max():
    def f(x):
        y = x.copy()
        for _ in range(3):
            y = np.sin(y) * x + 0.1 * y * y
        return np.sum(y * y) + np.max(x * x)
    x = np.array([0.3, -1.2, 0.8, 2.0])
    H = sdfg.hessian(f)(x)
    np.testing.assert_allclose(H, H.T, rtol=1e-12, atol=1e-12)
    g = sdfg.grad(f, "x")
    h = 1e-5
    for j in range(4):
        e = np.zeros(4)
        e[j] = h
        col = (g(x + e)["x"] - g(x - e)["x"]) / (2 * h)
        np.testing.assert_allclose(H[:, j], col, rtol=1e-6, atol=1e-6)


def test_hvp_bad_arguments():
    with pytest.raises(ValueError, match="at least one"):
        sdfg.hvp(cubic, (X, 1.0), (None, None))
    with pytest.raises(TypeError, match="argnums must be an int"):
        sdfg.hessian(cubic, (0,))


@pytest.mark.parametrize("name", _jvp_kernels())
def test_corpus_hvp(name):
    fn, args = _inputs(name)
    spec = _output_spec(fn, args)
    rng = np.random.default_rng(2)
    names = list(inspect.signature(fn).parameters)
    wrt = [n for n, a in zip(names, args)
           if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    tangents = [rng.standard_normal(a.shape) if n in wrt else None
                for n, a in zip(names, args)]
    hv = sdfg.hvp(fn, copy.deepcopy(args), tangents, output=spec)
    g = sdfg.grad(fn, wrt, output=spec)
    h = 1e-5

    def at(s):
        return g(*[a + s * h * t if t is not None else copy.deepcopy(a)
                   for a, t in zip(args, tangents)])
    up, down = at(1.0), at(-1.0)
    for n, got in zip(names, hv):
        if n not in wrt:
            assert got is None
            continue
        fd = (up[n] - down[n]) / (2 * h)
        scale = max(1.0, float(np.max(np.abs(fd))))
        np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-5 * scale,
                                   err_msg=n)


def labelled_log(y, w):
    return np.sum(y * np.log(w))


def test_hvp_where_an_adjoint_is_exactly_zero():
    # d/dw = y / w reaches w through the adjoint y of log(w), zero at the
    # 0 label: its derivative in y is still 1 / w there (the gradient
    # program of hvp has no strong zeros, which would give 0).
    y, w = np.array([0.0, 1.0, 2.0]), np.array([0.5, 2.0, 4.0])
    vy, vw = np.array([1.0, -1.0, 0.5]), np.array([0.25, 1.0, -2.0])
    hy, hw = sdfg.hvp(labelled_log, (y, w), (vy, vw))
    np.testing.assert_allclose(hy, vw / w, rtol=1e-15)
    np.testing.assert_allclose(hw, vy / w - y * vw / w ** 2, rtol=1e-15)


def wave(x, a):
    return np.sin(x) * x ** 3 + np.sum(a * a) * x


def test_grad_of_grad():
    x, a = 0.7, np.array([1.0, 2.0])
    d2 = sdfg.grad(sdfg.grad(wave, argnums=0), argnums=0)(x, a)
    want = -np.sin(x) * x ** 3 + 6 * np.cos(x) * x ** 2 + 6 * x * np.sin(x)
    assert d2 == pytest.approx(want, rel=1e-14)
    # d/da of df/dx = 2a; by name, as a dict.
    g = sdfg.grad(sdfg.grad(wave, "x"), ["a", "x"])(x, a)
    np.testing.assert_allclose(g["a"], 2 * a, rtol=1e-15)
    assert g["x"] == pytest.approx(want, rel=1e-14)
    # Of an array argument: the gradient of the sum of the gradient.
    def cube(v):
        return np.sum(v ** 3)
    v = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(sdfg.grad(sdfg.grad(cube))(v)["v"], 6 * v,
                               rtol=1e-15)


def mixed(x, A, c):
    return A @ np.sin(x) * c


def test_jacobians_forward_and_reverse():
    x = np.array([0.3, -1.0, 2.0])
    A = np.arange(6.0).reshape(2, 3) - 2.0
    want = A * np.cos(x) * 1.5
    np.testing.assert_allclose(sdfg.jacfwd(mixed)(x, A, 1.5), want,
                               rtol=1e-14)
    np.testing.assert_allclose(sdfg.jacrev(mixed)(x, A, 1.5), want,
                               rtol=1e-14)
    # Several arguments: a tuple; the output's shape first.
    jx, jA = sdfg.jacrev(mixed, argnums=(0, 1))(x, A, 1.5)
    assert jA.shape == (2, 2, 3)
    np.testing.assert_allclose(jA[1, 1], 1.5 * np.sin(x), rtol=1e-14)
    np.testing.assert_allclose(jA[1, 0], 0.0)
    jx2, jA2 = sdfg.jacfwd(mixed, argnums=(0, 1))(x, A, 1.5)
    np.testing.assert_allclose(jA2, jA, rtol=1e-14)
    # A float argument.
    np.testing.assert_allclose(sdfg.jacfwd(mixed, 2)(x, A, 1.5),
                               A @ np.sin(x), rtol=1e-14)


def sorted_weights(x):
    return np.sort(x) * np.arange(4.0) + np.median(x)


def test_jvp_through_sorting():
    x = np.array([0.3, -1.0, 2.0, 0.7])
    v = np.array([1.0, 2.0, 3.0, 4.0])
    _, t = sdfg.jvp(sorted_weights, (x,), (v,))
    # Sorted: -1.0 (v 2), 0.3 (v 1), 0.7 (v 4), 2.0 (v 3); median's
    # tangent is the mean of the middle two's, 2.5.
    np.testing.assert_allclose(t, np.array([2.0, 1.0, 4.0, 3.0]) *
                               np.arange(4.0) + 2.5, rtol=1e-15)


def seidel(A, T):
    n = A.shape[0]
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j] + A[i, j] + A[i + 1, j] +
                           A[i, j - 1] + A[i, j + 1]) / 5.0 + \
                    0.1 * np.sin(A[i, j])


def test_jvp_of_an_argument_updated_in_place():
    rng = np.random.default_rng(5)
    A, V = rng.random((6, 6)), rng.standard_normal((6, 6))
    before = A.copy()
    value, t = sdfg.jvp(seidel, (A, 3), (V, None), output="A")
    np.testing.assert_array_equal(A, before)  # the caller's array

    def final(X):
        X = X.copy()
        seidel(X, 3)
        return X
    np.testing.assert_allclose(value, final(A), rtol=1e-14)
    h = 1e-6
    fd = (final(A + h * V) - final(A - h * V)) / (2 * h)
    np.testing.assert_allclose(t, fd, rtol=1e-7, atol=1e-9)
    # No tangent: zeros, and the value.
    value0, t0 = sdfg.jvp(seidel, (A, 3), (None, None), output="A")
    np.testing.assert_allclose(value0, value, rtol=1e-14)
    assert not t0.any()
    with pytest.raises(sdfg.FrontendError, match="output 'T'"):
        sdfg.jvp(seidel, (A, 3), (V, None), output="T")
    with pytest.raises(sdfg.FrontendError, match="name it with output="):
        sdfg.jvp(seidel, (A, 3), (V, None))


def log_volume(A):
    sign, logabs = np.linalg.slogdet(A)
    return np.linalg.det(A) + 2.0 * logabs + sign


def test_jvp_and_hvp_of_determinants():
    rng = np.random.default_rng(6)
    A = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    V = rng.standard_normal((4, 4))
    # d det = det tr(A^-1 V), d log|det| = tr(A^-1 V), the sign is flat.
    trace = np.trace(np.linalg.solve(A, V))
    _, t = sdfg.jvp(log_volume, (A,), (V,))
    assert t == pytest.approx(np.linalg.det(A) * trace + 2.0 * trace,
                              rel=1e-12)
    (hv,) = sdfg.hvp(log_volume, (A,), (V,))
    g = sdfg.grad(log_volume, "A")
    h = 1e-5
    fd = (g(A + h * V)["A"] - g(A - h * V)["A"]) / (2 * h)
    np.testing.assert_allclose(hv, fd, rtol=1e-6, atol=1e-6)
