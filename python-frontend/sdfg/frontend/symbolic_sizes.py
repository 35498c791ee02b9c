"""Array extents as size symbols (issue 37): a program compiled once for
every size of its array arguments.

An array parameter named in the translation's `symbolic` set is a
`memref<?x...>` parameter: each extent of at least MIN_SYMBOLIC_EXTENT is
an `sdfg.dim` of it, read at the top of the program, and the others (2,
3: a coordinate axis, an RGB channel) stay compiled in. Extents that are
equal in the call that compiles the program are one symbol (PyTorch's
"duck sizing"): `A @ B` with A (n, n) and B (n, n) needs no run-time
check that the inner extents agree. What a compiled program assumes is in
its key (frontend/symbols.py: `shape_pattern`), so a call whose sizes do
not fit it (a small extent, equal extents that differed before) compiles
another program.

Every symbol is at least MIN_SYMBOLIC_EXTENT: a slice `a[1:-1]` of an
extent n is n - 2 long, never clamped, so that what the program computes
from the symbols is affine in them and known before its first state. The
sizes of transients and outputs computed from the symbols alone (`size
expressions`) are computed there too (index tasklets before the allocs),
so a transient `np.zeros(n)` or `a[1:] - a[:-1]` is an `sdfg.alloc(%n)`;
an extent that also depends on a loop or on data is bounded as before,
and where the symbols leave it unbounded the translation refuses it (and
the program is compiled with constants: Program.compile).
"""

from .. import ir
from ..semantics.values import Container, Idx, as_idx

# Extents below this are compiled in; each symbol is at least this.
MIN_SYMBOLIC_EXTENT = 8
# An int parameter `n` taken as a size symbol is `n` + this in the
# translation's `symbolic` set (a loop-bound int is `n` alone).
SIZE_SUFFIX = ":size"
# The largest extent a symbol stands for (an int32's, as index
# arguments): the bound that proves subscripts inside an array.
MAX_SYMBOLIC_EXTENT = (1 << 31) - 1


class SymbolicSizes:
    """A mixin of Translator (translator.py): the size symbols of array
    arguments and the index values computed from them before the program's
    first state."""

    def _init_sizes(self):
        # SSA name of each size symbol (an sdfg.dim result) -> (parameter
        # name, axis). Int parameters compiled as symbols are not: their
        # values may be negative (they only bound loops).
        self.size_symbols = {}
        # Symbol per extent value seen in this call (duck sizing).
        self._symbol_of_value = {}
        # Size expression (its key) -> the SSA name computing it.
        self._size_values = {}
        # Iterator (loop or map parameter) -> (lower, upper) inclusive, as
        # Idx over size symbols (and outer iterators) where either is not
        # a constant: Storage.interval's second opinion.
        self.size_bounds = {}

    def bound_by_sizes(self, name, lower, upper):
        """Records that iterator `name` runs from `lower` to `upper` (Idx,
        inclusive) where a size symbol is in either."""
        lower, upper = as_idx(lower), as_idx(upper)
        if any(n in self.size_symbols or n in self.size_bounds
               for n in list(lower.terms) + list(upper.terms)):
            self.size_bounds[name] = (lower, upper)

    def substitute_size_bounds(self, idx, lower):
        """`idx` with each iterator of size_bounds replaced by the bound
        that minimises (`lower`) or maximises it, repeatedly (an inner
        loop's bounds read the outer iterator): a bound of `idx` in the
        size symbols alone, where the iterators nest."""
        idx = as_idx(idx)
        for _ in range(8):
            names = [n for n in idx.terms if n in self.size_bounds]
            if not names:
                break
            out = Idx(idx.const, {n: c for n, c in idx.terms.items()
                                  if n not in self.size_bounds})
            for n in names:
                c = idx.terms[n]
                lo, hi = self.size_bounds[n]
                out = out + (lo if (c > 0) == lower else hi).scale(c)
            idx = out
        return idx

    def symbolic_array(self, name, value, shape=None, dtype=None):
        """The container of array parameter `name` (its value `value`) with
        its large extents as symbols; `shape` and `dtype`: the container's
        where they are not the value's (a complex array's float pairs)."""
        ssa = f"%{name}"
        extents = value.shape if shape is None else shape
        shape, reads = [], []
        for axis, n in enumerate(extents):
            if n < MIN_SYMBOLIC_EXTENT:
                shape.append(int(n))
                continue
            sym = self._symbol_of_value.get(int(n))
            if sym is None:
                sym = self.em.fresh(f"{_ssa_stem(name)}_d{axis}_")
                self._symbol_of_value[int(n)] = sym
                self.size_symbols[sym] = (name, axis)
                self.iter_bounds[sym] = (MIN_SYMBOLIC_EXTENT,
                                         MAX_SYMBOLIC_EXTENT)
                reads.append((sym, axis))
            shape.append(Idx.of(sym))
        c = Container(ssa, shape, value.dtype if dtype is None else dtype,
                      "arg", name)
        for sym, axis in reads:
            self.em.alloc(ir.dim(sym, ssa, axis, c.mlir_type))
        return c

    def symbolic_int(self, name, value):
        """The value of int parameter `name` taken as a size symbol: the
        symbol of its value (an array's extent equal to it in this call, or
        its own `index` parameter, the `ssa` the caller declares)."""
        sym = self._symbol_of_value.get(int(value))
        ssa = f"%{name}"
        if sym is None:
            sym = ssa
            self._symbol_of_value[int(value)] = sym
            self.size_symbols[sym] = (name, None)
            self.iter_bounds[sym] = (MIN_SYMBOLIC_EXTENT, MAX_SYMBOLIC_EXTENT)
        return Idx.of(sym)

    def is_size_expression(self, idx):
        idx = as_idx(idx)
        return not idx.is_const() and all(
            n in self.size_symbols for n in idx.terms)

    def size_value(self, idx):
        """An SSA index name holding size expression `idx`, computed
        before the program's first state (with the allocs)."""
        idx = as_idx(idx)
        if idx.const == 0 and len(idx.terms) == 1 and \
                next(iter(idx.terms.values())) == 1:
            return next(iter(idx.terms))
        key = (idx.const, tuple(sorted(idx.terms.items())))
        name = self._size_values.get(key)
        if name is not None:
            return name
        names = sorted(idx.terms)

        def body(tb, args):
            return [tb.index_value(idx, dict(zip(names, args)))]

        with self.em.capture() as buf:
            (name,) = self.em.tasklet([(n, "index") for n in names],
                                      ["index"], body)
        for line in buf.lines:
            self.em.alloc(line)
        self._size_values[key] = name
        return name

    def size_formula(self, idx):
        """A size expression as the call evaluates it (meta's outputs):
        {"const": c, "terms": [[parameter name, axis, coef], ...]}."""
        idx = as_idx(idx)
        return {"const": idx.const,
                "terms": [[*self.size_symbols[n], c]
                          for n, c in sorted(idx.terms.items())]}


def _ssa_stem(name):
    """A parameter name as part of an SSA name (pytree paths have dots)."""
    return "".join(ch if ch.isalnum() else "_" for ch in name)
