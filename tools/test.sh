#!/usr/bin/env bash
# Quick start, command 2: install what is needed, then build and run the tests, each label in the
# configurations where it finds something the others do not (CMakePresets.json, testPresets):
#   dev         g++ debug: every label (the gpu tests skip without a device)
#   asan-ubsan  clang++ with AddressSanitizer + UBSan, libcgrad a shared library: builds everything
#               with the second compiler; runs all but cuda-compile (the same generated source as
#               dev, compiled by NVRTC), mpi (leaks inside the MPI library), gpu and lint (the
#               clang-format check, tools/check_format.sh)
#   tsan        g++ with ThreadSanitizer: builds and runs only the concurrency suite (label
#               concurrency)
# The clang preset (clang++ debug, the same programs as dev) is not in the default list: the
# sanitizer preset builds everything with clang++ already, and GCC's sanitizers took 2.4 times as
# long to compile the interpreter (673 s against 276 for interp_elementwise.cpp; docs/install.md).
# Set CGRAD_TEST_PRESETS to run another list, e.g. CGRAD_TEST_PRESETS=dev or "dev clang".
# With CI=true (a throwaway clone) each preset's build folder is deleted once its tests have run,
# so the disk holds one preset's build at a time (CGRAD_TEST_KEEP_BUILDS=1 keeps them).
#
# The `gpu`-labelled tests (docs/cuda.md) also run on an emulated CUDA device when the
# emulator is there (CGRAD_CUDA_EMU, default ../shared/tools/cuda-emu beside the checkout):
# its setup.sh builds it once per machine (about 7 minutes on 2 cores, then cached), and the
# tests run once, in the dev preset, with its out-of-bounds checker and race detector on.
# Without it, one line says they were skipped (each gpu test also skips without a device).
#
# Last, the Python package's tests (tools/test_python.sh; CGRAD_TEST_PYTHON=0 skips them).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
# ccache (installed by install_deps.sh) makes rebuilding unchanged sources cheap in every preset
# and in the Python wheel, also for a clone in another folder: paths are hashed relative to the
# checkout. Macros holding absolute paths are still hashed as written, so no stale object is reused.
if command -v ccache >/dev/null && [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
fi
jobs="$(nproc)"
presets="${CGRAD_TEST_PRESETS:-dev asan-ubsan tsan}"
emu="${CGRAD_CUDA_EMU:-../shared/tools/cuda-emu}"
status=0
begin=$(date +%s)

# The gpu tests of preset $1 on the emulated device.
emulated_gpu_tests() {
  local p=$1 start lib
  start=$(date +%s)
  echo "=== cgrad: gpu tests on the emulated CUDA device ($emu), preset $p ==="
  if ! lib=$("$emu/setup.sh"); then
    echo "=== cgrad: the CUDA emulator did not build ($emu/setup.sh failed) ==="
    return 1
  fi
  echo "=== cgrad: emulator ready in $(( $(date +%s) - start )) s: $lib ==="
  local rc=0
  # CGRAD_CUDA_EMULATOR: kernels avoid f16 `cvt` and dp4a/dp2a, which the emulator lacks (docs/cuda.md).
  LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUDA_EMU_MEMCHECK=1 CUDA_EMU_RACECHECK=1 CGRAD_CUDA_EMULATOR=1 \
    ctest --preset "$p" -j"$jobs" -L gpu || rc=1
  echo "=== cgrad: emulated gpu tests took $(( $(date +%s) - start )) s ==="
  return $rc
}

for p in $presets; do
  echo "=== cgrad: preset $p ==="
  start=$(date +%s)
  cmake --preset "$p" >/dev/null
  cmake --build --preset "$p" -j"$jobs"
  if ! ctest --preset "$p" -j"$jobs"; then status=1; fi
  echo "=== cgrad: preset $p took $(( $(date +%s) - start )) s ==="
  if [[ $p == dev ]]; then
    if [[ -x $emu/setup.sh ]]; then
      emulated_gpu_tests "$p" || status=1
    else
      echo "=== cgrad: gpu tests SKIPPED: no CUDA emulator at $emu (set CGRAD_CUDA_EMU; a real GPU runs them in ctest) ==="
    fi
  fi
  if [[ ${CI:-} == true && ${CGRAD_TEST_KEEP_BUILDS:-0} != 1 ]]; then
    echo "=== cgrad: preset $p used $(du -sh "build/$p" | cut -f1) of disk; deleted (CI=true) ==="
    rm -rf "build/$p"
  fi
done
[[ " $presets " == *" dev "* ]] || echo "=== cgrad: emulated gpu tests not run: they run with the dev preset only ==="
# The Python package: wheel, pytest and the Array API conformance suite (docs/python.md).
if [ "${CGRAD_TEST_PYTHON:-1}" != 0 ]; then
  if ! tools/test_python.sh; then status=1; fi
fi
echo "=== cgrad: all tests took $(( $(date +%s) - begin )) s, status $status ==="
exit $status
