// Random graphs evaluated by the JIT and by the reference interpreter must agree: element-wise
// chains over broadcast and transposed operands, reductions over random axes, softmax-like
// patterns, shared subexpressions, several outputs.
#include "oracle.h"

#include <cgrad/scalar.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <type_traits>

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
        ASSERT_NEAR(jit[o][i], ref[o][i], 1e-9 * (1 + std::fabs(ref[o][i])))
            << "seed " << seed << " output " << o << " elem " << i;
    }
  }
}

TEST(Differential, IntegerAndBoolOps) {
  auto build = [] {
    Tensor i = tensor(std::vector<int32_t>{-7, 3, 2147483647, -2147483647 - 1, 0, 5}, {2, 3});
    Tensor j = tensor(std::vector<int64_t>{2, -3, 4}, {3});
    return std::vector<Tensor>{i * 3 + j, pow(i, 2), (i > 0).cast(i64) + sum(i, {1}, true), i.cast(f32) / 2,
                               max(i, {0})};
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  EXPECT_EQ(jit, ref);
}

TEST(Differential, MatmulLayoutsMatchInterpreter) {
  auto build = [] {
    manual_seed(99);
    Tensor a = rand({3, 4, 5}, f64), b = rand({5, 6}, f64), c = rand({6, 5}, f32),
           d = rand({2, 1, 5, 7}, f32);
    Tensor e = rand({4, 0}, f64), f = rand({0, 3}, f64);
    eval({a, b, c, d, e, f});
    return std::vector<Tensor>{
        matmul(a, b),                // batched x broadcast 2-D
        matmul(a, c.T().cast(f64)),  // transposed operand (after a cast kernel)
        matmul(c, c.T()),            // transposed view of a leaf
        matmul(c.slice(1, 0, 5, 2), c.slice(0, 0, 3).slice(1, 0, 5, 2).T()),  // strided columns
        matmul(a.slice(2, 0, 1).expand({3, 4, 5}).cast(f32), d),              // broadcast rows, 4-D
        matmul(b.slice(1, 0, 1).reshape({5}), b),                             // 1-D x 2-D
        matmul(e, f)};                                                        // k = 0
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << o;
    for (std::size_t i = 0; i < jit[o].size(); ++i)
      ASSERT_NEAR(jit[o][i], ref[o][i], 1e-5 * (1 + std::fabs(ref[o][i]))) << o << " " << i;
  }
}

// Reductions over a leading axis run in column mode (render_cpu_reduce.cpp, Reduce::columns):
// tiles of outer elements along the last outer dim, each with its own accumulator. The tiles stop
// at the end of a run of that dim (3-D inputs, 1100 columns: a tile of 1024 and one of 76), the
// loads may be fused, broadcast or strided along the tile, and every reduction kind with a vector
// form takes part. Each element is combined in the interpreter's order in the accumulator dtype,
// so the values are the same bits (no multiply-add here: the kernels contract those, docs/env.md),
// except f32 sums: blocks of 32 elements add in float, within 32 * 2^-24 * sum|x| of the exact
// sum (docs/semantics.md), checked against the interpreter's f64 sums of |x|.
TEST(Differential, LeadingAxisReductionsMatchInterpreterExactly) {
  auto build = [] {
    manual_seed(9);
    Tensor x = rand({37, 1100}, f32) - 0.5, y = rand({1100}, f32), w = rand({5, 37, 1100}, f64) - 0.5;
    Tensor h = (rand({300, 40}, f32) * 4).cast(f16), i = (rand({64, 33}, f32) * 200 - 100).cast(i32);
    Tensor s = rand({80, 1100}, f32).slice(0, 1, 80, 2);  // every other row, from the second
    Tensor n = where(rand({20, 30}, f32) > 0.9, std::nan(""), rand({20, 30}, f32));
    eval({x, y, w, h, i, s, n});
    // f32 sums first, then the f64 sums of |x| their bound reads (exact here), then the rest
    return std::vector<Tensor>{sum(x, {0}),
                               mean(x * y, {0}),
                               sum(s, {0}),
                               sum(abs(x.cast(f64)), {0}),
                               mean(abs(x.cast(f64) * y.cast(f64)), {0}),
                               sum(abs(s.cast(f64)), {0}),
                               sum(w, {1}),
                               max(w, {1}, true),
                               min(h, {0}),
                               sum(h, {0}),
                               prod(x + 1.0, {0}),
                               sum(i, {0}),
                               max(i, {0}),
                               any(i > 90, {0}),
                               all(i > -95, {0}),
                               max(n, {0})};
  };
  const std::size_t f32_sums = 3;
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << o;
    for (std::size_t k = 0; k < jit[o].size(); ++k) {
      if (o < f32_sums) {  // the block bound, plus the rounding of the result to f32
        const double bound = 32 * 0x1p-24 * ref[o + f32_sums][k] + 0x1p-24 * std::fabs(ref[o][k]);
        ASSERT_LE(std::fabs(jit[o][k] - ref[o][k]), bound) << "output " << o << " element " << k;
        continue;
      }
      if (std::isnan(ref[o][k])) {
        EXPECT_TRUE(std::isnan(jit[o][k])) << "output " << o << " element " << k;
        continue;
      }
      ASSERT_EQ(jit[o][k], ref[o][k]) << "output " << o << " element " << k;
    }
  }
  manual_seed(9);
  Tensor x = rand({37, 1100}, f32).eval();
  reset_stats();
  sum(x * 2.0, {0}).eval();
  EXPECT_EQ(stats().kernels_launched, 1u) << "the element-wise input fuses into the column kernel";
}

