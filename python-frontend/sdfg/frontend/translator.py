"""NumPy function (Python AST) -> sdfg dialect text.

The translator specialises a function on its argument types: arrays have
static shapes and dtypes, Python ints and bools are compile-time constants,
Python floats are runtime scalars. Each statement becomes one state (one
map for element-wise work, fused across the whole right-hand side), loops
become sdfg.loop / sdfg.while, conditionals sdfg.if.
"""

import ast
import builtins
import collections
import contextlib
import copy
import inspect
import math
import re
import sys
import textwrap
import types

import numpy as np

from ..errors import FrontendError
from .. import numpy as numpy_functions
from . import (callables, calls, comprehensions, python_math, returns,
               scalar_ops)
from .aliasing import Aliasing
from .astutil import copy_tree, fix_locations, parse
from .bindings import (SITES, STATIC, STRAIGHT, assigned_names,
                       carried_names, construct_name, count_assignments,
                       inplace_targets, name_permutation, reads_or_calls)
from .emitter import Buffer, Emitter
from .global_values import NUMPY, GlobalValues, ModuleRef, inlinable
from .indexing import Fancy, FancyLeaf, Indexing, _idx_key
from .iteration import lower_iteration
from .loop_exits import lower_loop_exits
from .operators import BINOPS, BITOPS, Operators
from .values import (SUPPORTED_DTYPES, ConstLeaf, Container, Expr, Idx,
                     IdxLeaf, Masked, Op, ScalarLeaf, Unavailable, View,
                     ViewLeaf, as_idx, expr_leaves, fmt_shape, is_float,
                     mlir_scalar, same_extent)

# Element counts below this run sequentially: forking threads costs more.
PARALLEL_THRESHOLD = 4096
# A loop that permutes arrays is unrolled by the permutation's period, up
# to this many copies of its body.
MAX_SWAP_PERIOD = 12
# Transients are sized by the largest extent their shape can take; beyond
# this the shape is not really bounded (it depends on runtime data).
MAX_TRANSIENT_ELEMENTS = 1 << 28
# What the dialect represents (kMaxRepresentable in IndexUtils.h): a larger
# array is a located error here rather than the compiler's.
MAX_CONTAINER_BYTES = 1 << 62


class Signature:
    """How the Python call maps onto the C function."""

    def __init__(self):
        self.params = []   # (kind, name, dtype, shape|value)
        self.outputs = []  # ("array", dtype, shape) | ("arg", param index)
        self.returns_tuple = False
        self.returns_none = True
        # (param name, extent, "file:line"): an integer array argument
        # used whole as a subscript, checked before each call as NumPy
        # checks it (see Translator.fancy_subscript).
        self.index_checks = []
        # (NumPy function, "file:line") per LAPACK call: a singular matrix
        # is reported after the call (sdfg_linalg_error).
        self.linalg_sites = []
        # [param name, "closure" | "module", module or None, variable] per
        # global array the program reads (Translator.global_array), in the
        # order of their params, which follow the function's own.
        self.globals = []


class Translation:
    def __init__(self, name, text, signature, filename=None, sources=()):
        # The program's symbol (symbol_name), not the Python name.
        self.name = name
        self.text = text
        self.signature = signature
        self.filename = filename
        # sources[k]: the Python `file:line` that text line k + 1 came
        # from.
        self.sources = list(sources)

    def locate(self, message):
        """Compiler diagnostics with positions in this text (`<stdin>:L:C`
        from sdfg-opt, `.../input.mlir:L:C` from sdfg-translate) pointed at
        the Python line that produced line L, the generated line kept in
        parentheses."""
        def repl(m):
            line = int(m.group(2))
            src = (self.sources[line - 1]
                   if 0 < line <= len(self.sources) else None)
            if src is None:
                return m.group(0)
            return f"{src}: {m.group(4)}: (generated sdfg line {line}) "
        return re.sub(r"(<stdin>|[^\s:]*input\.mlir):(\d+):(\d+): "
                      r"(error|warning|note): ", repl, message)


class _Widen(Exception):
    """A scalar variable assigned, in a loop or branch, a float where it
    held an integer (`s = 0; for ...: s += x[i]`): translated again with a
    float container for it from its first binding. Or (`peel`: the line
    and column of a for loop) a variable that a loop's first iteration
    turns into an array (`s = 0.0; for k ...: s = s + c[k] * x ** k`):
    translated again with that loop's first iteration peeled off, as
    straight-line code where the rebinding follows NumPy's, and the loop
    over the rest, where the variable is an array throughout."""

    def __init__(self, name, error, peel=None):
        super().__init__(name)
        self.name, self.error, self.peel = name, error, peel


def translate(fn, args, name=None, device="cpu"):
    widened, peeled = set(), set()
    while True:
        try:
            tr = Translator(fn, args, name, device)
        except RecursionError:
            # The parse or the rewriting before translation (most of which
            # walks iteratively: astutil.py).
            code = getattr(fn, "__code__", None)
            raise FrontendError(_NESTED_TOO_DEEPLY,
                                getattr(code, "co_filename", None),
                                getattr(code, "co_firstlineno", None)
                                ) from None
        tr.widened, tr.peeled = widened, peeled
        try:
            return _run(tr)
        except _Widen as w:
            # Each retry must change something: asking again for the same
            # is a change it cannot absorb.
            done = peeled if w.peel is not None else widened
            key = w.peel if w.peel is not None else w.name
            if key in done:
                raise w.error from None
            done.add(key)


def symbol_name(name):
    """The symbol of the program compiled from the Python function `name`:
    `sdfg.sdfg @py_NAME`, the C function of its library (its gradient
    `py_NAME_grad`). The prefix, which neither C and the libraries a
    program links (libc, libm, OpenMP, BLAS, LAPACK) nor the sdfg runtime
    (`sdfg_*`, `__sdfg_*`) use, keeps a function named `malloc`, `exp`,
    `kmp_set_blocktime` or `sdfg_index_error` from taking the place of
    theirs. A name that is not an ASCII identifier (Python allows `größe`;
    MLIR and C do not) is spelled by its UTF-8 bytes in hex after `pyx_`,
    which no ASCII name gets."""
    if name.isascii() and name.isidentifier():
        return "py_" + name
    return "pyx_" + name.encode().hex()


def _param_names(a):
    """A signature's parameter names in the order Program.bind passes
    their values: positional ones, then keyword-only ones."""
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


# What a RecursionError in translation becomes (located at the statement
# being translated). Left-nested chains of binary operators, the common deep
# expression, are translated iteratively and do not get here.
_NESTED_TOO_DEEPLY = (
    "this statement nests too deeply to translate (more levels of calls, "
    "parentheses or right-nested operators than Python's recursion limit "
    "lets the frontend follow); split it into several statements")


def _run(tr):
    try:
        return tr.run()
    except (FrontendError, _Widen):
        raise
    except RecursionError:
        raise tr.error(_NESTED_TOO_DEEPLY) from None
    except (TypeError, ValueError, IndexError, KeyError, AttributeError,
            ZeroDivisionError, OverflowError) as e:
        # A program the checks above did not anticipate: report where, as
        # every other rejection does, rather than a traceback.
        raise tr.error(f"cannot translate this construct "
                       f"({type(e).__name__}: {e})") from e


