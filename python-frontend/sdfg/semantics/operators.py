"""Python operators on arrays and numbers: arithmetic with NumPy's dtype
promotion and broadcasting, comparisons, boolean and bitwise operators,
constant folding (Translator mixin).
"""

import ast

import numpy as np

from ..errors import FrontendError
from .. import numpy as numpy_functions
from . import complex_values
from .bindings import reads_or_calls
from .values import (ConstLeaf, Idx, IdxLeaf, Masked, Op, as_idx, fmt_shape,
                     is_float, same_extent)


_UNEVALUATED = object()


def _scaled_matmul_form(node):
    """Whether BinOp `node` is `A @ B * c`, `A @ B / c` or `c * (A @ B)`
    (see Operators._scaled_matmul)."""
    if not isinstance(node.op, (ast.Mult, ast.Div)):
        return False
    return (isinstance(node.left, ast.BinOp)
            and isinstance(node.left.op, ast.MatMult)) or (
                isinstance(node.right, ast.BinOp)
                and isinstance(node.right.op, ast.MatMult)
                and isinstance(node.op, ast.Mult))


class Operators:
    """Translator methods for unary, binary, comparison and boolean
    expressions."""

    def eval_UnaryOp(self, node):
        v = self.eval(node.operand)
        if isinstance(node.op, ast.USub):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v
            if isinstance(v, Idx):
                return -v
            return self.negate(v, node)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            if isinstance(v, (bool, int, float)):
                return not v
            return self.unary("not", self.to_bool(v))
        if isinstance(node.op, ast.Invert):
            if isinstance(v, (bool, int)):
                return ~v
            return self.invert(v, node)
        raise self.unsupported(node, "unary operator "
                               + type(node.op).__name__)

    def _scaled_matmul(self, node):
        """`A @ B * c`, `A @ B / c` or `c * (A @ B)` with `c` a number
        known when translating: one GEMM with alpha = c (or 1/c) instead
        of a product and a sweep over it. The operands are evaluated in
        Python's order (A, B, then c for a trailing factor); None if the
        node is not of that form."""
        if not _scaled_matmul_form(node):
            return None
        left_mm = (isinstance(node.left, ast.BinOp)
                   and isinstance(node.left.op, ast.MatMult))
        mm = node.left if left_mm else node.right
        other = node.right if left_mm else node.left
        if left_mm:
            a, b = self.eval(mm.left), self.eval(mm.right)
            c = self.eval(other)
        else:
            c = self.eval(other)
            a, b = self.eval(mm.left), self.eval(mm.right)
        op = BINOPS[type(node.op)]

        def unscaled(product):
            return (self.binop(op, product, c) if left_mm
                    else self.binop(op, c, product))

        if isinstance(c, bool) or not isinstance(c, (int, float)) or \
                (isinstance(node.op, ast.Div) and c == 0):
            return unscaled(numpy_functions.matmul(self, a, b, mm))
        alpha = 1.0 / c if isinstance(node.op, ast.Div) else float(c)
        product, folded = numpy_functions.scaled_matmul(self, a, b, mm, alpha)
        return product if folded else unscaled(product)

    def eval_BinOp(self, node):
        # A left-nested chain (`x + x + ... + x`, `a * b * c * d`) is
        # walked down iteratively and applied from its innermost operation
        # out, in Python's order (each left operand before its right one):
        # its length is not bounded by the recursion limit.
        chain = [node]
        while isinstance(chain[-1].left, ast.BinOp) and \
                not _scaled_matmul_form(chain[-1]):
            chain.append(chain[-1].left)
        left = _UNEVALUATED
        saved = self.current_node
        try:
            for n in reversed(chain):
                self.current_node = n  # errors name the operation's line
                left = self._binop_of(n, left)
        finally:
            self.current_node = saved
        return left

    def _binop_of(self, node, left):
        """The value of BinOp `node`, its left operand already evaluated
        to `left` (or _UNEVALUATED)."""
        if left is _UNEVALUATED:
            scaled = self._scaled_matmul(node)
            if scaled is not None:
                return scaled
            left = self.eval(node.left)
        op = BINOPS.get(type(node.op))
        if type(node.op) in BITOPS:
            return self.bitwise(BITOPS[type(node.op)], left,
                                self.eval(node.right), node)
        if isinstance(node.op, (ast.LShift, ast.RShift)):
            return self.shift("shl" if isinstance(node.op, ast.LShift)
                              else "shr", left, self.eval(node.right), node)
        if op is None:
            if isinstance(node.op, ast.MatMult):
                return numpy_functions.matmul(self, left, self.eval(node.right),
                                          node)
            raise self.unsupported(node, "binary operator "
                                   + type(node.op).__name__)
        return self.binop(op, left, self.eval(node.right))

    def eval_Compare(self, node):
        result = None
        left = self.eval(node.left)
        for opnode, comp in zip(node.ops, node.comparators):
            if isinstance(opnode, (ast.In, ast.NotIn)):
                right = self.eval(comp)
                # `mode in ("relu", "elu")`: constants, decided when
                # compiling.
                if isinstance(left, str) and isinstance(right, str):
                    # `x.dtype.kind in "fc"`: a substring test.
                    r = (left in right) == isinstance(opnode, ast.In)
                    result = r if result is None else self.logical(
                        "and", result, r)
                    left = right
                    continue
                dl = numpy_functions.as_dtype(left)
                if dl is not None and isinstance(right, (tuple, list)):
                    # `x.dtype in (np.float32, np.float64)`: dtypes equal
                    # as == compares them (also to names: "float64").
                    def same(x):
                        try:
                            return dl == np.dtype(x)
                        except TypeError:
                            return False
                    r = any(same(x) for x in right) == isinstance(opnode,
                                                                  ast.In)
                    result = r if result is None else self.logical(
                        "and", result, r)
                    left = right
                    continue
                if not (isinstance(right, (tuple, list)) and isinstance(
                        left, (str, int, float)) and all(
                            isinstance(x, (str, int, float)) for x in right)):
                    raise self.unsupported(node, "'in' on values computed at "
                                           "run time", "'in' tests a "
                                           "constant against a tuple of "
                                           "constants")
                r = (left in right) == isinstance(opnode, ast.In)
                result = r if result is None else self.logical("and",
                                                               result, r)
                left = right
                continue
            if isinstance(opnode, (ast.Is, ast.IsNot)):
                right = self.eval(comp)
                if left is not None and right is not None:
                    raise self.unsupported(node, "'is' between values other "
                                           "than None", "use == on numbers")
                # `kind is None`: decided when compiling (an array or
                # number is never None).
                r = (left is right) == isinstance(opnode, ast.Is)
                result = r if result is None else self.logical("and",
                                                               result, r)
                left = right
                continue
            op = _CMPOPS.get(type(opnode))
            if op is None:
                raise self.unsupported(node, "comparison "
                                       + type(opnode).__name__)
            right = self.eval(comp)
            dl, dr = numpy_functions.as_dtype(left), numpy_functions.as_dtype(right)
            if (dl is None) != (dr is None) and isinstance(
                    left if dl is None else right, str):
                # `x.dtype == "float32"`: NumPy reads the string as a dtype.
                try:
                    name = left if dl is None else right
                    dl, dr = (np.dtype(name), dr) if dl is None else \
                        (dl, np.dtype(name))
                except TypeError:
                    pass
            if dl is not None or dr is not None:
                # `x.dtype == np.float32`: dtypes are known when compiling.
                if op not in ("eq", "ne") or dl is None or dr is None:
                    raise self.unsupported(node, "comparison of a dtype "
                                           "with " + ("a value other than "
                                                      "a dtype" if op in
                                                      ("eq", "ne") else
                                                      "an order"))
                r = (dl == dr) == (op == "eq")
            elif isinstance(left, str) or isinstance(right, str):
                r = self._compare_strings(op, left, right, node)
            else:
                r = self.binop(op, left, right)
            result = r if result is None else self.logical("and", result, r)
            left = right
        return result

    def _compare_strings(self, op, left, right, node):
        """`MODE == "relu"` on constant strings (a global, a str argument
        or default): decided when compiling."""
        if op not in ("eq", "ne") or not (isinstance(left, str) and
                                          isinstance(right, str)):
            raise self.unsupported(node, "comparison of a string with "
                                   "this", "strings compare with == and != "
                                   "to constant strings")
        return (left == right) == (op == "eq")

    def eval_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        first = self.eval(node.values[0])
        if _known(first):
            # Decided when compiling, as Python: a false `and` operand (a
            # true `or` one) is the value, and the rest is not evaluated
            # (`k < n and x[k] > 0` with k >= n reads nothing).
            if isinstance(first, Idx):
                first = first.const
            if bool(first) == (op == "or") or len(node.values) == 1:
                return first
            rest = node.values[1:]
            return self.eval(rest[0] if len(rest) == 1 else
                             ast.copy_location(ast.BoolOp(op=node.op,
                                                          values=rest),
                                               rest[0]))
        lazy = self._short_circuit(op, first, node)
        if lazy is not None:
            return lazy
        values = [first] + [self.eval(v) for v in node.values[1:]]
        result = values[-1]
        for v in reversed(values[:-1]):
            result = self._pick(op, v, result, node)
        return result

    def check_scalar_choice(self, test, other, node):
        """`test` decides Python's choice (`test and other`, `other if
        test else ...`): NumPy refuses the truth of an array of several
        elements; and a choice between a scalar and an array has a shape
        only the run knows, which one translation cannot follow."""
        def scalar(e):
            return all(same_extent(d, 1) for d in e.shape)
        if not scalar(test):
            raise self.error("the truth value of an array with more than "
                             "one element is ambiguous; use a.any() or "
                             "a.all()", node)
        if other is not None and not scalar(other):
            raise self.unsupported(
                node, "'and'/'or' between a scalar and an array",
                "Python's value is one of the operands, a scalar or an "
                "array as the run decides; use np.where or an if "
                "statement")

    def _short_circuit(self, op, first, node):
        """`a and b` / `a or b` of a scalar known only at run time, where
        the rest reads elements or calls: Python evaluates the rest only
        where `a` does not decide (`i < n - 1 and x[i + 1] > 0` never reads
        x[n]), so the rest goes in a branch (Translator.branch_values).
        None where the operands are evaluated together."""
        if isinstance(first, (bool, int, float, np.bool_, np.number, str)) \
                or first is None or isinstance(first, Idx):
            return None
        rest = node.values[1:]
        rest_node = rest[0] if len(rest) == 1 else ast.copy_location(
            ast.BoolOp(op=node.op, values=rest), rest[0])
        if not reads_or_calls(rest_node):
            return None
        try:
            e = self.to_expr(first)
        except FrontendError:
            return None
        self.check_scalar_choice(e, None, node)
        if not self._calls_user_code(rest_node):
            # Operands that read nothing a run-time check guards are
            # evaluated together (no control flow, nor a taped branch).
            rest = self.eager_if_clean(lambda: self.eval(rest_node))
            if rest is not None:
                return self._pick(op, first, rest, node)

        def keep_first():
            return first

        def evaluate_rest():
            return self.eval(rest_node)

        branches = (evaluate_rest, keep_first) if op == "and" else \
            (keep_first, evaluate_rest)
        chosen = self.branch_values(first, node.values[0], *branches, node)
        if chosen is None:
            return None
        cond, raw, kept = chosen
        self.check_scalar_choice(e, self.to_expr(raw[0] if op == "and"
                                                 else raw[1]), node)
        return numpy_functions.where(self, cond, *kept, node)

    def _pick(self, op, a, b, node):
        """Python's `a or b` (a if a is true, else b) and `a and b` (a if
        a is false, else b): one of the operands, not a bool (`s = scale
        or 1.0`). Of bools that is the logical operation; of arrays NumPy
        refuses the truth value, and the element-wise operation stands."""
        if isinstance(a, (bool, int, float, np.bool_, np.number)) and \
                not isinstance(a, Idx):
            return (a or b) if op == "or" else (a and b)
        ea, eb = self.to_expr(a), self.to_expr(b)
        self.check_scalar_choice(ea, eb, node)
        if ea.dtype == np.bool_ and eb.dtype == np.bool_:
            return self.logical(op, a, b)
        truth = self.to_bool(ea)
        picked = (ea, eb) if op == "or" else (eb, ea)
        return numpy_functions.where(self, truth, *picked, node)

    def broadcast_shapes(self, a, b):
        out = []
        for k in range(max(len(a), len(b))):
            x = a[len(a) - 1 - k] if k < len(a) else Idx(1)
            y = b[len(b) - 1 - k] if k < len(b) else Idx(1)
            if same_extent(x, y) or same_extent(y, 1):
                out.append(x)
            elif same_extent(x, 1):
                out.append(y)
            elif as_idx(x).is_const() and as_idx(y).is_const():
                raise self.error("operands could not be broadcast together "
                                 f"with shapes {fmt_shape(a)} "
                                 f"{fmt_shape(b)}")
            else:
                # Extents known only at run time: NumPy's broadcast of
                # them, checked when the program runs (ValueError).
                out.append(self.broadcast_extent("operands", x, y))
        return list(reversed(out))

    def result_dtype(self, op, a, b):
        da, db = a.dtype, b.dtype
        weak_a = isinstance(a, (ConstLeaf, IdxLeaf)) or not a.shape
        weak_b = isinstance(b, (ConstLeaf, IdxLeaf)) or not b.shape
        if op in ("lt", "le", "gt", "ge", "eq", "ne", "and", "or"):
            return np.dtype(np.bool_)
        # Value-based casting as in NumPy 1.x: a scalar does not widen an
        # array of the same kind unless its value does not fit the array's
        # type (`int32_array ^ 2**40`, `float32_array * 1e300`); a scalar of
        # a higher kind (bool < int < float) sets the type.
        if weak_a != weak_b:
            arr, scalar = (b, a) if weak_a else (a, b)
            if isinstance(scalar, ConstLeaf):
                value = scalar.value
                value = value.item() if hasattr(value, "item") else value
                dt = np.result_type(arr.dtype, value)
            elif _kind(scalar.dtype) > _kind(arr.dtype):
                dt = np.result_type(arr.dtype, scalar.dtype)
            else:
                dt = arr.dtype
        else:
            dt = np.result_type(da, db)
        if dt.kind == "O":
            raise self.error("an integer constant out of the range of int64 "
                             "(NumPy would compute with Python objects)",
                             self.current_node)
        if op == "div" and not is_float(dt):
            dt = np.dtype(np.float64)
        if dt == np.bool_ and op in ("floordiv", "mod", "pow"):
            dt = np.dtype(np.int8)  # NumPy's type for bools so combined
        elif dt == np.bool_ and op in ("add", "sub", "mul"):
            dt = np.dtype(np.int64)
        return np.dtype(dt)

    def binop(self, op, a, b):
        if complex_values.is_complex(a) or complex_values.is_complex(b):
            return complex_values.binop(self, op, a, b, self.current_node)
        sel = self.masked_operands([a, b], self.current_node)
        if sel is not None:
            mask, (a, b) = sel
            return Masked(self.binop(op, a, b), mask)
        # Compile-time constants fold with Python semantics.
        pa = isinstance(a, (int, float, bool)) and not isinstance(a, Idx)
        pb = isinstance(b, (int, float, bool)) and not isinstance(b, Idx)
        if pa and pb:
            return _fold(op, a, b)
        # Integer index arithmetic stays symbolic where it is affine.
        ia = isinstance(a, (Idx, int)) and not isinstance(a, bool)
        ib = isinstance(b, (Idx, int)) and not isinstance(b, bool)
        if ia and ib:
            ra = self._idx_binop(op, as_idx(a), as_idx(b))
            if ra is not None:
                return ra
        ea, eb = self.to_expr(a), self.to_expr(b)
        shape = self.broadcast_shapes(ea.shape, eb.shape)
        if ea.dtype == np.bool_ and eb.dtype == np.bool_ and op in (
                "add", "mul", "sub", "max", "min"):
            # NumPy's bool arithmetic is logic: + and maximum are or, * and
            # minimum are and; - is refused.
            if op == "sub":
                raise self.error(
                    "numpy boolean subtract, the `-` operator, is not "
                    "supported, use the bitwise_xor, the `^` operator, or "
                    "the logical_xor function instead.", self.current_node)
            return Op("or" if op in ("add", "max") else "and", [ea, eb],
                      shape, np.bool_)
        dtype = self.result_dtype(op, ea, eb)
        if op == "pow" and not is_float(dtype):
            self.check_integer_power(eb)
        return Op(op, [ea, eb], shape, dtype)

    def check_integer_power(self, exponent):
        """An integer power needs a constant exponent >= 0 (squared and
        multiplied when compiled), as NumPy rejects negative ones."""
        node = self.current_node
        if not isinstance(exponent, ConstLeaf):
            raise self.unsupported(
                node, "integer power with an exponent computed at run time",
                "make the base a float (2.0 ** k, (-1.0) ** k) or the "
                "exponent a constant")
        if exponent.value < 0:
            raise self.error("Integers to negative integer powers are not "
                             "allowed.", node)

    def _idx_binop(self, op, a, b):
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            if a.is_const():
                return b.scale(a.const)
            if b.is_const():
                return a.scale(b.const)
            return None
        if a.is_const() and b.is_const():
            if op in ("lt", "le", "gt", "ge", "eq", "ne", "floordiv", "mod",
                      "pow"):
                return _fold(op, a.const, b.const)
        if op in ("eq", "ne") and (a - b).is_const():
            return _fold(op, (a - b).const, 0)
        return None

    def bitwise(self, op, a, b, node):
        """`&`, `|`, `^`: element-wise logic on bools (masks such as
        `(x > 0) & (x < 1)`), bitwise on integers, as in NumPy."""
        if all(isinstance(v, (bool, int)) and not isinstance(v, Idx)
               for v in (a, b)):
            return {"and": a & b, "or": a | b, "xor": a ^ b}[op]
        ea, eb = self.to_expr(a), self.to_expr(b)
        if is_float(ea.dtype) or is_float(eb.dtype):
            raise self.error(f"ufunc 'bitwise_{op}' not supported for "
                             "float operands", node)
        shape = self.broadcast_shapes(ea.shape, eb.shape)
        if ea.dtype == np.bool_ and eb.dtype == np.bool_:
            return Op(op, [ea, eb], shape, np.bool_)
        dtype = self.result_dtype("bit" + op, ea, eb)
        self._check_integer_result(f"bitwise_{op}", dtype, node)
        return Op("bit" + op, [ea, eb], shape, dtype)

    def _check_integer_result(self, ufunc, dtype, node):
        """uint64 with a signed integer promotes to float64, which NumPy's
        bitwise ufuncs have no loop for: its TypeError."""
        if is_float(dtype):
            raise self.error(
                f"ufunc '{ufunc}' not supported for the input types, and "
                "the inputs could not be safely coerced to any supported "
                "types according to the casting rule ''safe''", node)

    def negate(self, v, node):
        """`-x`, np.negative: NumPy refuses bools."""
        if complex_values.is_complex(v):
            return complex_values.negate(self, v, node)
        if isinstance(v, Masked):
            # -x[m]: the negated selection, under the same mask.
            return Masked(self.negate(v.value, node), v.mask)
        e = self.to_expr(v)
        if e.dtype == np.bool_:
            raise self.error("The numpy boolean negative, the `-` operator, "
                             "is not supported, use the `~` operator or the "
                             "logical_not function instead.", node)
        return self.unary("neg", e)

    def invert(self, v, node):
        """`~`: logical not on bools, bitwise complement on integers."""
        if isinstance(v, (bool, int)) and not isinstance(v, Idx):
            return ~v
        if isinstance(v, Masked):
            return Masked(self.invert(v.value, node), v.mask)
        e = self.to_expr(v)
        if e.dtype == np.bool_:
            return self.unary("not", e)
        if is_float(e.dtype):
            raise self.error("ufunc 'invert' not supported for float "
                             "operands", node)
        return self.unary("bitnot", e)

    def shift(self, op, a, b, node):
        """`<<` and `>>` on integers, as NumPy: a count outside [0, bits)
        shifts everything out (0, or -1 for a negative value shifted
        right) where the hardware's result is undefined."""
        if all(isinstance(v, (bool, int)) and not isinstance(v, Idx)
               for v in (a, b)):
            return a << b if op == "shl" else a >> b
        ea, eb = self.to_expr(a), self.to_expr(b)
        if is_float(ea.dtype) or is_float(eb.dtype):
            name = "left_shift" if op == "shl" else "right_shift"
            raise self.error(f"ufunc '{name}' not supported for float "
                             "operands", node)
        shape = self.broadcast_shapes(ea.shape, eb.shape)
        dtype = self.result_dtype(op, ea, eb)
        self._check_integer_result(
            "left_shift" if op == "shl" else "right_shift", dtype, node)
        if dtype == np.bool_:
            dtype = np.dtype(np.int8)  # NumPy's type for shifted bools
        return Op(op, [ea, eb], shape, dtype)

    def logical(self, op, a, b):
        if isinstance(a, (bool, int)) and isinstance(b, (bool, int)) and \
                not isinstance(a, Idx) and not isinstance(b, Idx):
            if op == "xor":
                return bool(a) != bool(b)
            return (a and b) if op == "and" else (a or b)
        ea, eb = self.to_bool(a), self.to_bool(b)
        shape = self.broadcast_shapes(ea.shape, eb.shape)
        return Op(op, [ea, eb], shape, np.bool_)

    def unary(self, op, v, dtype=None):
        e = self.to_expr(v)
        if dtype is None:
            dtype = e.dtype
        return Op(op, [e], e.shape, dtype)


def _known(v):
    """Whether `v` is a value compiling knows (a number, a string, None)."""
    if isinstance(v, Idx):
        return v.is_const()
    return v is None or isinstance(v, (bool, int, float, str, np.bool_,
                                       np.number))


def _fold(op, a, b):
    import operator
    ops = {
        "add": operator.add, "sub": operator.sub, "mul": operator.mul,
        "div": operator.truediv, "floordiv": operator.floordiv,
        "mod": operator.mod, "pow": operator.pow, "lt": operator.lt,
        "le": operator.le, "gt": operator.gt, "ge": operator.ge,
        "eq": operator.eq, "ne": operator.ne,
    }
    return ops[op](a, b)


BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow",
}


BITOPS = {ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor"}


_CMPOPS = {
    ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
    ast.NotEq: "ne",
}


def _kind(dtype):
    """NumPy's order of kinds for value-based casting: bool, int, float."""
    return {"b": 0, "u": 1, "i": 1, "f": 2}[np.dtype(dtype).kind]
