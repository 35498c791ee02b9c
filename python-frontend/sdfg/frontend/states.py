"""One Python statement's sdfg.state: the buffer that collects what a
statement emits (Statement) and the sections that put control flow in
the middle of one.
"""

import contextlib

from .. import ir
from .retries import TrialAbort


class States:
    """Puts each statement's dataflow in its sdfg.state.

    A mixin of Translator (translator.py), sharing its state."""

    def statement(self):
        return Statement(self)

    @contextlib.contextmanager
    def control_section(self):
        """Emits control flow (loops) in the middle of a statement: what
        the statement emitted so far goes before it, in its own state."""
        stmt = self.statements[-1]
        if stmt.trial:
            raise TrialAbort()  # control flow: not evaluated on trial
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


class Statement:
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
            with em.block(ir.STATE):
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
            with em.block(ir.STATE):
                em.splice(self.buf)
        else:
            em.splice(self.buf)
        return False
