"""Compile sdfg-dialect programs to shared libraries and call them from NumPy.

The C ABI (documented on ``sdfg.sdfg`` in the dialect reference): one exported
function per ``sdfg.sdfg``, returning void; for each argument in order, an
array contributes a pointer to its first element followed by one int64 per
dynamic dimension, a symbol (``index``) an int64, and a scalar its C value.
``sdfg-translate --abi`` describes that signature as JSON, which is what this
module reads: it never parses MLIR itself.
"""

import ctypes
import json
import math
import operator
import os
import shutil
import subprocess
import sys
import tempfile
import threading

import numpy as np

from . import threads

from .errors import DeviceError

__all__ = ["ToolError", "NativeModule", "NativeFunction", "compile_mlir",
           "tools_dir"]

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

_SCALAR_CTYPES = {
    "float64": ctypes.c_double,
    "float32": ctypes.c_float,
    "int64": ctypes.c_int64,
    "int32": ctypes.c_int32,
    "int16": ctypes.c_int16,
    "int8": ctypes.c_int8,
    "bool": ctypes.c_bool,
}


def _same_integer(dtype, abi):
    """An unsigned array where the ABI names the signed integer of its
    width: MLIR's integers are signless, so the ABI says int8 for both
    int8 and uint8 (the program's ops say which it is)."""
    return dtype.kind in "iu" and abi.kind == "i" and \
        dtype.itemsize == abi.itemsize


class ToolError(RuntimeError):
    """A project tool (sdfg-opt, sdfg-translate) rejected its input."""


class OptionError(ToolError, ValueError):
    """The compiler rejected an option given to sdfg.grad for this
    program (a recompute= name that is not an array the backward program
    could recompute): an invalid argument (ValueError) that only the
    compiler can judge (ToolError, with its located diagnostic)."""


def _prefix():
    """Where the compiler is: $SDFG_BUILD_DIR (a build tree), else
    $SDFG_PREFIX (an installed prefix: `cmake --install build --prefix
    DIR`), else the build tree beside this source tree (a checkout), else
    the prefix of the sdfg-opt on $PATH, else this Python's prefix (a venv
    or conda environment the tools were installed into)."""
    for var in ("SDFG_BUILD_DIR", "SDFG_PREFIX"):
        if os.environ.get(var):
            return os.environ[var]
    build = os.path.join(_REPO, "build")
    if os.path.exists(os.path.join(build, "bin", "sdfg-opt")):
        return build
    found = shutil.which("sdfg-opt")
    if found:
        return os.path.dirname(os.path.dirname(os.path.realpath(found)))
    if os.path.exists(os.path.join(sys.prefix, "bin", "sdfg-opt")):
        return sys.prefix
    # Nowhere: the error names the build tree of a checkout, else the
    # environment's prefix.
    checkout = os.path.exists(os.path.join(_REPO, "python-frontend"))
    return build if checkout else sys.prefix


def tools_dir():
    """Directory holding sdfg-opt and sdfg-translate (see _prefix)."""
    return os.path.join(_prefix(), "bin")


def lib_dir():
    """Directory holding the project's libraries (the GPU runtime)."""
    return os.path.join(_prefix(), "lib")


_gpu_runtime = None


def gpu_runtime():
    """The loaded sdfg GPU runtime, once a GPU is known to be usable.

    Raises DeviceError saying why not: a build without the CUDA toolkit,
    no NVIDIA driver (libcuda.so.1), or no device."""
    global _gpu_runtime
    if _gpu_runtime is not None:
        return _gpu_runtime
    path = os.path.join(lib_dir(), "libsdfg_gpu_runtime.so")
    if not os.path.exists(path):
        raise DeviceError(
            "device='gpu': this build has no GPU runtime (" + path +
            " is missing: the CUDA toolkit was not found when the project "
            "was configured)")
    try:
        rt = ctypes.CDLL(path)
    except OSError as e:
        raise DeviceError(
            "device='gpu' needs an NVIDIA GPU driver, and the GPU runtime "
            f"cannot be loaded: {e}") from None
    rt.sdfg_gpu_available.argtypes = [ctypes.c_char_p, ctypes.c_int]
    rt.sdfg_gpu_available.restype = ctypes.c_int
    rt.sdfg_gpu_error.restype = ctypes.c_char_p
    message = ctypes.create_string_buffer(256)
    if not rt.sdfg_gpu_available(message, 256):
        raise DeviceError("device='gpu' needs a usable NVIDIA GPU: " +
                          message.value.decode())
    _gpu_runtime = rt
    return rt


