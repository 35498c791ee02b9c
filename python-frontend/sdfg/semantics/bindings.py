"""Where a function's names are bound: AST scans that decide, before
translating, which names are static, rebound, carried by loops or updated
in place.
"""

import ast
from typing import Dict, List, Optional, Set, Tuple


# What desugar/alias_branches.py appends (with a number) to a name it
# gives one arm of a branch: not an identifier, so no name of the program.
ARM_MARK = "'"


def is_arm_local(name: str) -> bool:
    """Whether alias_branches.py made `name`: bound once in its arm before
    any use there, and used nowhere else (never carried by a loop)."""
    return ARM_MARK in name


def carried_names(stmts: List[ast.stmt], augmented: bool = False) -> Set[str]:
    """Names that `stmts` (a loop body, in order) read before assigning:
    their values come from the previous iteration. With `augmented`, an
    augmented assignment (`s += x`) binds its name and counts as a read
    of it too."""
    pending = {n for n in assigned_names(stmts, augmented=augmented)
               if not is_arm_local(n)}
    carried = set()
    for st in stmts:
        loads = {n.id for n in ast.walk(st)
                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if augmented:
            loads |= {n.target.id for n in ast.walk(st)
                      if isinstance(n, ast.AugAssign)
                      and isinstance(n.target, ast.Name)}
        stores = set(assigned_names([st], augmented=augmented))
        for name in list(pending):
            if name in loads:
                carried.add(name)
            if name in loads or name in stores:
                pending.discard(name)
    return carried


def name_permutation(node: ast.AST
                     ) -> Optional[Tuple[List[str], List[str]]]:
    """(targets, sources) of `a, b = b, a` (names only, each once, the
    same set on both sides), else None."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    t, v = node.targets[0], node.value
    if not (isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple)
            and len(t.elts) == len(v.elts)
            and all(isinstance(e, ast.Name) for e in t.elts + v.elts)):
        return None
    targets = [e.id for e in t.elts]
    sources = [e.id for e in v.elts]
    if len(set(targets)) != len(targets) or set(targets) != set(sources):
        return None
    return targets, sources


def assigned_names(stmts: List[ast.stmt], augmented: bool = True
                   ) -> List[str]:
    """Names that statements `stmts` (nested blocks included) bind, in the
    order of their first binding; with augmented=False, not counting
    `x += ...` (which updates arrays in place)."""
    out = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign) or (
                    augmented and isinstance(node, ast.AugAssign)):
                targets = [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                              ast.Store):
                        out.setdefault(n.id)
    return list(out)


def inplace_targets(fdef: ast.FunctionDef) -> Set[str]:
    """Names written through a subscript or an augmented assignment."""
    out = set()
    for node in ast.walk(fdef):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        for t in targets:
            while isinstance(t, ast.Subscript):
                t = t.value
                if isinstance(t, ast.Name):
                    out.add(t.id)
            if isinstance(node, ast.AugAssign) and isinstance(t, ast.Name):
                out.add(t.id)
    return out


def count_assignments(fdef: ast.FunctionDef, augmented: bool = True
                      ) -> Dict[str, int]:
    """How often each name is assigned (for loops count as one per loop);
    with augmented=False, `x += ...` does not count (for arrays it updates
    in place)."""
    counts = {}

    def bump(name, n=1):
        counts[name] = counts.get(name, 0) + n

    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx,
                                                              ast.Store):
                        bump(n.id)
        elif isinstance(node, ast.AnnAssign) or (
                augmented and isinstance(node, ast.AugAssign)):
            if isinstance(node.target, ast.Name):
                bump(node.target.id, 2)
        elif isinstance(node, ast.For):
            if isinstance(node.target, ast.Name):
                bump("__for__" + node.target.id)
    # Assignments inside loops happen repeatedly.
    for node in ast.walk(fdef):
        if isinstance(node, (ast.For, ast.While)):
            for inner in ast.walk(node):
                if inner is node:
                    continue
                if isinstance(inner, ast.Assign):
                    for t in inner.targets:
                        if isinstance(t, ast.Name):
                            bump(t.id, 1)
    if augmented:
        counts[STRAIGHT] = _straight_line_names(fdef)
        counts[STATIC] = _static_names(fdef)
        counts[SITES] = _binding_sites(fdef)
    return counts


# The key under which count_assignments gives, per name, the number of
# statements binding it (each once, in a loop or not).
SITES = "<sites>"


def _binding_sites(fdef):
    sites = {}
    for node in ast.walk(fdef):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.For, ast.AnnAssign, ast.NamedExpr)):
            targets = [node.target]
        elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
            a = node.args
            for x in a.posonlyargs + a.args + a.kwonlyargs:
                sites[x.arg] = sites.get(x.arg, 0) + 1
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    sites[n.id] = sites.get(n.id, 0) + 1
    return sites


# The key under which count_assignments lists the names assigned only by
# plain statements of the function's own top level (not an identifier).
STRAIGHT = "<straight-line>"


# The key under which count_assignments lists the names bound only by
# assignments of the function's own top level (augmented ones anywhere).
STATIC = "<static>"


def _static_names(fdef):
    """Names bound only by `name = value` or `a, b = ...` statements
    directly in the function's body (augmented assignments anywhere: on an
    array they update it in place). Each binding is translated once, in
    order, so such a name can simply move from array to array."""
    top, other = set(), set()
    for stmt in fdef.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                all(isinstance(t, ast.Name) for t in (
                    stmt.targets[0].elts if isinstance(
                        stmt.targets[0], ast.Tuple) else [stmt.targets[0]])):
            t = stmt.targets[0]
            top |= {n.id for n in (t.elts if isinstance(t, ast.Tuple)
                                   else [t])}
            inner = [stmt.value]
        else:
            inner = [stmt]
        for sub in inner:
            for n in ast.walk(sub):
                if isinstance(n, ast.AugAssign):
                    continue
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) \
                        and not augmented_target(sub, n):
                    other.add(n.id)
                else:
                    other |= _nested_scope_names(n)
    return frozenset(top - other)


def _nested_scope_names(node):
    """The names a nested function or lambda binds in the enclosing
    statement's view: its parameters and, for a def, its own name."""
    if not isinstance(node, (ast.FunctionDef, ast.Lambda)):
        return set()
    a = node.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    if isinstance(node, ast.FunctionDef):
        names.add(node.name)
    return names


