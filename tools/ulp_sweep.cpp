// The errors of cgrad's own f32 and f64 functions (include/cgrad/scalar.hpp), the figures of
// docs/semantics.md's tables: every float through a one-argument function, or random pairs
// through atan2 and pow, against the C library's double (pairs: long double) function; random
// doubles through the f64 functions (`NAME_f64`; pairs for atan2_f64 and pow_f64) against the long
// double function.
//
//   g++ -O2 -march=native -std=c++20 -ffp-contract=off -Iinclude tools/ulp_sweep.cpp -o /tmp/ulp_sweep
//   -lpthread /tmp/ulp_sweep atan          # every float: about 25 s on 2 cores /tmp/ulp_sweep pow 40000000
//   # 4 sets of random pairs: any bits, [-8, 8)^2, x in [0, 4) with y in [-30, 30), x in [1/2, 2)
//   # with y log x in [-104, 89)
//   # (the random sets' inputs come from std::uniform_real_distribution, whose arithmetic
//   # -ffp-contract changes: compare their hashes only between builds with the same flag)
//   /tmp/ulp_sweep tanh_f64 40000000   # 5 sets of random doubles: any bits, |x| below 2^-20, 1,
//   # 30 and 720 (erf_f64: also below 6, and subnormals); atan2_f64: 3 sets of random pairs
//
// Prints the worst error in ulps (of the float nearest the reference, as
// tests/ops/test_float_math.cpp measures it), how many results differ from the reference rounded
// to float, and a hash of every result's bits: a change to a polynomial that keeps the hash kept
// every result. -march=native compiles the helpers as the generated kernels do (FMA instructions);
// the library's interpreter calls the exact fma() and gives the same bits.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cgrad/scalar.hpp"

