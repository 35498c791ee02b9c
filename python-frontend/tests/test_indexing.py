"""Indexing with data: integer arrays as subscripts (gathers, scatters,
np.add.at, np.take) and scalar indices read from arrays (CSR and COO
loops), forward against NumPy and gradients against finite differences.
Negative and repeated indices are part of every case: NumPy counts the
first from the end, and its `x[idx] = v` keeps the last of repeated
indices while `x[idx] += v` applies them once and np.add.at adds them
all."""

import copy
import inspect
import os

import numpy as np
import pytest

import sdfg
from test_bindings import _output


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


IDX = np.array([0, 3, -1, 3, 2])


def gather(x, idx):
    return np.sum(x[idx] ** 2)


def gather_shifted(x, idx):
    # idx - 1 is -1 where idx is 0: the last element.
    return np.sum(np.sin(x[idx - 1]) * x[idx])


def embedding(W, idx, w):
    h = np.tanh(W[idx, :])
    return np.sum(h * w)


def gather_columns_2d(W, idx):
    return np.sum(W[:, idx] * W[:, idx])


def gather_pairs(P, rows, labels):
    # Cross-entropy's pick of each row's label.
    return -np.sum(np.log(P[rows, labels]))


def advanced_apart(A, idx):
    # An integer and an array separated by a slice: the array's dimension
    # goes first, as in NumPy (shape (2, 3), not (3, 2)).
    B = A[0, :, idx]
    return np.sum(B[0, :] * 2.0 + B[1, :] ** 2)


def advanced_adjacent(A, r, c):
    return np.sum(A[:, r, c] ** 3)


def gather_in_time_loop(x, idx, T):
    for t in range(T):
        x = x + 0.5 * np.sin(x[idx])
    return np.sum(x * x)


def scatter_repeated(x, idx, v):
    y = x.copy()
    y[idx] = v * 2.0
    return np.sum(y * y)


def scatter_into_argument(x, idx, v):
    x[idx] = np.exp(v)


def scatter_rows(W, idx, V):
    W[idx, :] = V * W[0, :]


def augmented_repeated(x, idx, v):
    y = x * 1.0
    y[idx] += v
    return np.sum(y ** 3)


def add_at_repeated(x, idx, v):
    y = np.zeros(5)
    np.add.at(y, idx, v * x[idx])
    return np.sum(y ** 2)


def add_at_rows(W, idx, G):
    dW = np.zeros((4, 3))
    np.add.at(dW, idx, G * G)
    return np.sum(dW * W)


def add_at_into_argument(x, idx, v):
    # Into an argument, twice (its old values are read after each): the
    # gradient needed the target initialised in the same state (fuzz 8).
    for t in range(2):
        np.add.at(x, idx, v * x[:5])
    np.add.at(x[1:], idx[:3], 0.5)
    return np.sum(x ** 3)


def subtract_at(x, idx, v):
    h = np.zeros(7)
    np.subtract.at(h, idx, v * x[:5])
    np.subtract.at(x, idx, v)
    return np.sum(h ** 2) + np.sum(x ** 3)


def take_columns(W, idx):
    return np.sum(np.take(W, idx, axis=1) ** 2)


def csr_matvec(indptr, indices, data, x):
    y = np.zeros(indptr.shape[0] - 1)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
    return np.sum(y * y)


def coo_matvec(rows, cols, data, x):
    y = np.zeros(4)
    for k in range(data.shape[0]):
        y[rows[k]] += data[k] * x[cols[k]]
    return np.sum(np.sin(y))


def data_index_in_loop(x, idx):
    s = 0.0
    for i in range(idx.shape[0]):
        s += x[idx[i]] ** 2 * x[i]
    return s


def csr_max_aggregation(indptr, indices, data, x):
    # A graph network's max over each node's weighted neighbours: y[i] is
    # read (by max) and overwritten in a loop whose trip count is data, so
    # its old values are stored in slots counted at run time.
    y = np.zeros(indptr.shape[0] - 1)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] = max(y[i], data[k] * x[indices[k]])
    return np.sum(y * y)


