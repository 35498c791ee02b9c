"""Walks of Python syntax trees that do not recurse.

An expression may be nested thousands deep (`x + x + ... + x`, written
or generated, is a left-nested chain of BinOps), deeper than Python's
recursion limit, so the rewriting passes that run before translation use
these instead of ast.fix_missing_locations, copy.deepcopy and
ast.NodeTransformer's walk into expressions (all recursive). The
translator walks such chains iteratively too (Operators.eval_BinOp,
Translator.emit_scalar); whatever still nests too deeply for it is a
located FrontendError (translator.py, _nested_too_deeply).
"""

import ast
import copy
import threading
from typing import Tuple

# CPython 3.11's C converter from its parser's tree to `ast` objects keeps
# its recursion depth in per-interpreter state, not per thread: two
# threads parsing at once can fail with "SystemError: AST constructor
# recursion depth mismatch" (seen when several threads make a program's
# first call). Every parse in the frontend takes this lock.
_PARSE_LOCK = threading.Lock()


def parse(source: str) -> ast.Module:
    """ast.parse, one thread at a time (see _PARSE_LOCK)."""
    with _PARSE_LOCK:
        return ast.parse(source)


def fix_locations(node: ast.AST) -> ast.AST:
    """ast.fix_missing_locations, iteratively: each node without a
    position gets its parent's. Returns `node`."""
    stack = [(node, 1, 0, 1, 0)]
    while stack:
        n, lineno, col, end_lineno, end_col = stack.pop()
        attrs = n._attributes
        if "lineno" in attrs:
            if not hasattr(n, "lineno"):
                n.lineno = lineno
            else:
                lineno = n.lineno
        if "end_lineno" in attrs:
            if getattr(n, "end_lineno", None) is None:
                n.end_lineno = end_lineno
            else:
                end_lineno = n.end_lineno
        if "col_offset" in attrs:
            if not hasattr(n, "col_offset"):
                n.col_offset = col
            else:
                col = n.col_offset
        if "end_col_offset" in attrs:
            if getattr(n, "end_col_offset", None) is None:
                n.end_col_offset = end_col
            else:
                end_col = n.end_col_offset
        stack.extend((c, lineno, col, end_lineno, end_col)
                     for c in ast.iter_child_nodes(n))
    return node


def copy_tree(tree: ast.AST) -> ast.AST:
    """copy.deepcopy of a node or a list of nodes, iteratively (every
    attribute is copied, the passes' own markers too; a node reached
    twice is copied once, as deepcopy does)."""
    memo = {}
    work = []

    def clone(v):
        if isinstance(v, ast.AST):
            new = memo.get(id(v))
            if new is None:
                new = memo[id(v)] = type(v).__new__(type(v))
                work.append((v, new))
            return new
        if isinstance(v, list):
            return [clone(x) for x in v]
        return copy.deepcopy(v)

    out = clone(tree)
    while work:
        old, new = work.pop()
        for k, v in vars(old).items():
            setattr(new, k, clone(v))
    return out


class StatementTransformer(ast.NodeTransformer):
    """An ast.NodeTransformer for passes that rewrite statements only: it
    does not walk into expressions (which hold no statements, and may be
    nested deeper than the recursion limit)."""

    def visit(self, node):
        if isinstance(node, ast.expr):
            return node
        return super().visit(node)


def substitute(tree: ast.AST, name: str, value: ast.expr) -> ast.AST:
    """`tree` (a statement, changed in place, and returned) with each
    read of `name` replaced by a copy of the expression `value`, placed
    where the read was; a function or lambda whose parameter shadows the
    name is left alone. Iterative (see the module's docstring)."""
    def replace(n):
        if isinstance(n, ast.Name) and n.id == name and \
                isinstance(n.ctx, ast.Load):
            return ast.copy_location(copy_tree(value), n)
        return n

    def shadows(n):
        if not isinstance(n, (ast.Lambda, ast.FunctionDef,
                              ast.AsyncFunctionDef)):
            return False
        a = n.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
        return name in params

    tree = replace(tree)
    stack = [tree]
    while stack:
        n = stack.pop()
        if shadows(n):
            continue
        for field, v in ast.iter_fields(n):
            if isinstance(v, list):
                v[:] = [replace(x) for x in v]
                stack.extend(x for x in v if isinstance(x, ast.AST))
            elif isinstance(v, ast.AST):
                new = replace(v)
                if new is not v:
                    setattr(n, field, new)
                else:
                    stack.append(v)
    return tree


def reaches(root: ast.AST, target: ast.AST,
            stop: Tuple[type, ...]) -> bool:
    """Whether `target` is in the tree of `root` (`root` included) without
    entering a node of the types `stop`."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n is target:
            return True
        if isinstance(n, stop):
            continue
        stack.extend(ast.iter_child_nodes(n))
    return False