// Scans over a leading axis run in column mode (render_cpu_scan.cpp): tiles of 512 outer elements
// along the last outer dim, each element's running value combined in its row's order, so every
// result is the interpreter's, bit for bit. Tiles cut by the end of a run of the last outer dim
// (3-D, runs of 600 and 37), a partial last tile, thread chunks that start inside a run, a
// transposed input (its rows along memory: the row kernel), fused producers, f32 (accumulated in
// double), f64, f16, i32 and c64 sums, f64 products, include_initial. Plus the launch count of a fused one.
TEST(Differential, LeadingAxisScansMatchInterpreterExactly) {
  auto build = [] {
    manual_seed(21);
    Tensor x = rand({300, 1300}, f32) - 0.5, w = rand({4, 50, 600}, f64) - 0.5;
    // (products by powers of two only: exact, so the kernels' FMAs round as the interpreter does)
    Tensor h = (rand({90, 37}, f32) * 4).cast(f16), i = (rand({70, 900}, f32) * 256 - 128).cast(i32);
    Tensor p = rand({60, 700}, f64) * 0.25 + 0.875, t = (rand({500, 40}, f32) - 0.5).transpose(0, 1);
    Tensor c = complex(rand({30, 530}, f32), rand({30, 530}, f32));
    eval({x, w, h, i, p, t, c});
    return std::vector<Tensor>{cumulative_sum(x, 0),
                               cumulative_sum(x * 2.0 + 1.0, 0, std::nullopt, true),
                               cumulative_sum(w, 1),
                               cumulative_sum(w, 0),
                               cumulative_sum(h, 0),
                               cumulative_sum(i, 0),
                               cumulative_prod(p, 0),
                               cumulative_sum(t, 0),
                               cumulative_sum(t, 1),
                               real(cumulative_sum(c, 0)),
                               imag(cumulative_sum(c * 0.125 + 1.0, 0))};
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << o;
    for (std::size_t k = 0; k < jit[o].size(); ++k)
      ASSERT_EQ(jit[o][k], ref[o][k]) << "output " << o << " element " << k;
  }
  manual_seed(21);
  Tensor x = rand({300, 1300}, f32).eval();
  reset_stats();
  cumulative_sum(x * 2.0, 0).eval();
  EXPECT_EQ(stats().kernels_launched, 1u) << "the element-wise input fuses into the scan";
}

// argmax and argmin in column mode (render_cpu_reduce.cpp): over a leading axis, and along short
// rows that lie along memory (up to 128 elements: 128 takes column mode, 129 the row loop). Ties
// (values on a coarse grid), -0 against +0, NaNs, rows of -inf only (index 0), tiles of more than
// 1024 outputs, outer runs shorter than a tile (3-D), fused inputs and every kind of dtype: the
// index is exact, so the same as the interpreter's.
TEST(Differential, ArgmaxColumnModeMatchesInterpreter) {
  auto build = [] {
    manual_seed(13);
    auto grid = [](Shape s) { return floor(rand(s, f32) * 7) - 3; };  // many ties
    Tensor x = grid({37, 1100}), t = grid({2100, 16}), r128 = grid({50, 128}), r129 = grid({50, 129});
    Tensor w = rand({5, 37, 300}, f64) - 0.5, y = rand({1100}, f32);
    Tensor n = where(rand({40, 30}, f32) > 0.85, std::nan(""), grid({40, 30}));
    Tensor z = where(rand({30, 40}, f32) > 0.5, 0.0, -0.0);
    Tensor ninf = full({6, 9}, -INFINITY, f32);
    Tensor h = grid({300, 40}).cast(f16), i = grid({64, 33}).cast(i32), u = (grid({20, 50}) + 3).cast(u8);
    Tensor b = rand({24, 70}, f32) > 0.7;
    eval({x, t, r128, r129, w, y, n, z, ninf, h, i, u, b});
    return std::vector<Tensor>{
        argmax(x, 0),    argmin(x, 0),    argmax(x * y, 0, true), argmax(t, 1),    argmin(t, 1), argmax(t, 0),
        argmax(r128, 1), argmin(r129, 1), argmax(w, 1),           argmin(w, 2),    argmax(n, 0), argmin(n, 1),
        argmax(z, 0),    argmin(z, 1),    argmax(ninf, 0),        argmax(ninf, 1), argmax(h, 0), argmin(h, 1),
        argmax(i, 0),    argmin(i, 1),    argmax(u, 1),           argmax(b, 0),    argmin(b, 1)};
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) EXPECT_EQ(jit[o], ref[o]) << "output " << o;
}

