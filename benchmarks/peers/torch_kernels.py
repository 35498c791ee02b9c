"""PyTorch (eager, CPU) ports of the corpus kernels, written as a PyTorch
autograd user has to write them.

``LOSSES[name](*args)`` takes the same parameters as the NumPy kernel in
python-frontend/tests/corpus/kernels.py (torch tensors for the arrays,
Python ints/floats otherwise) and returns sum(output), where output is the
kernel's first float result, else the first float array it updates in place.
Calling ``.backward()`` on it gives d sum(output) / d every array argument.

Porting rules: each port keeps the NumPy kernel's loops and array
granularity, and computes everything the kernel computes, outputs that do
not reach the loss included.  Autograd forbids in-place updates of leaf
tensors, so updated arguments are cloned first; in-place (slice) assignment
on the clone stays wherever autograd accepts it.  Where autograd would raise
"modified by an inplace operation" (an operand that a product, quotient,
dot or sqrt saved for backward is overwritten later), the port copies the
saved operands with ``.clone()``, keeps a recurrence's values in a Python
list and ``torch.stack``s them, or reads the unmodified input instead.

Arguments that do not reach the output (an array overwritten before it is
read, an input used only for a result outside the loss) get ``grad`` None:
take gradients with ``allow_unused=True`` and read None as zeros.
"""

import math

import torch

BET_M = 0.5
BET_P = 0.5


# ==========================================================================
# Stencils
# ==========================================================================

def seidel_2d_loss(A, TSTEPS):
    A = A.clone()
    N = A.shape[0]
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j - 1] + A[i, j] + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0
    return A.sum()


def jacobi_1d_loss(TSTEPS, A, B):
    A = A.clone()
    B = B.clone()
    for t in range(1, TSTEPS):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])
    return A.sum()


def jacobi_2d_loss(TSTEPS, A, B):
    A = A.clone()
    B = B.clone()
    for t in range(1, TSTEPS):
        B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])
        A[1:-1, 1:-1] = 0.2 * (B[1:-1, 1:-1] + B[1:-1, :-2] + B[1:-1, 2:] + B[2:, 1:-1] + B[:-2, 1:-1])
    return A.sum()


def heat_3d_loss(TSTEPS, A, B):
    A = A.clone()
    B = B.clone()
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
    return A.sum()


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
    one = torch.ones((), dtype=u.dtype)
    zeros = torch.zeros(N, dtype=u.dtype)
    # The sweeps are recurrences: p, q and each new column / row live in
    # Python lists (in-place writes would overwrite values autograd saved),
    # and v and u are rebuilt with torch.stack.
    for t in range(1, TSTEPS + 1):
        # column sweep
        vcols = [zeros]
        for i in range(1, N - 1):
            p = [0.0]
            q = [one]
            for j in range(1, N - 1):
                p.append(-c / (a * p[j - 1] + b))
                q.append((-d * u[j, i - 1] + (1.0 + 2.0 * d) * u[j, i] - f * u[j, i + 1] - a * q[j - 1]) / (a * p[j - 1] + b))
            col = [one] * N
            for j in range(N - 2, 0, -1):
                col[j] = p[j] * col[j + 1] + q[j]
            vcols.append(torch.stack(col))
        vcols.append(zeros)
        v = torch.stack(vcols, dim=1)
        # row sweep
        urows = [u[0]]
        for i in range(1, N - 1):
            p = [0.0]
            q = [one]
            for j in range(1, N - 1):
                p.append(-f / (d * p[j - 1] + e))
                q.append((-a * v[i - 1, j] + (1.0 + 2.0 * a) * v[i, j] - c * v[i + 1, j] - d * q[j - 1]) / (d * p[j - 1] + e))
            row = [one] * N
            for j in range(N - 2, 0, -1):
                row[j] = p[j] * row[j + 1] + q[j]
            urows.append(torch.stack(row))
        urows.append(u[N - 1])
        u = torch.stack(urows)
    return u.sum()


