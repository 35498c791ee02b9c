"""NumPy functions and array methods of complex arrays
(docs/design/complex-numbers.md): numpy_call and method_call come here
when an argument is complex (a Complex value, a complex number, or a
complex dtype asked for). Element-wise functions compute on the parts
(semantics/complex_values.py); structural and linear ones (reshape,
concatenate, cumsum, ...) apply the real function to both parts; products
and linear algebra are real block forms of the real ops, so that their
gradients come with them. Everything else is refused by name."""

import numpy as np

from ..semantics import complex_values as cv
from ..semantics.complex_values import Complex
from ..semantics.values import ConstLeaf, Expr, Idx, View, as_idx
from .registry import Arguments, numpy_call, numpy_function


def wants_complex(args, kwargs):
    """Whether a call has a complex argument or asks for a complex
    dtype."""
    def has(v):
        if isinstance(v, (list, tuple)):
            return any(has(x) for x in v)
        return cv.is_complex(v) or _names_complex(v)
    return any(has(a) for a in args) or any(has(v)
                                            for v in kwargs.values())


def _names_complex(v):
    if v is complex or (isinstance(v, type) and issubclass(
            v, np.complexfloating)):
        return True
    if isinstance(v, np.dtype):
        return v.kind == "c"
    # Strings only where they name a complex dtype for sure (order="F"
    # is not np.dtype("F")).
    return isinstance(v, str) and v in _COMPLEX_NAMES


_COMPLEX_NAMES = ("complex", "complex64", "complex128", "cdouble",
                  "csingle", "c8", "c16")


# Functions applied to both parts: the positions and keywords of their
# data arguments (other arguments, an axis or an index array, are passed
# as they are).
_STRUCTURAL = {
    "transpose": (0, "a"), "reshape": (0, "a"), "ravel": (0, "a"),
    "concatenate": (0, "arrays"), "stack": (0, "arrays"),
    "hstack": (0, "tup"), "vstack": (0, "tup"), "flip": (0, "m"),
    "fliplr": (0, "m"), "flipud": (0, "m"), "roll": (0, "a"),
    "take": (0, "a"), "cumsum": (0, "a"), "diff": (0, "a"),
    "tile": (0, "A"), "repeat": (0, "a"), "swapaxes": (0, "a"),
    "expand_dims": (0, "a"), "squeeze": (0, "a"), "moveaxis": (0, "a"),
    "atleast_1d": (0, "a"), "atleast_2d": (0, "a"), "pad": (0, "array"),
    "trace": (0, "a"), "diagonal": (0, "a"), "diag": (0, "v"),
}

_ELEMENTWISE = ("real", "imag", "conj", "conjugate", "abs", "absolute",
                "angle", "exp", "log", "sqrt", "negative", "square",
                "add", "subtract", "multiply", "divide", "true_divide",
                "power", "equal", "not_equal", "isfinite")

_METHODS = {"conj": "conj", "conjugate": "conjugate", "sum": "sum",
            "mean": "mean", "copy": "copy", "reshape": "reshape",
            "ravel": "ravel", "flatten": "copy_ravel",
            "transpose": "transpose", "dot": "dot", "squeeze": "squeeze",
            "swapaxes": "swapaxes", "repeat": "repeat", "take": "take",
            "cumsum": "cumsum", "diagonal": "diagonal", "trace": "trace"}


