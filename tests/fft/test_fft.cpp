// cgrad::fft: the transform equals the DFT's definition (evaluated in long double) for every
// length up to 70 and for lengths past the largest radix (Bluestein's path); each function's
// inverse undoes it; norms scale as documented; bad arguments raise and leave the input as it
// was; gradients match finite differences. NumPy is the oracle of tests/python/test_fft.py.
#include "../autograd/gradcheck.h"
#include "fft/host.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>
#include <cgrad/scalar.hpp>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace cgrad {
namespace {

using test::expect_gradients_match;
using test::random_values;

// max |a - b|, read as c128
double max_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  std::vector<complex128_t> d = (a.cast(DType::c128) - b.cast(DType::c128)).to_vector<complex128_t>();
  double m = 0;
  for (const complex128_t& z : d) m = std::max(m, std::hypot(z.re, z.im));
  return m;
}

Tensor random_complex(Shape s, unsigned seed) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return complex(tensor(random_values(static_cast<std::size_t>(n), -1, 1, seed), s),
                 tensor(random_values(static_cast<std::size_t>(n), -1, 1, seed + 100), s));
}

Tensor random_real(Shape s, unsigned seed) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return tensor(random_values(static_cast<std::size_t>(n), -1, 1, seed), s);
}

// X_k = sum_j x_j exp(-+2 pi i j k / n) of a 1-D c128 tensor, in long double
Tensor dft(const Tensor& x, bool inverse) {
  std::vector<complex128_t> v = x.to_vector<complex128_t>(), out;
  const auto n = static_cast<int64_t>(v.size());
  for (int64_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (int64_t j = 0; j < n; ++j) {
      const long double a =
          (inverse ? 2 : -2) * std::numbers::pi_v<long double> * static_cast<long double>((j * k) % n) / n;
      re += v[j].re * std::cos(a) - v[j].im * std::sin(a);
      im += v[j].re * std::sin(a) + v[j].im * std::cos(a);
    }
    out.emplace_back(static_cast<double>(re), static_cast<double>(im));
  }
  return tensor(out, {n});
}

TEST(Fft, MatchesTheDefinitionForEveryPath) {
  std::vector<int64_t> lengths;
  for (int64_t n = 1; n <= 70; ++n) lengths.push_back(n);
  for (int64_t n : {97, 128, 210, 243, 625, 1009, 4 * 37})  // primes past 31: Bluestein
    lengths.push_back(n);
  for (int64_t n : lengths) {
    const Tensor x = random_complex({n}, static_cast<unsigned>(n));
    const double scale = std::sqrt(static_cast<double>(n));
    EXPECT_LT(max_diff(fft::fft(x), dft(x, false)), 1e-13 * scale * 4) << "n = " << n;
    EXPECT_LT(max_diff(fft::ifft(x) * static_cast<double>(n), dft(x, true)), 1e-13 * scale * 4)
        << "n = " << n;
  }
}

// the values of a and b, each evaluated on its own (a fused a - b may contract a product into
// an FMA: docs/semantics.md), read as c128
std::vector<complex128_t> values(const Tensor& t) { return t.cast(DType::c128).to_vector<complex128_t>(); }
bool same_bits(const Tensor& a, const Tensor& b) {
  const std::vector<complex128_t> x = values(a), y = values(b);
  if (x.size() != y.size()) return false;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i].re != y[i].re || x[i].im != y[i].im) return false;
  return true;
}

TEST(Fft, ABatchGivesEachLineTheBitsOfItsOwnTransform) {
  // lines are transformed 4 or 2 at a time where the plan allows (the widest build the CPU runs,
  // then 2; 19 rows: four groups of 4, one of 2 and one alone, or nine of 2) and split among
  // threads; a line alone of 4096 points or more whose first radix is 4 (5000) or 2 (4374 = 2
  // 3^7) runs that stage's sub-transforms as lanes. None of it may change a bit of any line's result
  for (int lanes : {0, 2}) {
    fft::host::set_max_lanes(lanes);
    for (int64_t n : {1000, 64, 97, 15, 5000, 4374}) {
      const Tensor x = random_complex({19, n}, static_cast<unsigned>(n) + 7);
      const Tensor r = random_real({19, 2 * n}, static_cast<unsigned>(n) + 8);
      const Tensor all = fft::fft(x), rall = fft::rfft(r), iall = fft::irfft(x, 2 * n - 2);
      const Tensor oall = fft::irfft(x, 2 * n - 1);
      for (int64_t i = 0; i < 19; ++i) {
        const std::string at =
            std::to_string(lanes) + " lanes, n " + std::to_string(n) + " row " + std::to_string(i);
        EXPECT_TRUE(same_bits(all.slice(0, i, i + 1), fft::fft(x.slice(0, i, i + 1)))) << at;
        EXPECT_TRUE(same_bits(rall.slice(0, i, i + 1), fft::rfft(r.slice(0, i, i + 1)))) << at;
        EXPECT_TRUE(same_bits(iall.slice(0, i, i + 1), fft::irfft(x.slice(0, i, i + 1), 2 * n - 2))) << at;
        EXPECT_TRUE(same_bits(oall.slice(0, i, i + 1), fft::irfft(x.slice(0, i, i + 1), 2 * n - 1))) << at;
      }
    }
  }
  fft::host::set_max_lanes(0);
}

