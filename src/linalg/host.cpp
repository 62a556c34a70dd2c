// Host matrix routines (host.h): LU, Cholesky, Householder QR, Jacobi eigh and SVD, QR-algorithm eig, in
// double and std::complex<double>.
#include "linalg/host.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace cgrad::linalg::host {

namespace {

double abs2(double v) { return v * v; }
double abs2(C v) { return std::norm(v); }
double cj(double v) { return v; }
C cj(C v) { return std::conj(v); }
double re(double v) { return v; }
double re(C v) { return v.real(); }

// tan of the Jacobi rotation angle that zeroes the off-diagonal entry g of the symmetric 2 x 2
// [[p, g], [g, q]] (the smaller root of t^2 + 2 zeta t - 1, zeta = (q - p) / 2g).
double jacobi_tan(double p, double q, double g) {
  const double zeta = (q - p) / (2 * g);
  if (std::abs(zeta) > 1e150) return 0.5 / zeta;  // zeta^2 would overflow
  return (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(zeta * zeta + 1));
}

// x := c x - s y, y := s x + c y over n elements `step` apart.
template <class T>
void rotate(T* x, T* y, int64_t n, int64_t step, double c, double s) {
  for (int64_t k = 0; k < n; ++k) {
    const T a = x[k * step], b = y[k * step];
    x[k * step] = c * a - s * b;
    y[k * step] = s * a + c * b;
  }
}

// Columns `have` (unit, orthonormal, column-major m-vectors) completed to `want` columns by
// Gram-Schmidt on the unit vectors, taking at each step the one with the most left over.
template <class T>
void complete_basis(std::vector<T>& cols, int64_t m, std::vector<bool>& set) {
  std::vector<T> x(static_cast<std::size_t>(m));
  for (std::size_t slot = 0; slot < set.size(); ++slot) {
    if (set[slot]) continue;
    double best = -1;
    std::vector<T> pick;
    for (int64_t e = 0; e < m; ++e) {
      std::fill(x.begin(), x.end(), T(0));
      x[static_cast<std::size_t>(e)] = T(1);
      for (int pass = 0; pass < 2; ++pass)
        for (std::size_t c = 0; c < set.size(); ++c) {
          if (!set[c]) continue;
          const T* u = cols.data() + c * static_cast<std::size_t>(m);
          T d(0);
          for (int64_t i = 0; i < m; ++i) d += cj(u[i]) * x[static_cast<std::size_t>(i)];
          for (int64_t i = 0; i < m; ++i) x[static_cast<std::size_t>(i)] -= d * u[i];
        }
      double n2 = 0;
      for (const T& v : x) n2 += abs2(v);
      if (n2 > best) best = n2, pick = x;
    }
    const double inv = 1 / std::sqrt(best);
    for (int64_t i = 0; i < m; ++i)
      cols[slot * static_cast<std::size_t>(m) + static_cast<std::size_t>(i)] =
          pick[static_cast<std::size_t>(i)] * inv;
    set[slot] = true;
  }
}

// a (m x n, m >= n) = U diag(s) Vh by one-sided Jacobi on a's columns (u: m x m or m x n).
template <class T>
void svd_tall(const T* a, int64_t m, int64_t n, T* u, double* s, T* vh, bool full) {
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n);
  std::vector<T> w(M * N), v(N * N, T(0));  // column-major
  // Scaled by the power of two that brings the largest |element| near 1 (exact; undone on s at
  // the end), so that the columns' sums of squares neither underflow nor overflow: a 5 x 5 of
  // elements about 1e-200 or 1e200 gave U diag(s) Vh off by 100% (NaN), 1e-160 complex by 1e15.
  double big = 0;
  for (int64_t i = 0; i < m * n; ++i) big = std::max(big, std::abs(a[i]));
  const int e2 = big > 0 && std::isfinite(big) ? std::clamp(std::ilogb(big), -1020, 1020) : 0;
  const double down = std::ldexp(1.0, -e2);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) w[j * M + i] = a[i * N + j] * down;
  for (std::size_t j = 0; j < N; ++j) v[j * N + j] = T(1);
  for (int sweep = 0; sweep < 80; ++sweep) {
    bool rotated = false;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = i + 1; j < N; ++j) {
        T* wi = w.data() + i * M;
        T* wj = w.data() + j * M;
        double al = 0, be = 0;
        T g(0);
        for (std::size_t k = 0; k < M; ++k) al += abs2(wi[k]), be += abs2(wj[k]), g += cj(wi[k]) * wj[k];
        const double gr = std::abs(g);
        if (!(gr > 1e-15 * std::sqrt(al) * std::sqrt(be))) continue;  // orthogonal enough (or NaN)
        rotated = true;
        const T ph = g / gr;  // column j times conj(ph) makes wi^H wj real
        for (std::size_t k = 0; k < M; ++k) wj[k] *= cj(ph);
        for (std::size_t k = 0; k < N; ++k) v[j * N + k] *= cj(ph);
        const double t = jacobi_tan(al, be, gr), c = 1 / std::sqrt(t * t + 1);
        rotate(wi, wj, m, 1, c, t * c);
        rotate(v.data() + i * N, v.data() + j * N, n, 1, c, t * c);
      }
    if (!rotated) break;
  }
  std::vector<double> norm(N);
  for (std::size_t j = 0; j < N; ++j) {
    double n2 = 0;
    for (std::size_t k = 0; k < M; ++k) n2 += abs2(w[j * M + k]);
    norm[j] = std::sqrt(n2);
  }
  std::vector<std::size_t> order(N);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return norm[x] > norm[y]; });
  for (std::size_t r = 0; r < N; ++r) s[r] = norm[order[r]];
  if (u) {
    const std::size_t ucols = full ? M : N;
    std::vector<T> cols(ucols * M, T(0));
    std::vector<bool> set(ucols, false);
    for (std::size_t r = 0; r < N; ++r)
      if (s[r] > 0 && std::isfinite(s[r])) {
        for (std::size_t k = 0; k < M; ++k) cols[r * M + k] = w[order[r] * M + k] / s[r];
        set[r] = true;
      }
    complete_basis(cols, m, set);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t r = 0; r < ucols; ++r) u[i * ucols + r] = cols[r * M + i];
  }
  if (vh)
    for (std::size_t r = 0; r < N; ++r)
      for (std::size_t k = 0; k < N; ++k) vh[r * N + k] = cj(v[order[r] * N + k]);
  for (std::size_t r = 0; r < N; ++r) s[r] = std::ldexp(s[r], e2);
}

}  // namespace

