"""Calls of sdfg.custom_vjp functions inside a program (docs/design/
custom-vjp.md).

The function is compiled as a program of its own for the call's argument
types, and called through `sdfg.custom_call`; sdfg-autodiff never looks
inside it. For each float array argument, the cotangent that the user's
bwd gives is one more program, generated here as Python text:

    def __sdfg_vjp(x, lo, hi, __y, __g):        # fun's parameters, its
        __res = (lo, hi)                         # value, the cotangent
        return __cot(__bwd(__res, __g), 0, 3)

whose residuals are fwd's own where fwd returns `value, (names...)` of
its parameters and its value (nothing is recomputed), and
`__fwd(x, lo, hi)[1]` otherwise (fwd runs again in the backward
program). sdfg.custom_call's `vjp` names these programs.
"""

import ast
import inspect
import textwrap
from typing import TYPE_CHECKING

import numpy as np

from ..custom_vjp import cotangent, custom_vjp
from ..semantics.values import Idx, ViewLeaf, is_float
from ..source import from_source, source_lines

if TYPE_CHECKING:
    from .translator import Translator


class BadCotangents(Exception):
    """What bwd returns is not a tuple of one cotangent per argument (the
    message says what it is)."""


class NoCotangent(Exception):
    """bwd gives None for the argument whose vjp program is translated:
    the argument gets no gradient from the call."""


def call(tr: "Translator", obj: custom_vjp, args: list, kwargs: dict,
         node: ast.Call):
    fun = obj.fun
    name = getattr(fun, "__name__", "function")
    if obj.fwd is None:
        raise tr.error(f"custom_vjp function '{name}' has no rule yet: "
                       f"call {name}.defvjp(fwd, bwd) before compiling a "
                       "program that calls it", node)
    if tr.device != "cpu":
        raise tr.unsupported(node, "custom_vjp function on the GPU",
                             "custom_vjp functions run on the CPU only")
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs)
    except TypeError as e:
        raise tr.error(f"{name}(): {e}", node) from None
    bound.apply_defaults()
    names = list(bound.arguments)
    examples, operands = [], []
    for pname, value in bound.arguments.items():
        if isinstance(value, Idx):
            if not value.is_const():
                raise tr.unsupported(node, "size computed at run time "
                                     "passed to a custom_vjp function")
            value = value.const
        if isinstance(value, (bool, int, str)) or value is None:
            examples.append(value)  # compiled into the helper's programs
            continue
        container = tr.whole_container(
            value, node, f"argument '{pname}' of custom_vjp function "
            f"'{name}'")
        operands.append(container)
        examples.append(np.empty(container.shape, container.dtype))
    base = f"{tr.name}__{name}_{len(tr.custom_programs)}"
    helper = _translate(tr, fun, examples, base, node)
    sig = helper.signature
    if sig.returns_none or sig.return_tree is not None or \
            sig.returns_tuple or len(sig.outputs) != 1 or \
            sig.outputs[0][0] != "array":
        raise tr.unsupported(node, f"custom_vjp function '{name}' "
                             "returning other than one new array",
                             "a custom_vjp function here returns one new "
                             "array or float (not an argument, not a "
                             "tuple)")
    _, dtype, shape = sig.outputs[0]
    vjp = []
    if is_float(dtype):
        for k, (pname, value) in enumerate(zip(names, examples)):
            if not isinstance(value, np.ndarray):
                continue
            if value.dtype.kind != "f":
                vjp.append("unit")
                continue
            vjp.append(_vjp_program(tr, obj, names, examples, k, shape,
                                    dtype, f"{base}_vjp{k}", node))
    out = tr.transient_view(list(shape), dtype, node, name)
    types = ", ".join(c.mlir_type for c in operands)
    attrs = (" {vjp = [" + ", ".join(vjp) + "]}") if vjp else ""
    tr.em.line(f"sdfg.custom_call @{helper.name}("
               f"{', '.join(c.ssa for c in operands)}) -> "
               f"{out.container.ssa}{attrs} : ({types}) -> "
               f"{out.container.mlir_type}")
    tr.custom_programs.append(helper)
    return ViewLeaf(out)


