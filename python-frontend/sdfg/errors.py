"""Errors raised by the NumPy frontend."""


class FrontendError(Exception):
    """A construct the frontend does not support, or a program it rejects.

    The message names the file, the line and the construct, e.g.
    ``kernel.py:12: unsupported construct 'break': ...``.
    """

    def __init__(self, message, filename=None, lineno=None, construct=None):
        self.filename = filename
        self.lineno = lineno
        self.construct = construct
        self.reason = message
        where = ""
        if filename is not None:
            where = f"{filename}:{lineno}: " if lineno else f"{filename}: "
        what = f"unsupported construct '{construct}': " if construct else ""
        super().__init__(f"{where}{what}{message}")


class DeviceError(RuntimeError):
    """The GPU path was asked for but cannot run here (no NVIDIA driver, no
    device, a build without the CUDA toolkit), or a GPU program failed (a
    launch error, out of device memory). The message says which."""


class CacheError(RuntimeError):
    """The program cache's directory, or an entry of it, could have been
    written by another user (group or world write permission, another
    owner): nothing is loaded from there. The message names the path and
    the fix (make it private, or set SDFG_CACHE_DIR to a private one)."""


class CacheWarning(RuntimeWarning):
    """A damaged entry of the program cache was compiled again, or the
    cache directory could not be created or written and a private
    temporary one is used for this process."""
