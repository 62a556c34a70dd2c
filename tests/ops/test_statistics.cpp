// var / std (two-pass, with correction) against loops in double written here; on the JIT also the
// kernel count of a variance (one staged row kernel on the CPU).
#include "util.h"

#include <cmath>
#include <limits>

namespace opt {
namespace {

// var of logical (rows, cols) data along `axis` (0, 1, or -1 for all), in double.
std::vector<double> var_ref(const std::vector<double>& x, int64_t rows, int64_t cols, int axis, double corr) {
  auto at = [&](int64_t r, int64_t c) { return x[static_cast<std::size_t>(r * cols + c)]; };
  auto one = [&](const std::vector<double>& v) {
    double m = 0;
    for (double e : v) m += e;
    m /= static_cast<double>(v.size());
    double s = 0;
    for (double e : v) s += (e - m) * (e - m);
    return s / std::max(static_cast<double>(v.size()) - corr, 0.0);
  };
  std::vector<double> out;
  if (axis < 0) return {one(x)};
  const int64_t outer = axis == 1 ? rows : cols, inner = axis == 1 ? cols : rows;
  for (int64_t o = 0; o < outer; ++o) {
    std::vector<double> v;
    for (int64_t i = 0; i < inner; ++i) v.push_back(axis == 1 ? at(o, i) : at(i, o));
    out.push_back(one(v));
  }
  return out;
}

void expect_near(const Data& got, const std::vector<double>& want, double rtol, const std::string& what) {
  ASSERT_EQ(got.f.size(), want.size()) << what;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const bool ok = (std::isnan(got.f[k]) && std::isnan(want[k])) || got.f[k] == want[k] ||
                    std::fabs(got.f[k] - want[k]) <= rtol * std::fabs(want[k]) + 1e-300;
    EXPECT_TRUE(ok) << what << ": element " << k << ": got " << got.f[k] << ", want " << want[k];
  }
}

TEST(Var, MatchesTwoPassReference) {
  for (DType t : {f32, f64, f16, bf16}) {
    Data d = random_data(t, 6 * 7, 11);
    for (auto& v : d.f) v = round_to(std::fmod(v, 8.0), t);
    Tensor x = make(d, Shape{6, 7});
    const double rtol = t == f64 ? 1e-12 : t == f32 ? 1e-5 : 2e-2;
    for (int axis : {0, 1, -1})
      for (double corr : {0.0, 1.0, 2.5}) {
        std::vector<int64_t> axes;
        if (axis >= 0) axes = {axis == 1 ? -1 : 0};  // a negative axis too
        const std::string what =
            std::string(dtype_name(t)) + " axis " + std::to_string(axis) + " corr " + std::to_string(corr);
        Tensor v = var(x, axes, corr);
        EXPECT_EQ(v.dtype(), t) << what;
        std::vector<double> want = var_ref(d.f, 6, 7, axis, corr);
        expect_near(read(v.cast(f64)), want, rtol, what);
        for (auto& w : want) w = std::sqrt(w);
        expect_near(read(cgrad::std(x, axes, corr).cast(f64)), want, rtol, "std " + what);
      }
  }
}

TEST(Var, KeepdimsShape) {
  Tensor x = full({2, 3, 4}, 1.0, f32);
  EXPECT_EQ(var(x, {1}, 0.0, true).shape(), (Shape{2, 1, 4}));
  EXPECT_EQ(var(x, {0, 2}).shape(), (Shape{3}));
  EXPECT_EQ(cgrad::std(x).shape(), (Shape{}));
}

// A large mean against a small spread: E[x^2] - E[x]^2 would lose every digit in f32.
TEST(Var, TwoPassIsStable) {
  std::vector<float> v;
  for (int k = 0; k < 1000; ++k) v.push_back(1.0e4f + static_cast<float>(k % 2));  // var 0.25
  Tensor x = tensor(v, Shape{1000});
  EXPECT_NEAR(var(x).item<float>(), 0.25f, 1e-3f);
}

// correction >= N divides by zero: inf where the deviations are not all zero, NaN where they are
// (NumPy's result); an empty reduction is NaN.
TEST(Var, CorrectionAtLeastCountAndEmpty) {
  Tensor x = tensor(std::vector<double>{1, 2}, Shape{2});
  EXPECT_TRUE(std::isinf(var(x, {}, 2.0).item<double>()));
  EXPECT_TRUE(std::isinf(var(x, {}, 5.0).item<double>()));
  Tensor c = tensor(std::vector<double>{3, 3}, Shape{2});
  EXPECT_TRUE(std::isnan(var(c, {}, 2.0).item<double>()));
  EXPECT_TRUE(std::isnan(var(full({0}, 0.0, f64)).item<double>()));
}

TEST(Var, RejectsNonFloatAndBadCorrection) {
  std::string msg;
  EXPECT_EQ(error_code([] { (void)var(full({3}, 1.0, i32)); }, &msg), ErrorCode::DTypeMismatch);
  EXPECT_NE(msg.find("not floating"), std::string::npos) << msg;
  EXPECT_EQ(error_code([] { (void)cgrad::std(full({3}, 1.0, b8)); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([] { (void)var(full({3}, 1.0, f32), {}, -1.0); }), ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace opt
