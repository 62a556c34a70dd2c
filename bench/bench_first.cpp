// First-call latency (issue #20): one workload's first evaluation in this process, which is
// meant to be a fresh one with an empty kernel cache (bench/first_call.sh starts one process per
// sample with its own CGRAD_CACHE_DIR, interleaved with the peers' processes). Inputs are built
// and realized before the clock starts, as the Python peers' are, so the figure is what a script
// pays for its first computation: compiler probe, cache setup, passes, schedule, codegen, the
// compile (or the interpreter, CGRAD_JIT_ASYNC) and the run. Then the second call and the median
// of the next `reps` calls (the steady state: the same kernels every later call runs).
//
// usage: bench_first W1|W2|W3|W4|MLP [log2 n (W1-W3; default 24)] [reps (default 5)]
// output: one line `workload,n,first_ms,second_ms,steady_ms,compiled,launched_first,self_cpu_ms,
// compiler_cpu_ms` (the last two: CPU time of this process and of its children, the compilers,
// during the first call: on a loaded machine they say what the wall time would be on idle cores)
// With BENCH_FIRST_STAMPS=1, also `# stamp <label> <CLOCK_REALTIME us>` lines on stderr around
// the first call, to line up with `strace -ttt -f` of the compiler processes.
#include "common.hpp"
#include "mlp_step.hpp"

#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

#include <sys/resource.h>

#include <ctime>
#include <functional>
#include <string>

namespace {

using cgrad::Tensor;

// CPU seconds of this process (`who` = RUSAGE_SELF) or of its waited-for children.
double cpu_s(int who) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

void stamp(const char* label) {
  if (!bench::env_int("BENCH_FIRST_STAMPS", 0)) return;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  std::fprintf(stderr, "# stamp %s %.6f\n", label, static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9);
}

std::vector<float> uniform(std::size_t n, unsigned seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

Tensor input(std::vector<float> v, cgrad::Shape s) {
  Tensor t = cgrad::tensor(std::move(v), std::move(s));
  t.eval();
  return t;
}

// The MLP step of bench_mlp.cpp: 784-512-512-10, batch 256, ReLU, cross-entropy, SGD momentum.
struct Mlp {
  static constexpr int64_t B = 256, In = 784, H = 512, Out = 10;
  Tensor x, y, w1, b1, w2, b2, w3, b3;
  std::unique_ptr<cgrad::optim::SGD> opt;
  Mlp() {
    using namespace cgrad;
    std::vector<int64_t> labels;
    for (int64_t i = 0; i < B; ++i) labels.push_back((i * 7) % Out);
    x = input(uniform(B * In, 1, -1, 1), {B, In});
    y = tensor(labels, {B});
    y.eval();
    w1 = input(uniform(In * H, 2, -0.05f, 0.05f), {In, H}).requires_grad(true);
    w2 = input(uniform(H * H, 3, -0.05f, 0.05f), {H, H}).requires_grad(true);
    w3 = input(uniform(H * Out, 4, -0.05f, 0.05f), {H, Out}).requires_grad(true);
    // Dense zeros, as the Python peers' NumPy biases (zeros() would be a stride-0 constant, whose
    // first step compiles a schedule of its own).
    b1 = input(std::vector<float>(H, 0.f), {H}).requires_grad(true);
    b2 = input(std::vector<float>(H, 0.f), {H}).requires_grad(true);
    b3 = input(std::vector<float>(Out, 0.f), {Out}).requires_grad(true);
    opt = std::make_unique<optim::SGD>(std::vector<Tensor>{w1, b1, w2, b2, w3, b3}, 0.01, 0.9);
  }
  float step() { return mlp_sgd_step(*opt, x, y, w1, b1, w2, b2, w3, b3).item<float>(); }
};

}  // namespace

int main(int argc, char** argv) {
  setenv("CGRAD_RESULT_CACHE_BYTES", "0", 0);  // every call computes (as bench_cgrad)
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s W1|W2|W3|W4|MLP [log2 n] [reps]\n", argv[0]);
    return 2;
  }
  const std::string wl = argv[1];
  const int log2n = argc > 2 ? std::atoi(argv[2]) : 24;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  const auto n = static_cast<int64_t>(1) << log2n;
  std::function<double()> call;  // one call; returns something of the result so nothing is skipped
  Tensor a, b, c;
  std::unique_ptr<Mlp> mlp;
  int64_t size = n;
  if (wl == "W1" || wl == "W2" || wl == "W3") {
    a = input(uniform(static_cast<std::size_t>(n), 1, -1, 1), {n});
    if (wl != "W2") b = input(uniform(static_cast<std::size_t>(n), 2, -1, 1), {n});
    if (wl == "W1") c = input(uniform(static_cast<std::size_t>(n), 3, -1, 1), {n});
    if (wl == "W1") call = [&] { return static_cast<double>((a * b + c).eval().numel()); };
    if (wl == "W2") call = [&] { return static_cast<double>((1.0 / (1.0 + cgrad::exp(-a))).eval().numel()); };
    if (wl == "W3") call = [&] { return cgrad::sum(a * b).item<double>(); };
  } else if (wl == "W4") {
    size = 4096 * 4096;
    a = input(uniform(4096 * 4096, 4, -4, 4), {4096, 4096});
    call = [&] { return static_cast<double>(cgrad::softmax(a, 1).eval().numel()); };
  } else if (wl == "MLP") {
    size = Mlp::B;
    mlp = std::make_unique<Mlp>();
    call = [&] { return static_cast<double>(mlp->step()); };
  } else {
    std::fprintf(stderr, "unknown workload %s\n", wl.c_str());
    return 2;
  }
  try {
    stamp("first_begin");
    const double self0 = cpu_s(RUSAGE_SELF), kids0 = cpu_s(RUSAGE_CHILDREN);
    double t0 = bench::now_s();
    volatile double sink = call();
    const double first = bench::now_s() - t0;
    const double self = cpu_s(RUSAGE_SELF) - self0, kids = cpu_s(RUSAGE_CHILDREN) - kids0;
    stamp("first_end");
    const cgrad::Stats s1 = cgrad::stats();
    t0 = bench::now_s();
    sink = call();
    const double second = bench::now_s() - t0;
    std::vector<double> v;
    for (int r = 0; r < reps; ++r) {
      t0 = bench::now_s();
      sink = call();
      v.push_back(bench::now_s() - t0);
    }
    (void)sink;
    std::printf("%s,%lld,%.3f,%.3f,%.3f,%llu,%llu,%.1f,%.1f\n", wl.c_str(), static_cast<long long>(size),
                first * 1e3, second * 1e3, bench::stat_of(v).median * 1e3,
                static_cast<unsigned long long>(s1.kernels_compiled),
                static_cast<unsigned long long>(s1.kernels_launched), self * 1e3, kids * 1e3);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
