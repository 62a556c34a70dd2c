// Complex dtypes c64 and c128 (complex group, issue #15): every row that accepts them against
// std::complex<long double> loops written here (so the reference is more precise than either
// dtype), in several layouts and with broadcasting; promotion; casts; reductions; the special
// cases of the Array API standard for the functions implemented; the rows that reject complex
// raise at build time and leave their inputs intact; on the JIT abs(a * b + c) is one kernel;
// matmul and the scans against loops; gradients flow through complex values.
#include "core/env.hpp"
#include "ir/op_table.h"
#include "util.h"

#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>

namespace opt {
namespace {

using C = std::complex<long double>;
constexpr DType kComplexDTypes[] = {c64, c128};
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// A tensor of dtype t (c64 or c128) holding v (rounded to the dtype's parts), of shape s.
Tensor make_c(const std::vector<std::complex<double>>& v, DType t, const Shape& s) {
  if (t == c64) {
    std::vector<complex64_t> d;
    for (auto z : v) d.push_back(complex64_t(static_cast<float>(z.real()), static_cast<float>(z.imag())));
    return tensor(d, s);
  }
  std::vector<complex128_t> d;
  for (auto z : v) d.push_back(complex128_t(z.real(), z.imag()));
  return tensor(d, s);
}

// The values of a complex tensor, widened.
std::vector<C> read_c(const Tensor& x) {
  std::vector<C> out;
  if (x.dtype() == c64) {
    for (auto z : x.to_vector<complex64_t>()) out.emplace_back(z.re, z.im);
  } else {
    for (auto z : x.to_vector<complex128_t>()) out.emplace_back(z.re, z.im);
  }
  return out;
}

// The value the tensor holds for input z: its parts rounded to t's real type.
C rounded(std::complex<double> z, DType t) {
  if (t == c64) return {static_cast<float>(z.real()), static_cast<float>(z.imag())};
  return {z.real(), z.imag()};
}

double tol_of(DType t) { return t == c64 || t == f32 ? 2e-5 : 1e-12; }

// got and want agree: both parts NaN-equal or infinite-equal, else each part within tol * |want|
// (relative to the complex magnitude: a tiny part of a large value may carry its rounding).
::testing::AssertionResult near(C got, C want, double tol) {
  auto part = [&](long double g, long double w) {
    if (std::isnan(w)) return std::isnan(g);
    if (std::isinf(w)) return g == w;
    const long double scale = std::max<long double>(std::abs(want), 1e-30L);
    return std::fabs(g - w) <= tol * scale;
  };
  if (part(got.real(), want.real()) && part(got.imag(), want.imag())) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got (" << static_cast<double>(got.real()) << ", " << static_cast<double>(got.imag())
         << ") want (" << static_cast<double>(want.real()) << ", " << static_cast<double>(want.imag()) << ")";
}

// Finite test values away from branch cuts (nonzero imaginary parts), small and large.
std::vector<std::complex<double>> values() {
  std::vector<std::complex<double>> v = {{0.5, -2.0}, {3.0, 4.0},   {1e-3, 2e-3}, {-2.5, 0.7},
                                         {-1.0, 1.0}, {0.0, 1.0},   {1.0, 0.25},  {-0.3, -0.4},
                                         {7.0, -3.0}, {-12.0, 0.5}, {0.2, 30.0},  {1e-6, -1e-7}};
  Rng rng(15);
  for (int k = 0; k < 20; ++k) v.emplace_back(rng.uniform(-3, 3), rng.uniform(-3, 3));
  return v;
}

// x of n values in three layouts: contiguous (n), the transpose of a (n/4, 4) tensor, 0-d.
std::vector<std::pair<std::string, Tensor>> layouts(const std::vector<std::complex<double>>& v, DType t,
                                                    std::vector<std::vector<std::complex<double>>>& logical) {
  std::vector<std::pair<std::string, Tensor>> out;
  logical.clear();
  out.emplace_back("contiguous", make_c(v, t, {static_cast<int64_t>(v.size())}));
  logical.push_back(v);
  const int64_t rows = static_cast<int64_t>(v.size()) / 4;
  std::vector<std::complex<double>> head(v.begin(), v.begin() + rows * 4), tr;
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t i = 0; i < rows; ++i) tr.push_back(head[static_cast<std::size_t>(i * 4 + j)]);
  out.emplace_back("transposed", make_c(head, t, {rows, 4}).permute({1, 0}));
  logical.push_back(tr);
  out.emplace_back("0-d", make_c({v[1]}, t, {}));
  logical.push_back({v[1]});
  return out;
}

struct UnaryCase {
  const char* name;
  std::function<Tensor(const Tensor&)> f;
  std::function<C(C)> ref;
};

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"neg", [](const Tensor& x) { return -x; }, [](C z) { return -z; }},
      {"positive", [](const Tensor& x) { return positive(x); }, [](C z) { return z; }},
      {"conj", [](const Tensor& x) { return conj(x); }, [](C z) { return std::conj(z); }},
      {"exp", [](const Tensor& x) { return exp(x); }, [](C z) { return std::exp(z); }},
      {"expm1", [](const Tensor& x) { return expm1(x); },
       [](C z) {
         // exp(z) - 1 without cancellation: real part expm1(x) cos y - 2 sin^2(y/2)
         const long double s = std::sin(z.imag() / 2);
         return C(std::expm1(z.real()) * std::cos(z.imag()) - 2 * s * s,
                  std::exp(z.real()) * std::sin(z.imag()));
       }},
      {"log", [](const Tensor& x) { return log(x); }, [](C z) { return std::log(z); }},
      {"log1p", [](const Tensor& x) { return log1p(x); },
       [](C z) {
         return C(std::log1p(z.real() * (2 + z.real()) + z.imag() * z.imag()) / 2,
                  std::atan2(z.imag(), 1 + z.real()));
       }},
      {"sqrt", [](const Tensor& x) { return sqrt(x); }, [](C z) { return std::sqrt(z); }},
      {"square", [](const Tensor& x) { return square(x); }, [](C z) { return z * z; }},
      {"reciprocal", [](const Tensor& x) { return reciprocal(x); }, [](C z) { return C(1) / z; }},
      {"sign", [](const Tensor& x) { return sign(x); }, [](C z) { return z / std::abs(z); }},
      {"sin", [](const Tensor& x) { return sin(x); }, [](C z) { return std::sin(z); }},
      {"cos", [](const Tensor& x) { return cos(x); }, [](C z) { return std::cos(z); }},
      {"tan", [](const Tensor& x) { return tan(x); }, [](C z) { return std::tan(z); }},
      {"sinh", [](const Tensor& x) { return sinh(x); }, [](C z) { return std::sinh(z); }},
      {"cosh", [](const Tensor& x) { return cosh(x); }, [](C z) { return std::cosh(z); }},
      {"tanh", [](const Tensor& x) { return tanh(x); }, [](C z) { return std::tanh(z); }},
      // cplxfn: the inverse functions (principal values, C99's cuts), log2, log10, round
      {"asin", [](const Tensor& x) { return asin(x); }, [](C z) { return std::asin(z); }},
      {"acos", [](const Tensor& x) { return acos(x); }, [](C z) { return std::acos(z); }},
      {"atan", [](const Tensor& x) { return atan(x); }, [](C z) { return std::atan(z); }},
      {"asinh", [](const Tensor& x) { return asinh(x); }, [](C z) { return std::asinh(z); }},
      {"acosh", [](const Tensor& x) { return acosh(x); }, [](C z) { return std::acosh(z); }},
      {"atanh", [](const Tensor& x) { return atanh(x); }, [](C z) { return std::atanh(z); }},
      {"log2", [](const Tensor& x) { return log2(x); }, [](C z) { return std::log(z) / std::log(2.0L); }},
      {"log10", [](const Tensor& x) { return log10(x); }, [](C z) { return std::log10(z); }},
      {"round", [](const Tensor& x) { return round(x); },
       [](C z) { return C(std::nearbyint(z.real()), std::nearbyint(z.imag())); }},
  };
  return cases;
}

