"""np.fft: discrete Fourier transforms (docs/design/fft.md).

Every transform along one axis is the library op `sdfg.fft` (radix-2 or
Bluestein loops when compiled, lib/Conversion/SDFGToSCF/FFT.cpp) on a
complex container (semantics/complex_values.py: float pairs in NumPy's
layout). The op is unscaled for both signs; NumPy's `norm` scaling is a
multiplication here, so the op stays exactly linear and the autodiff's
rule for it (the transform of the other sign) gives every gradient.

- fft/ifft: the op along `axis`, the input first padded with zeros or
  truncated to `n`; fft2/ifft2/fftn/ifftn: 1-d transforms along each
  axis in turn, in NumPy's order.
- rfft: the first n//2 + 1 of the complex transform of the real input.
  irfft: the real part of the inverse transform of the Hermitian
  spectrum rebuilt from the half (X[n-k] = conj(X[k])); the imaginary
  parts of X[0] and X[n/2] drop out of the real part, as in NumPy.
- fftfreq/rfftfreq: NumPy's formulas (integers times 1/(n d)), n known
  when compiling; fftshift/ifftshift: np.roll by half of each axis.

Result dtypes are those of the NumPy installed (NumPy 1.x computes in
complex128 for every input; 2.x keeps complex64), asked of it when
compiling. Lengths along transformed axes must be known when compiling.
"""

import ast
import math
from typing import TYPE_CHECKING, Dict, List

import numpy as np

from .. import ir
from ..semantics import complex_values as cv
from ..semantics.complex_values import Complex
from ..semantics.values import ConstLeaf, Idx, Op, Value, View, as_idx
from .manipulation import normalized_axis, reversed_view
from .operands import window_view
from .registry import Arguments, numpy_call, numpy_function

if TYPE_CHECKING:
    from ..frontend.translator import Translator


def _result_dtype(name: str, dtype) -> np.dtype:
    """The dtype np.fft.<name> of an array of `dtype` has, in the NumPy
    installed."""
    return getattr(np.fft, name)(np.zeros((2, 2), dtype)).dtype


def _operand(tr: "Translator", v: Value, name: str, node: ast.AST,
             real_only: bool = False) -> Complex:
    """The array argument as a Complex (a real array with `im` None)."""
    if isinstance(v, (list, tuple)):
        v = numpy_call(tr, "array", [v], {}, node)
    if isinstance(v, Complex):
        if real_only:
            raise tr.unsupported(node, f"np.fft.{name} of a complex array",
                                 "it transforms real input (NumPy drops "
                                 "the imaginary part with a warning); "
                                 "pass .real, or use np.fft.fft")
        c = v
    elif cv.is_complex(v) or isinstance(v, (int, float, bool)):
        raise tr.error(f"np.fft.{name} needs an array of dimension at "
                       "least 1, not a scalar", node)
    else:
        e = tr.to_expr(v)
        if e.dtype.kind not in "biuf":
            raise tr.unsupported(node, f"np.fft.{name} of {e.dtype} values")
        c = Complex(e, None, cv.complex_dtype(
            e.dtype if e.dtype.kind == "f" else np.float64))
    if c.ndim == 0:
        raise tr.error(f"np.fft.{name} needs an array of dimension at "
                       "least 1, not a scalar", node)
    return c


def _input_dtype(c: Complex) -> np.dtype:
    """The dtype of the argument (a real one's, for NumPy's result)."""
    return np.dtype(c.re.dtype) if c.im is None else c.dtype


def _extent(tr, c: Complex, axis: int, name: str, node) -> int:
    """The static length of `c` along `axis`."""
    e = as_idx(c.shape[axis])
    if not e.is_const():
        raise tr.unsupported(node, f"np.fft.{name} along an axis whose "
                             "length is known only at run time",
                             "the transformed axes' lengths must be known "
                             "when compiling")
    return e.const


def _points(tr, n, name: str, node) -> int:
    """A number of points `n` (NumPy's ValueError below 1)."""
    if isinstance(n, Idx) and n.is_const():
        n = n.const
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise tr.unsupported(node, f"np.fft.{name} with n not a constant "
                             "integer", "n must be known when compiling")
    if n < 1:
        raise tr.error(f"Invalid number of FFT data points ({n}) "
                       "specified.", node)
    return int(n)


