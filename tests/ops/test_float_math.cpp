// cgrad's own float transcendental functions (include/cgrad/scalar.hpp: exp, log, log1p, expm1,
// tanh, erf, sin, cos, tan, atan, asin, acos, asinh, acosh, atanh, sinh, cosh, log2, log10; atan2,
// hypot, pow and the fmod under remainder, of pairs; f64 expm1, tanh, sinh, cosh, the logarithms, the
// inverse trigonometric and hyperbolic functions, sin, cos and tan),
// evaluated through the engine (the interpreter, and the JIT in the .jit run) on a sweep of float bit
// patterns: every sign, exponent and spread of mantissas, and the edges where the functions switch formulas.
// Each result must be within the bound docs/semantics.md states of glibc's double result, and the special
// values (NaN, infinities, signed zeros, the poles) must be C99 Annex F's. The bounds were measured over
// every float (docs/semantics.md); this sweep keeps them from regressing.
#include "util.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <type_traits>

namespace opt {
namespace {

float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// The inputs: every 4099th bit pattern (a prime stride: every exponent, varied mantissas), and
// around the formulas' switch points.
std::vector<float> sweep() {
  std::vector<float> v;
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 4099)
    v.push_back(bits_to_float(static_cast<uint32_t>(b)));
  for (float edge : {0.5f,        0.625f,          9.1f,        3.92f,       4.0f,
                     0.70710678f, 1.41421356f,     1.0f,        1e-30f,      88.7f,
                     89.0f,       -104.0f,         2.0f,        0.78539816f, 1.57079633f,
                     3.14159265f, 0x1.ccbdb8p+61f, 0.26794919f, 0.57735027f, 0.41421356f}) {
    float lo = edge, hi = edge;
    for (int k = 0; k < 200; ++k) {
      v.push_back(lo), v.push_back(-lo), v.push_back(hi), v.push_back(-hi);
      lo = std::nextafter(lo, 0.0f), hi = std::nextafter(hi, 1e30f);
    }
  }
  return v;
}

// The ulp of the float nearest `ref` (the smallest subnormal's below the normals).
double ulp_of(double ref) {
  const double a = std::min<double>(std::fabs(ref), std::numeric_limits<float>::max());
  if (a < std::numeric_limits<float>::min()) return std::ldexp(1.0, -149);
  int e = 0;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 24);
}

struct Case {
  const char* name;
  std::function<Tensor(const Tensor&)> op;
  double (*ref)(double);
  double bound;  // ulps (docs/semantics.md)
};

