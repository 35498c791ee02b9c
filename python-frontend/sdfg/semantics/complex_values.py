"""Complex numbers as pairs of reals (docs/design/complex-numbers.md).

A complex array is a float container (float64 for complex128, float32
for complex64) with a trailing axis of 2, NumPy's interleaved layout; a
`Complex` value holds its real and imaginary parts as real values (part
views of such a container, or element-wise Exprs), so that every
operation on it is composed of the real ops the compiler already has,
their gradients included. Arithmetic follows NumPy's loops
(numpy/core/src/umath/loops.c.src), so that results are NumPy's bits
where the formulas are the same.
"""

import numpy as np

from .values import ConstLeaf, Idx, View, ViewLeaf, as_idx


COMPLEX_TYPES = (np.complex128, np.complex64)


class Complex:
    """A complex value: `re` and `im` are real Views or Exprs of one
    shape, or `im` is None for an exact zero imaginary part; `dtype` is
    complex128 or complex64."""

    def __init__(self, re, im, dtype):
        self.re = re
        self.im = im
        self.dtype = np.dtype(dtype)

    @property
    def shape(self):
        return list(self.re.shape)

    @property
    def ndim(self):
        return len(self.re.shape)

    def __repr__(self):
        return f"Complex({self.re!r}, {self.im!r}, {self.dtype})"


def is_complex(v):
    """A complex value of the program or a Python/NumPy complex number."""
    return isinstance(v, (Complex, complex, np.complexfloating))


def complex_dtype(real):
    """The complex dtype whose parts are of real dtype `real`."""
    return np.dtype(np.complex64 if np.dtype(real) == np.float32
                    else np.complex128)


def part_dtype(cdtype):
    return np.dtype(np.float32 if np.dtype(cdtype) == np.complex64
                    else np.float64)


def as_complex_dtype(v):
    """The complex dtype a compile-time dtype value names (complex,
    np.complex128, "complex64", ...), else None."""
    try:
        d = np.dtype(v)
    except TypeError:
        return None
    return d if d.kind == "c" and d.type in COMPLEX_TYPES else None


def part_view(view, k):
    """Part k (0: real, 1: imaginary) of a view of a complex container
    whose last view axis is the pair axis (View's base convention: the
    container's last dimension fixed at k)."""
    return View(view.container, view.base[:-1] + [(Idx(k), 1, None)],
                view.shape[:-1], view.readonly)


def container_parts(container):
    """The Complex of a whole complex container."""
    v = container.view()
    return Complex(part_view(v, 0), part_view(v, 1), container.complex)


def whole_container(c):
    """The complex container `c` is all of, in order, else None."""
    re, im = c.re, c.im
    if not (isinstance(re, View) and isinstance(im, View)):
        return None
    cont = re.container
    if im.container is not cont or not hasattr(cont, "complex"):
        return None
    want = container_parts(cont)
    if re.base == want.re.base and im.base == want.im.base and all(
            as_idx(a) == as_idx(b) for a, b in zip(re.shape, want.re.shape)):
        return cont
    return None


def new_complex(tr, shape, cdtype, node, hint="cplx"):
    """A new complex container of logical `shape` (Idx extents): its
    Complex of part views."""
    v = tr.transient_view(list(shape) + [Idx(2)], part_dtype(cdtype), node,
                          hint)
    v.container.complex = np.dtype(cdtype)
    c = Complex(part_view(v, 0), part_view(v, 1), cdtype)
    c.fresh = True
    return c


def reads_container(tr, expr, container):
    from .values import expr_leaves
    for leaf in expr_leaves(tr.to_expr(expr)):
        if isinstance(leaf, ViewLeaf) and leaf.view.container is container:
            return True
        reads = getattr(leaf, "reads", None)
        if reads is not None and reads(container):
            return True
    return False


def store(tr, dest, value, node):
    """Stores `value` (complex or real) into Complex `dest` of part
    views. A value reading dest's container is materialized first:
    storing the real part first would change what the imaginary part
    reads."""
    if not isinstance(dest.re, View) or not isinstance(dest.im, View):
        raise tr.unsupported(node, "assignment into a computed complex "
                             "value")
    re, im, vd = parts(tr, value)
    if vd is None:
        im = ConstLeaf(0.0, np.float64)
    cont = dest.re.container
    if reads_container(tr, re, cont) or reads_container(tr, im, cont):
        m = materialize(tr, Complex(re, im, complex_dtype(
            tr.to_expr(re).dtype)), node)
        re, im = m.re, m.im
    tr.store(dest.re, tr.to_expr(re), cast=True)
    tr.store(dest.im, tr.to_expr(im), cast=True)


