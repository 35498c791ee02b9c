"""Simple statements: expression statements (calls given out=, in-place
methods), assignments and augmented assignments, assert, pass and
return (the program's outputs).
"""

import ast
import copy
import math
import types

import numpy as np

from . import callables
from ..desugar.astutil import fix_locations
from ..semantics import complex_values
from ..semantics.bindings import name_permutation
from .global_values import inlinable
from ..semantics.indexing import Fancy
from ..semantics.operators import BINOPS, BITOPS
from ..semantics.values import (ConstLeaf, Container, Expr, Idx, IdxLeaf,
                                Masked, View, ViewLeaf,
                     as_idx, same_extent)


# NumPy's ufunc of each augmented assignment (for its casting error).
_UFUNC_NAMES = {
    ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply",
    ast.Div: "divide", ast.FloorDiv: "floor_divide", ast.Mod: "remainder",
    ast.Pow: "power", ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or",
    ast.BitXor: "bitwise_xor", ast.LShift: "left_shift",
    ast.RShift: "right_shift",
}


class Statements:
    """Translates simple statements (visit_Expr, visit_Assign, ...).

    A mixin of Translator (translator.py), sharing its state."""

    def visit_Pass(self, node):
        pass

    def visit_Assert(self, node):
        # Shapes and int arguments are constants of the compiled program,
        # so an assert on them is decided here, once per signature; one on
        # array values would need a run-time check the program lacks.
        with self.em.capture() as pre:
            test = self.eval(node.test)
        if isinstance(test, Idx) and test.is_const():
            test = test.const
        if pre.dataflow or not isinstance(test, (bool, int, float)):
            raise self.unsupported(node, "assert on values computed at run "
                                   "time", "only asserts on shapes, int "
                                   "arguments and constants are checked "
                                   "(when compiling); check array values "
                                   "outside the program")
        self.em.splice(pre)
        if not test:
            msg = node.msg
            message = msg.value if isinstance(msg, ast.Constant) and \
                isinstance(msg.value, str) else ast.unparse(msg or node.test)
            raise self.error(f"assertion failed for these arguments: "
                             f"{message}", node)

    def _output_operand(self, call):
        """(the call without its output operand, that operand's node) for
        a call given `out=` (or a ufunc's extra positional argument, as in
        np.exp(a, a)); (call, None) otherwise."""
        out = [k for k in call.keywords if k.arg == "out"]
        ufunc = None
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(
                func.value, ast.Name) and func.value.id not in self.env \
                and self.globals.get(func.value.id) is np:
            ufunc = getattr(np, func.attr, None)
            if not isinstance(ufunc, np.ufunc):
                ufunc = None
        if out:
            target = out[0].value
            stripped = copy.copy(call)
            stripped.keywords = [k for k in call.keywords if k.arg != "out"]
        elif ufunc is not None and len(call.args) == ufunc.nin + 1 and \
                not any(isinstance(a, ast.Starred) for a in call.args):
            target = call.args[-1]
            stripped = copy.copy(call)
            stripped.args = call.args[:-1]
        else:
            return call, None, None
        if isinstance(target, ast.Tuple):
            if len(target.elts) != 1:
                raise self.unsupported(call, "out= with several outputs")
            target = target.elts[0]
        return stripped, target, ufunc

    def _call_into(self, call, target, ufunc, node, bind=None):
        """Computes `call` and writes it into the array `target` names, as
        NumPy's out= does; `bind` (a Name) then names that array."""
        with self.statement() as stmt:
            value = self.eval(call)
            dest = self.eval(target)
            if not isinstance(dest, View):
                raise self.unsupported(target, "out= that is not an array",
                                       "give an array variable or a slice "
                                       "of one")
            result = self.to_expr(value)
            if ufunc is not None:
                # Ufuncs cast into out= by the same_kind rule, and
                # broadcast their inputs to its shape.
                if not np.can_cast(result.dtype, dest.dtype,
                                   casting="same_kind"):
                    raise self.error(
                        f"Cannot cast ufunc '{ufunc.__name__}' output from "
                        f"dtype('{np.dtype(result.dtype)}') to "
                        f"dtype('{np.dtype(dest.dtype)}') with casting rule "
                        "'same_kind'", node)
            elif self._is_np_call(call, "dot") and (
                    np.dtype(result.dtype) != np.dtype(dest.dtype) or
                    len(result.shape) != len(dest.shape) or
                    not _c_contiguous(dest)):
                # np.dot writes its result straight into out=.
                raise self.error(
                    "output array is not acceptable (must have the right "
                    "datatype, number of dimensions, and be a C-Array)", node)
            elif len(result.shape) != len(dest.shape) or not all(
                    same_extent(a, b)
                    for a, b in zip(result.shape, dest.shape)):
                # Other functions (np.sum, np.cumsum, np.dot...) need
                # out= of their result's shape exactly.
                raise self.error(
                    "out= has shape " + _shape_text(dest.shape) +
                    " but the result has shape " +
                    _shape_text(result.shape), node)
            into = fix_locations(ast.copy_location(ast.Subscript(
                value=target, slice=ast.Constant(value=Ellipsis),
                ctx=ast.Store()), target))
            self.assign(into, value, node)
            if bind is not None:
                self.assign(bind, self.eval(target), node)
            stmt.done()

    def _is_np_call(self, call, name):
        """Whether `call` calls np.<name> (numpy bound to a global)."""
        f = call.func
        return isinstance(f, ast.Attribute) and f.attr == name and \
            isinstance(f.value, ast.Name) and f.value.id not in self.env \
            and self.globals.get(f.value.id) is np

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            return  # docstring
        if isinstance(node.value, ast.Call):
            call, target, ufunc = self._output_operand(node.value)
            if target is not None:
                self._call_into(call, target, ufunc, node)
                return
            func = node.value.func
            if isinstance(func, ast.Attribute) and func.attr == "fill" and \
                    len(node.value.args) == 1 and not node.value.keywords \
                    and isinstance(func.value, (ast.Name, ast.Subscript)):
                # a.fill(v): NumPy's in-place fill, a[...] = v (which casts
                # v to a's type the same way).
                target = ast.copy_location(ast.Subscript(
                    value=func.value, slice=ast.Constant(value=Ellipsis),
                    ctx=ast.Store()), func.value)
                self.visit_Assign(fix_locations(
                    ast.copy_location(ast.Assign(
                        targets=[target], value=node.value.args[0]), node)))
                return
            helper = isinstance(func, ast.Name) and (
                (func.id not in self.env and inlinable(
                    self.globals.get(func.id)) is not None) or
                isinstance(self.env.get(func.id), callables.LocalFunction))
            # `mod.step(x)`: a function of an imported module of the
            # program's own, called for its in-place effects.
            helper = helper or (
                isinstance(func, ast.Attribute) and
                isinstance(func.value, ast.Name) and
                func.value.id not in self.env and isinstance(
                    self.globals.get(func.value.id), types.ModuleType) and
                self.globals[func.value.id] not in (np, math) and
                inlinable(getattr(self.globals[func.value.id], func.attr,
                                   None)) is not None)
            # np.add.at(x, idx, v) updates x in place.
            add_at = isinstance(func, ast.Attribute) and func.attr == "at" \
                and isinstance(func.value, ast.Attribute) and \
                func.value.attr in ("add", "subtract") and \
                isinstance(func.value.value, ast.Name) and \
                func.value.value.id not in self.env and \
                self.globals.get(func.value.value.id) is np
            fill_diagonal = isinstance(func, ast.Attribute) and \
                func.attr == "fill_diagonal" and \
                isinstance(func.value, ast.Name) and \
                func.value.id not in self.env and \
                self.globals.get(func.value.id) is np
            add_at = add_at or fill_diagonal
            # np.random.seed(s) seeds the legacy generator (random.py).
            add_at = add_at or isinstance(func, ast.Attribute) and \
                func.attr == "seed" and \
                isinstance(func.value, ast.Attribute) and \
                func.value.attr == "random" and \
                isinstance(func.value.value, ast.Name) and \
                func.value.value.id not in self.env and \
                self.globals.get(func.value.value.id) is np
            # print(...) prints when the program runs (printing.py).
            add_at = add_at or isinstance(func, ast.Name) and \
                func.id == "print" and func.id not in self.env and \
                self.globals.get(func.id, print) is print
            # a.sort() sorts the array variable in place.
            in_place = isinstance(func, ast.Attribute) and \
                func.attr == "sort" and isinstance(func.value, ast.Name) \
                and isinstance(self.env.get(func.value.id), View)
            if helper or add_at or in_place:
                # A call made for its in-place effects.
                with self.statement() as stmt:
                    self.eval(node.value)
                    stmt.done()
                return
            raise self.unsupported(node, "call of "
                                   + ast.unparse(node.value.func),
                                   "only NumPy functions and array methods "
                                   "whose result is used can be called")
        raise self.unsupported(node, "expression statement",
                               "an expression whose value is discarded has no "
                               "effect in NumPy semantics the frontend keeps")

    def visit_Assign(self, node):
        if len(node.targets) != 1:
            # `a = b = np.zeros(n)`, `u[0] = u[-1] = 0.0`: one value, bound
            # or stored to each target from the left, as Python does
            # (arrays: one array, two names).
            with self.statement() as stmt:
                value = self.eval(node.value)
                if any(not isinstance(t, ast.Name) for t in node.targets) \
                        and isinstance(value, Expr) and \
                        not isinstance(value, (ConstLeaf, ViewLeaf)):
                    # A value computed once, before the first store
                    # changes what it reads (`a[1:] = b[1:] = a[:-1] *
                    # 2`); a view stays one: NumPy's second store reads
                    # the view after the first (`a[1:] = b[1:] =
                    # a[:-1]`).
                    value = self.materialize(value, node, "chained")
                for t in node.targets:
                    self.assign(t, value, node)
                stmt.done()
            return
        target = node.targets[0]
        if isinstance(node.value, ast.Call) and isinstance(target, ast.Name):
            call, into, ufunc = self._output_operand(node.value)
            if into is not None:
                # y = np.add(a, b, out=c): c is written, y names c.
                self._call_into(call, into, ufunc, node, bind=target)
                return
        if isinstance(target, ast.Tuple) and not isinstance(node.value,
                                                             ast.Tuple):
            # `a, b = f(x)`: a tuple value (a helper's results, copies
            # already, or a tuple of shapes).
            with self.statement() as stmt:
                value = self.eval(node.value)
                if isinstance(value, Expr) and not isinstance(
                        value, ConstLeaf) and len(value.shape) > 0:
                    value = self.materialize_if_view(value)  # a new array
                if isinstance(value, View) and value.ndim > 0 and \
                        same_extent(value.shape[0], len(target.elts)):
                    # `a, b = M`: Python iterates over M's rows, views.
                    value = [self.subscript(value, [ast.copy_location(
                        ast.Constant(k), node)], node)
                        for k in range(len(target.elts))]
                if not isinstance(value, (tuple, list)) or len(
                        value) != len(target.elts):
                    raise self.unsupported(
                        node, "tuple unpacking",
                        f"the right-hand side is not a tuple of "
                        f"{len(target.elts)} values")
                # Views of the arrays the targets name now (a helper's
                # `return b, a`) are read before any target is assigned.
                targets = {id(self.env[t.id].container)
                           for t in target.elts if isinstance(t, ast.Name)
                           and isinstance(self.env.get(t.id), View)}
                value = [self.materialize_if_view(v)
                         if isinstance(v, View) and id(v.container) in targets
                         else v for v in value]
                for t, v in zip(target.elts, value):
                    self.assign(t, v, node)
                stmt.done()
            return
        if isinstance(target, ast.Tuple):
            if len(node.value.elts) != len(target.elts):
                raise self.unsupported(node, "tuple unpacking",
                                       "the two sides have different "
                                       "lengths")
            if self.loop_depth == self.permute_depth and \
                    self.rebinds_names(node):
                return
            # Evaluate all right-hand sides first (a, b = b, a swaps).
            # Into subscripts, an array view stays a view, as in NumPy: a
            # later store reads what the earlier ones wrote (`A[0], A[1] =
            # A[1], A[0]` leaves both rows A[1]'s).
            # Into names, an array is bound, not copied (`a, b = x, y;
            # a += 1` updates x), unless a target owns it: that target's
            # assignment may store into its array (store_variable) before
            # the others read it.
            into_arrays = all(isinstance(t, ast.Subscript)
                              for t in target.elts)
            held = {id(self.var_containers[t.id]) for t in target.elts
                    if isinstance(t, ast.Name)
                    and t.id in self.var_containers}
            with self.statement() as stmt:
                values = []
                for v in node.value.elts:
                    v = self.eval(v)
                    live = isinstance(v, View) and v.ndim > 0 and (
                        into_arrays or id(v.container) not in held)
                    values.append(v if live else self.materialize_if_view(v))
                for t, v in zip(target.elts, values):
                    self.assign(t, v, node)
                stmt.done()
            return
        with self.statement() as stmt:
            value = self.eval(node.value)
            self.assign(target, value, node)
            stmt.done()

    def rebinds_names(self, node):
        """`a, b = b, a` on whole arrays where bindings are static (see
        permute_depth): the names swap arrays, as in Python, with no copy,
        so in-place updates reach whichever array a name holds now.
        Returns whether it did."""
        names = name_permutation(node)
        if names is None:
            return False
        targets, sources = names
        views = [self.env.get(n) for n in sources]
        if not all(isinstance(v, View) and v.ndim > 0 and v.is_whole()
                   for v in views):
            return False
        owned = [self.var_containers.get(n) for n in sources]
        for t, v, c in zip(targets, views, owned):
            self.env[t] = v
            if c is v.container:
                self.var_containers[t] = c
            else:
                self.var_containers.pop(t, None)
        return True

    def visit_AugAssign(self, node):
        kind = type(node.op)
        if kind in BINOPS:
            def op(a, b):
                return self.binop(BINOPS[kind], a, b)
        elif kind in BITOPS:
            def op(a, b):
                return self.bitwise(BITOPS[kind], a, b, node)
        elif kind in (ast.LShift, ast.RShift):
            def op(a, b):
                return self.shift("shl" if kind is ast.LShift else "shr", a,
                                  b, node)
        else:
            raise self.unsupported(node, "augmented assignment operator")
        ufunc = _UFUNC_NAMES.get(kind, "?")
        base = op

        def op(a, b):
            # In place into an array: NumPy's same_kind casting rule
            # refuses a result of a higher kind (int32 += 2.5, int /= 2,
            # bool += 1).
            value = base(a, b)
            old = self.to_expr(a).dtype
            new = self.to_expr(value).dtype
            if not np.can_cast(new, old, casting="same_kind"):
                raise self.error(
                    f"Cannot cast ufunc '{ufunc}' output from "
                    f"dtype('{new}') to dtype('{old}') with casting rule "
                    "'same_kind'", node)
            return value

        target = node.target
        with self.statement() as stmt:
            if isinstance(target, ast.Name):
                current = self.lookup(target.id, target)
            elif isinstance(target, ast.Subscript) and isinstance(
                    self.eval(target.value), dict):
                # `d["W"] -= lr * g`: an array of a dict is updated in
                # place, as NumPy's `-=` does (a float entry is rebound
                # in Python; here its container is the function's own).
                current = self.eval_Subscript(target)
            elif isinstance(target, ast.Subscript):
                current = self.eval_Subscript(target, store=True)
            else:
                current = self.eval(target)
            rhs = self.eval(node.value)
            if isinstance(current, Masked):
                self.masked_store(current, rhs, target, op)
            elif isinstance(current, Fancy):
                # NumPy's x[idx] += v: gather, add, scatter; a repeated
                # index is updated once (np.add.at accumulates).
                value = op(ViewLeaf(self.gather(current, target)),
                           self.to_expr(rhs))
                self.scatter(current, value, target)
            elif isinstance(current, complex_values.Complex) and \
                    isinstance(current.re, View):
                # In place into the complex array's parts.
                complex_values.store(self, current, base(current, rhs),
                                     target)
            elif isinstance(current, View) and is_array(current):
                # In place, as NumPy does for arrays (arguments included).
                value = op(ViewLeaf(current), self.to_expr(rhs))
                self.store(current, value, cast=True)
            else:
                value = base(current, rhs)
                self.assign(target, value, node)
            stmt.done()

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        with self.statement() as stmt:
            self.assign(node.target, self.eval(node.value), node)
            stmt.done()

    def visit_Return(self, node):
        self.visit_return(node)

    def visit_return(self, node):
        if node.value is None:
            return
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [
            node.value]
        self.sig.returns_tuple = isinstance(node.value, ast.Tuple)
        self.sig.returns_none = False
        saved, self.current_node = self.current_node, node
        try:
            if len(values) == 1 and not self.sig.returns_tuple:
                with self.statement() as stmt:
                    value = self.eval(values[0])
                    # A call's tuple (`return np.linalg.svd(A)`, a helper's
                    # results, A.shape) is returned as a tuple.
                    self.sig.returns_tuple = isinstance(value, tuple)
                    tree = self._emit_tree(value, values[0])
                    stmt.done()
            else:
                tree = {"tuple": []}
                for v in values:
                    with self.statement() as stmt:
                        tree["tuple"].append(self._emit_tree(self.eval(v), v))
                        stmt.done()
            if _nested(tree):
                # Dicts, lists or tuples inside (`return loss, {"acc":
                # acc}`): the call rebuilds them (pytrees.build).
                self.sig.return_tree = tree
            self._emit_lengths()
        finally:
            self.current_node = saved

    def _emit_tree(self, value, node):
        """Emits the outputs of a returned value, a dict, list or tuple
        (named tuples as tuples) leaf by leaf; returns its structure with
        each leaf's output number (pytrees.build's form)."""
        if isinstance(value, dict):
            return {"dict": [[k, self._emit_tree(v, node)]
                             for k, v in value.items()]}
        if isinstance(value, (tuple, list)):
            return {type(value).__name__ if type(value) is list else "tuple":
                    [self._emit_tree(v, node) for v in value]}
        k = len(self.sig.outputs)
        self._emit_output(k, value, node)
        return k

    def _emit_output(self, k, value, node):
        if isinstance(value, View) and value.container.kind == "arg" and \
                value.is_whole() and value.ndim > 0:
            # Its position among all parameters (the caller's arguments,
            # compile-time ones included, then the globals): param
            # containers leave out the int/bool/str ones (returning `x`
            # of `f(n, x)` gave back n).
            index = [i for i, p in enumerate(self.sig.params)
                     if p[1] == value.container.name][0]
            self.sig.outputs.append(("arg", index))
            return
        if complex_values.is_complex(value):
            self._emit_complex_output(k, value, node)
            return
        expr = self.to_expr(value)
        if expr.shape and not as_idx(expr.shape[0]).is_const() and \
                not self.is_size_expression(expr.shape[0]):
            self._emit_cut_output(k, expr, node)
            return
        # A size expression stays one: the call computes the extent from
        # its arguments' shapes (symbolic_sizes.py).
        shape = [e if self.is_size_expression(e) else
                 self.static_extent(e, node) for e in expr.shape]
        dtype = expr.dtype
        if isinstance(value, (bool, np.bool_)):
            dtype = np.dtype(np.bool_)
        c = Container(f"%__return{k}", shape, dtype, "output", f"__return{k}")
        self.param_containers.append(c)
        self.sig.outputs.append(("array", dtype, tuple(
            e if isinstance(e, int) else self.size_formula(e)
            for e in c.shape)))
        self.store(c.view(), expr, cast=True)


    def _emit_complex_output(self, k, value, node):
        """A returned complex value: a float output with a trailing axis
        of 2, which the call views as complex (program.py); the
        signature says its complex dtype and logical shape. A complex
        argument returned whole is that argument."""
        if not isinstance(value, complex_values.Complex):
            value = complex_values.Complex(*complex_values.parts(self, value))
        whole = complex_values.whole_container(value)
        if whole is not None and whole.kind == "arg":
            index = [i for i, p in enumerate(self.sig.params)
                     if p[1] == whole.name][0]
            self.sig.outputs.append(("arg", index))
            return
        shape = complex_values.broadcast(self, value)
        # A size expression stays one, as for real outputs.
        shape = [e if self.is_size_expression(e) else
                 self.static_extent(e, node) for e in shape]
        c = Container(f"%__return{k}", shape + [2],
                      complex_values.part_dtype(value.dtype), "output",
                      f"__return{k}")
        c.complex = value.dtype
        self.param_containers.append(c)
        self.sig.outputs.append(("array", value.dtype, tuple(
            e if isinstance(e, int) else self.size_formula(e)
            for e in c.shape[:-1])))
        complex_values.store(self, complex_values.container_parts(c),
                             value, node)

    def _emit_cut_output(self, k, expr, node):
        """An array whose first extent n the data gives (x[mask],
        np.nonzero, np.unique: docs/design/data-dependent-lengths.md):
        an output as long as n can be, its first n rows written, and n
        in a hidden 0-d output after the visible ones (emitted by
        _emit_lengths); the call returns the first n rows
        (pytrees.cut_lengths)."""
        n = as_idx(expr.shape[0])
        bound = self.bounded_length(n, node)
        rest = [self.static_extent(e, node) for e in expr.shape[1:]]
        c = Container(f"%__return{k}", [bound] + rest, expr.dtype, "output",
                      f"__return{k}")
        self.param_containers.append(c)
        self.sig.outputs.append(("array", expr.dtype, tuple(c.shape)))
        head = c.view()
        head.shape[0] = n
        self.store(head, expr, cast=True)
        if not hasattr(self.sig, "lengths"):
            self.sig.lengths, self.sig.pending_lengths = [], []
        self.sig.pending_lengths.append((k, n))

    def _emit_lengths(self):
        """The hidden outputs holding the lengths of _emit_cut_output's."""
        for k, n in getattr(self.sig, "pending_lengths", ()):
            j = len(self.sig.outputs)
            c = Container(f"%__return{j}", [], np.int64, "output",
                          f"__return{j}")
            self.param_containers.append(c)
            self.sig.outputs.append(("array", np.dtype(np.int64), ()))
            with self.statement() as stmt:
                self.store(c.view(), IdxLeaf(n))
                stmt.done()
            self.sig.lengths.append([k, j])
        self.sig.pending_lengths = []


