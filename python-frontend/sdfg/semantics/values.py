"""Values the translator manipulates while it walks a NumPy function.

- ``Idx``: an integer affine expression over SSA index values (loop
  iterators, results of index tasklets) with a constant part. Shapes, loop
  bounds and subscripts are Idx, so slices like ``A[i + 1:]`` keep symbolic
  extents.
- ``Container``: an array the generated SDFG owns or receives (an argument,
  a transient, a 0-d scalar variable).
- ``View``: a strided window on a container (slicing, transposes, new
  axes), as NumPy views are.
- ``Expr`` trees: element-wise computations over views, scalars and
  constants, evaluated lazily so that one statement becomes one map.
"""

from typing import Any, Iterator, Sequence

import numpy as np

# What evaluating an expression of the program gives, as the translator and
# the NumPy functions pass it around: an Expr (a View, an Op tree, a
# leaf), an Idx, a Python constant, a tuple or list of those, or None. An
# alias for Any: the frontend tests values with isinstance at run time.
Value = Any


class Idx:
    """const + sum(coef * name) over SSA index names."""

    __slots__ = ("terms", "const")

    def __init__(self, const=0, terms=None):
        self.const = int(const)
        self.terms = {k: v for k, v in (terms or {}).items() if v != 0}

    @staticmethod
    def of(name):
        return Idx(0, {name: 1})

    def is_const(self):
        return not self.terms

    def __add__(self, other):
        other = as_idx(other)
        terms = dict(self.terms)
        for k, v in other.terms.items():
            terms[k] = terms.get(k, 0) + v
        return Idx(self.const + other.const, terms)

    __radd__ = __add__

    def __neg__(self):
        return Idx(-self.const, {k: -v for k, v in self.terms.items()})

    def __sub__(self, other):
        return self + (-as_idx(other))

    def __rsub__(self, other):
        return as_idx(other) - self

    def scale(self, c):
        return Idx(self.const * c, {k: v * c for k, v in self.terms.items()})

    def __eq__(self, other):
        if isinstance(other, int):
            other = Idx(other)
        return (isinstance(other, Idx) and self.const == other.const
                and self.terms == other.terms)

    def __hash__(self):
        return hash((self.const, tuple(sorted(self.terms.items()))))

    def render(self):
        """Affine-expression text over the SSA names."""
        parts = []
        for name in sorted(self.terms):
            c = self.terms[name]
            if c == 1:
                parts.append(name)
            elif c == -1:
                parts.append(f"-{name}")
            else:
                parts.append(f"{name} * {c}")
        if self.const or not parts:
            parts.append(str(self.const))
        text = " + ".join(parts)
        return text.replace("+ -", "- ")

    def __repr__(self):
        return f"Idx({self.render()})"


def as_idx(v: Value) -> "Idx":
    if isinstance(v, Idx):
        return v
    if isinstance(v, (bool, np.bool_)):
        return Idx(int(v))
    if isinstance(v, (int, np.integer)):
        return Idx(int(v))
    raise TypeError(f"not an index: {v!r}")


def same_extent(a: Value, b: Value) -> bool:
    return as_idx(a) == as_idx(b)


def _extent(s):
    """A container extent: an int, or a symbolic Idx (kept as such)."""
    if isinstance(s, Idx):
        return s.const if s.is_const() else s
    return int(s)


class Container:
    """An array of the generated program: argument, transient or scalar."""

    def __init__(self, ssa, shape, dtype, kind, name):
        self.ssa = ssa
        # Ints, or Idx over the program's size symbols where the size is
        # only known when the program runs (a `?` of its memref type:
        # frontend/symbols.py).
        self.shape = tuple(_extent(s) for s in shape)
        self.dtype = np.dtype(dtype)
        self.kind = kind  # "arg", "transient", "output"
        self.name = name

    @property
    def mlir_type(self):
        dims = "".join(f"{s}x" if isinstance(s, int) else "?x"
                       for s in self.shape)
        return f"memref<{dims}{mlir_scalar(self.dtype)}>"

    def is_static(self):
        return all(isinstance(s, int) for s in self.shape)

    def view(self):
        return View(self, [(Idx(0), 1, d) for d in range(len(self.shape))],
                    [as_idx(s) for s in self.shape])

    def __repr__(self):
        return f"Container({self.name}: {self.mlir_type})"


