#!/usr/bin/env bash
# Installs the already-built cgrad into a scratch prefix, then configures, builds and runs a
# separate consumer project against it with find_package(cgrad CONFIG REQUIRED).
set -euo pipefail
build_dir="$1"; src_dir="$2"; generator="${3:-Ninja}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$src_dir" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="${CXX_FOR_CONSUMER:-c++}" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