TEST(FloatMath, OwnFunctionsWithinTheirBoundsAndSpecialValues) {
  const std::vector<float> in = sweep();
  const Tensor x = tensor(in, {static_cast<int64_t>(in.size())});
  const std::vector<Case> cases = {
      {"exp", [](const Tensor& t) { return exp(t); }, [](double v) { return std::exp(v); }, 1.05},
      {"log", [](const Tensor& t) { return log(t); }, [](double v) { return std::log(v); }, 1.0},
      {"log1p", [](const Tensor& t) { return log1p(t); }, [](double v) { return std::log1p(v); }, 1.5},
      {"expm1", [](const Tensor& t) { return expm1(t); }, [](double v) { return std::expm1(v); }, 2.0},
      {"tanh", [](const Tensor& t) { return tanh(t); }, [](double v) { return std::tanh(v); }, 1.5},
      {"erf", [](const Tensor& t) { return erf(t); }, [](double v) { return std::erf(v); }, 1.0},
      {"sin", [](const Tensor& t) { return sin(t); }, [](double v) { return std::sin(v); }, 0.85},
      {"cos", [](const Tensor& t) { return cos(t); }, [](double v) { return std::cos(v); }, 0.85},
      {"tan", [](const Tensor& t) { return tan(t); }, [](double v) { return std::tan(v); }, 0.95},
      {"atan", [](const Tensor& t) { return atan(t); }, [](double v) { return std::atan(v); }, 0.51},
      {"asin", [](const Tensor& t) { return asin(t); }, [](double v) { return std::asin(v); }, 0.51},
      {"acos", [](const Tensor& t) { return acos(t); }, [](double v) { return std::acos(v); }, 0.51},
      {"asinh", [](const Tensor& t) { return asinh(t); }, [](double v) { return std::asinh(v); }, 0.51},
      {"acosh", [](const Tensor& t) { return acosh(t); }, [](double v) { return std::acosh(v); }, 0.51},
      {"atanh", [](const Tensor& t) { return atanh(t); }, [](double v) { return std::atanh(v); }, 0.51},
      {"sinh", [](const Tensor& t) { return sinh(t); }, [](double v) { return std::sinh(v); }, 0.8},
      {"cosh", [](const Tensor& t) { return cosh(t); }, [](double v) { return std::cosh(v); }, 0.85},
      {"log2", [](const Tensor& t) { return log2(t); }, [](double v) { return std::log2(v); }, 0.9},
      {"log10", [](const Tensor& t) { return log10(t); }, [](double v) { return std::log10(v); }, 0.8},
  };
  for (const Case& c : cases) {
    const std::vector<float> got = c.op(x).to_vector<float>();
    ASSERT_EQ(got.size(), in.size());
    double worst = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const double want = c.ref(static_cast<double>(in[i]));
      const float y = got[i];
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(y)) << c.name << "(" << in[i] << ") = " << y;
      } else if (std::isinf(static_cast<float>(want)) || want == 0) {  // (poles, overflow, exact zeros)
        ASSERT_EQ(y, static_cast<float>(want)) << c.name << "(" << in[i] << ")";
        ASSERT_EQ(std::signbit(y), std::signbit(want)) << c.name << "(" << in[i] << ")";
      } else {
        const double err = std::fabs(static_cast<double>(y) - want) / ulp_of(want);
        ASSERT_LE(err, c.bound) << c.name << "(" << std::hexfloat << in[i] << ") = " << y << ", want "
                                << want;
        worst = std::max(worst, err);
      }
    }
    EXPECT_GT(worst, 0.0) << c.name << ": a sweep that never rounds checks nothing";
  }
}

// The ulp of the double nearest `ref` (the smallest subnormal's below the normals).
double ulp_of_f64(long double ref) {
  const double a = std::min<double>(std::fabs(static_cast<double>(ref)), std::numeric_limits<double>::max());
  if (a < std::numeric_limits<double>::min()) return std::numeric_limits<double>::denorm_min();
  int e = 0;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 53);
}
// How many of those ulps `got` is from `want`.
double ulps_off(double got, long double want) {
  // (divided in long double: a difference below the subnormals' quantum would round to 0 or 1 of it)
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp_of_f64(want));
}

