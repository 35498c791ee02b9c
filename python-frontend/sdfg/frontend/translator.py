"""NumPy function (Python AST) -> sdfg dialect text.

The translator specialises a function on its argument types: arrays have
static shapes and dtypes, Python ints and bools are compile-time constants,
Python floats are runtime scalars. Each statement becomes one state (one
map for element-wise work, fused across the whole right-hand side), loops
become sdfg.loop / sdfg.while, conditionals sdfg.if.
"""

import ast
import re
import textwrap
from typing import Any, Callable, FrozenSet, Optional, Sequence

import numpy as np

from .. import ir, pytrees
from ..desugar import returns
from ..desugar.astutil import parse
from ..desugar.alias_branches import renamed_in_arm, split_alias_branches
from ..desugar.iteration import lower_iteration
from ..desugar.loop_exits import lower_loop_exits
from ..errors import FrontendError
from ..semantics import complex_values
from ..semantics.aliasing import Aliasing
from ..semantics.bindings import (construct_name, count_assignments,
                                  inplace_targets)
from ..semantics.indexing import Indexing
from ..semantics.operators import Operators
from ..semantics.values import Container, Idx, SUPPORTED_DTYPES
from ..source import source_file, source_lines
from .assignments import Assignments
from .conditionals import Conditionals
from .emitter import Emitter
from .expressions import Expressions
from .global_values import GlobalValues
from .inlining import Inlining, param_names
from .loops import Loops
from .retries import Widen
from .statements import Statements
from .states import States
from .storage import Storage
from .symbolic_sizes import SIZE_SUFFIX, SymbolicSizes


class Signature:
    """How the Python call maps onto the C function."""

    def __init__(self):
        self.params = []   # (kind, name, dtype, shape|value)
        self.outputs = []  # ("array", dtype, shape) | ("arg", param index)
        self.returns_tuple = False
        self.returns_none = True
        # What the function returns where that nests dicts, lists or
        # tuples: pytrees.build's structure over the outputs' numbers.
        self.return_tree = None
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
        # What each print site prints (frontend/printing.py): its
        # arguments' text and values, sep and end.
        self.print_sites = []


class _IndexParam:
    """An int parameter compiled as a symbol: an `index` argument of the
    program (its place among the parameter containers is its place in the
    signature)."""

    kind = "index"
    mlir_type = "index"

    def __init__(self, ssa, name):
        self.ssa = ssa
        self.name = name


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


def translate(fn: Callable, args: Sequence[Any], name: Optional[str] = None,
              device: str = "cpu",
              symbolic: FrozenSet[str] = frozenset()) -> Translation:
    """`fn` translated for `args`; the int parameters named in `symbolic`
    become `index` parameters of the program (frontend/symbols.py)."""
    widened, peeled = set(), set()
    while True:
        try:
            tr = Translator(fn, args, name, device, symbolic)
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
        except Widen as w:
            # Each retry must change something: asking again for the same
            # is a change it cannot absorb.
            done = peeled if w.peel is not None else widened
            key = w.peel if w.peel is not None else w.name
            if key in done:
                raise w.error from None
            done.add(key)


def symbol_name(name: str) -> str:
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
    except (FrontendError, Widen):
        raise
    except RecursionError:
        raise tr.error(_NESTED_TOO_DEEPLY) from None
    except (TypeError, ValueError, IndexError, KeyError, AttributeError,
            ZeroDivisionError, OverflowError) as e:
        # A program the checks above did not anticipate: report where, as
        # every other rejection does, rather than a traceback.
        raise tr.error(f"cannot translate this construct "
                       f"({type(e).__name__}: {e})") from e


