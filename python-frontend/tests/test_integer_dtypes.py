"""Small and unsigned integers (int8, int16, uint8, uint16, uint32,
uint64) in compiled programs: as arguments and results, with NumPy 1.x's
promotion (value-based for Python numbers), wrapping arithmetic, unsigned
division, comparisons, shifts and reductions, conversions, index arrays
(a CSR matrix-vector product, differentiated w.r.t. its float data) and
a uint8 image kernel. Results are compared bit for bit with NumPy's, and
so are their dtypes."""

import warnings

import numpy as np
import pytest

import sdfg

from checks import fd_gradient


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))


NEW = [np.int8, np.int16, np.uint8, np.uint16, np.uint32, np.uint64]
ALL_INTS = NEW + [np.int32, np.int64]


def edge_values(dtype):
    """The extremes, values around 0 and small divisors of `dtype`."""
    info = np.iinfo(dtype)
    vals = {info.min, info.min + 1, 0, 1, 2, 3, 7, 100, info.max - 1,
            info.max}
    if info.min < 0:
        vals |= {-1, -2, -7, -100}
    return np.array(sorted(v for v in vals if info.min <= v <= info.max),
                    dtype=dtype)


def pairs(dtype):
    """Every pair of edge values, as two flat arrays."""
    v = edge_values(dtype)
    a, b = np.meshgrid(v, v, indexing="ij")
    return a.ravel().copy(), b.ravel().copy()


def numpy_of(fn, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*[a.copy() if isinstance(a, np.ndarray) else a
                    for a in args])


def assert_same(got, want):
    """Equal values and dtypes, element by element of tuples."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for k, (g, w) in enumerate(zip(got, want)):
            assert np.asarray(g).dtype == np.asarray(w).dtype, \
                (k, np.asarray(g).dtype, np.asarray(w).dtype)
            np.testing.assert_array_equal(g, w, err_msg=f"result {k}")
    else:
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def check(fn, *args):
    want = numpy_of(fn, *args)
    with np.errstate(all="ignore"):
        got = sdfg.program(fn)(*[a.copy() if isinstance(a, np.ndarray)
                                 else a for a in args])
    assert_same(got, want)
    return got


# ---------------------------------------------------------------------------
# Element-wise operations
# ---------------------------------------------------------------------------

def arithmetic(a, b):
    return (a + b, a - b, a * b, a // b, a % b, np.fmod(a, b),
            np.floor_divide(a, b), np.remainder(a, b), a / b,
            np.maximum(a, b), np.minimum(a, b), np.fmax(a, b),
            np.fmin(a, b), a ** 3, a ** 0, np.power(a, 2))


def bitwise(a, b):
    return (a & b, a | b, a ^ b, np.bitwise_and(a, b), np.bitwise_or(a, b),
            np.bitwise_xor(a, b), ~a, np.invert(a), np.bitwise_not(b))


def comparisons(a, b):
    return (a < b, a <= b, a > b, a >= b, a == b, a != b,
            np.where(a > b, a, b), np.where(a < b, a - b, b - a))


@pytest.mark.parametrize("dtype", NEW)
@pytest.mark.parametrize("fn", [arithmetic, bitwise, comparisons])
def test_binary_on_edge_values(fn, dtype):
    """Every pair of edge values (0, 1, -1, the extremes): wrapping,
    x // 0 and x % 0 are 0 as NumPy's, MIN // -1 wraps, unsigned values
    divide and compare unsigned."""
    check(fn, *pairs(dtype))


def unary(a):
    return (-a, np.negative(a), abs(a), np.abs(a), np.absolute(a),
            np.sign(a), np.square(a), +a, a.astype(np.float64),
            a.astype(np.float32) * 0.5, np.sqrt(a.astype(np.float64)))


@pytest.mark.parametrize("dtype", NEW)
def test_unary(dtype):
    """Negation wraps; abs of an unsigned value is the value, of the
    minimum signed one the minimum (as NumPy's)."""
    check(unary, edge_values(dtype))


def float_functions(a):
    return (np.sqrt(a), np.exp(a), np.floor(a), np.rint(a), np.hypot(a, a),
            np.arctan2(a, a), np.log1p(a), np.hypot(a, 3))


@pytest.mark.parametrize("dtype", [np.int16, np.uint16, np.uint32,
                                   np.uint64])
def test_float_functions_of_integers(dtype):
    """NumPy computes them in float32 for 16-bit integers, in float64
    for wider ones."""
    a = np.array([0, 1, 2, 7, 100, np.iinfo(dtype).max], dtype=dtype)
    with np.errstate(all="ignore"):
        want = float_functions(a)
        got = sdfg.program(float_functions)(a)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-6 if w.dtype ==
                                   np.float32 else 1e-14)