def _translate(tr, fn, examples, name, node):
    """`fn` translated for `examples` as the program `name`; its LAPACK
    sites join the caller's (one error flag serves both)."""
    from .translator import translate
    helper = translate(fn, examples, name=name, device=tr.device)
    sig = helper.signature
    if sig.print_sites:
        raise tr.unsupported(node, f"print inside custom_vjp function "
                             f"'{fn.__name__}'",
                             "print in the program that calls it")
    if sig.globals or sig.index_checks:
        raise tr.unsupported(node, f"custom_vjp function '{fn.__name__}' "
                             "reading global arrays or indexing with a "
                             "whole integer array argument",
                             "pass the arrays it reads as arguments")
    tr.sig.linalg_sites += sig.linalg_sites
    return helper


def _vjp_program(tr, obj, names, examples, k, shape, dtype, name, node):
    """The program writing the cotangent of argument k (`@name`), or
    `unit` where bwd gives None for it."""
    params = ", ".join(names + ["__y", "__g"])
    residuals = _fwd_residuals(obj.fwd, names) or \
        f"__fwd({', '.join(names)})[1]"
    text = (f"def __sdfg_vjp({params}):\n"
            f"    __res = {residuals}\n"
            f"    return __cot(__bwd(__res, __g), {k}, {len(names)})\n")
    scope = {"__fwd": obj.fwd, "__bwd": obj.bwd, "__cot": cotangent,
             "np": np}
    fn = from_source(text, "__sdfg_vjp", globals=scope)
    out = np.empty(shape, dtype)
    try:
        program = _translate(tr, fn, examples + [out, out], name, node)
    except NoCotangent:
        return "unit"
    except BadCotangents as e:
        raise tr.error(f"the bwd of custom_vjp function "
                       f"'{obj.fun.__name__}' {e}", node) from None
    sig = program.signature
    want = examples[k]
    if len(sig.outputs) != 1 or sig.outputs[0][0] != "array" or \
            tuple(sig.outputs[0][2]) != want.shape:
        got = sig.outputs[0][2] if sig.outputs and \
            sig.outputs[0][0] == "array" else "another kind of value"
        raise tr.error(f"the bwd of custom_vjp function "
                       f"'{obj.fun.__name__}' gives a cotangent of shape "
                       f"{got} for '{names[k]}', whose shape is "
                       f"{want.shape}", node)
    tr.custom_programs.append(program)
    return "@" + program.name


def _fwd_residuals(fwd, names):
    """fwd's residuals as an expression over the vjp program's parameters
    (`names`, and `__y` for fwd's value), where fwd ends in `return
    value, residuals` and its residuals are parameters it never rebinds
    and its value's name; else None (fwd then runs again)."""
    try:
        lines, _ = source_lines(fwd)
        fdef = ast.parse(textwrap.dedent("".join(lines))).body[0]
    except (OSError, TypeError, SyntaxError, IndexError):
        return None
    if not isinstance(fdef, ast.FunctionDef) or not fdef.body:
        return None
    ret = fdef.body[-1]
    if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple)
            and len(ret.value.elts) == 2):
        return None
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    if len(params) != len(names) or fdef.args.vararg or fdef.args.kwarg:
        return None
    primal, res = ret.value.elts
    stored = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and
              not isinstance(n.ctx, ast.Load)}
    rename = {p: names[j] for j, p in enumerate(params) if p not in stored}
    if isinstance(primal, ast.Name) and primal.id not in params:
        rename[primal.id] = "__y"

    def text(e):
        if isinstance(e, ast.Name) and e.id in rename:
            return rename[e.id]
        if isinstance(e, ast.Tuple):
            parts = [text(x) for x in e.elts]
            if None in parts:
                return None
            return "(" + ", ".join(parts) + ("," if len(parts) == 1
                                              else "") + ")"
        return None
    return text(res)
