// gemm_kernel.inc for AVX-512F: register tiles of 14 rows by 2 vectors (28 accumulators of 32
// registers). Built with -mavx512f (src/CMakeLists.txt); nothing in it runs unless gemm.cpp found
// AVX-512F on the CPU.
#include "backends/cpu/gemm_kernel.h"

#include <immintrin.h>

namespace cgrad::backends::cpu {

namespace {

struct F32 {
  using T = float;
  using R = __m512;
  static constexpr int L = 16, MR = 14;
  static R zero() { return _mm512_setzero_ps(); }
  static R load(const T* p) { return _mm512_load_ps(p); }
  static R loadu(const T* p) { return _mm512_loadu_ps(p); }
  static void storeu(T* p, R v) { _mm512_storeu_ps(p, v); }
  static R bcast(const T* p) { return _mm512_set1_ps(*p); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_ps(a, b, c); }
  static R add(R a, R b) { return _mm512_add_ps(a, b); }
};

struct F64 {
  using T = double;
  using R = __m512d;
  static constexpr int L = 8, MR = 14;
  static R zero() { return _mm512_setzero_pd(); }
  static R load(const T* p) { return _mm512_load_pd(p); }
  static R loadu(const T* p) { return _mm512_loadu_pd(p); }
  static void storeu(T* p, R v) { _mm512_storeu_pd(p, v); }
  static R bcast(const T* p) { return _mm512_set1_pd(*p); }
  static R fma(R a, R b, R c) { return _mm512_fmadd_pd(a, b, c); }
  static R add(R a, R b) { return _mm512_add_pd(a, b); }
};

#include "backends/cpu/gemm_kernel.inc"

constexpr GemmKernels kKernels{"avx512",        F32::MR,   F64::MR,         2 * F32::L, 2 * F64::L,
                               work_elems<F32>, gemm<F32>, work_elems<F64>, gemm<F64>};

}  // namespace

const GemmKernels& gemm_avx512_kernels() { return kKernels; }

}  // namespace cgrad::backends::cpu
