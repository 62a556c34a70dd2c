// Every element-wise op and function of cgrad::et against a plain loop, for float and double,
// below and above the parallel threshold, with scalars on either side.
#include <cgrad/et.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace et = cgrad::et;

namespace {

template <class T>
et::Vector<T> make(std::size_t n, double lo, double hi, double phase) {
  et::Vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>(lo + (hi - lo) * (0.5 + 0.5 * std::sin(phase + 0.37 * static_cast<double>(i))));
  return v;
}

// The reference loops use <cmath>; cgrad::scalar's exp is its own (<= 2 ulp, vectorizable)
// implementation, so results may differ by a few ulps, more after cancellation ("mix").
template <class T>
void expect_equal(const et::Vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const T tol = 16 * std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
    } else {
      ASSERT_NEAR(got[i], want[i], tol * std::max(T(1), std::fabs(want[i]))) << what << " at " << i;
    }
  }
}

template <class T>
class EtOps : public ::testing::Test {};
using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(EtOps, ElementTypes);

// Sizes: small (plain loop) and past kParallelThreshold (OpenMP loop when compiled with it).
const std::size_t kSizes[] = {1, 1000, et::kParallelThreshold + 13};

TYPED_TEST(EtOps, UnaryFunctionsMatchPlainLoop) {
  using T = TypeParam;
  for (std::size_t n : kSizes) {
    const auto pos = make<T>(n, 0.25, 3.0, 0.1);  // domain of log, sqrt, rsqrt
    const auto any = make<T>(n, -3.0, 3.0, 0.7);
    struct Case {
      const char* name;
      std::function<void(et::Vector<T>&, const et::Vector<T>&)> run;
      std::function<T(T)> ref;
      bool positive;
    };
    const Case cases[] = {
        {"neg", [](auto& o, const auto& x) { o = -x; }, [](T x) { return -x; }, false},
        {"exp", [](auto& o, const auto& x) { o = et::exp(x); }, [](T x) { return std::exp(x); }, false},
        {"log", [](auto& o, const auto& x) { o = et::log(x); }, [](T x) { return std::log(x); }, true},
        {"sqrt", [](auto& o, const auto& x) { o = et::sqrt(x); }, [](T x) { return std::sqrt(x); }, true},
        {"rsqrt", [](auto& o, const auto& x) { o = et::rsqrt(x); }, [](T x) { return T(1) / std::sqrt(x); },
         true},
        {"abs", [](auto& o, const auto& x) { o = et::abs(x); }, [](T x) { return std::fabs(x); }, false},
        {"sin", [](auto& o, const auto& x) { o = et::sin(x); }, [](T x) { return std::sin(x); }, false},
        {"cos", [](auto& o, const auto& x) { o = et::cos(x); }, [](T x) { return std::cos(x); }, false},
        {"tanh", [](auto& o, const auto& x) { o = et::tanh(x); }, [](T x) { return std::tanh(x); }, false},
        {"sigmoid", [](auto& o, const auto& x) { o = et::sigmoid(x); },
         [](T x) { return T(1) / (T(1) + std::exp(-x)); }, false},
        {"relu", [](auto& o, const auto& x) { o = et::relu(x); }, [](T x) { return x < T(0) ? T(0) : x; },
         false},
    };
    for (const Case& c : cases) {
      const et::Vector<T>& in = c.positive ? pos : any;
      et::Vector<T> out;
      c.run(out, in);
      std::vector<T> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = c.ref(in[i]);
      expect_equal(out, want, std::string(c.name) + " n=" + std::to_string(n));
    }
  }
}

