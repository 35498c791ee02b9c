"""List comprehensions and generator expressions, unrolled at translation
time into the Python list of their items.

    [x[i] ** 2 for i in range(3)]        [x[0] ** 2, x[1] ** 2, x[2] ** 2]
    sum(c[k] * t ** k for k in range(4))  sum of the four terms
    np.stack([W @ v for W in (A, B)])     the stack of two products

The list is what every consumer of a list literal takes (np.array,
np.stack, np.concatenate, sum, min, max, tuple unpacking, indexing), so a
comprehension works wherever the literal would. What to iterate must be
known when the program is compiled: range() of integers (shapes and
constants), tuples and lists, the rows of an array (whose count is its
first extent), and enumerate, zip and reversed of those. `if` clauses must
be decided then too (conditions on the loop variables, not on array
values). Each item is translated on its own, so long comprehensions make
long programs: more than MAX_ITEMS items are rejected with a hint to write
the for loop, which compiles to one loop.
"""

import ast
from typing import TYPE_CHECKING, List

from ..semantics.values import Expr, Idx, Value, View, as_idx

MAX_ITEMS = 256

if TYPE_CHECKING:
    from .translator import Translator


def unroll(tr: "Translator", node: ast.expr) -> List[Value]:
    """The items of the comprehension `node` (ast.ListComp or
    ast.GeneratorExp), as a list of translated values."""
    items = []

    def expand(generators):
        if not generators:
            if len(items) == MAX_ITEMS:
                raise tr.unsupported(
                    node, f"comprehension with more than {MAX_ITEMS} items",
                    "each item is compiled separately; write a for loop "
                    "filling an array instead")
            items.append(tr.eval(node.elt))
            return
        gen = generators[0]
        if gen.is_async:
            raise tr.unsupported(gen, "async comprehension")
        for value in _iterate(tr, gen.iter):
            saved = _bind(tr, gen.target, value)
            try:
                if all(_decided(tr, c) for c in gen.ifs):
                    expand(generators[1:])
            finally:
                _restore(tr, saved)

    expand(node.generators)
    return items


def _int(tr, v, node, what="a range"):
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return v
    if isinstance(v, Idx) and v.is_const():
        return v.const
    raise tr.unsupported(node, f"comprehension over {what} known only at "
                         "run time", "the bounds must be integers known "
                         "when the program is compiled (shapes, constants); "
                         "write a for loop instead")


def _is_call(node, name):
    # Builtins recognised by name, as in iteration.py.
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == name and not node.keywords)


def _iterate(tr, it):
    """The values an iterable node yields, in order."""
    if _is_call(it, "range"):
        if not 1 <= len(it.args) <= 3:
            raise tr.error("range expected 1 to 3 arguments", it)
        bounds = [_int(tr, tr.eval(a), a) for a in it.args]
        return list(range(*bounds))
    if _is_call(it, "enumerate") and 1 <= len(it.args) <= 2:
        start = _int(tr, tr.eval(it.args[1]), it.args[1]) \
            if len(it.args) == 2 else 0
        return [(start + k, v)
                for k, v in enumerate(_iterate(tr, it.args[0]))]
    if _is_call(it, "zip") and it.args:
        return list(zip(*(_iterate(tr, a) for a in it.args)))
    if _is_call(it, "reversed") and len(it.args) == 1:
        return list(reversed(_iterate(tr, it.args[0])))
    value = tr.eval(it)
    if isinstance(value, (tuple, list)):
        return list(value)
    if isinstance(value, (View, Expr)) and len(value.shape) > 0:
        return _rows(tr, value, it)
    raise tr.unsupported(it, "comprehension over a value of type "
                         f"{type(value).__name__}",
                         "iterate over range(), a tuple or list, or an "
                         "array")


def _rows(tr, value, node):
    """The elements along the first axis of an array, each as indexing it
    gives: a row is a view, an element of a vector a scalar."""
    if not isinstance(value, View):
        value = tr.materialize(tr.to_expr(value), node, "rows")
    n = _int(tr, as_idx(value.shape[0]), node, "rows whose number is")
    hidden = f"__sdfg_rows{id(node)}"
    saved = tr.env.get(hidden)
    tr.env[hidden] = value
    try:
        return [tr.eval(ast.copy_location(
            ast.Subscript(ast.Name(hidden, ast.Load()), ast.Constant(k),
                          ast.Load()), node)) for k in range(n)]
    finally:
        if saved is None:
            tr.env.pop(hidden, None)
        else:
            tr.env[hidden] = saved


def _bind(tr, target, value):
    """Binds the names of `target` to `value` (unpacking tuples); returns
    what they were bound to before."""
    saved = []

    def bind(t, v):
        if isinstance(t, ast.Name):
            saved.append((t.id, tr.env.get(t.id), t.id in tr.env))
            tr.env[t.id] = v
        elif isinstance(t, (ast.Tuple, ast.List)):
            if not isinstance(v, (tuple, list)) or len(v) != len(t.elts):
                raise tr.unsupported(t, "comprehension target",
                                     "it must unpack a tuple of the same "
                                     "length")
            for tt, vv in zip(t.elts, v):
                bind(tt, vv)
        else:
            raise tr.unsupported(t, "comprehension target",
                                 "the target must be names")

    bind(target, value)
    return saved


def _restore(tr, saved):
    for name, old, present in reversed(saved):
        if present:
            tr.env[name] = old
        else:
            tr.env.pop(name, None)


def _decided(tr, cond):
    v = tr.eval(cond)
    if isinstance(v, Idx) and v.is_const():
        v = v.const
    if isinstance(v, (bool, int, float)):
        return bool(v)
    raise tr.unsupported(cond, "comprehension condition on values computed "
                         "at run time",
                         "the condition of an 'if' in a comprehension must "
                         "be known when the program is compiled; use "
                         "np.where (or a for loop with an if) instead")
