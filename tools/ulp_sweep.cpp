// The errors of cgrad's own f32 functions (include/cgrad/scalar.hpp), the figures of
// docs/semantics.md's table: every float through a one-argument function, or random pairs
// through atan2 and pow, against the C library's double (pairs: long double) function.
//
//   g++ -O2 -march=native -std=c++20 -ffp-contract=off -Iinclude tools/ulp_sweep.cpp -o /tmp/ulp_sweep
//   -lpthread /tmp/ulp_sweep atan          # every float: about 25 s on 2 cores /tmp/ulp_sweep pow 40000000
//   # 3 sets of random pairs: any bits, [-8, 8)^2, x in [0, 4), y in [-30, 30)
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

struct Tally {
  double worst = 0;
  float wx = 0, wy = 0;
  uint64_t off = 0, hash = 0;
  // One result `got` against the reference `want`; NaN must meet NaN, infinity its equal.
  void add(float got, long double want, float x, float y) {
    hash = hash * 1000003u + to_bits(got);
    const bool nan = std::isnan(got), nan_want = std::isnan(want);
    const float rounded = static_cast<float>(want);
    double e = 0;
    if (nan || nan_want)
      e = nan == nan_want ? 0 : 1e9;
    else if (std::isinf(got) || std::isinf(rounded))
      e = got == rounded ? 0 : 1e9;
    else
      e = static_cast<double>(std::fabs(static_cast<long double>(got) - want)) /
          ulp_of(static_cast<double>(want));
    if (!nan_want && got != rounded) ++off;
    if (e > worst) worst = e, wx = x, wy = y;
  }
  void merge(const Tally& o) {
    if (o.worst > worst) worst = o.worst, wx = o.wx, wy = o.wy;
    off += o.off;
    hash = hash * 31 + o.hash;
  }
};

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

template <class Body>
Tally in_threads(unsigned threads, Body body) {
  std::vector<Tally> parts(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back([&, t] { parts[t] = body(t); });
  for (auto& th : pool) th.join();
  Tally all;
  for (const Tally& p : parts) all.merge(p);
  return all;
}

void print(const char* name, const char* what, const Tally& t, uint64_t n) {
  std::printf(
      "%-6s %s: worst %.6f ulp at (%a, %a); %llu of %llu differ from the reference rounded; hash %016llx\n",
      name, what, t.worst, static_cast<double>(t.wx), static_cast<double>(t.wy),
      static_cast<unsigned long long>(t.off), static_cast<unsigned long long>(n),
      static_cast<unsigned long long>(t.hash));
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
  for (const Two& f : kTwo) {
    if (which != f.name) continue;
    const uint64_t count = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 40000000;
    const char* sets[] = {"any bits", "[-8, 8)^2", "x in [0, 4), y in [-30, 30)"};
    for (int set = 0; set < 3; ++set) {
      const Tally t = in_threads(threads, [&](unsigned i) {
        std::mt19937_64 g(17 + i + 10 * set);
        std::uniform_real_distribution<float> u8(-8.f, 8.f), u4(0.f, 4.f), u30(-30.f, 30.f);
        Tally part;
        for (uint64_t k = 0; k < count / threads; ++k) {
          float x, y;
          if (set == 0)
            x = from_bits(static_cast<uint32_t>(g())), y = from_bits(static_cast<uint32_t>(g()));
          else if (set == 1)
            x = u8(g), y = u8(g);
          else
            x = u4(g), y = u30(g);
          part.add(f.own(x, y), f.ref(x, y), x, y);
        }
        return part;
      });
      print(f.name, sets[set], t, count / threads * threads);
    }
    return 0;
  }
  std::fprintf(stderr, "ulp_sweep: no function %s\n", which.c_str());
  return 2;
}
