// cgrad::linalg (include/cgrad/linalg.hpp): each function evaluates its input, runs a host
// routine (linalg/host.h) on every matrix of the stack in double or complex<double>, and
// returns the result as a new tensor of the input's dtype on its device. Gradients: each
// function is a CustomOp whose backward is built from lazy cgrad ops (and these functions),
// with the formulas PyTorch uses (its complex convention, docs/autograd.md).
#include <cgrad/extend.hpp>
#include <cgrad/linalg.hpp>
#include <cgrad/manipulation.hpp>
#include <cgrad/scalar.hpp>

#include "core/dtype.hpp"
#include "core/shape.hpp"
#include "linalg/host.h"
#include "linalg/lapack.h"

#include <limits>
#include <string>

namespace cgrad::linalg {

namespace {

using host::C;

// ---- checks and the host round trip ----

// x is a stack of matrices of a floating or complex dtype (square ones where asked).
void check(const Tensor& x, const char* fn, bool square) {
  if (!x.defined()) throw Error(ErrorCode::InvalidArgument, std::string(fn) + ": undefined tensor");
  if (x.ndim() < 2)
    throw Error(
        ErrorCode::InvalidArgument,
        std::string(fn) + ": needs a matrix or a stack of matrices, got shape " + shape_str(x.shape()));
  if (!is_floating(x.dtype()) && !is_complex(x.dtype()))
    throw Error(ErrorCode::DTypeMismatch,
                std::string(fn) + ": needs a floating-point or complex tensor, got " + dtype_name(x.dtype()));
  const int64_t m = x.shape()[x.shape().size() - 2], n = x.shape().back();
  if (square && m != n)
    throw Error(ErrorCode::ShapeMismatch,
                std::string(fn) + ": needs square matrices, got shape " + shape_str(x.shape()));
}

struct Dims {
  Shape batch;
  int64_t count, m, n;
};

Dims dims(const Tensor& x) {
  Shape batch(x.shape().begin(), x.shape().end() - 2);
  int64_t count = 1;
  for (int64_t d : batch) count *= d;
  return {batch, count, x.shape()[x.shape().size() - 2], x.shape().back()};
}

Shape with(Shape s, std::initializer_list<int64_t> tail) {
  s.insert(s.end(), tail.begin(), tail.end());
  return s;
}

template <class T>
std::vector<T> read(const Tensor& x) {
  if constexpr (std::is_same_v<T, double>) {
    return x.to_vector<double>();
  } else {
    std::vector<complex128_t> v = x.cast(DType::c128).to_vector<complex128_t>();
    std::vector<C> out;
    out.reserve(v.size());
    for (const complex128_t& z : v) out.emplace_back(z.re, z.im);
    return out;
  }
}

// A tensor of dtype `t` (cast from f64 / c128) on `d`.
Tensor make(std::vector<double> data, Shape shape, DType t, Device d) {
  Tensor r = tensor(std::move(data), std::move(shape), d);
  return t == DType::f64 ? r : r.cast(t);
}

Tensor make(const std::vector<C>& data, Shape shape, DType t, Device d) {
  std::vector<complex128_t> v;
  v.reserve(data.size());
  for (const C& z : data) v.emplace_back(z.real(), z.imag());
  Tensor r = tensor(std::move(v), std::move(shape), d);
  return t == DType::c128 ? r : r.cast(t);
}

// f(T{}) with T = complex<double> for complex dtypes, double otherwise.
template <class F>
auto by_type(DType t, F f) {
  return is_complex(t) ? f(C{}) : f(double{});
}

std::string which(const Dims& d, int64_t b) {
  return d.count > 1 ? " (matrix " + std::to_string(b) + " of the stack)" : "";
}

// ---- lazy helpers for the backward formulas ----

Tensor mH(const Tensor& x) { return conj(x.transpose(-2, -1)); }

Tensor eye_like(const Tensor& x, int64_t n) {
  std::vector<double> id(static_cast<std::size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) id[static_cast<std::size_t>(i * n + i)] = 1;
  return make(std::move(id), {n, n}, real_dtype(x.dtype()), x.device());
}

// (..., n, n) -> (..., n): each matrix's diagonal (diag_embed's inverse)
Tensor diagonal_of(const Tensor& x) { return sum(x * eye_like(x, x.shape().back()), {-2}); }

// (..., n) -> (..., n, n) with v on the diagonal
Tensor diag_embed(const Tensor& v) {
  const int64_t n = v.shape().back();
  Shape s = v.shape();
  s.push_back(1);
  return v.reshape(s) * eye_like(v, n);
}

// (...) -> (..., 1, 1)
Tensor as_matrix_scale(const Tensor& x) { return x.reshape(with(x.shape(), {1, 1})); }

// (..., n) -> (..., 1, n) (a row per matrix)
Tensor as_row(const Tensor& x) {
  Shape s = x.shape();
  s.insert(s.end() - 1, 1);
  return x.reshape(s);
}

// ---- forward routines: one host call per matrix ----

// LU (host::lu_factor's contract) and Cholesky (host::cholesky's): LAPACK past the sizes where
// it is faster, where the machine has it (linalg/lapack.h), else cgrad's own loops.
template <class T>
bool factor_lu(T* a, int64_t n, std::vector<int64_t>& perm, int& sign) {
  bool regular = true;
  return lapack::lu_factor(a, n, perm, sign, regular) ? regular : host::lu_factor(a, n, perm, sign);
}

template <class T>
bool cholesky_factor(T* a, int64_t n) {
  bool positive = true;
  return lapack::cholesky(a, n, positive) ? positive : host::cholesky(a, n);
}

template <class T>
Tensor inv_host(const Tensor& a) {
  const Dims d = dims(a);
  std::vector<T> x = read<T>(a), out(x.size(), T(0));
  std::vector<int64_t> perm;
  int sign = 1;
  for (int64_t b = 0; b < d.count; ++b) {
    T* lu = x.data() + b * d.n * d.n;
    T* o = out.data() + b * d.n * d.n;
    bool regular = true;
    if (lapack::inv(lu, d.n, regular)) {  // LAPACK past small sizes: a becomes its inverse
      if (!regular) throw Error(ErrorCode::InvalidArgument, "inv: the matrix is singular" + which(d, b));
      std::copy(lu, lu + d.n * d.n, o);
      continue;
    }
    if (!factor_lu(lu, d.n, perm, sign))
      throw Error(ErrorCode::InvalidArgument, "inv: the matrix is singular" + which(d, b));
    for (int64_t i = 0; i < d.n; ++i) o[i * d.n + i] = T(1);
    host::lu_solve(lu, perm, d.n, o, d.n);
  }
  return make(out, a.shape(), a.dtype(), a.device());
}

template <class T>
Tensor solve_host(const Tensor& a, const Tensor& b) {  // equal batch dims; b (..., n, k)
  const Dims d = dims(a);
  const int64_t k = b.shape().back();
  std::vector<T> x = read<T>(a), rhs = read<T>(b);
  std::vector<int64_t> perm;
  int sign = 1;
  for (int64_t i = 0; i < d.count; ++i) {
    T* lu = x.data() + i * d.n * d.n;
    if (!factor_lu(lu, d.n, perm, sign))
      throw Error(ErrorCode::InvalidArgument, "solve: the matrix is singular" + which(d, i));
    host::lu_solve(lu, perm, d.n, rhs.data() + i * d.n * k, k);
  }
  return make(rhs, b.shape(), b.dtype(), b.device());
}

// u / |u|: 0 at 0, NaN where u has a NaN (NumPy's sign stays +-1 there), the direction of an
// infinite u (u / |u| is inf / inf; until 2026-12-07 the sign was 0 for NaN and NaN for inf).
double unit(double u) { return std::isinf(u) ? std::copysign(1.0, u) : u == 0 ? 0.0 : u / std::abs(u); }
C unit(C u) {
  if (std::isinf(u.real()) || std::isinf(u.imag())) {
    const C d(std::isinf(u.real()) ? std::copysign(1.0, u.real()) : 0.0,
              std::isinf(u.imag()) ? std::copysign(1.0, u.imag()) : 0.0);
    return d / std::abs(d);
  }
  return u == C(0) ? C(0) : u / std::abs(u);
}

// sign (a's dtype) and log|det| (its real dtype) of each matrix
template <class T>
std::pair<Tensor, Tensor> slogdet_host(const Tensor& a) {
  const Dims d = dims(a);
  std::vector<T> x = read<T>(a), sign(static_cast<std::size_t>(d.count));
  std::vector<double> logabs(static_cast<std::size_t>(d.count));
  std::vector<int64_t> perm;
  for (int64_t b = 0; b < d.count; ++b) {
    T* lu = x.data() + b * d.n * d.n;
    int s = 1;
    factor_lu(lu, d.n, perm, s);
    T ph = T(s);
    double la = 0;
    for (int64_t i = 0; i < d.n; ++i) {
      const T u = lu[i * d.n + i];
      la += std::log(std::abs(u));
      ph *= unit(u);
    }
    sign[static_cast<std::size_t>(b)] = ph;
    logabs[static_cast<std::size_t>(b)] = la;
  }
  return {make(sign, d.batch, a.dtype(), a.device()),
          make(logabs, d.batch, real_dtype(a.dtype()), a.device())};
}

template <class T>
Tensor det_host(const Tensor& a) {
  const Dims d = dims(a);
  std::vector<T> x = read<T>(a), det(static_cast<std::size_t>(d.count));
  std::vector<int64_t> perm;
  for (int64_t b = 0; b < d.count; ++b) {
    T* lu = x.data() + b * d.n * d.n;
    int s = 1;
    factor_lu(lu, d.n, perm, s);
    T p = T(s);
    for (int64_t i = 0; i < d.n; ++i) p *= lu[i * d.n + i];
    det[static_cast<std::size_t>(b)] = p;
  }
  return make(det, d.batch, a.dtype(), a.device());
}

template <class T>
Tensor cholesky_host(const Tensor& a) {
  const Dims d = dims(a);
  std::vector<T> x = read<T>(a);
  for (int64_t b = 0; b < d.count; ++b)
    if (!cholesky_factor(x.data() + b * d.n * d.n, d.n))
      throw Error(ErrorCode::InvalidArgument, "cholesky: the matrix is not positive definite" + which(d, b));
  return make(x, a.shape(), a.dtype(), a.device());
}

// Decompositions of a matrix with a NaN or an infinity among the entries they read give NaN for
// every output of that matrix, as JAX's (NumPy and PyTorch raise). The iterations made partly
// finite garbage of them until 2026-12-07: svdvals([[1, nan], [0, 1]]) was [1, nan], and eig of
// [[2, inf], [inf, 1]] all NaN but svdvals [inf, inf]. The entries a decomposition reads are finite: all of
// an m x n matrix, or (`lower`) the lower triangle of a Hermitian one, whose diagonal's imaginary parts are
// not read.
template <class T>
bool finite_entries(const T* a, int64_t m, int64_t n, bool lower = false) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < (lower ? i + 1 : n); ++j)
      if (!std::isfinite(lower && i == j ? std::real(a[i * n + j]) : std::abs(a[i * n + j]))) return false;
  return true;
}
template <class T>
void fill_nan(T* out, int64_t count) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if constexpr (std::is_same_v<T, C>)
    std::fill(out, out + count, C(nan, nan));
  else
    std::fill(out, out + count, T(nan));
}

