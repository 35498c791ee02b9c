"""if statements and conditional expressions: conditions decided when
compiling (folded), hoisted out of the statement, sdfg.if with the
shapes each branch binds checked, and narrowing of values by a test.
"""

import ast
import contextlib
import copy

import numpy as np

from .. import ir
from .. import numpy as numpy_functions
from ..errors import FrontendError
from . import callables
from ..desugar.astutil import copy_tree, fix_locations
from ..semantics.bindings import assigned_names, reads_or_calls
from .emitter import Buffer
from .global_values import inlinable
from .loops import shape_key
from .retries import TrialAbort
from ..semantics.values import (Expr, Idx, ScalarLeaf, View, ViewLeaf, as_idx,
                                same_extent)


class Conditionals:
    """Translates if statements and conditional expressions.

    A mixin of Translator (translator.py), sharing its state."""

    def hoist_condition(self, node, again=False):
        """An if or while whose test calls a function of the program (a
        helper, a nested def, a lambda), whose statements are inlined
        before the statement that calls it, or whose `and`/`or` must not
        evaluate an operand Python would not (`i < n and x[i] > 0` reads
        x[i] only where i < n): the test is assigned to a variable first,
        by statements of their own (and, for a while loop (`again`), again
        at the end of its body); the returned node tests the variable."""
        test = self._fold_leading_operands(node.test)
        short = _needs_short_circuit(test)
        if not short and not self._calls_user_code(test):
            if test is node.test:
                return node
            new = copy.copy(node)
            new.test = test
            return new
        self._hoisted = getattr(self, "_hoisted", 0) + 1
        name = f"__sdfg_cond{self._hoisted}"

        def assign():
            stmts = _condition_statements(name, copy_tree(test))
            for st in stmts:
                ast.copy_location(st, node.test)
                fix_locations(st)
            return stmts

        self.assign_counts[name] = 2 if again or short else 1
        self.visit_body(assign())
        load = ast.copy_location(ast.Name(id=name, ctx=ast.Load()),
                                 node.test)
        body = list(node.body) + (assign() if again else [])
        new = copy.copy(node)
        new.test, new.body = load, body
        return new

    def _fold_leading_operands(self, test):
        """`test` with the leading operands of an and/or that are known
        when compiling dropped, or the whole test decided by them (a
        constant): `k < n and x[k] > 0` with int arguments k >= n is False
        without reading x[k], as in Python."""
        if not _needs_short_circuit(test):
            return test
        is_and = isinstance(test.op, ast.And)
        values = list(test.values)
        while len(values) > 1:
            # Not tried on an operand calling the program's functions (their
            # statements would be inlined into the discarded buffer), nor
            # where it fails (the translation proper reports that).
            if self._calls_user_code(values[0]):
                break
            try:
                truth = self._static_truth(values[0])
            except FrontendError:
                break
            if truth is None:
                break
            if truth != is_and:  # False in an `and`, True in an `or`
                return ast.copy_location(ast.Constant(value=truth), test)
            values.pop(0)
        if len(values) == len(test.values):
            return test
        if len(values) == 1:
            return values[0]
        return ast.copy_location(ast.BoolOp(op=test.op, values=values), test)

    def _static_truth(self, expr):
        """The truth of test `expr` where it is known when compiling, else
        None. Evaluated into a discarded buffer: a test of sizes, int
        arguments and options emits nothing; one that emits code or
        transients is decided at run time (and those are dropped)."""
        allocs = len(self.em.allocs)
        try:
            with self.em.capture() as pre:
                value = self.eval(expr)
            if isinstance(value, Idx) and value.is_const():
                value = value.const
            if value is None or isinstance(value, str):
                value = bool(value)
            if pre.dataflow or pre.lines or len(self.em.allocs) != allocs \
                    or not isinstance(value, (bool, int, float, np.bool_,
                                              np.number)):
                return None
            return bool(value)
        finally:
            del self.em.allocs[allocs:]
            del self.em.alloc_sources[allocs:]

    def _quiet_value(self, expr):
        """The value of `expr` where computing it emits nothing and calls
        nothing (`i + 1`, `n - 1` of a size, a loop variable), else None."""
        if not _plain_arithmetic(expr):
            return None
        allocs = len(self.em.allocs)
        try:
            with self.em.capture() as pre:
                value = self.eval(expr)
        except FrontendError:
            return None
        finally:
            del self.em.allocs[allocs:]
            del self.em.alloc_sources[allocs:]
        return None if pre.dataflow or pre.lines else value

    def _static_index(self, expr):
        """`expr` as an Idx over loop variables where computing it emits
        nothing (`i`, `i + 1`, `n - i`), else None."""
        value = self._quiet_value(expr)
        return value if isinstance(value, Idx) else None

    def _static_int(self, expr):
        """The int value of `expr` where compiling knows it and computing
        it emits nothing (`n - 1` of a size), else None."""
        if isinstance(expr, ast.Constant):
            v = expr.value
            return v if type(v) is int else None
        value = self._quiet_value(expr)
        if isinstance(value, Idx) and value.is_const():
            value = value.const
        return value if type(value) is int else None

    def _calls_user_code(self, test):
        for n in ast.walk(test):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
                continue
            v = self.env.get(n.func.id)
            if isinstance(v, (callables.LocalFunction,
                              callables.LocalLambda)):
                return True
            if n.func.id not in self.env and inlinable(
                    self.globals.get(n.func.id)) is not None:
                return True
        return False

    def visit_If(self, node):
        # The test as written narrows loop variables in the branches, also
        # where hoist_condition replaces it by a variable.
        narrow = node.test
        node = self.hoist_condition(node)
        # A test that reduces arrays (np.sum(A) > 0, np.any(mask)) computes
        # them first, in a state of its own.
        with self.em.capture() as pre:
            test = self.eval(node.test)
        if test is None or isinstance(test, str):
            test = bool(test)  # an option: `if flag:` with flag=None
        if isinstance(test, (bool, int, float, np.bool_, np.number)):
            # Decided at compile time (sizes and int arguments are known).
            self.visit_body(node.body if test else node.orelse)
            return
        if pre.dataflow:
            with self.em.block(ir.STATE):
                self.em.splice(pre)
        else:
            self.em.splice(pre)
        with self.statement() as stmt:
            self.own_containers(node.body + node.orelse, node)
            stmt.done()
        cond = self.control_scalar(test, np.bool_)
        bound = assigned_names(node.body + node.orelse, augmented=False)
        before = self._shapes_of(bound)
        self.loop_depth += 1
        self.constructs.append((self.where_of(node), True, False, set()))
        with self.em.block(ir.if_(cond)):
            with self.narrowed(narrow, True):
                self.visit_body(node.body)
        if node.orelse:
            self.em.buffer.lines[-1] += " else {"
            self.em.indent += 1
            with self.narrowed(narrow, False):
                self.visit_body(node.orelse)
            self.em.indent -= 1
            self.em.line("}")
        self.constructs.pop()
        self.loop_depth -= 1
        self._scoped_shapes(bound, before, node, "branch")

    def _shapes_of(self, names):
        return {n: shape_key(v) for n, v in self.env.items()
                if n in names and isinstance(v, View)}

    def _scoped_shapes(self, bound, before, node, kind):
        """After a branch decided at run time or a loop: an array bound
        there whose length is computed there (`w = x[s0:s1]` in one
        branch, `w = x[:s1]` in the other; `seg = x[s[i]:s[i+1]]` in a
        loop) has a length known only inside (one per branch or
        iteration); one translation of the code after it cannot follow
        it, so the name is not available there (a located error where it
        is used, instead of the last branch's length or invalid IR)."""
        for name in bound:
            v = self.env.get(name)
            if not isinstance(v, View) or all(
                    as_idx(e).is_const() for e in v.shape) or \
                    before.get(name) == shape_key(v):
                continue
            self.env.pop(name)
            self.loop_scoped[name] = (
                self._abs_line(node), f"its length is computed at run time "
                f"in the {kind} of that line, which the code after it "
                "cannot follow; give it one length (a fixed window), or use "
                f"it inside the {kind}", kind)

    @contextlib.contextmanager
    def narrowed(self, test, holds):
        """Inside a branch on `i > c` (`>=`, `<`, `<=`, `==`, `!=`, either
        side; `i` a loop variable, `c` an int), the interval of `i` where
        the branch runs: `if j > 0: B[j - 1]` reads from the start, not the
        end, as does the else branch of `if j == 0` (`!=` narrows where c is
        an end of the interval). Where all operands of an `and` hold (or
        none of an `or`), each narrows."""
        if isinstance(test, ast.BoolOp) and \
                isinstance(test.op, ast.And) == holds:
            with contextlib.ExitStack() as stack:
                for v in test.values:
                    stack.enter_context(self.narrowed(v, holds))
                yield
            return
        bound = None
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right = test.left, test.comparators[0]
            op = type(test.ops[0])
            flip = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE,
                    ast.LtE: ast.GtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}
            if isinstance(left, ast.Constant) and op in flip:
                left, right, op = right, left, flip[op]
            if not holds and op in flip:
                op = {ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Lt: ast.GtE,
                      ast.LtE: ast.Gt, ast.Eq: ast.NotEq,
                      ast.NotEq: ast.Eq}[op]
            # `i > 0`, also `i < n - 1` with n known when compiling, and
            # `i + 1 < n` or `n - i > 1` (a loop variable plus a constant).
            value = self._static_index(left) if op in flip else None
            c = self._static_int(right) if value is not None else None
            if c is not None and len(value.terms) == 1 and \
                    list(value.terms.values())[0] in (1, -1):
                (iv, a), = value.terms.items()
                if a == 1:
                    bound = (iv, op, c - value.const)
                else:  # -i + c0 op c  <=>  i flip(op) c0 - c
                    bound = (iv, flip[op], value.const - c)
        if bound is None:
            yield
            return
        iv, op, c = bound
        saved = self.iter_bounds.get(iv)
        if saved is None:
            yield
            return
        lo, hi = saved
        if op is ast.Gt:
            lo = max(lo, c + 1)
        elif op is ast.GtE:
            lo = max(lo, c)
        elif op is ast.Lt:
            hi = min(hi, c - 1)
        elif op is ast.LtE:
            hi = min(hi, c)
        elif op is ast.Eq:
            lo, hi = max(lo, c), min(hi, c)
        elif c == lo:  # != at an end of the interval
            lo += 1
        elif c == hi:
            hi -= 1
        self.iter_bounds[iv] = (lo, hi)
        try:
            yield
        finally:
            self.iter_bounds[iv] = saved

    def eval_IfExp(self, node):
        test = self.eval(node.test)
        if test is None or isinstance(test, str):
            test = bool(test)
        if isinstance(test, (bool, int, float)):
            return self.eval(node.body if test else node.orelse)
        self.check_scalar_choice(self.to_expr(test), None, node)
        chosen = eager = None
        if reads_or_calls(node.body) or reads_or_calls(node.orelse):
            # Both branches as np.where when that checks nothing at run
            # time (their reads provably in range): no control flow, and
            # a gradient without a taped branch per execution. Else (and
            # for calls of the program's functions, which may write) only
            # the branch taken, as Python.
            if not (self._calls_user_code(node.body) or
                    self._calls_user_code(node.orelse)):
                eager = self.eager_if_clean(lambda: (
                    self._eval_narrowed(node.body, node.test, True),
                    self._eval_narrowed(node.orelse, node.test, False)))
            if eager is None:
                chosen = self.branch_values(
                    test, node.test, lambda: self.eval(node.body),
                    lambda: self.eval(node.orelse), node)
        if chosen is not None:
            test, (body, orelse), values = chosen
        else:
            body, orelse = eager or (
                self._eval_narrowed(node.body, node.test, True),
                self._eval_narrowed(node.orelse, node.test, False))
            values = (body, orelse)
        # `a = x if c > 0 else y` names x or y in NumPy; here it is a new
        # array holding one of them. Rejected where that shows: either
        # array, or the name it is bound to, updated in place.
        arrays = [v for v in (body, orelse)
                  if isinstance(v, View) and v.ndim > 0]
        shapes = [list(v.shape) for v in (body, orelse)
                  if isinstance(v, (View, Expr)) and len(v.shape) > 0]
        if len(shapes) == 2 and (len(shapes[0]) != len(shapes[1]) or not all(
                same_extent(a, b) for a, b in zip(*shapes))):
            raise self.unsupported(
                node, "choosing at run time between arrays whose shapes may "
                "differ", "the two arrays' lengths are known only at run "
                "time and may differ, which one translation cannot follow; "
                "choose between arrays of one shape, or use each array in "
                "its own branch of an if statement")
        if arrays:
            names = {n for a in arrays
                     for n in self._names_viewing(a.container)}
            target = self._assigned_from(node)
            updated = sorted(n for n in names | {target}
                             if n in self.inplace_names)
            if updated:
                raise self.unsupported(
                    node, "choosing between arrays at run time",
                    f"NumPy's result is one of the arrays themselves, and "
                    f"'{updated[0]}' is updated in place, which would show "
                    "through the other name; choose with np.where (a new "
                    "array) or copy the chosen array")
        return numpy_functions.where(self, test, *values, node)

    def eager_if_clean(self, thunk):
        """`thunk()` evaluated with what it emits held aside, kept (spliced
        where it would have gone) if it checks nothing at run time: no
        index check, no broadcast of run-time extents, no index read from
        data, no control flow, no error. Else None, with nothing emitted
        or allocated: the caller evaluates lazily instead."""
        stmt = self.statements[-1] if self.statements else None
        em = self.em
        if stmt is None or em.buffer is not stmt.buf or stmt.trial:
            return None
        allocs = len(em.allocs)
        data = set(self.data_names)
        memo = dict(stmt.index_memo)
        real = (stmt.buf, stmt.outer, stmt.outer_indent, em.indent)
        inner, held = Buffer(), Buffer()
        stmt.buf, stmt.outer, stmt.outer_indent = inner, held, 0
        em.buffer, em.indent = inner, 0
        stmt.trial = True
        value, clean = None, False
        try:
            value = thunk()
            text = "\n".join(held.lines + inner.lines)
            clean = not any(op in text for op in ir.RUNTIME_CHECKS) and \
                self.data_names == data
        except (TrialAbort, FrontendError):
            clean = False
        finally:
            stmt.trial = False
            stmt.buf, stmt.outer, stmt.outer_indent = real[:3]
            em.buffer, em.indent = stmt.buf, real[3]
        if not clean:
            del em.allocs[allocs:]
            del em.alloc_sources[allocs:]
            self.data_names.clear()
            self.data_names.update(data)
            stmt.index_memo = memo
            return None
        em.buffer, em.indent = stmt.outer, stmt.outer_indent
        em.splice(held)
        em.buffer, em.indent = stmt.buf, real[3]
        em.splice(inner)
        return value

    def branch_values(self, test, test_node, then, orelse, node):
        """Python's lazy choice `then() if test else orelse()`: each branch
        evaluated in its own region of an sdfg.if, so that only the branch
        taken reads (its index checks and broadcasts fire only where Python
        would evaluate it), with loop variables narrowed by `test_node` as
        an if statement's; its value kept in a transient, chosen after.
        Returns (test as a scalar, the branches' values as evaluated, the
        values to choose between), or None where no control flow can go
        (inside a map): the caller evaluates both branches."""
        stmt = self.statements[-1] if self.statements else None
        if stmt is None or self.em.buffer is not stmt.buf:
            return None
        with self.control_section():
            cond = self.control_scalar(test, np.bool_)
            self.loop_depth += 1
            raw, kept = [], []
            with self.em.block(ir.if_(cond)):
                r, k = self._branch_value(then, test_node, True, node)
                raw.append(r)
                kept.append(k)
            self.em.buffer.lines[-1] += " else {"
            self.em.indent += 1
            r, k = self._branch_value(orelse, test_node, False, node)
            raw.append(r)
            kept.append(k)
            self.em.indent -= 1
            self.em.line("}")
            self.loop_depth -= 1
        return ScalarLeaf(cond, np.bool_), raw, kept

    def _branch_value(self, thunk, test_node, holds, node):
        known = dict(self.iter_bounds)
        with self.narrowed(test_node, holds), self.statement() as stmt:
            raw = thunk()
            if isinstance(raw, (bool, int, float, np.bool_, np.number)) \
                    and not isinstance(raw, Idx):
                stmt.done()
                return raw, raw
            e = self.to_expr(raw)
            if any(n not in known for x in e.shape for n in as_idx(x).terms):
                raise self.unsupported(
                    node, "a conditional expression whose array's length is "
                    "computed in its branch", "its length is known only "
                    "where the branch runs; compute the array in an if "
                    "statement and use it there")
            # Sized as where the choice is read, for every execution (the
            # narrowed bounds hold only in this branch).
            narrowed, self.iter_bounds = self.iter_bounds, {
                **self.iter_bounds, **known}
            try:
                tmp = self.transient_view(list(e.shape), e.dtype, node,
                                          "chosen")
            finally:
                self.iter_bounds = narrowed
            self.store(tmp, e)
            stmt.done()
        return raw, ViewLeaf(tmp)

    def _eval_narrowed(self, expr, test, holds):
        """A branch of `a if test else b`, as Python evaluates it only
        where `test` is (or is not) true: a loop variable the test narrows
        (`u[i - 1] if i > 0 else u[i]`) reads, in this branch, as its value
        clamped into the narrowed interval. Both branches are computed
        (np.where), so the branch not taken reads an element that exists,
        and the one taken reads the element Python reads."""
        before = dict(self.iter_bounds)
        with self.narrowed(test, holds):
            # (An empty interval: a branch that never runs, read as is.)
            narrowed = {iv: b for iv, b in self.iter_bounds.items()
                        if before.get(iv) != b and b[0] <= b[1]}
        if not narrowed:
            return self.eval(expr)
        overrides = {}
        for n in {x.id for x in ast.walk(expr) if isinstance(x, ast.Name)}:
            v = self.env.get(n)
            if isinstance(v, Idx) and v.const == 0 and len(v.terms) == 1 \
                    and list(v.terms.values()) == [1] and \
                    next(iter(v.terms)) in narrowed:
                iv = next(iter(v.terms))
                overrides[n] = self._clamp_into(iv, narrowed[iv])
        saved = {n: self.env[n] for n in overrides}
        self.env.update(overrides)
        # The statement's index memo keys bounds by their source text,
        # which reads other values here: a memo of its own.
        stmt = self.statements[-1] if self.statements else None
        memo = stmt.index_memo if stmt else None
        if stmt:
            stmt.index_memo = {}
        try:
            return self.eval(expr)
        finally:
            self.env.update(saved)
            if stmt:
                stmt.index_memo = memo

    def _clamp_into(self, iv, bounds):
        """`iv` clamped into `bounds` = (lo, hi): an index tasklet before
        the statement's state, with the slice bounds."""
        lo, hi = bounds
        key = ("clamp", iv, lo, hi)
        with self.index_place(Idx.of(iv)):
            memo = self._index_memo(key)
            if memo is not None:
                return memo

            def body(tb, args):
                r = tb.index_op("maxsi", args[0], tb.index_const(lo))
                return [tb.index_op("minsi", r, tb.index_const(hi))]

            (name,) = self.em.tasklet([(iv, "index")], ["index"], body)
            self.iter_bounds[name] = (lo, hi)
            if iv in self.data_names:
                self.data_names.add(name)
            return self._remember_index(key, name)

    def _assigned_from(self, value):
        """The name a statement `name = value` of the function being
        translated binds, if `value` is its whole right side."""
        fdef = self.fdef if len(self.inlining) <= 1 else None
        for stmt in ast.walk(fdef) if fdef is not None else ():
            if isinstance(stmt, ast.Assign) and stmt.value is value and \
                    len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name):
                return stmt.targets[0].id
        return None


