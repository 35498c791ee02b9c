"""Every unsupported construct raises sdfg.FrontendError naming the file,
the line and the construct."""

import os
import re

import numpy as np
import pytest

import sdfg

HERE = os.path.basename(__file__)
A = np.ones((4, 4))
GLOBAL_ARRAY = np.ones(4, complex)  # global arrays of other dtypes work


def line_of(fn, marker):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, text in enumerate(lines):
        if marker in text:
            return first + k
    raise AssertionError(marker)


def expect(fn, args, construct, marker, reason=None):
    with pytest.raises(sdfg.FrontendError) as info:
        sdfg.program(fn)(*args)
    msg = str(info.value)
    where = f"{HERE}:{line_of(fn, marker)}:"
    assert where in msg, msg
    if construct:
        assert f"unsupported construct '{construct}'" in msg, msg
    if reason:
        assert re.search(reason, msg), msg
    err = info.value
    assert err.lineno == line_of(fn, marker)
    assert err.filename.endswith(HERE)


def k_try(A):
    try:  # here
        A[0, 0] = 1.0
    except ValueError:
        pass


def k_with(A):
    with open("x"):  # here
        pass


def k_lambda(A):
    f = lambda *x: x  # here
    A[0, 0] = 1.0
    return f  # never reached: keeps f used for pyflakes


def k_dictcomp(A):
    x = {i: i for i in range(3)}  # here
    return x  # never reached: keeps x used for pyflakes


def k_dict(A):
    x = {"a": 1, **A}  # here
    return x  # never reached: keeps x used for pyflakes


def k_print(A):
    print(A, file=A)  # here


def k_call_unknown(A):
    A[0, 0] = sorted(A)  # here


def k_for_set(A):
    for k in {0, 1}:  # here
        A[k, 0] = 1.0


def k_for_else(A):
    for i in range(3):  # here
        A[i, 0] = 1.0
    else:
        A[0, 0] = 2.0


def k_while_else(A, n):
    while n > 0:  # here
        n -= 1
    else:
        A[0, 0] = 1.0


def k_early_return(A):
    for i in range(3):
        if A[i, 0] > 0:
            return A  # here
    else:
        A[0, 0] = 1.0
    return A


def k_global_array(A):
    A[0, :] = GLOBAL_ARRAY  # here


def k_nested_def(A):
    @staticmethod  # here
    def inner(x):
        return x
    A[0, 0] = 1.0


def k_linalg(A):
    return np.linalg.eig(A)  # here


def k_mask(A):
    # (x[mask] as an array of its own: test_selections.py)
    return A[:, A[0] > 0.5]  # here


def k_array_bound(A, idx):
    return A[idx:]  # here


def k_del(A):
    B = A + 1.0
    del B  # here


def k_assert(A):
    assert A[0, 0] > 0  # here


def k_fstring(A):
    s = f"{A}"  # here
    return s  # never reached: keeps s used for pyflakes


def k_star_args(*args):  # here
    pass


def k_kwargs_call(A):
    return np.sum(A, where=A > 0)  # here


def k_string_const(A):
    return A + "abc"  # here


def k_range_step_variable(A):
    for i in range(0, 4, int(A[0, 0])):  # here
        A[i, 0] = 1.0


def k_array_truth(A):
    if A > 0:  # here
        A[0, 0] = 1.0


# Bound for pyflakes, then removed: the program reads a name that is not
# defined when it runs.
undefined_name = None
del globals()["undefined_name"]


def k_undefined(A):
    A[0, 0] = undefined_name  # here


def k_shape_mismatch(A):
    B = np.zeros((3, 5))
    return A + B  # here


def k_index_out_of_bounds(A):
    return A[7, 0]  # here


def k_runtime_size(A):
    n = 0
    while n < A.shape[0]:
        n += 1
    B = np.zeros(n)  # here
    return B


def k_shape_index(A):
    return A.shape[2]  # here


def k_bad_dtype(A):
    return np.zeros((2, 2), dtype=A.sum)  # here