template <class T>
bool lu_factor(T* a, int64_t n, std::vector<int64_t>& perm, int& sign) {
  perm.resize(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), int64_t{0});
  sign = 1;
  bool regular = true;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    double best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > best) best = std::abs(a[i * n + k]), p = i;
    if (p != k) {
      std::swap_ranges(a + k * n, a + k * n + n, a + p * n);
      std::swap(perm[static_cast<std::size_t>(k)], perm[static_cast<std::size_t>(p)]);
      sign = -sign;
    }
    const T pivot = a[k * n + k];
    if (pivot == T(0)) {
      regular = false;
      continue;
    }
    for (int64_t i = k + 1; i < n; ++i) {
      const T f = a[i * n + k] / pivot;
      a[i * n + k] = f;
      // no skip of f == 0: 0 * NaN (and 0 * inf) is NaN, as in LAPACK's updates, so a NaN or an
      // infinity anywhere reaches the factors (until 2026-12-07 det([[1, nan], [0, 1]]) was 1)
      for (int64_t j = k + 1; j < n; ++j) a[i * n + j] -= f * a[k * n + j];
    }
  }
  return regular;
}

template <class T>
void lu_solve(const T* lu, const std::vector<int64_t>& perm, int64_t n, T* b, int64_t k) {
  std::vector<T> y(static_cast<std::size_t>(n * k));
  for (int64_t i = 0; i < n; ++i)
    std::copy_n(b + perm[static_cast<std::size_t>(i)] * k, k, y.begin() + i * k);
  // every product is taken, zeros too (lu_factor's rule): a NaN in b reaches every unknown
  for (int64_t i = 0; i < n; ++i)  // L y = P b, L unit lower
    for (int64_t j = 0; j < i; ++j)
      for (int64_t c = 0; c < k; ++c)
        y[static_cast<std::size_t>(i * k + c)] -= lu[i * n + j] * y[static_cast<std::size_t>(j * k + c)];
  for (int64_t i = n - 1; i >= 0; --i) {  // U x = y
    for (int64_t j = i + 1; j < n; ++j)
      for (int64_t c = 0; c < k; ++c)
        y[static_cast<std::size_t>(i * k + c)] -= lu[i * n + j] * y[static_cast<std::size_t>(j * k + c)];
    for (int64_t c = 0; c < k; ++c) y[static_cast<std::size_t>(i * k + c)] /= lu[i * n + i];
  }
  std::copy(y.begin(), y.end(), b);
}

