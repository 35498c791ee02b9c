"""np.random inside a program: `np.random.default_rng(seed)` (a
Generator known when compiling) and its methods random, uniform,
standard_normal, normal, exponential and integers; the legacy
`np.random.seed(s)` with np.random.rand/randn/random/uniform/normal/
standard_normal/exponential/randint after it.

The stream is this frontend's own, not NumPy's bits (docs/design/
random.md says exactly what it is): each element is a hash of (seed,
draw, flat index), computed by a tasklet of its own. No state is carried
from one element, thread or tile to the next, so draws are maps like any
other (parallel) and give the same values for any thread count. A draw
is one call site in the program text, in order of translation, together
with the iterators of the for loops around it that the generator was
created outside of: every iteration draws anew, and a generator created
inside a loop restarts in each iteration, as NumPy's does.

Random values are constants to the gradient (their containers are
stop_gradient): a program with noise differentiates, and its gradient
program computes the same stream.
"""

import ast
import math
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

import numpy as np

from . import dtypes
from ..errors import FrontendError
from .registry import (Arguments, CompileTimeObject, no_kwargs,
                       numpy_function)
from ..frontend.callables import BoundMethod
from ..semantics.values import (ConstLeaf, Expr, Idx, IdxLeaf, Op, Value,
                                View, ViewLeaf, as_idx, fmt_shape)

if TYPE_CHECKING:
    from ..frontend.translator import Translator

# splitmix64's increment (2^64 / golden ratio) and its finalizer's
# multipliers (Stafford's "Mix13"), as unsigned 64-bit numbers.
GAMMA = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

# The Generator methods supported, for the error naming the others.
METHODS = ("random", "uniform", "standard_normal", "normal",
           "exponential", "integers")


def _signed(u: int) -> int:
    """An unsigned 64-bit constant as the i64 literal of its bits."""
    return u - 2 ** 64 if u >= 2 ** 63 else u


class Generator(CompileTimeObject):
    """`np.random.default_rng(seed)` in a program. `seed` is an int64 Expr
    (a constant, or a 0-d copy of the value at creation); `ivs` the
    iterators of the for loops around the creation, which are not folded
    into draws (the generator restarts in each of their iterations);
    `sites` counts the draws translated so far."""

    def __init__(self, seed: Expr, ivs: Sequence[str], what: str):
        self.seed, self.ivs, self.what = seed, frozenset(ivs), what
        self.sites = 0

    def attribute(self, tr: "Translator", name: str, node: ast.AST):
        if name in METHODS:
            return BoundMethod(self, name)
        raise tr.unsupported(node, f"Generator attribute '{name}'",
                             "of np.random.Generator's methods "
                             f"{', '.join(METHODS)} are supported")

    def bind(self, tr: "Translator", name: str, existing: Value,
             node: ast.AST) -> None:
        first = tr.scope_base[0]
        for _, maybe, is_for, carried in tr.constructs[first:]:
            # A name read in a loop before this binding: iterations after
            # the first would draw from the generator the one before
            # bound, which one translation of the body cannot follow (nor
            # a loop that may not run, after which the name holds the
            # generator from before).
            if is_for and (name in carried or
                           (maybe and existing is not None)):
                raise tr.unsupported(
                    node, f"'{name}' rebound to a Generator in a loop "
                    "that reads it before", "give the generator made in "
                    "the loop a name of its own")

    def method(self, tr: "Translator", name: str, args: List[Value],
               kwargs: Dict[str, Value], node: ast.AST) -> Value:
        return DISTRIBUTIONS[name](tr, self, args, kwargs, node)


# --------------------------------------------------------------------------
# Creating generators
# --------------------------------------------------------------------------

def _in_branch_or_while(tr: "Translator") -> bool:
    """Inside an if, a conditional expression or a while loop (which
    count in loop_depth, and push no for-loop iterator)."""
    return tr.loop_depth != len(tr.loop_ivs)


