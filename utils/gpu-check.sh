#!/usr/bin/env bash
# On a GPU machine, from the repository root with .gpu-bundle/ (made by
# utils/gpu-bundle.sh where the compiler is): the GPU execution tests of
# python-frontend/tests/test_gpu.py and the GPU-against-CPU timings of
# benchmarks/gpu_vs_cpu.py, all from the prebuilt cache (nothing is
# compiled here). Writes device.txt, pytest.txt, results.jsonl and
# results.md into $OUT if set (the device tool's output folder), else
# benchmarks/results/gpu. Exit status: that of the tests.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUNDLE=$ROOT/.gpu-bundle
RESULTS=${OUT:-$ROOT/benchmarks/results/gpu}
PY=${PYTHON:-python3}
if [ ! -d "$BUNDLE/cache" ]; then
  echo "gpu-check: no $BUNDLE: run utils/gpu-bundle.sh first" >&2
  exit 2
fi
mkdir -p "$RESULTS"
# The program cache refuses a directory that another user owns or that
# others can write (docs/Reliability.md): however the copy arrived, make
# the prebuilt one this user's and private.
chmod -R go-w "$BUNDLE/cache"
if [ "$(id -u)" = 0 ]; then chown -R 0:0 "$BUNDLE/cache"; fi
# cuBLAS 13: the toolkit's, else the one Python's CUDA wheels bring; the
# driver where the loader does not look already.
cublas=$(find /usr/local/cuda*/ /usr/local/lib /usr/lib /opt -name 'libcublas.so.13' \
           2>/dev/null | head -1)
driver=$(ldconfig -p | grep -q 'libcuda.so.1 ' ||
         find /usr/local/nvidia /usr/lib /usr/local/lib -name 'libcuda.so.1' \
           2>/dev/null | head -1)
export LD_LIBRARY_PATH=$BUNDLE/lib${cublas:+:$(dirname "$cublas")}${driver:+:$(dirname "$driver")}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SDFG_BUILD_DIR=$BUNDLE SDFG_CACHE_DIR=$BUNDLE/cache
export SDFG_TEST_CACHE_DIR=$BUNDLE/cache
export SDFG_TARGET_CPU
SDFG_TARGET_CPU=$(cat "$BUNDLE/target-cpu")
export PYTHONUNBUFFERED=1
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  echo "cuBLAS: ${cublas:-not found}"
  "$PY" -c 'import sys, numpy; print(sys.version, "numpy", numpy.__version__)'
} 2>&1 | tee "$RESULTS/device.txt"
# The GPU tests skip without a usable GPU; here that is a failure.
if ! (cd "$ROOT/python-frontend" &&
      "$PY" -c 'from sdfg import native; native.gpu_runtime()') \
    2>&1 | tee -a "$RESULTS/device.txt"; then
  echo "gpu-check: the GPU runtime cannot be used here (see above)" >&2
  exit 1
fi
"$PY" -m pytest -v -rs -k "matches_cpu and not emulator" \
  "$ROOT/python-frontend/tests/test_gpu.py" 2>&1 | tee "$RESULTS/pytest.txt"
status=${PIPESTATUS[0]}
"$PY" "$ROOT/benchmarks/gpu_vs_cpu.py" --out "$RESULTS" --budget "${BUDGET:-240}"
exit "$status"