class View:
    """A window on a container.

    ``base`` has one entry per container dimension: ``(offset, stride, vdim)``
    meaning ``index = offset + stride * coord[vdim]``, or a fixed ``offset``
    when ``vdim`` is None. ``shape`` has one extent per view dimension; a view
    dimension no base dimension refers to is a new axis of extent 1.
    """

    def __init__(self, container, base, shape, readonly=False):
        self.container = container
        self.base = base
        self.shape = list(shape)
        # NumPy's read-only views (np.diagonal's): writing through one is
        # its ValueError, as is writing through a view of one.
        self.readonly = readonly

    @property
    def dtype(self):
        return self.container.dtype

    @property
    def ndim(self):
        return len(self.shape)

    def indices(self, coords):
        """Container indices (Idx) of the element at view coordinates."""
        out = []
        for offset, stride, vdim in self.base:
            if vdim is None:
                out.append(offset)
            else:
                out.append(offset + coords[vdim].scale(stride))
        return out

    def is_whole(self):
        """The view is the container itself, in order."""
        c = self.container
        return (len(self.shape) == len(c.shape)
                and all(o == Idx(0) and s == 1 and v == d
                        for d, (o, s, v) in enumerate(self.base))
                and all(same_extent(e, n) for e, n in zip(self.shape, c.shape)))

    def is_whole_transposed(self):
        c = self.container
        n = len(c.shape)
        return (n == 2 and len(self.shape) == 2
                and all(o == Idx(0) and s == 1 and v == n - 1 - d
                        for d, (o, s, v) in enumerate(self.base))
                and same_extent(self.shape[0], c.shape[1])
                and same_extent(self.shape[1], c.shape[0]))

    def is_whole_batch_transposed(self):
        """A 3-d container with its last two axes swapped (a stack of
        transposed matrices, as BLAS takes them)."""
        c = self.container
        order = (0, 2, 1)
        return (len(c.shape) == 3 and len(self.shape) == 3
                and all(o == Idx(0) and s == 1 and v == order[d]
                        for d, (o, s, v) in enumerate(self.base))
                and all(same_extent(self.shape[order[d]], c.shape[d])
                        for d in range(3)))

    def transpose(self, axes=None):
        n = self.ndim
        axes = list(reversed(range(n))) if axes is None else list(axes)
        inverse = {old: new for new, old in enumerate(axes)}
        base = [(o, s, None if v is None else inverse[v])
                for o, s, v in self.base]
        return View(self.container, base, [self.shape[a] for a in axes],
                    self.readonly)

    def __repr__(self):
        return f"View({self.container.name}, {self.base}, {self.shape})"


# --------------------------------------------------------------------------
# Element-wise expression trees
# --------------------------------------------------------------------------

class Expr:
    shape = ()
    dtype = None


class ViewLeaf(Expr):
    def __init__(self, view):
        self.view = view
        self.shape = list(view.shape)
        self.dtype = view.dtype


class ConstLeaf(Expr):
    def __init__(self, value, dtype):
        self.value = value
        self.shape = []
        self.dtype = np.dtype(dtype)


class IdxLeaf(Expr):
    """An integer index value (a loop iterator) used as data."""

    def __init__(self, idx):
        self.idx = idx
        self.shape = []
        self.dtype = np.dtype(np.int64)


class ScalarLeaf(Expr):
    """A runtime scalar SSA value valid in the current scope."""

    def __init__(self, ssa, dtype):
        self.ssa = ssa
        self.shape = []
        self.dtype = np.dtype(dtype)


class Op(Expr):
    def __init__(self, op, args, shape, dtype):
        self.op = op
        self.args = list(args)
        self.shape = list(shape)
        self.dtype = np.dtype(dtype)


def mlir_scalar(dtype: np.dtype) -> str:
    dtype = np.dtype(dtype)
    return {
        "float64": "f64", "float32": "f32", "int64": "i64", "int32": "i32",
        "int16": "i16", "int8": "i8", "bool": "i1",
        # MLIR's integers are signless: an unsigned dtype has the type of
        # its width, and the ops on it say unsigned (scalar_ops.py).
        "uint64": "i64", "uint32": "i32", "uint16": "i16", "uint8": "i8",
    }[dtype.name]


def is_unsigned(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "u"


def is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f"


class Unavailable:
    """A value NumPy computes but the frontend cannot give (its shape
    depends on the data: lstsq's residuals): any use of it raises
    `error`, a located FrontendError made where it was produced."""

    def __init__(self, error):
        self.error = error


class Masked:
    """`x[mask]` for a boolean mask of x's shape, or element-wise
    arithmetic on such selections: `value` (a View, or an Expr of the
    mask's shape) where `mask` holds. A selection whose length only the
    data knows."""

    def __init__(self, value, mask):
        self.value = value
        self.mask = mask


def same_mask(a: Value, b: Value) -> bool:
    """The same mask: one object, reads of one array the same way (each
    use of a mask variable reads its container anew), or the same
    element-wise expression of such reads (`x[~m] * y[~m]`). A mask of
    rows is compared by what it was computed from (its `origin`)."""
    pairs = [(a, b)]  # compared iteratively (see expr_leaves)
    while pairs:
        a, b = pairs.pop()
        a, b = getattr(a, "origin", a), getattr(b, "origin", b)
        if a is b:
            continue
        if isinstance(a, ViewLeaf) and isinstance(b, ViewLeaf):
            if not (a.view.container is b.view.container
                    and a.view.base == b.view.base
                    and a.view.shape == b.view.shape):
                return False
        elif isinstance(a, ConstLeaf) and isinstance(b, ConstLeaf):
            if not (a.dtype == b.dtype and a.value == b.value):
                return False
        elif isinstance(a, Op) and isinstance(b, Op):
            if not (a.op == b.op and a.dtype == b.dtype
                    and a.shape == b.shape and len(a.args) == len(b.args)):
                return False
            pairs.extend(zip(reversed(a.args), reversed(b.args)))
        else:
            return False
    return True


SUPPORTED_DTYPES = (np.float64, np.float32, np.int64, np.int32, np.int16,
                    np.int8, np.uint64, np.uint32, np.uint16, np.uint8,
                    np.bool_)


def expr_leaves(e: "Expr") -> Iterator["Expr"]:
    """The leaves of expression `e`, left to right (iteratively: an
    expression may be a chain of thousands of operations)."""
    stack = [e]
    while stack:
        e = stack.pop()
        if isinstance(e, Op):
            stack.extend(reversed(e.args))
        else:
            yield e


def fmt_shape(shape: Sequence[Value]) -> str:
    return "(" + ", ".join(as_idx(e).render() for e in shape) + ")"
