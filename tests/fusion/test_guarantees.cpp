// The fusion guarantees of API.md, asserted through stats().kernels_launched, each also
// checked against the interpreter's values.
#include "oracle.h"

#include <cgrad/interop.hpp>

#include <gtest/gtest.h>

#include <cmath>

using namespace cgrad;
using cgrad::test::kernels_for;
using cgrad::test::with_backend;

namespace {

Tensor data(Shape s, uint64_t seed, DType t = f32) {
  manual_seed(seed);
  Tensor x = rand(s, t);
  x.eval();
  return x;
}

void expect_close(const Tensor& a, const std::vector<double>& ref, double tol = 1e-5) {
  auto v = a.to_vector<double>();
  ASSERT_EQ(v.size(), ref.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(ref[i])) {
      EXPECT_TRUE(std::isnan(v[i])) << i;
    } else if (std::isinf(ref[i])) {
      EXPECT_EQ(v[i], ref[i]) << "element " << i;
    } else {
      EXPECT_NEAR(v[i], ref[i], tol * (1 + std::fabs(ref[i]))) << "element " << i;
    }
  }
}

// Builds with `make`, evaluates with the JIT counting kernels, and compares with the interpreter.
uint64_t check(const std::function<std::vector<Tensor>()>& make, double tol = 1e-5) {
  auto outs = make();
  uint64_t k = kernels_for(outs);
  auto ref = with_backend("interpreter", [&] {
    auto r = make();
    std::vector<std::vector<double>> vals;
    for (auto& t : r) vals.push_back(t.to_vector<double>());
    return vals;
  });
  for (std::size_t i = 0; i < outs.size(); ++i) expect_close(outs[i], ref[i], tol);
  return k;
}

}  // namespace

TEST(Fusion, ElementwiseChainIsOneKernel) {
  Tensor a = data({64, 33}, 1), b = data({33}, 2), c = data({64, 1}, 3);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{a * b + c}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{1.0 / (1.0 + exp(-(a * b + c)))}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sigmoid(a).cast(f64) * 2 + tanh(b).cast(f64)}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{where(a > b, a, c * 3.0) + clamp(a, 0.2, 0.8)}; }), 1u);
}

TEST(Fusion, ElementwiseWithViewsIsOneKernel) {
  Tensor a = data({16, 24}, 4), b = data({24, 16}, 5);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{a + b.T() * 2.0}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{a.slice(1, 2, 20, 3) * a.slice(1, 3, 21, 3)}; }), 1u);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{
                  (a.reshape({16, 24, 1}) + b.T().reshape({16, 24, 1})).expand({16, 24, 5}) * 1.5};
            }),
            1u);
}

TEST(Fusion, SourcesFuse) {
  manual_seed(7);
  EXPECT_EQ(check([&] {
              manual_seed(7);
              return std::vector<Tensor>{rand({100}) * arange(100) + full({100}, 2.0)};
            }),
            1u);
}

TEST(Fusion, IndependentOutputsLaunchTogether) {
  Tensor a = data({1000}, 6), b = data({1000}, 7);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{a + b, a * b, exp(a) - b}; }), 1u);
}

TEST(Fusion, ReductionOfElementwiseIsOneKernel) {
  Tensor a = data({300, 70}, 8), b = data({300, 70}, 9);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(a * b)}; }, 1e-6), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(a + b, {1})}; }, 1e-6), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(a + b, {0})}; }, 1e-6), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{max(a - b, {1}, true)}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{mean(a * b, {1})}; }, 1e-6), 1u);
}

// The reduction kinds added as op-table rows fuse with their element-wise inputs like sum;
// argmax/argmin (one-pass Argmax/Argmin rows whose accumulator pairs the extreme with its index)
// are one kernel with their element-wise input, along an axis and over all axes.
TEST(Fusion, NewReductionKindsFuseWithTheirInputs) {
  Tensor a = data({300, 70}, 40), b = data({300, 70}, 41);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{prod(a * 0.5 + 0.75, {1})}; }, 1e-6), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{prod(b + 0.5, {0}, true)}; }, 1e-6), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{any(a > b + 0.9, {1})}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{all(a * b < 0.99)}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{any(a - b, {0})}; }), 1u);  // x != 0 fuses too
  EXPECT_EQ(check([&] { return std::vector<Tensor>{argmax(a * b, 1)}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{argmin(exp(a) - b, 0)}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{argmax(a + b)}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{argmin(a.T() * 2.0 - b.T(), 1, true)}; }), 1u);
}

