"""What a compiled program and its gradients accept as arguments, what they
convert and what they refuse, and with which exception
(docs/Reliability.md, "Arguments"): read-only arrays, ints outside int64,
ndarray subclasses, arrays that share memory, other byte orders, dtypes
the compiler has no type for; and the options of sdfg.grad checked when
it is called."""

import functools

import numpy as np
import pytest

import sdfg


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path / "cache"))


def increment(x):
    x += 1.0
    return x


def total(x):
    return np.sum(x)


def scaled_total(x):
    return np.sum(x * x) * 3.0


def add(x, k):
    return x + k


def overwrite_then_read(x, y):
    x[:] = 2.0 * y
    return np.sum(x * y)


def product_sum(x, y):
    return np.sum(x * y)


# --- Read-only arrays ------------------------------------------------------

def test_written_read_only_buffer_raises_numpys_error_and_stays_unchanged():
    data = bytes(64)
    x = np.frombuffer(data)  # read-only: it views an immutable bytes object
    with pytest.raises(ValueError, match="assignment destination is "
                       "read-only.*argument 'x'"):
        sdfg.program(increment)(x)
    assert data == bytes(64)
    np.testing.assert_array_equal(x, np.zeros(8))


def test_written_read_only_memory_map_raises(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.arange(8.0))
    x = np.load(path, mmap_mode="r")
    with pytest.raises(ValueError, match="assignment destination is "
                       "read-only.*argument 'x'"):
        sdfg.program(increment)(x)
    np.testing.assert_array_equal(np.load(path), np.arange(8.0))


def test_read_only_inputs_that_are_only_read_are_accepted(tmp_path):
    prog = sdfg.program(total)
    x = np.arange(16.0)
    x.flags.writeable = False
    assert prog(x) == 120.0
    # Not contiguous: copied for the call, and not written back (the call
    # used to write every copied argument back, and refused this).
    assert prog(x[::2]) == np.sum(x[::2])
    assert prog(x.reshape(4, 4).T[1]) == np.sum(x.reshape(4, 4).T[1])
    path = tmp_path / "x.npy"
    np.save(path, np.arange(6.0))
    mapped = np.load(path, mmap_mode="r")
    assert prog(mapped) == 15.0 and prog(mapped[::-1]) == 15.0


def test_written_read_only_non_contiguous_argument_raises():
    x = np.arange(8.0)
    x.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        sdfg.program(increment)(x[::2])
    np.testing.assert_array_equal(x, np.arange(8.0))


def test_written_non_contiguous_argument_is_still_written_back():
    x = np.zeros(8)
    out = sdfg.program(increment)(x[1::2])
    np.testing.assert_array_equal(x, [0, 1, 0, 1, 0, 1, 0, 1])
    assert out.base is x  # the caller's view, as NumPy returns it


def test_writeable_memory_map_is_written_and_returned(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.zeros(4))
    x = np.load(path, mmap_mode="r+")
    out = sdfg.program(increment)(x)
    assert out is x
    x.flush()
    np.testing.assert_array_equal(np.load(path), np.ones(4))


def test_gradients_accept_read_only_arguments_and_never_write_them():
    x = np.arange(1.0, 7.0)
    x.flags.writeable = False
    # increment writes its argument: the gradient program writes a copy.
    g = sdfg.grad(lambda_free_sum_of_increment, ["x"])
    np.testing.assert_array_equal(g(x)["x"], np.ones(6))
    np.testing.assert_array_equal(g(x[::2])["x"], np.ones(3))
    np.testing.assert_array_equal(x, np.arange(1.0, 7.0))
    value, grads = sdfg.value_and_grad(scaled_total, ["x"])(x[::-1])
    assert value == pytest.approx(3.0 * np.sum(x * x))
    np.testing.assert_allclose(grads["x"], 6.0 * x[::-1])


def lambda_free_sum_of_increment(x):
    x += 1.0
    return np.sum(x)


# --- Ints outside int64 -----------------------------------------------------

@pytest.mark.parametrize("k", [2 ** 63, 2 ** 64 - 1, -2 ** 63 - 1,
                               np.uint64(2 ** 63)])
def test_int_argument_outside_int64_raises_overflow_error(k):
    with pytest.raises(OverflowError, match=r"argument 'k': Python integer "
                       rf"{int(k)} out of bounds for int64"):
        sdfg.program(add)(np.ones(3, np.int64), k)


def test_int_arguments_at_the_bounds_of_int64():
    prog = sdfg.program(add)
    for k in (2 ** 63 - 1, -2 ** 63):
        np.testing.assert_array_equal(prog(np.zeros(2), k), np.zeros(2) + k)


def add_big_literal(x):
    return x + 2 ** 63  # the literal


