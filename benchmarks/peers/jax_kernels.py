"""JAX versions of the corpus kernels, for jax.grad.

Each <name>_loss takes the same parameters as the NumPy kernel in
python-frontend/tests/corpus/kernels.py and returns sum(output), the
output being benchmarks/peers/sizes.py's OUTPUT[name] (the first float
result, else the first float array the kernel updates in place). Integer
parameters (sizes, time steps) are static Python ints; floats may be traced.

They are written the way a JAX user has to port the NumPy code:

* in-place updates become functional `.at[...].set/add` or new values;
* a loop whose iterations depend on earlier ones (time steps, sweeps,
  recurrences, factorisations) becomes lax.fori_loop or lax.scan, in the
  NumPy kernel's order;
* a loop whose iterations are independent (each reads only values no earlier
  iteration wrote), or which only accumulates a dot product, becomes one jnp
  expression (slices, sums, products), as JAX users write it: a
  fori_loop per element is slow in XLA and its reverse pass slower; a
  short static loop (a convolution window) stays a Python loop;
* iterator-dependent bounds (A[i, :j], range(i)) become a fixed trip count
  with a mask: lax.fori_loop with a traced bound lowers to while_loop,
  which reverse-mode jax.grad does not support;
* an element loop nested in another loop scans over the rows it reads and
  carries only the row it writes, not the whole matrix (carrying the
  matrix costs a full-matrix update per element in the reverse pass).

Results a kernel computes besides the summed output (nbody's PE, bicg's q)
are kept, as in the NumPy kernel; jit drops them.

LOSSES maps kernel names to these functions; UNSUPPORTED maps kernels that
cannot reasonably be written in JAX to the reason (none: every kernel
has one).
"""

import jax
import jax.numpy as jnp
from jax import lax

BET_M = 0.5
BET_P = 0.5


# ==========================================================================
# Stencils
# ==========================================================================

def jacobi_1d_loss(TSTEPS, A, B):
    def step(t, AB):
        A, B = AB
        B = B.at[1:-1].set(0.33333 * (A[:-2] + A[1:-1] + A[2:]))
        A = A.at[1:-1].set(0.33333 * (B[:-2] + B[1:-1] + B[2:]))
        return A, B

    A, B = lax.fori_loop(1, TSTEPS, step, (A, B))
    return jnp.sum(A)


def jacobi_2d_loss(TSTEPS, A, B):
    def step(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1].set(0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1]))
        A = A.at[1:-1, 1:-1].set(0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1]))
        return A, B

    A, B = lax.fori_loop(1, TSTEPS, step, (A, B))
    return jnp.sum(A)


def heat_3d_loss(TSTEPS, A, B):
    def step(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1, 1:-1].set(
            0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * A[1:-1, 1:-1, 1:-1] + A[1:-1, 1:-1, :-2])
            + A[1:-1, 1:-1, 1:-1])
        A = A.at[1:-1, 1:-1, 1:-1].set(
            0.125 * (B[2:, 1:-1, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[:-2, 1:-1, 1:-1])
            + 0.125 * (B[1:-1, 2:, 1:-1] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, :-2, 1:-1])
            + 0.125 * (B[1:-1, 1:-1, 2:] - 2.0 * B[1:-1, 1:-1, 1:-1] + B[1:-1, 1:-1, :-2])
            + B[1:-1, 1:-1, 1:-1])
        return A, B

    A, B = lax.fori_loop(1, TSTEPS, step, (A, B))
    return jnp.sum(A)


def seidel_2d_loss(A, TSTEPS):
    N = A.shape[0]

    def row(i, A):
        up, mid, down = A[i - 1], A[i], A[i + 1]
        # Every term but the new left neighbour A[i, j - 1], for all j.
        rest = (up[:-2] + up[1:-1] + up[2:] + mid[1:-1] + mid[2:]
                + down[:-2] + down[1:-1] + down[2:])

        def point(left, rest_j):
            new = (left + rest_j) / 9.0
            return new, new

        _, new_row = lax.scan(point, mid[0], rest)
        return A.at[i, 1:-1].set(new_row)

    def step(t, A):
        return lax.fori_loop(1, N - 1, row, A)

    A = lax.fori_loop(0, TSTEPS, step, A)
    return jnp.sum(A)


