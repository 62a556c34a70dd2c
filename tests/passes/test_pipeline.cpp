// The pipeline: order, the on/off switch, CGRAD_DEBUG=4 dumps, realize() running it, and a
// million-node chain going through every pass without recursion.
#include "helpers.h"

#include "ir/graph.h"
#include "ir/verify.h"
#include "runtime/lower.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace {

using namespace cgrad;
using passes_test::expect_same_values;
using passes_test::graph_of;
using passes_test::ir_of;
using passes_test::nodes;
using passes_test::OptimizeSetting;

Tensor input() { return tensor(std::vector<float>{0.5f, -1.0f, 2.0f}, {3}); }

TEST(Pipeline, PassNamesInOrder) {
  EXPECT_EQ(passes::pass_names(), (std::vector<std::string>{"fold_constants", "simplify", "fold_constants",
                                                            "eliminate_common_subexpressions"}));
}

TEST(Pipeline, EveryPassContributes) {
  OptimizeSetting on(true);
  Tensor x = input();
  // (2 - 1) folds to 1, x * 1 and x / 1 become x, then the two exp(x) merge.
  Tensor y = x * (full({3}, 2.0) - 1.0) + exp(x / 1.0) * exp(x);
  passes::optimize(nodes({y}));
  EXPECT_EQ(ir_of({y}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = exp(%0) : f32(3,)\n"
            "%2 = mul(%1, %1) : f32(3,)\n"
            "%3 = add(%0, %2) : f32(3,)\n");
  ir::verify(ir::topo_order({y.node().get()}, true));
}

TEST(Pipeline, SimplifyExposesConstantsForTheSecondFold) {
  OptimizeSetting on(true);
  Tensor xi = tensor(std::vector<int32_t>{1, 2, 3}, {3});
  Tensor y = xi * 0 + 5;  // integer x * 0 is 0, then 0 + 5 folds
  passes::optimize(nodes({y}));
  EXPECT_EQ(ir_of({y}), "%0 = full() {value=5} : i32(3,)\n");
}

TEST(Pipeline, OffLeavesTheGraphAlone) {
  OptimizeSetting off(false);
  Tensor y = full({2}, 1.0) + full({2}, 2.0);
  const std::string before = ir_of({y});
  passes::optimize(nodes({y}));
  EXPECT_EQ(ir_of({y}), before);
}

// The dump is runtime::lower's (its Pass stage), which runs the pipeline with a hook after each pass.
TEST(Pipeline, DebugFourPrintsTheGraphAfterEachPass) {
  OptimizeSetting on(true);
  int saved = core::env().debug;
  core::env_mut().debug = 4;
  testing::internal::CaptureStderr();
  Tensor y = input() * 1.0;
  runtime::lower(nodes({y}), runtime::Target{runtime::Target::Kind::Interpreter, "interpreter"});
  core::env_mut().debug = saved;
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("[cgrad] after fold_constants:\n"), std::string::npos) << err;
  EXPECT_NE(
      err.find("[cgrad] after simplify:\n%0 = buffer() : f32(3,) [realized]\n%1 = reshape(%0) : f32(3,)\n"),
      std::string::npos)
      << err;
  EXPECT_NE(err.find("[cgrad] after eliminate_common_subexpressions:\n"), std::string::npos) << err;
}

TEST(Pipeline, RealizeRunsThePasses) {
  passes_test::BackendSetting oracle("interpreter");  // one kernel per node: counts are exact
  auto kernels_for = [](bool optimize) {
    OptimizeSetting s(optimize);
    Tensor x = input();
    Tensor y = exp(x * 1.0) + exp(x * 1.0);
    uint64_t k0 = stats().kernels_launched;
    y.eval();
    return stats().kernels_launched - k0;
  };
  EXPECT_EQ(kernels_for(false), 7u);  // 2 constants, 2 mul, 2 exp, 1 add
  EXPECT_EQ(kernels_for(true), 2u);   // exp, add
}

TEST(Pipeline, SameValuesOnAMixedGraph) {
  expect_same_values([] {
    Tensor x = randn({3, 4});
    Tensor w = full({4, 2}, 0.25) * 2.0 + 0.0;
    Tensor h = matmul(x * 1.0, w) + matmul(x, w);
    return softmax(h - (-(-h)) + h, 1) / 1.0;
  });
  expect_same_values([] {
    Tensor x = arange(6, i64).reshape({2, 3});
    return (x * 0 + x * 1 + full({2, 3}, 3.0, i64) * 2).sum({1});
  });
}

TEST(Pipeline, DefaultBackendTakesRewrittenOutputs) {
  // Outputs the passes turn into views (of a buffer, of an intermediate, of a duplicate) and
  // into constants, evaluated together on the default backend (the JIT unless overridden).
  OptimizeSetting on(true);
  Tensor x = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor a = x * 1.0;
  Tensor b = exp(x);
  Tensor c = exp(x);
  Tensor d = full({3}, 2.0) + 3.0;
  Tensor e = (x + 1.0) * 1.0;
  Tensor f = -(-(x + 1.0));
  eval({a, b, c, d, e, f});
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(b.to_vector<float>(), c.to_vector<float>());
  EXPECT_FLOAT_EQ(b.to_vector<float>()[2], std::exp(3.0f));
  EXPECT_EQ(d.to_vector<float>(), (std::vector<float>{5, 5, 5}));
  EXPECT_EQ(e.to_vector<float>(), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(f.to_vector<float>(), (std::vector<float>{2, 3, 4}));
}

// Chains as long as the ones `assign` in a loop builds with the pending-depth rule off.
struct PendingDepth {
  int64_t saved = core::env().max_pending_depth;
  PendingDepth() { core::env_mut().max_pending_depth = 0; }
  ~PendingDepth() { core::env_mut().max_pending_depth = saved; }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Pipeline, MillionNodeChainIsIterative) {
  OptimizeSetting on(true);
  PendingDepth off;
  constexpr int kSteps = 250000;
  Tensor x = tensor(std::vector<float>{0.0f}, {1});
  Tensor y = x;
  // Per step: two constants, an add and a no-op mul: a million nodes, a million deep.
  for (int i = 0; i < kSteps; ++i) y = (y + 1.0) * 1.0;
  auto t0 = std::chrono::steady_clock::now();
  passes::optimize(nodes({y}));
  double secs = seconds_since(t0);
  // Informational only: tests never assert on time (shared machines). No stack overflow and
  // the structural result below are what this test checks.
  std::printf("[ passes ] optimize of a %d-node chain: %.3f s\n", 4 * kSteps, secs);
  // Muls gone, the 2 * kSteps constants merged into one: kSteps adds remain.
  auto order = ir::topo_order({y.node().get()}, true);
  EXPECT_EQ(order.size(), static_cast<std::size_t>(kSteps) + 2);  // adds, the constant, y's view
  ir::verify(order);
}

TEST(Pipeline, DeepConstantChainFoldsThroughRealize) {
  OptimizeSetting on(true);
  PendingDepth off;
  passes_test::BackendSetting oracle("interpreter");
  Tensor y = zeros({2}, i64);
  for (int i = 0; i < 100000; ++i) y = y + 1;
  uint64_t k0 = stats().kernels_launched;
  auto v = y.to_vector<int64_t>();
  EXPECT_EQ(stats().kernels_launched - k0, 1u);  // the constant itself
  EXPECT_EQ(v, (std::vector<int64_t>{100000, 100000}));
  EXPECT_EQ(ir_of({y}), "%0 = full() {value=100000} : i64(2,) [realized]\n");
}

}  // namespace