def materialize(tr, c, node, hint="cplx"):
    """`c` in a complex container of its own (unless it is one's
    parts already)."""
    if isinstance(c.re, View) and isinstance(c.im, View) and \
            c.re.container is c.im.container and \
            hasattr(c.re.container, "complex"):
        return c
    shape = broadcast(tr, c)
    out = new_complex(tr, shape, c.dtype, node, hint)
    tr.store(out.re, tr.to_expr(c.re), cast=True)
    tr.store(out.im, tr.to_expr(c.im) if c.im is not None
             else ConstLeaf(0.0, np.float64), cast=True)
    return out


def broadcast(tr, c):
    """The shape of Complex `c`: its parts' broadcast one."""
    if c.im is None:
        return list(c.re.shape)
    return tr.broadcast_shapes(list(c.re.shape), list(c.im.shape))


def parts(tr, v):
    """(re, im, complex dtype) of a value: im is None and the dtype None
    for a real one (its value as it is)."""
    if isinstance(v, Complex):
        return v.re, v.im, v.dtype
    if isinstance(v, (complex, np.complexfloating)):
        d = np.dtype(np.complex128) if isinstance(v, complex) else v.dtype
        # A Python complex is weak, as a Python float is.
        return (ConstLeaf(float(v.real), np.float64),
                ConstLeaf(float(v.imag), np.float64), d)
    return v, None, None


def refuse_real_use(tr, what, node=None):
    """The error of a complex value used where only reals are taken."""
    return tr.unsupported(node or tr.current_node,
                          f"complex value where {what}",
                          "supported are complex arithmetic (+ - * / **"
                          " with integer constants, == !=), .real/.imag/"
                          ".conj(), np.abs/angle/exp/log/sqrt, sums, "
                          "products, np.linalg.solve/inv/norm and "
                          "reshaping functions (docs/UserGuide.md)")


# --------------------------------------------------------------------------
# Arithmetic on parts, as NumPy's loops compute it
# --------------------------------------------------------------------------

def _zero():
    return ConstLeaf(0.0, np.float64)


def _both(tr, re, im):
    """(re, im) as Exprs of one float dtype: an integer or bool part (an
    integer array with a complex one) is cast to the promoted float."""
    re, im = tr.to_expr(re), tr.to_expr(im)
    dt = np.result_type(re.dtype if re.dtype.kind == "f" else np.float64,
                        im.dtype if im.dtype.kind == "f" else np.float64)
    if isinstance(re, ConstLeaf) and not isinstance(im, ConstLeaf):
        dt = im.dtype if im.dtype.kind == "f" else dt
    elif isinstance(im, ConstLeaf) and not isinstance(re, ConstLeaf):
        dt = re.dtype if re.dtype.kind == "f" else dt
    return _cast(re, dt), _cast(im, dt), dt


def _cast(e, dt):
    from .values import Op
    if e.dtype == dt:
        return e
    if isinstance(e, ConstLeaf):
        return ConstLeaf(float(e.value), dt)
    return Op("cast", [e], e.shape, dt)


def make(tr, re, im):
    """A Complex of computed parts, of the dtype they promote to."""
    re, im, dt = _both(tr, re, im)
    return Complex(re, im, complex_dtype(dt))


