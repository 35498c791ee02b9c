"""NumPy functions composed from the frontend's element-wise ops,
reductions and products, and Python's `math` module on scalars.

Element-wise: hypot, logaddexp, logaddexp2, reciprocal, rint, round,
around, trunc, fix, deg2rad, rad2deg, radians, degrees, heaviside, sinc,
float_power. Reductions: average, nansum, nanmean, nanprod,
count_nonzero, trapz (trapezoid), cumprod. Products: tensordot, inner,
vdot, kron, cross, linalg.matrix_power, linalg.multi_dot.

Formulas are chosen so that their gradients, which the autodiff takes
through the pieces, are finite where NumPy's function is differentiable:
logaddexp shifts by the larger argument inside the exponentials and the
shift cancels in the derivative; sinc divides by a denominator that is
never zero.
"""

import ast
import math

import numpy as np

from . import numpy_calls as nc
from .astutil import fix_locations
from .shape_functions import _items
from .values import ConstLeaf, Expr, Idx, Op, View, ViewLeaf, as_idx, is_float

FUNCTIONS = {"hypot", "logaddexp", "logaddexp2", "reciprocal", "rint",
             "round", "around", "round_", "trunc", "fix", "deg2rad",
             "rad2deg", "radians", "degrees", "heaviside", "sinc",
             "float_power", "average", "nansum", "nanmean", "nanprod",
             "nanmax", "nanmin",
             "count_nonzero", "trapz", "trapezoid", "cumprod", "tensordot",
             "inner", "vdot", "kron", "cross", "linalg.matrix_power",
             "linalg.multi_dot", "logical_and", "logical_or", "logical_xor",
             "logical_not", "isclose", "allclose", "bitwise_and",
             "bitwise_or", "bitwise_xor", "bitwise_not", "invert",
             "left_shift", "right_shift", "cov", "corrcoef", "convolve",
             "correlate", "linalg.pinv", "linalg.cond",
             "linalg.matrix_rank", "linalg.lstsq", "vander", "polyval",
             "polyfit", "gradient"}

# Array methods with the signature of the function of the same name.
METHODS = {"round", "cumprod"}