// flip is index math (negative strides), so it fuses like a slice: reading a flipped input or
// flipping a fused expression costs no kernel of its own.
TEST(Fusion, FlipFuses) {
  Tensor a = data({64, 33}, 42), b = data({64, 33}, 43);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{flip(a, {1}) * b + 1.0}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{flip(a * b + 1.0) - a}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(flip(exp(a) * b, {0}), {1})}; }, 1e-6), 1u);
}

TEST(Fusion, LargeFullReductionSplitsDeterministically) {
  Tensor a = data({1 << 20}, 10), b = data({1 << 20}, 11);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(a * b)}; }, 1e-6), 1u);
  double first = sum(a * b).item<double>();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(sum(a * b).item<double>(), first);
}

TEST(Fusion, MatmulOfElementwiseIsTwoKernels) {
  Tensor a = data({8, 5}, 12), b = data({8, 5}, 13), c = data({5, 3}, 14);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{matmul(a + b, c)}; }), 2u);
}

TEST(Fusion, ShortCatFusesIntoItsKernel) {
  Tensor a = data({1, 300}, 30), b = data({1, 300}, 31), c = data({1, 300}, 32), s = data({3, 300}, 33);
  // a cat requested directly: one kernel storing each row from its input's expression
  EXPECT_EQ(check([&] { return std::vector<Tensor>{cat({a * b, exp(b), c - a}, 0)}; }), 1u);
  // element-wise consumers of cats: each row reads the one input that holds it
  EXPECT_EQ(check([&] { return std::vector<Tensor>{s + 0.5 * cat({a * b, exp(b), c - a}, 0)}; }), 1u);
  // slices of a cat resolve to its inputs: the cat is never built
  EXPECT_EQ(check([&] {
              Tensor k = cat({a * b, exp(b), c - a}, 0);
              Tensor u = s + 0.25 * k;
              Tensor x = u.slice(0, 0, 1), y = u.slice(0, 1, 2), z = u.slice(0, 2, 3);
              return std::vector<Tensor>{u + cat({y - x, x * z, z * 2.0}, 0)};
            }),
            1u);
  // inputs longer than one row, along the last axis (an interleaved store), and a stack of reshapes
  Tensor p = data({2, 300}, 34), q = data({300, 1}, 35), r = data({300, 2}, 36);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{cat({p * 2.0, a}, 0) - 1.0}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{cat({q, r * r}, 1) + 1.0}; }), 1u);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{cat({a.reshape({1, 1, 300}), exp(b).reshape({1, 1, 300})}, 1)};
            }),
            1u);
  // a flat state of three equal parts (odeint style: slices of one vector, then cat): the
  // kernel runs over one part and stores the three
  Tensor v = data({900}, 44);
  auto f = [](const Tensor& u) {
    Tensor x = u.slice(0, 0, 300), y = u.slice(0, 300, 600), z = u.slice(0, 600, 900);
    return cat({10.0 * (y - x), x * (28.0 - z) - y, x * y - 2.0 * z}, 0);
  };
  EXPECT_EQ(check([&] {
              Tensor k1 = f(v), k2 = f(v + 0.01 * k1);
              return std::vector<Tensor>{v + 0.005 * (k1 + k2)};
            }),
            1u);
  // parts of unequal inputs: 200 + 100 is 3 parts of 100
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{cat({v.slice(0, 0, 200), exp(v.slice(0, 200, 300))}, 0) * 2.0};
            }),
            1u);
}