// eigenvalues (a's real dtype) and, where `vectors`, eigenvectors (else an undefined tensor)
template <class T>
std::pair<Tensor, Tensor> eigh_host(const Tensor& a, bool vectors) {
  const Dims d = dims(a);
  std::vector<T> x = read<T>(a), v(x.size());
  std::vector<double> w(static_cast<std::size_t>(d.count * d.n));
  for (int64_t b = 0; b < d.count; ++b) {
    T* ab = x.data() + b * d.n * d.n;
    T* vb = v.data() + b * d.n * d.n;
    double* wb = w.data() + b * d.n;
    if (!finite_entries(ab, d.n, d.n, /*lower=*/true)) {
      fill_nan(wb, d.n);
      fill_nan(vb, d.n * d.n);
      continue;
    }
    if (!lapack::eigh(ab, d.n, wb, vectors ? vb : nullptr)) host::eigh(ab, d.n, wb, vb);
  }
  Tensor values = make(w, with(d.batch, {d.n}), real_dtype(a.dtype()), a.device());
  return {values, vectors ? make(v, a.shape(), a.dtype(), a.device()) : Tensor()};
}

// eigenvalues and, where `vectors`, eigenvectors (else an undefined tensor), both of a's complex dtype
template <class T>
std::pair<Tensor, Tensor> eig_host(const Tensor& a, bool vectors) {
  const Dims d = dims(a);
  const std::vector<T> x = read<T>(a);
  std::vector<C> w(static_cast<std::size_t>(d.count * d.n)), v(vectors ? x.size() : 0);
  for (int64_t b = 0; b < d.count; ++b) {
    const T* ab = x.data() + b * d.n * d.n;
    C* vb = vectors ? v.data() + b * d.n * d.n : nullptr;
    if (!finite_entries(ab, d.n, d.n)) {
      fill_nan(w.data() + b * d.n, d.n);
      if (vb) fill_nan(vb, d.n * d.n);
      continue;
    }
    if (!lapack::eig(ab, d.n, w.data() + b * d.n, vb) && !host::eig(ab, d.n, w.data() + b * d.n, vb))
      throw Error(ErrorCode::InvalidArgument, "eig: the QR algorithm did not converge" + which(d, b));
  }
  const DType t = complex_dtype(a.dtype());
  return {make(w, with(d.batch, {d.n}), t, a.device()),
          vectors ? make(v, a.shape(), t, a.device()) : Tensor()};
}

