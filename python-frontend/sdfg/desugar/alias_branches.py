"""Arrays named in a branch and updated in place after it: the statements
after the branch copied into each of its arms, the name renamed there.

    a = x                          a = x
    if c:                          if c:
        a = y            ->            a'1 = y
    a[1:] = 0.0                        a'1[1:] = 0.0
    return x + y                       return x + y
                                   else:
                                       a[1:] = 0.0
                                       return x + y

The translator gives a name that a branch decided at run time rebinds a
container of its own holding a copy (aliasing.py): right for values, wrong
when the array is then written through the name, since NumPy writes the
array the name was bound to, x or y. Once the rest of the function is in
each arm, every name is bound once on each path and the binding is an
alias, as NumPy's is. Only `if` statements of the function's body and,
recursively, of their arms are rewritten (straight-line code up to the
end of the function); a loop whose iterations rebind such a name is still
refused by the translator, with the reason.
"""

import ast
import re
from typing import List, Optional, Set

from .astutil import copy_tree, fix_locations
from ..semantics.bindings import ARM_MARK, count_assignments

# Statements after which the rest of a block does not run.
_EXITS = (ast.Return, ast.Raise)
# Copying the rest of the function into both arms doubles it (and k
# branches in a row make 2^k copies of what follows the last): once the
# copies made reach this many nodes, further branches are left to the
# translator (which refuses a rebinding it cannot follow, with the
# reason).
_MAX_NODES = 6000


def split_alias_branches(fdef: ast.FunctionDef, inplace: Set[str],
                         rebinds: dict) -> None:
    """Rewrites `fdef` in place. `inplace`: the names written through a
    subscript or updated in place (bindings.inplace_targets); `rebinds`:
    how often each name is bound (count_assignments, augmented=False).
    Followed are the names bound more than once (a parameter counts as
    a binding) that are updated in place or bound to another name's
    array (`a = y`, `a, b = b, a`, `a = x[1:]`), in a function that
    updates some array in place."""
    if not inplace:
        return
    # `a = x if c else y` as an if statement first: a choice of arrays
    # is a branch that binds the name.
    if _choices_as_ifs(fdef, inplace):
        rebinds = count_assignments(fdef, augmented=False)
    a = fdef.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    names = {n for n in inplace | _alias_bound(fdef)
             if rebinds.get(n, 0) + (n in params) > 1}
    if not names:
        return
    # [names made so far, nodes copied so far]
    counter = [0, 0]
    # In a loop, the rest of the body runs to the end of the iteration:
    # only names the loop binds anew in each iteration before any use,
    # and uses nowhere else, are followed (`src, dst = (A, B) if it % 2
    # == 0 else (B, A)`). Inner loops first, before an outer split copies
    # them.
    _loops(fdef, fdef.body, names, counter)
    # The function's body runs to its end: any name bound in an arm may
    # be renamed there.
    fdef.body = _block(fdef.body, names, counter, None)
    fix_locations(fdef)


def _uses(tree: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name
               for n in ast.walk(tree))


def _bound_before_use(stmts: List[ast.stmt], name: str) -> Optional[bool]:
    """True if `stmts` bind `name` before any use on every path that uses
    it later, False if a use may come first, None if they do not touch
    it."""
    for k, st in enumerate(stmts):
        if isinstance(st, ast.If):
            if _uses(st.test, name):
                return False
            arms = [_bound_before_use(st.body, name),
                    _bound_before_use(st.orelse, name)]
            if False in arms:
                return False
            if arms == [True, True]:
                return True
            if True in arms:
                # Bound on one path only: a later use may read the value
                # of the iteration before.
                return not any(_uses(r, name) for r in stmts[k + 1:])
        elif isinstance(st, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name
                for tt in st.targets
                for t in (tt.elts if isinstance(tt, ast.Tuple) else [tt])):
            return not _uses(st.value, name) and not any(
                _uses(t, name) for t in st.targets
                if not isinstance(t, (ast.Name, ast.Tuple)))
        elif _uses(st, name):
            return False
    return None


class _LoopScope:
    """Which names a loop binds anew in each iteration before any use and
    uses nowhere outside (so an arm may rename them)."""

    def __init__(self, fdef, loop):
        self.fdef, self.loop, self.known = fdef, loop, {}

    def local(self, name: str) -> bool:
        if name not in self.known:
            def count(tree):
                return sum(1 for n in ast.walk(tree)
                           if isinstance(n, ast.Name) and n.id == name)
            self.known[name] = count(self.fdef) == count(self.loop) and \
                _bound_before_use(self.loop.body, name) is True
        return self.known[name]


def _is_view(v: ast.expr) -> bool:
    """Whether `v` names what another name holds, or a view of it: a
    name, an attribute (`self.u`, `x.T`), a subscript with a slice
    (`x[1:]`, `A[:, k]`). An element (`x[i]`) is a value, not a view."""
    if isinstance(v, ast.Subscript):
        items = v.slice.elts if isinstance(v.slice, ast.Tuple) else \
            [v.slice]
        return any(isinstance(i, ast.Slice) or (
            isinstance(i, ast.Constant) and i.value in (None, Ellipsis))
            for i in items)
    return isinstance(v, (ast.Name, ast.Attribute))


def _alias_bound(fdef) -> Set[str]:
    """Names some statement binds to what another name holds (a name, an
    element or a slice of one, an attribute: `a = y`, `a, b = b, a`)."""
    out = set()
    for st in ast.walk(fdef):
        if not isinstance(st, ast.Assign):
            continue
        pairs = [(t, st.value) for t in st.targets]
        for t, v in list(pairs):
            if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and \
                    len(t.elts) == len(v.elts):
                pairs += list(zip(t.elts, v.elts))
        out |= {t.id for t, v in pairs
                if isinstance(t, ast.Name) and _is_view(v)}
    return out