class Translator(GlobalValues, Aliasing, Indexing, Operators):
    """Translates one function for one signature of arguments.

    Statements, control flow, inlining and the variables' containers are
    here; subscripts (indexing.py), operators (operators.py), the aliasing
    checks (aliasing.py) and globals (global_values.py) are mixins sharing
    this state."""

    def __init__(self, fn, args, name=None, device="cpu"):
        self.fn = fn
        # Map schedules are chosen for the device: on the CPU, small maps
        # and reductions run sequentially (a fork costs more than they
        # do); on the GPU every data-parallel map is a kernel candidate
        # (sdfg-gpu-schedule), since running it on the host would move
        # unified memory back and forth.
        self.device = device
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        try:
            # Of the function itself, never of what it wraps (inspect
            # follows __wrapped__: a decorated wrapper, or an sdfg.grad
            # object, would silently compile the wrapped function).
            lines, self.firstline = inspect.getsourcelines(
                getattr(fn, "__code__", fn))
        except (OSError, TypeError) as e:
            raise FrontendError(f"cannot read the source of {fn!r}: {e}",
                                self.filename)
        self.source = textwrap.dedent("".join(lines))
        tree = parse(self.source)
        self.fdef = tree.body[0]
        if not isinstance(self.fdef, ast.FunctionDef):
            raise FrontendError("expected a function definition",
                                self.filename, self.firstline)
        lower_iteration(self.fdef)
        self._fold_returns(self.fdef)
        lower_loop_exits(self.fdef)
        # The Python name (messages) and the program's symbol.
        self.name = name or fn.__name__
        self.symbol = symbol_name(self.name)
        self.args = args
        self.em = Emitter()
        self.em.where = self._source_line
        self.env = {}
        self.var_containers = {}
        self.iter_bounds = {}  # ssa name -> (lo Idx, hi Idx) inclusive
        # Scalar variables given a float container from their first
        # binding, and for loops (line, column) whose first iteration is
        # peeled (translate's later passes, _Widen).
        self.widened, self.peeled = set(), set()
        # The loops and branches around the code being translated: (file,
        # line and column; whether it might not run: a run-time condition,
        # a loop that may do no iteration; whether it is a for loop; the
        # names its body passes from one iteration to the next).
        self.constructs = []
        # (constructs, loop depth) where the function being translated
        # (an inlined helper's body) begins: loops of its callers bind
        # its names anew in each call.
        self.scope_base = (0, 0)
        # Names whose value depended on the iterator of a loop that ended
        # (and whose last value is not known when compiling) -> its line.
        self.loop_scoped = {}
        self.loop_ivs = []  # the iterators of the enclosing sdfg.loops
        # Per inlined call: the names its return statement reads and the
        # container counter at its start (_check_copied_alias).
        self.returned_names = []
        self.call_starts = []
        self.alias_returns = []  # names that may alias a caller's array
        # Index names whose values come from data (array elements, scalar
        # arguments, loop variables with such bounds): their sign is only
        # known at run time, so negative subscripts are wrapped there.
        self.data_names = set()
        # Whether index values are being emitted before the statement's
        # state (slice_range under index_section).
        self.hoisted_index = False
        # Containers holding a reshape's copy: NumPy's reshape is a view
        # whose writes reach the original, so writing into one is refused.
        self.reshaped = set()
        # A reshape's copy -> the containers it was copied from.
        self.reshape_sources = {}
        self.loop_depth = 0
        # Name permutations (`a, b = b, a`) at this loop depth rebind the
        # names instead of copying: the function's top level, or the body
        # of a loop unrolled for them (visit_For).
        self.permute_depth = 0
        self.statements = []  # open _Statement scopes, innermost last
        self.inlining = [fn]  # the functions being translated, for errors
        self.lambdas = []  # the lambdas being called (recursion is an error)
        self.sig = Signature()
        self.global_views = {}  # origin -> View (Translator.global_array)
        self.current_node = self.fdef
        self.globals = dict(fn.__globals__)
        if fn.__closure__:
            for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                self.globals[var] = cell.cell_contents
        self.assign_counts = count_assignments(self.fdef)
        self.rebind_counts = count_assignments(self.fdef, augmented=False)
        self.inplace_names = inplace_targets(self.fdef)

    def _fold_returns(self, fdef):
        """Returns before the end of `fdef`'s body (in if statements and
        loops) folded into one at the end (returns.py); the breaks that
        adds are lowered (loop_exits.py) with the function's others."""
        body = fdef.body
        last = body[-1] if body else None
        if not any(returns.returns_in(st) for st in body[:-1]) and not (
                last is not None and not isinstance(last, ast.Return) and
                returns.returns_in(last)):
            return
        fdef.body = returns.fold_returns(body, self.unsupported)
        lower_loop_exits(fdef)

    # ------------------------------------------------------------------
    # Errors
    # ------------------------------------------------------------------

    def _source_line(self):
        """`file:line` of the statement being translated (the callee's,
        inside an inlined call)."""
        lineno = getattr(self.current_node, "lineno", None)
        if lineno is None:
            return None
        return f"{self.filename}:{lineno + self.firstline - 1}"

    def error(self, message, node=None, construct=None):
        node = node or self.current_node
        lineno = getattr(node, "lineno", None)
        if lineno is not None:
            lineno += self.firstline - 1
        return FrontendError(message, self.filename, lineno, construct)

    def unsupported(self, node, construct, why=""):
        return self.error(why or "not supported by the sdfg frontend", node,
                          construct)

    # ------------------------------------------------------------------
    # Driver
    # ------------------------------------------------------------------

    def run(self):
        self._bind_arguments()
        with self.em.capture() as main:
            self.em.indent = 1
            ret = self._visit_until_return(self.fdef.body)
            if ret is not None:
                self.visit(ret)  # visit_Return, located as statements are
        params = []
        for c in self.param_containers:
            params.append(f"{c.ssa}: {c.mlir_type} {{sdfg.name = \"{c.name}\"}}")
        sig = ",\n    ".join(params)
        header = f"sdfg.sdfg @{self.symbol}({sig}) {{"
        lines = header.split("\n")
        sources = [f"{self.filename}:{self.firstline}"] * len(lines)
        lines += ["  " + a for a in self.em.allocs]
        sources += self.em.alloc_sources
        lines += main.lines
        sources += main.sources
        lines.append("}")
        sources.append(None)
        return Translation(self.symbol, "\n".join(lines) + "\n", self.sig,
                           self.filename, sources)

    def _decided_branch(self, stmt):
        """The statements of the branch a top-level `if` with a return in
        it takes, where its test is decided when compiling; else None."""
        if not isinstance(stmt, ast.If) or not any(
                isinstance(n, ast.Return) for n in ast.walk(stmt)):
            return None
        test = self._static_truth(stmt.test)
        if test is None:
            return None  # decided at run time: visit_If translates it again
        return list(stmt.body if test else stmt.orelse)

    def _visit_until_return(self, stmts):
        """Translates a function's body up to its return statement, which
        it returns (None without one). A top-level `if` decided when
        compiling is replaced by the branch taken (`if mode == "relu":
        return ...`): a return there ends the function, what follows is
        unreachable. Any other return must be the body's last statement."""
        body = list(stmts)
        i = 0
        while i < len(body):
            stmt = body[i]
            taken = self._decided_branch(stmt)
            if taken is not None:
                body[i:i + 1] = taken
                continue
            if isinstance(stmt, ast.Return):
                if i != len(body) - 1 and any(s is stmt for s in stmts):
                    raise self.unsupported(stmt, "return",
                                           "return must be the last "
                                           "statement of the function")
                return stmt
            self.visit(stmt)
            i += 1
        return None

    def _bind_arguments(self):
        a = self.fdef.args
        # (Defaults and keywords are bound by the caller, Program.bind,
        # which passes keyword-only arguments after the positional ones.)
        if a.vararg or a.kwarg:
            raise self.unsupported(self.fdef, "function signature",
                                   "*args and **kwargs parameters are not "
                                   "supported (name each parameter)")
        names = _param_names(a)
        if len(names) != len(self.args):
            raise self.error(f"{self.name}() takes {len(names)} arguments, "
                             f"got {len(self.args)}")
        self.param_containers = []
        for name, value in zip(names, self.args):
            if isinstance(value, np.ndarray):
                dtype = value.dtype
                if dtype.type not in SUPPORTED_DTYPES:
                    raise self.error(f"argument '{name}' has unsupported "
                                     f"dtype {dtype}")
                self.em.reserved.add(f"%{name}")
                c = Container(f"%{name}", value.shape, dtype, "arg", name)
                # A NumPy array, even 0-d: `s += 1` updates it in place
                # (a float argument's `+=` rebinds the name).
                c.ndarray = True
                self.param_containers.append(c)
                self.env[name] = c.view()
                self.sig.params.append(("array", name, dtype, value.shape))
            elif isinstance(value, (bool, np.bool_)):
                self.env[name] = bool(value)
                self.sig.params.append(("const", name, None, bool(value)))
            elif isinstance(value, str) or value is None:
                # A mode (`activation="relu"`) or an omitted option
                # (`kind=None`), compiled in like an int.
                self.env[name] = value
                self.sig.params.append(("const", name, None, value))
            elif isinstance(value, (int, np.integer)):
                self.env[name] = int(value)
                self.sig.params.append(("const", name, None, int(value)))
            elif isinstance(value, (float, np.floating)):
                dtype = (np.dtype(value.dtype) if isinstance(value, np.floating)
                         else np.dtype(np.float64))
                # Runtime scalar: passed by pointer to a 0-d container so
                # that the function may also assign to it.
                self.em.reserved.add(f"%{name}")
                c = Container(f"%{name}", (), dtype, "arg", name)
                self.param_containers.append(c)
                self.env[name] = c.view()
                self.sig.params.append(("scalar", name, dtype, None))
            else:
                raise self.error(f"argument '{name}' has unsupported type "
                                 f"{type(value).__name__}; expected a numpy "
                                 "array, an int, a float or a bool")

    # ------------------------------------------------------------------
    # Statements
    # ------------------------------------------------------------------

    def visit(self, node):
        saved = self.current_node
        self.current_node = node
        try:
            method = getattr(self, "visit_" + type(node).__name__, None)
            if method is None:
                raise self.unsupported(node, construct_name(node))
            return method(node)
        except RecursionError:
            # Caught at the innermost statement, the stack unwound to it.
            raise self.error(_NESTED_TOO_DEEPLY, node) from None
        finally:
            self.current_node = saved

    def visit_body(self, stmts):
        for s in stmts:
            if isinstance(s, ast.Return):
                raise self.unsupported(s, "return", "return must be the last "
                                       "statement of the function")
            self.visit(s)

    def inline_call(self, fn, args, kwargs, node):
        """Translates a call of a Python function of the program by
        inlining its body at the call site: its parameters name the
        arguments (arrays by reference, as in Python: its in-place updates
        reach the caller's), its statements are emitted before the
        statement that calls it, and its return value, copied there, is
        the call's value. Returns that value."""
        if fn in self.inlining:
            raise self.unsupported(node, f"recursive call of {fn.__name__}")
        try:
            lines, firstline = inspect.getsourcelines(
                getattr(fn, "__code__", fn))  # not what it wraps
            filename = inspect.getsourcefile(fn) or "<unknown>"
        except (OSError, TypeError) as e:
            raise self.error(f"cannot read the source of {fn.__name__}: {e}",
                             node)
        fdef = parse(textwrap.dedent("".join(lines))).body[0]
        if fn.__name__ == "<lambda>":
            # A module-level lambda (`f = lambda z: c * z ** 2`): the one
            # lambda of its source lines, as a function returning its body.
            lams = [n for n in ast.walk(fdef) if isinstance(n, ast.Lambda)]
            if len(lams) != 1:
                raise self.unsupported(node, "call of <lambda>",
                                       "write it as a def, or as the only "
                                       "lambda of its line")
            fdef = ast.FunctionDef(
                name="<lambda>", args=lams[0].args,
                body=[ast.copy_location(ast.Return(lams[0].body), lams[0])],
                decorator_list=[], returns=None, type_params=[])
            fdef = fix_locations(ast.copy_location(fdef, lams[0]))
        if not isinstance(fdef, ast.FunctionDef):
            raise self.unsupported(node, f"call of {fn.__name__}")
        lower_iteration(fdef)
        located = self.filename, self.firstline
        self.filename, self.firstline = filename, firstline
        try:
            self._fold_returns(fdef)
        finally:
            self.filename, self.firstline = located
        lower_loop_exits(fdef)
        positional = [p.arg for p in fdef.args.posonlyargs + fdef.args.args]
        defaults = dict(zip(
            positional[len(positional) - len(fn.__defaults__ or ()):],
            fn.__defaults__ or ()))
        defaults.update(fn.__kwdefaults__ or {})
        globals_ = dict(fn.__globals__)
        if fn.__closure__:
            for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                globals_[var] = cell.cell_contents
        return self._inline(fn, fdef, args, kwargs, defaults,
                            (None, globals_, filename, firstline), node)

    def default_value(self, value):
        """A default parameter value, evaluated at the definition as
        Python's: an array the expression names is that array (updates in
        place reach the default), unless its variable's container takes
        later rebindings; computed values and scalars are copied there."""
        if isinstance(value, View) and value.ndim > 0 and not any(
                c is value.container and self.rebind_counts.get(n, 0) > 1
                for n, c in self.var_containers.items()):
            return value
        return self.materialize_if_view(value)

    def _abs_line(self, node):
        """`node`'s line in its file (AST lines count from the
        function's first)."""
        return node.lineno + self.firstline - 1

    def where_of(self, node):
        """A statement's identity across translations (each parses anew):
        its file, line and column (a helper's lines are its file's)."""
        return (self.filename, self.firstline + node.lineno, node.col_offset)

    def visit_FunctionDef(self, node):
        """A function defined in the program: called like a helper
        (inlined), its free variables read from the defining scope as they
        are at the call (a closure), its defaults evaluated here."""
        for d in node.decorator_list:
            raise self.unsupported(d, "decorated nested function")
        a = node.args
        positional = [p.arg for p in a.posonlyargs + a.args]
        # Evaluated here, as Python's (a value read from variables is
        # copied: later updates of them do not reach the default).
        with self.statement() as stmt:
            defaults = dict(zip(
                positional[len(positional) - len(a.defaults):],
                [self.default_value(self.eval(d)) for d in a.defaults]))
            for p, d in zip(a.kwonlyargs, a.kw_defaults):
                if d is not None:
                    defaults[p.arg] = self.default_value(self.eval(d))
            stmt.done()
        if self.assign_counts.get(node.name, 0) > 0 or sum(
                1 for n in ast.walk(self.fdef) if isinstance(
                    n, ast.FunctionDef) and n.name == node.name) > 1:
            raise self.unsupported(
                node, f"'{node.name}' defined more than once or assigned",
                "give each nested function a name of its own")
        self.env[node.name] = callables.LocalFunction(
            node, defaults,
            (self.env, self.globals, self.filename, self.firstline))

    def call_local(self, local, args, kwargs, node):
        return self._inline(local, local.node, args, kwargs, local.defaults,
                            local.scope, node)

    def _inline(self, fn, fdef, args, kwargs, defaults, scope, node):
        """Inlines `fdef` (see inline_call); `scope` = (the enclosing env
        its free variables read, or None for a module-level function;
        globals; file; first line)."""
        name = fdef.name
        if fn in self.inlining:
            raise self.unsupported(node, f"recursive call of {name}")
        start = self.em.counter  # containers made later are the call's
        a = fdef.args
        if a.vararg or a.kwarg:
            raise self.unsupported(node, f"call of {name}",
                                   "*args and **kwargs parameters are not "
                                   "supported (name each parameter)")
        names = _param_names(a)
        positional = [p.arg for p in a.posonlyargs + a.args]
        if len(args) > len(positional):
            raise self.error(f"{name}() takes {len(positional)} "
                             f"positional arguments, got {len(args)}", node)
        bound = dict(zip(positional, args))
        for k, v in kwargs.items():
            if k not in names or k in bound or \
                    k in (p.arg for p in a.posonlyargs):
                raise self.error(f"{name}() got an unexpected or "
                                 f"repeated argument '{k}'", node)
            bound[k] = v
        for n in names:
            if n not in bound:
                if n not in defaults:
                    raise self.error(f"{name}() missing argument "
                                     f"'{n}'", node)
                bound[n] = defaults[n]
        # Python evaluates arguments to objects: a computed array is a new
        # one, which the callee may update in place.
        for n, v in bound.items():
            if isinstance(v, (Expr, ScalarLeafCopy)) and not isinstance(
                    v, ConstLeaf):
                bound[n] = self.materialize_if_view(v)
        # Its early returns folded into one (a function defined in the
        # program; inline_call folded the others'), located in its file.
        located = self.filename, self.firstline
        self.filename, self.firstline = scope[2], scope[3]
        try:
            self._fold_returns(fdef)
        finally:
            self.filename, self.firstline = located
        body = list(fdef.body)
        self.returned_names.append({
            n.id for r in ast.walk(fdef) if isinstance(r, ast.Return)
            and r.value is not None for n in ast.walk(r.value)
            if isinstance(n, ast.Name)})
        self.call_starts.append(start)
        self.alias_returns.append(set())
        # Its statements go before the calling statement, after what that
        # statement emitted so far (the arguments).
        stmt = self.statements[-1] if self.statements else None
        em = self.em
        saved_buffer, saved_indent = em.buffer, em.indent
        if stmt is not None:
            done = em.buffer
            em.buffer, em.indent = stmt.outer, stmt.outer_indent
            if done:
                if done.dataflow:
                    with em.block("sdfg.state"):
                        em.splice(done)
                else:
                    em.splice(done)
                done.lines.clear()
                done.sources.clear()
                done.dataflow = False
        enclosing, globals_, filename, firstline = scope
        saved = (self.env, self.var_containers, self.assign_counts,
                 self.rebind_counts, self.inplace_names, self.globals,
                 self.filename, self.firstline, self.permute_depth,
                 self.statements, self.scope_base)
        # A nested function's names are its own (parameters and what it
        # assigns); others read the defining scope, as Python's closures.
        self.env = bound if enclosing is None else \
            collections.ChainMap(bound, enclosing)
        self.var_containers = {}
        self.assign_counts = count_assignments(fdef)
        self.rebind_counts = count_assignments(fdef, augmented=False)
        self.inplace_names = inplace_targets(fdef)
        self.globals = globals_
        self.filename, self.firstline = filename, firstline
        self.permute_depth = self.loop_depth
        self.statements = []
        # The call's own loops: its names are bound anew by each call.
        self.scope_base = (len(self.constructs), self.loop_depth)
        self.inlining.append(fn)
        try:
            ret = self._visit_until_return(body)
            result = None
            if ret is not None and ret.value is not None:
                with self.statement() as rs:
                    self.current_node = ret
                    value = self.eval(ret.value)
                    values = value if isinstance(value, tuple) else (value,)
                    # A copy: the caller may update the arguments the value
                    # was computed from before it uses it. But a view of an
                    # array that existed before the call (`return A[:, j]`)
                    # is that view, as NumPy returns it: writes through it
                    # reach the array, and it sees the array's updates.
                    # A name bound by a copy of a caller's array and
                    # rebound in a loop or branch may be that array in
                    # NumPy (the loop ran no iteration, the branch was not
                    # taken): marked for the caller's check.
                    maybe = {id(self.env[n].container)
                             for n in self.alias_returns[-1]
                             if isinstance(self.env.get(n), View)}
                    marked = [isinstance(v, View) and id(v.container) in maybe
                              for v in values]
                    values = tuple(
                        v if isinstance(v, View) and v.ndim > 0 and getattr(
                            v.container, "serial", -1) <= start
                        else self.snapshot(v, ret, "result")
                        if isinstance(v, (View, Expr)) and not isinstance(
                            v, ConstLeaf) else v for v in values)
                    for v, m in zip(values, marked):
                        if m and isinstance(v, View):
                            v.may_alias = fdef.name
                    result = values if isinstance(value, tuple) else values[0]
                    rs.done()
        finally:
            self.inlining.pop()
            self.returned_names.pop()
            self.call_starts.pop()
            self.alias_returns.pop()
            (self.env, self.var_containers, self.assign_counts,
             self.rebind_counts, self.inplace_names, self.globals,
             self.filename, self.firstline, self.permute_depth,
             self.statements, self.scope_base) = saved
            em.buffer, em.indent = saved_buffer, saved_indent
        return result

    def eval_Lambda(self, node):
        a = node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise self.unsupported(node, "lambda with *args, **kwargs or "
                                   "keyword-only parameters")
        # Defaults are evaluated where the lambda is defined, as Python's:
        # a value read from variables is copied there.
        defaults = [self.default_value(self.eval(d)) for d in a.defaults]
        scope = (self.env, self.globals, self.filename, self.firstline)
        return callables.LocalLambda(node, defaults, scope)

    def call_lambda(self, lam, args, kwargs, node):
        names = [p.arg for p in lam.node.args.args]
        if len(args) > len(names):
            raise self.error(f"<lambda>() takes {len(names)} arguments, got "
                             f"{len(args)}", node)
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names or k in bound:
                raise self.error(f"<lambda>() got an unexpected or repeated "
                                 f"argument '{k}'", node)
            bound[k] = v
        for n, d in zip(names[len(names) - len(lam.defaults):],
                        lam.defaults):
            bound.setdefault(n, d)
        missing = [n for n in names if n not in bound]
        if missing:
            raise self.error(f"<lambda>() missing argument '{missing[0]}'",
                             node)
        if any(lam is active for active in self.lambdas):
            raise self.unsupported(node, "recursive call of a lambda")
        env, globals_, filename, firstline = lam.scope
        saved = (self.env, self.globals, self.filename, self.firstline)
        # The parameters over the defining scope, which is read as it is
        # now and not written (other closures of that scope must not see
        # the parameters).
        self.env = collections.ChainMap(bound, env)
        self.globals = globals_
        self.filename, self.firstline = filename, firstline
        self.lambdas.append(lam)
        try:
            return self.eval(lam.node.body)
        finally:
            self.lambdas.pop()
            (self.env, self.globals, self.filename,
             self.firstline) = saved

    def visit_Pass(self, node):
        pass

    def visit_Assert(self, node):
        # Shapes and int arguments are constants of the compiled program,
        # so an assert on them is decided here, once per signature; one on
        # array values would need a run-time check the program lacks.
        with self.em.capture() as pre:
            test = self.eval(node.test)
        if isinstance(test, Idx) and test.is_const():
            test = test.const
        if pre.dataflow or not isinstance(test, (bool, int, float)):
            raise self.unsupported(node, "assert on values computed at run "
                                   "time", "only asserts on shapes, int "
                                   "arguments and constants are checked "
                                   "(when compiling); check array values "
                                   "outside the program")
        self.em.splice(pre)
        if not test:
            msg = node.msg
            message = msg.value if isinstance(msg, ast.Constant) and \
                isinstance(msg.value, str) else ast.unparse(msg or node.test)
            raise self.error(f"assertion failed for these arguments: "
                             f"{message}", node)

    def _output_operand(self, call):
        """(the call without its output operand, that operand's node) for
        a call given `out=` (or a ufunc's extra positional argument, as in
        np.exp(a, a)); (call, None) otherwise."""
        out = [k for k in call.keywords if k.arg == "out"]
        ufunc = None
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(
                func.value, ast.Name) and func.value.id not in self.env \
                and self.globals.get(func.value.id) is np:
            ufunc = getattr(np, func.attr, None)
            if not isinstance(ufunc, np.ufunc):
                ufunc = None
        if out:
            target = out[0].value
            stripped = copy.copy(call)
            stripped.keywords = [k for k in call.keywords if k.arg != "out"]
        elif ufunc is not None and len(call.args) == ufunc.nin + 1 and \
                not any(isinstance(a, ast.Starred) for a in call.args):
            target = call.args[-1]
            stripped = copy.copy(call)
            stripped.args = call.args[:-1]
        else:
            return call, None, None
        if isinstance(target, ast.Tuple):
            if len(target.elts) != 1:
                raise self.unsupported(call, "out= with several outputs")
            target = target.elts[0]
        return stripped, target, ufunc

    def _call_into(self, call, target, ufunc, node, bind=None):
        """Computes `call` and writes it into the array `target` names, as
        NumPy's out= does; `bind` (a Name) then names that array."""
        with self.statement() as stmt:
            value = self.eval(call)
            dest = self.eval(target)
            if not isinstance(dest, View):
                raise self.unsupported(target, "out= that is not an array",
                                       "give an array variable or a slice "
                                       "of one")
            result = self.to_expr(value)
            if ufunc is not None:
                # Ufuncs cast into out= by the same_kind rule, and
                # broadcast their inputs to its shape.
                if not np.can_cast(result.dtype, dest.dtype,
                                   casting="same_kind"):
                    raise self.error(
                        f"Cannot cast ufunc '{ufunc.__name__}' output from "
                        f"dtype('{np.dtype(result.dtype)}') to "
                        f"dtype('{np.dtype(dest.dtype)}') with casting rule "
                        "'same_kind'", node)
            elif self._is_np_call(call, "dot") and (
                    np.dtype(result.dtype) != np.dtype(dest.dtype) or
                    len(result.shape) != len(dest.shape) or
                    not _c_contiguous(dest)):
                # np.dot writes its result straight into out=.
                raise self.error(
                    "output array is not acceptable (must have the right "
                    "datatype, number of dimensions, and be a C-Array)", node)
            elif len(result.shape) != len(dest.shape) or not all(
                    same_extent(a, b)
                    for a, b in zip(result.shape, dest.shape)):
                # Other functions (np.sum, np.cumsum, np.dot...) need
                # out= of their result's shape exactly.
                raise self.error(
                    "out= has shape " + _shape_text(dest.shape) +
                    " but the result has shape " +
                    _shape_text(result.shape), node)
            into = fix_locations(ast.copy_location(ast.Subscript(
                value=target, slice=ast.Constant(value=Ellipsis),
                ctx=ast.Store()), target))
            self.assign(into, value, node)
            if bind is not None:
                self.assign(bind, self.eval(target), node)
            stmt.done()

    def _is_np_call(self, call, name):
        """Whether `call` calls np.<name> (numpy bound to a global)."""
        f = call.func
        return isinstance(f, ast.Attribute) and f.attr == name and \
            isinstance(f.value, ast.Name) and f.value.id not in self.env \
            and self.globals.get(f.value.id) is np

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            return  # docstring
        if isinstance(node.value, ast.Call):
            call, target, ufunc = self._output_operand(node.value)
            if target is not None:
                self._call_into(call, target, ufunc, node)
                return
            func = node.value.func
            if isinstance(func, ast.Attribute) and func.attr == "fill" and \
                    len(node.value.args) == 1 and not node.value.keywords \
                    and isinstance(func.value, (ast.Name, ast.Subscript)):
                # a.fill(v): NumPy's in-place fill, a[...] = v (which casts
                # v to a's type the same way).
                target = ast.copy_location(ast.Subscript(
                    value=func.value, slice=ast.Constant(value=Ellipsis),
                    ctx=ast.Store()), func.value)
                self.visit_Assign(fix_locations(
                    ast.copy_location(ast.Assign(
                        targets=[target], value=node.value.args[0]), node)))
                return
            helper = isinstance(func, ast.Name) and (
                (func.id not in self.env and inlinable(
                    self.globals.get(func.id)) is not None) or
                isinstance(self.env.get(func.id), callables.LocalFunction))
            # `mod.step(x)`: a function of an imported module of the
            # program's own, called for its in-place effects.
            helper = helper or (
                isinstance(func, ast.Attribute) and
                isinstance(func.value, ast.Name) and
                func.value.id not in self.env and isinstance(
                    self.globals.get(func.value.id), types.ModuleType) and
                self.globals[func.value.id] not in (np, math) and
                inlinable(getattr(self.globals[func.value.id], func.attr,
                                   None)) is not None)
            # np.add.at(x, idx, v) updates x in place.
            add_at = isinstance(func, ast.Attribute) and func.attr == "at" \
                and isinstance(func.value, ast.Attribute) and \
                func.value.attr in ("add", "subtract") and \
                isinstance(func.value.value, ast.Name) and \
                func.value.value.id not in self.env and \
                self.globals.get(func.value.value.id) is np
            fill_diagonal = isinstance(func, ast.Attribute) and \
                func.attr == "fill_diagonal" and \
                isinstance(func.value, ast.Name) and \
                func.value.id not in self.env and \
                self.globals.get(func.value.id) is np
            add_at = add_at or fill_diagonal
            # a.sort() sorts the array variable in place.
            in_place = isinstance(func, ast.Attribute) and \
                func.attr == "sort" and isinstance(func.value, ast.Name) \
                and isinstance(self.env.get(func.value.id), View)
            if helper or add_at or in_place:
                # A call made for its in-place effects.
                with self.statement() as stmt:
                    self.eval(node.value)
                    stmt.done()
                return
            raise self.unsupported(node, "call of "
                                   + ast.unparse(node.value.func),
                                   "only NumPy functions and array methods "
                                   "whose result is used can be called")
        raise self.unsupported(node, "expression statement",
                               "an expression whose value is discarded has no "
                               "effect in NumPy semantics the frontend keeps")

    def visit_Assign(self, node):
        if len(node.targets) != 1:
            # `a = b = np.zeros(n)`: one value, bound to each target from
            # the left, as Python does (arrays: one array, two names).
            if any(not isinstance(t, ast.Name) for t in node.targets):
                raise self.unsupported(node, "chained assignment",
                                       "chain names only (a = b = value)")
            with self.statement() as stmt:
                value = self.eval(node.value)
                for t in node.targets:
                    self.assign(t, value, node)
                stmt.done()
            return
        target = node.targets[0]
        if isinstance(node.value, ast.Call) and isinstance(target, ast.Name):
            call, into, ufunc = self._output_operand(node.value)
            if into is not None:
                # y = np.add(a, b, out=c): c is written, y names c.
                self._call_into(call, into, ufunc, node, bind=target)
                return
        if isinstance(target, ast.Tuple) and not isinstance(node.value,
                                                             ast.Tuple):
            # `a, b = f(x)`: a tuple value (a helper's results, copies
            # already, or a tuple of shapes).
            with self.statement() as stmt:
                value = self.eval(node.value)
                if isinstance(value, Expr) and not isinstance(
                        value, ConstLeaf) and len(value.shape) > 0:
                    value = self.materialize_if_view(value)  # a new array
                if isinstance(value, View) and value.ndim > 0 and \
                        same_extent(value.shape[0], len(target.elts)):
                    # `a, b = M`: Python iterates over M's rows, views.
                    value = [self.subscript(value, [ast.copy_location(
                        ast.Constant(k), node)], node)
                        for k in range(len(target.elts))]
                if not isinstance(value, (tuple, list)) or len(
                        value) != len(target.elts):
                    raise self.unsupported(
                        node, "tuple unpacking",
                        f"the right-hand side is not a tuple of "
                        f"{len(target.elts)} values")
                # Views of the arrays the targets name now (a helper's
                # `return b, a`) are read before any target is assigned.
                targets = {id(self.env[t.id].container)
                           for t in target.elts if isinstance(t, ast.Name)
                           and isinstance(self.env.get(t.id), View)}
                value = [self.materialize_if_view(v)
                         if isinstance(v, View) and id(v.container) in targets
                         else v for v in value]
                for t, v in zip(target.elts, value):
                    self.assign(t, v, node)
                stmt.done()
            return
        if isinstance(target, ast.Tuple):
            if len(node.value.elts) != len(target.elts):
                raise self.unsupported(node, "tuple unpacking",
                                       "the two sides have different "
                                       "lengths")
            if self.loop_depth == self.permute_depth and \
                    self.rebinds_names(node):
                return
            # Evaluate all right-hand sides first (a, b = b, a swaps).
            # Into subscripts, an array view stays a view, as in NumPy: a
            # later store reads what the earlier ones wrote (`A[0], A[1] =
            # A[1], A[0]` leaves both rows A[1]'s).
            # Into names, an array is bound, not copied (`a, b = x, y;
            # a += 1` updates x), unless a target owns it: that target's
            # assignment may store into its array (store_variable) before
            # the others read it.
            into_arrays = all(isinstance(t, ast.Subscript)
                              for t in target.elts)
            held = {id(self.var_containers[t.id]) for t in target.elts
                    if isinstance(t, ast.Name)
                    and t.id in self.var_containers}
            with self.statement() as stmt:
                values = []
                for v in node.value.elts:
                    v = self.eval(v)
                    live = isinstance(v, View) and v.ndim > 0 and (
                        into_arrays or id(v.container) not in held)
                    values.append(v if live else self.materialize_if_view(v))
                for t, v in zip(target.elts, values):
                    self.assign(t, v, node)
                stmt.done()
            return
        with self.statement() as stmt:
            value = self.eval(node.value)
            self.assign(target, value, node)
            stmt.done()

    def rebinds_names(self, node):
        """`a, b = b, a` on whole arrays where bindings are static (see
        permute_depth): the names swap arrays, as in Python, with no copy,
        so in-place updates reach whichever array a name holds now.
        Returns whether it did."""
        names = name_permutation(node)
        if names is None:
            return False
        targets, sources = names
        views = [self.env.get(n) for n in sources]
        if not all(isinstance(v, View) and v.ndim > 0 and v.is_whole()
                   for v in views):
            return False
        owned = [self.var_containers.get(n) for n in sources]
        for t, v, c in zip(targets, views, owned):
            self.env[t] = v
            if c is v.container:
                self.var_containers[t] = c
            else:
                self.var_containers.pop(t, None)
        return True

    def visit_AugAssign(self, node):
        kind = type(node.op)
        if kind in BINOPS:
            def op(a, b):
                return self.binop(BINOPS[kind], a, b)
        elif kind in BITOPS:
            def op(a, b):
                return self.bitwise(BITOPS[kind], a, b, node)
        elif kind in (ast.LShift, ast.RShift):
            def op(a, b):
                return self.shift("shl" if kind is ast.LShift else "shr", a,
                                  b, node)
        else:
            raise self.unsupported(node, "augmented assignment operator")
        ufunc = _UFUNC_NAMES.get(kind, "?")
        base = op

        def op(a, b):
            # In place into an array: NumPy's same_kind casting rule
            # refuses a result of a higher kind (int32 += 2.5, int /= 2,
            # bool += 1).
            value = base(a, b)
            old = self.to_expr(a).dtype
            new = self.to_expr(value).dtype
            if not np.can_cast(new, old, casting="same_kind"):
                raise self.error(
                    f"Cannot cast ufunc '{ufunc}' output from "
                    f"dtype('{new}') to dtype('{old}') with casting rule "
                    "'same_kind'", node)
            return value

        target = node.target
        with self.statement() as stmt:
            if isinstance(target, ast.Name):
                current = self.lookup(target.id, target)
            elif isinstance(target, ast.Subscript):
                current = self.eval_Subscript(target, store=True)
            else:
                current = self.eval(target)
            rhs = self.eval(node.value)
            if isinstance(current, Masked):
                self.masked_store(current, rhs, target, op)
            elif isinstance(current, Fancy):
                # NumPy's x[idx] += v: gather, add, scatter; a repeated
                # index is updated once (np.add.at accumulates).
                value = op(ViewLeaf(self.gather(current, target)),
                           self.to_expr(rhs))
                self.scatter(current, value, target)
            elif isinstance(current, View) and _is_array(current):
                # In place, as NumPy does for arrays (arguments included).
                value = op(ViewLeaf(current), self.to_expr(rhs))
                self.store(current, value, cast=True)
            else:
                value = base(current, rhs)
                self.assign(target, value, node)
            stmt.done()

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        with self.statement() as stmt:
            self.assign(node.target, self.eval(node.value), node)
            stmt.done()

    def visit_For(self, node):
        if node.orelse:
            raise self.unsupported(node, "for-else")
        if self.unroll_sequence_loop(node):
            return
        if not isinstance(node.target, ast.Name):
            raise self.unsupported(node.target, "for target",
                                   "the loop variable must be a single name")
        call = node.iter
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                and call.func.id == "reversed":
            # iteration.py rewrites reversed(range(...)) unless its step
            # is not a constant.
            raise self.unsupported(node.iter, "reversed(range(...)) with a "
                                   "step computed at run time",
                                   "the step must be a constant")
        if isinstance(call, (ast.Tuple, ast.List)):
            # iteration.py unrolls these unless the body leaves the loop.
            raise self.unsupported(node, "break or continue in a loop over "
                                   "a tuple or list",
                                   "the loop is unrolled, one copy of the "
                                   "body per item; use a flag, or loop over "
                                   "range(len(...))")
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "range" and not call.keywords
                and 1 <= len(call.args) <= 3):
            raise self.unsupported(node.iter, "for loop over "
                                   + construct_name(node.iter),
                                   "only 'for i in range(...)' loops are "
                                   "supported")
        with self.em.capture() as pre:
            bounds = [self.control_index(self.eval(a), a) for a in call.args]
        if pre.dataflow:
            raise self.unsupported(node.iter, "range bound",
                                   "range bounds must be integers computed "
                                   "without array operations")
        self.em.splice(pre)
        if len(bounds) == 1:
            lb, ub, step = Idx(0), bounds[0], Idx(1)
        else:
            lb, ub = bounds[0], bounds[1]
            step = bounds[2] if len(bounds) == 3 else Idx(1)
        if not step.is_const():
            raise self.unsupported(call, "range step",
                                   "the step of range() must be a constant")
        step = step.const
        if step == 0:
            raise self.error("range() step must not be zero", call)
        if self.where_of(node) in self.peeled and self.interval(
                ub - lb if step > 0 else lb - ub)[0] >= 1:
            # The first iteration as straight-line code (_Widen): a
            # variable it turns into an array is one for the others.
            name = node.target.id
            saved = self.env.get(name)
            self.env[name] = lb
            self.visit_body(node.body)
            if saved is None:
                self.env.pop(name, None)
            else:
                self.env[name] = saved
            lb = lb + step
            if self.interval(ub - lb if step > 0 else lb - ub)[1] < 1:
                self.bind_after_loop(name, saved, lb - step, lb, step, node)
                return
        iv = self.em.fresh("i")
        lo, hi = self.interval(lb), self.interval(ub)
        if step > 0:
            self.iter_bounds[iv] = (lo[0], hi[1] - 1)
        else:
            self.iter_bounds[iv] = (hi[0] + 1, lo[1])
        if self.is_data_index(lb) or self.is_data_index(ub):
            self.data_names.add(iv)
        name = node.target.id
        permuted = self.loop_permutation(node)
        if permuted:
            self.visit_permuting_for(node, name, lb, ub, step, permuted)
            return
        with self.statement() as stmt:
            self.own_containers(node.body, node)
            stmt.done()
        saved = self.env.get(name)
        self.env[name] = Idx.of(iv)
        carried = self.carried_shapes(node.body)
        bound = assigned_names(node.body, augmented=False)
        before = self._shapes_of(bound)
        self.loop_depth += 1
        span = ub - lb if step > 0 else lb - ub
        self.constructs.append((self.where_of(node),
                                self.interval(span)[0] < 1, True,
                                carried_names(node.body, True) |
                                self.closure_reads(node.body)))
        self.loop_ivs.append(iv)
        with self.em.block(f"sdfg.loop {iv} = {lb.render()} to {ub.render()} "
                           f"step {step}"):
            self.visit_body(node.body)
        self.loop_ivs.pop()
        self.constructs.pop()
        self.loop_depth -= 1
        self.check_carried_shapes(carried, node)
        self.leave_iterator(iv, lb, ub, step, node)
        self._scoped_shapes(bound, before, node, "loop")
        self.bind_after_loop(name, saved, lb, ub, step, node)
        for element in getattr(node, "sdfg_elements", ()):
            # `for row in A`: after the loop, row is the last row, as in
            # Python, where leave_iterator could put it there (bounds known
            # when compiling); not after a loop that breaks, or one whose
            # body binds the name again.
            if isinstance(self.env.get(element), View) and \
                    element not in self.var_containers and (
                        getattr(node, "sdfg_breaks", False) or
                        self.assign_counts.get(SITES, {}).get(element)
                        != 1):
                self.env.pop(element)

    def unroll_sequence_loop(self, node):
        """A loop that iteration.py made of `for x in seq` (or enumerate or
        zip of it), where `seq` is a Python tuple or list: translates the
        body once per item, its index bound to the item's number (its
        elements are then indexed with constants). Returns whether it
        did."""
        sources = getattr(node, "sdfg_sequences", None)
        if not sources:
            return False
        values = [self.eval(s) for s in sources]
        sequences = [isinstance(v, (tuple, list)) for v in values]
        if not any(sequences):
            return False
        if not all(sequences):
            raise self.unsupported(node.iter, "zip of a list or tuple and "
                                   "an array", "zip arrays with arrays, "
                                   "lists with lists")
        # Its break and continue are flags by now (loop_exits.py), which
        # work in straight-line code as well.
        name = node.target.id
        saved = self.env.get(name)
        count = min(len(v) for v in values)
        order = range(count - 1, -1, -1) if getattr(
            node, "sdfg_backwards", False) else range(count)
        for k in order:
            self.env[name] = k
            self.visit_body(copy_tree(node.body))
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved
        return True

    def swapped_by_inner_loops(self, stmts):
        """The names whose every rebinding in `stmts` is a swap directly in
        the body of a for loop that visit_permuting_for translates."""
        swapped, other = set(), set()
        for stmt in stmts:
            for node in ast.walk(stmt):
                if isinstance(node, ast.For):
                    names = self.loop_permutation(node) or set()
                    swapped |= names
                    for st in node.body:
                        p = name_permutation(st)
                        if p and not set(p[0]) <= names:
                            other |= set(p[0])
                elif isinstance(node, ast.Assign) and \
                        name_permutation(node) is None:
                    other |= set(assigned_names([node], augmented=False))
        # A swap outside such a loop body (in a branch, a while loop, the
        # body of this statement list itself) rebinds for good.
        for stmt in stmts:
            p = name_permutation(stmt)
            if p:
                other |= set(p[0])
            for node in ast.walk(stmt):
                if isinstance(node, (ast.If, ast.While)):
                    for inner in ast.walk(node):
                        p = name_permutation(inner)
                        if p:
                            other |= set(p[0])
        return swapped - other

    def loop_permutation(self, node):
        """The names that statements `a, b = b, a` directly in the body of
        for loop `node` permute, when those are whole arrays and nothing
        else in the body rebinds them (else None: the loop is translated
        once, with copies)."""
        perms = [name_permutation(st) for st in node.body
                 if isinstance(st, ast.Assign)]
        names = {n for p in perms if p for n in p[0]}
        if not names or not all(
                isinstance(self.env.get(n), View) and self.env[n].ndim > 0
                and self.env[n].is_whole() for n in names):
            return None
        others = [st for st in node.body
                  if not (isinstance(st, ast.Assign) and name_permutation(st))]
        if names & set(assigned_names(others, augmented=False)):
            return None
        return names

    def visit_permuting_for(self, node, name, lb, ub, step, permuted):
        """A for loop whose body swaps arrays (`A, B = B, A`, the Jacobi
        idiom): the swap is a rebinding, so the body is translated once per
        binding of the names until they come back to the first (twice for
        a swap), as one loop over groups of iterations plus the leftover
        iterations after it. In-place updates then reach the array each
        name holds in that iteration, arguments included, as in NumPy."""
        if not (lb.is_const() and ub.is_const()):
            raise self.unsupported(
                node, "swapping arrays in a loop of varying trip count",
                "a loop that swaps arrays is unrolled by the swap's period, "
                "which needs a trip count known at compile time; swap copies "
                "instead (A[:], B[:] = B.copy(), A.copy())")
        trips = len(range(lb.const, ub.const, step))
        # The period: how many iterations bring every binding back.
        start = {n: self.env[n].container for n in permuted}
        period, probe = 0, dict(start)
        while True:
            period += 1
            for st in node.body:
                p = name_permutation(st) if isinstance(st, ast.Assign) \
                    else None
                if p:
                    moved = [probe[n] for n in p[1]]
                    probe.update(zip(p[0], moved))
            # Permutations compose to one of finite order: this ends.
            if probe == start or period > MAX_SWAP_PERIOD:
                break
        if probe != start:
            raise self.unsupported(
                node, "permutation of arrays",
                f"the names return to their arrays only after more than "
                f"{MAX_SWAP_PERIOD} iterations; the loop would be unrolled "
                "that many times")
        leftover = trips % period
        if self.loop_depth > 0 and leftover:
            raise self.unsupported(
                node, "swapping arrays an odd number of times in a loop",
                f"{trips} iterations leave the arrays swapped, and this "
                "loop is itself in a loop or branch, whose iterations "
                "would then disagree on which array a name holds")
        with self.statement() as stmt:
            self.own_containers(node.body, node, exclude=permuted)
            stmt.done()
        saved = self.env.get(name)
        saved_depth = self.permute_depth
        groups = trips // period
        if groups:
            iv = self.em.fresh("i")
            self.iter_bounds[iv] = (lb.const, lb.const + (groups - 1) *
                                    period * step) if step > 0 else \
                (lb.const + (groups - 1) * period * step, lb.const)
            self.loop_depth += 1
            self.permute_depth = self.loop_depth
            end = lb.const + groups * period * step
            self.loop_ivs.append(iv)
            with self.em.block(f"sdfg.loop {iv} = {lb.render()} to {end} "
                               f"step {period * step}"):
                for k in range(period):
                    self.env[name] = Idx.of(iv) + k * step
                    self.visit_body(node.body)
            self.loop_ivs.pop()
            self.loop_depth -= 1
        self.permute_depth = self.loop_depth
        for k in range(leftover):
            self.env[name] = Idx(lb.const + (groups * period + k) * step)
            self.visit_body(node.body)
        self.permute_depth = saved_depth
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved

    def hoist_condition(self, node, again=False):
        """An if or while whose test calls a function of the program (a
        helper, a nested def, a lambda), whose statements are inlined
        before the statement that calls it, or whose `and`/`or` must not
        evaluate an operand Python would not (`i < n and x[i] > 0` reads
        x[i] only where i < n): the test is assigned to a variable first,
        by statements of their own (and, for a while loop (`again`), again
        at the end of its body); the returned node tests the variable."""
        test = self._fold_leading_operands(node.test)
        short = _needs_short_circuit(test)
        if not short and not self._calls_user_code(test):
            if test is node.test:
                return node
            new = copy.copy(node)
            new.test = test
            return new
        self._hoisted = getattr(self, "_hoisted", 0) + 1
        name = f"__sdfg_cond{self._hoisted}"

        def assign():
            stmts = _condition_statements(name, copy_tree(test))
            for st in stmts:
                ast.copy_location(st, node.test)
                fix_locations(st)
            return stmts

        self.assign_counts[name] = 2 if again or short else 1
        self.visit_body(assign())
        load = ast.copy_location(ast.Name(id=name, ctx=ast.Load()),
                                 node.test)
        body = list(node.body) + (assign() if again else [])
        new = copy.copy(node)
        new.test, new.body = load, body
        return new

    def _fold_leading_operands(self, test):
        """`test` with the leading operands of an and/or that are known
        when compiling dropped, or the whole test decided by them (a
        constant): `k < n and x[k] > 0` with int arguments k >= n is False
        without reading x[k], as in Python."""
        if not _needs_short_circuit(test):
            return test
        is_and = isinstance(test.op, ast.And)
        values = list(test.values)
        while len(values) > 1:
            # Not tried on an operand calling the program's functions (their
            # statements would be inlined into the discarded buffer), nor
            # where it fails (the translation proper reports that).
            if self._calls_user_code(values[0]):
                break
            try:
                truth = self._static_truth(values[0])
            except FrontendError:
                break
            if truth is None:
                break
            if truth != is_and:  # False in an `and`, True in an `or`
                return ast.copy_location(ast.Constant(value=truth), test)
            values.pop(0)
        if len(values) == len(test.values):
            return test
        if len(values) == 1:
            return values[0]
        return ast.copy_location(ast.BoolOp(op=test.op, values=values), test)

    def _static_truth(self, expr):
        """The truth of test `expr` where it is known when compiling, else
        None. Evaluated into a discarded buffer: a test of sizes, int
        arguments and options emits nothing; one that emits code or
        transients is decided at run time (and those are dropped)."""
        allocs = len(self.em.allocs)
        try:
            with self.em.capture() as pre:
                value = self.eval(expr)
            if isinstance(value, Idx) and value.is_const():
                value = value.const
            if value is None or isinstance(value, str):
                value = bool(value)
            if pre.dataflow or pre.lines or len(self.em.allocs) != allocs \
                    or not isinstance(value, (bool, int, float, np.bool_,
                                              np.number)):
                return None
            return bool(value)
        finally:
            del self.em.allocs[allocs:]
            del self.em.alloc_sources[allocs:]

    def _quiet_value(self, expr):
        """The value of `expr` where computing it emits nothing and calls
        nothing (`i + 1`, `n - 1` of a size, a loop variable), else None."""
        if not _plain_arithmetic(expr):
            return None
        allocs = len(self.em.allocs)
        try:
            with self.em.capture() as pre:
                value = self.eval(expr)
        except FrontendError:
            return None
        finally:
            del self.em.allocs[allocs:]
            del self.em.alloc_sources[allocs:]
        return None if pre.dataflow or pre.lines else value

    def _static_index(self, expr):
        """`expr` as an Idx over loop variables where computing it emits
        nothing (`i`, `i + 1`, `n - i`), else None."""
        value = self._quiet_value(expr)
        return value if isinstance(value, Idx) else None

    def _static_int(self, expr):
        """The int value of `expr` where compiling knows it and computing
        it emits nothing (`n - 1` of a size), else None."""
        if isinstance(expr, ast.Constant):
            v = expr.value
            return v if type(v) is int else None
        value = self._quiet_value(expr)
        if isinstance(value, Idx) and value.is_const():
            value = value.const
        return value if type(value) is int else None

    def _calls_user_code(self, test):
        for n in ast.walk(test):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
                continue
            v = self.env.get(n.func.id)
            if isinstance(v, (callables.LocalFunction,
                              callables.LocalLambda)):
                return True
            if n.func.id not in self.env and inlinable(
                    self.globals.get(n.func.id)) is not None:
                return True
        return False

    def visit_While(self, node):
        if node.orelse:
            raise self.unsupported(node, "while-else")
        node = self.hoist_condition(node, again=True)
        with self.statement() as stmt:
            self.own_containers(node.body, node)
            stmt.done()
        carried = self.carried_shapes(node.body)
        bound = assigned_names(node.body, augmented=False)
        before = self._shapes_of(bound)
        self.loop_depth += 1
        self.constructs.append((self.where_of(node), True, False, set()))
        cond, flag = self.while_condition(node.test), None
        if cond.dataflow:
            # The condition needs maps (`while np.sum(x) < t`), which its
            # region may not hold: it is computed into a 0-d transient
            # before the loop and again at the end of every iteration, and
            # the region reads that.
            flag = self.new_transient([], np.bool_, "cond")
            self.store_condition(cond, flag)
        with self.em.block("sdfg.while"):
            if flag is None:
                self.em.splice(cond)
                value = cond.value
            else:
                value = self.em.fresh("l")
                self.em.line(f"{value} = sdfg.load {flag.ssa}[] : "
                             f"{flag.mlir_type}")
            self.em.line(f"sdfg.condition {value}")
        # Re-open for the body: `} do {`.
        self.em.buffer.lines[-1] = self.em.buffer.lines[-1] + " do {"
        self.em.indent += 1
        self.visit_body(node.body)
        if flag is not None:
            self.store_condition(self.while_condition(node.test), flag)
        self.em.indent -= 1
        self.em.line("}")
        self.constructs.pop()
        self.loop_depth -= 1
        self.check_carried_shapes(carried, node)
        self._scoped_shapes(bound, before, node, "loop")

    def bind_after_loop(self, name, saved, lb, ub, step, node):
        """The loop variable after the loop, as Python leaves it: the last
        iteration's value, or its value before a loop that did nothing.
        Where the bounds are not constants that is known only at run time:
        reading the name after the loop is then a located error."""
        def unknown(why):
            self.env.pop(name, None)
            self.var_containers.pop(name, None)
            self.loop_scoped[name] = (
                self._abs_line(node), f"{why} is known only at run time; "
                "keep the value you need in a variable of your own")

        if getattr(node, "sdfg_breaks", False) or name in assigned_names(
                node.body):
            # After a break, or a body that assigns the variable, Python's
            # value is not the last iteration's.
            unknown("the loop variable's value after a loop that breaks or "
                    "assigns it")
            return
        if lb.is_const() and ub.is_const():
            trips = range(lb.const, ub.const, step)
            if trips:
                if name in self.var_containers:
                    with self.statement() as stmt:
                        self.store_variable(name, self.to_expr(trips[-1]),
                                            node)
                        stmt.done()
                else:
                    self.env[name] = trips[-1]
                return
        elif name not in self.var_containers:
            unknown("the last value of a loop variable whose bounds are "
                    "data")
            return
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved

    def leave_iterator(self, iv, lb, ub, step, node):
        """After a loop, the views that depend on its iterator (a variable
        whose extent does, `row = A[i, :i]`; an alias at its position) are
        the last iteration's: where the bounds are constants the iterator
        is replaced by its last value, otherwise the names are not
        available after the loop."""
        last = None
        if lb.is_const() and ub.is_const():
            trips = range(lb.const, ub.const, step)
            if trips:
                last = trips[-1]
        for name, v in list(self.env.items()):
            if not isinstance(v, View) or not _mentions(v, iv):
                continue
            if last is None:
                self.env.pop(name)
                self.loop_scoped[name] = self._abs_line(node)
            else:
                self.env[name] = _substituted(v, iv, last)

    def carried_shapes(self, body):
        """The shapes, at a loop's entry, of the array variables its `body`
        reads before assigning (whose values go from one iteration to the
        next)."""
        return {n: _shape_key(self.env[n]) for n in carried_names(body)
                if isinstance(self.env.get(n), View)}

    def check_carried_shapes(self, carried, node):
        """Rejects a loop whose iterations change the shape of a variable
        they pass on (`x = x[1:]`): its body is translated once, for one
        shape."""
        for name, shape in carried.items():
            now = self.env.get(name)
            if isinstance(now, View) and _shape_key(now) != shape:
                raise self.unsupported(
                    node, f"variable '{name}' changing shape from one "
                    "iteration to the next",
                    f"it enters the loop with shape {_show(shape)} and "
                    f"leaves an iteration with shape "
                    f"{_show(_shape_key(now))}; the loop is "
                    "compiled for one shape (unroll it, or keep the array "
                    "and a length)")

    def while_condition(self, test):
        """The text computing a while loop's condition, as a buffer whose
        `value` names the i1 result."""
        saved = self.current_node
        self.current_node = test
        try:
            with self.em.capture() as buf:
                expr = self.to_expr(self.eval(test))
                if expr.shape and not all(same_extent(e, 1)
                                          for e in expr.shape):
                    raise self.error("the truth value of an array is "
                                     "ambiguous; use .any() or .all() (not "
                                     "supported) or index an element")
                buf.value = self.emit_scalar(expr, [], len(expr.shape),
                                             np.bool_)
        finally:
            self.current_node = saved
        return buf

    def store_condition(self, cond, flag):
        with self.em.block("sdfg.state"):
            self.em.splice(cond)
            self.emit_store(cond.value, flag.view(), [])

    def visit_If(self, node):
        # The test as written narrows loop variables in the branches, also
        # where hoist_condition replaces it by a variable.
        narrow = node.test
        node = self.hoist_condition(node)
        # A test that reduces arrays (np.sum(A) > 0, np.any(mask)) computes
        # them first, in a state of its own.
        with self.em.capture() as pre:
            test = self.eval(node.test)
        if test is None or isinstance(test, str):
            test = bool(test)  # an option: `if flag:` with flag=None
        if isinstance(test, (bool, int, float, np.bool_, np.number)):
            # Decided at compile time (sizes and int arguments are known).
            self.visit_body(node.body if test else node.orelse)
            return
        if pre.dataflow:
            with self.em.block("sdfg.state"):
                self.em.splice(pre)
        else:
            self.em.splice(pre)
        with self.statement() as stmt:
            self.own_containers(node.body + node.orelse, node)
            stmt.done()
        cond = self.control_scalar(test, np.bool_)
        bound = assigned_names(node.body + node.orelse, augmented=False)
        before = self._shapes_of(bound)
        self.loop_depth += 1
        self.constructs.append((self.where_of(node), True, False, set()))
        with self.em.block(f"sdfg.if {cond}"):
            with self.narrowed(narrow, True):
                self.visit_body(node.body)
        if node.orelse:
            self.em.buffer.lines[-1] += " else {"
            self.em.indent += 1
            with self.narrowed(narrow, False):
                self.visit_body(node.orelse)
            self.em.indent -= 1
            self.em.line("}")
        self.constructs.pop()
        self.loop_depth -= 1
        self._scoped_shapes(bound, before, node, "branch")

    def _shapes_of(self, names):
        return {n: _shape_key(v) for n, v in self.env.items()
                if n in names and isinstance(v, View)}

    def _scoped_shapes(self, bound, before, node, kind):
        """After a branch decided at run time or a loop: an array bound
        there whose length is computed there (`w = x[s0:s1]` in one
        branch, `w = x[:s1]` in the other; `seg = x[s[i]:s[i+1]]` in a
        loop) has a length known only inside (one per branch or
        iteration); one translation of the code after it cannot follow
        it, so the name is not available there (a located error where it
        is used, instead of the last branch's length or invalid IR)."""
        for name in bound:
            v = self.env.get(name)
            if not isinstance(v, View) or all(
                    as_idx(e).is_const() for e in v.shape) or \
                    before.get(name) == _shape_key(v):
                continue
            self.env.pop(name)
            self.loop_scoped[name] = (
                self._abs_line(node), f"its length is computed at run time "
                f"in the {kind} of that line, which the code after it "
                "cannot follow; give it one length (a fixed window), or use "
                f"it inside the {kind}", kind)

    @contextlib.contextmanager
    def narrowed(self, test, holds):
        """Inside a branch on `i > c` (`>=`, `<`, `<=`, `==`, `!=`, either
        side; `i` a loop variable, `c` an int), the interval of `i` where
        the branch runs: `if j > 0: B[j - 1]` reads from the start, not the
        end, as does the else branch of `if j == 0` (`!=` narrows where c is
        an end of the interval). Where all operands of an `and` hold (or
        none of an `or`), each narrows."""
        if isinstance(test, ast.BoolOp) and \
                isinstance(test.op, ast.And) == holds:
            with contextlib.ExitStack() as stack:
                for v in test.values:
                    stack.enter_context(self.narrowed(v, holds))
                yield
            return
        bound = None
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, right = test.left, test.comparators[0]
            op = type(test.ops[0])
            flip = {ast.Gt: ast.Lt, ast.Lt: ast.Gt, ast.GtE: ast.LtE,
                    ast.LtE: ast.GtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}
            if isinstance(left, ast.Constant) and op in flip:
                left, right, op = right, left, flip[op]
            if not holds and op in flip:
                op = {ast.Gt: ast.LtE, ast.GtE: ast.Lt, ast.Lt: ast.GtE,
                      ast.LtE: ast.Gt, ast.Eq: ast.NotEq,
                      ast.NotEq: ast.Eq}[op]
            # `i > 0`, also `i < n - 1` with n known when compiling, and
            # `i + 1 < n` or `n - i > 1` (a loop variable plus a constant).
            value = self._static_index(left) if op in flip else None
            c = self._static_int(right) if value is not None else None
            if c is not None and len(value.terms) == 1 and \
                    list(value.terms.values())[0] in (1, -1):
                (iv, a), = value.terms.items()
                if a == 1:
                    bound = (iv, op, c - value.const)
                else:  # -i + c0 op c  <=>  i flip(op) c0 - c
                    bound = (iv, flip[op], value.const - c)
        if bound is None:
            yield
            return
        iv, op, c = bound
        saved = self.iter_bounds.get(iv)
        if saved is None:
            yield
            return
        lo, hi = saved
        if op is ast.Gt:
            lo = max(lo, c + 1)
        elif op is ast.GtE:
            lo = max(lo, c)
        elif op is ast.Lt:
            hi = min(hi, c - 1)
        elif op is ast.LtE:
            hi = min(hi, c)
        elif op is ast.Eq:
            lo, hi = max(lo, c), min(hi, c)
        elif c == lo:  # != at an end of the interval
            lo += 1
        elif c == hi:
            hi -= 1
        self.iter_bounds[iv] = (lo, hi)
        try:
            yield
        finally:
            self.iter_bounds[iv] = saved

    def visit_Return(self, node):
        self.visit_return(node)

    def visit_return(self, node):
        if node.value is None:
            return
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [
            node.value]
        self.sig.returns_tuple = isinstance(node.value, ast.Tuple)
        self.sig.returns_none = False
        saved, self.current_node = self.current_node, node
        try:
            if len(values) == 1 and not self.sig.returns_tuple:
                with self.statement() as stmt:
                    value = self.eval(values[0])
                    if isinstance(value, tuple):
                        # A call's tuple (`return np.linalg.svd(A)`, a
                        # helper's results, A.shape): returned as a tuple.
                        self.sig.returns_tuple = True
                        for k, item in enumerate(value):
                            self._emit_output(k, item, values[0])
                    else:
                        self._emit_output(0, value, values[0])
                    stmt.done()
                return
            for k, v in enumerate(values):
                with self.statement() as stmt:
                    value = self.eval(v)
                    self._emit_output(k, value, v)
                    stmt.done()
        finally:
            self.current_node = saved

    def _emit_output(self, k, value, node):
        if isinstance(value, View) and value.container.kind == "arg" and \
                value.is_whole() and value.ndim > 0:
            # Its position among all parameters (the caller's arguments,
            # compile-time ones included, then the globals): param
            # containers leave out the int/bool/str ones (returning `x`
            # of `f(n, x)` gave back n).
            index = [i for i, p in enumerate(self.sig.params)
                     if p[1] == value.container.name][0]
            self.sig.outputs.append(("arg", index))
            return
        if isinstance(value, tuple):
            raise self.unsupported(node, "returning a tuple inside a tuple")
        expr = self.to_expr(value)
        shape = [self.static_extent(e, node) for e in expr.shape]
        dtype = expr.dtype
        if isinstance(value, (bool, np.bool_)):
            dtype = np.dtype(np.bool_)
        c = Container(f"%__return{k}", shape, dtype, "output", f"__return{k}")
        self.param_containers.append(c)
        self.sig.outputs.append(("array", dtype, tuple(shape)))
        self.store(c.view(), expr, cast=True)

    # ------------------------------------------------------------------
    # Statement scopes
    # ------------------------------------------------------------------

    def statement(self):
        return _Statement(self)

    def assign(self, target, value, node):
        if isinstance(target, ast.Name):
            self.assign_name(target.id, value, node)
        elif isinstance(target, ast.Subscript):
            dest = self.eval_Subscript(target, store=True)
            if isinstance(dest, Fancy):
                self.scatter(dest, value, target)
                return
            if isinstance(dest, Masked):
                self.masked_store(dest, value, target)
                return
            if not isinstance(dest, View):
                raise self.unsupported(target, "assignment into "
                                       + construct_name(target.value))
            self.store(dest, self.to_expr(value), cast=True)
        elif isinstance(target, ast.Attribute):
            raise self.unsupported(target, "attribute assignment")
        else:
            raise self.unsupported(target, "assignment target "
                                   + construct_name(target))

    def assign_name(self, name, value, node):
        if name in ("np", "numpy"):
            raise self.error(f"cannot assign to '{name}'", node)
        count = self.assign_counts.get(name, 0)
        existing = self.env.get(name)
        if isinstance(value, str) or value is None:
            # A mode or an option (`kind = MODE if kind is None else
            # kind`): a compile-time value, bound where the binding is
            # static.
            if count <= 1 or name in self.assign_counts.get(STRAIGHT, ()):
                self.env[name] = value
                return
            raise self.unsupported(node, "string or None rebound in a loop "
                                   "or branch", "bind each mode once")
        if isinstance(value, Unavailable):
            # Bound by unpacking (`x, res, rank, s = np.linalg.lstsq(...)`):
            # an error where it is used.
            self.env[name] = value
            return
        if isinstance(value, (callables.LocalLambda,
                              callables.UserFunction,
                              callables.NumpyFunction)):
            # `g = lambda z: ...`, `f = rhs`, `act = np.tanh`: calls of the
            # name are inlined (or are the NumPy function's).
            if count > 1:
                raise self.unsupported(
                    node, f"'{name}' bound to a function and assigned again",
                    "bind each function to a name of its own, once")
            self.env[name] = value
            return
        # Integers and bools assigned once, or only by straight-line
        # statements of the function's top level, are compile-time or
        # symbolic values (sizes, index arithmetic): no container needed.
        once = count <= 1 or (
            name in self.assign_counts.get(STRAIGHT, ()) and
            not isinstance(existing, (View, Expr)))
        if isinstance(value, (int, bool, np.integer, np.bool_, Idx)) and \
                once and name not in self.var_containers and \
                not isinstance(existing, View):
            self.env[name] = value
            return
        if isinstance(value, float) and once and self.loop_depth == 0 \
                and name not in self.var_containers:
            self.env[name] = value
            return
        if isinstance(value, (tuple, list, slice)):
            # Python's own values, bound at translation time: a list (of a
            # literal or a comprehension) is read, never changed.
            kind = type(value).__name__
            if count <= 1:
                self.env[name] = value
                return
            raise self.unsupported(node, f"reassigned {kind} variable",
                                   f"a {kind} may be assigned once")
        if isinstance(value, ViewLeaf) and getattr(value.view, "fresh", False):
            # A library op's fresh result (`E = A @ B`): the name adopts the
            # array instead of copying it.
            value = value.view
        helper = getattr(value, "may_alias", None)
        if helper is not None and name in self.inplace_names:
            raise self.unsupported(
                node, "updating in place what a function may return as "
                "its argument",
                f"{helper}() binds its result to an array it was passed "
                "and rebinds it in a loop or branch, so NumPy's result may "
                f"be that array itself, which '{name}' would then update; "
                f"take a copy ('{name} = {helper}(...).copy()')")
        if isinstance(value, View) and value.ndim > 0 and \
                not getattr(value, "fresh", False) and \
                name in self.assign_counts.get(STATIC, ()) and \
                self._owner(value, name) is None:
            # Every binding of the name is a statement of the function's
            # top level, translated once and in order: the name moves to
            # the array, as Python's does (`a = x; a *= 2; a = y` updates
            # x), and leaves the array it owned to its other names.
            self.var_containers.pop(name, None)
            self.env[name] = value
            return
        if isinstance(value, View) and _is_array(value) and \
                name not in self.var_containers:
            # Augmented assignments update arrays in place: they do not
            # rebind the name.
            rebinds = self.rebind_counts.get(name, 0)
            fresh = getattr(value, "fresh", False)
            # The first name bound to a new array owns it; a later `b = a`
            # is an alias, never a second owner.
            value.fresh = False
            # The variable owning the container, when it is rebound: its
            # rebindings store into the container (one container per
            # variable), which an alias must not see.
            owner = self._owner(value, name)
            if fresh and value.is_whole():
                # A new array (np.zeros, a copy...): the name adopts it.
                self.var_containers[name] = value.container
                self.env[name] = value
                return
            if getattr(node, "sdfg_element", False) and owner is None:
                # `for row in A`: each iteration's row is a view of A
                # (iteration.py), rebound at the top of the body.
                self.env[name] = value
                return
            if rebinds <= 1 and owner is None:
                # `B = A[1:]` or `B = A`: an alias, as in NumPy.
                self.env[name] = value
                return
            if owner is None and value.is_whole() and \
                    self._rebound_only_by_swaps(name, node):
                # `a, b = x, y; for ...: a += b; a, b = b, a`: the loop's
                # swaps permute the names' arrays (visit_permuting_for), so
                # the name may alias its array, as in Python.
                self.env[name] = value
                return
            if owner is None and self._aliased_per_iteration(name, value):
                # `for k in range(n): s = S[k]; s *= dt`: bound anew at each
                # iteration before any read, at a position of the loops'
                # iterators: an alias, as in NumPy.
                self.env[name] = value
                return
            if name in self.inplace_names:
                rebound = name if rebinds > 1 else owner
                raise self.unsupported(
                    node, "alias of a rebound array updated in place",
                    f"'{name}' names the array of another variable, is "
                    f"updated in place, and '{rebound}' is rebound later; "
                    f"write '{name} = ....copy()' if '{name}' should be a "
                    "copy")
        if isinstance(value, View) and value.ndim > 0 and \
                self.var_containers.get(name) is not value.container:
            self._check_rebinding_copy(name, value, node)
        self.store_variable(name, self.to_expr(value), node)

    def store_variable(self, name, expr, node):
        """Stores `expr` into variable `name`'s own container (made on the
        first assignment) and binds the name to it."""
        container = self.var_containers.get(name)
        shape = [self.upper_extent(e, node) for e in expr.shape]
        if container is not None and container in self.reshaped:
            # The name held a reshape (NumPy's view of the original, whose
            # writes are rejected); rebound, it holds a new array in NumPy,
            # so the container is the name's own from here on, unless
            # another name still views the reshape.
            others = self._names_viewing(container, besides=name)
            if not others:
                self.reshaped.discard(container)
            elif self.loop_depth == 0 and not self.constructs:
                container = None
            else:
                raise self.unsupported(
                    node, "rebinding a reshaped array another name views",
                    f"'{others[0]}' views the reshape '{name}' holds; "
                    f"rebind '{name}' under a new name")
        if container is not None and not self._holds(container, shape, expr):
            if self.loop_depth > 0 and not self._fresh_each_iteration(name):
                # One translation of the body stores every iteration's (or
                # branch's) value into one container.
                fix = "use a new name for the new value"
                if shape and not container.shape:
                    fix = (f"start '{name}' as an array of that shape "
                           f"(np.zeros_like or np.full) before the loop or "
                           f"branch, or use a new name for the new value")
                error = self.unsupported(
                    node, f"variable '{name}' changing shape or type in a "
                    "loop or branch",
                    f"'{name}' holds {_describe(container.shape, container.dtype)} "
                    f"and is assigned {_describe(shape, expr.dtype)} here; "
                    + fix)
                if not shape and not container.shape and \
                        _widens(container.dtype, expr.dtype):
                    raise _Widen(name, error)
                since = self.constructs[getattr(container, "depth", 0):]
                if shape and not container.shape and since and \
                        since[0][2] and not since[0][1]:
                    # `s = 0.0; for k in range(n): s = s + c[k] * x ** k`:
                    # NumPy's s is an array from the first iteration on.
                    # The first loop entered since its binding surely runs:
                    # its first iteration, peeled off as straight-line code,
                    # rebinds s to an array, which the loop over the other
                    # iterations then carries (reads in the first iteration
                    # see the scalar, as NumPy's).
                    raise _Widen(name, error, peel=since[0][0])
                raise error
            # Straight-line code: the name moves to a new array, as in
            # NumPy (`h = np.tanh(h @ W)` with W not square).
            container = None
        if container is None:
            dtype = expr.dtype
            if name in self.widened and not shape and dtype != np.float64:
                # NumPy's scalar becomes a float64 at the loop's first
                # float64 assignment (an int, or a float32 scalar plus a
                # Python float); here it is one from the start (a loop
                # that never runs leaves 0.0 for NumPy's int 0).
                dtype = np.dtype(np.float64)
            container = self.new_transient(shape, dtype, name)
            container.depth = len(self.constructs)
            self.var_containers[name] = container
        view = container.view()
        if expr.shape:
            view.shape = list(expr.shape)
        self.store(view, expr, cast=True)
        self.env[name] = view

    def closure_reads(self, stmts):
        """The names the program's own functions and lambdas called in
        `stmts` read from their defining scope (a read there happens
        before the statement's own assignment: `s = add(k)` with `add`
        reading s carries s)."""
        names, seen = set(), set()
        todo = [n for st in stmts for n in ast.walk(st)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
        while todo:
            call = todo.pop()
            fn = self.env.get(call.func.id)
            if not isinstance(fn, (callables.LocalFunction,
                                   callables.LocalLambda)) or \
                    id(fn) in seen:
                continue
            seen.add(id(fn))
            for n in ast.walk(fn.node):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                    names.add(n.id)
                elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                    todo.append(n)
        return names

    def _fresh_each_iteration(self, name):
        """Whether a variable may move to a new container inside the loops
        around: every one of them surely runs (for loops of constant trip
        count >= 1, no branch) and binds `name` anew before reading it, so
        each iteration's bindings follow the same containers in the same
        order (`for t ...: acc = 0.0; for k ...: acc = acc + u * k`) and
        after the loops the name holds the last one, as in NumPy."""
        constructs, depth = self.scope_base
        inner = self.constructs[constructs:]
        return len(inner) == self.loop_depth - depth and all(
            is_for and not maybe and name not in carried
            for _, maybe, is_for, carried in inner)

    def _holds(self, container, shape, expr):
        """Whether a variable's container can take a new value of `shape`
        (upper extents) and expr's type: the same rank, no extent larger,
        and for an array the same dtype (a scalar converts, as before)."""
        if len(container.shape) != len(shape) or any(
                n > c for n, c in zip(shape, container.shape)):
            return False
        if shape and container.dtype != expr.dtype:
            return False
        return not _widens(container.dtype, expr.dtype)

    # ------------------------------------------------------------------
    # Containers
    # ------------------------------------------------------------------

    def new_transient(self, shape, dtype, hint="tmp"):
        if any(isinstance(e, (int, np.integer)) and e < 0 for e in shape):
            raise self.error("negative dimensions are not allowed")
        ssa = self.em.fresh("T")
        clean = "".join(ch if ch.isalnum() else "_" for ch in hint)
        c = Container(ssa, shape, dtype, "transient", clean)
        c.serial = self.em.counter  # when it was made (_inline's results)
        # A unique name (the variable's, numbered when it is rebound or
        # shadows an argument) for reports and `recompute=`.
        if not hasattr(self, "_transient_names"):
            self._transient_names = set(_param_names(self.fdef.args))
        name, k = clean, 0
        while name in self._transient_names:
            k += 1
            name = f"{clean}_{k}"
        self._transient_names.add(name)
        self.em.alloc(
            f"{ssa} = sdfg.alloc() {{name = \"{name}\"}} : {c.mlir_type}")
        return c

    def transient_view(self, shape, dtype, node, hint="tmp"):
        """A transient holding `shape` (Idx extents, maybe symbolic)."""
        if any(as_idx(e).is_const() and as_idx(e).const < 0 for e in shape):
            # np.zeros(-5), np.empty((n, -1)): NumPy's ValueError, here
            # when compiling.
            raise self.error("negative dimensions are not allowed", node)
        static = [self.upper_extent(e, node) for e in shape]
        total = 1
        for e in static:
            total *= e
        if total * np.dtype(dtype).itemsize > MAX_CONTAINER_BYTES:
            raise self.error(
                f"array of shape {tuple(static)} and dtype "
                f"{np.dtype(dtype)} is too large: {total} elements do not "
                "fit in memory (the limit is 2^62 bytes)", node)
        exact = all(as_idx(e).is_const() for e in shape)
        if total > MAX_TRANSIENT_ELEMENTS and not exact:
            raise self.unsupported(
                node, "array whose size depends on runtime data",
                "its size cannot be bounded at compile time (compute it from "
                "argument shapes or int arguments instead)")
        c = self.new_transient(static, dtype, hint)
        v = c.view()
        v.shape = [as_idx(e) for e in shape]
        v.fresh = True
        return v

    def materialize(self, expr, node, hint="tmp"):
        expr = self.to_expr(expr)
        if isinstance(expr, ViewLeaf):
            return expr.view
        v = self.transient_view(expr.shape, expr.dtype, node, hint)
        self.store(v, expr)
        return v

    def snapshot(self, expr, node, hint="snapshot"):
        """A new transient holding `expr`'s value now, even when `expr` is
        a plain view (materialize would return the view itself)."""
        expr = self.to_expr(expr)
        v = self.transient_view(expr.shape, expr.dtype, node, hint)
        self.store(v, expr)
        return v

    def materialize_if_view(self, value):
        """Snapshots a value that reads variables, so that the assignments
        of a tuple assignment do not see each other's effects (`a, b = b,
        a` must copy both before either store)."""
        if isinstance(value, View):
            if value.ndim == 0:
                return ScalarLeafCopy(self, ViewLeaf(value))
            return self.snapshot(ViewLeaf(value), self.current_node)
        if isinstance(value, Expr) and not isinstance(value, ConstLeaf):
            if not value.shape:
                return ScalarLeafCopy(self, value)
            v = self.transient_view(value.shape, value.dtype,
                                    self.current_node, "snapshot")
            self.store(v, value)
            return v
        return value

    # ------------------------------------------------------------------
    # Bounds of index expressions
    # ------------------------------------------------------------------

    def interval(self, idx):
        """Inclusive (lo, hi) ints bounding an Idx over all iterations."""
        idx = as_idx(idx)
        lo = hi = idx.const
        for name, c in idx.terms.items():
            b = self.iter_bounds.get(name)
            if b is None:
                raise self.error("cannot bound the index value "
                                 f"{idx.render()}")
            blo, bhi = b
            if c > 0:
                lo += c * blo
                hi += c * bhi
            else:
                lo += c * bhi
                hi += c * blo
        return lo, hi

    def upper_extent(self, extent, node):
        lo, hi = self.interval(extent)
        return max(hi, 0)

    def static_extent(self, extent, node):
        extent = as_idx(extent)
        if not extent.is_const():
            raise self.unsupported(node, "array with a loop-dependent shape",
                                   "returned arrays need a shape known at "
                                   "compile time")
        return extent.const

    # ------------------------------------------------------------------
    # Stores (one map per statement)
    # ------------------------------------------------------------------

    def store(self, dest, expr, cast=True, wcr=None):
        if dest.container in self.reshaped:
            raise self.unsupported(
                self.current_node, "writing into a reshaped array",
                "NumPy's reshape is a view, so the write would change the "
                "original array too; reshape after writing, or write "
                "into .reshape(...).copy()")
        self._check_reshape_sources(dest.container)
        if dest.readonly:
            raise self.error("assignment destination is read-only (NumPy's "
                             "diagonal is a read-only view; write through "
                             "np.fill_diagonal or index the array)",
                             self.current_node)
        expr = self.to_expr(expr)
        if cast and isinstance(expr, ConstLeaf) and is_float(expr.dtype) \
                and np.dtype(dest.dtype).kind in "iu":
            expr = self._integer_constant(expr.value, dest.dtype)
        shape = self.check_broadcast(expr.shape, dest.shape)
        if self.conflicts(dest, expr):
            # A copy first, even of a plain view: `a[1:] = a[:-1]` would
            # otherwise read what it has just written.
            expr = ViewLeaf(self.snapshot(expr, self.current_node, "tmp"))
        rank = dest.ndim
        if rank == 0:
            val = self.emit_scalar(expr, [], 0, dest.dtype)
            self.emit_store(val, dest, [], wcr)
            return
        with self.open_map(shape, self.schedule_for(shape, wcr)) as coords:
            val = self.emit_scalar(expr, coords, rank, dest.dtype, shape)
            self.emit_store(val, dest, coords, wcr)

    def _integer_constant(self, value, dtype):
        """A float constant stored into an integer array, as NumPy converts
        it (through a Python int, wrapping to the array's width): NaN,
        infinities and values beyond int64 are NumPy's errors. (LLVM's
        conversion of such a constant is poison: the store vanished.)"""
        v = float(value)
        if math.isnan(v):
            raise self.error("cannot convert float NaN to integer",
                             self.current_node)
        if math.isinf(v):
            raise self.error("cannot convert float infinity to integer",
                             self.current_node)
        iv = int(v)
        if not -2 ** 63 <= iv < 2 ** 63:
            raise self.error("Python int too large to convert to C long",
                             self.current_node)
        bits = np.dtype(dtype).itemsize * 8
        if np.dtype(dtype).kind == "u":
            iv %= 2 ** bits
        else:
            iv = (iv + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)
        return ConstLeaf(iv, dtype)

    @contextlib.contextmanager
    def open_map(self, shape, schedule):
        """Emits an sdfg.map over `0 <= p < extent` per extent of `shape`
        and yields the coordinates (Idx of its parameters) in its body."""
        params = [self.em.fresh("p") for _ in shape]
        for p, e in zip(params, shape):
            self.iter_bounds[p] = (0, self.upper_extent(e, None) - 1)
        header = (f"sdfg.map ({', '.join(params)}) = "
                  f"({', '.join('0' for _ in params)}) to "
                  f"({', '.join(as_idx(e).render() for e in shape)}) step "
                  f"({', '.join('1' for _ in params)}) schedule({schedule})")
        with self.em.block(header):
            yield [Idx.of(p) for p in params]

    def schedule_for(self, shape, wcr):
        if self.device != "cpu":
            return "cpu_multicore"
        if wcr is not None:
            return "sequential"
        total = 1
        for e in shape:
            total *= max(self.upper_extent(e, None), 0)
        return "cpu_multicore" if total >= PARALLEL_THRESHOLD else \
            "sequential"

    def emit_store(self, val, dest, coords, wcr=None):
        idx = ", ".join(i.render() for i in dest.indices(coords))
        w = f" wcr({wcr})" if wcr else ""
        self.em.line(f"sdfg.store {val}, {dest.container.ssa}[{idx}]{w} : "
                     f"{dest.container.mlir_type}")

    def check_broadcast(self, src, dst):
        """The shape to iterate over to assign a value of shape `src` into
        `dst`: `dst`, where an extent known only at run time takes the
        result of an sdfg.broadcast_extent (NumPy's ValueError, when the
        program runs, where the extents do not broadcast)."""
        if len(src) > len(dst):
            raise self.error(f"cannot broadcast shape {fmt_shape(src)} into "
                             f"{fmt_shape(dst)}")
        shape = list(dst)
        for k in range(1, len(src) + 1):
            s, d = src[-k], dst[-k]
            if same_extent(s, d) or same_extent(s, 1):
                continue
            if as_idx(s).is_const() and as_idx(d).is_const():
                raise self.error(f"shape mismatch: cannot broadcast "
                                 f"{fmt_shape(src)} into {fmt_shape(dst)}")
            shape[-k] = self.broadcast_extent("assign", s, d)
        return shape

    def broadcast_extent(self, kind, a, b):
        """NumPy's broadcast of extents `a` and `b` that compiling cannot
        compare (windows clamped at an array's end, bounds read from
        data): an sdfg.broadcast_extent, emitted with the slice bounds
        before the statement's state. Where they do not broadcast, the
        program reports NumPy's ValueError and the result is the smaller
        extent, which no access sized by it can leave."""
        a, b = as_idx(a), as_idx(b)
        key = ("broadcast", kind, _idx_key(a), _idx_key(b))
        with self.index_place():
            memo = self._index_memo(key)
            if memo is not None:
                return memo
            name = self.em.fresh("b")
            self.em.line(f"{name} = sdfg.broadcast_extent {kind} "
                         f"{self.index_ssa(a)}, {self.index_ssa(b)}")
            self._remember_index(key, name)
        try:
            (alo, ahi), (blo, bhi) = self.interval(a), self.interval(b)
        except FrontendError:
            pass  # unbounded, as its operands
        else:
            if kind == "assign":
                bounds = (min(alo, blo), bhi)
            else:
                # a where b is 1 or equal to it, b where a is 1, else
                # the smaller.
                hi = ahi if blo <= 1 else min(ahi, bhi)
                if alo <= 1:
                    hi = max(hi, bhi)
                bounds = (min(alo, blo), hi)
            self.iter_bounds[name] = bounds
        if self.is_data_index(a) or self.is_data_index(b):
            self.data_names.add(name)
        return Idx.of(name)

    def index_ssa(self, idx):
        """An SSA index name holding `idx`: its one term, or a tasklet."""
        idx = as_idx(idx)
        if idx.const == 0 and len(idx.terms) == 1 and \
                next(iter(idx.terms.values())) == 1:
            return next(iter(idx.terms))
        names = sorted(idx.terms)

        def body(tb, args):
            return [tb.index_value(idx, dict(zip(names, args)))]

        (name,) = self.em.tasklet([(n, "index") for n in names], ["index"],
                                  body)
        return name

    def conflicts(self, dest, expr):
        """Whether evaluating `expr` element by element while storing into
        `dest` could read an element another iteration already wrote."""
        for leaf in expr_leaves(expr):
            if isinstance(leaf, FancyLeaf):
                # Where a gather reads depends on data.
                if leaf.reads(dest.container):
                    return True
                continue
            if not isinstance(leaf, ViewLeaf):
                continue
            v = leaf.view
            if v.container is not dest.container:
                continue
            if self.same_mapping(v, dest, len(expr.shape)):
                continue
            if self.disjoint(v, dest):
                continue
            return True
        return False

    def same_mapping(self, v, dest, expr_rank):
        rank = dest.ndim
        coords = [Idx.of(f"%__c{k}") for k in range(rank)]
        leaf_coords = _broadcast_coords(v.shape, coords, rank)
        return v.indices(leaf_coords) == dest.indices(coords)

    def disjoint(self, a, b):
        ra, rb = self.footprint(a), self.footprint(b)
        if ra is None or rb is None:
            return False
        for (alo, ahi), (blo, bhi) in zip(ra, rb):
            if _provably_less(ahi, blo, self) or _provably_less(bhi, alo,
                                                                 self):
                return True
        return False

    def footprint(self, view):
        """Per container dimension, (lo, hi) Idx of the indices touched."""
        out = []
        for offset, stride, vdim in view.base:
            if vdim is None:
                out.append((offset, offset))
                continue
            last = offset + (as_idx(view.shape[vdim]) - 1).scale(stride)
            out.append((offset, last) if stride > 0 else (last, offset))
        return out

    # ------------------------------------------------------------------
    # Element computation: loads + one tasklet
    # ------------------------------------------------------------------

    def emit_scalar(self, expr, coords, rank, out_dtype=None, shape=None):
        """Emits the loads and the tasklet computing `expr` at `coords`
        (coordinates of the output, of length `rank`, whose extents are
        `shape` when they may differ from expr's); returns the SSA name
        of the result, converted to `out_dtype` when given."""
        out_dtype = np.dtype(out_dtype) if out_dtype is not None else \
            expr.dtype
        inputs = []
        arg_of = {}
        # An expression may share subexpressions (a DAG: np.interp's
        # fallbacks read the same value several times); each is loaded and
        # computed once.
        seen = set()
        clamps = {}

        def broadcast(coords_here, inner, outer):
            """The coordinates of an operand of shape `inner` in a result
            of shape `outer`. Extents that differ where compiling cannot
            compare them went through sdfg.broadcast_extent; an operand's
            extent that may be 1 there is read at min(i, extent - 1):
            NumPy's broadcast of a length-1 axis (elsewhere the extents
            agree or the program reports their mismatch)."""
            out = list(coords_here)
            for k in range(1, min(len(inner), len(outer)) + 1):
                e, o = as_idx(inner[-k]), outer[-k]
                if same_extent(e, o) or same_extent(e, 1) or \
                        not self._may_be_one(e):
                    continue
                key = (_idx_key(out[rank - k]), _idx_key(e))
                if key not in clamps:
                    clamps[key] = self._clamp_coordinate(out[rank - k], e)
                out[rank - k] = clamps[key]
            return out

        def gather(root, root_coords):
            # Depth first, each operand before the next (as a recursion
            # would, but with a stack: an expression may be a chain of
            # thousands of operations). An operand's coordinates are made
            # when it is reached.
            stack = [(root, root_coords, None)]
            while stack:
                e, coords_here, outer = stack.pop()
                if outer is not None:
                    coords_here = broadcast(coords_here, e.shape, outer)
                gather_one(e, coords_here, stack)

        def gather_one(e, coords_here, stack):
            if id(e) in seen:
                return
            seen.add(id(e))
            if isinstance(e, FancyLeaf):
                lc = _broadcast_coords(e.shape, coords_here, rank)
                name = self.load_fancy(e.fancy, lc)
                arg_of[id(e)] = len(inputs)
                inputs.append((name, mlir_scalar(e.dtype)))
            elif isinstance(e, ViewLeaf):
                lc = _broadcast_coords(e.view.shape, coords_here, rank)
                idx = ", ".join(i.render() for i in e.view.indices(lc))
                name = self.em.fresh("l")
                c = e.view.container
                self.em.line(f"{name} = sdfg.load {c.ssa}[{idx}] : "
                             f"{c.mlir_type}")
                arg_of[id(e)] = len(inputs)
                inputs.append((name, mlir_scalar(c.dtype)))
            elif isinstance(e, ScalarLeaf):
                arg_of[id(e)] = len(inputs)
                inputs.append((e.ssa, mlir_scalar(e.dtype)))
            elif isinstance(e, IdxLeaf):
                for n in sorted(e.idx.terms):
                    if ("idx", n) not in arg_of:
                        arg_of[("idx", n)] = len(inputs)
                        inputs.append((n, "index"))
            elif isinstance(e, Op):
                stack.extend((a, coords_here, e.shape)
                             for a in reversed(e.args))

        gather(expr, coords if shape is None else
               broadcast(coords, expr.shape, shape))
        if isinstance(expr, (ViewLeaf, ScalarLeaf, FancyLeaf)) and \
                expr.dtype == out_dtype:
            return inputs[0][0]

        def body(tb, args):
            done = {}

            def gen(root):
                # Operands first, left to right, each once (iteratively:
                # see gather).
                stack = [root]
                while stack:
                    e = stack[-1]
                    if id(e) in done:
                        stack.pop()
                        continue
                    if isinstance(e, Op):
                        pending = [a for a in e.args if id(a) not in done]
                        if pending:
                            stack.extend(reversed(pending))
                            continue
                    stack.pop()
                    done[id(e)] = gen_new(e)
                return done[id(root)]

            def gen_new(e):
                if isinstance(e, (ViewLeaf, ScalarLeaf, FancyLeaf)):
                    return args[arg_of[id(e)]]
                if isinstance(e, ConstLeaf):
                    return tb.const(e.value, e.dtype)
                if isinstance(e, IdxLeaf):
                    acc = tb.index_value(e.idx, {
                        n: args[arg_of[("idx", n)]] for n in e.idx.terms})
                    return tb.index_to(acc, np.int64)
                return scalar_ops.gen_op(tb, e,
                                          [done[id(a)] for a in e.args],
                                          [a.dtype for a in e.args])
            result = gen(expr)
            return [tb.convert(result, expr.dtype, out_dtype)]

        return self.em.tasklet(inputs, [mlir_scalar(out_dtype)], body)[0]

    def _may_be_one(self, extent):
        try:
            lo, hi = self.interval(extent)
        except FrontendError:
            return True
        return lo <= 1 <= hi

    def _clamp_coordinate(self, p, extent):
        """min(p, extent - 1), in a tasklet where the element is read."""
        p, extent = as_idx(p), as_idx(extent)
        names = sorted(set(p.terms) | set(extent.terms))

        def body(tb, args):
            arg_of = dict(zip(names, args))
            return [tb.op(f"arith.minsi {tb.index_value(p, arg_of)}, "
                          f"{tb.index_value(extent - 1, arg_of)}", "index")]

        (name,) = self.em.tasklet([(n, "index") for n in names], ["index"],
                                  body)
        try:
            lo, hi = self.interval(p)
            self.iter_bounds[name] = (min(lo, 0), hi)
        except FrontendError:
            pass
        if self.is_data_index(p) or self.is_data_index(extent):
            self.data_names.add(name)
        return Idx.of(name)

    # ------------------------------------------------------------------
    # Scalars at control level (conditions, bounds)
    # ------------------------------------------------------------------

    def control_scalar(self, value, dtype):
        """SSA name of a scalar computed in the current control region."""
        expr = self.to_expr(value)
        if expr.shape and not all(same_extent(e, 1) for e in expr.shape):
            raise self.error("the truth value of an array is ambiguous; use "
                             ".any() or .all() (not supported) or index an "
                             "element")
        with self.em.capture() as buf:
            val = self.emit_scalar(expr, [], len(expr.shape), dtype)
        if not buf.dataflow:
            self.em.splice(buf)
            return val
        # The value was computed with maps: keep it in a 0-d transient and
        # read it back in the control region.
        tmp = self.new_transient([], dtype, "cond")
        with self.em.block("sdfg.state"):
            self.em.splice(buf)
            self.emit_store(val, tmp.view(), [])
        name = self.em.fresh("l")
        self.em.line(f"{name} = sdfg.load {tmp.ssa}[] : {tmp.mlir_type}")
        return name

    def control_index(self, value, node):
        """An Idx for `value` usable in the current control region."""
        if isinstance(value, (bool, np.bool_)):
            return Idx(int(value))
        if isinstance(value, (int, np.integer)):
            return Idx(int(value))
        if isinstance(value, Idx):
            return value
        expr = self.to_expr(value)
        if is_float(expr.dtype):
            raise self.error("expected an integer, got a float", node)
        if expr.shape:
            raise self.unsupported(node, "array used as an integer",
                                   "a range bound, a slice bound or a "
                                   "scalar index must be a single integer")
        return Idx.of(self.index_from(self.control_scalar(expr, np.int64)))

    def index_from(self, value):
        """The SSA name of the i64 SSA `value`, read from data, as an
        index (a data name: its sign is known only at run time)."""
        (name,) = self.em.tasklet(
            [(value, "i64")], ["index"],
            lambda tb, args: [tb.index_from_i64(args[0])])
        lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
        self.iter_bounds[name] = (lo, hi)
        self.data_names.add(name)
        return name

    # ------------------------------------------------------------------
    # Expressions
    # ------------------------------------------------------------------

    def eval(self, node):
        saved = self.current_node
        self.current_node = node
        try:
            method = getattr(self, "eval_" + type(node).__name__, None)
            if method is None:
                raise self.unsupported(node, construct_name(node))
            return method(node)
        finally:
            self.current_node = saved

    def lookup(self, name, node):
        if name in self.env:
            return self.env[name]
        if name in self.globals:
            g = self.globals[name]
        elif hasattr(builtins, name):
            g = getattr(builtins, name)
        elif name in self.loop_scoped:
            line = self.loop_scoped[name]
            why = ("its shape or position depends on the loop's iterator, "
                   "whose last value is not known when compiling; copy it "
                   "into an array of a fixed shape inside the loop")
            kind = "loop"
            if isinstance(line, tuple):
                line, why, *rest = line
                kind = rest[0] if rest else kind
            raise self.unsupported(
                node, f"'{name}' after the {kind} of line {line}", why)
        else:
            raise self.error(f"name '{name}' is not defined", node)
        return self._python_value(name, g, node)

    def eval_Constant(self, node):
        v = node.value
        if isinstance(v, (bool, int, float)):
            return v
        if v is None:
            return None
        if isinstance(v, str):
            return v  # np.einsum's subscripts; to_expr refuses it elsewhere
        if isinstance(v, Idx):
            return v  # a slice object's bound (Indexing.slice_items)
        raise self.unsupported(node, f"constant {type(v).__name__}")

    def eval_Name(self, node):
        return self.lookup(node.id, node)

    def eval_Tuple(self, node):
        return tuple(self.eval(e) for e in node.elts)

    def eval_List(self, node):
        # Lists of arrays are arguments of np.concatenate and np.stack;
        # nothing else takes one (to_expr refuses it).
        return [self.eval(e) for e in node.elts]

    def eval_ListComp(self, node):
        return comprehensions.unroll(self, node)

    eval_GeneratorExp = eval_ListComp

    def eval_Attribute(self, node):
        base = self.eval(node.value)
        attr = node.attr
        if base is NUMPY:
            return numpy_functions.numpy_attribute(self, attr, node)
        if isinstance(base, ModuleRef):
            # `params.W`, `layers.dense(x)`: a module of the program's own
            # (arrays are passed at each call, functions inlined).
            module = base.module
            if not hasattr(module, attr):
                raise self.error(f"module '{module.__name__}' has no "
                                 f"attribute '{attr}'", node)
            if module.__name__ not in sys.modules or sys.modules[
                    module.__name__] is not module:
                raise self.unsupported(node, f"attribute of module "
                                       f"'{module.__name__}'",
                                       "the module is not imported under "
                                       "its own name")
            return self._python_value(attr, getattr(module, attr), node,
                                      module=module.__name__)
        if base is python_math.MATH:
            return python_math.math_attribute(self, attr, node)
        if isinstance(base, View):
            if attr == "shape":
                return tuple(self._shape_value(e) for e in base.shape)
            if attr == "T":
                return base.transpose()
            if attr == "ndim":
                return base.ndim
            if attr == "size":
                return numpy_functions.element_count(self, base.shape, node,
                                                 "size")
            if attr == "dtype":
                return base.dtype.type
            return callables.BoundMethod(base, attr)
        if isinstance(base, Masked) and attr in ("sum", "mean", "prod"):
            return callables.BoundMethod(base, attr)
        if isinstance(base, callables.NumpyFunction) and \
                base.name == "linalg":
            if numpy_functions.is_numpy_function("linalg." + attr):
                return callables.NumpyFunction("linalg." + attr)
            raise self.unsupported(node, f"np.linalg.{attr}",
                                   "of np.linalg only norm, solve, inv, det, "
                                   "slogdet, cholesky, eigh, eigvalsh, qr, "
                                   "svd, pinv, cond, matrix_rank, lstsq, "
                                   "matrix_power and multi_dot are "
                                   "supported")
        if isinstance(base, callables.NumpyFunction) and attr == "at" \
                and base.name in ("add", "subtract"):
            return callables.NumpyFunction(base.name + ".at")
        if isinstance(base, callables.NumpyFunction) and attr in (
                "outer", "reduce", "accumulate") and isinstance(
                    getattr(np, base.name, None), np.ufunc):
            return callables.NumpyFunction(f"{base.name}.{attr}")
        if isinstance(base, Expr):
            if attr == "shape":
                return tuple(self._shape_value(e) for e in base.shape)
            if attr == "T":
                return self.materialize(base, node).transpose()
            if attr == "dtype":
                return base.dtype.type
            return callables.BoundMethod(base, attr)
        dtype = numpy_functions.as_dtype(base)
        if dtype is not None and attr in ("kind", "itemsize", "name", "char",
                                          "type"):
            # `x.dtype.kind == "f"`: known when compiling.
            return getattr(dtype, attr)
        raise self.unsupported(node, f"attribute '{attr}'")

    def _shape_value(self, e):
        e = as_idx(e)
        return e.const if e.is_const() else e

    @contextlib.contextmanager
    def control_section(self):
        """Emits control flow (loops) in the middle of a statement: what
        the statement emitted so far goes before it, in its own state."""
        stmt = self.statements[-1]
        if stmt.trial:
            raise _TrialAbort()  # control flow: not evaluated on trial
        stmt.flush()
        em = self.em
        inner, inner_indent = em.buffer, em.indent
        em.buffer, em.indent = stmt.outer, stmt.outer_indent
        try:
            yield
        finally:
            em.buffer, em.indent = inner, inner_indent

    @contextlib.contextmanager
    def index_section(self):
        """Emits index arithmetic (slice bounds, their loads from data)
        before the state of the statement being translated rather than in
        it: the shape of a variable may name those values, and the later
        statements that read the variable are other states. Yields whether
        it did (the values then stay visible for the rest of the enclosing
        region). Inside a nested block (a map) nothing moves."""
        em = self.em
        stmt = self.statements[-1] if self.statements else None
        if stmt is None or em.buffer is not stmt.buf:
            yield False
            return
        inner, inner_indent = em.buffer, em.indent
        em.buffer, em.indent = stmt.outer, stmt.outer_indent
        try:
            yield True
        finally:
            em.buffer, em.indent = inner, inner_indent

    def eval_IfExp(self, node):
        test = self.eval(node.test)
        if test is None or isinstance(test, str):
            test = bool(test)
        if isinstance(test, (bool, int, float)):
            return self.eval(node.body if test else node.orelse)
        self.check_scalar_choice(self.to_expr(test), None, node)
        chosen = eager = None
        if reads_or_calls(node.body) or reads_or_calls(node.orelse):
            # Both branches as np.where when that checks nothing at run
            # time (their reads provably in range): no control flow, and
            # a gradient without a taped branch per execution. Else (and
            # for calls of the program's functions, which may write) only
            # the branch taken, as Python.
            if not (self._calls_user_code(node.body) or
                    self._calls_user_code(node.orelse)):
                eager = self.eager_if_clean(lambda: (
                    self._eval_narrowed(node.body, node.test, True),
                    self._eval_narrowed(node.orelse, node.test, False)))
            if eager is None:
                chosen = self.branch_values(
                    test, node.test, lambda: self.eval(node.body),
                    lambda: self.eval(node.orelse), node)
        if chosen is not None:
            test, (body, orelse), values = chosen
        else:
            body, orelse = eager or (
                self._eval_narrowed(node.body, node.test, True),
                self._eval_narrowed(node.orelse, node.test, False))
            values = (body, orelse)
        # `a = x if c > 0 else y` names x or y in NumPy; here it is a new
        # array holding one of them. Rejected where that shows: either
        # array, or the name it is bound to, updated in place.
        arrays = [v for v in (body, orelse)
                  if isinstance(v, View) and v.ndim > 0]
        shapes = [list(v.shape) for v in (body, orelse)
                  if isinstance(v, (View, Expr)) and len(v.shape) > 0]
        if len(shapes) == 2 and (len(shapes[0]) != len(shapes[1]) or not all(
                same_extent(a, b) for a, b in zip(*shapes))):
            raise self.unsupported(
                node, "choosing at run time between arrays whose shapes may "
                "differ", "the two arrays' lengths are known only at run "
                "time and may differ, which one translation cannot follow; "
                "choose between arrays of one shape, or use each array in "
                "its own branch of an if statement")
        if arrays:
            names = {n for a in arrays
                     for n in self._names_viewing(a.container)}
            target = self._assigned_from(node)
            updated = sorted(n for n in names | {target}
                             if n in self.inplace_names)
            if updated:
                raise self.unsupported(
                    node, "choosing between arrays at run time",
                    f"NumPy's result is one of the arrays themselves, and "
                    f"'{updated[0]}' is updated in place, which would show "
                    "through the other name; choose with np.where (a new "
                    "array) or copy the chosen array")
        return numpy_functions.where(self, test, *values, node)

    def eager_if_clean(self, thunk):
        """`thunk()` evaluated with what it emits held aside, kept (spliced
        where it would have gone) if it checks nothing at run time: no
        index check, no broadcast of run-time extents, no index read from
        data, no control flow, no error. Else None, with nothing emitted
        or allocated: the caller evaluates lazily instead."""
        stmt = self.statements[-1] if self.statements else None
        em = self.em
        if stmt is None or em.buffer is not stmt.buf or stmt.trial:
            return None
        allocs = len(em.allocs)
        data = set(self.data_names)
        memo = dict(stmt.index_memo)
        real = (stmt.buf, stmt.outer, stmt.outer_indent, em.indent)
        inner, held = Buffer(), Buffer()
        stmt.buf, stmt.outer, stmt.outer_indent = inner, held, 0
        em.buffer, em.indent = inner, 0
        stmt.trial = True
        value, clean = None, False
        try:
            value = thunk()
            text = "\n".join(held.lines + inner.lines)
            clean = "sdfg.check_index" not in text and \
                "sdfg.broadcast_extent" not in text and \
                self.data_names == data
        except (_TrialAbort, FrontendError):
            clean = False
        finally:
            stmt.trial = False
            stmt.buf, stmt.outer, stmt.outer_indent = real[:3]
            em.buffer, em.indent = stmt.buf, real[3]
        if not clean:
            del em.allocs[allocs:]
            del em.alloc_sources[allocs:]
            self.data_names.clear()
            self.data_names.update(data)
            stmt.index_memo = memo
            return None
        em.buffer, em.indent = stmt.outer, stmt.outer_indent
        em.splice(held)
        em.buffer, em.indent = stmt.buf, real[3]
        em.splice(inner)
        return value

    def branch_values(self, test, test_node, then, orelse, node):
        """Python's lazy choice `then() if test else orelse()`: each branch
        evaluated in its own region of an sdfg.if, so that only the branch
        taken reads (its index checks and broadcasts fire only where Python
        would evaluate it), with loop variables narrowed by `test_node` as
        an if statement's; its value kept in a transient, chosen after.
        Returns (test as a scalar, the branches' values as evaluated, the
        values to choose between), or None where no control flow can go
        (inside a map): the caller evaluates both branches."""
        stmt = self.statements[-1] if self.statements else None
        if stmt is None or self.em.buffer is not stmt.buf:
            return None
        with self.control_section():
            cond = self.control_scalar(test, np.bool_)
            self.loop_depth += 1
            raw, kept = [], []
            with self.em.block(f"sdfg.if {cond}"):
                r, k = self._branch_value(then, test_node, True, node)
                raw.append(r)
                kept.append(k)
            self.em.buffer.lines[-1] += " else {"
            self.em.indent += 1
            r, k = self._branch_value(orelse, test_node, False, node)
            raw.append(r)
            kept.append(k)
            self.em.indent -= 1
            self.em.line("}")
            self.loop_depth -= 1
        return ScalarLeaf(cond, np.bool_), raw, kept

    def _branch_value(self, thunk, test_node, holds, node):
        known = dict(self.iter_bounds)
        with self.narrowed(test_node, holds), self.statement() as stmt:
            raw = thunk()
            if isinstance(raw, (bool, int, float, np.bool_, np.number)) \
                    and not isinstance(raw, Idx):
                stmt.done()
                return raw, raw
            e = self.to_expr(raw)
            if any(n not in known for x in e.shape for n in as_idx(x).terms):
                raise self.unsupported(
                    node, "a conditional expression whose array's length is "
                    "computed in its branch", "its length is known only "
                    "where the branch runs; compute the array in an if "
                    "statement and use it there")
            # Sized as where the choice is read, for every execution (the
            # narrowed bounds hold only in this branch).
            narrowed, self.iter_bounds = self.iter_bounds, {
                **self.iter_bounds, **known}
            try:
                tmp = self.transient_view(list(e.shape), e.dtype, node,
                                          "chosen")
            finally:
                self.iter_bounds = narrowed
            self.store(tmp, e)
            stmt.done()
        return raw, ViewLeaf(tmp)

    def _eval_narrowed(self, expr, test, holds):
        """A branch of `a if test else b`, as Python evaluates it only
        where `test` is (or is not) true: a loop variable the test narrows
        (`u[i - 1] if i > 0 else u[i]`) reads, in this branch, as its value
        clamped into the narrowed interval. Both branches are computed
        (np.where), so the branch not taken reads an element that exists,
        and the one taken reads the element Python reads."""
        before = dict(self.iter_bounds)
        with self.narrowed(test, holds):
            # (An empty interval: a branch that never runs, read as is.)
            narrowed = {iv: b for iv, b in self.iter_bounds.items()
                        if before.get(iv) != b and b[0] <= b[1]}
        if not narrowed:
            return self.eval(expr)
        overrides = {}
        for n in {x.id for x in ast.walk(expr) if isinstance(x, ast.Name)}:
            v = self.env.get(n)
            if isinstance(v, Idx) and v.const == 0 and len(v.terms) == 1 \
                    and list(v.terms.values()) == [1] and \
                    next(iter(v.terms)) in narrowed:
                iv = next(iter(v.terms))
                overrides[n] = self._clamp_into(iv, narrowed[iv])
        saved = {n: self.env[n] for n in overrides}
        self.env.update(overrides)
        # The statement's index memo keys bounds by their source text,
        # which reads other values here: a memo of its own.
        stmt = self.statements[-1] if self.statements else None
        memo = stmt.index_memo if stmt else None
        if stmt:
            stmt.index_memo = {}
        try:
            return self.eval(expr)
        finally:
            self.env.update(saved)
            if stmt:
                stmt.index_memo = memo

    def _clamp_into(self, iv, bounds):
        """`iv` clamped into `bounds` = (lo, hi): an index tasklet before
        the statement's state, with the slice bounds."""
        lo, hi = bounds
        key = ("clamp", iv, lo, hi)
        with self.index_place(Idx.of(iv)):
            memo = self._index_memo(key)
            if memo is not None:
                return memo

            def body(tb, args):
                r = tb.op(f"arith.maxsi {args[0]}, {tb.index_const(lo)}",
                          "index")
                return [tb.op(f"arith.minsi {r}, {tb.index_const(hi)}",
                              "index")]

            (name,) = self.em.tasklet([(iv, "index")], ["index"], body)
            self.iter_bounds[name] = (lo, hi)
            if iv in self.data_names:
                self.data_names.add(name)
            return self._remember_index(key, name)

    def _assigned_from(self, value):
        """The name a statement `name = value` of the function being
        translated binds, if `value` is its whole right side."""
        fdef = self.fdef if len(self.inlining) <= 1 else None
        for stmt in ast.walk(fdef) if fdef is not None else ():
            if isinstance(stmt, ast.Assign) and stmt.value is value and \
                    len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], ast.Name):
                return stmt.targets[0].id
        return None

    def eval_Call(self, node):
        return calls.call(self, node)

    # ------------------------------------------------------------------
    # Element-wise arithmetic
    # ------------------------------------------------------------------

    def _int_constant(self, v):
        """A Python int as an int64 operand. One outside int64 is NumPy 2's
        OverflowError (NumPy 1 computed with floats or Python objects;
        as an int64 it would wrap): an error here, when compiling."""
        if not -2 ** 63 <= v < 2 ** 63:
            raise self.error(
                f"an integer constant out of the range of int64: Python "
                f"integer {v} (NumPy 2 raises OverflowError); write it as "
                f"a float ({float(v)!r}) if a float is meant",
                self.current_node)
        return ConstLeaf(v, np.int64)

    def to_expr(self, v):
        if isinstance(v, Expr):
            return v
        if isinstance(v, Unavailable):
            raise v.error
        if isinstance(v, View):
            return ViewLeaf(v)
        if isinstance(v, Idx):
            return self._int_constant(v.const) if v.is_const() else \
                IdxLeaf(v)
        if isinstance(v, ScalarLeafCopy):
            return v.expr
        if isinstance(v, (bool, np.bool_)):
            return ConstLeaf(bool(v), np.bool_)
        if isinstance(v, (int, np.integer)):
            return self._int_constant(int(v))
        if isinstance(v, (float, np.floating)):
            return ConstLeaf(float(v), np.float64)
        if isinstance(v, tuple):
            raise self.unsupported(self.current_node, "tuple used as an array")
        if isinstance(v, Masked):
            raise self.unsupported(
                self.current_node, "boolean mask indexing",
                "the selection's length depends on the data; supported are "
                "x[mask] = v, x[mask] += v and np.sum/np.mean/np.prod of "
                "x[mask]; else use np.where(mask, x, 0)")
        raise self.unsupported(self.current_node,
                               f"value of type {type(v).__name__}")

    def to_bool(self, v):
        e = self.to_expr(v)
        if e.dtype == np.bool_:
            return e
        return Op("cast", [e], e.shape, np.bool_)