template <class T>
SVD svd_host(const Tensor& a, bool full, bool vectors) {
  const Dims d = dims(a);
  const int64_t k = std::min(d.m, d.n), uc = full ? d.m : k, vr = full ? d.n : k;
  std::vector<T> x = read<T>(a), u(vectors ? static_cast<std::size_t>(d.count * d.m * uc) : 0),
                 vh(vectors ? static_cast<std::size_t>(d.count * vr * d.n) : 0);
  std::vector<double> s(static_cast<std::size_t>(d.count * k));
  for (int64_t b = 0; b < d.count; ++b) {
    const T* ab = x.data() + b * d.m * d.n;
    T* ub = vectors ? u.data() + b * d.m * uc : nullptr;
    T* vb = vectors ? vh.data() + b * vr * d.n : nullptr;
    if (!finite_entries(ab, d.m, d.n)) {
      fill_nan(s.data() + b * k, k);
      if (vectors) {
        fill_nan(ub, d.m * uc);
        fill_nan(vb, vr * d.n);
      }
      continue;
    }
    if (!lapack::svd(ab, d.m, d.n, ub, s.data() + b * k, vb, full))
      host::svd(ab, d.m, d.n, ub, s.data() + b * k, vb, full);
  }
  SVD r{Tensor(), make(s, with(d.batch, {k}), real_dtype(a.dtype()), a.device()), Tensor()};
  if (vectors) {
    r.U = make(u, with(d.batch, {d.m, uc}), a.dtype(), a.device());
    r.Vh = make(vh, with(d.batch, {vr, d.n}), a.dtype(), a.device());
  }
  return r;
}

