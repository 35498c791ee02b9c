"""The exceptions by which a translation is retried or a trial abandoned:
Widen (a variable needs a float container, or a loop's first iteration
peeled) and TrialAbort.
"""

import numpy as np

from ..semantics.values import is_float


class Widen(Exception):
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


class TrialAbort(Exception):
    """An evaluation on trial that would emit control flow."""


def widens(held, new):
    """Whether a scalar variable holding `held` becomes `new` in NumPy when
    assigned a value of that type: an int or bool a float, a float32 a
    float64 (NumPy 1.x promotes a float32 scalar with a Python float)."""
    held, new = np.dtype(held), np.dtype(new)
    return held != new and is_float(new) and (
        not is_float(held) or new.itemsize > held.itemsize)
