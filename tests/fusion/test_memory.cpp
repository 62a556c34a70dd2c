// Memory planning: intermediates share one arena by liveness and element-wise kernels write
// over inputs that die in them; the results do not change, the peak goes down, and the arena
// size is known before a plan runs.
#include "oracle.h"
#include "workloads.h"

#include "frontend/build.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

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
template <class F>
Measured measure(Mode mode, F make) {
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
  for (std::size_t i = 0; i < eager.values[0].size(); i += 997)
    EXPECT_NEAR(planned.values[0][i], eager.values[0][i], 1e-12);
  std::printf(
      "lorenz rk4 step, 3 x %d f64: peak bytes eager %llu, plan without memory planning %llu, planned %llu\n",
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
    for (std::size_t i = 0; i < eager.values[k].size(); i += 31)
      EXPECT_NEAR(planned.values[k][i], eager.values[k][i], 1e-4);
  std::printf(
      "mlp step 512x64 -> 512 -> 10: peak bytes eager %llu, plan without memory planning %llu, planned "
      "%llu\n",
      static_cast<unsigned long long>(eager.peak), static_cast<unsigned long long>(all.peak),
      static_cast<unsigned long long>(planned.peak));
}

TEST(MemoryPlan, ElementwiseKernelWritesOverTheInputThatDies) {
  // h = x @ w1 is an intermediate; relu(h) is a GEMM operand and h dies in it: one buffer.
  auto f = compile(
      [](const Tensor& x, const Tensor& w1, const Tensor& w2) { return matmul(relu(matmul(x, w1)), w2); });
  Tensor x = randn({64, 32}), w1 = randn({32, 128}), w2 = randn({128, 8});
  Tensor y = f(x, w1, w2);
  EXPECT_EQ(f.arena_bytes(x, w1, w2), aligned(64 * 128 * 4));
  auto expect =
      test::with_backend("interpreter", [&] { return matmul(relu(matmul(x, w1)), w2).to_vector<float>(); });
  auto got = y.to_vector<float>();
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expect[i], 1e-3);
}

TEST(MemoryPlan, NoWriteInPlaceOverAnInputAlsoReadThroughAView) {
  // j = a @ b dies in the kernel of j - j^T, which reads it twice: in order and through the
  // transpose (a view). Writing the result over j would overwrite elements the transposed read
  // still needs; until 2026-12-07 the view's read was not counted and the values came out wrong
  // (the second derivative of an SVD found it). The same for a flip.
  Tensor a = randn({3, 3}, f64).eval(), b = randn({3, 3}, f64).eval(), d = randn({4, 3}, f64).eval();
  const std::vector<std::function<Tensor(const Tensor&)>> uses{
      [&](const Tensor& j) { return matmul(d, j.transpose(0, 1)) + matmul(d, j - j.transpose(0, 1)); },
      [&](const Tensor& j) { return matmul(d, j.transpose(0, 1)) + matmul(d, j * 2.0 - flip(j, {0})); }};
  for (std::size_t k = 0; k < uses.size(); ++k) {
    auto build = [&] { return std::vector<Tensor>{uses[k](matmul(a, b))}; };
    Measured planned = measure(Mode::Planned, build), eager = measure(Mode::Eager, build);
    for (std::size_t i = 0; i < eager.values[0].size(); ++i)
      EXPECT_NEAR(planned.values[0][i], eager.values[0][i], 1e-12) << k << " " << i;
  }
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
    Tensor t = matmul(a, a);  // an intermediate
    return std::vector<Tensor>{relu(t),
                               t * 0.0 + a};  // t read twice; a (an input) read by an element-wise kernel
  });
  Tensor a = tensor(std::vector<float>{1, -2, 3, -4}, {2, 2});
  for (int i = 0; i < 2; ++i) {
    auto r = f(a);
    EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{1, -2, 3, -4}));
    EXPECT_EQ(r[0].to_vector<float>(),
              test::with_backend("interpreter", [&] { return relu(matmul(a, a)).to_vector<float>(); }));
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{1, -2, 3, -4}));
  }
}

const void* buffer_of(const Tensor& t) { return frontend::node_of(t, "test")->value.storage->data; }

