#!/usr/bin/env bash
# clang-tidy (.clang-tidy: LLVM's checks and naming) on the C++ files that
# differ from a git revision, two at a time.
#
#   utils/tidy.sh [REV]   REV defaults to HEAD~1 (the last commit's files)
#
# Uses the compile commands of build/ (or $SDFG_BUILD_DIR). Exits non-zero
# when clang-tidy reports anything.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SDFG_BUILD_DIR:-$ROOT/build}"
REV="${1:-HEAD~1}"
cd "$ROOT" || exit 1
if ! git rev-parse --verify -q "$REV" >/dev/null; then
  echo "tidy: no revision $REV; nothing to compare" >&2
  exit 0
fi
mapfile -t files < <(git diff --name-only --diff-filter=d "$REV" -- \
  'lib/*.cpp' 'tools/*.cpp' 'unittests/*.cpp')
if [ ${#files[@]} -eq 0 ]; then
  echo "tidy: no C++ source changed since $REV"
  exit 0
fi
echo "tidy: ${#files[@]} file(s) changed since $REV"
out=$(printf '%s\n' "${files[@]}" |
  xargs -P 2 -n 1 clang-tidy -p "$BUILD" --quiet 2>/dev/null |
  grep -E "(warning|error):")
if [ -n "$out" ]; then
  echo "$out"
  exit 1
fi