def augmented_target(tree: ast.AST, name: ast.Name) -> bool:
    """Whether `name` (a Name node in `tree`) is the target of an
    augmented assignment."""
    return any(isinstance(n, ast.AugAssign) and n.target is name
               for n in ast.walk(tree))


def _straight_line_names(fdef):
    """Names bound only by `name = value` statements directly in the
    function's body (no loop, branch or nested scope binds them, no
    augmented assignment): each binding is translated once, in order, so a
    constant value can stay a constant through rebindings
    (`d = -1; np.roll(x, d); d = 1` and unrolled loops over tuples)."""
    top, other = set(), set()
    for stmt in fdef.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            top.add(stmt.targets[0].id)
            inner = [stmt.value]
        else:
            inner = [stmt]
        for sub in inner:
            for n in ast.walk(sub):
                if isinstance(n, ast.Name) and not isinstance(n.ctx,
                                                              ast.Load):
                    other.add(n.id)
                else:
                    other |= _nested_scope_names(n)
    return frozenset(top - other)


def construct_name(node: ast.AST) -> str:
    names = {
        "Break": "break", "Continue": "continue", "With": "with",
        "Try": "try", "Raise": "raise", "Lambda": "lambda",
        "ListComp": "list comprehension", "DictComp": "dict comprehension",
        "SetComp": "set comprehension", "GeneratorExp": "generator expression",
        "List": "list", "Dict": "dict", "Set": "set", "Global": "global",
        "Nonlocal": "nonlocal", "FunctionDef": "nested function",
        "ClassDef": "class definition", "Import": "import",
        "ImportFrom": "import", "Delete": "del", "Assert": "assert",
        "Yield": "yield", "Await": "await", "JoinedStr": "f-string",
        "Starred": "starred expression", "NamedExpr": "walrus operator",
    }
    return names.get(type(node).__name__, type(node).__name__)


def reads_or_calls(expr: ast.AST) -> bool:
    """Whether evaluating `expr` may read an element or call (and so check
    an index or a length): a branch Python evaluates only where taken."""
    return any(isinstance(n, (ast.Subscript, ast.Call))
               for n in ast.walk(expr))
