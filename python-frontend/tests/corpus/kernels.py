"""Corpus of scientific NumPy kernels (PolyBench / NPBench style).

Every kernel is a plain, unannotated NumPy function written the way a
scientist writes it.  Together they define the Python/NumPy subset the
frontend has to support:

* arguments: float64 / float32 NumPy arrays, int64 index arrays (sparse
  matrices, meshes, embeddings), Python ints (sizes, time steps) and
  Python floats (alpha, beta, ...);
* ``for`` loops over ``range`` (any step sign, triangular bounds), ``while``
  loops, ``if/elif/else`` on scalars and on array elements;
* integer and basic-slice indexing (negative indices, omitted bounds, steps,
  iterator-dependent bounds), indexing with data (integer arrays, np.add.at,
  loops over bounds read from arrays), broadcasting, augmented assignment, slice
  assignment, local temporaries, tuple returns;
* a small whitelist of NumPy functions / array methods.

Each kernel is registered with ``@kernel(inputs)`` where ``inputs(rng)``
returns the tuple of arguments for a deterministic, well-conditioned run.
The input generators (and the ``_`` helpers they use) are ordinary Python and
are *not* part of the language subset; only the kernel bodies are.
"""

import numpy as np

KERNELS = {}


def kernel(inputs):
    """Registers fn with a function inputs(rng) -> tuple of arguments."""
    def deco(fn):
        KERNELS[fn.__name__] = (fn, inputs)
        return fn
    return deco


# --------------------------------------------------------------------------
# Module-level constants used inside kernels
# --------------------------------------------------------------------------

BET_M = 0.5
BET_P = 0.5
INV_SQRT2 = 0.7071067811865476
QUARTER_PI = 0.7853981633974483
EARTH_RADIUS = 6.371  # in units of 1000 km
LAYERNORM_EPS = 1e-5


# --------------------------------------------------------------------------
# Input helpers (generator side only)
# --------------------------------------------------------------------------

def _spd(rng, n):
    B = rng.random((n, n))
    return B @ B.T + n * np.eye(n)


def _diag_dominant(rng, n):
    return rng.random((n, n)) + n * np.eye(n)


def _lower_unit_dominant(rng, n):
    L = np.tril(0.1 * rng.random((n, n)), -1)
    return L + np.diag(1.0 + rng.random(n))


def _f32(rng, shape, scale=1.0):
    return (scale * rng.random(shape)).astype(np.float32)


def _f32n(rng, shape, scale=1.0):
    return (scale * rng.standard_normal(shape)).astype(np.float32)


def _graph(rng, n):
    W = rng.integers(1, 20, (n, n)).astype(np.float64)
    W[rng.random((n, n)) < 0.3] = 999.0
    np.fill_diagonal(W, 0.0)
    return W


# ==========================================================================
# Stencils
# ==========================================================================

@kernel(lambda rng: (rng.random((12, 12)), 4))
def seidel_2d(A, TSTEPS):
    N = A.shape[0]
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j - 1] + A[i, j] + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0


@kernel(lambda rng: (5, rng.random(30), rng.random(30)))
def jacobi_1d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


@kernel(lambda rng: (5, rng.random((14, 14)), rng.random((14, 14))))
def jacobi_2d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])


@kernel(lambda rng: (4, rng.random((10, 10, 10)), rng.random((10, 10, 10))))
def heat_3d(TSTEPS, A, B):
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1, 1:-1] = (
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
            + A[1:-1, 1:-1, 1:-1])
        A[1:-1, 1:-1, 1:-1] = (
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
            + B[1:-1, 1:-1, 1:-1])


@kernel(lambda rng: (4, rng.random((12, 12))))
def adi(TSTEPS, u):
    # Alternating-direction implicit 2D heat solver, tridiagonal sweeps.
    N = u.shape[0]
    v = np.zeros((N, N), dtype=u.dtype)
    p = np.zeros((N, N), dtype=u.dtype)
    q = np.zeros((N, N), dtype=u.dtype)
    DX = 1.0 / N
    DY = 1.0 / N
    DT = 1.0 / TSTEPS
    B1 = 2.0
    B2 = 1.0
    mul1 = B1 * DT / (DX * DX)
    mul2 = B2 * DT / (DY * DY)
    a = -mul1 / 2.0
    b = 1.0 + mul1
    c = a
    d = -mul2 / 2.0
    e = 1.0 + mul2
    f = d
    for t in range(1, TSTEPS + 1):
        # column sweep
        for i in range(1, N - 1):
            v[0, i] = 1.0
            p[i, 0] = 0.0
            q[i, 0] = v[0, i]
            for j in range(1, N - 1):
                p[i, j] = -c / (a * p[i, j - 1] + b)
                q[i, j] = (-d * u[j, i - 1] + (1.0 + 2.0 * d) * u[j, i] - f * u[j, i + 1] - a * q[i, j - 1]) / (a * p[i, j - 1] + b)
            v[N - 1, i] = 1.0
            for j in range(N - 2, 0, -1):
                v[j, i] = p[i, j] * v[j + 1, i] + q[i, j]
        # row sweep
        for i in range(1, N - 1):
            u[i, 0] = 1.0
            p[i, 0] = 0.0
            q[i, 0] = u[i, 0]
            for j in range(1, N - 1):
                p[i, j] = -f / (d * p[i, j - 1] + e)
                q[i, j] = (-a * v[i - 1, j] + (1.0 + 2.0 * a) * v[i, j] - c * v[i + 1, j] - d * q[i, j - 1]) / (d * p[i, j - 1] + e)
            u[i, N - 1] = 1.0
            for j in range(N - 2, 0, -1):
                u[i, j] = p[i, j] * u[i, j + 1] + q[i, j]


@kernel(lambda rng: (6, rng.random((12, 14)), rng.random((12, 14)),
                     rng.random((12, 14)), rng.random(6)))
