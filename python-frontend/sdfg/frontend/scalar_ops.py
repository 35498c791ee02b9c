"""Scalar code inside tasklets: the arith/math operations one element of
an element-wise expression (an Op tree) lowers to.
"""

from typing import TYPE_CHECKING, List

import numpy as np

from ..semantics.values import (ConstLeaf, Op, is_float, is_unsigned,
                                 mlir_scalar)

if TYPE_CHECKING:
    from .emitter import Emitter


_FLOAT_UNARY = {
    "exp": "math.exp", "log": "math.log", "sqrt": "math.sqrt",
    "sin": "math.sin", "cos": "math.cos", "tan": "math.tan",
    "tanh": "math.tanh", "abs": "math.absf", "floor": "math.floor",
    "ceil": "math.ceil", "sinh": "math.sinh", "cosh": "math.cosh",
    "arcsin": "math.asin", "arccos": "math.acos", "arctan": "math.atan",
    "arcsinh": "math.asinh", "arccosh": "math.acosh",
    "arctanh": "math.atanh", "exp2": "math.exp2", "log2": "math.log2",
    "log10": "math.log10", "log1p": "math.log1p", "expm1": "math.expm1",
    "cbrt": "math.cbrt", "rint": "math.roundeven", "trunc": "math.trunc",
}


_CMP_F = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq",
          "ne": "une"}


_CMP_I = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq",
          "ne": "ne"}


def _int_divisor(tb, b, dt, ty):
    """(b is 0 or -1, b with those replaced by 1): the divisors for which
    the hardware division traps (0, and -1 of the minimum integer), where
    NumPy returns a value instead."""
    zero = tb.op(f"arith.cmpi eq, {b}, {tb.const(0, dt)}", ty)
    minus_one = tb.op(f"arith.cmpi eq, {b}, {tb.const(-1, dt)}", ty)
    special = tb.op(f"arith.ori {zero}, {minus_one}", "i1")
    return special, tb.op(f"arith.select {special}, {tb.const(1, dt)}, {b}",
                          ty)


def _unsigned_op(tb, op, a, dt, ty):
    """The ops that differ for unsigned integers (floor division and
    modulo need no sign fix-up; x // 0 and x % 0 are 0 as NumPy's), or
    None where the signed code is the same."""
    if op in ("floordiv", "mod", "fmod"):
        zero = tb.const(0, dt)
        by_zero = tb.op(f"arith.cmpi eq, {a[1]}, {zero}", ty)
        safe = tb.op(f"arith.select {by_zero}, {tb.const(1, dt)}, {a[1]}",
                     ty)
        div = "divui" if op == "floordiv" else "remui"
        r = tb.op(f"arith.{div} {a[0]}, {safe}", ty)
        return tb.op(f"arith.select {by_zero}, {zero}, {r}", ty)
    if op == "abs":
        return a[0]
    if op in ("fmax", "maximum"):
        return tb.op(f"arith.maxui {a[0]}, {a[1]}", ty)
    if op in ("fmin", "minimum"):
        return tb.op(f"arith.minui {a[0]}, {a[1]}", ty)
    if op == "sign":
        # 1 for a nonzero value, 0 for zero: nothing is negative.
        zero = tb.const(0, dt)
        pos = tb.op(f"arith.cmpi ne, {a[0]}, {zero}", ty)
        return tb.convert(pos, np.bool_, dt)
    return None