def _record(module, name, ctype):
    """The calling thread's instance of the thread-local record `name` of
    the module's library, or None where the library has none. Looked up
    once per thread (each thread has its own address; a thread id can be
    reused after the thread ends, a threading.local cannot): a per-call
    lookup cost about 1 us of a small program's 10."""
    local = module._per_thread
    records = getattr(local, "records", None)
    if records is None:
        records = local.records = {}
    record = records.get(name, _MISSING)
    if record is _MISSING:
        try:
            record = ctype.in_dll(module._lib, name)
        except ValueError:
            record = None
        records[name] = record
    return record


_MISSING = object()


def take_index_error(module):
    """After a call: (generated line, index, axis, extent) of the first
    access whose index, computed from data, was outside its array (the
    program skipped it; see sdfg_index_error in docs/c-abi.md), or None;
    clears the record."""
    record = _record(module, "sdfg_index_error", ctypes.c_int64 * 4)
    if record is None:
        return None  # no checked access in the compiled program
    if record[0] == 0:
        return None
    bad = tuple(record)
    ctypes.memset(record, 0, ctypes.sizeof(record))
    return bad


def take_alloc_error(module):
    """After a call: the bytes an allocation of the compiled program asked
    for and did not get (the call then stopped and freed what it had
    allocated; see sdfg_alloc_error in docs/design/c-abi.md), or None;
    clears the record. Thread-local: read it in the calling thread."""
    record = _record(module, "sdfg_alloc_error", ctypes.c_int64)
    if record is None:
        return None  # a library built without the call guards
    if record.value == 0:
        return None
    bytes_ = record.value
    record.value = 0
    return bytes_ if bytes_ > 0 else bytes_ + 2**64


def take_print_log(module):
    """The calling thread's print log (sdfg.print's records) since the
    last call, emptied."""
    try:
        size = ctypes.c_int64.in_dll(module._lib, "sdfg_print_size")
    except ValueError:
        return b""
    if not size.value:
        return b""
    data = ctypes.c_void_p.in_dll(module._lib, "sdfg_print_data")
    log = ctypes.string_at(data.value, size.value)
    size.value = 0
    return log


def check_linalg_error(module, sites):
    """After a call of a program with np.linalg.solve/inv/cholesky (`sites`:
    (NumPy function, "file:line") pairs): raises numpy.linalg.LinAlgError, as NumPy does, if
    one of them met a singular (or, for cholesky, not positive definite)
    matrix (its result is then NaN); clears the flag."""
    try:
        flag = ctypes.c_int64.in_dll(module._lib, "sdfg_linalg_error")
    except ValueError:
        return  # no solve in the compiled program
    if flag.value:
        flag.value = 0
        # NumPy's messages; which op failed is not recorded (the flag holds
        # the generated line), so a program with both kinds names both.
        kinds = {function for function, _ in sites}
        messages = {"np.linalg.cholesky": "Matrix is not positive definite",
                    "np.linalg.eigh": "Eigenvalues did not converge",
                    "np.linalg.eigvalsh": "Eigenvalues did not converge"}
        what = " or ".join(sorted({messages.get(k, "Singular matrix")
                                   for k in kinds}))
        where = "; ".join(f"{function} at {line}" for function, line in sites)
        raise np.linalg.LinAlgError(f"{what} ({where})")


