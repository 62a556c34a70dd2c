// LAPACK loaded at run time (lapack.h). eig hands LAPACK the matrix in columns (a copy). A row-major matrix
// is, to LAPACK (column-major), its transpose: eigh hands it A's lower triangle as the upper one ('U') and
// reads the eigenvectors back transposed (conjugated: the decomposition is of conj(A)); svd of the transpose
// A^T = U' S V'^H gives A = conj(V') S U'^T, so LAPACK's VT buffer is our U and its U buffer our Vh, each
// read as it lies.
#include "linalg/lapack.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace cgrad::linalg::lapack {

namespace {

using host::C;
using L = std::size_t;  // gfortran's hidden lengths of character arguments

using Dsyevd = void (*)(const char*, const char*, const int*, double*, const int*, double*, double*,
                        const int*, int*, const int*, int*, L, L);
using Zheevd = void (*)(const char*, const char*, const int*, C*, const int*, double*, C*, const int*,
                        double*, const int*, int*, const int*, int*, L, L);
using Dgesdd = void (*)(const char*, const int*, const int*, double*, const int*, double*, double*,
                        const int*, double*, const int*, double*, const int*, int*, int*, L);
using Zgesdd = void (*)(const char*, const int*, const int*, C*, const int*, double*, C*, const int*, C*,
                        const int*, C*, const int*, double*, int*, int*, L);

using Dgeqrf = void (*)(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
using Zgeqrf = void (*)(const int*, const int*, C*, const int*, C*, C*, const int*, int*);
using Dorgqr = void (*)(const int*, const int*, const int*, double*, const int*, const double*, double*,
                        const int*, int*);
using Zungqr = void (*)(const int*, const int*, const int*, C*, const int*, const C*, C*, const int*, int*);

using Dgetrf = void (*)(const int*, const int*, double*, const int*, int*, int*);
using Zgetrf = void (*)(const int*, const int*, C*, const int*, int*, int*);
using Dpotrf = void (*)(const char*, const int*, double*, const int*, int*, L);
using Zpotrf = void (*)(const char*, const int*, C*, const int*, int*, L);

using Dgeev = void (*)(const char*, const char*, const int*, double*, const int*, double*, double*, double*,
                       const int*, double*, const int*, double*, const int*, int*, L, L);
using Zgeev = void (*)(const char*, const char*, const int*, C*, const int*, C*, C*, const int*, C*,
                       const int*, C*, const int*, double*, int*, L, L);

using Dgetri = void (*)(const int*, double*, const int*, const int*, double*, const int*, int*);
using Zgetri = void (*)(const int*, C*, const int*, const int*, C*, const int*, int*);

struct Lapack {
  Dgetrf dgetrf = nullptr;
  Zgetrf zgetrf = nullptr;
  Dgetri dgetri = nullptr;
  Zgetri zgetri = nullptr;
  Dpotrf dpotrf = nullptr;
  Zpotrf zpotrf = nullptr;
  Dgeqrf dgeqrf = nullptr;
  Zgeqrf zgeqrf = nullptr;
  Dorgqr dorgqr = nullptr;
  Zungqr zungqr = nullptr;
  Dsyevd dsyevd = nullptr;
  Zheevd zheevd = nullptr;
  Dgesdd dgesdd = nullptr;
  Zgesdd zgesdd = nullptr;
  Dgeev dgeev = nullptr;
  Zgeev zgeev = nullptr;
  bool complete() const {
    return dgetrf && zgetrf && dgetri && zgetri && dpotrf && zpotrf && dgeqrf && zgeqrf && dorgqr && zungqr &&
           dsyevd && zheevd && dgesdd && zgesdd && dgeev && zgeev;
  }
};

template <class F>
void find(void* h, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(h, name));
}

// The first library that has every routine, or none.
Lapack load() {
  for (const char* name : {"libopenblas.so.0", "libopenblas.so", "liblapack.so.3"}) {
    void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) continue;
    Lapack l;
    find(h, l.dgetrf, "dgetrf_"), find(h, l.zgetrf, "zgetrf_"), find(h, l.dgetri, "dgetri_");
    find(h, l.zgetri, "zgetri_"), find(h, l.dpotrf, "dpotrf_"), find(h, l.zpotrf, "zpotrf_");
    find(h, l.dgeqrf, "dgeqrf_"), find(h, l.zgeqrf, "zgeqrf_"), find(h, l.dorgqr, "dorgqr_");
    find(h, l.zungqr, "zungqr_"), find(h, l.dsyevd, "dsyevd_"), find(h, l.zheevd, "zheevd_");
    find(h, l.dgesdd, "dgesdd_"), find(h, l.zgesdd, "zgesdd_"), find(h, l.dgeev, "dgeev_");
    find(h, l.zgeev, "zgeev_");
    if (l.complete()) {
      // one thread inside the library, as for GEMM (backends/cpu/gemm.cpp)
      if (auto set = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"))) set(1);
      return l;
    }
  }
  return {};
}

const Lapack* usable() {
  static const Lapack lib = load();
  const char* env = std::getenv("CGRAD_LINALG_LAPACK");  // read at each call: tests switch it
  if (env && std::strcmp(env, "0") == 0) return nullptr;
  return lib.dsyevd ? &lib : nullptr;
}

template <class T>
bool finite(const T* a, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(std::abs(a[i]))) return false;
  return true;
}