template <class T>
bool cholesky(T* a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    double d = re(a[j * n + j]);
    for (int64_t k = 0; k < j; ++k) d -= abs2(a[j * n + k]);
    if (!(d > 0)) return false;
    const double l = std::sqrt(d);
    a[j * n + j] = T(l);
    for (int64_t i = j + 1; i < n; ++i) {
      T s = a[i * n + j];
      for (int64_t k = 0; k < j; ++k) s -= a[i * n + k] * cj(a[j * n + k]);
      a[i * n + j] = s / l;
    }
    for (int64_t i = 0; i < j; ++i) a[i * n + j] = T(0);
  }
  return true;
}

// Householder QR with LAPACK's reflectors (zgeqr2 / zlarfg): column j's x = (alpha, x_tail) goes to
// beta e1 with beta = -sign(Re alpha) |x| real, by H^H, H = I - tau v v^H, tau = (beta - alpha) /
// beta, v = (1, x_tail / (alpha - beta)); Q accumulates the H. So R has LAPACK's real diagonal
// and the built-in routine gives LAPACK's factorization (until 2026-12-07 a complex R's diagonal
// took the column's phase: another, valid QR, which did not match NumPy's and broke the
// gradient's real-diagonal convention). A real column is a symmetric reflection, as before.
template <class T>
void qr(const T* a, int64_t m, int64_t n, T* q, T* r, bool complete) {
  const int64_t k = std::min(m, n);
  std::vector<T> R(a, a + m * n), Q(static_cast<std::size_t>(m * m), T(0)), v(static_cast<std::size_t>(m));
  for (int64_t i = 0; i < m; ++i) Q[static_cast<std::size_t>(i * m + i)] = T(1);
  for (int64_t j = 0; j < k; ++j) {
    // The column from the diagonal down, scaled by its largest |element| so that the squares
    // neither underflow nor overflow (a tail of 1e-189 squared to 0, and the column was left
    // unreflected with that element below the diagonal). v and tau do not change with the scale.
    bool tail = false;
    double big = 0;
    for (int64_t i = j; i < m; ++i) {
      const T e = R[static_cast<std::size_t>(i * n + j)];
      tail |= i > j && e != T(0);
      big = std::max(big, std::abs(e));
    }
    const T alpha_raw = R[static_cast<std::size_t>(j * n + j)];
    // nothing to zero and a real diagonal element: no reflection (an inf stays inf), as zlarfg
    if (!tail && (alpha_raw == T(re(alpha_raw)) || !(big < std::numeric_limits<double>::infinity())))
      continue;
    if (!(big < std::numeric_limits<double>::infinity())) big = 1;  // inf or NaN: as they are
    double below = 0;
    for (int64_t i = j + 1; i < m; ++i) below += abs2(R[static_cast<std::size_t>(i * n + j)] / big);
    const T alpha = alpha_raw / big;
    const double beta = -std::copysign(std::sqrt(below + abs2(alpha)), re(alpha));
    const T tau = (beta - alpha) / beta, scale = T(1) / (alpha - beta);
    v[static_cast<std::size_t>(j)] = T(1);
    for (int64_t i = j + 1; i < m; ++i)
      v[static_cast<std::size_t>(i)] = R[static_cast<std::size_t>(i * n + j)] / big * scale;
    for (int64_t c = j + 1; c < n; ++c) {  // R := H^H R = R - conj(tau) v (v^H R)
      T s(0);
      for (int64_t i = j; i < m; ++i)
        s += cj(v[static_cast<std::size_t>(i)]) * R[static_cast<std::size_t>(i * n + c)];
      s *= cj(tau);
      for (int64_t i = j; i < m; ++i)
        R[static_cast<std::size_t>(i * n + c)] -= v[static_cast<std::size_t>(i)] * s;
    }
    for (int64_t row = 0; row < m; ++row) {  // Q := Q H = Q - tau (Q v) v^H
      T s(0);
      for (int64_t i = j; i < m; ++i)
        s += Q[static_cast<std::size_t>(row * m + i)] * v[static_cast<std::size_t>(i)];
      s *= tau;
      for (int64_t i = j; i < m; ++i)
        Q[static_cast<std::size_t>(row * m + i)] -= s * cj(v[static_cast<std::size_t>(i)]);
    }
    R[static_cast<std::size_t>(j * n + j)] = T(beta * big);
    for (int64_t i = j + 1; i < m; ++i) R[static_cast<std::size_t>(i * n + j)] = T(0);
  }
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t c = 0; c < qcols; ++c) q[i * qcols + c] = Q[static_cast<std::size_t>(i * m + c)];
  std::copy_n(R.begin(), rrows * n, r);
}