def square_root(a):
    return np.sqrt(a)


def test_float_functions_of_8_bit_integers_are_refused():
    """NumPy's result is float16, a dtype compiled programs lack."""
    for dtype in (np.int8, np.uint8):
        with pytest.raises(sdfg.FrontendError, match="float16"):
            sdfg.program(square_root)(np.arange(3, dtype=dtype))


def shifts(a, c):
    return a << c, a >> c, np.left_shift(a, c), np.right_shift(a, c)


@pytest.mark.parametrize("dtype", NEW)
def test_shifts_by_counts_of_the_same_dtype(dtype):
    """Counts 0 .. 64: a count of at least the width shifts everything
    out (0, or -1 for a negative value shifted right), as NumPy defines
    it; negative counts too."""
    info = np.iinfo(dtype)
    counts = [c for c in (0, 1, 7, 8, 15, 16, 31, 32, 63, 64, -1, -8)
              if info.min <= c <= info.max]
    v = edge_values(dtype)
    a, c = np.meshgrid(v, np.array(counts, dtype=dtype), indexing="ij")
    check(shifts, a.ravel().copy(), c.ravel().copy())


def constant_shifts(x):
    return (x << 0, x >> 0, x << 7, x >> 7, x << 8, x >> 8, x << 63,
            x >> 63, x << 64, x >> 64, (x >> 2) ^ (x & 15),
            x.astype(np.uint16) << 3)


@pytest.mark.parametrize("dtype", NEW)
def test_shifts_by_constants(dtype):
    check(constant_shifts, edge_values(dtype))


def python_numbers(x):
    return (x + 1, x + 300, x + (-1), x - 1, 1 - x, x * 2, x * 2.5,
            x + 70000, x // 2, x % 3, x & 0xF0, x | 1, x ^ 255, x < 5,
            x == 0, x + True, np.maximum(x, 3), np.minimum(x, 3),
            np.where(x > 3, x, 0), x * 1.0, x / 2)


@pytest.mark.parametrize("dtype", NEW)
def test_python_numbers_promote_by_value(dtype):
    """NumPy 1.x's value-based casting: uint8 + 1 is uint8, uint8 + 300
    uint16, uint8 + (-1) int16, uint64 + (-1) float64."""
    check(python_numbers, edge_values(dtype))


def mixed(a, b):
    return a + b, a * b, a < b, np.maximum(a, b), a // b, a - b, a % b


@pytest.mark.parametrize("da,db", [
    (np.uint64, np.int64), (np.uint8, np.int8), (np.uint32, np.int32),
    (np.uint16, np.int16), (np.uint8, np.uint64), (np.int8, np.uint32),
    (np.uint16, np.float32), (np.uint32, np.float32), (np.int16, np.float32),
    (np.uint8, np.bool_), (np.int8, np.int64), (np.uint64, np.float64)])
def test_mixed_arrays_promote_as_numpy(da, db):
    """Arrays of two dtypes: np.result_type's (uint64 and int64 give
    float64, uint8 and int8 int16)."""
    a = np.array([0, 1, 5, 100, 127], dtype=da)
    b = np.array([1, 1, 2, 3, 1], dtype=db)
    check(mixed, a, b)


def bit_mix(a, b):
    return a & b, a | b, a ^ b, a << b, a >> b


@pytest.mark.parametrize("da,db", [(np.uint8, np.int8),
                                   (np.uint32, np.int16),
                                   (np.int8, np.uint16)])
def test_mixed_bitwise(da, db):
    a = np.array([0, 1, 5, 100, 127], dtype=da)
    b = np.array([1, 1, 2, 3, 7], dtype=db)
    check(bit_mix, a, b)


def uint64_and_int64(a, b):
    return a & b