def fdtd_2d_loss(TMAX, ex, ey, hz, fict):
    ex = ex.clone()
    ey = ey.clone()
    hz = hz.clone()
    for t in range(TMAX):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])
    return ex.sum()


def hdiff_loss(in_field, out_field, coeff):
    I = out_field.shape[0]
    J = out_field.shape[1]
    lap = 4.0 * in_field[1:I + 3, 1:J + 3, :] - (
        in_field[2:I + 4, 1:J + 3, :] + in_field[0:I + 2, 1:J + 3, :]
        + in_field[1:I + 3, 2:J + 4, :] + in_field[1:I + 3, 0:J + 2, :])
    res_x = lap[1:, 1:J + 1, :] - lap[:-1, 1:J + 1, :]
    flx = torch.where(res_x * (in_field[2:I + 3, 2:J + 2, :] - in_field[1:I + 2, 2:J + 2, :]) > 0.0, 0.0, res_x)
    res_y = lap[1:I + 1, 1:, :] - lap[1:I + 1, :-1, :]
    fly = torch.where(res_y * (in_field[2:I + 2, 2:J + 3, :] - in_field[2:I + 2, 1:J + 2, :]) > 0.0, 0.0, res_y)
    out_field = in_field[2:I + 2, 2:J + 2, :] - coeff * (flx[1:, :, :] - flx[:-1, :, :] + fly[:, 1:, :] - fly[:, :-1, :])
    return out_field.sum()


def vadv_loss(utens_stage, u_stage, wcon, u_pos, utens, dtr_stage):
    I = utens_stage.shape[0]
    J = utens_stage.shape[1]
    K = utens_stage.shape[2]
    # ccol and dcol are rescaled after they are read by products: one (I, J)
    # tensor per level k in a list instead of in-place updates.
    ccol = []
    dcol = []

    # k = 0: no lower neighbour
    gcv = 0.25 * (wcon[1:, :, 1] + wcon[:-1, :, 1])
    cs = gcv * BET_M
    ccol_k = gcv * BET_P
    bcol = dtr_stage - ccol_k
    correction = -cs * (u_stage[:, :, 1] - u_stage[:, :, 0])
    dcol_k = dtr_stage * u_pos[:, :, 0] + utens[:, :, 0] + utens_stage[:, :, 0] + correction
    divided = 1.0 / bcol
    ccol.append(ccol_k * divided)
    dcol.append(dcol_k * divided)

    # interior levels
    for k in range(1, K - 1):
        gav = -0.25 * (wcon[1:, :, k] + wcon[:-1, :, k])
        gcv = 0.25 * (wcon[1:, :, k + 1] + wcon[:-1, :, k + 1])
        as_ = gav * BET_M
        cs = gcv * BET_M
        acol = gav * BET_P
        ccol_k = gcv * BET_P
        bcol = dtr_stage - acol - ccol_k
        correction = -as_ * (u_stage[:, :, k - 1] - u_stage[:, :, k]) - cs * (u_stage[:, :, k + 1] - u_stage[:, :, k])
        dcol_k = dtr_stage * u_pos[:, :, k] + utens[:, :, k] + utens_stage[:, :, k] + correction
        divided = 1.0 / (bcol - ccol[k - 1] * acol)
        ccol.append(ccol_k * divided)
        dcol.append((dcol_k - dcol[k - 1] * acol) * divided)

    # k = K - 1: no upper neighbour
    gav = -0.25 * (wcon[1:, :, K - 1] + wcon[:-1, :, K - 1])
    as_ = gav * BET_M
    acol = gav * BET_P
    bcol = dtr_stage - acol
    correction = -as_ * (u_stage[:, :, K - 2] - u_stage[:, :, K - 1])
    dcol_k = dtr_stage * u_pos[:, :, K - 1] + utens[:, :, K - 1] + utens_stage[:, :, K - 1] + correction
    divided = 1.0 / (bcol - ccol[K - 2] * acol)
    dcol.append((dcol_k - dcol[K - 2] * acol) * divided)

    # backward substitution
    utens_stage = utens_stage.clone()
    datacol = dcol[K - 1]
    utens_stage[:, :, K - 1] = dtr_stage * (datacol - u_pos[:, :, K - 1])
    for k in range(K - 2, -1, -1):
        datacol = dcol[k] - ccol[k] * datacol
        utens_stage[:, :, k] = dtr_stage * (datacol - u_pos[:, :, k])
    return utens_stage.sum()


