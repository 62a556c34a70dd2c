// The runtime paths of the CUDA backend that a subgraph mirror does not reach, each run on the
// device and compared with the same work on the CPU: a training step with an optimizer (plans
// replayed on the device, per-step scalars that change), compile(fn) with device inputs, CUDA
// graphs on and off for replays, the Boost.Odeint Tensor path with a device state, and the
// result cache on device buffers. Sizes are small: under the emulated device (docs/cuda.md)
// every thread of every kernel is interpreted. Each test skips (one line) without a GPU.
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/loader.h"
#include "core/env.hpp"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>
#include <cgrad/compile.hpp>
#include <cgrad/odeint.hpp>
#include <cgrad/optim.hpp>

#include <cmath>
#include <vector>

namespace {

using namespace cgrad;
namespace cu = cgrad::backends::cuda;
namespace ode = boost::numeric::odeint;

#define REQUIRE_GPU() \
  if (!cuda_available()) GTEST_SKIP() << "no CUDA device: " << cu::driver_status()

// Sets a knob of core::env for one scope.
template <class T>
struct EnvScope {
  T& knob;
  T saved;
  EnvScope(T& k, T v) : knob(k), saved(k) { knob = v; }
  ~EnvScope() { knob = saved; }
  EnvScope(const EnvScope&) = delete;
  EnvScope& operator=(const EnvScope&) = delete;
};

void expect_close(const Tensor& got, const Tensor& want, double tol, const char* what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  auto g = got.to_vector<double>(), w = want.to_vector<double>();
  for (std::size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], w[i], tol * (1 + std::fabs(w[i]))) << what << " element " << i;
}

std::vector<Tensor> to_device(const std::vector<Tensor>& xs, Device d) {
  std::vector<Tensor> out;
  for (const Tensor& x : xs) out.push_back(x.to(d).eval());
  return out;
}

// A small MLP trained for a few steps with `Opt` on `device`; returns the parameters (on the CPU).
template <class Opt>
std::vector<Tensor> train(Device device, int steps, uint64_t* replays) {
  manual_seed(11);
  std::vector<Tensor> init{(randn({8, 16}) * 0.3f).eval(), (randn({16}) * 0.1f).eval(),
                           (randn({16, 3}) * 0.3f).eval()};
  Tensor x = randn({12, 8}).eval();
  std::vector<int64_t> labels(12);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int64_t>(i % 3);
  std::vector<Tensor> params = to_device(init, device);
  for (Tensor& p : params) p.requires_grad(true);
  Tensor xd = x.to(device).eval(), y = tensor(labels, {12}, device);
  Opt opt(params, 0.05);
  for (int step = 0; step < steps; ++step) {
    if (step == 1) reset_stats();
    opt.zero_grad();
    Tensor loss = cross_entropy(matmul(tanh(matmul(xd, params[0]) + params[1]), params[2]), y);
    loss.backward();
    opt.step({loss});
  }
  *replays = stats().plan_cache_hits;
  std::vector<Tensor> out;
  for (Tensor& p : params) out.push_back(p.detach().to(Device::cpu()).eval());
  return out;
}

TEST(CudaRuntime, TrainingStepsWithOptimizersMatchTheCpu) {
  REQUIRE_GPU();
  uint64_t cpu_replays = 0, gpu_replays = 0;
  auto want = train<optim::Adam>(Device::cpu(), 4, &cpu_replays);
  auto got = train<optim::Adam>(Device::cuda(), 4, &gpu_replays);
  for (std::size_t i = 0; i < want.size(); ++i) expect_close(got[i], want[i], 1e-4, "Adam parameter");
  EXPECT_GE(gpu_replays, 2u) << "steps after the second replay their plan on the device";
  want = train<optim::SGD>(Device::cpu(), 3, &cpu_replays);
  got = train<optim::SGD>(Device::cuda(), 3, &gpu_replays);
  for (std::size_t i = 0; i < want.size(); ++i) expect_close(got[i], want[i], 1e-4, "SGD parameter");
}