def check_emulator_races(module):
    """For programs built with --target=gpu-emulator: raises RuntimeError
    if a kernel wrote one element from several threads without an atomic,
    or read an element that another thread of the same kernel wrote (on a
    GPU both are data races: the lowering is wrong for this program);
    clears the counts."""
    found = []
    for name, what in (
            ("sdfg_emulator_races", "write(s) of elements that another "
             "thread of the same kernel also wrote, without an atomic"),
            ("sdfg_emulator_read_races", "element(s) read by one thread "
             "of a kernel and written by another")):
        try:
            count = ctypes.c_int64.in_dll(module._lib, name)
        except ValueError:
            continue  # no kernel of this program can race so
        if count.value:
            found.append(f"{count.value} {what}")
            count.value = 0
    if found:
        raise RuntimeError(
            "GPU data race found by the emulator: " + "; ".join(found) +
            ". The GPU code generated for this program is wrong; please "
            "report it with the program.")


def check_gpu_error():
    """Raises DeviceError if the last GPU program hit an error (its
    results are then not valid); clears it."""
    rt = _gpu_runtime
    if rt is None:
        return
    err = rt.sdfg_gpu_error()
    if err:
        rt.sdfg_gpu_clear_error()
        raise DeviceError("GPU program failed: " + err.decode())


def function_abi(abi: dict, name: str) -> dict:
    """The ABI description (sdfg-translate --abi) of the function `name`."""
    return next(f for f in abi["functions"] if f["name"] == name)


def _tool(name):
    path = os.path.join(tools_dir(), name)
    if not os.path.exists(path):
        raise ToolError(
            f"{name} not found in {tools_dir()}: build the compiler "
            "(utils/setup.sh) and set SDFG_BUILD_DIR to its build "
            "directory, or SDFG_PREFIX to where `cmake --install` put it, "
            "or put its bin/ on PATH")
    return path


def _getter(axes):
    """A function from a shape to its extents on `axes` as a tuple
    (operator.itemgetter gives a bare value for one axis), or None where
    there are none."""
    if not axes:
        return None
    if len(axes) == 1:
        d = axes[0]
        return lambda shape: (shape[d],)
    return operator.itemgetter(*axes)