def call(tr, name, args, kwargs, node):
    arg = nc.Arguments(tr, args, kwargs, node)
    only = arg.only

    def ew(op, *xs):
        return nc.elementwise(tr, op, list(xs), node)

    if name in ("isclose", "allclose"):
        # NumPy's test: |a - b| <= atol + rtol |b| where both are finite,
        # equality otherwise (infinities of one sign are close), NaNs only
        # with equal_nan.
        only("a", "b", "rtol", "atol", "equal_nan")
        a, b = tr.to_expr(arg(0, "a")), tr.to_expr(arg(1, "b"))
        rtol, atol = arg(2, "rtol", 1e-05), arg(3, "atol", 1e-08)
        equal_nan = arg(4, "equal_nan", False)
        if not isinstance(equal_nan, bool):
            raise tr.unsupported(node, f"np.{name} with equal_nan computed "
                                 "at run time")
        finite = tr.logical("and", Op("isfinite", [a], a.shape, np.bool_),
                            Op("isfinite", [b], b.shape, np.bool_))
        within = tr.binop("le", ew("abs", tr.binop("sub", a, b)),
                          tr.binop("add", atol,
                                   tr.binop("mul", rtol, ew("abs", b))))
        close = nc.where(tr, finite, within, tr.binop("eq", a, b), node)
        if equal_nan:
            close = tr.logical("or", close, tr.logical(
                "and", Op("isnan", [a], a.shape, np.bool_),
                Op("isnan", [b], b.shape, np.bool_)))
        if name == "isclose":
            return close
        return nc.numpy_call(tr, "all", [close], {}, node)
    if name.startswith("bitwise_") or name in ("invert", "left_shift",
                                               "right_shift"):
        only()
        unary = name in ("invert", "bitwise_not")
        want = 1 if unary else 2
        if len(args) != want:
            raise tr.error(f"np.{name} takes {want} argument"
                           f"{'s' if want > 1 else ''}", node)
        if unary:
            return tr.invert(args[0], node)
        if name.endswith("_shift"):
            return tr.shift("shl" if name == "left_shift" else "shr",
                            args[0], args[1], node)
        return tr.bitwise(name[len("bitwise_"):], args[0], args[1], node)
    if name.startswith("logical_"):
        # Truth values of any operand (nonzero), combined; bool results.
        only()
        want = 1 if name == "logical_not" else 2
        if len(args) != want:
            raise tr.error(f"np.{name} takes {want} argument"
                           f"{'s' if want > 1 else ''}", node)
        if name == "logical_not":
            return tr.unary("not", tr.to_bool(args[0]))
        r = tr.logical(name[len("logical_"):], args[0], args[1])
        return bool(r) if isinstance(r, (bool, int)) else r
    if name == "hypot":
        only()
        a, b = _floats(tr, args, 2, name, node)
        return ew("sqrt", tr.binop("add", tr.binop("mul", a, a),
                                   tr.binop("mul", b, b)))
    if name in ("logaddexp", "logaddexp2"):
        only()
        a, b = _floats(tr, args, 2, name, node)
        if name == "logaddexp2":
            ln2 = math.log(2.0)
            r = logaddexp(tr, tr.binop("mul", a, ln2), tr.binop("mul", b, ln2),
                          node)
            return tr.binop("div", r, ln2)
        return logaddexp(tr, a, b, node)
    if name == "reciprocal":
        only()
        (x,) = _floats(tr, args, 1, name, node)
        return tr.binop("div", 1.0, x)
    if name in ("rint", "trunc", "fix"):
        only()
        e = tr.to_expr(_one(tr, args, name, node))
        if not is_float(e.dtype):
            # NumPy 1.x: the integers, as float64.
            return Op("cast", [e], e.shape, np.dtype(np.float64))
        return Op("rint" if name == "rint" else "trunc", [e], e.shape,
                  e.dtype)
    if name in ("round", "around", "round_"):
        only("decimals")
        return round_(tr, arg(0, "a"), arg(1, "decimals", 0), node)
    if name in ("deg2rad", "radians", "rad2deg", "degrees"):
        only()
        (x,) = _floats(tr, args, 1, name, node)
        factor = math.pi / 180 if name in ("deg2rad", "radians") else \
            180 / math.pi
        return tr.binop("mul", x, factor)
    if name == "heaviside":
        only()
        x, h0 = _floats(tr, args, 2, name, node)
        inner = nc.where(tr, tr.binop("gt", x, 0), 1.0, h0, node)
        step = nc.where(tr, tr.binop("lt", x, 0), 0.0, inner, node)
        return nc.where(tr, Op("isnan", [x], x.shape, np.bool_), x, step,
                        node)
    if name == "sinc":
        only()
        (x,) = _floats(tr, args, 1, name, node)
        zero = tr.binop("eq", x, 0)
        safe = tr.binop("mul", nc.where(tr, zero, 1.0, x, node), math.pi)
        return nc.where(tr, zero, 1.0, tr.binop("div", ew("sin", safe),
                                                 safe), node)
    if name == "float_power":
        only()
        a, b = (tr.to_expr(x) for x in args)
        return tr.binop("pow", Op("cast", [a], a.shape, np.float64),
                        Op("cast", [b], b.shape, np.float64))
    if name in ("convolve", "correlate"):
        only("mode")
        return convolve(tr, name, arg(0, "a"), arg(1, "v"),
                        arg(2, "mode", "full" if name == "convolve"
                            else "valid"), node)
    if name in ("cov", "corrcoef"):
        if name == "cov":
            only("y", "rowvar", "bias", "ddof")
            bias, ddof = arg(3, "bias", False), arg(4, "ddof")
        else:
            only("y", "rowvar")
            bias, ddof = False, None
        return covariance(tr, name, arg(0, "m"), arg(1, "y"),
                          arg(2, "rowvar", True), bias, ddof, node)
    if name == "average":
        only("axis", "weights", "keepdims")
        return average(tr, arg(0, "a"), arg(1, "axis"), arg(2, "weights"),
                       bool(kwargs.get("keepdims", False)), node)
    if name in ("nansum", "nanmean", "nanprod", "nanmax", "nanmin"):
        only("axis", "keepdims")
        return nan_reduce(tr, name, arg(0, "a"), arg(1, "axis"),
                          bool(kwargs.get("keepdims", False)), node)
    if name == "count_nonzero":
        only("axis", "keepdims")
        e = tr.to_expr(arg(0, "a"))
        flags = Op("cast", [tr.binop("ne", e, 0) if e.dtype != np.bool_
                            else e], e.shape, np.int64)
        return nc.reduce(tr, "sum", flags, arg(1, "axis"),
                         bool(kwargs.get("keepdims", False)), node)
    if name in ("trapz", "trapezoid"):
        only("x", "dx", "axis")
        return trapezoid(tr, arg(0, "y"), arg(1, "x"), arg(2, "dx", 1.0),
                         arg(3, "axis", -1), node)
    if name == "cumprod":
        only("axis")
        return nc._cumsum(tr, arg(0, "a"), arg(1, "axis"), node, "mul")
    if name == "tensordot":
        only("axes")
        return tensordot(tr, args[0], args[1], arg(2, "axes", 2), node)
    if name == "inner":
        only()
        a, b = (tr.to_expr(x) for x in args)
        if not a.shape or not b.shape:
            return tr.binop("mul", a, b)
        return tensordot(tr, a, b, ([len(a.shape) - 1], [len(b.shape) - 1]),
                         node)
    if name == "vdot":
        only()
        a, b = (tr.to_expr(x) for x in args)
        if [as_idx(x) for x in a.shape] != [as_idx(x) for x in b.shape]:
            a = tr.to_expr(nc.reshape(tr, a, (-1,), node))
            b = tr.to_expr(nc.reshape(tr, b, (-1,), node))
        return nc._in_dtype(tr, nc.reduce(tr, "sum", tr.binop("mul", a, b),
                                          None, False, node),
                            np.result_type(a.dtype, b.dtype))
    if name == "kron":
        only()
        return kron(tr, args[0], args[1], node)
    if name == "cross":
        only("axis")
        return cross(tr, args[0], args[1], arg(2, "axis", -1), node)
    if name == "gradient":
        only("axis", "edge_order")
        return numerical_gradient(tr, args[0], args[1:],
                                  kwargs.get("axis"),
                                  kwargs.get("edge_order", 1), node)
    if name == "linalg.lstsq":
        only("rcond")
        return lstsq(tr, arg(0, "a"), arg(1, "b"), arg(2, "rcond", "warn"),
                     node)
    if name == "vander":
        only("N", "increasing")
        return vander(tr, arg(0, "x"), arg(1, "N"),
                      arg(2, "increasing", False), node)
    if name == "polyval":
        only()
        return polyval(tr, arg(0, "p"), arg(1, "x"), node)
    if name == "polyfit":
        only("rcond", "full", "w", "cov")
        for pos, flag in ((4, "full"), (6, "cov")):
            if arg(pos, flag, False) is not False:
                raise tr.unsupported(node, f"np.polyfit with {flag}=True")
        if arg(5, "w") is not None:
            raise tr.unsupported(node, "np.polyfit with weights")
        return polyfit(tr, arg(0, "x"), arg(1, "y"), arg(2, "deg"),
                       arg(3, "rcond"), node)
    if name in ("linalg.pinv", "linalg.cond", "linalg.matrix_rank"):
        return from_singular_values(tr, name[len("linalg."):], args, kwargs,
                                    node)
    if name == "linalg.matrix_power":
        only()
        return matrix_power(tr, args[0], args[1], node)
    if name == "linalg.multi_dot":
        only()
        if len(args) != 1 or not isinstance(args[0], (tuple, list)) or \
                len(args[0]) < 2:
            raise tr.error("np.linalg.multi_dot takes a list of at least "
                           "two arrays", node)
        out = args[0][0]
        for m in args[0][1:]:
            out = nc.matmul(tr, out, m, node)
        return out
    raise tr.unsupported(node, f"np.{name}")


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