def make_generator(tr: "Translator", seed: Value, what: str,
                   node: ast.AST) -> Generator:
    if _in_branch_or_while(tr):
        raise tr.unsupported(
            node, f"{what} in a branch or while loop",
            "the generator is an object known when compiling: create it "
            "once, outside branches and while loops, and draw from it "
            "there")
    if seed is None:
        raise tr.unsupported(
            node, f"{what} without a seed",
            "NumPy would seed from the operating system; pass an explicit "
            "integer seed (an int argument or a constant)")
    if isinstance(seed, (bool, np.bool_)):
        raise tr.unsupported(node, f"{what} with a bool seed",
                             "the seed must be an integer")
    if isinstance(seed, (int, np.integer)):
        seed = int(seed)
        if seed < 0:
            # NumPy's ValueError for a negative seed.
            raise tr.error(f"{what}: the seed must be non-negative, got "
                           f"{seed}", node)
        if seed >= 2 ** 63:
            raise tr.unsupported(node, f"{what} with a seed of 2^63 or "
                                 "more", "the seed is an int64")
        return Generator(ConstLeaf(seed, np.int64), tr.loop_ivs, what)
    if isinstance(seed, Idx) and seed.is_const():
        return make_generator(tr, seed.const, what, node)
    if isinstance(seed, (Idx, View, Expr)):
        e = tr.to_expr(seed)
        if e.shape or e.dtype.kind not in "iu":
            kind = "an array" if e.shape else f"a {e.dtype} value"
            raise tr.unsupported(
                node, f"{what} with a seed that is {kind}",
                "the seed must be a single integer: an int argument, a "
                "constant or an integer computed in the program")
        # A copy of the value now: the variable it was read from may
        # change before a draw.
        copy = tr.new_transient([], np.int64, "seed", stop_gradient=True)
        tr.store(copy.view(), Op("cast", [e], [], np.int64))
        return Generator(ViewLeaf(copy.view()), tr.loop_ivs, what)
    raise tr.unsupported(node, f"{what} with a seed of type "
                         f"{type(seed).__name__}",
                         "the seed must be a single integer (sequences "
                         "of seeds and SeedSequence are not supported)")


@numpy_function("random.default_rng", positional=("seed",))
def np_default_rng(tr: "Translator", name: str, args: List[Value],
                   kwargs: Dict[str, Value], node: ast.AST) -> Value:
    arg = Arguments(tr, args, kwargs, node)
    arg.only("seed")
    return make_generator(tr, arg(0, "seed"), "np.random.default_rng",
                          node)


@numpy_function("random.seed", positional=("seed",))
def np_seed(tr: "Translator", name: str, args: List[Value],
            kwargs: Dict[str, Value], node: ast.AST) -> Value:
    """The legacy global state: a Generator of the translation that the
    legacy functions after it draw from (an object known when
    compiling, like default_rng's)."""
    arg = Arguments(tr, args, kwargs, node)
    arg.only("seed")
    if tr.loop_depth:
        # Seeding again in each iteration would reach the draws before
        # it from the second iteration on: one translation of the body
        # cannot follow that.
        raise tr.unsupported(node, "np.random.seed in a loop or branch",
                             "seed once, at the top of the program")
    tr.legacy_random = make_generator(tr, arg(0, "seed"),
                                      "np.random.seed", node)
    return None


# The legacy functions: name -> (Generator method, how the arguments map).
LEGACY = {
    "rand": "random", "random": "random", "random_sample": "random",
    "randn": "standard_normal", "standard_normal": "standard_normal",
    "uniform": "uniform", "normal": "normal", "exponential": "exponential",
    "randint": "integers",
}


@numpy_function(*("random." + n for n in LEGACY))
def np_legacy(tr: "Translator", name: str, args: List[Value],
              kwargs: Dict[str, Value], node: ast.AST) -> Value:
    gen = getattr(tr, "legacy_random", None)
    short = name.split(".", 1)[1]
    if gen is None:
        raise tr.unsupported(
            node, f"np.{name} without np.random.seed(s) earlier in the "
            "program", "the global state of NumPy outside the program is "
            "not seen; seed it in the program, or better use "
            "rng = np.random.default_rng(seed)")
    if short in ("rand", "randn"):
        # rand(d0, d1, ...): the extents as separate arguments.
        no_kwargs(tr, kwargs, node)
        kwargs = {"size": tuple(args) if args else None}
        args = []
    elif short == "randint":
        no_kwargs(tr, kwargs, node, ("low", "high", "size", "dtype"))
    return DISTRIBUTIONS[LEGACY[short]](tr, gen, args, kwargs, node)