class NativeFunction:
    """One compiled sdfg.sdfg, callable with NumPy arrays and Python scalars.

    Arrays must already have the declared dtype and be C-contiguous: they are
    passed by pointer and updated in place, so converting them silently would
    lose the program's writes.
    """

    def __init__(self, cfunc, desc, module=None):
        self._module = module
        self.name = desc["name"]
        self.args = desc["args"]
        argtypes = []
        for a in self.args:
            if a["kind"] == "array":
                argtypes.append(ctypes.c_void_p)
                argtypes += [ctypes.c_int64] * sum(
                    1 for s in a["shape"] if s < 0)
            elif a["kind"] == "symbol":
                argtypes.append(ctypes.c_int64)
            else:
                argtypes.append(_SCALAR_CTYPES[a["dtype"]])
        cfunc.argtypes = argtypes
        cfunc.restype = None
        self._cfunc = cfunc
        # Per array argument, what a call checks first: dtype and the shape
        # when it is fully static (a mismatch takes the slow path, which
        # says what is wrong).
        self._static = [
            (np.dtype(a["dtype"]), tuple(a["shape"]))
            if a["kind"] == "array" and all(s >= 0 for s in a["shape"])
            else None for a in self.args]
        # The unsigned type of an integer array's width, which the ABI
        # names by the signed one (_same_integer), else the dtype itself
        # (never None: a dtype equals None when it is float64).
        self._twins = [
            np.dtype(("u" if a["dtype"] in ("int8", "int16", "int32",
                                            "int64") else "") + a["dtype"])
            if a["kind"] == "array" else np.dtype(object)
            for a in self.args]
        # For an array of dynamic shape: its dtype, rank, the extents the
        # call passes and the static ones (which must match), each as a
        # getter of those from the shape (_getter; None for none).
        self._dynamic = [
            (np.dtype(a["dtype"]), len(a["shape"]),
             _getter([d for d, s in enumerate(a["shape"]) if s < 0]),
             _getter([d for d, s in enumerate(a["shape"]) if s >= 0]),
             tuple(s for s in a["shape"] if s >= 0))
            if a["kind"] == "array" and any(s < 0 for s in a["shape"])
            else None for a in self.args]

    def __call__(self, *args):
        if len(args) != len(self.args):
            raise TypeError(f"{self.name}() takes {len(self.args)} arguments, "
                            f"got {len(args)}")
        cargs = []
        for value, a, static, dynamic, twin in zip(
                args, self.args, self._static, self._dynamic, self._twins):
            if static is not None and type(value) is np.ndarray and \
                    (value.dtype == static[0] or value.dtype == twin) and \
                    value.shape == static[1] and value.flags.c_contiguous:
                # The common case: an array of the compiled shape.
                cargs.append(value.ctypes.data)
                continue
            if dynamic is not None and type(value) is np.ndarray and \
                    (value.dtype == dynamic[0] or value.dtype == twin) and \
                    value.ndim == dynamic[1] and \
                    value.flags.c_contiguous and (
                        dynamic[3] is None or
                        dynamic[3](value.shape) == dynamic[4]):
                # An array of a program with size symbols: its pointer
                # and the extents the program reads.
                cargs.append(value.ctypes.data)
                cargs += dynamic[2](value.shape)
                continue
            name = a["name"]
            if a["kind"] == "array":
                cargs += self._array_arg(name, value, a)
            elif a["kind"] == "symbol":
                if not isinstance(value, (int, np.integer)):
                    raise TypeError(f"argument '{name}' is a symbol and needs "
                                    f"an int, got {type(value).__name__}")
                cargs.append(int(value))
            else:
                cargs.append(value)
        last = _RECENT[-1:]  # a slice: other threads may be moving it
        if self._module is not None and (
                not last or last[0] is not self._module):
            _called(self._module)
        self._cfunc(*cargs)

    def _array_arg(self, name, value, a):
        if not isinstance(value, np.ndarray):
            raise TypeError(f"argument '{name}' must be a numpy array, got "
                            f"{type(value).__name__}")
        if value.dtype != np.dtype(a["dtype"]) and not _same_integer(
                value.dtype, np.dtype(a["dtype"])):
            raise TypeError(f"argument '{name}' must have dtype {a['dtype']}, "
                            f"got {value.dtype}")
        if not value.flags.c_contiguous:
            raise TypeError(f"argument '{name}' must be C-contiguous")
        shape = a["shape"]
        if value.ndim != len(shape):
            raise TypeError(f"argument '{name}' must have {len(shape)} "
                            f"dimensions, got {value.ndim}")
        dyn = []
        for d, (want, got) in enumerate(zip(shape, value.shape)):
            if want < 0:
                dyn.append(got)
            elif want != got:
                raise TypeError(f"argument '{name}' must have extent {want} "
                                f"in dimension {d}, got {got}")
        return [value.ctypes.data] + dyn


# How long OpenMP workers spin after a parallel region, in ms (see
# NativeModule.set_spin): long for programs without BLAS calls, short for
# those with them.
OMP_SPIN_MS = 20
OMP_SPIN_MS_WITH_BLAS = 1


# Read once, as each compiled program reads it once (docs/design/c-abi.md,
# "Memory between calls"): the gradient's per-call check costs nothing.
_REUSE_MEMORY = os.environ.get("SDFG_REUSE_MEMORY", "1")[:1] != "0"


def reuse_memory():
    """Whether memory is kept for later calls ($SDFG_REUSE_MEMORY when the
    module was imported; 0 turns it off)."""
    return _REUSE_MEMORY


# The programs called last, most recent at the end. Each keeps the memory
# its last call freed for its next call (docs/design/c-abi.md, "Memory
# between calls"); beyond these, a program gives it back, so a process
# that loads many programs (a sweep over shapes compiles one per shape)
# holds at most KEEP_MEMORY_OF programs' worth.
KEEP_MEMORY_OF = 8
_RECENT = []


def _called(module):
    """Moves `module` to the end of _RECENT; the program that falls off
    gives its kept memory back."""
    try:
        _RECENT.remove(module)
    except ValueError:
        pass
    _RECENT.append(module)
    while len(_RECENT) > KEEP_MEMORY_OF:
        _RECENT.pop(0).release_memory()


# What this module last set in the calling thread (the spin, the OpenMP
# thread count).
_THIS_THREAD = threading.local()
# The count last given to OpenBLAS (one for the process).
_blas_threads = None