// f64 expm1, tanh, sinh, cosh, log, log1p, log2, log10, atan, asin, acos, asinh, acosh, atanh, erf, and
// sin, cos, tan below 2^20, are cgrad's own on the CPU (docs/semantics.md): random bit patterns, random
// values of each magnitude, the doubles nearest multiples of pi/2 and the switch points of the formulas,
// against the long double functions, within the bounds docs/semantics.md states (measured on 2x10^8 random
// doubles by tools/ulp_sweep.cpp); special values C99 Annex F's, signed zeros included. sin, cos
// and tan from 2^20 on are the C library's, bit for bit.
TEST(FloatMath, OwnF64FunctionsWithinTheirBoundsAndSpecialValues) {
  std::vector<double> in;
  std::mt19937_64 g(2026);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t b = g();
    double d;
    std::memcpy(&d, &b, 8);
    in.push_back(d);
  }
  for (double lim : {0x1p-20, 1.0, 6.0, 30.0, 720.0, 0x1p20}) {
    std::uniform_real_distribution<double> u(-lim, lim);
    for (int i = 0; i < 50000; ++i) in.push_back(u(g));
  }
  for (int i = 0; i < 7000; ++i) {  // near k pi/2, where sin, cos and tan's reduction cancels most
    const long double kpio2 = static_cast<long double>(g() % 667544) * 1.57079632679489661923132169163975144L;
    const double d = static_cast<double>(kpio2);
    in.insert(in.end(), {d, std::nextafter(d, 0.0), std::nextafter(d, 1e300)});
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (double edge : {0.7,
                      0.55,
                      0.84375,
                      2.0,
                      5.92,
                      6.0,
                      1.0,
                      0.34657359027997264,
                      19.06,
                      20.0,
                      40.0,
                      709.78,
                      710.0,
                      710.47,
                      711.0,
                      1.4142135623730951,
                      0.70710678118654757,
                      0.41421356237309503,
                      2.2250738585072014e-308,
                      1.7976931348623157e308,
                      0.78539816339744828,
                      0x1p20,
                      0.5,
                      7.450580596923828e-09,
                      268435456.0,
                      3.2733906078961419e150}) {
    double lo = edge, hi = edge;
    for (int k = 0; k < 100; ++k) {
      in.push_back(lo), in.push_back(-lo), in.push_back(hi), in.push_back(-hi);
      lo = std::nextafter(lo, 0.0), hi = std::nextafter(hi, inf);
    }
  }
  for (double v : {0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(), 4.9406564584124654e-324,
                   -2.2250738585072014e-308, 1e-300})
    in.push_back(v);
  const Tensor x = tensor(in, {static_cast<int64_t>(in.size())});
  struct F64Case {
    const char* name;
    std::function<Tensor(const Tensor&)> op;
    long double (*ref)(long double);
    double bound;                      // ulps (docs/semantics.md)
    double (*libm)(double) = nullptr;  // from 2^20 on (sin, cos, tan): this function's bits
    bool ones_exact = true;            // results within 2^-55 of +-1 are +-1 bit for bit (tanh's, erf's and
                                       // expm1's limits; nearer the tie below 1 the bound applies);
                                       // sin near pi/2 and cos near 0 are within the bound there too
  };
  const std::vector<F64Case> cases = {
      {"expm1", [](const Tensor& t) { return expm1(t); }, [](long double v) { return expm1l(v); }, 1.2},
      {"tanh", [](const Tensor& t) { return tanh(t); }, [](long double v) { return tanhl(v); }, 1.55},
      {"sinh", [](const Tensor& t) { return sinh(t); }, [](long double v) { return sinhl(v); }, 1.65},
      {"cosh", [](const Tensor& t) { return cosh(t); }, [](long double v) { return coshl(v); }, 1.55},
      {"log", [](const Tensor& t) { return log(t); }, [](long double v) { return logl(v); }, 1.0},
      {"log1p", [](const Tensor& t) { return log1p(t); }, [](long double v) { return log1pl(v); }, 1.0},
      {"log2", [](const Tensor& t) { return log2(t); }, [](long double v) { return log2l(v); }, 1.05},
      {"log10", [](const Tensor& t) { return log10(t); }, [](long double v) { return log10l(v); }, 1.05},
      {"atan", [](const Tensor& t) { return atan(t); }, [](long double v) { return atanl(v); }, 1.35},
      {"asin", [](const Tensor& t) { return asin(t); }, [](long double v) { return asinl(v); }, 0.75},
      {"acos", [](const Tensor& t) { return acos(t); }, [](long double v) { return acosl(v); }, 0.75},
      {"sin", [](const Tensor& t) { return sin(t); }, [](long double v) { return sinl(v); }, 0.8,
       [](double v) { return std::sin(v); }, false},
      {"cos", [](const Tensor& t) { return cos(t); }, [](long double v) { return cosl(v); }, 0.8,
       [](double v) { return std::cos(v); }, false},
      {"tan", [](const Tensor& t) { return tan(t); }, [](long double v) { return tanl(v); }, 1.05,
       [](double v) { return std::tan(v); }, false},
      {"asinh", [](const Tensor& t) { return asinh(t); }, [](long double v) { return asinhl(v); }, 1.3,
       nullptr, false},
      {"acosh", [](const Tensor& t) { return acosh(t); }, [](long double v) { return acoshl(v); }, 0.95,
       nullptr, false},
      {"atanh", [](const Tensor& t) { return atanh(t); }, [](long double v) { return atanhl(v); }, 0.95,
       nullptr, false},
      {"erf", [](const Tensor& t) { return erf(t); }, [](long double v) { return erfl(v); }, 0.85},
  };
  for (const F64Case& c : cases) {
    const std::vector<double> got = c.op(x).to_vector<double>();
    ASSERT_EQ(got.size(), in.size());
    double worst = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const long double want = c.ref(in[i]);
      const double y = got[i], rounded = static_cast<double>(want);
      if (c.libm && !(std::fabs(in[i]) < 0x1p20)) {
        const double lib = c.libm(in[i]);
        ASSERT_TRUE(std::memcmp(&y, &lib, 8) == 0 || (std::isnan(y) && std::isnan(lib)))
            << c.name << "(" << std::hexfloat << in[i] << ") = " << y << ", the C library's " << lib;
      } else if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(y)) << c.name << "(" << in[i] << ") = " << y;
      } else if (std::isinf(rounded) || rounded == 0 ||
                 (std::fabs(rounded) == 1 && c.ones_exact &&
                  1 - std::fabs(want) < 0x1p-55L)) {  // overflow, zeros, tanh's +-1
        ASSERT_EQ(y, rounded) << c.name << "(" << std::hexfloat << in[i] << ")";
        ASSERT_EQ(std::signbit(y), std::signbit(rounded)) << c.name << "(" << in[i] << ")";
      } else {
        const double err = ulps_off(y, want);
        ASSERT_LE(err, c.bound) << c.name << "(" << std::hexfloat << in[i] << ") = " << y << ", want "
                                << static_cast<double>(want);
        worst = std::max(worst, err);
      }
    }
    EXPECT_GT(worst, 0.5) << c.name << ": a sweep that never rounds checks nothing";
  }
}