def _one(tr, args, name, node):
    if len(args) != 1:
        raise tr.error(f"np.{name} takes one argument", node)
    return args[0]


def _floats(tr, args, count, name, node):
    """The arguments as float expressions (ints convert, as NumPy's
    floating-point ufuncs do)."""
    if len(args) != count:
        raise tr.error(f"np.{name} takes {count} argument"
                       f"{'s' if count > 1 else ''}", node)
    out = []
    for a in args:
        e = tr.to_expr(a)
        if not is_float(e.dtype):
            e = Op("cast", [e], e.shape, np.float64)
        out.append(e)
    return out


def logaddexp(tr, a, b, node):
    """log(exp(a) + exp(b)) = m + log(exp(a - m) + exp(b - m)) with m the
    larger argument (0 where it is infinite, so that infinities come out
    as NumPy's). The derivative in a is exp(a - m) / sum whichever
    argument the maximum's gradient credits: its terms cancel."""
    m = nc.elementwise(tr, "maximum", [a, b], node)
    shift = nc.where(tr, Op("isinf", [m], m.shape, np.bool_), 0.0, m, node)
    total = tr.binop("add",
                     nc.elementwise(tr, "exp", [tr.binop("sub", a, shift)],
                                    node),
                     nc.elementwise(tr, "exp", [tr.binop("sub", b, shift)],
                                    node))
    return tr.binop("add", shift, nc.elementwise(tr, "log", [total], node))


def round_(tr, a, decimals, node):
    """NumPy's round half to even, scaled by 10**decimals as NumPy does."""
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return float(np.round(a, decimals))
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise tr.unsupported(node, "decimals that are not a constant "
                             "integer")
    e = tr.to_expr(a)
    if not is_float(e.dtype):
        if decimals >= 0:
            return e
        raise tr.unsupported(node, "rounding integers to negative decimals")
    if decimals == 0:
        return Op("rint", [e], e.shape, e.dtype)
    scale = 10.0 ** abs(decimals)
    up = "mul" if decimals > 0 else "div"
    down = "div" if decimals > 0 else "mul"
    scaled = tr.to_expr(tr.binop(up, e, scale))
    return tr.binop(down, Op("rint", [scaled], scaled.shape, e.dtype), scale)


def average(tr, a, axis, weights, keepdims, node):
    if weights is None:
        return nc.reduce(tr, "mean", a, axis, keepdims, node)
    e, w = tr.to_expr(a), tr.to_expr(weights)
    if len(w.shape) == 1 and len(e.shape) > 1:
        if not isinstance(axis, int):
            raise tr.error("Axis must be specified when shapes of a and "
                           "weights differ.", node)
        ax = axis % len(e.shape)
        v = nc._as_view(tr, w, node)
        w = tr.subscript(v, _spread_along(node, len(e.shape), ax), node)
    w = tr.to_expr(w)
    if not is_float(w.dtype):
        w = Op("cast", [w], w.shape, np.float64)
    num = nc.reduce(tr, "sum", tr.binop("mul", e, w), axis, keepdims, node)
    spread = tr.transient_view(e.shape, w.dtype, node, "weights")
    tr.store(spread, w)
    den = nc.reduce(tr, "sum", spread, axis, keepdims, node)
    return tr.binop("div", num, den)


def convolve(tr, name, a, v, mode, node):
    """np.convolve and np.correlate of two vectors: the full result is a
    loop over the shorter vector's elements, each adding the longer one,
    scaled, into its window (direct convolution, as NumPy's; the autodiff
    takes the loop like a time loop's); 'same' and 'valid' are windows of
    it, where NumPy puts them. correlate(a, v) is convolve(a, v[::-1])."""
    from . import shape_functions as sf
    if mode not in ("full", "same", "valid"):
        raise tr.error(f"np.{name}: mode must be one of 'valid', 'same' or "
                       f"'full', not {mode!r}", node)
    ea, ev = tr.to_expr(a), tr.to_expr(v)
    for e, what in ((ea, "a"), (ev, "v")):
        if len(e.shape) != 1:
            raise tr.unsupported(node, f"np.{name} of an array of "
                                 f"{len(e.shape)} dimensions",
                                 "both operands must be vectors")
        if not as_idx(e.shape[0]).is_const():
            raise tr.unsupported(node, f"np.{name} of a loop-dependent "
                                 "length")
        if as_idx(e.shape[0]).const == 0:
            raise tr.error(f"{what} cannot be empty", node)
    va, vv = nc._as_view(tr, ea, node), nc._as_view(tr, ev, node)
    if name == "correlate":
        vv = sf._reversed(vv, 0)
    n, m = as_idx(va.shape[0]).const, as_idx(vv.shape[0]).const
    # Both are arrays to NumPy: the common type, whatever element scales
    # the longer vector here (bool stays bool: or of ands, as NumPy's).
    dtype = np.result_type(va.dtype, vv.dtype)
    long, short = (va, vv) if n >= m else (vv, va)
    big, small = max(n, m), min(n, m)
    out = tr.transient_view([Idx(big + small - 1)], dtype, node, name)
    tr.store(out, ConstLeaf(0, dtype))
    with tr.control_section():
        j = tr.em.fresh("i")
        tr.iter_bounds[j] = (0, small - 1)
        with tr.em.block(f"sdfg.loop {j} = 0 to {small} step 1"):
            with tr.em.block("sdfg.state"):
                at = Idx.of(j)
                # Element j along the vectors' one view dimension (the
                # container's other dimensions stay where the view fixed
                # them: a row A[1] of a matrix).
                window = View(out.container,
                              [(o + at.scale(st), st, d) if d == 0
                               else (o, st, d) for o, st, d in out.base],
                              [Idx(big)])
                scale = View(short.container,
                             [(o + at.scale(st), st, None) if d == 0
                              else (o, st, d) for o, st, d in short.base],
                             [])
                terms = [ViewLeaf(v) for v in (long, scale)]
                terms = [t if t.dtype == dtype else
                         Op("cast", [t], t.shape, dtype) for t in terms]
                if dtype == np.bool_:
                    new = tr.logical("or", ViewLeaf(window),
                                     tr.logical("and", *terms))
                else:
                    new = tr.binop("add", ViewLeaf(window),
                                   tr.binop("mul", *terms))
                tr.store(window, new, cast=True)
    if mode == "full":
        return out
    if mode == "same":
        # NumPy's correlate swaps a shorter `a` with `v` and reverses the
        # result: its window is the mirror of convolve's.
        start = small // 2 if name == "correlate" and n < m else \
            (small - 1) // 2
        length = big
    else:
        start, length = small - 1, big - small + 1
    return nc._window(out, 0, start, length)