// Reductions whose result does not depend on the order a row is walked in (max, min, integer
// sums and products, any, all) take column mode for short rows along memory, as argmax does:
// rows of 1-31 elements (and 32, the row loop), NaN rows, signed zeros, wrapping integer sums,
// several reductions in one kernel, and a float sum beside them (the row loop for all).
TEST(Differential, ShortRowsOfOrderFreeReductionsMatchInterpreter) {
  auto build = [] {
    manual_seed(17);
    std::vector<Tensor> in, out;
    for (int64_t n : {1, 3, 4, 7, 10, 16, 24, 31, 32}) {
      Tensor x = where(rand({300, n}, f32) > 0.97, std::nan(""), floor(rand({300, n}, f32) * 9) - 4);
      Tensor z = where(rand({40, n}, f32) > 0.5, 0.0, -0.0);
      Tensor w = rand({200, n}, f64) - 0.5;
      Tensor i = (floor(rand({300, n}, f32) * 2000) - 1000).cast(i32),
             u = floor(rand({50, n}, f32) * 256).cast(u8);
      Tensor b = rand({70, n}, f32) > 0.6;
      in.insert(in.end(), {x, z, w, i, u, b});
      out.insert(out.end(),
                 {max(x, {1}), min(x, {1}), max(z, {1}), min(z, {1}), max(w * 2.0, {1}), sum(i, {1}),
                  prod(remainder(i, 3) + 1, {1}), max(u, {1}), sum(u, {1}), any(b, {1}), all(b, {1}),
                  max(i, {1}) - min(i, {1}) + argmax(i, 1), sum(w, {1}) + max(w, {1})});
    }
    eval(in);
    return out;
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << "output " << o;
    for (std::size_t k = 0; k < jit[o].size(); ++k) {
      if (std::isnan(ref[o][k])) {
        EXPECT_TRUE(std::isnan(jit[o][k])) << "output " << o << " elem " << k;
        continue;
      }
      // (the sum beside a max, output 12 of each row length: the float sum's order may differ)
      EXPECT_NEAR(jit[o][k], ref[o][k], o % 13 == 12 ? 1e-12 * (1 + std::fabs(ref[o][k])) : 0.0)
          << "output " << o << " elem " << k;
    }
  }
}

// GEMMs large enough to be split over the thread pool in bands of 16 rows (columns when there
// are 16 rows or fewer; backends/cpu/gemm.cpp): sizes that are not multiples of the band,
// transposed operands (the dW and dX GEMMs of a backward pass), batches and f64.
TEST(Differential, PooledGemmBandsMatchInterpreter) {
  auto build = [] {
    manual_seed(5);
    Tensor a = rand({83, 301}, f32) - 0.5, b = rand({301, 47}, f32) - 0.5, c = rand({37, 129}, f32) - 0.5;
    Tensor d = rand({129, 211}, f32) - 0.5, e = rand({3, 40, 70}, f64) - 0.5, f = rand({70, 90}, f64) - 0.5;
    Tensor g = rand({12, 400}, f32) - 0.5, h = rand({400, 100}, f32) - 0.5;
    eval({a, b, c, d, e, f, g, h});
    return std::vector<Tensor>{
        matmul(a, b),                                     // by rows, last band of 3 rows
        matmul(c, d),                                     // by rows, last band of 5 rows
        matmul(g, h),                                     // 12 rows: by columns, last band of 4
        matmul(g.slice(0, 0, 5).T(), g.slice(0, 5, 10)),  // 400 x 400 from k = 5
        matmul(a.T(), a),                                 // transposed left operand (a weight gradient)
        matmul(d, a.slice(1, 0, 211).T()),  // transposed right operand with a leading dim of 301
        matmul(e, f)};                      // batched f64, each batch split
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << o;
    for (std::size_t i = 0; i < jit[o].size(); ++i)
      ASSERT_NEAR(jit[o][i], ref[o][i], 1e-4 * (1 + std::fabs(ref[o][i]))) << o << " " << i;
  }
}