def cavity_flow_loss(nx, ny, nt, nit, u, v, dt, dx, dy, p, rho, nu):
    u = u.clone()
    v = v.clone()
    p = p.clone()
    b = torch.zeros((ny, nx), dtype=u.dtype)
    for n in range(nt):
        un = u.clone()
        vn = v.clone()
        # source term of the pressure Poisson equation
        b[1:-1, 1:-1] = rho * (1.0 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx) + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy))
                               - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2.0 * dx)) ** 2
                               - 2.0 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2.0 * dy) * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2.0 * dx))
                               - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2.0 * dy)) ** 2)
        # pseudo-time iterations for the pressure
        for q in range(nit):
            pn = p.clone()
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
    return u.sum()


def heat_1d_bc_loss(u, alpha, TSTEPS, bc):
    u = u.clone()
    for t in range(TSTEPS):
        un = u.clone()
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
    return u.sum()


def minmod_advection_loss(u, c, TSTEPS):
    u = u.clone()
    N = u.shape[0]
    slope = torch.zeros_like(u)
    flux = torch.zeros_like(u)
    for t in range(TSTEPS):
        for i in range(1, N - 1):
            dl = u[i] - u[i - 1]
            dr = u[i + 1] - u[i]
            if dl * dr <= 0.0:
                slope[i] = 0.0
            elif torch.abs(dl) < torch.abs(dr):
                slope[i] = dl
            else:
                slope[i] = dr
        for i in range(1, N - 2):
            flux[i] = c * (u[i] + 0.5 * (1.0 - c) * slope[i])
        for i in range(2, N - 2):
            u[i] -= flux[i] - flux[i - 1]
    return u.sum()


def conv2d_loss(img, w):
    H = img.shape[0]
    W = img.shape[1]
    K = w.shape[0]
    out = torch.zeros((H - K + 1, W - K + 1), dtype=img.dtype)
    for i in range(H - K + 1):
        for j in range(W - K + 1):
            acc = 0.0
            for di in range(K):
                for dj in range(K):
                    acc += img[i + di, j + dj] * w[di, dj]
            out[i, j] = acc
    return out.sum()


def deriche_loss(alpha, imgIn):
    W = imgIn.shape[0]
    H = imgIn.shape[1]
    k = (1.0 - math.exp(-alpha)) * (1.0 - math.exp(-alpha)) / (1.0 + 2.0 * alpha * math.exp(-alpha) - math.exp(-2.0 * alpha))
    a1 = k
    a5 = k
    a2 = k * math.exp(-alpha) * (alpha - 1.0)
    a6 = a2
    a3 = k * math.exp(-alpha) * (alpha + 1.0)
    a7 = a3
    a4 = -k * math.exp(-2.0 * alpha)
    a8 = a4
    b1 = 2.0 ** (-alpha)
    b2 = -math.exp(-2.0 * alpha)
    c1 = 1.0
    c2 = 1.0
    y1 = torch.empty_like(imgIn)
    y2 = torch.empty_like(imgIn)
    imgOut = torch.empty_like(imgIn)
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
    return imgOut.sum()


# ==========================================================================
# Dense linear algebra (BLAS-like)
# ==========================================================================

def gemm_loss(alpha, beta, C, A, B):
    C = alpha * A @ B + beta * C
    return C.sum()


