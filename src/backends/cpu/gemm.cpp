// Batched GEMM over strided views. f32 and f64 run on cgrad's own kernels (gemm_kernel.inc) for
// the best x86 instruction set the CPU has: they read operands at any strides (transposed,
// sliced, broadcast) without a copy, and give the same bits on every thread count, cut and
// instruction set. Elsewhere (another CPU, CGRAD_GEMM=blas) and for c64/c128, CBLAS row-major
// calls (cblas_cgemm/cblas_zgemm where the library has them): an operand whose last two dims have
// unit stride in one of them is passed as is (transposed or not, with its leading dimension);
// anything else (broadcast rows, sliced columns) is copied contiguous first.
//
// A GEMM is split over cgrad's own thread pool: each pool thread computes a band of rows (or
// columns) of the result, and the BLAS runs single-threaded. With a threaded BLAS, its threads
// and the pool's took turns on the same cores: after a GEMM, the BLAS's workers poll for more work
// while the pool runs the next element-wise kernel, and after a kernel the pool's workers poll
// (500 us) while the BLAS runs, so on a 2-core machine three or four threads wanted two cores
// through most of a training step (bench/NOTES.md, "MLP step").
#include "backends/cpu/gemm.h"

#include "backends/cpu/gemm_kernel.h"
#include "backends/cpu/interpreter.h"
#include "backends/cpu/thread_pool.h"
#include "core/dtype.hpp"
#include "core/env.hpp"
#include "core/strided.hpp"
#include "schedule/library_loops.h"

#include <dlfcn.h>
#include <algorithm>
#include <thread>
#include <vector>

namespace cgrad::backends::cpu {

namespace {

enum { kRowMajor = 101, kNoTrans = 111, kTrans = 112 };
using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                       float*, int);
using Dgemm = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                       double*, int);
// cblas_cgemm / cblas_zgemm: alpha, beta and the matrices as void pointers to (re, im) pairs,
// the layout of complex_t (complex group).
using Cgemm = void (*)(int, int, int, int, int, int, const void*, const void*, int, const void*, int,
                       const void*, void*, int);
using SetThreads = void (*)(int);
using SetThreadsLong = void (*)(long);

