#!/usr/bin/env bash
# Installs the already-built cgrad into a scratch prefix, then configures, builds and runs a
# separate consumer project against it with find_package(cgrad CONFIG REQUIRED).
# CONSUMER_FLAGS carries the build's sanitizer flags (an instrumented static library needs an
# instrumented program).
set -euo pipefail
build_dir="$1"; src_dir="$2"; generator="${3:-Ninja}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/log"
run() { "$@" >>"$log" 2>&1 || { cat "$log"; exit 1; }; }
run cmake --install "$build_dir" --prefix "$work/prefix"
run cmake -S "$src_dir" -B "$work/build" -G "$generator" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="${CXX_FOR_CONSUMER:-c++}" \
  -DCMAKE_CXX_FLAGS="${CONSUMER_FLAGS:-}" -DCMAKE_EXE_LINKER_FLAGS="${CONSUMER_FLAGS:-}"
run cmake --build "$work/build"
"$work/build/consumer"
