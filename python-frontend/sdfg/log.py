"""What the frontend says about its compiles: Python's logging, logger
"sdfg".

- With `SDFG_LOG=1` in the environment, or `sdfg.config.log_compiles =
  True`, each compile is logged (INFO) with its stages and their times,
  and each program found in the on-disk cache with its directory.
- A compile slower than `sdfg.config.slow_compile_seconds` (2 s) is a
  one-line WARNING whatever the switch: Python prints warnings of a
  logger without handlers to stderr; `logging.getLogger("sdfg")
  .setLevel(logging.ERROR)` silences them.
"""

import logging
import os
import sys

import numpy as np

logger = logging.getLogger("sdfg")

# The handler the switch adds (and removes): the application's own
# logging configuration stays as it is otherwise.
_handler = None


def set_log_compiles(on):
    """Turns the compile log on or off (a stderr handler at INFO)."""
    global _handler
    if on and _handler is None:
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(logging.Formatter("sdfg: %(message)s"))
        logger.addHandler(_handler)
        logger.setLevel(logging.INFO)
    elif not on and _handler is not None:
        logger.removeHandler(_handler)
        _handler = None
        logger.setLevel(logging.NOTSET)


def log_compiles():
    return _handler is not None


def from_environment():
    """SDFG_LOG=1 (or true, yes, on) turns the log on at import."""
    if os.environ.get("SDFG_LOG", "").strip().lower() in ("1", "true",
                                                          "yes", "on"):
        set_log_compiles(True)


class Config:
    """`sdfg.config`: switches of the frontend, as attributes."""

    #: Compiles at least this slow get a one-line warning (seconds).
    slow_compile_seconds = 2.0

    @property
    def log_compiles(self):
        """Whether each compile and cache hit is logged to stderr."""
        return log_compiles()

    @log_compiles.setter
    def log_compiles(self, on):
        if not isinstance(on, bool):
            raise TypeError(f"log_compiles must be True or False, not "
                            f"{on!r}")
        set_log_compiles(on)


config = Config()


def describe_args(args):
    """A call's signature as the log names it: `float64[3,4], 2.0, 5`."""
    parts = []
    for a in args:
        if isinstance(a, np.ndarray):
            parts.append(f"{a.dtype}[{','.join(map(str, a.shape))}]")
        elif isinstance(a, (float, np.floating)):
            parts.append(type(a).__name__)
        else:
            text = repr(a)
            parts.append(text if len(text) <= 20 else text[:17] + "...")
    return ", ".join(parts)


def compiled(what, args, stages, total):
    """Logs a compile: `what` ("f", "gradient of f wrt x"), its stages as
    (name, seconds) and the total; warns when it was slow."""
    if logger.isEnabledFor(logging.INFO):
        steps = ", ".join(f"{name} {t:.2f} s" for name, t in stages)
        logger.info("compiled %s for (%s) in %.2f s: %s", what,
                    describe_args(args), total, steps)
    elif total >= config.slow_compile_seconds:
        logger.warning("compiling %s for (%s) took %.1f s (compiled "
                       "programs are cached; SDFG_LOG=1 shows each "
                       "compile's stages)", what, describe_args(args), total)


def cache_hit(what, args, directory):
    logger.info("found %s for (%s) in the cache: %s", what,
                describe_args(args), directory)