def k2mm_loss(alpha, beta, A, B, C, D):
    D = alpha * A @ B @ C + beta * D
    return D.sum()


def k3mm_loss(A, B, C, D):
    E = A @ B
    F = C @ D
    return torch.matmul(E, F).sum()


def syrk_loss(alpha, beta, C, A):
    C = C.clone()
    N = C.shape[0]
    M = A.shape[1]
    for i in range(N):
        C[i, :i + 1] *= beta
        for k in range(M):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
    return C.sum()


def syr2k_loss(alpha, beta, C, A, B):
    C = C.clone()
    N = C.shape[0]
    M = A.shape[1]
    for i in range(N):
        C[i, :i + 1] *= beta
        for k in range(M):
            C[i, :i + 1] += A[:i + 1, k] * alpha * B[i, k] + B[:i + 1, k] * alpha * A[i, k]
    return C.sum()


def trmm_loss(alpha, A, B):
    M = B.shape[0]
    N = B.shape[1]
    # B[i + 1:, j] still holds the input when row i is updated: read it
    # from the input B (a view of the updated copy would be saved by dot
    # and overwritten later).
    out = B.clone()
    for i in range(M):
        for j in range(N):
            out[i, j] += torch.dot(A[i + 1:, i], B[i + 1:, j])
    out *= alpha
    return out.sum()


def symm_loss(alpha, beta, C, A, B):
    M = C.shape[0]
    N = C.shape[1]
    temp2 = torch.empty((N,), dtype=C.dtype)
    C = C * beta
    for i in range(M):
        for j in range(N):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = torch.dot(B[:i, j], A[i, :i])
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2
    return C.sum()


def atax_loss(A, x):
    return ((A @ x) @ A).sum()


def bicg_loss(A, p, r):
    s = r @ A
    q = A @ p
    return s.sum()


def mvt_loss(x1, x2, y_1, y_2, A):
    x1 = x1 + A @ y_1
    x2 = x2 + torch.matmul(A.T, y_2)
    return x1.sum()


def gemver_loss(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A = A + torch.outer(u1, v1) + torch.outer(u2, v2)
    x = x + beta * y @ A + z
    w = w + alpha * A @ x
    return A.sum()


def gesummv_loss(alpha, beta, A, B, x):
    return (alpha * A @ x + beta * B @ x).sum()


def doitgen_loss(A, C4):
    NR = A.shape[0]
    NQ = A.shape[1]
    NP = A.shape[2]
    # A[r, q, :] is read whole before it is replaced: read the input A and
    # write into a new tensor (dot products save the views they read).
    out = torch.empty_like(A)
    acc = torch.empty((NP,), dtype=A.dtype)
    for r in range(NR):
        for q in range(NQ):
            for p in range(NP):
                s = 0.0
                for k in range(NP):
                    s += A[r, q, k] * C4[k, p]
                acc[p] = s
            out[r, q, :] = acc
    return out.sum()


# ==========================================================================
# Linear solvers / factorisations
# ==========================================================================

def gramschmidt_loss(A):
    N = A.shape[1]
    # Columns of A are updated after dot products read them: keep them in
    # a list and replace them out of place; R entries are used as the
    # computed scalars (views of R would be invalidated by later writes).
    cols = [A[:, j] for j in range(N)]
    Q = []
    R = torch.zeros((N, N), dtype=A.dtype)
    for k in range(N):
        nrm = torch.dot(cols[k], cols[k])
        r_kk = torch.sqrt(nrm)
        R[k, k] = r_kk
        Q.append(cols[k] / r_kk)
        for j in range(k + 1, N):
            r_kj = torch.dot(Q[k], cols[j])
            R[k, j] = r_kj
            cols[j] = cols[j] - Q[k] * r_kj
    return torch.stack(Q, dim=1).sum()


def cholesky_loss(A):
    A = A.clone()
    N = A.shape[0]
    # Operands that dot and / save for backward are copied: later writes
    # into A would invalidate views of it.
    A[0, 0] = torch.sqrt(A[0, 0])
    for i in range(1, N):
        for j in range(i):
            A[i, j] = (A[i, j] - torch.dot(A[i, :j].clone(), A[j, :j].clone())) / A[j, j].clone()
        A[i, i] = torch.sqrt(A[i, i] - torch.dot(A[i, :i].clone(), A[i, :i].clone()))
    return A.sum()


def lu_loss(A):
    A = A.clone()
    N = A.shape[0]
    # Operands that @ and / save for backward are copied: later writes into
    # A would invalidate views of it.
    for i in range(N):
        for j in range(i):
            A[i, j] = (A[i, j] - A[i, :j].clone() @ A[:j, j].clone()) / A[j, j].clone()
        for j in range(i, N):
            A[i, j] -= A[i, :i].clone() @ A[:i, j].clone()
    return A.sum()


def ludcmp_loss(A, b):
    A = A.clone()
    N = A.shape[0]
    # Operands that @ and / save for backward are copied: later writes into
    # A, y and x would invalidate views of them.
    for i in range(N):
        for j in range(i):
            A[i, j] = (A[i, j] - A[i, :j].clone() @ A[:j, j].clone()) / A[j, j].clone()
        for j in range(i, N):
            A[i, j] -= A[i, :i].clone() @ A[:i, j].clone()
    y = torch.zeros_like(b)
    for i in range(N):
        y[i] = b[i] - A[i, :i] @ y[:i].clone()
    x = torch.zeros_like(b)
    for i in range(N - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1:] @ x[i + 1:].clone()) / A[i, i]
    return x.sum()


