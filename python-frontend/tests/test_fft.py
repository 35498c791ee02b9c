"""np.fft in compiled programs (numpy/fft.py, the library op sdfg.fft;
docs/design/fft.md): transforms against NumPy's pocketfft for powers of
two, primes and composite lengths, along every axis, with n= padding and
truncation and each norm; 2-d and n-d transforms; rfft/irfft; the
frequency helpers and shifts (bit for bit); complex64/float32 input;
gradients of real losses against finite differences (JAX's convention
for complex inputs); and what is refused."""

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


def crand(rng, *shape, dtype=np.complex128):
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return z.astype(dtype)


def close(got, want, rtol=1e-13):
    """Equal dtypes and shapes, values to `rtol` of the largest magnitude
    (the error of an FFT is relative to the whole signal's size)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=0, atol=rtol * scale)


def bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def fd_real(fn, x, h=1e-6):
    g = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += h
        down[j] -= h
        g[j] = (fn(up) - fn(down)) / (2 * h)
    return g


def fd_complex(fn, z, h=1e-6):
    """JAX's gradient of real fn at complex z: dL/dre - i dL/dim."""
    g = np.zeros_like(z)
    for j in np.ndindex(z.shape):
        for unit, sign in ((1.0, 1.0), (1j, -1j)):
            up, down = z.copy(), z.copy()
            up[j] += h * unit
            down[j] -= h * unit
            g[j] += sign * (fn(up) - fn(down)) / (2 * h)
    return g


# --------------------------------------------------------------------------
# Transforms against NumPy
# --------------------------------------------------------------------------

def both(z, x):
    return np.fft.fft(z), np.fft.ifft(z), np.fft.fft(x), np.fft.ifft(x)


# Powers of two (radix-2), primes and other lengths (Bluestein).
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 12, 17, 64, 100, 127, 1024])
def test_lengths(n):
    rng = np.random.default_rng(n)
    z, x = crand(rng, n), rng.standard_normal(n)
    for got, want in zip(sdfg.program(both)(z, x), both(z, x)):
        close(got, want)


def test_one_program_many_lengths():
    # The second shape would compile with symbolic extents; the transform
    # needs its length when compiling, so each length is compiled in.
    prog = sdfg.program(both)
    rng = np.random.default_rng(0)
    for n in (8, 12, 8, 5):
        z, x = crand(rng, n), rng.standard_normal(n)
        for got, want in zip(prog(z, x), both(z, x)):
            close(got, want)


def symbolic(x):
    return (np.fft.fft(x, axis=1), np.fft.ifft(x, axis=0, norm="ortho"),
            np.fft.ifft2(x), np.fft.fft(x, norm="forward"))


def test_symbolic_lengths():
    # Extents as size symbols (dynamic=True): one program for every shape
    # of the same pattern, the transform's length (radix-2 or Bluestein)
    # and scaling decided at run time.
    prog = sdfg.program(symbolic, dynamic=True)
    rng = np.random.default_rng(1)
    for m, n in ((30, 60), (50, 70), (40, 64), (9, 16)):
        x = rng.standard_normal((m, n))
        for got, want in zip(prog(x), symbolic(x)):
            close(got, want)
    assert len(prog._compiled) == 1


def long_lines(z):
    return np.fft.fft(z, axis=0), np.fft.ifft(z, axis=1)


def test_long_and_many_lines():
    # 4093 is prime (Bluestein with m = 8192); 4096 lines in parallel.
    rng = np.random.default_rng(1)
    z = crand(rng, 4093, 3)
    for got, want in zip(sdfg.program(long_lines)(z), long_lines(z)):
        close(got, want)
    w = crand(rng, 4096, 6)
    for got, want in zip(sdfg.program(long_lines)(w), long_lines(w)):
        close(got, want)


def axes_and_lengths(z):
    return (np.fft.fft(z, axis=0), np.fft.fft(z, n=8, axis=0),
            np.fft.fft(z, 3), np.fft.ifft(z, n=11, axis=-2),
            np.fft.fft(z[1:, ::2], axis=1), np.fft.fft(z.T, n=1))


def test_axes_padding_truncation():
    z = crand(np.random.default_rng(2), 5, 6)
    for got, want in zip(sdfg.program(axes_and_lengths)(z),
                         axes_and_lengths(z)):
        close(got, want)


def norms(z):
    return (np.fft.fft(z, norm="backward"), np.fft.fft(z, norm="ortho"),
            np.fft.fft(z, norm="forward"), np.fft.ifft(z, norm="backward"),
            np.fft.ifft(z, norm="ortho"), np.fft.ifft(z, norm="forward"),
            np.fft.ifft(np.fft.fft(z, norm="ortho"), norm="ortho"))


def test_norms():
    z = crand(np.random.default_rng(3), 2, 12)
    for got, want in zip(sdfg.program(norms)(z), norms(z)):
        close(got, want)