def fdtd_2d_loss(TMAX, ex, ey, hz, fict):
    def step(t, fields):
        ex, ey, hz = fields
        ey = ey.at[0, :].set(fict[t])
        ey = ey.at[1:, :].add(-0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].add(-0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].add(-0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]))
        return ex, ey, hz

    ex, ey, hz = lax.fori_loop(0, TMAX, step, (ex, ey, hz))
    return jnp.sum(ex)


def adi_loss(TSTEPS, u):
    N = u.shape[0]
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

    def sweep(X, s, t, r, k, m):
        """Tridiagonal solves along X's first axis, all lines (columns of X)
        at once; returns the interior, first axis first."""
        def forward(pq, x):
            p, q = pq
            den = s * p + t
            p = -r / den
            q = (-k * x[:-2] + (1.0 + 2.0 * k) * x[1:-1] - m * x[2:] - s * q) / den
            return (p, q), (p, q)

        def backward(y, pq):
            y = pq[0] * y + pq[1]
            return y, y

        ones = jnp.ones(N - 2, X.dtype)
        _, (p, q) = lax.scan(forward, (0.0 * ones, ones), X[1:-1])
        _, y = lax.scan(backward, ones, (p, q), reverse=True)
        return y

    def step(t, u):
        # column sweep: v[j, i] for the interior, v = 1 on rows 0 and N - 1
        v = jnp.zeros_like(u).at[0, 1:-1].set(1.0).at[N - 1, 1:-1].set(1.0)
        v = v.at[1:-1, 1:-1].set(sweep(u, a, b, c, d, f))
        # row sweep: u[i, j] for the interior, u = 1 on columns 0 and N - 1
        u = u.at[1:-1, 0].set(1.0).at[1:-1, N - 1].set(1.0)
        return u.at[1:-1, 1:-1].set(sweep(v.T, d, e, f, a, c).T)

    u = lax.fori_loop(1, TSTEPS + 1, step, u)
    return jnp.sum(u)


def heat_1d_bc_loss(u, alpha, TSTEPS, bc):
    def step(t, u):
        un = u
        u = u.at[1:-1].set(un[1:-1] + alpha * (un[2:] - 2.0 * un[1:-1] + un[:-2]))
        if bc == 0:
            u = u.at[0].set(0.0).at[-1].set(0.0)
        elif bc == 1:
            u = u.at[0].set(u[1]).at[-1].set(u[-2])
        else:
            u = u.at[0].set(un[0] + alpha * (un[1] - 2.0 * un[0] + un[-1]))
            u = u.at[-1].set(un[-1] + alpha * (un[0] - 2.0 * un[-1] + un[-2]))
        return u

    u = lax.fori_loop(0, TSTEPS, step, u)
    return jnp.sum(u)


