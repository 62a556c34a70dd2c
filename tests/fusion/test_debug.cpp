// CGRAD_DEBUG=2: every kernel boundary names the scheduler rule behind it, every new plan and
// every compile(fn) trace names the key component that differs from the nearest earlier one.
#include "oracle.h"

#include <gtest/gtest.h>

using namespace cgrad;

namespace {

// Runs `f` with CGRAD_DEBUG=2 and returns what it printed to stderr.
template <class F>
std::string debug_output(F f) {
  test::ResultCacheOff off;
  auto& e = core::env_mut();
  const int saved = e.debug;
  e.debug = 2;
  testing::internal::CaptureStderr();
  try {
    f();
  } catch (...) {
    e.debug = saved;
    testing::internal::GetCapturedStderr();
    throw;
  }
  e.debug = saved;
  return testing::internal::GetCapturedStderr();
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(DebugOutput, KernelBoundaryNamesTheRule) {
  Tensor a = ones({4, 4}), b = ones({4, 4}), c = ones({4, 4});
  a.eval(), b.eval(), c.eval();
  std::string out = debug_output([&] { (matmul(a + b, c) * 2.0).eval(); });
  EXPECT_TRUE(has(out, "rule 7 (library-operand)")) << out;
  EXPECT_TRUE(has(out, "rule 7 (library-op)")) << out;
  out = debug_output([&] { softmax(a * 3.0, -1).eval(); });
  EXPECT_TRUE(has(out, "rule 6 (nested-reduction)")) << out;
  out = debug_output([&] { eval({a + b, a * b}); });
  EXPECT_TRUE(has(out, "rule 10 (horizontal)")) << out;
}

TEST(DebugOutput, MemoryPlanIsPrintedBeforeTheRun) {
  Tensor x = ones({8, 8}).eval(), w = ones({8, 8}).eval();
  std::string out = debug_output([&] { matmul(relu(matmul(x, w)) + 1.0, w).eval(); });
  EXPECT_TRUE(has(out, "memory: arena 256 bytes")) << out;
  EXPECT_TRUE(has(out, "written in place over slot")) << out;
}

TEST(DebugOutput, NewPlanNamesTheShapeThatDiffers) {
  Tensor a = arange(5).eval(), b = arange(7).eval();
  debug_output([&] { (a * a + 0.125).eval(); });
  std::string out = debug_output([&] { (b * b + 0.125).eval(); });
  EXPECT_TRUE(has(out, "new plan (why: input 0 shape (7,) (was (5,))")) << out;
}

TEST(DebugOutput, NewPlanNamesDtypeConstantStrideAndStructure) {
  Tensor a = ones({3, 3}).eval(), ad = ones({3, 3}, f64).eval();
  Tensor m = tensor(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  Tensor t = m.T().eval();
  debug_output([&] { (m * 0.375 - 1.0).eval(); });
  std::string out = debug_output([&] { (ad * 0.375 - 1.0).eval(); });
  EXPECT_TRUE(has(out, "dtype")) << out;
  out = debug_output([&] { (m * 0.625 - 1.0).eval(); });
  EXPECT_TRUE(has(out, "new plan (why: constant of")) << out;
  out = debug_output([&] { (t * 0.625 - 1.0).eval(); });
  EXPECT_TRUE(has(out, "new plan (why: input 0 stride class")) << out;
  out = debug_output([&] { (m / 0.625 - 1.0).eval(); });
  EXPECT_TRUE(has(out, "new plan (why: structure: div")) << out;
}

TEST(DebugOutput, CompileTraceNamesTheArgumentThatDiffers) {
  auto f = compile([](const Tensor& x, const Tensor& y) { return x * y + 2.0; });
  Tensor a = ones({4}), b = ones({6}), c = ones({4}, f64);
  std::string out = debug_output([&] { f(a, a); });
  EXPECT_TRUE(has(out, "compile: tracing (why: first call)")) << out;
  out = debug_output([&] { f(a, ones({4})); });
  EXPECT_TRUE(has(out, "argument 1 is another tensor")) << out;
  out = debug_output([&] { f(b, b); });
  EXPECT_TRUE(has(out, "argument 0 shape (6,) (was (4,))")) << out;
  out = debug_output([&] { f(c, c); });
  EXPECT_TRUE(has(out, "argument 0 dtype f64")) << out;
  out = debug_output([&] { f(b, b); });
  EXPECT_FALSE(has(out, "compile: tracing")) << "a kept signature replays: " << out;
}

// One node-id space through every stage of runtime::lower (docs/architecture.md, "The lowering
// pipeline"): the graph dump's `%N` for the sum names it in the schedule dump (kernel and node
// lines) and in the comment heading its kernel in the source dump.
TEST(DebugOutput, EveryStageNamesANodeByItsGraphNumber) {
  test::ResultCacheOff off;
  Tensor a = arange(32).reshape({4, 8}).cast(f32).eval(), b = ones({4, 8}).eval(),
         c = full({4, 8}, 0.5).eval();
  auto& e = core::env_mut();
  const int saved = e.debug;
  e.debug = 4;
  testing::internal::CaptureStderr();
  Tensor y = sum(a * b + c);
  y.eval();
  e.debug = saved;
  const std::string out = testing::internal::GetCapturedStderr();
  // The graph as lowered: the three leaves, mul, add, sum, the reshape to 0-d.
  const std::string graph = out.substr(out.find("[cgrad] graph to realize:"));
  const auto at = graph.find(" = sum(");
  ASSERT_NE(at, std::string::npos) << out;
  const std::string id = graph.substr(graph.rfind('%', at), at - graph.rfind('%', at));  // "%5"
  EXPECT_TRUE(has(out, "kernel for sum " + id + ":")) << id << "\n" << out;
  EXPECT_TRUE(has(out, "  " + id + " sum k0: ")) << id << "\n" << out;
  EXPECT_TRUE(has(out, id + " sum\n")) << "the source dump's kernel comment names " << id << "\n" << out;
  EXPECT_FALSE(has(out, "sum#")) << "no scheduler-internal positions in the dumps:\n" << out;
  EXPECT_FLOAT_EQ(y.item<float>(), 32 * 31 / 2 + 16.0f);
}