def _nested(tree):
    """Whether a returned structure is more than one value or a tuple of
    values."""
    if not isinstance(tree, dict):
        return False
    kind, items = next(iter(tree.items()))
    return kind != "tuple" or any(isinstance(t, dict) for t in items)


def _c_contiguous(view):
    """Whether a view's elements are one row-major block of its container:
    its axes are the container's last ones in order, with unit steps, and
    all but the first whole."""
    mapped = [(d, o, st, vd) for d, (o, st, vd) in enumerate(view.base)
              if vd is not None]
    if [vd for _, _, _, vd in mapped] != list(range(view.ndim)):
        return False
    dims = [d for d, _, _, _ in mapped]
    if dims != list(range(len(view.base) - view.ndim, len(view.base))):
        return False
    for k, (d, o, st, vd) in enumerate(mapped):
        if st != 1:
            return False
        if k > 0 and not (as_idx(o).is_const() and as_idx(o).const == 0 and
                          as_idx(view.shape[vd]).is_const() and
                          as_idx(view.shape[vd]).const ==
                          view.container.shape[d]):
            return False
    return True


def _shape_text(shape):
    """A shape as NumPy prints it: (3,), (2, 4); run-time extents by
    name."""
    items = [str(as_idx(e).const) if as_idx(e).is_const() else
             as_idx(e).render() for e in shape]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def is_array(view):
    """Whether a name bound to `view` holds a NumPy array (aliased by
    `b = a`, updated in place by `a += 1`): any view of rank 1 or more,
    and a whole 0-d array argument. An element `x[0]` is a scalar, copied
    on assignment."""
    return view.ndim > 0 or (getattr(view.container, "ndarray", False)
                             and not view.container.shape)
