"""Binding names: what an assignment to a name does (a view, a new
container, a store into the variable's container, a Python value), the
scalars widened from int to float and the reads of closures.
"""

import ast

import numpy as np

from . import callables
from ..numpy.registry import CompileTimeObject
from ..semantics import complex_values
from ..semantics.bindings import STATIC, STRAIGHT, construct_name
from ..semantics.indexing import Fancy
from .retries import Widen, widens
from .statements import is_array
from ..semantics.values import Expr, Idx, Masked, Unavailable, View, ViewLeaf


class Assignments:
    """Binds names to values and containers.

    A mixin of Translator (translator.py), sharing its state."""

    def assign(self, target, value, node):
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, node)
        elif isinstance(target, ast.Subscript):
            dest = self.eval_Subscript(target, store=True)
            if isinstance(dest, Fancy):
                self.scatter(dest, value, target)
                return
            if isinstance(dest, Masked):
                self.masked_store(dest, value, target)
                return
            if isinstance(dest, complex_values.Complex):
                complex_values.store(self, dest, value, target)
                return
            if not isinstance(dest, View):
                raise self.unsupported(target, "assignment into "
                                       + construct_name(target.value))
            self.store(dest, self.to_expr(value), cast=True)
        elif isinstance(target, ast.Attribute):
            raise self.unsupported(target, "attribute assignment")
        else:
            raise self.unsupported(target, "assignment target "
                                   + construct_name(target))

    def assign_name(self, name, value, node):
        if name in ("np", "numpy"):
            raise self.error(f"cannot assign to '{name}'", node)
        count = self.assign_counts.get(name, 0)
        existing = self.env.get(name)
        if isinstance(value, str) or value is None:
            # A mode or an option (`kind = MODE if kind is None else
            # kind`): a compile-time value, bound where the binding is
            # static.
            if count <= 1 or name in self.assign_counts.get(STRAIGHT, ()) \
                    or getattr(node, "sdfg_element", False):
                # (A key of a dict iterated over, bound once per copy of
                # the unrolled body.)
                self.env[name] = value
                return
            raise self.unsupported(node, "string or None rebound in a loop "
                                   "or branch", "bind each mode once")
        if isinstance(value, (complex, np.complexfloating)) and \
                count <= 1 and self.loop_depth == 0 and \
                name not in self.var_containers:
            self.env[name] = value  # a constant, as a float is
            return
        if complex_values.is_complex(value):
            # Its parts' container, or the name's own complex one.
            complex_values.assign_name(self, name, value, node)
            return
        if isinstance(value, Unavailable):
            # Bound by unpacking (`x, res, rank, s = np.linalg.lstsq(...)`):
            # an error where it is used.
            self.env[name] = value
            return
        if isinstance(value, CompileTimeObject):
            # `rng = np.random.default_rng(seed)`: an object known when
            # compiling, which checks that the binding does not depend on
            # the path taken.
            value.bind(self, name, existing, node)  # raises if refused
            self.env[name] = value
            return
        if isinstance(value, (callables.LocalLambda,
                              callables.UserFunction,
                              callables.NumpyFunction)):
            # `g = lambda z: ...`, `f = rhs`, `act = np.tanh`: calls of the
            # name are inlined (or are the NumPy function's).
            if count > 1:
                raise self.unsupported(
                    node, f"'{name}' bound to a function and assigned again",
                    "bind each function to a name of its own, once")
            self.env[name] = value
            return
        # Integers and bools assigned once, or only by straight-line
        # statements of the function's top level, are compile-time or
        # symbolic values (sizes, index arithmetic): no container needed.
        once = count <= 1 or (
            name in self.assign_counts.get(STRAIGHT, ()) and
            not isinstance(existing, (View, Expr)))
        if isinstance(value, (int, bool, np.integer, np.bool_, Idx)) and \
                once and name not in self.var_containers and \
                not isinstance(existing, View):
            self.env[name] = value
            return
        if isinstance(value, float) and once and self.loop_depth == 0 \
                and name not in self.var_containers:
            self.env[name] = value
            return
        if isinstance(value, (tuple, list, slice, dict)):
            # Python's own values, bound at translation time: a list (of a
            # literal or a comprehension) or a dict (of a pytree argument)
            # is read, never changed.
            kind = type(value).__name__
            if count <= 1 or getattr(node, "sdfg_element", False):
                # (An item of an unrolled loop's sequence is bound once per
                # copy of the body.)
                self.env[name] = value
                return
            raise self.unsupported(node, f"reassigned {kind} variable",
                                   f"a {kind} may be assigned once")
        if isinstance(value, ViewLeaf) and getattr(value.view, "fresh", False):
            # A library op's fresh result (`E = A @ B`): the name adopts the
            # array instead of copying it.
            value = value.view
        helper = getattr(value, "may_alias", None)
        if helper is not None and name in self.inplace_names:
            raise self.unsupported(
                node, "updating in place what a function may return as "
                "its argument",
                f"{helper}() binds its result to an array it was passed "
                "and rebinds it in a loop or branch, so NumPy's result may "
                f"be that array itself, which '{name}' would then update; "
                f"take a copy ('{name} = {helper}(...).copy()')")
        if isinstance(value, View) and value.ndim > 0 and \
                not getattr(value, "fresh", False) and \
                name in self.assign_counts.get(STATIC, ()) and \
                self._owner(value, name) is None:
            # Every binding of the name is a statement of the function's
            # top level, translated once and in order: the name moves to
            # the array, as Python's does (`a = x; a *= 2; a = y` updates
            # x), and leaves the array it owned to its other names.
            self.var_containers.pop(name, None)
            self.env[name] = value
            return
        if isinstance(value, View) and is_array(value) and \
                name not in self.var_containers:
            # Augmented assignments update arrays in place: they do not
            # rebind the name.
            rebinds = self.rebind_counts.get(name, 0)
            fresh = getattr(value, "fresh", False)
            # The first name bound to a new array owns it; a later `b = a`
            # is an alias, never a second owner.
            value.fresh = False
            # The variable owning the container, when it is rebound: its
            # rebindings store into the container (one container per
            # variable), which an alias must not see.
            owner = self._owner(value, name)
            if fresh and value.is_whole():
                # A new array (np.zeros, a copy...): the name adopts it.
                self.var_containers[name] = value.container
                self.env[name] = value
                return
            if getattr(node, "sdfg_element", False) and owner is None:
                # `for row in A`: each iteration's row is a view of A
                # (iteration.py), rebound at the top of the body.
                self.env[name] = value
                return
            if rebinds <= 1 and owner is None:
                # `B = A[1:]` or `B = A`: an alias, as in NumPy.
                self.env[name] = value
                return
            if owner is None and value.is_whole() and \
                    self._rebound_only_by_swaps(name, node):
                # `a, b = x, y; for ...: a += b; a, b = b, a`: the loop's
                # swaps permute the names' arrays (visit_permuting_for), so
                # the name may alias its array, as in Python.
                self.env[name] = value
                return
            if owner is None and self._aliased_per_iteration(name, value):
                # `for k in range(n): s = S[k]; s *= dt`: bound anew at each
                # iteration before any read, at a position of the loops'
                # iterators: an alias, as in NumPy.
                self.env[name] = value
                return
            if name in self.inplace_names:
                rebound = name if rebinds > 1 else owner
                raise self.unsupported(
                    node, "alias of a rebound array updated in place",
                    f"'{name}' names the array of another variable, is "
                    f"updated in place, and '{rebound}' is rebound later; "
                    f"write '{name} = ....copy()' if '{name}' should be a "
                    "copy")
        if isinstance(value, View) and value.ndim > 0 and \
                self.var_containers.get(name) is not value.container:
            self._check_rebinding_copy(name, value, node)
        self.store_variable(name, self.to_expr(value), node)

    def store_variable(self, name, expr, node):
        """Stores `expr` into variable `name`'s own container (made on the
        first assignment) and binds the name to it."""
        container = self.var_containers.get(name)
        shape = self.container_extents(expr.shape, node)
        if container is not None and container in self.reshaped:
            # The name held a reshape (NumPy's view of the original, whose
            # writes are rejected); rebound, it holds a new array in NumPy,
            # so the container is the name's own from here on, unless
            # another name still views the reshape.
            others = self._names_viewing(container, besides=name)
            if not others:
                self.reshaped.discard(container)
            elif self.loop_depth == 0 and not self.constructs:
                container = None
            else:
                raise self.unsupported(
                    node, "rebinding a reshaped array another name views",
                    f"'{others[0]}' views the reshape '{name}' holds; "
                    f"rebind '{name}' under a new name")
        if container is not None and not self._holds(container, shape, expr):
            if self.loop_depth > 0 and not self._fresh_each_iteration(name):
                # One translation of the body stores every iteration's (or
                # branch's) value into one container.
                fix = "use a new name for the new value"
                if shape and not container.shape:
                    fix = (f"start '{name}' as an array of that shape "
                           f"(np.zeros_like or np.full) before the loop or "
                           f"branch, or use a new name for the new value")
                error = self.unsupported(
                    node, f"variable '{name}' changing shape or type in a "
                    "loop or branch",
                    f"'{name}' holds {_describe(container.shape, container.dtype)} "
                    f"and is assigned {_describe(shape, expr.dtype)} here; "
                    + fix)
                if not shape and not container.shape and \
                        widens(container.dtype, expr.dtype):
                    raise Widen(name, error)
                since = self.constructs[getattr(container, "depth", 0):]
                if shape and not container.shape and since and \
                        since[0][2] and not since[0][1]:
                    # `s = 0.0; for k in range(n): s = s + c[k] * x ** k`:
                    # NumPy's s is an array from the first iteration on.
                    # The first loop entered since its binding surely runs:
                    # its first iteration, peeled off as straight-line code,
                    # rebinds s to an array, which the loop over the other
                    # iterations then carries (reads in the first iteration
                    # see the scalar, as NumPy's).
                    raise Widen(name, error, peel=since[0][0])
                raise error
            # Straight-line code: the name moves to a new array, as in
            # NumPy (`h = np.tanh(h @ W)` with W not square).
            container = None
        if container is None:
            dtype = expr.dtype
            if name in self.widened and not shape and dtype != np.float64:
                # NumPy's scalar becomes a float64 at the loop's first
                # float64 assignment (an int, or a float32 scalar plus a
                # Python float); here it is one from the start (a loop
                # that never runs leaves 0.0 for NumPy's int 0).
                dtype = np.dtype(np.float64)
            container = self.new_transient(shape, dtype, name)
            container.depth = len(self.constructs)
            self.var_containers[name] = container
        view = container.view()
        if expr.shape:
            view.shape = list(expr.shape)
        self.store(view, expr, cast=True)
        self.env[name] = view

    def closure_reads(self, stmts):
        """The names the program's own functions and lambdas called in
        `stmts` read from their defining scope (a read there happens
        before the statement's own assignment: `s = add(k)` with `add`
        reading s carries s)."""
        names, seen = set(), set()
        todo = [n for st in stmts for n in ast.walk(st)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        while todo:
            call = todo.pop()
            fn = self.env.get(call.func.id)
            if not isinstance(fn, (callables.LocalFunction,
                                   callables.LocalLambda)) or \
                    id(fn) in seen:
                continue
            seen.add(id(fn))
            for n in ast.walk(fn.node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    names.add(n.id)
                elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    todo.append(n)
        return names

    def _fresh_each_iteration(self, name):
        """Whether a variable may move to a new container inside the loops
        around: every one of them surely runs (for loops of constant trip
        count >= 1, no branch) and binds `name` anew before reading it, so
        each iteration's bindings follow the same containers in the same
        order (`for t ...: acc = 0.0; for k ...: acc = acc + u * k`) and
        after the loops the name holds the last one, as in NumPy."""
        constructs, depth = self.scope_base
        inner = self.constructs[constructs:]
        return len(inner) == self.loop_depth - depth and all(
            is_for and not maybe and name not in carried
            for _, maybe, is_for, carried in inner)


def _describe(shape, dtype):
    """`shape` (ints) and dtype as a message names them."""
    name = str(np.dtype(dtype))
    article = "an" if name[0] in "aeiou" else "a"
    if not shape:
        return f"{article} {name} scalar"
    return f"{article} {name} array of shape {tuple(shape)}"