namespace {

void expect_close(const std::vector<std::vector<double>>& jit, const std::vector<std::vector<double>>& ref,
                  double rel, const char* what) {
  ASSERT_EQ(jit.size(), ref.size()) << what;
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << what << " output " << o;
    for (std::size_t i = 0; i < jit[o].size(); ++i)
      ASSERT_NEAR(jit[o][i], ref[o][i], rel * (1 + std::fabs(ref[o][i])))
          << what << " output " << o << " elem " << i;
  }
}

}  // namespace

// Row kernels whose inner stores reuse what the reduction loop computed (softmax: exp(x - max),
// kept in a per-row scratch of 8192 elements): rows that fit, rows that do not (the two-function
// path), a transposed input, two reduced dims, and a scratch value that is not the store's own.
TEST(Differential, RowKernelsWithScratchMatchInterpreter) {
  auto build = [] {
    manual_seed(7);
    Tensor a = rand({5, 300}, f32) * 8.0 - 4.0, b = rand({3, 9000}, f64) * 8.0 - 4.0;
    Tensor c = rand({40, 6}, f64), d = rand({4, 6, 7}, f32), g = rand({16, 9000}, f32) * 8.0 - 4.0;
    eval({a, b, c, d, g});
    Tensor e = exp(c.T() - max(c.T(), {1}, true));
    Tensor s = sin(d - 0.5);
    // The kept value goes to the output element (in_output in render_cpu) unless the store
    // loop also reads a buffer (the `+ a`, `- b` and `+ g` rows): then to the scratch row, whose
    // rows of more than 8192 elements (b; g, staged) fall back to recomputing.
    Tensor ea = exp(a - max(a, {1}, true)), eb = exp(b - max(b, {1}, true)), eg = exp(g - max(g, {1}, true));
    return std::vector<Tensor>{softmax(a, 1),
                               softmax(b, 1),
                               softmax(c, 0),
                               e / sum(e, {1}, true) + 2.0 * e,  // the kept value feeds two stores' ops
                               s * sum(s, {1, 2}, true),
                               log_softmax(a, 1),
                               ea / sum(ea, {1}, true) + a,
                               eb / sum(eb, {1}, true) - b,
                               eg / sum(eg, {1}, true) + g};  // staged, rows past the scratch: _row
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  expect_close(jit, ref, 2e-6, "row kernels");
}

// Reductions over a leading axis that read another (var, softmax, a batch norm) run each
// reduction as a kernel of its own in column mode (docs/fusion.md, rules 5 and 6 "leading-axis");
// the values stay those of the interpreter. Sizes past one column tile, with a row count that is
// no multiple of column mode's 4 rows per pass.
TEST(Differential, LeadingAxisStagedReductionsMatchInterpreter) {
  auto build = [] {
    manual_seed(17);
    Tensor x = rand({203, 1100}, f32) * 4.0 - 2.0, y = rand({3, 67, 50}, f64), w = rand({1100}, f32);
    eval({x, y, w});
    Tensor mu = mean(x, {0}, true);
    Tensor va = mean((x - mu) * (x - mu), {0}, true);
    return std::vector<Tensor>{var(x, {0}),
                               var(y, {1}, 1.0),
                               softmax(x, 0),
                               log_softmax(y, 1),
                               (x - mu) / sqrt(va + 1e-5) * w,  // a batch norm
                               log(sum(exp(x - max(x, {0}, true)), {0}, true)) + max(x, {0}, true)};
  };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  expect_close(jit, ref, 2e-6, "leading-axis staged reductions");
}

// Element-wise kernels with a small first dim that few values depend on run it unrolled (the
// values that ignore it are computed once): a (3, N) state whose rows are picked with `where`,
// as an odeint system writes it, at sizes that split over several tasks and leave remainders,
// with first dims of 2 and 4, and 5 (not unrolled).
TEST(Differential, LeadDimKernelsMatchInterpreter) {
  auto build = [](int64_t rows, int64_t n) {
    manual_seed(static_cast<uint64_t>(rows * 1000 + n));
    Tensor s = rand({rows, n}, f64) * 20.0 - 10.0, rho = rand({1, n}, f64) * 30.0;
    Tensor row = arange(rows, i64).reshape({rows, 1});
    eval({s, rho, row});
    auto f = [&](const Tensor& u) {
      const Tensor x = u.slice(0, 0, 1), y = u.slice(0, 1, 2), z = u.slice(0, rows - 1, rows);
      return where(row == 0, 10.0 * (y - x), where(row == 1, x * (rho - z) - y, x * y - (8.0 / 3.0) * z));
    };
    const double h = 1e-3;
    Tensor k1 = f(s), k2 = f(s + (h / 2) * k1), k3 = f(s + (h / 2) * k2), k4 = f(s + h * k3);
    return std::vector<Tensor>{s + (h / 6) * (k1 + 2.0 * k2 + 2.0 * k3 + k4), exp(rho) * tanh(rho) + s};
  };
  for (const auto& size : {std::pair<int64_t, int64_t>{3, 50001}, {3, 7}, {2, 40000}, {4, 33}, {5, 1000}}) {
    const int64_t rows = size.first, n = size.second;
    auto jit = values(build(rows, n));
    auto ref = with_backend("interpreter", [&] { return values(build(rows, n)); });
    expect_close(jit, ref, 1e-12, "lead-dim kernels");
  }
}

// The JIT sums f32 in float blocks of 512 elements and adds the blocks in double
// (docs/semantics.md). Long sums, rows with remainders, strided (column) sums, sums that
// cancel, and the staged softmax sum stay within the documented bound of
// 36 * 2^-24 * sum|x_i| of the exact sum, and far closer than a float loop for the long ones.
TEST(Differential, BlockedF32SumsStayWithinTheirBound) {
  manual_seed(11);
  const int64_t n = 1'000'003, rows = 7, cols = 100'003;
  Tensor x = rand({n}, f32), m = rand({rows, cols}, f32) * 2.0 - 1.0, c = rand({3001, 5}, f32) - 0.5;
  eval({x, m, c});
  const std::vector<double> xv = x.to_vector<double>(), mv = m.to_vector<double>(),
                            cv = c.to_vector<double>();
  const double bound = 36 * 0x1p-24;
  // sum(x) and sum(x * x), against the double sums over the f32 products
  double exact = 0, exact2 = 0, mag = 0, mag2 = 0;
  float naive = 0;
  for (double v : xv) {
    exact += v;
    mag += std::fabs(v);
    naive += static_cast<float>(v);
    const double p = static_cast<float>(v * v);
    exact2 += p;
    mag2 += p;
  }
  const double got = sum(x).item<float>(), got2 = sum(x * x).item<float>();
  EXPECT_LE(std::fabs(got - exact), bound * mag);
  EXPECT_LE(std::fabs(got2 - exact2), bound * mag2);
  EXPECT_LT(std::fabs(got - exact), std::fabs(naive - exact));  // better than a float loop
  EXPECT_LE(std::fabs(got - exact), 1e-6 * exact);
  // rows of 100003 (not a multiple of the block) with cancelling signs, and columns
  const std::vector<float> r = sum(m, {1}).to_vector<float>(), col = sum(c, {0}).to_vector<float>();
  for (int64_t i = 0; i < rows; ++i) {
    double e = 0, a = 0;
    for (int64_t j = 0; j < cols; ++j) {
      e += mv[static_cast<std::size_t>(i * cols + j)];
      a += std::fabs(mv[static_cast<std::size_t>(i * cols + j)]);
    }
    EXPECT_LE(std::fabs(r[static_cast<std::size_t>(i)] - e), bound * a + std::fabs(e) * 0x1p-24)
        << "row " << i;
  }
  for (int64_t j = 0; j < 5; ++j) {
    double e = 0, a = 0;
    for (int64_t i = 0; i < 3001; ++i) {
      e += cv[static_cast<std::size_t>(i * 5 + j)];
      a += std::fabs(cv[static_cast<std::size_t>(i * 5 + j)]);
    }
    EXPECT_LE(std::fabs(col[static_cast<std::size_t>(j)] - e), bound * a + std::fabs(e) * 0x1p-24)
        << "column " << j;
  }
  // the staged softmax (its row sum is blocked) against the interpreter
  auto build = [&] { return std::vector<Tensor>{softmax(m, 1), log_softmax(m, 1)}; };
  auto jit = values(build());
  auto ref = with_backend("interpreter", [&] { return values(build()); });
  expect_close(jit, ref, 2e-6, "blocked softmax");
}

// Issue 17 item 10: element-wise kernels are bit-identical to the interpreter. A fused
// `a * b + c` must not be contracted into one FMA (GCC contracts by default with FMA
// hardware; the interpreter rounds the product, then the sum): about a quarter of random f32
// triples differed by an ulp. Several shapes of multiply-add, f32 and f64, and exp/sigmoid
// (polynomials in scalar.hpp, contracted the same way), compared bit for bit.
// Element-wise results against the interpreter, which rounds every product. With
// CGRAD_FP_CONTRACT=0 (the ctest entry with suffix .nocontract) the kernels contract nothing
// and every element is bit-identical; by default multiply-adds become FMAs (one rounding
// fewer), and each element is within a few roundings of the terms' magnitude.
TEST(Differential, MultiplyAddsMatchTheInterpreter) {
  manual_seed(17);
  const int64_t n = 4099;
  const bool contract = core::env().fp_contract;
  for (DType t : {f32, f64}) {
    SCOPED_TRACE(dtype_name(t));
    Tensor a = (rand({n}, t) * 2.0 - 1.0).eval(), b = (rand({n}, t) * 1e3).eval(), c = randn({n}, t).eval();
    Tensor d = (randn({n}, t) * 0.1).eval();
    auto build = [&] {
      return std::vector<Tensor>{
          a * b + c,           c - a * b, a * b + c * d, (a * b + c) * d + a, exp(a * b * 1e-3 + c),
          sigmoid(a * 4.0 + d)};
    };
    auto jit = values(build());
    auto ref = with_backend("interpreter", [&] { return values(build()); });
    ASSERT_EQ(jit.size(), ref.size());
    const double eps = t == f32 ? 0x1p-24 : 0x1p-53;
    for (std::size_t o = 0; o < jit.size(); ++o) {
      ASSERT_EQ(jit[o].size(), ref[o].size());
      double largest = 0;
      for (double r : ref[o]) largest = std::max(largest, std::fabs(r));
      // |a*b| <= 1e3 bounds every product's rounding, the largest result the exp's.
      const double tol = contract ? 16 * eps * (1e3 + largest) : 0.0;
      std::size_t differ = 0;
      for (std::size_t i = 0; i < jit[o].size(); ++i) differ += std::fabs(jit[o][i] - ref[o][i]) > tol;
      EXPECT_EQ(differ, 0u) << "output " << o << ": " << differ << " of " << n << " elements beyond " << tol;
    }
  }
}

// `mean` is `sum(x) / count`: for f32 the double accumulation is rounded to f32 once (the sum),
// then the division rounds again: two roundings, on every backend (docs/semantics.md). The
// interpreter is checked bit for bit; the JIT sums f32 in blocks, so within the blocked sum's
// bound (36 * 2^-24 * sum|x|, here |x| < 2) over the count, plus the two roundings on each side.
TEST(Differential, F32MeanIsTheRoundedSumDividedOnce) {
  manual_seed(23);
  const int64_t rows = 37, cols = 1001;
  Tensor x = (rand({rows, cols}, f32) * 3.0 - 1.0).eval();
  const std::vector<float> xv = x.to_vector<float>();
  const double jit_tol = (36 * 2 + 4) * 0x1p-24;
  for (const std::string backend : {"interpreter", "jit"}) {
    SCOPED_TRACE(backend);
    const bool exact = backend == "interpreter";
    const std::vector<float> got =
        with_backend(backend.c_str(), [&] { return x.mean({1}).to_vector<float>(); });
    const float got_all = with_backend(backend.c_str(), [&] { return x.mean().item<float>(); });
    double total = 0;
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t j = 0; j < cols; ++j) s += xv[static_cast<std::size_t>(r * cols + j)];
      total += s;
      const float want = static_cast<float>(s) / static_cast<float>(cols);
      const float g = got[static_cast<std::size_t>(r)];
      if (exact)
        EXPECT_EQ(g, want) << "row " << r;
      else
        EXPECT_NEAR(g, want, jit_tol) << "row " << r;
    }
    const float want_all = static_cast<float>(total) / static_cast<float>(rows * cols);
    if (exact)
      EXPECT_EQ(got_all, want_all);
    else
      EXPECT_NEAR(got_all, want_all, jit_tol);
  }
}