namespace {

namespace s = cgrad::scalar;

double ulp_of(double ref) {
  float f = static_cast<float>(ref);
  if (std::isinf(f)) f = std::copysign(3.4028235e38f, f);
  const float a = std::fabs(f);
  if (a < 1.17549435e-38f) return 1.4012984643e-45;  // the subnormals' quantum
  return static_cast<double>(std::nextafter(a, INFINITY)) - static_cast<double>(a);
}

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
uint32_t to_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// f64: the ulp of the double nearest the long double reference.
double ulp_of_f64(long double ref) {
  double d = static_cast<double>(ref);
  if (std::isinf(d)) d = std::copysign(1.7976931348623157e308, d);
  const double a = std::fabs(d);
  if (a < 2.2250738585072014e-308) return 4.9406564584124654e-324;
  return std::nextafter(a, INFINITY) - a;
}
uint64_t bits_of(float f) { return to_bits(f); }
uint64_t bits_of(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
double ulp_in(float, long double ref) { return ulp_of(static_cast<double>(ref)); }
double ulp_in(double, long double ref) { return ulp_of_f64(ref); }

// The results of one function in F (float or double) against its long double reference.
template <class F>
struct TallyOf {
  double worst = 0;
  F wx = 0, wy = 0;
  uint64_t off = 0, hash = 0;
  // One result `got` against the reference `want`; NaN must meet NaN, infinity its equal.
  void add(F got, long double want, F x, F y) {
    hash = hash * 1000003u + bits_of(got);
    const bool nan = std::isnan(got), nan_want = std::isnan(want);
    const F rounded = static_cast<F>(want);
    double e = 0;
    if (nan || nan_want)
      e = nan == nan_want ? 0 : 1e9;
    else if (std::isinf(got) || std::isinf(rounded))
      e = got == rounded ? 0 : 1e9;
    else
      // (divided in long double: a difference below the subnormals' quantum would round to 0 or 1 of it)
      e = static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp_in(got, want));
    if (!nan_want && got != rounded) ++off;
    if (e > worst) worst = e, wx = x, wy = y;
  }
  void merge(const TallyOf& o) {
    if (o.worst > worst) worst = o.worst, wx = o.wx, wy = o.wy;
    off += o.off;
    hash = hash * 31 + o.hash;
  }
};
using Tally = TallyOf<float>;
using TallyF64 = TallyOf<double>;

using Fn1 = float (*)(float);
using Ref1 = double (*)(double);
using Fn2 = float (*)(float, float);
using Ref2 = long double (*)(long double, long double);

struct One {
  const char* name;
  Fn1 own;
  Ref1 ref;
};
const One kOne[] = {
    {"exp", [](float x) { return s::exp_f32(x); }, [](double v) { return std::exp(v); }},
    {"log", [](float x) { return s::log_f32(x); }, [](double v) { return std::log(v); }},
    {"log1p", [](float x) { return s::log1p_f32(x); }, [](double v) { return std::log1p(v); }},
    {"expm1", [](float x) { return s::expm1_f32(x); }, [](double v) { return std::expm1(v); }},
    {"tanh", [](float x) { return s::tanh_f32(x); }, [](double v) { return std::tanh(v); }},
    {"erf", [](float x) { return s::erf_f32(x); }, [](double v) { return std::erf(v); }},
    {"sin", [](float x) { return s::sin_f32(x); }, [](double v) { return std::sin(v); }},
    {"cos", [](float x) { return s::cos_f32(x); }, [](double v) { return std::cos(v); }},
    {"tan", [](float x) { return s::tan_f32(x); }, [](double v) { return std::tan(v); }},
    {"atan", [](float x) { return s::atan_f32(x); }, [](double v) { return std::atan(v); }},
    {"asin", [](float x) { return s::asin_f32(x); }, [](double v) { return std::asin(v); }},
    {"acos", [](float x) { return s::acos_f32(x); }, [](double v) { return std::acos(v); }},
    {"asinh", [](float x) { return s::asinh_f32(x); }, [](double v) { return std::asinh(v); }},
    {"acosh", [](float x) { return s::acosh_f32(x); }, [](double v) { return std::acosh(v); }},
    {"atanh", [](float x) { return s::atanh_f32(x); }, [](double v) { return std::atanh(v); }},
    {"sinh", [](float x) { return s::sinh_f32(x); }, [](double v) { return std::sinh(v); }},
    {"cosh", [](float x) { return s::cosh_f32(x); }, [](double v) { return std::cosh(v); }},
    {"log2", [](float x) { return s::log2_f32(x); }, [](double v) { return std::log2(v); }},
    {"log10", [](float x) { return s::log10_f32(x); }, [](double v) { return std::log10(v); }},
};

struct OneF64 {
  const char* name;
  double (*own)(double);
  long double (*ref)(long double);
};
const OneF64 kOneF64[] = {
    {"expm1_f64", [](double x) { return s::expm1_f64(x); }, [](long double v) { return expm1l(v); }},
    {"tanh_f64", [](double x) { return s::tanh_f64(x); }, [](long double v) { return tanhl(v); }},
    {"sinh_f64", [](double x) { return s::sinh_f64(x); }, [](long double v) { return sinhl(v); }},
    {"cosh_f64", [](double x) { return s::cosh_f64(x); }, [](long double v) { return coshl(v); }},
    {"exp_f64", [](double x) { return s::exp_f64(x); }, [](long double v) { return expl(v); }},
    {"log_f64", [](double x) { return s::log_f64(x); }, [](long double v) { return logl(v); }},
    {"log1p_f64", [](double x) { return s::log1p_f64(x); }, [](long double v) { return log1pl(v); }},
    {"log2_f64", [](double x) { return s::log2_f64(x); }, [](long double v) { return log2l(v); }},
    {"log10_f64", [](double x) { return s::log10_f64(x); }, [](long double v) { return log10l(v); }},
    {"atan_f64", [](double x) { return s::atan_f64(x); }, [](long double v) { return atanl(v); }},
    {"asin_f64", [](double x) { return s::asin_f64(x); }, [](long double v) { return asinl(v); }},
    {"acos_f64", [](double x) { return s::acos_f64(x); }, [](long double v) { return acosl(v); }},
    {"sin_f64", [](double x) { return s::sin_f64(x); }, [](long double v) { return sinl(v); }},
    {"cos_f64", [](double x) { return s::cos_f64(x); }, [](long double v) { return cosl(v); }},
    {"tan_f64", [](double x) { return s::tan_f64(x); }, [](long double v) { return tanl(v); }},
    {"asinh_f64", [](double x) { return s::asinh_f64(x); }, [](long double v) { return asinhl(v); }},
    {"acosh_f64", [](double x) { return s::acosh_f64(x); }, [](long double v) { return acoshl(v); }},
    {"atanh_f64", [](double x) { return s::atanh_f64(x); }, [](long double v) { return atanhl(v); }},
    {"erf_f64", [](double x) { return s::erf_f64(x); }, [](long double v) { return erfl(v); }},
};

struct Two {
  const char* name;
  Fn2 own;
  Ref2 ref;
};
const Two kTwo[] = {
    {"atan2", [](float y, float x) { return s::atan2_f32(y, x); },
     [](long double y, long double x) { return atan2l(y, x); }},
    {"pow", [](float x, float y) { return s::pow_f32(x, y); },
     [](long double x, long double y) { return powl(x, y); }},
};

template <class T = Tally, class Body>
T in_threads(unsigned threads, Body body) {
  std::vector<T> parts(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { parts[t] = body(t); });
  for (auto& th : pool) th.join();
  T all;
  for (const T& p : parts) all.merge(p);
  return all;
}

template <class F>
void print(const char* name, const char* what, const TallyOf<F>& t, uint64_t n) {
  std::printf(
      "%-6s %s: worst %.6f ulp at (%a, %a); %llu of %llu differ from the reference rounded; hash %016llx\n",
      name, what, t.worst, static_cast<double>(t.wx), static_cast<double>(t.wy),
      static_cast<unsigned long long>(t.off), static_cast<unsigned long long>(n),
      static_cast<unsigned long long>(t.hash));
}

// `count` random inputs (split among the threads) in each of the named sets: draw(g, set, part)
// draws one input with g and adds its result to the tally `part`.
template <class F, class Draw>
void random_sets(const char* name, const std::vector<const char*>& sets, uint64_t seed, uint64_t count,
                 unsigned threads, Draw draw) {
  for (std::size_t set = 0; set < sets.size(); ++set) {
    const TallyOf<F> t = in_threads<TallyOf<F>>(threads, [&](unsigned i) {
      std::mt19937_64 g(seed + i + 10 * set);
      TallyOf<F> part;
      for (uint64_t k = 0; k < count / threads; ++k) draw(g, static_cast<int>(set), part);
      return part;
    });
    print(name, sets[set], t, count / threads * threads);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: ulp_sweep FUNCTION [pairs]\n");
    return 2;
  }
  const std::string which = argv[1];
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  for (const One& f : kOne) {
    if (which != f.name) continue;
    const uint64_t n = 1ull << 32;
    const Tally t = in_threads(threads, [&](unsigned i) {
      Tally part;
      for (uint64_t b = n * i / threads; b < n * (i + 1) / threads; ++b) {
        const float x = from_bits(static_cast<uint32_t>(b));
        part.add(f.own(x), f.ref(static_cast<double>(x)), x, 0);
      }
      return part;
    });
    print(f.name, "every float", t, n);
    return 0;
  }
  const uint64_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 40000000;
  for (const Two& f : kTwo) {
    if (which != f.name) continue;
    random_sets<float>(
        f.name,
        {"any bits", "[-8, 8)^2", "x in [0, 4), y in [-30, 30)", "x in [1/2, 2), y log x in [-104, 89)"}, 17,
        count, threads, [&](std::mt19937_64& g, int set, Tally& part) {
          float x, y;
          if (set == 0) {
            x = from_bits(static_cast<uint32_t>(g())), y = from_bits(static_cast<uint32_t>(g()));
          } else if (set == 1) {
            std::uniform_real_distribution<float> u8(-8.f, 8.f);
            x = u8(g), y = u8(g);
          } else if (set == 2) {
            std::uniform_real_distribution<float> u4(0.f, 4.f), u30(-30.f, 30.f);
            x = u4(g), y = u30(g);
          } else {  // pow's results near the ends of the float range
            std::uniform_real_distribution<float> uh(0.5f, 2.f), ut(-104.f, 89.f);
            x = uh(g), y = static_cast<float>(ut(g) / std::log(static_cast<double>(x)));
          }
          part.add(f.own(x, y), f.ref(x, y), x, y);
        });
    return 0;
  }
  if (which == "atan2_f64") {  // pairs: any bits, [-8, 8)^2, y in [-1, 1) 2^-10 and x in [-1, 1)
    random_sets<double>("atan2_f64", {"any bits", "[-8, 8)^2", "y small"}, 41, count, threads,
                        [](std::mt19937_64& g, int set, TallyF64& part) {
                          double y, x;
                          if (set == 0) {
                            const uint64_t a = g(), b = g();
                            std::memcpy(&y, &a, 8), std::memcpy(&x, &b, 8);
                          } else if (set == 1) {
                            std::uniform_real_distribution<double> u8(-8.0, 8.0);
                            y = u8(g), x = u8(g);
                          } else {
                            std::uniform_real_distribution<double> u1(-1.0, 1.0);
                            y = u1(g) * 0x1p-10, x = u1(g);
                          }
                          part.add(s::atan2_f64(y, x), atan2l(y, x), y, x);
                        });
    return 0;
  }
  if (which == "pow_f64") {  // pairs: any bits; x in [0, 4), y in [-30, 30); x near 1 and |y| up to
                             // 8192 (y log x near the overflow); x in [-8, 8), y an integer in [-60, 60]
    random_sets<double>("pow_f64",
                        {"any bits", "x in [0, 4), y in [-30, 30)", "x in [0.9, 1.1), |y| < 8192",
                         "x in [-8, 8), y in [-60, 60] integer"},
                        43, count, threads, [](std::mt19937_64& g, int set, TallyF64& part) {
                          double x, y;
                          if (set == 0) {
                            const uint64_t a = g(), b = g();
                            std::memcpy(&x, &a, 8), std::memcpy(&y, &b, 8);
                          } else if (set == 1) {
                            x = std::uniform_real_distribution<double>(0.0, 4.0)(g);
                            y = std::uniform_real_distribution<double>(-30.0, 30.0)(g);
                          } else if (set == 2) {
                            x = std::uniform_real_distribution<double>(0.9, 1.1)(g);
                            y = std::uniform_real_distribution<double>(-8192.0, 8192.0)(g);
                          } else {
                            x = std::uniform_real_distribution<double>(-8.0, 8.0)(g);
                            y = static_cast<double>(static_cast<int>(g() % 121) - 60);
                          }
                          part.add(s::pow_f64(x, y), powl(x, y), x, y);
                        });
    return 0;
  }
  for (const OneF64& f : kOneF64) {
    if (which != f.name) continue;
    // (the last two sets for sin, cos and tan: their reduction's range, and the doubles nearest
    // multiples of pi/2 below 2^20, where r cancels most)
    // (acosh_f64: 1 + |x| in the sets of x within a bound; atanh_f64: also |x| within 2^-20 of 1;
    // erf_f64: also |x| < 6, where erf is below 1, and |x| < 2^-1022, subnormal)
    const bool trig = which == "sin_f64" || which == "cos_f64" || which == "tan_f64";
    const bool acosh = which == "acosh_f64", atanh = which == "atanh_f64", erf = which == "erf_f64";
    std::vector<const char*> sets = {"any bits", "|x| < 2^-20", "|x| < 1", "|x| < 30", "|x| < 720"};
    if (acosh) sets = {"any bits", "1 + [0, 2^-20)", "1 + [0, 1)", "1 + [0, 30)", "1 + [0, 720)"};
    if (trig) sets.insert(sets.end(), {"|x| < 2^20", "near k pi/2"});
    if (atanh) sets.push_back("1 - |x| < 2^-20");
    if (erf) sets.insert(sets.end(), {"|x| < 6", "|x| < 2^-1022"});
    random_sets<double>(f.name, sets, 29, count, threads, [&](std::mt19937_64& g, int set, TallyF64& part) {
      const double bounds[] = {0, 0x1p-20, 1, 30, 720, 0x1p20};
      double x = set < 6 ? std::uniform_real_distribution<double>(-bounds[set], bounds[set])(g) : 0;
      if (set == 0) {  // (after a draw of x all the same: the hashes of earlier sweeps stay)
        const uint64_t b = g();
        std::memcpy(&x, &b, 8);
      } else if (set == 6) {
        const long double k = static_cast<long double>(g() % 667544),
                          pio2 = 1.57079632679489661923132169163975144L;
        x = std::nextafter(static_cast<double>(k * pio2), 0.0) +
            static_cast<double>(static_cast<int>(g() % 5) - 2) *
                std::ldexp(1.0, std::ilogb(k * pio2 + 1) - 52);
      }
      if (acosh && set > 0) x = 1 + std::fabs(x);
      if (atanh && set == 5) x = std::copysign(1 - std::fabs(x) * 0x1p-40, x);  // (x drawn below 2^20)
      if (erf && set == 5) x *= 6 * 0x1p-20;
      if (erf && set == 6) x = std::uniform_real_distribution<double>(-0x1p-1022, 0x1p-1022)(g);
      part.add(f.own(x), f.ref(x), x, 0);
    });
    return 0;
  }
  std::fprintf(stderr, "ulp_sweep: no function %s\n", which.c_str());
  return 2;
}