class ScalarLeafCopy:
    """A scalar variable's value captured before a tuple assignment."""

    def __init__(self, tr, expr):
        tmp = tr.new_transient([], expr.dtype, "snapshot")
        tr.store(tmp.view(), expr)
        self.expr = ViewLeaf(tmp.view())


class _TrialAbort(Exception):
    """An evaluation on trial that would emit control flow."""


class _Statement:
    """Collects the text of one statement and wraps it in a state when it
    holds dataflow."""

    def __init__(self, tr):
        self.tr = tr
        self.ok = False
        # key -> the index value computed for it before this statement's
        # state (slice bounds and lengths, Indexing.slice_range): two equal
        # windows in one statement get one extent (np.dot(x[i:i+3],
        # x[i:i+3]) must see equal lengths).
        self.index_memo = {}
        # Under Translator.eager_if_clean: what it emits is held aside.
        self.trial = False

    def __enter__(self):
        em = self.tr.em
        # Where the statement's state goes: an inlined call's statements
        # are emitted there first (Translator.inline_call).
        self.outer, self.outer_indent = em.buffer, em.indent
        self.cm = em.capture()
        self.buf = self.cm.__enter__()
        self.tr.statements.append(self)
        return self

    def done(self):
        self.ok = True

    def flush(self):
        """Moves what the statement emitted so far to where it goes (in a
        state when it holds dataflow) and starts collecting afresh."""
        em = self.tr.em
        buf = self.buf
        em.buffer, em.indent = self.outer, self.outer_indent
        if buf.dataflow:
            with em.block("sdfg.state"):
                em.splice(buf)
        elif buf:
            em.splice(buf)
        buf.lines, buf.sources, buf.dataflow = [], [], False
        em.buffer, em.indent = buf, 0

    def __exit__(self, exc_type, exc, tb):
        self.tr.statements.pop()
        self.cm.__exit__(exc_type, exc, tb)
        if exc_type is not None or not self.ok:
            return False
        em = self.tr.em
        if not self.buf:
            return False
        if self.buf.dataflow:
            with em.block("sdfg.state"):
                em.splice(self.buf)
        else:
            em.splice(self.buf)
        return False