constexpr int64_t kMaxDim = 46340;  // n * n fits an int

// Below these sizes the built-in routines are faster than LAPACK's calls (stacks of 16 matrices,
// one thread, 2026-12-05: QR of 8 x 8 0.013 ms against 0.030, of 32 x 32 even, of 48 x 48 1.3
// against 1.1; eigh and svd with vectors of 8 x 8 0.08-0.10 against 0.10-0.18, of 16 x 16
// 0.56-0.78 against 0.38-0.57; singular values alone: LAPACK from 8 x 8 on).
// LU and Cholesky: cgrad's unblocked loops match LAPACK to 64 x 64 (0.9-1.1x) and take
// 1.6-2.4x its time at 256 x 256.
constexpr int64_t kQrSmall = 32, kVectorsSmall = 8, kLuSmall = 96;

double cj(double v) { return v; }
C cj(C v) { return std::conj(v); }

// Runs a LAPACK routine that takes a workspace twice: a query (lwork = -1), then with the size
// it asked for. `call(work)` passes `lwork` and sets `info`; false when either run fails.
template <class T, class F>
bool with_workspace(int& lwork, const int& info, F call) {
  T size{};
  lwork = -1;
  call(&size);
  if (info != 0) return false;
  lwork = static_cast<int>(std::abs(size)) + 1;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  call(work.data());
  return info == 0;
}

// dst (column-major, leading dimension ld) := the row-major rows x cols matrix src
template <class T>
void to_columns(const T* src, int64_t rows, int64_t cols, T* dst, int64_t ld) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[j * ld + i] = src[i * cols + j];
}

// dst (row-major rows x cols) := the first rows x cols of the column-major src (leading
// dimension ld)
template <class T>
void from_columns(const T* src, int64_t ld, int64_t rows, int64_t cols, T* dst) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) dst[i * cols + j] = src[j * ld + i];
}

}  // namespace