// f64 pow (cgrad's own on the CPU): random pairs (any bits; x in [0, 4) and y in [-30, 30); x near 1
// and |y| up to 8192, where y log x nears the overflow; negative x and integer y) within 0.65 ulp of
// the long double result (subnormal results: within one step of their grid); every result that is a
// double exactly (2^k, 3^k, 10^k, exact roots: 9^0.5) exact, and the special values of every pair
// of 13 as the C library's, bit for bit (C99 Annex F: signed zeros and infinities, NaN, pow(x, 0) = 1).
TEST(FloatMath, OwnF64PowWithinItsBoundExactPowersAndSpecialValues) {
  std::vector<double> a, b;
  std::mt19937_64 g(91);
  for (int i = 0; i < 40000; ++i) {
    const uint64_t p = g(), q = g();
    double x, y;
    std::memcpy(&x, &p, 8);
    std::memcpy(&y, &q, 8);
    a.push_back(x), b.push_back(y);
    a.push_back(std::uniform_real_distribution<double>(0.0, 4.0)(g));
    b.push_back(std::uniform_real_distribution<double>(-30.0, 30.0)(g));
    a.push_back(std::uniform_real_distribution<double>(0.9, 1.1)(g));
    b.push_back(std::uniform_real_distribution<double>(-8192.0, 8192.0)(g));
    a.push_back(std::uniform_real_distribution<double>(-8.0, 8.0)(g));
    b.push_back(static_cast<double>(static_cast<int>(g() % 121) - 60));
  }
  const std::size_t exact_from = a.size();
  for (int k = -60; k <= 60; ++k) {
    for (double base : {2.0, -2.0, 0.5}) a.push_back(base), b.push_back(k);
    for (double base : {3.0, -3.0, 10.0})  // (their negative powers are not doubles)
      if (k >= 0 && k * std::log2(std::fabs(base)) < 52) a.push_back(base), b.push_back(k);
  }
  for (auto [x, y] : std::vector<std::pair<double, double>>{{9, 0.5}, {16, 0.25}, {4, 1.5}, {0.25, -1.5}})
    a.push_back(x), b.push_back(y);
  const std::size_t special_from = a.size();  // (from here: the results that are exact, or special)
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> special = {0.0,
                                       -0.0,
                                       inf,
                                       -inf,
                                       1.0,
                                       -1.0,
                                       2.0,
                                       -2.0,
                                       0.5,
                                       -0.5,
                                       3.0,
                                       -3.0,
                                       std::numeric_limits<double>::quiet_NaN()};
  for (double x : special)
    for (double y : special) a.push_back(x), b.push_back(y);
  const auto n = static_cast<int64_t>(a.size());
  const std::vector<double> got = pow(tensor(a, {n}), tensor(b, {n})).to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const long double want = powl(a[i], b[i]);
    const double rounded = static_cast<double>(want), lib = std::pow(a[i], b[i]);
    if (i >= exact_from && i < special_from) {  // (the exact powers: doubles)
      ASSERT_EQ(static_cast<long double>(rounded), want) << a[i] << " ^ " << b[i];
    }
    if (static_cast<long double>(rounded) == want || std::isnan(want) || std::isinf(rounded) ||
        rounded == 0) {
      // exact results, special values
      ASSERT_TRUE(std::memcmp(&got[i], &lib, 8) == 0 || (std::isnan(got[i]) && std::isnan(lib)))
          << std::hexfloat << a[i] << " ^ " << b[i] << " = " << got[i] << ", the C library's " << lib;
    } else if (std::fabs(rounded) < std::numeric_limits<double>::min()) {
      ASSERT_LE(std::fabs(static_cast<long double>(got[i]) - want), std::numeric_limits<double>::denorm_min())
          << std::hexfloat << a[i] << " ^ " << b[i] << " = " << got[i];
    } else {
      const double err = ulps_off(got[i], want);
      ASSERT_LE(err, 0.65) << std::hexfloat << a[i] << " ^ " << b[i] << " = " << got[i];
      worst = std::max(worst, err);
    }
  }
  EXPECT_GT(worst, 0.5) << "a sweep that never rounds checks nothing";
}

