"""for and while loops: sdfg.loop over range (and the sequences the
rewrites before translation leave), unrolled loops over sequences,
loops that permute arrays (unrolled by their period), sdfg.while, the
variables a loop carries and the iterator's value after it.
"""

import ast

import numpy as np

from .. import ir
from ..desugar.astutil import copy_tree
from ..semantics.bindings import (SITES, assigned_names, carried_names,
                                  construct_name,
                       name_permutation)
from ..semantics.values import Idx, View, as_idx, same_extent


# A loop that permutes arrays is unrolled by the permutation's period, up
# to this many copies of its body.
MAX_SWAP_PERIOD = 12


class Loops:
    """Translates for and while loops.

    A mixin of Translator (translator.py), sharing its state."""

    def visit_For(self, node):
        if node.orelse:
            raise self.unsupported(node, "for-else")
        if self.unroll_sequence_loop(node):
            return
        if not isinstance(node.target, ast.Name):
            raise self.unsupported(node.target, "for target",
                                   "the loop variable must be a single name")
        call = node.iter
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                and call.func.id == "reversed":
            # iteration.py rewrites reversed(range(...)) unless its step
            # is not a constant.
            raise self.unsupported(node.iter, "reversed(range(...)) with a "
                                   "step computed at run time",
                                   "the step must be a constant")
        if isinstance(call, (ast.Tuple, ast.List)):
            # iteration.py unrolls these unless the body leaves the loop.
            raise self.unsupported(node, "break or continue in a loop over "
                                   "a tuple or list",
                                   "the loop is unrolled, one copy of the "
                                   "body per item; use a flag, or loop over "
                                   "range(len(...))")
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "range" and not call.keywords
                and 1 <= len(call.args) <= 3):
            raise self.unsupported(node.iter, "for loop over "
                                   + construct_name(node.iter),
                                   "only 'for i in range(...)' loops are "
                                   "supported")
        with self.em.capture() as pre:
            bounds = [self.control_index(self.eval(a), a) for a in call.args]
        if pre.dataflow:
            raise self.unsupported(node.iter, "range bound",
                                   "range bounds must be integers computed "
                                   "without array operations")
        self.em.splice(pre)
        if len(bounds) == 1:
            lb, ub, step = Idx(0), bounds[0], Idx(1)
        else:
            lb, ub = bounds[0], bounds[1]
            step = bounds[2] if len(bounds) == 3 else Idx(1)
        if not step.is_const():
            raise self.unsupported(call, "range step",
                                   "the step of range() must be a constant")
        step = step.const
        if step == 0:
            raise self.error("range() step must not be zero", call)
        if self.where_of(node) in self.peeled and self.interval(
                ub - lb if step > 0 else lb - ub)[0] >= 1:
            # The first iteration as straight-line code (Widen): a
            # variable it turns into an array is one for the others.
            name = node.target.id
            saved = self.env.get(name)
            self.env[name] = lb
            self.visit_body(node.body)
            if saved is None:
                self.env.pop(name, None)
            else:
                self.env[name] = saved
            lb = lb + step
            if self.interval(ub - lb if step > 0 else lb - ub)[1] < 1:
                self.bind_after_loop(name, saved, lb - step, lb, step, node)
                return
        iv = self.em.fresh("i")
        lo, hi = self.interval(lb), self.interval(ub)
        if step > 0:
            self.iter_bounds[iv] = (lo[0], hi[1] - 1)
            self.bound_by_sizes(iv, lb, ub - 1)
        else:
            self.iter_bounds[iv] = (hi[0] + 1, lo[1])
            self.bound_by_sizes(iv, ub + 1, lb)
        if self.is_data_index(lb) or self.is_data_index(ub):
            self.data_names.add(iv)
        name = node.target.id
        permuted = self.loop_permutation(node)
        if permuted:
            self.visit_permuting_for(node, name, lb, ub, step, permuted)
            return
        with self.statement() as stmt:
            self.own_containers(node.body, node)
            stmt.done()
        saved = self.env.get(name)
        self.env[name] = Idx.of(iv)
        carried = self.carried_shapes(node.body)
        bound = assigned_names(node.body, augmented=False)
        before = self._shapes_of(bound)
        self.loop_depth += 1
        span = ub - lb if step > 0 else lb - ub
        self.constructs.append((self.where_of(node),
                                self.interval(span)[0] < 1, True,
                                carried_names(node.body, True) |
                                self.closure_reads(node.body)))
        self.loop_ivs.append(iv)
        with self.em.block(ir.loop(iv, lb.render(), ub.render(), step,
                                      name)):
            self.visit_body(node.body)
        self.loop_ivs.pop()
        self.constructs.pop()
        self.loop_depth -= 1
        self.check_carried_shapes(carried, node)
        self.leave_iterator(iv, lb, ub, step, node)
        self._scoped_shapes(bound, before, node, "loop")
        self.bind_after_loop(name, saved, lb, ub, step, node)
        for element in getattr(node, "sdfg_elements", ()):
            # `for row in A`: after the loop, row is the last row, as in
            # Python, where leave_iterator could put it there (bounds known
            # when compiling); not after a loop that breaks, or one whose
            # body binds the name again.
            if isinstance(self.env.get(element), View) and \
                    element not in self.var_containers and (
                        getattr(node, "sdfg_breaks", False) or
                        self.assign_counts.get(SITES, {}).get(element)
                        != 1):
                self.env.pop(element)

    def unroll_sequence_loop(self, node):
        """A loop that iteration.py made of `for x in seq` (or enumerate or
        zip of it), where `seq` is a Python tuple or list: translates the
        body once per item, its index bound to the item's number (its
        elements are then indexed with constants). Returns whether it
        did."""
        sources = getattr(node, "sdfg_sequences", None)
        if not sources:
            return False
        values = [self.eval(s) for s in sources]
        sequences = [isinstance(v, (tuple, list, dict)) for v in values]
        if not any(sequences):
            return False
        if not all(sequences):
            raise self.unsupported(node.iter, "zip of a list or tuple and "
                                   "an array", "zip arrays with arrays, "
                                   "lists with lists")
        # Its break and continue are flags by now (loop_exits.py), which
        # work in straight-line code as well.
        name = node.target.id
        saved = self.env.get(name)
        count = min(len(v) for v in values)
        order = range(count - 1, -1, -1) if getattr(
            node, "sdfg_backwards", False) else range(count)
        for k in order:
            self.env[name] = k
            self.visit_body(copy_tree(node.body))
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved
        return True

    def swapped_by_inner_loops(self, stmts):
        """The names whose every rebinding in `stmts` is a swap directly in
        the body of a for loop that visit_permuting_for translates."""
        swapped, other = set(), set()
        for stmt in stmts:
            for node in ast.walk(stmt):
                if isinstance(node, ast.For):
                    names = self.loop_permutation(node) or set()
                    swapped |= names
                    for st in node.body:
                        p = name_permutation(st)
                        if p and not set(p[0]) <= names:
                            other |= set(p[0])
                elif isinstance(node, ast.Assign) and \
                        name_permutation(node) is None:
                    other |= set(assigned_names([node], augmented=False))
        # A swap outside such a loop body (in a branch, a while loop, the
        # body of this statement list itself) rebinds for good.
        for stmt in stmts:
            p = name_permutation(stmt)
            if p:
                other |= set(p[0])
            for node in ast.walk(stmt):
                if isinstance(node, (ast.If, ast.While)):
                    for inner in ast.walk(node):
                        p = name_permutation(inner)
                        if p:
                            other |= set(p[0])
        return swapped - other

    def loop_permutation(self, node):
        """The names that statements `a, b = b, a` directly in the body of
        for loop `node` permute, when those are whole arrays and nothing
        else in the body rebinds them (else None: the loop is translated
        once, with copies)."""
        perms = [name_permutation(st) for st in node.body
                 if isinstance(st, ast.Assign)]
        names = {n for p in perms if p for n in p[0]}
        if not names or not all(
                isinstance(self.env.get(n), View) and self.env[n].ndim > 0
                and self.env[n].is_whole() for n in names):
            return None
        others = [st for st in node.body
                  if not (isinstance(st, ast.Assign) and name_permutation(st))]
        if names & set(assigned_names(others, augmented=False)):
            return None
        return names

    def visit_permuting_for(self, node, name, lb, ub, step, permuted):
        """A for loop whose body swaps arrays (`A, B = B, A`, the Jacobi
        idiom): the swap is a rebinding, so the body is translated once per
        binding of the names until they come back to the first (twice for
        a swap), as one loop over groups of iterations plus the leftover
        iterations after it. In-place updates then reach the array each
        name holds in that iteration, arguments included, as in NumPy."""
        if not (lb.is_const() and ub.is_const()):
            raise self.unsupported(
                node, "swapping arrays in a loop of varying trip count",
                "a loop that swaps arrays is unrolled by the swap's period, "
                "which needs a trip count known at compile time; swap copies "
                "instead (A[:], B[:] = B.copy(), A.copy())")
        trips = len(range(lb.const, ub.const, step))
        # The period: how many iterations bring every binding back.
        start = {n: self.env[n].container for n in permuted}
        period, probe = 0, dict(start)
        while True:
            period += 1
            for st in node.body:
                p = name_permutation(st) if isinstance(st, ast.Assign) \
                    else None
                if p:
                    moved = [probe[n] for n in p[1]]
                    probe.update(zip(p[0], moved))
            # Permutations compose to one of finite order: this ends.
            if probe == start or period > MAX_SWAP_PERIOD:
                break
        if probe != start:
            raise self.unsupported(
                node, "permutation of arrays",
                f"the names return to their arrays only after more than "
                f"{MAX_SWAP_PERIOD} iterations; the loop would be unrolled "
                "that many times")
        leftover = trips % period
        if self.loop_depth > 0 and leftover:
            raise self.unsupported(
                node, "swapping arrays an odd number of times in a loop",
                f"{trips} iterations leave the arrays swapped, and this "
                "loop is itself in a loop or branch, whose iterations "
                "would then disagree on which array a name holds")
        with self.statement() as stmt:
            self.own_containers(node.body, node, exclude=permuted)
            stmt.done()
        saved = self.env.get(name)
        saved_depth = self.permute_depth
        groups = trips // period
        if groups:
            iv = self.em.fresh("i")
            self.iter_bounds[iv] = (lb.const, lb.const + (groups - 1) *
                                    period * step) if step > 0 else \
                (lb.const + (groups - 1) * period * step, lb.const)
            self.loop_depth += 1
            self.permute_depth = self.loop_depth
            end = lb.const + groups * period * step
            self.loop_ivs.append(iv)
            with self.em.block(ir.loop(iv, lb.render(), end,
                                       period * step)):
                for k in range(period):
                    self.env[name] = Idx.of(iv) + k * step
                    self.visit_body(node.body)
            self.loop_ivs.pop()
            self.loop_depth -= 1
        self.permute_depth = self.loop_depth
        for k in range(leftover):
            self.env[name] = Idx(lb.const + (groups * period + k) * step)
            self.visit_body(node.body)
        self.permute_depth = saved_depth
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved

    def visit_While(self, node):
        if node.orelse:
            raise self.unsupported(node, "while-else")
        node = self.hoist_condition(node, again=True)
        with self.statement() as stmt:
            self.own_containers(node.body, node)
            stmt.done()
        carried = self.carried_shapes(node.body)
        bound = assigned_names(node.body, augmented=False)
        before = self._shapes_of(bound)
        self.loop_depth += 1
        # (numpy/random.py refuses draws in while loops: no iterator.)
        self.while_depth += 1
        self.constructs.append((self.where_of(node), True, False, set()))
        cond, flag = self.while_condition(node.test), None
        if cond.dataflow:
            # The condition needs maps (`while np.sum(x) < t`), which its
            # region may not hold: it is computed into a 0-d transient
            # before the loop and again at the end of every iteration, and
            # the region reads that.
            flag = self.new_transient([], np.bool_, "cond")
            self.store_condition(cond, flag)
        with self.em.block(ir.WHILE):
            if flag is None:
                self.em.splice(cond)
                value = cond.value
            else:
                value = self.em.fresh("l")
                self.em.line(ir.load(value, flag.ssa, [], flag.mlir_type))
            self.em.line(ir.condition(value))
        # Re-open for the body: `} do {`.
        self.em.buffer.lines[-1] = self.em.buffer.lines[-1] + " do {"
        self.em.indent += 1
        self.visit_body(node.body)
        if flag is not None:
            self.store_condition(self.while_condition(node.test), flag)
        self.em.indent -= 1
        self.em.line("}")
        self.constructs.pop()
        self.loop_depth -= 1
        self.while_depth -= 1
        self.check_carried_shapes(carried, node)
        self._scoped_shapes(bound, before, node, "loop")

    def bind_after_loop(self, name, saved, lb, ub, step, node):
        """The loop variable after the loop, as Python leaves it: the last
        iteration's value, or its value before a loop that did nothing.
        Where the bounds are not constants that is known only at run time:
        reading the name after the loop is then a located error."""
        def unknown(why):
            self.env.pop(name, None)
            self.var_containers.pop(name, None)
            self.loop_scoped[name] = (
                self._abs_line(node), f"{why} is known only at run time; "
                "keep the value you need in a variable of your own")

        if getattr(node, "sdfg_breaks", False) or name in assigned_names(
                node.body):
            # After a break, or a body that assigns the variable, Python's
            # value is not the last iteration's.
            unknown("the loop variable's value after a loop that breaks or "
                    "assigns it")
            return
        if lb.is_const() and ub.is_const():
            trips = range(lb.const, ub.const, step)
            if trips:
                if name in self.var_containers:
                    with self.statement() as stmt:
                        self.store_variable(name, self.to_expr(trips[-1]),
                                            node)
                        stmt.done()
                else:
                    self.env[name] = trips[-1]
                return
        elif name not in self.var_containers:
            unknown("the last value of a loop variable whose bounds are "
                    "data")
            return
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved

    def leave_iterator(self, iv, lb, ub, step, node):
        """After a loop, the views that depend on its iterator (a variable
        whose extent does, `row = A[i, :i]`; an alias at its position) are
        the last iteration's: where the bounds are constants the iterator
        is replaced by its last value, otherwise the names are not
        available after the loop."""
        last = None
        if lb.is_const() and ub.is_const():
            trips = range(lb.const, ub.const, step)
            if trips:
                last = trips[-1]
        for name, v in list(self.env.items()):
            if not isinstance(v, View) or not _mentions(v, iv):
                continue
            if last is None:
                self.env.pop(name)
                self.loop_scoped[name] = self._abs_line(node)
            else:
                self.env[name] = _substituted(v, iv, last)

    def carried_shapes(self, body):
        """The shapes, at a loop's entry, of the array variables its `body`
        reads before assigning (whose values go from one iteration to the
        next)."""
        return {n: shape_key(self.env[n]) for n in carried_names(body)
                if isinstance(self.env.get(n), View)}

    def check_carried_shapes(self, carried, node):
        """Rejects a loop whose iterations change the shape of a variable
        they pass on (`x = x[1:]`): its body is translated once, for one
        shape."""
        for name, shape in carried.items():
            now = self.env.get(name)
            if isinstance(now, View) and shape_key(now) != shape:
                raise self.unsupported(
                    node, f"variable '{name}' changing shape from one "
                    "iteration to the next",
                    f"it enters the loop with shape {_show(shape)} and "
                    f"leaves an iteration with shape "
                    f"{_show(shape_key(now))}; the loop is "
                    "compiled for one shape (unroll it, or keep the array "
                    "and a length)")

    def while_condition(self, test):
        """The text computing a while loop's condition, as a buffer whose
        `value` names the i1 result."""
        saved = self.current_node
        self.current_node = test
        try:
            with self.em.capture() as buf:
                expr = self.to_expr(self.eval(test))
                if expr.shape and not all(same_extent(e, 1)
                                          for e in expr.shape):
                    raise self.error("the truth value of an array is "
                                     "ambiguous; use .any() or .all() (not "
                                     "supported) or index an element")
                buf.value = self.emit_scalar(expr, [], len(expr.shape),
                                             np.bool_)
        finally:
            self.current_node = saved
        return buf

    def store_condition(self, cond, flag):
        with self.em.block(ir.STATE):
            self.em.splice(cond)
            self.emit_store(cond.value, flag.view(), [])


def _mentions(view, name):
    """Whether a view's extents or position depend on SSA name `name`."""
    return any(name in as_idx(e).terms for e in view.shape) or any(
        name in as_idx(o).terms for o, _, _ in view.base)


def _subst(e, name, value):
    e = as_idx(e)
    terms = dict(e.terms)
    coef = terms.pop(name, 0)
    return Idx(e.const + coef * value, terms)


def _substituted(view, name, value):
    """The view with SSA name `name` replaced by the constant `value`."""
    base = [(_subst(o, name, value), st, d) for o, st, d in view.base]
    return View(view.container, base,
                [_subst(e, name, value) for e in view.shape])


def shape_key(view):
    """A view's shape as comparable text ((4,), (N - i,) ...)."""
    return tuple(as_idx(e).render() for e in view.shape)


def _show(key):
    """A shape_key as Python writes a shape: (6,), (N, 3)."""
    return "(" + ", ".join(key) + ("," if len(key) == 1 else "") + ")"
