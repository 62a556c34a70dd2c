// Plans and the kernel cache: repeated graphs replay without planning, new sizes reuse the
// compiled kernel, assign loops compile their body once.
#include "ir/node.h"
#include "oracle.h"
#include "runtime/kernel_cache.h"

#include <gtest/gtest.h>

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
