"""Subscripts: basic slicing as views, boolean masks, advanced (integer
array) indexing as lazy gathers and scatters, and the index arithmetic
they need (negative indices, clamped slice bounds) (Translator mixin).
"""

import ast
import contextlib

import numpy as np

from .. import ir
from ..errors import FrontendError
from .. import numpy as numpy_functions
from . import complex_values
from .bindings import construct_name
from .values import (Expr, Idx, Masked, View, ViewLeaf, as_idx, expr_leaves,
                     is_float, same_extent, same_mask)


class Indexing:
    """Translator methods for `x[...]` reads and writes."""

    def eval_Subscript(self, node, store=False):
        """A subscript's value; with `store`, what an assignment writes
        into: a View, or a Fancy for integer-array indices."""
        base = self.eval(node.value)
        if isinstance(base, dict):
            if store:
                raise self.unsupported(node, "assignment into a dict",
                                       "dicts are read-only here; write "
                                       "into their arrays (d['W'][...] = "
                                       "...)")
            return self.dict_item(base, node)
        if isinstance(base, (tuple, list)):
            kind = type(base).__name__
            if store:
                raise self.unsupported(node, f"assignment into a {kind}",
                                       "lists and tuples are read-only here; "
                                       "use an array")
            return self.sequence_item(base, node.slice, kind, node)
        if isinstance(base, Expr):
            base = self.materialize(base, node)
        if isinstance(base, complex_values.Complex):
            return complex_values.subscript(self, base, node, store)
        if not isinstance(base, View):
            raise self.unsupported(node, "subscript of "
                                   + construct_name(node.value))
        items = self.slice_items(node.slice)
        # np.newaxis is None.
        items = [ast.copy_location(ast.Constant(None), it)
                 if self.is_newaxis(it) else it for it in items]
        return self.subscript(base, items, node, store=store)

    def slice_items(self, index):
        """The items of subscript `index`, where slice objects (`sl =
        slice(1, -1)`; `A[sl]`, `A[slice(1, n), 0]`, `A[idx]` with `idx` a
        tuple of them) stand as the ast.Slice they are."""
        if isinstance(index, ast.Name) and isinstance(
                self.env.get(index.id), tuple) and all(
                    isinstance(x, slice) or x is None or (
                        isinstance(x, (int, Idx)) and not isinstance(x, bool))
                    for x in self.env[index.id]) and any(
                        isinstance(x, slice) for x in self.env[index.id]):
            return [self._as_item(x, index) for x in self.env[index.id]]
        items = index.elts if isinstance(index, ast.Tuple) else [index]
        out = []
        for it in items:
            named = isinstance(it, ast.Name) and isinstance(
                self.env.get(it.id), slice)
            called = isinstance(it, ast.Call) and isinstance(
                it.func, ast.Name) and it.func.id == "slice" and \
                it.func.id not in self.env
            out.append(self._as_item(self.eval(it), it)
                       if named or called else it)
        return out

    def _as_item(self, value, where):
        """A subscript item for the Python value `value` (a slice, an
        index, None for a new axis)."""
        def node(v):
            if isinstance(v, Idx) and v.is_const():
                v = v.const
            return None if v is None else \
                ast.copy_location(ast.Constant(value=v), where)
        if isinstance(value, slice):
            return ast.copy_location(ast.Slice(lower=node(value.start),
                                               upper=node(value.stop),
                                               step=node(value.step)), where)
        return ast.copy_location(ast.Constant(value=value), where)

    def dict_item(self, base, node):
        """`base[key]` of a Python dict (a pytree argument, a dict
        literal): the key must be known when compiling. Iteration over a
        dict (iteration.py's `d[k]` with `k` counting) gives its keys."""
        key = self.eval(node.slice)
        if isinstance(key, Idx) and key.is_const():
            key = key.const
        if getattr(node, "sdfg_iteration", False) and isinstance(key, int):
            return list(base)[key]
        if not isinstance(key, (str, int)) or isinstance(key, bool):
            raise self.unsupported(node, "dict key computed at run time",
                                   "a dict's entries are chosen when the "
                                   "program is compiled: index it with a "
                                   "constant key")
        if key not in base:
            raise self.error(f"KeyError: {key!r} (the dict has keys "
                             f"{', '.join(map(repr, base))})", node)
        return base[key]

    def sequence_item(self, base, index, kind, node):
        """`base[index]` of a Python tuple or list: the index or slice
        bounds must be known at translation time."""
        def const(n):
            v = self.eval(n) if n is not None else None
            if isinstance(v, Idx) and v.is_const():
                v = v.const
            if v is None or (isinstance(v, int) and not isinstance(v, bool)):
                return v
            raise self.unsupported(node, f"{kind} index computed at run "
                                   "time", f"a {kind}'s items are chosen "
                                   "when the program is compiled")
        if isinstance(index, ast.Slice):
            items = base[slice(const(index.lower), const(index.upper),
                               const(index.step))]
            return items if isinstance(base, list) else tuple(items)
        numbers = len(base) > 0 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool)
            for x in base)
        if numbers:
            v = self.eval(index)
            if not (isinstance(v, int) or (isinstance(v, Idx) and
                                           v.is_const())):
                # Numbers picked by a loop variable or data (`coeffs[k]`):
                # an array of the numbers, indexed.
                table = numpy_functions.numpy_call(self, "array", [list(base)],
                                               {}, node)
                return self.subscript(table, [index], node)
        k = const(index)
        if not -len(base) <= k < len(base):
            raise self.error(f"{kind} index {k} out of range for a {kind} "
                             f"of length {len(base)}", node)
        return base[k]

    def is_newaxis(self, node):
        return (isinstance(node, ast.Attribute) and node.attr == "newaxis"
                and isinstance(node.value, ast.Name)
                and node.value.id not in self.env
                and self.globals.get(node.value.id) is np)

    def subscript_values(self, items):
        """(the values of a subscript's index items by id of their node,
        the positions of the arrays among them): each evaluated once,
        before any of the subscript's code; a list is an index array (as
        in NumPy), a boolean scalar refused."""
        values, advanced = {}, []
        for k, it in enumerate(items):
            if isinstance(it, ast.Slice) or (
                    isinstance(it, ast.Constant)
                    and (it.value is None or it.value is Ellipsis)):
                continue
            v = self.eval(it)
            if isinstance(v, list):
                v = numpy_functions.numpy_call(self, "array", [v], {}, it)
            values[id(it)] = v
            if isinstance(v, (View, Expr)) and len(v.shape) > 0:
                advanced.append(k)
            elif isinstance(v, (View, Expr)) and \
                    self.to_expr(v).dtype == np.bool_ or \
                    isinstance(v, (bool, np.bool_)):
                raise self.unsupported(
                    it, "a boolean scalar as an index",
                    "NumPy takes it as a 0-d mask: a new axis of length "
                    "0 or 1, known only at run time; index with an "
                    "integer (int(b)) or use np.where")
        return values, advanced

    def subscript(self, view, items, node, store=False, values=None):
        # Integer arrays among the items make this an advanced (fancy)
        # index.
        if values is None:
            values, advanced = self.subscript_values(items)
            masks = [k for k in advanced
                     if self.to_expr(values[id(items[k])]).dtype == np.bool_]
            if masks:
                return self.masked(view, items, values, masks, node)
            if advanced:
                fancy = self.fancy_subscript(view, items, values, advanced,
                                             node)
                # Read lazily, like any element-wise operand: a gather
                # fused into its consumer (np.mean(E[tokens], axis=1) is
                # one map) has no intermediate array for the forward to
                # fill or the gradient to clear and scatter from.
                return fancy if store else FancyLeaf(fancy)
        # Expand Ellipsis and count consumed dims.
        consumed = sum(1 for it in items
                       if not (isinstance(it, ast.Constant)
                               and it.value is None)
                       and not (isinstance(it, ast.Constant)
                                and it.value is Ellipsis))
        if consumed > view.ndim:
            raise self.error(f"too many indices for an array of dimension "
                             f"{view.ndim}", node)
        expanded = []
        for it in items:
            if isinstance(it, ast.Constant) and it.value is Ellipsis:
                expanded += [None] * (view.ndim - consumed)
            else:
                expanded.append(it)
        while sum(1 for it in expanded
                  if not (isinstance(it, ast.Constant)
                          and it.value is None)) < view.ndim:
            expanded.append(None)
        # Per view dim: ("fix", Idx) | ("range", start, step, length); plus
        # ("new",) for np.newaxis.
        new_shape = []
        vmap = {}  # old vdim -> new vdim or ("fix", idx)
        vd = 0
        for it in expanded:
            if isinstance(it, ast.Constant) and it.value is None:
                new_shape.append(Idx(1))
                continue
            extent = as_idx(view.shape[vd])
            if it is None:
                vmap[vd] = ("dim", len(new_shape), Idx(0), 1)
                new_shape.append(extent)
            elif isinstance(it, ast.Slice):
                start, step, length = self.slice_range(it, extent, node)
                vmap[vd] = ("dim", len(new_shape), start, step)
                new_shape.append(length)
            else:
                i = self.control_index(values[id(it)], it)
                if i.is_const() and extent.is_const():
                    if i.const < -extent.const or i.const >= extent.const:
                        raise self.error(f"index {i.const} is out of bounds "
                                         f"for axis {vd} with size "
                                         f"{extent.const}", it)
                    if i.const < 0:
                        i = Idx(i.const + extent.const)
                else:
                    i = self.element_index(i, view, vd)
                vmap[vd] = ("fix", i)
            vd += 1
        out_base = []
        for offset, stride, v in view.base:
            if v is None:
                out_base.append((offset, stride, None))
                continue
            m = vmap[v]
            if m[0] == "fix":
                out_base.append((offset + m[1].scale(stride), stride, None))
            else:
                _, nd, start, step = m
                out_base.append((offset + start.scale(stride), stride * step,
                                 nd))
        return View(view.container, out_base, new_shape, view.readonly)

    def masked(self, view, items, values, masks, node):
        """`x[mask]` with a mask of x's shape: a Masked, which assignments
        and the reductions that do not depend on the selection's length
        accept. The selection itself has a length known only at run
        time, so nothing else takes it."""
        mask = self.to_expr(values[id(items[masks[0]])])
        rank = len(mask.shape)
        whole = all(isinstance(it, ast.Slice) and it.lower is None and
                    it.upper is None and it.step is None
                    for it in items[1:])
        if masks[0] != 0 or not whole or rank > view.ndim or \
                len(items) > view.ndim - rank + 1 or not all(
                same_extent(a, b) for a, b in zip(mask.shape, view.shape)):
            raise self.unsupported(
                node, "boolean mask indexing",
                "only a mask of the array's shape or of its leading "
                "dimensions (rows: x[m], x[m, :]), first in the subscript, "
                "is supported (x[mask] = v, x[mask] += v, np.sum/np.mean/"
                "np.prod of x[mask]); else use np.where(mask, x, 0)")
        if rank < view.ndim:
            # Rows: the mask, computed once before any element changes,
            # repeated along the trailing dimensions (a view that reads
            # mask[i] at (i, j)), selects whole rows as NumPy's x[m].
            m = self.materialize(mask, node, "mask")
            rows = ViewLeaf(View(m.container, m.base,
                                 list(m.shape) + list(view.shape[rank:])))
            rows.origin = mask
            mask = rows
        return Masked(view, mask)

    def masked_operands(self, args, node):
        """For element-wise arithmetic on selections (`2.0 * y[m]`): the
        common mask and the operands with their selections unwrapped, or
        None when no operand is a Masked. A selection combines with
        scalars and with selections by the same mask only."""
        masked = [a for a in args if isinstance(a, Masked)]
        if not masked:
            return None
        mask = masked[0].mask
        out = []
        for a in args:
            if isinstance(a, Masked):
                if not same_mask(a.mask, mask):
                    raise self.unsupported(
                        node, "selections by different masks",
                        "combine selections made by the same mask variable "
                        "(m = ...; x[m] + y[m])")
                out.append(a.value)
            elif isinstance(a, (View, Expr)) and len(a.shape) > 0:
                raise self.unsupported(
                    node, "an array combined with a masked selection",
                    "the selection's length is known only at run time; "
                    "select the array by the same mask")
            else:
                out.append(a)
        return mask, out

    def masked_store(self, dest, value, node, op=None):
        """`x[mask] = v` (op None) or `x[mask] op= v` (op: a function of the
        current and the new value): the elements the
        mask selects get the new value, in place, as np.where would give
        it. `v` is a scalar, or `y[mask]` with the same mask (NumPy then
        assigns the selected elements in order: element by element)."""
        if isinstance(value, Masked):
            if not same_mask(value.mask, dest.mask):
                raise self.unsupported(
                    node, "assignment of a masked selection",
                    "the right-hand side must be selected by the same mask "
                    "variable (m = ...; x[m] = y[m])")
            new = self.to_expr(value.value)
        else:
            new = self.to_expr(value)
            if new.shape and not all(same_extent(e, 1) for e in new.shape):
                raise self.unsupported(
                    node, "assignment of an array to a masked selection",
                    "its length must match the number of selected elements, "
                    "known only at run time; assign a scalar, y[mask] with "
                    "the same mask, or use np.where")
        current = ViewLeaf(dest.value)
        if op is not None:
            new = op(current, new)
        self.store(dest.value,
                   numpy_functions.where(self, dest.mask, new, current, node),
                   cast=True)

    def fancy_subscript(self, view, items, values, advanced, node):
        """The Fancy for a subscript whose items `advanced` (positions) are
        integer arrays. Integer scalars beside them count as advanced too
        for where the broadcast index dimensions go, as in NumPy: in place
        when the advanced items are adjacent, else first."""
        exprs = []
        for k in advanced:
            e = self.to_expr(values[id(items[k])])
            if e.dtype == np.bool_:
                raise self.unsupported(
                    items[k], "boolean mask indexing",
                    "the result's length depends on the data; use "
                    "np.where(mask, x, 0) or a loop with an if")
            if is_float(e.dtype):
                raise self.error("arrays used as indices must be of integer "
                                 "type", items[k])
            exprs.append(e)
        bshape = []
        for e in exprs:
            bshape = self.broadcast_shapes(bshape, e.shape)
        # The basic subscript with each advanced item a full slice; the
        # dimensions those slices keep are the ones indexed by data.
        marks = {k: ast.copy_location(ast.Slice(), items[k])
                 for k in advanced}
        basic = [marks.get(k, it) for k, it in enumerate(items)]
        base = self.subscript(view, basic, node, values=values)
        consumed = sum(1 for it in items
                       if not (isinstance(it, ast.Constant)
                               and it.value in (None, Ellipsis)))
        dims, first, d = [], None, 0
        scalar_or_array = []
        for k, it in enumerate(items):
            if isinstance(it, ast.Constant) and it.value is Ellipsis:
                d += view.ndim - consumed
            elif isinstance(it, ast.Constant) and it.value is None:
                d += 1
            elif k in marks:
                dims.append(d)
                scalar_or_array.append(k)
                first = d if first is None else first
                d += 1
            elif isinstance(it, ast.Slice):
                d += 1
            else:
                scalar_or_array.append(k)
                if first is None:
                    first = d
        adjacent = scalar_or_array == list(
            range(scalar_or_array[0], scalar_or_array[-1] + 1))
        # An argument used whole as the index array of a subscript that
        # always runs: the caller checks its values against the extent
        # before the call, so that an index out of bounds raises
        # IndexError as in NumPy instead of reaching outside the array.
        # (In loops and branches NumPy would not raise for a subscript
        # that never runs; those, and indices computed in the program,
        # are not checked.)
        if self.loop_depth == 0:
            for d, e in zip(dims, exprs):
                extent = as_idx(base.shape[d])
                if isinstance(e, ViewLeaf) and \
                        e.view.container.kind == "arg" and \
                        e.view.is_whole() and extent.is_const():
                    lineno = getattr(node, "lineno", 1) + self.firstline - 1
                    self.sig.index_checks.append(
                        (e.view.container.name, extent.const,
                         f"{self.filename}:{lineno}"))
        return Fancy(base, dims, exprs, bshape, first if adjacent else 0)

    def index_items(self, view, index, node):
        """The Fancy of `view[index]` for `index` a value (an integer
        array, or a tuple of them and integers) rather than syntax, as
        np.add.at and np.take receive it."""
        parts = index if isinstance(index, tuple) else (index,)
        if len(parts) > view.ndim:
            raise self.error(f"too many indices for an array of dimension "
                             f"{view.ndim}", node)
        items, values, advanced = [], {}, []
        for k, v in enumerate(parts):
            if v is None or isinstance(v, (float, str)):
                raise self.unsupported(node, "index of type "
                                       + type(v).__name__)
            item = ast.copy_location(ast.Name(f"__index{k}"), node)
            items.append(item)
            values[id(item)] = v
            if isinstance(v, (View, Expr)) and len(v.shape) > 0:
                advanced.append(k)
        if not advanced:
            raise self.unsupported(node, "np.add.at with scalar indices",
                                   "write x[i] += v")
        return self.fancy_subscript(view, items, values, advanced, node)

    def gather(self, fancy, node):
        """A new array holding the elements `fancy` selects (NumPy copies
        on advanced indexing)."""
        out = self.transient_view(fancy.shape, fancy.base.dtype, node,
                                  "gathered")
        with self.open_map(fancy.shape,
                           self.schedule_for(fancy.shape, None)) as coords:
            self.emit_store(self.load_fancy(fancy, coords), out, coords)
        return out

    def fancy_coords(self, fancy, coords):
        """Indices into fancy.base of the element at output `coords`:
        the index arrays are read there and wrapped when negative."""
        nb = len(fancy.bshape)
        bcoords = coords[fancy.at:fancy.at + nb]
        rest = iter(coords[:fancy.at] + coords[fancy.at + nb:])
        data = {}
        for d, e in zip(fancy.dims, fancy.exprs):
            val = self.emit_scalar(e, bcoords, nb, np.int64, fancy.bshape)
            data[d] = self.data_index(val, fancy.base.shape[d])
        return [data[d] if d in data else next(rest)
                for d in range(fancy.base.ndim)]

    def load_fancy(self, fancy, coords):
        idx = fancy.base.indices(self.fancy_coords(fancy, coords))
        name = self.em.fresh("l")
        c = fancy.base.container
        self.em.line(ir.load(name, c.ssa, [i.render() for i in idx],
                             c.mlir_type))
        return name

    def data_index(self, value, extent):
        """An index from the i64 SSA `value` read from data, counted from
        the end of a dimension of `extent` when negative."""
        wrapped = self.wrap_negative(Idx.of(self.index_from(value)), extent)
        self.data_names.update(wrapped.terms)
        return wrapped

    def scatter(self, fancy, value, node, wcr=None):
        """`x[idx] = value` (wcr None): element by element in order, in
        loops, so that the last of repeated indices wins as in NumPy and
        the autodiff replays the overwrites in order; `np.add.at` (wcr
        add): an accumulating map, repeated indices adding up."""
        if fancy.base.readonly:
            raise self.error("assignment destination is read-only",
                             self.current_node)
        expr = self.to_expr(value)
        shape = self.check_broadcast(expr.shape, fancy.shape)
        target = fancy.base.container
        # The value and the index arrays as they are before any element
        # is written (they may read the target).
        if any(_leaf_reads(leaf, target) for leaf in expr_leaves(expr)):
            expr = ViewLeaf(self.snapshot(expr, node, "tmp"))
        fancy.exprs = [
            ViewLeaf(self.snapshot(e, node, "idx"))
            if any(_leaf_reads(leaf, target) for leaf in expr_leaves(e)) else e
            for e in fancy.exprs]
        rank = len(fancy.shape)
        dtype = fancy.base.dtype

        def element(coords):
            val = self.emit_scalar(expr, coords, rank, dtype, shape)
            idx = self.fancy_coords(fancy, coords)
            self.emit_store(val, fancy.base, idx, wcr)

        if rank == 0:
            element([])
            return
        if wcr is not None:
            with self.open_map(shape, self.schedule_for(shape, wcr)) \
                    as coords:
                element(coords)
            return
        with self.control_section(), contextlib.ExitStack() as loops:
            ivs = []
            for e in shape:
                iv = self.em.fresh("i")
                self.iter_bounds[iv] = (0, self.upper_extent(e, None) - 1)
                loops.enter_context(self.em.block(
                    ir.loop(iv, 0, as_idx(e).render(), 1)))
                ivs.append(iv)
            with self.em.block(ir.STATE):
                element([Idx.of(iv) for iv in ivs])

    def slice_range(self, sl, extent, node):
        """(start Idx, step int, length Idx) of a slice over `extent`."""
        step = 1
        if sl.step is not None:
            s = self.eval(sl.step)
            if not isinstance(s, int):
                raise self.unsupported(sl, "slice step",
                                       "slice steps must be constants")
            step = s
        if step == 0:
            raise self.error("slice step cannot be zero", sl)

        # NumPy's slice bounds: counted from the end when negative, then
        # clamped, to [0, n] for a positive step and [-1, n - 1] (-1: before
        # the first element) for a negative one.
        below = 0 if step > 0 else -1
        written = []  # each bound as written (None: omitted), in order

        def bound(expr_node, default):
            if expr_node is None:
                written.append(None)
                return default
            # One statement's equal bound expressions (`data[p[i]:p[i+1]]`
            # and `cols[p[i]:p[i+1]]` in one np.dot) read their data once,
            # so that the windows' lengths are provably equal. Calls
            # (which may write the data) are evaluated each time.
            key = ("expr", ast.dump(expr_node))
            cacheable = not any(isinstance(n, (ast.Call, ast.NamedExpr))
                                for n in ast.walk(expr_node))
            v = self._index_memo(key) if cacheable else None
            if v is None:
                v = self.control_index(self.eval(expr_node), expr_node)
                if cacheable and not v.is_const():
                    self._remember_index(key, v)
            written.append(v)
            return self.slice_bound(v, extent, below)

        saved = self.hoisted_index
        with self.index_section() as hoisted:
            self.hoisted_index = hoisted
            try:
                if step > 0:
                    start = bound(sl.lower, Idx(0))
                    stop = bound(sl.upper, extent)
                    length = self.ceil_div(stop - start, step)
                    if step == 1:
                        self._tighten_length(length, start, written[1],
                                             extent)
                else:
                    start = bound(sl.lower, extent - 1)
                    stop = bound(sl.upper, Idx(-1))
                    length = self.ceil_div(start - stop, -step)
            finally:
                self.hoisted_index = saved
        if length.is_const() and length.const == 0:
            start = Idx(0)  # an empty slice reads nothing
        return start, step, length

    def _tighten_length(self, length, start, v, extent):
        """The interval of a window's length `min(v, extent) - start`, for
        `start` in the dimension and `v` (the stop as written) not
        negative: `x[i:i + 3]` over every i is 1 to 3 long, where the
        length's tasklet alone gives 0 to 3 (its operands' intervals do
        not know they move together)."""
        if v is None or length.is_const() or len(length.terms) != 1:
            return
        name = next(iter(length.terms))
        if name not in self.iter_bounds or length != Idx.of(name):
            return
        try:
            if self.interval(v)[0] < 0 or self.interval(start)[0] < 0 or \
                    self.interval(as_idx(extent) - start)[0] < 0:
                return
            (a, b), (c, d) = self.interval(v - start), \
                self.interval(as_idx(extent) - start)
        except FrontendError:
            return
        lo, hi = self.iter_bounds[name]
        self.iter_bounds[name] = (max(lo, 0, min(a, c)),
                                  min(hi, max(0, min(b, d))))

    def slice_bound(self, v, extent, below):
        """Slice bound `v` over a dimension of `extent` as NumPy reads it:
        `extent + v` where negative, then clamped to [below, extent +
        below]. Computed at run time (one tasklet) unless the bound is
        provably there already: a window `x[i:i + 3]` whose loop can run
        past the end is shorter in the last iterations, and a bound read
        from data may be anywhere."""
        v, extent = as_idx(v), as_idx(extent)
        top = extent + below
        if v.is_const() and extent.is_const():
            c = v.const + extent.const if v.const < 0 else v.const
            return Idx(min(max(c, below), top.const))
        wrap = True
        try:
            lo, hi = self.interval(v)
            if hi < 0:  # negative in every iteration: from the end
                v, wrap = extent + v, False
            elif lo >= 0:
                wrap = False
            if not wrap and self.interval(v - below)[0] >= 0 and \
                    self.interval(top - v)[0] >= 0:
                return v
        except FrontendError:
            pass  # bounds unknown: wrapped and clamped at run time
        key = ("bound", _idx_key(v), _idx_key(extent), below, wrap)
        memo = self._index_memo(key)
        if memo is not None:
            return memo
        names = sorted(set(v.terms) | set(extent.terms))

        def body(tb, args):
            arg_of = dict(zip(names, args))
            r = tb.index_value(v, arg_of)
            if wrap:
                neg = tb.index_compare("slt", r, tb.index_const(0))
                wrapped = tb.index_value(v + extent, arg_of)
                r = tb.index_op("select", neg, wrapped, r)
            r = tb.index_op("maxsi", r, tb.index_const(below))
            return [tb.index_op("minsi", r, tb.index_value(top, arg_of))]

        (name,) = self.em.tasklet([(n, "index") for n in names], ["index"],
                                  body)
        self.iter_bounds[name] = (below,
                                  self.upper_extent(extent, None) + below)
        if self.is_data_index(v):
            self.data_names.add(name)
        return self._remember_index(key, name)

    def _index_memo(self, key):
        """The index value computed for `key` before the current
        statement's state, if any (see index_section)."""
        if not self.hoisted_index:
            return None
        return self.statements[-1].index_memo.get(key)

    def _remember_index(self, key, value):
        """Records `value` (an Idx or the SSA name of one) for `key` in
        the current statement, where its computation is hoisted."""
        value = value if isinstance(value, Idx) else Idx.of(value)
        if self.hoisted_index:
            self.statements[-1].index_memo[key] = value
        return value

    def element_index(self, i, view, vd):
        """Index `i` into dimension `vd` of `view` as NumPy reads it:
        counted from the end where negative (in every iteration: `extent +
        i`; in some, or from data: at run time), and NumPy's IndexError
        where it may fall outside the dimension. Compiling proves most
        indices in range (a loop over the interior); the others are
        checked when the program runs (`u[i + 1]` over every i, `w[k]`
        of a window w): the lowering checks data-derived indices against
        their container, which is the dimension itself when the view
        covers it whole, and an sdfg.check_index checks the rest."""
        extent = as_idx(view.shape[vd])
        if i.is_const() and i.const < 0:
            # From the end of a window whose length only the run knows.
            i = extent + i
            if self._provably_inside(i, extent):
                return i
            with self.index_place(i):
                return self._check_in_view(i, view, vd, lowered_check=False)
        try:
            lo, hi = self.interval(i)
        except FrontendError:
            return i  # bounds unknown (a symbol): trusted, as before
        if hi < 0:
            i = extent + i  # negative in every iteration: from the end
        elif lo < 0 or self.is_data_index(i):
            # The sign is known only at run time (a loop from -2, data):
            # wrapped in a tasklet, whose result the lowering checks.
            with self.index_place(i):
                return self._check_in_view(self.wrap_negative(i, extent),
                                           view, vd, lowered_check=True)
        if self._provably_inside(i, extent):
            return i
        with self.index_place(i):
            return self._check_in_view(i, view, vd, lowered_check=False)

    @contextlib.contextmanager
    def index_place(self, i=None):
        """Where index arithmetic (on `i`) goes: with the slice bounds
        before the statement's state, unless `i` is computed in it (read
        from data)."""
        if i is not None and self.is_data_index(i):
            yield
            return
        saved = self.hoisted_index
        with self.index_section() as hoisted:
            self.hoisted_index = hoisted
            try:
                yield
            finally:
                self.hoisted_index = saved

    def _provably_inside(self, i, extent):
        try:
            return self.interval(i)[0] >= 0 and \
                self.interval(as_idx(extent) - 1 - i)[0] >= 0
        except FrontendError:
            return False

    def _check_in_view(self, i, view, vd, lowered_check):
        """`i` checked against dimension `vd` of `view` when the program
        runs: by the lowering's check of a data-derived index where the
        view covers its container's dimension, else by check_index."""
        if lowered_check and self._whole_dimension(view, vd):
            return i
        extent = as_idx(view.shape[vd])
        key = ("check", _idx_key(i), _idx_key(extent), vd)
        memo = self._index_memo(key)
        if memo is not None:
            return memo
        name = self.em.fresh("k")
        self.em.line(ir.check_index(name, self.index_ssa(i),
                                    self.index_ssa(extent), vd))
        try:
            self.iter_bounds[name] = (0, max(self.interval(extent)[1] - 1,
                                             0))
        except FrontendError:
            pass
        if self.is_data_index(i):
            self.data_names.add(name)
        return self._remember_index(key, name)

    def require_elements(self, extent):
        """NumPy's ValueError, when the program runs, where `extent` (an
        axis a max, min, argmax or argmin reduces, known only at run time)
        is 0: an sdfg.check_index of 0 with axis -3, which the runtime
        reads as that error."""
        extent = as_idx(extent)
        try:
            if self.interval(extent)[0] >= 1:
                return
        except FrontendError:
            pass
        with self.index_place(extent):
            key = ("nonempty", _idx_key(extent))
            if self._index_memo(key) is not None:
                return
            name = self.em.fresh("k")
            self.em.line(ir.check_index(name, self.index_ssa(Idx(0)),
                                        self.index_ssa(extent), -3))
            self._remember_index(key, name)

    @staticmethod
    def _whole_dimension(view, vd):
        """Whether dimension `vd` of `view` is a whole dimension of its
        container, in order."""
        for d, (offset, stride, v) in enumerate(view.base):
            if v == vd:
                return offset == Idx(0) and stride == 1 and same_extent(
                    view.shape[vd], view.container.shape[d])
        return False

    def is_data_index(self, idx):
        return any(n in self.data_names for n in as_idx(idx).terms)

    def wrap_negative(self, i, extent):
        """`i` or, where it is negative, `extent + i`, chosen at run time:
        NumPy's reading of a subscript whose sign depends on data (an index
        array's element, a loop over data-dependent bounds). The result is
        taken to lie in the dimension, as NumPy would raise otherwise."""
        extent = as_idx(extent)
        names = sorted(set(i.terms) | set(extent.terms))

        def body(tb, args):
            arg_of = dict(zip(names, args))
            v = tb.index_value(i, arg_of)
            wrapped = tb.index_value(i + extent, arg_of)
            neg = tb.index_compare("slt", v, tb.index_const(0))
            return [tb.index_op("select", neg, wrapped, v)]

        (name,) = self.em.tasklet([(n, "index") for n in names], ["index"],
                                  body)
        self.iter_bounds[name] = (0, max(self.upper_extent(extent, None) - 1,
                                         0))
        return Idx.of(name)

    def ceil_div(self, v, d):
        if v.is_const():
            return Idx(max(0, -(-v.const // d)))
        lo, hi = self.interval(v)
        if d == 1 and lo >= 0:
            return v
        # max(0, ceil(v / d)) in a tasklet over the index values involved.
        key = ("ceil_div", _idx_key(v), d)
        memo = self._index_memo(key)
        if memo is not None:
            return memo
        names = sorted(v.terms)

        def body(tb, args):
            acc = tb.index_value(v, dict(zip(names, args)))
            q = tb.index_op("ceildivsi", acc, tb.index_const(d))
            return [tb.index_op("maxsi", q, tb.index_const(0))]

        (name,) = self.em.tasklet([(n, "index") for n in names], ["index"],
                                  body)
        self.iter_bounds[name] = (max(0, -(-lo // d)), max(0, -(-hi // d)))
        return self._remember_index(key, name)


class Fancy:
    """An advanced (integer-array) subscript: `base` is the view with every
    advanced item taken as a full slice; its dimensions `dims` are indexed
    by `exprs` (integer arrays broadcast to `bshape`), whose dimensions go
    to position `at` of the result."""

    def __init__(self, base, dims, exprs, bshape, at):
        self.base = base
        self.dims = dims
        self.exprs = exprs
        self.bshape = list(bshape)
        self.at = at
        rest = [e for d, e in enumerate(base.shape) if d not in dims]
        self.shape = rest[:at] + self.bshape + rest[at:]
        self.dtype = base.dtype


class FancyLeaf(Expr):
    """An advanced subscript read lazily: each element is loaded where
    the consuming map needs it (index arrays read, wrapped, then the
    element)."""

    def __init__(self, fancy):
        self.fancy = fancy
        self.shape = list(fancy.shape)
        self.dtype = fancy.base.dtype

    def reads(self, container):
        return self.fancy.base.container is container or any(
            _leaf_reads(leaf, container)
            for e in self.fancy.exprs for leaf in expr_leaves(e))


def _leaf_reads(leaf, container):
    if isinstance(leaf, FancyLeaf):
        return leaf.reads(container)
    return isinstance(leaf, ViewLeaf) and leaf.view.container is container


def _idx_key(idx):
    """An Idx as a hashable key."""
    idx = as_idx(idx)
    return idx.const, tuple(sorted(idx.terms.items()))