TEST(Fusion, CatThatCannotFuseIsStillRight) {
  // longer than the unroll limit along its axis: a library copy of materialized inputs
  Tensor a = data({5, 40}, 37), b = data({7, 40}, 38);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{cat({a + 1.0, b * 2.0}, 0)}; }), 3u);
  // a short cat read along a loop dim through a permute: computed by its own kernel
  Tensor c = data({1, 40}, 39), d = data({1, 40}, 40), e = data({40, 2}, 41);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{cat({c, d * 3.0}, 0).T() + e}; }), 2u);
  // reductions of and over cats
  EXPECT_GE(check([&] {
              return std::vector<Tensor>{sum(cat({c * d, d}, 0), {1}), sum(cat({c, d}, 0) * 2.0)};
            }),
            1u);
  Tensor f = data({3, 40}, 42);
  EXPECT_GE(check([&] { return std::vector<Tensor>{softmax(cat({c, d, c * d}, 0) + f, -1)}; }), 1u);
  // integer and bool parts
  Tensor ia = (data({1, 40}, 45) * 100.0).cast(i64), ib = (data({1, 40}, 46) * 100.0).cast(i64);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{cat({ia, ib * 2}, 0) + 1}; }), 1u);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{where(cat({c > 0.5, d < 0.5}, 0), cat({c, d}, 0), 0.0)};
            }),
            1u);
  // a cat of a zero-length input
  Tensor z = data({0, 40}, 43);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{cat({c, z, d}, 0) * 2.0}; }), 1u);
}

TEST(Fusion, SoftmaxIsAtMostTwoKernels) {
  Tensor x = data({33, 257}, 15);
  EXPECT_LE(check([&] { return std::vector<Tensor>{softmax(x, -1)}; }), 2u);
  EXPECT_LE(check([&] { return std::vector<Tensor>{log_softmax(x, -1)}; }), 2u);
  // over a leading axis: the max and the sum each in column mode, then the stores (rules 5, 6
  // "leading-axis" in docs/fusion.md)
  EXPECT_LE(check([&] { return std::vector<Tensor>{softmax(x, 0)}; }), 3u);
}

// The CPU JIT stages row reductions that read each other (docs/fusion.md rule 6): softmax,
// log_softmax, layer norm and logsumexp are one kernel, one loop per stage over each row.
TEST(Fusion, StagedRowReductionsAreOneKernelOnTheCpu) {
  // seeds no other test uses: equal data would be equal buffers, and the result cache would answer
  Tensor x = data({33, 257}, 115), w = data({257}, 116), big = data({9, 9000}, 117);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{softmax(x, -1)}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{log_softmax(x, -1)}; }), 1u);
  // Rows over a leading axis are not staged: a row kernel would walk them one element per cache
  // line (softmax(x, 0) of 4096 x 4096 f32 took 530 ms); each reduction runs in column mode.
  EXPECT_EQ(check([&] { return std::vector<Tensor>{softmax(x, 0)}; }), 3u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{var(x, {0})}; }), 2u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{softmax(big, -1)}; }), 1u)
      << "rows longer than the kept scratch";
  EXPECT_EQ(check([&] {
              Tensor mu = mean(x, {1}, true);
              Tensor var = mean((x - mu) * (x - mu), {1}, true);
              return std::vector<Tensor>{(x - mu) / sqrt(var + 1e-5) * w};
            }),
            1u)
      << "layer norm: mean, then variance, then the stores";
  EXPECT_EQ(check([&] {
              Tensor m = max(x, {1}, true);
              return std::vector<Tensor>{log(sum(exp(x - m), {1}, true)) + m};
            }),
            1u)
      << "logsumexp: a reduction root over a staged one";
  EXPECT_EQ(check([&] {
              Tensor m = max(x, {1}, true);
              Tensor e = exp(x - m);
              Tensor s = sum(e, {1}, true);
              Tensor c = e / s - mean(e / s, {1}, true);
              return std::vector<Tensor>{c * rsqrt(sum(c * c, {1}, true) + 1e-3)};
            }),
            2u)
      << "four stages: the innermost one is its own kernel";
  // non-finite rows: NaN propagates through the staged max, +-inf rows give what the
  // interpreter gives
  std::vector<float> special(33 * 16);
  for (std::size_t i = 0; i < special.size(); ++i) special[i] = static_cast<float>(i % 7) - 3.0f;
  special[5] = std::nanf("");
  special[16 + 3] = INFINITY;
  special[32 + 2] = -INFINITY;
  for (std::size_t j = 0; j < 16; ++j) special[48 + j] = -INFINITY;
  Tensor sp = tensor(special, {33, 16});
  EXPECT_EQ(check([&] { return std::vector<Tensor>{softmax(sp, -1), log_softmax(sp, -1)}; }), 1u);
  Tensor ints = (data({12, 40}, 119) * 10.0).cast(i32);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{softmax(ints, -1)}; }), 1u) << "integer input: f32";
  Tensor few = data({4, 1000}, 118);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{softmax(few, -1)}; }), 2u)
      << "fewer than 8 rows: the row max splits across threads in its own kernel";
}