template <class T>
bool eigh(const T* a, int64_t n, double* w, T* v) {
  const Lapack* lib = usable();
  if (!lib || n == 0 || (v && n <= kVectorsSmall) || n > kMaxDim || !finite(a, n * n)) return false;
  std::vector<T> z(a, a + n * n);
  const char* jobz = v ? "V" : "N";
  const int ni = static_cast<int>(n);
  int info = 0, lwork = -1, liwork = -1, lrwork = -1, iwq = 0;
  T wq{};
  double rwq = 0;
  if constexpr (std::is_same_v<T, double>) {
    lib->dsyevd(jobz, "U", &ni, z.data(), &ni, w, &wq, &lwork, &iwq, &liwork, &info, 1, 1);
  } else {
    lib->zheevd(jobz, "U", &ni, z.data(), &ni, w, &wq, &lwork, &rwq, &lrwork, &iwq, &liwork, &info, 1, 1);
  }
  if (info != 0) return false;
  lwork = static_cast<int>(std::abs(wq)) + 1;
  liwork = iwq;
  lrwork = static_cast<int>(rwq) + 1;
  std::vector<T> work(static_cast<std::size_t>(lwork));
  std::vector<int> iwork(static_cast<std::size_t>(std::max(liwork, 1)));
  if constexpr (std::is_same_v<T, double>) {
    lib->dsyevd(jobz, "U", &ni, z.data(), &ni, w, work.data(), &lwork, iwork.data(), &liwork, &info, 1, 1);
  } else {
    std::vector<double> rwork(static_cast<std::size_t>(lrwork));
    lib->zheevd(jobz, "U", &ni, z.data(), &ni, w, work.data(), &lwork, rwork.data(), &lrwork, iwork.data(),
                &liwork, &info, 1, 1);
  }
  if (info != 0) return false;
  if (v)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) v[i * n + j] = cj(z[static_cast<std::size_t>(j * n + i)]);
  return true;
}

template <class T>
bool eig(const T* a, int64_t n, C* w, C* v) {
  const Lapack* lib = usable();
  if (!lib || n == 0 || n > kMaxDim || !finite(a, n * n)) return false;
  std::vector<T> f(static_cast<std::size_t>(n * n)), vr(v ? static_cast<std::size_t>(n * n) : 1);
  to_columns(a, n, n, f.data(), n);
  const char* jobvr = v ? "V" : "N";
  const int ni = static_cast<int>(n), ldvr = v ? ni : 1, one = 1;
  int info = 0, lwork = -1;
  T vl{};
  if constexpr (std::is_same_v<T, double>) {
    std::vector<double> wr(static_cast<std::size_t>(n)), wi(wr.size());
    auto call = [&](double* work) {
      lib->dgeev("N", jobvr, &ni, f.data(), &ni, wr.data(), wi.data(), &vl, &one, vr.data(), &ldvr, work,
                 &lwork, &info, 1, 1);
    };
    if (!with_workspace<double>(lwork, info, call)) return false;
    for (int64_t j = 0; j < n; ++j) w[j] = {wr[static_cast<std::size_t>(j)], wi[static_cast<std::size_t>(j)]};
    // a complex pair's vectors: columns j and j + 1 hold the real and imaginary parts of the first
    for (int64_t j = 0; v && j < n; ++j) {
      const bool pair = wi[static_cast<std::size_t>(j)] != 0 && j + 1 < n;
      for (int64_t i = 0; i < n; ++i) {
        const double re = vr[static_cast<std::size_t>(j * n + i)];
        const double im = pair ? vr[static_cast<std::size_t>((j + 1) * n + i)] : 0.0;
        v[i * n + j] = {re, im};
        if (pair) v[i * n + j + 1] = {re, -im};
      }
      j += pair ? 1 : 0;
    }
  } else {
    std::vector<double> rwork(static_cast<std::size_t>(2 * n));
    auto call = [&](C* work) {
      lib->zgeev("N", jobvr, &ni, f.data(), &ni, w, &vl, &one, vr.data(), &ldvr, work, &lwork, rwork.data(),
                 &info, 1, 1);
    };
    if (!with_workspace<C>(lwork, info, call)) return false;
    if (v) from_columns(vr.data(), n, n, n, v);
  }
  return true;
}