TEST(CudaRuntime, CompiledFunctionsTraceOnceAndReplayOnTheDevice) {
  REQUIRE_GPU();
  auto fn = compile([](const Tensor& x, const Tensor& w) {
    return softmax(relu(matmul(x, w)) * 0.5f, -1).sum({1}) + x.sum({1});
  });
  manual_seed(3);
  Tensor w = randn({6, 5}).eval();
  Tensor wd = w.to(Device::cuda()).eval();
  reset_stats();
  for (int i = 0; i < 3; ++i) {
    Tensor x = randn({4, 6}).eval();
    Tensor got = fn(x.to(Device::cuda()).eval(), wd);
    EXPECT_TRUE(got.device().is_cuda());
    expect_close(got, softmax(relu(matmul(x, w)) * 0.5f, -1).sum({1}) + x.sum({1}), 1e-5, "compile(fn)");
  }
  EXPECT_EQ(stats().traces, 1u) << "one trace on the device, then replays";
}

// A plan of several generated kernels replayed on new inputs, as a CUDA graph and without.
TEST(CudaRuntime, ReplaysAgreeWithCudaGraphsOnAndOff) {
  REQUIRE_GPU();
  for (bool graphs : {false, true}) {
    EnvScope<bool> knob(core::env_mut().cuda_graphs, graphs);
    manual_seed(graphs ? 21 : 22);
    for (int i = 0; i < 4; ++i) {
      Tensor a = randn({16, 40}).eval(), b = randn({40}).eval();
      Tensor da = a.to(Device::cuda()).eval(), db = b.to(Device::cuda()).eval();
      reset_stats();
      Tensor y = softmax(da * db, -1) + sum(exp(da), {1}, true) / 3.0f;
      Tensor z = max(da - db, {0});
      eval({y, z});
      if (i > 0) {
        EXPECT_EQ(stats().plan_cache_hits, 1u) << (graphs ? "graphs on" : "graphs off");
      }
      expect_close(y, softmax(a * b, -1) + sum(exp(a), {1}, true) / 3.0f, 1e-5,
                   graphs ? "y, graphs on" : "y, graphs off");
      expect_close(z, max(a - b, {0}), 0, graphs ? "z, graphs on" : "z, graphs off");
    }
  }
}

// A plan with cuBLAS calls between generated kernels: with graphs on, each run of kernels
// between two library calls is one graph (here 3: the kernel before each matmul and the softmax
// after the second), launched in plan order with the calls.
TEST(CudaRuntime, GraphsAroundCublasCallsKeepPlanOrder) {
  REQUIRE_GPU();
  for (bool graphs : {false, true}) {
    EnvScope<bool> knob(core::env_mut().cuda_graphs, graphs);
    manual_seed(graphs ? 31 : 32);
    for (int i = 0; i < 3; ++i) {
      Tensor a = randn({12, 20}).eval(), w1 = randn({20, 16}).eval(), w2 = randn({16, 8}).eval();
      Tensor da = a.to(Device::cuda()).eval(), dw1 = w1.to(Device::cuda()).eval(),
             dw2 = w2.to(Device::cuda()).eval();
      auto f = [](const Tensor& x, const Tensor& p, const Tensor& q) {
        return softmax(matmul(tanh(matmul(exp(x * 0.1f), p)), q), -1);
      };
      reset_stats();
      const uint64_t g0 = cu::graph_launches();
      Tensor y = f(da, dw1, dw2).eval();
      if (i > 0) {
        EXPECT_EQ(stats().plan_cache_hits, 1u);
        EXPECT_EQ(cu::graph_launches() - g0, graphs ? 3u : 0u) << "graphs around the 2 cuBLAS calls";
      }
      expect_close(y, f(a, w1, w2), 1e-5, graphs ? "graphs on" : "graphs off");
    }
  }
}

// The pendulum system of tests/odeint on a Tensor state living on the device.
struct Pendulums {
  Tensor g;
  void operator()(const Tensor& x, Tensor& dxdt, double) const {
    const int64_t m = g.numel();
    Tensor theta = x.slice(0, 0, m), omega = x.slice(0, m, 2 * m);
    dxdt = cat({omega, -0.1 * omega - g * sin(theta)}).eval();
  }
};

Tensor integrate_pendulums(Device device) {
  std::vector<double> g(8), x0(16);
  for (std::size_t i = 0; i < 8; ++i) {
    g[i] = 1.0 + 0.5 * static_cast<double>(i) / 8;
    x0[i] = 0.2 + 2.5 * static_cast<double>(i) / 8;
    x0[8 + i] = 0.1 * std::cos(static_cast<double>(i));
  }
  Pendulums sys{tensor(g, {8}, device)};
  Tensor x = tensor(x0, {16}, device);
  ode::runge_kutta4<Tensor> stepper;
  ode::integrate_const(stepper, sys, x, 0.0, 1.0, 0.1);
  return x;
}

