#!/bin/bash
# One call on a lent GPU machine (the `device` tool of this workplace, or any Linux machine with an
# NVIDIA GPU, the driver, NVRTC and cuBLAS): the GPU benchmark beside PyTorch/CuPy on the quiet
# card first, then every test of the `gpu` label at once (the long mirror suites cut into gtest
# shards), and compute-sanitizer's memcheck and racecheck over the device-kernel tests.
#
# The binaries are built on the developer's machine and carried, stripped, in one archive that
# bench/gpu/device_pack.sh makes (.devrun/bin.tar.xz).
# Run from the repository root: bash bench/gpu/device_check.sh [archive]. Writes under $OUT
# (default /tmp/gpu-check): RESULTS-gpu.md, summary.txt, logs.tar.gz.
set -u
root=$(pwd)
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
archive=${1:-$root/.devrun/bin.tar.xz}
work=/tmp/cgrad-gpu-check
rm -rf "$work" && mkdir -p "$work/logs" "$work/cache"
tar xJf "$archive" -C "$work" || exit 1
bin=$work/bin
export CGRAD_CACHE_DIR=$work/cache

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv,noheader
echo "cores: $(nproc); c++: $(command -v c++ || echo none); nvcc: $(command -v nvcc || echo none)"
# NVRTC and cuBLAS: the toolkit's folders, and the Python wheels' (nvidia/*/lib), on the loader path.
libdirs=$(find /usr/local /opt /usr/lib -xdev \( -name 'libnvrtc.so*' -o -name 'libcublas.so*' \) \
            -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH=${libdirs}${LD_LIBRARY_PATH:-}
echo "library folders: $libdirs"

want() { [ "${SUITES:-all}" = all ] || [[ " ${SUITES} " == *" $1 "* ]]; }
if want bench; then
  echo "== benchmark (quiet card)"
  BENCH_GPU=$bin/bench_gpu timeout 180 sh bench/gpu/run.sh > "$work/logs/bench.log" 2>&1
  echo "bench rc=$?"
  cp bench/RESULTS-gpu.md "$OUT/" 2>/dev/null
fi

# Nsight Compute's sections over the kernels of the workloads NCU_ONLY names (bench_gpu --only),
# with the clocks left alone (the machine's METHOD.md); the report comes back as ncu.txt.
if want ncu && command -v ncu > /dev/null; then
  echo "== ncu (${NCU_ONLY:-W4})"
  timeout 180 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    "$bin/bench_gpu" --only "${NCU_ONLY:-W4}" --log2n 20 --reps 2 > "$OUT/ncu.txt" 2>&1
  echo "ncu rc=$?"
fi

echo "== tests"
# name | command | environment (the ctest ENVIRONMENT of tests/backends/cuda/CMakeLists.txt)
pids=()
names=()
launch() {  # name env... -- command...
  local name=$1
  shift
  (
    while [ "$1" != "--" ]; do export "${1?}"; shift; done
    shift
    export CGRAD_NUM_THREADS=2
    timeout "${TEST_TIMEOUT:-240}" "$@" > "$work/logs/$name.log" 2>&1
    echo $? > "$work/logs/$name.rc"
  ) &
  pids+=($!)
  names+=("$name")
}
# SUITES: "all", or some of: ops fusion plans autograd odeint gradcheck device runtime kernels capi
# et sanitizer bench ncu. OPS_SHARDS / FUSION_SHARDS: gtest shards of the two long mirror suites
# (on the H200's 16 cores the whole ops suite took about 1000 s of one process: NVRTC compiles).
for ((i = 0; i < ${OPS_SHARDS:-12}; ++i)); do
  want ops && launch "gpu.ops.$i" CGRAD_BACKEND=interpreter GTEST_TOTAL_SHARDS="${OPS_SHARDS:-12}" GTEST_SHARD_INDEX=$i -- "$bin/test_ops_gpu"
done
for ((i = 0; i < ${FUSION_SHARDS:-4}; ++i)); do
  want fusion && launch "gpu.fusion.$i" CGRAD_BACKEND=jit GTEST_TOTAL_SHARDS="${FUSION_SHARDS:-4}" GTEST_SHARD_INDEX=$i -- "$bin/test_fusion_gpu"
done
for s in plans autograd odeint gradcheck; do want $s && launch "gpu.$s" CGRAD_BACKEND=jit -- "$bin/test_${s}_gpu"; done
for t in device runtime kernels; do want $t && launch "test_cuda_$t" -- "$bin/test_cuda_$t"; done
want capi && launch test_capi_cuda -- "$bin/test_capi_cuda"
if want et; then
  launch et_cuda_compile -- "$bin/et_cuda_compile"
  launch odeint_cuda_compile -- "$bin/odeint_cuda_compile"
fi
if want sanitizer && command -v compute-sanitizer > /dev/null; then
  for tool in memcheck racecheck; do
    launch "sanitizer.$tool" -- compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/test_cuda_kernels"
  done
fi
wait
{
  echo "== results (rc 0 passed, 124 timed out)"
  for n in "${names[@]}"; do
    rc=$(cat "$work/logs/$n.rc" 2> /dev/null || echo '?')
    line=$(grep -E '^\[  (PASSED|FAILED|SKIPPED) |ERROR SUMMARY|^\[ GPU ' "$work/logs/$n.log" | tail -2 | tr '\n' ' ')
    printf '%-22s rc=%-4s %s\n' "$n" "$rc" "$line"
  done
  echo "== failures"
  grep -h -B2 -A12 -E '^\[  FAILED  \]|Failure$|error:' "$work"/logs/*.log | head -150
} | tee "$OUT/summary.txt"
tar czf "$OUT/logs.tar.gz" -C "$work" logs
[ -f "$work/logs/bench.log" ] && grep -E '^\| W|^\| device|replay|first eval|NVRTC' "$work/logs/bench.log"
