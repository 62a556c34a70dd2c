#!/usr/bin/env bash
# Quick start, command 2: install what is needed, then build and run every test in three
# configurations: g++ debug (dev), g++ with AddressSanitizer + UBSan (asan-ubsan), and clang++;
# then the concurrency tests under ThreadSanitizer (tsan: its build preset builds only
# test_concurrency and its test preset runs only the label `concurrency`, a few minutes).
# Set CGRAD_TEST_PRESETS to run a subset, e.g. CGRAD_TEST_PRESETS=dev.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
jobs="$(nproc)"
presets="${CGRAD_TEST_PRESETS:-dev asan-ubsan clang tsan}"
status=0
for p in $presets; do
  echo "=== cgrad: preset $p ==="
  start=$(date +%s)
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j"$jobs"
  if ! ctest --preset "$p" -j"$jobs"; then status=1; fi
  echo "=== cgrad: preset $p took $(( $(date +%s) - start )) s ==="
done
exit $status
