"""complex128 and complex64 arrays in compiled programs, as pairs of reals
(docs/design/complex-numbers.md): arithmetic against NumPy (bit for bit
where NumPy's loops compute the same formulas), element-wise functions,
reductions, products, complex solve/inv, an FFT written in NumPy,
in-place updates of complex arguments, complex results, complex
variables rebound in loops, gradients of real losses in JAX's convention
against finite differences, and what is refused."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def crand(rng, *shape, dtype=np.complex128):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return z.astype(dtype)


def bits(got, want):
    """Equal bit for bit, dtypes included."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(
        np.ascontiguousarray(got).reshape(-1).view(np.uint8),
        np.ascontiguousarray(want).reshape(-1).view(np.uint8))


def close(got, want, rtol=1e-14):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol,
                               atol=rtol * max(1.0, np.abs(want).max()))


def fd_complex(fn, z, h=1e-6):
    """JAX's gradient of real fn at complex z by central differences:
    dL/dre - i dL/dim."""
    g = np.zeros_like(z)
    for j in np.ndindex(z.shape):
        for unit, sign in ((1.0, 1.0), (1j, -1j)):
            up, down = z.copy(), z.copy()
            up[j] += h * unit
            down[j] -= h * unit
            g[j] += sign * (fn(up) - fn(down)) / (2 * h)
    return g


# --------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------

def arith(z, w, x):
    return (z + w, z - w, z * w, z / w, -z, z * x, x / z, z + 1j,
            2.5 * z - 1j * w, z ** 2, z ** 3, np.conj(z), z.real, z.imag,
            z == w, z != z)


def test_arithmetic_bitwise():
    rng = np.random.default_rng(0)
    z, w = crand(rng, 7), crand(rng, 7)
    x = rng.standard_normal(7)
    for got, want in zip(sdfg.program(arith)(z, w, x), arith(z, w, x)):
        bits(got, want)


def divide(z, w):
    return z / w


def test_division_edge_cases():
    z = np.array([1 + 2j, -3 + 0.5j, 2 - 1j, 1 + 1j, -1 - 1j, 0j, 1e300 + 1j,
                  3 + 4j])
    w = np.array([0.5 + 4j, 3 - 0.1j, 0j, -0j, np.inf + 0j, 2 + 2j,
                  1e-300 + 1e300j, 1j])
    with np.errstate(all="ignore"):
        bits(sdfg.program(divide)(z, w), z / w)


def scalars(z):
    s = z[0] * z[1] + z[2] / z[3]
    return s, np.sum(z)


def test_complex_scalars_returned():
    rng = np.random.default_rng(1)
    z = crand(rng, 5)
    s, t = sdfg.program(scalars)(z)
    assert isinstance(s, np.complex128) and isinstance(t, np.complex128)
    bits(s, z[0] * z[1] + z[2] / z[3])
    close(t, np.sum(z), 1e-15)


def functions(z):
    return (np.abs(z), np.angle(z), np.exp(z), np.log(z), np.sqrt(z),
            abs(z))


def test_elementwise_functions():
    rng = np.random.default_rng(2)
    z = crand(rng, 9)
    z[0] = -2.0 + 0j
    z[1] = -2.0 - 0j
    z[2] = 0j
    with np.errstate(all="ignore"):
        got = sdfg.program(functions)(z[3:])
        for g, w in zip(got, functions(z[3:])):
            close(g, w, 1e-15)
        g = sdfg.program(functions)(z)
    assert np.array_equal(g[4][:3], np.sqrt(z[:3]))  # branch cut, 0


def mixed(a, b, x):
    return a * b, a + x, a * 2.0, b * 1j


