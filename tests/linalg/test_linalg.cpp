// cgrad::linalg: each decomposition reproduces its matrix (A X = B, L L^H = A, Q R = A,
// A V = V diag(w), U diag(S) Vh = A) on real and complex stacks; bad input raises and leaves
// the tensors as they were; gradients match finite differences. NumPy is the oracle of
// tests/python/test_linalg.py.
#include "../autograd/gradcheck.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>
#include <cgrad/scalar.hpp>

#include <cmath>
#include <cstdlib>
#include <vector>

namespace cgrad {
namespace {

using test::expect_gradients_match;
using test::random_values;

Tensor mH(const Tensor& x) { return conj(x.transpose(-2, -1)); }

// max |a - b|, read as c128
double max_diff(const Tensor& a, const Tensor& b) {
  std::vector<complex128_t> d = (a.cast(DType::c128) - b.cast(DType::c128)).to_vector<complex128_t>();
  double m = 0;
  for (const complex128_t& z : d) m = std::max(m, std::hypot(z.re, z.im));
  return m;
}

Tensor random_matrix(Shape s, DType t, unsigned seed) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  Tensor re = tensor(random_values(static_cast<std::size_t>(n), -1, 1, seed), s);
  if (!is_complex(t)) return re.cast(t);
  return complex(re, tensor(random_values(static_cast<std::size_t>(n), -1, 1, seed + 100), s)).cast(t);
}

Tensor identity(int64_t n, DType t) {
  std::vector<double> id(static_cast<std::size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) id[static_cast<std::size_t>(i * n + i)] = 1;
  return tensor(id, {n, n}).cast(t);
}

class Linalg : public ::testing::TestWithParam<DType> {};

TEST_P(Linalg, DecompositionsReproduceTheirMatrices) {
  const DType t = GetParam();
  const double tol = t == DType::f32 || t == DType::c64 ? 1e-4 : 1e-11;
  Tensor a = random_matrix({3, 5, 5}, t, 1) + 3.0 * identity(5, t);
  Tensor b = random_matrix({3, 5, 2}, t, 2);
  EXPECT_LT(max_diff(matmul(a, linalg::solve(a, b)), b), tol);
  EXPECT_LT(max_diff(matmul(a, linalg::inv(a)), identity(5, t).expand({3, 5, 5})), tol);
  linalg::Slogdet sd = linalg::slogdet(a);
  EXPECT_LT(max_diff(linalg::det(a), sd.sign * exp(sd.logabsdet)), tol * 100);
  // det(A B) = det(A) det(B)
  Tensor c = random_matrix({3, 5, 5}, t, 3);
  EXPECT_LT(max_diff(linalg::det(matmul(a, c)), linalg::det(a) * linalg::det(c)), tol * 100);
  Tensor h = matmul(a, mH(a));
  Tensor l = linalg::cholesky(h);
  EXPECT_LT(max_diff(matmul(l, mH(l)), h), tol * 10);
  EXPECT_LT(max_diff(linalg::cholesky(h, true), mH(l)), tol);
  linalg::Eigh e = linalg::eigh(h);
  Shape row = e.eigenvalues.shape();
  row.insert(row.end() - 1, 1);
  EXPECT_LT(max_diff(matmul(h, e.eigenvectors), e.eigenvectors * e.eigenvalues.reshape(row)), tol * 10);
  EXPECT_LT(max_diff(linalg::eigvalsh(h), e.eigenvalues), tol);
  for (Shape s : {Shape{2, 6, 4}, Shape{2, 4, 6}}) {
    Tensor m = random_matrix(s, t, 4);
    linalg::QR qr = linalg::qr(m);
    EXPECT_LT(max_diff(matmul(qr.Q, qr.R), m), tol);
    EXPECT_LT(max_diff(matmul(mH(qr.Q), qr.Q), identity(4, t).expand({2, 4, 4})), tol);
    linalg::SVD sv = linalg::svd(m, false);
    Shape srow = sv.S.shape();
    srow.insert(srow.end() - 1, 1);
    EXPECT_LT(max_diff(matmul(sv.U * sv.S.reshape(srow), sv.Vh), m), tol);
    EXPECT_LT(max_diff(linalg::svdvals(m), sv.S), tol);
    EXPECT_EQ(sv.S.dtype(), real_dtype(t));
  }
}

// R is upper triangular to the bit, whatever the scale of the column below the diagonal: a
// complex 2 x 2 whose one element under it was 1.4e-189i (its square underflows to 0) was left
// unreflected, with that element in R (the Array API suite's test_qr). Also Q R = A, Q unitary.
TEST_P(Linalg, QrIsTriangularForTinyAndHugeColumns) {
  const DType t = GetParam();
  const double tol = t == DType::f32 || t == DType::c64 ? 1e-5 : 1e-14;
  for (double scale : {1e-189, 1e-300, 1e-30, 1.0, 1e150, 1e300}) {
    if ((t == DType::f32 || t == DType::c64) && (scale < 1e-30 || scale > 1e30)) continue;
    for (Shape s : {Shape{2, 2}, Shape{3, 2}, Shape{2, 3}}) {
      const std::string what = std::string(dtype_name(t)) + " " + std::to_string(scale) + " " + shape_str(s);
      Tensor m = random_matrix(s, t, 9);
      // the first column: one in the corner, `scale` below it
      std::vector<double> mask(static_cast<std::size_t>(s[0] * s[1]), 1.0);
      for (int64_t i = 1; i < s[0]; ++i) mask[static_cast<std::size_t>(i * s[1])] = scale;
      m = m * tensor(mask, s).cast(real_dtype(t));
      linalg::QR qr = linalg::qr(m);
      const int64_t k = std::min(s[0], s[1]);
      const std::vector<complex128_t> r = qr.R.cast(DType::c128).to_vector<complex128_t>();
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = 0; j < i; ++j) {
          const complex128_t e = r[static_cast<std::size_t>(i * s[1] + j)];
          EXPECT_TRUE(e.re == 0 && e.im == 0)
              << what << ": R[" << i << ", " << j << "] = " << e.re << " + " << e.im << "i";
        }
      const double big = std::max(scale, 1.0);
      EXPECT_LT(max_diff(matmul(qr.Q, qr.R), m), tol * big) << what;
      EXPECT_LT(max_diff(matmul(mH(qr.Q), qr.Q), identity(k, t)), tol * 10) << what;
    }
  }
}

