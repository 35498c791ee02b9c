"""Early returns under run-time tests, folded into one return: a function
body `if c: return a` ... `return b` becomes `if c: r = a` `else: ...
r = b` and `return r`. The statements after an `if` that may return go
into its branches that do not (copied, so that each node is translated
once); each return becomes an assignment to the same names, which the
translator merges after the branch as any variable assigned in both.
Returns inside loops are not folded (the translator rejects them).
"""

import ast
import copy

# Not a name a Python program can have written (it is not an identifier
# the tokenizer produces from source, but ast.Name accepts it).
RESULT = "return value"


def returns_in(stmt):
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


def _always_returns(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, ast.Return):
        return True
    return isinstance(last, ast.If) and _always_returns(last.body) and \
        _always_returns(last.orelse)


def _fold(stmts, unsupported):
    """`stmts` with every return at the end of a branch of nested ifs: the
    statements after an if that may return follow in its branches."""
    out = []
    for k, st in enumerate(stmts):
        if isinstance(st, ast.Return):
            return out + [st]  # what follows is unreachable
        if isinstance(st, ast.If) and returns_in(st):
            rest = stmts[k + 1:]
            body = st.body if _always_returns(st.body) else \
                st.body + copy.deepcopy(rest)
            orelse = st.orelse if _always_returns(st.orelse) else \
                st.orelse + copy.deepcopy(rest)
            return out + [ast.copy_location(ast.If(
                test=st.test, body=_fold(body, unsupported),
                orelse=_fold(orelse, unsupported)), st)]
        inner = returns_in(st)
        if inner is not None:
            raise unsupported(inner, "return inside a loop or block",
                              "a return may end the function only at its "
                              "end or in branches of if statements; set a "
                              "variable and break instead")
        out.append(st)
    return out


def _returns(stmts):
    for st in stmts:
        for node in ast.walk(st):
            if isinstance(node, ast.Return):
                yield node


def fold_returns(stmts, unsupported):
    """`stmts` (a function body from an `if` that may return on) as
    statements whose only return is the last, or ends without one where
    the function returns nothing. `unsupported(node, construct, reason)`
    makes the located error for what cannot be folded."""
    folded = _fold(list(stmts), unsupported)
    returns = list(_returns(folded))
    values = [r.value for r in returns]
    if all(v is None or (isinstance(v, ast.Constant) and v.value is None)
           for v in values):
        # A function returning nothing: returns end their branches.
        _replace(folded, lambda r: ast.copy_location(ast.Pass(), r))
        return folded
    if not _always_returns(folded) or any(v is None for v in values):
        node = next((r for r, v in zip(returns, values) if v is None),
                    folded[-1])
        raise unsupported(node, "return", "the function returns a value "
                          "on some paths and none on others")
    sizes = {len(v.elts) if isinstance(v, ast.Tuple) else None
             for v in values}
    if len(sizes) != 1:
        raise unsupported(returns[0], "return", "the function returns "
                          "tuples of different lengths, or a tuple and a "
                          "value, on different paths")
    size = sizes.pop()
    names = [RESULT] if size is None else [f"{RESULT} {k}"
                                           for k in range(size)]

    def target():
        if size is None:
            return ast.Name(id=names[0], ctx=ast.Store())
        return ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Store())
                               for n in names], ctx=ast.Store())

    _replace(folded, lambda r: ast.copy_location(
        ast.Assign(targets=[target()], value=r.value), r))
    value = ast.Name(id=names[0], ctx=ast.Load()) if size is None else \
        ast.Tuple(elts=[ast.Name(id=n, ctx=ast.Load()) for n in names],
                  ctx=ast.Load())
    last = returns[-1]
    folded.append(ast.copy_location(ast.Return(value=value), last))
    return [ast.fix_missing_locations(st) for st in folded]


def _replace(stmts, by):
    """Replaces, in place, every return of `stmts` (in if branches) by
    `by(return)`."""
    for k, st in enumerate(stmts):
        if isinstance(st, ast.Return):
            stmts[k] = by(st)
        elif isinstance(st, ast.If):
            _replace(st.body, by)
            _replace(st.orelse, by)