# --------------------------------------------------------------------------
# Draws
# --------------------------------------------------------------------------

class RandomBits(Op):
    """One element of a draw: `kind` applied to the 64 bits hashed from
    (seed, site, the loop iterators, flat index), its operands in that
    order (int64). scalar_ops.gen_op calls `gen`."""

    def __init__(self, kind: str, args: List[Expr], dtype, site: int):
        super().__init__("random", args, [], dtype)
        self.kind, self.site = kind, site

    def gen(self, tb, args: List[str], arg_dtypes: List[np.dtype]) -> str:
        vals = [tb.convert(a, d, np.int64) for a, d in zip(args, arg_dtypes)]
        seed, iters, flat = vals[0], vals[1:-1], vals[-1]
        bits = _bits(tb, seed, self.site, iters, flat)
        return _transform(tb, self.kind, bits, self.dtype)


def _shr(tb, x: str, n: int) -> str:
    return tb.op(f"arith.shrui {x}, {tb.const(n, np.int64)}", "i64")


def _mix(tb, z: str) -> str:
    """splitmix64's finalizer: a bijection of the 64 bits."""
    for shift, mult in ((30, MIX1), (27, MIX2)):
        z = tb.op(f"arith.xori {z}, {_shr(tb, z, shift)}", "i64")
        z = tb.op(f"arith.muli {z}, {tb.const(_signed(mult), np.int64)}",
                  "i64")
    return tb.op(f"arith.xori {z}, {_shr(tb, z, 31)}", "i64")


def _step(tb, state: str, counter: str) -> str:
    """mix(state + (counter + 1) * GAMMA): output `counter` of splitmix64
    started at `state`, injective in the counter."""
    one = tb.op(f"arith.addi {counter}, {tb.const(1, np.int64)}", "i64")
    inc = tb.op(f"arith.muli {one}, {tb.const(_signed(GAMMA), np.int64)}",
                "i64")
    return _mix(tb, tb.op(f"arith.addi {state}, {inc}", "i64"))


def _bits(tb, seed: str, site: int, iters: List[str], flat: str) -> str:
    g = tb.const(_signed(GAMMA), np.int64)
    state = _mix(tb, tb.op(f"arith.addi {seed}, {g}", "i64"))
    for counter in [tb.const(site, np.int64)] + iters + [flat]:
        state = _step(tb, state, counter)
    return state


def _unit(tb, bits: str, dtype) -> str:
    """A uniform value in [0, 1): the top 53 bits (float64) or 24 bits
    (float32) over 2^53 (2^24), exact in that type."""
    n = 53 if np.dtype(dtype) == np.float64 else 24
    top = tb.convert(_shr(tb, bits, 64 - n), np.int64, dtype)
    return tb.op(f"arith.mulf {top}, {tb.const(2.0 ** -n, dtype)}",
                 "f64" if n == 53 else "f32")


def _mulhi(tb, a: str, b: str) -> str:
    """The high 64 bits of the unsigned 128-bit product a * b, from
    32-bit halves (wrapping i64 arithmetic, logical shifts)."""
    mask = tb.const(0xFFFFFFFF, np.int64)

    def lo(x):
        return tb.op(f"arith.andi {x}, {mask}", "i64")

    def mul(x, y):
        return tb.op(f"arith.muli {x}, {y}", "i64")

    def add(x, y):
        return tb.op(f"arith.addi {x}, {y}", "i64")

    a0, a1, b0, b1 = lo(a), _shr(tb, a, 32), lo(b), _shr(tb, b, 32)
    ll, lh, hl, hh = mul(a0, b0), mul(a0, b1), mul(a1, b0), mul(a1, b1)
    mid = add(add(_shr(tb, ll, 32), lo(lh)), lo(hl))
    return add(add(add(hh, _shr(tb, lh, 32)), _shr(tb, hl, 32)),
               _shr(tb, mid, 32))


