// Minimizes a 2-D Ginzburg-Landau (phi^4) energy on an N x N grid with the nonlinear conjugate
// gradient minimizer; the gradient comes from autograd.
//
//   E[phi] = sum over links of (kappa/2) (phi_i - phi_j)^2 + sum over sites of (phi^2 - 1)^2 / 4
//            - h * sum(phi)
//
// Started from random values, phi relaxes into domains of +-1 separated by walls; a small field
// h favours +1. Prints the energy, the magnetization and the iterations.
//
//   field_minimize [N=1024] [max_iterations=200]
#include <cgrad/cgrad.hpp>
#include <cgrad/optim.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace cgrad;

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1024;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 200;
  const double kappa = 1.0, h = 0.01;
  auto energy = [&](const Tensor& phi) {
    Tensor dx = phi.slice(0, 1, n) - phi.slice(0, 0, n - 1);
    Tensor dy = phi.slice(1, 1, n) - phi.slice(1, 0, n - 1);
    Tensor w = phi * phi - 1.0;
    return 0.5 * kappa * (sum(dx * dx) + sum(dy * dy)) + 0.25 * sum(w * w) - h * sum(phi);
  };
  manual_seed(7);
  Tensor phi = (rand({n, n}, f64) * 2.0 - 1.0).eval();
  std::printf("grid %lldx%lld, start energy %.6g\n", static_cast<long long>(n), static_cast<long long>(n),
              energy(phi).item<double>());
  reset_stats();
  const auto t0 = std::chrono::steady_clock::now();
  optim::CGResult r =
      optim::minimize_cg(energy, phi, {.max_iterations = iterations, .gradient_tolerance = 1e-6});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Stats st = stats();
  std::printf("CG: %d iterations, %d energy evaluations, %.2f s; energy %.6g, max |grad| %.3g, %s\n",
              r.iterations, r.energy_evaluations, s, r.energy, r.gradient_inf_norm,
              r.converged ? "converged" : "stopped");
  std::printf("magnetization %.4f; %llu plans built, %llu replayed, %llu kernels compiled\n",
              mean(phi).item<double>(), static_cast<unsigned long long>(st.plans_built),
              static_cast<unsigned long long>(st.plan_cache_hits),
              static_cast<unsigned long long>(st.kernels_compiled));
  return std::isfinite(r.energy) ? 0 : 1;
}