template <class T>
bool svd(const T* a, int64_t m, int64_t n, T* u, double* s, T* vh, bool full) {
  const Lapack* lib = usable();
  const int64_t k = std::min(m, n);
  if (!lib || k == 0 || ((u || vh) && k <= kVectorsSmall) || m > kMaxDim || n > kMaxDim || !finite(a, m * n))
    return false;
  // LAPACK's matrix is A^T: n x m
  std::vector<T> at(a, a + m * n);
  const bool vectors = u || vh;
  const char* jobz = !vectors ? "N" : full ? "A" : "S";
  const int rows = static_cast<int>(n), cols = static_cast<int>(m);
  const int ucols = full ? rows : static_cast<int>(k), vtrows = full ? cols : static_cast<int>(k);
  std::vector<T> up(vectors ? static_cast<std::size_t>(rows) * static_cast<std::size_t>(ucols) : 1),
      vtp(vectors ? static_cast<std::size_t>(vtrows) * static_cast<std::size_t>(cols) : 1);
  const int ldu = rows, ldvt = vectors ? vtrows : 1;
  std::vector<int> iwork(static_cast<std::size_t>(8 * k));
  int info = 0, lwork = -1;
  const auto mn = static_cast<std::size_t>(k), mx = static_cast<std::size_t>(std::max(m, n));
  std::vector<double> rwork;
  if constexpr (!std::is_same_v<T, double>)
    rwork.resize(vectors ? mn * std::max(5 * mn + 7, 2 * mx + 2 * mn + 1) : 7 * mn);  // LAPACK 3.7's sizes
  auto call = [&](T* work) {
    if constexpr (std::is_same_v<T, double>)
      lib->dgesdd(jobz, &rows, &cols, at.data(), &rows, s, up.data(), &ldu, vtp.data(), &ldvt, work, &lwork,
                  iwork.data(), &info, 1);
    else
      lib->zgesdd(jobz, &rows, &cols, at.data(), &rows, s, up.data(), &ldu, vtp.data(), &ldvt, work, &lwork,
                  rwork.data(), iwork.data(), &info, 1);
  };
  if (!with_workspace<T>(lwork, info, call)) return false;
  if (u) std::copy(vtp.begin(), vtp.end(), u);  // conj(V'): m x (full ? m : k), row-major
  if (vh) std::copy(up.begin(), up.end(), vh);  // U'^T: (full ? n : k) x n, row-major
  return true;
}

template <class T>
bool lu_factor(T* a, int64_t n, std::vector<int64_t>& perm, int& sign, bool& regular) {
  const Lapack* lib = usable();
  if (!lib || n <= kLuSmall || n > kMaxDim || !finite(a, n * n)) return false;
  std::vector<T> f(static_cast<std::size_t>(n * n));  // column-major A
  to_columns(a, n, n, f.data(), n);
  const int ni = static_cast<int>(n);
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  int info = 0;
  if constexpr (std::is_same_v<T, double>)
    lib->dgetrf(&ni, &ni, f.data(), &ni, ipiv.data(), &info);
  else
    lib->zgetrf(&ni, &ni, f.data(), &ni, ipiv.data(), &info);
  if (info < 0) return false;
  regular = info == 0;  // info > 0: U(info, info) is exactly 0, the factorization completed
  from_columns(f.data(), n, n, n, a);
  perm.resize(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[static_cast<std::size_t>(i)] = i;
  sign = 1;
  for (int64_t i = 0; i < n; ++i) {  // LAPACK's row interchanges, one after another (1-based)
    const auto p = static_cast<std::size_t>(ipiv[static_cast<std::size_t>(i)] - 1);
    if (p != static_cast<std::size_t>(i)) std::swap(perm[static_cast<std::size_t>(i)], perm[p]), sign = -sign;
  }
  return true;
}

template <class T>
bool inv(T* a, int64_t n, bool& regular) {
  const Lapack* lib = usable();
  if (!lib || n <= kLuSmall || n > kMaxDim || !finite(a, n * n)) return false;
  // the column-major view is A^T, whose inverse is A^-1 transposed: the row-major A^-1
  const int ni = static_cast<int>(n);
  std::vector<int> ipiv(static_cast<std::size_t>(n));
  int info = 0, lwork = -1;
  if constexpr (std::is_same_v<T, double>)
    lib->dgetrf(&ni, &ni, a, &ni, ipiv.data(), &info);
  else
    lib->zgetrf(&ni, &ni, a, &ni, ipiv.data(), &info);
  if (info < 0) return false;
  regular = info == 0;
  if (!regular) return true;
  auto invert = [&](T* work) {
    if constexpr (std::is_same_v<T, double>)
      lib->dgetri(&ni, a, &ni, ipiv.data(), work, &lwork, &info);
    else
      lib->zgetri(&ni, a, &ni, ipiv.data(), work, &lwork, &info);
  };
  regular = with_workspace<T>(lwork, info, invert);  // info > 0 here: singular too
  return true;
}

template <class T>
bool cholesky(T* a, int64_t n, bool& positive) {
  const Lapack* lib = usable();
  if (!lib || n <= kLuSmall || n > kMaxDim) return false;
  // A's lower triangle is the upper one of the column-major view, whose factor U is L^T there
  const int ni = static_cast<int>(n);
  int info = 0;
  if constexpr (std::is_same_v<T, double>)
    lib->dpotrf("U", &ni, a, &ni, &info, 1);
  else
    lib->zpotrf("U", &ni, a, &ni, &info, 1);
  if (info < 0) return false;
  positive = info == 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) a[i * n + j] = T(0);
  return true;
}

