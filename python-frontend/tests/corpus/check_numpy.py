"""Sanity check of the kernel corpus under plain NumPy.

Run with Debian's Python:   /usr/bin/python3 tests/corpus/check_numpy.py

For every kernel in kernels.KERNELS it checks that

* the generated inputs are only float64/float32 arrays, Python ints and
  Python floats, with every array dimension <= 32;
* the kernel runs without errors or warnings (np.seterr(all='raise') and
  warnings turned into errors);
* every result (returned values and array arguments afterwards) is finite;
* the kernel has an effect (returns something or modifies an argument);
* two runs on fresh copies of the inputs give bit-identical results;
* the kernel source stays inside the language subset (a static AST lint:
  whitelisted NumPy functions / methods, only `range` loops, no
  comprehensions, lists, boolean operators, ...).

Exits with status 1 if anything fails.
"""

import ast
import copy
import importlib.util
import inspect
import os
import sys
import textwrap
import time
import warnings
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_DIM = 32

NP_FUNCS = {
    "empty", "zeros", "ones", "empty_like", "zeros_like", "ones_like", "copy",
    "dot", "matmul", "transpose", "sum", "max", "min", "mean", "exp", "log",
    "sqrt", "sin", "cos", "tan", "tanh", "arctan2", "abs", "maximum",
    "minimum", "power", "where", "outer", "add", "subtract", "multiply",
    "divide",
}
NP_ATTRS = {"float64", "float32"}
METHODS = {
    "copy", "dot", "transpose", "sum", "max", "min", "mean", "exp", "log",
    "sqrt", "abs", "maximum", "minimum", "power", "add", "subtract",
    "multiply", "divide",
}
ARRAY_ATTRS = {"shape", "T", "dtype"}
BUILTINS = {"range"}
FORBIDDEN_NODES = (
    ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.List,
    ast.Set, ast.Dict, ast.Lambda, ast.BoolOp, ast.Starred, ast.Try,
    ast.With, ast.Global, ast.Nonlocal, ast.Break, ast.Continue,
    ast.FunctionDef, ast.ClassDef, ast.Yield, ast.YieldFrom, ast.Await,
    ast.JoinedStr, ast.Import, ast.ImportFrom, ast.Delete, ast.Assert,
    ast.Raise, ast.NamedExpr, ast.IfExp,
)


def load_kernels():
    spec = importlib.util.spec_from_file_location("corpus_kernels", os.path.join(HERE, "kernels.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------
# Static lint of the kernel bodies
# --------------------------------------------------------------------------

def _is_np(node):
    return isinstance(node, ast.Name) and node.id == "np"


def _is_int_const(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


class Lint(ast.NodeVisitor):
    def __init__(self, params, module_consts):
        self.errors = []
        self.params = set(params)
        self.module_consts = module_consts

    def err(self, node, msg):
        self.errors.append(f"line {getattr(node, 'lineno', '?')}: {msg}")

    def generic_visit(self, node):
        if isinstance(node, FORBIDDEN_NODES):
            self.err(node, f"forbidden construct {type(node).__name__}")
        super().generic_visit(node)

    def visit_Compare(self, node):
        if len(node.ops) != 1:
            self.err(node, "chained comparison")
        if isinstance(node.ops[0], (ast.In, ast.NotIn, ast.Is, ast.IsNot)):
            self.err(node, "in/is comparison")
        self.generic_visit(node)

    def visit_For(self, node):
        if not isinstance(node.target, ast.Name):
            self.err(node, "for target is not a single name")
        it = node.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and 1 <= len(it.args) <= 3 and not it.keywords):
            self.err(node, "for loop not over range(...)")
        if node.orelse:
            self.err(node, "for/else")
        self.generic_visit(node)

    def visit_While(self, node):
        if node.orelse:
            self.err(node, "while/else")
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Attribute) and _is_np(f.value):
            if f.attr not in NP_FUNCS:
                self.err(node, f"np.{f.attr} not allowed")
        elif isinstance(f, ast.Attribute):
            if f.attr not in METHODS:
                self.err(node, f"method .{f.attr}() not allowed")
            self.visit(f.value)
        elif isinstance(f, ast.Name):
            if f.id not in BUILTINS:
                self.err(node, f"call of {f.id}() not allowed")
        else:
            self.err(node, "call of a computed callee")
        for kw in node.keywords:
            if kw.arg == "axis":
                if not _is_int_const(kw.value):
                    self.err(node, "axis= is not an int constant")
            elif kw.arg == "keepdims":
                if not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, bool)):
                    self.err(node, "keepdims= is not a bool constant")
            elif kw.arg == "dtype":
                v = kw.value
                ok = (isinstance(v, ast.Attribute) and
                      ((_is_np(v.value) and v.attr in NP_ATTRS) or
                       (isinstance(v.value, ast.Name) and v.attr == "dtype")))
                if not ok:
                    self.err(node, "dtype= must be X.dtype or np.float64/np.float32")
            else:
                self.err(node, f"keyword {kw.arg}= not allowed")
        for a in node.args:
            self.visit(a)

    def visit_Attribute(self, node):
        if _is_np(node.value):
            if node.attr not in NP_ATTRS:
                self.err(node, f"np.{node.attr} used as a value")
        elif node.attr not in ARRAY_ATTRS:
            self.err(node, f"attribute .{node.attr} not allowed")
        self.generic_visit(node)

    def visit_Subscript(self, node):
        # Indices must be built from names, constants and arithmetic only
        # (no fancy / boolean indexing with arrays).
        for sub in ast.walk(node.slice):
            if isinstance(sub, (ast.Call, ast.Subscript, ast.Compare, ast.List)):
                if not (isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Attribute)
                        and sub.value.attr == "shape"):
                    self.err(node, "index expression contains a call, subscript or comparison")
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id != "np" and node.id in self.module_consts and not isinstance(self.module_consts[node.id], (int, float)):
            self.err(node, f"module-level name {node.id} is not a numeric constant")


