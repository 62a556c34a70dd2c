#!/usr/bin/env bash
# Rewrites the golden kernels (tests/golden/*.txt) from the current scheduler and codegen, after
# a change that is meant to alter generated code; then shows what changed, for review.
# usage: tools/refresh_golden.sh [BUILD_DIR (default build/dev)]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
cmake --build "$build" -j2 --target test_golden >/dev/null
CGRAD_GOLDEN_UPDATE=1 "$build/tests/golden/test_golden" >/dev/null
"$build/tests/golden/test_golden" >/dev/null  # the new files must pass as they are
git status --short tests/golden
git diff --stat tests/golden