def gen_op(tb: "Emitter", e: Op, args: List[str],
           arg_dtypes: List[np.dtype]) -> str:
    """Emits the scalar code of Op `e` given its argument SSA names."""
    op, dt = e.op, e.dtype
    ty = mlir_scalar(dt)
    if hasattr(e, "gen"):
        # An Op that emits its own code (numpy/random.py's hash).
        return e.gen(tb, args, arg_dtypes)
    if op == "cast":
        return tb.convert(args[0], arg_dtypes[0], dt)
    if op in _CMP_F:
        ct = np.result_type(*arg_dtypes)
        a = [tb.convert(x, d, ct) for x, d in zip(args, arg_dtypes)]
        if is_float(ct):
            return tb.op(f"arith.cmpf {_CMP_F[op]}, {a[0]}, {a[1]}",
                         mlir_scalar(ct))
        pred = _CMP_I[op]
        if ct == np.bool_ or is_unsigned(ct):
            # i1 compared signed has True = -1: bools compare unsigned,
            # as unsigned integers do (uint8 255 above 0).
            pred = pred.replace("s", "u", 1) if pred[0] == "s" else pred
        return tb.op(f"arith.cmpi {pred}, {a[0]}, {a[1]}", mlir_scalar(ct))
    if op in ("and", "or", "xor"):
        a = [tb.convert(x, d, np.bool_) for x, d in zip(args, arg_dtypes)]
        return tb.op(f"arith.{op}i {a[0]}, {a[1]}", "i1")
    if op in ("bitand", "bitor", "bitxor"):
        a = [tb.convert(x, d, dt) for x, d in zip(args, arg_dtypes)]
        return tb.op(f"arith.{op[3:]}i {a[0]}, {a[1]}", ty)
    if op == "bitnot":
        a = tb.convert(args[0], arg_dtypes[0], dt)
        return tb.op(f"arith.xori {a}, {tb.const(-1, dt)}", ty)
    if op in ("shl", "shr"):
        a = [tb.convert(x, d, dt) for x, d in zip(args, arg_dtypes)]
        bits = tb.const(dt.itemsize * 8, dt)
        # Unsigned compare: a negative count is out of range too.
        inside = tb.op(f"arith.cmpi ult, {a[1]}, {bits}", ty)
        safe = tb.op(f"arith.select {inside}, {a[1]}, {tb.const(0, dt)}",
                     ty)
        if op == "shl":
            moved = tb.op(f"arith.shli {a[0]}, {safe}", ty)
            out = tb.const(0, dt)
        elif is_unsigned(dt):
            moved = tb.op(f"arith.shrui {a[0]}, {safe}", ty)
            out = tb.const(0, dt)
        else:
            moved = tb.op(f"arith.shrsi {a[0]}, {safe}", ty)
            # All bits shifted out leave the sign: 0 or -1.
            out = tb.op(f"arith.shrsi {a[0]}, "
                        f"{tb.const(dt.itemsize * 8 - 1, dt)}", ty)
        return tb.op(f"arith.select {inside}, {moved}, {out}", ty)
    if op == "not":
        a = tb.convert(args[0], arg_dtypes[0], np.bool_)
        true = tb.const(True, np.bool_)
        return tb.op(f"arith.xori {a}, {true}", "i1")
    if op == "where":
        c = tb.convert(args[0], arg_dtypes[0], np.bool_)
        x = tb.convert(args[1], arg_dtypes[1], dt)
        y = tb.convert(args[2], arg_dtypes[2], dt)
        return tb.op(f"arith.select {c}, {x}, {y}", ty)
    a = [tb.convert(x, d, dt) for x, d in zip(args, arg_dtypes)]
    f = is_float(dt)
    if is_unsigned(dt):
        out = _unsigned_op(tb, op, a, dt, ty)
        if out is not None:
            return out
    if op == "add":
        return tb.op(f"arith.{'addf' if f else 'addi'} {a[0]}, {a[1]}", ty)
    if op == "sub":
        return tb.op(f"arith.{'subf' if f else 'subi'} {a[0]}, {a[1]}", ty)
    if op == "mul":
        return tb.op(f"arith.{'mulf' if f else 'muli'} {a[0]}, {a[1]}", ty)
    if op == "div":
        return tb.op(f"arith.divf {a[0]}, {a[1]}", ty)
    if op == "floordiv":
        if f:
            q = tb.op(f"arith.divf {a[0]}, {a[1]}", ty)
            return tb.op(f"math.floor {q}", ty)
        special, safe = _int_divisor(tb, a[1], dt, ty)
        q = tb.op(f"arith.floordivsi {a[0]}, {safe}", ty)
        # x // -1 is -x (wrapping at the minimum, as NumPy); x // 0 is 0.
        zero = tb.const(0, dt)
        minus = tb.op(f"arith.subi {zero}, {a[0]}", ty)
        by_minus_one = tb.op(f"arith.cmpi eq, {a[1]}, {tb.const(-1, dt)}",
                             ty)
        other = tb.op(f"arith.select {by_minus_one}, {minus}, {zero}", ty)
        return tb.op(f"arith.select {special}, {other}, {q}", ty)
    if op == "fmod":
        # C's fmod: the sign of the dividend (x % 0 is NaN for floats, 0
        # for integers, as NumPy).
        if f:
            return tb.op(f"arith.remf {a[0]}, {a[1]}", ty)
        special, safe = _int_divisor(tb, a[1], dt, ty)
        r = tb.op(f"arith.remsi {a[0]}, {safe}", ty)
        return tb.op(f"arith.select {special}, {tb.const(0, dt)}, {r}", ty)
    if op == "mod":
        # Python/NumPy semantics: the result has the sign of the divisor.
        if f:
            r = tb.op(f"arith.remf {a[0]}, {a[1]}", ty)
            zero = tb.const(0.0, dt)
            rneg = tb.op(f"arith.cmpf olt, {r}, {zero}", ty)
            bneg = tb.op(f"arith.cmpf olt, {a[1]}, {zero}", ty)
            rnz = tb.op(f"arith.cmpf une, {r}, {zero}", ty)
        else:
            special, safe = _int_divisor(tb, a[1], dt, ty)
            r = tb.op(f"arith.remsi {a[0]}, {safe}", ty)
            zero = tb.const(0, dt)
            # x % 0 is 0 in NumPy, and so is x % -1.
            r = tb.op(f"arith.select {special}, {zero}, {r}", ty)
            rneg = tb.op(f"arith.cmpi slt, {r}, {zero}", ty)
            bneg = tb.op(f"arith.cmpi slt, {a[1]}, {zero}", ty)
            rnz = tb.op(f"arith.cmpi ne, {r}, {zero}", ty)
        differ = tb.op(f"arith.xori {rneg}, {bneg}", "i1")
        fix = tb.op(f"arith.andi {rnz}, {differ}", "i1")
        adj = tb.op(f"arith.{'addf' if f else 'addi'} {r}, {a[1]}", ty)
        return tb.op(f"arith.select {fix}, {adj}, {r}", ty)
    if op == "pow":
        base, exp = e.args
        if isinstance(exp, ConstLeaf) and float(exp.value).is_integer() and \
                0 <= exp.value <= 4:
            n = int(exp.value)
            if n == 0:
                return tb.const(1, dt)
            acc = a[0]
            for _ in range(n - 1):
                acc = tb.op(f"arith.{'mulf' if f else 'muli'} {acc}, {a[0]}",
                            ty)
            return acc
        if f:
            return tb.op(f"math.powf {a[0]}, {a[1]}", ty)
        # An integer to a constant power n >= 0 (Translator.binop rejects
        # the others): square and multiply, wrapping as NumPy does.
        n, acc, square = int(exp.value), tb.const(1, dt), a[0]
        while n:
            if n & 1:
                acc = tb.op(f"arith.muli {acc}, {square}", ty)
            n >>= 1
            if n:
                square = tb.op(f"arith.muli {square}, {square}", ty)
        return acc
    if op == "neg":
        if f:
            return tb.op(f"arith.negf {a[0]}", ty)
        zero = tb.const(0, dt)
        return tb.op(f"arith.subi {zero}, {a[0]}", ty)
    if op == "abs" and not f:
        return tb.op(f"math.absi {a[0]}", ty)
    if op in ("fmax", "fmin") and not f:
        return tb.op(f"arith.{'maxsi' if op == 'fmax' else 'minsi'} "
                     f"{a[0]}, {a[1]}", ty)
    if op in ("fmax", "fmin"):
        # The other operand where one is NaN; else the larger (smaller).
        pred = "oge" if op == "fmax" else "ole"
        keep = tb.op(f"arith.cmpf {pred}, {a[0]}, {a[1]}", ty)
        bnan = tb.op(f"arith.cmpf uno, {a[1]}, {a[1]}", ty)
        first = tb.op(f"arith.ori {keep}, {bnan}", "i1")
        return tb.op(f"arith.select {first}, {a[0]}, {a[1]}", ty)
    if op == "square":
        return tb.op(f"arith.{'mulf' if f else 'muli'} {a[0]}, {a[0]}", ty)
    if op == "sign":
        zero, one = tb.const(0, dt), tb.const(1, dt)
        pred = ("arith.cmpf ogt", "arith.cmpf olt") if f else \
            ("arith.cmpi sgt", "arith.cmpi slt")
        pos = tb.op(f"{pred[0]}, {a[0]}, {zero}", ty)
        neg = tb.op(f"{pred[1]}, {a[0]}, {zero}", ty)
        mone = tb.const(-1, dt)
        inner = tb.op(f"arith.select {neg}, {mone}, {zero}", ty)
        out = tb.op(f"arith.select {pos}, {one}, {inner}", ty)
        if f:  # NaN stays NaN
            nan = tb.op(f"arith.cmpf uno, {a[0]}, {a[0]}", ty)
            out = tb.op(f"arith.select {nan}, {a[0]}, {out}", ty)
        return out
    if op in ("isnan", "isinf", "isfinite"):
        x = tb.convert(args[0], arg_dtypes[0], np.float64) \
            if not is_float(arg_dtypes[0]) else args[0]
        xt = mlir_scalar(arg_dtypes[0] if is_float(arg_dtypes[0])
                         else np.float64)
        if op == "isnan":
            return tb.op(f"arith.cmpf uno, {x}, {x}", xt)
        ax = tb.op(f"math.absf {x}", xt)
        inf = tb.const(float("inf"), arg_dtypes[0] if is_float(
            arg_dtypes[0]) else np.float64)
        return tb.op(f"arith.cmpf {'oeq' if op == 'isinf' else 'olt'}, "
                     f"{ax}, {inf}", xt)
    if op in _FLOAT_UNARY:
        return tb.op(f"{_FLOAT_UNARY[op]} {a[0]}", ty)
    if op == "arctan2":
        return tb.op(f"math.atan2 {a[0]}, {a[1]}", ty)
    if op == "copysign":
        return tb.op(f"math.copysign {a[0]}, {a[1]}", ty)
    if op == "maximum":
        return tb.op(f"arith.{'maximumf' if f else 'maxsi'} {a[0]}, {a[1]}",
                     ty)
    if op == "minimum":
        return tb.op(f"arith.{'minimumf' if f else 'minsi'} {a[0]}, {a[1]}",
                     ty)
    raise AssertionError(f"unknown op {op}")