def _plain_arithmetic(expr):
    """Whether evaluating `expr` can only compute (no call, which may
    inline user code, and no assignment expression)."""
    return not any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Lambda,
                                  ast.comprehension))
                   for n in ast.walk(expr))


def _needs_short_circuit(test):
    """Whether an and/or test has an operand after the first that reads an
    element (which may lie out of bounds where Python would not read it)."""
    return isinstance(test, ast.BoolOp) and any(
        isinstance(n, ast.Subscript)
        for v in test.values[1:] for n in ast.walk(v))


def _condition_statements(name, test):
    """Statements binding `name` to the truth of `test`, reading the
    operands of an and/or only as Python does: each operand is the test of
    an `if` nested in the previous one's (so compile-time operands are
    decided, and `if j > 0 and B[j - 1]` narrows j as `if j > 0:` does)."""
    def assign(value):
        return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                          value=ast.Constant(value=value))

    if not isinstance(test, ast.BoolOp):
        call = ast.Call(func=ast.Name(id="bool", ctx=ast.Load()),
                        args=[test], keywords=[])
        return [ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                           value=call)]
    is_and = isinstance(test.op, ast.And)
    # and: name = False; if v0: if v1: ... name = True
    # or:  name = True; if v0: pass else: if v1: pass else: ... name = False
    inner = [assign(is_and)]
    for v in reversed(test.values):
        inner = [ast.If(test=v, body=inner, orelse=[])] if is_and else \
            [ast.If(test=v, body=[ast.Pass()], orelse=inner)]
    return [assign(not is_and)] + inner