def binop(tr, op, a, b, node):
    """`a op b` where an operand is complex."""
    if op in _PYTHON and all(
            isinstance(x, (complex, float, int)) and not isinstance(x, Idx)
            for x in (a, b)):
        # Python numbers fold with Python's semantics (`-2j * np.pi`).
        return _PYTHON[op](a, b)
    ar, ai, _ = parts(tr, a)
    br, bi, _ = parts(tr, b)
    if op == "pow":
        return power(tr, a, b, node)
    if op in ("eq", "ne"):
        cmp_re = tr.binop(op, ar, br)
        cmp_im = tr.binop(op, _zero() if ai is None else ai,
                          _zero() if bi is None else bi)
        return tr.logical("and" if op == "eq" else "or", cmp_re, cmp_im)
    if op in ("lt", "le", "gt", "ge"):
        raise tr.unsupported(node, "ordering comparison of complex values",
                             "complex numbers are not ordered (NumPy "
                             "orders them lexicographically; compare "
                             ".real and .imag)")
    if op not in ("add", "sub", "mul", "div"):
        raise tr.unsupported(node, f"operator '{op}' on complex values",
                             "supported are + - * / ** == !=")
    # A real operand is NumPy's cast of it to complex: imaginary part +0.
    ai = _zero() if ai is None else ai
    bi = _zero() if bi is None else bi
    if op in ("add", "sub"):
        return make(tr, tr.binop(op, ar, br), tr.binop(op, ai, bi))
    if op == "mul":
        return multiply(tr, (ar, ai), (br, bi))
    return divide(tr, (ar, ai), (br, bi), node)


_PYTHON = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
           "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
           "pow": lambda a, b: a ** b, "eq": lambda a, b: a == b,
           "ne": lambda a, b: a != b}


def multiply(tr, a, b):
    """CDOUBLE_multiply: (ar*br - ai*bi, ar*bi + ai*br)."""
    (ar, ai), (br, bi) = a, b
    re = tr.binop("sub", tr.binop("mul", ar, br), tr.binop("mul", ai, bi))
    im = tr.binop("add", tr.binop("mul", ar, bi), tr.binop("mul", ai, br))
    return make(tr, re, im)


def divide(tr, a, b, node):
    """CDOUBLE_divide (Smith's algorithm), each branch selected with
    where(); the unselected branches divide by a safe 1.0 so that the
    gradient of where does not meet 0 * inf."""
    from ..numpy.ufuncs import where
    (ar, ai), (br, bi) = a, b
    abs_r, abs_i = tr.unary("abs", tr.to_expr(br)), \
        tr.unary("abs", tr.to_expr(bi))
    first = tr.binop("ge", abs_r, abs_i)
    zero = tr.logical("and", tr.binop("eq", abs_r, 0.0),
                      tr.binop("eq", abs_i, 0.0))
    smith_a = tr.logical("and", first, tr.unary("not", zero))
    second = tr.unary("not", first)

    def safe(cond, x):
        return where(tr, cond, x, 1.0, node)

    rat_a = tr.binop("div", bi, safe(smith_a, br))
    scl_a = tr.binop("div", 1.0, safe(smith_a, tr.binop(
        "add", br, tr.binop("mul", bi, rat_a))))
    re_a = tr.binop("mul", tr.binop("add", ar, tr.binop("mul", ai, rat_a)),
                    scl_a)
    im_a = tr.binop("mul", tr.binop("sub", ai, tr.binop("mul", ar, rat_a)),
                    scl_a)
    rat_b = tr.binop("div", br, safe(second, bi))
    scl_b = tr.binop("div", 1.0, safe(second, tr.binop(
        "add", bi, tr.binop("mul", br, rat_b))))
    re_b = tr.binop("mul", tr.binop("add", tr.binop("mul", ar, rat_b), ai),
                    scl_b)
    im_b = tr.binop("mul", tr.binop("sub", tr.binop("mul", ai, rat_b), ar),
                    scl_b)
    den0 = safe(zero, abs_r)
    re_0, im_0 = tr.binop("div", ar, den0), tr.binop("div", ai, den0)
    re = where(tr, first, where(tr, zero, re_0, re_a, node), re_b, node)
    im = where(tr, first, where(tr, zero, im_0, im_a, node), im_b, node)
    return make(tr, re, im)


def negate(tr, v, node):
    re, im, _ = parts(tr, v)
    if isinstance(v, (complex, np.complexfloating)):
        return -v
    return make(tr, tr.unary("neg", tr.to_expr(re)),
                tr.unary("neg", tr.to_expr(_zero() if im is None else im)))


def conj(tr, v):
    re, im, d = parts(tr, v)
    if d is None:
        return v
    return make(tr, re, tr.unary("neg", tr.to_expr(im)))