def _choice(st):
    """The IfExp of `name = x if c else y`, else None."""
    if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
            isinstance(st.targets[0], ast.Name) and \
            isinstance(st.value, ast.IfExp):
        return st.value
    return None


def _choices_as_ifs(fdef, names):
    """`a = x if c else y` as the if statement `if c: a = x else: a = y`
    (which _block then splits) where `a` is a name of `names`, and then
    also every other choice between names or views (`src = A if c else
    B` beside `dst = B if c else A`: src aliases what dst updates).
    Whether there was one."""
    def statement_lists():
        for node in ast.walk(fdef):
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(node, field, None)
                if isinstance(stmts, list):
                    yield stmts

    if not any(_choice(st) is not None and st.targets[0].id in names
               for stmts in statement_lists() for st in stmts):
        return False
    for stmts in list(statement_lists()):
        for k, st in enumerate(stmts):
            e = _choice(st)
            if e is None or not (st.targets[0].id in names or (
                    _is_view(e.body) and _is_view(e.orelse))):
                continue
            arms = [ast.copy_location(ast.Assign(
                [ast.Name(st.targets[0].id, ast.Store())], v), st)
                for v in (e.body, e.orelse)]
            stmts[k] = ast.copy_location(
                ast.If(e.test, [arms[0]], [arms[1]]), st)
    return True


def _loops(fdef, stmts, names, counter):
    for st in stmts:
        if isinstance(st, (ast.For, ast.While)):
            _loops(fdef, st.body, names, counter)
            _loops(fdef, st.orelse, names, counter)
            st.body = _block(st.body, names, counter, _LoopScope(fdef, st))
        elif isinstance(st, ast.If):
            _loops(fdef, st.body, names, counter)
            _loops(fdef, st.orelse, names, counter)
        elif isinstance(st, ast.With):
            _loops(fdef, st.body, names, counter)


def _size(stmts) -> int:
    return sum(1 for st in stmts for _ in ast.walk(st))


def _arm_binds(stmts: List[ast.stmt], names: Optional[Set[str]]
               ) -> Set[str]:
    """The names (of `names`, if given) that statements of `stmts` (or of
    the arms of ifs among them) bind by a plain assignment."""
    out = set()
    for st in stmts:
        if isinstance(st, ast.Assign):
            for t in st.targets:
                for n in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if isinstance(n, ast.Name) and (names is None
                                                    or n.id in names):
                        out.add(n.id)
        elif isinstance(st, ast.If):
            out |= _arm_binds(st.body + st.orelse, names)
    return out


def _block(stmts: List[ast.stmt], names: Set[str], counter,
           scope) -> List[ast.stmt]:
    """`stmts` with the first if that binds a followed name holding the
    statements after it in each arm. `scope` None: the block runs
    to the end of the function; else (a loop's body) only names used
    nowhere but in the if and after it are followed."""
    for k, st in enumerate(stmts):
        if not isinstance(st, ast.If):
            continue
        bound = _arm_binds(st.body + st.orelse, None)
        if not bound & names:
            continue
        # The names bound with it too (`src, dst = B, A`: `src` aliases
        # what `dst` updates).
        if scope is not None:
            bound = {n for n in bound if scope.local(n)}
        if not bound:
            continue
        # The statements up to the last that uses a bound name go into
        # the arms; the rest stays after the branch (a final `return M`
        # that reads none of them is translated once).
        tail = stmts[k + 1:]
        uses = [j for j, t in enumerate(tail)
                if any(_uses(t, n) for n in bound)]
        rest = tail[uses[-1] + 1:] if uses else tail
        tail = tail[:uses[-1] + 1] if uses else []
        copied = _size(tail)
        if copied + counter[1] > _MAX_NODES:
            continue
        counter[1] += copied
        # Each arm its own copy, taken before either is renamed.
        tails = [tail, copy_tree(tail)]
        arms = []
        for arm, moved in zip((st.body, st.orelse), tails):
            arm = list(arm)
            if moved and not (arm and isinstance(arm[-1], _EXITS)):
                arm += moved
            arms.append(_rename_bindings(arm, bound, names, counter,
                                         scope))
        st.body = arms[0] or [ast.copy_location(ast.Pass(), st)]
        st.orelse = arms[1]
        return stmts[:k + 1] + _block(rest, names, counter, scope)
    return stmts


def _rename_bindings(stmts, bound, names, counter, scope):
    """In one arm (which now runs to the end of the function): from each
    statement of the arm that binds a name of `bound`, that name and all
    its later uses get a name of their own; then the arm's own ifs."""
    stmts = _block(stmts, names, counter, scope)
    for k, st in enumerate(stmts):
        if not isinstance(st, ast.Assign):
            continue
        targets = {n.id for t in st.targets
                   for n in (t.elts if isinstance(t, ast.Tuple) else [t])
                   if isinstance(n, ast.Name) and n.id in bound}
        for name in targets:
            counter[0] += 1
            # Not an identifier, so no name of the program (the translator
            # prints it without the suffix).
            fresh = f"{name}{ARM_MARK}{counter[0]}"
            # The value is read under the old name; the targets and all
            # later statements use the new one.
            for t in st.targets:
                _rename(t, name, fresh)
            for later in stmts[k + 1:]:
                _rename(later, name, fresh)
    return stmts


def _rename(tree: ast.AST, old: str, new: str) -> None:
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new


_RENAMED = re.compile(r"\b([A-Za-z_][A-Za-z_0-9]*)'[0-9]+")


def renamed_in_arm(text: str) -> str:
    """`text` (a message) with the names this pass made shown as the
    program's own (a'3 -> a)."""
    return _RENAMED.sub(r"\1", text)

