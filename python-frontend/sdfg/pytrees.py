"""Pytrees: dicts, tuples, lists and named tuples of arrays (and of
numbers) as arguments, as JAX takes parameters.

A compiled program has one parameter per leaf, named by the leaf's path
from the argument: `params.W` for params["W"], `layers.0.b` for
layers[0]["b"], `state.x` for a named tuple's field. This module flattens
a call's arguments into those leaves (in the order of the parameters:
dict entries in insertion order, sequences in order), keys their
structure (a dict with other keys or another order is another program),
and rebuilds gradients and tangents in the caller's structure
(docs/design/pytrees.md).
"""

from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple


def is_node(value: Any) -> bool:
    """Whether `value` is an inner node of a pytree (not a leaf)."""
    t = type(value)
    return t is dict or t is tuple or t is list or (
        isinstance(value, tuple) and hasattr(t, "_fields"))


def _segment(key: Any, where: str) -> str:
    """The path segment of dict key `key`: the key itself for a string
    made of letters, digits and underscores (as parameter names are), the
    number for an int."""
    if isinstance(key, bool) or not isinstance(key, (str, int)):
        raise TypeError(f"{where} has a key {key!r}: dict arguments of "
                        "compiled programs take string or int keys")
    if isinstance(key, int):
        return str(key).replace("-", "m")  # params[-1]: `params.m1`
    if not key or not all(c.isascii() and (c.isalnum() or c == "_")
                          for c in key):
        raise TypeError(f"{where} has the key {key!r}: the keys of dict "
                        "arguments name the program's parameters, so they "
                        "are made of ASCII letters, digits and underscores")
    return key


def children(value: Any, where: str = "argument") -> List[Tuple[str, Any]]:
    """(path segment, child) of a pytree node, in flattening order."""
    if type(value) is dict:
        out = [(_segment(k, where), v) for k, v in value.items()]
        if len({seg for seg, _ in out}) != len(out):
            raise TypeError(f"{where} has keys that name the same "
                            f"parameter ({list(value)}: an int key and "
                            "its string)")
        return out
    fields = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and fields is not None:
        return list(zip(fields, value))
    return [(str(k), v) for k, v in enumerate(value)]


def leaves(name: str, value: Any) -> Iterator[Tuple[str, Any]]:
    """(path, leaf) of every leaf of `value` named `name`, in order."""
    if not is_node(value):
        yield name, value
        return
    for seg, child in children(value, f"argument '{name}'"):
        yield from leaves(f"{name}.{seg}", child)


def flatten(names: Sequence[str], args: Sequence[Any]
            ) -> Tuple[List[str], List[Any]]:
    """The leaves of a call's arguments (named `names`), as the compiled
    program's parameters: (their paths, their values)."""
    paths, values = [], []
    for name, a in zip(names, args):
        for path, leaf in leaves(name, a):
            paths.append(path)
            values.append(leaf)
    return paths, values


def flatten_values(args: Sequence[Any]) -> Tuple[Any, ...]:
    """The leaves of `args`, in order (flatten's values without the
    names: the hot path of a call)."""
    out = []

    def walk(v):
        if is_node(v):
            for child in (v.values() if type(v) is dict else v):
                walk(child)
        else:
            out.append(v)
    for a in args:
        walk(a)
    return tuple(out)


def has_nodes(args: Sequence[Any]) -> bool:
    return any(is_node(a) for a in args)


def structure(value: Any, leaf_key: Callable[[Any], Any]) -> Any:
    """A hashable description of `value`'s structure, with leaf_key(leaf)
    at each leaf: what decides the program compiled for it."""
    t = type(value)
    if t is dict:
        return ("dict", tuple(value),
                tuple(structure(v, leaf_key) for v in value.values()))
    if t is tuple or t is list:
        return (t.__name__, tuple(structure(v, leaf_key) for v in value))
    if is_node(value):
        return ("namedtuple", t.__module__, t.__qualname__, t._fields,
                tuple(structure(v, leaf_key) for v in value))
    return leaf_key(value)


def map_leaves(fn: Callable[[str, Any], Any], name: str, value: Any) -> Any:
    """`value` with each leaf replaced by fn(path, leaf), in the same
    structure (dicts keep their key order, named tuples their type)."""
    if not is_node(value):
        return fn(name, value)
    parts = [(seg, map_leaves(fn, f"{name}.{seg}", child))
             for seg, child in children(value, f"argument '{name}'")]
    if type(value) is dict:
        return {k: v for k, (_, v) in zip(value, parts)}
    items = [v for _, v in parts]
    if type(value) is list:
        return items
    if type(value) is tuple:
        return tuple(items)
    return type(value)(*items)