// Reductions of one input over the same axes launch together, as requested outputs of one loop
// structure (docs/fusion.md rule 10), with or without keepdim: one pass over the input. Max and
// min of one value share a loop (`scalar::minimum`'s comment: a NaN row gives NaN in both).
TEST(Fusion, ReductionsOfOneInputLaunchTogether) {
  Tensor x = data({40, 300}, 40);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(x, {1}), max(x, {1}), min(x, {1})}; }), 1u);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{sum(x, {1}, true), max(x, {1}, true), min(x, {1}, true)};
            }),
            1u);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{sum(x, {0}), max(x, {0}), min(x, {0})};
            }),
            1u)
      << "over a leading axis: one column-mode kernel";
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(x, {1}), sum(x * x, {1})}; }), 1u);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{sum(x, {1}), max(x, {0})};
            }),
            2u)
      << "other loop structures";
  std::vector<float> v = x.to_vector<float>();
  v[3 * 300 + 7] = std::nanf("");  // a NaN early in a row, and last in another
  v[10 * 300 + 299] = std::nanf("");
  v[20 * 300 + 5] = INFINITY;
  v[21 * 300 + 9] = -INFINITY;
  Tensor sp = tensor(v, {40, 300});
  EXPECT_EQ(check([&] { return std::vector<Tensor>{max(sp, {1}) - min(sp, {1})}; }), 1u);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{min(sp, {1}), max(sp, {1}), min(sp, {0}), max(sp, {0})};
            }),
            2u);
  const std::vector<float> lo = min(sp, {1}).to_vector<float>(), hi = max(sp, {1}).to_vector<float>();
  EXPECT_TRUE(std::isnan(lo[3]) && std::isnan(hi[3]) && std::isnan(lo[10]) && std::isnan(hi[10]));
  EXPECT_EQ(hi[20], INFINITY);
  EXPECT_EQ(lo[21], -INFINITY);
}

TEST(Fusion, EvaluatedTensorLaunchesNothing) {
  Tensor a = data({10}, 16);
  Tensor y = exp(a) + 1.0;
  y.eval();
  EXPECT_EQ(kernels_for({y}), 0u);
}

TEST(Fusion, ViewOutputsAreFree) {
  Tensor a = data({4, 6}, 17);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{a.T(), a.slice(0, 1, 3)}; }), 0u);
}