struct Blas {
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  Cgemm cgemm = nullptr, zgemm = nullptr;  // optional: complex GEMMs take the loops without them
  Blas() {
    for (const char* lib : {"libopenblas.so.0", "libopenblas.so", "libcblas.so.3", "libblas.so.3"}) {
      void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
      if (!h) continue;
      sgemm = reinterpret_cast<Sgemm>(dlsym(h, "cblas_sgemm"));
      dgemm = reinterpret_cast<Dgemm>(dlsym(h, "cblas_dgemm"));
      if (sgemm && dgemm) {
        cgemm = reinterpret_cast<Cgemm>(dlsym(h, "cblas_cgemm"));
        zgemm = reinterpret_cast<Cgemm>(dlsym(h, "cblas_zgemm"));
        // One thread inside the BLAS: fast_matmul splits the work over the pool.
        if (auto set = reinterpret_cast<SetThreads>(dlsym(h, "openblas_set_num_threads"))) set(1);
        if (auto set = reinterpret_cast<SetThreadsLong>(dlsym(h, "bli_thread_set_num_threads"))) set(1);
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
  if (n.dtype != DType::f32 && n.dtype != DType::f64 && !is_complex(n.dtype)) return false;
  const Shape& as = n.inputs[0]->shape;
  const std::size_t r = as.size();
  m = as[r - 2];
  k = as[r - 1];
  nn = n.inputs[1]->shape[r - 1];
  constexpr int64_t kMaxDim = 2147483647;
  return m <= kMaxDim && k <= kMaxDim && nn <= kMaxDim;
}

bool blas_available() { return blas().sgemm != nullptr; }

namespace {

// cgrad's kernels for f32/f64 on this CPU, as CGRAD_GEMM asks: "auto" (or any other value) the
// best set the CPU has, "avx512" / "avx2" that set or the best below it, "blas" none.
const GemmKernels* own_kernels() {
  const std::string& want = core::env().gemm;
  if (want == "blas") return nullptr;
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx512 && want != "avx2") return &gemm_avx512_kernels();
  if (avx2) return &gemm_avx2_kernels();
#endif
  return nullptr;
}

// The calling thread's workspace for the kernels (packed blocks of A and B), grown as needed and
// kept: pool threads live as long as the process.
template <class T>
T* own_work(int64_t elems) {
  thread_local std::vector<T> buf;
  if (static_cast<int64_t>(buf.size()) < elems) buf.resize(static_cast<std::size_t>(elems));
  return buf.data();
}

// Below this many multiply-adds a GEMM runs on the calling thread: waking the pool costs
// microseconds, as much as a GEMM of this size takes.
constexpr double kParallelMacs = 1 << 17;
// How many parts a large GEMM is cut into at most: the hardware threads (the pool's default size).
int gemm_parts() {
  static const int parts = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return parts;
}

// How a GEMM is cut into bands: of rows or of columns of C, in multiples of a unit (the kernels'
// register tile, so that every band but the last fills it).
struct Cut {
  bool rows;
  int64_t unit;
};

// C (m x n) = op(A) op(B) on the pool: band(i0, i1, j0, j1) computes rows i0..i1 and columns j0..j1
// of C.
template <class Band>
void pooled(int64_t m, int64_t n, int64_t k, Cut cut, const Band& band) {
  const bool rows = cut.rows;
  const int64_t unit = cut.unit, dim = rows ? m : n;
  const int64_t bands = (dim + unit - 1) / unit;
  // The BLAS's result depends on how C is cut (OpenBLAS picks other kernels for other sizes: a
  // 1000x64x64 sgemm whole and as two 500-row calls differ in 8% of the elements), so the cut
  // depends on the shape and the machine's hardware threads, never on the pool's size: with
  // CGRAD_NUM_THREADS=1 the same parts run one after another and give the same bits. (cgrad's
  // kernels give the same bits for any cut.)
  const Partition parts = partition(bands, 1, gemm_parts());
  if (static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < kParallelMacs ||
      parts.chunks < 2) {
    band(0, m, 0, n);
    return;
  }
  parallel_for(parts.chunks, 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t lo = parts.begin(p) * unit, hi = std::min(parts.end(p) * unit, dim);
      if (rows)
        band(lo, hi, 0, n);
      else
        band(0, m, lo, hi);
    }
  });
}

// Bands of the BLAS's split are multiples of this many rows or columns, so that every band but the
// last fills its micro-kernels' register tiles (16 f32 lanes with AVX-512).
constexpr int64_t kBlasBand = 16;

// out = a @ b over the batch dims, each matrix by `one(a, b, c)` with the three element offsets.
template <class T, class One>
void for_each_matrix(const Shape& batch, const ir::View& a, const ir::View& b, ir::View& out,
                     const One& one) {
  std::array<const int64_t*, 3> st{a.strides.data(), b.strides.data(), out.strides.data()};
  core::for_each_strided<3>(
      batch, st, {a.offset, b.offset, out.offset}, [&](int64_t ao, int64_t bo, int64_t oo) {
        one(static_cast<const T*>(a.storage->data) + ao, static_cast<const T*>(b.storage->data) + bo,
            static_cast<T*>(out.storage->data) + oo);
      });
}

// A Gram product, X^T X or X X^T: both operands read one matrix, the second transposed (B(p, j) =
// A(j, p)), so C is symmetric. Only the upper triangle is computed, in bands of `band` rows (row i0
// on from column i0), and each band copies its part below the diagonal: about half the
// multiply-adds (NumPy calls BLAS syrk for `x.T @ x`). C(j, i)'s chain of FMAs is C(i, j)'s with each
// product's factors swapped, so the bits are the full product's. Bands near the top hold more
// columns: task t runs bands t and bands - 1 - t, the same work for every task.
bool is_gram(const ir::View& a, const ir::View& b, std::size_t r, int64_t m, int64_t nn) {
  if (m != nn || a.storage != b.storage || a.offset != b.offset) return false;
  for (std::size_t d = 0; d + 2 < r; ++d)
    if (a.strides[d] != b.strides[d]) return false;
  return a.strides[r - 2] == b.strides[r - 1] && a.strides[r - 1] == b.strides[r - 2];
}
// From this many rows (fewer: the full product; the triangle's diagonal blocks are a larger part)
// and this depth: the copy below the diagonal costs about what 100-200 multiply-adds of an element
// do (more where C is past the caches), so shallow products lost. One thread of the Rocket Lake VM,
// f32, X (k x n): X^T X at k = n = 1024 15.1-15.4 -> 11.6-12.0 ms (two threads 7.3-7.6 -> 5.4-5.6),
// k = 4096 and n = 256 4.0 -> 3.2, but k = 256 and n = 2048 15.8 -> 16.6 and X X^T of X (4096 x 256)
// 64 -> 87 before this bound (bench/RESULTS.md, 2026-12-06).
constexpr int64_t kGramFrom = 64;
constexpr int64_t kGramDepth = 512;
// Bands of at least this many rows (n / 4 per part of the pool for larger n: two tasks per part): a
// band packs its columns of B for its rows alone, so short bands pack more than they multiply; the
// diagonal blocks add band / n to the work.
constexpr int64_t kGramBand = 96;
constexpr int64_t kGramBlock = 16;
int64_t gram_band(int64_t n, int64_t mr) {
  const int64_t rows = std::max<int64_t>(n / (4 * gemm_parts()), kGramBand);
  return (rows + mr - 1) / mr * mr;
}
// Whether the triangle is worth it: deep enough, and a task for every part of the pool, as the full
// product would have (X^T X of 1000 x 100, two threads: one task of two bands took 0.21 ms where the
// full product split in two took 0.13). (n and k as here always make the pool's work.)
bool gram_worth(int64_t n, int64_t k, int64_t mr) {
  if (n < kGramFrom || k < kGramDepth) return false;
  const int64_t band = gram_band(n, mr), bands = (n + band - 1) / band;
  return (bands + 1) / 2 >= gemm_parts();
}
template <class T>
void gram_matmul(const GemmFns<T>& fn, int64_t n, int64_t k, const T* A, int64_t ars, int64_t acs, T* C) {
  const int64_t band = gram_band(n, fn.mr), bands = (n + band - 1) / band;
  auto one = [&](int64_t t) {
    const int64_t i0 = t * band, i1 = std::min(n, i0 + band);
    T* work = own_work<T>(fn.work(n - i0));
    fn.gemm(i1 - i0, n - i0, k, A + i0 * ars, ars, acs, A + i0 * ars, acs, ars, C + i0 * n + i0, n, work);
    // C(j, i) = C(i, j) below the diagonal, in blocks of kGramBlock x kGramBlock through a local
    // copy: each row's piece of a block is whole cache lines, read or written once (a row of C
    // 4 KiB apart from the next puts a column's lines in one L1 set).
    T blk[kGramBlock][kGramBlock];
    for (int64_t ib = i0; ib < i1; ib += kGramBlock)
      for (int64_t jb = ib; jb < n; jb += kGramBlock) {
        const int64_t ie = std::min(ib + kGramBlock, i1), je = std::min(jb + kGramBlock, n);
        for (int64_t i = ib; i < ie; ++i)
          for (int64_t j = jb; j < je; ++j) blk[j - jb][i - ib] = C[i * n + j];
        for (int64_t j = jb; j < je; ++j)
          for (int64_t i = ib, e = std::min(ie, j); i < e; ++i) C[j * n + i] = blk[j - jb][i - ib];
      }
  };
  const int64_t tasks = (bands + 1) / 2;
  auto run = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      one(t);
      if (bands - 1 - t != t) one(bands - 1 - t);
    }
  };
  parallel_for(tasks, 1, run);  // (gram_worth: always the pool's work; one task runs inline)
}