def fdtd_2d(TMAX, ex, ey, hz, fict):
    for t in range(TMAX):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


@kernel(lambda rng: (rng.random((12, 12, 6)), np.zeros((8, 8, 6)),
                     rng.random((8, 8, 6))))
def hdiff(in_field, out_field, coeff):
    # Horizontal diffusion (COSMO weather stencil) with flux limiting.
    I = out_field.shape[0]
    J = out_field.shape[1]
    lap = 4.0 * in_field[1:I + 3, 1:J + 3, :] - (
        in_field[2:I + 4, 1:J + 3, :] + in_field[0:I + 2, 1:J + 3, :]
        + in_field[1:I + 3, 2:J + 4, :] + in_field[1:I + 3, 0:J + 2, :])
    res_x = lap[1:, 1:J + 1, :] - lap[:-1, 1:J + 1, :]
    flx = np.where(res_x * (in_field[2:I + 3, 2:J + 2, :] - in_field[1:I + 2, 2:J + 2, :]) > 0.0, 0.0, res_x)
    res_y = lap[1:I + 1, 1:, :] - lap[1:I + 1, :-1, :]
    fly = np.where(res_y * (in_field[2:I + 2, 2:J + 3, :] - in_field[2:I + 2, 1:J + 2, :]) > 0.0, 0.0, res_y)
    out_field[:, :, :] = in_field[2:I + 2, 2:J + 2, :] - coeff * (flx[1:, :, :] - flx[:-1, :, :] + fly[:, 1:, :] - fly[:, :-1, :])


def _vadv_inputs(rng):
    I, J, K = 6, 5, 8
    return (rng.random((I, J, K)), rng.random((I, J, K)), rng.random((I + 1, J, K)),
            rng.random((I, J, K)), rng.random((I, J, K)), 3.0)


@kernel(_vadv_inputs)
def vadv(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    # Vertical advection: implicit tridiagonal solve along k (Thomas
    # algorithm), forward elimination then a backward substitution loop.
    I = utens_stage.shape[0]
    J = utens_stage.shape[1]
    K = utens_stage.shape[2]
    ccol = np.empty((I, J, K), dtype=utens_stage.dtype)
    dcol = np.empty((I, J, K), dtype=utens_stage.dtype)
    datacol = np.empty((I, J), dtype=utens_stage.dtype)

    # k = 0: no lower neighbour
    gcv = 0.25 * (wcon[1:, :, 1] + wcon[:-1, :, 1])
    cs = gcv * BET_M
    ccol[:, :, 0] = gcv * BET_P
    bcol = dtr_stage - ccol[:, :, 0]
    correction = -cs * (u_stage[:, :, 1] - u_stage[:, :, 0])
    dcol[:, :, 0] = dtr_stage * u_pos[:, :, 0] + utens[:, :, 0] + utens_stage[:, :, 0] + correction
    divided = 1.0 / bcol
    ccol[:, :, 0] *= divided
    dcol[:, :, 0] *= divided

    # interior levels
    for k in range(1, K - 1):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ccol[:, :, k] = gcv * BET_P
        bcol = dtr_stage - acol - ccol[:, :, k]
        correction = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol[:, :, k] = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction
        divided = 1.0 / (bcol - ccol[:, :, k - 1] * acol)
        ccol[:, :, k] *= divided
        dcol[:, :, k] = (dcol[:, :, k] - dcol[:, :, k - 1] * acol) * divided

    # k = K - 1: no upper neighbour
    gav = -0.25 * (wcon[1:, :, K - 1] + wcon[:-1, :, K - 1])
    as_ = gav * BET_M
    acol = gav * BET_P
    bcol = dtr_stage - acol
    correction = -as_ * (u_stage[:, :, K - 2] - u_stage[:, :, K - 1])
    dcol[:, :, K - 1] = dtr_stage * u_pos[:, :, K - 1] + utens[:, :, K - 1] + utens_stage[:, :, K - 1] + correction
    divided = 1.0 / (bcol - ccol[:, :, K - 2] * acol)
    dcol[:, :, K - 1] = (dcol[:, :, K - 1] - dcol[:, :, K - 2] * acol) * divided

    # backward substitution
    datacol[:] = dcol[:, :, K - 1]
    utens_stage[:, :, K - 1] = dtr_stage * (datacol - u_pos[:, :, K - 1])
    for k in range(K - 2, -1, -1):
        datacol[:] = dcol[:, :, k] - ccol[:, :, k] * datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])


@kernel(lambda rng: (11, 11, 8, 10, np.zeros((11, 11)), np.zeros((11, 11)), 0.001,
                     0.2, 0.2, np.zeros((11, 11)), 1.0, 0.1))