// The built-in SVD (one-sided Jacobi) of matrices scaled far from 1: its sums of squares
// underflowed (1e-160, 1e-200) or overflowed (1e200), and U diag(S) Vh was off by 100% or NaN
// (tools: a NumPy comparison of every decomposition at seven scales). Now scaled by a power of
// two first: S is the unscaled one's times the scale, to rounding.
TEST_P(Linalg, SvdOfTinyAndHugeMatrices) {
  const DType t = GetParam();
  if (t == DType::f32 || t == DType::c64) GTEST_SKIP() << "the scales are past f32's range";
  for (Shape s : {Shape{5, 5}, Shape{6, 3}, Shape{3, 6}}) {
    const Tensor m = random_matrix(s, t, 12);
    const std::vector<double> s1 = linalg::svdvals(m).to_vector<double>();
    for (double scale : {1e-300, 1e-200, 1e-160, 1e160, 1e200, 1e300}) {
      const std::string what = std::string(dtype_name(t)) + " " + std::to_string(scale) + " " + shape_str(s);
      const Tensor ms = m * scale;
      linalg::SVD sv = linalg::svd(ms, false);
      Shape srow = sv.S.shape();
      srow.insert(srow.end() - 1, 1);
      EXPECT_LT(max_diff(matmul(sv.U * sv.S.reshape(srow), sv.Vh), ms), 1e-13 * scale) << what;
      const std::vector<double> sk = sv.S.to_vector<double>();
      ASSERT_EQ(sk.size(), s1.size()) << what;
      for (std::size_t i = 0; i < sk.size(); ++i) EXPECT_NEAR(sk[i] / scale, s1[i], 1e-13) << what;
    }
  }
}

// A V = V diag(w) for general matrices, by LAPACK where it is there and by the built-in QR
// algorithm (CGRAD_LINALG_LAPACK=0); complex results; eigvals gives eig's eigenvalues.
TEST_P(Linalg, EigReproducesGeneralMatrices) {
  const DType t = GetParam();
  const double tol = t == DType::f32 || t == DType::c64 ? 1e-4 : 1e-11;
  const Tensor a = random_matrix({3, 7, 7}, t, 5);
  for (const char* lapack : {"1", "0"}) {
    ::setenv("CGRAD_LINALG_LAPACK", lapack, 1);
    linalg::Eig e = linalg::eig(a);
    EXPECT_EQ(e.eigenvalues.dtype(), complex_dtype(t));
    EXPECT_EQ(e.eigenvectors.shape(), a.shape());
    Shape row = e.eigenvalues.shape();
    row.insert(row.end() - 1, 1);
    EXPECT_LT(max_diff(matmul(a.cast(complex_dtype(t)), e.eigenvectors),
                       e.eigenvectors * e.eigenvalues.reshape(row)),
              tol * 10)
        << "CGRAD_LINALG_LAPACK=" << lapack;
    EXPECT_LT(max_diff(linalg::eigvals(a), e.eigenvalues), tol) << "CGRAD_LINALG_LAPACK=" << lapack;
    // the sum of the eigenvalues is the trace
    EXPECT_LT(max_diff(sum(e.eigenvalues, {-1}), sum(a * identity(7, t), {-2, -1}).cast(complex_dtype(t))),
              tol * 10);
  }
  ::unsetenv("CGRAD_LINALG_LAPACK");
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Linalg, ::testing::Values(DType::f32, DType::f64, DType::c64, DType::c128),
                         [](const auto& p) { return std::string(dtype_name(p.param)); });

