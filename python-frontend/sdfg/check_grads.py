"""`sdfg.check_grads`: a compiled gradient checked against central finite
differences of the NumPy function itself, along random directions, in
float64 (JAX's jax.test_util.check_grads, with a report)."""

import inspect
from typing import Any, Callable, List, NamedTuple, Optional, Sequence

import numpy as np

from . import pytrees
from .forward_mode import hvp, jvp
from .gradients import Gradient, _argnum_names, float_array_params


class Direction(NamedTuple):
    """One direction's directional derivative, by AD and by finite
    differences, and whether they agree within the tolerance. `what` is
    the mode ("rev": sdfg.grad, "fwd": sdfg.jvp) and, for the second
    order, "hvp" (sdfg.hvp against differences of sdfg.grad)."""
    ad: float
    fd: float
    error: float
    tolerance: float
    ok: bool
    what: str = "rev"


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
            lines.append(f"  {d.what} direction {k}: AD {d.ad:.12g}  FD "
                         f"{d.fd:.12g}  |AD-FD| {d.error:.2e} (tolerance "
                         f"{d.tolerance:.2e}) {'ok' if d.ok else 'MISMATCH'}")
        return "\n".join(lines)


def check_grads(fn: Callable, args: Sequence[Any], order: int = 1,
                modes: Sequence[str] = ("rev",), *,
                wrt: Optional[Sequence[str]] = None,
                argnums: Any = None, output: Any = "return",
                eps: float = 1e-6, rtol: float = 1e-6,
                atol: Optional[float] = None, directions: int = 3,
                seed: int = 0, **grad_options: Any) -> GradCheck:
    """Checks the compiled derivatives of `fn` at `args` against central
    finite differences, in float64 (float32 arguments are checked in
    float64), along `directions` random directions: raises AssertionError
    with the report on a mismatch, and returns the report (a GradCheck)
    otherwise. As JAX's check_grads: `modes` "rev" checks sdfg.grad and
    "fwd" sdfg.jvp against differences of `fn` run by NumPy; order=2 also
    checks second derivatives, sdfg.hvp against differences of the
    compiled gradient.

    `wrt`/`argnums`/`output` choose what is differentiated as in
    sdfg.grad (default: every float array argument, the returned value);
    `grad_options` go to sdfg.grad (mem=, strategy=, ...). A direction
    passes when |AD - FD| <= atol + rtol * max(|AD|, |FD|) for the step
    `eps` or a tenth of it (a branch of fn may flip at one of them); atol
    defaults to the rounding error of the difference quotient,
    100 * 2**-52 * max(1, |f|) / eps (of the gradient's size for the
    second order)."""
    if isinstance(order, bool) or order not in (1, 2):
        raise NotImplementedError(
            f"check_grads checks orders 1 and 2, not {order!r}")
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    if not modes or any(m not in ("rev", "fwd") for m in modes):
        raise ValueError(f"modes must name 'rev' and/or 'fwd', not "
                         f"{modes!r}")
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
        wrt = float_array_params(fn, args)
    wrt = [wrt] if isinstance(wrt, str) else list(wrt)
    for w in wrt:
        if w not in names[:len(args)]:
            raise ValueError(f"wrt name {w!r} is not a parameter of "
                             f"{fn.__name__} given in args")
        if any(isinstance(x, np.ndarray) and x.dtype.kind == "c" for x in
               pytrees.flatten_values((args[names.index(w)],))):
            # Its directions would be real only: check a complex
            # argument's gradient with .real/.imag as float arguments.
            raise NotImplementedError(
                f"check_grads: '{w}' is complex; check_grads takes float "
                "arguments (pass the real and imaginary parts as float "
                "arrays and combine them in fn)")

    grad = Gradient(fn, wrt, output, with_seed=False, with_value=False,
                    **grad_options)
    grads = grad(*_copies(args))
    if "fwd" in modes and output != "return" and not (
            isinstance(output, str) and output.startswith("return:")):
        raise NotImplementedError(
            "check_grads mode 'fwd' checks returned values (sdfg.jvp "
            "returns the tangents of what fn returns), not an argument "
            "updated in place")

    def value(point):
        a = _copies(point)
        with np.errstate(all="ignore"):
            r = fn(*a)
        return float(np.sum(_pick(r, a, names, output)))

    f0 = abs(value(args))
    tol0 = atol if atol is not None else \
        100 * 2.0 ** -52 * max(1.0, f0) / eps
    rng = np.random.default_rng(seed)
    results = []
    for _ in range(directions):
        # A direction per argument differentiated, in its structure (a
        # dict of arrays for a dict argument; None at leaves that are not
        # floats).
        dirs = {w: pytrees.map_leaves(
            lambda _, x: rng.standard_normal(np.shape(x))
            if _is_float(x) else None, w, args[names.index(w)])
            for w in wrt}
        derivatives = {}
        if "rev" in modes:
            derivatives["rev"] = float(sum(_dot(grads[w], dirs[w])
                                           for w in wrt))
        if "fwd" in modes:
            tangents = [dirs.get(n) for n in names[:len(args)]]
            r, t = jvp(fn, _copies(args), tangents)
            derivatives["fwd"] = float(np.sum(_pick(t, None, names,
                                                    output)))
        for what, ad in derivatives.items():
            results.append(_compare(
                what, ad, lambda h: (value(_moved(args, names, dirs, h)) -
                                     value(_moved(args, names, dirs, -h))) /
                (2 * h), eps, tol0, rtol))
        if order == 2:
            # d^T H d by forward over reverse, against differences of the
            # compiled gradient along d.
            tangents = [dirs.get(n) for n in names[:len(args)]]
            hv = hvp(fn, _copies(args), tangents, output=output)
            ad = float(sum(_dot(hv[names.index(w)], dirs[w])
                           for w in wrt))

            def along(point):
                g = grad(*_copies(point))
                return float(sum(_dot(g[w], dirs[w]) for w in wrt))
            g0 = abs(float(sum(np.sum(np.abs(np.asarray(x)))
                               for w in wrt
                               for x in pytrees.flatten_values((grads[w],))
                               if x is not None)))
            tol2 = atol if atol is not None else \
                100 * 2.0 ** -52 * max(1.0, g0) / eps
            results.append(_compare(
                "hvp", ad, lambda h: (along(_moved(args, names, dirs, h)) -
                                      along(_moved(args, names, dirs, -h)))
                / (2 * h), eps, tol2, rtol))
    report = GradCheck(getattr(fn, "__name__", "fn"), wrt,
                       output if output != "return" else "its value", eps,
                       results)
    if not report.ok:
        raise AssertionError(str(report))
    return report


