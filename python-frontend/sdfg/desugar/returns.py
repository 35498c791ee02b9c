"""Early returns folded into one return at the end of a function body.

In if statements: `if c: return a` ... `return b` becomes `if c: r = a`
`else: ... r = b` and `return r`; the statements after an `if` that may
return go (copied, so that each node is translated once) into its
branches that do not. In loops: `return v` becomes `r = v`, a flag set and
`break` (and `if flag: break` after each inner loop), and the statements
after the loop run under `if not flag`. The translator then merges the
result names as any variable assigned in branches, and loop_exits.py
rewrites the breaks.
"""

import ast
from typing import Callable, List, Optional

from .astutil import copy_tree, fix_locations

# Not names a Python program can have written (not identifiers), which
# ast.Name accepts.
RESULT = "return value"
FLAG = "return taken"


def returns_in(stmt: ast.AST) -> Optional[ast.Return]:
    """The first return of the function it is in that `stmt` holds
    (nested functions' returns are theirs), or None."""
    todo = [stmt]
    while todo:
        node = todo.pop(0)
        if isinstance(node, ast.Return):
            return node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return None


def _all_returns(stmts):
    for st in stmts:
        todo = [st]
        while todo:
            node = todo.pop(0)
            if isinstance(node, ast.Return):
                yield node
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                       ast.Lambda, ast.ClassDef)):
                todo.extend(ast.iter_child_nodes(node))


def _always_returns(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and \
        _always_returns(last.orelse)


def _set_flag(value, at):
    return ast.copy_location(ast.Assign(
        targets=[ast.Name(id=FLAG, ctx=ast.Store())],
        value=ast.Constant(value)), at)


class _Folder:
    def __init__(self, unsupported, convert, taken):
        self.unsupported = unsupported
        self.convert = convert  # a return -> the statements setting it
        self.taken = taken  # what a branch after a returning loop ends in

    def fold(self, stmts):
        """`stmts` with every return at the end of a branch of nested ifs:
        the statements after an if that may return follow in its
        branches; those after a loop that may return, under `if not
        flag`."""
        out = []
        for k, st in enumerate(stmts):
            if isinstance(st, ast.Return):
                return out + [st]  # what follows is unreachable
            if returns_in(st) is None:
                out.append(st)
                continue
            rest = stmts[k + 1:]
            if isinstance(st, ast.If):
                body = st.body if _always_returns(st.body) else \
                    st.body + copy_tree(rest)
                orelse = st.orelse if _always_returns(st.orelse) else \
                    st.orelse + copy_tree(rest)
                return out + [ast.copy_location(ast.If(
                    test=st.test, body=self.fold(body),
                    orelse=self.fold(orelse)), st)]
            if isinstance(st, (ast.For, ast.While)):
                loop = self._loop(copy_tree(st))
                after = ast.copy_location(ast.If(
                    test=ast.UnaryOp(op=ast.Not(),
                                     operand=ast.Name(id=FLAG,
                                                      ctx=ast.Load())),
                    body=self.fold(rest) or [ast.Pass()],
                    orelse=self.taken()), st)
                return out + [_set_flag(False, st), loop, after]
            raise self._unsupported(returns_in(st))
        return out

    def _unsupported(self, node):
        return self.unsupported(
            node, "return inside a block",
            "a return may end the function at its end, in branches of if "
            "statements or in loops, not in with or try blocks")

    def _loop(self, loop):
        if loop.orelse:
            raise self.unsupported(
                returns_in(loop), "return in a loop with an else clause",
                "write the else clause's statements after the loop")
        loop.body = self._exits(loop.body)
        return loop

    def _exits(self, stmts):
        """A loop body whose returns set the result and the flag and
        break; a nested loop that may return is followed by a break on
        the flag."""
        out = []
        for st in stmts:
            if isinstance(st, ast.Return):
                return out + self.convert(st) + [
                    _set_flag(True, st), ast.copy_location(ast.Break(), st)]
            if returns_in(st) is None:
                out.append(st)
            elif isinstance(st, ast.If):
                st.body = self._exits(st.body) or [ast.Pass()]
                st.orelse = self._exits(st.orelse)
                out.append(st)
            elif isinstance(st, (ast.For, ast.While)):
                out.append(self._loop(st))
                out.append(ast.copy_location(ast.If(
                    test=ast.Name(id=FLAG, ctx=ast.Load()),
                    body=[ast.copy_location(ast.Break(), st)], orelse=[]),
                    st))
            else:
                raise self._unsupported(returns_in(st))
        return out


def fold_returns(stmts: List[ast.stmt],
                 unsupported: Callable[..., Exception]) -> List[ast.stmt]:
    """`stmts` (a function body) as statements whose only return is the
    last, or without one where the function returns nothing.
    `unsupported(node, construct, reason)` makes the located error for
    what cannot be folded."""
    found = list(_all_returns(stmts))
    values = [r.value for r in found]
    procedure = all(v is None or (isinstance(v, ast.Constant) and
                                  v.value is None) for v in values)
    names = []
    size = None
    if not procedure:
        if any(v is None for v in values):
            node = next(r for r, v in zip(found, values) if v is None)
            raise unsupported(node, "return", "the function returns a value "
                              "on some paths and none on others")
        sizes = {len(v.elts) if isinstance(v, ast.Tuple) else None
                 for v in values}
        if len(sizes) != 1:
            raise unsupported(found[0], "return", "the function returns "
                              "tuples of different lengths, or a tuple and a "
                              "value, on different paths")
        size = sizes.pop()
        names = [RESULT] if size is None else [f"{RESULT} {k}"
                                               for k in range(size)]

    def result(ctx):
        if size is None:
            return ast.Name(id=names[0], ctx=ctx)
        return ast.Tuple(elts=[ast.Name(id=n, ctx=ctx) for n in names],
                         ctx=ctx)

    def convert(r):
        if procedure:
            return []
        return [ast.copy_location(ast.Assign(targets=[result(ast.Store())],
                                             value=r.value), r)]

    def taken():
        # After a loop that returned: the result is already set.
        return [] if procedure else [ast.Return(value=result(ast.Load()))]

    folded = _Folder(unsupported, convert, taken).fold(list(stmts))
    if procedure:
        _replace(folded, lambda r: [ast.copy_location(ast.Pass(), r)])
        return [fix_locations(st) for st in folded]
    if not _always_returns(folded):
        raise unsupported(folded[-1], "return", "the function returns a "
                          "value on some paths and none on others")
    # A branch that already holds the result (after a loop that returned)
    # keeps it.
    _replace(folded, lambda r: [] if isinstance(r.value, (ast.Name,
                                                          ast.Tuple)) and
             ast.dump(r.value) == ast.dump(result(ast.Load())) else
             convert(r))
    folded.append(ast.copy_location(ast.Return(value=result(ast.Load())),
                                    found[-1]))
    return [fix_locations(st) for st in folded]


def _replace(stmts, by):
    """Replaces, in place, every return that ends a branch of `stmts` (in
    if statements) by the statements `by(return)` (a branch left empty
    gets a pass)."""
    for k in range(len(stmts) - 1, -1, -1):
        st = stmts[k]
        if isinstance(st, ast.Return):
            stmts[k:k + 1] = by(st)
        elif isinstance(st, ast.If):
            _replace(st.body, by)
            _replace(st.orelse, by)
            if not st.body:
                st.body = [ast.copy_location(ast.Pass(), st)]
