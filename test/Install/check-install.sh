#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds the consumer project
# against it (find_package(SDFG)), and runs the consumer's own opt tool
# with our passes and pipelines. Usage: check-install.sh BUILD_DIR SRC_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -G Ninja -S "$src/test/Install/consumer" -B "$work/build" \
  -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" >/dev/null
tool=$work/build/consumer-opt
input=$src/test/Install/consumer/input.mlir
# Import alone, then the whole gradient pipeline down to the LLVM dialect.
"$tool" "$input" --convert-to-sdfg | grep "sdfg.sdfg @loss" >/dev/null
"$tool" "$input" --sdfg-gradient-pipeline="output=y wrt=x lower=false" \
  | grep "sdfg.sdfg @loss_grad" >/dev/null
"$tool" "$input" --sdfg-gradient-pipeline="output=y wrt=x mem=1" \
  | grep "llvm.func @loss_grad" >/dev/null
# The installed tools work from the prefix too.
"$work/prefix/bin/sdfg-opt" "$input" --convert-to-sdfg \
  | grep "sdfg.sdfg @loss" >/dev/null
echo "install + consumer: ok"