def from_singular_values(tr, name, args, kwargs, node):
    """np.linalg.pinv (V diag(1/s) U^T over the singular values above
    rcond times the largest, NumPy's cutoff), cond (the 2-norm condition
    number s[0] / s[-1], or its inverse for p=-2) and matrix_rank (the
    singular values above S.max() * max(M, N) * eps, or tol)."""
    arg = nc.Arguments(tr, args, kwargs, node)
    a = tr.to_expr(arg(0, "a" if name == "pinv" else "x" if name == "cond"
                       else "A"))
    if len(a.shape) != 2:
        raise tr.unsupported(node, f"np.linalg.{name} of a "
                             f"{len(a.shape)}-d array",
                             "only one matrix (no stacks)")
    if name == "cond":
        arg.only("p")
        p = arg(1, "p")
        if p not in (None, 2, -2):
            raise tr.unsupported(node, f"np.linalg.cond with p={p!r}",
                                 "p None, 2 or -2 (of the singular values)")
        s = nc.singular_values(tr, "cond", a, node)
        first = nc._window(s.view, 0, 0, 1)
        last = nc._window(s.view, 0, as_idx(s.shape[0]).const - 1, 1)
        num, den = (first, last) if p != -2 else (last, first)
        return nc.reduce(tr, "sum", tr.binop("div", ViewLeaf(num),
                                             ViewLeaf(den)), None, False,
                         node)
    if name == "matrix_rank":
        arg.only("tol", "hermitian")
        if arg(2, "hermitian", False) is not False:
            raise tr.unsupported(node, "np.linalg.matrix_rank with "
                                 "hermitian=True")
        s = nc.singular_values(tr, "matrix_rank", a, node)
        tol = arg(1, "tol")
        if tol is None:
            m, n = (as_idx(e).const for e in a.shape)
            eps = float(np.finfo(s.dtype).eps)
            tol = tr.binop("mul", nc.reduce(tr, "max", s, None, False, node),
                           max(m, n) * eps)
        return nc.numpy_call(tr, "count_nonzero", [tr.binop("gt", s, tol)],
                             {}, node)
    arg.only("rcond", "hermitian")
    if arg(2, "hermitian", False) is not False:
        raise tr.unsupported(node, "np.linalg.pinv with hermitian=True")
    rcond = arg(1, "rcond", 1e-15)
    u, s, vh = nc.numpy_call(tr, "linalg.svd", [a],
                             {"full_matrices": False}, node)
    _, inv = _reciprocal_above(tr, s, rcond, node)
    vt = nc._as_view(tr, tr.to_expr(vh), node).transpose([1, 0])
    inv_row = tr.subscript(nc._as_view(tr, tr.to_expr(inv), node),
                           _items(node, ["n", "s"]), node)
    scaled = tr.binop("mul", ViewLeaf(vt), inv_row)
    return nc.matmul(tr, scaled, nc._as_view(tr, tr.to_expr(u), node)
                     .transpose([1, 0]), node)


