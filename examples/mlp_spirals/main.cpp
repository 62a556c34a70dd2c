// Trains a small MLP on two interleaved spirals that this program generates, with autograd and
// Adam, and prints the training accuracy. Each step (forward, backward, update) is one
// schedule that cgrad replays as one plan from the second step on.
//
//   mlp_spirals [steps=600]
#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace cgrad;

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 600;
  // Two spirals, 500 points each, with a little noise.
  const int64_t per_class = 500, n = 2 * per_class, hidden = 64;
  std::mt19937 rng(42);
  std::normal_distribution<float> noise(0.f, 0.1f);
  std::vector<float> xs;
  std::vector<int64_t> ys;
  for (int64_t c = 0; c < 2; ++c)
    for (int64_t i = 0; i < per_class; ++i) {
      const float t = 0.25f + 3.5f * static_cast<float>(i) / static_cast<float>(per_class);  // radians / pi
      const float r = t / 3.75f, a = static_cast<float>(M_PI) * (t + static_cast<float>(c));
      xs.push_back(r * std::cos(a) + 0.05f * noise(rng));
      xs.push_back(r * std::sin(a) + 0.05f * noise(rng));
      ys.push_back(c);
    }
  Tensor x = tensor(xs, {n, 2}), y = tensor(ys, {n});

  manual_seed(1);
  Tensor w1 = (randn({2, hidden}) * 1.0f).eval().requires_grad(true);
  Tensor b1 = zeros({hidden}).eval().requires_grad(true);
  Tensor w2 = (randn({hidden, hidden}) * (1.0f / 8)).eval().requires_grad(true);
  Tensor b2 = zeros({hidden}).eval().requires_grad(true);
  Tensor w3 = (randn({hidden, 2}) * (1.0f / 8)).eval().requires_grad(true);
  Tensor b3 = zeros({2}).eval().requires_grad(true);
  optim::Adam opt({w1, b1, w2, b2, w3, b3}, 0.01);
  auto logits_of = [&] { return matmul(tanh(matmul(tanh(matmul(x, w1) + b1), w2) + b2), w3) + b3; };

  const auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    opt.zero_grad();
    Tensor loss = cross_entropy(logits_of(), y);
    loss.backward();
    opt.step({loss});
    if (step % 100 == 0 || step == steps - 1) std::printf("step %4d  loss %.4f\n", step, loss.item<float>());
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Tensor predicted = logits_of().slice(1, 1, 2).reshape({n}) > logits_of().slice(1, 0, 1).reshape({n});
  const double accuracy = mean((predicted.cast(i64) == y).cast(f32)).item<double>();
  const Stats st = stats();
  std::printf("training accuracy %.1f%% after %d steps (%.2f ms/step; %llu plans built, %llu replayed)\n",
              100 * accuracy, steps, 1e3 * s / steps, static_cast<unsigned long long>(st.plans_built),
              static_cast<unsigned long long>(st.plan_cache_hits));
  return accuracy > 0.95 ? 0 : 1;
}
