"""Translation of NumPy functions into the sdfg dialect: the AST visitor.

translator.py holds the Translator (its state and driver) and translate(),
the entry point; each concern of the visitor is a mixin in a module of its
own (statements, assignments, loops, conditionals, inlining, expressions,
storage, states). What NumPy's functions and operators mean lives in
sdfg.numpy and sdfg.semantics; the rewrites before translation in
sdfg.desugar.
"""

from .translator import translate

__all__ = ["translate"]
