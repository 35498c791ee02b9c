"""Text emission of sdfg-dialect MLIR, with nested buffers and tasklets."""

import contextlib
import math
import struct

import numpy as np

from .. import ir, policy
from ..semantics.values import is_float, is_unsigned, mlir_scalar


def float_literal(value, dtype):
    """An MLIR float literal; non-finite values as their bit pattern."""
    value = float(value)
    if math.isfinite(value):
        if np.dtype(dtype) == np.float32:
            return "%.9e" % float(np.float32(value))
        return "%.17e" % value
    if np.dtype(dtype) == np.float32:
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return "0x%08X" % bits
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return "0x%016X" % bits


class Buffer:
    def __init__(self):
        self.lines = []
        # Per line, the Python source line it was emitted for (or None):
        # compiler diagnostics on the generated text point back there.
        self.sources = []
        self.dataflow = False

    def __bool__(self):
        return bool(self.lines)


class Emitter:
    """Collects lines of MLIR; `capture` redirects them into a buffer."""

    def __init__(self):
        self.counter = 0
        # SSA names taken by the program's arguments (`%x32` would clash
        # with the 32nd fresh `%x`).
        self.reserved = set()
        self.indent = 0
        self.buffer = Buffer()
        self.allocs = []
        self.alloc_sources = []
        # The Python source line being translated (set by the translator).
        self.where = lambda: None

    def alloc(self, text):
        self.allocs.append(text)
        self.alloc_sources.append(self.where())

    def fresh(self, prefix="v"):
        self.counter += 1
        while f"%{prefix}{self.counter}" in self.reserved:
            self.counter += 1
        return f"%{prefix}{self.counter}"

    def line(self, text):
        # The op after its results, if any (attributes hold " = " too).
        head = (text.split(" = ", 1)[-1] if text.startswith("%")
                else text).lstrip()
        # Ops that may only appear in dataflow regions (states and maps),
        # as the dialect's verifier decides (the tools list them).
        if head.startswith(policy.dataflow_only_ops()):
            self.buffer.dataflow = True
        self.buffer.lines.append("  " * self.indent + text)
        self.buffer.sources.append(self.where())

    def splice(self, buffer):
        """Appends a captured buffer at the current indentation."""
        for ln in buffer.lines:
            self.buffer.lines.append("  " * self.indent + ln)
        self.buffer.sources.extend(buffer.sources)
        self.buffer.dataflow |= buffer.dataflow

    @contextlib.contextmanager
    def capture(self):
        saved, saved_indent = self.buffer, self.indent
        self.buffer, self.indent = Buffer(), 0
        try:
            yield self.buffer
        finally:
            self.buffer, self.indent = saved, saved_indent

    @contextlib.contextmanager
    def block(self, header, footer="}"):
        self.line(header + " {")
        self.indent += 1
        try:
            yield
        finally:
            self.indent -= 1
            self.line(footer)

    # ------------------------------------------------------------------
    # Tasklets
    # ------------------------------------------------------------------

    def tasklet(self, inputs, results, body):
        """Emits an sdfg.tasklet.

        `inputs` is a list of (ssa, mlir type); `results` a list of mlir
        types; `body(tb, args)` receives a TaskletBody and the block argument
        names and returns the result names.
        """
        names = [self.fresh("t") for _ in results]
        args = [self.fresh("a") for _ in inputs]
        tb = TaskletBody(self)
        with self.capture() as buf:
            self.indent = 1
            outs = body(tb, args)
        self.line(ir.tasklet_header(names, [s for s, _ in inputs],
                                    [t for _, t in inputs], results))
        if inputs:
            decl = ", ".join(f"{a}: {t}" for a, (_, t) in zip(args, inputs))
            self.line(f"^bb0({decl}):")
        self.splice(buf)
        self.line("  " + ir.yield_(outs, results))
        self.line("}")
        return names