// f64 atan2 (cgrad's own on the CPU): random bit patterns, operands in [-8, 8), pairs near the
// overflow and among the subnormals within 1.55 ulp of the long double result, and C99 Annex F's
// special values bit for bit (signed zeros, the quadrants of the infinities, NaN).
TEST(FloatMath, OwnF64Atan2WithinItsBoundAndSpecialValues) {
  std::vector<double> a, b;
  std::mt19937_64 g(77);
  std::uniform_real_distribution<double> u(-8.0, 8.0);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t p = g(), q = g();
    double y, x;
    std::memcpy(&y, &p, 8);
    std::memcpy(&x, &q, 8);
    a.push_back(y), b.push_back(x);
    a.push_back(u(g)), b.push_back(u(g));
  }
  // near the overflow (the sums of the reduction would overflow unscaled) and among the subnormals
  for (auto [y, x] : std::vector<std::pair<double, double>>{{1.7976931348623157e308, 1.7976931348623157e308},
                                                            {1.7e308, 1.2e308},
                                                            {-1.5e308, 1e308},
                                                            {1e308, -1.7e308},
                                                            {1.6e308, 1e308},
                                                            {4.9406564584124654e-324, 1e-323},
                                                            {0.0, 4.9406564584124654e-324},
                                                            {-4.9406564584124654e-324, 0.0},
                                                            {1e-310, -3e-310},
                                                            {2e-308, -3e-308}})
    a.push_back(y), b.push_back(x);
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> special = {
      0.0, -0.0, inf, -inf, 1.0, -1.0, std::numeric_limits<double>::quiet_NaN()};
  for (double y : special)
    for (double x : special) a.push_back(y), b.push_back(x);
  const auto n = static_cast<int64_t>(a.size());
  const std::vector<double> got = atan2(tensor(a, {n}), tensor(b, {n})).to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const long double want = atan2l(a[i], b[i]);
    const double rounded = static_cast<double>(want);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got[i])) << a[i] << ", " << b[i];
    } else if (i >= a.size() - special.size() * special.size() || rounded == 0) {
      ASSERT_EQ(got[i], std::atan2(a[i], b[i])) << std::hexfloat << a[i] << ", " << b[i];
      ASSERT_EQ(std::signbit(got[i]), std::signbit(rounded)) << a[i] << ", " << b[i];
    } else {
      const double err = ulps_off(got[i], want);
      ASSERT_LE(err, 1.55) << std::hexfloat << a[i] << ", " << b[i] << " = " << got[i];
      worst = std::max(worst, err);
    }
  }
  EXPECT_GT(worst, 0.5);
}