def _optional(lib, name):
    """`name`(int) -> void of the library or what it links (libomp,
    OpenBLAS), or None where there is none."""
    try:
        f = getattr(lib, name)
    except AttributeError:
        return None
    f.argtypes = [ctypes.c_int]
    f.restype = None
    return f


def _spin_setter(lib):
    """libomp's kmp_set_blocktime, unless KMP_BLOCKTIME is set (the
    user's choice wins) or the library has no OpenMP."""
    if "KMP_BLOCKTIME" in os.environ:
        return None
    try:
        setter = lib.kmp_set_blocktime
    except AttributeError:
        return None
    setter.argtypes = [ctypes.c_int]
    setter.restype = None
    return setter


# From this size on the runtime caches blocks (lib/Target/CallGuards.cpp).
RESULT_CACHE_BYTES = 65536


def _result_allocator(lib):
    """(sdfg_alloc_result, sdfg_free_result) of the library, or None for a
    library built without them (before they existed, or unguarded)."""
    try:
        alloc, free = lib.sdfg_alloc_result, lib.sdfg_free_result
    except AttributeError:
        return None
    alloc.argtypes, alloc.restype = [ctypes.c_size_t], ctypes.c_void_p
    free.argtypes, free.restype = [ctypes.c_void_p], None
    return alloc, free


class _ResultBlock:
    """Owns a block of sdfg_alloc_result for the array that views it (the
    array's base): when the last view dies, the block goes back to the
    library's cache. The free function keeps the library loaded."""

    __slots__ = ("__array_interface__", "_ptr", "_free")

    def __init__(self, ptr, shape, dtype, free):
        self._ptr, self._free = ptr, free
        self.__array_interface__ = {"data": (ptr, False), "shape": shape,
                                    "typestr": dtype.str, "version": 3}

    def __del__(self):
        self._free(self._ptr)


class NativeModule:
    """A shared library built from an MLIR module; functions by name."""

    def __init__(self, directory, library_path, abi):
        self._directory = directory
        self.library_path = library_path
        self._lib = ctypes.CDLL(library_path)
        self._per_thread = threading.local()
        self._spin_setter = _spin_setter(self._lib)
        self._omp_threads = _optional(self._lib, "omp_set_num_threads")
        self._blas_threads = _optional(self._lib, "openblas_set_num_threads")
        self._alloc_result = _result_allocator(self._lib)
        self.set_spin(OMP_SPIN_MS_WITH_BLAS)
        self.functions = {
            f["name"]: NativeFunction(getattr(self._lib, f["name"]), f,
                                      self)
            for f in abi["functions"]
        }

    def __getattr__(self, name):
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(name)

    def set_spin(self, ms):
        """How long OpenMP workers spin after a parallel region before they
        sleep, for calls from this thread (libomp's default: 200 ms).
        Waking a sleeping worker costs 50-100 us per region on the VMs
        measured: with 1 ms, heat_3d's gradient called every 10 ms took
        6.6 ms instead of 0.98, jacobi_2d 12.4 instead of 1.2. But a
        spinning worker competes with OpenBLAS's threads in a BLAS call
        that follows a parallel region on a machine with few cores
        (gemm's gradient 6.1 ms at 1 ms, 8.8 at 20): programs that call
        BLAS spin 1 ms (OMP_SPIN_MS_WITH_BLAS), others 20 (OMP_SPIN_MS)."""
        if self._spin_setter is not None and \
                getattr(_THIS_THREAD, "spin", None) != ms:
            # libomp keeps it per thread, one libomp for every program.
            self._spin_setter(ms)
            _THIS_THREAD.spin = ms

    def empty(self, shape, dtype):
        """An uninitialised array for the caller to keep (a result, a
        gradient), in memory the program's block cache hands out and takes
        back when the array dies: a large array the user dropped serves the
        next call instead of new pages that the kernel faults in and zeroes
        (docs/design/c-abi.md, "Memory between calls"). Small arrays, and
        libraries without the runtime, get NumPy's memory."""
        dtype = np.dtype(dtype)
        shape = tuple(int(d) for d in shape)
        nbytes = dtype.itemsize * math.prod(shape)
        alloc = self._alloc_result
        if alloc is None or nbytes < RESULT_CACHE_BYTES or not _REUSE_MEMORY:
            return np.empty(shape, dtype)
        ptr = alloc[0](nbytes)
        if not ptr:
            raise MemoryError(f"cannot allocate {nbytes} bytes for a result "
                              f"of shape {shape}")
        return np.asarray(_ResultBlock(ptr, shape, dtype, alloc[1]))

    def release_memory(self):
        """Gives back the memory the program keeps for its next call (a
        library built without the call guards keeps none)."""
        release = getattr(self.__dict__.get("_lib"), "sdfg_release_memory",
                          None)
        if release is not None:
            release.restype = None
            release()

    def set_num_threads(self, n):
        """Sets the OpenMP thread count of the library's parallel maps."""
        self._lib.omp_set_num_threads(ctypes.c_int(n))
        # Behind before_call's back: it must set its count again.
        _THIS_THREAD.threads = None

    def before_call(self, spin_ms):
        """What a call from this thread needs set first: the spin
        (set_spin) and the thread count of sdfg.set_num_threads or
        SDFG_NUM_THREADS, or where none is set the cores other processes
        leave free (sdfg/threads.py)."""
        global _blas_threads
        self.set_spin(spin_ms)
        n = threads.requested()
        if n is None:
            n = threads.automatic()
        if n is None:
            return
        if self._omp_threads is not None and \
                getattr(_THIS_THREAD, "threads", None) != n:
            self._omp_threads(n)
            _THIS_THREAD.threads = n
        if self._blas_threads is not None and _blas_threads != n:
            self._blas_threads(n)
            _blas_threads = n

    def __del__(self):
        directory = self.__dict__.get("_directory")
        if directory:
            shutil.rmtree(directory, ignore_errors=True)