TEST(LinalgErrors, BadInputRaisesAndLeavesTheTensors) {
  Tensor singular = tensor(std::vector<double>{1, 2, 2, 4}, {2, 2});
  EXPECT_EQ(linalg::det(singular).item<double>(), 0.0);
  try {
    linalg::inv(singular);
    ADD_FAILURE() << "inv of a singular matrix did not raise";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  }
  EXPECT_EQ(singular.to_vector<double>(), (std::vector<double>{1, 2, 2, 4}));
  EXPECT_THROW(linalg::cholesky(-1.0 * identity(3, DType::f64)), Error);
  EXPECT_THROW(linalg::inv(tensor(std::vector<double>(6, 1.0), {2, 3})), Error);        // not square
  EXPECT_THROW(linalg::eigh(tensor(std::vector<int32_t>{1, 0, 0, 1}, {2, 2})), Error);  // integers
  EXPECT_THROW(linalg::svd(tensor(std::vector<double>{1, 2}, {2})), Error);             // a vector
}

// NaN in, NaN out (until 2026-12-07: det([[1, nan], [0, 1]]) was 1, skipping 0 * nan, and svdvals
// of it [1, nan], from partly finite iterations)
TEST(LinalgErrors, NonFiniteEntriesGiveNaN) {
  const double nan = std::nan(""), inf = INFINITY;
  for (double bad : {nan, inf}) {
    Tensor a = tensor(std::vector<double>{1, bad, 0, 1}, {2, 2});
    EXPECT_TRUE(std::isnan(linalg::det(a).item<double>())) << bad;
    for (double v : linalg::inv(a).to_vector<double>()) EXPECT_TRUE(std::isnan(v)) << bad;
    for (double v : linalg::svdvals(a).to_vector<double>()) EXPECT_TRUE(std::isnan(v)) << bad;
    for (double v : linalg::svd(a).U.to_vector<double>()) EXPECT_TRUE(std::isnan(v)) << bad;
    for (const complex128_t& z : linalg::eigvals(a).to_vector<complex128_t>())
      EXPECT_TRUE(std::isnan(z.re)) << bad;
    Tensor lower = tensor(std::vector<double>{1, 0, bad, 1}, {2, 2});  // eigh reads the lower triangle
    for (double v : linalg::eigvalsh(lower).to_vector<double>()) EXPECT_TRUE(std::isnan(v)) << bad;
    EXPECT_EQ(linalg::eigvalsh(a).to_vector<double>(), (std::vector<double>{1, 1}));  // not the upper one
  }
  // a NaN in b reaches every unknown, as in LAPACK
  Tensor x = linalg::solve(identity(3, DType::f64), tensor(std::vector<double>{nan, 1, 2}, {3, 1}));
  for (double v : x.to_vector<double>()) EXPECT_TRUE(std::isnan(v));
  // an infinite determinant keeps its sign
  linalg::Slogdet s = linalg::slogdet(tensor(std::vector<double>{-inf, 0, 0, 2}, {2, 2}));
  EXPECT_EQ(s.sign.item<double>(), -1.0);
  EXPECT_EQ(s.logabsdet.item<double>(), inf);
  EXPECT_TRUE(
      std::isnan(linalg::slogdet(tensor(std::vector<double>{nan, 0, 0, 2}, {2, 2})).sign.item<double>()));
}