template <class T>
void eigh(T* a, int64_t n, double* w, T* v) {
  // Hermitian from the lower triangle (as LAPACK's and NumPy's default), scaled to max |a| = 1
  double scale = 0;
  for (int64_t i = 0; i < n; ++i) {
    a[i * n + i] = T(re(a[i * n + i]));
    for (int64_t j = 0; j < i; ++j) a[j * n + i] = cj(a[i * n + j]);
    for (int64_t j = 0; j <= i; ++j) scale = std::max(scale, std::abs(a[i * n + j]));
  }
  if (!(scale > 0) || !std::isfinite(scale)) scale = 1;  // zero matrix; NaN and inf go through
  for (int64_t i = 0; i < n * n; ++i) a[i] /= scale;
  // vt: V's transpose (each row an eigenvector), so that every update below reads and writes
  // rows; a stays Hermitian, and the columns p, q are written as the conjugates of the rows.
  std::vector<T> vt(static_cast<std::size_t>(n * n), T(0));
  for (int64_t i = 0; i < n; ++i) vt[static_cast<std::size_t>(i * n + i)] = T(1);
  for (int sweep = 0; sweep < 80; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        T* rp = a + p * n;
        T* rq = a + q * n;
        const double r = std::abs(rp[q]), app = re(rp[p]), aqq = re(rq[q]);
        // negligible beside the diagonal (relative accuracy, as Demmel and Veselic's Jacobi); NaN too
        if (!(r > 2.2e-16 * std::sqrt(std::abs(app) * std::abs(aqq)))) continue;
        rotated = true;
        if constexpr (!std::is_same_v<T, double>) {
          const T ph = rp[q] / r;  // row q times ph (column q times conj(ph)): a_pq becomes r
          for (int64_t k = 0; k < n; ++k) rq[k] *= ph, vt[static_cast<std::size_t>(q * n + k)] *= cj(ph);
        }
        const double g = std::is_same_v<T, double> ? re(rp[q]) : r;
        const double t = jacobi_tan(app, aqq, g), c = 1 / std::sqrt(t * t + 1);
        rotate(rp, rq, n, 1, c, t * c);
        rotate(vt.data() + p * n, vt.data() + q * n, n, 1, c, t * c);
        for (int64_t k = 0; k < n; ++k) a[k * n + p] = cj(rp[k]), a[k * n + q] = cj(rq[k]);
        rp[q] = rq[p] = T(0);
        rp[p] = T(app - t * g);
        rq[q] = T(aqq + t * g);
      }
    if (!rotated) break;
  }
  std::vector<int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return re(a[x * n + x]) < re(a[y * n + y]); });
  for (int64_t c = 0; c < n; ++c) {
    const int64_t o = order[static_cast<std::size_t>(c)];
    w[c] = re(a[o * (n + 1)]) * scale;
    for (int64_t i = 0; i < n; ++i) v[i * n + c] = vt[static_cast<std::size_t>(o * n + i)];
  }
}

