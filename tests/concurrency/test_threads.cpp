// Building on shared tensors and evaluating shared graphs from several threads (issue #17,
// items 1 and 3; docs/semantics.md "Threads"), and compile(fn) called from several threads.
// Each test compares every thread's result with the same expression evaluated on one thread
// beforehand; iteration counts (not time) bound them, and they run clean under ThreadSanitizer.
#include "threads.h"

#include "core/env.hpp"
#include "ir/node.h"

#include <cgrad/compile.hpp>

#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace {

using namespace cgrad;
using ct::expect_close;
using ct::run_threads;

std::vector<float> ramp(int n, float scale, float offset) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = offset + scale * static_cast<float>(i % 7);
  return v;
}

Tensor step_chain(Tensor p, int steps) {
  for (int i = 0; i < steps; ++i) p = p * 0.999 + 0.001;
  return p;
}

// Issue #17 item 1: two threads evaluate a pending chain (deep enough that the pending-depth rule
// has cut it once already) while two others keep building on copies of it, so that their builds
// reach the depth limit: the rule then re-walks the shared pending graph (refresh_depth) while the
// evaluating threads realize it, drop its input lists and let the passes rewrite them.
TEST(Threads, BuildOnSharedPendingChainWhileOthersEvaluate) {
  const int64_t limit = core::env().max_pending_depth;
  ASSERT_GT(limit, 12) << "the test needs the pending-depth rule on";
  const std::vector<float> x0 = ramp(16, 0.25f, 0.5f);
  // Steps such that the chain's residual depth is within 10 of the limit: each step adds 2.
  const int steps = static_cast<int>(limit + (limit - 6) / 2);
  std::vector<float> ref;
  {
    Tensor p = step_chain(tensor(x0, {16}).eval(), steps);
    ASSERT_GE(p.node()->pending_depth() + 10, limit);
    ref = p.to_vector<float>();
  }
  for (int round = 0; round < 20; ++round) {
    Tensor p = step_chain(tensor(x0, {16}).eval(), steps);
    ASSERT_FALSE(p.is_evaluated());
    std::vector<std::vector<float>> got(4);
    run_threads(4, [&](int t) {
      Tensor mine = p;
      if (t < 2) {
        mine.eval();
      } else {
        for (int k = 0; k < 10; ++k) mine = mine + 0.0;  // reaches the depth limit unless p was evaluated
        mine.eval();
      }
      got[static_cast<std::size_t>(t)] = mine.to_vector<float>();
    });
    for (int t = 0; t < 4; ++t)
      expect_close(got[static_cast<std::size_t>(t)], ref, "thread " + std::to_string(t));
  }
}

// Issue #17 item 3: one thread evaluates a shared pending `p = x*2 + 1` while another builds on it
// (node building reads the input's realized state and depth, which realization writes).
TEST(Threads, BuildOnPendingValueWhileItIsRealized) {
  const std::vector<float> x0 = ramp(32, 1.0f, -3.0f);  // small integers: every result is exact
  std::vector<float> ref_p, ref_q;
  {
    Tensor p = tensor(x0, {32}) * 2 + 1;
    ref_p = p.to_vector<float>();
    ref_q = (p + 1.0).to_vector<float>();
  }
  for (int round = 0; round < 150; ++round) {
    Tensor x = tensor(x0, {32});
    Tensor p = x * 2 + 1;
    std::vector<float> got_p, got_q;
    run_threads(2, [&](int t) {
      if (t == 0) {
        got_p = Tensor(p).eval().to_vector<float>();
      } else {
        Tensor q = p + 1.0;
        got_q = q.to_vector<float>();
      }
    });
    ASSERT_EQ(got_p, ref_p) << "round " << round;
    ASSERT_EQ(got_q, ref_q) << "round " << round;
  }
}