def _transform(tb, kind: str, bits: str, dtype) -> str:
    if kind == "uniform":
        return _unit(tb, bits, dtype)
    if kind == "normal":
        # Box-Muller, the cosine branch: u1 from these bits, u2 from the
        # next output of splitmix64 after them.
        g = tb.const(_signed(GAMMA), np.int64)
        u1 = _unit(tb, bits, np.float64)
        u2 = _unit(tb, _mix(tb, tb.op(f"arith.addi {bits}, {g}", "i64")),
                   np.float64)
        # log(1 - u1): 1 - u1 is in (0, 1], so the log is finite.
        log = tb.op(f"math.log1p {tb.op(f'arith.negf {u1}', 'f64')}",
                    "f64")
        minus2 = tb.const(-2.0, np.float64)
        square = tb.op(f"arith.mulf {log}, {minus2}", "f64")
        radius = tb.op(f"math.sqrt {square}", "f64")
        angle = tb.op(f"arith.mulf {u2}, "
                      f"{tb.const(2 * math.pi, np.float64)}", "f64")
        return tb.op(f"arith.mulf {radius}, "
                     f"{tb.op(f'math.cos {angle}', 'f64')}", "f64")
    if kind == "exponential":
        # Inverse CDF: -log(1 - u), finite for u in [0, 1).
        u = _unit(tb, bits, np.float64)
        log = tb.op(f"math.log1p {tb.op(f'arith.negf {u}', 'f64')}", "f64")
        return tb.op(f"arith.negf {log}", "f64")
    raise AssertionError(kind)


class IntegerBits(RandomBits):
    """integers: low + the high 64 bits of bits * (high - low), the range
    read as unsigned (Lemire's multiply-shift without the rejection: a
    bias below range / 2^64). Operands: seed, iterators, flat index, low,
    range."""

    def gen(self, tb, args: List[str], arg_dtypes: List[np.dtype]) -> str:
        vals = [tb.convert(a, d, np.int64) for a, d in zip(args, arg_dtypes)]
        seed, iters, flat, low, span = (vals[0], vals[1:-3], vals[-3],
                                        vals[-2], vals[-1])
        bits = _bits(tb, seed, self.site, iters, flat)
        return tb.op(f"arith.addi {low}, {_mulhi(tb, bits, span)}", "i64")


def _size(tr: "Translator", size: Value, node: ast.AST) -> Optional[list]:
    """NumPy's `size`: None (one value), an int or a tuple of them (x.shape
    included), as extents (Idx)."""
    if size is None:
        return None
    items = size if isinstance(size, (tuple, list)) else (size,)
    out = []
    for s in items:
        if isinstance(s, (bool, np.bool_)):
            raise tr.unsupported(node, "size that is a bool")
        if isinstance(s, (int, np.integer, Idx)):
            e = as_idx(s)
        elif isinstance(s, (View, Expr)) and not tr.to_expr(s).shape \
                and tr.to_expr(s).dtype.kind in "iu":
            e = tr.control_index(s, node)  # an int computed at run time
        else:
            raise tr.unsupported(node, "size that is not an integer or a "
                                 "tuple of integers")
        if e.is_const() and e.const < 0:
            raise tr.error("negative dimensions are not allowed", node)
        out.append(e)
    return out


def _check_site(tr: "Translator", node: ast.AST) -> None:
    if tr.while_depth:
        raise tr.unsupported(
            node, "random draw in a while loop",
            "a draw is told apart by the iterators of the for loops "
            "around it, and a while loop has none: every iteration would "
            "draw the same values; use a for loop over range(...)")


