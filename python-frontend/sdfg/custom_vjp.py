"""`sdfg.custom_vjp`: a user-written reverse-mode rule for a helper
function called inside compiled programs, as JAX's `jax.custom_vjp`.

    @sdfg.custom_vjp
    def clip_gradient(x, lo, hi):
        return x                       # the value: x itself
    def fwd(x, lo, hi):
        return x, (lo, hi)             # the value and the residuals
    def bwd(res, g):
        lo, hi = res
        return (np.clip(g, lo, hi), None, None)   # one per argument
    clip_gradient.defvjp(fwd, bwd)

A program calling it compiles the helper as a program of its own, called
through `sdfg.custom_call`; for each float array argument, the
cotangent bwd gives is another small program, which the gradient
program calls instead of differentiating the helper (frontend/
custom_calls.py, docs/design/custom-vjp.md). Called from Python, the
object runs the function itself.
"""

import functools
from typing import Any, Callable, Optional


class custom_vjp:
    """A function with a user-given reverse-mode rule (see the module)."""

    def __init__(self, fun: Callable):
        if not callable(fun):
            raise TypeError(f"custom_vjp takes a function, not "
                            f"{type(fun).__name__}")
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.fwd: Optional[Callable] = None
        self.bwd: Optional[Callable] = None

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        """Sets the rule: fwd(*args) returns (fun(*args), residuals);
        bwd(residuals, g) returns a tuple with one cotangent per argument
        of fun (None for an argument given none), as JAX's."""
        if not callable(fwd) or not callable(bwd):
            raise TypeError("defvjp takes two functions, fwd and bwd")
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    @property
    def __sdfg_custom_vjp__(self):
        """(fun, fwd, bwd), for the cache key (cache_key.py): editing any
        of the three compiles again."""
        return (self.fun, self.fwd, self.bwd)


def cotangent(cotangents: Any, k: int, n: int) -> Any:
    """The k-th of bwd's n cotangents. Inside a compiled program (the vjp
    programs that frontend/custom_calls.py generates) the translator
    checks that bwd returned a tuple of n; from Python it indexes."""
    return cotangents[k]
