// cgrad's own f32/f64 GEMM kernels, one set per x86 instruction set (gemm_kernel.inc, compiled by
// gemm_avx512.cpp and gemm_avx2.cpp with their own target flags). backends/cpu/gemm.cpp picks a
// set at run time from the CPU's features (and CGRAD_GEMM) and splits a GEMM over the pool.
#pragma once

#include <cstdint>

namespace cgrad::backends::cpu {

/// The kernels of one element type T.
template <class T>
struct GemmFns {
  int mr;  ///< rows of the register tile: row bands of a split GEMM are multiples of it
  int nr;  ///< columns of a packed strip of B (2 vectors): column bands are multiples of it
  /// Elements of workspace `gemm` needs for a result of n columns.
  int64_t (*work)(int64_t n);
  /// C (m x n, row stride ldc) = A (m x k) B (k x n) with A(i, p) = a[i * ars + p * acs] and
  /// B(p, j) = b[p * brs + j * bcs]; k >= 1. `work` holds at least work(n) elements.
  void (*gemm)(int64_t m, int64_t n, int64_t k, const T* a, int64_t ars, int64_t acs, const T* b, int64_t brs,
               int64_t bcs, T* c, int64_t ldc, T* work);
};

struct GemmKernels {
  const char* name;  ///< "avx512" or "avx2"
  GemmFns<float> f32;
  GemmFns<double> f64;
};

#if defined(__x86_64__)
/// The kernels built for AVX-512F (16 f32 lanes): call only where the CPU has AVX-512F.
const GemmKernels& gemm_avx512_kernels();
/// The kernels built for AVX2 and FMA (8 f32 lanes): call only where the CPU has both.
const GemmKernels& gemm_avx2_kernels();
#endif

}  // namespace cgrad::backends::cpu