def lint_kernel(fn, mod):
    src = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(src)
    fdef = tree.body[0]
    assert isinstance(fdef, ast.FunctionDef)
    errors = []
    a = fdef.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
        errors.append("signature uses defaults / *args / **kwargs / keyword-only args")
    if fdef.returns is not None or any(arg.annotation is not None for arg in a.args):
        errors.append("kernel is annotated")
    consts = {k: v for k, v in vars(mod).items() if not k.startswith("__")}
    lint = Lint([arg.arg for arg in a.args], consts)
    for stmt in fdef.body:
        if (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)):
            continue  # docstring
        lint.visit(stmt)
    return errors + lint.errors


# --------------------------------------------------------------------------
# Dynamic checks
# --------------------------------------------------------------------------

def check_inputs(args):
    errs = []
    for k, a in enumerate(args):
        if isinstance(a, np.ndarray):
            if a.dtype not in (np.float64, np.float32):
                errs.append(f"arg {k}: array dtype {a.dtype}")
            if any(d > MAX_DIM for d in a.shape):
                errs.append(f"arg {k}: shape {a.shape} too large")
            if not np.all(np.isfinite(a)):
                errs.append(f"arg {k}: non-finite input")
        elif type(a) not in (int, float):
            errs.append(f"arg {k}: type {type(a).__name__} (want ndarray, int or float)")
    return errs


def flatten(x):
    if isinstance(x, tuple):
        out = []
        for e in x:
            out.extend(flatten(e))
        return out
    return [x]


def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a = np.asarray(a)
        b = np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def finite(x):
    if x is None:
        return True
    return bool(np.all(np.isfinite(np.asarray(x, dtype=np.float64))))


def describe(x):
    if x is None:
        return "None"
    if isinstance(x, np.ndarray):
        return f"{x.dtype}{list(x.shape)}"
    return type(x).__name__


def run_once(fn, inputs, seed):
    rng = np.random.default_rng(seed)
    args = inputs(rng)
    original = copy.deepcopy(args)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t0 = time.perf_counter()
        result = fn(*args)
        dt = time.perf_counter() - t0
    return original, args, result, dt


def main():
    np.seterr(all="raise")
    mod = load_kernels()
    names = list(mod.KERNELS)
    failures = 0
    print(f"{len(names)} kernels, NumPy {np.__version__}, Python {sys.version.split()[0]}")
    for name in names:
        fn, inputs = mod.KERNELS[name]
        problems = []
        seed = zlib.crc32(name.encode())
        try:
            problems += lint_kernel(fn, mod)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"lint crashed: {exc!r}")
        try:
            orig1, args1, res1, dt = run_once(fn, inputs, seed)
            orig2, args2, res2, _ = run_once(fn, inputs, seed)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"run failed: {type(exc).__name__}: {exc}")
            print(f"FAIL {name}: " + "; ".join(problems))
            failures += 1
            continue
        problems += check_inputs(orig1)
        if not all(same(a, b) for a, b in zip(orig1, orig2)):
            problems.append("input generator not deterministic")
        outs1 = flatten(res1) + [a for a in args1 if isinstance(a, np.ndarray)]
        outs2 = flatten(res2) + [a for a in args2 if isinstance(a, np.ndarray)]
        for k, o in enumerate(outs1):
            if not finite(o):
                problems.append(f"result {k} not finite")
        if len(outs1) != len(outs2) or not all(same(a, b) for a, b in zip(outs1, outs2)):
            problems.append("two runs differ")
        modified = [k for k, (a, b) in enumerate(zip(orig1, args1))
                    if isinstance(a, np.ndarray) and not np.array_equal(a, b)]
        if res1 is None and not modified:
            problems.append("kernel has no effect (returns None, modifies nothing)")
        ret = ", ".join(describe(r) for r in flatten(res1)) if res1 is not None else "-"
        arg_dtypes = sorted({str(a.dtype) for a in orig1 if isinstance(a, np.ndarray)})
        status = "FAIL" if problems else "ok  "
        print(f"{status} {name:20s} {dt * 1e3:8.2f} ms  dtypes={'/'.join(arg_dtypes):15s} "
              f"returns=({ret}) modifies={modified}")
        for p in problems:
            print(f"       - {p}")
        failures += bool(problems)
    print(f"{len(names) - failures}/{len(names)} kernels ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