template <class T>
QR qr_host(const Tensor& a, bool complete) {
  const Dims d = dims(a);
  const int64_t k = std::min(d.m, d.n), qc = complete ? d.m : k;
  std::vector<T> x = read<T>(a), q(static_cast<std::size_t>(d.count * d.m * qc)),
                 r(static_cast<std::size_t>(d.count * qc * d.n));
  for (int64_t b = 0; b < d.count; ++b) {
    const T* ab = x.data() + b * d.m * d.n;
    T* qb = q.data() + b * d.m * qc;
    T* rb = r.data() + b * qc * d.n;
    if (!lapack::qr(ab, d.m, d.n, qb, rb, complete)) host::qr(ab, d.m, d.n, qb, rb, complete);
  }
  return {make(q, with(d.batch, {d.m, qc}), a.dtype(), a.device()),
          make(r, with(d.batch, {qc, d.n}), a.dtype(), a.device())};
}

// ---- the differentiable operators ----

const CustomOp& inv_op() {
  static const CustomOp op(
      "linalg.inv",
      [](CustomContext&, const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            by_type(in[0].dtype(), [&](auto t) { return inv_host<decltype(t)>(in[0]); })};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {  // d(A^-1) = -A^-1 dA A^-1
        const Tensor yh = mH(c.outputs[0]);
        return std::vector<Tensor>{-matmul(matmul(yh, g[0]), yh)};
      });
  return op;
}

const CustomOp& solve_op() {  // inputs of equal batch dims, b (..., n, k)
  static const CustomOp op(
      "linalg.solve",
      [](CustomContext&, const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            by_type(in[1].dtype(), [&](auto t) { return solve_host<decltype(t)>(in[0], in[1]); })};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {  // x = A^-1 b
        Tensor gb = solve_op()({mH(c.inputs[0]), g[0]})[0];
        return std::vector<Tensor>{-matmul(gb, mH(c.outputs[0])), gb};
      });
  return op;
}