def cavity_flow(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    # Lid-driven cavity, 2D incompressible Navier-Stokes finite differences.
    un = np.empty_like(u)
    vn = np.empty_like(v)
    b = np.zeros((ny, nx))
    for n in range(nt):
        un[:] = u
        vn[:] = v
        # source term of the pressure Poisson equation
        b[1:-1, 1:-1] = rho * (1.0 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy))
                               - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx)) ** 2
                               - 2.0 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2.0 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2.0 * dx))
                               - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy)) ** 2)
        # pseudo-time iterations for the pressure
        for q in range(nit):
            pn = np.copy(p)
            p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2)
                             / (2.0 * (dx ** 2 + dy ** 2))
                             - dx ** 2 * dy ** 2 / (2.0 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
            p[:, -1] = p[:, -2]
            p[0, :] = p[1, :]
            p[:, 0] = p[:, 1]
            p[-1, :] = 0.0
        u[1:-1, 1:-1] = (un[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - dt / (2.0 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2.0 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                                 + dt / dy ** 2 * (un[2:, 1:-1] - 2.0 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                         - dt / (2.0 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
                         + nu * (dt / dx ** 2 * (vn[1:-1, 2:] - 2.0 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                                 + dt / dy ** 2 * (vn[2:, 1:-1] - 2.0 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
        u[-1, :] = 1.0
        v[0, :] = 0.0
        v[-1, :] = 0.0
        v[:, 0] = 0.0
        v[:, -1] = 0.0


@kernel(lambda rng: (rng.random((14, 14)), rng.random((14, 14)), 1.5, 0.1, 3))
def red_black_sor(u, f, omega, h, TSTEPS):
    # Red-black successive over-relaxation for -laplace(u) = f.
    N = u.shape[0]
    h2 = h * h
    for t in range(TSTEPS):
        # red points: i + j even
        for i in range(1, N - 1, 2):
            for j in range(1, N - 1, 2):
                u[i, j] = (1.0 - omega) * u[i, j] + omega * 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + h2 * f[i, j])
        for i in range(2, N - 1, 2):
            for j in range(2, N - 1, 2):
                u[i, j] = (1.0 - omega) * u[i, j] + omega * 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + h2 * f[i, j])
        # black points: i + j odd, swept backwards
        for i in range(N - 3, 0, -2):
            for j in range(N - 2, 1, -2):
                u[i, j] = (1.0 - omega) * u[i, j] + omega * 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + h2 * f[i, j])
        for i in range(N - 2, 1, -2):
            for j in range(N - 3, 0, -2):
                u[i, j] = (1.0 - omega) * u[i, j] + omega * 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + h2 * f[i, j])


@kernel(lambda rng: (rng.random(24), 0.25, 6, 2))
def heat_1d_bc(u, alpha, TSTEPS, bc):
    # Explicit 1D heat equation; bc: 0 Dirichlet, 1 Neumann, else periodic.
    un = np.empty_like(u)
    for t in range(TSTEPS):
        un[:] = u
        u[1:-1] = un[1:-1] + alpha * (un[2:] - 2.0 * un[1:-1] + un[:-2])
        if bc == 0:
            u[0] = 0.0
            u[-1] = 0.0
        elif bc == 1:
            u[0] = u[1]
            u[-1] = u[-2]
        else:
            u[0] = un[0] + alpha * (un[1] - 2.0 * un[0] + un[-1])
            u[-1] = un[-1] + alpha * (un[0] - 2.0 * un[-1] + un[-2])


@kernel(lambda rng: (rng.random(26), 0.5, 8))
def minmod_advection(u, c, TSTEPS):
    # Second-order upwind (MUSCL) linear advection with a minmod limiter.
    N = u.shape[0]
    slope = np.zeros_like(u)
    flux = np.zeros_like(u)
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            dl = u[i] - u[i - 1]
            dr = u[i + 1] - u[i]
            if dl * dr <= 0.0:
                slope[i] = 0.0
            elif np.abs(dl) < np.abs(dr):
                slope[i] = dl
            else:
                slope[i] = dr
        for i in range(1, N - 2):
            flux[i] = c * (u[i] + 0.5 * (1.0 - c) * slope[i])
        for i in range(2, N - 2):
            u[i] -= flux[i] - flux[i - 1]


@kernel(lambda rng: (rng.random((17, 17)),))
def multigrid_transfer(fine):
    # Full-weighting restriction to the coarse grid and bilinear prolongation.
    Nc = (fine.shape[0] + 1) // 2
    coarse = np.zeros((Nc, Nc), dtype=fine.dtype)
    coarse[1:-1, 1:-1] = (0.25 * fine[2:-2:2, 2:-2:2]
                          + 0.125 * (fine[1:-3:2, 2:-2:2] + fine[3:-1:2, 2:-2:2] + fine[2:-2:2, 1:-3:2] + fine[2:-2:2, 3:-1:2])
                          + 0.0625 * (fine[1:-3:2, 1:-3:2] + fine[1:-3:2, 3:-1:2] + fine[3:-1:2, 1:-3:2] + fine[3:-1:2, 3:-1:2]))
    coarse[0, :] = fine[0, ::2]
    coarse[-1, :] = fine[-1, ::2]
    coarse[:, 0] = fine[::2, 0]
    coarse[:, -1] = fine[::2, -1]
    prolonged = np.zeros_like(fine)
    prolonged[::2, ::2] = coarse
    prolonged[1::2, ::2] = 0.5 * (coarse[:-1, :] + coarse[1:, :])
    prolonged[::2, 1::2] = 0.5 * (coarse[:, :-1] + coarse[:, 1:])
    prolonged[1::2, 1::2] = 0.25 * (coarse[:-1, :-1] + coarse[1:, :-1] + coarse[:-1, 1:] + coarse[1:, 1:])
    return coarse, prolonged


@kernel(lambda rng: (rng.random((18, 14)), rng.random((3, 3))))
def conv2d(img, w):
    # Valid 2D convolution (cross-correlation) with plain loops.
    H = img.shape[0]
    W = img.shape[1]
    K = w.shape[0]
    out = np.zeros((H - K + 1, W - K + 1), dtype=img.dtype)
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            acc = 0.0
            for di in range(K):
                for dj in range(K):
                    acc += img[i + di, j + dj] * w[di, dj]
            out[i, j] = acc
    return out


@kernel(lambda rng: (0.25, rng.random((16, 12))))
def deriche(alpha, imgIn):
    # Deriche recursive edge detector: causal and anti-causal IIR filters.
    W = imgIn.shape[0]
    H = imgIn.shape[1]
    k = (1.0 - np.exp(-alpha)) * (1.0 - np.exp(-alpha)) / (1.0 + 2.0 * alpha * np.exp(-alpha) - np.exp(-2.0 * alpha))
    a1 = k
    a5 = k
    a2 = k * np.exp(-alpha) * (alpha - 1.0)
    a6 = a2
    a3 = k * np.exp(-alpha) * (alpha + 1.0)
    a7 = a3
    a4 = -k * np.exp(-2.0 * alpha)
    a8 = a4
    b1 = 2.0 ** (-alpha)
    b2 = -np.exp(-2.0 * alpha)
    c1 = 1.0
    c2 = 1.0
    y1 = np.empty_like(imgIn)
    y2 = np.empty_like(imgIn)
    imgOut = np.empty_like(imgIn)
    for i in range(W):
        ym1 = 0.0
        ym2 = 0.0
        xm1 = 0.0
        for j in range(H):
            y1[i, j] = a1 * imgIn[i, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
            xm1 = imgIn[i, j]
            ym2 = ym1
            ym1 = y1[i, j]
    for i in range(W):
        yp1 = 0.0
        yp2 = 0.0
        xp1 = 0.0
        xp2 = 0.0
        for j in range(H - 1, -1, -1):
            y2[i, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
            xp2 = xp1
            xp1 = imgIn[i, j]
            yp2 = yp1
            yp1 = y2[i, j]
    imgOut[:] = c1 * (y1 + y2)
    for j in range(H):
        tm1 = 0.0
        ym1 = 0.0
        ym2 = 0.0
        for i in range(W):
            y1[i, j] = a5 * imgOut[i, j] + a6 * tm1 + b1 * ym1 + b2 * ym2
            tm1 = imgOut[i, j]
            ym2 = ym1
            ym1 = y1[i, j]
    for j in range(H):
        tp1 = 0.0
        tp2 = 0.0
        yp1 = 0.0
        yp2 = 0.0
        for i in range(W - 1, -1, -1):
            y2[i, j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2
            tp2 = tp1
            tp1 = imgOut[i, j]
            yp2 = yp1
            yp1 = y2[i, j]
    imgOut[:] = c2 * (y1 + y2)
    return imgOut


# ==========================================================================
# Dense linear algebra (BLAS-like)
# ==========================================================================

@kernel(lambda rng: (1.5, 1.2, rng.random((12, 14)), rng.random((12, 10)), rng.random((10, 14))))
def gemm(alpha, beta, C, A, B):
    C[:] = alpha * A @ B + beta * C


@kernel(lambda rng: (1.5, 1.2, rng.random((10, 12)), rng.random((12, 8)),
                     rng.random((8, 14)), rng.random((10, 14))))
def k2mm(alpha, beta, A, B, C, D):
    D[:] = alpha * A @ B @ C + beta * D


@kernel(lambda rng: (_f32(rng, (10, 12)), _f32(rng, (12, 9)), _f32(rng, (9, 13)), _f32(rng, (13, 11))))
def k3mm(A, B, C, D):
    E = A @ B
    F = C @ D
    return np.matmul(E, F)


@kernel(lambda rng: (1.5, 1.2, rng.random((12, 12)), rng.random((12, 9))))
def syrk(alpha, beta, C, A):
    N = C.shape[0]
    M = A.shape[1]
    for i in range(N):
        C[i, :i + 1] *= beta
        for k in range(M):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]


@kernel(lambda rng: (1.5, 1.2, rng.random((12, 12)), rng.random((12, 9)), rng.random((12, 9))))
def syr2k(alpha, beta, C, A, B):
    N = C.shape[0]
    M = A.shape[1]
    for i in range(N):
        C[i, :i + 1] *= beta
        for k in range(M):
            C[i, :i + 1] += A[:i + 1, k] * alpha * B[i, k] + B[:i + 1, k] * alpha * A[i, k]


@kernel(lambda rng: (1.5, rng.random((12, 12)), rng.random((12, 10))))
def trmm(alpha, A, B):
    # B := alpha * A^T B with A unit lower triangular.
    M = B.shape[0]
    N = B.shape[1]
    for i in range(M):
        for j in range(N):
            B[i, j] += np.dot(A[i + 1:, i], B[i + 1:, j])
    B *= alpha


def _symm_inputs(rng):
    M, N = 10, 12
    A = rng.random((M, M))
    return (1.5, 1.2, rng.random((M, N)), A + A.T, rng.random((M, N)))


@kernel(_symm_inputs)
def symm(alpha, beta, C, A, B):
    # C := alpha * A B + beta * C, A symmetric, only its lower triangle read.
    M = C.shape[0]
    N = C.shape[1]
    temp2 = np.empty((N,), dtype=C.dtype)
    C *= beta
    for i in range(M):
        for j in range(N):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = np.dot(B[:i, j], A[i, :i])
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2


@kernel(lambda rng: (rng.random((14, 12)), rng.random(12)))
def atax(A, x):
    return (A @ x) @ A


@kernel(lambda rng: (rng.random((14, 12)), rng.random(12), rng.random(14)))
def bicg(A, p, r):
    s = r @ A
    q = A @ p
    return s, q


@kernel(lambda rng: (rng.random(14), rng.random(14), rng.random(14), rng.random(14), rng.random((14, 14))))
def mvt(x1, x2, y_1, y_2, A):
    x1 += A @ y_1
    x2 += np.dot(A.T, y_2)


@kernel(lambda rng: (1.5, 1.2, rng.random((14, 14)), rng.random(14), rng.random(14), rng.random(14),
                     rng.random(14), np.zeros(14), np.zeros(14), rng.random(14), rng.random(14)))
def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A += np.outer(u1, v1) + np.outer(u2, v2)
    x += beta * y @ A + z
    w += alpha * A @ x


@kernel(lambda rng: (1.5, 1.2, rng.random((14, 14)), rng.random((14, 14)), rng.random(14)))
def gesummv(alpha, beta, A, B, x):
    return alpha * A @ x + beta * B @ x


@kernel(lambda rng: (rng.random((6, 5, 8)), rng.random((8, 8))))
def doitgen(A, C4):
    NR = A.shape[0]
    NQ = A.shape[1]
    NP = A.shape[2]
    acc = np.empty((NP,), dtype=A.dtype)
    for r in range(NR):
        for q in range(NQ):
            for p in range(NP):
                s = 0.0
                for k in range(NP):
                    s += A[r, q, k] * C4[k, p]
                acc[p] = s
            A[r, q, :] = acc


@kernel(lambda rng: (rng.random((18, 12)),))
def feature_stats(X):
    # Min-max scaling, Gram matrix and a few global statistics.
    lo = np.min(X, axis=0)
    hi = X.max(axis=0)
    Xs = np.divide(np.subtract(X, lo), np.add(np.subtract(hi, lo), 1e-3))
    G = np.matmul(np.transpose(Xs), Xs)
    third_moment = np.power(Xs, 3).sum() / X.shape[0]
    centered = np.multiply(Xs - Xs.mean(axis=0), np.ones_like(Xs))
    spread = X.max() - X.min()
    return G, third_moment, centered, Xs.mean(), spread


# ==========================================================================
# Linear solvers / factorisations
# ==========================================================================

def _gramschmidt_inputs(rng):
    A = rng.random((16, 10))
    A[:10, :10] += 10.0 * np.eye(10)
    return (A,)


@kernel(_gramschmidt_inputs)
def gramschmidt(A):
    N = A.shape[1]
    Q = np.zeros_like(A)
    R = np.zeros((N, N), dtype=A.dtype)
    for k in range(N):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, N):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


@kernel(lambda rng: (_spd(rng, 14),))
def cholesky(A):
    N = A.shape[0]
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, N):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])


@kernel(lambda rng: (_diag_dominant(rng, 14),))
def lu(A):
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]


@kernel(lambda rng: (_diag_dominant(rng, 14), rng.random(14)))
def ludcmp(A, b):
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]
    y = np.zeros_like(b)
    for i in range(N):
        y[i] = b[i] - A[i, :i] @ y[:i]
    x = np.zeros_like(b)
    for i in range(N - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:]) / A[i, i]
    return x, y


