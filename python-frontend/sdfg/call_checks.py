"""The checks around one call of a compiled program: index arrays within
the extents they index, no overlap between an argument the program writes
and another it reads, writeable arguments, and the errors the program
recorded (raised as Python's, located at the Python line)."""

import bisect
import struct
import sys
from typing import Any, FrozenSet, Sequence

import numpy as np

from . import native


def written_args(meta: dict) -> FrozenSet[str]:
    """The names of the arguments the program writes (its ABI description
    says which)."""
    abi = native.function_abi(meta["abi"], meta["name"])
    return frozenset(a["name"] for a in abi["args"] if a.get("written"))


def check_indices(meta: dict, args: Sequence[Any],
                  written: FrozenSet[str]) -> None:
    """IndexError, as NumPy raises it, for an index array argument with a
    value outside the extent it indexes (Signature.index_checks). An
    argument the program writes is skipped: its values at the subscript
    may differ from the caller's."""
    checks = meta.get("index_checks")
    if not checks:
        return
    values = {name: value for (kind, name, _, _), value in
              zip(meta["params"], args) if kind == "array"}
    for name, extent, where in checks:
        a = values.get(name)
        if name in written or a is None or a.size == 0:
            continue
        lo, hi = int(a.min()), int(a.max())
        bad = lo if lo < -extent else hi if hi >= extent else None
        if bad is not None:
            raise IndexError(f"{where}: index {bad} is out of bounds for "
                             f"size {extent} (in argument '{name}')")


def show_param(n):
    """How an error names parameter `n` of a compiled program: module-level
    arrays are passed as parameters "global.<name>"."""
    return (f"global '{n[len('global.'):]}'" if n.startswith("global.")
            else f"argument '{n}'")


def check_overlap(meta: dict, args: Sequence[Any],
                  written: FrozenSet[str]) -> None:
    """ValueError for two array arguments that share memory where the
    program writes one of them: it reads and writes its arguments as
    separate arrays (a write into one would reach the other mid-way,
    where NumPy's order of operations decides what each sees). The same
    for a program and its gradients (LoadedProgram.check)."""
    if not written:
        return
    arrays = [(name, value) for (kind, name, _, _), value in
              zip(meta["params"], args) if kind == "array"]
    for i, (n1, a1) in enumerate(arrays):
        for n2, a2 in arrays[i + 1:]:
            if (n1 in written or n2 in written) and \
                    np.may_share_memory(a1, a2):
                changed = n1 if n1 in written else n2
                if n1.startswith("global.") or n2.startswith("global."):
                    # Module-level arrays are passed as arguments too.
                    raise ValueError(
                        f"{show_param(n1)} and {show_param(n2)} share "
                        f"memory and the program writes "
                        f"{show_param(changed)}: the compiled "
                        "program reads and writes them as separate arrays; "
                        "index one array in the function instead of a view "
                        "of it (A[2:8] for Av = A[2:8]), or pass a copy")
                raise ValueError(
                    f"arguments '{n1}' and '{n2}' share memory and the "
                    f"program writes '{changed}': pass a copy of one of "
                    "them")


def check_writeable(meta: dict, args: Sequence[Any],
                    written: FrozenSet[str]) -> None:
    """NumPy's ValueError for a read-only array (np.frombuffer of bytes, a
    memory map opened with mode "r", an array whose flags.writeable is
    False) that the program writes; read-only arrays it only reads are
    passed as they are."""
    for (kind, name, _, _), value in zip(meta["params"], args):
        if kind == "array" and name in written and \
                not value.flags.writeable:
            raise ValueError(
                f"assignment destination is read-only: the program writes "
                f"{show_param(name)}, and the array passed is read-only; "
                "pass a writeable copy (np.array(...))")


def python_line(meta, line):
    """The Python `file:line` that generated sdfg line `line` came from."""
    runs = meta.get("line_sources") or []
    k = bisect.bisect_right([first for first, _ in runs], line) - 1
    if k >= 0 and runs[k][1] is not None:
        return runs[k][1]
    return f"generated sdfg line {line}"


def human_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024