def cavity_flow_loss(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    def step(n, state):
        u, v, p = state
        un = u
        vn = v
        # source term of the pressure Poisson equation
        b = jnp.zeros((ny, nx), dtype=u.dtype).at[1:-1, 1:-1].set(
            rho * (1.0 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy))
                   - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx)) ** 2
                   - 2.0 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2.0 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2.0 * dx))
                   - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy)) ** 2))

        # pseudo-time iterations for the pressure
        def pressure(q, p):
            pn = p
            p = p.at[1:-1, 1:-1].set(((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2 + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2)
                                     / (2.0 * (dx ** 2 + dy ** 2))
                                     - dx ** 2 * dy ** 2 / (2.0 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
            p = p.at[:, -1].set(p[:, -2])
            p = p.at[0, :].set(p[1, :])
            p = p.at[:, 0].set(p[:, 1])
            return p.at[-1, :].set(0.0)

        p = lax.fori_loop(0, nit, pressure, p)
        u = u.at[1:-1, 1:-1].set(un[1:-1, 1:-1]
                                 - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                                 - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                                 - dt / (2.0 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                                 + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2.0 * un[1:-1, 1:-1] + un[1:-1, 0:-2])
                                         + dt / dy ** 2 * (un[2:, 1:-1] - 2.0 * un[1:-1, 1:-1] + un[0:-2, 1:-1])))
        v = v.at[1:-1, 1:-1].set(vn[1:-1, 1:-1]
                                 - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                                 - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                                 - dt / (2.0 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
                                 + nu * (dt / dx ** 2 * (vn[1:-1, 2:] - 2.0 * vn[1:-1, 1:-1] + vn[1:-1, 0:-2])
                                         + dt / dy ** 2 * (vn[2:, 1:-1] - 2.0 * vn[1:-1, 1:-1] + vn[0:-2, 1:-1])))
        u = u.at[0, :].set(0.0)
        u = u.at[:, 0].set(0.0)
        u = u.at[:, -1].set(0.0)
        u = u.at[-1, :].set(1.0)
        v = v.at[0, :].set(0.0)
        v = v.at[-1, :].set(0.0)
        v = v.at[:, 0].set(0.0)
        v = v.at[:, -1].set(0.0)
        return u, v, p

    u, v, p = lax.fori_loop(0, nt, step, (u, v, p))
    return jnp.sum(u)


def minmod_advection_loss(u, c, TSTEPS):
    def step(t, u):
        # the three i loops have independent iterations: whole slices
        dl = u[1:-1] - u[:-2]
        dr = u[2:] - u[1:-1]
        slope = jnp.where(dl * dr <= 0.0, 0.0, jnp.where(jnp.abs(dl) < jnp.abs(dr), dl, dr))  # i = 1 .. N-2
        flux = c * (u[1:-2] + 0.5 * (1.0 - c) * slope[:-1])  # i = 1 .. N-3
        return u.at[2:-2].add(-(flux[1:] - flux[:-1]))

    u = lax.fori_loop(0, TSTEPS, step, u)
    return jnp.sum(u)


# ==========================================================================
# Weather stencils
# ==========================================================================

def hdiff_loss(in_field, out_field, coeff):
    I = out_field.shape[0]
    J = out_field.shape[1]
    lap = 4.0 * in_field[1:I + 3, 1:J + 3, :] - (
        in_field[2:I + 4, 1:J + 3, :] + in_field[0:I + 2, 1:J + 3, :]
        + in_field[1:I + 3, 2:J + 4, :] + in_field[1:I + 3, 0:J + 2, :])
    res_x = lap[1:, 1:J + 1, :] - lap[:-1, 1:J + 1, :]
    flx = jnp.where(res_x * (in_field[2:I + 3, 2:J + 2, :] - in_field[1:I + 2, 2:J + 2, :]) > 0.0, 0.0, res_x)
    res_y = lap[1:I + 1, 1:, :] - lap[1:I + 1, :-1, :]
    fly = jnp.where(res_y * (in_field[2:I + 2, 2:J + 3, :] - in_field[2:I + 2, 1:J + 2, :]) > 0.0, 0.0, res_y)
    out_field = in_field[2:I + 2, 2:J + 2, :] - coeff * (flx[1:, :, :] - flx[:-1, :, :] + fly[:, 1:, :] - fly[:, :-1, :])
    return jnp.sum(out_field)


def vadv_loss(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    K = utens_stage.shape[2]

    # k = 0: no lower neighbour
    gcv = 0.25 * (wcon[1:, :, 1] + wcon[:-1, :, 1])
    cs = gcv * BET_M
    ccol0 = gcv * BET_P
    bcol = dtr_stage - ccol0
    correction = -cs * (u_stage[:, :, 1] - u_stage[:, :, 0])
    dcol0 = dtr_stage * u_pos[:, :, 0] + utens[:, :, 0] + utens_stage[:, :, 0] + correction
    divided = 1.0 / bcol
    ccol0 = ccol0 * divided
    dcol0 = dcol0 * divided

    # interior levels: forward elimination along k
    def level(prev, k):
        ccol_prev, dcol_prev = prev
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ccol = gcv * BET_P
        bcol = dtr_stage - acol - ccol
        correction = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction
        divided = 1.0 / (bcol - ccol_prev * acol)
        ccol = ccol * divided
        dcol = (dcol - dcol_prev * acol) * divided
        return (ccol, dcol), (ccol, dcol)

    (ccol_prev, dcol_prev), (ccol, dcol) = lax.scan(level, (ccol0, dcol0), jnp.arange(1, K - 1))
    ccol = jnp.concatenate([ccol0[None], ccol])  # levels 0 .. K-2, k first
    dcol = jnp.concatenate([dcol0[None], dcol])

    # k = K - 1: no upper neighbour
    gav = -0.25 * (wcon[1:, :, K - 1] + wcon[:-1, :, K - 1])
    as_ = gav * BET_M
    acol = gav * BET_P
    bcol = dtr_stage - acol
    correction = -as_ * (u_stage[:, :, K - 2] - u_stage[:, :, K - 1])
    dcol_last = dtr_stage * u_pos[:, :, K - 1] + utens[:, :, K - 1] + utens_stage[:, :, K - 1] + correction
    divided = 1.0 / (bcol - ccol_prev * acol)
    dcol_last = (dcol_last - dcol_prev * acol) * divided

    # backward substitution
    def back(datacol, cdu):
        ccol_k, dcol_k, u_pos_k = cdu
        datacol = dcol_k - ccol_k * datacol
        return datacol, dtr_stage * (datacol - u_pos_k)

    top = dtr_stage * (dcol_last - u_pos[:, :, K - 1])
    _, rest = lax.scan(back, dcol_last, (ccol, dcol, jnp.moveaxis(u_pos[:, :, :K - 1], 2, 0)), reverse=True)
    return jnp.sum(top) + jnp.sum(rest)


# ==========================================================================
# Solvers / factorisations
# ==========================================================================

def cholesky_loss(A):
    N = A.shape[0]
    idx = jnp.arange(N)
    A = A.at[0, 0].set(jnp.sqrt(A[0, 0]))

    def row(i, A):
        def col(x, j_row):
            # x = A[i]: x[j] = (x[j] - x[:j] @ A[j, :j]) / A[j, j] for j < i
            j, A_j = j_row
            dot = jnp.dot(jnp.where(idx < j, x, 0.0), A_j)
            return x.at[j].set(jnp.where(j < i, (x[j] - dot) / A_j[j], x[j])), None

        # j < i by the mask (a fixed trip count); scanning over the rows of A
        # keeps the loop carry (and its reverse pass) one row wide
        x, _ = lax.scan(col, A[i], (idx, A))
        x = x.at[i].set(jnp.sqrt(x[i] - jnp.dot(jnp.where(idx < i, x, 0.0), x)))
        return A.at[i].set(x)

    A = lax.fori_loop(1, N, row, A)
    return jnp.sum(A)


def lu_loss(A):
    N = A.shape[0]
    idx = jnp.arange(N)

    def row(i, A):
        def lower(x, j_col):
            # x = A[i]: x[j] = (x[j] - x[:j] @ A[:j, j]) / A[j, j] for j < i
            j, A_j = j_col
            dot = jnp.dot(jnp.where(idx < j, x, 0.0), A_j)
            return x.at[j].set(jnp.where(j < i, (x[j] - dot) / A_j[j], x[j])), None

        # j < i by the mask (a fixed trip count); scanning over the columns
        # of A keeps the loop carry (and its reverse pass) one row wide
        x, _ = lax.scan(lower, A[i], (idx, A.T))
        # j >= i: independent iterations, one masked row update
        x = jnp.where(idx >= i, x - jnp.where(idx < i, x, 0.0) @ A, x)
        return A.at[i].set(x)

    A = lax.fori_loop(0, N, row, A)
    return jnp.sum(A)


def ludcmp_loss(A, b):
    N = A.shape[0]
    idx = jnp.arange(N)

    def row(i, A):
        def lower(x, j_col):
            # x = A[i]: x[j] = (x[j] - x[:j] @ A[:j, j]) / A[j, j] for j < i
            j, A_j = j_col
            dot = jnp.dot(jnp.where(idx < j, x, 0.0), A_j)
            return x.at[j].set(jnp.where(j < i, (x[j] - dot) / A_j[j], x[j])), None

        # j < i by the mask (a fixed trip count); scanning over the columns
        # of A keeps the loop carry (and its reverse pass) one row wide
        x, _ = lax.scan(lower, A[i], (idx, A.T))
        # j >= i: independent iterations, one masked row update
        x = jnp.where(idx >= i, x - jnp.where(idx < i, x, 0.0) @ A, x)
        return A.at[i].set(x)

    A = lax.fori_loop(0, N, row, A)

    def forward(i, y):
        return y.at[i].set(b[i] - jnp.where(idx < i, A[i], 0.0) @ y)

    y = lax.fori_loop(0, N, forward, jnp.zeros_like(b))

    def backward(t, x):
        i = N - 1 - t
        return x.at[i].set((y[i] - jnp.where(idx > i, A[i], 0.0) @ x) / A[i, i])

    x = lax.fori_loop(0, N, backward, jnp.zeros_like(b))
    return jnp.sum(x)


def trisolv_loss(L, x, b):
    N = x.shape[0]
    idx = jnp.arange(N)

    def step(i, x):
        # x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
        return x.at[i].set((b[i] - jnp.where(idx < i, L[i], 0.0) @ x) / L[i, i])

    x = lax.fori_loop(0, N, step, x)
    return jnp.sum(x)


def gramschmidt_loss(A):
    N = A.shape[1]
    cols = jnp.arange(N)
    Q = jnp.zeros_like(A)
    R = jnp.zeros((N, N), dtype=A.dtype)

    def step(k, state):
        A, Q, R = state
        nrm = jnp.dot(A[:, k], A[:, k])
        R = R.at[k, k].set(jnp.sqrt(nrm))
        Q = Q.at[:, k].set(A[:, k] / R[k, k])
        # j > k: independent iterations, whole rows / matrices at once
        later = cols > k
        r = jnp.where(later, Q[:, k] @ A, 0.0)
        R = R.at[k].set(jnp.where(later, r, R[k]))
        A = A - jnp.outer(Q[:, k], r)
        return A, Q, R

    A, Q, R = lax.fori_loop(0, N, step, (A, Q, R))
    return jnp.sum(Q)


def durbin_loss(r):
    N = r.shape[0]
    idx = jnp.arange(N)
    y = jnp.zeros_like(r).at[0].set(-r[0])

    def step(k, state):
        y, alpha, beta = state
        head = idx < k
        # r[k-1::-1] and y[k-1::-1]: the first k entries reversed
        r_rev = jnp.where(head, r[(k - 1 - idx) % N], 0.0)
        y_rev = jnp.where(head, y[(k - 1 - idx) % N], 0.0)
        beta = beta * (1.0 - alpha * alpha)
        alpha = -(r[k] + jnp.dot(r_rev, y)) / beta
        y = jnp.where(head, y + alpha * y_rev, y)
        y = y.at[k].set(alpha)
        return y, alpha, beta

    y, alpha, beta = lax.fori_loop(1, N, step, (y, -r[0], jnp.ones((), r.dtype)))
    return jnp.sum(y)


def thomas_loss(a, b, c, d):
    def forward(prev, abcd):
        cp_prev, dp_prev = prev
        a_i, b_i, c_i, d_i = abcd
        m = b_i - a_i * cp_prev
        cp = c_i / m
        dp = (d_i - a_i * dp_prev) / m
        return (cp, dp), (cp, dp)

    cp0 = c[0] / b[0]
    dp0 = d[0] / b[0]
    _, (cp, dp) = lax.scan(forward, (cp0, dp0), (a[1:], b[1:], c[1:], d[1:]))
    cp = jnp.concatenate([cp0[None], cp])
    dp = jnp.concatenate([dp0[None], dp])

    def backward(x_next, cd):
        x = cd[1] - cd[0] * x_next
        return x, x

    _, x = lax.scan(backward, dp[-1], (cp[:-1], dp[:-1]), reverse=True)
    x = jnp.concatenate([x, dp[-1:]])
    return jnp.sum(x)


# ==========================================================================
# Dense linear algebra
# ==========================================================================

def symm_loss(alpha, beta, C, A, B):
    M = C.shape[0]
    idx = jnp.arange(M)
    C = C * beta

    def row(i, C):
        a = jnp.where(idx < i, A[i], 0.0)  # A[i, :i]
        # the j loop has independent iterations: whole rows at once
        C = C + alpha * jnp.outer(a, B[i])  # C[:i, j] += alpha * B[i, j] * A[i, :i]
        temp2 = a @ B  # temp2[j] = B[:i, j] @ A[i, :i]
        return C.at[i, :].add(alpha * B[i, :] * A[i, i] + alpha * temp2)

    C = lax.fori_loop(0, M, row, C)
    return jnp.sum(C)


def syr2k_loss(alpha, beta, C, A, B):
    N = C.shape[0]
    # Rows are independent and the k loop is a sum: row i of the lower
    # triangle is beta * C[i, :i+1] + alpha * (A[:i+1] @ B[i] + B[:i+1] @ A[i]).
    lower = jnp.tril(jnp.ones((N, N), dtype=bool))
    C = jnp.where(lower, beta * C + alpha * (B @ A.T) + alpha * (A @ B.T), C)
    return jnp.sum(C)


def syrk_loss(alpha, beta, C, A):
    N = C.shape[0]
    # Rows are independent and the k loop is a sum: row i of the lower
    # triangle is beta * C[i, :i+1] + alpha * A[:i+1] @ A[i].
    lower = jnp.tril(jnp.ones((N, N), dtype=bool))
    C = jnp.where(lower, beta * C + alpha * (A @ A.T), C)
    return jnp.sum(C)


def trmm_loss(alpha, A, B):
    # Iteration i writes row i and reads only rows > i, which later
    # iterations have not written yet: the i, j loops have independent
    # iterations, B[i, j] += A[i+1:, i] @ B[i+1:, j] for all i, j at once.
    B = B + jnp.tril(A, -1).T @ B
    B = B * alpha
    return jnp.sum(B)


def gemm_loss(alpha, beta, C, A, B):
    C = alpha * A @ B + beta * C
    return jnp.sum(C)


def k2mm_loss(alpha, beta, A, B, C, D):
    D = alpha * A @ B @ C + beta * D
    return jnp.sum(D)


def k3mm_loss(A, B, C, D):
    E = A @ B
    F = C @ D
    return jnp.sum(jnp.matmul(E, F))


def doitgen_loss(A, C4):
    # The r, q and p loops have independent iterations and the k loop is a
    # sum: A[r, q, :] = A[r, q, :] @ C4 for every (r, q).
    A = A @ C4
    return jnp.sum(A)


# ==========================================================================
# Matrix-vector kernels
# ==========================================================================

def atax_loss(A, x):
    return jnp.sum((A @ x) @ A)


def bicg_loss(A, p, r):
    s = r @ A
    q = A @ p
    return jnp.sum(s)


def mvt_loss(x1, x2, y_1, y_2, A):
    x1 = x1 + A @ y_1
    x2 = x2 + jnp.dot(A.T, y_2)
    return jnp.sum(x1)


def gemver_loss(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A = A + jnp.outer(u1, v1) + jnp.outer(u2, v2)
    x = x + beta * y @ A + z
    w = w + alpha * A @ x
    return jnp.sum(A)


def gesummv_loss(alpha, beta, A, B, x):
    return jnp.sum(alpha * A @ x + beta * B @ x)


# ==========================================================================
# Deep learning
# ==========================================================================

def softmax_loss(x):
    tmp_max = jnp.max(x, axis=2, keepdims=True)
    tmp_out = jnp.exp(x - tmp_max)
    tmp_sum = jnp.sum(tmp_out, axis=2, keepdims=True)
    return jnp.sum(tmp_out / tmp_sum)


def conv2d_loss(img, w):
    H = img.shape[0]
    W = img.shape[1]
    K = w.shape[0]
    # The i, j loops are independent: whole output planes. The window loop
    # is short and static, so it stays a Python loop (unrolled when traced).
    out = jnp.zeros((H - K + 1, W - K + 1), dtype=img.dtype)
    for di in range(K):
        for dj in range(K):
            out = out + img[di:di + H - K + 1, dj:dj + W - K + 1] * w[di, dj]
    return jnp.sum(out)


def mlp_loss(x, w1, b1, w2, b2, w3, b3):
    h1 = jnp.maximum(x @ w1 + b1, 0.0)
    h2 = jnp.maximum(h1 @ w2 + b2, 0.0)
    logits = h2 @ w3 + b3
    m = logits.max(axis=1, keepdims=True)
    e = jnp.exp(logits - m)
    return jnp.sum(e / e.sum(axis=1, keepdims=True))


def logreg_loss(X, y, w, lr, iters):
    n = X.shape[0]

    def step(it, w):
        z = X @ w
        p = 1.0 / (1.0 + jnp.exp(-z))
        grad = X.T @ (p - y) / n
        return w - lr * grad

    w = lax.fori_loop(0, iters, step, w)
    p = 1.0 / (1.0 + jnp.exp(-(X @ w)))
    loss = -jnp.mean(y * jnp.log(p) + (1.0 - y) * jnp.log(1.0 - p))
    return loss


# ==========================================================================
# Other
# ==========================================================================

def go_fast_loss(a):
    trace = jnp.sum(jnp.tanh(jnp.diagonal(a)))  # the loop is a sum
    return jnp.sum(a + trace)


def arc_distance_loss(theta_1, phi_1, theta_2, phi_2):
    temp = jnp.sin((theta_2 - theta_1) / 2) ** 2 + jnp.cos(theta_1) * jnp.cos(theta_2) * jnp.sin((phi_2 - phi_1) / 2) ** 2
    distance_matrix = 2 * jnp.arctan2(jnp.sqrt(temp), jnp.sqrt(1 - temp))
    return jnp.sum(distance_matrix)


def nbody_loss(pos, vel, mass, dt, nsteps, softening, G):
    N = pos.shape[0]
    other = ~jnp.eye(N, dtype=bool)  # the i != j test

    def step(s, state):
        pos, vel = state
        # the i, j loops: all pairs at once, d[i, j] = pos[j] - pos[i]
        d = pos[None, :, :] - pos[:, None, :]
        r2 = jnp.sum(d * d, axis=2) + softening ** 2
        inv = jnp.where(other, G * mass[None, :] / (r2 * jnp.sqrt(r2)), 0.0)
        acc = jnp.sum(d * inv[:, :, None], axis=1)
        vel = vel + acc * dt
        pos = pos + vel * dt
        return pos, vel

    pos, vel = lax.fori_loop(0, nsteps, step, (pos, vel))
    KE = 0.5 * jnp.sum(jnp.multiply(mass, jnp.sum(vel ** 2, axis=1)))
    d = pos[None, :, :] - pos[:, None, :]
    pairs = jnp.triu(jnp.ones((N, N), dtype=bool), 1)  # i < j
    PE = -jnp.sum(jnp.where(pairs, G * mass[:, None] * mass[None, :] / jnp.sqrt(jnp.sum(d * d, axis=2) + softening ** 2), 0.0))
    return jnp.sum(KE)


def correlation_loss(float_n, data):
    M = data.shape[1]
    mean = jnp.mean(data, axis=0)
    stddev = jnp.sqrt(jnp.mean((data - mean) ** 2, axis=0))
    stddev = jnp.where(stddev <= 0.1, 1.0, stddev)
    data = data - mean
    data = data / (jnp.sqrt(float_n) * stddev)
    # the i loop fills independent rows of a symmetric product
    corr = jnp.where(jnp.eye(M, dtype=bool), 1.0, data.T @ data)
    return jnp.sum(corr)


def covariance_loss(float_n, data):
    mean = jnp.mean(data, axis=0)
    data = data - mean
    # the i loop fills independent rows of a symmetric product
    cov = data.T @ data / (float_n - 1.0)
    return jnp.sum(cov)


def deriche_loss(alpha, imgIn):
    k = (1.0 - jnp.exp(-alpha)) * (1.0 - jnp.exp(-alpha)) / (1.0 + 2.0 * alpha * jnp.exp(-alpha) - jnp.exp(-2.0 * alpha))
    a1 = k
    a5 = k
    a2 = k * jnp.exp(-alpha) * (alpha - 1.0)
    a6 = a2
    a3 = k * jnp.exp(-alpha) * (alpha + 1.0)
    a7 = a3
    a4 = -k * jnp.exp(-2.0 * alpha)
    a8 = a4
    b1 = 2.0 ** (-alpha)
    b2 = -jnp.exp(-2.0 * alpha)
    c1 = 1.0
    c2 = 1.0

    def filter_rows(x, c0, cx1, cx2, reverse):
        """y[j] = c0 x[j] + cx1 x[j-1] + cx2 x[j-2] + b1 y[j-1] + b2 y[j-2]
        along each row of x, all rows at once (j+1, j+2 when reverse)."""
        def step(prev, x_j):
            x1, x2, y1, y2 = prev
            y = c0 * x_j + cx1 * x1 + cx2 * x2 + b1 * y1 + b2 * y2
            return (x_j, x1, y, y1), y

        zero = jnp.zeros(x.shape[0], x.dtype)
        _, y = lax.scan(step, (zero, zero, zero, zero), x.T, reverse=reverse)
        return y.T

    y1 = filter_rows(imgIn, a1, a2, 0.0, reverse=False)
    y2 = filter_rows(imgIn, 0.0, a3, a4, reverse=True)
    imgOut = c1 * (y1 + y2)
    y1 = filter_rows(imgOut.T, a5, a6, 0.0, reverse=False).T
    y2 = filter_rows(imgOut.T, 0.0, a7, a8, reverse=True).T
    imgOut = c2 * (y1 + y2)
    return jnp.sum(imgOut)


# ==========================================================================
# Indexing with data: sparse matrices, meshes, embeddings
# ==========================================================================

def csr_matvec_loss(indptr, indices, data, x):
    # The rows as segments: one gather, one segment sum (JAX has no loop
    # over data-dependent bounds that differentiates in reverse mode).
    n = indptr.shape[0] - 1
    rows = jnp.repeat(jnp.arange(n), jnp.diff(indptr),
                      total_repeat_length=data.shape[0])
    y = jax.ops.segment_sum(data * x[indices], rows, num_segments=n)
    return jnp.sum(y)


def graph_allen_cahn_loss(src, dst, w, u, T):
    def step(t, u):
        flux = w * (u[src] - u[dst])
        du = jnp.zeros_like(u).at[dst].add(flux).at[src].add(-flux)
        return u + 0.05 * (du + u - u ** 3)
    return jnp.sum(lax.fori_loop(0, T, step, u))


def embedding_bag_loss(E, tokens, W):
    bags = jnp.mean(E[tokens], axis=1)
    return jnp.sum(jnp.tanh(bags @ W))


def self_attention_loss(X, Wq, Wk, Wv, Wo):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ jnp.transpose(K, (0, 2, 1)) / jnp.sqrt(X.shape[2])
    p = jnp.exp(s - jnp.max(s, axis=2, keepdims=True))
    p = p / jnp.sum(p, axis=2, keepdims=True)
    return jnp.sum(X + (p @ V) @ Wo)


def layernorm_loss(x, gamma, beta):
    mu = jnp.mean(x, axis=1, keepdims=True)
    var = jnp.mean((x - mu) ** 2, axis=1, keepdims=True)
    return jnp.sum((x - mu) / jnp.sqrt(var + 1e-5) * gamma + beta)


def crank_nicolson_loss(u, kappa, T):
    n = u.shape[0]
    i = jnp.arange(1, n - 1)
    L = (jnp.zeros((n, n)).at[i, i - 1].set(-kappa[1:-1])
         .at[i, i].set(2.0 * kappa[1:-1]).at[i, i + 1].set(-kappa[1:-1]))
    A = jnp.eye(n) + 0.5 * L
    B = jnp.eye(n) - 0.5 * L
    return jnp.sum(lax.fori_loop(0, T, lambda t, u: jnp.linalg.solve(A, B @ u),
                                 u))


def tight_binding_loss(V, t):
    n = V.shape[0]
    i = jnp.arange(n - 1)
    H = jnp.diag(V).at[i + 1, i].set(-t).at[i, i + 1].set(-t)
    w, P = jnp.linalg.eigh(H)
    occupied = P[:, :n // 2]
    return jnp.sum(w[:n // 2]) + jnp.sum(jnp.sum(occupied * occupied, axis=1)
                                         * V)


LOSSES = {
    name[:-len("_loss")]: fn for name, fn in list(globals().items())
    if name.endswith("_loss") and callable(fn)
}

UNSUPPORTED = {}