def _plain_arithmetic(expr):
    """Whether evaluating `expr` can only compute (no call, which may
    inline user code, and no assignment expression)."""
    return not any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Lambda,
                                  ast.comprehension))
                   for n in ast.walk(expr))


def _broadcast_coords(shape, coords, rank):
    """Coordinates of a leaf of `shape` inside an output of rank `rank`."""
    r = len(shape)
    out = []
    for k in range(r):
        dim = rank - r + k
        if same_extent(shape[k], 1):
            out.append(Idx(0))
        else:
            out.append(coords[dim])
    return out


def _provably_less(a, b, tr):
    """a < b for every iteration."""
    d = as_idx(b) - as_idx(a)
    try:
        lo, _ = tr.interval(d)
    except FrontendError:
        return False
    return lo > 0

def _c_contiguous(view):
    """Whether a view's elements are one row-major block of its container:
    its axes are the container's last ones in order, with unit steps, and
    all but the first whole."""
    mapped = [(d, o, st, vd) for d, (o, st, vd) in enumerate(view.base)
              if vd is not None]
    if [vd for _, _, _, vd in mapped] != list(range(view.ndim)):
        return False
    dims = [d for d, _, _, _ in mapped]
    if dims != list(range(len(view.base) - view.ndim, len(view.base))):
        return False
    for k, (d, o, st, vd) in enumerate(mapped):
        if st != 1:
            return False
        if k > 0 and not (as_idx(o).is_const() and as_idx(o).const == 0 and
                          as_idx(view.shape[vd]).is_const() and
                          as_idx(view.shape[vd]).const ==
                          view.container.shape[d]):
            return False
    return True