def numerical_gradient(tr, f, spacing, axis, edge_order, node):
    """np.gradient with uniform spacings (one for all axes or one per
    axis): NumPy's second-order central differences inside and first- or
    second-order one-sided ones at the edges, in NumPy's operation order;
    a list of arrays for several axes, as NumPy's."""
    from . import shape_functions as sf
    e = tr.to_expr(f)
    ndim = len(e.shape)
    if axis is None:
        axes = list(range(ndim))
    else:
        axes = [sf._axis(tr, a, ndim, node) for a in (
            axis if isinstance(axis, (tuple, list)) else (axis,))]
    if edge_order not in (1, 2):
        raise tr.error("'edge_order' greater than 2 not supported", node)
    if len(spacing) == 0:
        steps = [1.0] * len(axes)
    elif len(spacing) == 1:
        steps = list(spacing) * len(axes)
    elif len(spacing) == len(axes):
        steps = list(spacing)
    else:
        raise tr.error("invalid number of arguments", node)
    for h in steps:
        if isinstance(h, (View, Expr)) and len(tr.to_expr(h).shape) > 0:
            raise tr.unsupported(node, "np.gradient with coordinate arrays",
                                 "uniform spacings (numbers) only")
    if not is_float(e.dtype):
        e = Op("cast", [e], e.shape, np.float64)
    v = nc._as_view(tr, e, node)
    outs = []
    for ax, h in zip(axes, steps):
        n = as_idx(v.shape[ax])
        if not n.is_const():
            raise tr.unsupported(node, "np.gradient along a loop-dependent "
                                 "extent")
        n = n.const
        if n < edge_order + 1:
            raise tr.error("Shape of array too small to calculate a "
                           "numerical gradient, at least (edge_order + 1) "
                           "elements are required.", node)
        out = tr.transient_view(list(v.shape), e.dtype, node, "gradient")

        def part(view, start, length):
            return ViewLeaf(nc._window(view, ax, start, length))

        tr.store(nc._window(out, ax, 1, n - 2), tr.binop(
            "div", tr.binop("sub", part(v, 2, n - 2), part(v, 0, n - 2)),
            tr.binop("mul", 2.0, h)))
        if edge_order == 1:
            first = tr.binop("div", tr.binop("sub", part(v, 1, 1),
                                             part(v, 0, 1)), h)
            last = tr.binop("div", tr.binop("sub", part(v, n - 1, 1),
                                            part(v, n - 2, 1)), h)
        else:
            def combo(ks, offsets):
                total = None
                for k, o in zip(ks, offsets):
                    term = tr.binop("mul", tr.binop("div", k, h),
                                    part(v, o, 1))
                    total = term if total is None else tr.binop(
                        "add", total, term)
                return total
            first = combo((-1.5, 2.0, -0.5), (0, 1, 2))
            last = combo((0.5, -2.0, 1.5), (n - 3, n - 2, n - 1))
        tr.store(nc._window(out, ax, 0, 1), first, cast=True)
        tr.store(nc._window(out, ax, n - 1, 1), last, cast=True)
        outs.append(out)
    return outs[0] if len(outs) == 1 else outs


def _reciprocal_above(tr, s, rcond, node):
    """(kept, inv): the singular values `s` above rcond times the largest
    (NumPy's cutoff for pinv and lstsq), and 1/s where kept, 0 elsewhere.
    The divisor is 1 where not kept, so that no gradient flows through a
    division by a (near) zero the result does not use."""
    largest = nc.reduce(tr, "max", s, None, True, node)
    kept = tr.binop("gt", s, tr.binop("mul", rcond, largest))
    one = ConstLeaf(1.0, s.dtype)
    inv = nc.where(tr, kept, tr.binop("div", one, nc.where(
        tr, kept, s, one, node)), ConstLeaf(0.0, s.dtype), node)
    return kept, inv


def lstsq(tr, a, b, rcond, node):
    """np.linalg.lstsq(a, b, rcond): the minimum-norm least-squares solution
    from the singular values above rcond times the largest (NumPy's
    default 'warn' or -1: machine precision; None: eps * max(M, N)), as
    V diag(1/s) U^T b; the rank and the singular values. The residuals'
    shape depends on the rank (empty unless A has full column rank and
    more rows than columns): using them is a located error."""
    from .values import Unavailable
    ea = tr.to_expr(a)
    m, n = nc._static_matrix(tr, "lstsq", ea, node)
    eb = tr.to_expr(b)
    if len(eb.shape) not in (1, 2) or not as_idx(eb.shape[0]).is_const()             or as_idx(eb.shape[0]).const != m:
        raise tr.error("np.linalg.lstsq: b must have as many rows as a "
                       f"({m})", node)
    eps = float(np.finfo(ea.dtype if is_float(ea.dtype)
                         else np.float64).eps)
    if rcond is None:
        rcond = eps * max(m, n)
    elif isinstance(rcond, str) or (isinstance(rcond, (int, float)) and
                                    rcond < 0):
        rcond = eps
    u, s, vh = nc.numpy_call(tr, "linalg.svd", [ea],
                             {"full_matrices": False}, node)
    kept, inv = _reciprocal_above(tr, s, rcond, node)
    ut = nc._as_view(tr, tr.to_expr(u), node).transpose([1, 0])
    utb = tr.to_expr(nc.matmul(tr, ut, eb, node))
    if len(utb.shape) == 2:
        inv = tr.subscript(nc._as_view(tr, tr.to_expr(inv), node),
                           _items(node, ["s", "n"]), node)
    scaled = tr.binop("mul", utb, inv)
    v = nc._as_view(tr, tr.to_expr(vh), node).transpose([1, 0])
    x = nc.matmul(tr, v, scaled, node)
    rank = tr.to_expr(nc.numpy_call(tr, "count_nonzero", [kept], {}, node))
    rank = Op("cast", [rank], rank.shape, np.int32)  # LAPACK's, as NumPy's
    residuals = Unavailable(tr.unsupported(
        node, "the residuals of np.linalg.lstsq",
        "their shape depends on the rank; compute "
        "np.sum((b - a @ x) ** 2, axis=0)"))
    return (x, residuals, rank, s)


def vander(tr, x, n, increasing, node):
    """np.vander: the columns x^(N-1), ..., x, 1 (reversed with
    increasing), each the previous one times x, as NumPy's products."""
    from . import shape_functions as sf
    e = tr.to_expr(x)
    if len(e.shape) != 1:
        raise tr.error("x must be a one-dimensional array or sequence.",
                       node)
    if n is None:
        n = as_idx(e.shape[0]).const
    n = sf._int(tr, n, "N", node)
    if not isinstance(increasing, bool):
        raise tr.unsupported(node, "np.vander with increasing computed at "
                             "run time")
    powers = []
    for k in range(n):
        powers.append(ConstLeaf(1, e.dtype) if k == 0 else
                      e if k == 1 else tr.binop("mul", powers[-1], e))
    if not increasing:
        powers.reverse()
    if not powers:
        raise tr.unsupported(node, "np.vander with N=0")
    dtype = np.promote_types(e.dtype, np.int_)  # NumPy's vander
    out = tr.transient_view([e.shape[0], Idx(n)], dtype, node, "vander")
    for k, col in enumerate(powers):
        tr.store(tr.subscript(out, sf._items(node, ["s", k]), node),
                 tr.to_expr(col), cast=True)
    return out