def expression_input(x, z):
    # A real expression and a complex one: materialized for the op.
    return np.fft.fft(2.0 * x + 1.0), np.fft.fft(z * z + 1j), \
        np.fft.fft(np.arange(6))


def test_expression_and_integer_inputs():
    rng = np.random.default_rng(4)
    x, z = rng.standard_normal(6), crand(rng, 6)
    for got, want in zip(sdfg.program(expression_input)(x, z),
                         expression_input(x, z)):
        close(got, want)


def multi(z):
    return (np.fft.fft2(z), np.fft.ifft2(z), np.fft.fftn(z),
            np.fft.ifftn(z), np.fft.fft2(z, s=(4, 7), norm="ortho"),
            np.fft.fftn(z, axes=(0, 2)), np.fft.ifftn(z, s=(3, 2)),
            np.fft.fft2(z, axes=(2, 0)), np.fft.fftn(z.real, axes=()))


def test_fft2_fftn():
    z = crand(np.random.default_rng(5), 3, 5, 4)
    for got, want in zip(sdfg.program(multi)(z), multi(z)):
        close(got, want)


def real_transforms(x, h):
    return (np.fft.rfft(x), np.fft.rfft(x, n=7), np.fft.rfft(x, axis=0),
            np.fft.rfft(x, norm="ortho"), np.fft.irfft(h),
            np.fft.irfft(h, n=9), np.fft.irfft(h, n=4, axis=-1),
            np.fft.irfft(h, norm="forward"), np.fft.irfft(h, axis=0),
            np.fft.irfft(h, n=1))


def test_rfft_irfft():
    rng = np.random.default_rng(6)
    x, h = rng.standard_normal((5, 10)), crand(rng, 4, 6)
    for got, want in zip(sdfg.program(real_transforms)(x, h),
                         real_transforms(x, h)):
        close(got, want)


def round_trip(x, y):
    return np.fft.irfft(np.fft.rfft(x), n=x.shape[0]), \
        np.fft.irfft(np.fft.rfft(y), n=y.shape[0])


def test_rfft_irfft_round_trip():
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal(16), rng.standard_normal(13)
    gx, gy = sdfg.program(round_trip)(x, y)
    close(gx, x)
    close(gy, y)


def freqs(d):
    return (np.fft.fftfreq(8), np.fft.fftfreq(9, 0.1),
            np.fft.rfftfreq(8), np.fft.rfftfreq(9, d=0.25),
            np.fft.fftfreq(1), np.fft.fftfreq(5, d))


def shifts(x, z):
    return (np.fft.fftshift(x), np.fft.ifftshift(x),
            np.fft.fftshift(x, axes=1), np.fft.ifftshift(x, axes=(0,)),
            np.fft.fftshift(z), np.fft.ifftshift(np.fft.fftshift(z)))


def test_frequencies_and_shifts_bitwise():
    for got, want in zip(sdfg.program(freqs)(0.3), freqs(0.3)):
        bits(got, want)
    rng = np.random.default_rng(8)
    x, z = rng.standard_normal((5, 6)), crand(rng, 7)
    for got, want in zip(sdfg.program(shifts)(x, z), shifts(x, z)):
        bits(got, want)


def single(z, x):
    return np.fft.fft(z), np.fft.ifft(z, n=6), np.fft.fft(x), \
        np.fft.rfft(x), np.fft.irfft(z)


def test_complex64_and_float32():
    rng = np.random.default_rng(9)
    z, x = crand(rng, 5, dtype=np.complex64), \
        rng.standard_normal(8).astype(np.float32)
    for got, want in zip(sdfg.program(single)(z, x), single(z, x)):
        # The result dtype is the NumPy installed's (complex128 in 1.x).
        close(got, want, rtol=1e-5)


# --------------------------------------------------------------------------
# Gradients against finite differences
# --------------------------------------------------------------------------

def power(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2)


def weighted_power(x):
    w = np.arange(7) + 1.0
    return np.sum(w * np.abs(np.fft.fft(x, n=7)) ** 2) + \
        np.sum(np.fft.ifft(x * x).imag)


def spectral_derivative(u):
    n = u.shape[0]
    k = 2 * np.pi * np.fft.fftfreq(n, 1.0 / n)
    du = np.real(np.fft.ifft(1j * k * np.fft.fft(u)))
    return np.sum(du * np.sin(u)) + np.sum(du ** 3)


def real_spectrum(x):
    h = np.fft.rfft(x, norm="ortho")
    y = np.fft.irfft(h * (1.0 + np.arange(h.shape[0])), n=x.shape[0])
    return np.sum(y * np.cos(x)) + np.sum(np.abs(h))


def two_d(x):
    X = np.fft.fft2(x)
    return np.sum(np.abs(X) * np.arange(X.shape[1])) + \
        np.sum(np.fft.fftshift(np.fft.ifftn(X * X)).real ** 2)


