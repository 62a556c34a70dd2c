// Plans and the kernel cache: repeated graphs replay without planning, new sizes reuse the
// compiled kernel, assign loops compile their body once.
#include "ir/node.h"
#include "oracle.h"
#include "runtime/kernel_cache.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cgrad;

TEST(Plans, RepeatedGraphReplays) {
  test::ResultCacheOff off;  // the plan is what this test is about, not the result cache
  Tensor a = tensor(std::vector<float>{1, 2, 3}, {3}), b = tensor(std::vector<float>{4, 5, 6}, {3});
  (a * b + 7.0).eval();  // plan built (or replayed from an earlier test)
  reset_stats();
  for (int i = 0; i < 5; ++i) EXPECT_EQ((a * b + 7.0).to_vector<float>(), (std::vector<float>{11, 17, 25}));
  Stats s = stats();
  EXPECT_EQ(s.plan_cache_hits, 5u);
  EXPECT_EQ(s.plans_built, 0u);
  EXPECT_EQ(s.kernels_compiled, 0u);
  EXPECT_EQ(s.kernels_launched, 5u);
}

TEST(Plans, ReplayUsesNewLeafValues) {
  for (float v : {1.0f, 2.0f, 3.0f}) {
    Tensor a = full({4}, v).eval();
    EXPECT_EQ((a * a).to_vector<float>(), std::vector<float>(4, v * v));
  }
}

TEST(Plans, NewSizeDoesNotRecompile) {
  auto leaves = [](int64_t n) {
    Tensor a = arange(n).eval(), b = full({n}, 2.0).eval();
    return std::make_pair(a, b);
  };
  auto [a1, b1] = leaves(1000);
  (a1 * b1 - 1.5).eval();
  auto [a2, b2] = leaves(3001);
  reset_stats();
  auto v = (a2 * b2 - 1.5).to_vector<float>();
  EXPECT_EQ(v[3000], 3000 * 2 - 1.5f);
  EXPECT_EQ(stats().kernels_compiled, 0u) << "a new size must reuse the compiled kernel";
  EXPECT_EQ(stats().plans_built, 1u) << "a new size is a new plan (leaf layout is part of the key)";
}

TEST(Plans, AssignLoopCompilesOnce) {
  Tensor x = zeros({256}).eval();  // a constant: one element with zero strides
  for (int i = 0; i < 2; ++i) {    // the first step sees that layout, the second a dense buffer
    x.assign(x * 0.5 + 1.0);
    x.eval();
  }
  reset_stats();
  for (int i = 0; i < 200; ++i) {
    x.assign(x * 0.5 + 1.0);
    x.eval();
  }
  Stats s = stats();
  EXPECT_EQ(s.kernels_compiled, 0u);
  EXPECT_EQ(s.plans_built, 0u);
  EXPECT_EQ(s.plan_cache_hits, 200u);
  EXPECT_NEAR(x.to_vector<float>()[0], 2.0f, 1e-6f);
}

TEST(Plans, LongAssignLoopWithoutEvalStaysBounded) {
  Tensor x = zeros({64}).eval();
  reset_stats();
  for (int i = 0; i < 20000; ++i) x.assign(x * 0.5 + 1.0);
  EXPECT_LT(x.node()->depth, core::env().max_pending_depth);
  EXPECT_NEAR(x.to_vector<float>()[0], 2.0f, 1e-6f);
  Stats s = stats();
  EXPECT_GT(s.auto_realizes, 0u);
  EXPECT_LE(s.plans_built, 4u) << "after the first chunks, every auto-realized chunk has the same structure";
}

TEST(Plans, AsyncModeInterpretsWhileCompiling) {
  test::ResultCacheOff off;
  auto& e = core::env_mut();
  bool saved = e.jit_async;
  e.jit_async = true;
  // A constant no other test uses, so the kernel is new to this process and likely to the disk cache.
  const double c = 1.0 + 1.0 / 977.0;
  Tensor a = arange(8).eval();
  auto first = (a * c + 0.25).to_vector<float>();
  runtime::kernel_cache().wait_idle();
  reset_stats();
  auto second = (a * c + 0.25).to_vector<float>();
  e.jit_async = saved;
  EXPECT_EQ(first, second);
  EXPECT_EQ(stats().kernels_launched, 1u) << "once compiled, the fused kernel runs";
  EXPECT_EQ(stats().plans_built + stats().plan_cache_hits, 1u);
}

