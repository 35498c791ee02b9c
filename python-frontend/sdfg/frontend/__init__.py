"""Translation of NumPy functions into the sdfg dialect."""

from .translator import translate

__all__ = ["translate"]