def _shape_text(shape):
    """A shape as NumPy prints it: (3,), (2, 4); run-time extents by
    name."""
    items = [str(as_idx(e).const) if as_idx(e).is_const() else
             as_idx(e).render() for e in shape]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


# NumPy's ufunc of each augmented assignment (for its casting error).
_UFUNC_NAMES = {
    ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply",
    ast.Div: "divide", ast.FloorDiv: "floor_divide", ast.Mod: "remainder",
    ast.Pow: "power", ast.BitAnd: "bitwise_and", ast.BitOr: "bitwise_or",
    ast.BitXor: "bitwise_xor", ast.LShift: "left_shift",
    ast.RShift: "right_shift",
}


def _mentions(view, name):
    """Whether a view's extents or position depend on SSA name `name`."""
    return any(name in as_idx(e).terms for e in view.shape) or any(
        name in as_idx(o).terms for o, _, _ in view.base)


def _subst(e, name, value):
    e = as_idx(e)
    terms = dict(e.terms)
    coef = terms.pop(name, 0)
    return Idx(e.const + coef * value, terms)


def _substituted(view, name, value):
    """The view with SSA name `name` replaced by the constant `value`."""
    base = [(_subst(o, name, value), st, d) for o, st, d in view.base]
    return View(view.container, base,
                [_subst(e, name, value) for e in view.shape])