TEST(ComplexDTypes, UnaryRowsMatchStdComplex) {
  const auto v = values();
  for (DType t : kComplexDTypes) {
    std::vector<std::vector<std::complex<double>>> logical;
    auto ins = layouts(v, t, logical);
    for (const UnaryCase& c : unary_cases()) {
      for (std::size_t l = 0; l < ins.size(); ++l) {
        Tensor y = c.f(ins[l].second);
        ASSERT_EQ(y.dtype(), t) << c.name;
        const std::vector<C> got = read_c(y);
        ASSERT_EQ(got.size(), logical[l].size());
        for (std::size_t k = 0; k < got.size(); ++k) {
          const C want = c.ref(rounded(logical[l][k], t));
          // tan, tanh of values with a large imaginary (real) part: relative to |want| ~ 1
          EXPECT_TRUE(near(got[k], want, tol_of(t) * 4))
              << c.name << " " << dtype_name(t) << " " << ins[l].first << " of (" << logical[l][k].real()
              << ", " << logical[l][k].imag() << ")";
        }
      }
    }
  }
}

TEST(ComplexDTypes, RealResultsAndClassification) {
  const auto v = values();
  for (DType t : kComplexDTypes) {
    const DType r = real_dtype(t);
    Tensor x = make_c(v, t, {static_cast<int64_t>(v.size())});
    Tensor a = abs(x), re = real(x), im = imag(x);
    EXPECT_EQ(a.dtype(), r);
    EXPECT_EQ(re.dtype(), r);
    EXPECT_EQ(im.dtype(), r);
    const auto av = a.cast(f64).to_vector<double>(), rv = re.cast(f64).to_vector<double>(),
               iv = im.cast(f64).to_vector<double>();
    for (std::size_t k = 0; k < v.size(); ++k) {
      const C z = rounded(v[k], t);
      EXPECT_NEAR(av[k], static_cast<double>(std::abs(z)), tol_of(t) * static_cast<double>(std::abs(z)));
      EXPECT_EQ(rv[k], static_cast<double>(z.real()));
      EXPECT_EQ(iv[k], static_cast<double>(z.imag()));
    }
    // isnan / isinf / isfinite look at both parts.
    Tensor s = make_c({{1, 2}, {kNaN, 0}, {0, kNaN}, {kInf, 0}, {0, -kInf}, {kInf, kNaN}}, t, {6});
    EXPECT_EQ(isnan(s).to_vector<bool>(), (std::vector<bool>{false, true, true, false, false, true}));
    EXPECT_EQ(isinf(s).to_vector<bool>(), (std::vector<bool>{false, false, false, true, true, true}));
    EXPECT_EQ(isfinite(s).to_vector<bool>(), (std::vector<bool>{true, false, false, false, false, false}));
    // |inf + NaN i| = inf (hypot), as C99 and the standard say.
    EXPECT_EQ(abs(s).cast(f64).to_vector<double>()[5], kInf);
  }
  // Real inputs: conj and real are the input, imag is zeros.
  Tensor f = tensor(std::vector<float>{1.5f, -2.0f}, {2});
  EXPECT_EQ(conj(f).to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(real(f).to_vector<float>(), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(imag(f).to_vector<float>(), (std::vector<float>{0.0f, 0.0f}));
}

struct BinaryCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> f;
  std::function<C(C, C)> ref;
};

TEST(ComplexDTypes, BinaryRowsMatchStdComplexWithBroadcasting) {
  const std::vector<BinaryCase> cases = {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }, [](C a, C b) { return a + b; }},
      {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }, [](C a, C b) { return a - b; }},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }, [](C a, C b) { return a * b; }},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }, [](C a, C b) { return a / b; }},
      {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); },
       [](C a, C b) { return std::exp(b * std::log(a)); }},
  };
  std::vector<std::complex<double>> v = values();
  v.resize(12);
  const auto n = static_cast<int64_t>(v.size());
  for (DType t : kComplexDTypes) {
    // a (n, 1) against b (1, n): every pair.
    Tensor a = make_c(v, t, {n, 1}), b = make_c(v, t, {1, n});
    for (const BinaryCase& c : cases) {
      Tensor y = c.f(a, b);
      ASSERT_EQ(y.dtype(), t);
      ASSERT_EQ(y.shape(), (Shape{n, n}));
      const std::vector<C> got = read_c(y);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const C x = rounded(v[static_cast<std::size_t>(i)], t),
                  w = rounded(v[static_cast<std::size_t>(j)], t);
          // pow: exp(b log a) grows the error with |b log a|
          const double tol = tol_of(t) * (c.name[0] == 'p' ? 64 : 4);
          if (t == c64 && std::abs(c.ref(x, w)) > 1e37L) continue;  // beyond f32's range: inf parts
          EXPECT_TRUE(near(got[static_cast<std::size_t>(i * n + j)], c.ref(x, w), tol))
              << c.name << " " << dtype_name(t) << " " << i << "," << j;
        }
    }
    // == and != compare both parts.
    Tensor p = make_c({{1, 2}, {1, 2}, {1, 2}, {kNaN, 0}}, t, {4}),
           q = make_c({{1, 2}, {1, -2}, {2, 2}, {kNaN, 0}}, t, {4});
    EXPECT_EQ((p == q).to_vector<bool>(), (std::vector<bool>{true, false, false, false}));
    EXPECT_EQ((p != q).to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
    // where selects whole complex values.
    Tensor w = where(tensor(std::vector<bool>{true, false, true, false}, {4}), p, q);
    const auto wv = read_c(w);
    EXPECT_EQ(wv[0], C(1, 2));
    EXPECT_EQ(wv[1], C(1, -2));
    EXPECT_EQ(wv[2], C(1, 2));
    // 0^0 = 1 and 0^b = 0 for real b > 0 (C99's cpow and NumPy).
    Tensor z = make_c({{0, 0}, {0, 0}}, t, {2}), e = make_c({{0, 0}, {2, 0}}, t, {2});
    const auto zv = read_c(pow(z, e));
    EXPECT_EQ(zv[0], C(1, 0));
    EXPECT_EQ(zv[1], C(0, 0));
  }
}