def polyval(tr, p, x, node):
    """np.polyval: Horner's rule over the coefficients (highest power
    first), a vector of static length."""
    from . import shape_functions as sf
    ep = tr.to_expr(p)
    if len(ep.shape) != 1 or not as_idx(ep.shape[0]).is_const():
        raise tr.unsupported(node, "np.polyval with coefficients that are "
                             "not a vector of static length")
    vp = nc._as_view(tr, ep, node)
    # NumPy's loop, from zeros of x's shape and type: y = y * x + p[k].
    ex = tr.to_expr(x)
    y = Op("cast", [tr.binop("mul", ex, 0)], ex.shape,
           ex.dtype if ex.dtype != np.bool_ else np.int64)
    for k in range(as_idx(ep.shape[0]).const):
        c = tr.subscript(vp, sf._items(node, [k]), node)
        y = tr.binop("add", tr.binop("mul", y, x), ViewLeaf(c))
    return y


def polyfit(tr, x, y, deg, rcond, node):
    """np.polyfit(x, y, deg): NumPy's least squares on the Vandermonde
    matrix with its columns scaled to unit norm (rcond len(x) * eps by
    default), the coefficients highest power first."""
    from . import shape_functions as sf
    deg = sf._int(tr, deg, "deg", node)
    if deg < 0:
        raise tr.error("expected deg >= 0", node)
    ex = tr.to_expr(x)
    if len(ex.shape) != 1:
        raise tr.error("expected 1D vector for x", node)
    if not is_float(ex.dtype):
        ex = Op("cast", [ex], ex.shape, np.float64)
    m = as_idx(ex.shape[0]).const
    if rcond is None:
        rcond = m * float(np.finfo(ex.dtype).eps)
    lhs = vander(tr, ex, deg + 1, False, node)
    scale = nc.numpy_call(tr, "sqrt", [nc.reduce(
        tr, "sum", tr.binop("mul", ViewLeaf(lhs), ViewLeaf(lhs)), 0, False,
        node)], {}, node)
    scaled = tr.binop("div", ViewLeaf(lhs), scale)
    c = lstsq(tr, scaled, y, rcond, node)[0]
    ec = tr.to_expr(c)
    if len(ec.shape) == 2:
        scale = tr.subscript(nc._as_view(tr, tr.to_expr(scale), node),
                             _items(node, ["s", "n"]), node)
    return tr.binop("div", ec, scale)


def covariance(tr, name, m, y, rowvar, bias, ddof, node):
    """np.cov and np.corrcoef: the variables are rows (columns with
    rowvar=False), observations the other axis; the centred data times its
    transpose over N - ddof (ddof 1, 0 with bias). corrcoef divides by the
    outer product of the standard deviations and clips to [-1, 1], as
    NumPy."""
    from . import shape_functions as sf
    for flag, what in ((rowvar, "rowvar"), (bias, "bias")):
        if not isinstance(flag, (bool, int)) or isinstance(flag, Idx):
            raise tr.unsupported(node, f"np.{name} with {what} computed at "
                                 "run time")
    if ddof is not None:
        ddof = sf._int(tr, ddof, "ddof", node)
    rows = []
    for part in (m, y) if y is not None else (m,):
        e = tr.to_expr(part)
        if len(e.shape) > 2:
            raise tr.error(f"{'m' if part is m else 'y'} has more than 2 "
                           "dimensions", node)
        v = sf.atleast(tr, e, 2, node)
        v = nc._as_view(tr, tr.to_expr(v), node)
        if not rowvar and len(e.shape) == 2:
            v = v.transpose([1, 0])
        rows.append(v)
    X = rows[0] if len(rows) == 1 else sf.stack_along(tr, "vstack", rows,
                                                      node)
    X = tr.to_expr(X)
    if X.dtype != np.float64:
        # NumPy computes in float64 whatever the input (float32 too).
        X = Op("cast", [X], X.shape, np.float64)
    n = as_idx(X.shape[1])
    if not n.is_const():
        raise tr.unsupported(node, f"np.{name} of a loop-dependent number "
                             "of observations")
    if ddof is None:
        ddof = 0 if bias else 1
    centred = tr.binop("sub", X, nc.reduce(tr, "mean", X, 1, True, node))
    cv = nc._as_view(tr, centred, node)
    c = tr.binop("div", nc.matmul(tr, cv, cv.transpose([1, 0]), node),
                 float(max(n.const - ddof, 0)))
    if name == "corrcoef":
        cv = nc._as_view(tr, c, node)
        d = nc.numpy_call(tr, "sqrt", [nc.numpy_call(tr, "diagonal", [cv],
                                                     {}, node)], {}, node)
        dv = nc._as_view(tr, tr.to_expr(d), node)
        col = tr.subscript(dv, sf._items(node, ["s", "n"]), node)
        row = tr.subscript(dv, sf._items(node, ["n", "s"]), node)
        c = tr.binop("div", tr.binop("div", cv, col), row)
        c = nc.numpy_call(tr, "clip", [c, -1.0, 1.0], {}, node)
    one = all(len(tr.to_expr(p).shape) < 2 for p in (m, y) if p is not None)
    if one and y is None:
        # A single variable: NumPy's 0-d result.
        return tr.subscript(nc._as_view(tr, tr.to_expr(c), node),
                            sf._items(node, [0, 0]), node)
    return c