class TaskletBody:
    """Builds arith/math ops inside a tasklet."""

    def __init__(self, emitter):
        self.em = emitter

    def op(self, text, type_):
        name = self.em.fresh("x")
        self.em.line(f"{name} = {text} : {type_}")
        return name

    def const(self, value, dtype):
        dtype = np.dtype(dtype)
        ty = mlir_scalar(dtype)
        name = self.em.fresh("c")
        if is_float(dtype):
            self.em.line(f"{name} = arith.constant {float_literal(value, dtype)}"
                         f" : {ty}")
        elif dtype == np.bool_:
            self.em.line(f"{name} = arith.constant {'true' if value else 'false'}")
        else:
            # Two's complement of the width (uint8's 255 is i8's -1):
            # what the signless integer holds, in the range MLIR prints.
            bits = dtype.itemsize * 8
            v = (int(value) + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
            self.em.line(f"{name} = arith.constant {v} : {ty}")
        return name

    def index_op(self, op, *operands):
        """arith.<op> (minsi, maxsi, ceildivsi, select, ...) of index
        operands, in order."""
        return self.op(f"arith.{op} {', '.join(operands)}", "index")

    def index_compare(self, predicate, a, b):
        """arith.cmpi <predicate> of two index operands."""
        return self.op(f"arith.cmpi {predicate}, {a}, {b}", "index")

    def index_const(self, value):
        name = self.em.fresh("c")
        self.em.line(f"{name} = arith.constant {int(value)} : index")
        return name

    def index_from_i64(self, value):
        name = self.em.fresh("x")
        self.em.line(f"{name} = arith.index_cast {value} : i64 to index")
        return name

    def index_value(self, idx, arg_of):
        """The index `idx` (const + sum of coef * name) computed from the
        block arguments `arg_of[name]`."""
        acc = self.index_const(idx.const)
        for n, c in sorted(idx.terms.items()):
            term = arg_of[n]
            if c != 1:
                term = self.op(f"arith.muli {term}, {self.index_const(c)}",
                               "index")
            acc = self.op(f"arith.addi {acc}, {term}", "index")
        return acc

    def convert(self, value, src, dst):
        src, dst = np.dtype(src), np.dtype(dst)
        if src == dst:
            return value
        s, d = mlir_scalar(src), mlir_scalar(dst)
        if is_float(src) and is_float(dst):
            op = "arith.extf" if dst.itemsize > src.itemsize else "arith.truncf"
            return self._cast(op, value, s, d)
        unsigned = src == np.bool_ or is_unsigned(src)
        if is_float(dst):
            op = "arith.uitofp" if unsigned else "arith.sitofp"
            return self._cast(op, value, s, d)
        if dst == np.bool_:
            zero = (self.const(0.0, src) if is_float(src)
                    else self.const(0, src))
            pred = "arith.cmpf une" if is_float(src) else "arith.cmpi ne"
            name = self.em.fresh("x")
            self.em.line(f"{name} = {pred}, {value}, {zero} : {s}")
            return name
        if is_float(src):
            if is_unsigned(dst) and dst.itemsize == 8:
                # Above int64's range only an unsigned conversion keeps
                # the value; below 0 NumPy wraps as the signed one does.
                return self._float_to_u64(value, src)
            # Through a wider signed type, truncated, as NumPy's C cast
            # does on x86 (200.0 to uint8 is 200, -1.0 is 255; fptosi to
            # i8 or fptoui of a negative would be poison). A uint32
            # needs int64's range.
            wide = {1: "i32", 2: "i32", 4: "i64" if is_unsigned(dst)
                    else None}.get(dst.itemsize)
            if wide is not None:
                w = self._cast("arith.fptosi", value, s, wide)
                return self._cast("arith.trunci", w, wide, d)
            return self._cast("arith.fptosi", value, s, d)
        if src.itemsize == dst.itemsize and src != np.bool_:
            return value  # the same bits: int64 <-> uint64, int8 <-> uint8
        if dst.itemsize < src.itemsize:
            return self._cast("arith.trunci", value, s, d)
        op = "arith.extui" if unsigned else "arith.extsi"
        return self._cast(op, value, s, d)

    def _float_to_u64(self, value, src):
        """A float as uint64: values from 2**63 on by fptoui, the others
        (negative ones included) by fptosi, as NumPy's conversion."""
        s = mlir_scalar(src)
        limit = self.const(2.0 ** 63, src)
        big = self.em.fresh("x")
        self.em.line(f"{big} = arith.cmpf oge, {value}, {limit} : {s}")
        # fptoui on a value below 2**63 is poison for negatives: select
        # a safe operand for each conversion.
        zero = self.const(0.0, src)
        hi_in = self.em.fresh("x")
        self.em.line(f"{hi_in} = arith.select {big}, {value}, {limit} : {s}")
        lo_in = self.em.fresh("x")
        self.em.line(f"{lo_in} = arith.select {big}, {zero}, {value} : {s}")
        hi = self._cast("arith.fptoui", hi_in, s, "i64")
        low = self._cast("arith.fptosi", lo_in, s, "i64")
        name = self.em.fresh("x")
        self.em.line(f"{name} = arith.select {big}, {hi}, {low} : i64")
        return name

    def index_to(self, value, dtype):
        """An index value as a scalar of `dtype`."""
        name = self.em.fresh("x")
        self.em.line(f"{name} = arith.index_cast {value} : index to i64")
        return self.convert(name, np.int64, dtype)

    def _cast(self, op, value, s, d):
        name = self.em.fresh("x")
        self.em.line(f"{name} = {op} {value} : {s} to {d}")
        return name
