// Random graphs evaluated by the JIT and by the reference interpreter must agree: element-wise
// chains over broadcast and transposed operands, reductions over random axes, softmax-like
// patterns, shared subexpressions, several outputs.
#include "oracle.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace cgrad;
using cgrad::test::with_backend;

namespace {

struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  int pick(int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); }

  Tensor unary(const Tensor& x) {
    switch (pick(7)) {
      case 0: return exp(x * 0.1);
      case 1: return sigmoid(x);
      case 2: return tanh(x);
      case 3: return -x;
      case 4: return abs(x) + 0.5;
      case 5: return relu(x - 0.3);
      default: return sqrt(abs(x));
    }
  }
  Tensor binary(const Tensor& a, const Tensor& b) {
    switch (pick(6)) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: return a / (abs(b) + 1.0);
      case 4: return maximum(a, b);
      default: return where(a > b, a, b * 0.5);
    }
  }
};

std::vector<std::vector<double>> values(const std::vector<Tensor>& ts) {
  std::vector<std::vector<double>> r;
  for (auto& t : ts) r.push_back(t.to_vector<double>());
  return r;
}

}  // namespace

TEST(Differential, RandomGraphsMatchInterpreter) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    auto build = [&] {
      Gen g(seed);
      manual_seed(seed);
      int64_t m = 1 + g.pick(9), n = 1 + g.pick(17);
      Tensor a = rand({m, n}, f64);
      Tensor b = rand({n}, f64);
      Tensor c = rand({n, m}, f64).T();
      a.eval();
      b.eval();
      std::vector<Tensor> pool{a, b, c};
      for (int step = 0; step < 6; ++step) {
        Tensor x = pool[static_cast<std::size_t>(g.pick(static_cast<int>(pool.size())))];
        Tensor y = pool[static_cast<std::size_t>(g.pick(static_cast<int>(pool.size())))];
        Tensor z = g.pick(3) == 0 ? g.unary(x) : g.binary(x, y);
        if (z.ndim() == 2 && g.pick(4) == 0) {
          int64_t ax = g.pick(2);
          z = g.pick(2) ? z - max(z, {ax}, true) : z / (sum(abs(z), {ax}, true) + 1.0);
        }
        pool.push_back(z);
      }
      Tensor last = pool.back();
      std::vector<Tensor> outs{last, sum(pool[pool.size() - 2], {}), pool[3]};
      return outs;
    };
    auto jit = values(build());
    auto ref = with_backend("interpreter", [&] { return values(build()); });
    ASSERT_EQ(jit.size(), ref.size());
    for (std::size_t o = 0; o < jit.size(); ++o) {
      ASSERT_EQ(jit[o].size(), ref[o].size());
      for (std::size_t i = 0; i < jit[o].size(); ++i)
        ASSERT_NEAR(jit[o][i], ref[o][i], 1e-9 * (1 + std::fabs(ref[o][i]))) << "seed " << seed << " output " << o << " elem " << i;
    }
  }
}

TEST(Differential, IntegerAndBoolOps) {
  auto build = [] {
    Tensor i = tensor(std::vector<int32_t>{-7, 3, 2147483647, -2147483647 - 1, 0, 5}, {2, 3});
    Tensor j = tensor(std::vector<int64_t>{2, -3, 4}, {3});
    return std::vector<Tensor>{i * 3 + j, pow(i, 2), (i > 0).cast(i64) + sum(i, {1}, true), i.cast(f32) / 2, max(i, {0})};
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  EXPECT_EQ(jit, ref);
}

TEST(Differential, MatmulLayoutsMatchInterpreter) {
  auto build = [] {
    manual_seed(99);
    Tensor a = rand({3, 4, 5}, f64), b = rand({5, 6}, f64), c = rand({6, 5}, f32), d = rand({2, 1, 5, 7}, f32);
    Tensor e = rand({4, 0}, f64), f = rand({0, 3}, f64);
    eval({a, b, c, d, e, f});
    return std::vector<Tensor>{matmul(a, b),                        // batched x broadcast 2-D
                               matmul(a, c.T().cast(f64)),          // transposed operand (after a cast kernel)
                               matmul(c, c.T()),                    // transposed view of a leaf
                               matmul(c.slice(1, 0, 5, 2), c.slice(0, 0, 3).slice(1, 0, 5, 2).T()),  // strided columns
                               matmul(a.slice(2, 0, 1).expand({3, 4, 5}).cast(f32), d),  // broadcast rows, 4-D
                               matmul(b.slice(1, 0, 1).reshape({5}), b),  // 1-D x 2-D
                               matmul(e, f)};                       // k = 0
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << o;
    for (std::size_t i = 0; i < jit[o].size(); ++i) ASSERT_NEAR(jit[o][i], ref[o][i], 1e-5 * (1 + std::fabs(ref[o][i]))) << o << " " << i;
  }
}
