"""`print(...)` inside a compiled program: its values are recorded when
the program runs (sdfg.print appends them to the calling thread's print
log) and printed by Python after the call, with NumPy's formatting and
Python's rules for `sep`, `end` and f-strings, as `jax.debug.print` prints
through a host callback (docs/design/printing.md).

What each print site says (its text and the dtype, shape, format spec and
conversion of each value) goes into the program's metadata
(Signature.print_sites); call_checks.print_log reads it back.
"""

import ast
from typing import TYPE_CHECKING

from ..semantics.values import Idx

if TYPE_CHECKING:
    from .translator import Translator


def call(tr: "Translator", node: ast.Call) -> None:
    if tr.device != "cpu":
        raise tr.unsupported(node, "print on the GPU",
                             "print runs in programs compiled for the CPU")
    options = {"sep": " ", "end": "\n"}
    for kw in node.keywords:
        if kw.arg in ("sep", "end"):
            v = tr.eval(kw.value)
            if v is not None and not isinstance(v, str):
                raise tr.error(f"{kw.arg} must be None or a string, not "
                               f"{type(v).__name__}", node)
            options[kw.arg] = {"sep": " ", "end": "\n"}[kw.arg] \
                if v is None else v
        elif kw.arg == "flush":
            tr.eval(kw.value)  # printed after the call in any case
        else:
            raise tr.unsupported(node, f"print with {kw.arg or '**'}=",
                                 "a compiled program prints to standard "
                                 "output (sep=, end= and flush= are "
                                 "supported)")
    values = []
    args = []
    for a in node.args:
        if isinstance(a, ast.Starred):
            raise tr.unsupported(a, "starred argument of print")
        if isinstance(a, ast.JoinedStr):
            parts = []
            for piece in a.values:
                if isinstance(piece, ast.Constant):
                    parts.append(["text", piece.value])
                    continue
                conversion = "" if piece.conversion == -1 else \
                    chr(piece.conversion)
                parts.append(_part(tr, tr.eval(piece.value),
                                   _spec(tr, piece.format_spec),
                                   conversion, values, piece.value))
            args.append(parts)
        else:
            args.append([_part(tr, tr.eval(a), "", "", values, a)])
    site = len(tr.sig.print_sites)
    tr.sig.print_sites.append({"args": args, "sep": options["sep"],
                               "end": options["end"]})
    operands = f" ({', '.join(c.ssa for c in values)} : " \
        f"{', '.join(c.mlir_type for c in values)})" if values else ""
    tr.em.line(f"sdfg.print site {site}{operands}")
    return None


def _spec(tr, spec):
    """An f-string's format spec, which must be known when compiling."""
    if spec is None:
        return ""
    if all(isinstance(v, ast.Constant) for v in spec.values):
        return "".join(v.value for v in spec.values)
    raise tr.unsupported(spec, "format spec computed at run time")


def _part(tr, value, spec, conversion, values, node):
    """A piece of printed text: the text itself for a value known when
    compiling, else a reference to a container the print op records."""
    if isinstance(value, Idx) and value.is_const():
        value = value.const
    if _constant(value):
        text = {"r": repr, "s": str, "a": ascii, "": lambda v: v}[
            conversion](value)
        return ["text", format(text, spec)]
    if isinstance(value, (tuple, list, dict)):
        raise tr.unsupported(node, "print of a tuple, list or dict holding "
                             "arrays", "print its items one by one")
    container = tr.whole_container(value, node, "printed value")
    values.append(container)
    return ["value", len(values) - 1, container.dtype.str,
            list(container.shape), spec, conversion]


def _constant(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return True
    if isinstance(value, (tuple, list)):
        return all(_constant(v) for v in value)
    if isinstance(value, dict):
        return all(_constant(v) for v in value.values())
    return False
