// gemm_kernel.inc for AVX-512F: register tiles of 14 rows by 2 vectors (28 accumulators of 32
// registers). Built with -mavx512f -mfma (src/CMakeLists.txt); nothing in it runs unless gemm.cpp
// found AVX-512F and FMA on the CPU.
#include "backends/cpu/gemm_kernel.h"

#include <immintrin.h>

#include <utility>

namespace cgrad::backends::cpu {

namespace {

#include "backends/cpu/gemm_kernel.inc"

CGRAD_GEMM_TRAITS(F32, float, __m512, 16, 14, _mm512, ps);
CGRAD_GEMM_TRAITS(F64, double, __m512d, 8, 14, _mm512, pd);
// f32 rows of a matrix times a vector: 8 lanes (gemm_n1 in gemm_kernel.inc says why)
CGRAD_GEMM_TRAITS(F32Y, float, __m256, 8, 6, _mm256, ps);
template <>
struct RowLanes<F32> {
  using type = F32Y;
};

constexpr GemmKernels kKernels{"avx512", fns<F32>(), fns<F64>()};

}  // namespace

const GemmKernels& gemm_avx512_kernels() { return kKernels; }

}  // namespace cgrad::backends::cpu
