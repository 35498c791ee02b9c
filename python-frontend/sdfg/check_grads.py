"""`sdfg.check_grads`: a compiled gradient checked against central finite
differences of the NumPy function itself, along random directions, in
float64 (JAX's jax.test_util.check_grads, with a report)."""

import inspect
from typing import Any, Callable, List, NamedTuple, Optional, Sequence

import numpy as np

from .program import Gradient, _argnum_names


class Direction(NamedTuple):
    """One direction's directional derivative, by AD and by finite
    differences, and whether they agree within the tolerance."""
    ad: float
    fd: float
    error: float
    tolerance: float
    ok: bool


class GradCheck(NamedTuple):
    """What check_grads compared; str() is the report."""
    name: str
    wrt: List[str]
    output: str
    eps: float
    directions: List[Direction]

    @property
    def ok(self):
        return all(d.ok for d in self.directions)

    def __str__(self):
        lines = [f"check_grads of {self.name}: d sum({self.output}) / d "
                 f"({', '.join(self.wrt)}), central differences with step "
                 f"{self.eps:g} (and {self.eps / 10:g}), float64"]
        for k, d in enumerate(self.directions):
            lines.append(f"  direction {k}: AD {d.ad:.12g}  FD {d.fd:.12g}"
                         f"  |AD-FD| {d.error:.2e} (tolerance "
                         f"{d.tolerance:.2e}) {'ok' if d.ok else 'MISMATCH'}")
        return "\n".join(lines)


def check_grads(fn: Callable, args: Sequence[Any], order: int = 1,
                modes: Sequence[str] = ("rev",), *,
                wrt: Optional[Sequence[str]] = None,
                argnums: Any = None, output: Any = "return",
                eps: float = 1e-6, rtol: float = 1e-6,
                atol: Optional[float] = None, directions: int = 3,
                seed: int = 0, **grad_options: Any) -> GradCheck:
    """Checks sdfg.grad(fn) at `args` against central finite differences
    of `fn` run by NumPy, in float64 (float32 arguments are checked in
    float64), along `directions` random directions: raises AssertionError
    with the report on a mismatch, and returns the report (a GradCheck)
    otherwise.

    `wrt`/`argnums`/`output` choose what is differentiated as in
    sdfg.grad (default: every float array argument, the returned value);
    `grad_options` go to sdfg.grad (mem=, strategy=, ...). A direction
    passes when |AD - FD| <= atol + rtol * max(|AD|, |FD|) for the step
    `eps` or a tenth of it (a branch of fn may flip at one of them); atol
    defaults to the rounding error of the difference quotient,
    100 * 2**-52 * max(1, |f|) / eps. `order` and `modes` are JAX's:
    order 1 in reverse mode is what exists (forward mode and second
    order are not implemented)."""
    if order != 1:
        raise NotImplementedError(
            "check_grads checks first derivatives (order=1); higher orders "
            "need forward-over-reverse, which is not implemented yet")
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    if not modes or any(m not in ("rev", "fwd") for m in modes):
        raise ValueError(f"modes must name 'rev' and/or 'fwd', not "
                         f"{modes!r}")
    if "fwd" in modes:
        raise NotImplementedError(
            "check_grads mode 'fwd' needs forward mode (sdfg.jvp), which "
            "is not implemented yet; check modes=('rev',)")
    if not (isinstance(eps, (int, float)) and 0 < eps < 1):
        raise ValueError(f"eps must be a float in (0, 1), not {eps!r}")
    if isinstance(directions, bool) or not isinstance(directions, int) or \
            directions < 1:
        raise ValueError(f"directions must be a positive int, not "
                         f"{directions!r}")
    names = list(inspect.signature(fn).parameters)
    args = [_float64(a) for a in args]
    if argnums is not None:
        if wrt is not None:
            raise TypeError("give wrt (parameter names) or argnums "
                            "(positions), not both")
        wrt = _argnum_names(fn, argnums)[0]
    if wrt is None:
        wrt = [n for n, a in zip(names, args)
               if isinstance(a, np.ndarray) and a.dtype.kind == "f"]
    wrt = [wrt] if isinstance(wrt, str) else list(wrt)
    for w in wrt:
        if w not in names[:len(args)]:
            raise ValueError(f"wrt name {w!r} is not a parameter of "
                             f"{fn.__name__} given in args")

    grads = Gradient(fn, wrt, output, with_seed=False, with_value=False,
                     **grad_options)(*_copies(args))

    def value(point):
        a = _copies(point)
        with np.errstate(all="ignore"):
            r = fn(*a)
        if output == "return":
            out = r
        elif isinstance(output, str) and output.startswith("return:"):
            out = r[int(output.split(":", 1)[1])]
        else:
            out = a[names.index(output)]
        return float(np.sum(out))

    f0 = abs(value(args))
    if atol is None:
        atol = 100 * 2.0 ** -52 * max(1.0, f0) / eps
    rng = np.random.default_rng(seed)
    results = []
    for _ in range(directions):
        dirs = {w: rng.standard_normal(np.shape(args[names.index(w)]))
                for w in wrt}
        ad = float(sum(np.sum(np.asarray(grads[w]) * dirs[w])
                       for w in wrt))
        best = None
        for h in (eps, eps / 10):
            fd = (value(_moved(args, names, dirs, h)) -
                  value(_moved(args, names, dirs, -h))) / (2 * h)
            err = abs(ad - fd)
            tol = atol * eps / h + rtol * max(abs(ad), abs(fd))
            d = Direction(ad, fd, err, tol, err <= tol)
            if best is None or (d.ok and not best.ok) or \
                    (d.ok == best.ok and err < best.error):
                best = d
        results.append(best)
    report = GradCheck(getattr(fn, "__name__", "fn"), wrt,
                       output if output != "return" else "its value", eps,
                       results)
    if not report.ok:
        raise AssertionError(str(report))
    return report


def _float64(a):
    if isinstance(a, np.ndarray) and a.dtype.kind == "f":
        return a.astype(np.float64)
    if isinstance(a, (float, np.floating)):
        return float(a)
    return a


def _copies(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _moved(args, names, dirs, h):
    out = list(args)
    for w, d in dirs.items():
        k = names.index(w)
        out[k] = args[k] + h * d
    return out
