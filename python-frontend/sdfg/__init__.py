"""sdfg: an AD compiler (reverse and forward mode) for NumPy programs,
after DaCe AD.

- ``sdfg.program(fn)``: compile an unmodified NumPy function natively.
- ``sdfg.to_mlir(fn, *args)``: the sdfg-dialect text for those arguments.
- ``sdfg.grad(fn, wrt)`` / ``sdfg.vjp(fn, wrt)``: reverse-mode gradients;
  ``sdfg.value_and_grad(fn, wrt)`` returns ``(fn's value, gradients)``.
- ``sdfg.jvp(fn, primals, tangents)``: forward mode (Jacobian-vector
  products), as JAX's; ``sdfg.hvp`` (forward over reverse),
  ``sdfg.hessian``, ``sdfg.jacfwd`` / ``sdfg.jacrev``.
- ``device="gpu"`` on program/grad/vjp: NVIDIA GPU kernels and cuBLAS
  (``sdfg.DeviceError`` where no GPU can be used); ``device="gpu-emulator"``
  runs that GPU program's kernels on host threads (no GPU needed).
- ``sdfg.stop_gradient(x)`` inside a program: a constant to
  differentiation (identity when Python runs it).
- ``sdfg.custom_vjp``: a user-written reverse-mode rule for a helper
  called inside programs, as JAX's.
- ``sdfg.check_grads(fn, args)``: a gradient against finite differences
  (float64, random directions), with a report.
- ``sdfg.program(source=text)`` / ``sdfg.from_source(text)``: functions
  given as Python text (generated code).
- ``SDFG_LOG=1`` or ``sdfg.config.log_compiles = True``: each compile
  (stages, times) and cache hit logged to stderr (logger "sdfg").
- ``sdfg.graph(fn, *args, wrt=..., format="svg")`` / ``python -m sdfg
  show``: the program's graph (states, maps, tasklets, memlets).
- ``sdfg.compile_mlir(text)``: compile hand-written sdfg-dialect MLIR.
- ``sdfg.set_num_threads(n)`` / ``sdfg.get_num_threads()``: the threads
  compiled programs (their maps and BLAS calls) run on; SDFG_NUM_THREADS.

Unsupported Python raises ``sdfg.FrontendError`` naming file, line and
construct.
"""

from .blas import choose_core as _choose_core

# Before anything loads OpenBLAS (numpy included): see blas.py.
_choose_core()

from .errors import (CacheError, CacheWarning, DeviceError,  # noqa: E402
                     FrontendError)
from .native import NativeModule, ToolError, compile_mlir  # noqa: E402
from .gradients import (Gradient, grad, value_and_grad,  # noqa: E402
                        vjp)
from .program import Program, program, to_mlir  # noqa: E402
from .check_grads import GradCheck, check_grads  # noqa: E402
from .forward_mode import hessian, hvp, jvp  # noqa: E402
from .jacobians import jacfwd, jacrev  # noqa: E402
from .log import config  # noqa: E402
from .custom_vjp import custom_vjp  # noqa: E402
from .markers import stop_gradient  # noqa: E402
from .show import graph  # noqa: E402
from .log import from_environment as _log_from_environment  # noqa: E402
from .source import from_source  # noqa: E402
from .threads import get_num_threads, set_num_threads  # noqa: E402

__all__ = ["CacheError", "CacheWarning", "DeviceError", "FrontendError",
           "GradCheck", "Gradient", "NativeModule", "Program", "ToolError",
           "check_grads", "compile_mlir", "config", "custom_vjp", "from_source",
           "get_num_threads", "grad", "graph", "hessian", "hvp", "jacfwd",
           "jacrev", "jvp", "program", "set_num_threads", "stop_gradient",
           "to_mlir", "value_and_grad", "vjp"]
__version__ = "0.1.0"

_log_from_environment()