// Every output of build() on the JIT (the default backend) has the interpreter's bits, any NaN
// counting as one; x (the input, of element type E) names the position of a difference.
template <class E, class Build>
void expect_interpreters_bits(const std::vector<E>& x, Build build) {
  using U = std::conditional_t<sizeof(E) == 4, uint32_t, uint64_t>;
  auto bits = [](const std::vector<Tensor>& outs) {
    std::vector<std::vector<U>> v;
    for (const Tensor& o : outs) {
      std::vector<U> b;
      for (E e : o.to_vector<E>()) {
        U u;
        std::memcpy(&u, &e, sizeof u);
        b.push_back(std::isnan(e) ? U{0} : u);
      }
      v.push_back(b);
    }
    return v;
  };
  const auto jit = bits(build());
  const auto ref = with_backend("interpreter", [&] { return bits(build()); });
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o)
    for (std::size_t i = 0; i < jit[o].size(); ++i)
      ASSERT_EQ(jit[o][i], ref[o][i]) << "output " << o << " at " << std::hexfloat << x[i];
}

// sin, cos and tan of f32 in a kernel (on x86-64 with GCC, through their vector variants:
// include/cgrad/scalar.hpp) give the interpreter's bits: a sweep of bit patterns (every exponent,
// inf and NaN), vectors of small arguments with one at or above 2^20 in each lane position (the
// vector's other lanes take the short reduction, that one the exact one), a length that leaves
// a scalar tail, and the functions fused into one expression and of f16 (computed in f32).
TEST(Differential, TrigOfF32GivesTheInterpretersBits) {
  std::vector<float> x;
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 65521) {
    float f;
    const auto u = static_cast<uint32_t>(b);
    std::memcpy(&f, &u, 4);
    x.push_back(f);
  }
  for (int lane = 0; lane < 32; ++lane)  // 32 lanes: every position of 16- and 8-lane vectors
    for (int i = 0; i < 32; ++i)
      x.push_back(i == lane ? (lane % 2 ? -0x1p20f : 0x1.5p40f) : 0.37f * static_cast<float>(i - 16));
  x.push_back(0x1.fffffep19f), x.push_back(0x1p20f), x.push_back(-0x1.ccbdb8p+61f);  // (a tail)
  const auto n = static_cast<int64_t>(x.size());
  auto build = [&] {
    const Tensor t = tensor(x, {n});
    const Tensor h = t.cast(DType::f16);
    return std::vector<Tensor>{sin(t), cos(t),
                               tan(t), sin(t * 2.0) + cos(t) - tan(t),  // (no multiply-add: contracted)
                               sin(h), tan(h)};  // (each stored as f16: fused, nothing rounds to 16 bits)
  };
  expect_interpreters_bits(x, build);
}