def csr_branches(indptr, indices, data, x):
    s = 0.0
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            v = data[k] * x[indices[k]]
            if v > 0.3:
                s = s * 0.9 + v * v
            else:
                s = s + np.sin(v)
    return s


def nested_data_loops(indptr, data):
    s = 1.0
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            for j in range(indptr[0], indptr[1]):
                s = s * (1.0 + 0.1 * data[k] * data[j])
    return s


def relu_in_place(x):
    x[x < 0.0] = 0.0
    return np.sum(x * x)


def masked_updates(x, y):
    m = x > 0.5  # computed once, before x changes
    x[m] += 2.0 * y[m]
    x[m] *= 3.0
    x[m] = np.sin(y[m]) + x[m]
    return np.sum(x ** 2)


def masked_reductions(x, w):
    m = w > 0.3
    return np.sum(x[m]) + np.mean(x[m] ** 2) * 2.0 + x[m].sum() + \
        np.prod(x[m] + 0.5)


def masked_rows(A, m, x):
    # Row masks (a mask of the leading dimensions), computed once before
    # any element changes, also from the array itself.
    B = A.copy()
    B[m] = 0.5
    r = B[:, 0] > 0.4
    B[r, :] += x[r, :] * 2.0
    B[B[:, 1] > 0.3] -= 1.0
    C = A * 1.0
    C[m] *= x[m]
    return np.sum(B[m] ** 2) + np.mean(A[m]) + np.sum(C * B) + \
        np.sum(A[~m] * x[~m])


def masked_axis_reductions(A, B, m, x):
    # A row selection A[m] is 2-d: axis 0 reduces over the selected rows
    # (axes without it would have a data-dependent length).
    return (np.sum(A[m], axis=0), np.mean(A[m], axis=(0, 1)),
            np.prod(B[m] + 1.0, axis=(0, 2)), np.mean(B[m], 0),
            A[m].sum(axis=0, keepdims=True), np.mean(x[x > 0.4], axis=0),
            np.sum(x[x > 0.4], axis=-1), np.mean(A[m], axis=0,
                                                  keepdims=True))


def test_masked_reductions_with_axes():
    rng = np.random.default_rng(12)
    A, B, x = rng.random((5, 3)), rng.random((5, 2, 3)), rng.random(6)
    m = np.array([True, False, True, True, False])
    for got, want in zip(sdfg.program(masked_axis_reductions)(A, B, m, x),
                         masked_axis_reductions(A, B, m, x)):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(got, want, rtol=1e-14)
    # A float32 selection's mean stays float32, as NumPy's.
    x32 = x.astype(np.float32)
    got = sdfg.program(mean_of_selection)(x32)
    assert got.dtype == np.float32 and got == mean_of_selection(x32)


def mean_of_selection(x):
    return np.mean(x[x > 0.4])


def mean_of_empty_selection(x):
    return np.mean(x[x > 2.0])  # nan, as NumPy's (with its warning)


def _csr(rng):
    dense = rng.random((5, 6)) * (rng.random((5, 6)) < 0.5)
    dense[2] = 0.0  # an empty row: a loop that runs no iteration
    indptr = [0]
    indices, data = [], []
    for row in dense:
        nz = np.nonzero(row)[0]
        indices += list(nz - 6 * (nz % 2))  # odd columns from the end
        data += list(row[nz])
        indptr.append(len(indices))
    return (np.array(indptr), np.array(indices), np.array(data),
            rng.random(6))


