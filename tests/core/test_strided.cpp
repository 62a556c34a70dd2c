// core::for_each_strided and core::for_each_elementwise against a plain odometer: the same
// offsets in the same order (reductions in the interpreter depend on the order), whatever dims
// the walks merge or skip.
#include "core/strided.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

using namespace cgrad;

namespace {

using Offsets = std::array<int64_t, 3>;

// Every multi-index of `shape` in row-major order, each operand's offset computed from scratch.
std::vector<Offsets> odometer(const Shape& shape, const std::array<std::vector<int64_t>, 3>& st,
                              const Offsets& base) {
  int64_t count = 1;
  for (int64_t d : shape) count *= d;
  std::vector<Offsets> out;
  for (int64_t flat = 0; flat < count; ++flat) {
    Offsets o = base;
    int64_t rest = flat;
    for (std::size_t d = shape.size(); d-- > 0;) {
      const int64_t i = rest % shape[d];
      rest /= shape[d];
      for (std::size_t k = 0; k < 3; ++k) o[k] += i * st[k][d];
    }
    out.push_back(o);
  }
  return out;
}

}  // namespace

TEST(Strided, WalksVisitTheOdometersOffsetsInOrder) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 2000; ++trial) {
    Shape shape(static_cast<std::size_t>(pick(0, 4)));
    for (auto& d : shape) d = pick(0, 9) == 0 ? 0 : pick(1, 4);  // some empty, many extent 1
    std::array<std::vector<int64_t>, 3> st;
    for (auto& s : st) {
      s.resize(shape.size());
      const int kind = pick(0, 3);  // contiguous, broadcast on some dims, random, reversed
      int64_t step = 1;
      for (std::size_t d = shape.size(); d-- > 0;) {
        s[d] = kind == 0 ? step : kind == 1 ? (pick(0, 1) ? 0 : step) : kind == 2 ? pick(-3, 5) : -step;
        step *= shape[d] == 0 ? 1 : shape[d];
      }
    }
    const Offsets base{pick(0, 50), pick(0, 50), pick(0, 50)};
    const std::array<const int64_t*, 3> sp{st[0].data(), st[1].data(), st[2].data()};
    const std::vector<Offsets> want = odometer(shape, st, base);
    std::vector<Offsets> plain, ew;
    core::for_each_strided<3>(shape, sp, base, [&](int64_t a, int64_t b, int64_t c) {
      plain.push_back({a, b, c});
    });
    core::for_each_elementwise<3>(shape, sp, base, [&](int64_t a, int64_t b, int64_t c) {
      ew.push_back({a, b, c});
    });
    ASSERT_EQ(plain, want) << "trial " << trial;
    ASSERT_EQ(ew, want) << "trial " << trial;
  }
}