def uint64_shift(a, b):
    return a << b, a << 1  # a Python int 1 fits uint64: no error


def test_bitwise_of_uint64_with_signed_is_refused():
    """uint64 and int64 promote to float64: NumPy's bitwise ufuncs
    raise a TypeError there, and so does compiling."""
    a = np.arange(3, dtype=np.uint64)
    with pytest.raises(sdfg.FrontendError, match="'bitwise_and' not "
                       "supported for the input types"):
        sdfg.program(uint64_and_int64)(a, np.arange(3))
    with pytest.raises(TypeError):
        uint64_and_int64(a, np.arange(3))
    with pytest.raises(sdfg.FrontendError, match="'left_shift'"):
        sdfg.program(uint64_shift)(a, np.arange(3))


def conversions(x):
    return (x.astype(np.int8), x.astype(np.int16), x.astype(np.int32),
            x.astype(np.int64), x.astype(np.uint8), x.astype(np.uint16),
            x.astype(np.uint32), x.astype(np.uint64), x.astype(np.float32),
            x.astype(np.float64), x.astype(np.bool_), x.astype("uint16"),
            np.uint8(x[0]), np.int16(x[-1]), np.uint64(x[1]))


@pytest.mark.parametrize("dtype", ALL_INTS)
def test_astype_between_integers_and_floats(dtype):
    """Narrowing wraps, widening keeps the value (zero-extended from an
    unsigned type), uint64 above 2**63 converts to float as unsigned."""
    check(conversions, edge_values(dtype))


def test_astype_from_floats():
    """Floats to each integer type: in range the value truncated toward
    0; negative values to unsigned types wrap as NumPy's C cast does on
    this machine, and uint64 takes values from 2**63 on."""
    x = np.array([0.0, 1.9, -1.0, -2.7, 100.5, 127.0, -128.0, 200.0,
                  255.0, 1000.0, 65535.0, 3e9, 9.3e18, 1.5e19, 2.0 ** 63])
    small = x[:9].copy()

    def to_small(x):
        return (x.astype(np.uint8), x.astype(np.int8), x.astype(np.int16),
                x.astype(np.uint16))

    def to_wide(x):
        return (x.astype(np.uint32), x.astype(np.uint64),
                x.astype(np.float32).astype(np.uint64))

    check(to_small, small)
    check(to_wide, x[:12].copy())
    check(lambda_free_uint64, x)


def lambda_free_uint64(x):
    return x[x.shape[0] - 4:].astype(np.uint64), np.uint64(x[13])


# ---------------------------------------------------------------------------
# Arguments, results, creation, scalars
# ---------------------------------------------------------------------------

def update_in_place(x, s):
    x += 1
    x[0] = x[1] * 3
    x[1:] <<= 1
    s += s
    return x * 2, s


@pytest.mark.parametrize("dtype", NEW)
def test_arguments_updated_in_place_and_0d(dtype):
    """Arrays and 0-d arrays of each dtype are taken and written back
    (wrapping: the maximum + 1 is the minimum, uint 0 - 1 the maximum)."""
    x = edge_values(dtype)
    s = np.array(0, dtype=dtype)
    want_x, want_s = x.copy(), s.copy()
    want = numpy_of(update_in_place, want_x, want_s)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        update_in_place(want_x, want_s)
    got_x, got_s = x.copy(), s.copy()
    got = sdfg.program(update_in_place)(got_x, got_s)
    assert_same(got, want)
    assert_same((got_x, got_s), (want_x, want_s))


def decrement(s):
    s -= 1


@pytest.mark.parametrize("dtype", [np.uint8, np.uint32])
def test_same_kind_rule_of_in_place_updates(dtype):
    """A 0-d unsigned array minus a Python int is an int64 (all
    scalars): NumPy's same_kind rule refuses the in-place result."""
    with pytest.raises(sdfg.FrontendError, match="Cannot cast ufunc "
                       "'subtract' output from dtype\\('int64'\\)"):
        sdfg.program(decrement)(np.array(3, dtype=dtype))
    with pytest.raises(TypeError):
        decrement(np.array(3, dtype=dtype))


