"""A call's arguments as the compiled program takes them: bound to the
function's parameters (keywords, defaults) and validated (dtypes, byte
order, ndarray subclasses, int64 range), or a TypeError/OverflowError
naming the parameter (docs/Reliability.md, "Arguments")."""

import inspect
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from . import pytrees
from .semantics.values import SUPPORTED_DTYPES as _ARRAY_TYPES


def bind(fn: Callable, args: Sequence[Any], kwargs: Dict[str, Any]
         ) -> Tuple[Any, ...]:
    """The arguments of a call of `fn` with keywords and defaults, in the
    order of its parameters (keyword-only ones last, as the translator
    takes them): Python's TypeError for a missing or unknown one."""
    signature = inspect.signature(fn)
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
           for p in signature.parameters.values()):
        return tuple(bound.args)  # the translator rejects the signature
    return tuple(bound.arguments[n] for n in signature.parameters)


def normalise(args: Sequence[Any], fn: Optional[Callable] = None
              ) -> Tuple[Any, ...]:
    """The arguments of a call (in the order of `fn`'s parameters) as the
    compiled program takes them, or an error naming the parameter
    (docs/Reliability.md, "Arguments"):

    - arrays of a supported dtype in the machine's byte order, ints within
      int64, floats, bools, strings and None pass as they are (the common
      case costs a type test per argument);
    - an array of another byte order is converted to native order (a
      copy: the call writes what the program writes back into the
      caller's array); an ndarray subclass that computes as plain arrays
      do (np.memmap, or one that overrides none of ndarray's behaviour)
      is passed as a plain view of the same memory;
    - TypeError for np.ma.MaskedArray, np.matrix and other subclasses that
      change what NumPy computes, and for dtypes the compiler has no type
      for (float16, complex256, datetime, ...), arrays and
      NumPy scalars alike (complex128 and complex64 arrays pass: pairs of
      reals, docs/design/complex-numbers.md); OverflowError for an int outside int64 (as
      NumPy 2 raises for a Python int that does not fit an int64 array).

    Dicts, tuples and lists (pytrees) are normalised leaf by leaf; other
    values are left to the translator, which rejects them with a
    FrontendError. Whether an argument is read-only
    matters only for those the program writes (see LoadedProgram.check)."""
    out = None
    for k, a in enumerate(args):
        t = type(a)
        if t is np.ndarray:
            if (a.dtype.type in _ARRAY_TYPES or a.dtype.type in
                    _COMPLEX_TYPES) and a.dtype.isnative:
                continue
        elif t is float or t is bool or t is str or a is None:
            continue
        elif t is int:
            if _INT64_MIN <= a <= _INT64_MAX:
                continue
        if pytrees.is_node(a):
            # A dict, tuple or list: each leaf as the program takes it,
            # named by its path in errors.
            v = pytrees.map_leaves(
                lambda path, leaf: argument(
                    leaf, k, fn, (f"argument '{path}'", path)),
                param_name(fn, k) if fn is not None else f"#{k}", a)
        else:
            v = argument(a, k, fn)
        if v is not a:
            if out is None:
                out = list(args)
            out[k] = v
    return tuple(args) if out is None else tuple(out)




_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
# Complex arrays pass as float arrays with a trailing axis of 2
# (program.py converts them at the call).
_COMPLEX_TYPES = (np.complex128, np.complex64)


# ndarray attributes a subclass may define without changing what NumPy
# computes on it (construction, printing, pickling, bookkeeping).
_BENIGN_OVERRIDES = frozenset((
    "__new__", "__init__", "__array_finalize__", "__array_priority__",
    "__repr__", "__str__", "__format__", "__reduce__", "__reduce_ex__",
    "__setstate__", "__getstate__", "__copy__", "__deepcopy__", "__doc__",
    "__module__", "__dict__", "__weakref__", "__qualname__", "__slots__",
    "__init_subclass__", "__class_getitem__", "__annotations__",
    "__sizeof__", "__dir__", "dump", "dumps", "tofile", "tolist",
    "tobytes", "tostring"))


def param_name(fn, k):
    """The name of parameter `k` of `fn` (as Program.bind orders them)."""
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return names[k] if k < len(names) else f"#{k}"