CASES = [
    (gather, lambda r: (r.random(7), IDX)),
    (gather_shifted, lambda r: (r.random(7), IDX)),
    (embedding, lambda r: (r.random((6, 4)), np.array([5, 0, 0, -2]),
                           r.random((4, 4)))),
    (gather_columns_2d, lambda r: (r.random((3, 5)),
                                   np.array([[1, 4], [4, -5]]))),
    (gather_pairs, lambda r: (r.random((4, 3)) + 0.1, np.array([0, 1, 2, 3]),
                              np.array([2, 0, -1, 2]))),
    (advanced_apart, lambda r: (r.random((2, 3, 4)), np.array([1, -1]))),
    (advanced_adjacent, lambda r: (r.random((2, 3, 4)), np.array([0, 2, 2]),
                                   np.array([3, -4, 1]))),
    (gather_in_time_loop, lambda r: (r.random(6), np.array([5, 0, 2, 2, 1,
                                                            -3]), 3)),
    (scatter_repeated, lambda r: (r.random(7), IDX, r.random(5))),
    (scatter_into_argument, lambda r: (r.random(7), IDX, r.random(5))),
    (scatter_rows, lambda r: (r.random((4, 3)), np.array([1, -1, 1]),
                              r.random((3, 3)))),
    (augmented_repeated, lambda r: (r.random(7), IDX, r.random(5))),
    (add_at_repeated, lambda r: (r.random(5), np.array([0, 4, 4, 1, -5]),
                                 r.random(5))),
    (add_at_rows, lambda r: (r.random((4, 3)), np.array([3, 0, 3, -1]),
                             r.random((4, 3)))),
    (add_at_into_argument, lambda r: (r.random(7), IDX, r.random(5))),
    (subtract_at, lambda r: (r.random(7), IDX, r.random(5))),
    (take_columns, lambda r: (r.random((3, 5)), np.array([4, 1, 1, -2]))),
    (csr_matvec, _csr),
    (coo_matvec, lambda r: (np.array([0, 3, 3, -1, 1, 2]),
                            np.array([1, 1, 0, 2, -1, 0]), r.random(6),
                            r.random(3))),
    (data_index_in_loop, lambda r: (r.random(5), np.array([4, -1, 0, 2, -5]))),
    (csr_max_aggregation, _csr),
    (csr_branches, _csr),
    (nested_data_loops, lambda r: _csr(r)[::2]),
    (relu_in_place, lambda r: (r.random((3, 4)) - 0.5,)),
    (masked_updates, lambda r: (r.random(8), r.random(8))),
    (masked_reductions, lambda r: (r.random((3, 4)), r.random((3, 4)))),
    (masked_rows, lambda r: (r.random((5, 3)),
                             np.array([True, False, True, False, False]),
                             r.random((5, 3)))),
]
IDS = [f"{c[0].__name__}{k}" for k, c in enumerate(CASES)]


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_forward_matches_numpy(fn, inputs):
    args = inputs(np.random.default_rng(2))
    ref, ours = copy.deepcopy(args), copy.deepcopy(args)
    want = fn(*ref)
    got = sdfg.program(fn)(*ours)
    if want is None:
        assert got is None
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    for o, r in zip(ours, ref):
        if isinstance(r, np.ndarray):
            np.testing.assert_allclose(o, r, rtol=1e-13, atol=1e-15)


def _value(fn, args, names, output):
    run = copy.deepcopy(list(args))
    r = fn(*run)
    out = r if output == "return" else run[names.index(output)]
    # A fixed nonlinear weighting, so that the gradient of an output
    # array depends on every element it holds.
    out = np.asarray(out, dtype=float)
    return float(np.sum(out * np.cos(np.arange(out.size)).reshape(out.shape)))