// Element-wise ops whose tensor operands are all the same permute keep the operands' memory
// order, as NumPy and PyTorch do: the kernel walks them in order and the result is a view. Casts
// of a permute too.
TEST(Fusion, ElementwiseOfPermutesKeepsTheirOrder) {
  Tensor m = data({48, 40}, 30), n = data({48, 40}, 31), c = data({40, 48}, 32);
  Tensor x = data({4, 5, 6}, 33);
  auto strides = [](const Tensor& t) { return memory_view(t).strides; };
  EXPECT_EQ(check([&] { return std::vector<Tensor>{m.T() + 1.0}; }), 1u);
  EXPECT_EQ(strides(m.T() + 1.0), (std::vector<int64_t>{1, 40}));
  EXPECT_EQ(check([&] { return std::vector<Tensor>{exp(m.T()) * n.T() - 0.5}; }), 1u);
  EXPECT_EQ(strides(exp(m.T()) * n.T() - 0.5), (std::vector<int64_t>{1, 40}));
  EXPECT_EQ(check([&] { return std::vector<Tensor>{where(m.T() > 0.5, m.T(), 2.0)}; }), 1u);
  EXPECT_EQ(strides(where(m.T() > 0.5, m.T(), 2.0)), (std::vector<int64_t>{1, 40}));
  EXPECT_EQ(check([&] { return std::vector<Tensor>{x.permute({2, 0, 1}) * 2.0 + 1.0}; }), 1u);
  EXPECT_EQ(strides(x.permute({2, 0, 1}) * 2.0 + 1.0), (std::vector<int64_t>{1, 30, 6}));
  Tensor one = tensor(std::vector<float>{3.0f}, {1});  // a broadcast one-element tensor
  EXPECT_EQ(check([&] { return std::vector<Tensor>{m.T() * one}; }), 1u);
  EXPECT_EQ(strides(m.T() * one), (std::vector<int64_t>{1, 40}));
  Tensor mi = (m * 100.0).cast(i32).eval();  // casts, and operands cast by promotion
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{m.T().cast(f64), mi.T() + 1.5};
            }),
            1u)
      << "rule 10: outputs that are views of values nothing else reads share a kernel";
  EXPECT_EQ(check([&] { return std::vector<Tensor>{m.T() + 1.0, n.T() * 2.0, m + n}; }), 1u);
  EXPECT_EQ(strides(m.T().cast(f64)), (std::vector<int64_t>{1, 40}));
  EXPECT_EQ(strides(mi.T() + 1.5), (std::vector<int64_t>{1, 40}));
  Tensor pending = m + n;  // a permute of a pending value
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sqrt(pending.T()) + 1.0}; }), 1u);
  EXPECT_EQ(strides(sqrt(pending.T()) + 1.0), (std::vector<int64_t>{1, 40}));
  // Row order where the operands disagree: another layout, another permutation, a full operand.
  EXPECT_EQ(strides(m.T() + c), (std::vector<int64_t>{48, 1}));
  EXPECT_EQ(strides(x.permute({2, 0, 1}) + x.permute({2, 1, 0}).reshape({6, 4, 5})),
            (std::vector<int64_t>{20, 5, 1}));
  EXPECT_EQ(check([&] { return std::vector<Tensor>{(m.T() + c) * 2.0}; }), 1u);
  // Consumers see the values, whatever the layout: a reduction, a reshape (a copy), a matmul.
  EXPECT_EQ(check([&] { return std::vector<Tensor>{sum(m.T() * 2.0, std::vector<int64_t>{1})}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{(m.T() * 2.0).reshape({1920})}; }), 2u);
  check([&] { return std::vector<Tensor>{matmul(m.T() + 1.0, n)}; }, 1e-4);
  Tensor r = (m.T() + 1.0).eval();
  auto mv = m.to_vector<float>(), rv = r.to_vector<float>();
  for (int64_t i = 0; i < 40; ++i)
    for (int64_t j = 0; j < 48; ++j)
      ASSERT_EQ(rv[static_cast<std::size_t>(i * 48 + j)], mv[static_cast<std::size_t>(j * 40 + i)] + 1.0f);
}

// With gradients recorded the op is built as written (the permute a handle holds stays on the
// gradient's path), and the gradient is the same.
TEST(Fusion, PermutesRecordingGradientsKeepTheirPlace) {
  Tensor m = data({6, 5}, 34);
  m.requires_grad(true);
  Tensor t = m.T();
  Tensor y = t * 3.0;
  EXPECT_EQ(memory_view(y).strides, (std::vector<int64_t>{6, 1}));
  sum(y).backward();
  for (float g : m.grad().to_vector<float>()) EXPECT_EQ(g, 3.0f);
  NoGradGuard off;
  EXPECT_EQ(memory_view(m.T() * 3.0).strides, (std::vector<int64_t>{1, 5}));
}

TEST(Fusion, ReshapeOfStridedLeafCopiesOnce) {
  std::vector<float> d(24);
  for (int i = 0; i < 24; ++i) d[static_cast<std::size_t>(i)] = static_cast<float>(i);
  Tensor x = tensor(d, {4, 6});
  EXPECT_EQ(check([&] { return std::vector<Tensor>{x.T().reshape({24})}; }), 1u);
  EXPECT_EQ(check([&] { return std::vector<Tensor>{x.T().reshape({2, 12}) * 2.0}; }), 2u);
  auto v = x.T().reshape({24}).to_vector<float>();
  EXPECT_EQ(v[1], 6.0f);
}

TEST(Fusion, ConstantOutputsTakeOneElement) {
  reset_stats();
  Tensor z = zeros({1 << 20}).eval();
  EXPECT_EQ(stats().kernels_launched, 0u);
  EXPECT_LE(stats().bytes_allocated, 64u);
  EXPECT_EQ(z.to_vector<float>()[12345], 0.0f);
  EXPECT_EQ(check([&] {
              return std::vector<Tensor>{full({3, 3}, 2.5) + 1.0};
            }),
            0u)
      << "folded to a constant";
}