// hypot(a, b) and |a + bi| (c64 for float, c128 for double: both call hypot) for the pairs given
// and C99's special pairs, against the long double hypot: |z| equal to hypot, each finite result
// within bound(want) of it in ulps (`ulps`), +inf where either operand is infinite (even with a
// NaN), hypot(-0, -0) = +0 and hypot(3, 4) = 5. Returns the worst error.
template <class T>
double check_hypot(std::vector<T> a, std::vector<T> b, double (*ulps)(T, long double),
                   double (*bound)(long double)) {
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T big = std::numeric_limits<T>::max() / 2, tiny = std::numeric_limits<T>::denorm_min();
  const std::vector<std::pair<T, T>> special = {{inf, nan},   {nan, -inf}, {-inf, 1},    {nan, 1},
                                                {-0.0, -0.0}, {big, big},  {tiny, tiny}, {3, 4}};
  for (auto [x, y] : special) a.push_back(x), b.push_back(y);
  const auto n = static_cast<int64_t>(a.size());
  const std::vector<T> got = hypot(tensor(a, {n}), tensor(b, {n})).template to_vector<T>();
  std::vector<complex_t<T>> zs;
  for (std::size_t i = 0; i < a.size(); ++i) zs.push_back({a[i], b[i]});
  const std::vector<T> mag = abs(tensor(zs, {n})).template to_vector<T>();
  double worst = 0;
  int failures = 0;  // (the first few reported, not one per element)
  auto fail = [&](std::size_t i, const char* what) {
    if (++failures <= 5)
      ADD_FAILURE() << what << " at " << std::hexfloat << a[i] << ", " << b[i] << ": " << got[i];
  };
  for (std::size_t i = 0; i < a.size(); ++i) {
    const long double want = std::hypot(static_cast<long double>(a[i]), static_cast<long double>(b[i]));
    if (!(got[i] == mag[i] || (std::isnan(got[i]) && std::isnan(mag[i])))) fail(i, "|z| differs from hypot");
    if (std::isnan(want)) {
      if (!std::isnan(got[i])) fail(i, "not NaN");
    } else if (std::isinf(static_cast<T>(want))) {
      if (got[i] != inf) fail(i, "not inf");
    } else {
      const double err = ulps(got[i], want);
      if (err > bound(want)) fail(i, "beyond the bound");
      worst = std::max(worst, err);
    }
  }
  EXPECT_EQ(failures, 0);
  const std::size_t s0 = a.size() - special.size();
  EXPECT_EQ(got[s0], inf);      // hypot(inf, nan)
  EXPECT_EQ(got[s0 + 1], inf);  // hypot(nan, -inf)
  EXPECT_EQ(got[s0 + 4], T(0));
  EXPECT_FALSE(std::signbit(got[s0 + 4]));  // hypot(-0, -0) = +0
  EXPECT_EQ(got[s0 + 7], T(5));
  return worst;
}