def _shape_key(view):
    """A view's shape as comparable text ((4,), (N - i,) ...)."""
    return tuple(as_idx(e).render() for e in view.shape)


def _show(key):
    """A _shape_key as Python writes a shape: (6,), (N, 3)."""
    return "(" + ", ".join(key) + ("," if len(key) == 1 else "") + ")"


def _describe(shape, dtype):
    """`shape` (ints) and dtype as a message names them."""
    name = str(np.dtype(dtype))
    article = "an" if name[0] in "aeiou" else "a"
    if not shape:
        return f"{article} {name} scalar"
    return f"{article} {name} array of shape {tuple(shape)}"


def _is_array(view):
    """Whether a name bound to `view` holds a NumPy array (aliased by
    `b = a`, updated in place by `a += 1`): any view of rank 1 or more,
    and a whole 0-d array argument. An element `x[0]` is a scalar, copied
    on assignment."""
    return view.ndim > 0 or (getattr(view.container, "ndarray", False)
                             and not view.container.shape)


def _needs_short_circuit(test):
    """Whether an and/or test has an operand after the first that reads an
    element (which may lie out of bounds where Python would not read it)."""
    return isinstance(test, ast.BoolOp) and any(
        isinstance(n, ast.Subscript)
        for v in test.values[1:] for n in ast.walk(v))