template <class T>
void svd(const T* a, int64_t m, int64_t n, T* u, double* s, T* vh, bool full) {
  if (m >= n) return svd_tall(a, m, n, u, s, vh, full);
  // a^H (n x m) = U2 S V2h, so a = V2h^H S U2^H
  const int64_t ucols2 = full ? n : m;
  std::vector<T> b(static_cast<std::size_t>(m * n)), u2(static_cast<std::size_t>(n * ucols2)),
      vh2(static_cast<std::size_t>(m * m));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) b[static_cast<std::size_t>(j * m + i)] = cj(a[i * n + j]);
  svd_tall(b.data(), n, m, vh ? u2.data() : nullptr, s, u ? vh2.data() : nullptr, full);
  if (u)  // m x m (k = m)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t r = 0; r < m; ++r) u[i * m + r] = cj(vh2[static_cast<std::size_t>(r * m + i)]);
  if (vh)  // ucols2 x n
    for (int64_t r = 0; r < ucols2; ++r)
      for (int64_t i = 0; i < n; ++i) vh[r * n + i] = cj(u2[static_cast<std::size_t>(i * ucols2 + r)]);
}

// ---- general eigenproblems: Hessenberg, shifted QR, back-substitution (complex throughout) ----

namespace {

// v := v / ||v|| times the phase that makes its largest component real and positive
void normalize_eigenvector(C* v, int64_t n) {
  double norm = 0, big = -1;
  int64_t at = 0;
  for (int64_t i = 0; i < n; ++i) {
    norm += std::norm(v[i]);
    if (std::abs(v[i]) > big) big = std::abs(v[i]), at = i;
  }
  if (!(norm > 0)) return;  // (0 or NaN: left as it is)
  const C scale = std::conj(v[at]) / (std::abs(v[at]) * std::sqrt(norm));
  for (int64_t i = 0; i < n; ++i) v[i] *= scale;
  v[at] = C(v[at].real(), 0.0);
}

// h (n x n, row-major) := Q^H h Q upper Hessenberg by Householder reflections; z := Q (unless null).
void hessenberg(C* h, int64_t n, C* z) {
  std::vector<C> u(static_cast<std::size_t>(n));
  for (int64_t k = 0; k + 2 < n; ++k) {
    double tail = 0;
    for (int64_t i = k + 1; i < n; ++i) tail += std::norm(h[i * n + k]);
    if (tail == std::norm(h[(k + 1) * n + k])) continue;  // already zero below the subdiagonal
    const C x0 = h[(k + 1) * n + k];
    const double xn = std::sqrt(tail);
    const C alpha = -(std::abs(x0) > 0 ? x0 / std::abs(x0) : C(1)) * xn;
    double un = 0;
    for (int64_t i = k + 1; i < n; ++i) {
      u[static_cast<std::size_t>(i)] = h[i * n + k] - (i == k + 1 ? alpha : C(0));
      un += std::norm(u[static_cast<std::size_t>(i)]);
    }
    if (!(un > 0)) continue;
    const double f = 2 / un;           // P = I - f u u^H
    for (int64_t j = k; j < n; ++j) {  // h := P h (rows k + 1 ..)
      C d = 0;
      for (int64_t i = k + 1; i < n; ++i) d += std::conj(u[static_cast<std::size_t>(i)]) * h[i * n + j];
      d *= f;
      for (int64_t i = k + 1; i < n; ++i) h[i * n + j] -= u[static_cast<std::size_t>(i)] * d;
    }
    for (C* m : {h, z})  // h := h P, z := z P (columns k + 1 ..)
      for (int64_t i = 0; m && i < n; ++i) {
        C d = 0;
        for (int64_t j = k + 1; j < n; ++j) d += m[i * n + j] * u[static_cast<std::size_t>(j)];
        d *= f;
        for (int64_t j = k + 1; j < n; ++j) m[i * n + j] -= d * std::conj(u[static_cast<std::size_t>(j)]);
      }
    for (int64_t i = k + 2; i < n; ++i) h[i * n + k] = 0;
  }
}

// The eigenvalue of [[a, b], [c, d]] nearer d (Wilkinson's shift).
C wilkinson_shift(C a, C b, C c, C d) {
  const C t = 0.5 * (a - d), r = std::sqrt(t * t + b * c);
  const C m1 = 0.5 * (a + d) + r, m2 = 0.5 * (a + d) - r;
  return std::abs(m1 - d) < std::abs(m2 - d) ? m1 : m2;
}

// h (upper Hessenberg) := T upper triangular with h = Z T Z^H, z := z Z (unless null: eigenvalues
// only, the same ones): single-shift QR steps on
// the active window [lo, hi], by Givens rotations (the whole rows and columns, for the Schur
// form), deflating where a subdiagonal entry is below eps of its neighbours. False when an
// eigenvalue takes more than 30 steps (LAPACK's bound); NaN entries deflate at once (no
// comparison holds).
bool schur(C* h, int64_t n, C* z) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  int64_t hi = n - 1, steps = 0;
  while (hi > 0) {
    int64_t lo = hi;
    for (; lo > 0; --lo) {
      const double nb = std::abs(h[lo * n + lo]) + std::abs(h[(lo - 1) * n + lo - 1]);
      if (!(std::abs(h[lo * n + lo - 1]) > eps * nb)) break;
    }
    if (lo > 0) h[lo * n + lo - 1] = 0;
    if (lo == hi) {  // a 1 x 1 block: an eigenvalue
      --hi, steps = 0;
      continue;
    }
    if (steps == 30) return false;
    ++steps;
    C mu =
        wilkinson_shift(h[(hi - 1) * n + hi - 1], h[(hi - 1) * n + hi], h[hi * n + hi - 1], h[hi * n + hi]);
    if (steps % 10 == 0)  // an exceptional shift, as LAPACK's, against cycles
      mu = h[hi * n + hi] + 0.75 * std::abs(h[hi * n + hi - 1].real()) + std::abs(h[hi * n + hi - 1].imag());
    C x = h[lo * n + lo] - mu, y = h[(lo + 1) * n + lo];
    for (int64_t k = lo; k < hi; ++k) {
      // G = [c s; -conj(s) c] with G [x; y] = [r; 0]
      const double ax = std::abs(x), norm = std::hypot(ax, std::abs(y));
      double c = 1;
      C s = 0;
      if (norm > 0) {
        c = ax / norm;
        s = (ax > 0 ? x / ax : C(1)) * std::conj(y) / norm;
      }
      for (int64_t j = k > lo ? k - 1 : lo; j < n; ++j) {  // rows k, k + 1 := G rows
        const C p = h[k * n + j], q = h[(k + 1) * n + j];
        h[k * n + j] = c * p + s * q;
        h[(k + 1) * n + j] = -std::conj(s) * p + c * q;
      }
      const int64_t last = std::min(k + 2, hi);
      for (int64_t i = 0; i <= last; ++i) {  // columns k, k + 1 := columns G^H
        const C p = h[i * n + k], q = h[i * n + k + 1];
        h[i * n + k] = p * c + q * std::conj(s);
        h[i * n + k + 1] = -p * s + q * c;
      }
      for (int64_t i = 0; z && i < n; ++i) {
        const C p = z[i * n + k], q = z[i * n + k + 1];
        z[i * n + k] = p * c + q * std::conj(s);
        z[i * n + k + 1] = -p * s + q * c;
      }
      if (k + 1 < hi) x = h[(k + 1) * n + k], y = h[(k + 2) * n + k];
    }
  }
  return true;
}

}  // namespace