// The same for f64 (cgrad's own below 2^20, the C library's from there on: a vector with a lane
// at or above 2^20 computes lane by lane): random bit patterns, every exponent from 2^-30 to
// 2^30 with random mantissas, a large argument in each lane position of 4- and 8-lane vectors,
// a scalar tail, and the functions fused into one expression.
TEST(Differential, TrigOfF64GivesTheInterpretersBits) {
  std::vector<double> x;
  std::mt19937_64 g(64);
  for (int i = 0; i < 60000; ++i) {
    const uint64_t u = g();
    double d;
    std::memcpy(&d, &u, 8);
    x.push_back(d);
  }
  for (int e = -30; e <= 30; ++e)
    for (int i = 0; i < 200; ++i)
      x.push_back(std::ldexp(std::uniform_real_distribution<double>(-1.0, 1.0)(g), e));
  for (int lane = 0; lane < 16; ++lane)
    for (int i = 0; i < 16; ++i)
      x.push_back(i == lane ? (lane % 2 ? -0x1p20 : 0x1.5p40) : 0.37 * static_cast<double>(i - 8));
  x.push_back(0x1.fffffffffffffp19), x.push_back(0x1p20), x.push_back(-0x1.ccbdb8p+61);  // (a tail)
  const auto n = static_cast<int64_t>(x.size());
  auto build = [&] {
    const Tensor t = tensor(x, {n});
    return std::vector<Tensor>{sin(t), cos(t), tan(t), sin(t * 2.0) + cos(t) - tan(t)};
  };
  expect_interpreters_bits(x, build);
}