TEST(ComplexDTypes, PromotionFollowsTheArrayApiTable) {
  struct Row {
    DType a, b, want;
  };
  const Row rows[] = {{c64, c64, c64},   {c64, c128, c128}, {c64, f32, c64},  {c64, f64, c128},
                      {c128, f32, c128}, {c64, f16, c64},   {c64, bf16, c64}, {c64, i32, c64},
                      {c128, i64, c128}, {c64, b8, c64},    {c64, u64, c64},  {f64, c64, c128}};
  for (const Row& r : rows) {
    EXPECT_EQ(core::promote(r.a, r.b), r.want) << dtype_name(r.a) << " + " << dtype_name(r.b);
    EXPECT_EQ(core::promote(r.b, r.a), r.want) << dtype_name(r.b) << " + " << dtype_name(r.a);
    Tensor x = ones({2}, r.a), y = ones({2}, r.b);
    Tensor s = x + y;
    EXPECT_EQ(s.dtype(), r.want);
    for (C z : read_c(s)) EXPECT_EQ(z, C(2, 0));
  }
  // A Python-style scalar never raises a complex tensor's precision; a complex tensor takes a
  // real one of any precision to complex.
  Tensor a = make_c({{1, 1}}, c64, {1});
  EXPECT_EQ((a + 2.5).dtype(), c64);
  EXPECT_EQ(read_c(a * 2.0)[0], C(2, 2));
  EXPECT_EQ((a + tensor(std::vector<double>{1.0}, {1})).dtype(), c128);
  EXPECT_EQ(finfo(c64).eps, finfo(f32).eps);
  EXPECT_EQ(finfo(c128).max, finfo(f64).max);
  EXPECT_EQ(finfo(c128).bits, 64);  // the standard: finfo of a complex dtype describes its parts
  EXPECT_EQ(dtype_size(c64), 8u);
  EXPECT_EQ(dtype_size(c128), 16u);
  EXPECT_STREQ(dtype_name(c128), "c128");
  EXPECT_THROW(iinfo(c64), Error);
}

