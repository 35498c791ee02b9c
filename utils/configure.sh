#!/usr/bin/env bash
# Configures a build folder the way utils/setup.sh does (Ninja, clang-22,
# lld, ccache when present, CUDA when present). Extra arguments go to cmake.
#
#   utils/configure.sh BUILD_DIR [-DSDFG_SANITIZE=ON ...]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ]; then
  echo "usage: utils/configure.sh BUILD_DIR [cmake arguments...]" >&2
  exit 2
fi
BUILD=$1
shift

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
# The CUDA toolkit is not a Debian package here: it comes preinstalled in
# /usr/local/cuda (or wherever CUDA_HOME points). Without it the GPU path is
# left out and its tests are reported unsupported/skipped.
cuda=()
for dir in "${CUDA_HOME:-}" /usr/local/cuda; do
  if [ -n "$dir" ] && [ -x "$dir/bin/ptxas" ]; then
    cuda=(-DCUDAToolkit_ROOT="$dir")
    break
  fi
done
cmake -G Ninja -S "$ROOT" -B "$BUILD" \
  -DCMAKE_BUILD_TYPE=Release "${cuda[@]}" \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld "${launcher[@]}" "$@" >/dev/null