// Each output of the JIT equals the interpreter's, element by element (bits or values).
template <class V>
void expect_same_outputs(const std::vector<std::vector<V>>& jit, const std::vector<std::vector<V>>& ref) {
  ASSERT_EQ(jit.size(), ref.size());
  for (std::size_t o = 0; o < jit.size(); ++o) {
    ASSERT_EQ(jit[o].size(), ref[o].size()) << "output " << o;
    for (std::size_t i = 0; i < jit[o].size(); ++i)
      ASSERT_EQ(jit[o][i], ref[o][i]) << "output " << o << " at " << i;
  }
}

// Element-wise kernels convert blocks of contiguous f16 elements with the CPU's conversion
// instructions where it has them (include/cgrad/scalar.hpp, f16_block_load / f16_block_store):
// every f16 bit pattern read, and f32 values of every kind written, must give the interpreter's
// bits, NaN payloads included (the hardware quiets signalling NaNs and keeps payload bits that
// float16_t's conversions do not), through tails, runs of several dims and strided reads.
TEST(Differential, F16BlocksGiveTheInterpretersBits) {
  std::vector<float16_t> h;
  for (uint32_t b = 0; b < 65536; ++b) h.push_back(float16_t::from_bits(static_cast<uint16_t>(b)));
  for (uint32_t b = 0; b < 37; ++b) h.push_back(float16_t::from_bits(static_cast<uint16_t>(0x7c01 + 7 * b)));
  std::vector<float> x;
  auto from_bits = [](uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 65521) x.push_back(from_bits(static_cast<uint32_t>(b)));
  for (uint32_t u = 0; u < 0x7c00; u += 3) {  // f16 midpoints (exact in float) and their neighbours
    const float mid = (static_cast<float>(float16_t::from_bits(static_cast<uint16_t>(u))) +
                       static_cast<float>(float16_t::from_bits(static_cast<uint16_t>(u + 1)))) /
                      2;
    for (float m : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)})
      x.push_back(m), x.push_back(-m);
  }
  for (uint32_t u : {0x7f800001u, 0xff800001u, 0x7fc00001u, 0x7fffe000u, 0xffbfe000u, 0x7f802000u,
                     0x477ff000u, 0x477fefffu, 0x33000000u, 0x33000001u, 0x80000000u})
    x.push_back(from_bits(u));
  const auto nh = static_cast<int64_t>(h.size()), nx = static_cast<int64_t>(x.size());
  auto build = [&] {
    const Tensor H = tensor(h, {nh}), X = tensor(x, {nx});
    const Tensor sq = H.slice(0, 0, 65536).reshape({256, 256});
    return std::vector<Tensor>{H.cast(f32),
                               X.cast(f16),
                               -H,
                               exp(H * 0.5),
                               (X * 3.0).cast(f16),
                               sq.slice(1, 1, 256) * 2.0,
                               sq.T() + 1.0,
                               sq.slice(1, 0, 256, 3).cast(f32)};
  };
  auto bits = [](const std::vector<Tensor>& outs) {
    std::vector<std::vector<uint32_t>> v;
    for (const Tensor& o : outs) {
      std::vector<uint32_t> b;
      if (o.dtype() == f16)
        for (float16_t e : o.to_vector<float16_t>()) b.push_back(e.bits);
      else
        for (float f : o.to_vector<float>()) {
          uint32_t u;
          std::memcpy(&u, &f, 4);
          b.push_back(u);
        }
      v.push_back(b);
    }
    return v;
  };
  expect_same_outputs(bits(build()), with_backend("interpreter", [&] { return bits(build()); }));
}