def trisolv_loss(L, x, b):
    x = x.clone()
    N = x.shape[0]
    for i in range(N):
        # x[:i] is copied: @ saves it and x is written afterwards
        x[i] = (b[i] - L[i, :i] @ x[:i].clone()) / L[i, i]
    return x.sum()


def durbin_loss(r):
    N = r.shape[0]
    # y grows by one entry per step; rebuilt out of place (torch has no
    # negative-step slices: flip instead of [k - 1::-1]).
    alpha = -r[0]
    beta = 1.0
    y = -r[:1]
    for k in range(1, N):
        beta = beta * (1.0 - alpha * alpha)
        alpha = -(r[k] + torch.dot(torch.flip(r[:k], [0]), y)) / beta
        z = y + alpha * torch.flip(y, [0])
        y = torch.cat([z, alpha.reshape(1)])
    return y.sum()


def thomas_loss(a, b, c, d):
    N = d.shape[0]
    # The recurrences keep their values in Python lists: in-place writes
    # would overwrite entries saved by the products.
    cp = [c[0] / b[0]]
    dp = [d[0] / b[0]]
    for i in range(1, N):
        m = b[i] - a[i] * cp[i - 1]
        cp.append(c[i] / m)
        dp.append((d[i] - a[i] * dp[i - 1]) / m)
    x = [None] * N
    x[N - 1] = dp[N - 1]
    for i in range(N - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return torch.stack(x).sum()


# ==========================================================================
# Data mining / statistics
# ==========================================================================

def covariance_loss(float_n, data):
    M = data.shape[1]
    mean = torch.mean(data, dim=0)
    data = data - mean
    cov = torch.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        # torch refuses cov[i:M, i] = cov[i, i:M] (both hold cov[i, i])
        row = data[:, i] @ data[:, i:M] / (float_n - 1.0)
        cov[i, i:M] = row
        cov[i:M, i] = row
    return cov.sum()


def correlation_loss(float_n, data):
    M = data.shape[1]
    mean = torch.mean(data, dim=0)
    stddev = torch.sqrt(torch.mean((data - mean) ** 2, dim=0))
    stddev = torch.where(stddev <= 0.1, 1.0, stddev)
    data = data - mean
    data = data / (math.sqrt(float_n) * stddev)
    corr = torch.zeros((M, M), dtype=data.dtype)
    for i in range(M - 1):
        corr[i, i] = 1.0
        corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]
        corr[i + 1:M, i] = corr[i, i + 1:M]
    corr[M - 1, M - 1] = 1.0
    return corr.sum()