def power(tr, a, b, node):
    """z ** n for an integer constant n, by NumPy's binary method
    (npy_cpow): n = 2 is z*z; a negative n is 1 / z**|n|."""
    if isinstance(b, Idx) and b.is_const():
        b = b.const
    if isinstance(b, float) and b == int(b):
        b = int(b)
    if isinstance(a, Complex) and isinstance(b, int) and \
            not isinstance(b, bool) and -100 < b < 100:
        ar, ai, _ = parts(tr, a)
        if b == 0:
            # 1 + 0j everywhere, as NumPy's (even at inf or nan).
            from .. import numpy as numpy_functions
            shape_of = tr.to_expr(ar)
            return make(tr, numpy_functions.numpy_call(
                tr, "ones_like", [shape_of], {}, node),
                numpy_functions.numpy_call(tr, "zeros_like", [shape_of], {},
                                           node))
        z = (ar, ai)
        n, mask = abs(b), 1
        acc, p = None, z
        while True:
            if n & mask:
                acc = p if acc is None else _pair(multiply(tr, acc, p))
            mask <<= 1
            if n < mask:
                break
            p = _pair(multiply(tr, p, p))
        r = make(tr, *acc)
        if b < 0:
            return divide(tr, (ConstLeaf(1.0, np.float64), _zero()),
                          (r.re, r.im), node)
        return r
    raise tr.unsupported(node, "power of complex values other than z ** n "
                         "for an integer constant n",
                         "write the product, or np.exp(w * np.log(z))")


def _pair(c):
    return c.re, c.im


def absolute(tr, v):
    """|z| = sqrt(re^2 + im^2) (NumPy's hypot: equal to within an
    ulp)."""
    re, im, d = parts(tr, v)
    if d is None:
        return tr.unary("abs", tr.to_expr(re))
    re, im, _ = _both(tr, re, im)
    return tr.unary("sqrt", tr.binop("add", tr.binop("mul", re, re),
                                     tr.binop("mul", im, im)))


def angle(tr, v):
    re, im, d = parts(tr, v)
    if d is None:
        im = _zero()
    re, im, _ = _both(tr, re, im)
    return _atan2(tr, im, re)


def _atan2(tr, y, x):
    from ..numpy.ufuncs import elementwise
    return elementwise(tr, "arctan2", [y, x], tr.current_node)


def _call(tr, name, *args):
    from ..numpy.ufuncs import elementwise
    return elementwise(tr, name, list(args), tr.current_node)


def exp(tr, v):
    re, im, d = parts(tr, v)
    re, im, _ = _both(tr, re, _zero() if im is None else im)
    e = _call(tr, "exp", re)
    return make(tr, tr.binop("mul", e, _call(tr, "cos", im)),
                tr.binop("mul", e, _call(tr, "sin", im)))


def log(tr, v):
    return make(tr, _call(tr, "log", absolute(tr, v)), angle(tr, v))


def sqrt(tr, v):
    """The principal square root by the stable formula: t = sqrt((|z| +
    |re|) / 2); re >= 0: (t, im / (2t)), else (|im| / (2t), copysign(t,
    im)); 0 at 0 (a safe divisor keeps the gradient finite elsewhere)."""
    from ..numpy.ufuncs import where
    node = tr.current_node
    re, im, d = parts(tr, v)
    re, im, _ = _both(tr, re, _zero() if im is None else im)
    mag = absolute(tr, Complex(re, im, complex_dtype(re.dtype)))
    t = _call(tr, "sqrt", tr.binop("mul", tr.binop(
        "add", mag, tr.unary("abs", re)), 0.5))
    zero = tr.binop("eq", t, 0.0)
    two_t = where(tr, zero, 1.0, tr.binop("mul", t, 2.0), node)
    q = tr.binop("div", im, two_t)
    pos = tr.binop("ge", re, 0.0)
    out_re = where(tr, pos, t, tr.unary("abs", tr.to_expr(q)), node)
    out_im = where(tr, pos, q, _call(tr, "copysign", t, im), node)
    return make(tr, where(tr, zero, 0.0, out_re, node),
                where(tr, zero, im, out_im, node))


# --------------------------------------------------------------------------
# Names, attributes, subscripts
# --------------------------------------------------------------------------