@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_gradient_matches_finite_differences(fn, inputs):
    args = inputs(np.random.default_rng(3))
    output, names = _output(fn, args)
    wrt = [n for n, a in zip(names, args)
           if isinstance(a, np.ndarray) and a.dtype == np.float64]
    caller = copy.deepcopy(args)
    if output == "return":
        g = sdfg.grad(fn, wrt, output=output)(*caller)
    else:
        shape = np.shape(args[names.index(output)])
        seed = np.cos(np.arange(int(np.prod(shape)))).reshape(shape)
        g = sdfg.vjp(fn, wrt, output=output)(*caller, seed=seed)
    for before, after in zip(args, caller):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(before, after)
    rng = np.random.default_rng(4)
    dirs = {w: rng.standard_normal(np.shape(args[names.index(w)]))
            for w in wrt}
    h = 1e-6

    def shifted(s):
        a = list(copy.deepcopy(args))
        for w in wrt:
            k = names.index(w)
            a[k] = a[k] + s * h * dirs[w]
        return _value(fn, a, names, output)

    fd = (shifted(1.0) - shifted(-1.0)) / (2 * h)
    ad = sum(float(np.sum(g[w] * dirs[w])) for w in wrt)
    assert abs(fd - ad) <= 1e-7 * max(abs(fd), 1.0), (fd, ad)