template <class T>
bool qr(const T* a, int64_t m, int64_t n, T* q, T* r, bool complete) {
  const Lapack* lib = usable();
  const int64_t k = std::min(m, n), qc = complete ? m : k;
  if (!lib || k <= kQrSmall || m > kMaxDim || n > kMaxDim || !finite(a, m * n)) return false;
  // column-major A, with room for Q's qc columns when they are more than n
  const int64_t cols = std::max(n, qc);
  std::vector<T> f(static_cast<std::size_t>(m * cols), T(0)), tau(static_cast<std::size_t>(k));
  to_columns(a, m, n, f.data(), m);
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k),
            qi = static_cast<int>(qc);
  int info = 0, lwork = -1;
  auto factor = [&](T* work) {
    if constexpr (std::is_same_v<T, double>)
      lib->dgeqrf(&mi, &ni, f.data(), &mi, tau.data(), work, &lwork, &info);
    else
      lib->zgeqrf(&mi, &ni, f.data(), &mi, tau.data(), work, &lwork, &info);
  };
  auto generate = [&](T* work) {
    if constexpr (std::is_same_v<T, double>)
      lib->dorgqr(&mi, &qi, &ki, f.data(), &mi, tau.data(), work, &lwork, &info);
    else
      lib->zungqr(&mi, &qi, &ki, f.data(), &mi, tau.data(), work, &lwork, &info);
  };
  if (!with_workspace<T>(lwork, info, factor)) return false;
  const int64_t rr = complete ? m : k;  // R: its upper triangle, rows past k zero
  for (int64_t i = 0; i < rr; ++i)
    for (int64_t j = 0; j < n; ++j)
      r[i * n + j] = j >= i && i < k ? f[static_cast<std::size_t>(j * m + i)] : T(0);
  if (!with_workspace<T>(lwork, info, generate)) return false;
  from_columns(f.data(), m, m, qc, q);
  return true;
}

template bool eigh<double>(const double*, int64_t, double*, double*);
template bool eigh<C>(const C*, int64_t, double*, C*);
template bool eig<double>(const double*, int64_t, C*, C*);
template bool eig<C>(const C*, int64_t, C*, C*);
template bool lu_factor<double>(double*, int64_t, std::vector<int64_t>&, int&, bool&);
template bool lu_factor<C>(C*, int64_t, std::vector<int64_t>&, int&, bool&);
template bool inv<double>(double*, int64_t, bool&);
template bool inv<C>(C*, int64_t, bool&);
template bool cholesky<double>(double*, int64_t, bool&);
template bool cholesky<C>(C*, int64_t, bool&);
template bool qr<double>(const double*, int64_t, int64_t, double*, double*, bool);
template bool qr<C>(const C*, int64_t, int64_t, C*, C*, bool);
template bool svd<double>(const double*, int64_t, int64_t, double*, double*, double*, bool);
template bool svd<C>(const C*, int64_t, int64_t, C*, double*, C*, bool);

}  // namespace cgrad::linalg::lapack