def _compare(what, ad, difference, eps, atol, rtol):
    """The better of the checks at steps eps and eps / 10."""
    best = None
    for h in (eps, eps / 10):
        fd = difference(h)
        err = abs(ad - fd)
        tol = atol * eps / h + rtol * max(abs(ad), abs(fd))
        d = Direction(ad, fd, err, tol, err <= tol, what)
        if best is None or (d.ok and not best.ok) or \
                (d.ok == best.ok and err < best.error):
            best = d
    return best


def _pick(result, args, names, output):
    """The differentiated output among what fn returned (or, for an
    argument's name, the argument after the call)."""
    if output == "return":
        return result
    if isinstance(output, str) and output.startswith("return:"):
        return result[int(output.split(":", 1)[1])]
    return args[names.index(output)]


def _is_float(x):
    return isinstance(x, (float, np.floating)) or (
        isinstance(x, np.ndarray) and x.dtype.kind == "f")


def _float64(a):
    def leaf(_, x):
        if isinstance(x, np.ndarray) and x.dtype.kind == "f":
            return x.astype(np.float64)
        if isinstance(x, (float, np.floating)):
            return float(x)
        return x
    return pytrees.map_leaves(leaf, "", a)


def _copies(args):
    return [pytrees.map_leaves(
        lambda _, x: x.copy() if isinstance(x, np.ndarray) else x, "", a)
        for a in args]


def _dot(g, d):
    """sum(g * d) over the leaves of two trees of one structure (d None
    where nothing moves)."""
    return sum(np.sum(np.asarray(x) * y) for x, y in zip(
        pytrees.flatten_values((g,)), pytrees.flatten_values((d,)))
        if y is not None)


def _moved(args, names, dirs, h):
    out = list(args)
    for w, d in dirs.items():
        k = names.index(w)
        parts = dict(pytrees.leaves(w, d))

        def leaf(path, x):
            step = parts.get(path)
            if step is None:
                return x
            moved = x + h * step
            return float(moved) if isinstance(x, float) else moved
        out[k] = pytrees.map_leaves(leaf, w, args[k])
    return out