def test_embedding_gradient_is_a_scatter_add():
    """The gradient of a gather adds up the rows a repeated index picked
    (atomics in a parallel map: 20000 rows)."""
    rng = np.random.default_rng(5)
    W = rng.random((100, 16))
    idx = rng.integers(-100, 100, 20000)
    w = rng.random((20000, 16))
    got = sdfg.grad(embedding, ["W"])(W, idx, w)["W"]
    want = np.zeros_like(W)
    np.add.at(want, idx, (1 - np.tanh(W[idx]) ** 2) * w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------
# Rejected with the reason


def selection_along_rows_only(A):
    return np.sum(A[A[:, 0] > 0.5], axis=1)


def selection_axis_out_of_bounds(A):
    return np.sum(A[A[:, 0] > 0.5], axis=2)


def mask_of_columns(A):
    return np.sum(A[:, A[0] > 0.5])


def array_into_selection(x, y):
    x[x > 0.5] = y


def selections_by_two_masks(x):
    return np.sum(x[x > 0.5] + x[x < 0.7])


def float_index(x, w):
    return np.sum(x[w])


def add_at_scalar_index(x, v):
    np.add.at(x, 2, v)


@pytest.mark.parametrize("fn,args,match", [
    (selection_along_rows_only, (np.ones((2, 3)),),
     r"a masked selection reduced along its other axes only"),
    (selection_axis_out_of_bounds, (np.ones((2, 3)),),
     r"axis 2 is out of bounds for array of dimension 2"),
    (mask_of_columns, (np.ones((2, 3)),),
     r"only a mask of the array's shape or of its leading dimensions"),
    (array_into_selection, (np.ones(3), np.ones(3)),
     r"assignment of an array to a masked selection"),
    (selections_by_two_masks, (np.ones(3),),
     r"selections by different masks"),
    (float_index, (np.ones(3), np.ones(2)),
     r"arrays used as indices must be of integer type"),
    (add_at_scalar_index, (np.ones(3), 1.0),
     r"np.add.at with scalar indices.*x\[i\] \+= v"),
])
def test_rejected_with_the_reason(fn, args, match):
    with pytest.raises(sdfg.FrontendError, match=match) as info:
        sdfg.program(fn)(*args)
    assert "test_indexing.py:" in str(info.value)


def test_mean_of_an_empty_selection_is_nan():
    with np.errstate(invalid="ignore"):
        assert np.isnan(sdfg.program(mean_of_empty_selection)(np.ones(3)))


@pytest.mark.parametrize("idx,bad", [(np.array([0, 7, 2]), 7),
                                     (np.array([-8, 1]), -8)])
def test_index_array_out_of_bounds_raises_index_error(idx, bad):
    x = np.ones(7)
    for call in (sdfg.program(gather), sdfg.grad(gather, ["x"])):
        with pytest.raises(IndexError, match=rf"test_indexing.py:\d+: "
                           rf"index {bad} is out of bounds for size 7 "
                           rf"\(in argument 'idx'\)"):
            call(x, idx)
    # The extent checked is the one indexed: W's rows, not its columns.
    with pytest.raises(IndexError, match="out of bounds for size 6"):
        sdfg.program(embedding)(np.ones((6, 9)), np.array([6]),
                                np.ones((1, 9)))
    sdfg.program(embedding)(np.ones((6, 9)), np.array([5, -6]),
                            np.ones((2, 9)))


def test_data_loop_capacity():
    """Past data_loop_capacity iterations (over all executions) the stored
    values do not cover the loop: RuntimeError, not a wrong gradient."""
    args = _csr(np.random.default_rng(6))
    nnz = args[2].shape[0]
    with pytest.raises(RuntimeError, match=r"for loop whose bounds are "
                       r"read from arrays.*data_loop_capacity="):
        sdfg.grad(csr_max_aggregation, ["x"],
                  data_loop_capacity=nnz - 1)(*args)
    exact = sdfg.grad(csr_max_aggregation, ["x"], data_loop_capacity=nnz)
    default = sdfg.grad(csr_max_aggregation, ["x"])
    np.testing.assert_allclose(exact(*args)["x"], default(*args)["x"],
                               rtol=1e-15)
    with pytest.raises(ValueError, match="data_loop_capacity must be a "
                       "positive int"):
        sdfg.grad(csr_max_aggregation, ["x"], data_loop_capacity=0)



@pytest.mark.parametrize("fn,inputs", CASES, ids=IDS)
def test_gpu_program_on_the_emulator_matches_cpu(fn, inputs):
    """The GPU program (kernels for the gathers' maps, atomics for their
    gradients' scatters, host loops for the ordered scatters), run on host
    threads: the same gradients as the CPU program."""
    args = inputs(np.random.default_rng(3))
    output, names = _output(fn, args)
    wrt = [n for n, a in zip(names, args)
           if isinstance(a, np.ndarray) and a.dtype == np.float64]
    seed = np.ones(np.shape(args[names.index(output)])) \
        if output != "return" else 1.0
    got, want = (sdfg.vjp(fn, wrt, output=output, device=d)(
        *copy.deepcopy(args), seed=seed) for d in ("gpu-emulator", "cpu"))
    for w in wrt:
        np.testing.assert_allclose(got[w], want[w], rtol=1e-11, atol=1e-12)


# Indices the program computes, or reads element by element in a loop, are
# checked where they are used: NumPy's IndexError after the call (the
# access itself is skipped, so nothing outside the array is touched).

def gather_computed(x, idx):
    j = idx * 2
    return np.sum(x[j] * 2.0)


def scatter_computed(x, idx, v):
    j = idx + 1
    x[j] = v
    return np.sum(x * x)


def add_at_computed(x, idx, v):
    y = np.zeros_like(x)
    np.add.at(y, idx + 1, v)
    return np.sum(y * x)


def csr_matvec(indptr, indices, data, x):
    y = np.zeros(indptr.shape[0] - 1)
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i], indptr[i + 1]):
            y[i] += data[k] * x[indices[k]]
    return np.sum(y)


def pairs_computed(A, r, c):
    return np.sum(A[r + 0, c * 1] ** 2)


