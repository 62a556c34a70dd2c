// Memory planning: intermediates share one arena by liveness and element-wise kernels write
// over inputs that die in them; the results do not change, the peak goes down, and the arena
// size is known before a plan runs.
#include "oracle.h"
#include "workloads.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace cgrad;

namespace {

// Sets CGRAD_MEMORY_PLAN for its lifetime.
struct MemoryPlan {
  bool saved = core::env().memory_plan;
  explicit MemoryPlan(bool on) { core::env_mut().memory_plan = on; }
  ~MemoryPlan() { core::env_mut().memory_plan = saved; }
};

struct Measured {
  std::vector<std::vector<double>> values;
  uint64_t peak = 0;  // bytes above what was in use before the evaluation
};

enum class Mode { Planned, Unplanned, Eager };

// Evaluates `make()` (a fresh graph each time) and measures the peak of live tensor memory:
// with memory planning, with every intermediate in its own buffer (CGRAD_MEMORY_PLAN=0), or
// eagerly (the interpreter: every op's result allocated).
template <class F> Measured measure(Mode mode, F make) {
  test::ResultCacheOff off;  // the same graph on the same buffers must really run
  MemoryPlan mp(mode == Mode::Planned);
  return test::with_backend(mode == Mode::Eager ? "interpreter" : core::env().backend.c_str(), [&] {
    std::vector<Tensor> outs = make();
    reset_stats();
    const uint64_t before = stats().bytes_in_use;
    eval(outs);
    Measured m;
    m.peak = stats().peak_bytes_in_use - before;
    for (auto& o : outs) m.values.push_back(o.cast(f64).to_vector<double>());
    return m;
  });
}

int64_t aligned(int64_t bytes) { return (bytes + 63) / 64 * 64; }

}  // namespace

TEST(MemoryPlan, LorenzRk4StepPeakIsAtMostHalfAndValuesUnchanged) {
  test::Lorenz lorenz(1 << 14);
  Tensor s = lorenz.initial();
  auto step = [&] { return std::vector<Tensor>{lorenz.rk4(s, 1e-3)}; };
  measure(Mode::Planned, step);  // builds and compiles the plan
  Measured eager = measure(Mode::Eager, step), all = measure(Mode::Unplanned, step),
           planned = measure(Mode::Planned, step);
  EXPECT_EQ(planned.values, all.values);
  EXPECT_LE(planned.peak, all.peak);
  EXPECT_LE(2 * planned.peak, eager.peak) << "target: at most half of every intermediate allocated";
  for (std::size_t i = 0; i < eager.values[0].size(); i += 997) EXPECT_NEAR(planned.values[0][i], eager.values[0][i], 1e-12);
  std::printf("lorenz rk4 step, 3 x %d f64: peak bytes eager %llu, plan without memory planning %llu, planned %llu\n",
              1 << 14, static_cast<unsigned long long>(eager.peak), static_cast<unsigned long long>(all.peak),
              static_cast<unsigned long long>(planned.peak));
}

TEST(MemoryPlan, MlpTrainingStepPeakIsAtMostHalfAndValuesUnchanged) {
  test::Mlp m(512, 64, 512, 10);
  auto step = [&] { return test::mlp_step(m.x, m.labels, m.w1, m.w2, 0.1); };
  measure(Mode::Planned, step);
  Measured eager = measure(Mode::Eager, step), all = measure(Mode::Unplanned, step),
           planned = measure(Mode::Planned, step);
  EXPECT_EQ(planned.values, all.values);
  EXPECT_LE(2 * planned.peak, all.peak) << "target: at most half of every intermediate in its own buffer";
  EXPECT_LE(planned.peak, eager.peak) << "the interpreter frees each value after its last use";
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < eager.values[k].size(); i += 31) EXPECT_NEAR(planned.values[k][i], eager.values[k][i], 1e-4);
  std::printf("mlp step 512x64 -> 512 -> 10: peak bytes eager %llu, plan without memory planning %llu, planned %llu\n",
              static_cast<unsigned long long>(eager.peak), static_cast<unsigned long long>(all.peak),
              static_cast<unsigned long long>(planned.peak));
}