def _spread_along(node, rank, keep):
    """Subscript items viewing a vector along axis `keep` of `rank`."""
    from .shape_functions import _items
    return _items(node, ["s" if d == keep else "n" for d in range(rank)])


def nan_reduce(tr, name, a, axis, keepdims, node):
    e = tr.to_expr(a)
    plain = {"nansum": "sum", "nanmean": "mean", "nanprod": "prod",
             "nanmax": "max", "nanmin": "min"}[name]
    if not is_float(e.dtype):
        return nc.reduce(tr, plain, e, axis, keepdims, node)
    nan = Op("isnan", [e], e.shape, np.bool_)
    if name in ("nanmax", "nanmin"):
        # The extremum of the numbers; NaN where a slice holds only NaNs
        # (NumPy warns and returns NaN there).
        skip = float("-inf") if name == "nanmax" else float("inf")
        kept = nc.where(tr, nan, ConstLeaf(skip, e.dtype), e, node)
        ext = nc.reduce(tr, plain, kept, axis, keepdims, node)
        numbers = nc.reduce(tr, "max", Op("cast", [Op("not", [nan],
                                                      nan.shape, np.bool_)],
                                          e.shape, np.int64), axis,
                            keepdims, node)
        return nc.where(tr, tr.binop("eq", numbers, 0), float("nan"), ext,
                        node)
    identity = 1.0 if name == "nanprod" else 0.0
    kept = nc.where(tr, nan, ConstLeaf(identity, e.dtype), e, node)
    total = nc.reduce(tr, "prod" if name == "nanprod" else "sum", kept,
                      axis, keepdims, node)
    if name != "nanmean":
        return total
    count = nc.reduce(tr, "sum", Op("cast", [Op("not", [nan], nan.shape,
                                                 np.bool_)],
                                    e.shape, np.float64), axis, keepdims,
                      node)
    return tr.binop("div", total, count)


