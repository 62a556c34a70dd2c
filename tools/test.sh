#!/usr/bin/env bash
# Quick start, command 2: install what is needed, then build and run every test in three
# configurations: g++ debug (dev), g++ with AddressSanitizer + UBSan (asan-ubsan), and clang++;
# then the concurrency tests under ThreadSanitizer (tsan: its build preset builds only
# test_concurrency and its test preset runs only the label `concurrency`, a few minutes).
# Set CGRAD_TEST_PRESETS to run a subset, e.g. CGRAD_TEST_PRESETS=dev. Then the Python package's
# tests (tools/test_python.sh; CGRAD_TEST_PYTHON=0 skips them).
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
# The Python package: wheel, pytest and the Array API conformance suite (docs/python.md).
# CGRAD_TEST_PYTHON=0 leaves it out.
if [ "${CGRAD_TEST_PYTHON:-1}" != 0 ]; then
  if ! tools/test_python.sh; then status=1; fi
fi
exit $status