# Number of libraries this process compiled (the on-disk cache avoids it).
compile_count = 0


def remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)


def run_passes(source, passes):
    """Runs sdfg-opt with `passes` (e.g. ["--sdfg-autodiff=output=y"])."""
    proc = subprocess.run([_tool("sdfg-opt")] + list(passes), input=source,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        # The diagnostics, without the echo of the source line they point
        # at (the input is generated).
        errors = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
        raise ToolError("\n".join(errors) or proc.stderr.strip() or
                        f"sdfg-opt exited with {proc.returncode}")
    return proc.stdout


def target_cpu():
    """The processor compiled programs are built for: $SDFG_TARGET_CPU (an
    LLVM name such as x86-64-v3, for libraries run on other machines), else
    "host" (this machine, all its features)."""
    return os.environ.get("SDFG_TARGET_CPU") or "host"


def build_library(source, directory, opt_level=3, passes=(), device="cpu",
                  check_indices=True):
    """Compiles MLIR text into `directory`/program.so; returns the ABI.
    `passes` run first through sdfg-opt (e.g. the autodiff pass); `device`
    is "cpu", "gpu" or "gpu-emulator" (sdfg-translate --target);
    `check_indices` False compiles without the bounds checks of indices
    computed from data (sdfg-translate --check-indices=false)."""
    global compile_count
    compile_count += 1
    if passes:
        source = run_passes(source, passes)
    src = os.path.join(directory, "input.mlir")
    lib = os.path.join(directory, "program.so")
    abi = os.path.join(directory, "abi.json")
    with open(src, "w") as f:
        f.write(source)
    proc = subprocess.run(
        [_tool("sdfg-translate"), src, "-emit=shared", f"-O{opt_level}",
         f"--target={device}", f"--mcpu={target_cpu()}", "-o", lib,
         f"--abi={abi}"] + ([] if check_indices else
                             ["--check-indices=false"]),
        capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolError(proc.stderr.strip() or
                        f"sdfg-translate exited with {proc.returncode}")
    with open(abi) as f:
        return json.load(f)


def compile_mlir(source, opt_level=3):
    """Compiles sdfg-dialect MLIR text into a loaded NativeModule.

    Raises ToolError with the compiler's located diagnostics when the program
    is rejected.
    """
    directory = tempfile.mkdtemp(prefix="sdfg-")
    try:
        desc = build_library(source, directory, opt_level)
        return NativeModule(directory, os.path.join(directory, "program.so"),
                            desc)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