TEST(Plans, NewConstantsAndSeedsDoNotRecompile) {
  Tensor a = arange(64).eval();
  (a * 0.5 + rand({64})).eval();  // compiles
  reset_stats();
  for (double dt : {0.25, 0.125, 1e-3}) {
    auto v = (a * dt + rand({64})).to_vector<float>();
    EXPECT_GE(v[10], static_cast<float>(10 * dt));
    EXPECT_LT(v[10], static_cast<float>(10 * dt + 1));
  }
  EXPECT_EQ(stats().kernels_compiled, 0u) << "constants and seeds are kernel arguments";
}

// The many-kernel schedule of the tests below: enough kernel source for several units. Each
// reduction reads a slice of its own width, so no two share a loop structure (reductions of one
// input over the same axes launch together, rule 10).
static std::vector<Tensor> many_reductions(const Tensor& a) {
  auto w = [&](int64_t k) { return a.slice(1, 0, 40 - k); };
  return std::vector<Tensor>{sum(w(0), {0}),
                             sum(w(1), {1}),
                             max(w(2), {0}),
                             max(w(3), {1}),
                             min(w(4), {0}),
                             min(w(5), {1}),
                             sum(w(6) * w(6), {0}),
                             sum(exp(w(7)), {1}),
                             max(w(8) * 3.0, {0}),
                             min(abs(w(9)), {1}),
                             sum(sqrt(abs(w(10))), {0}),
                             mean(w(11), {1}),
                             max(exp(-w(12)), {0}),
                             sum(tanh(w(13)), {1})};
}

// A schedule with much kernel source compiles as several translation units, several compilers at
// once (docs/jit.md, "First calls"). In this fresh process each unit is compiled or loaded from
// disk exactly once, whatever the number of cores, and the results are the interpreter's.
TEST(Plans, LargeScheduleCompilesInParts) {
  test::ResultCacheOff off;
  Tensor a = (sin(arange(48 * 40).reshape({48, 40}) * 0.37) * 2.0).eval();
  auto build = [&] { return many_reductions(a); };
  reset_stats();
  std::vector<Tensor> jit = build();
  eval(jit);
  const Stats s = stats();
  EXPECT_GE(s.kernels_compiled + s.disk_cache_hits, 2u) << "a large schedule compiles in parts";
  EXPECT_LE(s.kernels_compiled + s.disk_cache_hits, 8u);
  std::vector<Tensor> ref = test::with_backend("interpreter", [&] {
    std::vector<Tensor> r = build();
    eval(r);
    return r;
  });
  for (std::size_t i = 0; i < jit.size(); ++i) {
    auto x = jit[i].to_vector<float>(), y = ref[i].to_vector<float>();
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t j = 0; j < x.size(); ++j)
      EXPECT_NEAR(x[j], y[j], 1e-4f * (1 + std::abs(y[j]))) << i << "," << j;
  }
  reset_stats();
  std::vector<Tensor> again = build();
  eval(again);
  EXPECT_EQ(stats().kernels_compiled + stats().disk_cache_hits, 0u) << "every part is in memory now";
}

// With CGRAD_JIT_ASYNC, every unit of a large schedule compiles in the background while the
// first evaluation is interpreted; once they are built, the schedule runs compiled.
TEST(Plans, AsyncModeCompilesEveryPartInTheBackground) {
  test::ResultCacheOff off;
  auto& e = core::env_mut();
  const bool saved = e.jit_async;
  e.jit_async = true;
  Tensor a = (cos(arange(40 * 48).reshape({40, 48}) * 0.29) * 2.0).eval();
  std::vector<Tensor> first = many_reductions(a);
  eval(first);
  runtime::kernel_cache().wait_idle();
  reset_stats();
  std::vector<Tensor> second = many_reductions(a);
  eval(second);
  const Stats s = stats();
  e.jit_async = saved;
  EXPECT_EQ(s.kernels_compiled + s.disk_cache_hits, 0u) << "every unit was built in the background";
  EXPECT_EQ(s.kernels_launched, test::kernels_for(many_reductions(a))) << "the compiled kernels ran";
  for (std::size_t i = 0; i < first.size(); ++i) {
    auto x = first[i].to_vector<float>(), y = second[i].to_vector<float>();
    for (std::size_t j = 0; j < x.size(); ++j)
      EXPECT_NEAR(x[j], y[j], 1e-4f * (1 + std::abs(y[j]))) << i << "," << j;
  }
}