TEST(ComplexDTypes, CastsAndConstruction) {
  // real -> complex: imaginary part 0; complex -> complex rounds each part; complex -> b8 is
  // "either part nonzero".
  Tensor f = tensor(std::vector<double>{1.0 / 3, -2.0, 0.0}, {3});
  const auto c = read_c(f.cast(c64));
  EXPECT_EQ(c[0], C(static_cast<float>(1.0 / 3), 0));
  EXPECT_EQ(read_c(tensor(std::vector<int32_t>{-7}, {1}).cast(c128))[0], C(-7, 0));
  Tensor z = make_c({{1.0 / 3, 1e300}, {0, 0}, {0, -1}}, c128, {3});
  const auto zz = read_c(z.cast(c64));
  EXPECT_EQ(zz[0], C(static_cast<float>(1.0 / 3), std::numeric_limits<float>::infinity()));
  EXPECT_EQ(z.cast(b8).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  // complex -> real raises (the imaginary part would be dropped silently); real(), abs() instead.
  EXPECT_THROW(z.cast(f64), Error);
  EXPECT_THROW(z.to_vector<double>(), Error);
  EXPECT_EQ(z.cast(c128).dtype(), c128);
  // complex(re, im), with infinities kept in their part.
  const float finf = std::numeric_limits<float>::infinity();
  Tensor re = tensor(std::vector<float>{1.0f, finf, -0.0f}, {3}),
         im = tensor(std::vector<float>{2.0f, 0.0f, finf}, {3});
  Tensor w = complex(re, im);
  EXPECT_EQ(w.dtype(), c64);
  const auto wv = read_c(w);
  EXPECT_EQ(wv[0], C(1, 2));
  EXPECT_EQ(wv[1], C(kInf, 0));
  EXPECT_EQ(wv[2], C(0, kInf));
  EXPECT_TRUE(std::signbit(wv[2].real()));
  EXPECT_EQ(complex(re.cast(f64), im).dtype(), c128);
  // full / zeros / ones of a complex dtype: real constants
  EXPECT_EQ(read_c(full({2}, 1.5, c128))[1], C(1.5, 0));
  EXPECT_EQ(read_c(zeros({1}, c64))[0], C(0, 0));
}

TEST(ComplexDTypes, SumProdMeanAccumulateInC128) {
  const auto v = values();
  for (DType t : kComplexDTypes) {
    const auto n = static_cast<int64_t>(v.size());
    Tensor x = make_c(v, t, {n / 4, 4});
    C s = 0, p = 1;
    std::vector<C> col(4, C(0));
    for (int64_t k = 0; k < n / 4 * 4; ++k) {
      const C z = rounded(v[static_cast<std::size_t>(k)], t);
      s += z;
      col[static_cast<std::size_t>(k % 4)] += z;
    }
    for (int k = 0; k < 6; ++k) p *= rounded(v[static_cast<std::size_t>(k)], t);
    EXPECT_EQ(sum(x).dtype(), t);
    EXPECT_TRUE(near(read_c(sum(x))[0], s, tol_of(t)));
    EXPECT_TRUE(near(read_c(mean(x))[0], s / static_cast<long double>(n / 4 * 4), tol_of(t)));
    const auto cs = read_c(sum(x, {0}));
    for (int j = 0; j < 4; ++j)
      EXPECT_TRUE(near(cs[static_cast<std::size_t>(j)], col[static_cast<std::size_t>(j)], tol_of(t)));
    EXPECT_TRUE(
        near(read_c(prod(make_c(std::vector<std::complex<double>>(v.begin(), v.begin() + 6), t, {6})))[0], p,
             tol_of(t) * 4));
    EXPECT_EQ(read_c(sum(make_c({}, t, {0})))[0], C(0, 0));
    EXPECT_EQ(read_c(prod(make_c({}, t, {0})))[0], C(1, 0));
  }
}

// The standard's special cases (C99 Annex G) for the functions implemented: (input, result),
// NaN parts compared as NaN, zero parts with their sign where the standard gives one.
TEST(ComplexDTypes, SpecialCases) {
  struct Case {
    const char* fn;
    std::complex<double> in, want;
    bool signs;  // compare the signs of zero parts
  };
  const Case cases[] = {
      {"exp", {0.0, 0.0}, {1, 0}, true},
      {"exp", {-0.0, 0.0}, {1, 0}, true},
      {"exp", {2.0, kInf}, {kNaN, kNaN}, false},
      {"exp", {kInf, 0.0}, {kInf, 0}, true},
      {"exp", {-kInf, 1.0}, {0, 0}, true},
      {"exp", {kInf, 1.0}, {kInf, kInf}, false},
      {"exp", {-kInf, kInf}, {0, 0}, false},
      {"exp", {kInf, kInf}, {kInf, kNaN}, false},
      {"exp", {kNaN, 0.0}, {kNaN, 0}, true},
      {"exp", {kNaN, 1.0}, {kNaN, kNaN}, false},
      {"log", {-0.0, 0.0}, {-kInf, M_PI}, true},
      {"log", {0.0, 0.0}, {-kInf, 0}, true},
      {"log", {1.0, kInf}, {kInf, M_PI / 2}, true},
      {"log", {-kInf, 1.0}, {kInf, M_PI}, true},
      {"log", {kInf, 1.0}, {kInf, 0}, true},
      {"log", {kInf, kNaN}, {kInf, kNaN}, false},
      {"log", {kNaN, kNaN}, {kNaN, kNaN}, false},
      {"log1p", {-1.0, 0.0}, {-kInf, 0}, true},
      {"sqrt", {0.0, 0.0}, {0, 0}, true},
      {"sqrt", {-0.0, 0.0}, {0, 0}, true},
      {"sqrt", {1.0, kInf}, {kInf, kInf}, true},
      {"sqrt", {kNaN, kInf}, {kInf, kInf}, true},
      {"sqrt", {-kInf, 1.0}, {0, kInf}, true},
      {"sqrt", {kInf, 1.0}, {kInf, 0}, true},
      {"sqrt", {-kInf, kNaN}, {kNaN, kInf}, false},
      {"sqrt", {kInf, kNaN}, {kInf, kNaN}, false},
      {"sqrt", {kNaN, 1.0}, {kNaN, kNaN}, false},
      {"sqrt", {-4.0, 0.0}, {0, 2}, true},
      {"sqrt", {-4.0, -0.0}, {0, -2}, true},
      {"sinh", {0.0, 0.0}, {0, 0}, true},
      {"sinh", {0.0, kInf}, {0, kNaN}, false},
      {"sinh", {kInf, 0.0}, {kInf, 0}, true},
      {"sinh", {kInf, kInf}, {kInf, kNaN}, false},
      {"sinh", {kNaN, 0.0}, {kNaN, 0}, true},
      {"cosh", {0.0, 0.0}, {1, 0}, true},
      {"cosh", {0.0, kInf}, {kNaN, 0}, false},
      {"cosh", {kInf, 0.0}, {kInf, 0}, true},
      {"cosh", {kInf, kInf}, {kInf, kNaN}, false},
      {"tanh", {0.0, 0.0}, {0, 0}, true},
      {"tanh", {kInf, 1.0}, {1, 0}, true},
      {"tanh", {kInf, 2.0}, {1, 0}, true},  // +0 for every y > 0 (the standard), not C99's 0 sin 2y
      {"tanh", {kInf, kInf}, {1, 0}, false},
      {"tanh", {kInf, kNaN}, {1, 0}, false},
      {"tanh", {kNaN, 0.0}, {kNaN, 0}, true},
      {"tanh", {1.0, kInf}, {kNaN, kNaN}, false},
      {"tanh", {800.0, 1.0}, {1, 0}, false},
      {"sign", {0.0, 0.0}, {0, 0}, false},
      {"sign", {kNaN, 1.0}, {kNaN, kNaN}, false},
      {"sign", {-3.0, 4.0}, {-0.6, 0.8}, false},
      {"expm1", {0.0, 0.0}, {0, 0}, true},
      {"expm1", {-0.0, 0.0}, {0, 0}, true},  // the standard: +0 + 0i for either zero
      {"expm1", {-kInf, 1.0}, {-1, 0}, false},
      // cplxfn: asinh, acos, acosh, atanh (asin, atan through them), log2, log10, round
      {"asinh", {0.0, 0.0}, {0, 0}, true},
      {"asinh", {-0.0, -0.0}, {-0.0, -0.0}, true},
      {"asinh", {1.0, kInf}, {kInf, M_PI / 2}, true},
      {"asinh", {1.0, kNaN}, {kNaN, kNaN}, false},
      {"asinh", {kInf, 1.0}, {kInf, 0}, true},
      {"asinh", {kInf, kInf}, {kInf, M_PI / 4}, true},
      {"asinh", {kInf, kNaN}, {kInf, kNaN}, false},
      {"asinh", {kNaN, 0.0}, {kNaN, 0}, true},
      {"asinh", {kNaN, 1.0}, {kNaN, kNaN}, false},
      {"asinh", {kNaN, kNaN}, {kNaN, kNaN}, false},
      {"acos", {0.0, 0.0}, {M_PI / 2, -0.0}, true},
      {"acos", {-0.0, 0.0}, {M_PI / 2, -0.0}, true},
      {"acos", {0.0, -0.0}, {M_PI / 2, 0.0}, true},
      {"acos", {0.0, kNaN}, {M_PI / 2, kNaN}, false},
      {"acos", {1.0, kInf}, {M_PI / 2, -kInf}, false},
      {"acos", {1.0, kNaN}, {kNaN, kNaN}, false},
      {"acos", {-kInf, 1.0}, {M_PI, -kInf}, false},
      {"acos", {kInf, 1.0}, {0, -kInf}, true},
      {"acos", {-kInf, kInf}, {3 * M_PI / 4, -kInf}, false},
      {"acos", {kInf, kInf}, {M_PI / 4, -kInf}, false},
      {"acos", {kNaN, 1.0}, {kNaN, kNaN}, false},
      {"acos", {kNaN, kInf}, {kNaN, -kInf}, false},
      {"acos", {kNaN, kNaN}, {kNaN, kNaN}, false},
      {"acosh", {0.0, 0.0}, {0, M_PI / 2}, true},
      {"acosh", {-0.0, 0.0}, {0, M_PI / 2}, true},
      {"acosh", {1.0, kInf}, {kInf, M_PI / 2}, false},
      {"acosh", {1.0, kNaN}, {kNaN, kNaN}, false},
      {"acosh", {-kInf, 1.0}, {kInf, M_PI}, false},
      {"acosh", {kInf, 1.0}, {kInf, 0}, true},
      {"acosh", {-kInf, kInf}, {kInf, 3 * M_PI / 4}, false},
      {"acosh", {kInf, kInf}, {kInf, M_PI / 4}, false},
      {"acosh", {kInf, kNaN}, {kInf, kNaN}, false},
      {"acosh", {-kInf, kNaN}, {kInf, kNaN}, false},
      {"acosh", {kNaN, 1.0}, {kNaN, kNaN}, false},
      {"acosh", {kNaN, kInf}, {kInf, kNaN}, false},
      {"acosh", {kNaN, kNaN}, {kNaN, kNaN}, false},
      {"atanh", {0.0, 0.0}, {0, 0}, true},
      {"atanh", {-0.0, 0.0}, {-0.0, 0}, true},
      {"atanh", {0.0, kNaN}, {0, kNaN}, true},
      {"atanh", {1.0, 0.0}, {kInf, 0}, true},
      {"atanh", {1.0, kInf}, {0, M_PI / 2}, true},
      {"atanh", {1.0, kNaN}, {kNaN, kNaN}, false},
      {"atanh", {kInf, 1.0}, {0, M_PI / 2}, true},
      {"atanh", {kInf, kInf}, {0, M_PI / 2}, true},
      {"atanh", {kInf, kNaN}, {0, kNaN}, true},
      {"atanh", {kNaN, 1.0}, {kNaN, kNaN}, false},
      {"atanh", {kNaN, kInf}, {0, M_PI / 2}, false},
      {"atanh", {kNaN, kNaN}, {kNaN, kNaN}, false},
      {"asin", {0.0, 0.0}, {0, 0}, true},
      {"asin", {-0.0, -0.0}, {-0.0, -0.0}, true},
      {"atan", {0.0, 0.0}, {0, 0}, true},
      {"atan", {0.0, 1.0}, {0, kInf}, true},
      {"log2", {0.0, 0.0}, {-kInf, 0}, true},
      {"log2", {-0.0, 0.0}, {-kInf, M_PI / M_LN2}, true},
      {"log2", {kInf, kNaN}, {kInf, kNaN}, false},
      {"log10", {-kInf, 1.0}, {kInf, M_PI / M_LN10}, true},
      {"log10", {kNaN, kNaN}, {kNaN, kNaN}, false},
      {"round", {2.5, -0.5}, {2, -0.0}, true},
      {"round", {3.5, 1.5}, {4, 2}, true},
      {"round", {kNaN, -kInf}, {kNaN, -kInf}, false},
  };
  const std::map<std::string, Tensor (*)(const Tensor&)> fns = {
      {"exp", [](const Tensor& x) { return exp(x); }},
      {"log", [](const Tensor& x) { return log(x); }},
      {"log1p", [](const Tensor& x) { return log1p(x); }},
      {"sqrt", [](const Tensor& x) { return sqrt(x); }},
      {"sinh", [](const Tensor& x) { return sinh(x); }},
      {"cosh", [](const Tensor& x) { return cosh(x); }},
      {"tanh", [](const Tensor& x) { return tanh(x); }},
      {"sign", [](const Tensor& x) { return sign(x); }},
      {"expm1", [](const Tensor& x) { return expm1(x); }},
      {"asin", [](const Tensor& x) { return asin(x); }},
      {"acos", [](const Tensor& x) { return acos(x); }},
      {"atan", [](const Tensor& x) { return atan(x); }},
      {"asinh", [](const Tensor& x) { return asinh(x); }},
      {"acosh", [](const Tensor& x) { return acosh(x); }},
      {"atanh", [](const Tensor& x) { return atanh(x); }},
      {"log2", [](const Tensor& x) { return log2(x); }},
      {"log10", [](const Tensor& x) { return log10(x); }},
      {"round", [](const Tensor& x) { return round(x); }},
  };
  for (DType t : kComplexDTypes)
    for (const Case& c : cases) {
      const C got = read_c(fns.at(c.fn)(make_c({c.in}, t, {1})))[0];
      const std::string what = std::string(c.fn) + "(" + std::to_string(c.in.real()) + ", " +
                               std::to_string(c.in.imag()) + ") " + dtype_name(t);
      auto part = [&](long double g, double w, const char* which) {
        if (std::isnan(w)) {
          EXPECT_TRUE(std::isnan(g)) << what << " " << which << " " << static_cast<double>(g);
        } else if (std::isinf(w)) {
          EXPECT_EQ(static_cast<double>(g), w) << what << " " << which;
        } else {
          EXPECT_NEAR(static_cast<double>(g), w, tol_of(t)) << what << " " << which;
          if (c.signs && w == 0) {
            EXPECT_EQ(std::signbit(g), std::signbit(w)) << what << " " << which << " sign";
          }
        }
      };
      if (std::isinf(c.want.imag()) && std::isinf(c.want.real()) && c.fn == std::string("exp")) {
        // exp(+inf + iy) = +inf cis(y): infinite parts with the signs of cos y and sin y
        EXPECT_TRUE(std::isinf(got.real()) && std::isinf(got.imag())) << what;
        continue;
      }
      part(got.real(), c.want.real(), "re");
      part(got.imag(), c.want.imag(), "im");
    }
}

// cplxfn: the inverse functions on both sides of their cuts (signed zeros), near +-1, +-i, and at
// the extremes of each dtype (|z| near the largest finite value, tiny values, the asymptote's
// threshold) against glibc's long double functions: no finite input overflows, each part
// within a few ulps of its own magnitude (relative to |f(z)| where a part is tiny). (Not tested
// here: log's real part near |z| = 1 off the axes, e.g. log(0.6 + 0.8i), has an absolute error
// of an ulp of 1, not a relative one: the unary test above checks it relative to |log z|.)
TEST(ComplexDTypes, InverseFunctionsOnCutsAndAtExtremes) {
  for (DType t : kComplexDTypes) {
    const double big = t == c64 ? std::numeric_limits<float>::max() : std::numeric_limits<double>::max();
    const double tiny = t == c64 ? 1e-30 : 1e-290;
    const std::vector<std::complex<double>> v = {
        {2, 0.0},   {2, -0.0},    {-3, 0.0},       {-3, -0.0},   {0.0, 2},       {-0.0, 2},   {0.0, -5},
        {-0.0, -5}, {1, 0.0},     {-1, -0.0},      {0.0, 1},     {1, tiny},      {-1, -tiny}, {tiny, 1},
        {big, big}, {-big, 1},    {big / 2, -big}, {1, -big},    {tiny, -tiny},  {0.5, tiny}, {1e8, 1e-3},
        {3e7, 4e7}, {1.3e8, 0.0}, {5000, -1},      {4000, 3000}, {0.9999, 1e-4}, {-1e20, 5},  {1e-5, 1e5},
        {1, 5000},  {1.5, 1e-7},  {2e-7, 1.5},     {-0.3, 1e10}};
    // The inverse functions, log and log10 of the unary table (the same references).
    const std::set<std::string> names = {"asin", "acos", "atan", "asinh", "acosh", "atanh", "log", "log10"};
    std::vector<UnaryCase> fns;
    for (const UnaryCase& c : unary_cases())
      if (names.count(c.name)) fns.push_back(c);
    ASSERT_EQ(fns.size(), names.size());
    Tensor x = make_c(v, t, {static_cast<int64_t>(v.size())});
    const double eps = t == c64 ? 1.2e-7 : 2.3e-16;
    for (const UnaryCase& f : fns) {
      const std::vector<C> got = read_c(f.f(x));
      for (std::size_t k = 0; k < v.size(); ++k) {
        const C z = rounded(v[k], t), want = f.ref(z);
        const long double mag = std::abs(want);
        auto ok = [&](long double g, long double w) {
          if (std::isinf(w)) return g == w;
          const long double scale = std::max(std::fabs(w), mag * 1e-3L);
          return std::fabs(g - w) <= 16 * eps * scale + 1e-300L;
        };
        EXPECT_TRUE(ok(got[k].real(), want.real()) && ok(got[k].imag(), want.imag()))
            << f.name << " " << dtype_name(t) << " of (" << v[k].real() << ", " << v[k].imag() << "): got ("
            << static_cast<double>(got[k].real()) << ", " << static_cast<double>(got[k].imag()) << ") want ("
            << static_cast<double>(want.real()) << ", " << static_cast<double>(want.imag()) << ")";
      }
    }
  }
}

TEST(ComplexDTypes, UnsupportedRowsRaiseAtBuildTimeAndLeaveInputsIntact) {
  for (DType t : kComplexDTypes) {
    Tensor x = make_c({{1, 2}, {-3, 0.5}}, t, {2});
    Tensor y = make_c({{0.5, 0.5}, {2, -1}}, t, {2});
    const std::vector<std::pair<const char*, std::function<Tensor()>>> bad = {
        {"floor", [&] { return floor(x); }},
        {"ceil", [&] { return ceil(x); }},
        {"trunc", [&] { return trunc(x); }},
        {"signbit", [&] { return signbit(x); }},
        {"erf", [&] { return erf(x); }},
        {"sigmoid", [&] { return sigmoid(x); }},
        {"relu", [&] { return relu(x); }},
        {"rsqrt", [&] { return rsqrt(x); }},
        {"lt", [&] { return x < y; }},
        {"le", [&] { return x <= y; }},
        {"gt", [&] { return x > y; }},
        {"ge", [&] { return x >= y; }},
        {"maximum", [&] { return maximum(x, y); }},
        {"minimum", [&] { return minimum(x, y); }},
        {"atan2", [&] { return atan2(x, y); }},
        {"hypot", [&] { return hypot(x, y); }},
        {"copysign", [&] { return copysign(x, y); }},
        {"logaddexp", [&] { return logaddexp(x, y); }},
        {"nextafter", [&] { return nextafter(x, y); }},
        {"remainder", [&] { return remainder(x, y); }},
        {"floor_divide", [&] { return floor_divide(x, y); }},
        {"bitwise_and", [&] { return bitwise_and(x, y); }},
        {"max", [&] { return max(x); }},
        {"min", [&] { return min(x); }},
        {"cast to f32", [&] { return x.cast(f32); }},
        {"complex of complex", [&] { return complex(x, y); }},
        {"rand", [&] { return rand({2}, t); }},
    };
    for (const auto& [name, f] : bad) {
      try {
        (void)f();
        ADD_FAILURE() << name << " of " << dtype_name(t) << " did not raise";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::DTypeMismatch) << name << ": " << e.what();
      }
    }
    EXPECT_EQ(read_c(x)[1], rounded({-3, 0.5}, t));  // intact
    EXPECT_EQ(read_c(y)[0], rounded({0.5, 0.5}, t));
  }
}

