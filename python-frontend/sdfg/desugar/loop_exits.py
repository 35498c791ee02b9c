"""`break` and `continue`, rewritten away before translation.

Loops lower to sdfg.loop / sdfg.while regions, which have no early exit.
`continue` becomes structure: the statements after it move into the
branch that does not continue. `break` sets a flag (a bool variable
`__break<n>`, False before the loop) and continues; a for loop then runs
its remaining iterations with the body guarded by `not flag`, a while loop
also tests the flag. The iterations a for loop runs after a break do no
work but still cost their trip (a loop bound cannot change at run time);
gradients follow the taped branch conditions as for any `if`.
"""

import ast
import itertools

from .astutil import StatementTransformer, fix_locations


def lower_loop_exits(fdef: ast.FunctionDef) -> None:
    """Rewrites every loop of `fdef` (in place) whose body breaks or
    continues."""
    # Numbered on from the flags a previous pass left (returns.py adds
    # breaks after the first), so that flags stay distinct.
    taken = [int(n.id[7:]) for n in ast.walk(fdef)
             if isinstance(n, ast.Name) and n.id.startswith("__break")
             and n.id[7:].isdigit()]
    names = (f"__break{k}" for k in itertools.count(max(taken, default=-1)
                                                    + 1))

    class Lower(StatementTransformer):
        def visit_For(self, node):
            self.generic_visit(node)  # inner loops first
            return _lower(node, names)

        visit_While = visit_For

    Lower().visit(fdef)
    fix_locations(fdef)
    return fdef


def _exits(stmts, kind=(ast.Break, ast.Continue)):
    """Whether `stmts` break or continue their own loop (not an inner
    one's)."""
    for st in stmts:
        if isinstance(st, kind):
            return True
        if isinstance(st, ast.If) and (_exits(st.body, kind) or
                                       _exits(st.orelse, kind)):
            return True
    return False


def _lower(loop, names):
    if not _exits(loop.body):
        return loop
    flag = next(names) if _exits(loop.body, ast.Break) else None
    body = _rewrite(loop.body, flag)
    if flag is None:
        loop.body = body or [ast.copy_location(ast.Pass(), loop)]
        return loop
    # The loop then runs every iteration: its variable afterwards is not
    # the breaking iteration's (the translator refuses to read it).
    loop.sdfg_breaks = True
    init = ast.copy_location(
        ast.Assign(targets=[ast.Name(flag, ast.Store())],
                   value=ast.Constant(False)), loop)
    running = ast.copy_location(
        ast.UnaryOp(ast.Not(), ast.Name(flag, ast.Load())), loop)
    if isinstance(loop, ast.While):
        loop.test = ast.copy_location(
            ast.BoolOp(ast.And(), [running, loop.test]), loop.test)
        loop.body = body or [ast.copy_location(ast.Pass(), loop)]
    else:
        loop.body = [ast.copy_location(
            ast.If(test=running, body=body or [ast.Pass()], orelse=[]),
            loop.body[0])]
    return [init, loop]


def _rewrite(stmts, flag):
    """`stmts` without their break/continue: what follows an exit runs only
    on the paths that do not take it."""
    out = []
    for k, st in enumerate(stmts):
        rest = stmts[k + 1:]
        if isinstance(st, ast.Continue):
            return out
        if isinstance(st, ast.Break):
            out.append(ast.copy_location(
                ast.Assign(targets=[ast.Name(flag, ast.Store())],
                           value=ast.Constant(True)), st))
            return out
        if isinstance(st, ast.If) and (_exits(st.body) or
                                       _exits(st.orelse)):
            out.append(ast.copy_location(
                ast.If(test=st.test, body=_rewrite(st.body + rest, flag)
                       or [ast.copy_location(ast.Pass(), st)],
                       orelse=_rewrite(st.orelse + rest, flag)), st))
            return out
        out.append(st)
    return out
