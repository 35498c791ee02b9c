"""sdfg: a reverse-mode AD compiler for NumPy programs, after DaCe AD.

Today the package compiles and runs programs written in the sdfg MLIR
dialect (``sdfg.native``); the NumPy frontend (``sdfg.program``,
``sdfg.grad``...) follows the interface fixed in the design brief.
"""

from .native import NativeModule, ToolError, compile_mlir

__all__ = ["NativeModule", "ToolError", "compile_mlir"]
__version__ = "0.1.0"