def call(tr, name, args, kwargs, node):
    """np.<name>(*args, **kwargs) with a complex argument or dtype."""
    if name in _ELEMENTWISE:
        return _elementwise(tr, name, args, kwargs, node)
    if name in ("sum", "mean"):
        return _reduce(tr, name, args, kwargs, node)
    if name in ("dot", "matmul", "vdot", "outer", "inner"):
        return product(tr, name, args, kwargs, node)
    if name in ("linalg.solve", "linalg.inv"):
        return _solve_inv(tr, name, args, kwargs, node)
    if name == "linalg.norm":
        return _norm(tr, args, kwargs, node)
    if name in ("zeros", "ones", "empty", "full", "zeros_like",
                "ones_like", "empty_like", "full_like"):
        return _creation(tr, name, args, kwargs, node)
    if name in ("array", "asarray", "copy"):
        return _array(tr, name, args, kwargs, node)
    if name == "where":
        return _where(tr, args, kwargs, node)
    if name in _STRUCTURAL:
        return _structural(tr, name, args, kwargs, node)
    raise tr.unsupported(node, f"np.{name} of complex arrays",
                         "supported are the element-wise arithmetic, "
                         "real/imag/conj/abs/angle/exp/log/sqrt, sum/mean,"
                         " dot/matmul/vdot/outer/inner, linalg.solve/inv/"
                         "norm, creation with a complex dtype and the "
                         "reshaping functions (docs/UserGuide.md)")


def method(tr, obj, name, args, kwargs, node):
    """obj.<name>(...) of a complex value (or .astype(complex) of a real
    one)."""
    if name == "astype":
        return _astype(tr, obj, args, kwargs, node)
    target = _METHODS.get(name)
    if target is None or not isinstance(obj, Complex):
        raise tr.unsupported(node, f"array method .{name}() of complex "
                             "arrays", "supported are " + ", ".join(
                                 sorted(_METHODS)) + " and astype")
    if name in ("reshape", "transpose") and len(args) > 1:
        args = [tuple(args)]  # z.reshape(2, 3)
    if target == "copy_ravel":
        return call(tr, "copy", [call(tr, "ravel", [obj], {}, node)], {},
                    node)
    return call(tr, target, [obj] + list(args), kwargs, node)


# --------------------------------------------------------------------------

def _part(tr, v, k, node, zeros=True):
    """Part k of a data argument: a real one is its own real part, and
    has zeros (an array where `zeros`) for imaginary part."""
    if isinstance(v, (list, tuple)):
        return type(v)(_part(tr, x, k, node, zeros) for x in v)
    re, im, d = cv.parts(tr, v)
    if k == 0:
        return re
    if d is not None and im is not None:
        return im
    if isinstance(re, (View, Expr)) and zeros:
        return numpy_call(tr, "zeros_like", [re], {}, node)
    return 0.0


def _make(tr, re, im):
    return cv.make(tr, re, im)


