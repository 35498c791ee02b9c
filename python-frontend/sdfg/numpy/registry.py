"""The registry of NumPy functions and array methods: which Python
function translates `np.<name>(...)` and `array.<name>(...)`.

Implementations register themselves with the decorators below (see the
package docstring for how to add one); the translator looks names up
here, through numpy_call and method_call, instead of testing names one
by one. Also the helpers every implementation uses to bind its
arguments the way NumPy does (Arguments, no_kwargs).
"""

from typing import Any, Callable, Dict, NamedTuple, Optional, Sequence, \
    Tuple

# impl(tr, name, args, kwargs, node) -> the value of np.<name>(*args,
# **kwargs): tr the Translator, name the name called (one implementation
# may serve several names), node the ast.Call (for errors).
Implementation = Callable[..., Any]
# impl(tr, obj, name, args, kwargs, node) -> the value of obj.<name>(...).
MethodImplementation = Callable[..., Any]


class Entry(NamedTuple):
    impl: Implementation
    # NumPy's names of the positional parameters supported, where more
    # positional arguments are a located error rather than a wrong
    # binding; None where the implementation checks them itself.
    positional: Optional[Tuple[str, ...]]


# np.<name> -> its implementation. A name starting with "." (".outer")
# serves every np.<ufunc><name> not registered under its full name.
FUNCTIONS: Dict[str, Entry] = {}
# array.<name>() -> its implementation.
METHODS: Dict[str, MethodImplementation] = {}


def numpy_function(*names: str, positional: Optional[Sequence[str]] = None,
                   method: bool = False
                   ) -> Callable[[Implementation], Implementation]:
    """Registers the decorated impl(tr, name, args, kwargs, node) as
    np.<name> for each name; with method=True also as the array method
    of that name, the array passed first (`a.clip(0, 1)` is
    `np.clip(a, 0, 1)`)."""
    def register(impl: Implementation) -> Implementation:
        for name in names:
            if name in FUNCTIONS:
                raise ValueError(f"np.{name} is registered twice")
            FUNCTIONS[name] = Entry(impl, None if positional is None
                                    else tuple(positional))
            if method:
                _register_method(name, same_function)
        return impl
    return register


def array_method(*names: str
                 ) -> Callable[[MethodImplementation], MethodImplementation]:
    """Registers the decorated impl(tr, obj, name, args, kwargs, node) as
    the array method obj.<name>(...) for each name."""
    def register(impl: MethodImplementation) -> MethodImplementation:
        for name in names:
            _register_method(name, impl)
        return impl
    return register


def _register_method(name: str, impl: MethodImplementation) -> None:
    if name in METHODS:
        raise ValueError(f"array method .{name}() is registered twice")
    METHODS[name] = impl


def same_function(tr, obj, name: str, args: list, kwargs: dict, node):
    """The method of the NumPy function of that name, the array first."""
    return numpy_call(tr, name, [obj] + list(args), kwargs, node)


def is_numpy_function(name: str) -> bool:
    """Whether np.<name> is a function the frontend translates."""
    return name in FUNCTIONS


def numpy_call(tr, name: str, args: list, kwargs: dict, node):
    """The value of np.<name>(*args, **kwargs)."""
    from . import complex_functions
    if not name.startswith("fft.") and \
            complex_functions.wants_complex(args, kwargs):
        # A complex argument or dtype: pairs of reals (its module); np.fft
        # takes complex arrays itself (fft.py).
        return complex_functions.call(tr, name, args, kwargs, node)
    entry = FUNCTIONS.get(name)
    if entry is None and "." in name:
        entry = FUNCTIONS.get("." + name.rsplit(".", 1)[1])
    if entry is None:
        raise tr.unsupported(node, f"np.{name}")
    names = entry.positional
    if names is not None and len(args) > len(names):
        raise tr.unsupported(
            node, f"np.{name} with more than {len(names)} positional "
            f"argument{'s' if len(names) > 1 else ''}",
            f"the parameters after {', '.join(names)} are not supported")
    return entry.impl(tr, name, args, kwargs, node)


class CompileTimeObject:
    """A Python object of the program known when compiling (np.random's
    Generator): `obj.<name>` is its attribute(tr, name, node) (a
    BoundMethod for a method), `obj.<name>(...)` its method(tr, name,
    args, kwargs, node)."""

    def attribute(self, tr, name: str, node):
        raise NotImplementedError

    def bind(self, tr, name: str, existing, node) -> None:
        """Checks `name = obj` (`existing` the name's value before):
        a located error where the binding is refused."""
        raise NotImplementedError

    def method(self, tr, name: str, args: list, kwargs: dict, node):
        raise NotImplementedError


def method_call(tr, obj, name: str, args: list, kwargs: dict, node):
    """The value of obj.<name>(*args, **kwargs) for an array obj (or a
    CompileTimeObject)."""
    if isinstance(obj, CompileTimeObject):
        return obj.method(tr, name, args, kwargs, node)
    from . import complex_functions
    if complex_functions.cv.is_complex(obj) or (
            name == "astype" and complex_functions.wants_complex(args,
                                                                 kwargs)):
        return complex_functions.method(tr, obj, name, args, kwargs, node)
    impl = METHODS.get(name)
    if impl is None:
        raise tr.unsupported(node, f"array method .{name}()")
    return impl(tr, obj, name, args, kwargs, node)


def no_kwargs(tr, kwargs: dict, node, allowed: Sequence[str] = ()) -> None:
    """Rejects the keyword arguments not in `allowed`."""
    for k in kwargs:
        if k not in allowed:
            raise tr.unsupported(node, f"keyword argument '{k}'")


class Arguments:
    """One call's arguments as NumPy binds them: `arg(k, key)` is the
    keyword `key` if given, else the k-th positional argument, else the
    default; `arg.only(...)` rejects keywords outside the list given."""

    def __init__(self, tr, args: list, kwargs: dict, node):
        self.tr, self.args, self.kwargs, self.node = tr, args, kwargs, node

    def __call__(self, k: int, key: str, default: Any = None) -> Any:
        if key in self.kwargs:
            return self.kwargs[key]
        return self.args[k] if len(self.args) > k else default

    def only(self, *allowed: str) -> None:
        no_kwargs(self.tr, self.kwargs, self.node, allowed)