// f32 hypot: in double, rounded once: within 0.51 ulp on random bit patterns.
TEST(FloatMath, HypotRoundedOnceAndItsSpecialValues) {
  std::vector<float> a, b;
  uint32_t s = 12345;
  auto next = [&s] { return s = s * 1664525u + 1013904223u; };
  for (int i = 0; i < 200000; ++i) a.push_back(bits_to_float(next())), b.push_back(bits_to_float(next()));
  const double worst = check_hypot<float>(
      a, b,
      [](float got, long double want) {
        return static_cast<double>(std::fabs(static_cast<long double>(got) - want)) /
               ulp_of(static_cast<double>(want));
      },
      [](long double) { return 0.51; });
  EXPECT_GT(worst, 0.0);
}

// f64 hypot: sqrt of the scaled squares, corrected by their exact residual: within half an ulp
// (plus the long double reference's own error) where the result is normal, 0.75 where it is
// subnormal (the scaling undone rounds a second time). Pairs of random bit patterns, of values in
// [-100, 100), and with exponents within 2^32 of each other.
TEST(FloatMath, HypotF64CorrectedAndItsSpecialValues) {
  std::vector<double> a, b;
  uint64_t s = 987654321;
  auto next = [&s] { return s = s * 6364136223846793005ULL + 1442695040888963407ULL; };
  auto from_bits = [](uint64_t u) {
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
  };
  for (int i = 0; i < 100000; ++i) {
    const uint64_t u = next(), v = next();
    a.push_back(from_bits(u)), b.push_back(from_bits(v));
    a.push_back(static_cast<double>(u >> 11) * 0x1p-53 * 200 - 100);
    b.push_back(static_cast<double>(v >> 11) * 0x1p-53 * 200 - 100);
    a.push_back(from_bits(u)),
        b.push_back(from_bits((u & 0x7ff0000000000000ULL) ^ (v & 0x800fffffffffffffULL)));
  }
  const double worst = check_hypot<double>(a, b, ulps_off, [](long double want) {
    return std::fabs(static_cast<double>(want)) < std::numeric_limits<double>::min() ? 0.75 : 0.5005;
  });
  EXPECT_GT(worst, 0.0);
}

// f32 atan2 and pow of pairs: in double, rounded once; within 0.51 ulp of the long double result
// on random bit patterns and on moderate operands (where pow neither overflows nor underflows),
// and C99 Annex F's special values, signed zeros included.
TEST(FloatMath, Atan2AndPowRoundedOnceAndTheirSpecialValues) {
  std::vector<float> a, b;
  uint32_t s = 54321;
  auto next = [&s] { return s = s * 1664525u + 1013904223u; };
  for (int i = 0; i < 100000; ++i) a.push_back(bits_to_float(next())), b.push_back(bits_to_float(next()));
  for (int i = 0; i < 100000; ++i)  // x in (0, 100), y in (-40, 40): results of every size
    a.push_back(static_cast<float>(next() % 100000 + 1) / 1000.0f),
        b.push_back(static_cast<float>(static_cast<int32_t>(next() % 8000) - 4000) / 100.0f);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> special = {0.0f,  -0.0f, 1.0f,  -1.0f, 0.5f, -0.5f, 2.0f,
                                      -2.0f, 3.0f,  -3.0f, inf,   -inf, nan};
  for (float x : special)
    for (float y : special) a.push_back(x), b.push_back(y);
  const auto n = static_cast<int64_t>(a.size());
  const Tensor ta = tensor(a, {n}), tb = tensor(b, {n});
  struct Pair {
    const char* name;
    std::vector<float> got;
    long double (*ref)(long double, long double);
  };
  const Pair pairs[] = {
      {"atan2", atan2(ta, tb).to_vector<float>(),
       [](long double y, long double x) { return std::atan2(y, x); }},
      {"pow", pow(ta, tb).to_vector<float>(), [](long double x, long double y) { return std::pow(x, y); }}};
  for (const Pair& p : pairs) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const long double want = p.ref(a[i], b[i]);
      const float y = p.got[i];
      const auto what = [&] {
        std::ostringstream o;
        o << p.name << "(" << std::hexfloat << a[i] << ", " << b[i] << ") = " << y << ", want "
          << static_cast<double>(want);
        return o.str();
      };
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(y)) << what();
      } else if (std::isinf(static_cast<float>(want)) || want == 0) {
        ASSERT_EQ(y, static_cast<float>(want)) << what();
        ASSERT_EQ(std::signbit(y), std::signbit(want)) << what();
      } else {
        const double err = static_cast<double>(std::fabs(static_cast<long double>(y) - want)) /
                           ulp_of(static_cast<double>(want));
        ASSERT_LE(err, 0.51) << what();
        worst = std::max(worst, err);
      }
    }
    EXPECT_GT(worst, 0.0) << p.name;
  }
}