const CustomOp& slogdet_op() {
  static const CustomOp op(
      "linalg.slogdet",
      [](CustomContext&, const std::vector<Tensor>& in) {
        auto [s, l] = by_type(in[0].dtype(), [&](auto t) { return slogdet_host<decltype(t)>(in[0]); });
        return std::vector<Tensor>{s, l};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {
        // d log|det| = Re tr(A^-1 dA); for complex A the sign's phase moves too: d sign = i sign
        // Im tr(A^-1 dA). Both fold into one coefficient of A^-H.
        Tensor coef = g[1];
        if (is_complex(c.inputs[0].dtype())) coef = complex(g[1], -imag(conj(g[0]) * c.outputs[0]));
        return std::vector<Tensor>{as_matrix_scale(coef) * mH(inv(c.inputs[0]))};
      });
  return op;
}

const CustomOp& det_op();

// The adjugate's conjugate transpose, adj(A)^H, of a stack with a singular matrix: from A = U S Vh,
// adj(A) = adj(Vh) adj(S) adj(U) = det(U) det(Vh) Vh^H diag(p) U^H with p_i the product of the
// singular values other than s_i (exclusive running products from both ends: no division), so
// adj(A)^H = conj(det(U) det(Vh)) U diag(p) Vh. 0 where the rank is below n - 1.
Tensor adjugate_h(const Tensor& a) {
  const SVD r = svd(a, true);
  const int64_t n = a.shape().back();
  const Tensor left = cumulative_prod(r.S, -1, std::nullopt, true).slice(-1, 0, n);
  const Tensor right = flip(cumulative_prod(flip(r.S, {-1}), -1, std::nullopt, true).slice(-1, 0, n), {-1});
  const Tensor phase = conj(det_op()(r.U) * det_op()(r.Vh));
  return as_matrix_scale(phase) * matmul(r.U * as_row((left * right).cast(a.dtype())), r.Vh);
}

const CustomOp& det_op() {
  static const CustomOp op(
      "linalg.det",
      [](CustomContext&, const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            by_type(in[0].dtype(), [&](auto t) { return det_host<decltype(t)>(in[0]); })};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {
        // d det = tr(adj(A) dA): det A^-H where every det is nonzero; where one is 0 (a singular
        // matrix: A^-1 does not exist, the adjugate does), through the SVD (so a second derivative
        // there goes through the SVD's gradient: infinite where singular values repeat)
        const Tensor& a = c.inputs[0];
        const bool singular = a.numel() > 0 && any(c.outputs[0] == 0.0).item<bool>();
        const Tensor adj_h = singular ? adjugate_h(a) : as_matrix_scale(conj(c.outputs[0])) * mH(inv(a));
        return std::vector<Tensor>{as_matrix_scale(g[0]) * adj_h};
      });
  return op;
}

const CustomOp& cholesky_op() {
  static const CustomOp op(
      "linalg.cholesky",
      [](CustomContext&, const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            by_type(in[0].dtype(), [&](auto t) { return cholesky_host<decltype(t)>(in[0]); })};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {
        // gA = L^-H Phi(L^H gL) L^-1, Phi: the lower triangle with its diagonal halved; then
        // the Hermitian part (a Hermitian A moves only Hermitian-ly)
        const Tensor& l = c.outputs[0];
        const Tensor p = matmul(mH(l), g[0]);
        const Tensor phi = tril(p) - 0.5 * (p * eye_like(p, p.shape().back()));
        const Tensor li = inv(l);
        const Tensor ga = matmul(matmul(mH(li), phi), li);
        return std::vector<Tensor>{0.5 * (ga + mH(ga))};
      });
  return op;
}

// The eigenvalue gaps of the eigen-decompositions' gradients, e_ij = w_j - w_i off the diagonal and 1
// on it (a divisor), with the off-diagonal mask.
std::pair<Tensor, Tensor> eigen_gaps(const Tensor& w) {
  const Tensor off = eye_like(w, w.shape().back()) == 0.0;
  return {where(off, as_row(w) - w.reshape(with(w.shape(), {1})), 1.0), off};
}

const CustomOp& eigh_op() {
  static const CustomOp op(
      "linalg.eigh",
      [](CustomContext&, const std::vector<Tensor>& in) {
        auto [w, v] = by_type(in[0].dtype(), [&](auto t) { return eigh_host<decltype(t)>(in[0], true); });
        return std::vector<Tensor>{w, v};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {
        // gA = V (diag(gw) + F o (V^H gV)) V^H, F_ij = 1 / (w_j - w_i) off the diagonal (inf
        // where eigenvalues repeat, as in PyTorch), then the Hermitian part
        const Tensor &w = c.outputs[0], &v = c.outputs[1];
        const auto [e, off] = eigen_gaps(w);
        const Tensor inner = diag_embed(g[0]) + where(off, 1.0 / e, 0.0) * matmul(mH(v), g[1]);
        const Tensor ga = matmul(matmul(v, inner), mH(v));
        return std::vector<Tensor>{0.5 * (ga + mH(ga))};
      });
  return op;
}

const CustomOp& eigvalsh_op() {
  static const CustomOp op(
      "linalg.eigvalsh",
      [](CustomContext& c, const std::vector<Tensor>& in) {
        const bool vectors = is_grad_enabled() && in[0].requires_grad();  // as svdvals
        auto [w, v] = by_type(in[0].dtype(), [&](auto t) { return eigh_host<decltype(t)>(in[0], vectors); });
        if (vectors) c.saved = {v};
        return std::vector<Tensor>{w};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {  // d w_i = v_i^H dA v_i
        // (under create_graph, the vectors with eigh's record: the second derivative flows through them)
        const Tensor v = is_grad_enabled() ? eigh_op()({c.inputs[0]})[1] : c.saved[0];
        return std::vector<Tensor>{matmul(v * as_row(g[0]), mH(v))};
      });
  return op;
}

const CustomOp& eig_op() {
  static const CustomOp op(
      "linalg.eig",
      [](CustomContext&, const std::vector<Tensor>& in) {
        auto [w, v] = by_type(in[0].dtype(), [&](auto t) { return eig_host<decltype(t)>(in[0], true); });
        return std::vector<Tensor>{w, v};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {
        // PyTorch's formula: gA = V^-H (diag(gw) + P / conj(E)) V^H with E_ij = w_j - w_i (1 on
        // the diagonal) and P = V^H gV - V^H V diag(Re diag(V^H gV)), the part of gV a change of
        // the eigenvectors' phases leaves alone (a loss that depends on their phases has no
        // gradient; their normalization fixes them); real for a real A
        const Tensor &w = c.outputs[0], &v = c.outputs[1];
        const Tensor vh = mH(v), vhgv = matmul(vh, g[1]);
        const Tensor re_diag = real(diagonal_of(vhgv));  // (..., n)
        const Tensor p = vhgv - matmul(vh, v * as_row(re_diag));
        const auto [e, off] = eigen_gaps(w);
        const Tensor inner = diag_embed(g[0]) + where(off, p / conj(e), 0.0);
        const Tensor ga = matmul(matmul(inv(vh), inner), vh);
        return std::vector<Tensor>{is_complex(c.inputs[0].dtype()) ? ga : real(ga)};
      });
  return op;
}

const CustomOp& eigvals_op() {
  static const CustomOp op(
      "linalg.eigvals",
      [](CustomContext& c, const std::vector<Tensor>& in) {
        const bool vectors = is_grad_enabled() && in[0].requires_grad();  // as svdvals
        auto [w, v] = by_type(in[0].dtype(), [&](auto t) { return eig_host<decltype(t)>(in[0], vectors); });
        if (vectors) c.saved = {v};
        return std::vector<Tensor>{w};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {
        // d w_i = u_i^H dA v_i with the left eigenvectors u_i^H the rows of V^-1: gA = V^-H diag(gw) V^H
        // (PyTorch's formula), real for a real A
        const Tensor v = is_grad_enabled() ? eig_op()({c.inputs[0]})[1] : c.saved[0];  // (as eigvalsh's)
        const Tensor ga = matmul(mH(inv(v)) * as_row(g[0]), mH(v));
        return std::vector<Tensor>{is_complex(c.inputs[0].dtype()) ? ga : real(ga)};
      });
  return op;
}

const CustomOp& svdvals_op() {
  static const CustomOp op(
      "linalg.svdvals",
      [](CustomContext& c, const std::vector<Tensor>& in) {
        // the singular vectors only where a gradient may be asked for (LAPACK's values-only
        // path is 2-3x faster)
        const bool vectors = is_grad_enabled() && in[0].requires_grad();
        SVD r = by_type(in[0].dtype(), [&](auto t) { return svd_host<decltype(t)>(in[0], false, vectors); });
        if (vectors) c.saved = {r.U, r.Vh};
        return std::vector<Tensor>{r.S};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {  // d s_i = Re(u_i^H dA v_i)
        if (is_grad_enabled()) {  // (as eigvalsh's: the vectors with the SVD's record)
          const SVD r = svd(c.inputs[0], false);
          return std::vector<Tensor>{matmul(r.U * as_row(g[0]), r.Vh)};
        }
        return std::vector<Tensor>{matmul(c.saved[0] * as_row(g[0]), c.saved[1])};
      });
  return op;
}

// QR's gradient (A = Q R, Q with orthonormal columns, R upper triangular with a real diagonal:
// LAPACK's convention, which the built-in routine follows). For m >= n, the reduced QR:
// gA = (gQ + Q N) R^-H, N = tril(M, -1) + tril(M, -1)^H + Re diag(M), M = R gR^H - gQ^H Q
// (the Hermitian matrix the constraints Q^H Q = I, R triangular, Im diag R = 0 leave; it follows
// from Q^H dA R^-1 = Q^H dQ + dR R^-1, a skew-Hermitian plus an upper triangular part). For
// m < n, A = [X | Y] with X = Q R1 square and Y = Q R2: gY = Q gR2, and X takes the square case
// with gQ + Y gR2^H (R2 = Q^H Y moves with Q). R^-H through a solve with R: a rank-deficient A
// (a zero on R's diagonal) raises, as PyTorch's.
Tensor qr_backward(const Tensor& q, const Tensor& r, Tensor gq, const Tensor& gr) {
  const int64_t m = q.shape()[q.ndim() - 2], n = r.shape().back();
  if (m < n) {
    const Tensor y = r.slice(-1, m, n), gr2 = gr.slice(-1, m, n);
    const Tensor ay = matmul(q, y);  // A's last n - m columns
    const Tensor gx = qr_backward(q, r.slice(-1, 0, m), gq + matmul(ay, mH(gr2)), gr.slice(-1, 0, m));
    return cat({gx, matmul(q, gr2)}, -1);
  }
  const Tensor mm = matmul(r, mH(gr)) - matmul(mH(gq), q);
  const Tensor low = tril(mm, -1);
  const Tensor nn = low + mH(low) + diag_embed(real(diagonal_of(mm))).cast(mm.dtype());
  const Tensor b = gq + matmul(q, nn);   // gA R^H = b
  return mH(solve_op()({r, mH(b)})[0]);  // gA = (R^-1 b^H)^H
}

// The SVD's gradient (reduced: U m x k, S k, Vh k x n, k = min(m, n); with full_matrices the
// columns of U and rows of Vh past k are arbitrary, their gradients ignored, as PyTorch's):
// gA = U [(F o (J - J^H)) S + S (F o (K - K^H)) + diag(gS) + i Im diag(J) / S] Vh
//      + (I - U U^H) gU S^-1 Vh + U S^-1 gVh (I - Vh^H Vh),
// J = U^H gU, K = Vh gVh^H, F_ij = 1 / (s_j^2 - s_i^2) off the diagonal (inf where singular
// values repeat, as eigh's). The i Im diag(J) term is for complex A, for losses that do not
// depend on the singular vectors' phases (PyTorch's rule: the phases are not determined); the
// projections vanish for a square A and are skipped there.
Tensor svd_backward(Tensor u, const Tensor& s, Tensor vh, Tensor gu, const Tensor& gs, Tensor gvh) {
  const int64_t k = s.shape().back(), m = u.shape()[u.ndim() - 2], n = vh.shape().back();
  u = u.slice(-1, 0, k), gu = gu.slice(-1, 0, k), vh = vh.slice(-2, 0, k), gvh = gvh.slice(-2, 0, k);
  const DType t = u.dtype();
  const Tensor j = matmul(mH(u), gu), kk = matmul(vh, mH(gvh));
  const auto [e, off] = eigen_gaps(s * s);
  const Tensor f = where(off, 1.0 / e, 0.0).cast(t);
  const Tensor col = s.reshape(with(s.shape(), {1}));  // (..., k, 1): scales rows
  Tensor inner = (f * (j - mH(j))) * as_row(s) + col * (f * (kk - mH(kk))) + diag_embed(gs).cast(t);
  if (is_complex(t)) {
    const Tensor im = imag(diagonal_of(j)) / s;
    inner = inner + diag_embed(complex(zeros(im.shape(), im.dtype(), im.device()), im));
  }
  Tensor ga = matmul(matmul(u, inner), vh);
  const Tensor inv_s = as_row(1.0 / s);
  if (m > k) ga = ga + matmul((gu - matmul(u, j)) * inv_s, vh);
  if (n > k) ga = ga + matmul(u * inv_s, gvh - matmul(mH(kk), vh));
  return ga;
}

}  // namespace

// ---- the API ----

Tensor inv(const Tensor& a) {
  check(a, "inv", true);
  return inv_op()(a);
}

Tensor solve(const Tensor& a, const Tensor& b) {
  check(a, "solve", true);
  if (!b.defined() || b.ndim() < 1)
    throw Error(ErrorCode::InvalidArgument, "solve: b must have 1 or more dims");
  if (!is_floating(b.dtype()) && !is_complex(b.dtype()))
    throw Error(ErrorCode::DTypeMismatch,
                std::string("solve: needs a floating-point or complex b, got ") + dtype_name(b.dtype()));
  const int64_t n = a.shape().back();
  const bool vector = b.ndim() == 1;
  const Tensor bm = vector ? b.reshape({b.shape()[0], 1}) : b;
  if (bm.shape()[bm.shape().size() - 2] != n)
    throw Error(ErrorCode::ShapeMismatch, "solve: a of shape " + shape_str(a.shape()) + " and b of shape " +
                                              shape_str(b.shape()) + " do not match");
  const Shape batch = core::broadcast_shapes(Shape(a.shape().begin(), a.shape().end() - 2),
                                             Shape(bm.shape().begin(), bm.shape().end() - 2), "solve");
  const DType t = core::promote(a.dtype(), b.dtype());
  const Tensor am = a.cast(t).expand(with(batch, {n, n}));
  const Tensor x = solve_op()({am, bm.cast(t).expand(with(batch, {n, bm.shape().back()}))})[0];
  return vector ? x.reshape(with(batch, {n})) : x;
}

Slogdet slogdet(const Tensor& a) {
  check(a, "slogdet", true);
  std::vector<Tensor> r = slogdet_op()({a});
  return {r[0], r[1]};
}

Tensor det(const Tensor& a) {
  check(a, "det", true);
  return det_op()(a);
}

Tensor cholesky(const Tensor& a, bool upper) {
  check(a, "cholesky", true);
  Tensor l = cholesky_op()(a);
  return upper ? mH(l) : l;
}

QR qr(const Tensor& a, bool complete) {
  check(a, "qr", false);
  const CustomOp op(  // per call: forward captures `complete`
      "linalg.qr",
      [complete](CustomContext&, const std::vector<Tensor>& in) {
        QR r = by_type(in[0].dtype(), [&](auto t) { return qr_host<decltype(t)>(in[0], complete); });
        return std::vector<Tensor>{r.Q, r.R};
      },
      [complete](const CustomContext& c, const std::vector<Tensor>& g) {
        const Tensor& q = c.outputs[0];
        if (complete && q.shape().back() > c.outputs[1].shape().back())  // Q's last m - n columns: arbitrary
          throw Error(
              ErrorCode::InvalidOperation,
              "backward: linalg.qr with complete=True of a tall matrix (m > n) is not differentiable: "
              "Q's last m - n columns are not determined by A (use the reduced QR)");
        return std::vector<Tensor>{qr_backward(q, c.outputs[1], g[0], g[1])};
      });
  std::vector<Tensor> r = op({a});
  return {r[0], r[1]};
}

Eigh eigh(const Tensor& a) {
  check(a, "eigh", true);
  std::vector<Tensor> r = eigh_op()({a});
  return {r[0], r[1]};
}

Tensor eigvalsh(const Tensor& a) {
  check(a, "eigvalsh", true);
  return eigvalsh_op()(a);
}

Eig eig(const Tensor& a) {
  check(a, "eig", true);
  std::vector<Tensor> r = eig_op()({a});
  return {r[0], r[1]};
}

Tensor eigvals(const Tensor& a) {
  check(a, "eigvals", true);
  return eigvals_op()(a);
}

SVD svd(const Tensor& a, bool full_matrices) {
  check(a, "svd", false);
  const CustomOp op(  // per call: forward captures `full_matrices`
      "linalg.svd",
      [full_matrices](CustomContext&, const std::vector<Tensor>& in) {
        SVD r =
            by_type(in[0].dtype(), [&](auto t) { return svd_host<decltype(t)>(in[0], full_matrices, true); });
        return std::vector<Tensor>{r.U, r.S, r.Vh};
      },
      [](const CustomContext& c, const std::vector<Tensor>& g) {
        return std::vector<Tensor>{svd_backward(c.outputs[0], c.outputs[1], c.outputs[2], g[0], g[1], g[2])};
      });
  std::vector<Tensor> r = op({a});
  return {r[0], r[1], r[2]};
}

Tensor svdvals(const Tensor& a) {
  check(a, "svdvals", false);
  return svdvals_op()(a);
}

}  // namespace cgrad::linalg