def _subclass_overrides(cls):
    """The ndarray methods and attributes that ndarray subclass `cls`
    defines anew (np.memmap's own are benign: they only make results of
    indexing and ufuncs plain arrays again)."""
    names = set()
    for c in cls.__mro__:
        if c is np.ndarray or c is np.memmap:
            break
        names.update(n for n in vars(c) if n not in _BENIGN_OVERRIDES
                     and hasattr(np.ndarray, n))
    return sorted(names)


def argument(value: Any, k: int, fn: Optional[Callable],
             label: Optional[str] = None) -> Any:
    """normalise of one argument that is not of the common kinds. Errors
    name parameter `k` of `fn`, or `label` = (how, name): ("global 'W'",
    "W") for a module-level array."""
    def what():
        return label[0] if label else f"argument '{param_name(fn, k)}'"

    def name():
        return label[1] if label else param_name(fn, k)

    if isinstance(value, np.ndarray):
        cls = type(value)
        if cls is not np.ndarray:
            if isinstance(value, np.ma.MaskedArray):
                raise TypeError(
                    f"{what()} is a numpy.ma.MaskedArray: a compiled "
                    f"program does not apply masks; pass {name()}.filled("
                    "value) (masked elements replaced by value), or "
                    f"np.asarray({name()}) to ignore the mask")
            if isinstance(value, np.matrix):
                raise TypeError(
                    f"{what()} is a numpy.matrix, for which * is a matrix "
                    "product and reductions keep two dimensions; a "
                    "compiled program computes as for plain arrays: pass "
                    f"np.asarray({name()}) (and write matrix products "
                    "with @)")
            overrides = _subclass_overrides(cls)
            if overrides:
                raise TypeError(
                    f"{what()} is a {cls.__module__}.{cls.__qualname__}, "
                    f"an ndarray subclass that redefines "
                    f"{', '.join(overrides[:6])}"
                    f"{', ...' if len(overrides) > 6 else ''}; a compiled "
                    "program computes as NumPy does on plain arrays: pass "
                    f"np.asarray({name()}) if that is what is meant")
            # np.memmap (np.load(..., mmap_mode=...)), or a subclass that
            # computes as ndarray does: a plain view of the same memory.
            value = value.view(np.ndarray)
        dt = value.dtype
        if not dt.isnative:
            # Big-endian data on a little-endian machine: a native copy
            # (the call writes a written argument back into the caller's
            # array, converting again).
            dt = dt.newbyteorder("=")
            if dt in _ARRAY_DTYPES:
                value = value.astype(dt)
        if dt.type in _COMPLEX_TYPES:
            # Pairs of reals (docs/design/complex-numbers.md).
            return value.astype(dt) if value.dtype != dt else value
        if dt.type not in _ARRAY_TYPES:
            if dt in _ARRAY_DTYPES:
                # The same dtype under another type name (np.longlong for
                # int64): a view as the one the compiler knows.
                return value.view(_ARRAY_DTYPES[_ARRAY_DTYPES.index(dt)])
            raise TypeError(_dtype_message(what(), "an array", dt,
                                           f"{name()}.astype(np.float64)"))
        return value
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, (int, np.integer)):
        if not _INT64_MIN <= int(value) <= _INT64_MAX:
            raise OverflowError(
                f"{what()}: Python integer {int(value)} out of bounds for "
                "int64 (int arguments are compiled in as int64 constants; "
                "NumPy 2 raises this OverflowError too); pass a float if a "
                "float is meant")
        return value
    if isinstance(value, np.generic):
        if value.dtype.type in (np.float64, np.float32):
            return value
        raise TypeError(_dtype_message(what(), "a NumPy scalar",
                                       value.dtype, f"np.float64({name()})"))
    return value


_ARRAY_DTYPES = [np.dtype(t) for t in _ARRAY_TYPES]


def _dtype_message(who, what, dtype, fix):
    supported = ", ".join(str(d) for d in _ARRAY_DTYPES)
    return (f"{who} is {what} of dtype {dtype}, which compiled programs do "
            f"not take (they take {supported}); convert it, e.g. {fix}")
