"""Whether GPU programs can run or be built here, for the test files of
GPU programs: execution tests skip without a usable GPU, library builds
without the GPU runtime (a build configured without the CUDA toolkit)."""

import os

import pytest

import sdfg
from sdfg import native


def _gpu_reason():
    """None if a GPU can run programs here, else why not."""
    try:
        native.gpu_runtime()
        return None
    except sdfg.DeviceError as e:
        return str(e)


GPU_REASON = _gpu_reason()
needs_gpu = pytest.mark.skipif(GPU_REASON is not None,
                               reason=f"no usable GPU: {GPU_REASON}")
HAS_RUNTIME = os.path.exists(
    os.path.join(native.lib_dir(), "libsdfg_gpu_runtime.so"))