CASES = [
    (k_try, (A,), "try", None),
    (k_with, (A,), "with", None),
    (k_lambda, (A,), "lambda with *args, **kwargs or keyword-only parameters",
     None),
    (k_dictcomp, (A,), "dict comprehension", None),
    (k_dict, (A,), "** in a dict display", None),
    (k_print, (A,), "print with file=", "standard output"),
    (k_call_unknown, (A,), "call of sorted", None),
    (k_for_set, (A,), "for loop over set", "range"),
    (k_for_else, (A,), "for-else", None),
    (k_while_else, (A, 3), "while-else", None),
    (k_early_return, (A,), "return in a loop with an else clause",
     "after the loop"),
    (k_global_array, (A,), "global array 'GLOBAL_ARRAY' of dtype complex128",
     None),
    (k_nested_def, (A,), "decorated nested function", None),
    (k_linalg, (A,), "np.linalg.eig",
     "only norm, solve, inv, det, slogdet, cholesky, eigh"),
    (k_mask, (A,), "boolean mask indexing", "np.where"),
    (k_array_bound, (A, np.array([0, 1])), "array used as an integer",
     "a slice bound"),
    (k_del, (A,), "del", None),
    (k_assert, (A,), "assert on values computed at run time", "shapes"),
    (k_fstring, (A,), "f-string", None),
    (k_star_args, (A,), "function signature", r"\*args and \*\*kwargs"),
    (k_kwargs_call, (A,), "keyword argument 'where'", None),
    (k_string_const, (A,), "value of type str", None),
    (k_range_step_variable, (A,), "range step", "constant"),
    (k_array_truth, (A,), None, "truth value of an array is ambiguous"),
    (k_undefined, (A,), None, "name 'undefined_name' is not defined"),
    (k_shape_mismatch, (A,), None, r"could not be broadcast together with "
     r"shapes \(4, 4\) \(3, 5\)"),
    (k_index_out_of_bounds, (A,), None, "index 7 is out of bounds for axis 0 "
     "with size 4"),
    (k_runtime_size, (A,), "array whose size depends on runtime data", None),
    (k_shape_index, (A,), None, "tuple index 2 out of range"),
    (k_bad_dtype, (A,), "dtype argument", "NumPy type"),
]


@pytest.mark.parametrize("fn,args,construct,reason", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_unsupported_construct(fn, args, construct, reason, tmp_path,
                               monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))
    expect(fn, args, construct, "# here", reason)


def test_unsupported_argument_type(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))

    def f(x):
        return x

    with pytest.raises(sdfg.FrontendError, match="argument 'x' has "
                       "unsupported type set"):
        sdfg.program(f)({1, 2})
    # Inside a dict argument (a pytree), named by its path.
    with pytest.raises(sdfg.FrontendError, match="argument 'x.a' has "
                       "unsupported type set"):
        sdfg.program(f)({"a": {1, 2}})
    # A dtype the compiler has no type for: the call's TypeError, naming
    # the argument (tests/test_arguments.py).
    with pytest.raises(TypeError, match="argument 'x' is an array of dtype "
                       "float16, which compiled programs do not take"):
        sdfg.program(f)(np.zeros(3, np.float16))


def test_wrong_argument_count(tmp_path, monkeypatch):
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))

    def f(x, y):
        return x

    # Bound as Python binds a call of f (defaults and keywords too).
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        sdfg.program(f)(np.zeros(3))
    with pytest.raises(TypeError, match="too many positional arguments"):
        sdfg.program(f)(np.zeros(3), 1.0, 2.0)


def tanh_sum(x):  # the function
    return np.sum(np.tanh(x))


def test_compiler_diagnostics_point_at_the_python_line(tmp_path, monkeypatch):
    # sdfg-autodiff rejects an unknown recompute name; its diagnostic was
    # located at "<stdin>:1:1", the generated text nobody sees.
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))
    with pytest.raises(sdfg.ToolError) as info:
        sdfg.grad(tanh_sum, ["x"], recompute=["nope"])(np.ones(3))
    msg = str(info.value)
    where = f"{HERE}:{line_of(tanh_sum, 'the function')}: error: "
    assert msg.startswith(os.path.abspath(__file__)) and where in msg, msg
    assert "(generated sdfg line " in msg and "cannot recompute 'nope'" in msg
    assert "<stdin>" not in msg


def sum_until(x):
    while np.sum(x) < 10.0:
        x[0] += 0.5 * x[1] + 1.0
    return x


def test_while_condition_with_a_reduction(tmp_path, monkeypatch):
    # The reduction's map may not sit in the condition region: it is
    # computed before the loop and at the end of each iteration (was an IR
    # verifier error).
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))
    x = np.array([0.0, 2.0, 1.0])
    want = sum_until(x.copy())
    np.testing.assert_array_equal(sdfg.program(sum_until)(x.copy()), want)
    g = sdfg.grad(sum_until, ["x"])(x)
    # Four iterations each add 0.5 x[1] to x[0]: d sum / d x[1] = 1 + 2.
    np.testing.assert_allclose(g["x"], [1.0, 3.0, 1.0], rtol=1e-14)


def float_and(x):
    return (x > 0.5) & x  # float operand


def test_bitwise_operators_reject_floats(tmp_path, monkeypatch):
    # NumPy raises TypeError for & on floats; so does the translation.
    monkeypatch.setenv("SDFG_CACHE_DIR", str(tmp_path))
    expect(float_and, (np.ones(3),), None, "float operand",
           r"'bitwise_and' not supported for float operands")