def matching(what: str, name: str, value: Any, other: Any) -> None:
    """Raises ValueError unless `other` has `value`'s structure (None
    stands for a whole subtree: no tangent there)."""
    if other is None or not is_node(value):
        return
    same = type(other) is type(value) if type(value) is not list else \
        type(other) in (list, tuple)
    if not same or len(other) != len(value) or (
            type(value) is dict and list(other) != list(value)):
        raise ValueError(f"{what} for '{name}' does not have the argument's "
                         f"structure ({_describe(value)} expected, got "
                         f"{_describe(other)})")
    pairs = zip(children(value), (other.values() if type(other) is dict
                                  else other))
    for (seg, child), o in pairs:
        matching(what, f"{name}.{seg}", child, o)


def _describe(value: Any) -> str:
    if type(value) is dict:
        return f"a dict with keys {list(value)}"
    if is_node(value):
        return f"a {type(value).__name__} of {len(value)}"
    return f"a {type(value).__name__}"


def paths_under(prefix: str, paths: Sequence[str]) -> List[str]:
    """The paths of `paths` at or below `prefix` (`params` covers
    `params.W` and `params.b`; `params.W` only itself)."""
    return [p for p in paths if p == prefix or p.startswith(prefix + ".")]


def subtree(names: Sequence[str], args: Sequence[Any], path: str) -> Any:
    """The part of a call's arguments at `path` (`params.layers.0`)."""
    head, *rest = path.split(".")
    value = args[list(names).index(head)]
    for seg in rest:
        value = dict(children(value))[seg]
    return value


def leaves_to_differentiate(names: Sequence[str], args: Sequence[Any],
                            wrt: Sequence[str]) -> List[str]:
    """The leaf parameters `wrt` stands for: a name of an argument or a
    path in one (`params`, `params.W`) covers its float arrays and floats
    (a leaf named on its own is kept whatever it is: the checks that
    follow name it)."""
    paths, values = flatten(names, args)
    out = []
    for w in wrt:
        under = paths_under(w, paths)
        if under == [w] or not under:
            out.append(w)
            continue
        floats = [p for p in under if _is_float_leaf(values[paths.index(p)])]
        if not floats:
            raise TypeError(f"'{w}' holds no float array or float to "
                            "differentiate with respect to")
        out.extend(floats)
    return out


def _is_float_leaf(value: Any) -> bool:
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind is not None:
        return kind == "f"
    return isinstance(value, float)


def regroup(names: Sequence[str], args: Sequence[Any], wrt: Sequence[str],
            by_leaf: dict) -> dict:
    """{w: the gradients (or tangents) of w in its own structure} from
    `by_leaf` (leaf path -> value); a leaf with none (an int, an int
    array) gets None, as a tree of gradients needs a value at each
    leaf."""
    out = {}
    for w in wrt:
        if w in by_leaf:
            out[w] = by_leaf[w]
            continue
        out[w] = map_leaves(lambda path, leaf: by_leaf.get(path), w,
                            subtree(names, args, w))
    return out


def build(tree: Any, values: Sequence[Any]) -> Any:
    """A returned structure (the translator's return_tree: {"dict": [[key,
    sub], ...]}, {"tuple": [...]}, {"list": [...]}, or an output number)
    with the outputs' values at its leaves."""
    if not isinstance(tree, dict):
        return values[tree]
    kind, items = next(iter(tree.items()))
    if kind == "dict":
        return {k: build(sub, values) for k, sub in items}
    parts = [build(sub, values) for sub in items]
    return parts if kind == "list" else tuple(parts)


def cut_lengths(lengths: Sequence[Sequence[int]], values: Sequence[Any],
                primal: Sequence[Any]) -> list:
    """`values` with each output k of `lengths` ([k, j] pairs) cut to its
    first primal[j] rows, a copy owning its data as NumPy's x[mask], and
    the hidden outputs j (the last ones) dropped
    (docs/design/data-dependent-lengths.md)."""
    out = list(values)
    for k, j in lengths:
        n, v = int(primal[j]), out[k]
        if v is not None and n < v.shape[0]:
            out[k] = v[:n].copy()
    return out[:min(j for _, j in lengths)]


def result(meta: dict, values: Sequence[Any],
           primal: Optional[Sequence[Any]] = None) -> Any:
    """What a call returns, from its outputs' values (in order); `primal`:
    the values a call's tangents (`values`) belong to."""
    if meta["returns_none"]:
        return None
    if meta.get("lengths"):
        values = cut_lengths(meta["lengths"], values,
                             values if primal is None else primal)
    tree = meta.get("return_tree")
    if tree is not None:
        return build(tree, values)
    if meta["returns_tuple"]:
        return tuple(values)
    return values[0]