TEST(ComplexDTypes, AbsOfFusedComplexArithmeticIsOneKernel) {
  const auto v = values();
  const auto n = static_cast<int64_t>(v.size());
  std::vector<std::complex<double>> w(v.rbegin(), v.rend());
  for (DType t : kComplexDTypes) {
    Tensor a = make_c(v, t, {n}), b = make_c(w, t, {n}), c = make_c(v, t, {n}).eval();
    (void)a.eval(), (void)b.eval();
    Tensor y = abs(a * b + c);
    reset_stats();
    const std::vector<double> got = y.cast(f64).to_vector<double>();
    EXPECT_EQ(y.dtype(), real_dtype(t));
    if (core::env().backend != "interpreter") {
      EXPECT_EQ(stats().kernels_launched, 1u) << dtype_name(t);
    }
    for (std::size_t k = 0; k < got.size(); ++k) {
      const C x = rounded(v[k], t), u = rounded(w[k], t);
      const long double want = std::abs(x * u + x);
      EXPECT_NEAR(got[k], static_cast<double>(want),
                  8 * tol_of(t) * static_cast<double>(std::abs(x) * std::abs(u) + std::abs(x)));
    }
  }
}

TEST(ComplexDTypes, MovementCatAndTakeMoveWholeValues) {
  for (DType t : kComplexDTypes) {
    Tensor x = make_c({{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}}, t, {2, 3});
    const auto fl = read_c(flip(x, {1}));
    EXPECT_EQ(fl[0], C(5, 6));
    EXPECT_EQ(fl[5], C(7, 8));
    const auto tr = read_c(x.transpose(0, 1).reshape({6}));
    EXPECT_EQ(tr[1], C(7, 8));
    const auto sl = read_c(x.slice(1, 1, 3));
    EXPECT_EQ(sl[0], C(3, 4));
    EXPECT_EQ(sl[3], C(11, 12));
    Tensor c = cat({x, conj(x)}, 0);
    ASSERT_EQ(c.shape(), (Shape{4, 3}));
    EXPECT_EQ(read_c(c)[7], C(3, -4));
    const auto tk = read_c(take(x, tensor(std::vector<int64_t>{2, 0, -1}, {3}), 1));
    EXPECT_EQ(tk[0], C(5, 6));
    EXPECT_EQ(tk[1], C(1, 2));
    EXPECT_EQ(tk[5], C(11, 12));
    EXPECT_EQ(read_c(x.expand({2, 2, 3}))[9], C(7, 8));
  }
}

