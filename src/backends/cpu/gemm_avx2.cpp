// gemm_kernel.inc for AVX2 and FMA: register tiles of 6 rows by 2 vectors (12 accumulators of 16
// registers). Built with -mavx2 -mfma (src/CMakeLists.txt); nothing in it runs unless gemm.cpp
// found both on the CPU.
#include "backends/cpu/gemm_kernel.h"

#include <immintrin.h>

#include <utility>

namespace cgrad::backends::cpu {

namespace {

#include "backends/cpu/gemm_kernel.inc"

CGRAD_GEMM_TRAITS(F32, float, __m256, 8, 6, _mm256, ps);
CGRAD_GEMM_TRAITS(F64, double, __m256d, 4, 6, _mm256, pd);

constexpr GemmKernels kKernels{"avx2", fns<F32>(), fns<F64>()};

}  // namespace

const GemmKernels& gemm_avx2_kernels() { return kKernels; }

}  // namespace cgrad::backends::cpu
