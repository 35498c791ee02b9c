"""Array aliasing: where one translation can follow NumPy's names.

NumPy names share arrays (`b = a`, `for x in (u, v)`, `s = S[k]`); the
translation gives a variable rebound in a loop or branch a container of
its own holding a copy. These Translator methods decide where that copy is
the same program as NumPy's and reject, with the reason, where it is not.
"""

import ast

import numpy as np

from .bindings import (SITES, assigned_names, augmented_target,
                       is_arm_local, name_permutation)
from . import complex_values
from .values import Idx, View, as_idx


class Aliasing:
    """Translator methods that keep copies indistinguishable from NumPy's
    aliases."""

    def own_containers(self, stmts, node, exclude=()):
        """Before a loop or a branch decided at run time: gives each array
        or scalar variable that `stmts` rebind a container of its own,
        holding its current value. The statements are translated once, so
        a rebinding inside them must write where every later read looks:
        `x = x * 2` in a loop reads the last iteration's x, and after `if
        c: x = x * 2` x is the old array when c was false. Without this,
        the name of an argument or alias would move to a new container at
        translation time and each iteration would read the argument."""
        rebound = set(assigned_names(stmts, augmented=False))
        # Names that only inner loops unrolled for their swaps rebind keep
        # their arrays across those loops (visit_permuting_for rejects an
        # odd number of swaps in a loop).
        exclude = set(exclude) | self.swapped_by_inner_loops(stmts)
        for name in assigned_names(stmts):
            current = self.env.get(name)
            if complex_values.is_complex(current):
                if name in rebound and name not in exclude:
                    complex_values.own_container(self, name, current, node)
                continue
            if name not in exclude and isinstance(
                    current, (bool, int, float, np.bool_, np.integer,
                              np.floating, Idx)) and \
                    name not in self.var_containers:
                # A number known when compiling (an int argument, a
                # parameter of an inlined helper) that the statements
                # rebind: its value lives in a container from here, or
                # each iteration would start from the constant again (and
                # `while n < 10: n = n + 3` would never end).
                self.store_variable(name, self.to_expr(current), node)
                continue
            if name in exclude or not isinstance(current, View) or \
                    self.var_containers.get(name) is current.container:
                continue
            if current.ndim > 0 and name not in rebound:
                continue  # `x += ...` on an array: in place
            if name in self.inplace_names and current.ndim > 0:
                kind = "branch" if isinstance(node, ast.If) else "loop"
                raise self.unsupported(
                    node, "rebinding an array updated in place",
                    f"'{name}' is rebound in this {kind} and updated in "
                    f"place: updates before the rebinding reach the array "
                    f"it names now, later ones a new array, which one "
                    f"translation cannot follow; write '{name} = "
                    f"{name}.copy()' before the {kind} to work on a copy "
                    "(leaving that array unchanged)")
            if current.ndim > 0:
                self._check_copied_alias(name, current, node)
            self.var_containers.pop(name, None)
            self.store_variable(name, self.to_expr(current), node)

    def _check_copied_alias(self, name, current, node):
        """own_containers gives `name`, an alias of another array here, a
        copy of it: in NumPy the name still is that array until the loop or
        branch rebinds it (if it does). Rejected where that difference
        shows: the array is updated in place through another name, or an
        inlined function returns the name to its caller (who may)."""
        sources = self._names_viewing(current.container, besides=name)
        updated = [n for n in sources if n in self.inplace_names]
        kind = "branch" if isinstance(node, ast.If) else "loop"
        if updated:
            raise self.unsupported(
                node, "alias rebound in a loop or branch",
                f"'{name}' names the array of '{updated[0]}' and is rebound "
                f"in this {kind}, which the translation follows with a "
                f"copy; '{updated[0]}' is updated in place, which NumPy "
                f"would show through '{name}' while it names that array; "
                f"write '{name} = {updated[0]}.copy()' before the {kind} "
                "if it should be a copy")
        self._mark_alias_return(name, current.container)

    def _mark_alias_return(self, name, container):
        """`name`, given a copy of `container`, is returned by the inlined
        function being translated: where the container predates the call,
        NumPy's result may be that array itself (assign_name checks the
        caller's use)."""
        if self.returned_names and name in self.returned_names[-1] and \
                getattr(container, "serial", -1) <= self.call_starts[-1]:
            self.alias_returns[-1].add(name)

    def _rebound_only_by_swaps(self, name, node):
        """Whether `node`, a statement of the function's top level, binds
        `name`, which the rest of the function rebinds only by swaps
        directly in loops translated per permutation."""
        if len(self.inlining) > 1 or self.constructs[self.scope_base[0]:] \
                or not any(st is node for st in self.fdef.body):
            return False
        swaps, found = set(), False
        for st in self.fdef.body:
            for loop in ast.walk(st):
                if isinstance(loop, ast.For):
                    for inner in loop.body:
                        p = name_permutation(inner)
                        if p and name in p[0]:
                            swaps.add(id(inner))
        for st in self.fdef.body:
            if st is node:
                continue
            for n in ast.walk(st):
                if isinstance(n, ast.Name) and n.id == name and \
                        isinstance(n.ctx, ast.Store) and \
                        not augmented_target(st, n):
                    found = True
                    if not any(id(a) in swaps and n in ast.walk(a)
                               for a in ast.walk(st)
                               if isinstance(a, ast.Assign)):
                        return False
        return found

    def _aliased_per_iteration(self, name, value):
        """Whether `name = value` (a view) is the name's one binding, in
        loops (no branch) that do not read the name before it, at a
        position of their iterators only: each iteration then binds the
        name before using it, and the translation's one binding is every
        iteration's."""
        if self.assign_counts.get(SITES, {}).get(name, 0) != 1:
            return False
        first, depth = self.scope_base
        inner = self.constructs[first:]
        # A name alias_branches.py gave an arm is bound there before any
        # use and used nowhere else: the branches around it do not matter.
        local = is_arm_local(name)
        if not inner or len(inner) != self.loop_depth - depth or not all(
                (c[2] or local) and name not in c[3] for c in inner):
            return False
        terms = set()
        for e in list(value.shape) + [o for o, _, _ in value.base]:
            terms |= set(as_idx(e).terms)
        return terms <= set(self.loop_ivs)

    def _check_reshape_sources(self, container):
        """Rejects a write into an array that a name's reshape was copied
        from: NumPy's reshape is a view, which would show the write."""
        for copy_, sources in self.reshape_sources.items():
            if container not in sources or copy_ not in self.reshaped:
                continue
            holders = self._names_viewing(copy_)
            if holders:
                raise self.unsupported(
                    self.current_node, "writing into an array after "
                    "reshaping it",
                    f"'{holders[0]}' holds its reshape, a view in NumPy "
                    "that would show this write; reshape after writing, "
                    "or take .reshape(...).copy() if a copy is meant")

    def _names_viewing(self, container, besides=None):
        """The names in scope bound to a view of `container` (other than
        `besides`)."""
        return [n for n, v in self.env.items() if n != besides and (
            isinstance(v, View) and v.container is container or
            # A complex value's part views (semantics/complex_values.py).
            isinstance(v, complex_values.Complex) and any(
                isinstance(p, View) and p.container is container
                for p in (v.re, v.im)))]

    def _owner(self, value, name):
        """The variable other than `name` owning `value`'s container, when
        it is rebound: its rebindings store into the container (one
        container per variable), which an alias must not see."""
        return next((n for n, c in self.var_containers.items()
                     if c is value.container and n != name
                     and self.rebind_counts.get(n, 0) > 1), None)

    def _check_rebinding_copy(self, name, value, node):
        """`name`, bound in a loop or branch too, is bound here to another
        array that stays (an argument, a name bound once): the translation
        copies it into name's own array, where NumPy makes the two names
        one array. Rejected when either is updated in place, which would
        then reach the other in NumPy only, or when an inlined function
        returns the name to its caller."""
        sources = self._names_viewing(value.container, besides=name)
        lasting = value.container.kind == "arg" or any(
            self.rebind_counts.get(n, 0) <= 1 for n in sources)
        updated = [n for n in [name] + sources if n in self.inplace_names]
        source = sources[0] if sources else value.container.name
        if lasting and updated:
            raise self.unsupported(
                node, "rebinding an array variable to another array in a "
                "loop or branch",
                f"'{name}' is bound here to the array of '{source}' and "
                f"'{updated[0]}' is updated in place: in NumPy the update "
                f"would reach both names; write '{name} = {source}.copy()' "
                "if it should be a copy, or use a new name")
        self._mark_alias_return(name, value.container)