template <class T>
bool eig(const T* a, int64_t n, C* w, C* v) {
  if (n == 0) return true;
  std::vector<C> h(a, a + n * n), z(v ? static_cast<std::size_t>(n * n) : 0, C(0));
  for (int64_t i = 0; v && i < n; ++i) z[static_cast<std::size_t>(i * n + i)] = 1;
  C* zp = v ? z.data() : nullptr;  // eigenvalues only: no Schur vectors
  hessenberg(h.data(), n, zp);
  if (!schur(h.data(), n, zp)) return false;
  for (int64_t i = 0; i < n; ++i) w[i] = h[static_cast<std::size_t>(i * n + i)];
  if (!v) return true;
  // eigenvector k of T: x_k = 1, x_j (j < k) by back-substitution, a zero divisor (a repeated
  // eigenvalue) replaced by eps ||T||, as LAPACK's ztrevc does; then v_k = Z x, normalized
  double tnorm = 0;
  for (const C& e : h) tnorm = std::max(tnorm, std::abs(e));
  const double small = std::max(tnorm * std::numeric_limits<double>::epsilon(), 1e-300);
  std::vector<C> x(static_cast<std::size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const C lambda = h[static_cast<std::size_t>(k * n + k)];
    x[static_cast<std::size_t>(k)] = 1;
    for (int64_t j = k - 1; j >= 0; --j) {
      C sum = 0;
      for (int64_t m = j + 1; m <= k; ++m)
        sum += h[static_cast<std::size_t>(j * n + m)] * x[static_cast<std::size_t>(m)];
      C d = h[static_cast<std::size_t>(j * n + j)] - lambda;
      if (std::abs(d) < small) d = small;
      x[static_cast<std::size_t>(j)] = -sum / d;
    }
    for (int64_t i = 0; i < n; ++i) {
      C sum = 0;
      for (int64_t m = 0; m <= k; ++m)
        sum += z[static_cast<std::size_t>(i * n + m)] * x[static_cast<std::size_t>(m)];
      v[i * n + k] = sum;
    }
  }
  std::vector<C> col(static_cast<std::size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t i = 0; i < n; ++i) col[static_cast<std::size_t>(i)] = v[i * n + k];
    normalize_eigenvector(col.data(), n);
    for (int64_t i = 0; i < n; ++i) v[i * n + k] = col[static_cast<std::size_t>(i)];
  }
  return true;
}

#define CGRAD_LINALG_INSTANTIATE(T)                                                       \
  template bool lu_factor<T>(T*, int64_t, std::vector<int64_t>&, int&);                   \
  template void lu_solve<T>(const T*, const std::vector<int64_t>&, int64_t, T*, int64_t); \
  template bool cholesky<T>(T*, int64_t);                                                 \
  template void qr<T>(const T*, int64_t, int64_t, T*, T*, bool);                          \
  template void eigh<T>(T*, int64_t, double*, T*);                                        \
  template bool eig<T>(const T*, int64_t, C*, C*);                                        \
  template void svd<T>(const T*, int64_t, int64_t, T*, double*, T*, bool);
CGRAD_LINALG_INSTANTIATE(double)
CGRAD_LINALG_INSTANTIATE(C)
#undef CGRAD_LINALG_INSTANTIATE

}  // namespace cgrad::linalg::host
