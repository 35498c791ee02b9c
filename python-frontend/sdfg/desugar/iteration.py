"""Python's other for loops, rewritten into `for i in range(...)` before
translation.

    for x in A:                  for k in range(len(A)): x = A[k]
    for i, x in enumerate(A):    for i in range(len(A)): x = A[i]
    for a, b in zip(A, B):       for k in range(min(len(A), len(B))):
                                     a = A[k]; b = B[k]
    for i in reversed(range(n)): for i in range(n - 1, -1, -1)
    (and with a start and a constant step: from the range's last item)
    for W in (W1, W2):           the body once per element, W bound to it

As in Python, an element of a 1-d array is its value at the time the
iteration reaches it, and a row of a matrix is a view, so in-place updates
through it reach the matrix. An iterable that is not a name (or an
attribute or subscript of one) is evaluated once, before the loop, into a
hidden variable. A loop over a tuple or list literal is unrolled here,
one over a name bound to a tuple or list (`for W in layers`, also in
enumerate and zip) by the translator. Literal loops may not break or
continue (there is no loop left to exit); the translator's see their
exits as flags (loop_exits.py runs in between).
"""

import ast
import itertools

from .astutil import (StatementTransformer, copy_tree, fix_locations, reaches,
                      substitute)


def _reversed_range(args):
    """range(...) running range(*args) backwards. With a step s (a
    constant, as the translator requires): from the last item,
    lo + (hi - lo - 1) // s * s for s > 0 (lo - (lo - hi - 1) // -s * -s
    for s < 0), by -s, to just past lo; empty where the range is."""
    lo = args[0] if len(args) >= 2 else ast.Constant(0)
    hi = args[1] if len(args) >= 2 else args[0]
    step = args[2] if len(args) == 3 else ast.Constant(1)

    def op(a, o, b):
        return ast.BinOp(a, o, b)

    def const(v):
        return ast.Constant(v)
    k = step.value if isinstance(step, ast.Constant) else None
    if isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and \
            isinstance(step.operand, ast.Constant):
        k = -step.operand.value
    if not isinstance(k, int) or isinstance(k, bool) or k == 0:
        # Not a constant step: left for the translator to report.
        return ast.Call(ast.Name("reversed", ast.Load()),
                        [ast.Call(ast.Name("range", ast.Load()), args, [])],
                        [])
    if k > 0:
        last = op(lo, ast.Add(), op(op(op(op(hi, ast.Sub(), lo), ast.Sub(),
                                            const(1)), ast.FloorDiv(),
                                         const(k)), ast.Mult(), const(k)))
        stop = op(lo, ast.Sub(), const(1))
    else:
        last = op(lo, ast.Sub(), op(op(op(op(lo, ast.Sub(), hi), ast.Sub(),
                                            const(1)), ast.FloorDiv(),
                                         const(-k)), ast.Mult(), const(-k)))
        stop = op(lo, ast.Add(), const(1))
    return ast.Call(ast.Name("range", ast.Load()), [last, stop, const(-k)],
                    [])


def lower_iteration(fdef: ast.FunctionDef) -> None:
    """Rewrites (in place) every for loop of `fdef` whose iterable is not a
    call of range()."""
    names = (f"__sdfg_it{k}" for k in itertools.count())

    class Lower(StatementTransformer):
        def visit_For(self, node):
            self.generic_visit(node)  # inner loops first
            return _lower(node, names)

        def visit_Return(self, node):
            # return f(..., out=c): the call as a statement, then return c
            # (NumPy returns its output operand).
            call = node.value
            out = [k for k in getattr(call, "keywords", ())
                   if k.arg == "out"] if isinstance(call, ast.Call) else []
            if not out or not isinstance(out[0].value, (ast.Name,
                                                        ast.Subscript)):
                return node
            target = out[0].value
            return [_loc(ast.Expr(call), node),
                    _loc(ast.Return(copy_tree(target)), node)]

    Lower().visit(fdef)
    fix_locations(fdef)
    return fdef


def _is_call(node, name, nargs=None):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == name and not node.keywords and
            (nargs is None or len(node.args) in nargs))


