// cgrad::et reductions: values, float accumulation in double, rank-0 arithmetic, and the rule
// that a reduction inside an element-wise expression is prepared before the fused loop.
#include <cgrad/et.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace et = cgrad::et;

namespace {

et::Vector<double> ramp(std::size_t n, double scale, double shift) {
  et::Vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.01 * static_cast<double>(i)) + shift;
  return v;
}

TEST(EtReduce, ValuesMatchPlainLoops) {
  for (std::size_t n : {std::size_t{1}, std::size_t{777}, et::kParallelThreshold * 2 + 5}) {
    const auto a = ramp(n, 2.0, -0.3);
    const auto b = ramp(n, -1.0, 0.7);
    double s = 0, d = 0, sq = 0, mx = -INFINITY, mn = INFINITY, ni = 0;
    for (std::size_t i = 0; i < n; ++i) {
      s += a[i];
      sq += a[i] * a[i] + 1.0;
      d += a[i] * b[i];
      mx = std::max(mx, a[i]);
      mn = std::min(mn, a[i]);
      ni = std::max(ni, std::fabs(a[i] - b[i]));
    }
    const double tol = 1e-12 * static_cast<double>(n);
    EXPECT_NEAR(et::sum(a), s, tol) << n;
    EXPECT_NEAR(et::dot(a, b), d, tol) << n;
    EXPECT_EQ(static_cast<double>(et::max(a)), mx) << n;
    EXPECT_EQ(static_cast<double>(et::min(a)), mn) << n;
    EXPECT_EQ(static_cast<double>(et::norm_inf(a - b)), ni) << n;
    EXPECT_NEAR(et::sum(a * a + 1.0), sq, tol) << n;
  }
}

TEST(EtReduce, EmptyVectors) {
  const et::Vector<double> e;
  EXPECT_EQ(static_cast<double>(et::sum(e)), 0.0);
  EXPECT_EQ(static_cast<double>(et::norm_inf(e)), 0.0);
  EXPECT_EQ(static_cast<double>(et::max(e)), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(static_cast<double>(et::min(e)), std::numeric_limits<double>::infinity());
}

TEST(EtReduce, MaxPropagatesNaN) {
  const et::Vector<double> a{1.0, std::nan(""), 3.0};
  EXPECT_TRUE(std::isnan(static_cast<double>(et::max(a))));
  EXPECT_TRUE(std::isnan(static_cast<double>(et::norm_inf(a))));
}

TEST(EtReduce, FloatSumsAccumulateInDouble) {
  const std::size_t n = 1000000;
  const et::Vector<float> f(n, 0.1f);
  double exact = 0;  // exact: every partial sum of 0.1f values fits in a double here
  float naive = 0;
  for (std::size_t i = 0; i < n; ++i) {
    exact += static_cast<double>(f[i]);
    naive += f[i];
  }
  const float s = et::sum(f);
  EXPECT_EQ(s, static_cast<float>(exact));
  EXPECT_NE(naive, static_cast<float>(exact));  // the float accumulator drifts; et's does not
  const float d = et::dot(f, f);
  EXPECT_FLOAT_EQ(
      d, static_cast<float>(static_cast<double>(0.1f) * static_cast<double>(0.1f) * static_cast<double>(n)));
}

TEST(EtReduce, RankZeroArithmeticConverts) {
  const et::Vector<double> a{1, 2, 3, 4};
  const double mean = et::sum(a) / 4;
  EXPECT_EQ(mean, 2.5);
  const double rms = et::sqrt(et::dot(a, a) / 4.0);
  EXPECT_DOUBLE_EQ(rms, std::sqrt(7.5));
  EXPECT_TRUE(et::max(a) > 3.5);
  const double ratio = et::max(a) / et::min(a) - 1;
  EXPECT_EQ(ratio, 3.0);
  EXPECT_EQ(et::sum(a).value(), 10.0);
}

TEST(EtReduce, ReductionFillsAVector) {
  const et::Vector<double> a{1, 2, 3};
  et::Vector<double> v(5);
  v = et::sum(a) * 2;
  for (double x : v) EXPECT_EQ(x, 12.0);
}

TEST(EtReduce, PreparedBeforeTheLoopOnePassEach) {
  const std::size_t n = 1000;
  const auto a = ramp(n, 3.0, 0.5);
  et::Vector<double> v(n);
  et::reset_stats();
  v = a / et::norm_inf(a);
  EXPECT_EQ(et::stats().reductions, 1u);
  EXPECT_EQ(et::stats().loops, 1u);
  double m = 0;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i]));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(v[i], a[i] / m);

  et::reset_stats();
  v = (a - et::sum(a) / static_cast<double>(n)) / et::sqrt(et::dot(a, a));  // two reductions, one loop
  EXPECT_EQ(et::stats().reductions, 2u);
  EXPECT_EQ(et::stats().loops, 1u);
}

TEST(EtReduce, ReductionOverTheDestinationSeesOldValues) {
  for (std::size_t n : {std::size_t{100}, et::kParallelThreshold + 1}) {
    auto a = ramp(n, 3.0, 0.5);
    const auto old = a;
    a = a / et::norm_inf(a);  // if the reduction ran during the loop, later elements would see new values
    EXPECT_EQ(static_cast<double>(et::norm_inf(a)), 1.0) << n;
    const double m = et::norm_inf(old);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(a[i], old[i] / m);

    a = a - et::sum(a) / static_cast<double>(n);  // centering in place
    EXPECT_NEAR(et::sum(a), 0.0, 1e-9) << n;
  }
}

TEST(EtReduce, SizeMismatchInsideAReductionThrows) {
  const et::Vector<double> a(3), b(4);
  try {
    const double d = et::dot(a, b);
    ADD_FAILURE() << "no throw, got " << d;
  } catch (const cgrad::Error& e) {
    EXPECT_EQ(e.code(), cgrad::ErrorCode::ShapeMismatch);
    EXPECT_NE(std::string(e.what()).find('3'), std::string::npos);
    EXPECT_NE(std::string(e.what()).find('4'), std::string::npos);
  }
}

}  // namespace
