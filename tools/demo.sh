#!/usr/bin/env bash
# Quick start, command 1: install what is needed, build, run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
cmake --preset release -DCGRAD_BUILD_BENCH=OFF >/dev/null
cmake --build build/release --target demo -j"$(nproc)"
./build/release/examples/demo
