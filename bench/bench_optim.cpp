// The field minimizers of cgrad::optim on the Ginzburg-Landau (phi^4) energy of
// examples/field_minimize, to a gradient tolerance (max |g|), from a start read from a file, so
// that bench/optim/run.py can give SciPy the very same start and print both side by side.
//
//   bench_optim N START.f64 TOL [GD_MAX_ITERATIONS=3000] [MAX_ITERATIONS=100000]
//
// START.f64: N*N raw little-endian doubles. Prints one `key=value ...` line per method (gd, cg,
// tn, lbfgs), then a line with the cost of one Hessian-vector product against one gradient:
// both compiled (compile(fn)) and replayed, kernels per call from stats().kernels_launched,
// time as the median of 15 replays each, alternated in the same process.
#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace cgrad;

namespace {
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void report(const char* method, int64_t n, const optim::CGResult& r, double seconds) {
  const Stats st = stats();
  std::printf(
      "method=%s n=%lld iterations=%d f_evals=%d g_evals=%d hvps=%d time_s=%.4f energy=%.12g gnorm=%.3g "
      "reason=%s "
      "kernels=%llu traces=%llu plans_built=%llu plan_hits=%llu result_hits=%llu\n",
      method, static_cast<long long>(n), r.iterations, r.energy_evaluations, r.gradient_evaluations,
      r.hessian_vector_products, seconds, r.energy, r.gradient_inf_norm, optim::stop_reason_name(r.reason),
      static_cast<unsigned long long>(st.kernels_launched), static_cast<unsigned long long>(st.traces),
      static_cast<unsigned long long>(st.plans_built), static_cast<unsigned long long>(st.plan_cache_hits),
      static_cast<unsigned long long>(st.result_cache_hits));
  std::fflush(stdout);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: bench_optim N START.f64 TOL [GD_MAX_ITERATIONS]\n");
    return 2;
  }
  const int64_t n = std::atoll(argv[1]);
  const double tol = std::atof(argv[3]);
  const int gd_max = argc > 4 ? std::atoi(argv[4]) : 3000;
  const int cap = argc > 5 ? std::atoi(argv[5]) : 100000;  // iteration cap of the other methods
  std::vector<double> start(static_cast<std::size_t>(n * n));
  std::ifstream in(argv[2], std::ios::binary);
  in.read(reinterpret_cast<char*>(start.data()), static_cast<std::streamsize>(start.size() * sizeof(double)));
  if (!in) {
    std::fprintf(stderr, "bench_optim: cannot read %lld doubles from %s\n", static_cast<long long>(n * n),
                 argv[2]);
    return 2;
  }
  const double kappa = 1.0, h = 0.01;
  auto energy = [n, kappa, h](const Tensor& phi) {
    Tensor dx = phi.slice(0, 1, n) - phi.slice(0, 0, n - 1);
    Tensor dy = phi.slice(1, 1, n) - phi.slice(1, 0, n - 1);
    Tensor w = phi * phi - 1.0;
    return 0.5 * kappa * (sum(dx * dx) + sum(dy * dy)) + 0.25 * sum(w * w) - h * sum(phi);
  };
  auto fresh = [&] { return tensor(start, {n, n}); };

  // Warm-up: a short run of each method compiles every kernel, so the timed runs measure
  // iterations, not the JIT (the JIT's latency is reported in bench/RESULTS.md elsewhere).
  {
    Tensor a = fresh(), b = fresh(), c = fresh();
    optim::minimize_cg(energy, a, {.max_iterations = 3, .gradient_tolerance = tol});
    optim::minimize_tn(energy, b, {.max_iterations = 3, .gradient_tolerance = tol});
    optim::minimize_lbfgs(energy, c, {.max_iterations = 3, .gradient_tolerance = tol});
  }