// Element-wise kernels with a transposed access go by bands of whole rows and tiles of columns
// (templates/cpu_range_band.inc): rows not a multiple of the band, columns not a multiple of the
// tile, bands that cross the outer dim of a permuted 3-d array, stepped and transposed operands
// together, f16 (whose contiguous stores are staged by blocks), and a range that starts and ends
// mid-row (a thread's share) must give the interpreter's values.
TEST(Differential, TransposedKernelsByBandsMatchTheInterpreter) {
  auto build = [] {
    manual_seed(5);
    const Tensor a = rand({300, 130}, f32) - 0.5, b = rand({5, 70, 33}, f64), c = rand({37, 29}, f32);
    const Tensor h = (rand({260, 45}, f32) * 8.0 - 4.0).cast(f16), row = rand({300}, f32);
    eval({a, b, c, h, row});
    const Tensor bt = b.permute({0, 2, 1});
    return std::vector<Tensor>{abs(a.T()) + 1.0,      maximum(bt, 0.5) - bt, c.T() + row.slice(0, 0, 37),
                               a.T() - row,           h.T() * 3.0,           a.slice(0, 1, 300, 2).T() / 7.0,
                               a.T().slice(1, 3, 250)};  // (no multiply-add: the JIT may contract it)
  };
  auto values = [](const std::vector<Tensor>& outs) {
    std::vector<std::vector<double>> v;
    for (const Tensor& o : outs) v.push_back(o.to_vector<double>());
    return v;
  };
  expect_same_outputs(values(build()), with_backend("interpreter", [&] { return values(build()); }));
}