def _container(tr, c: Complex, cdtype, node) -> Complex:
    """`c` as the whole of a complex container of `cdtype`: c's own where
    it is one, else a copy."""
    if c.im is not None:
        whole = cv.whole_container(c)
        if whole is not None and np.dtype(whole.complex) == cdtype:
            return c
    out = cv.new_complex(tr, cv.broadcast(tr, c), cdtype, node, "fft_in")
    tr.store(out.re, tr.to_expr(c.re), cast=True)
    tr.store(out.im, tr.to_expr(c.im) if c.im is not None
             else ConstLeaf(0.0, cv.part_dtype(cdtype)), cast=True)
    return out


def _resize(tr, c: Complex, axis: int, n: int, cdtype, node) -> Complex:
    """`c` zero-padded or truncated to `n` along `axis` (NumPy's `n=`), in
    a whole complex container."""
    c = _container(tr, c, cdtype, node)
    length = as_idx(c.shape[axis]).const
    if n == length:
        return c
    shape = list(c.shape)
    shape[axis] = Idx(n)
    out = cv.new_complex(tr, shape, cdtype, node, "fft_n")
    keep = min(n, length)
    for src, dst in ((c.re, out.re), (c.im, out.im)):
        if n > length:
            tr.store(window_view(dst, axis, keep, n - keep),
                     ConstLeaf(0.0, cv.part_dtype(cdtype)))
        tr.store(window_view(dst, axis, 0, keep),
                 tr.to_expr(window_view(src, axis, 0, keep)))
    return out


def _transform(tr, c: Complex, axis: int, inverse: bool, cdtype,
               node) -> Complex:
    """The unscaled transform of `c` along `axis`: sign -1, or +1 with
    `inverse`; a new complex container."""
    x = _container(tr, c, cdtype, node)
    out = cv.new_complex(tr, list(x.shape), cdtype, node, "fft")
    xc, oc = x.re.container, out.re.container
    tr.em.line(ir.fft(xc.ssa, axis, inverse, oc.ssa, xc.mlir_type))
    return out


def _norm_divisor(tr, norm, inverse: bool, node):
    """What NumPy's `norm` divides a transform of n points by: "n" (the
    inverse for "backward" (None), the forward one for "forward"),
    "sqrt" ("ortho"), or None."""
    if norm is None or norm == "backward":
        return "n" if inverse else None
    if norm == "ortho":
        return "sqrt"
    if norm == "forward":
        return None if inverse else "n"
    raise tr.error(f'Invalid norm value {norm!r}; should be "backward", '
                   '"ortho" or "forward".', node)


def _norm_factor(tr, norm, n, inverse: bool, node):
    """The factor 1/n, 1/sqrt(n) or 1.0 NumPy's pocketfft multiplies by;
    an Expr where n (an Idx) is known only at run time."""
    divisor = _norm_divisor(tr, norm, inverse, node)
    if divisor is None:
        return 1.0
    if isinstance(n, int):
        return 1 / n if divisor == "n" else 1 / math.sqrt(n)
    count = tr.to_expr(Op("cast", [tr.to_expr(n)], [], np.float64))
    if divisor == "sqrt":
        from .ufuncs import elementwise
        count = tr.to_expr(elementwise(tr, "sqrt", [count], node))
    return tr.binop("div", 1.0, count)


def _scale(tr, c: Complex, factor) -> Complex:
    if isinstance(factor, float) and factor == 1.0:
        return c
    if not isinstance(factor, float):
        factor = Op("cast", [factor], [], cv.part_dtype(c.dtype))
    return cv.make(tr, tr.binop("mul", tr.to_expr(c.re), factor),
                   tr.binop("mul", tr.to_expr(c.im), factor))


def _fft_1d(tr, c: Complex, n, axis: int, norm, inverse: bool, cdtype,
            name: str, node) -> Complex:
    """NumPy's fft/ifft of `c` along the (normalized) `axis`."""
    count = as_idx(c.shape[axis])
    if n is None and not count.is_const():
        # A length known at run time (sizes as symbols): the op takes any;
        # the scaling is computed at run time.
        factor = _norm_factor(tr, norm, count, inverse, node)
        y = _transform(tr, c, axis, inverse, cdtype, node)
        return _scale(tr, y, factor)
    length = _extent(tr, c, axis, name, node)
    n = _points(tr, length if n is None else n, name, node)
    factor = _norm_factor(tr, norm, n, inverse, node)
    y = _transform(tr, _resize(tr, c, axis, n, cdtype, node), axis,
                   inverse, cdtype, node)
    return _scale(tr, y, factor)