def assign_name(tr, name, value, node):
    """Binds `name` to a complex value: an alias of a container's parts
    where the name is bound once, else the name's own complex
    container, stored into on rebinding (as store_variable does for
    real variables)."""
    if not isinstance(value, Complex):
        value = Complex(*parts(tr, value))  # a complex constant
    count = tr.assign_counts.get(name, 0)
    own = tr.var_containers.get(name)
    if own is not None and not hasattr(own, "complex"):
        raise tr.unsupported(node, f"variable '{name}' changing from real "
                             "to complex", "use a new name")
    if own is None and count <= 1 and isinstance(value.re, View) and \
            isinstance(value.im, View):
        tr.env[name] = value
        return
    shape = broadcast(tr, value)
    if own is not None:
        held = container_parts(own)
        if own.complex != value.dtype or len(held.shape) != len(shape) or \
                not all(as_idx(x) == as_idx(y)
                        for x, y in zip(held.shape, shape)):
            if tr.loop_depth > 0:
                raise tr.unsupported(
                    node, f"complex variable '{name}' changing shape or "
                    "type in a loop or branch",
                    "use a new name for the new value")
            own = None
    if own is None:
        if getattr(value, "fresh", False) and whole_container(value):
            tr.var_containers[name] = value.re.container
            value.fresh = False
            tr.env[name] = value
            return
        c = new_complex(tr, shape, value.dtype, node, name)
        own = c.re.container
        own.depth = len(tr.constructs)
        tr.var_containers[name] = own
    dest = container_parts(own)
    store(tr, dest, value, node)
    tr.env[name] = dest


def own_container(tr, name, current, node):
    """Before a loop or branch that rebinds complex variable `name`: its
    own container, holding its current value (aliasing.own_containers)."""
    if not isinstance(current, Complex):
        current = Complex(*parts(tr, current))  # a complex constant
    own = tr.var_containers.get(name)
    if own is not None and whole_container(current) is own:
        return
    tr.var_containers.pop(name, None)
    shape = broadcast(tr, current)
    c = new_complex(tr, shape, current.dtype, node, name)
    cont = c.re.container
    cont.depth = len(tr.constructs)
    tr.var_containers[name] = cont
    store(tr, c, current, node)
    tr.env[name] = container_parts(cont)


def attribute(tr, base, attr, node):
    from ..frontend import callables
    from .. import numpy as numpy_functions
    if attr == "real":
        return base.re
    if attr == "imag":
        if base.im is None:
            return numpy_functions.numpy_call(tr, "zeros_like", [base.re],
                                              {}, node)
        return base.im
    if attr == "shape":
        return tuple(tr._shape_value(e) for e in base.shape)
    if attr == "ndim":
        return len(base.shape)
    if attr == "size":
        return numpy_functions.element_count(tr, base.shape, node, "size")
    if attr == "dtype":
        return base.dtype.type
    if attr == "T":
        return numpy_functions.method_call(tr, base, "transpose", [], {},
                                           node)
    return callables.BoundMethod(base, attr)


def subscript(tr, base, node, store=False):
    """`z[...]`: both part views subscripted with the same items,
    evaluated once."""
    import ast
    from .indexing import FancyLeaf
    if not (isinstance(base.re, View) and isinstance(base.im, View)):
        if store:
            raise tr.unsupported(node, "assignment into a computed complex "
                                 "value")
        base = materialize(tr, base, node)
    items = tr.slice_items(node.slice)
    items = [ast.copy_location(ast.Constant(None), it)
             if tr.is_newaxis(it) else it for it in items]
    values, advanced = tr.subscript_values(items)
    for k in advanced:
        if tr.to_expr(values[id(items[k])]).dtype == np.bool_:
            raise tr.unsupported(items[k], "boolean mask of a complex array",
                                 "select .real and .imag separately")
    if advanced:
        if store:
            raise tr.unsupported(node, "assignment into a complex array "
                                 "through an index array",
                                 "assign .real and .imag separately")
        return Complex(*(FancyLeaf(tr.fancy_subscript(
            p, items, values, advanced, node)) for p in (base.re, base.im)),
            base.dtype)
    return Complex(tr.subscript(base.re, items, node, store, values),
                   tr.subscript(base.im, items, node, store, values),
                   base.dtype)
