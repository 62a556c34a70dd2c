// bench_dist: cgrad::dist under mpirun (built with CGRAD_BUILD_BENCH when MPI is found).
//   W1  a*b + c on tensors sharded along their one axis     (no communication)
//   W3  sum(a*b) over the sharded axis                      (one fused kernel + one all-reduce)
//   lorenz  one controlled dopri5 step of a Lorenz ensemble sharded along the ensemble
//           (one max all-reduce per step for the error norm)
//   allreduce  an evaluation of dist::all_reduce(x) on an evaluated x of k elements, against a
//              bare MPI_Allreduce of the same k elements (the agreement all-reduce, the copy of
//              the input and the realize are the difference)
//   agreement  a bare MPI_Allreduce of two ints (MIN), what the error agreement before every
//              collective costs (docs/distributed.md, "Errors")
// Strong scaling: the global size is fixed (--n); weak: every process holds --n elements
// (--weak). Each row: the median (and the minimum) over --reps of the slowest process's time (an
// MPI_Allreduce MAX of each repetition's time), after a warm-up. On a shared, oversubscribed
// machine the minimum is the better estimate of the cost itself: the median includes the time a
// process waits for a core. Run: mpirun -np P bench_dist [--weak].
#include <cgrad/cgrad.hpp>
#include <cgrad/dist/mpi.hpp>
#include <cgrad/odeint.hpp>
#include <cgrad/odeint/dtensor.hpp>

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace cgrad;
namespace dist = cgrad::dist;
namespace ode = boost::numeric::odeint;

namespace {

int reps = 15;

struct Timing {
  double median, min;
};

// Median and minimum over `reps` of the slowest process's seconds for one call of `f`.
Timing time_it(const std::function<void()>& f) {
  f();
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), slowest = 0;
    MPI_Allreduce(&s, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t.push_back(slowest);
  }
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}

void row(const char* name, int64_t global, Timing s, const char* note) {
  if (dist::rank() == 0)
    std::printf("%-10s P=%d global=%-9lld %10.3f ms (min %9.3f ms)  %s\n", name, dist::size(),
                static_cast<long long>(global), s.median * 1e3, s.min * 1e3, note);
}

struct Lorenz {
  dist::DTensor rho;
  void operator()(const dist::DTensor& s, dist::DTensor& d, double) const {
    const dist::DTensor x = s.slice(0, 0, 1), y = s.slice(0, 1, 2), z = s.slice(0, 2, 3);
    d = dist::cat({10.0 * (y - x), x * (rho - z) - y, x * y - (8.0 / 3.0) * z}, 0);
  }
};

}  // namespace

int main(int argc, char** argv) {
  // Every row evaluates the same graph on the same inputs again: with the result cache
  // (docs/plans.md) each repetition after the first would launch nothing and skip its
  // all-reduce. Measure the computation, unless the caller set the knob explicitly.
  setenv("CGRAD_RESULT_CACHE_BYTES", "0", 0);
  dist::Session session(&argc, &argv);
  int64_t n = int64_t{1} << 24, n_lorenz = int64_t{1} << 20;
  bool weak = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--weak")
      weak = true;
    else if (a == "--n" && i + 1 < argc)
      n = std::atoll(argv[++i]);
    else if (a == "--lorenz-n" && i + 1 < argc)
      n_lorenz = std::atoll(argv[++i]);
    else if (a == "--reps" && i + 1 < argc)
      reps = std::atoi(argv[++i]);
  }
  const int p = dist::size();
  const int64_t g = weak ? n * p : n, gl = weak ? n_lorenz * p : n_lorenz;
  const char* mode = weak ? "weak" : "strong";

  {  // W1, W3 (f32)
    dist::DTensor a = dist::shard(rand({g}), 0), b = dist::shard(rand({g}), 0), c = dist::shard(rand({g}), 0);
    a.eval();
    b.eval();
    c.eval();
    row("W1", g, time_it([&] { (a * b + c).eval(); }), mode);
    row("W3", g, time_it([&] { (void)dist::sum(a * b).item<float>(); }), mode);
  }
  {  // Lorenz ensemble, one controlled dopri5 step (f64)
    Tensor rho = (arange(gl, f64) * (18.0 / static_cast<double>(gl)) + 10.0).reshape({1, gl});
    Tensor s0 = cat({full({1, gl}, 10.0, f64) + rand({1, gl}, f64) * 1e-3, full({2, gl}, 10.0, f64)}, 0);
    dist::DTensor s = dist::shard(s0, 1);
    s.eval();
    Lorenz sys{dist::shard(rho, 1)};
    auto stepper = ode::make_controlled(1e-6, 1e-6, ode::runge_kutta_dopri5<dist::DTensor>());
    double t = 0, dt = 1e-3;
    row("lorenz", gl, time_it([&] {
          stepper.try_step(sys, s, t, dt);
          s.eval();
        }),
        mode);
  }
  // All-reduce overhead: per evaluation of dist::all_reduce vs a bare MPI_Allreduce (same size).
  for (int64_t k : {int64_t{1}, int64_t{1} << 10, int64_t{1} << 20}) {
    Tensor x = rand({k}).eval();
    const Timing cg = time_it([&] { dist::all_reduce(x).eval(); });
    std::vector<float> buf(static_cast<std::size_t>(k), 1.0f), out(buf.size());
    const Timing bare = time_it([&] {
      MPI_Allreduce(buf.data(), out.data(), static_cast<int>(k), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    });
    if (dist::rank() == 0)
      std::printf(
          "allreduce  P=%d k=%-9lld cgrad %9.4f ms (min %9.4f)  bare MPI_Allreduce %9.4f ms (min %9.4f)  "
          "overhead %+.4f ms (min %+.4f)\n",
          p, static_cast<long long>(k), cg.median * 1e3, cg.min * 1e3, bare.median * 1e3, bare.min * 1e3,
          (cg.median - bare.median) * 1e3, (cg.min - bare.min) * 1e3);
  }
  {  // The error agreement before every collective: one MPI_Allreduce of two ints.
    int mine[2] = {1, p}, all[2] = {0, 0};
    const Timing agree = time_it([&] { MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD); });
    if (dist::rank() == 0)
      std::printf("agreement  P=%d 2 x int (8 bytes) MPI_Allreduce %9.4f ms (min %9.4f)\n", p,
                  agree.median * 1e3, agree.min * 1e3);
  }
  if (dist::rank() == 0)
    std::printf("result cache hits: %llu (0: every repetition computed and communicated)\n",
                static_cast<unsigned long long>(stats().result_cache_hits));
  return 0;
}