def _stable(node):
    """Whether evaluating `node` again inside the loop gives the same
    array as before it: a name, or attributes and subscripts of one whose
    subscripts are names and constants."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _stable(node.value)
    if isinstance(node, ast.Subscript):
        return _stable(node.value) and all(
            isinstance(n, (ast.Name, ast.Constant, ast.Slice, ast.Tuple,
                           ast.UnaryOp, ast.BinOp, ast.expr_context,
                           ast.operator, ast.unaryop))
            for n in ast.walk(node.slice))
    return False


def _loc(new, old):
    return fix_locations(ast.copy_location(new, old))


def _lower(node, names):
    if node.orelse:
        return node  # for-else: the translator reports it
    it = node.iter
    if _is_call(it, "range"):
        return node
    if isinstance(it, (ast.Tuple, ast.List)):
        return _unroll(node, it.elts)
    if isinstance(it, (ast.Set, ast.Dict, ast.Constant, ast.SetComp,
                       ast.DictComp)):
        return node  # not an array: the translator reports the loop
    if _is_call(it, "reversed", (1,)) and isinstance(
            it.args[0], (ast.Tuple, ast.List)):
        return _unroll(node, list(reversed(it.args[0].elts)))
    if _is_call(it, "reversed", (1,)) and _is_call(it.args[0], "range",
                                                    (1, 2, 3)):
        node.iter = _loc(_reversed_range(it.args[0].args), it)
        return node
    before = []

    def iterable(expr):
        """`expr`, or a hidden name bound to it before the loop."""
        if _stable(expr):
            return expr
        name = next(names)
        before.append(_loc(ast.Assign([ast.Name(name, ast.Store())], expr),
                           node))
        return ast.Name(name, ast.Load())

    def item(expr, index):
        sub = ast.Subscript(expr, ast.Name(index, ast.Load()), ast.Load())
        # The index-th item in iteration order: of a dict (a pytree
        # argument), its index-th key, not the value at key `index`.
        sub.sdfg_iteration = True
        return sub

    def length(exprs):
        lens = [ast.Call(ast.Name("len", ast.Load()), [e], []) for e in exprs]
        if len(lens) == 1:
            return lens[0]
        return ast.Call(ast.Name("min", ast.Load()), lens, [])

    target, binds = node.target, []
    backwards = False
    if _is_call(it, "reversed", (1,)) and not (
            _is_call(it.args[0], "enumerate") or _is_call(it.args[0], "zip")):
        # for x in reversed(a): the rows of a from the last.
        index = next(names)
        sources, targets = [iterable(it.args[0])], [target]
        backwards = True
    elif _is_call(it, "enumerate", (1, 2)):
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            return node  # the translator reports the target
        counter, element = target.elts
        source = it.args[0]
        start = it.args[1] if len(it.args) == 2 else None
        if isinstance(counter, ast.Name) and start is None:
            index = counter.id
        else:
            index = next(names)
            value = ast.Name(index, ast.Load())
            if start is not None:
                value = ast.BinOp(value, ast.Add(), start)
            binds.append(ast.Assign([counter], value))
        if _is_call(source, "zip") and isinstance(element, ast.Tuple) and \
                len(element.elts) == len(source.args):
            sources = [iterable(a) for a in source.args]
            targets = element.elts
        else:
            sources, targets = [iterable(source)], [element]
    elif _is_call(it, "zip") and it.args:
        if not (isinstance(target, ast.Tuple) and
                len(target.elts) == len(it.args)):
            return node
        index = next(names)
        sources = [iterable(a) for a in it.args]
        targets = target.elts
    elif isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
            it.func.id in ("enumerate", "zip", "reversed"):
        return node  # an unsupported form: the translator reports it
    else:
        index = next(names)
        sources, targets = [iterable(it)], [target]
    elements = []
    for t, s in zip(targets, sources):
        bind = ast.Assign([t], item(s, index))
        # The translator binds the name to the row's view (an alias, as
        # Python's iteration gives) rather than to a variable of its own.
        bind.sdfg_element = True
        binds.append(bind)
        elements += [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]
    rows = ast.Call(ast.Name("range", ast.Load()), [length(sources)], [])
    if backwards:
        rows = _reversed_range(rows.args)
    loop = ast.For(ast.Name(index, ast.Store()), rows,
                   [_loc(b, node) for b in binds] + node.body, [])
    # Names that alias a row hold a view indexed by the loop's iterator,
    # which does not exist after the loop.
    loop.sdfg_elements = elements
    # What the loop iterates over: when that is a Python tuple or list (a
    # name bound to one), the translator unrolls the loop instead.
    loop.sdfg_sequences = sources
    loop.sdfg_backwards = backwards
    return before + [_loc(loop, node)]


def _unroll(node, elts):
    for sub in node.body:
        for n in ast.walk(sub):
            if isinstance(n, (ast.Break, ast.Continue)) and \
                    _exits_this_loop(sub, n):
                return node  # kept: the translator reports the loop
    target = node.target
    names = [target] if isinstance(target, ast.Name) else \
        list(target.elts) if isinstance(target, ast.Tuple) else []
    # The item bound to each name, per iteration: the item itself, or the
    # parts of a tuple item unpacked into a tuple of names.
    bound = [[e] if isinstance(target, ast.Name) else
             list(e.elts) if isinstance(e, ast.Tuple) and
             len(e.elts) == len(names) else None for e in elts]
    if names and elts and all(isinstance(n, ast.Name) for n in names) and \
            all(b is not None and all(_literal(x) for x in b)
                for b in bound) and not any(
                isinstance(n, ast.Name) and n.id in {t.id for t in names} and
                not isinstance(n.ctx, ast.Load)
                for sub in node.body for n in ast.walk(sub)):
        # `for d in (-1, 1)`, `for s in ((1, 0), (0, 1))`, `for c, w in
        # ((1, .5), (2, .25))`: each copy of the body reads the items
        # themselves, constants (np.roll's shift, an axis), where a
        # variable assigned once per item would be a run-time value; the
        # names keep the last items after the loop.
        out = []
        for items in bound:
            for sub in node.body:
                st = copy_tree(sub)
                for t, x in zip(names, items):
                    st = substitute(st, t.id, x)
                out.append(st)
        out.append(_loc(ast.Assign([copy_tree(target)], elts[-1]), node))
        return [fix_locations(st) for st in out]
    out = []
    for e in elts:
        bind = ast.Assign([copy_tree(node.target)], e)
        # Each copy binds the name to its item, as Python's iteration
        # does: an array item is aliased (`for a in (x, y): a *= 2`
        # updates x and y), not copied into a variable of the name's own.
        bind.sdfg_element = True
        out.append(_loc(bind, node))
        out.extend(copy_tree(node.body))
    return out


def _literal(e):
    """A number, a negated one, or a tuple of literals."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, (int, float, bool))
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, (ast.USub, ast.UAdd)):
        return _literal(e.operand)
    if isinstance(e, ast.Tuple):
        return all(_literal(x) for x in e.elts)
    return False


def _exits_this_loop(stmt, target):
    """Whether `target` (a break or continue inside `stmt`) belongs to the
    loop around `stmt`, not to a loop inside it."""
    return reaches(stmt, target, (ast.For, ast.While))
