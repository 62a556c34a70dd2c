// rand and randn: determinism after manual_seed (values fixed when the op is built, whatever the
// evaluation order), ranges, and moments with loose statistical bounds (fixed seed, so the
// test is deterministic).
#include "util.h"

#include <cmath>
#include <set>
#include <thread>

namespace opt {
namespace {

struct Moments {
  double mean = 0, var = 0, skew = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  const auto n = static_cast<double>(v.size());
  for (double x : v) m.mean += x;
  m.mean /= n;
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= n;
  for (double x : v) m.skew += std::pow((x - m.mean) / std::sqrt(m.var), 3);
  m.skew /= n;
  return m;
}

TEST(Random, DeterministicAfterManualSeed) {
  for (DType t : {f32, f64}) {
    manual_seed(2024);
    Tensor a = rand({100}, t), b = randn({3, 7}, t), c = rand({}, t);
    // Evaluate out of order: values were fixed when the ops were built.
    auto vc = c.to_vector<double>(), vb = b.to_vector<double>(), va = a.to_vector<double>();
    manual_seed(2024);
    Tensor a2 = rand({100}, t), b2 = randn({3, 7}, t), c2 = rand({}, t);
    EXPECT_EQ(a2.to_vector<double>(), va);
    EXPECT_EQ(b2.to_vector<double>(), vb);
    EXPECT_EQ(c2.to_vector<double>(), vc);
    // Another seed gives other values; so does the next call.
    manual_seed(2025);
    EXPECT_NE(rand({100}, t).to_vector<double>(), va);
    manual_seed(2024);
    rand({100}, t);
    EXPECT_NE(rand({100}, t).to_vector<double>(), va);
    // Re-evaluating a tensor does not draw new numbers.
    EXPECT_EQ(a.to_vector<double>(), va);
  }
}

TEST(Random, UniformRangeAndMoments) {
  manual_seed(7);
  for (DType t : {f32, f64}) {
    auto v = rand({200000}, t).to_vector<double>();
    double lo = 1, hi = 0;
    std::vector<int> hist(10, 0);
    for (double x : v) {
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      ++hist[static_cast<std::size_t>(x * 10)];
      if (t == f32) {
        EXPECT_EQ(x * 16777216.0, std::floor(x * 16777216.0)) << "f32 uniforms are multiples of 2^-24";
      }
    }
    Moments m = moments(v);
    EXPECT_NEAR(m.mean, 0.5, 0.005);
    EXPECT_NEAR(m.var, 1.0 / 12, 0.002);
    EXPECT_NEAR(m.skew, 0.0, 0.02);
    EXPECT_LT(lo, 1e-4);
    EXPECT_GT(hi, 1 - 1e-4);
    for (int h : hist) EXPECT_NEAR(h / 200000.0, 0.1, 0.005);
  }
}

TEST(Random, NormalMoments) {
  manual_seed(11);
  for (DType t : {f32, f64}) {
    auto v = randn({200000}, t).to_vector<double>();
    Moments m = moments(v);
    EXPECT_NEAR(m.mean, 0.0, 0.01);
    EXPECT_NEAR(m.var, 1.0, 0.02);
    EXPECT_NEAR(m.skew, 0.0, 0.03);
    double within1 = 0, within2 = 0, kurt = 0;
    for (double x : v) {
      ASSERT_TRUE(std::isfinite(x));
      within1 += std::fabs(x) < 1;
      within2 += std::fabs(x) < 2;
      kurt += std::pow((x - m.mean) / std::sqrt(m.var), 4);
    }
    EXPECT_NEAR(within1 / 200000, 0.6827, 0.01);
    EXPECT_NEAR(within2 / 200000, 0.9545, 0.005);
    EXPECT_NEAR(kurt / 200000, 3.0, 0.1);
  }
}

TEST(Random, ConsecutiveTensorsAreUncorrelated) {
  manual_seed(3);
  auto a = rand({50000}).to_vector<double>();
  auto b = rand({50000}).to_vector<double>();
  auto n = randn({50000}).to_vector<double>();
  double cab = 0, can = 0, lag = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    cab += (a[k] - 0.5) * (b[k] - 0.5);
    can += (a[k] - 0.5) * n[k];
    if (k) lag += (a[k] - 0.5) * (a[k - 1] - 0.5);
  }
  // Correlation coefficients (uniform variance 1/12).
  EXPECT_NEAR(cab / 50000 * 12, 0.0, 0.03);
  EXPECT_NEAR(can / 50000 * std::sqrt(12.0), 0.0, 0.03);
  EXPECT_NEAR(lag / 50000 * 12, 0.0, 0.03);
}

// Generator: a stream of its own, derived from its (seed, counter) as the global stream is.
TEST(Random, GeneratorIsDeterministicForItsSeed) {
  for (DType t : {f32, f64}) {
    Generator g(42), h(42);
    auto a = rand({64}, t, Device::cpu(), g).to_vector<double>();
    auto b = randn({3, 5}, t, Device::cpu(), g).to_vector<double>();
    EXPECT_EQ(g.counter(), 2u);
    EXPECT_EQ(rand({64}, t, Device::cpu(), h).to_vector<double>(), a) << "same seed, same numbers";
    EXPECT_EQ(randn({3, 5}, t, Device::cpu(), h).to_vector<double>(), b);
    EXPECT_NE(rand({64}, t, Device::cpu(), g).to_vector<double>(), a) << "a draw advances the stream";
    g.manual_seed(42);
    EXPECT_EQ(g.counter(), 0u);
    EXPECT_EQ(rand({64}, t, Device::cpu(), g).to_vector<double>(), a) << "manual_seed restarts it";
    // A copy repeats the original's next draws, then both go on alone.
    Generator c = g;
    EXPECT_EQ(c.seed(), 42u);
    EXPECT_EQ(c.counter(), 1u);
    EXPECT_EQ(randn({3, 5}, t, Device::cpu(), c).to_vector<double>(), b);
    EXPECT_EQ(g.counter(), 1u);
    EXPECT_EQ(randn({3, 5}, t, Device::cpu(), g).to_vector<double>(), b);
  }
}

// A state read from seed() and counter() and put back repeats the draws that followed it, for a
// Generator and for the global stream (default_generator).
TEST(Random, StatesPutBackRepeatTheDraws) {
  Generator g(7);
  (void)rand({8}, f32, Device::cpu(), g);
  const uint64_t seed = g.seed(), counter = g.counter();
  auto a = randn({32}, f64, Device::cpu(), g).to_vector<double>();
  (void)rand({8}, f32, Device::cpu(), g);
  g.set_state(seed, counter);
  EXPECT_EQ(randn({32}, f64, Device::cpu(), g).to_vector<double>(), a);

  manual_seed(11);
  (void)rand({4}, f32);
  Generator& global = default_generator();
  const uint64_t gs = global.seed(), gc = global.counter();
  EXPECT_EQ(gs, 11u);
  EXPECT_EQ(gc, 1u);
  auto b = rand({16}, f64).to_vector<double>();
  global.set_state(gs, gc);
  EXPECT_EQ(rand({16}, f64).to_vector<double>(), b);
}

TEST(Random, GeneratorsAreIndependentOfEachOtherAndOfTheGlobalStream) {
  Generator g(1), h(2);
  auto a = rand({256}, f32, Device::cpu(), g).to_vector<double>();
  EXPECT_NE(rand({256}, f32, Device::cpu(), h).to_vector<double>(), a) << "another seed, other numbers";
  // The global stream with the same seed draws the same numbers (one derivation of seeds)...
  manual_seed(1);
  EXPECT_EQ(rand({256}).to_vector<double>(), a);
  // ...and generator draws do not move it, nor does it move them.
  manual_seed(9);
  auto global = rand({256}).to_vector<double>();
  manual_seed(9);
  Generator k(1);
  for (int i = 0; i < 3; ++i) randn({8}, f32, Device::cpu(), k);
  EXPECT_EQ(rand({256}).to_vector<double>(), global) << "generator draws leave the global stream";
  Generator g2(1);
  rand({4});
  randn({4});
  EXPECT_EQ(rand({256}, f32, Device::cpu(), g2).to_vector<double>(), a) << "global draws leave a generator";
  // Moments: a generator's numbers are as good as the global stream's.
  Generator m(123);
  Moments u = moments(rand({100000}, f64, Device::cpu(), m).to_vector<double>());
  EXPECT_NEAR(u.mean, 0.5, 0.005);
  EXPECT_NEAR(u.var, 1.0 / 12, 0.002);
  Moments z = moments(randn({100000}, f64, Device::cpu(), m).to_vector<double>());
  EXPECT_NEAR(z.mean, 0.0, 0.02);
  EXPECT_NEAR(z.var, 1.0, 0.02);
  EXPECT_EQ(error_code([&] { rand({2}, i32, Device::cpu(), m); }), ErrorCode::DTypeMismatch);
}

// Concurrent draws from one generator get distinct counters, hence distinct seeds.
TEST(Random, GeneratorIsThreadSafe) {
  Generator g(5);
  std::vector<std::vector<uint64_t>> seeds(4);
  std::vector<std::thread> threads;
  for (auto& s : seeds)
    threads.emplace_back([&g, &s] {
      for (int i = 0; i < 1000; ++i) s.push_back(g.next_seed());
    });
  for (auto& t : threads) t.join();
  std::set<uint64_t> all;
  for (const auto& s : seeds) all.insert(s.begin(), s.end());
  EXPECT_EQ(all.size(), 4000u);
  EXPECT_EQ(g.counter(), 4000u);
  Generator h(5);
  std::set<uint64_t> serial;
  for (int i = 0; i < 4000; ++i) serial.insert(h.next_seed());
  EXPECT_EQ(all, serial) << "the same seeds as drawn one after another, in some order";
}

TEST(Random, ShapesAndErrors) {
  EXPECT_EQ(rand({2, 0}).numel(), 0);
  EXPECT_EQ(rand({2, 0}).to_vector<float>().size(), 0u);
  EXPECT_EQ(randn({}).shape(), Shape{});
  EXPECT_EQ(rand({3}).dtype(), f32);
  EXPECT_EQ(error_code([] { rand({2}, i32); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([] { randn({2}, b8); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(error_code([] { rand({-1}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(error_code([] { randn({int64_t{1} << 40, int64_t{1} << 40}); }), ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace opt
