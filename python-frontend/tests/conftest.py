import importlib
import os
import sys

# The package of this source tree, unless the tests check an installed one
# (test_install.py runs some of them in a fresh venv).
if os.environ.get("SDFG_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def poisoned_gradients(monkeypatch):
    """Gradient programs overwrite the arrays they return (d_<w>): hand them
    NaN so that an element a program leaves unwritten fails the test."""
    module = importlib.import_module("sdfg.gradients")
    allocate = module._gradient_array

    def poisoned(native_module, like):
        # The runtime's own memory (a block of an earlier call's dropped
        # gradient, possibly), filled with NaN.
        a = allocate(native_module, like)
        a.fill(np.nan)
        return a
    monkeypatch.setattr(module, "_gradient_array", poisoned)
