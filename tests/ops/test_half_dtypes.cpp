// f16 and bf16: storage types computed in f32. The conversions of include/cgrad/scalar.hpp
// against references written here (every f16 bit pattern; a sweep of f32 bit patterns with
// exact ties), promotion, casts at the edges, and the rule of docs/semantics.md that a fused
// kernel rounds only what it stores while the interpreter rounds every op.
#include "core/env.hpp"
#include "util.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace opt {
namespace {

// Reference decoding of a 16-bit float: sign, exponent field of `ebits` bits, mantissa of `mbits`.
double decode(uint16_t h, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1, emax = (1 << ebits) - 1;
  const int e = (h >> mbits) & emax, m = h & ((1 << mbits) - 1);
  const double s = (h >> 15) ? -1.0 : 1.0;
  if (e == emax)
    return m ? std::numeric_limits<double>::quiet_NaN() : s * std::numeric_limits<double>::infinity();
  if (e == 0) return s * std::ldexp(m, 1 - bias - mbits);
  return s * std::ldexp(m + (1 << mbits), e - bias - mbits);
}

float bits_to_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(HalfDTypes, EveryF16AndBf16BitPatternDecodesAndRoundTrips) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const auto h = static_cast<uint16_t>(b);
    for (int bf = 0; bf < 2; ++bf) {
      const double want = bf ? decode(h, 8, 7) : decode(h, 5, 10);
      const float got =
          bf ? static_cast<float>(bfloat16_t::from_bits(h)) : static_cast<float>(float16_t::from_bits(h));
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(got)) << std::hex << b;
        const uint16_t back = bf ? bfloat16_t(got).bits : float16_t(got).bits;
        ASSERT_TRUE(bf ? std::isnan(decode(back, 8, 7)) : std::isnan(decode(back, 5, 10))) << std::hex << b;
        continue;
      }
      ASSERT_EQ(static_cast<double>(got), want) << (bf ? "bf16 " : "f16 ") << std::hex << b;
      ASSERT_EQ(std::signbit(got), std::signbit(want)) << std::hex << b;
      const uint16_t back = bf ? bfloat16_t(got).bits : float16_t(got).bits;
      ASSERT_EQ(back, h) << (bf ? "bf16 " : "f16 ") << std::hex << b;
    }
  }
}

TEST(HalfDTypes, FloatToHalfRoundsToNearestEven) {
  // Every 4099th f32 bit pattern (all exponents, both signs), plus every midpoint between two
  // adjacent f16 / bf16 values and its neighbours: against round_to (util.cpp's reference).
  auto check = [](float x) {
    const double r16 = round_to(static_cast<double>(x), f16), rb = round_to(static_cast<double>(x), bf16);
    const double g16 = static_cast<float>(float16_t(x)), gb = static_cast<float>(bfloat16_t(x));
    if (std::isnan(x)) {
      ASSERT_TRUE(std::isnan(g16) && std::isnan(gb));
      return;
    }
    ASSERT_EQ(g16, r16) << "f16 of " << x;
    ASSERT_EQ(gb, rb) << "bf16 of " << x;
    ASSERT_EQ(std::signbit(g16), std::signbit(x)) << x;
  };
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 4099) check(bits_to_float(static_cast<uint32_t>(b)));
  for (int bf = 0; bf < 2; ++bf)
    for (uint32_t h = 0; h < (bf ? 0x7f80u : 0x7c00u); ++h) {
      const auto h0 = static_cast<uint16_t>(h), h1 = static_cast<uint16_t>(h + 1);
      const double lo = bf ? decode(h0, 8, 7) : decode(h0, 5, 10),
                   hi = bf ? decode(h1, 8, 7) : decode(h1, 5, 10);
      const float mid = static_cast<float>((lo + hi) / 2);  // exact in float
      for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
        check(x);
        check(-x);
      }
    }
  // Overflow: 65520 is the midpoint between 65504 and 2^16: ties to even, infinity.
  EXPECT_EQ(static_cast<float>(float16_t(65519.99f)), 65504.0f);
  EXPECT_TRUE(std::isinf(static_cast<float>(float16_t(65520.0f))));
  EXPECT_EQ(static_cast<float>(bfloat16_t(3.4e38f)), std::numeric_limits<float>::infinity());
}