def test_int_literal_outside_int64_is_a_located_error():
    # It used to wrap: x + 2**63 gave -9.2e18.
    with pytest.raises(sdfg.FrontendError, match=r"test_arguments.py:\d+: "
                       r"an integer constant out of the range of int64: "
                       r"Python integer 9223372036854775808") as info:
        sdfg.program(add_big_literal)(np.ones(3))
    line = add_big_literal.__code__.co_firstlineno + 1
    assert f"test_arguments.py:{line}:" in str(info.value)


# --- ndarray subclasses -----------------------------------------------------

def test_masked_array_is_refused_naming_what_to_pass():
    x = np.ma.MaskedArray(np.arange(4.0), mask=[0, 1, 0, 0])
    with pytest.raises(TypeError, match=r"argument 'x' is a "
                       r"numpy.ma.MaskedArray.*x.filled\(value\).*"
                       r"np.asarray\(x\)"):
        sdfg.program(total)(x)
    with pytest.raises(TypeError, match="MaskedArray"):
        sdfg.grad(scaled_total, ["x"])(x)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_matrix_is_refused_naming_what_to_pass():
    x = np.matrix(np.eye(2))
    with pytest.raises(TypeError, match=r"argument 'x' is a numpy.matrix.*"
                       r"np.asarray\(x\)"):
        sdfg.program(total)(x)


class Tagged(np.ndarray):
    """A subclass that computes as ndarray does (it only carries a tag)."""

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", None)


class Doubling(np.ndarray):
    def __mul__(self, other):
        return np.multiply(np.asarray(self), 2 * np.asarray(other))


def test_subclass_that_computes_as_ndarray_is_accepted():
    x = np.arange(4.0).view(Tagged)
    assert sdfg.program(total)(x) == 6.0
    y = np.zeros(3).view(Tagged)
    out = sdfg.program(increment)(y)
    assert out is y and isinstance(out, Tagged)
    np.testing.assert_array_equal(y, np.ones(3))


def test_subclass_that_redefines_arithmetic_is_refused():
    with pytest.raises(TypeError, match=r"argument 'x' is a .*Doubling, an "
                       r"ndarray subclass that redefines __mul__"):
        sdfg.program(scaled_total)(np.ones(3).view(Doubling))


# --- Arguments that share memory --------------------------------------------

def test_gradients_refuse_aliased_arguments_as_the_program_does():
    b = np.ones(4)
    message = "arguments 'x' and 'y' share memory and the program writes 'x'"
    with pytest.raises(ValueError, match=message):
        sdfg.program(overwrite_then_read)(b, b)
    # It computed as if x and y were separate arrays (8.0, gradient 4).
    with pytest.raises(ValueError, match=message):
        sdfg.value_and_grad(overwrite_then_read, ["y"])(b, b)
    with pytest.raises(ValueError, match=message):
        sdfg.grad(overwrite_then_read, ["y"])(b, b[::-1])
    with pytest.raises(ValueError, match=message):
        sdfg.vjp(overwrite_then_read, ["y"])(b, b, seed=1.0)
    np.testing.assert_array_equal(b, np.ones(4))


def test_gradients_accept_aliased_arguments_that_are_only_read():
    b = np.arange(1.0, 5.0)
    grads = sdfg.grad(product_sum, ["x", "y"])(b, b)
    np.testing.assert_array_equal(grads["x"], b)
    np.testing.assert_array_equal(grads["y"], b)


# --- Byte order and dtypes --------------------------------------------------

def test_big_endian_inputs_are_read_in_native_order():
    x = np.arange(5.0).astype(">f8")
    assert sdfg.program(total)(x) == 10.0
    assert sdfg.program(total)(x[::2]) == 6.0
    value, grads = sdfg.value_and_grad(scaled_total, ["x"])(x)
    assert value == 90.0
    np.testing.assert_array_equal(grads["x"], 6.0 * np.arange(5.0))
    i = np.arange(4).astype(">i4")
    np.testing.assert_array_equal(sdfg.program(add)(i, 1), [1, 2, 3, 4])


def test_big_endian_written_arguments_are_written_back():
    x = np.arange(4.0).astype(">f8")
    out = sdfg.program(increment)(x)
    assert out is x and x.dtype == np.dtype(">f8")
    np.testing.assert_array_equal(x, [1.0, 2.0, 3.0, 4.0])
    y = np.arange(6.0).astype(">f8")
    sdfg.program(increment)(y[::2])
    np.testing.assert_array_equal(y, [1, 1, 3, 3, 5, 5])


def test_float16_is_refused_naming_the_dtype():
    with pytest.raises(TypeError, match="argument 'k' is a NumPy scalar of "
                       "dtype float16, which compiled programs do not take"):
        sdfg.program(add)(np.ones(3), np.float16(1.5))
    with pytest.raises(TypeError, match="argument 'x' is an array of dtype "
                       "float16"):
        sdfg.program(total)(np.ones(3, np.float16))
    with pytest.raises(TypeError, match="float16"):
        sdfg.grad(scaled_total, ["x"])(np.ones(3, np.float16))