def check_after_call(meta: dict, module: Any) -> None:
    """After a call: what its print calls recorded, printed; then a failed
    allocation, an index out of bounds, a singular matrix, the GPU
    runtime's error, or the emulator's races."""
    if meta.get("print_sites"):
        print_log(meta["print_sites"], native.take_print_log(module))
    failed = native.take_alloc_error(module)
    if failed is not None:
        # The call stopped at the allocation: what it computed is void.
        native.take_index_error(module)
        message = (f"the compiled program {meta['name']!r} could not "
                   f"allocate {failed} bytes ({human_bytes(failed)})")
        if meta.get("gradient"):
            message += ("; its gradient stores values for the backward "
                        "pass: pass a memory limit (mem= in MiB) to "
                        "sdfg.grad to recompute instead of storing")
        raise MemoryError(message)
    bad = native.take_index_error(module)
    if bad is not None:
        line, index, axis, extent = bad
        where = python_line(meta, line)
        # Negative axes: extents known only at run time that do not
        # broadcast (sdfg.broadcast_extent), NumPy's ValueError.
        if axis == -1:
            raise ValueError(f"{where}: operands could not be broadcast "
                             f"together with extents {index} and {extent}")
        if axis == -2:
            raise ValueError(f"{where}: could not broadcast input array "
                             f"from extent {index} into extent {extent}")
        if axis == -4:
            raise ValueError(f"{where}: extent {index} exceeds the 32-bit "
                             "integers of the BLAS/LAPACK interface (at most "
                             f"{extent})")
        if axis == -3:
            raise ValueError(f"{where}: zero-size array to a reduction "
                             "operation (max, min, argmax or argmin) which "
                             "has no identity")
        # numpy/histograms.py's checks of the data.
        if axis == -5:
            raise ValueError(f"{where}: np.histogram: the autodetected "
                             "range of the data is not finite")
        if axis == -6:
            raise ValueError(f"{where}: np.histogram: `bins` must increase "
                             "monotonically, when an array")
        if axis == -7:
            raise ValueError(
                f"{where}: np.bincount's input holds {index}, outside "
                f"[0, {extent}): the compiled program's result has "
                f"minlength={extent} bins (NumPy's would be longer; a "
                "negative value is NumPy's ValueError too)")
        if axis == -8:
            raise ValueError(f"{where}: np.digitize: bins must be "
                             "monotonically increasing or decreasing")
        if index < 0:
            # The frontend adds the size to a negative index read from data
            # (NumPy's counting from the end) before the access; what is
            # still negative there was this before.
            index -= extent
        raise IndexError(f"{where}: index {index} is out of bounds for "
                         f"axis {axis} with size {extent}")
    if meta.get("linalg_sites"):
        native.check_linalg_error(module, meta["linalg_sites"])
    device = meta.get("device")
    if device == "gpu":
        native.check_gpu_error()
    elif device == "gpu-emulator":
        native.check_emulator_races(module)


def print_log(sites: list, log: bytes) -> None:
    """Prints a call's print log: per print, a record {site, -1, 0}, then
    one {site, position, bytes} and the bytes (padded to 8) per value; the
    site's description (frontend/printing.py) says the text around them
    and each value's dtype, shape, format spec and conversion."""
    def show(site, data):
        s = sites[site]
        texts = []
        for parts in s["args"]:
            text = []
            for part in parts:
                if part[0] == "text":
                    text.append(part[1])
                    continue
                _, k, dtype, shape, spec, conversion = part
                a = np.frombuffer(data[k], dtype=np.dtype(dtype)).reshape(
                    shape).copy()
                v = a[()] if a.ndim == 0 else a
                v = {"r": repr, "s": str, "a": ascii}[conversion](v) \
                    if conversion else v
                text.append(format(v, spec))
            texts.append("".join(text))
        print(*texts, sep=s["sep"], end=s["end"], file=sys.stdout)
    event = None
    offset = 0
    while offset + 24 <= len(log):
        site, k, size = struct.unpack_from("<qqq", log, offset)
        data = log[offset + 24:offset + 24 + size]
        offset += 24 + ((size + 7) & ~7)
        if k == -1:
            if event is not None:
                show(*event)
            event = (site, {})
        elif event is not None:
            event[1][k] = data
    if event is not None:
        show(*event)