// f32/f64 on cgrad's kernels: operands at their own strides, no copies.
template <class T>
void own_matmul(const GemmFns<T>& fn, const Shape& batch, int64_t m, int64_t k, int64_t nn, const ir::View& a,
                const ir::View& b, ir::View& out) {
  const std::size_t r = batch.size() + 2;
  const int64_t ars = a.strides[r - 2], acs = a.strides[r - 1], brs = b.strides[r - 2],
                bcs = b.strides[r - 1];
  // Each band packs its part of op(A) or op(B) and all of the other: by rows, a thread packs
  // m k / P + k n elements, by columns m k + k n / P, so C is cut across its longer side (columns
  // in whole strips of B).
  const int64_t count = core::numel(batch);
  if (count > 1 &&
      static_cast<double>(m) * static_cast<double>(nn) * static_cast<double>(k) < kParallelMacs) {
    // A batch of small products (each would run on the calling thread): whole matrices split
    // over the pool, each computed as alone (the same bits on any thread). (65536 products of 8 x
    // 8 matrices: one thread took 10 ms, 140 ns a product, mostly choosing a cut and packing.)
    struct Mat {
      const T* a;
      const T* b;
      T* c;
    };
    std::vector<Mat> mats;
    mats.reserve(static_cast<std::size_t>(count));
    for_each_matrix<T>(batch, a, b, out, [&](const T* A, const T* B, T* C) { mats.push_back({A, B, C}); });
    const int64_t grain =
        std::max<int64_t>(1, static_cast<int64_t>(kParallelMacs / (static_cast<double>(m) * nn * k)));
    parallel_for(count, grain, [&](int64_t b0, int64_t b1) {
      T* work = own_work<T>(fn.work(nn));
      for (int64_t i = b0; i < b1; ++i) {
        const Mat& x = mats[static_cast<std::size_t>(i)];
        fn.gemm(m, nn, k, x.a, ars, acs, x.b, brs, bcs, x.c, nn, work);
      }
    });
    return;
  }
  if (gram_worth(m, k, fn.mr) && is_gram(a, b, r, m, nn)) {
    for_each_matrix<T>(batch, a, b, out,
                       [&](const T* A, const T*, T* C) { gram_matmul(fn, m, k, A, ars, acs, C); });
    return;
  }
  const bool rows = nn <= fn.nr || (m >= nn && m > fn.mr);
  const Cut cut{rows, rows ? fn.mr : fn.nr};
  for_each_matrix<T>(batch, a, b, out, [&](const T* A, const T* B, T* C) {
    pooled(m, nn, k, cut, [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
      T* work = own_work<T>(fn.work(j1 - j0));
      fn.gemm(i1 - i0, j1 - j0, k, A + i0 * ars, ars, acs, B + j0 * bcs, brs, bcs, C + i0 * nn + j0, nn,
              work);
    });
  });
}

}  // namespace