// An element-wise op of a pending permute is built on the permute's input (docs/semantics.md,
// "The layout of a result"): reading the permute's op and input while another thread realizes it
// (which drops its inputs) or folds it must take the realize lock.
TEST(Threads, ElementwiseOfAPendingPermuteWhileItIsRealized) {
  const std::vector<float> x0 = ramp(48, 1.0f, -7.0f);  // small integers: every result is exact
  std::vector<float> ref_p, ref_q;
  {
    Tensor p = (tensor(x0, {6, 8}) * 2 + 1).T();
    ref_p = p.to_vector<float>();
    ref_q = (p * 3.0 - 1.0).to_vector<float>();
  }
  for (int round = 0; round < 150; ++round) {
    Tensor p = (tensor(x0, {6, 8}) * 2 + 1).T();
    std::vector<float> got_p, got_q;
    run_threads(2, [&](int t) {
      if (t == 0) {
        got_p = Tensor(p).eval().to_vector<float>();
      } else {
        got_q = (p * 3.0 - 1.0).to_vector<float>();
      }
    });
    ASSERT_EQ(got_p, ref_p) << "round " << round;
    ASSERT_EQ(got_q, ref_q) << "round " << round;
  }
}

// Several threads evaluate overlapping parts of one pending graph, by eval() of several outputs,
// item() and to_vector(): each part is computed once, and everyone reads the same values.
TEST(Threads, EvaluateSharedGraph) {
  const std::vector<float> x0 = ramp(24, 0.125f, -0.5f);
  auto build = [&](const Tensor& x) {
    Tensor a = exp(x);
    Tensor b = a * 2.0;
    Tensor c = a + b * x;
    Tensor d = sum(c);
    Tensor e = relu(c - 1.0).reshape({4, 6}).sum({1});
    return std::vector<Tensor>{a, b, c, d, e};
  };
  std::vector<std::vector<float>> ref;
  for (Tensor& t : build(tensor(x0, {24}))) ref.push_back(t.to_vector<float>());
  for (int round = 0; round < 40; ++round) {
    std::vector<Tensor> g = build(tensor(x0, {24}));
    std::vector<std::vector<float>> got(5);
    run_threads(4, [&](int t) {
      if (t == 0) {
        eval({g[1], g[2]});
        got[1] = g[1].to_vector<float>();
        got[2] = g[2].to_vector<float>();
      } else if (t == 1) {
        got[3] = {g[3].item<float>()};
      } else if (t == 2) {
        got[4] = g[4].to_vector<float>();
      } else {
        got[0] = g[0].to_vector<float>();
      }
    });
    for (std::size_t i = 0; i < ref.size(); ++i) expect_close(got[i], ref[i], "output " + std::to_string(i));
  }
}

// Threads building and evaluating their own graphs at the same time, deep enough that each
// thread's pending-depth rule fires; kernels compile and plans are shared between them.
TEST(Threads, IndependentGraphsWithAutoRealize) {
  const int steps = 300;
  std::vector<std::vector<float>> ref(4);
  for (int t = 0; t < 4; ++t)
    ref[static_cast<std::size_t>(t)] =
        step_chain(tensor(ramp(8, 0.5f, static_cast<float>(t)), {8}), steps).to_vector<float>();
  std::vector<std::vector<float>> got(4);
  run_threads(4, [&](int t) {
    for (int rep = 0; rep < 3; ++rep)
      got[static_cast<std::size_t>(t)] =
          step_chain(tensor(ramp(8, 0.5f, static_cast<float>(t)), {8}), steps).to_vector<float>();
  });
  for (int t = 0; t < 4; ++t)
    expect_close(got[static_cast<std::size_t>(t)], ref[static_cast<std::size_t>(t)],
                 "thread " + std::to_string(t));
}