class Translator(Inlining, Statements, Assignments, Loops, Conditionals,
                 States, Storage, Expressions,
                 GlobalValues, Aliasing, Indexing, Operators,
                 SymbolicSizes):
    """Translates one function for one signature of arguments.

    The state (environment, containers, the emitter) and the driver are
    here; each concern is a mixin sharing this state: inlining.py,
    statements.py, assignments.py, loops.py, conditionals.py, states.py,
    storage.py, expressions.py, and indexing.py (subscripts),
    operators.py, aliasing.py and global_values.py."""

    def __init__(self, fn, args, name=None, device="cpu",
                 symbolic=frozenset()):
        self.fn = fn
        self.symbolic = symbolic
        # Map schedules are chosen for the device: on the CPU, small maps
        # and reductions run sequentially (a fork costs more than they
        # do); on the GPU every data-parallel map is a kernel candidate
        # (sdfg-gpu-schedule), since running it on the host would move
        # unified memory back and forth.
        self.device = device
        self.filename = source_file(fn)
        lines, self.firstline = source_lines(fn)
        self.source = textwrap.dedent("".join(lines))
        tree = parse(self.source)
        self.fdef = tree.body[0]
        if not isinstance(self.fdef, ast.FunctionDef):
            raise FrontendError("expected a function definition",
                                self.filename, self.firstline)
        lower_iteration(self.fdef)
        split_alias_branches(self.fdef, inplace_targets(self.fdef),
                             count_assignments(self.fdef, augmented=False))
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
        self._init_sizes()
        # Scalar variables given a float container from their first
        # binding, and for loops (line, column) whose first iteration is
        # peeled (translate's later passes, Widen).
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
        self.while_depth = 0  # while loops around (numpy/random.py)
        # Name permutations (`a, b = b, a`) at this loop depth rebind the
        # names instead of copying: the function's top level, or the body
        # of a loop unrolled for them (visit_For).
        self.permute_depth = 0
        self.statements = []  # open Statement scopes, innermost last
        self.inlining = [fn]  # the functions being translated, for errors
        self.lambdas = []  # the lambdas being called (recursion is an error)
        self.sig = Signature()
        self.global_views = {}  # origin -> View (Translator.global_array)
        # The programs of the custom_vjp functions it calls and of their
        # cotangents (custom_calls.py), emitted before this one.
        self.custom_programs = []
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
        # Names renamed in the arms of a branch (alias_branches.py) are the
        # program's names to its reader.
        message = renamed_in_arm(message)
        construct = construct and renamed_in_arm(construct)
        return FrontendError(message, self.filename, lineno, construct)

    def unsupported(self, node, construct, why=""):
        return self.error(why or "not supported by the sdfg frontend", node,
                          construct)

    def run(self):
        self._bind_arguments()
        with self.em.capture() as main:
            self.em.indent = 1
            ret = self._visit_until_return(self.fdef.body)
            if ret is not None:
                self.visit(ret)  # visit_Return, located as statements are
        header = ir.sdfg_header(self.symbol, [
            ir.parameter(c.ssa, c.mlir_type, c.name)
            for c in self.param_containers])
        lines = header.split("\n")
        sources = [f"{self.filename}:{self.firstline}"] * len(lines)
        lines += ["  " + a for a in self.em.allocs]
        sources += self.em.alloc_sources
        lines += main.lines
        sources += main.sources
        lines.append("}")
        sources.append(None)
        for helper in self.custom_programs:
            lines += helper.text.rstrip("\n").split("\n")
            sources += helper.sources
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
        names = param_names(a)
        if len(names) != len(self.args):
            raise self.error(f"{self.name}() takes {len(names)} arguments, "
                             f"got {len(self.args)}")
        self.param_containers = []
        for name, value in zip(names, self.args):
            self.env[name] = self._bind_argument(name, value)

    def _bind_argument(self, name, value):
        """The value parameter `name` has in the program: a view of a
        parameter container for an array or a float, the constant for an
        int, bool, string or None, and for a dict, tuple, list or named
        tuple (a pytree, pytrees.py) the same structure of those, one
        parameter per leaf named by its path (`params.W`)."""
        if pytrees.is_node(value):
            parts = [self._bind_argument(f"{name}.{seg}", child)
                     for seg, child in pytrees.children(
                         value, f"argument '{name}'")]
            if type(value) is dict:
                return dict(zip(value, parts))
            if type(value) is list:
                return parts
            if type(value) is tuple:
                return tuple(parts)
            return type(value)(*parts)
        if isinstance(value, np.ndarray) and value.dtype.kind == "c":
            # A complex array: a float container with a trailing axis of
            # 2 (docs/design/complex-numbers.md); the call passes the
            # array's memory viewed so (program.py).
            self.em.reserved.add(f"%{name}")
            part = complex_values.part_dtype(value.dtype)
            if name in self.symbolic:
                # Its extents as size symbols (the trailing 2, below
                # MIN_SYMBOLIC_EXTENT, stays a constant).
                c = self.symbolic_array(name, value, value.shape + (2,),
                                        part)
            else:
                c = Container(f"%{name}", value.shape + (2,), part, "arg",
                              name)
            c.complex = value.dtype
            c.ndarray = True
            self.param_containers.append(c)
            self.sig.params.append(("array", name, value.dtype, tuple(
                e if isinstance(e, int) else -1 for e in c.shape)))
            return complex_values.container_parts(c)
        if isinstance(value, np.ndarray):
            dtype = value.dtype
            if dtype.type not in SUPPORTED_DTYPES:
                raise self.error(f"argument '{name}' has unsupported "
                                 f"dtype {dtype}")
            self.em.reserved.add(f"%{name}")
            if name in self.symbolic:
                # Its extents as size symbols (symbolic_sizes.py); -1 in
                # the signature for each.
                c = self.symbolic_array(name, value)
            else:
                c = Container(f"%{name}", value.shape, dtype, "arg", name)
            # A NumPy array, even 0-d: `s += 1` updates it in place
            # (a float argument's `+=` rebinds the name).
            c.ndarray = True
            self.param_containers.append(c)
            self.sig.params.append(("array", name, dtype, tuple(
                e if isinstance(e, int) else -1 for e in c.shape)))
            return c.view()
        if isinstance(value, (bool, np.bool_)):
            self.sig.params.append(("const", name, None, bool(value)))
            return bool(value)
        if isinstance(value, str) or value is None:
            # A mode (`activation="relu"`) or an omitted option
            # (`kind=None`), compiled in like an int.
            self.sig.params.append(("const", name, None, value))
            return value
        if isinstance(value, (int, np.integer)) and \
                name + SIZE_SUFFIX in self.symbolic:
            # A size (np.zeros(n), an extent it equals): a size symbol,
            # its own index parameter (symbolic_sizes.py).
            param = _IndexParam(f"%{name}", name)
            self.em.reserved.add(param.ssa)
            self.param_containers.append(param)
            self.sig.params.append(("index", name, None, None))
            return self.symbolic_int(name, value)
        if isinstance(value, (int, np.integer)) and name in self.symbolic:
            # A loop bound only the call knows (symbols.py): an index
            # parameter, bounded as an int32 is for the checks of the
            # subscripts it reaches.
            param = _IndexParam(f"%{name}", name)
            self.em.reserved.add(param.ssa)
            self.param_containers.append(param)
            lo, hi = np.iinfo(np.int32).min, np.iinfo(np.int32).max
            self.iter_bounds[param.ssa] = (lo, hi)
            self.sig.params.append(("index", name, None, None))
            return Idx.of(param.ssa)
        if isinstance(value, (int, np.integer)):
            self.sig.params.append(("const", name, None, int(value)))
            return int(value)
        if isinstance(value, (float, np.floating)):
            dtype = (np.dtype(value.dtype) if isinstance(value, np.floating)
                     else np.dtype(np.float64))
            # Runtime scalar: passed by pointer to a 0-d container so
            # that the function may also assign to it.
            self.em.reserved.add(f"%{name}")
            c = Container(f"%{name}", (), dtype, "arg", name)
            self.param_containers.append(c)
            self.sig.params.append(("scalar", name, dtype, None))
            return c.view()
        raise self.error(f"argument '{name}' has unsupported type "
                         f"{type(value).__name__}; expected a numpy "
                         "array, an int, a float, a bool, or a dict, "
                         "tuple or list of those")

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
