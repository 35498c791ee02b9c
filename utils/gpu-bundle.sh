#!/usr/bin/env bash
# Prepares .gpu-bundle/ for utils/gpu-check.sh on a GPU machine that has no
# LLVM/MLIR (the machines lent to this project): every program the GPU
# execution tests and benchmarks/gpu_vs_cpu.py run, compiled here into a
# program cache, host code for $SDFG_TARGET_CPU (default x86-64-v3, which
# any recent x86 server runs); the GPU runtime and the host libraries the
# programs link (OpenBLAS, OpenMP); and copies of sdfg-opt/sdfg-translate,
# which the cache key hashes (they are not run there).
#
#   utils/gpu-bundle.sh          # here, after utils/setup.sh
#   then on the GPU machine, with .gpu-bundle carried along:
#   utils/gpu-check.sh           # results into $OUT or benchmarks/results/gpu
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${SDFG_BUILD_DIR:-$ROOT/build}
BUNDLE=$ROOT/.gpu-bundle
CPU=${SDFG_TARGET_CPU:-x86-64-v3}

if [ ! -f "$BUILD/lib/libsdfg_gpu_runtime.so" ]; then
  echo "gpu-bundle: $BUILD has no GPU runtime (configured without the CUDA" \
       "toolkit?)" >&2
  exit 2
fi
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/bin" "$BUNDLE/lib" "$BUNDLE/cache"
cp "$BUILD/bin/sdfg-opt" "$BUILD/bin/sdfg-translate" "$BUNDLE/bin/"
cp "$BUILD/lib/libsdfg_gpu_runtime.so" "$BUNDLE/lib/"
echo "$CPU" > "$BUNDLE/target-cpu"

SDFG_CACHE_DIR=$BUNDLE/cache SDFG_TARGET_CPU=$CPU \
  /usr/bin/python3 "$ROOT/benchmarks/gpu_vs_cpu.py" --precompile

# The libraries a CPU program links beyond the C/C++ runtime, as the
# dynamic loader resolves them here.
sample=$(ls "$BUNDLE"/cache/*/program.so | head -1)
ldd "$sample" | awk '/=> \// {print $1, $3}' |
  grep -E '^lib(openblas|gfortran|quadmath|omp|gomp)' |
  while read -r name path; do cp -L "$path" "$BUNDLE/lib/$name"; done
du -sh "$BUNDLE"