TEST(CudaRuntime, OdeintTensorStatesIntegrateOnTheDevice) {
  REQUIRE_GPU();
  Tensor got = integrate_pendulums(Device::cuda());
  EXPECT_TRUE(got.device().is_cuda());
  expect_close(got, integrate_pendulums(Device::cpu()), 1e-12, "runge_kutta4 state");
}

TEST(CudaRuntime, ResultCacheAnswersRepeatsAndSeesInPlaceWrites) {
  REQUIRE_GPU();
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4}, {4}, Device::cuda());
  Tensor first = (a * 2.0f + 1.0f).eval();
  reset_stats();
  Tensor again = (a * 2.0f + 1.0f).eval();
  EXPECT_EQ(stats().result_cache_hits, 1u);
  EXPECT_EQ(again.to_vector<float>(), first.to_vector<float>());
  a.assign(a + 10.0f);  // a new value: the cached result must not answer
  Tensor after = (a * 2.0f + 1.0f).eval();
  EXPECT_EQ(after.to_vector<float>(), (std::vector<float>{23, 25, 27, 29}));
}

// Memory planning on the device, as on the CPU (docs/plans.md): intermediates share one arena
// (a GEMM output included), an element-wise kernel writes over the input that dies in it, and a
// loop's `x = f(x)` writes the new state over the old one when nothing else holds it.
TEST(CudaRuntime, MemoryPlanningAndBufferTakeoverOnTheDevice) {
  REQUIRE_GPU();
  auto aligned = [](int64_t bytes) { return (bytes + 63) / 64 * 64; };
  auto f = compile(
      [](const Tensor& u, const Tensor& v1, const Tensor& v2) { return matmul(relu(matmul(u, v1)), v2); });
  manual_seed(4);
  Tensor x = randn({16, 8}).eval(), w1 = randn({8, 24}).eval(), w2 = randn({24, 4}).eval();
  Tensor dx = x.to(Device::cuda()).eval(), dw1 = w1.to(Device::cuda()).eval(),
         dw2 = w2.to(Device::cuda()).eval();
  for (int run = 0; run < 2; ++run)  // the trace, then a replay
    expect_close(f(dx, dw1, dw2), matmul(relu(matmul(x, w1)), w2), 1e-5, "planned matmul chain");
  EXPECT_EQ(f.arena_bytes(dx, dw1, dw2), aligned(16 * 24 * 4)) << "x @ w1 and relu of it share one buffer";
  auto g = compile([](const Tensor& u, const Tensor& w) {
    Tensor t1 = tanh(matmul(u, w)), t2 = matmul(t1, w) * 0.5f;
    return matmul(t2, w).sum({1});
  });
  Tensor a = randn({12, 12}).eval(), da = a.to(Device::cuda()).eval();
  expect_close(g(da, da), matmul(matmul(tanh(matmul(a, a)), a) * 0.5f, a).sum({1}), 1e-4,
               "planned intermediates");
  EXPECT_GT(g.arena_bytes(da, da), 0);

  // x = f(x): each step after the first writes over the state it replaces.
  auto step = [](const Tensor& s) { return s + 0.01 * (sin(s) - s * s); };
  auto run = [&](Device dev) {
    manual_seed(5);
    Tensor s = (rand({300}, f64) + 1.0).to(dev).eval();
    for (int i = 0; i < 6; ++i) {
      s = step(s);  // rebound first: then only the pending graph holds the old state
      s.eval();
    }
    return s;
  };
  const Tensor want = run(Device::cpu());
  reset_stats();
  const Tensor got = run(Device::cuda());
  EXPECT_GE(stats().buffers_reused, 4u) << "the device state is written over the old one";
  expect_close(got, want, 1e-12, "loop state");
  {
    manual_seed(5);
    Tensor s = (rand({300}, f64) + 1.0).to(Device::cuda()).eval(), old;
    reset_stats();
    for (int i = 0; i < 3; ++i) {
      old = s;
      s = step(s);
      s.eval();
    }
    EXPECT_EQ(stats().buffers_reused, 0u) << "a handle still holds the old state";
    expect_close(s, step(old), 1e-12, "kept state");
  }
}

}  // namespace