TEST(MemoryPlan, ElementwiseKernelWritesOverTheInputThatDies) {
  // h = x @ w1 is an intermediate; relu(h) is a GEMM operand and h dies in it: one buffer.
  auto f = compile([](const Tensor& x, const Tensor& w1, const Tensor& w2) { return matmul(relu(matmul(x, w1)), w2); });
  Tensor x = randn({64, 32}), w1 = randn({32, 128}), w2 = randn({128, 8});
  Tensor y = f(x, w1, w2);
  EXPECT_EQ(f.arena_bytes(x, w1, w2), aligned(64 * 128 * 4));
  auto expect = test::with_backend("interpreter", [&] { return matmul(relu(matmul(x, w1)), w2).to_vector<float>(); });
  auto got = y.to_vector<float>();
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expect[i], 1e-3);
}

TEST(MemoryPlan, DeadIntermediatesShareTheArena) {
  // t1..t3 are intermediates; t1 is dead once t2 is computed, so t3 takes its bytes.
  auto f = compile([](const Tensor& x, const Tensor& w) {
    Tensor t1 = matmul(x, w), t2 = matmul(t1, w), t3 = matmul(t2, w);
    return matmul(t3, w);
  });
  Tensor x = randn({32, 32}) * 0.2, w = randn({32, 32}) * 0.2;
  Tensor y = f(x, w);
  EXPECT_EQ(f.arena_bytes(x, w), 2 * aligned(32 * 32 * 4)) << "three intermediates, two alive at a time";
  auto expect = test::with_backend("interpreter", [&] {
    Tensor t1 = matmul(x, w), t2 = matmul(t1, w), t3 = matmul(t2, w);
    return matmul(t3, w).to_vector<float>();
  });
  auto got = y.to_vector<float>();
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expect[i], 1e-4);
}

TEST(MemoryPlan, ArenaIsKnownBeforeTheRunAndPredictsThePeak) {
  test::ResultCacheOff off;
  MemoryPlan on(true);
  auto f = compile([](const Tensor& x, const Tensor& w) { return sum(relu(matmul(x, w)) * 2.0, {1}); });
  Tensor x = randn({128, 16}), w = randn({16, 256});
  EXPECT_EQ(f.arena_bytes(x, w), -1) << "not traced yet";
  f(x, w);
  const int64_t arena = f.arena_bytes(x, w);
  EXPECT_EQ(arena, aligned(128 * 256 * 4));
  Tensor x2 = randn({128, 16}).eval();
  reset_stats();
  const uint64_t before = stats().bytes_in_use;
  Tensor y = f(x2, w);
  EXPECT_EQ(stats().peak_bytes_in_use - before, static_cast<uint64_t>(arena) + 128 * 4)
      << "a replay allocates the arena and its output, nothing else";
  EXPECT_EQ(stats().bytes_in_use - before, 128u * 4) << "the arena is released when the plan ends";
}

TEST(MemoryPlan, InputsAndOutputsAreNeverInTheArena) {
  auto f = compile([](const Tensor& a) {
    Tensor t = matmul(a, a);         // an intermediate
    return std::vector<Tensor>{relu(t), t * 0.0 + a};  // t read twice; a (an input) read by an element-wise kernel
  });
  Tensor a = tensor(std::vector<float>{1, -2, 3, -4}, {2, 2});
  for (int i = 0; i < 2; ++i) {
    auto r = f(a);
    EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, -2, 3, -4}));
    EXPECT_EQ(r[0].to_vector<float>(), test::with_backend("interpreter", [&] { return relu(matmul(a, a)).to_vector<float>(); }));
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{1, -2, 3, -4}));
  }
}