TEST(LinalgGradients, MatchFiniteDifferences) {
  auto v = [](unsigned s) { return random_values(9, -1, 1, s); };
  auto shifted = [](const Tensor& x) { return x + 3.0 * identity(3, x.dtype()); };
  auto spd = [](const Tensor& x) { return matmul(x, x.transpose(-2, -1)) + 3.0 * identity(3, x.dtype()); };
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::inv(shifted(x[0])); }, {v(1)},
                         {{3, 3}}, "inv");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::solve(shifted(x[0]), x[1]); },
                         {v(2), random_values(6, -1, 1, 3)}, {{3, 3}, {3, 2}}, "solve");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::det(shifted(x[0])); }, {v(4)},
                         {{3, 3}}, "det");
  expect_gradients_match(
      [&](const std::vector<Tensor>& x) { return linalg::slogdet(shifted(x[0])).logabsdet; }, {v(5)},
      {{3, 3}}, "slogdet");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::cholesky(spd(x[0])); }, {v(6)},
                         {{3, 3}}, "cholesky");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::eigvalsh(spd(x[0])); }, {v(7)},
                         {{3, 3}}, "eigvalsh");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::svdvals(x[0]); }, {v(8)},
                         {{3, 3}}, "svdvals");
  // qr and svd (since 2026-12-07): Q and R; the singular vectors through |U| and |Vh| (their signs
  // are not determined), a wide matrix for the SVD's projection term
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::qr(shifted(x[0])).Q; }, {v(9)},
                         {{3, 3}}, "qr Q");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return linalg::qr(shifted(x[0])).R; }, {v(10)},
                         {{3, 3}}, "qr R");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return abs(linalg::svd(x[0], false).U); },
                         {random_values(6, -1, 1, 11)}, {{2, 3}}, "svd |U|");
  expect_gradients_match([&](const std::vector<Tensor>& x) { return abs(linalg::svd(x[0], false).Vh); },
                         {random_values(6, -1, 1, 12)}, {{2, 3}}, "svd |Vh|");
}

// det's gradient is the adjugate's (conjugate) transpose, which a singular matrix has too: until
// 2026-12-07 the backward raised inv's "the matrix is singular" there.
TEST(LinalgGradients, DetOfSingularMatricesHasTheAdjugateAsGradient) {
  // a stack: a regular matrix, one of rank 1 (adjugate [[4, -2], [-2, 1]]), and the zero matrix
  // (rank 0: adjugate 0)
  Tensor a = tensor(std::vector<double>{2, 1, 1, 3, 1, 2, 2, 4, 0, 0, 0, 0}, {3, 2, 2}).requires_grad(true);
  Tensor w = tensor(std::vector<double>{1, -2, 3}, {3});
  std::vector<double> g = grad(sum(linalg::det(a) * w), {a})[0].to_vector<double>();
  const std::vector<double> want{3, -1, -1, 2, -8, 4, 4, -2, 0, 0, 0, 0};  // w_b adj(A_b)^T
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g[i], want[i], 1e-12) << i;
  // complex, rank 1: d det(A) / dA = adj(A)^T, the gradient its conjugate (docs/autograd.md)
  Tensor re = tensor(std::vector<double>{1, 2, 0, 0}, {2, 2}),
         im = tensor(std::vector<double>{0, 0, 1, 2}, {2, 2});
  Tensor z = complex(re, im).requires_grad(true);  // rows (1, 2) and (i, 2i): singular
  Tensor gz = grad(sum(real(linalg::det(z))), {z})[0];
  // adj(Z) = [[2i, -2], [-i, 1]], adj^H = [[-2i, i], [-2, 1]]
  Tensor want_z = complex(tensor(std::vector<double>{0, 0, -2, 1}, {2, 2}),
                          tensor(std::vector<double>{-2, 1, 0, 0}, {2, 2}));
  EXPECT_LT(max_diff(gz, want_z), 1e-12);
}

TEST(LinalgGradients, ComplexCustomOpOutputsCarryGradients) {
  // A custom operator's complex outputs were left without a gradient record until 2026-12-05:
  // a loss through them gave no gradient at all.
  Tensor z = complex(tensor(std::vector<double>{2, 0, 0, 1}, {2, 2}),
                     tensor(std::vector<double>{0, 1, 0, 0}, {2, 2}))
                 .requires_grad(true);
  Tensor loss = sum(real(linalg::inv(z)));
  std::vector<Tensor> g = grad(loss, {z});
  // d/dz sum(Re(Z^-1)) = -(Z^-H) ones (Z^-H), the PyTorch convention (docs/autograd.md)
  Tensor zi = linalg::inv(z.detach());
  Tensor ones = full({2, 2}, 1.0, DType::c128);
  EXPECT_LT(max_diff(g[0], -matmul(matmul(mH(zi), ones), mH(zi))), 1e-12);
}

}  // namespace
}  // namespace cgrad