@kernel(lambda rng: (0.2 * rng.random(16) / (1.0 + np.arange(16)),))
def durbin(r):
    # Levinson-Durbin recursion for a Toeplitz system.
    N = r.shape[0]
    y = np.empty_like(r)
    z = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, N):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(r[k - 1::-1], y[:k])) / beta
        z[:k] = y[:k] + alpha * y[k - 1::-1]
        y[:k] = z[:k]
        y[k] = alpha
    return y


@kernel(lambda rng: (_lower_unit_dominant(rng, 16), np.zeros(16), rng.random(16)))
def trisolv(L, x, b):
    N = x.shape[0]
    for i in range(N):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def _thomas_inputs(rng):
    n = 20
    return (rng.random(n), 4.0 + rng.random(n), rng.random(n), rng.random(n))


@kernel(_thomas_inputs)
def thomas(a, b, c, d):
    # Tridiagonal solve: a sub-, b main-, c super-diagonal, d right-hand side.
    N = d.shape[0]
    cp = np.empty_like(d)
    dp = np.empty_like(d)
    x = np.empty_like(d)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, N):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x[N - 1] = dp[N - 1]
    for i in range(N - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return x


# ==========================================================================
# Data mining / statistics
# ==========================================================================

@kernel(lambda rng: (20.0, rng.random((20, 12))))
def covariance(float_n, data):
    M = data.shape[1]
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
        cov[i:M, i] = cov[i, i:M]
    return cov


@kernel(lambda rng: (20.0, rng.random((20, 12))))
def correlation(float_n, data):
    M = data.shape[1]
    mean = np.mean(data, axis=0)
    stddev = np.sqrt(np.mean((data - mean) ** 2, axis=0))
    stddev = np.where(stddev <= 0.1, 1.0, stddev)
    data -= mean
    data /= np.sqrt(float_n) * stddev
    corr = np.zeros((M, M), dtype=data.dtype)
    for i in range(M - 1):
        corr[i, i] = 1.0
        corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
        corr[i + 1:M, i] = corr[i, i + 1:M]
    corr[M - 1, M - 1] = 1.0
    return corr


@kernel(lambda rng: (rng.random((20, 6)), (rng.random(20) > 0.5).astype(np.float64), np.zeros(6), 0.5, 10))
def logreg(X, y, w, lr, iters):
    # Logistic regression by batch gradient descent; returns the final loss.
    n = X.shape[0]
    for it in range(iters):
        z = X @ w
        p = 1.0 / (1.0 + np.exp(-z))
        grad = X.T @ (p - y) / n
        w -= lr * grad
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    loss = -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))
    return loss


