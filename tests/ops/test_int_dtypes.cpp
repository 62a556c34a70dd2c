// The 8- to 64-bit signed and unsigned integer dtypes end to end: mixed-dtype promotion through
// the operators, wrap-around, casts at the edges of each range, unsigned order, sums, and a
// fused kernel mixing dtypes. The op sweep (test_sweep.cpp) covers every op for every dtype;
// these are the cases that name a rule of docs/semantics.md.
#include "core/env.hpp"
#include "util.h"

#include <cmath>
#include <limits>

namespace opt {
namespace {

TEST(IntDTypes, MixedPromotionThroughOperators) {
  Tensor a = tensor(std::vector<uint8_t>{200, 255, 0}, {3});
  Tensor b = tensor(std::vector<int8_t>{-100, 1, -128}, {3});
  Tensor c = a + b;  // u8 + i8 -> i16: no wrap
  EXPECT_EQ(c.dtype(), i16);
  EXPECT_EQ(c.to_vector<int16_t>(), (std::vector<int16_t>{100, 256, -128}));
  Tensor d = tensor(std::vector<uint32_t>{4000000000u}, {1}) - tensor(std::vector<int32_t>{-5}, {1});
  EXPECT_EQ(d.dtype(), i64);  // u32 with i32 -> i64
  EXPECT_EQ(d.item<int64_t>(), 4000000005);
  // u64 with a signed dtype: f64, as NumPy (the standard leaves it undefined).
  Tensor e = tensor(std::vector<uint64_t>{UINT64_MAX}, {1}) + tensor(std::vector<int64_t>{-1}, {1});
  EXPECT_EQ(e.dtype(), f64);
  EXPECT_EQ(e.item<double>(), 0x1p64 - 1);
  // Comparisons across signedness compare values, not bits.
  EXPECT_EQ((tensor(std::vector<uint8_t>{255}, {1}) > tensor(std::vector<int8_t>{-1}, {1})).item<bool>(),
            true);
  // A C++ int scalar keeps the tensor's dtype and wraps into it; a float scalar gives f32.
  Tensor u = tensor(std::vector<uint8_t>{10, 0}, {2});
  EXPECT_EQ((u + -1).dtype(), u8);
  EXPECT_EQ((u + -1).to_vector<int64_t>(), (std::vector<int64_t>{9, 255}));
  EXPECT_EQ((u * 0.5).dtype(), f32);
  // True division of integers is f32.
  EXPECT_EQ((u / u).dtype(), f32);
}

// A comparison with an int scalar the dtype cannot hold compares values, as NumPy 2 does (the
// scalar used to wrap: u8 < -2 compared with 254 and was true).
TEST(IntDTypes, ComparisonsWithScalarsOutsideTheRangeCompareValues) {
  const Tensor u = tensor(std::vector<uint8_t>{0, 200, 255}, {3});
  const Tensor i = tensor(std::vector<int8_t>{-128, 0, 127}, {3});
  const Tensor w = tensor(std::vector<int64_t>{INT64_MIN, 0, INT64_MAX}, {3});
  const auto all = [](const Tensor& t, bool v) {
    EXPECT_EQ(t.dtype(), b8);
    EXPECT_EQ(t.shape(), (Shape{3}));
    EXPECT_EQ(t.to_vector<bool>(), std::vector<bool>(3, v));
  };
  for (const Tensor& x : {u, i}) {
    all(x < -200, false), all(x <= -200, false), all(x > -200, true), all(x >= -200, true);
    all(x < 300, true), all(x <= 300, true), all(x > 300, false), all(x >= 300, false);
    all(x == 300, false), all(x != 300, true), all(x == -200, false), all(x != -200, true);
  }
  all(u < -1, false), all(u >= -1, true), all(u != 256, true), all(u == 256, false);
  all(i > 128, false), all(i < -129, false);
  // Scalars the dtype holds still compare element by element (and i64 holds every int64).
  EXPECT_EQ((u < 255).to_vector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ((w >= INT64_MAX).to_vector<bool>(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ((tensor(std::vector<uint64_t>{UINT64_MAX}, {1}) > -1).item<bool>(), true);
  // Arithmetic keeps wrapping the scalar (above): u + -1 is u - 1.
  EXPECT_EQ((u + -1).to_vector<int64_t>(), (std::vector<int64_t>{255, 199, 254}));
}

TEST(IntDTypes, ArithmeticWraps) {
  EXPECT_EQ((tensor(std::vector<int8_t>{127, -128}, {2}) + int8_t{1}).to_vector<int64_t>(),
            (std::vector<int64_t>{-128, -127}));
  EXPECT_EQ((-tensor(std::vector<int8_t>{-128}, {1})).item<int64_t>(), -128);
  Tensor m = tensor(std::vector<uint16_t>{65535, 256}, {2});
  EXPECT_EQ((m * m).to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));  // computed in 32 bits, no UB
  EXPECT_EQ((tensor(std::vector<uint32_t>{0}, {1}) - uint32_t{1}).item<int64_t>(), 4294967295);
  EXPECT_EQ(abs(tensor(std::vector<int16_t>{-32768, -5}, {2})).to_vector<int64_t>(),
            (std::vector<int64_t>{-32768, 5}));
  EXPECT_EQ(pow(tensor(std::vector<uint8_t>{3}, {1}), tensor(std::vector<uint8_t>{5}, {1})).item<int64_t>(),
            243);  // 3^5 fits u8
  EXPECT_EQ(pow(tensor(std::vector<uint8_t>{2}, {1}), tensor(std::vector<uint8_t>{9}, {1})).item<int64_t>(),
            0);
}

TEST(IntDTypes, CastsAtTheEdges) {
  // Integer -> narrower integer: modulo 2^bits.
  Tensor w = tensor(std::vector<int32_t>{300, -1, 65536 + 7, -129}, {4});
  EXPECT_EQ(w.cast(u8).to_vector<int64_t>(), (std::vector<int64_t>{44, 255, 7, 127}));
  EXPECT_EQ(w.cast(i8).to_vector<int64_t>(), (std::vector<int64_t>{44, -1, 7, 127}));
  EXPECT_EQ(w.cast(u16).to_vector<int64_t>(), (std::vector<int64_t>{300, 65535, 7, 65407}));
  EXPECT_EQ(w.cast(u64).to_vector<uint64_t>(),
            (std::vector<uint64_t>{300, UINT64_MAX, 65543, UINT64_MAX - 128}));
  // Float -> integer: saturating, NaN -> 0, truncation toward zero.
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Tensor f = tensor(std::vector<float>{-3.7f, 300.5f, nan, 254.9f, -inf, inf, 1e20f}, {7});
  EXPECT_EQ(f.cast(u8).to_vector<int64_t>(), (std::vector<int64_t>{0, 255, 0, 254, 0, 255, 255}));
  EXPECT_EQ(f.cast(i8).to_vector<int64_t>(), (std::vector<int64_t>{-3, 127, 0, 127, -128, 127, 127}));
  EXPECT_EQ(f.cast(u64).to_vector<uint64_t>(),
            (std::vector<uint64_t>{0, 300, 0, 254, 0, UINT64_MAX, UINT64_MAX}));
  EXPECT_EQ(f.cast(i16).to_vector<int64_t>(), (std::vector<int64_t>{-3, 300, 0, 254, -32768, 32767, 32767}));
  // u64 -> float rounds the unsigned value.
  EXPECT_EQ(tensor(std::vector<uint64_t>{UINT64_MAX}, {1}).cast(f32).item<float>(), 0x1p64f);
  // The same casts inside a fused kernel (cast of a computed value).
  EXPECT_EQ((f * 1.0f).cast(u8).to_vector<int64_t>(), (std::vector<int64_t>{0, 255, 0, 254, 0, 255, 255}));
}

TEST(IntDTypes, UnsignedOrderSumsAndMax) {
  const uint64_t top = uint64_t{1} << 63;
  Tensor x = tensor(std::vector<uint64_t>{1, top, UINT64_MAX, 5}, {2, 2});
  EXPECT_EQ(max(x).item<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(min(x).item<uint64_t>(), 1u);
  EXPECT_EQ(max(x, {1}).to_vector<uint64_t>(), (std::vector<uint64_t>{top, UINT64_MAX}));
  EXPECT_EQ(maximum(x, tensor(std::vector<uint64_t>{2}, {1})).to_vector<uint64_t>(),
            (std::vector<uint64_t>{2, top, UINT64_MAX, 5}));
  EXPECT_EQ((x < tensor(std::vector<uint64_t>{top}, {1})).to_vector<bool>(),
            (std::vector<bool>{true, false, false, true}));
  // Sums: unsigned -> u64 (wrapping), signed -> i64.
  Tensor b = tensor(std::vector<uint8_t>{255, 255, 255}, {3});
  EXPECT_EQ(sum(b).dtype(), u64);
  EXPECT_EQ(sum(b).item<uint64_t>(), 765u);
  EXPECT_EQ(sum(x).item<uint64_t>(), 1 + top + UINT64_MAX + 5);  // modulo 2^64
  EXPECT_EQ(sum(tensor(std::vector<int8_t>{-128, -128}, {2})).item<int64_t>(), -256);
}

TEST(IntDTypes, MixedDtypesFuseIntoOneKernel) {
  Tensor a = tensor(std::vector<uint8_t>{1, 2, 3, 250}, {4});
  Tensor b = tensor(std::vector<int16_t>{-1, 1000, -3000, 2}, {4});
  Tensor c = tensor(std::vector<float>{0.5f, 0.25f, 2.0f, 1.0f}, {4});
  Tensor y = (a * b + 1) * c;  // u8 * i16 -> i16, then f32
  reset_stats();
  y.eval();
  if (core::env().backend != "interpreter") {
    EXPECT_EQ(stats().kernels_launched, 1u);
  }
  EXPECT_EQ(y.dtype(), f32);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0.0f, 500.25f, -17998.0f, 501.0f}));
}

}  // namespace
}  // namespace opt
