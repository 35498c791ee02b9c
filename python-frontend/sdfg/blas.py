"""OpenBLAS's kernel choice for this CPU.

Compiled programs call OpenBLAS (Debian's 0.3.21, built for all x86 cores
and choosing at load time). That version does not know CPUs newer than
itself (Sapphire/Emerald Rapids, Zen 4...) and then falls back to its
generic SSE3 kernels: dgemm at 31 instead of 141 GFLOP/s on two Emerald
Rapids cores. OpenBLAS reads OPENBLAS_CORETYPE once, when it is loaded,
so `choose_core()` names the best kernel family the CPU supports (SkylakeX
for AVX-512, Haswell for AVX2 and FMA; for double precision OpenBLAS has
none better) before anything loads it, unless the variable is set already.
`sdfg` calls it on import: import sdfg before numpy to benefit (numpy
loads the same OpenBLAS), or set OPENBLAS_CORETYPE yourself.
"""

import os

_AVX512 = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}
_AVX2 = {"avx2", "fma"}


def cpu_flags(cpuinfo="/proc/cpuinfo"):
    """The feature flags of the first CPU listed (empty if unknown)."""
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def core_for(flags):
    """The OpenBLAS core type for CPU `flags`, or None to let it decide."""
    if _AVX512 <= flags:
        return "SkylakeX"
    if _AVX2 <= flags:
        return "Haswell"
    return None


def openblas_loaded(maps="/proc/self/maps"):
    """Whether this process has loaded the system's OpenBLAS (the one
    compiled programs link) already. NumPy wheels' own copy
    (libscipy_openblas64_) is another library and does not count."""
    try:
        with open(maps) as f:
            return any("/libopenblas" in line or "/openblas-" in line
                       for line in f)
    except OSError:
        return False


def choose_core():
    """Sets OPENBLAS_CORETYPE for this CPU when neither the user nor an
    earlier load decided; returns the core type in effect, if known."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return os.environ["OPENBLAS_CORETYPE"]
    if openblas_loaded():
        return None
    core = core_for(cpu_flags())
    if core is not None:
        os.environ["OPENBLAS_CORETYPE"] = core
    return core