# ==========================================================================
# Deep learning
# ==========================================================================

@kernel(lambda rng: (_f32n(rng, (4, 6, 10), 3.0),))
def softmax(x):
    tmp_max = np.max(x, axis=2, keepdims=True)
    tmp_out = np.exp(x - tmp_max)
    tmp_sum = np.sum(tmp_out, axis=2, keepdims=True)
    return tmp_out / tmp_sum


def _mlp_inputs(rng):
    return (_f32n(rng, (8, 16)),
            _f32n(rng, (16, 24), 0.25), _f32n(rng, (24,), 0.1),
            _f32n(rng, (24, 20), 0.2), _f32n(rng, (20,), 0.1),
            _f32n(rng, (20, 10), 0.2), _f32n(rng, (10,), 0.1))


@kernel(_mlp_inputs)
def mlp(x, w1, b1, w2, b2, w3, b3):
    h1 = np.maximum(x @ w1 + b1, 0.0)
    h2 = np.maximum(h1 @ w2 + b2, 0.0)
    logits = h2 @ w3 + b3
    m = logits.max(axis=1, keepdims=True)
    e = np.exp(logits - m)
    return e / e.sum(axis=1, keepdims=True)


@kernel(lambda rng: (_f32n(rng, (8, 16)), _f32(rng, (16,)), _f32n(rng, (16,), 0.1)))
def layernorm(x, gamma, beta):
    N = x.shape[0]
    D = x.shape[1]
    mu = np.mean(x, axis=1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=1, keepdims=True)
    out = np.empty((N, D), dtype=np.float32)
    out[:] = (x - mu) / np.sqrt(var + LAYERNORM_EPS) * gamma + beta
    return out


