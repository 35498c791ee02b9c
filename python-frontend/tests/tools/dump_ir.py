"""Translates a fixed set of programs to sdfg-dialect text and writes one
file per program: the check that a refactoring of the frontend leaves its
output byte-identical.

    /usr/bin/python3 python-frontend/tests/tools/dump_ir.py OUT_DIR
    diff -r BASELINE_DIR OUT_DIR

The programs: every kernel of tests/corpus/kernels.py with its own inputs
and with the inputs of benchmarks/frontend_vs_numpy.py, each for the CPU
and the GPU schedules. Only the frontend's translation runs (no sdfg-opt,
no compiler), so it takes seconds. Each file holds the text, the Python
line of every text line and the C signature; a program the frontend
rejects is written as its error message, so rejections are compared too.

For the programs of the whole test suite, see ir_recorder.py.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
FRONTEND = os.path.dirname(TESTS)
ROOT = os.path.dirname(FRONTEND)
sys.path.insert(0, FRONTEND)
sys.path.insert(0, TESTS)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

# sdfg before numpy: see sdfg/blas.py.
from sdfg.errors import FrontendError  # noqa: E402
from sdfg.program import _normalise, translate  # noqa: E402

import numpy as np  # noqa: E402


def describe(tr) -> str:
    """One program's translation as text: what must stay identical."""
    sig = tr.signature
    lines = [f"// name: {tr.name}", f"// params: {sig.params!r}",
             f"// outputs: {sig.outputs!r}"]
    lines += [f"// {k + 1}: {s}" for k, s in enumerate(tr.sources)]
    return portable("\n".join(lines) + "\n" + tr.text)


def portable(text: str) -> str:
    """text with the checkout's path spelled <root>: two checkouts (a
    baseline copy and the working tree) give the same files."""
    text = text.replace(ROOT, "<root>")
    # pytest's temporary folders (modules a test writes) differ per run.
    return re.sub(r"/tmp/pytest-of-[^/]+/pytest-\d+/", "<tmp>/", text)


def dump(fn, args, device: str) -> str:
    try:
        return describe(translate(fn, _normalise(args, fn), device=device))
    except FrontendError as e:
        return portable(f"// FrontendError: {e}\n")


def programs():
    """(file name, function, arguments) of every program dumped."""
    from corpus.kernels import KERNELS
    out = []
    for name, (fn, inputs) in sorted(KERNELS.items()):
        out.append((f"corpus.{name}", fn, inputs(np.random.default_rng(0))))
    from frontend_vs_numpy import INPUTS
    for name, inputs in sorted(INPUTS.items()):
        out.append((f"bench.{name}", KERNELS[name][0],
                    inputs(np.random.default_rng(0))))
    return out


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    count = 0
    for name, fn, args in programs():
        for device in ("cpu", "gpu"):
            with open(os.path.join(out_dir, f"{name}.{device}.mlir"),
                      "w") as f:
                f.write(dump(fn, args, device))
            count += 1
    print(f"{count} programs written to {out_dir}")


if __name__ == "__main__":
    # Some translations depend on the order of sets of names (str hashes,
    # randomised per process): a fixed seed, so that two runs compare.
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable] + sys.argv,
                  dict(os.environ, PYTHONHASHSEED="0"))
    main(sys.argv[1])