TYPED_TEST(EtOps, BinaryOpsMatchPlainLoop) {
  using T = TypeParam;
  for (std::size_t n : kSizes) {
    const auto a = make<T>(n, 0.5, 2.0, 0.3);
    const auto b = make<T>(n, -1.5, 1.5, 1.9);
    struct Case {
      const char* name;
      std::function<void(et::Vector<T>&)> run;
      std::function<T(T, T)> ref;
    };
    const Case cases[] = {
        {"a+b", [&](auto& o) { o = a + b; }, [](T x, T y) { return x + y; }},
        {"a-b", [&](auto& o) { o = a - b; }, [](T x, T y) { return x - y; }},
        {"a*b", [&](auto& o) { o = a * b; }, [](T x, T y) { return x * y; }},
        {"b/a", [&](auto& o) { o = b / a; }, [](T x, T y) { return y / x; }},
        {"pow(a,b)", [&](auto& o) { o = et::pow(a, b); }, [](T x, T y) { return std::pow(x, y); }},
        {"maximum(a,b)", [&](auto& o) { o = et::maximum(a, b); }, [](T x, T y) { return x < y ? y : x; }},
        {"minimum(a,b)", [&](auto& o) { o = et::minimum(a, b); }, [](T x, T y) { return y < x ? y : x; }},
        // scalars on either side, converted to T (int, double and float scalars)
        {"2*a+b", [&](auto& o) { o = 2 * a + b; }, [](T x, T y) { return T(2) * x + y; }},
        {"a*0.5-b/4", [&](auto& o) { o = a * 0.5 - b / 4; }, [](T x, T y) { return x * T(0.5) - y / T(4); }},
        {"1-a", [&](auto& o) { o = 1.0f - a; }, [](T x, T) { return T(1) - x; }},
        {"3/a", [&](auto& o) { o = 3.0 / a; }, [](T x, T) { return T(3) / x; }},
        {"a+1.25", [&](auto& o) { o = a + 1.25; }, [](T x, T) { return x + T(1.25); }},
        {"pow(a,2)", [&](auto& o) { o = et::pow(a, 2); }, [](T x, T) { return std::pow(x, T(2)); }},
        {"pow(2,b)", [&](auto& o) { o = et::pow(2.0, b); }, [](T, T y) { return std::pow(T(2), y); }},
        {"maximum(b,0)", [&](auto& o) { o = et::maximum(b, 0); }, [](T, T y) { return y < T(0) ? T(0) : y; }},
        {"minimum(1,b)", [&](auto& o) { o = et::minimum(1, b); }, [](T, T y) { return y < T(1) ? y : T(1); }},
        // a deeper tree mixing everything: still one loop
        {"mix", [&](auto& o) { o = -(a * b) + et::exp(b) / (a + 1) - et::sqrt(a) * et::tanh(b - 0.5); },
         [](T x, T y) { return -(x * y) + std::exp(y) / (x + T(1)) - std::sqrt(x) * std::tanh(y - T(0.5)); }},
    };
    for (const Case& c : cases) {
      et::Vector<T> out;
      c.run(out);
      std::vector<T> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = c.ref(a[i], b[i]);
      expect_equal(out, want, std::string(c.name) + " n=" + std::to_string(n));
    }
  }
}

TYPED_TEST(EtOps, CompoundAssignment) {
  using T = TypeParam;
  const auto a = make<T>(100, 0.5, 2.0, 0.3);
  auto v = make<T>(100, -1.0, 1.0, 0.9);
  const auto v0 = v;
  v += a;
  v -= 2 * a;
  v *= 3;
  v /= a + 1;
  std::vector<T> want(100);
  for (std::size_t i = 0; i < 100; ++i) want[i] = (((v0[i] + a[i]) - T(2) * a[i]) * T(3)) / (a[i] + T(1));
  expect_equal(v, want, "compound");
}

TEST(EtOps, MaximumMinimumPropagateNaN) {
  const double nan = std::nan("");
  et::Vector<double> a{1.0, nan, 3.0}, b{nan, 2.0, 1.0};
  et::Vector<double> mx = et::maximum(a, b);
  et::Vector<double> mn = et::minimum(a, b);
  EXPECT_TRUE(std::isnan(mx[0]) && std::isnan(mx[1]));
  EXPECT_TRUE(std::isnan(mn[0]) && std::isnan(mn[1]));
  EXPECT_EQ(mx[2], 3.0);
  EXPECT_EQ(mn[2], 1.0);
}

TEST(EtOps, CastMixesElementTypes) {
  const et::Vector<double> d{0.1, 1e-30, 3.5};
  const et::Vector<float> f{1.0f, 2.0f, 3.0f};
  et::Vector<float> r = et::cast<float>(d) + f;
  et::Vector<double> s = d * et::cast<double>(f);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r[i], static_cast<float>(d[i]) + f[i]);
    EXPECT_EQ(s[i], d[i] * static_cast<double>(f[i]));
  }
}

TEST(EtOps, TagsCallTheScalarHelpersOfOpsDef) {
  // The node tags are generated from cgrad/ops.def and call cgrad::scalar::<name>.
  EXPECT_STREQ(et::tag::Add::kName, "add");
  EXPECT_STREQ(et::tag::Sigmoid::kName, "sigmoid");
  EXPECT_EQ(et::tag::Maximum::apply(2.0, 3.0), cgrad::scalar::maximum(2.0, 3.0));
  EXPECT_EQ(et::tag::Rsqrt::apply(4.0f), cgrad::scalar::rsqrt(4.0f));
  static_assert(std::is_same_v<decltype(et::tag::Exp::apply(1.0f)), float>, "float stays single precision");
}

}  // namespace
