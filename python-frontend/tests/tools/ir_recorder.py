"""pytest plugin: writes every translation the test suite makes (the text,
or the FrontendError) under $SDFG_IR_RECORD, one folder per test, so that
two runs of the suite (before and after a change to the frontend) can be
compared with `diff -r`.

    cd python-frontend && SDFG_IR_RECORD=/tmp/ir-suite PYTHONHASHSEED=0 \\
        PYTHONPATH=tests /usr/bin/python3 -m pytest -q -p tools.ir_recorder tests

PYTHONHASHSEED=0: some translations depend on the order of sets of names
(test_loop_indices' guarded_rows emits two tasklets in either order), so
two runs compare only under the same seed. compare_records.py compares
two runs.

A file is named by the program's Python name, the device and a hash of
its content: a translation that changes shows as one file gone and one
new. Tests that translate from several threads write the same files in
whatever order the threads run.
"""

import hashlib
import importlib
import os
import re

import pytest

from .dump_ir import describe, portable

_current = ["outside-tests"]


def _record(fn, device, content):
    root = os.environ.get("SDFG_IR_RECORD")
    if not root:
        return
    folder = os.path.join(root, re.sub(r"[^\w.-]+", "_", _current[0])[:150])
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha1(content.encode()).hexdigest()[:12]
    name = re.sub(r"[^\w.-]+", "_", getattr(fn, "__qualname__", "fn"))[:80]
    with open(os.path.join(folder, f"{name}.{device}.{digest}.mlir"),
              "w") as f:
        f.write(content)


@pytest.fixture(autouse=True)
def _record_translations(request, monkeypatch):
    # sdfg.program is the decorator; the module is sys.modules'.
    module = importlib.import_module("sdfg.program")
    from sdfg.errors import FrontendError
    original = module.translate

    def translate(fn, args, name=None, device="cpu"):
        try:
            tr = original(fn, args, name, device)
        except FrontendError as e:
            _record(fn, device, portable(f"// FrontendError: {e}\n"))
            raise
        _record(fn, device, describe(tr))
        return tr

    _current[0] = request.node.nodeid
    monkeypatch.setattr(module, "translate", translate)
    yield
    _current[0] = "outside-tests"