def _elementwise(tr, name, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    binary = {"add": "add", "subtract": "sub", "multiply": "mul",
              "divide": "div", "true_divide": "div", "power": "pow",
              "equal": "eq", "not_equal": "ne"}
    if name in binary:
        arg.only()
        return cv.binop(tr, binary[name], args[0], args[1], node)
    arg.only()
    if len(args) != 1:
        raise tr.error(f"np.{name} takes one argument", node)
    z = args[0]
    re, im, d = cv.parts(tr, z)
    if d is None and name in ("real", "conj", "conjugate"):
        return z
    if name == "real":
        return re
    if name == "imag":
        return _part(tr, z, 1, node)
    if name in ("conj", "conjugate"):
        return cv.conj(tr, z)
    if name in ("abs", "absolute"):
        return cv.absolute(tr, z)
    if name == "angle":
        return cv.angle(tr, z)
    if name == "negative":
        return cv.negate(tr, z, node)
    if name == "square":
        return cv.binop(tr, "mul", z, z, node)
    if name == "isfinite":
        fin = numpy_call(tr, "isfinite", [re], {}, node)
        return fin if im is None else tr.logical(
            "and", fin, numpy_call(tr, "isfinite", [im], {}, node))
    return {"exp": cv.exp, "log": cv.log, "sqrt": cv.sqrt}[name](tr, z)


def _reduce(tr, name, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("axis", "keepdims")
    z = arg(0, "a")
    if not isinstance(z, Complex):
        raise tr.unsupported(node, f"np.{name} with a complex dtype= or "
                             "initial value")
    rest = list(args[1:])
    total = [numpy_call(tr, "sum", [_part(tr, z, k, node)] + rest,
                        dict(kwargs), node) for k in (0, 1)]
    s = _make(tr, *total)
    if name == "sum":
        return s
    # NumPy's mean: the complex sum divided by the count, a complex
    # division (Smith's algorithm with a zero imaginary divisor).
    shape = cv.broadcast(tr, z)
    axis = arg(1, "axis")
    if axis is None:
        axes = range(len(shape))
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    count = Idx(1)
    for a in axes:
        a = as_idx(a).const if isinstance(a, Idx) else a
        e = as_idx(shape[a % len(shape)])
        if not e.is_const() or not count.is_const():
            raise tr.unsupported(node, "np.mean of a complex array of a "
                                 "size known only at run time")
        count = Idx(count.const * e.const)
    return cv.divide(tr, (s.re, s.im), (ConstLeaf(float(count.const),
                                                  np.float64),
                                        ConstLeaf(0.0, np.float64)), node)


def product(tr, name, args, kwargs, node):
    """Complex products by four real ones: (ar br - ai bi, ar bi + ai
    br); vdot conjugates its first argument (np.vdot's definition)."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only()
    if len(args) != 2:
        raise tr.error(f"np.{name} takes two arguments", node)
    a, b = args
    if name == "vdot":
        a = cv.conj(tr, a)
    ar, ai, da = cv.parts(tr, a)
    br, bi, db = cv.parts(tr, b)

    def p(x, y):
        return numpy_call(tr, name, [x, y], {}, node)
    re = p(ar, br)
    if da is not None and db is not None:
        re = tr.binop("sub", re, p(ai, bi))
        im = tr.binop("add", p(ar, bi), p(ai, br))
    elif da is not None:
        im = p(ai, br)
    else:
        im = p(ar, bi)
    return _make(tr, re, im)


def _slice(tr, v, axis, start, length, node):
    """v[..., start:start + length, ...] along `axis`, a View."""
    if not isinstance(v, View):
        v = tr.materialize(v, node)
    base = [(o + Idx(start).scale(s), s, d) if d == axis else (o, s, d)
            for o, s, d in v.base]
    shape = list(v.shape)
    shape[axis] = Idx(length)
    return View(v.container, base, shape, v.readonly)


def _solve_inv(tr, name, args, kwargs, node):
    """A x = b with A = Ar + i Ai as the real system [[Ar, -Ai], [Ai,
    Ar]] [xr; xi] = [br; bi]; inv(A) as the first n columns of that
    block matrix's inverse ([Re inv(A); Im inv(A)])."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only()
    a = args[0]
    ar, ai, da = cv.parts(tr, a)
    shape = cv.broadcast(tr, a) if isinstance(a, Complex) else \
        list(tr.to_expr(a).shape)
    if len(shape) != 2 or not all(as_idx(e).is_const() for e in shape):
        raise tr.unsupported(node, f"np.{name} of a stack of complex "
                             "matrices or of a size known only at run time",
                             "pass one square matrix of a fixed size")
    n = as_idx(shape[-1]).const
    if ai is None:
        ai = numpy_call(tr, "zeros_like", [ar], {}, node)
    top = numpy_call(tr, "concatenate", [[ar, tr.negate(ai, node)]],
                     {"axis": 1}, node)
    bottom = numpy_call(tr, "concatenate", [[ai, ar]], {"axis": 1}, node)
    m = numpy_call(tr, "concatenate", [[top, bottom]], {"axis": 0}, node)
    if name == "linalg.inv":
        inv = numpy_call(tr, "linalg.inv", [m], {}, node)
        cols = _slice(tr, inv, 1, 0, n, node)
        return _make(tr, _slice(tr, cols, 0, 0, n, node),
                     _slice(tr, cols, 0, n, n, node))
    if len(args) != 2:
        raise tr.error("np.linalg.solve takes two arguments", node)
    b = args[1]
    rhs = numpy_call(tr, "concatenate", [[_part(tr, b, 0, node),
                                          _part(tr, b, 1, node)]],
                     {"axis": 0}, node)
    x = numpy_call(tr, "linalg.solve", [m, rhs], {}, node)
    return _make(tr, _slice(tr, x, 0, 0, n, node),
                 _slice(tr, x, 0, n, n, node))


def _norm(tr, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("ord", "axis")
    if arg(1, "ord") is not None or arg(2, "axis") is not None:
        raise tr.unsupported(node, "np.linalg.norm of complex arrays with "
                             "ord= or axis=", "the default (2-norm of a "
                             "vector, Frobenius norm of a matrix) is "
                             "supported")
    z = args[0]
    mag2 = tr.binop("add", tr.binop("mul", z.re, z.re),
                    tr.binop("mul", z.im, z.im))
    total = numpy_call(tr, "sum", [mag2], {}, node)
    return numpy_call(tr, "sqrt", [total], {}, node)


def _real_kwargs(tr, kwargs, cdtype):
    out = dict(kwargs)
    if "dtype" in out:
        out["dtype"] = cv.part_dtype(cdtype).type
    return out


def _creation(tr, name, args, kwargs, node):
    like = name.endswith("_like")
    base = name[:-5] if like else name
    arg = Arguments(tr, args, kwargs, node)
    dt_pos = 1 if base != "full" else 2
    dtype = arg(dt_pos, "dtype")
    fill = arg(1, "fill_value") if base == "full" else None
    if len(args) > dt_pos:
        kwargs = dict(kwargs, dtype=args[dt_pos])
        args = list(args[:dt_pos])
    cdtype = cv.as_complex_dtype(dtype) if dtype is not None else None
    src = args[0] if args else kwargs.get("a", kwargs.get("shape"))
    if cdtype is None:
        if like and isinstance(src, Complex) and dtype is None:
            cdtype = src.dtype
        elif base == "full" and cv.is_complex(fill):
            cdtype = np.dtype(np.complex128)
        else:
            # A real array made from a complex one (np.zeros_like(z,
            # dtype=float)) or complex data in a real dtype.
            if like and isinstance(src, Complex) and dtype is not None:
                return numpy_call(tr, name, [src.re] + list(args[1:]),
                                  kwargs, node)
            raise tr.unsupported(node, f"np.{name} of complex values with "
                                 "a real dtype", "NumPy would discard the "
                                 "imaginary part; take .real")
    kw = _real_kwargs(tr, dict(kwargs, dtype=cdtype), cdtype)
    first = args[0] if args else None
    if like and isinstance(first, Complex):
        first = first.re
    rest = list(args[1:])
    if base == "full":
        fre, fim, _ = cv.parts(tr, fill)
        fim = 0.0 if fim is None else fim
        kw.pop("fill_value", None)
        if not args:
            raise tr.error(f"np.{name} needs its first argument", node)
        re = numpy_call(tr, name, [first, fre], kw, node)
        im = numpy_call(tr, name, [first, fim], kw, node)
        return Complex(re, im, cdtype)
    if first is None:
        raise tr.error(f"np.{name} needs its first argument", node)
    re = numpy_call(tr, name, [first] + rest, kw, node)
    im_name = ("zeros_like" if like else "zeros") if base == "ones" \
        else name
    im = numpy_call(tr, im_name, [first] + rest, kw, node)
    return Complex(re, im, cdtype)


def _array(tr, name, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("dtype")
    dtype = arg(1, "dtype")
    cdtype = cv.as_complex_dtype(dtype) if dtype is not None else None
    if dtype is not None and cdtype is None:
        raise tr.unsupported(node, f"np.{name} of complex values with a "
                             "real dtype", "take .real")
    v = args[0]
    if isinstance(v, (list, tuple)):
        re = numpy_call(tr, "array", [_part(tr, v, 0, node, False)], {},
                        node)
        im = numpy_call(tr, "array", [_part(tr, v, 1, node, False)], {},
                        node)
        c = _make(tr, re, im)
    elif isinstance(v, Complex):
        c = v
    else:
        c = Complex(v, _part(tr, v, 1, node), cdtype or np.complex128)
    if cdtype is not None and cdtype != c.dtype:
        c = _astype(tr, c, [cdtype], {}, node)
    if name == "asarray" and isinstance(v, Complex) and cdtype in (
            None, v.dtype):
        return v
    return copy(tr, c, node)


def copy(tr, c, node):
    """A new complex array holding `c` (np.copy, np.array, .astype)."""
    out = cv.new_complex(tr, cv.broadcast(tr, c), c.dtype, node)
    cv.store(tr, out, c, node)
    return out


def _astype(tr, obj, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("dtype")
    dtype = arg(0, "dtype")
    cdtype = cv.as_complex_dtype(dtype)
    if cdtype is None:
        raise tr.unsupported(node, ".astype of a complex array to a real "
                             "dtype", "NumPy discards the imaginary part "
                             "(ComplexWarning); take .real")
    real = cv.part_dtype(cdtype)
    re, im, d = cv.parts(tr, obj)
    if d is None:
        im = _part(tr, obj, 1, node)
    re, im = tr.to_expr(re), tr.to_expr(im)
    re = re if re.dtype == real else tr.unary("cast", re, real)
    im = im if im.dtype == real else tr.unary("cast", im, real)
    return copy(tr, Complex(re, im, cdtype), node)


def _where(tr, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only()
    if len(args) != 3:
        raise tr.unsupported(node, "np.where of complex values with one "
                             "argument")
    cond = args[0]
    if cv.is_complex(cond):
        raise tr.unsupported(node, "np.where with a complex condition")
    from .ufuncs import where
    return _make(tr, *(where(tr, cond, _part(tr, args[1], k, node, False),
                             _part(tr, args[2], k, node, False), node)
                       for k in (0, 1)))


def _structural(tr, name, args, kwargs, node):
    pos, key = _STRUCTURAL[name]
    if name == "pad":
        mode = kwargs.get("mode", args[2] if len(args) > 2 else "constant")
        if mode != "constant" or "constant_values" in kwargs:
            raise tr.unsupported(node, "np.pad of complex arrays other than "
                                 "with zeros")
    for k, a in enumerate(args):
        if k != pos and cv.is_complex(a):
            raise tr.unsupported(node, f"np.{name} with a complex "
                                 "argument other than its array")

    def with_part(k):
        a = list(args)
        kw = dict(kwargs)
        if key in kw:
            kw[key] = _part(tr, kw[key], k, node)
        elif len(a) > pos:
            a[pos] = _part(tr, a[pos], k, node)
        return numpy_call(tr, name, a, kw, node)
    re, im = with_part(0), with_part(1)
    if isinstance(re, (list, tuple)):
        raise tr.unsupported(node, f"np.{name} of complex arrays giving "
                             "several arrays")
    if isinstance(re, View) and isinstance(im, View):
        d = cv.complex_dtype(np.result_type(re.dtype, im.dtype))
        if re.dtype == im.dtype:
            return Complex(re, im, d)
    return _make(tr, re, im)


@numpy_function("real", "imag", "conj", "conjugate", "angle")
def np_real_parts(tr, name, args, kwargs, node):
    """Of a real array (a complex one is dispatched to `call`): real and
    conj are the array, imag zeros, angle 0 or pi."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only()
    if len(args) != 1:
        raise tr.error(f"np.{name} takes one argument", node)
    return _elementwise(tr, name, args, {}, node) if name != "angle" else \
        cv.angle(tr, args[0])