def creation(x):
    return (np.zeros(3, dtype=np.uint8), np.ones((2, 2), dtype=np.int16),
            np.full(3, 200, dtype=np.uint8), np.zeros_like(x),
            np.ones_like(x), np.full_like(x, 7), np.empty_like(x).shape,
            np.arange(5, dtype=np.uint32), np.eye(2, dtype=np.int8),
            np.zeros(2, dtype="uint64"), np.asarray(x, dtype=np.uint16),
            np.array(x, dtype=np.int8))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64])
def test_creation_with_dtype(dtype):
    check(creation, edge_values(dtype))


def typed_scalars(x):
    s = np.uint8(0)
    for i in range(x.shape[0]):
        s += x[i]  # wraps past 255, as NumPy's uint8 scalar
    t = np.int8(0)
    for i in range(x.shape[0]):
        t += np.int8(x[i])
    return (s, t, np.uint8(200) + np.uint8(100), np.uint16(7) * x,
            np.int8(-5), np.uint32(4000000000), np.uint64(2) ** 63,
            np.full(2, np.uint8(9)))


def test_numpy_scalar_constructors():
    """np.uint8(0) & co.: scalars of that type (an accumulator wraps as
    NumPy's does)."""
    check(typed_scalars, np.array([100, 200, 50, 255, 3], dtype=np.uint8))


def reductions(x, m):
    return (np.sum(x), np.prod(x[:3]), x.max(), x.min(), np.argmax(x),
            np.argmin(x), np.cumsum(x), np.cumprod(x[:3]), np.sort(x),
            np.argsort(x, kind="stable"), np.maximum.accumulate(x),
            np.minimum.accumulate(x), m.sum(axis=0), m.max(axis=1),
            m.min(axis=0), np.argmax(m, axis=1), np.amax(m), x.sum(),
            np.searchsorted(np.sort(x), x[2]))


def float_reductions(x):
    return np.mean(x), np.var(x), np.std(x), x.mean()


@pytest.mark.parametrize("dtype", NEW)
def test_reductions(dtype):
    """np.sum and np.cumsum of small ints in int64 (of unsigned ones in
    uint64); max, min, argmax, sort and searchsorted in unsigned order
    (255 above 0 for uint8); mean and var in float64."""
    v = edge_values(dtype)
    rng = np.random.default_rng(3)
    x = rng.permutation(v)
    m = rng.permutation(np.resize(v, 12)).reshape(3, 4)
    check(reductions, x, m)
    want = numpy_of(float_reductions, x)
    got = sdfg.program(float_reductions)(x)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-12)


# ---------------------------------------------------------------------------
# Index arrays and kernels
# ---------------------------------------------------------------------------

def csr_matvec(data, idx, ptr, v):
    n = ptr.shape[0] - 1
    out = np.zeros(n)
    for r in range(n):
        for k in range(ptr[r], ptr[r + 1]):
            out[r] += data[k] * v[idx[k]]
    return out


def csr_matrix(rng, rows=6, cols=5):
    dense = rng.standard_normal((rows, cols)) * (rng.random((rows, cols))
                                                 < 0.5)
    ptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))])
    idx = np.nonzero(dense)[1]
    return dense, dense[dense != 0], idx, ptr


@pytest.mark.parametrize("itype", [np.uint32, np.uint64, np.uint16,
                                   np.int16])