// remainder starts from cgrad's own fmod (f32 and f64), which must be exact: the bits of the C
// library's fmod (moved into the divisor's sign as scalar::remainder does) on random bit patterns,
// on moderate operands, on tiny divisors and wide exponent gaps (f64: up to the 2097 bits between
// the largest double and the smallest subnormal, which take fmod_f64 all its steps), and on every
// pair of special values.
template <class T>
void check_remainder_exact(const std::vector<T>& special) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  std::vector<T> a, b;
  std::mt19937_64 g(2024);
  auto from_bits = [](U u) {
    T v;
    std::memcpy(&v, &u, sizeof v);
    return v;
  };
  constexpr int kMant = std::numeric_limits<T>::digits, kMin = std::numeric_limits<T>::min_exponent - kMant;
  constexpr int kSpan = std::numeric_limits<T>::max_exponent - kMin;  // the exponents of every value
  for (int i = 0; i < 100000; ++i)
    a.push_back(from_bits(static_cast<U>(g()))), b.push_back(from_bits(static_cast<U>(g())));
  for (int i = 0; i < 100000; ++i)
    a.push_back(static_cast<T>(static_cast<int64_t>(g() % 20001) - 10000) / T(7)),
        b.push_back(static_cast<T>(static_cast<int64_t>(g() % 2001) - 1000) / T(13));
  for (int i = 0; i < 50000; ++i) {  // any exponent over a divisor near the smallest ones
    const auto m = static_cast<T>(g() >> (64 - kMant)), d = static_cast<T>((g() >> (64 - kMant)) | 1);
    a.push_back(std::ldexp(m, static_cast<int>(g() % (kSpan - kMant + 1)) + kMin));  // finite
    b.push_back(std::ldexp(g() & 1 ? -d : d, static_cast<int>(g() % 40) + kMin));
  }
  for (T x : special)
    for (T y : special) a.push_back(x), b.push_back(y);
  const auto n = static_cast<int64_t>(a.size());
  const std::vector<T> got = remainder(tensor(a, {n}), tensor(b, {n})).template to_vector<T>();
  for (std::size_t i = 0; i < a.size(); ++i) {
    T want = std::fmod(a[i], b[i]);
    if (want == 0)
      want = std::copysign(T(0), b[i]);
    else if ((want < 0) != (b[i] < 0))
      want += b[i];
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got[i])) << std::hexfloat << a[i] << " % " << b[i];
    } else {
      U gb = 0, wb = 0;
      std::memcpy(&gb, &got[i], sizeof gb);
      std::memcpy(&wb, &want, sizeof wb);
      ASSERT_EQ(gb, wb) << std::hexfloat << a[i] << " % " << b[i] << " = " << got[i] << ", want " << want;
    }
  }
}

TEST(FloatMath, RemainderOfF32IsExact) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  check_remainder_exact<float>(
      {0.0f, -0.0f, 1.0f, -1.0f, 0.75f, 1e-45f, -1e-45f, 3.4e38f, -3.4e38f, inf, -inf, nan});
}

TEST(FloatMath, RemainderOfF64IsExact) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double max = std::numeric_limits<double>::max(), tiny = std::numeric_limits<double>::denorm_min();
  check_remainder_exact<double>(
      {0.0, -0.0, 1.0, -1.0, 0.75, tiny, -tiny, 0x1p-1022, 3 * tiny, max, -max, 0x1.8p1000, inf, -inf, nan});
}

}  // namespace
}  // namespace opt