TEST(Fft, ColumnsGiveTheBitsOfEachColumnAlone) {
  // lines along an axis other than the last are copied in blocks of neighbouring lines before
  // and after their transforms (37 columns: two whole blocks and a part); a transposed input
  // reads its lines in place but writes them strided. No bit may change.
  for (int64_t n : {64, 97, 15, 1000}) {
    const Tensor x = random_complex({n, 37}, static_cast<unsigned>(n) + 9);
    const Tensor r = random_real({2 * n, 37}, static_cast<unsigned>(n) + 10);
    const Tensor xt = random_complex({37, n}, static_cast<unsigned>(n) + 11).transpose(0, 1);
    const Tensor all = fft::fft(x, {}, 0), rall = fft::rfft(r, {}, 0), iall = fft::irfft(x, 2 * n - 1, 0);
    const Tensor tall = fft::ifft(xt, {}, 0);
    for (int64_t j : {0, 15, 16, 31, 32, 36}) {
      auto col = [j](const Tensor& t) { return t.slice(1, j, j + 1); };
      EXPECT_TRUE(same_bits(col(all), fft::fft(col(x), {}, 0))) << n << " column " << j;
      EXPECT_TRUE(same_bits(col(rall), fft::rfft(col(r), {}, 0))) << n << " column " << j;
      EXPECT_TRUE(same_bits(col(iall), fft::irfft(col(x), 2 * n - 1, 0))) << n << " column " << j;
      EXPECT_TRUE(same_bits(col(tall), fft::ifft(col(xt), {}, 0))) << n << " column " << j;
    }
    EXPECT_LT(max_diff(fft::fftn(x), fft::fft(fft::fft(x, {}, 1), {}, 0)), 1e-12 * static_cast<double>(n));
  }
}

TEST(Fft, InversesUndoTheirTransforms) {
  const Tensor z = random_complex({3, 10, 7}, 1);
  const Tensor r = random_real({3, 10, 7}, 2);
  for (const char* norm : {"backward", "ortho", "forward"}) {
    EXPECT_LT(max_diff(fft::ifft(fft::fft(z, {}, 1, norm), {}, 1, norm), z), 1e-14) << norm;
    EXPECT_LT(max_diff(fft::ifftn(fft::fftn(z, {}, {}, norm), {}, {}, norm), z), 1e-14) << norm;
    EXPECT_LT(max_diff(fft::irfft(fft::rfft(r, {}, 1, norm), 10, 1, norm), r), 1e-14) << norm;
    EXPECT_LT(max_diff(fft::irfft(fft::rfft(r, {}, -1, norm), 7, -1, norm), r), 1e-14) << norm;  // odd
    EXPECT_LT(max_diff(fft::hfft(fft::ihfft(r, {}, 1, norm), 10, 1, norm), r), 1e-14) << norm;
    const std::vector<int64_t> axes{0, 2};
    EXPECT_LT(max_diff(fft::irfftn(fft::rfftn(r, {}, axes, norm), std::vector<int64_t>{3, 7}, axes, norm), r),
              1e-14)
        << norm;
  }
}

TEST(Fft, RealTransformsAreTheComplexOnesHalved) {
  const Tensor r = random_real({4, 9}, 3);
  const Tensor full = fft::fft(r);
  EXPECT_EQ(full.dtype(), DType::c128);
  EXPECT_LT(max_diff(fft::rfft(r), full.slice(1, 0, 5)), 1e-14);
  EXPECT_LT(max_diff(fft::rfftn(r), fft::fftn(r).slice(1, 0, 5)), 1e-13);
  // the n-d transform is the 1-d one along each axis in turn; n pads with zeros and cuts
  EXPECT_LT(max_diff(fft::fftn(r), fft::fft(fft::fft(r, {}, 0), {}, 1)), 1e-13);
  EXPECT_LT(max_diff(fft::fft(r, 12), fft::fft(cat({r, zeros({4, 3}, DType::f64)}, 1))), 1e-14);
  EXPECT_LT(max_diff(fft::fft(r, 5), fft::fft(r.slice(1, 0, 5))), 1e-14);
  // f32 in, c64 out; irfft of c64 gives f32
  EXPECT_EQ(fft::rfft(r.cast(DType::f32)).dtype(), DType::c64);
  EXPECT_EQ(fft::irfft(fft::rfft(r.cast(DType::f32))).dtype(), DType::f32);
  // ortho is unitary: Parseval
  const Tensor y = fft::fft(r, {}, -1, "ortho");
  EXPECT_NEAR(sum(real(y * conj(y))).item<double>(), sum(r * r).item<double>(), 1e-12);
}

