"""Calls of the program's own functions and lambdas: inlined, their
arguments bound in a scope of their own, defaults and closures read
as Python would.
"""

import ast
import collections
import textwrap

from .. import ir
from . import callables
from ..desugar.astutil import fix_locations, parse
from ..semantics.bindings import count_assignments, inplace_targets
from .expressions import ScalarLeafCopy
from ..desugar.alias_branches import split_alias_branches
from ..desugar.iteration import lower_iteration
from ..desugar.loop_exits import lower_loop_exits
from ..semantics.values import ConstLeaf, Expr, View
from ..errors import FrontendError
from ..source import source_file, source_lines


class Inlining:
    """Inlines calls of the program's functions and lambdas.

    A mixin of Translator (translator.py), sharing its state."""

    def inline_call(self, fn, args, kwargs, node):
        """Translates a call of a Python function of the program by
        inlining its body at the call site: its parameters name the
        arguments (arrays by reference, as in Python: its in-place updates
        reach the caller's), its statements are emitted before the
        statement that calls it, and its return value, copied there, is
        the call's value. Returns that value."""
        if fn in self.inlining:
            raise self.unsupported(node, f"recursive call of {fn.__name__}")
        try:
            lines, firstline = source_lines(fn)  # not what it wraps
        except FrontendError as e:
            raise self.error(e.reason, node) from None
        filename = source_file(fn)
        fdef = parse(textwrap.dedent("".join(lines))).body[0]
        if fn.__name__ == "<lambda>":
            # A module-level lambda (`f = lambda z: c * z ** 2`): the one
            # lambda of its source lines, as a function returning its body.
            lams = [n for n in ast.walk(fdef) if isinstance(n, ast.Lambda)]
            if len(lams) != 1:
                raise self.unsupported(node, "call of <lambda>",
                                       "write it as a def, or as the only "
                                       "lambda of its line")
            fdef = ast.FunctionDef(
                name="<lambda>", args=lams[0].args,
                body=[ast.copy_location(ast.Return(lams[0].body), lams[0])],
                decorator_list=[], returns=None, type_params=[])
            fdef = fix_locations(ast.copy_location(fdef, lams[0]))
        if not isinstance(fdef, ast.FunctionDef):
            raise self.unsupported(node, f"call of {fn.__name__}")
        lower_iteration(fdef)
        split_alias_branches(fdef, inplace_targets(fdef),
                             count_assignments(fdef, augmented=False))
        located = self.filename, self.firstline
        self.filename, self.firstline = filename, firstline
        try:
            self._fold_returns(fdef)
        finally:
            self.filename, self.firstline = located
        lower_loop_exits(fdef)
        positional = [p.arg for p in fdef.args.posonlyargs + fdef.args.args]
        defaults = dict(zip(
            positional[len(positional) - len(fn.__defaults__ or ()):],
            fn.__defaults__ or ()))
        defaults.update(fn.__kwdefaults__ or {})
        globals_ = dict(fn.__globals__)
        if fn.__closure__:
            for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                globals_[var] = cell.cell_contents
        return self._inline(fn, fdef, args, kwargs, defaults,
                            (None, globals_, filename, firstline), node)

    def default_value(self, value):
        """A default parameter value, evaluated at the definition as
        Python's: an array the expression names is that array (updates in
        place reach the default), unless its variable's container takes
        later rebindings; computed values and scalars are copied there."""
        if isinstance(value, View) and value.ndim > 0 and not any(
                c is value.container and self.rebind_counts.get(n, 0) > 1
                for n, c in self.var_containers.items()):
            return value
        return self.materialize_if_view(value)

    def _abs_line(self, node):
        """`node`'s line in its file (AST lines count from the
        function's first)."""
        return node.lineno + self.firstline - 1

    def where_of(self, node):
        """A statement's identity across translations (each parses anew):
        its file, line and column (a helper's lines are its file's)."""
        return (self.filename, self.firstline + node.lineno, node.col_offset)

    def visit_FunctionDef(self, node):
        """A function defined in the program: called like a helper
        (inlined), its free variables read from the defining scope as they
        are at the call (a closure), its defaults evaluated here."""
        for d in node.decorator_list:
            raise self.unsupported(d, "decorated nested function")
        a = node.args
        positional = [p.arg for p in a.posonlyargs + a.args]
        # Evaluated here, as Python's (a value read from variables is
        # copied: later updates of them do not reach the default).
        with self.statement() as stmt:
            defaults = dict(zip(
                positional[len(positional) - len(a.defaults):],
                [self.default_value(self.eval(d)) for d in a.defaults]))
            for p, d in zip(a.kwonlyargs, a.kw_defaults):
                if d is not None:
                    defaults[p.arg] = self.default_value(self.eval(d))
            stmt.done()
        if self.assign_counts.get(node.name, 0) > 0 or sum(
                1 for n in ast.walk(self.fdef) if isinstance(
                    n, ast.FunctionDef) and n.name == node.name) > 1:
            raise self.unsupported(
                node, f"'{node.name}' defined more than once or assigned",
                "give each nested function a name of its own")
        self.env[node.name] = callables.LocalFunction(
            node, defaults,
            (self.env, self.globals, self.filename, self.firstline))

    def call_local(self, local, args, kwargs, node):
        return self._inline(local, local.node, args, kwargs, local.defaults,
                            local.scope, node)

    def _inline(self, fn, fdef, args, kwargs, defaults, scope, node):
        """Inlines `fdef` (see inline_call); `scope` = (the enclosing env
        its free variables read, or None for a module-level function;
        globals; file; first line)."""
        name = fdef.name
        if fn in self.inlining:
            raise self.unsupported(node, f"recursive call of {name}")
        start = self.em.counter  # containers made later are the call's
        a = fdef.args
        if a.vararg or a.kwarg:
            raise self.unsupported(node, f"call of {name}",
                                   "*args and **kwargs parameters are not "
                                   "supported (name each parameter)")
        names = param_names(a)
        positional = [p.arg for p in a.posonlyargs + a.args]
        if len(args) > len(positional):
            raise self.error(f"{name}() takes {len(positional)} "
                             f"positional arguments, got {len(args)}", node)
        bound = dict(zip(positional, args))
        for k, v in kwargs.items():
            if k not in names or k in bound or \
                    k in (p.arg for p in a.posonlyargs):
                raise self.error(f"{name}() got an unexpected or "
                                 f"repeated argument '{k}'", node)
            bound[k] = v
        for n in names:
            if n not in bound:
                if n not in defaults:
                    raise self.error(f"{name}() missing argument "
                                     f"'{n}'", node)
                bound[n] = defaults[n]
        # Python evaluates arguments to objects: a computed array is a new
        # one, which the callee may update in place.
        for n, v in bound.items():
            if isinstance(v, (Expr, ScalarLeafCopy)) and not isinstance(
                    v, ConstLeaf):
                bound[n] = self.materialize_if_view(v)
        # Its early returns folded into one (a function defined in the
        # program; inline_call folded the others'), located in its file.
        located = self.filename, self.firstline
        self.filename, self.firstline = scope[2], scope[3]
        try:
            self._fold_returns(fdef)
        finally:
            self.filename, self.firstline = located
        body = list(fdef.body)
        self.returned_names.append({
            n.id for r in ast.walk(fdef) if isinstance(r, ast.Return)
            and r.value is not None for n in ast.walk(r.value)
            if isinstance(n, ast.Name)})
        self.call_starts.append(start)
        self.alias_returns.append(set())
        # Its statements go before the calling statement, after what that
        # statement emitted so far (the arguments).
        stmt = self.statements[-1] if self.statements else None
        em = self.em
        saved_buffer, saved_indent = em.buffer, em.indent
        if stmt is not None:
            done = em.buffer
            em.buffer, em.indent = stmt.outer, stmt.outer_indent
            if done:
                if done.dataflow:
                    with em.block(ir.STATE):
                        em.splice(done)
                else:
                    em.splice(done)
                done.lines.clear()
                done.sources.clear()
                done.dataflow = False
        enclosing, globals_, filename, firstline = scope
        saved = (self.env, self.var_containers, self.assign_counts,
                 self.rebind_counts, self.inplace_names, self.globals,
                 self.filename, self.firstline, self.permute_depth,
                 self.statements, self.scope_base)
        # A nested function's names are its own (parameters and what it
        # assigns); others read the defining scope, as Python's closures.
        self.env = bound if enclosing is None else \
            collections.ChainMap(bound, enclosing)
        self.var_containers = {}
        self.assign_counts = count_assignments(fdef)
        self.rebind_counts = count_assignments(fdef, augmented=False)
        self.inplace_names = inplace_targets(fdef)
        self.globals = globals_
        self.filename, self.firstline = filename, firstline
        self.permute_depth = self.loop_depth
        self.statements = []
        # The call's own loops: its names are bound anew by each call.
        self.scope_base = (len(self.constructs), self.loop_depth)
        self.inlining.append(fn)
        try:
            ret = self._visit_until_return(body)
            result = None
            if ret is not None and ret.value is not None:
                with self.statement() as rs:
                    self.current_node = ret
                    value = self.eval(ret.value)
                    values = value if isinstance(value, tuple) else (value,)
                    # A copy: the caller may update the arguments the value
                    # was computed from before it uses it. But a view of an
                    # array that existed before the call (`return A[:, j]`)
                    # is that view, as NumPy returns it: writes through it
                    # reach the array, and it sees the array's updates.
                    # A name bound by a copy of a caller's array and
                    # rebound in a loop or branch may be that array in
                    # NumPy (the loop ran no iteration, the branch was not
                    # taken): marked for the caller's check.
                    maybe = {id(self.env[n].container)
                             for n in self.alias_returns[-1]
                             if isinstance(self.env.get(n), View)}
                    marked = [isinstance(v, View) and id(v.container) in maybe
                              for v in values]
                    values = tuple(
                        v if isinstance(v, View) and v.ndim > 0 and getattr(
                            v.container, "serial", -1) <= start
                        else self.snapshot(v, ret, "result")
                        if isinstance(v, (View, Expr)) and not isinstance(
                            v, ConstLeaf) else v for v in values)
                    for v, m in zip(values, marked):
                        if m and isinstance(v, View):
                            v.may_alias = fdef.name
                    result = values if isinstance(value, tuple) else values[0]
                    rs.done()
        finally:
            self.inlining.pop()
            self.returned_names.pop()
            self.call_starts.pop()
            self.alias_returns.pop()
            (self.env, self.var_containers, self.assign_counts,
             self.rebind_counts, self.inplace_names, self.globals,
             self.filename, self.firstline, self.permute_depth,
             self.statements, self.scope_base) = saved
            em.buffer, em.indent = saved_buffer, saved_indent
        return result

    def eval_Lambda(self, node):
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise self.unsupported(node, "lambda with *args, **kwargs or "
                                   "keyword-only parameters")
        # Defaults are evaluated where the lambda is defined, as Python's:
        # a value read from variables is copied there.
        defaults = [self.default_value(self.eval(d)) for d in a.defaults]
        scope = (self.env, self.globals, self.filename, self.firstline)
        return callables.LocalLambda(node, defaults, scope)

    def call_lambda(self, lam, args, kwargs, node):
        names = [p.arg for p in lam.node.args.args]
        if len(args) > len(names):
            raise self.error(f"<lambda>() takes {len(names)} arguments, got "
                             f"{len(args)}", node)
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in bound:
                raise self.error(f"<lambda>() got an unexpected or repeated "
                                 f"argument '{k}'", node)
            bound[k] = v
        for n, d in zip(names[len(names) - len(lam.defaults):],
                        lam.defaults):
            bound.setdefault(n, d)
        missing = [n for n in names if n not in bound]
        if missing:
            raise self.error(f"<lambda>() missing argument '{missing[0]}'",
                             node)
        if any(lam is active for active in self.lambdas):
            raise self.unsupported(node, "recursive call of a lambda")
        env, globals_, filename, firstline = lam.scope
        saved = (self.env, self.globals, self.filename, self.firstline)
        # The parameters over the defining scope, which is read as it is
        # now and not written (other closures of that scope must not see
        # the parameters).
        self.env = collections.ChainMap(bound, env)
        self.globals = globals_
        self.filename, self.firstline = filename, firstline
        self.lambdas.append(lam)
        try:
            return self.eval(lam.node.body)
        finally:
            self.lambdas.pop()
            (self.env, self.globals, self.filename,
             self.firstline) = saved


def param_names(a):
    """A signature's parameter names in the order Program.bind passes
    their values: positional ones, then keyword-only ones."""
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