def _flat_index(shape: List[Idx], coords: List[Idx]) -> Expr:
    """The row-major flat index of `coords` in `shape`, as int64."""
    flat: Expr = IdxLeaf(coords[0]) if coords else ConstLeaf(0, np.int64)
    for extent, c in zip(shape[1:], coords[1:]):
        flat = Op("mul", [flat, IdxLeaf(extent) if not extent.is_const()
                          else ConstLeaf(extent.const, np.int64)],
                  [], np.int64)
        flat = Op("add", [flat, IdxLeaf(c)], [], np.int64)
    return flat


def draw(tr: "Translator", gen: Generator, kind: str, shape: list,
         dtype, node: ast.AST, extra=()) -> View:
    """A new array of `shape` and `dtype`: element p is `kind` of the bits
    of (gen's seed, this draw, p's flat index). `extra` are int64
    operands after those (integers' low and range)."""
    _check_site(tr, node)
    site = gen.sites
    gen.sites += 1
    # (Iterator names are unique: a loop after the one the generator
    # was made in is folded too.)
    iters = [IdxLeaf(Idx.of(iv)) for iv in tr.loop_ivs if iv not in gen.ivs]
    out = tr.transient_view(shape, dtype, node, "random",
                            stop_gradient=True)
    op_dtype = dtype if kind == "uniform" else np.dtype(
        np.int64 if kind == "integers" else np.float64)
    cls = IntegerBits if kind == "integers" else RandomBits

    def element(coords):
        return cls(kind, [gen.seed] + iters + [_flat_index(shape, coords)]
                   + list(extra), op_dtype, site)

    if not shape:
        val = tr.emit_scalar(element([]), [], 0, dtype)
        tr.emit_store(val, out, [])
        return out
    with tr.open_map(shape, tr.schedule_for(shape, None)) as coords:
        val = tr.emit_scalar(element(coords), coords, len(shape), dtype)
        tr.emit_store(val, out, coords)
    return out


def _float_dtype(tr, dtype, node, what):
    dt = dtypes.dtype_of(tr, dtype, node)
    if dt not in (np.float64, np.float32):
        # NumPy's TypeError: these methods make floats only.
        raise tr.error(f"Generator.{what}: unsupported dtype {dt} (float64 "
                       "or float32)", node)
    return dt


def _with_params(tr, gen, kind, params, size, node, combine):
    """A draw of `kind` combined with the distribution's parameters
    (arrays or numbers, broadcast as NumPy does): of shape `size`, or
    the parameters' broadcast shape where size is None."""
    shape = _size(tr, size, node)
    if shape is None:
        probe = None
        for p in params:
            probe = p if probe is None else tr.binop("add", probe, p)
        shape = [as_idx(e) for e in tr.to_expr(probe).shape]
    base = draw(tr, gen, kind, shape, np.float64, node)
    value = tr.to_expr(combine(base))
    if len(value.shape) != len(shape) or not all(
            as_idx(a) == as_idx(b) for a, b in zip(value.shape, shape)):
        raise tr.error("shape mismatch: the parameters do not broadcast to "
                       f"size {fmt_shape(shape)}", node)
    if value.dtype != np.float64:
        # NumPy's parameters are float64 (float32 and int arrays are
        # converted), and so is the result.
        value = Op("cast", [value], value.shape, np.float64)
    return value


