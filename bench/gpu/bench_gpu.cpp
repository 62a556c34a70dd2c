// bench_gpu: cgrad's CUDA backend on the workloads of the fusion issue, at sizes several times
// the L2 cache, against the device-to-device copy bandwidth of the same GPU (the ceiling for
// memory-bound kernels); compare.py measures PyTorch eager, torch.compile and CuPy on the same
// workloads, and run.sh puts both in bench/RESULTS-gpu.md.
//   W1 a*b + c, W2 1/(1+exp(-x)), W3 sum(a*b)   2^28 f32 elements
//   W4 row softmax                               4096 x 4096 f32
//   W5 one RK4 step of the Lorenz system         2^26 f32 systems (SoA x, y, z)
// Each workload is timed as a user runs it: inputs on the device beforehand, the timed region
// builds the expression and calls eval() (plan replay after the first call), repeated, with one
// device synchronization at the end. Also: NVRTC cold compile and warm disk-cache load of a
// 10-op kernel (child processes with a fresh CGRAD_CACHE_DIR), NVRTC alone on the same source
// (runs without a GPU too) and plan replay host overhead.
//
// usage: bench_gpu [--reps N] [--log2n N] [--only TEXT]      bench_gpu --compile-child   (internal)
// --only TEXT runs the copy and the workloads whose label contains TEXT, and nothing else (for a
// profiler: `ncu ... bench_gpu --only W4 --log2n 20 --reps 2`).
#include "backends/cuda/device.h"
#include "backends/cuda/loader.h"
#include "backends/cuda/nvrtc_compile.h"
#include "backends/cuda/sources.h"
#include "ir/node.h"

#include <cgrad/cgrad.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern char** environ;

