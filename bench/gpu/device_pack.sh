#!/bin/bash
# Builds the binaries bench/gpu/device_check.sh runs on a GPU machine (release preset: every test
# of the `gpu` label, and bench_gpu), strips them and packs them into .devrun/bin.tar.xz (about
# 6.5 MB), for the device tool to carry: run(command="bash bench/gpu/device_check.sh",
# carry=[".devrun"]). .devrun/ must be ignored (.git/info/exclude) so that only `carry` moves it.
set -eu
cd "$(dirname "$0")/../.."
targets=(test_ops_gpu test_fusion_gpu test_plans_gpu test_autograd_gpu test_odeint_gpu test_gradcheck_gpu
         test_cuda_device test_cuda_runtime test_cuda_kernels test_capi_cuda bench_gpu)
[ -d build/release ] || cmake --preset release > /dev/null
# et_cuda_compile and odeint_cuda_compile exist where nvcc was found at configure time.
cmake --build build/release -j"$(nproc)" --target "${targets[@]}"
nvcc_targets=""
for t in et/et_cuda_compile odeint/odeint_cuda_compile; do
  cmake --build build/release --target "$(basename $t)" > /dev/null 2>&1 && nvcc_targets="$nvcc_targets tests/$t"
done
rm -rf .devrun/bin && mkdir -p .devrun/bin
for f in tests/backends/cuda/test_{ops,fusion,plans,autograd,odeint,gradcheck}_gpu \
         tests/backends/cuda/test_cuda_{device,runtime,kernels} tests/capi/test_capi_cuda bench/bench_gpu $nvcc_targets; do
  strip -o ".devrun/bin/$(basename "$f")" "build/release/$f"
done
tar cJf .devrun/bin.tar.xz -C .devrun bin && rm -rf .devrun/bin
ls -l .devrun/bin.tar.xz