def test_other_unsupported_dtypes_are_refused():
    # (complex128 and complex64 are taken: tests/test_complex.py)
    for x in (np.ones(3, np.clongdouble), np.ones(3, np.longdouble)):
        with pytest.raises(TypeError, match=f"dtype {x.dtype}"):
            sdfg.program(total)(x)


def test_longlong_is_int64():
    x = np.arange(4, dtype=np.longlong)
    assert sdfg.program(total)(x) == 6


def negative_zeros(x):
    return np.zeros(-5) + x[0]  # negative


def test_negative_dimensions_are_a_located_error():
    with pytest.raises(sdfg.FrontendError, match=r"test_arguments.py:\d+: "
                       "negative dimensions are not allowed") as info:
        sdfg.program(negative_zeros)(np.ones(2))
    line = negative_zeros.__code__.co_firstlineno + 1
    assert f"test_arguments.py:{line}:" in str(info.value)


# --- Options of sdfg.grad, and what it differentiates ------------------------

@pytest.mark.parametrize("mem", [float("inf"), -1, 0, "x", float("nan"),
                                 True])
def test_invalid_mem_raises_when_grad_is_called(mem):
    with pytest.raises(ValueError, match="mem must be a positive, finite "
                       "number of MiB"):
        sdfg.grad(scaled_total, ["x"], mem=mem)


def test_valid_mem_types():
    for mem in (1, 0.5, np.float64(2.0), np.int64(3)):
        sdfg.grad(scaled_total, ["x"], mem=mem)


@pytest.mark.parametrize("name", ["a b", "x,y", "", "x=1", 3])
def test_invalid_recompute_name_raises_when_grad_is_called(name):
    with pytest.raises(ValueError, match=f"{name!r} is not a name"):
        sdfg.grad(scaled_total, ["x"], recompute=[name])


def test_unknown_recompute_name_is_a_value_error_naming_it():
    g = sdfg.grad(scaled_total, ["x"], recompute=["nope"])
    with pytest.raises(ValueError, match="cannot recompute 'nope'"):
        g(np.ones(3))
    with pytest.raises(sdfg.ToolError, match="cannot recompute 'nope'"):
        g(np.ones(3))


def test_gradients_of_gradients_other_than_grad_are_refused():
    # sdfg.grad(sdfg.grad(f)) works (test_forward_mode.py); the others
    # would differentiate something else than the caller means.
    first = sdfg.grad(scaled_total, ["x"])
    for make in (sdfg.value_and_grad, sdfg.vjp):
        with pytest.raises(NotImplementedError, match="sdfg.grad of a "
                           "gradient is not supported.*sdfg.hvp"):
            make(first, ["x"])
    with pytest.raises(NotImplementedError, match="needs a plain sdfg.grad"):
        sdfg.grad(sdfg.value_and_grad(scaled_total, ["x"]), ["x"])


def test_program_of_a_gradient_is_refused():
    with pytest.raises(TypeError, match="sdfg.program takes a Python "
                       "function, not a gradient"):
        sdfg.program(sdfg.grad(scaled_total, ["x"]))


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return 2.0 * fn(*args)
    return wrapper


@doubled
def doubled_total(x):
    return np.sum(x)


def test_wrapper_is_compiled_not_the_function_it_wraps():
    # inspect.getsource follows __wrapped__: the frontend compiled
    # doubled_total's body and returned 3.0 for 6.0.
    with pytest.raises(sdfg.FrontendError, match=r"\*args"):
        sdfg.program(doubled_total)(np.ones(3))


# --- Module-level arrays: checked and converted as arguments are -----------

BIG_ENDIAN_WEIGHTS = np.arange(4.0).astype(">f8")
BIG_ENDIAN_STATE = np.zeros(3).astype(">f8")
READ_ONLY_STATE = np.zeros(3)
READ_ONLY_STATE.flags.writeable = False


def weighted(x):
    return np.sum(BIG_ENDIAN_WEIGHTS * x)


def update_state(x):
    BIG_ENDIAN_STATE[:] = x + 1.0
    return BIG_ENDIAN_STATE


def update_read_only_state(x):
    READ_ONLY_STATE[:] = x
    return x


def test_global_arrays_follow_the_rules_of_arguments():
    assert sdfg.program(weighted)(np.ones(4)) == 6.0
    out = sdfg.program(update_state)(np.arange(3.0))
    assert out is BIG_ENDIAN_STATE
    np.testing.assert_array_equal(BIG_ENDIAN_STATE, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="assignment destination is "
                       "read-only: the program writes global "
                       "'READ_ONLY_STATE'"):
        sdfg.program(update_read_only_state)(np.ones(3))