def _random(tr, gen, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("size", "dtype")
    _no_more(tr, args, 2, "random", node)
    dt = _float_dtype(tr, arg(1, "dtype", np.float64), node, "random")
    shape = _size(tr, arg(0, "size"), node)
    return draw(tr, gen, "uniform", shape or [], dt, node)


def _standard_normal(tr, gen, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("size", "dtype")
    _no_more(tr, args, 2, "standard_normal", node)
    dt = _float_dtype(tr, arg(1, "dtype", np.float64), node,
                      "standard_normal")
    shape = _size(tr, arg(0, "size"), node)
    return draw(tr, gen, "normal", shape or [], dt, node)


def _uniform(tr, gen, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("low", "high", "size")
    _no_more(tr, args, 3, "uniform", node)
    low, high = arg(0, "low", 0.0), arg(1, "high", 1.0)
    # NumPy's order of operations: low + (high - low) * u.
    return _with_params(
        tr, gen, "uniform", [low, high], arg(2, "size"), node,
        lambda u: tr.binop("add", low,
                           tr.binop("mul", tr.binop("sub", high, low), u)))


def _normal(tr, gen, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("loc", "scale", "size")
    _no_more(tr, args, 3, "normal", node)
    loc, scale = arg(0, "loc", 0.0), arg(1, "scale", 1.0)
    _nonnegative(tr, scale, "normal", node)
    return _with_params(
        tr, gen, "normal", [loc, scale], arg(2, "size"), node,
        lambda z: tr.binop("add", loc, tr.binop("mul", scale, z)))


def _exponential(tr, gen, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("scale", "size")
    _no_more(tr, args, 2, "exponential", node)
    scale = arg(0, "scale", 1.0)
    _nonnegative(tr, scale, "exponential", node)
    return _with_params(tr, gen, "exponential", [scale], arg(1, "size"),
                        node, lambda e: tr.binop("mul", scale, e))


def _nonnegative(tr, scale, what, node):
    if isinstance(scale, (int, float)) and scale < 0:
        raise tr.error(f"Generator.{what}: scale < 0", node)


def _bound(tr, v, what, node):
    """An integer bound of integers(): known when compiling (a constant
    or an extent), as an Idx."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, np.integer, Idx)):
        raise tr.unsupported(
            node, f"integers() with {what} that is not an integer known "
            "when compiling", "low and high must be integer constants or "
            "array extents (x.shape[0]), so that low < high is checked "
            "before the program runs")
    return as_idx(v)


def _integers(tr, gen, args, kwargs, node):
    arg = Arguments(tr, args, kwargs, node)
    arg.only("low", "high", "size", "dtype", "endpoint")
    _no_more(tr, args, 5, "integers", node)
    low, high = arg(0, "low"), arg(1, "high")
    if low is None:
        raise tr.error("integers() missing the argument 'low'", node)
    if high is None:
        low, high = 0, low  # integers(n): [0, n)
    lo, hi = _bound(tr, low, "low", node), _bound(tr, high, "high", node)
    endpoint = arg(4, "endpoint", False)
    if not isinstance(endpoint, bool):
        raise tr.unsupported(node, "endpoint computed at run time")
    if endpoint:
        hi = hi + 1
    dt = dtypes.dtype_of(tr, arg(3, "dtype", np.int64), node)
    if dt not in (np.int64, np.int32):
        raise tr.unsupported(node, f"integers() of dtype {dt}",
                             "int64 (the default) and int32 are supported")
    span = hi - lo
    try:
        least = tr.interval(span)[0]
    except FrontendError:  # bounds not known when compiling
        least = None
    if least is None or least < 1:
        if span.is_const():
            # NumPy's ValueError.
            raise tr.error(f"integers(): low >= high ({lo.const} >= "
                           f"{hi.const})", node)
        raise tr.unsupported(node, "integers() whose low < high is not "
                             "certain when compiling",
                             "the extents used as bounds may be equal")
    info = np.iinfo(dt)
    for b in (lo, hi - 1):
        if b.is_const() and not (info.min <= b.const <= info.max):
            raise tr.error(f"integers(): bound {b.const} is out of range "
                           f"for {dt}", node)
    if span.is_const() and span.const > 2 ** 64 - 1:
        raise tr.error("integers(): high - low is out of range", node)
    shape = _size(tr, arg(2, "size"), node) or []
    extra = [tr.to_expr(lo), tr.to_expr(span) if not span.is_const()
             else ConstLeaf(_signed(span.const % 2 ** 64), np.int64)]
    return draw(tr, gen, "integers", shape, dt, node, extra)


def _no_more(tr, args, n, what, node):
    if len(args) > n:
        raise tr.unsupported(node, f"Generator.{what} with more than {n} "
                             "positional arguments")


DISTRIBUTIONS = {
    "random": _random, "standard_normal": _standard_normal,
    "uniform": _uniform, "normal": _normal, "exponential": _exponential,
    "integers": _integers,
}