# ==========================================================================
# NPBench-style misc kernels
# ==========================================================================

@kernel(lambda rng: (rng.random((16, 16)),))
def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


@kernel(lambda rng: (rng.random((12, 10)), rng.random((12, 10)), rng.random((12, 10)), rng.random((12, 10))))
def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = np.sin((theta_2 - theta_1) / 2) ** 2 + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    distance_matrix = 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))
    return distance_matrix


@kernel(lambda rng: (rng.random((12, 10)) * 6.0 - 3.0, rng.random((12, 10)) * 2.4 - 1.2))
def mercator(lon, lat):
    x = EARTH_RADIUS * lon
    y = EARTH_RADIUS * np.log(np.tan(QUARTER_PI + 0.5 * lat))
    return x, y


@kernel(lambda rng: (12.0 * rng.random((14, 12)), rng.random((14, 12)), 4, 3, 9))
def clip_compute(array_1, array_2, a, b, c):
    return np.minimum(np.maximum(array_1, 2.0), 10.0) * a + array_2 * b + c


@kernel(lambda rng: (rng.random(7) - 0.5, 2.0 * rng.random(20) - 1.0))
def horner(coef, x):
    # Evaluate sum_k coef[k] x^k by Horner's rule, highest degree first.
    DEG = coef.shape[0]
    y = np.zeros_like(x)
    for k in range(DEG - 1, -1, -1):
        y *= x
        y += coef[k]
    return y


@kernel(lambda rng: (_graph(rng, 14),))
def floyd_warshall(path):
    N = path.shape[0]
    for k in range(N):
        for i in range(N):
            for j in range(N):
                if path[i, k] + path[k, j] < path[i, j]:
                    path[i, j] = path[i, k] + path[k, j]