TEST(HalfDTypes, DoubleAndIntegersRoundOnce) {
  // 1 + 2^-11 + 2^-40 is just above the f16 midpoint 1 + 2^-11: rounding to float first would
  // land on the midpoint and round to even (down); rounding once goes up.
  EXPECT_EQ(static_cast<float>(float16_t(1.0 + 0x1p-11 + 0x1p-40)), 1.0f + 0x1p-10f);
  EXPECT_EQ(static_cast<float>(bfloat16_t(1.0 + 0x1p-8 + 0x1p-40)), 1.0f + 0x1p-7f);
  EXPECT_EQ(static_cast<float>(float16_t(1.0 + 0x1p-11)), 1.0f);  // an exact tie: to even
  // 2^24 + 2^16 + 1 is just above a bf16 midpoint; through float it would be the midpoint itself.
  EXPECT_EQ(static_cast<float>(bfloat16_t(int64_t{(1 << 24) + (1 << 16) + 1})), 16908288.0f);
  // Through the library: a cast from f64, to_vector, item.
  Tensor d = tensor(std::vector<double>{1.0 + 0x1p-11 + 0x1p-40, 70000.0, -1e-9, 1e-7}, {4});
  EXPECT_EQ(d.cast(f16).to_vector<double>(),
            (std::vector<double>{1.0 + 0x1p-10, HUGE_VAL, -0.0, 0x1p-24 * 2}));
  EXPECT_EQ(d.cast(f16).to_vector<float16_t>()[0].bits, 0x3c01);
}

TEST(HalfDTypes, PromotionAndLimits) {
  Tensor h = tensor(std::vector<float16_t>{float16_t(1.5f), float16_t(-2.0f)}, {2});
  Tensor b = tensor(std::vector<bfloat16_t>{bfloat16_t(0.5f), bfloat16_t(4.0f)}, {2});
  EXPECT_EQ(h.dtype(), f16);
  EXPECT_EQ((h + b).dtype(), f32);  // f16 with bf16, as PyTorch
  EXPECT_EQ((h + b).to_vector<float>(), (std::vector<float>{2.0f, 2.0f}));
  EXPECT_EQ((h * tensor(std::vector<float>{2, 2}, {2})).dtype(), f32);
  EXPECT_EQ((h * tensor(std::vector<double>{2, 2}, {2})).dtype(), f64);
  EXPECT_EQ((h + tensor(std::vector<int32_t>{1, 1}, {2})).dtype(), f16);  // integers are a lower category
  EXPECT_EQ((h * 2.5).dtype(), f16);                                      // a C++ scalar does not widen
  EXPECT_EQ(exp(tensor(std::vector<uint8_t>{1}, {1})).dtype(), f32);
  EXPECT_EQ(sum(h).dtype(), f16);
  EXPECT_EQ(max(b).dtype(), bf16);
  EXPECT_EQ(finfo(f16).max, 65504.0);
  EXPECT_EQ(finfo(f16).eps, 0x1p-10);
  EXPECT_EQ(finfo(f16).smallest_subnormal, 0x1p-24);
  EXPECT_EQ(finfo(bf16).eps, 0x1p-7);
  EXPECT_EQ(finfo(bf16).max, 0x1.fep127);  // (2 - 2^-7) 2^127
  EXPECT_EQ(finfo(bf16).smallest_normal, 0x1p-126);
  EXPECT_EQ(dtype_size(f16), 2u);
  EXPECT_STREQ(dtype_name(bf16), "bf16");
  EXPECT_THROW(iinfo(f16), Error);
}

TEST(HalfDTypes, CastsAtTheEdges) {
  Tensor x = tensor(std::vector<float>{70000.0f, -70000.0f, 1e-8f, std::nanf(""), 300.7f, -129.5f}, {6});
  Data h = read(x.cast(f16));
  EXPECT_TRUE(std::isinf(h.f[0]) && h.f[0] > 0);
  EXPECT_TRUE(std::isinf(h.f[1]) && h.f[1] < 0);
  EXPECT_EQ(h.f[2], 0.0);  // below half the smallest subnormal
  EXPECT_TRUE(std::isnan(h.f[3]));
  EXPECT_EQ(h.f[4], 300.75);  // f16 spacing at 300 is 0.25
  // f16 -> integer: saturating, NaN -> 0, truncation.
  EXPECT_EQ(x.cast(f16).cast(i8).to_vector<int64_t>(), (std::vector<int64_t>{127, -128, 0, 0, 127, -128}));
  EXPECT_EQ(x.cast(bf16).cast(u8).to_vector<int64_t>(), (std::vector<int64_t>{255, 0, 0, 0, 255, 0}));
  // Integers to f16 round once (2049 is a tie between 2048 and 2050: to even).
  EXPECT_EQ(tensor(std::vector<int32_t>{2049, 2051, 65519, 65520}, {4}).cast(f16).to_vector<float>(),
            (std::vector<float>{2048.0f, 2052.0f, 65504.0f, HUGE_VALF}));
}