def test_complex64_and_promotion():
    rng = np.random.default_rng(3)
    a = crand(rng, 6, dtype=np.complex64)
    b = crand(rng, 6)
    x = rng.standard_normal(6).astype(np.float32)
    got = sdfg.program(mixed)(a, b, x)
    want = mixed(a, b, x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        close(g, w, 1e-6)
    bits(got[3], want[3])


def reductions(z):
    return np.sum(z), np.mean(z), z.sum(axis=0), np.mean(z, axis=1)


def test_reductions():
    rng = np.random.default_rng(4)
    z = crand(rng, 4, 6)
    for g, w in zip(sdfg.program(reductions)(z), reductions(z)):
        close(g, w, 1e-15)


def products(A, B, v, w):
    return A @ B, np.dot(A, v), np.vdot(v, w), np.outer(v, w), A @ B.real


def test_products():
    rng = np.random.default_rng(5)
    A, B = crand(rng, 4, 4), crand(rng, 4, 4)
    v, w = crand(rng, 4), crand(rng, 4)
    for g, want in zip(sdfg.program(products)(A, B, v, w),
                       products(A, B, v, w)):
        close(g, want, 1e-14)


def structural(z):
    return (z[::2], z[1::2], np.concatenate([z[1:], z[:1]]),
            z.reshape(2, 4).T, np.flip(z), np.roll(z, 3), np.cumsum(z),
            np.diff(z), np.stack([z, z]), np.where(z.real > 0, z, 1j),
            np.zeros_like(z), np.ones(3, dtype=np.complex128),
            np.full(2, 1 + 2j), np.pad(z, 1), np.tile(z[:2], 2),
            z.astype(np.complex64), np.zeros(2, dtype=complex) + z[0])


def test_structural_bitwise():
    rng = np.random.default_rng(6)
    z = crand(rng, 8)
    for g, w in zip(sdfg.program(structural)(z), structural(z)):
        bits(g, w)


# --------------------------------------------------------------------------
# An FFT written in NumPy, linear algebra
# --------------------------------------------------------------------------

def _stage(X, m):
    n = X.shape[0]
    Y = X.reshape(n // (2 * m), 2, m)
    t = np.exp(-2j * np.pi * np.arange(m) / (2 * m)) * Y[:, 1, :]
    return np.concatenate([Y[:, 0, :] + t, Y[:, 0, :] - t],
                          axis=1).reshape(n)


def fft16(x):
    """Iterative radix-2 FFT of 16 points: bit-reversal shuffle, then
    four butterfly stages."""
    n = x.shape[0]
    k = np.arange(n)
    perm = np.zeros(n, dtype=np.int64)
    for b in range(4):
        perm += ((k >> b) & 1) << (3 - b)
    X = x[perm]
    for m in (1, 2, 4, 8):
        X = _stage(X, m)
    return X


def test_fft_against_numpy():
    rng = np.random.default_rng(7)
    x = crand(rng, 16)
    close(sdfg.program(fft16)(x), np.fft.fft(x), 1e-14)


def solve_inv(A, b):
    return np.linalg.solve(A, b), np.linalg.inv(A), np.linalg.norm(b)


def test_solve_inv_norm():
    rng = np.random.default_rng(8)
    A = crand(rng, 5, 5) + 4 * np.eye(5)
    b = crand(rng, 5)
    x, inv, nrm = sdfg.program(solve_inv)(A, b)
    close(x, np.linalg.solve(A, b), 1e-14)
    close(inv, np.linalg.inv(A), 1e-14)
    close(nrm, np.linalg.norm(b), 1e-15)


# --------------------------------------------------------------------------
# In place, loops
# --------------------------------------------------------------------------

def update(z, x):
    z *= 1j
    z[1:] = z[:-1]
    z.real[0] = 5.0
    z.imag[-1] += x[0]
    z += x


def test_in_place_updates_of_arguments():
    rng = np.random.default_rng(9)
    z = crand(rng, 6)
    x = rng.standard_normal(6)
    want = z.copy()
    update(want, x)
    sdfg.program(update)(z, x)
    bits(z, want)


def rotate(z, w, n):
    acc = z
    for k in range(n):
        acc = acc * w + 1.0
    return acc


def test_complex_variable_rebound_in_loop():
    rng = np.random.default_rng(10)
    z, w = crand(rng, 3), crand(rng, 3)
    bits(sdfg.program(rotate)(z, w, 5), rotate(z, w, 5))
    assert np.array_equal(z, z.copy())  # the argument is left alone


def identity(z):
    return z


def test_returned_argument_is_the_argument():
    z = np.array([1 + 2j])
    assert sdfg.program(identity)(z) is z


# --------------------------------------------------------------------------
# Gradients of real losses, JAX's convention
# --------------------------------------------------------------------------

def sq_loss(z):
    return np.sum(np.abs(z) ** 2)


def test_gradient_convention():
    g = sdfg.grad(sq_loss)(np.array([3 + 4j]))["z"]
    np.testing.assert_allclose(g, [6 - 8j], rtol=1e-15)


def fft_loss(x):
    return np.sum(np.abs(fft16(x)))


def solve_loss(A, b):
    return np.sum(np.linalg.solve(A, b).real)


def mix_loss(z):
    w = np.exp(1j * z) / (z + 3.0)
    return np.sum(w.real * w.imag) + np.angle(z[0]) + np.sum(np.sqrt(z).imag)


def product_loss(z):
    M = np.outer(z, z[::-1]) / 4.0 + 3.0 * np.eye(16)
    return (np.sum((M @ z).imag) + np.abs(np.vdot(z, z)) +
            np.sum(np.linalg.inv(M[:3, :3]).real) + np.mean(z * z).real)


@pytest.mark.parametrize("fn", [sq_loss, fft_loss, mix_loss, product_loss])
def test_gradients_against_finite_differences(fn):
    rng = np.random.default_rng(11)
    z = crand(rng, 16) + 0.5
    (g,) = sdfg.grad(fn)(z).values()
    np.testing.assert_allclose(g, fd_complex(fn, z), rtol=1e-7, atol=1e-7)


def test_gradient_of_complex_solve():
    rng = np.random.default_rng(12)
    A = crand(rng, 4, 4) + 4 * np.eye(4)
    b = crand(rng, 4)
    g = sdfg.grad(solve_loss, wrt=["A", "b"])(A, b)
    np.testing.assert_allclose(
        g["A"], fd_complex(lambda a: solve_loss(a, b), A), rtol=1e-7,
        atol=1e-8)
    np.testing.assert_allclose(
        g["b"], fd_complex(lambda v: solve_loss(A, v), b), rtol=1e-7,
        atol=1e-8)


# --------------------------------------------------------------------------
# Refused
# --------------------------------------------------------------------------

def ordered(z, w):
    return z < w


def complex_power(z, w):
    return z ** w


def unknown_function(z):
    return np.sin(z)


def real_use(z, x):
    x[0] = z[0]


def masked(z):
    return z[z.real > 0]


def bool_scalar_index(z):
    # NumPy's 0-d mask (a new axis of length 1 here): refused as for real
    # arrays (it returned z without the axis before).
    return z[True]


def complex_out(z):
    return np.sum(z * z)


@pytest.mark.parametrize("fn, match", [
    (ordered, "ordering comparison of complex"),
    (complex_power, "power of complex values"),
    (unknown_function, "np.sin of complex arrays"),
    (real_use, "complex value where a real one is needed"),
    (masked, "boolean mask of a complex array"),
    (bool_scalar_index, "a boolean scalar as an index"),
])
def test_refused(fn, match):
    z = np.array([1 + 2j, 3 - 1j])
    args = (z, z) if fn in (ordered, complex_power) else (z,)
    if fn is real_use:
        args = (z, np.zeros(2))
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(*args)


def test_grad_of_complex_output_refused():
    with pytest.raises(sdfg.FrontendError,
                       match="grad requires real-valued outputs"):
        sdfg.grad(complex_out)(np.array([1 + 2j, 3 - 1j]))


def real_from_complex(x):
    return np.exp(1j * x), np.sum(x)


def test_forward_mode_refused():
    z = np.array([1 + 2j, 3 - 1j])
    with pytest.raises(sdfg.FrontendError, match="complex arguments are "
                       "not supported by forward mode"):
        sdfg.jvp(sq_loss, (z,), (np.ones_like(z),))
    x = np.array([0.5, 1.0])
    with pytest.raises(sdfg.FrontendError, match="complex results are not "
                       "supported by forward mode"):
        sdfg.jvp(real_from_complex, (x,), (np.ones_like(x),))


def test_vjp_of_real_output_scales_the_gradient():
    rng = np.random.default_rng(13)
    z = crand(rng, 4)
    g = sdfg.vjp(sq_loss)(z, seed=np.array(2.0))
    np.testing.assert_allclose(g["z"], 2 * 2 * np.conj(z), rtol=1e-15)


def methods(z):
    a = z.conj()
    c = z.sum()
    d = z.copy()
    d[0] = 1j
    y = z
    y[1] = 5.0
    e = np.array([1 + 2j, 3.0])
    b = z.reshape(2, 3).T
    f = z.astype(np.complex64)
    g = np.zeros(3, dtype=np.complex128)
    g[1:] = z[:2]
    same = z.dtype == np.complex128
    return a, b, c, d, e, f, g, same, z.shape[0], z.ndim, z.size


def test_methods_copies_and_aliases():
    rng = np.random.default_rng(14)
    z = crand(rng, 6)
    mine, theirs = z.copy(), z.copy()
    got, want = sdfg.program(methods)(mine), methods(theirs)
    for g, w in zip(got[:7], want[:7]):
        bits(g, w)
    assert got[7:] == want[7:]
    bits(mine, theirs)  # y = z is an alias: y[1] = 5.0 wrote z


def write_after_reshape(z):
    b = z.reshape(2, 2)
    z[0] = 1j
    return b


def test_write_after_reshape_refused_as_for_reals():
    with pytest.raises(sdfg.FrontendError, match="writing into an array "
                       "after reshaping it"):
        sdfg.program(write_after_reshape)(np.ones(4, complex))


def branch(z, c):
    w = z * 2.0
    if c > 0:
        w = w + 1j
    return w


def test_complex_variable_rebound_in_branch():
    rng = np.random.default_rng(15)
    z = crand(rng, 4)
    for c in (1.0, -1.0):
        bits(sdfg.program(branch)(z, c), branch(z, c))


def fft16_f32(x):
    return fft16(x)


def test_complex64_fft():
    rng = np.random.default_rng(16)
    x = crand(rng, 16, dtype=np.complex64)
    got = sdfg.program(fft16_f32)(x)
    # The twiddles are complex128 arrays, which promote (as NumPy's).
    assert got.dtype == fft16(x).dtype == np.complex128
    np.testing.assert_allclose(got, np.fft.fft(x), rtol=1e-6, atol=1e-5)


def accumulate(z, n):
    s = 0j
    for k in range(n):
        s = s + z[k] * z[k]
    t = 1 + 0j
    return s, t * 2 * z


def test_complex_scalar_accumulated_in_loop():
    z = np.array([1 + 2j, 3 - 1j, 0.5 + 0.25j])
    for g, w in zip(sdfg.program(accumulate)(z, 3), accumulate(z, 3)):
        bits(g, w)


def test_check_grads_refuses_complex_arguments():
    with pytest.raises(NotImplementedError, match="'z' is complex"):
        sdfg.check_grads(sq_loss, (np.array([1 + 2j]),))


def sized(x, n):
    z = np.zeros(n, dtype=complex)
    z[:] = x[:n] * 1j
    return z, 1j ** 2


def test_sizes_from_arguments_and_constant_results():
    f = sdfg.program(sized)
    x = np.arange(80.0)
    for n in (40, 50, 60):  # the later calls may share one program
        got, c = f(x, n)
        bits(got, sized(x, n)[0])
        assert c == -1 + 0j


def rows(Z):
    s = np.zeros(Z.shape[1], dtype=complex)
    for row in Z:
        s += row
    return s, len(Z)


def test_iteration_over_rows_and_len():
    Z = np.arange(6).reshape(2, 3) * (1 + 1j)
    got, n = sdfg.program(rows)(Z)
    bits(got, rows(Z)[0])
    assert n == 2


def to_float(z):
    return float(z[0])


def complex_max(z):
    return z.max()


def test_more_refusals():
    z = np.array([1 + 2j, 3 - 1j])
    with pytest.raises(sdfg.FrontendError, match="complex value where"):
        sdfg.program(to_float)(z)
    with pytest.raises(sdfg.FrontendError, match=r"array method \.max\(\) "
                       "of complex arrays"):
        sdfg.program(complex_max)(z)


def powers(z):
    return z ** 0, z ** 1, z ** 5, z ** -2, z ** 2.0


def test_integer_powers_bitwise():
    rng = np.random.default_rng(17)
    z = crand(rng, 6)
    for g, w in zip(sdfg.program(powers)(z), powers(z)):
        bits(g, w)
