#!/usr/bin/env bash
# Runs every test: lit (dialect, lowering, tools), GoogleTest (C++ helpers),
# a short fuzz run of sdfg-opt/sdfg-translate (utils/fuzz.py) and pytest
# (compiled programs against NumPy). Builds first if needed.
#
#   utils/test.sh              the build in build/ (or $SDFG_BUILD_DIR)
#   utils/test.sh --sanitize   the C++ under AddressSanitizer + UBSan, built
#                              into build-sanitize/ (or $SDFG_SANITIZE_BUILD_DIR;
#                              configured with -DSDFG_SANITIZE=ON if new): lit,
#                              GoogleTest and the fuzz run on the sanitized
#                              tools. No pytest there: its programs run inside
#                              Python, which has no sanitizer runtime.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

sanitize=0
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=1 ;;
    -h | --help)
      sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
      exit 0
      ;;
    *)
      echo "utils/test.sh: unknown argument '$arg' (try --help)" >&2
      exit 2
      ;;
  esac
done

if [ $sanitize -eq 1 ]; then
  BUILD="${SDFG_SANITIZE_BUILD_DIR:-$ROOT/build-sanitize}"
  if [ ! -f "$BUILD/build.ninja" ]; then
    echo "==> Configuring the sanitizer build into $BUILD"
    "$ROOT/utils/configure.sh" "$BUILD" -DSDFG_SANITIZE=ON || exit 1
  elif ! grep -q '^SDFG_SANITIZE:BOOL=ON$' "$BUILD/CMakeCache.txt"; then
    echo "$BUILD is not a sanitizer build (SDFG_SANITIZE is not ON)" >&2
    exit 1
  fi
  # Mutants of the lit tests: a fixed seed and count, so every run tries
  # the same ones (about a minute here; another seed than the plain run's).
  FUZZ_SEED=2
  FUZZ_COUNT=600
else
  BUILD="${SDFG_BUILD_DIR:-$ROOT/build}"
  if [ ! -f "$BUILD/build.ninja" ]; then
    echo "No build in $BUILD: run utils/setup.sh first" >&2
    exit 1
  fi
  FUZZ_SEED=1
  FUZZ_COUNT=800
fi
export SDFG_BUILD_DIR="$BUILD"
# Compiled-program cache of the Python frontend: a fresh one per run.
SDFG_CACHE_DIR="$(mktemp -d)"
export SDFG_CACHE_DIR
trap 'rm -rf "$SDFG_CACHE_DIR"' EXIT

cmake --build "$BUILD" || exit 1

status=0
echo "==> lit"
/usr/lib/llvm-22/bin/lit -sv "$BUILD/test" || status=1
echo "==> GoogleTest"
(cd "$BUILD" && ctest --output-on-failure) || status=1
echo "==> fuzz: $FUZZ_COUNT mutants of the lit tests, seed $FUZZ_SEED"
rm -rf "$BUILD/fuzz-crashes"
# --seconds only guards against a machine many times slower than ours.
/usr/bin/python3 "$ROOT/utils/fuzz.py" --build "$BUILD" --seed "$FUZZ_SEED" \
  --count "$FUZZ_COUNT" --seconds 600 --out "$BUILD/fuzz-crashes" || status=1
if [ $sanitize -eq 0 ]; then
  echo "==> clang-format (LLVM style)"
  unformatted=$(cd "$ROOT" && git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run 2>&1 | grep -c "warning:")
  if [ "$unformatted" -ne 0 ]; then
    echo "clang-format: $unformatted formatting differences; run clang-format -i" >&2
    status=1
  fi
  echo "==> pyflakes"
  if ! (cd "$ROOT" && /usr/bin/python3 -m pyflakes python-frontend/sdfg python-frontend/tests); then
    echo "pyflakes: findings above in the Python frontend" >&2
    status=1
  fi
  echo "==> pytest"
  (cd "$ROOT/python-frontend" && /usr/bin/python3 -m pytest -q tests) || status=1
fi

if [ $status -ne 0 ]; then
  echo "FAILED: see the failing suite above" >&2
fi
exit $status