TEST(Fft, FrequenciesAndShifts) {
  EXPECT_EQ(fft::fftfreq(5, 0.5, DType::f64).to_vector<double>(),
            (std::vector<double>{0, 0.4, 0.8, -0.8, -0.4}));
  EXPECT_EQ(fft::fftfreq(4, 1.0, DType::f64).to_vector<double>(),
            (std::vector<double>{0, 0.25, -0.5, -0.25}));
  EXPECT_EQ(fft::rfftfreq(5, 0.5, DType::f64).to_vector<double>(), (std::vector<double>{0, 0.4, 0.8}));
  EXPECT_EQ(fft::fftfreq(3).dtype(), DType::f32);
  const Tensor f = fft::fftfreq(5, 1.0, DType::f64);
  EXPECT_EQ(fft::fftshift(f).to_vector<double>(), (std::vector<double>{-0.4, -0.2, 0, 0.2, 0.4}));
  EXPECT_EQ(fft::ifftshift(fft::fftshift(f)).to_vector<double>(), f.to_vector<double>());
  const Tensor m = arange(12, DType::f64).reshape({3, 4});
  EXPECT_EQ(fft::fftshift(m, std::vector<int64_t>{1}).to_vector<double>(),
            (std::vector<double>{2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9}));
  EXPECT_EQ(fft::fftshift(m).to_vector<double>(),
            (std::vector<double>{10, 11, 8, 9, 2, 3, 0, 1, 6, 7, 4, 5}));
}

TEST(FftErrors, BadArgumentsRaiseAndLeaveTheInput) {
  const Tensor r = random_real({2, 4}, 4);
  const std::vector<double> before = r.to_vector<double>();
  auto expect_code = [](auto f, ErrorCode code, const char* what) {
    try {
      f();
      ADD_FAILURE() << what << " did not raise";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << what << ": " << e.what();
    }
  };
  expect_code([&] { fft::fft(r, 0); }, ErrorCode::InvalidArgument, "n = 0");
  expect_code([&] { fft::fft(r, {}, 2); }, ErrorCode::InvalidArgument, "axis 2 of a 2-d tensor");
  expect_code([&] { fft::fft(r, {}, -1, "sideways"); }, ErrorCode::InvalidArgument, "norm");
  expect_code(
      [&] {
        fft::fft(tensor(std::vector<int32_t>{1, 2}, {2}));
      },
      ErrorCode::DTypeMismatch, "integers");
  expect_code([&] { fft::rfft(fft::fft(r)); }, ErrorCode::DTypeMismatch, "rfft of complex");
  expect_code([&] { fft::irfft(r.slice(1, 0, 1)); }, ErrorCode::InvalidArgument, "irfft of 1 point");
  expect_code(
      [&] {
        fft::fftn(r, std::vector<int64_t>{2, 2}, std::vector<int64_t>{1});
      },
      ErrorCode::InvalidArgument, "s and axes of different lengths");
  expect_code(
      [&] {
        fft::fftn(r, {}, std::vector<int64_t>{1, -1});
      },
      ErrorCode::InvalidArgument, "repeated axes");
  expect_code([&] { fft::rfftn(r, {}, std::vector<int64_t>{}); }, ErrorCode::InvalidArgument,
              "rfftn of no axes");
  expect_code([&] { fft::fftfreq(0); }, ErrorCode::InvalidArgument, "fftfreq(0)");
  expect_code([&] { fft::fftfreq(4, 1.0, DType::i32); }, ErrorCode::DTypeMismatch, "integer fftfreq");
  EXPECT_EQ(r.to_vector<double>(), before);
}

// the real and imaginary parts of a complex result in one real tensor, for the gradient checks
Tensor parts(const Tensor& z) { return real(z) + 2.0 * imag(z); }

TEST(FftGradients, MatchFiniteDifferences) {
  auto v = [](unsigned s) { return random_values(12, -1, 1, s); };
  expect_gradients_match([](const std::vector<Tensor>& x) { return parts(fft::fft(x[0], 7)); }, {v(1)},
                         {{2, 6}}, "fft");
  expect_gradients_match(
      [](const std::vector<Tensor>& x) { return parts(fft::ifft(complex(x[0], x[1]), {}, 0)); }, {v(2), v(3)},
      {{4, 3}, {4, 3}}, "ifft of complex");
  expect_gradients_match([](const std::vector<Tensor>& x) { return parts(fft::rfft(x[0], {}, -1, "ortho")); },
                         {v(4)}, {{2, 6}}, "rfft");
  expect_gradients_match([](const std::vector<Tensor>& x) { return fft::irfft(complex(x[0], x[1]), 9); },
                         {v(5), v(6)}, {{3, 4}, {3, 4}}, "irfft");
  expect_gradients_match([](const std::vector<Tensor>& x) { return fft::hfft(complex(x[0], x[1])); },
                         {v(7), v(8)}, {{3, 4}, {3, 4}}, "hfft");
  expect_gradients_match(
      [](const std::vector<Tensor>& x) { return parts(fft::fftn(x[0], {}, {}, "forward")); }, {v(9)},
      {{3, 4}}, "fftn");
  expect_gradients_match([](const std::vector<Tensor>& x) { return fft::irfftn(complex(x[0], x[1])); },
                         {v(10), v(11)}, {{3, 4}, {3, 4}}, "irfftn");
}

}  // namespace
}  // namespace cgrad