// matmul (batched, broadcast, a transposed operand, matrix-vector, promotion with a real operand)
// against a std::complex<long double> loop; on the CPU backends c64/c128 go through the BLAS's
// cgemm/zgemm when it has them, else the interpreter's loop.
TEST(ComplexDTypes, MatmulMatchesStdComplexLoops) {
  Rng rng(7);
  auto rand_c = [&](int64_t n) {
    std::vector<std::complex<double>> v;
    for (int64_t i = 0; i < n; ++i) v.emplace_back(rng.uniform(-2, 2), rng.uniform(-2, 2));
    return v;
  };
  for (DType t : kComplexDTypes) {
    struct Case {
      Shape a, b;
      bool transpose_a;
    };
    for (const Case& c :
         {Case{{3, 4}, {4, 5}, false}, Case{{2, 3, 4}, {4, 2}, false}, Case{{4, 3}, {4, 6}, true},
          Case{{5, 7}, {7}, false}, Case{{40, 33}, {33, 37}, false}, Case{{3, 0}, {0, 2}, false}}) {
      const std::string what = dtype_name(t) + std::string(" ") + shape_str(c.a) + " @ " + shape_str(c.b);
      const auto av = rand_c(core::numel(c.a)), bv = rand_c(core::numel(c.b));
      Tensor a = make_c(av, t, c.a), b = make_c(bv, t, c.b);
      if (c.transpose_a) a = a.transpose(0, 1);  // (3, 4) view of a (4, 3) buffer
      Tensor y = matmul(a, b);
      ASSERT_EQ(y.dtype(), t) << what;
      // The reference reads the operands back (rounded to t) as contiguous (batch..., m, k), (k, n).
      const std::vector<C> A = read_c(a), B = read_c(b);
      const Shape as = a.shape();
      const int64_t m = as[as.size() - 2], k = as[as.size() - 1];
      const int64_t n = c.b.size() == 1 ? 1 : c.b[1];
      const int64_t batch = core::numel(as) / std::max<int64_t>(m * k, 1);
      const std::vector<C> got = read_c(y);
      ASSERT_EQ(static_cast<int64_t>(got.size()), (c.a.size() == 3 ? c.a[0] : 1) * m * n) << what;
      for (int64_t q = 0; q < (k == 0 ? 1 : batch); ++q)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            C want(0, 0);
            long double scale = 0;
            for (int64_t p = 0; p < k; ++p) {
              want +=
                  A[static_cast<std::size_t>(q * m * k + i * k + p)] * B[static_cast<std::size_t>(p * n + j)];
              scale += std::abs(A[static_cast<std::size_t>(q * m * k + i * k + p)]) *
                       std::abs(B[static_cast<std::size_t>(p * n + j)]);
            }
            const C g = got[static_cast<std::size_t>(q * m * n + i * n + j)];
            EXPECT_LE(std::abs(g - want), 4 * tol_of(t) * std::max<long double>(scale, 1)) << what;
          }
    }
  }
  // A real operand promotes: c64 @ f64 -> c128 (the Array API table).
  Tensor z = make_c({{1, 2}, {3, -1}}, c64, {1, 2});
  Tensor r = tensor(std::vector<double>{2.0, -1.0}, {2, 1});
  Tensor y = matmul(z, r);
  EXPECT_EQ(y.dtype(), c128);
  EXPECT_EQ(read_c(y)[0], C(2 * 1 - 3, 2 * 2 + 1));
}