  {  // Gradient descent: SGD without momentum at a fixed step below 2 / max eigenvalue (8 kappa + 2).
    const double lr = 0.15;
    Tensor p = fresh().requires_grad(true);
    optim::SGD opt({p}, lr);
    optim::CGResult r;
    reset_stats();
    const double t0 = now();
    for (int it = 0;; ++it) {
      opt.zero_grad();
      Tensor e = energy(p);
      e.backward();
      Tensor ginf = max(abs(p.grad()));
      if (it == gd_max) {
        eval({e, ginf});
      } else {
        opt.step({e, ginf});  // e and max|g| are of the point before this update
      }
      ++r.energy_evaluations;
      ++r.gradient_evaluations;
      r.energy = e.item<double>();
      r.gradient_inf_norm = ginf.item<double>();
      if (r.gradient_inf_norm < tol) {
        r.converged = true;
        r.reason = optim::StopReason::gradient;
        break;  // (this step's update was applied; its start point met the tolerance)
      }
      if (it == gd_max) break;
      ++r.iterations;
    }
    report("gd", n, r, now() - t0);
  }
  struct Run {
    const char* name;
    std::function<optim::CGResult(Tensor&)> run;
  };
  std::vector<Run> runs{
      {"cg",
       [&](Tensor& x) {
         return optim::minimize_cg(
             energy, x, {.max_iterations = cap, .gradient_tolerance = tol, .relative_energy_tolerance = 0});
       }},
      {"tn",
       [&](Tensor& x) {
         return optim::minimize_tn(
             energy, x, {.max_iterations = cap, .gradient_tolerance = tol, .relative_energy_tolerance = 0});
       }},
      {"lbfgs",
       [&](Tensor& x) {
         return optim::minimize_lbfgs(
             energy, x, {.max_iterations = cap, .gradient_tolerance = tol, .relative_energy_tolerance = 0});
       }},
  };
  for (const Run& m : runs) {
    Tensor x = fresh();
    reset_stats();
    const double t0 = now();
    optim::CGResult r = m.run(x);
    report(m.name, n, r, now() - t0);
  }

  // One HVP against one gradient, each a compiled function replayed (the HVP: forward,
  // backward and double backward of the energy at x along v, in one plan).
  auto gradient = compile([&](const Tensor& x) {
    Tensor xl = x;
    return grad(energy(xl), {xl}, false)[0];
  });
  auto hvp = compile([&](const Tensor& x, const Tensor& v) {
    Tensor g = grad(energy(x), {x}, true)[0];
    return grad(sum(g * v), {x}, false)[0];
  });
  Tensor x = fresh().requires_grad(true);
  Tensor v = (fresh() * 0.5 + 0.1).eval();
  gradient(x);
  hvp(x, v);
  auto kernels_of = [](auto&& f) {
    reset_stats();
    f();
    return stats().kernels_launched;
  };
  // A fresh v each call: the result cache would answer a repeated (x, v) without launching.
  std::vector<Tensor> vs;
  for (int i = 0; i < 40; ++i) vs.push_back((v + static_cast<double>(i) * 1e-3).eval());
  std::vector<Tensor> xs;
  for (int i = 0; i < 40; ++i)
    xs.push_back((x.detach() + static_cast<double>(i) * 1e-3).eval().requires_grad(true));
  int vi = 0, xi = 0;
  const uint64_t kg = kernels_of([&] { gradient(xs[static_cast<std::size_t>(xi++)]); });
  const uint64_t kh = kernels_of([&] { hvp(x, vs[static_cast<std::size_t>(vi++)]); });
  std::vector<double> tg, th;
  for (int rep = 0; rep < 15; ++rep) {
    double t0 = now();
    gradient(xs[static_cast<std::size_t>(xi++)]);
    tg.push_back(now() - t0);
    t0 = now();
    hvp(x, vs[static_cast<std::size_t>(vi++)]);
    th.push_back(now() - t0);
  }
  std::sort(tg.begin(), tg.end());
  std::sort(th.begin(), th.end());
  const double mg = tg[tg.size() / 2], mh = th[th.size() / 2];
  std::printf("hvp n=%lld grad_kernels=%llu hvp_kernels=%llu grad_ms=%.3f hvp_ms=%.3f ratio=%.2f\n",
              static_cast<long long>(n), static_cast<unsigned long long>(kg),
              static_cast<unsigned long long>(kh), mg * 1e3, mh * 1e3, mh / mg);
  return 0;
}