def test_csr_matvec_with_unsigned_indices(itype):
    """Loop bounds and subscripts read from uint32/uint64 index arrays;
    the gradient w.r.t. the float arguments (data and v) equals the
    finite differences, the index arrays carrying none."""
    rng = np.random.default_rng(1)
    dense, data, idx, ptr = csr_matrix(rng)
    idx, ptr = idx.astype(itype), ptr.astype(itype)
    v = rng.standard_normal(5)
    got = sdfg.program(csr_matvec)(data, idx, ptr, v)
    np.testing.assert_allclose(got, dense @ v, rtol=1e-14, atol=1e-14)
    g = sdfg.grad(csr_matvec, ["data", "v"])(data, idx, ptr, v)
    args = [data, idx, ptr, v]
    np.testing.assert_allclose(g["data"], fd_gradient(csr_matvec, args, 0),
                               rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(g["v"], fd_gradient(csr_matvec, args, 3),
                               rtol=1e-7, atol=1e-9)


def gather(v, idx, small):
    w = v[idx]
    out = np.zeros(v.shape[0])
    out[idx] += 1.0
    return w, v[small], v[idx[1:3]], out, v[idx[2]]


@pytest.mark.parametrize("itype", [np.uint8, np.uint32, np.uint64,
                                   np.int8, np.uint16])
def test_fancy_indexing_with_unsigned_index_arrays(itype):
    v = np.arange(10.0) * 1.5
    idx = np.array([9, 0, 3, 3, 7], dtype=itype)
    small = np.array([1, 2], dtype=np.uint8)
    check(gather, v, idx, small)


def gather_sum(v, idx):
    return np.sum(v[idx] ** 2)


def test_gradient_through_unsigned_gather():
    rng = np.random.default_rng(2)
    v = rng.standard_normal(8)
    idx = np.array([7, 1, 1, 4], dtype=np.uint32)
    g = sdfg.grad(gather_sum, ["v"])(v, idx)["v"]
    np.testing.assert_allclose(g, fd_gradient(gather_sum, [v, idx], 0),
                               rtol=1e-7, atol=1e-9)


def image_kernel(img):
    h, w = img.shape
    out = np.zeros((h - 2, w - 2), dtype=np.uint8)
    s = (img[:-2, 1:-1].astype(np.uint16) + img[2:, 1:-1]
         + img[1:-1, :-2] + img[1:-1, 2:])
    out[:, :] = (s >> 2).astype(np.uint8)
    mixed = (img >> 2) ^ (img & 15)
    thresh = np.where(img > 128, np.uint8(255), np.uint8(0))
    hist = np.zeros(256, dtype=np.int64)
    for i in range(h):
        for j in range(w):
            hist[img[i, j]] += 1
    brighter = img + 50  # wraps past 255
    inverted = 255 - img
    return (out, mixed, thresh, hist, img.max(), np.argmax(img), brighter,
            inverted, np.mean(img), img.sum(), (img // 16) * 16)


def test_uint8_image_kernel():
    rng = np.random.default_rng(4)
    img = rng.integers(0, 256, size=(7, 9), dtype=np.uint8)
    img[0, 0], img[1, 1] = 255, 0
    check(image_kernel, img)


# ---------------------------------------------------------------------------
# What stays refused
# ---------------------------------------------------------------------------

def constant_out_of_range():
    return np.uint8(300)


def float16_astype(x):
    return x.astype(np.float16)


def huge_constant(x):
    return x + 2 ** 64


def float_shift(x):
    return x << 1.5


def negative_power(x):
    return x ** -1


def run_time_power(x, k):
    return x ** k[0]


def identity(x):
    return x


def test_errors_that_remain():
    x = np.arange(4, dtype=np.uint8)
    with pytest.raises(sdfg.FrontendError,
                       match="300 out of bounds for uint8"):
        sdfg.program(constant_out_of_range)()
    with pytest.raises(sdfg.FrontendError, match="float16"):
        sdfg.program(float16_astype)(x)
    with pytest.raises(sdfg.FrontendError, match="out of the range of "
                       "int64"):
        sdfg.program(huge_constant)(x.astype(np.uint64))
    with pytest.raises(sdfg.FrontendError, match="left_shift"):
        sdfg.program(float_shift)(x)
    with pytest.raises(sdfg.FrontendError, match="negative integer powers"):
        sdfg.program(negative_power)(x)
    with pytest.raises(sdfg.FrontendError, match="integer power"):
        sdfg.program(run_time_power)(x, x)
    with pytest.raises(TypeError, match="float16"):
        sdfg.program(identity)(np.ones(3, np.float16))
    with pytest.raises(TypeError, match="complex256"):
        sdfg.program(identity)(np.ones(3, np.clongdouble))


def quantised(x, scale):
    q = (x * scale[0]).astype(np.uint8)
    big = (x * 1e3 + 1e19).astype(np.uint64)  # above 2**63: fptoui
    return np.sum(x * (q >> 1)) + np.sum(x * (big % np.uint64(7))) + \
        np.sum(np.sqrt(x) * np.maximum(q, np.uint8(3)))


def test_gradient_through_float_to_unsigned_conversions():
    """Conversions to unsigned types (fptosi and truncation, fptoui for
    uint64) and unsigned ops on their results carry no gradient: the
    gradient w.r.t. x is the finite difference's, away from the steps."""
    x = np.array([0.1337, 0.7123, 1.3791, 2.9177, 4.0531])
    scale = np.array([10.0])
    g = sdfg.grad(quantised, ["x"])(x, scale)["x"]
    np.testing.assert_allclose(g, fd_gradient(quantised, [x, scale], 0),
                               rtol=1e-8)


def limits(x):
    info = np.iinfo(x.dtype)
    top = np.iinfo(np.uint8).max
    return (np.minimum(x.astype(np.int64) * 2, info.max), info.min,
            np.iinfo(x.dtype).bits, x.astype(np.iinfo(np.int16).dtype),
            top - x)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint64])
def test_iinfo(dtype):
    check(limits, edge_values(dtype))


def iinfo_of_float(x):
    return np.iinfo(x.dtype).max


def test_iinfo_of_a_float_is_numpys_error():
    with pytest.raises(sdfg.FrontendError, match="Invalid integer data "
                       "type 'f'"):
        sdfg.program(iinfo_of_float)(np.ones(2))
    with pytest.raises(ValueError, match="Invalid integer data type 'f'"):
        iinfo_of_float(np.ones(2))
    with pytest.raises(sdfg.FrontendError, match="Invalid integer data "
                       "type 'O'"):
        sdfg.program(iinfo_of_array)(np.ones(2, np.uint8))
    with pytest.raises(ValueError, match="Invalid integer data type 'O'"):
        iinfo_of_array(np.ones(2, np.uint8))


def iinfo_of_array(x):
    return np.iinfo(x).max


def gpu_kernel(x, y, idx, v):
    return ((x >> 2) ^ (y & 15), x // y, x % y, np.max(x), np.argmin(y),
            x < y, np.sum(x), np.cumsum(y), v[idx], x.astype(np.float64),
            np.maximum(x, y))


def test_gpu_programs_take_the_new_dtypes():
    """The GPU code generation of unsigned ops and index arrays, run on
    host threads by the GPU emulator."""
    x = np.array([0, 1, 200, 255, 17, 128], np.uint8)
    y = np.array([3, 0, 201, 7, 255, 128], np.uint8)
    idx = np.array([5, 0, 2], np.uint32)
    v = np.arange(6.0)
    want = numpy_of(gpu_kernel, x, y, idx, v)
    with np.errstate(all="ignore"):
        got = sdfg.program(gpu_kernel, device="gpu-emulator")(x, y, idx, v)
    assert_same(got, want)


def zero_d(s, t, k):
    return s * s, s + t, s + 1, s - t, s * k, t // k


def test_0d_arrays_keep_their_type_and_scalars_are_numbers():
    """0-d arrays compute in their types as NumPy's scalars do (uint8 *
    uint8 wraps, uint8 + 1 is int64); a NumPy integer scalar argument is
    compiled in as a Python int (its value, within int64)."""
    s, t = np.array(200, np.uint8), np.array(-3, np.int8)
    got = check(zero_d, s, t, 7)
    assert got[0] == 64
    # k = np.uint8(7) passes as the Python int 7: s * 7 is int64 either
    # way (a NumPy scalar times a Python-valued scalar).
    assert_same(sdfg.program(zero_d)(s, t, np.uint8(7)),
                numpy_of(zero_d, s, t, 7))
    with pytest.raises(OverflowError, match="out of bounds for int64"):
        sdfg.program(zero_d)(s, t, np.uint64(2 ** 64 - 1))


def halves(x, idx):
    return (x >> 1) + x[0], x[idx], np.max(x)


def test_symbolic_sizes():
    """A program compiled once for extents known at run time takes
    unsigned arrays of any length (the ABI names them by the signed type
    of their width)."""
    prog = sdfg.program(halves, dynamic=True)
    for n in (9, 20):
        x = (np.arange(n) * 37 % 256).astype(np.uint8)
        idx = np.array([n - 1, 0, 3], dtype=np.uint64)
        assert_same(prog(x, idx), numpy_of(halves, x, idx))
    # Another dtype of the same width is another program.
    y = x.astype(np.int8)
    assert_same(prog(y, idx), numpy_of(halves, y, idx))
