// bench_plans: the figures of docs/plans.md, in one process.
//   host overhead per call (median of 15 repetitions of 20000 calls, after warm-up):
//     eval        build the graph and eval() it: plan key + plan-cache lookup + replay
//     compile     the same function through cgrad::compile(fn): signature check + replay
//     result hit  eval() of a graph already evaluated on the same buffers (result cache)
//   for a 1-op graph (a * 2 on 16 f32) and a 100-op element-wise chain (W6: 16 f32), on other
//   input buffers every call (result cache off, or on and missing) or the same (cache hit);
//   peak memory (stats().peak_bytes_in_use above what was in use before) of one RK4 Lorenz
//   step and one MLP training step: eager (the interpreter: one buffer per op), the fused
//   plan with every intermediate in its own buffer (CGRAD_MEMORY_PLAN=0), and planned.
// usage: bench_plans (CGRAD_NUM_THREADS, CGRAD_* as usual); prints a table on stdout.
#include "workloads.h"

#include <cgrad/cgrad.hpp>

#include "core/env.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace {

using cgrad::Tensor;
namespace core = cgrad::core;

constexpr int kReps = 15;
constexpr int kCalls = 20000;

// Median over kReps of the mean time of one call, in microseconds.
double per_call_us(const std::function<void(int)>& call) {
  for (int i = 0; i < 2000; ++i) call(i);
  std::vector<double> v;
  for (int r = 0; r < kReps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) call(i);
    v.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
                kCalls);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Tensor chain(const Tensor& x) {  // W6: 100 element-wise ops
  Tensor y = x;
  for (int i = 0; i < 25; ++i) y = ((y * 1.0001 + 0.5) - 0.5) / 1.0001;
  return y;
}

void host_overhead() {
  std::printf(
      "| graph | eval(), cache off | eval(), cache miss | compile replay, cache off | compile replay, cache "
      "miss | "
      "eval(), cache hit | compile, cache hit |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&)> fn;
  };
  auto& e = core::env_mut();
  const int64_t saved = e.result_cache_bytes;
  for (const Case& c : {Case{"1 op (a * 2), 16 f32", [](const Tensor& a) { return a * 2.0; }},
                        Case{"100 ops (W6 chain), 16 f32", chain}}) {
    // A ring of 64 realized inputs, so every call runs on other buffers than the call before.
    // "cache off": CGRAD_RESULT_CACHE_BYTES=0 (the plain replay path). "cache miss": a bound of
    // one 64-byte result, so every call probes, misses, inserts and evicts.
    std::vector<Tensor> ring;
    for (int i = 0; i < 64; ++i) ring.push_back((cgrad::arange(16) + static_cast<double>(i)).eval());
    auto f = cgrad::compile(c.fn);
    auto eval_call = [&](int i) { c.fn(ring[static_cast<std::size_t>(i % 64)]).eval(); };
    auto compile_call = [&](int i) { f(ring[static_cast<std::size_t>(i % 64)]); };
    double r[6];
    e.result_cache_bytes = 0;
    r[0] = per_call_us(eval_call);
    r[2] = per_call_us(compile_call);
    e.result_cache_bytes = 64;
    r[1] = per_call_us(eval_call);
    r[3] = per_call_us(compile_call);
    e.result_cache_bytes = saved;
    Tensor fixed = ring[0];
    r[4] = per_call_us([&](int) { c.fn(fixed).eval(); });
    r[5] = per_call_us([&](int) { f(fixed); });
    std::printf("| %s | %.2f us | %.2f us | %.2f us | %.2f us | %.2f us | %.2f us |\n", c.name, r[0], r[1],
                r[2], r[3], r[4], r[5]);
  }
}

struct Peak {
  uint64_t eager = 0, unplanned = 0, planned = 0;
};

template <class F>
uint64_t peak_of(F make, const char* backend, bool plan_memory) {
  auto& e = core::env_mut();
  const std::string saved_backend = e.backend;
  const bool saved_plan = e.memory_plan;
  const int64_t saved_rc = e.result_cache_bytes;
  e.backend = backend;
  e.memory_plan = plan_memory;
  e.result_cache_bytes = 0;
  std::vector<Tensor> outs = make();
  cgrad::reset_stats();
  const uint64_t before = cgrad::stats().bytes_in_use;
  cgrad::eval(outs);
  const uint64_t peak = cgrad::stats().peak_bytes_in_use - before;
  e.backend = saved_backend;
  e.memory_plan = saved_plan;
  e.result_cache_bytes = saved_rc;
  return peak;
}

template <class F>
Peak peaks(F make) {
  peak_of(make, "jit", true);  // plan and compile first
  return {peak_of(make, "interpreter", false), peak_of(make, "jit", false), peak_of(make, "jit", true)};
}

void memory() {
  std::printf(
      "\n| step | eager (interpreter) | plan, every intermediate own buffer | plan, memory planned | planned "
      "/ own buffers |\n");
  std::printf("| --- | ---: | ---: | ---: | ---: |\n");
  auto row = [](const char* name, Peak p) {
    std::printf("| %s | %.3f MB | %.3f MB | %.3f MB | %.2f |\n", name, static_cast<double>(p.eager) / 1e6,
                static_cast<double>(p.unplanned) / 1e6, static_cast<double>(p.planned) / 1e6,
                static_cast<double>(p.planned) / static_cast<double>(p.unplanned));
  };
  for (int64_t n : {int64_t(1) << 14, int64_t(1) << 20}) {
    cgrad::test::Lorenz lorenz(n);
    Tensor s = lorenz.initial();
    char name[96];
    std::snprintf(name, sizeof name, "RK4 Lorenz step, 3 x %lld f64", static_cast<long long>(n));
    row(name, peaks([&] { return std::vector<Tensor>{lorenz.rk4(s, 1e-3)}; }));
  }
  for (auto [batch, in, hidden] : {std::tuple<int64_t, int64_t, int64_t>{512, 64, 512}, {1024, 256, 1024}}) {
    cgrad::test::Mlp m(batch, in, hidden, 10);
    char name[96];
    std::snprintf(name, sizeof name, "MLP SGD step, %lldx%lld -> %lld -> 10 f32",
                  static_cast<long long>(batch), static_cast<long long>(in), static_cast<long long>(hidden));
    row(name, peaks([&] { return cgrad::test::mlp_step(m.x, m.labels, m.w1, m.w2, 0.1); }));
    std::snprintf(name, sizeof name, "MLP SGD step (autograd), %lldx%lld -> %lld -> 10 f32",
                  static_cast<long long>(batch), static_cast<long long>(in), static_cast<long long>(hidden));
    Tensor w1 = m.w1.detach().requires_grad(true), w2 = m.w2.detach().requires_grad(true);
    row(name, peaks([&] { return cgrad::test::mlp_step_autograd(m.x, m.labels, w1, w2, 0.1); }));
  }
}

}  // namespace

int main() {
  host_overhead();
  memory();
  return 0;
}