TEST(HalfDTypes, FusedKernelsRoundOnlyWhatTheyStore) {
  // a*b = 1 + 2^-9 + 2^-20 is not an f16 value: stored, it rounds to 1 + 2^-9, and adding c
  // gives 0; fused, a*b + c is computed in f32 and gives 2^-20 (an f16 subnormal), stored once.
  const float a0 = 1.0f + 0x1p-10f;
  Tensor a = tensor(std::vector<float16_t>{float16_t(a0), float16_t(2.0f)}, {2});
  Tensor c = tensor(std::vector<float16_t>{float16_t(-1.0f - 0x1p-9f), float16_t(1.0f)}, {2});
  Tensor y = a * a + c;
  reset_stats();
  const std::vector<float> got = y.to_vector<float>();
  EXPECT_EQ(y.dtype(), f16);
  if (core::env().backend == "interpreter") {
    EXPECT_EQ(got, (std::vector<float>{0.0f, 5.0f}));  // rounded after every op, as PyTorch's eager mode
  } else {
    EXPECT_EQ(stats().kernels_launched, 1u);
    EXPECT_EQ(got, (std::vector<float>{0x1p-20f, 5.0f}));  // rounded once, at the store
  }
  // A value that is stored (realized) is rounded: the next kernel reads the f16 value.
  Tensor p = (a * a).eval();
  EXPECT_EQ((p + c).to_vector<float>()[0], 0.0f);
}

TEST(HalfDTypes, SumsAccumulateWideAndRoundOnce) {
  std::vector<float16_t> ones(2049, float16_t(1.0f));
  Tensor x = tensor(ones, {2049});
  EXPECT_EQ(sum(x).item<float>(), 2048.0f);  // 2049 rounds to even in f16 (spacing 2 above 2048)
  EXPECT_EQ(sum(x.cast(f32)).item<float>(), 2049.0f);
  EXPECT_EQ(max(x * 3).item<float>(), 3.0f);
  // rand: values on the dtype's grid in [0, 1).
  manual_seed(7);
  for (DType t : {f16, bf16}) {
    const std::vector<double> r = rand({4096}, t).to_vector<double>();
    double lo = 1, hi = 0;
    for (double v : r) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      EXPECT_EQ(round_to(v, t), v);
    }
    EXPECT_GE(lo, 0.0);
    EXPECT_LT(hi, 1.0);
    EXPECT_GT(hi, 0.9);
  }
}

// mean, var, std, softmax and log_softmax of f16/bf16 compute in f32 and round once: their sums
// rounded to 16 bits made the mean of 1000 f16 values of 100 inf (the sum, 10^5, is past 65504),
// and a variance of 1156 inf (tools/fuzz_numpy.py seeds 300536 and 301405). Each against double
// loops written here, on every backend, with gradients through the casts.
TEST(HalfDTypes, StatisticsComputeInF32AndRoundOnce) {
  for (DType t : {f16, bf16}) {
    const std::string what = dtype_name(t);
    Tensor hundreds = full({1000}, 100.0, t);
    EXPECT_EQ(mean(hundreds).dtype(), t) << what;
    EXPECT_EQ(mean(hundreds).item<float>(), 100.0f) << what;
    // 93 values, 20 and 88 in turn: the squared deviations add to about 1.07e5
    std::vector<double> v;
    for (int k = 0; k < 93; ++k) v.push_back(k % 2 ? 88.0 : 20.0);
    Tensor x = tensor(v, {93}).cast(t);
    double m = 0, s = 0;
    for (double e : v) m += e;
    m /= 93;
    for (double e : v) s += (e - m) * (e - m);
    ASSERT_GT(s, 65504.0);
    for (double corr : {0.0, 1.0}) {
      const double want = s / (93 - corr);
      EXPECT_EQ(var(x, {}, corr).dtype(), t) << what;
      EXPECT_EQ(var(x, {}, corr).item<double>(), round_to(want, t)) << what << " corr " << corr;
      EXPECT_EQ(cgrad::std(x, {}, corr).item<double>(), round_to(std::sqrt(want), t)) << what;
    }
    EXPECT_EQ(var(x.reshape({3, 31}), {1}).to_vector<double>().size(), 3u) << what;
    EXPECT_EQ(mean(x).item<double>(), round_to(m, t)) << what;
    // A row of 70000 equal values: each softmax is 1/70000, log_softmax -log(70000).
    Tensor row = full({1, 70000}, 0.5, t);
    const std::vector<double> p = softmax(row, 1).to_vector<double>();
    EXPECT_EQ(softmax(row, 1).dtype(), t) << what;
    EXPECT_EQ(p.front(), round_to(1.0 / 70000, t)) << what;
    EXPECT_EQ(p.back(), round_to(1.0 / 70000, t)) << what;
    EXPECT_EQ(log_softmax(row, 1).to_vector<double>()[123], round_to(-std::log(70000.0), t)) << what;
    // Gradients reach the 16-bit leaf through the casts, in its dtype.
    Tensor leaf = tensor(v, {93}).cast(t).eval().detach();
    leaf.requires_grad(true);
    Tensor g = grad(var(leaf), {leaf})[0];
    EXPECT_EQ(g.dtype(), t) << what;
    EXPECT_NEAR(g.to_vector<double>()[1], 2 * (88.0 - m) / 93, t == f16 ? 2e-2 : 0.1) << what;
    Tensor gm = grad(mean(leaf), {leaf})[0];
    EXPECT_EQ(gm.to_vector<double>()[5], round_to(1.0 / 93, t)) << what;
  }
}

}  // namespace
}  // namespace opt