// `x = f(x)` in a loop: the new state is written over the old one's buffer when nothing else
// can read it, and never when something can (a handle, a view, a lazy node held outside, a
// gradient record); the values are the interpreter's either way.
TEST(MemoryPlan, LoopStateIsWrittenOverTheOldStateOnlyWhenNothingElseHoldsIt) {
  auto step = [](const Tensor& s) {
    const int64_t n = s.shape()[0] / 3;
    Tensor x = s.slice(0, 0, n), y = s.slice(0, n, 2 * n), z = s.slice(0, 2 * n, 3 * n);
    Tensor d = cat({10.0 * (y - x), x * (28.0 - z) - y, x * y - (8.0 / 3.0) * z}, 0);
    return s + 0.001 * d;
  };
  auto start = [] {
    manual_seed(5);
    return (rand({3 * 500}, f64) + 1.0).eval();
  };
  auto run = [&](int steps, bool keep_old) {
    Tensor s = start(), old;
    for (int i = 0; i < steps; ++i) {
      if (keep_old) old = s;
      s = step(s);
      s.eval();
    }
    return s.to_vector<double>();
  };
  auto expect_near = [](const std::vector<double>& a, const std::vector<double>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12 * (1 + std::fabs(b[i]))) << i;
  };
  const auto ref = test::with_backend("interpreter", [&] { return run(20, false); });

  reset_stats();
  const auto reused = run(20, false);
  EXPECT_GE(stats().buffers_reused, 18u) << "each step after the first writes over the state it replaces";
  expect_near(reused, ref);
  {
    Tensor s = start();
    s = step(s);
    s.eval();
    const void* before = buffer_of(s);
    for (int i = 0; i < 3; ++i) {
      s = step(s);
      s.eval();
    }
    EXPECT_EQ(buffer_of(s), before) << "the same buffer, step after step";
  }

  reset_stats();
  EXPECT_EQ(run(20, true), reused) << "the same values without reuse";
  EXPECT_EQ(stats().buffers_reused, 0u) << "a handle still holds the old state";

  reset_stats();
  {  // a view of the old state, and a lazy node reading it, held outside the evaluation
    Tensor s = start();
    Tensor view = s.slice(0, 0, 10).eval();
    const auto view_values = view.to_vector<double>();
    s = step(s);
    s.eval();
    EXPECT_EQ(view.to_vector<double>(), view_values);
    EXPECT_EQ(stats().buffers_reused, 0u) << "a view shares the buffer";
    Tensor lazy = s * 2.0;
    auto expect = s.to_vector<double>();
    for (double& v : expect) v *= 2.0;
    s = step(s);
    s.eval();
    EXPECT_EQ(stats().buffers_reused, 0u) << "a lazy node held outside reads the old state";
    EXPECT_EQ(lazy.to_vector<double>(), expect);
    EXPECT_EQ(stats().buffers_reused, 1u)
        << "then nothing but that node's graph did: its result takes the buffer";
  }

  reset_stats();
  {  // a gradient record keeps the old state for backward
    Tensor s = start();
    s.requires_grad(true);
    Tensor y = step(s);
    y.eval();
    y = step(y);  // the old y: held by nothing but the new graph and its gradient record
    y.eval();
    Tensor loss = sum(y * y);
    loss.backward();
    EXPECT_TRUE(s.grad().defined());
    const auto g = s.grad().to_vector<double>();
    Tensor s2 = start();
    s2.requires_grad(true);
    Tensor loss2 = test::with_backend("interpreter", [&] { return sum(step(step(s2)) * step(step(s2))); });
    loss2.backward();
    expect_near(g, s2.grad().to_vector<double>());
  }
  EXPECT_EQ(stats().buffers_reused, 0u);
}

// Issue 17 item 8: a GEMM whose output the plan puts in the arena, read by a loop kernel that
// adds the slot's arena offset. BLAS does only f32/f64; an integer GEMM (the interpreter's
// loops) must still land in its planned slot, or the consumer reads another slot's bytes.
TEST(MemoryPlan, IntegerGemmInThePlannedArena) {
  test::ResultCacheOff off;
  MemoryPlan on(true);
  for (DType t : {i32, i64}) {
    SCOPED_TRACE(dtype_name(t));
    Tensor a = tensor(std::vector<int64_t>{1, 2}, {1, 2}).cast(t),
           b = tensor(std::vector<int64_t>{3, 4}, {2, 1}).cast(t);
    EXPECT_EQ((matmul(a + 1, b) * 2).cast(i64).to_vector<int64_t>(), std::vector<int64_t>{36});
  }
}

// The same pattern over dtypes and shapes (batched, 1-D operands, chains of GEMMs, a GEMM read
// by a reduction), the planned JIT against the interpreter: integers exactly, floats closely.
TEST(MemoryPlan, GemmInPlannedGraphsMatchesTheInterpreter) {
  test::ResultCacheOff off;
  MemoryPlan on(true);
  struct Case {
    Shape a, b;
  };
  const Case cases[] = {{{1, 2}, {2, 1}}, {{3, 5}, {5, 4}},          {{2, 3, 4}, {4, 6}}, {{4}, {4, 3}},
                        {{7, 9}, {9}},    {{2, 1, 3, 8}, {5, 8, 2}}, {{16, 33}, {33, 17}}};
  int seed = 0;
  for (DType t : {i32, i64, f32, f64})
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + shape_str(c.a) + " @ " + shape_str(c.b));
      manual_seed(static_cast<uint64_t>(++seed));
      Tensor a = ((rand(c.a, f64) * 10.0) - 5.0).cast(t).eval(),
             b = ((rand(c.b, f64) * 10.0) - 5.0).cast(t).eval();
      auto build = [&] {
        Tensor p = matmul(a + 1, b) * 2;           // GEMM between two planned intermediates
        Tensor q = matmul(a * 3 - 2, b);           // a second GEMM, alive with the first
        Tensor r = (p - q).sum() + (q * p).max();  // both read by reductions
        return std::vector<Tensor>{(p + q).cast(f64), r.cast(f64)};
      };
      auto got = build();
      eval(got);
      auto want = test::with_backend("interpreter", [&] {
        auto w = build();
        eval(w);
        return w;
      });
      for (std::size_t o = 0; o < got.size(); ++o) {
        auto g = got[o].to_vector<double>(), w = want[o].to_vector<double>();
        ASSERT_EQ(g.size(), w.size());
        for (std::size_t i = 0; i < g.size(); ++i) {
          if (is_floating(t))
            EXPECT_NEAR(g[i], w[i], 1e-4 * (1 + std::fabs(w[i]))) << "output " << o << " at " << i;
          else
            EXPECT_EQ(g[i], w[i]) << "output " << o << " at " << i;
        }
      }
    }
}