// cumulative_sum / cumulative_prod along either axis, contiguous and transposed, against loops.
TEST(ComplexDTypes, ScansMatchStdComplexLoops) {
  Rng rng(11);
  for (DType t : kComplexDTypes)
    for (bool transposed : {false, true})
      for (int64_t axis : {0, 1})
        for (bool prod : {false, true}) {
          const std::string what = dtype_name(t) +
                                   std::string(prod ? " cumulative_prod" : " cumulative_sum") + " axis " +
                                   std::to_string(axis) + (transposed ? " transposed" : "");
          std::vector<std::complex<double>> v;
          for (int i = 0; i < 5 * 6; ++i) v.emplace_back(rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2));
          Tensor x = make_c(v, t, {5, 6});
          if (transposed) x = x.transpose(0, 1);  // (6, 5)
          Tensor y = prod ? cumulative_prod(x, axis) : cumulative_sum(x, axis);
          ASSERT_EQ(y.dtype(), t) << what;
          const Shape s = x.shape();
          const std::vector<C> X = read_c(x), got = read_c(y);
          for (int64_t r = 0; r < s[static_cast<std::size_t>(1 - axis)]; ++r) {
            C acc = prod ? C(1, 0) : C(0, 0);
            for (int64_t j = 0; j < s[static_cast<std::size_t>(axis)]; ++j) {
              const int64_t at = axis == 1 ? r * s[1] + j : j * s[1] + r;
              acc = prod ? acc * X[static_cast<std::size_t>(at)] : acc + X[static_cast<std::size_t>(at)];
              EXPECT_TRUE(near(got[static_cast<std::size_t>(at)], acc, 8 * tol_of(t)))
                  << what << " at " << at;
            }
          }
        }
  // include_initial puts the identity in front; an integer input is not promoted to complex.
  Tensor z = make_c({{1, 1}, {2, -1}}, c128, {2});
  const auto with0 = read_c(cumulative_prod(z, 0, std::nullopt, true));
  ASSERT_EQ(with0.size(), 3u);
  EXPECT_EQ(with0[0], C(1, 0));
  EXPECT_EQ(with0[2], C(3, 1));
}

