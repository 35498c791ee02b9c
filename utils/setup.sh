#!/usr/bin/env bash
# Installs every Debian package the project needs, builds it into build/,
# and runs the bundled example so you can see it work.
#
#   utils/setup.sh            install, build, run the example
#   SDFG_SKIP_APT=1 utils/setup.sh   skip the package step
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${SDFG_BUILD_DIR:-$ROOT/build}"

PACKAGES=(
  cmake ninja-build ccache git clang-format
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  libomp-22-dev libopenblas-dev liblpsolve55-dev lp-solve
  libgtest-dev libgmock-dev
  python3 python3-numpy python3-pytest python3-pyflakes graphviz
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ "${SDFG_SKIP_APT:-0}" != "1" ]; then
  missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "==> Installing: ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
  else
    echo "==> All Debian packages present"
  fi
fi

echo "==> Configuring into $BUILD"
"$ROOT/utils/configure.sh" "$BUILD"

echo "==> Building"
cmake --build "$BUILD"

echo "==> Bundled example: an sdfg program compiled for the CPU and run"
SDFG_BUILD_DIR="$BUILD" /usr/bin/python3 "$ROOT/utils/example/run_example.py"
