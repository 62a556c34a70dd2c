// backward() from several threads into shared leaves (issue #17, item 2; docs/semantics.md
// "Threads"): every addition into a leaf's grad() is kept, as in PyTorch, and the result equals
// the single-threaded accumulation of the same backward calls.
#include "threads.h"

namespace {

using namespace cgrad;
using ct::expect_close;
using ct::run_threads;

// The case: 8 threads x 300 backward() of sum(w * 2) into one leaf: every element's
// gradient is 8 * 300 * 2 = 4800 exactly (sums of 2 are exact in f32). A ninth thread reads
// grad() meanwhile: it always sees a whole gradient of w's shape, or none yet.
TEST(ThreadsAutograd, BackwardIntoSharedLeafKeepsEveryGradient) {
  Tensor w = tensor(std::vector<float>{1, -2, 3, 0.5f}, {4});
  w.requires_grad(true);
  constexpr int kThreads = 8, kSteps = 300;
  run_threads(kThreads + 1, [&](int t) {
    if (t == kThreads) {
      for (int k = 0; k < 100; ++k) {
        Tensor g = w.grad();
        if (g.defined() && g.shape() != Shape{4}) throw std::runtime_error("grad() returned a wrong shape");
      }
      return;
    }
    for (int k = 0; k < kSteps; ++k) sum(w * 2.0).backward();
  });
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().to_vector<float>(), std::vector<float>(4, 2.0f * kThreads * kSteps));
}

// Threads differentiate through one shared pending graph (h = tanh(w * w), never evaluated
// before) with their own weights, into two shared leaves: the derivative rules build on h and
// on w's nodes while other threads evaluate gradients built from them.
TEST(ThreadsAutograd, BackwardThroughSharedPendingGraph) {
  const std::vector<float> w0 = {0.1f, -0.4f, 0.7f, 1.2f, -0.9f, 0.3f};
  const std::vector<float> v0 = {1.0f, 0.5f, -0.25f, 2.0f, 0.75f, -1.5f};
  constexpr int kThreads = 4, kSteps = 20;
  auto loss = [](const Tensor& h, const Tensor& v, int t) { return sum(h * v * static_cast<double>(t + 1)); };
  auto leaves = [&] {
    Tensor w = tensor(w0, {6}), v = tensor(v0, {6});
    w.requires_grad(true);
    v.requires_grad(true);
    return std::pair{w, v};
  };
  std::vector<float> ref_w, ref_v;
  {
    auto [w, v] = leaves();
    Tensor h = tanh(w * w);
    for (int t = 0; t < kThreads; ++t)
      for (int k = 0; k < kSteps; ++k) loss(h, v, t).backward();
    ref_w = w.grad().to_vector<float>();
    ref_v = v.grad().to_vector<float>();
  }
  for (int round = 0; round < 2; ++round) {
    const auto leaf_pair = leaves();  // not a structured binding: clang 14 cannot capture one
    const Tensor& w = leaf_pair.first;
    const Tensor& v = leaf_pair.second;
    Tensor h = tanh(w * w);
    run_threads(kThreads, [&](int t) {
      for (int k = 0; k < kSteps; ++k) {
        loss(h, v, t).backward();
        if (k % 5 == 4) w.grad().eval();  // evaluate a shared gradient while others add to it
      }
    });
    expect_close(w.grad().to_vector<float>(), ref_w, "grad w", 1e-4);
    expect_close(v.grad().to_vector<float>(), ref_v, "grad v", 1e-4);
  }
}

// cgrad::grad (no accumulation) from several threads over one shared graph: each call returns
// its own gradient; nothing is written into the leaves.
TEST(ThreadsAutograd, FunctionalGradFromSeveralThreads) {
  Tensor w = tensor(std::vector<float>{0.5f, 1.5f, -1.0f}, {3});
  w.requires_grad(true);
  Tensor y = sum(exp(w) * w);
  const std::vector<float> ref = grad(y, {w})[0].to_vector<float>();
  std::vector<std::vector<float>> got(4);
  run_threads(4, [&](int t) {
    for (int k = 0; k < 20; ++k) got[static_cast<std::size_t>(t)] = grad(y, {w})[0].to_vector<float>();
  });
  for (int t = 0; t < 4; ++t)
    expect_close(got[static_cast<std::size_t>(t)], ref, "thread " + std::to_string(t));
  EXPECT_FALSE(w.grad().defined());
}

}  // namespace
