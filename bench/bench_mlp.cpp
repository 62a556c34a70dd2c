// The MLP training step of issue #6: batch 256, 784-512-512-10, ReLU, cross-entropy on class
// indices, SGD with momentum, f32 on the CPU. cgrad and (when built with libtorch) libtorch run
// in this one process, interleaved sample by sample, with the same thread count, so their
// ratio is taken under the same machine load. Also: peak and live bytes of cgrad over a long
// run (`MLP_MEMORY_STEPS`, default 10000), to show memory stays flat.
//
// Output: the CSV rows of bench/common.hpp, then '#' comment lines for the memory figures.
#include "common.hpp"
#include "mlp_step.hpp"

#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

#ifdef CGRAD_BENCH_WITH_TORCH
#include <torch/torch.h>
#endif

#include <fstream>

namespace {

constexpr int64_t kBatch = 256, kIn = 784, kHidden = 512, kOut = 10;

std::vector<float> normal(std::size_t n, float scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

struct Data {
  std::vector<float> x = normal(kBatch * kIn, 1.f, 1);
  std::vector<int64_t> y;
  std::vector<float> w1 = normal(kIn * kHidden, 0.05f, 2), w2 = normal(kHidden * kHidden, 0.05f, 3),
                     w3 = normal(kHidden * kOut, 0.05f, 4);
  Data() {
    for (int64_t i = 0; i < kBatch; ++i) y.push_back((i * 7) % kOut);
  }
};

struct CgradMlp {
  cgrad::Tensor x, y, w1, b1, w2, b2, w3, b3;
  std::unique_ptr<cgrad::optim::SGD> opt;
  float loss = 0;
  explicit CgradMlp(const Data& d) {
    using namespace cgrad;
    x = tensor(d.x, {kBatch, kIn});
    y = tensor(d.y, {kBatch});
    w1 = tensor(d.w1, {kIn, kHidden}).requires_grad(true);
    w2 = tensor(d.w2, {kHidden, kHidden}).requires_grad(true);
    w3 = tensor(d.w3, {kHidden, kOut}).requires_grad(true);
    b1 = zeros({kHidden}).eval().requires_grad(true);
    b2 = zeros({kHidden}).eval().requires_grad(true);
    b3 = zeros({kOut}).eval().requires_grad(true);
    opt = std::make_unique<optim::SGD>(std::vector<Tensor>{w1, b1, w2, b2, w3, b3}, 0.01, 0.9);
  }
  // forward, backward and update in one schedule
  void step() { loss = mlp_sgd_step(*opt, x, y, w1, b1, w2, b2, w3, b3).item<float>(); }
};

#ifdef CGRAD_BENCH_WITH_TORCH
struct TorchMlp {
  torch::Tensor x, y, w1, b1, w2, b2, w3, b3;
  std::unique_ptr<torch::optim::SGD> opt;
  float loss = 0;
  explicit TorchMlp(const Data& d) {
    auto f = torch::TensorOptions().dtype(torch::kFloat32);
    x = torch::from_blob(const_cast<float*>(d.x.data()), {kBatch, kIn}, f).clone();
    y = torch::from_blob(const_cast<int64_t*>(d.y.data()), {kBatch}, torch::kInt64).clone();
    w1 = torch::from_blob(const_cast<float*>(d.w1.data()), {kIn, kHidden}, f).clone().requires_grad_(true);
    w2 =
        torch::from_blob(const_cast<float*>(d.w2.data()), {kHidden, kHidden}, f).clone().requires_grad_(true);
    w3 = torch::from_blob(const_cast<float*>(d.w3.data()), {kHidden, kOut}, f).clone().requires_grad_(true);
    b1 = torch::zeros({kHidden}, f).requires_grad_(true);
    b2 = torch::zeros({kHidden}, f).requires_grad_(true);
    b3 = torch::zeros({kOut}, f).requires_grad_(true);
    opt = std::make_unique<torch::optim::SGD>(std::vector<torch::Tensor>{w1, b1, w2, b2, w3, b3},
                                              torch::optim::SGDOptions(0.01).momentum(0.9));
  }
  void step() {
    opt->zero_grad();
    auto h1 = torch::relu(torch::matmul(x, w1) + b1);
    auto h2 = torch::relu(torch::matmul(h1, w2) + b2);
    auto l = torch::nn::functional::cross_entropy(torch::matmul(h2, w3) + b3, y);
    l.backward();
    opt->step();
    loss = l.item<float>();
  }
};
#endif

long rss_kib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

}  // namespace

int main() {
  const int threads = bench::env_int("BENCH_THREADS", 2);
  const int reps = bench::env_int("BENCH_REPS", 15);
  Data data;
  CgradMlp cg(data);
#ifdef CGRAD_BENCH_WITH_TORCH
  torch::set_num_threads(threads);
  TorchMlp tr(data);
#endif
  // Both start from the same weights: after the same steps their losses agree (the check column).
  for (int i = 0; i < 3; ++i) {
    cg.step();
#ifdef CGRAD_BENCH_WITH_TORCH
    tr.step();
#endif
  }
  std::vector<double> t_cg, t_tr;
  for (int r = 0; r < reps; ++r) {  // interleaved: one sample of each per round
    double t0 = bench::now_s();
    for (int k = 0; k < 5; ++k) cg.step();
    t_cg.push_back((bench::now_s() - t0) / 5);
#ifdef CGRAD_BENCH_WITH_TORCH
    t0 = bench::now_s();
    for (int k = 0; k < 5; ++k) tr.step();
    t_tr.push_back((bench::now_s() - t0) / 5);
#endif
  }
  // Same number of steps on both sides here: the losses in the check column must agree.
  const float cg_loss = cg.loss;
  cgrad::reset_stats();
  cg.step();
  const cgrad::Stats s = cgrad::stats();
  std::printf(
      "proc,impl,variant,workload,dtype,n,threads,median_s,min_s,reps,bytes,gbps,kernels,check,note\n");
  bench::Stat a = bench::stat_of(t_cg);
  std::printf(
      "mlp,cgrad,jit,MLP_step,f32,%lld,%d,%.6e,%.6e,%d,0,0,%llu,%.6f,plans_built=%llu plan_hits=%llu\n",
      static_cast<long long>(kBatch), threads, a.median, a.min, a.reps,
      static_cast<unsigned long long>(s.kernels_launched), cg_loss,
      static_cast<unsigned long long>(s.plans_built), static_cast<unsigned long long>(s.plan_cache_hits));
#ifdef CGRAD_BENCH_WITH_TORCH
  bench::Stat b = bench::stat_of(t_tr);
  std::printf("mlp,libtorch,eager,MLP_step,f32,%lld,%d,%.6e,%.6e,%d,0,0,-1,%.6f,torch %s\n",
              static_cast<long long>(kBatch), threads, b.median, b.min, b.reps, tr.loss, TORCH_VERSION);
  std::printf("# MLP step: cgrad / libtorch time = %.3f (libtorch / cgrad speed-up %.3f)\n",
              a.median / b.median, b.median / a.median);
#endif
  // Memory over a long run.
  const int steps = bench::env_int("MLP_MEMORY_STEPS", 10000);
  cgrad::reset_stats();
  uint64_t live_at_100 = 0;
  long rss_at_100 = 0;
  for (int i = 0; i < steps; ++i) {
    cg.step();
    if (i == 100) {
      live_at_100 = cgrad::stats().bytes_in_use;
      rss_at_100 = rss_kib();
    }
  }
  const cgrad::Stats m = cgrad::stats();
  std::printf(
      "# memory over %d steps: live bytes at step 100 = %llu, at the end = %llu; peak = %llu; "
      "RSS at step 100 = %ld KiB, at the end = %ld KiB; final loss %.4f\n",
      steps, static_cast<unsigned long long>(live_at_100), static_cast<unsigned long long>(m.bytes_in_use),
      static_cast<unsigned long long>(m.peak_bytes_in_use), rss_at_100, rss_kib(), cg.loss);
  return 0;
}
