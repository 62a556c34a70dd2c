// Composite ops built from primitives: softmax, log_softmax, cross_entropy (class indices and
// probabilities), mean, clamp, where with scalars; compared with references computed in double.
#include "util.h"

#include <cmath>
#include <limits>

namespace opt {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// |got - want| <= rtol * |want| + atol, NaN == NaN.
void expect_near_all(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                     double atol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (std::size_t k = 0; k < got.size() && reported < 5; ++k) {
    const bool ok = (std::isnan(got[k]) && std::isnan(want[k])) || got[k] == want[k] ||
                    std::fabs(got[k] - want[k]) <= rtol * std::fabs(want[k]) + atol;
    if (!ok) {
      ADD_FAILURE() << what << ": element " << k << ": got " << got[k] << ", want " << want[k];
      ++reported;
    }
  }
}

double rtol_of(DType t) { return t == f32 ? 4e-6 : 1e-13; }
// log_softmax subtracts log(sum) ~ log(1 + small): an absolute error of a few epsilon is inherent.
double atol_of(DType t) { return t == f32 ? 4 * 1.1920929e-07 : 4 * 2.220446049250313e-16; }

// softmax / log_softmax of logical (rows, cols) data along `axis` (0 or 1), in double.
std::vector<double> softmax_ref(const std::vector<double>& x, int64_t rows, int64_t cols, int axis,
                                bool log_form) {
  std::vector<double> out(x.size());
  const int64_t outer = axis == 1 ? rows : cols, inner = axis == 1 ? cols : rows;
  for (int64_t o = 0; o < outer; ++o) {
    auto at = [&](int64_t i) { return static_cast<std::size_t>(axis == 1 ? o * cols + i : i * cols + o); };
    double m = -kInf;
    for (int64_t i = 0; i < inner; ++i)
      m = std::isnan(x[at(i)]) || std::isnan(m) ? kNaN : std::max(m, x[at(i)]);
    double s = 0;
    for (int64_t i = 0; i < inner; ++i) s += std::exp(x[at(i)] - m);
    for (int64_t i = 0; i < inner; ++i)
      out[at(i)] = log_form ? (x[at(i)] - m) - std::log(s) : std::exp(x[at(i)] - m) / s;
  }
  return out;
}

TEST(Softmax, MatchesDoubleReference) {
  for (DType t : {f32, f64}) {
    Data d = random_data(t, 40, 3);
    for (auto& v : d.f) v = round_to(std::fmod(v, 50.0), t);
    d.f[3] = round_to(1000.0, t);  // large logits must not overflow
    d.f[4] = round_to(1001.0, t);
    d.f[9] = -kInf;  // a -inf logit gets probability 0
    Tensor x = make(d, Shape{5, 8});
    for (int axis : {0, 1}) {
      for (bool log_form : {false, true}) {
        for (int64_t given : {static_cast<int64_t>(axis), static_cast<int64_t>(axis - 2)}) {
          Tensor y = log_form ? log_softmax(x, given) : softmax(x, given);
          EXPECT_EQ(y.dtype(), t);
          EXPECT_EQ(y.shape(), (Shape{5, 8}));
          std::string what = std::string(log_form ? "log_softmax " : "softmax ") + dtype_name(t) + " axis " +
                             std::to_string(given);
          expect_near_all(y.to_vector<double>(), softmax_ref(d.f, 5, 8, axis, log_form), rtol_of(t),
                          log_form ? atol_of(t) : (t == f32 ? 1e-37 : 1e-300), what);
        }
      }
    }
    // Rows sum to one.
    Tensor s = sum(softmax(x, 1), {1});
    for (double v : s.to_vector<double>()) EXPECT_NEAR(v, 1.0, t == f32 ? 1e-5 : 1e-12);
  }
}

TEST(Softmax, EdgeCases) {
  // Default axis is the last; non-contiguous input; 3-D.
  Tensor x = tensor(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(softmax(x).to_vector<double>(), softmax(x, 1).to_vector<double>());
  std::vector<double> xt = {1, 4, 2, 5, 3, 6};
  expect_near_all(softmax(x.T(), 0).to_vector<double>(), softmax_ref(xt, 3, 2, 0, false), 1e-13, 0,
                  "transposed");
  Tensor x3 = tensor(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  auto v3 = softmax(x3, 1).to_vector<double>();
  const double lo = 1 / (1 + std::exp(2.0)), hi = 1 - lo;
  expect_near_all(v3, {lo, lo, hi, hi, lo, lo, hi, hi}, 1e-13, 0, "3-D axis 1");
  // Integer input computes in f32.
  Tensor xi = tensor(std::vector<int32_t>{0, 0, 0, 0}, {4});
  EXPECT_EQ(softmax(xi).dtype(), f32);
  EXPECT_EQ(softmax(xi).to_vector<float>(), (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
  EXPECT_EQ(log_softmax(xi).dtype(), f32);
  // A row of -inf has no defined distribution: NaN, as in PyTorch.
  auto r = softmax(tensor(std::vector<float>{-INFINITY, -INFINITY}, {2})).to_vector<float>();
  EXPECT_TRUE(std::isnan(r[0]) && std::isnan(r[1]));
  // Empty along the axis, empty elsewhere.
  EXPECT_EQ(softmax(zeros({3, 0}), 1).shape(), (Shape{3, 0}));
  EXPECT_EQ(softmax(zeros({0, 3}), 1).shape(), (Shape{0, 3}));
  EXPECT_EQ(log_softmax(zeros({0, 3}), 0).numel(), 0);
  // One-element axis: probability 1, log-probability 0.
  EXPECT_EQ(softmax(full({2, 1}, 7.0), 1).to_vector<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(log_softmax(full({2, 1}, 7.0), 1).to_vector<float>(), (std::vector<float>{0, 0}));
  // Errors.
  EXPECT_EQ(error_code([] { softmax(full({}, 1.0)); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([] { softmax(zeros({2, 3}), 2); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([] { log_softmax(zeros({2, 3}), -3); }), ErrorCode::InvalidArgument);
}

double ce_ref(const std::vector<double>& logits, int64_t n, int64_t c, const std::vector<int64_t>& target) {
  auto lsm = softmax_ref(logits, n, c, 1, true);
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = target[static_cast<std::size_t>(i)];
    if (k < 0 || k >= c) return kNaN;
    total += -lsm[static_cast<std::size_t>(i * c + k)];
  }
  return total / static_cast<double>(n);
}

TEST(CrossEntropy, ClassIndices) {
  for (DType t : {f32, f64}) {
    Data d = random_data(t, 24, 8);
    for (auto& v : d.f) v = round_to(std::fmod(v, 20.0), t);
    Tensor logits = make(d, Shape{4, 6});
    const std::vector<int64_t> target = {0, 5, 2, 2};
    Tensor y = cross_entropy(logits, tensor(target, {4}));
    EXPECT_EQ(y.dtype(), t);
    EXPECT_EQ(y.shape(), Shape{});
    expect_near_all({y.item<double>()}, {ce_ref(d.f, 4, 6, target)}, rtol_of(t), atol_of(t), "indices i64");
    Tensor y32 = cross_entropy(logits, tensor(std::vector<int32_t>{0, 5, 2, 2}, {4}));
    expect_near_all({y32.item<double>()}, {ce_ref(d.f, 4, 6, target)}, rtol_of(t), atol_of(t), "indices i32");
    // Out-of-range class index (too large, negative): NaN rather than a wrong number.
    EXPECT_TRUE(
        std::isnan(cross_entropy(logits, tensor(std::vector<int64_t>{0, 6, 2, 2}, {4})).item<double>()));
    EXPECT_TRUE(
        std::isnan(cross_entropy(logits, tensor(std::vector<int64_t>{0, 1, -1, 2}, {4})).item<double>()));
    // 1-D logits with a 0-d target.
    std::vector<double> row(d.f.begin(), d.f.begin() + 6);
    Tensor y1 = cross_entropy(make(d, Shape{6}), tensor(std::vector<int64_t>{3}, {}));
    expect_near_all({y1.item<double>()}, {ce_ref(row, 1, 6, {3})}, rtol_of(t), atol_of(t), "1-D logits");
  }
}

TEST(CrossEntropy, Probabilities) {
  std::vector<double> logits = {0.5, -1, 2, 0, 3, 1, -2, 0.25};
  std::vector<double> probs = {0.1, 0.2, 0.3, 0.4, 1, 0, 0, 0};
  Tensor y = cross_entropy(tensor(logits, {2, 4}), tensor(probs, {2, 4}));
  auto lsm = softmax_ref(logits, 2, 4, 1, true);
  double want = 0;
  for (std::size_t k = 0; k < 8; ++k) want -= probs[k] * lsm[k];
  want /= 2;
  expect_near_all({y.item<double>()}, {want}, 1e-13, 0, "probabilities f64");
  // One-hot probabilities equal class indices.
  Tensor onehot = tensor(std::vector<float>{0, 0, 1, 0, 1, 0, 0, 0}, {2, 4});
  Tensor lf = tensor(std::vector<float>(logits.begin(), logits.end()), {2, 4});
  EXPECT_NEAR(cross_entropy(lf, onehot).item<double>(),
              cross_entropy(lf, tensor(std::vector<int64_t>{2, 0}, {2})).item<double>(), 1e-6);
  // 1-D logits with 1-D probabilities.
  Tensor y1 =
      cross_entropy(tensor(std::vector<double>{1, 2}, {2}), tensor(std::vector<double>{0.5, 0.5}, {2}));
  const double l1 = std::log(std::exp(1.0) + std::exp(2.0));
  EXPECT_NEAR(y1.item<double>(), 0.5 * (l1 - 1) + 0.5 * (l1 - 2), 1e-13);
}

TEST(CrossEntropy, Errors) {
  Tensor logits = zeros({4, 6});
  std::string msg;
  EXPECT_EQ(error_code(
                [&] {
                  cross_entropy(logits, tensor(std::vector<int64_t>{0, 1, 2}, {3}));
                },
                &msg),
            ErrorCode::ShapeMismatch);
  EXPECT_NE(msg.find("cross_entropy"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(4, 6)"), std::string::npos) << msg;
  EXPECT_EQ(error_code([&] { cross_entropy(logits, zeros({4, 5})); }), ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] { cross_entropy(logits, zeros({4}, b8)); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([&] { cross_entropy(zeros({2, 3, 4}), zeros({2}, i64)); }), ErrorCode::ShapeMismatch);
  EXPECT_EQ(error_code([&] { cross_entropy(zeros({}), zeros({}, i64)); }), ErrorCode::ShapeMismatch);
}

TEST(Mean, AxesKeepdimAndDTypes) {
  for (DType t : {f32, f64}) {
    Data d = random_data(t, 24, 4);
    Tensor x = make(d, Shape{2, 3, 4});
    auto ref = [&](std::vector<bool> red) {
      Shape out{red[0] ? 1 : 2, red[1] ? 1 : 3, red[2] ? 1 : 4};
      std::vector<double> s(static_cast<std::size_t>(out[0] * out[1] * out[2]), 0.0);
      double count = 1;
      for (int q = 0; q < 3; ++q)
        if (red[static_cast<std::size_t>(q)]) count *= (Shape{2, 3, 4})[static_cast<std::size_t>(q)];
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j)
          for (int64_t k = 0; k < 4; ++k) {
            int64_t o = ((red[0] ? 0 : i) * out[1] + (red[1] ? 0 : j)) * out[2] + (red[2] ? 0 : k);
            s[static_cast<std::size_t>(o)] += d.f[static_cast<std::size_t>((i * 3 + j) * 4 + k)];
          }
      for (auto& v : s) v /= count;
      return s;
    };
    expect_near_all(mean(x).to_vector<double>(), ref({true, true, true}), rtol_of(t), 1e-30, "mean all");
    EXPECT_EQ(mean(x).shape(), Shape{});
    expect_near_all(mean(x, {1}).to_vector<double>(), ref({false, true, false}), rtol_of(t), 1e-30,
                    "mean axis 1");
    EXPECT_EQ(mean(x, {1}).shape(), (Shape{2, 4}));
    EXPECT_EQ(mean(x, {0, -1}, true).shape(), (Shape{1, 3, 1}));
    expect_near_all(x.mean({0, -1}, true).to_vector<double>(), ref({true, false, true}), rtol_of(t), 1e-30,
                    "mean axes 0, -1");
    EXPECT_EQ(mean(x).dtype(), t);
  }
  // Mean of nothing is NaN (0 / 0), as in NumPy and PyTorch.
  EXPECT_TRUE(std::isnan(mean(zeros({0})).item<float>()));
  EXPECT_EQ(mean(zeros({2, 0}), {1}).shape(), (Shape{2}));
  EXPECT_EQ(mean(zeros({0, 2}), {1}).shape(), (Shape{0}));
  EXPECT_EQ(mean(full({}, 3.0)).item<float>(), 3.0f);
  std::string msg;
  EXPECT_EQ(error_code([] { mean(zeros({3}, i32)); }, &msg), ErrorCode::DTypeMismatch);
  EXPECT_NE(msg.find("mean"), std::string::npos) << msg;
  EXPECT_EQ(error_code([] { mean(zeros({3}, b8)); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([] { mean(zeros({3}), {1}); }), ErrorCode::InvalidArgument);
}

TEST(Clamp, ScalarAndTensorBounds) {
  Tensor x = tensor(std::vector<float>{-3, -1, 0, 0.5f, 2, 7, NAN}, {7});
  auto v = clamp(x, -1, 2).to_vector<float>();
  std::vector<float> want = {-1, -1, 0, 0.5f, 2, 2, NAN};
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(v[k], want[k]) << k;
  EXPECT_TRUE(std::isnan(v[6])) << "NaN passes through";
  EXPECT_EQ(clamp(x, -1, 2).dtype(), f32);
  // lo > hi gives hi everywhere (PyTorch).
  auto inv = clamp(x.slice(0, 0, 6), 3.0, 1.0).to_vector<float>();
  EXPECT_EQ(inv, std::vector<float>(6, 1.0f));
  // Integer tensors stay integer with integer bounds; float bounds promote to f32.
  Tensor xi = tensor(std::vector<int32_t>{-5, 0, 5, INT32_MAX}, {4});
  EXPECT_EQ(clamp(xi, -2, 3).dtype(), i32);
  EXPECT_EQ(clamp(xi, -2, 3).to_vector<int32_t>(), (std::vector<int32_t>{-2, 0, 3, 3}));
  EXPECT_EQ(clamp(xi, -2.5, 3.5).dtype(), f32);
  EXPECT_EQ(clamp(xi, -2.5, 3.5).to_vector<float>(), (std::vector<float>{-2.5f, 0, 3.5f, 3.5f}));
  // Tensor bounds broadcast.
  Tensor m = tensor(std::vector<double>{0, 5, 10, 0, 5, 10}, {2, 3});
  Tensor lo = tensor(std::vector<double>{1, 2}, {2, 1});
  Tensor hi = tensor(std::vector<double>{9, 4, 6}, {3});
  EXPECT_EQ(clamp(m, lo, hi).to_vector<double>(), (std::vector<double>{1, 4, 6, 2, 4, 6}));
  EXPECT_EQ(error_code([&] {
              clamp(m, tensor(std::vector<double>{1, 2, 3}, {3, 1}), hi);
            }),
            ErrorCode::ShapeMismatch);
}

TEST(Where, ScalarsAndPromotion) {
  Tensor c = tensor(std::vector<bool>{true, false, true}, {3});
  Tensor xf = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor xi = tensor(std::vector<int32_t>{1, 2, 3}, {3});
  EXPECT_EQ(where(c, xf, 0.0).to_vector<float>(), (std::vector<float>{1, 0, 3}));
  EXPECT_EQ(where(c, xf, 0.0).dtype(), f32);
  EXPECT_EQ(where(c, -1, xi).to_vector<int32_t>(), (std::vector<int32_t>{-1, 2, -1}));
  EXPECT_EQ(where(c, -1, xi).dtype(), i32);
  EXPECT_EQ(where(c, xi, 2.5).dtype(), f32);
  EXPECT_EQ(where(c, xi, 2.5).to_vector<float>(), (std::vector<float>{1, 2.5f, 3}));
  EXPECT_EQ(where(c, xi, tensor(std::vector<int64_t>{7, 8, 9}, {3})).dtype(), i64);
  EXPECT_EQ(where(c, 1.5, 2.5).dtype(), f32);
  EXPECT_EQ(where(c, 1.5, 2.5).to_vector<float>(), (std::vector<float>{1.5f, 2.5f, 1.5f}));
  EXPECT_EQ(where(c, 1, 2).dtype(), i64);
  EXPECT_EQ(where(c, true, false).dtype(), b8);
  EXPECT_EQ(where(c, true, false).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(where(c.reshape({3, 1}), xf, xi.reshape({1, 3})).shape(), (Shape{3, 3}));
  // The condition takes no part in promotion and must be b8.
  EXPECT_EQ(error_code([&] { where(xi, xf, xf); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([&] { where(c, xf, zeros({2})); }), ErrorCode::ShapeMismatch);
}

// count_nonzero (a b8 sum), isclose and allclose (NumPy's rule) against loops.
TEST(Composite, CountNonzeroIscloseAllclose) {
  const std::vector<double> a{0, 1, -0.0, kNaN, kInf, -kInf, 1e-9, 2, 3, 0, 5, 6};
  const std::vector<double> b{0, 1 + 1e-6, 0, kNaN, kInf, kInf, 0, 2.1, 3, 1e-7, 5, 6};
  for (DType t : {f32, f64}) {
    Tensor x = tensor(a, {3, 4}).cast(t), y = tensor(b, {3, 4}).cast(t);
    EXPECT_EQ(count_nonzero(x).item<int64_t>(), 9);  // -0.0 and 0 are zero, NaN is not
    EXPECT_EQ(count_nonzero(x, {1}).to_vector<int64_t>(), (std::vector<int64_t>{2, 4, 3}));
    EXPECT_EQ(count_nonzero(x, {0}, true).shape(), (Shape{1, 4}));
    for (bool equal_nan : {false, true}) {
      std::vector<bool> want;
      for (std::size_t k = 0; k < a.size(); ++k) {
        const double p = static_cast<double>(t == f32 ? static_cast<float>(a[k]) : a[k]);
        const double q = static_cast<double>(t == f32 ? static_cast<float>(b[k]) : b[k]);
        want.push_back(p == q || (std::isfinite(q) && std::fabs(p - q) <= 1e-8 + 1e-5 * std::fabs(q)) ||
                       (equal_nan && std::isnan(p) && std::isnan(q)));
      }
      EXPECT_EQ(isclose(x, y, 1e-5, 1e-8, equal_nan).to_vector<bool>(), want) << dtype_name(t);
      EXPECT_FALSE(allclose(x, y, 1e-5, 1e-8, equal_nan).item<bool>());
    }
    EXPECT_TRUE(allclose(x.slice(1, 0, 1), y.slice(1, 0, 1)).item<bool>());  // 0 vs 0, 1 vs 1 + 1e-6, ...
    EXPECT_TRUE(allclose(x, x, 0, 0, true).item<bool>());
    EXPECT_FALSE(allclose(x, x).item<bool>());  // NaN is not close to NaN by default
    // an infinity is close to itself only: -inf, and every finite value, were close to inf
    Tensor inf = full({3}, kInf, t), other = tensor(std::vector<double>{-kInf, 0.5, 1e300}, {3}).cast(t);
    EXPECT_EQ(isclose(other, inf).to_vector<bool>(), (std::vector<bool>{false, false, t == f32}));
    EXPECT_FALSE(allclose(other.slice(0, 1, 2), inf.slice(0, 1, 2)).item<bool>());
  }
  // complex: by the modulus of the difference, as NumPy (raised a cast error until 2026-12-07)
  Tensor z =
      complex(tensor(std::vector<double>{1, 2, kNaN, 0}, {4}), tensor(std::vector<double>{1, -1, 0, 3}, {4}));
  Tensor w = complex(tensor(std::vector<double>{1, 2, kNaN, 1e-9}, {4}),
                     tensor(std::vector<double>{1, -1 - 1e-4, 0, 3 + 1e-9}, {4}));
  EXPECT_EQ(isclose(z, w).to_vector<bool>(), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(isclose(z, w, 1e-5, 1e-8, true).to_vector<bool>(), (std::vector<bool>{true, false, true, true}));
  EXPECT_TRUE(allclose(z.cast(c64), w.cast(c64), 1e-3, 1e-6, true).item<bool>());
  Tensor near_ints =
      complex(tensor(std::vector<double>{1, 2}, {2}), tensor(std::vector<double>{0, 1e-9}, {2}));
  EXPECT_TRUE(
      allclose(tensor(std::vector<int32_t>{1, 2}, {2}), near_ints).item<bool>());  // an integer and a complex
  Tensor i = tensor(std::vector<int32_t>{0, 3, 0, -2}, {4});
  EXPECT_EQ(count_nonzero(i).item<int64_t>(), 2);
  // integers compare in f64: |i - (i + 1)| = 1 <= 0.1 + 0.5 * |i + 1| only for i = 3
  EXPECT_EQ(isclose(i, i + 1, 0.5, 0.1).to_vector<bool>(), (std::vector<bool>{false, true, false, false}));
}

}  // namespace
}  // namespace opt