def trapezoid(tr, y, x, dx, axis, node):
    from .shape_functions import _axis, diff
    e = tr.to_expr(y)
    ax = _axis(tr, axis, len(e.shape), node)
    v = nc._as_view(tr, e, node)
    n = as_idx(v.shape[ax]) - 1
    mid = tr.binop("add", nc._window(v, ax, 1, n),
                   nc._window(v, ax, 0, n))
    if x is None:
        d = dx
    else:
        xe = tr.to_expr(x)
        d = diff(tr, xe, 1, -1 if len(xe.shape) == 1 else ax, node)
        if len(xe.shape) == 1 and len(e.shape) > 1:
            d = tr.subscript(nc._as_view(tr, tr.to_expr(d), node),
                             _spread_along(node, len(e.shape), ax), node)
    return tr.binop("mul", nc.reduce(tr, "sum", tr.binop("mul", mid, d), ax,
                                     False, node), 0.5)


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def tensordot(tr, a, b, axes, node):
    """np.tensordot as the einsum it is (BLAS where that is a matrix
    product)."""
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    ra, rb = len(ea.shape), len(eb.shape)
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(ra, rb):
            raise tr.error("shape-mismatch for sum", node)
        ax_a, ax_b = list(range(ra - axes, ra)), list(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        ax_a, ax_b = ([x] if isinstance(x, int) else list(x) for x in axes)
        if len(ax_a) != len(ax_b) or not all(
                isinstance(x, int) for x in ax_a + ax_b):
            raise tr.error("shape-mismatch for sum", node)
        ax_a = [x % ra for x in ax_a]
        ax_b = [x % rb for x in ax_b]
    else:
        raise tr.unsupported(node, "np.tensordot axes other than an integer "
                             "or a pair of axis lists")
    if ra + rb > len(_LETTERS):
        raise tr.unsupported(node, "np.tensordot of arrays with more than "
                             f"{len(_LETTERS)} dimensions in all")
    for i, j in zip(ax_a, ax_b):
        if as_idx(ea.shape[i]) != as_idx(eb.shape[j]):
            raise tr.error("shape-mismatch for sum", node)
    sa = list(_LETTERS[:ra])
    sb = list(_LETTERS[ra:ra + rb])
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    out = [c for k, c in enumerate(sa) if k not in ax_a] + \
        [c for k, c in enumerate(sb) if k not in ax_b]
    if not out and ra == 1 and rb == 1:
        return nc.matmul(tr, ea, eb, node)
    spec = f"{''.join(sa)},{''.join(sb)}->{''.join(out)}"
    return nc._einsum(tr, [spec, ea, eb], node)


def kron(tr, a, b, node):
    """np.kron of arrays of equal dimension: out[i p + k, j q + l] =
    a[i, j] b[k, l], the interleaved outer product merged."""
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    ra, rb = len(ea.shape), len(eb.shape)
    if ra != rb or ra == 0 or 2 * ra > len(_LETTERS):
        raise tr.unsupported(node, "np.kron of arrays of different "
                             "dimensions")
    sa, sb = _LETTERS[:ra], _LETTERS[ra:2 * ra]
    out = "".join(x + y for x, y in zip(sa, sb))
    prod = nc._einsum(tr, [f"{sa},{sb}->{out}", ea, eb], node)
    shape_a = nc._static_shape(tr, ea, node, "np.kron")
    shape_b = nc._static_shape(tr, eb, node, "np.kron")
    merged = nc.reshape(tr, prod, tuple(x * y for x, y in zip(shape_a,
                                                              shape_b)),
                        node)
    tr.reshaped.discard(merged.container)
    return merged


def cross(tr, a, b, axis, node):
    """np.cross of 3-vectors along `axis` (stacks broadcast)."""
    from .shape_functions import _axis
    ea, eb = tr.to_expr(a), tr.to_expr(b)
    va, vb = nc._as_view(tr, ea, node), nc._as_view(tr, eb, node)
    xa, xb = (_axis(tr, axis, v.ndim, node) for v in (va, vb))
    if as_idx(va.shape[xa]) != as_idx(3) or as_idx(vb.shape[xb]) != \
            as_idx(3):
        raise tr.unsupported(node, "np.cross of vectors that do not have "
                             "three components")
    va, vb = va.transpose(_last(va.ndim, xa)), vb.transpose(_last(vb.ndim,
                                                                  xb))

    def comp(v, k):
        return tr.subscript(v, _component(node, k), node)

    parts = []
    for i, j, k in ((1, 2, 0), (2, 0, 1), (0, 1, 2)):
        parts.append(tr.binop("sub", tr.binop("mul", comp(va, i),
                                              comp(vb, j)),
                              tr.binop("mul", comp(va, j), comp(vb, i))))
    rank = len(tr.to_expr(parts[0]).shape) + 1
    out = nc._join(tr, "stack", parts, -1, node)
    return out if axis % rank == rank - 1 else out.transpose(
        _move_last(rank, axis % rank))


def _last(rank, axis):
    return [d for d in range(rank) if d != axis] + [axis]


def _move_last(rank, axis):
    order = list(range(rank - 1))
    order.insert(axis, rank - 1)
    return order


def _component(node, k):
    items = [ast.Constant(Ellipsis), ast.Constant(k)]
    return [fix_locations(ast.copy_location(i, node))
            for i in items]


def matrix_power(tr, a, n, node):
    """A constant power by repeated squaring (GEMMs); negative powers of
    the inverse."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise tr.unsupported(node, "np.linalg.matrix_power with an exponent "
                             "that is not a constant integer")
    e = tr.to_expr(a)
    shape = nc._static_shape(tr, e, node, "np.linalg.matrix_power")
    if len(shape) != 2 or shape[0] != shape[1]:
        raise tr.unsupported(node, "np.linalg.matrix_power of anything but "
                             "one square matrix")
    if n == 0:
        return nc._more(tr, "eye", [shape[0]], {"dtype": e.dtype}, node)
    if n < 0:
        e = tr.to_expr(nc._more(tr, "linalg.inv", [e], {}, node))
        n = -n
    result, base = None, e
    while True:
        if n & 1:
            result = base if result is None else nc.matmul(tr, result, base,
                                                           node)
        n >>= 1
        if not n:
            return result
        base = nc.matmul(tr, base, base, node)


# ----------------------------------------------------------------------------
# Python's math module
# ----------------------------------------------------------------------------

class _MathModule:
    """Marker for the math module in expressions."""


MATH = _MathModule()


class MathFunction:
    def __init__(self, name):
        self.name = name


# math function -> the NumPy function computing it on a float.
_MATH = {"sqrt": "sqrt", "exp": "exp", "log2": "log2", "log10": "log10",
         "log1p": "log1p", "expm1": "expm1", "sin": "sin", "cos": "cos",
         "tan": "tan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
         "asin": "arcsin", "acos": "arccos", "atan": "arctan",
         "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh",
         "atan2": "arctan2", "fabs": "abs", "pow": "power",
         "hypot": "hypot", "degrees": "degrees", "radians": "radians",
         "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
         "exp2": "exp2", "cbrt": "cbrt", "log": "log",
         "copysign": "copysign",
         # These return Python ints.
         "floor": "floor", "ceil": "ceil", "trunc": "trunc"}


def math_attribute(tr, attr, node):
    if attr in ("pi", "e", "tau", "inf", "nan"):
        return getattr(math, attr)
    if attr in _MATH:
        return MathFunction(attr)
    raise tr.unsupported(node, f"math.{attr}", "of the math module only "
                         "the constants and " + ", ".join(sorted(_MATH)) +
                         " are supported")


def math_call(tr, fn, args, kwargs, node):
    """math.f(x) of scalars: folded when the arguments are constants,
    else the NumPy function on a float, an int64 for floor, ceil and
    trunc (Python's math returns ints there)."""
    name = fn.name
    if kwargs:
        raise tr.unsupported(node, f"keyword arguments of math.{name}")
    if all(isinstance(a, (int, float)) and not isinstance(a, bool)
           for a in args):
        try:
            return getattr(math, name)(*args)
        except (ValueError, OverflowError, TypeError) as e:
            raise tr.error(f"math.{name}{tuple(args)}: {e}", node)
    exprs = [tr.to_expr(a) for a in args]
    if any(len(e.shape) for e in exprs):
        raise tr.error(f"math.{name} takes scalars, not arrays: use "
                       f"np.{_MATH[name]}", node)
    if name == "log" and len(exprs) == 2:
        x, base = _floats(tr, exprs, 2, "log", node)
        return tr.binop("div", nc.elementwise(tr, "log", [x], node),
                        nc.elementwise(tr, "log", [base], node))
    arity = 2 if name in ("atan2", "pow", "hypot", "copysign") else 1
    if len(exprs) != arity:
        raise tr.error(f"math.{name} takes {arity} argument"
                       f"{'s' if arity > 1 else ''}", node)
    if name.startswith("is"):
        return nc.numpy_call(tr, _MATH[name], exprs, {}, node)
    floats = _floats(tr, exprs, arity, name, node)
    result = nc.numpy_call(tr, _MATH[name], floats, {}, node)
    if name in ("floor", "ceil", "trunc"):
        e = tr.to_expr(result)
        return Op("cast", [e], e.shape, np.int64)
    return result