def _condition_statements(name, test):
    """Statements binding `name` to the truth of `test`, reading the
    operands of an and/or only as Python does: each operand is the test of
    an `if` nested in the previous one's (so compile-time operands are
    decided, and `if j > 0 and B[j - 1]` narrows j as `if j > 0:` does)."""
    def assign(value):
        return ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                          value=ast.Constant(value=value))

    if not isinstance(test, ast.BoolOp):
        call = ast.Call(func=ast.Name(id="bool", ctx=ast.Load()),
                        args=[test], keywords=[])
        return [ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                           value=call)]
    is_and = isinstance(test.op, ast.And)
    # and: name = False; if v0: if v1: ... name = True
    # or:  name = True; if v0: pass else: if v1: pass else: ... name = False
    inner = [assign(is_and)]
    for v in reversed(test.values):
        inner = [ast.If(test=v, body=inner, orelse=[])] if is_and else \
            [ast.If(test=v, body=[ast.Pass()], orelse=inner)]
    return [assign(not is_and)] + inner


def _widens(held, new):
    """Whether a scalar variable holding `held` becomes `new` in NumPy when
    assigned a value of that type: an int or bool a float, a float32 a
    float64 (NumPy 1.x promotes a float32 scalar with a Python float)."""
    held, new = np.dtype(held), np.dtype(new)
    return held != new and is_float(new) and (
        not is_float(held) or new.itemsize > held.itemsize)