@pytest.mark.parametrize("fn, shape", [
    (power, (8,)), (weighted_power, (5,)), (spectral_derivative, (12,)),
    (spectral_derivative, (16,)), (real_spectrum, (9,)),
    (two_d, (3, 4))])
def test_gradients_of_real_input(fn, shape):
    x = np.random.default_rng(10).standard_normal(shape)
    g = sdfg.grad(fn)(x)["x" if fn is not spectral_derivative else "u"]
    np.testing.assert_allclose(g, fd_real(fn, x), rtol=1e-7, atol=1e-7)


def power_analytic(x):
    return np.sum(np.abs(np.fft.fft(x)) ** 2)


def test_power_gradient_is_parseval():
    # sum |F x|^2 = n sum x^2: the gradient is 2 n x.
    x = np.random.default_rng(11).standard_normal(12)
    g = sdfg.grad(power_analytic)(x)["x"]
    np.testing.assert_allclose(g, 2 * 12 * x, rtol=1e-12)


def complex_loss(z):
    X = np.fft.fft(z, norm="ortho")
    Y = np.fft.ifft(X * X, n=9)
    return np.sum(np.abs(Y)) + np.sum(X.real * X.imag)


def complex_loss_2d(z):
    return np.sum(np.abs(np.fft.ifft2(z * np.conj(z[::-1]))) ** 1.5 * 1.0)


@pytest.mark.parametrize("fn, shape", [(complex_loss, (7,)),
                                       (complex_loss_2d, (4, 3))])
def test_gradients_of_complex_input(fn, shape):
    z = crand(np.random.default_rng(12), *shape) + 0.3
    g = sdfg.grad(fn)(z)["z"]
    np.testing.assert_allclose(g, fd_complex(fn, z), rtol=1e-7, atol=1e-7)


def mixed_power(x):
    return np.sum(np.abs(np.fft.ifft(x, norm="ortho")) ** 2) + \
        np.sum(np.fft.fft(x).real * x)


def test_one_gradient_many_lengths():
    grad = sdfg.grad(mixed_power)
    rng = np.random.default_rng(16)
    for n in (16, 24, 37):
        x = rng.standard_normal(n)
        np.testing.assert_allclose(grad(x)["x"], fd_real(mixed_power, x),
                                   rtol=1e-7, atol=1e-6)


def in_loop(x):
    for _ in range(3):
        x = np.real(np.fft.ifft(np.fft.fft(x) * np.exp(-0.1 * np.arange(8))))
        x = np.sin(x) + x
    return np.sum(x ** 2)


def test_gradient_through_transforms_in_a_loop():
    x = np.random.default_rng(13).standard_normal(8)
    g = sdfg.grad(in_loop)(x)["x"]
    np.testing.assert_allclose(g, fd_real(in_loop, x), rtol=1e-7, atol=1e-7)


def test_forward_mode():
    u = np.random.default_rng(14).standard_normal(10)
    t = np.random.default_rng(15).standard_normal(10)
    val, tan = sdfg.jvp(spectral_derivative, (u,), (t,))
    assert val == pytest.approx(spectral_derivative(u), rel=1e-12)
    h = 1e-6
    fd = (spectral_derivative(u + h * t) - spectral_derivative(u - h * t)) \
        / (2 * h)
    assert tan == pytest.approx(fd, rel=1e-7)


# --------------------------------------------------------------------------
# Refused
# --------------------------------------------------------------------------

def rfft_complex(z):
    return np.fft.rfft(z)


def hfft(z):
    return np.fft.hfft(z)


def zero_points(x):
    return np.fft.fft(x, n=0)


def bad_norm(x):
    return np.fft.fft(x, norm="unitary")


def scalar(x):
    return np.fft.fft(x[0])


def runtime_n(x):
    return np.fft.fft(x, n=int(x[0]))


def runtime_length(x):
    return np.fft.fftfreq(int(x[0]))


def empty(x):
    return np.fft.ifft(x[:0])


def bad_axis(x):
    return np.fft.fft(x, axis=1)


@pytest.mark.parametrize("fn, args, match", [
    (rfft_complex, (np.ones(4) + 1j,), r"np.fft.rfft of a complex array"),
    (hfft, (np.ones(4) + 1j,), r"np.fft.hfft"),
    (zero_points, (np.ones(4),), r"Invalid number of FFT data points \(0\)"),
    (bad_norm, (np.ones(4),), r"Invalid norm value 'unitary'"),
    (scalar, (np.ones(4),), r"dimension at least 1, not a scalar"),
    (runtime_n, (np.ones(4),), r"n not a constant integer"),
    (runtime_length, (np.ones(4),), r"length not known when compiling"),
    (bad_axis, (np.ones(4),), r"axis 1 is out of bounds"),
    (empty, (np.ones(4),), r"Invalid number of FFT data points \(0\)"),
])
def test_refused(fn, args, match):
    with pytest.raises(sdfg.FrontendError, match=match):
        sdfg.program(fn)(*args)
