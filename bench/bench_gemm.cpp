// cgrad's GEMM kernels (backends/cpu/gemm_kernel.inc) against the BLAS on the MLP step's eight
// GEMMs (784-512-512-10, batch 256: forward, input and weight gradients), one thread, and the
// core's FMA peak, so that each figure can be read as a fraction of it. Prints a Markdown table.
//
// usage: bench_gemm [reps]   (median of reps samples per figure, default 41)
// The BLAS is the one backends/cpu/gemm.cpp would load (libopenblas.so.0), as the environment
// configures it: OPENBLAS_CORETYPE picks its kernels (docs/jit.md, "GEMM").
#include "backends/cpu/gemm_kernel.h"

#include <dlfcn.h>
#include <immintrin.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace cgrad::backends::cpu;

namespace {

using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                       float*, int);

template <class F>
double median_s(int reps, const F& f) {
  std::vector<double> t;
  f();
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// GFLOP/s of 24 independent chains of 512-bit FMAs: what one core can do at most.
__attribute__((target("avx512f"))) double fma_peak_avx512() {
  __m512 acc[24];
  for (int i = 0; i < 24; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  double best = 0;
  for (int rep = 0; rep < 7; ++rep) {
    constexpr long kIters = 10000000;
    const auto t = std::chrono::steady_clock::now();
    for (long it = 0; it < kIters; ++it) {
#pragma GCC unroll 24
      for (int i = 0; i < 24; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    best = std::max(best, kIters * 24.0 * 32 / s * 1e-9);
  }
  float lanes[16], sink = 0;
  for (auto& v : acc) {
    _mm512_storeu_ps(lanes, v);
    sink += lanes[0];
  }
  if (sink == 12345.f) std::puts("");  // keeps the chains
  return best;
}

struct Shape {
  const char* name;
  int m, n, k;
  bool ta, tb;  // op(A) = A^T, op(B) = B^T
};

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 41;
  void* h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  Sgemm sgemm = h ? reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm")) : nullptr;
  if (h) {
    if (auto set = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"))) set(1);
  }
  const char* core = "-";
  if (h)
    if (auto name = reinterpret_cast<char* (*)()>(dlsym(h, "openblas_get_corename"))) core = name();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  std::printf("one thread; OpenBLAS kernels: %s; OPENBLAS_CORETYPE=%s\n", core,
              std::getenv("OPENBLAS_CORETYPE") ? std::getenv("OPENBLAS_CORETYPE") : "(unset)");
  if (avx512) std::printf("FMA peak (24 chains of 512-bit FMAs): %.1f GFLOP/s\n", fma_peak_avx512());
  std::printf(
      "\n| GEMM (m x n x k) | OpenBLAS | cgrad avx512 | cgrad avx2 | max abs diff, cgrad vs OpenBLAS |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  const Shape shapes[] = {{"fwd1 256x512x784", 256, 512, 784, false, false},
                          {"fwd2 256x512x512", 256, 512, 512, false, false},
                          {"fwd3 256x10x512", 256, 10, 512, false, false},
                          {"dX3 256x512x10 (B^T)", 256, 512, 10, false, true},
                          {"dX2 256x512x512 (B^T)", 256, 512, 512, false, true},
                          {"dW1 784x512x256 (A^T)", 784, 512, 256, true, false},
                          {"dW2 512x512x256 (A^T)", 512, 512, 256, true, false},
                          {"dW3 512x10x256 (A^T)", 512, 10, 256, true, false}};
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> u(-0.5f, 0.5f);
  double tot[3] = {0, 0, 0};
  for (const Shape& s : shapes) {
    const int ar = s.ta ? s.k : s.m, ac = s.ta ? s.m : s.k, br = s.tb ? s.n : s.k, bc = s.tb ? s.k : s.n;
    std::vector<float> A(static_cast<std::size_t>(ar) * ac), B(static_cast<std::size_t>(br) * bc);
    for (auto& x : A) x = u(gen);
    for (auto& x : B) x = u(gen);
    std::vector<float> c0(static_cast<std::size_t>(s.m) * s.n), c1(c0.size());
    const double flop = 2.0 * s.m * s.n * s.k;
    double t[3] = {NAN, NAN, NAN};
    if (sgemm)
      t[0] = median_s(reps, [&] {
        sgemm(101, s.ta ? 112 : 111, s.tb ? 112 : 111, s.m, s.n, s.k, 1.f, A.data(), ac, B.data(), bc, 0.f,
              c0.data(), s.n);
      });
    float diff = NAN;
    for (int isa = 0; isa < 2; ++isa) {
      if (isa == 0 ? !avx512 : !avx2) continue;
      const GemmKernels& kern = isa == 0 ? gemm_avx512_kernels() : gemm_avx2_kernels();
      std::vector<float> work(static_cast<std::size_t>(kern.f32.work(s.n)));
      t[1 + isa] = median_s(reps, [&] {
        kern.f32.gemm(s.m, s.n, s.k, A.data(), s.ta ? 1 : ac, s.ta ? ac : 1, B.data(), s.tb ? 1 : bc,
                      s.tb ? bc : 1, c1.data(), s.n, work.data());
      });
      if (sgemm && std::isnan(diff)) {  // the widest set's result against the BLAS's
        diff = 0;
        for (std::size_t i = 0; i < c0.size(); ++i) diff = std::max(diff, std::fabs(c0[i] - c1[i]));
      }
    }
    for (int i = 0; i < 3; ++i) tot[i] += t[i];
    std::printf("| %s | %.1f | %.1f | %.1f | %.2g |\n", s.name, flop / t[0] * 1e-9, flop / t[1] * 1e-9,
                flop / t[2] * 1e-9, static_cast<double>(diff));
  }
  std::printf(
      "\nthe eight GEMMs, ms: OpenBLAS %.3f, cgrad avx512 %.3f, cgrad avx2 %.3f (GFLOP/s columns: median of "
      "%d)\n",
      tot[0] * 1e3, tot[1] * 1e3, tot[2] * 1e3, reps);
}
