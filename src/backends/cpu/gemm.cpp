// Batched GEMM over strided views with CBLAS row-major calls. An operand whose last two dims
// have unit stride in one of them is passed as is (transposed or not, with its leading
// dimension); anything else (broadcast rows, sliced columns) is copied contiguous first.
#include "backends/cpu/gemm.h"

#include "backends/cpu/interpreter.h"
#include "backends/cpu/thread_pool.h"
#include "core/strided.hpp"
#include "schedule/library_loops.h"

#include <dlfcn.h>

namespace cgrad::backends::cpu {

namespace {

enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };
using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using Dgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double, double*, int);
using SetThreads = void (*)(int);

struct Blas {
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  Blas() {
    for (const char* lib : {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblas.so.3"}) {
      void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
      if (!h) continue;
      sgemm = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"));
      dgemm = reinterpret_cast<Dgemm>(dlsym(h, "cblas_dgemm"));
      if (sgemm && dgemm) {
        if (auto set = reinterpret_cast<SetThreads>(dlsym(h, "openblas_set_num_threads"))) set(num_threads());
        return;
      }
      sgemm = nullptr;
      dgemm = nullptr;
    }
  }
};

const Blas& blas() {
  static const Blas b;
  return b;
}

}  // namespace

bool gemm_dims(const ir::Node& n, int64_t& m, int64_t& k, int64_t& nn) {
  if (n.dtype != DType::f32 && n.dtype != DType::f64) return false;
  const Shape& as = n.inputs[0]->shape;
  const std::size_t r = as.size();
  m = as[r - 2];
  k = as[r - 1];
  nn = n.inputs[1]->shape[r - 1];
  constexpr int64_t kMaxDim = 2147483647;
  return m <= kMaxDim && k <= kMaxDim && nn <= kMaxDim;
}

bool blas_available() { return blas().sgemm != nullptr; }

bool blas_matmul(const ir::Node& n, const ir::View& a_in, const ir::View& b_in, ir::View& out) {
  int64_t m = 0, k = 0, nn = 0;
  if (!blas_available() || !gemm_dims(n, m, k, nn)) return false;
  const Shape& as = n.inputs[0]->shape;
  const Shape& bs = n.inputs[1]->shape;
  const std::size_t r = as.size();
  ir::View a = a_in, b = b_in;
  bool tra = false, trb = false;
  int64_t lda = 0, ldb = 0;
  if (!schedule::blas_layout(m, k, a.strides[r - 2], a.strides[r - 1], tra, lda)) {
    a = contiguous_copy(a_in, as, n.dtype);
    schedule::blas_layout(m, k, a.strides[r - 2], a.strides[r - 1], tra, lda);
  }
  if (!schedule::blas_layout(k, nn, b.strides[r - 2], b.strides[r - 1], trb, ldb)) {
    b = contiguous_copy(b_in, bs, n.dtype);
    schedule::blas_layout(k, nn, b.strides[r - 2], b.strides[r - 1], trb, ldb);
  }
  const int ta = tra ? kTrans : kNoTrans, tb = trb ? kTrans : kNoTrans;
  if (!out.storage) out = alloc_contiguous(n.shape, n.dtype);  // else a contiguous buffer the plan gave
  Shape batch(as.begin(), as.end() - 2);
  std::array<const int64_t*, 3> st{a.strides.data(), b.strides.data(), out.strides.data()};
  const auto M = static_cast<int>(m), N = static_cast<int>(nn), K = static_cast<int>(k);
  const auto LDA = static_cast<int>(lda), LDB = static_cast<int>(ldb);
  if (m == 0 || nn == 0) return true;
  auto run = [&](auto zero, auto gemm) {
    using T = decltype(zero);
    core::for_each_strided<3>(batch, st, {a.offset, b.offset, out.offset}, [&](int64_t ao, int64_t bo, int64_t oo) {
      T* o = static_cast<T*>(out.storage->data) + oo;
      if (k == 0) {  // BLAS leaves C alone when k == 0 with beta == 0 on some builds: write zeros
        for (int64_t i = 0; i < m * nn; ++i) o[i] = zero;
        return;
      }
      gemm(kRowMajor, ta, tb, M, N, K, T(1), static_cast<const T*>(a.storage->data) + ao, LDA,
           static_cast<const T*>(b.storage->data) + bo, LDB, T(0), o, N);
    });
  };
  if (n.dtype == DType::f32) run(0.0f, blas().sgemm);
  else run(0.0, blas().dgemm);
  return true;
}

}  // namespace cgrad::backends::cpu
