"""Containers and stores: transients and their sizes, the map that
writes an element-wise expression into a view (schedules, broadcasting,
overlap between what is read and written), and the scalar code of
its tasklet.
"""

import contextlib
import math

import numpy as np

from .. import ir
from ..errors import FrontendError
from . import scalar_ops
from .expressions import ScalarLeafCopy
from ..semantics.indexing import FancyLeaf, _idx_key
from .inlining import param_names
from .retries import widens
from .. import policy
from ..semantics.values import (ConstLeaf, Container, Expr, Idx, IdxLeaf, Op,
                                ScalarLeaf,
                     View, ViewLeaf, as_idx, expr_leaves, fmt_shape, is_float,
                     mlir_scalar, same_extent)


# Transients are sized by the largest extent their shape can take; beyond
# this the shape is not really bounded (it depends on runtime data).
MAX_TRANSIENT_ELEMENTS = 1 << 28
# What the dialect represents (kMaxRepresentable in IndexUtils.h): a larger
# array is a located error here rather than the compiler's.
MAX_CONTAINER_BYTES = 1 << 62


class Storage:
    """Allocates containers and stores expressions into views.

    A mixin of Translator (translator.py), sharing its state."""

    def _holds(self, container, shape, expr):
        """Whether a variable's container can take a new value of `shape`
        (upper extents) and expr's type: the same rank, no extent larger,
        and for an array the same dtype (a scalar converts, as before)."""
        def fits(n, c):
            if isinstance(n, int) and isinstance(c, int):
                return n <= c
            return same_extent(n, c)  # a size symbol: that size only

        if len(container.shape) != len(shape) or any(
                not fits(n, c) for n, c in zip(shape, container.shape)):
            return False
        if shape and container.dtype != expr.dtype:
            return False
        return not widens(container.dtype, expr.dtype)

    def new_transient(self, shape, dtype, hint="tmp", stop_gradient=False):
        if any(isinstance(e, (int, np.integer)) and e < 0 for e in shape):
            raise self.error("negative dimensions are not allowed")
        ssa = self.em.fresh("T")
        clean = "".join(ch if ch.isalnum() else "_" for ch in hint)
        c = Container(ssa, shape, dtype, "transient", clean)
        # A `?` extent is an operand of the alloc, computed from the size
        # symbols before it (symbolic_sizes.py).
        sizes = [self.size_value(e) for e in c.shape if not isinstance(e, int)]
        c.serial = self.em.counter  # when it was made (_inline's results)
        # A unique name (the variable's, numbered when it is rebound or
        # shadows an argument) for reports and `recompute=`.
        if not hasattr(self, "_transient_names"):
            self._transient_names = set(param_names(self.fdef.args))
        name, k = clean, 0
        while name in self._transient_names:
            k += 1
            name = f"{clean}_{k}"
        self._transient_names.add(name)
        self.em.alloc(ir.alloc(ssa, name, c.mlir_type, stop_gradient, sizes))
        return c

    def container_extents(self, shape, node):
        """The extents of a container for values of `shape` (Idx): the
        extent itself where it is a constant or computed from the size
        symbols alone (symbolic_sizes.py), else its upper bound over the
        program (a window's length that changes in a loop)."""
        out = []
        for e in shape:
            e = as_idx(e)
            if e.is_const():
                out.append(max(e.const, 0))
            elif self.is_size_expression(e):
                out.append(e)
            else:
                out.append(self.bounded_length(e, node))
        return out

    def bounded_length(self, extent, node):
        """The upper bound of `extent` (a length a loop or the data
        gives), as the size of a container that holds every length it
        takes. A bound from a size symbol's range (a window of an array of
        symbolic size, `x[:3 * n // 4]`) is no size to allocate: refused,
        so that the program compiles with its sizes as constants."""
        hi = self.upper_extent(extent, node)
        if hi > MAX_TRANSIENT_ELEMENTS:
            if any(n in self.size_symbols for n in as_idx(extent).terms):
                raise self.unsupported(
                    node, "array whose size depends on a size symbol and a "
                    "loop or data")
            raise self.unsupported(
                node, "array whose size depends on runtime data",
                "its size cannot be bounded at compile time (compute it "
                "from argument shapes or int arguments instead)")
        return hi

    def transient_view(self, shape, dtype, node, hint="tmp",
                       stop_gradient=False):
        """A transient holding `shape` (Idx extents, maybe symbolic)."""
        if any(as_idx(e).is_const() and as_idx(e).const < 0 for e in shape):
            # np.zeros(-5), np.empty((n, -1)): NumPy's ValueError, here
            # when compiling.
            raise self.error("negative dimensions are not allowed", node)
        static = self.container_extents(shape, node)
        total = 1
        for e in static:
            # A size symbol's extent is checked by the call (its size).
            total *= e if isinstance(e, int) else 1
        if total * np.dtype(dtype).itemsize > MAX_CONTAINER_BYTES:
            raise self.error(
                f"array of shape {tuple(static)} and dtype "
                f"{np.dtype(dtype)} is too large: {total} elements do not "
                "fit in memory (the limit is 2^62 bytes)", node)
        exact = all(as_idx(e).is_const() or self.is_size_expression(e)
                    for e in shape)
        if total > MAX_TRANSIENT_ELEMENTS and not exact:
            raise self.unsupported(
                node, "array whose size depends on runtime data",
                "its size cannot be bounded at compile time (compute it from "
                "argument shapes or int arguments instead)")
        c = self.new_transient(static, dtype, hint, stop_gradient)
        v = c.view()
        v.shape = [as_idx(e) for e in shape]
        v.fresh = True
        return v

    def whole_container(self, value, node, what):
        """A container holding `value` whole, of a size known when
        compiling: an array's own where it is one (row-major, all of it),
        else a copy made here (what a library op that reads containers
        whole, sdfg.custom_call or sdfg.print, is given)."""
        expr = self.to_expr(value)
        if any(not isinstance(e, int) and not (isinstance(e, Idx) and
                                               e.is_const())
               for e in expr.shape):
            raise self.unsupported(node, f"{what} of a size known only at "
                                   "run time")
        if isinstance(expr, ViewLeaf) and expr.view.is_whole():
            return expr.view.container
        return self.snapshot(expr, node, "whole").container

    def materialize(self, expr, node, hint="tmp"):
        expr = self.to_expr(expr)
        if isinstance(expr, ViewLeaf):
            return expr.view
        v = self.transient_view(expr.shape, expr.dtype, node, hint)
        self.store(v, expr)
        return v

    def snapshot(self, expr, node, hint="snapshot"):
        """A new transient holding `expr`'s value now, even when `expr` is
        a plain view (materialize would return the view itself)."""
        expr = self.to_expr(expr)
        v = self.transient_view(expr.shape, expr.dtype, node, hint)
        self.store(v, expr)
        return v

    def stop_gradient(self, value, node):
        """sdfg.stop_gradient(value): a copy of it in a container the AD
        passes never differentiate (Python numbers are constants
        already)."""
        if isinstance(value, (int, float, bool)):
            return value
        expr = self.to_expr(value)
        if not is_float(expr.dtype):
            return value  # no derivative to stop
        v = self.transient_view(expr.shape, expr.dtype, node,
                                "stop_gradient", stop_gradient=True)
        self.store(v, expr)
        return v

    def materialize_if_view(self, value):
        """Snapshots a value that reads variables, so that the assignments
        of a tuple assignment do not see each other's effects (`a, b = b,
        a` must copy both before either store)."""
        if isinstance(value, View):
            if value.ndim == 0:
                return ScalarLeafCopy(self, ViewLeaf(value))
            return self.snapshot(ViewLeaf(value), self.current_node)
        if isinstance(value, Expr) and not isinstance(value, ConstLeaf):
            if not value.shape:
                return ScalarLeafCopy(self, value)
            v = self.transient_view(value.shape, value.dtype,
                                    self.current_node, "snapshot")
            self.store(v, value)
            return v
        return value

    def interval(self, idx):
        """Inclusive (lo, hi) ints bounding an Idx over all iterations.
        Where it reads iterators bounded by size expressions (a loop over
        `range(1, n - 1)`), also the bounds of the expression with those
        put in, so that `n - 1 - (i + 1)` is provably not negative for
        every n (symbolic_sizes.py)."""
        idx = as_idx(idx)
        lo, hi = self._numeric_interval(idx)
        if self.size_bounds and any(n in self.size_bounds
                                    for n in idx.terms):
            try:
                lo = max(lo, self._numeric_interval(
                    self.substitute_size_bounds(idx, True))[0])
                hi = min(hi, self._numeric_interval(
                    self.substitute_size_bounds(idx, False))[1])
            except FrontendError:
                pass
        return lo, hi

    def _numeric_interval(self, idx):
        lo = hi = idx.const
        for name, c in idx.terms.items():
            b = self.iter_bounds.get(name)
            if b is None:
                raise self.error("cannot bound the index value "
                                 f"{idx.render()}")
            blo, bhi = b
            if c > 0:
                lo += c * blo
                hi += c * bhi
            else:
                lo += c * bhi
                hi += c * blo
        return lo, hi

    def upper_extent(self, extent, node):
        lo, hi = self.interval(extent)
        return max(hi, 0)

    def static_extent(self, extent, node):
        extent = as_idx(extent)
        if not extent.is_const():
            raise self.unsupported(node, "array with a loop-dependent shape",
                                   "returned arrays need a shape known at "
                                   "compile time")
        return extent.const

    def store(self, dest, expr, cast=True, wcr=None):
        if dest.container in self.reshaped:
            raise self.unsupported(
                self.current_node, "writing into a reshaped array",
                "NumPy's reshape is a view, so the write would change the "
                "original array too; reshape after writing, or write "
                "into .reshape(...).copy()")
        self._check_reshape_sources(dest.container)
        if dest.readonly:
            raise self.error("assignment destination is read-only (NumPy's "
                             "diagonal is a read-only view; write through "
                             "np.fill_diagonal or index the array)",
                             self.current_node)
        expr = self.to_expr(expr)
        if cast and isinstance(expr, ConstLeaf) and is_float(expr.dtype) \
                and np.dtype(dest.dtype).kind in "iu":
            expr = self._integer_constant(expr.value, dest.dtype)
        shape = self.check_broadcast(expr.shape, dest.shape)
        if self.conflicts(dest, expr):
            # A copy first, even of a plain view: `a[1:] = a[:-1]` would
            # otherwise read what it has just written.
            expr = ViewLeaf(self.snapshot(expr, self.current_node, "tmp"))
        rank = dest.ndim
        if rank == 0:
            val = self.emit_scalar(expr, [], 0, dest.dtype)
            self.emit_store(val, dest, [], wcr)
            return
        with self.open_map(shape, self.schedule_for(shape, wcr)) as coords:
            val = self.emit_scalar(expr, coords, rank, dest.dtype, shape)
            self.emit_store(val, dest, coords, wcr)

    def _integer_constant(self, value, dtype):
        """A float constant stored into an integer array, as NumPy converts
        it (through a Python int, wrapping to the array's width): NaN,
        infinities and values beyond int64 are NumPy's errors. (LLVM's
        conversion of such a constant is poison: the store vanished.)"""
        v = float(value)
        if math.isnan(v):
            raise self.error("cannot convert float NaN to integer",
                             self.current_node)
        if math.isinf(v):
            raise self.error("cannot convert float infinity to integer",
                             self.current_node)
        iv = int(v)
        if not -2 ** 63 <= iv < 2 ** 63:
            raise self.error("Python int too large to convert to C long",
                             self.current_node)
        bits = np.dtype(dtype).itemsize * 8
        if np.dtype(dtype).kind == "u":
            iv %= 2 ** bits
        else:
            iv = (iv + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
        return ConstLeaf(iv, dtype)

    @contextlib.contextmanager
    def open_map(self, shape, schedule):
        """Emits an sdfg.map over `0 <= p < extent` per extent of `shape`
        and yields the coordinates (Idx of its parameters) in its body."""
        params = [self.em.fresh("p") for _ in shape]
        for p, e in zip(params, shape):
            self.iter_bounds[p] = (0, self.upper_extent(e, None) - 1)
            self.bound_by_sizes(p, Idx(0), as_idx(e) - 1)
        with self.em.block(ir.map_(params, ["0"] * len(params),
                                   [as_idx(e).render() for e in shape],
                                   ["1"] * len(params), schedule)):
            yield [Idx.of(p) for p in params]

    def schedule_for(self, shape, wcr):
        if self.device != "cpu":
            return "cpu_multicore"
        if wcr is not None:
            return "sequential"
        total = 1
        for e in shape:
            total *= max(self.upper_extent(e, None), 0)
        # Element counts below the compiler's threshold run sequentially:
        # forking threads costs more (SchedulePolicy.h).
        return "cpu_multicore" if \
            total >= policy.parallel_map_iterations() else "sequential"

    def emit_store(self, val, dest, coords, wcr=None):
        self.em.line(ir.store(val, dest.container.ssa,
                              [i.render() for i in dest.indices(coords)],
                              dest.container.mlir_type, wcr))

    def check_broadcast(self, src, dst):
        """The shape to iterate over to assign a value of shape `src` into
        `dst`: `dst`, where an extent known only at run time takes the
        result of an sdfg.broadcast_extent (NumPy's ValueError, when the
        program runs, where the extents do not broadcast)."""
        if len(src) > len(dst):
            raise self.error(f"cannot broadcast shape {fmt_shape(src)} into "
                             f"{fmt_shape(dst)}")
        shape = list(dst)
        for k in range(1, len(src) + 1):
            s, d = src[-k], dst[-k]
            if same_extent(s, d) or same_extent(s, 1):
                continue
            if as_idx(s).is_const() and as_idx(d).is_const():
                raise self.error(f"shape mismatch: cannot broadcast "
                                 f"{fmt_shape(src)} into {fmt_shape(dst)}")
            shape[-k] = self.broadcast_extent("assign", s, d)
        return shape

    def broadcast_extent(self, kind, a, b):
        """NumPy's broadcast of extents `a` and `b` that compiling cannot
        compare (windows clamped at an array's end, bounds read from
        data): an sdfg.broadcast_extent, emitted with the slice bounds
        before the statement's state. Where they do not broadcast, the
        program reports NumPy's ValueError and the result is the smaller
        extent, which no access sized by it can leave."""
        a, b = as_idx(a), as_idx(b)
        key = ("broadcast", kind, _idx_key(a), _idx_key(b))
        with self.index_place():
            memo = self._index_memo(key)
            if memo is not None:
                return memo
            name = self.em.fresh("b")
            self.em.line(ir.broadcast_extent(name, kind, self.index_ssa(a),
                                             self.index_ssa(b)))
            self._remember_index(key, name)
        try:
            (alo, ahi), (blo, bhi) = self.interval(a), self.interval(b)
        except FrontendError:
            pass  # unbounded, as its operands
        else:
            if kind == "assign":
                bounds = (min(alo, blo), bhi)
            else:
                # a where b is 1 or equal to it, b where a is 1, else
                # the smaller.
                hi = ahi if blo <= 1 else min(ahi, bhi)
                if alo <= 1:
                    hi = max(hi, bhi)
                bounds = (min(alo, blo), hi)
            self.iter_bounds[name] = bounds
        if self.is_data_index(a) or self.is_data_index(b):
            self.data_names.add(name)
        return Idx.of(name)

    def index_ssa(self, idx):
        """An SSA index name holding `idx`: its one term, or a tasklet."""
        idx = as_idx(idx)
        if idx.const == 0 and len(idx.terms) == 1 and \
                next(iter(idx.terms.values())) == 1:
            return next(iter(idx.terms))
        names = sorted(idx.terms)

        def body(tb, args):
            return [tb.index_value(idx, dict(zip(names, args)))]

        (name,) = self.em.tasklet([(n, "index") for n in names], ["index"],
                                  body)
        return name

    def conflicts(self, dest, expr):
        """Whether evaluating `expr` element by element while storing into
        `dest` could read an element another iteration already wrote."""
        for leaf in expr_leaves(expr):
            if isinstance(leaf, FancyLeaf):
                # Where a gather reads depends on data.
                if leaf.reads(dest.container):
                    return True
                continue
            if not isinstance(leaf, ViewLeaf):
                continue
            v = leaf.view
            if v.container is not dest.container:
                continue
            if self.same_mapping(v, dest, len(expr.shape)):
                continue
            if self.disjoint(v, dest):
                continue
            return True
        return False

    def same_mapping(self, v, dest, expr_rank):
        rank = dest.ndim
        coords = [Idx.of(f"%__c{k}") for k in range(rank)]
        leaf_coords = _broadcast_coords(v.shape, coords, rank)
        return v.indices(leaf_coords) == dest.indices(coords)

    def disjoint(self, a, b):
        ra, rb = self.footprint(a), self.footprint(b)
        if ra is None or rb is None:
            return False
        for (alo, ahi), (blo, bhi) in zip(ra, rb):
            if _provably_less(ahi, blo, self) or _provably_less(bhi, alo,
                                                                 self):
                return True
        return False

    def footprint(self, view):
        """Per container dimension, (lo, hi) Idx of the indices touched."""
        out = []
        for offset, stride, vdim in view.base:
            if vdim is None:
                out.append((offset, offset))
                continue
            last = offset + (as_idx(view.shape[vdim]) - 1).scale(stride)
            out.append((offset, last) if stride > 0 else (last, offset))
        return out

    def emit_scalar(self, expr, coords, rank, out_dtype=None, shape=None):
        """Emits the loads and the tasklet computing `expr` at `coords`
        (coordinates of the output, of length `rank`, whose extents are
        `shape` when they may differ from expr's); returns the SSA name
        of the result, converted to `out_dtype` when given."""
        out_dtype = np.dtype(out_dtype) if out_dtype is not None else \
            expr.dtype
        inputs = []
        arg_of = {}
        # An expression may share subexpressions (a DAG: np.interp's
        # fallbacks read the same value several times); each is loaded and
        # computed once.
        seen = set()
        clamps = {}

        def broadcast(coords_here, inner, outer):
            """The coordinates of an operand of shape `inner` in a result
            of shape `outer`. Extents that differ where compiling cannot
            compare them went through sdfg.broadcast_extent; an operand's
            extent that may be 1 there is read at min(i, extent - 1):
            NumPy's broadcast of a length-1 axis (elsewhere the extents
            agree or the program reports their mismatch)."""
            out = list(coords_here)
            for k in range(1, min(len(inner), len(outer)) + 1):
                e, o = as_idx(inner[-k]), outer[-k]
                if same_extent(e, o) or same_extent(e, 1) or \
                        not self._may_be_one(e):
                    continue
                key = (_idx_key(out[rank - k]), _idx_key(e))
                if key not in clamps:
                    clamps[key] = self._clamp_coordinate(out[rank - k], e)
                out[rank - k] = clamps[key]
            return out

        def gather(root, root_coords):
            # Depth first, each operand before the next (as a recursion
            # would, but with a stack: an expression may be a chain of
            # thousands of operations). An operand's coordinates are made
            # when it is reached.
            stack = [(root, root_coords, None)]
            while stack:
                e, coords_here, outer = stack.pop()
                if outer is not None:
                    coords_here = broadcast(coords_here, e.shape, outer)
                gather_one(e, coords_here, stack)

        def gather_one(e, coords_here, stack):
            if id(e) in seen:
                return
            seen.add(id(e))
            if isinstance(e, FancyLeaf):
                lc = _broadcast_coords(e.shape, coords_here, rank)
                name = self.load_fancy(e.fancy, lc)
                arg_of[id(e)] = len(inputs)
                inputs.append((name, mlir_scalar(e.dtype)))
            elif isinstance(e, ViewLeaf):
                lc = _broadcast_coords(e.view.shape, coords_here, rank)
                name = self.em.fresh("l")
                c = e.view.container
                self.em.line(ir.load(name, c.ssa, [
                    i.render() for i in e.view.indices(lc)], c.mlir_type))
                arg_of[id(e)] = len(inputs)
                inputs.append((name, mlir_scalar(c.dtype)))
            elif isinstance(e, ScalarLeaf):
                arg_of[id(e)] = len(inputs)
                inputs.append((e.ssa, mlir_scalar(e.dtype)))
            elif isinstance(e, IdxLeaf):
                for n in sorted(e.idx.terms):
                    if ("idx", n) not in arg_of:
                        arg_of[("idx", n)] = len(inputs)
                        inputs.append((n, "index"))
            elif isinstance(e, Op):
                stack.extend((a, coords_here, e.shape)
                             for a in reversed(e.args))

        gather(expr, coords if shape is None else
               broadcast(coords, expr.shape, shape))
        if isinstance(expr, (ViewLeaf, ScalarLeaf, FancyLeaf)) and \
                expr.dtype == out_dtype:
            return inputs[0][0]

        def body(tb, args):
            done = {}

            def gen(root):
                # Operands first, left to right, each once (iteratively:
                # see gather).
                stack = [root]
                while stack:
                    e = stack[-1]
                    if id(e) in done:
                        stack.pop()
                        continue
                    if isinstance(e, Op):
                        pending = [a for a in e.args if id(a) not in done]
                        if pending:
                            stack.extend(reversed(pending))
                            continue
                    stack.pop()
                    done[id(e)] = gen_new(e)
                return done[id(root)]

            def gen_new(e):
                if isinstance(e, (ViewLeaf, ScalarLeaf, FancyLeaf)):
                    return args[arg_of[id(e)]]
                if isinstance(e, ConstLeaf):
                    return tb.const(e.value, e.dtype)
                if isinstance(e, IdxLeaf):
                    acc = tb.index_value(e.idx, {
                        n: args[arg_of[("idx", n)]] for n in e.idx.terms})
                    return tb.index_to(acc, np.int64)
                return scalar_ops.gen_op(tb, e,
                                          [done[id(a)] for a in e.args],
                                          [a.dtype for a in e.args])
            result = gen(expr)
            return [tb.convert(result, expr.dtype, out_dtype)]

        return self.em.tasklet(inputs, [mlir_scalar(out_dtype)], body)[0]

    def _may_be_one(self, extent):
        try:
            lo, hi = self.interval(extent)
        except FrontendError:
            return True
        return lo <= 1 <= hi

    def _clamp_coordinate(self, p, extent):
        """min(p, extent - 1), in a tasklet where the element is read."""
        p, extent = as_idx(p), as_idx(extent)
        names = sorted(set(p.terms) | set(extent.terms))

        def body(tb, args):
            arg_of = dict(zip(names, args))
            return [tb.index_op("minsi", tb.index_value(p, arg_of),
                                tb.index_value(extent - 1, arg_of))]

        (name,) = self.em.tasklet([(n, "index") for n in names], ["index"],
                                  body)
        try:
            lo, hi = self.interval(p)
            self.iter_bounds[name] = (min(lo, 0), hi)
        except FrontendError:
            pass
        if self.is_data_index(p) or self.is_data_index(extent):
            self.data_names.add(name)
        return Idx.of(name)


def _broadcast_coords(shape, coords, rank):
    """Coordinates of a leaf of `shape` inside an output of rank `rank`."""
    r = len(shape)
    out = []
    for k in range(r):
        dim = rank - r + k
        if same_extent(shape[k], 1):
            out.append(Idx(0))
        else:
            out.append(coords[dim])
    return out


def _provably_less(a, b, tr):
    """a < b for every iteration."""
    d = as_idx(b) - as_idx(a)
    try:
        lo, _ = tr.interval(d)
    except FrontendError:
        return False
    return lo > 0