// One compiled function called from several threads, with two input signatures alternating:
// its plans and signature list are shared; each call's outputs are its own.
TEST(Threads, CompiledFunctionFromSeveralThreads) {
  auto fn = [](const Tensor& a, const Tensor& b) { return (a * b + 1.0) * sigmoid(a - b); };
  auto f = compile(fn);
  auto inputs = [](int t, int k) {
    const bool square = (t + k) % 2 == 0;
    Shape s = square ? Shape{3, 4} : Shape{12};
    return std::pair{tensor(ramp(12, 0.25f, static_cast<float>(t) * 0.1f), s).eval(),
                     tensor(ramp(12, -0.5f, static_cast<float>(k) * 0.01f), s).eval()};
  };
  constexpr int kThreads = 4, kCalls = 40;
  std::vector<std::vector<std::vector<float>>> ref(kThreads, std::vector<std::vector<float>>(kCalls));
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kCalls; ++k) {
      auto [a, b] = inputs(t, k);
      ref[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] = fn(a, b).to_vector<float>();
    }
  std::vector<std::vector<std::vector<float>>> got(kThreads, std::vector<std::vector<float>>(kCalls));
  run_threads(kThreads, [&](int t) {
    for (int k = 0; k < kCalls; ++k) {
      auto [a, b] = inputs(t, k);
      got[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)] = f(a, b).to_vector<float>();
    }
  });
  for (int t = 0; t < kThreads; ++t)
    for (int k = 0; k < kCalls; ++k)
      expect_close(got[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)],
                   ref[static_cast<std::size_t>(t)][static_cast<std::size_t>(k)],
                   "thread " + std::to_string(t) + " call " + std::to_string(k));
  EXPECT_EQ(f.signatures(), 2u);
}

// Printing a shared pending graph while another thread evaluates it: the printer walks input
// lists, which realization drops.
TEST(Threads, PrintWhileEvaluating) {
  for (int round = 0; round < 30; ++round) {
    Tensor p = step_chain(tensor(ramp(8, 1.0f, 0.0f), {8}), 20);
    std::string dot;
    run_threads(2, [&](int t) {
      if (t == 0)
        p.eval();
      else
        dot = to_dot_string({p});
    });
    EXPECT_NE(dot.find("digraph"), std::string::npos);
  }
}

// First runs while kernels compile: each thread evaluates a graph of its own, with a 2 MiB output,
// whose kernel the process has not compiled yet; the compile faults that output in on a thread of
// its own (runtime::HostPrefault) while the other threads allocate and free host buffers.
TEST(Threads, FirstRunsFaultInTheirBuffersWhileOthersAllocate) {
  // A fresh kernel cache, so that the kernels compile here and not come from the disk (ctest runs
  // each test in a process of its own, whose cache is not resolved yet at this point).
  std::string dir = (std::filesystem::temp_directory_path() / "cgrad-threads-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  core::env_mut().cache_dir = dir;
  struct Remove {
    std::string path;
    ~Remove() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } remove{dir};
  constexpr int n = 1 << 19;  // 2 MiB of f32
  const std::vector<float> x0 = ramp(n, 0.25f, -1.0f);
  auto build = [](const Tensor& x, int t) {
    switch (t) {
      case 0: return x * 3.0 + 1.0;
      case 1: return (x - 0.5) * (x + 2.0);
      case 2: return x * x - 2.0;
      default: return (x + 0.25) * 0.5;
    }
  };
  auto want = [&](int t) {
    std::vector<float> v(x0.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      const float x = x0[i];
      v[i] = t == 0   ? x * 3.0f + 1.0f
             : t == 1 ? (x - 0.5f) * (x + 2.0f)
             : t == 2 ? x * x - 2.0f
                      : (x + 0.25f) * 0.5f;
    }
    return v;
  };
  std::vector<std::vector<float>> got(4);
  run_threads(4, [&](int t) {
    for (int round = 0; round < 3; ++round) {  // the first round compiles, the others replay
      Tensor x = tensor(x0, {n});
      got[static_cast<std::size_t>(t)] = build(x, t).to_vector<float>();
    }
  });
  for (int t = 0; t < 4; ++t)
    expect_close(got[static_cast<std::size_t>(t)], want(t), "graph " + std::to_string(t));
}

}  // namespace