@numpy_function("fft.fft", "fft.ifft",
                positional=("a", "n", "axis", "norm"))
def np_fft(tr: "Translator", name: str, args: List[Value],
           kwargs: Dict[str, Value], node: ast.AST) -> Value:
    fn = name[len("fft."):]
    arg = Arguments(tr, args, kwargs, node)
    arg.only("a", "n", "axis", "norm")
    c = _operand(tr, arg(0, "a"), fn, node)
    cdtype = _result_dtype(fn, _input_dtype(c))
    axis = normalized_axis(tr, arg(2, "axis", -1), c.ndim, node)
    return _fft_1d(tr, c, arg(1, "n"), axis, arg(3, "norm"),
                   fn == "ifft", cdtype, fn, node)


@numpy_function("fft.fft2", "fft.ifft2", "fft.fftn", "fft.ifftn",
                positional=("a", "s", "axes", "norm"))
def np_fftn(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """1-d transforms along each axis, the last first, as NumPy's
    _raw_fftnd."""
    fn = name[len("fft."):]
    arg = Arguments(tr, args, kwargs, node)
    arg.only("a", "s", "axes", "norm")
    c = _operand(tr, arg(0, "a"), fn, node)
    cdtype = _result_dtype(fn, _input_dtype(c))
    s, axes = arg(1, "s"), arg(2, "axes")
    if axes is None and fn.endswith("2"):
        axes = (-2, -1)
    if s is not None and not isinstance(s, (tuple, list)):
        raise tr.error(f"np.fft.{fn}: s must be a sequence of integers",
                       node)
    if axes is not None and not isinstance(axes, (tuple, list)):
        raise tr.error(f"np.fft.{fn}: axes must be a sequence of integers",
                       node)
    if axes is None:
        axes = tuple(range(-(len(s) if s is not None else c.ndim), 0))
    axes = [normalized_axis(tr, a, c.ndim, node) for a in axes]
    if s is None:
        s = [None] * len(axes)
    elif len(s) != len(axes):
        raise tr.error("Shape and axes have different lengths.", node)
    if not axes:
        return arg(0, "a")  # NumPy returns its argument itself
    inverse = fn.startswith("i")
    for k in reversed(range(len(axes))):
        c = _fft_1d(tr, c, s[k], axes[k], arg(3, "norm"), inverse, cdtype,
                    fn, node)
    return c


@numpy_function("fft.rfft", positional=("a", "n", "axis", "norm"))
def np_rfft(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    arg.only("a", "n", "axis", "norm")
    c = _operand(tr, arg(0, "a"), "rfft", node, real_only=True)
    cdtype = _result_dtype("rfft", _input_dtype(c))
    axis = normalized_axis(tr, arg(2, "axis", -1), c.ndim, node)
    n = _extent(tr, c, axis, "rfft", node) if arg(1, "n") is None \
        else _points(tr, arg(1, "n"), "rfft", node)
    full = _fft_1d(tr, c, n, axis, arg(3, "norm"), False, cdtype, "rfft",
                   node)
    half = n // 2 + 1
    if isinstance(full.re, View):
        return Complex(window_view(full.re, axis, 0, half),
                       window_view(full.im, axis, 0, half), cdtype)
    # Scaled: the half of the scaled parts, in a container of its own.
    full = _container(tr, full, cdtype, node)
    return Complex(window_view(full.re, axis, 0, half),
                   window_view(full.im, axis, 0, half), cdtype)


@numpy_function("fft.irfft", positional=("a", "n", "axis", "norm"))
def np_irfft(tr: "Translator", name: str, args: List[Value],
             kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """The real signal of n points whose spectrum's first n//2 + 1 entries
    are `a` (padded or truncated to that many), the rest conj(a[n-k])."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only("a", "n", "axis", "norm")
    c = _operand(tr, arg(0, "a"), "irfft", node)
    rdtype = _result_dtype("irfft", _input_dtype(c))
    cdtype = cv.complex_dtype(rdtype)
    axis = normalized_axis(tr, arg(2, "axis", -1), c.ndim, node)
    m = _extent(tr, c, axis, "irfft", node)
    n = 2 * (m - 1) if arg(1, "n") is None else \
        _points(tr, arg(1, "n"), "irfft", node)
    if n < 1:
        raise tr.error(f"Invalid number of FFT data points ({n}) "
                       "specified.", node)
    half = n // 2 + 1
    h = _resize(tr, c, axis, half, cdtype, node)
    shape = list(h.shape)
    shape[axis] = Idx(n)
    full = cv.new_complex(tr, shape, cdtype, node, "hermitian")
    tr.store(window_view(full.re, axis, 0, half),
             tr.to_expr(h.re))
    tr.store(window_view(full.im, axis, 0, half),
             tr.to_expr(h.im))
    rest = n - half  # X[half:] = conj(X[rest], ..., X[1])
    if rest:
        tr.store(window_view(full.re, axis, half, rest), tr.to_expr(
            reversed_view(window_view(h.re, axis, 1, rest), axis)))
        tr.store(window_view(full.im, axis, half, rest), tr.unary(
            "neg", tr.to_expr(reversed_view(window_view(h.im, axis, 1, rest),
                                            axis))))
    y = _transform(tr, full, axis, True, cdtype, node)
    factor = _norm_factor(tr, arg(3, "norm"), n, True, node)
    if factor == 1.0:
        return y.re
    return tr.binop("mul", tr.to_expr(y.re), factor)


def _constant_count(tr, n, name, node) -> int:
    if isinstance(n, Idx) and n.is_const():
        n = n.const
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise tr.unsupported(node, f"np.fft.{name} of a length not known "
                             "when compiling", "n must be a constant "
                             "integer (the result's length)")
    if n < 1:
        raise tr.error(f"np.fft.{name}: n must be at least 1, not {n}",
                       node)
    return int(n)


def _spacing(tr, n: int, d, node):
    """NumPy's val = 1.0 / (n * d): a constant where d is one."""
    if isinstance(d, Idx) and d.is_const():
        d = d.const
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        return 1.0 / (n * d)
    if cv.is_complex(d):
        raise tr.unsupported(node, "np.fft frequencies of a complex "
                             "spacing d")
    return tr.binop("div", 1.0, tr.binop("mul", float(n), tr.to_expr(d)))


@numpy_function("fft.fftfreq", "fft.rfftfreq", positional=("n", "d"))
def np_fftfreq(tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """The sample frequencies: integers (0, 1, ..., then the negative
    ones for fftfreq) times 1 / (n d), as NumPy computes them."""
    fn = name[len("fft."):]
    arg = Arguments(tr, args, kwargs, node)
    arg.only("n", "d")
    n = _constant_count(tr, arg(0, "n"), fn, node)
    val = _spacing(tr, n, arg(1, "d", 1.0), node)
    count = n // 2 + 1 if fn == "rfftfreq" else n
    ints = tr.to_expr(numpy_call(tr, "arange", [count], {}, node))
    if fn == "fftfreq":
        from .ufuncs import where
        positive = (n - 1) // 2 + 1
        ints = tr.to_expr(where(tr, tr.binop("lt", ints, positive), ints,
                                tr.binop("sub", ints, n), node))
    return tr.binop("mul", ints, val)


@numpy_function("fft.fftshift", "fft.ifftshift", positional=("x", "axes"))
def np_fftshift(tr: "Translator", name: str, args: List[Value],
                kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """np.roll by half of each axis (rounded down; ifftshift back)."""
    fn = name[len("fft."):]
    arg = Arguments(tr, args, kwargs, node)
    arg.only("x", "axes")
    x = arg(0, "x")
    if isinstance(x, (list, tuple)):
        x = numpy_call(tr, "array", [x], {}, node)
    shape = list(x.shape) if isinstance(x, Complex) else \
        list(tr.to_expr(x).shape)
    axes = arg(1, "axes")
    if axes is None:
        axes = tuple(range(len(shape)))
    elif not isinstance(axes, (tuple, list)):
        axes = (axes,)
    axes = tuple(normalized_axis(tr, a, len(shape), node) for a in axes)
    if not axes:
        return x
    shifts = []
    for a in axes:
        e = as_idx(shape[a])
        if not e.is_const():
            raise tr.unsupported(node, f"np.fft.{fn} along an axis whose "
                                 "length is known only at run time")
        shifts.append(e.const // 2 if fn == "fftshift" else -(e.const // 2))
    return numpy_call(tr, "roll", [x, tuple(shifts), axes], {}, node)