bool fast_matmul(const ir::Node& n, const ir::View& a_in, const ir::View& b_in, ir::View& out) {
  int64_t m = 0, k = 0, nn = 0;
  if (!gemm_dims(n, m, k, nn)) return false;
  const GemmKernels* own = is_complex(n.dtype) ? nullptr : own_kernels();
  if (!own && !blas_available()) return false;
  if ((n.dtype == DType::c64 && !blas().cgemm) || (n.dtype == DType::c128 && !blas().zgemm)) return false;
  const Shape& as = n.inputs[0]->shape;
  const Shape& bs = n.inputs[1]->shape;
  const std::size_t r = as.size();
  const Shape batch(as.begin(), as.end() - 2);
  if (!out.storage) out = alloc_contiguous(n.shape, n.dtype);  // else a contiguous buffer the plan gave
  if (m == 0 || nn == 0) return true;
  if (k == 0) {  // an empty sum: zeros (the BLAS leaves C alone when k == 0 on some builds)
    auto zeros = [&](auto zero) {
      using T = decltype(zero);
      for_each_matrix<T>(batch, a_in, b_in, out,
                         [&](const T*, const T*, T* o) { std::fill(o, o + m * nn, zero); });
    };
    switch (n.dtype) {
      case DType::f32: zeros(0.0f); break;
      case DType::c64: zeros(complex64_t(0, 0)); break;
      case DType::c128: zeros(complex128_t(0, 0)); break;
      default: zeros(0.0); break;
    }
    return true;
  }
  if (own) {
    if (n.dtype == DType::f32)
      own_matmul<float>(own->f32, batch, m, k, nn, a_in, b_in, out);
    else
      own_matmul<double>(own->f64, batch, m, k, nn, a_in, b_in, out);
    return true;
  }
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
  // Row i of op(A) starts i * a_row elements in (its row stride, transposed or not); column j
  // of op(B) starts j * b_col elements in.
  const int64_t a_row = a.strides[r - 2], b_col = b.strides[r - 1];
  auto run = [&](auto zero, auto gemm) {
    using T = decltype(zero);
    for_each_matrix<T>(batch, a, b, out, [&](const T* A, const T* B, T* C) {
      pooled(m, nn, k, Cut{m > kBlasBand || nn <= kBlasBand, kBlasBand},
             [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
               const auto mi = static_cast<int>(i1 - i0), nj = static_cast<int>(j1 - j0),
                          kk = static_cast<int>(k);
               if constexpr (core::is_complex_v<T>) {  // alpha and beta by address
                 const T one(1, 0), zero0(0, 0);
                 gemm(kRowMajor, ta, tb, mi, nj, kk, &one, A + i0 * a_row, static_cast<int>(lda),
                      B + j0 * b_col, static_cast<int>(ldb), &zero0, C + i0 * nn + j0, static_cast<int>(nn));
               } else {
                 gemm(kRowMajor, ta, tb, mi, nj, kk, T(1), A + i0 * a_row, static_cast<int>(lda),
                      B + j0 * b_col, static_cast<int>(ldb), T(0), C + i0 * nn + j0, static_cast<int>(nn));
               }
             });
    });
  };
  switch (n.dtype) {
    case DType::f32: run(0.0f, blas().sgemm); break;
    case DType::c64: run(complex64_t(0, 0), blas().cgemm); break;
    case DType::c128: run(complex128_t(0, 0), blas().zgemm); break;
    default: run(0.0, blas().dgemm); break;
  }
  return true;
}

}  // namespace cgrad::backends::cpu
