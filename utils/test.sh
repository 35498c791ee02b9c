#!/usr/bin/env bash
# Runs every test: lit (dialect, lowering, tools), GoogleTest (C++ helpers)
# and pytest (compiled programs against NumPy). Builds first if needed.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SDFG_BUILD_DIR:-$ROOT/build}"
export SDFG_BUILD_DIR="$BUILD"
# Compiled-program cache of the Python frontend: a fresh one per run.
SDFG_CACHE_DIR="$(mktemp -d)"
export SDFG_CACHE_DIR
trap 'rm -rf "$SDFG_CACHE_DIR"' EXIT

if [ ! -f "$BUILD/build.ninja" ]; then
  echo "No build in $BUILD: run utils/setup.sh first" >&2
  exit 1
fi
cmake --build "$BUILD" || exit 1

status=0
echo "==> lit"
/usr/lib/llvm-22/bin/lit -sv "$BUILD/test" || status=1
echo "==> GoogleTest"
(cd "$BUILD" && ctest --output-on-failure) || status=1
echo "==> clang-format (LLVM style)"
unformatted=$(cd "$ROOT" && git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run 2>&1 | grep -c "warning:")
if [ "$unformatted" -ne 0 ]; then
  echo "clang-format: $unformatted formatting differences; run clang-format -i" >&2
  status=1
fi
echo "==> pytest"
(cd "$ROOT/python-frontend" && /usr/bin/python3 -m pytest -q tests) || status=1

if [ $status -ne 0 ]; then
  echo "FAILED: see the failing suite above" >&2
fi
exit $status