@kernel(lambda rng: (rng.integers(0, 4, 20).astype(np.float64),))
def nussinov(seq):
    # RNA folding: maximise matched base pairs (bases 0..3, pairs sum to 3).
    N = seq.shape[0]
    table = np.zeros((N, N), dtype=seq.dtype)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = np.maximum(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = np.maximum(table[i, j], table[i + 1, j])
                if j - 1 >= 0:
                    if i < j - 1:
                        if seq[i] + seq[j] == 3.0:
                            table[i, j] = np.maximum(table[i, j], table[i + 1, j - 1] + 1.0)
                        else:
                            table[i, j] = np.maximum(table[i, j], table[i + 1, j - 1])
                    else:
                        table[i, j] = np.maximum(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = np.maximum(table[i, j], table[i, k] + table[k + 1, j])
    return table


def _nbody_inputs(rng):
    n = 8
    return (rng.random((n, 3)), 0.1 * (rng.random((n, 3)) - 0.5), 0.5 + rng.random(n), 0.01, 5, 0.1, 1.0)


@kernel(_nbody_inputs)
def nbody(pos, vel, mass, dt, nsteps, softening, G):
    # Direct-sum gravitational N-body, symplectic Euler; returns energies.
    N = pos.shape[0]
    acc = np.zeros_like(pos)
    for s in range(nsteps):
        acc[:, :] = 0.0
        for i in range(N):
            for j in range(N):
                if i != j:
                    dx = pos[j, 0] - pos[i, 0]
                    dy = pos[j, 1] - pos[i, 1]
                    dz = pos[j, 2] - pos[i, 2]
                    r2 = dx * dx + dy * dy + dz * dz + softening ** 2
                    inv = G * mass[j] / (r2 * np.sqrt(r2))
                    acc[i, 0] += dx * inv
                    acc[i, 1] += dy * inv
                    acc[i, 2] += dz * inv
        vel += acc * dt
        pos += vel * dt
    KE = 0.5 * np.sum(np.multiply(mass, np.sum(vel ** 2, axis=1)))
    PE = 0.0
    for i in range(N):
        for j in range(i + 1, N):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            PE -= G * mass[i] * mass[j] / np.sqrt(dx * dx + dy * dy + dz * dz + softening ** 2)
    return KE, PE


# ==========================================================================
# Kernels with while loops
# ==========================================================================

@kernel(lambda rng: (0.5 + 20.0 * rng.random(20), 1e-10))
def newton_sqrt(x, tol):
    # Element-wise Newton iteration for sqrt(x) until the residual is small.
    y = np.ones_like(x)
    err = np.max(np.abs(y * y - x))
    it = 0
    while err > tol:
        y = 0.5 * (y + x / y)
        err = np.max(np.abs(y * y - x))
        it += 1
    return y, it


@kernel(lambda rng: (rng.random((10, 10)), 1e-12))
def power_iteration(A, tol):
    # Dominant eigenpair of a positive matrix; stops when the Rayleigh
    # quotient stagnates.
    b = np.ones_like(A[0, :])
    lam = 0.0
    delta = 1.0
    while delta > tol:
        z = A @ b
        nrm = np.sqrt(np.sum(z * z))
        b[:] = z / nrm
        lam_new = b @ (A @ b)
        delta = np.abs(lam_new - lam)
        lam = lam_new
    return lam, b


@kernel(lambda rng: (rng.random(16),))
def haar_wavelet(x):
    # Full multilevel Haar transform of a length-2^m signal.
    out = x.copy()
    tmp = np.empty_like(x)
    n = x.shape[0]
    while n > 1:
        h = n // 2
        tmp[:h] = (out[0:n:2] + out[1:n:2]) * INV_SQRT2
        tmp[h:n] = (out[0:n:2] - out[1:n:2]) * INV_SQRT2
        out[:n] = tmp[:n]
        n = h
    return out


def _csr(rng, n, m, density):
    """A random sparse n x m matrix in CSR form (row pointers, column
    indices, values); some rows are empty."""
    dense = rng.random((n, m)) * (rng.random((n, m)) < density)
    indptr = np.concatenate([[0], np.cumsum(np.count_nonzero(dense, 1))])
    rows, cols = np.nonzero(dense)
    return indptr.astype(np.int64), cols.astype(np.int64), dense[rows, cols]


@kernel(lambda rng: _csr(rng, 12, 10, 0.3) + (rng.random(10),))
def csr_matvec(indptr, indices, data, x):
    # y = A @ x for A in CSR form, row by row over each row's entries.
    y = np.zeros(indptr.shape[0] - 1)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
    return y


def _mesh(rng, n):
    """Edges of a ring of n nodes plus random chords (source, destination,
    conductance)."""
    src = np.concatenate([np.arange(n), rng.integers(0, n, n // 2)])
    dst = np.concatenate([(np.arange(n) + 1) % n, rng.integers(0, n, n // 2)])
    return src, dst, 0.5 + rng.random(src.shape[0])


@kernel(lambda rng: _mesh(rng, 16) + (rng.random(16) - 0.5, 4))
def graph_allen_cahn(src, dst, w, u, T):
    # Allen-Cahn reaction-diffusion on an unstructured mesh given as an
    # edge list: fluxes gathered along edges, scattered to both ends.
    for t in range(T):
        flux = w * (u[src] - u[dst])
        du = np.zeros_like(u)
        np.add.at(du, dst, flux)
        np.add.at(du, src, -flux)
        u = u + 0.05 * (du + u - u ** 3)
    return u


@kernel(lambda rng: (rng.random((20, 8)) - 0.5,
                     rng.integers(-20, 20, (6, 5)), rng.random((8, 4))))
def embedding_bag(E, tokens, W):
    # Mean of each sequence's token embeddings, then a dense layer.
    bags = np.mean(E[tokens], axis=1)
    return np.tanh(bags @ W)



@kernel(lambda rng: (rng.random(16), 0.2 + 0.3 * rng.random(16), 5))
def crank_nicolson(u, kappa, T):
    # 1-D heat equation with a variable conductivity, Crank-Nicolson time
    # steps: (I + L/2) u_next = (I - L/2) u, one dense solve per step.
    n = u.shape[0]
    L = np.zeros((n, n))
    for i in range(1, n - 1):
        L[i, i - 1] = -kappa[i]
        L[i, i] = 2.0 * kappa[i]
        L[i, i + 1] = -kappa[i]
    A = np.eye(n) + 0.5 * L
    B = np.eye(n) - 0.5 * L
    for t in range(T):
        u = np.linalg.solve(A, B @ u)
    return u


@kernel(lambda rng: (rng.standard_normal(10), 0.5 + rng.random(9)))
def tight_binding(V, t):
    # Electrons on a 1-d chain with on-site potential V and hoppings t:
    # the energy of the lower half of the states plus the potential
    # energy of their density (eigenvalues and eigenvectors of H).
    n = V.shape[0]
    H = np.diag(V)
    for i in range(n - 1):
        H[i + 1, i] = -t[i]
        H[i, i + 1] = -t[i]
    w, P = np.linalg.eigh(H)
    occupied = P[:, :n // 2]
    density = np.sum(occupied * occupied, axis=1)
    return np.sum(w[:n // 2]) + np.sum(density * V)


@kernel(lambda rng: (1.5 + rng.standard_normal(48), np.linspace(0.0, 3.0, 13),
                     0.5 + rng.random(13), 8))
def tabulated_cooling(T, knots, rates, steps):
    # Explicit steps of a temperature relaxing towards 1.5 at a rate read
    # from a table (piecewise-linear in T, clamped at the table's ends),
    # then the mean square temperature plus a penalty: the tabulated rate
    # at the knot at or below each final temperature.
    for t in range(steps):
        r = np.interp(T, knots, rates)
        T = T - 0.05 * r * (T - 1.5)
    below = np.searchsorted(knots, T, side="right") - 1
    below = np.clip(below, 0, knots.shape[0] - 1)
    return np.mean(T * T) + 0.01 * np.sum(rates[below])


@kernel(lambda rng: (rng.standard_normal((40, 3)), rng.standard_normal(40),
                     rng.standard_normal((4, 3))))
def trimmed_squares(X, y, W):
    # Least trimmed squares (robust regression) of four candidate fits:
    # the mean of the smallest three quarters of each one's squared
    # residuals, so that outliers carry no weight; plus the last one's
    # median absolute residual as a scale estimate.
    h = 3 * y.shape[0] // 4
    total = 0.0
    r = y
    for k in range(W.shape[0]):
        r = X @ W[k] - y
        kept = np.sort(r * r)[:h]
        total = total + np.sum(kept) / h
    return total + np.median(np.abs(r))


@kernel(lambda rng: (rng.standard_normal((2, 8, 4)),) + tuple(
    0.5 * rng.standard_normal((4, 4)) for _ in range(4)))
def self_attention(X, Wq, Wk, Wv, Wo):
    # One head of scaled dot-product self-attention over a batch of
    # sequences, an output projection and a residual connection.
    Q = X @ Wq
    K = X @ Wk
    V = X @ Wv
    s = Q @ np.transpose(K, (0, 2, 1)) / np.sqrt(X.shape[2])
    p = np.exp(s - np.max(s, axis=2, keepdims=True))
    p = p / np.sum(p, axis=2, keepdims=True)
    return X + (p @ V) @ Wo


@kernel(lambda rng: (rng.random((24, 24)), 8))
def azimuthal_profile(img, nbins):
    # Radial profile of an image about its centre: the mean and the
    # spread of the pixels in each ring, and a histogram of the
    # intensities.
    n = img.shape[0]
    x = np.arange(n) - (n - 1) / 2.0
    r = np.sqrt(x[:, None] ** 2 + x[None, :] ** 2)
    edges = np.linspace(0.0, r.max(), nbins + 1)
    prof = np.zeros(nbins)
    sig = np.zeros(nbins)
    for i in range(nbins):
        m = (r >= edges[i]) & (r < edges[i + 1])
        prof[i] = img[m].mean()
        sig[i] = img[m].std()
    hist, bins = np.histogram(img, bins=10, range=(0.0, 1.0))
    return prof, sig, hist, bins


@kernel(lambda rng: (rng.random((12, 10)), 0.2, 5))
def plate_cooling(T, k, steps):
    # A plate cooled along its edges: boundary rows and columns set with
    # chained assignments each step, then an explicit diffusion step.
    for s in range(steps):
        T[0, :] = T[-1, :] = 0.0
        T[:, 0] = T[:, -1] = 0.5 * T[:, 1]
        T[1:-1, 1:-1] = T[1:-1, 1:-1] + k * (
            T[2:, 1:-1] + T[:-2, 1:-1] + T[1:-1, 2:] + T[1:-1, :-2] -
            4.0 * T[1:-1, 1:-1])
    return np.sum(T * T)


@kernel(lambda rng: (rng.random(16), rng.random(16), 6))
def ping_pong_heat(A, B, steps):
    # Explicit heat steps between two buffers whose roles swap by the
    # step's parity (the source is read, the other buffer written).
    for it in range(steps):
        src = A if it % 2 == 0 else B
        dst = B if it % 2 == 0 else A
        dst[1:-1] = src[1:-1] + 0.25 * (src[:-2] - 2.0 * src[1:-1] +
                                        src[2:])
        dst[0] = src[0]
        dst[-1] = src[-1]
    return A * B


@kernel(lambda rng: (rng.random((7, 3)) * 3.0,))
def pair_distances(P):
    # Lennard-Jones energy over the pairs of a small cluster (the upper
    # triangle of the distance matrix), and a smoothed radial distribution
    # on a grid spanning the observed distances.
    n = P.shape[0]
    i, j = np.triu_indices(n, 1)
    d = np.sqrt(np.sum((P[i] - P[j]) ** 2, axis=1))
    inv6 = (1.0 / d) ** 6
    energy = np.sum(4.0 * (inv6 * inv6 - inv6))
    grid = np.linspace(d.min(), d.max(), 12)
    rdf = np.sum(np.exp(-4.0 * (grid[:, None] - d[None, :]) ** 2), axis=1)
    return energy + 0.01 * rdf.sum() + 1e-3 * d.max().item(), rdf


@kernel(lambda rng: (np.sin(np.arange(16) * (np.pi / 8.0)) +
                     0.2 * rng.random(16), 0.05))
def spectral_smoothing(u, nu):
    # Damps the high Fourier modes of a periodic signal and takes its
    # spectral derivative: the DFT as a complex matrix product (complex
    # intermediates, real input and outputs), a Gaussian filter on the
    # wavenumbers, the inverse DFT's real part.
    n = u.shape[0]
    k = np.arange(n)
    F = np.exp(-2j * np.pi * np.outer(k, k) / n)
    U = F @ u
    kk = np.minimum(k, n - k)
    U = U * np.exp(-nu * kk ** 2)
    smooth = (np.conj(F) @ U).real / n
    wave = np.where(k < n // 2, k, k - n)
    deriv = (np.conj(F) @ (1j * wave * U)).real / n
    return smooth, np.sum(np.abs(U) ** 2) / n + np.sum(deriv * deriv)


def _csr_uint32(rng, n=9, m=7, per_row=3):
    cols = np.concatenate([np.sort(rng.choice(m, per_row, replace=False))
                           for _ in range(n)]).astype(np.uint32)
    ptr = (np.arange(n + 1) * per_row).astype(np.uint32)
    return rng.standard_normal(n * per_row), cols, ptr, rng.random(m)


@kernel(lambda rng: _csr_uint32(rng))
def csr_spmv_uint32(data, indices, indptr, x):
    # Sparse matrix-vector product of a CSR matrix whose index arrays are
    # unsigned 32-bit, as scipy.sparse writes them, and a residual norm.
    n = indptr.shape[0] - 1
    y = np.zeros(n)
    for r in range(n):
        for k in range(indptr[r], indptr[r + 1]):
            y[r] += data[k] * x[indices[k]]
    return y, np.sqrt(np.sum(y * y))


@kernel(lambda rng: ((rng.random((10, 12)) * 256).astype(np.uint8),))
def uint8_image_levels(img):
    # An 8-bit image: a 3-tap horizontal blur in 16-bit arithmetic,
    # quantised back to 8 bits, the top nibble packed with a parity bit,
    # and the histogram of the 16 levels.
    wide = img.astype(np.uint16)
    blur = wide.copy()
    blur[:, 1:-1] = (wide[:, :-2] + 2 * wide[:, 1:-1] + wide[:, 2:]) >> 2
    q = blur.astype(np.uint8)
    packed = (q >> 4) << 4 | ((q >> 3) & 1)
    levels = np.bincount((q >> 4).ravel(), minlength=16)
    return packed, levels



@kernel(lambda rng: (rng.random(64), 0.002, 5))
def spectral_heat(u, nu, steps):
    # The periodic heat equation advanced exactly in Fourier space, then
    # the energy of the solution's spectral derivative.
    n = u.shape[0]
    k = 2.0 * np.pi * np.fft.fftfreq(n, d=1.0 / n)
    uh = np.fft.fft(u)
    for t in range(steps):
        uh = uh * np.exp(-nu * k * k)
    v = np.real(np.fft.ifft(uh))
    du = np.real(np.fft.ifft(1j * k * uh))
    return v, np.sum(du * du) / n