namespace {

using cgrad::Device;
using cgrad::Tensor;
namespace cu = cgrad::backends::cuda;

// The CUDA kernels realize() would compile for `outputs` (backends/cuda/sources.h takes nodes).
std::vector<std::string> kernel_sources(const std::vector<Tensor>& outputs) {
  std::vector<cgrad::ir::NodePtr> nodes;
  for (const Tensor& t : outputs) nodes.push_back(t.node());
  return cu::kernel_sources(nodes);
}

using Clock = std::chrono::steady_clock;

int g_reps = 20;
const char* g_only = nullptr;  // --only: a substring of the workload labels to run

bool wanted(const char* label) { return !g_only || std::strstr(label, g_only); }

void device_sync() { cu::device_context(0).synchronize(); }

// Seconds per call of f: one warm-up call (compile, plan), then g_reps calls and one sync.
double time_per_call(const std::function<void()>& f) {
  f();
  device_sync();
  auto t0 = Clock::now();
  for (int i = 0; i < g_reps; ++i) f();
  device_sync();
  return std::chrono::duration<double>(Clock::now() - t0).count() / g_reps;
}

// Times f (time_per_call) and prints its row, unless --only leaves it out.
void row(const char* what, double bytes, double copy_gbs, const std::function<void()>& f) {
  if (!wanted(what)) return;
  const double seconds = time_per_call(f);
  const double gbs = bytes / seconds / 1e9;
  std::printf("| %-28s | %9.3f | %8.1f | %5.1f%% |\n", what, seconds * 1e3, gbs,
              copy_gbs > 0 ? 100 * gbs / copy_gbs : 0.0);
}

// Device-to-device copy of `bytes` (read + write counted), the bandwidth ceiling.
double copy_bandwidth(std::size_t bytes) {
  // rand, not zeros: a constant output is one element with zero strides, not a buffer
  Tensor a = cgrad::rand({static_cast<int64_t>(bytes / 4)}, cgrad::f32, Device::cuda()).eval();
  Tensor b = cgrad::rand({static_cast<int64_t>(bytes / 4)}, cgrad::f32, Device::cuda()).eval();
  auto& d = cu::device_context(0);
  auto src = reinterpret_cast<cu::CUdeviceptr>(a.node()->value.storage->data);
  auto dst = reinterpret_cast<cu::CUdeviceptr>(b.node()->value.storage->data);
  double s =
      time_per_call([&] { cu::check(cu::driver()->cuMemcpyDtoDAsync(dst, src, bytes, d.stream), "copy"); });
  return 2.0 * static_cast<double>(bytes) / s / 1e9;
}

Tensor ten_op_chain(const Tensor& x) {  // the "10-op kernel" of the compile-time target
  Tensor y = cgrad::exp(x * 0.5f) + 1.0f;
  y = cgrad::sqrt(y * y + 2.0f) - cgrad::tanh(x);
  return cgrad::maximum(y / 3.0f, x) * cgrad::sigmoid(y);
}

// In a child: the first evaluation of the 10-op graph (cold or warm per the cache directory).
int compile_child() {
  Tensor x = cgrad::rand({1024}, cgrad::f32, Device::cuda()).eval();
  device_sync();
  cgrad::reset_stats();
  auto t0 = Clock::now();
  ten_op_chain(x).eval();
  device_sync();
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  auto s = cgrad::stats();
  std::printf("%.3f %llu %llu\n", ms, static_cast<unsigned long long>(s.kernels_compiled),
              static_cast<unsigned long long>(s.disk_cache_hits));
  return 0;
}

std::string run_child(const char* self, const std::string& cache) {
  setenv("CGRAD_CACHE_DIR", cache.c_str(), 1);
  int fds[2];
  if (pipe(fds) != 0) return "";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  char arg0[] = "bench_gpu", arg1[] = "--compile-child";
  char* argv[] = {arg0, arg1, nullptr};
  pid_t pid = 0;
  std::string out;
  if (posix_spawn(&pid, self, &fa, nullptr, argv, environ) == 0) {
    close(fds[1]);
    char buf[256];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
    int status = 0;
    waitpid(pid, &status, 0);
  } else {
    close(fds[1]);
  }
  close(fds[0]);
  posix_spawn_file_actions_destroy(&fa);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Every call computes: the result cache would answer a repeated graph on the same buffers
  // (small outputs such as W3's sum, W4's rows) without launching anything.
  setenv("CGRAD_RESULT_CACHE_BYTES", "0", 0);
  int log2n = 28;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--compile-child")) return compile_child();
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) g_reps = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--only") && i + 1 < argc) g_only = argv[++i];
  }
  // NVRTC alone (no GPU needed): the 10-op kernel's source compiled to an sm_90 cubin.
  if (cu::nvrtc() && !g_only) {
    Tensor x = cgrad::rand({1024}, cgrad::f32);
    const std::string src = kernel_sources({ten_op_chain(x)}).at(0);
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
      auto t0 = Clock::now();
      cu::nvrtc_compile(src, "ten_op.cu", "sm_90");
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::printf(
        "NVRTC (%s) compile of the 10-op kernel to an sm_90 cubin: first %.1f ms, best of 5 %.1f ms\n\n",
        cu::nvrtc_version_string().c_str(), ms[0], *std::min_element(ms.begin(), ms.end()));
  }
  if (!cgrad::cuda_available()) {
    std::printf("bench_gpu: no CUDA device (%s)\n", cu::driver_status().c_str());
    return 0;
  }
  auto& d = cu::device_context(0);
  const int64_t n = int64_t(1) << log2n;
  const double fb = 4.0 * static_cast<double>(n);
  std::printf("# cgrad CUDA backend on %s (sm_%d%d, %d SMs), N = 2^%d f32, %d reps\n\n", d.name.c_str(),
              d.cc_major, d.cc_minor, d.sm_count, log2n, g_reps);
  const double copy = copy_bandwidth(static_cast<std::size_t>(fb));
  std::printf("| workload | ms | GB/s | of copy |\n|---|---|---|---|\n");
  std::printf("| %-28s | %9s | %8.1f | %5.1f%% |\n", "device copy (D2D)", "", copy, 100.0);

  Tensor a = cgrad::rand({n}, cgrad::f32, Device::cuda()).eval();
  Tensor b = cgrad::rand({n}, cgrad::f32, Device::cuda()).eval();
  Tensor c = cgrad::rand({n}, cgrad::f32, Device::cuda()).eval();
  row("W1 a*b+c", 4 * fb, copy, [&] { (a * b + c).eval(); });
  row("W2 1/(1+exp(-x))", 2 * fb, copy, [&] { (1.0f / (1.0f + cgrad::exp(-a))).eval(); });
  row("W3 sum(a*b)", 2 * fb, copy, [&] { cgrad::sum(a * b).eval(); });
  {
    Tensor x = cgrad::randn({4096, 4096}, cgrad::f32, Device::cuda()).eval();
    row("W4 softmax 4096x4096", 2 * 4096.0 * 4096 * 4, copy, [&] { cgrad::softmax(x, -1).eval(); });
  }
  {
    const int64_t m = n / 4;
    Tensor X = cgrad::rand({m}, cgrad::f32, Device::cuda()).eval();
    Tensor Y = cgrad::rand({m}, cgrad::f32, Device::cuda()).eval();
    Tensor Z = cgrad::rand({m}, cgrad::f32, Device::cuda()).eval();
    const float h = 0.01f, h2 = h / 2, h6 = h / 6;
    auto f = [](const Tensor& x, const Tensor& y, const Tensor& z) {
      return std::vector<Tensor>{10.0f * (y - x), 28.0f * x - y - x * z, x * y - (8.0f / 3) * z};
    };
    row("W5 RK4 Lorenz step", 6.0 * 4 * static_cast<double>(m), copy, [&] {
      auto k1 = f(X, Y, Z);
      auto k2 = f(X + h2 * k1[0], Y + h2 * k1[1], Z + h2 * k1[2]);
      auto k3 = f(X + h2 * k2[0], Y + h2 * k2[1], Z + h2 * k2[2]);
      auto k4 = f(X + h * k3[0], Y + h * k3[1], Z + h * k3[2]);
      cgrad::eval({X + h6 * (k1[0] + 2.0f * k2[0] + 2.0f * k3[0] + k4[0]),
                   Y + h6 * (k1[1] + 2.0f * k2[1] + 2.0f * k3[1] + k4[1]),
                   Z + h6 * (k1[2] + 2.0f * k2[2] + 2.0f * k3[2] + k4[2])});
    });
  }

  if (g_only) return 0;
  // Plan replay: host time per kernel of a replayed 1-kernel graph (no sync inside).
  {
    Tensor x = cgrad::rand({16}, cgrad::f32, Device::cuda()).eval();
    for (int i = 0; i < 10; ++i) (x * 2.0f + 1.0f).eval();
    device_sync();
    const int reps = 10000;
    cgrad::reset_stats();
    auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) (x * 2.0f + 1.0f).eval();
    double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    device_sync();
    auto s = cgrad::stats();
    std::printf("\nplan replay: %.2f us host time per kernel (%llu kernels, %llu plan hits)\n",
                us / static_cast<double>(s.kernels_launched),
                static_cast<unsigned long long>(s.kernels_launched),
                static_cast<unsigned long long>(s.plan_cache_hits));
  }
  // NVRTC: cold compile (fresh cache), then warm disk-cache hit (new process, same cache).
  {
    char dir[] = "/tmp/cgrad-bench-gpu-XXXXXX";
    if (mkdtemp(dir)) {
      std::string cold = run_child("/proc/self/exe", dir), warm = run_child("/proc/self/exe", dir);
      std::printf("10-op kernel, first eval incl. launch [ms compiled disk_hits]: cold %s", cold.c_str());
      std::printf("10-op kernel, first eval incl. launch [ms compiled disk_hits]: warm %s", warm.c_str());
    }
  }
  return 0;
}