TEST(ComplexDTypes, AutogradFlowsThroughComplexValues) {
  // Complex leaves require gradients and real leaves' gradients flow through complex
  // intermediates (docs/autograd.md; tests/autograd/test_gradcheck_complex.cpp checks every row):
  // |complex(x, 2x)| = sqrt(5) |x|, so d/dx = sqrt(5) sign(x).
  Tensor z = make_c({{1, 2}}, c64, {1});
  EXPECT_NO_THROW(z.requires_grad(true));
  Tensor x = tensor(std::vector<double>{1.5, -2.0}, {2});
  x.requires_grad(true);
  sum(abs(complex(x, 2.0 * x))).backward();
  const std::vector<double> g = x.grad().to_vector<double>();
  EXPECT_NEAR(g[0], std::sqrt(5.0), 1e-12);
  EXPECT_NEAR(g[1], -std::sqrt(5.0), 1e-12);
  EXPECT_EQ(x.to_vector<double>(), (std::vector<double>{1.5, -2.0}));  // intact
}

}  // namespace

void sweep_complex(int op_index, DType t) {
  const auto op = static_cast<ir::Op>(op_index);
  Data d = concat(edges(t), random_data(t, 24, 5 + static_cast<uint64_t>(op_index)));
  while (d.size() % 8) d = concat(d, random_data(t, 1, d.size()));
  for (Layout l : kLayouts) {
    const std::string what = std::string(ir::op_name(op)) + " " + dtype_name(t) + " " + layout_name(l);
    Tensor x = make(d, l);
    if (op == ir::Op::Complex) {
      // complex(x, -x): integers and bools take the f32 route, as every int-to-float function
      const DType r = is_floating(t) ? (t == f64 ? f64 : f32) : f32;
      Tensor y = complex(x, -x.cast(r));
      ASSERT_EQ(y.dtype(), complex_dtype(r)) << what;
      ASSERT_EQ(y.shape(), x.shape()) << what;
      expect_values(read(real(y)), read(x.cast(r)), 0, what + " real part");
      expect_values(read(imag(y)), read(-x.cast(r)), 0, what + " imaginary part");
      continue;
    }
    Tensor y = op == ir::Op::Conj ? conj(x) : op == ir::Op::Real ? real(x) : imag(x);
    ASSERT_EQ(y.dtype(), t) << what;
    ASSERT_EQ(y.shape(), x.shape()) << what;
    expect_values(read(y), read(op == ir::Op::Imag ? zeros(x.shape(), t) : x), 0, what);
  }
}

}  // namespace opt