def gather_large(x, idx):
    # A map long enough to run on several threads.
    return np.sum(np.sin(x[idx // 1]))


def _numpy_message(fn, args):
    with pytest.raises(IndexError) as info:
        fn(*copy.deepcopy(args))
    return str(info.value)


BAD_INDEX_CASES = [
    # (function, arguments, wrt, the statement the error names)
    (gather_computed, (np.ones(5), np.array([0, 1, 4])), ["x"], "x[j]"),
    (gather_computed, (np.ones(5), np.array([0, -4, 1])), ["x"], "x[j]"),
    (scatter_computed, (np.ones(5), np.array([0, 4]), np.ones(2)), ["v"],
     "x[j] = v"),
    (add_at_computed, (np.ones(5), np.array([0, 4]), np.ones(2)), ["v"],
     "np.add.at"),
    (csr_matvec, (np.array([0, 1, 3]), np.array([0, 1, 5]), np.ones(3),
                  np.ones(4)), ["x"], "x[indices[k]]"),
    (csr_matvec, (np.array([0, 1, 4]), np.array([0, 1, 2]), np.ones(3),
                  np.ones(4)), ["x"], "data[k]"),
    (pairs_computed, (np.ones((3, 4)), np.array([0, 2]), np.array([1, 4])),
     ["A"], "A[r + 0, c * 1]"),
    (gather_large, (np.ones(50), np.arange(20000) % 51), ["x"],
     "x[idx // 1]"),
]


@pytest.mark.parametrize("fn,args,wrt,statement", BAD_INDEX_CASES,
                         ids=[f"{c[0].__name__}-{k}" for k, c in
                              enumerate(BAD_INDEX_CASES)])
def test_computed_index_out_of_bounds_raises_index_error(fn, args, wrt,
                                                          statement):
    """NumPy's message (index, axis, size), located at the subscript's
    line, from the forward and the gradient program."""
    assert_index_error(fn, args, wrt, statement, "cpu")


def assert_index_error(fn, args, wrt, statement, device):
    """The forward and gradient programs of `fn` on `device` raise NumPy's
    IndexError for `args`, located at the line holding `statement`
    (test_gpu.py runs the GPU's)."""
    first = inspect.getsourcelines(fn)[1]
    lines = inspect.getsource(fn).splitlines()
    want = _numpy_message(fn, args)
    for call in (sdfg.program(fn, device=device),
                 sdfg.grad(fn, wrt, device=device)):
        with pytest.raises(IndexError) as info:
            call(*copy.deepcopy(args))
        where, message = str(info.value).split(": ", 1)
        assert message == want
        path, line = where.rsplit(":", 1)
        assert path.endswith("test_indexing.py")
        assert statement in lines[int(line) - first]


def test_checked_program_runs_on_after_an_index_error():
    """The record is cleared: the next call with good indices returns
    NumPy's value, and a program without bad indices never raises."""
    f = sdfg.program(gather_computed)
    g = sdfg.grad(gather_computed, ["x"])
    x = np.arange(5.0)
    with pytest.raises(IndexError):
        f(x, np.array([3]))
    assert f(x, np.array([0, 2, -1])) == gather_computed(x, np.array(
        [0, 2, -1]))
    with pytest.raises(IndexError):
        g(x, np.array([3]))
    np.testing.assert_array_equal(g(x, np.array([2, 2]))["x"],
                                  [0, 0, 0, 0, 4.0])


def test_no_checks_on_indices_derived_from_shapes():
    """Loops over shapes, slices and constant offsets are trusted: their
    programs carry no check (and no record)."""
    def stencil(a):
        b = np.zeros_like(a)
        for i in range(1, a.shape[0] - 1):
            b[i] = a[i - 1] + a[i + 1]
        return b
    text = sdfg.program(stencil).to_mlir(np.ones(8))
    lib = sdfg.program(stencil).compile(np.ones(8))
    assert "sdfg.tasklet(%i" not in text  # indices are affine
    import ctypes
    with pytest.raises(ValueError):
        ctypes.c_int64.in_dll(lib.module._lib, "sdfg_index_error")


def guarded_read(indptr, x):
    s = 0.0
    for k in range(indptr[0], indptr[1]):
        if k < x.shape[0]:
            s += x[k] * x[k]
    return s


def read_until_break(indptr, x):
    s = 0.0
    for k in range(indptr[0], indptr[1]):
        if k >= x.shape[0]:
            break
        s += x[k] * x[k]
    return s


@pytest.mark.parametrize("fn", [guarded_read, read_until_break])
def test_guarded_reads_in_data_loops_do_not_raise(fn):
    """A loop over data bounds has its iterator's accesses checked once,
    before it runs; an access under a branch (or after a break) is not
    part of that check, since NumPy would never make it."""
    x = np.arange(1.0, 6.0)
    indptr = np.array([1, 9])
    assert sdfg.program(fn)(indptr, x) == fn(indptr, x)
    np.testing.assert_array_equal(sdfg.grad(fn, ["x"])(indptr, x)["x"],
                                  [0, 4, 6, 8, 10])
    with pytest.raises(IndexError, match=r"index -7 is out of bounds"):
        sdfg.program(fn)(np.array([-7, 2]), x)


def test_check_indices_false_compiles_without_checks():
    """check_indices=False: the same results for valid indices, from
    libraries without the record (nothing checks, nothing is reported)."""
    import ctypes
    args = (np.array([0, 2, 5, 6]), np.array([3, 0, 2, 1, 3, 0]),
            np.arange(1.0, 7.0), np.array([0.5, -1.0, 2.0, 4.0]))

    def has_record(compiled):
        lib = ctypes.CDLL(os.path.join(compiled.precompile(*args),
                                       "program.so"))
        return hasattr(lib, "sdfg_index_error")
    for make in (sdfg.program,
                 lambda fn, **kw: sdfg.grad(fn, ["data", "x"], **kw)):
        checked, unchecked = make(csr_matvec), make(csr_matvec,
                                                    check_indices=False)
        want, got = checked(*args), unchecked(*args)
        if isinstance(want, dict):
            for k in want:
                np.testing.assert_array_equal(got[k], want[k])
        else:
            assert got == want == csr_matvec(*args)
        assert has_record(checked) and not has_record(unchecked)


def test_check_indices_false_skips_the_argument_check():
    """The caller-side check of an index array argument is skipped too
    (the caller vouches for it); with it on, a bad one raises."""
    x = np.arange(5.0)
    f = sdfg.program(gather_large)
    with pytest.raises(IndexError, match="in argument 'idx'|index 5"):
        f(x, np.array([0, 5]))
    g = sdfg.program(f, check_indices=False)
    assert g is not f and g.check_indices is False
    assert sdfg.program(g, check_indices=False) is g
    assert g(x, np.array([0, 4])) == gather_large(x, np.array([0, 4]))
    assert g.compile(x, np.array([0, 4])).meta["check_indices"] is False


@pytest.mark.parametrize("bad", ["no", 0, None])
def test_check_indices_must_be_a_bool(bad):
    with pytest.raises(ValueError, match="check_indices must be True or "
                                         "False"):
        sdfg.program(gather_computed, check_indices=bad)
    with pytest.raises(ValueError, match="check_indices"):
        sdfg.grad(gather_computed, ["x"], check_indices=bad)


def list_indices(A):
    B = A[[0, 2]] * 2.0
    A[[1, 2], 0] = -1.0
    return B, A[:, [2, 0]]


def list_index_loss(A):
    return np.sum(A[[0, 2, 2]] ** 2)


def test_lists_of_indices_are_index_arrays():
    A = np.arange(9.0).reshape(3, 3)
    got_A, want_A = A.copy(), A.copy()
    for got, want in zip(sdfg.program(list_indices)(got_A),
                         list_indices(want_A)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_A, want_A)
    g = sdfg.grad(list_index_loss, ["A"])(A)["A"]
    want = np.zeros_like(A)
    want[0] = 2 * A[0]
    want[2] = 4 * A[2]
    np.testing.assert_array_equal(g, want)


def take_method(W, idx):
    return W.take(idx, axis=0) * 2.0 + W.take(idx[:1], 0)


def test_take_method():
    W = np.arange(12.0).reshape(4, 3)
    idx = np.array([3, 0, 3])
    np.testing.assert_array_equal(sdfg.program(take_method)(W, idx),
                                  take_method(W, idx))
