"""sdfg: a reverse-mode AD compiler for NumPy programs, after DaCe AD.

- ``sdfg.program(fn)``: compile an unmodified NumPy function natively.
- ``sdfg.to_mlir(fn, *args)``: the sdfg-dialect text for those arguments.
- ``sdfg.compile_mlir(text)``: compile hand-written sdfg-dialect MLIR.

Unsupported Python raises ``sdfg.FrontendError`` naming file, line and
construct.
"""

from .errors import FrontendError
from .native import NativeModule, ToolError, compile_mlir
from .program import Program, program, to_mlir

__all__ = ["FrontendError", "NativeModule", "Program", "ToolError",
           "compile_mlir", "program", "to_mlir"]
__version__ = "0.1.0"
