"""The sdfg dialect's operations as the frontend spells them: each function
returns the text of one operation (or of a region's header, for the ops
the emitter opens as blocks: `with em.block(ir.loop(...)):`). Callers pass
SSA names, rendered index expressions and MLIR types as strings; nothing
here knows the translator.

The arith/math code inside tasklets is frontend/scalar_ops.py's, and the
emitter (frontend/emitter.py) spells constants and tasklets.
"""

from typing import Iterable, Optional, Sequence, Union

# A bound or step: an SSA name, a rendered index expression or a constant.
Bound = Union[str, int]

# A region of dataflow: the body of each statement's state.
STATE = "sdfg.state"
# `sdfg.while { <condition> } do { <body> }`: the condition region first.
WHILE = "sdfg.while"


def _list(items: Iterable[str]) -> str:
    return ", ".join(items)


def sdfg_header(symbol: str, params: Sequence[str]) -> str:
    """The first line(s) of the program: `sdfg.sdfg @symbol(params) {`,
    one parameter per line."""
    sig = ",\n    ".join(params)
    return f"sdfg.sdfg @{symbol}({sig}) {{"


def parameter(ssa: str, mlir_type: str, name: str) -> str:
    """A parameter of the program, with its Python name."""
    return f"{ssa}: {mlir_type} {{sdfg.name = \"{name}\"}}"


def loop(iv: str, lb: Bound, ub: Bound, step: Bound,
         name: Optional[str] = None) -> str:
    """The header of a counted loop (`ub` excluded); `name` is the Python
    iterator's, by which sdfg-checkpoint's checkpoints= names the loop."""
    head = f"sdfg.loop {iv} = {lb} to {ub} step {step}"
    if name is not None:
        head += f" attributes {{sdfg.name = \"{name}\"}}"
    return head


def map_(params: Sequence[str], lbs: Sequence[str], ubs: Sequence[str],
         steps: Sequence[str], schedule: str) -> str:
    """The header of a parallel map over `params` (each `ub` excluded)."""
    return (f"sdfg.map ({_list(params)}) = ({_list(lbs)}) to "
            f"({_list(ubs)}) step ({_list(steps)}) schedule({schedule})")


def if_(cond: str) -> str:
    """The header of a conditional region on the i1 value `cond`."""
    return f"sdfg.if {cond}"


def condition(value: str) -> str:
    """The terminator of a while loop's condition region."""
    return f"sdfg.condition {value}"


def alloc(result: str, name: str, mlir_type: str,
          stop_gradient: bool = False, sizes: Sequence[str] = ()) -> str:
    extra = ", sdfg.stop_gradient" if stop_gradient else ""
    return (f"{result} = sdfg.alloc({_list(sizes)}) "
            f"{{name = \"{name}\"{extra}}} : {mlir_type}")


def dim(result: str, container: str, axis: int, mlir_type: str) -> str:
    return f"{result} = sdfg.dim {container}, {axis} : {mlir_type}"


def load(result: str, container: str, indices: Sequence[str],
         mlir_type: str) -> str:
    return f"{result} = sdfg.load {container}[{_list(indices)}] : {mlir_type}"


def store(value: str, container: str, indices: Sequence[str],
          mlir_type: str, wcr: Optional[str] = None) -> str:
    """A store; with `wcr` (add, mul, max, ...) the write accumulates."""
    w = f" wcr({wcr})" if wcr else ""
    return f"sdfg.store {value}, {container}[{_list(indices)}]{w} : " \
        f"{mlir_type}"


def broadcast_extent(result: str, kind: str, a: str, b: str) -> str:
    return f"{result} = sdfg.broadcast_extent {kind} {a}, {b}"


# Ops whose presence makes a statement's trial evaluation unclean: they
# check at run time (frontend/conditionals.py, eager_if_clean).
RUNTIME_CHECKS = ("sdfg.check_index", "sdfg.broadcast_extent")


def check_index(result: str, index: str, extent: str, axis: int) -> str:
    """`index` checked against `extent` at run time; `axis` names the
    error (>= 0: an IndexError on that axis, -3: an empty reduction)."""
    return f"{result} = sdfg.check_index {index}, {extent} axis {axis}"


def attributes(flags: Sequence[str]) -> str:
    """` {a, b}`, or nothing without flags."""
    return f" {{{_list(flags)}}}" if flags else ""


def library_op(op: str, operands: Sequence[str], result: str,
               operand_types: Sequence[str], result_type: str,
               attrs: Sequence[str] = (), prefix: str = "",
               suffix: str = "") -> str:
    """A library operation writing into `result`: `sdfg.<op>
    <prefix><operands><suffix> -> <result> {attrs} : <types> -> <type>`
    (matmul, gemv, solve, cholesky, det, eigh, qr, svd, argsort)."""
    return (f"sdfg.{op} {prefix}{_list(operands)}{suffix} -> {result}"
            f"{attributes(attrs)} : {_list(operand_types)} -> {result_type}")


def tasklet_header(results: Sequence[str], inputs: Sequence[str],
                   input_types: Sequence[str],
                   result_types: Sequence[str]) -> str:
    """`%t = sdfg.tasklet(%in...) : (types) -> type {`: a tasklet's first
    line; its block arguments (`^bb0(...)`) and body follow."""
    out = _list(result_types)
    sig = out if len(result_types) == 1 else f"({out})"
    return (f"{_list(results)} = sdfg.tasklet({_list(inputs)}) : "
            f"({_list(input_types)}) -> {sig} {{")


def yield_(values: Sequence[str], types: Sequence[str]) -> str:
    """The terminator of a tasklet, yielding its results."""
    return f"sdfg.yield {_list(values)} : {_list(types)}"


def fft(data: str, axis: int, inverse: bool, result: str,
        container_type: str) -> str:
    """The unscaled transform of complex `data` (float pairs, last
    dimension 2) along `axis` into `result`, of the same type."""
    sign = " inverse" if inverse else ""
    return (f"sdfg.fft {data} axis {axis}{sign} -> {result} : "
            f"{container_type} -> {container_type}")


def searchsorted(values: str, keys: str, right: bool, result: str,
                 values_type: str, keys_type: str, result_type: str) -> str:
    side = " right" if right else ""
    return (f"sdfg.searchsorted {values} in {keys}{side} -> {result} : "
            f"{values_type} in {keys_type} -> {result_type}")