def logreg_loss(X, y, w, lr, iters):
    n = X.shape[0]
    for it in range(iters):
        z = X @ w
        p = 1.0 / (1.0 + torch.exp(-z))
        grad = X.T @ (p - y) / n
        w = w - lr * grad
    p = 1.0 / (1.0 + torch.exp(-(X @ w)))
    loss = -torch.mean(y * torch.log(p) + (1.0 - y) * torch.log(1.0 - p))
    return loss


# ==========================================================================
# Deep learning
# ==========================================================================

def softmax_loss(x):
    tmp_max = torch.amax(x, dim=2, keepdim=True)
    tmp_out = torch.exp(x - tmp_max)
    tmp_sum = torch.sum(tmp_out, dim=2, keepdim=True)
    return (tmp_out / tmp_sum).sum()


def mlp_loss(x, w1, b1, w2, b2, w3, b3):
    h1 = torch.relu(x @ w1 + b1)
    h2 = torch.relu(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    m = logits.amax(dim=1, keepdim=True)
    e = torch.exp(logits - m)
    return (e / e.sum(dim=1, keepdim=True)).sum()


# ==========================================================================
# NPBench-style misc kernels
# ==========================================================================

def go_fast_loss(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += torch.tanh(a[i, i])
    return (a + trace).sum()


def arc_distance_loss(theta_1, phi_1, theta_2, phi_2):
    temp = torch.sin((theta_2 - theta_1) / 2) ** 2 + torch.cos(theta_1) * torch.cos(theta_2) * torch.sin((phi_2 - phi_1) / 2) ** 2
    distance_matrix = 2 * torch.atan2(torch.sqrt(temp), torch.sqrt(1 - temp))
    return distance_matrix.sum()


def nbody_loss(pos, vel, mass, dt, nsteps, softening, G):
    pos = pos.clone()
    vel = vel.clone()
    N = pos.shape[0]
    acc = torch.zeros_like(pos)
    for s in range(nsteps):
        acc[:, :] = 0.0
        for i in range(N):
            for j in range(N):
                if i != j:
                    dx = pos[j, 0] - pos[i, 0]
                    dy = pos[j, 1] - pos[i, 1]
                    dz = pos[j, 2] - pos[i, 2]
                    r2 = dx * dx + dy * dy + dz * dz + softening ** 2
                    inv = G * mass[j] / (r2 * torch.sqrt(r2))
                    acc[i, 0] += dx * inv
                    acc[i, 1] += dy * inv
                    acc[i, 2] += dz * inv
        vel += acc * dt
        pos += vel * dt
    KE = 0.5 * torch.sum(torch.mul(mass, torch.sum(vel ** 2, dim=1)))
    PE = 0.0
    for i in range(N):
        for j in range(i + 1, N):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            dz = pos[j, 2] - pos[i, 2]
            PE -= G * mass[i] * mass[j] / torch.sqrt(dx * dx + dy * dy + dz * dz + softening ** 2)
    return KE


# ==========================================================================
# Indexing with data: sparse matrices, meshes, embeddings
# ==========================================================================

def csr_matvec_loss(indptr, indices, data, x):
    n = indptr.shape[0] - 1
    rows = torch.repeat_interleave(torch.arange(n), torch.diff(indptr))
    y = torch.zeros(n, dtype=data.dtype).index_add(0, rows,
                                                   data * x[indices])
    return y.sum()


def graph_allen_cahn_loss(src, dst, w, u, T):
    for t in range(T):
        flux = w * (u[src] - u[dst])
        du = torch.zeros_like(u).index_add(0, dst, flux).index_add(
            0, src, -flux)
        u = u + 0.05 * (du + u - u ** 3)
    return u.sum()


def embedding_bag_loss(E, tokens, W):
    bags = E[tokens].mean(dim=1)
    return torch.tanh(bags @ W).sum()


def self_attention_loss(X, Wq, Wk, Wv, Wo):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    s = Q @ K.transpose(1, 2) / math.sqrt(X.shape[2])
    p = torch.softmax(s, dim=2)
    return (X + (p @ V) @ Wo).sum()


def layernorm_loss(x, gamma, beta):
    # PyTorch's fused LayerNorm (what its users call), biased variance as
    # NumPy's.
    return torch.nn.functional.layer_norm(x, (x.shape[1],), gamma, beta,
                                          1e-5).sum()


def crank_nicolson_loss(u, kappa, T):
    n = u.shape[0]
    i = torch.arange(1, n - 1)
    L = torch.zeros((n, n), dtype=u.dtype)
    L = L.index_put((i, i - 1), -kappa[1:-1])
    L = L.index_put((i, i), 2.0 * kappa[1:-1])
    L = L.index_put((i, i + 1), -kappa[1:-1])
    A = torch.eye(n, dtype=u.dtype) + 0.5 * L
    B = torch.eye(n, dtype=u.dtype) - 0.5 * L
    for t in range(T):
        u = torch.linalg.solve(A, B @ u)
    return u.sum()


def tight_binding_loss(V, t):
    n = V.shape[0]
    i = torch.arange(n - 1)
    H = torch.diag(V)
    H = H.index_put((i + 1, i), -t)
    H = H.index_put((i, i + 1), -t)
    w, P = torch.linalg.eigh(H)
    occupied = P[:, :n // 2]
    return w[:n // 2].sum() + ((occupied * occupied).sum(dim=1) * V).sum()


LOSSES = {
    "jacobi_1d": jacobi_1d_loss,
    "jacobi_2d": jacobi_2d_loss,
    "heat_3d": heat_3d_loss,
    "seidel_2d": seidel_2d_loss,
    "fdtd_2d": fdtd_2d_loss,
    "adi": adi_loss,
    "heat_1d_bc": heat_1d_bc_loss,
    "cavity_flow": cavity_flow_loss,
    "hdiff": hdiff_loss,
    "vadv": vadv_loss,
    "minmod_advection": minmod_advection_loss,
    "cholesky": cholesky_loss,
    "lu": lu_loss,
    "ludcmp": ludcmp_loss,
    "trisolv": trisolv_loss,
    "gramschmidt": gramschmidt_loss,
    "durbin": durbin_loss,
    "symm": symm_loss,
    "syr2k": syr2k_loss,
    "syrk": syrk_loss,
    "trmm": trmm_loss,
    "gemm": gemm_loss,
    "k2mm": k2mm_loss,
    "k3mm": k3mm_loss,
    "atax": atax_loss,
    "bicg": bicg_loss,
    "mvt": mvt_loss,
    "gemver": gemver_loss,
    "gesummv": gesummv_loss,
    "doitgen": doitgen_loss,
    "thomas": thomas_loss,
    "softmax": softmax_loss,
    "conv2d": conv2d_loss,
    "mlp": mlp_loss,
    "logreg": logreg_loss,
    "go_fast": go_fast_loss,
    "arc_distance": arc_distance_loss,
    "nbody": nbody_loss,
    "correlation": correlation_loss,
    "covariance": covariance_loss,
    "deriche": deriche_loss,
    "csr_matvec": csr_matvec_loss,
    "graph_allen_cahn": graph_allen_cahn_loss,
    "embedding_bag": embedding_bag_loss,
    "crank_nicolson": crank_nicolson_loss,
    "tight_binding": tight_binding_loss,
    "self_attention": self_attention_loss,
    "layernorm": layernorm_loss,
}

UNSUPPORTED = {}
