"""Int arguments compiled as symbols (issue 37, first step): an int
parameter used only as a bound of `for ... in range(...)` loops (in sums
and differences with constants) becomes an `index` parameter of the
program instead of a constant, so that a call with another value reuses
the compiled program (a time loop's step count, a sweep over sizes).

The choice is syntactic and conservative: any other use of the name (a
shape, a subscript, a condition, an argument of a helper) keeps it a
compile-time constant, as does `static_argnames=` of sdfg.program; and
where the translation with symbols fails (a loop that must be unrolled,
an index it can no longer bound), the program is compiled with constants
(Program.compile). Gradient and tangent programs always take constants:
their checkpointing plans and stored values are sized by trip counts.
"""

import ast
import textwrap
from typing import FrozenSet, Iterable, Sequence, Tuple

from ..desugar.astutil import parse
from .symbolic_sizes import MIN_SYMBOLIC_EXTENT


def loop_bound_ints(source: str, names: Iterable[str]) -> FrozenSet[str]:
    """The parameters among `names` that the function in `source` reads
    only inside the arguments of `range()` in for-loop headers, in
    expressions of names, int constants, + and -, and never assigns."""
    try:
        fdef = parse(textwrap.dedent(source)).body[0]
    except (SyntaxError, IndexError, ValueError):
        return frozenset()
    if not isinstance(fdef, ast.FunctionDef):
        return frozenset()
    allowed = set()

    def affine(e):
        if isinstance(e, ast.Name):
            return [e]
        if isinstance(e, ast.Constant) and isinstance(e.value, int) and \
                not isinstance(e.value, bool):
            return []
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            return affine(e.operand)
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
            left, right = affine(e.left), affine(e.right)
            return None if left is None or right is None else left + right
        return None

    for node in ast.walk(fdef):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) \
                and isinstance(node.iter.func, ast.Name) and \
                node.iter.func.id == "range" and not node.iter.keywords:
            for a in node.iter.args:
                for n in affine(a) or ():
                    allowed.add(id(n))
    out = set()
    for name in names:
        uses = [n for n in ast.walk(fdef)
                if isinstance(n, ast.Name) and n.id == name]
        stored = [n for n in uses if not isinstance(n.ctx, ast.Load)]
        # A nested function's parameter of the same name shadows it.
        shadowed = any(isinstance(n, (ast.FunctionDef, ast.Lambda)) and
                       n is not fdef and name in [a.arg for a in
                                                  n.args.args]
                       for n in ast.walk(fdef))
        if uses and not stored and not shadowed and \
                all(id(n) in allowed for n in uses):
            out.add(name)
    return frozenset(out)


def shape_pattern(shapes: Sequence[Tuple[int, ...]]) -> Tuple:
    """What a program compiled with symbolic extents assumes of the shapes
    of its array arguments (symbolic_sizes.py): each extent below
    MIN_SYMBOLIC_EXTENT by value, each other one by the number of its
    value among them in order of appearance (equal extents are one
    symbol). Calls with the same pattern share the program."""
    classes = {}
    out = []
    for shape in shapes:
        out.append(tuple(
            int(n) if n < MIN_SYMBOLIC_EXTENT else
            ("n", classes.setdefault(int(n), len(classes)))
            for n in shape))
    return tuple(out)
