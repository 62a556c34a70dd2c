// lorenz_mpi: an ensemble of N Lorenz systems integrated with Boost.Odeint over MPI. The state
// (3, N) is sharded along the ensemble axis (cgrad::dist::DTensor): each process steps its block
// of systems; the controlled dopri5's error norm is a local max(abs(.)) plus one max all-reduce,
// so every process takes the steps a single process would. With --check (the default for
// N <= 65536) every process also integrates the whole ensemble alone with a plain cgrad::Tensor
// and compares the gathered final state and the number of steps.
//
// usage: mpirun -np P lorenz_mpi [--n N] [--t T] [--no-check]
#include <cgrad/cgrad.hpp>
#include <cgrad/dist/mpi.hpp>
#include <cgrad/odeint.hpp>
#include <cgrad/odeint/dtensor.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace ode = boost::numeric::odeint;
namespace dist = cgrad::dist;
using cgrad::Tensor;

namespace {

// The same right-hand side for both state types: the three rows of the (3, N) state, joined by
// cat (a fused cat: one kernel per stage).
template <class State>
struct Lorenz {
  State rho;  // (1, N)
  void operator()(const State& s, State& d, double) const {
    const State x = s.slice(0, 0, 1), y = s.slice(0, 1, 2), z = s.slice(0, 2, 3);
    if constexpr (std::is_same_v<State, Tensor>)
      d = cgrad::cat({10.0 * (y - x), x * (rho - z) - y, x * y - (8.0 / 3.0) * z}, 0);
    else
      d = dist::cat({10.0 * (y - x), x * (rho - z) - y, x * y - (8.0 / 3.0) * z}, 0);
  }
};

template <class State>
std::size_t integrate(const State& rho, State& s, double t_end) {
  return ode::integrate_adaptive(ode::make_controlled(1e-8, 1e-8, ode::runge_kutta_dopri5<State>()),
                                 Lorenz<State>{rho}, s, 0.0, t_end, 1e-3);
}

}  // namespace

int main(int argc, char** argv) {
  dist::Session mpi(&argc, &argv);
  int64_t n = 4096;
  double t_end = 0.2;
  int check = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--n" && i + 1 < argc)
      n = std::atoll(argv[++i]);
    else if (a == "--t" && i + 1 < argc)
      t_end = std::atof(argv[++i]);
    else if (a == "--no-check")
      check = 0;
    else if (a == "--check")
      check = 1;
  }
  if (check < 0) check = n <= 65536;

  // Every process builds the same global inputs and keeps its block (no communication).
  Tensor rho = (cgrad::arange(n, cgrad::f64) * (18.0 / static_cast<double>(n)) + 10.0).reshape({1, n});
  Tensor s0 =
      cgrad::cat({cgrad::full({1, n}, 10.0, cgrad::f64) + cgrad::arange(n, cgrad::f64).reshape({1, n}) * 1e-3,
                  cgrad::full({2, n}, 10.0, cgrad::f64)},
                 0)
          .eval();
  dist::DTensor state = dist::shard(s0, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t steps = integrate(dist::shard(rho, 1), state, t_end);
  state.eval();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double x_mean = dist::mean(state.slice(0, 0, 1)).item<double>();
  if (dist::rank() == 0)
    std::printf(
        "lorenz_mpi: %d processes, %lld systems (%lld on process 0), t = %g: %zu steps in %.3f s, mean x "
        "%.9f\n",
        dist::size(), static_cast<long long>(n), static_cast<long long>(state.local().shape()[1]), t_end,
        steps, secs, x_mean);
  if (!check) return 0;

  Tensor single = s0;
  const std::size_t steps1 = integrate(rho, single, t_end);
  const std::vector<double> a = state.gather().to_vector<double>(), b = single.to_vector<double>();
  double diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff = std::max(diff, std::fabs(a[i] - b[i]) / (1 + std::fabs(b[i])));
  const bool ok = steps == steps1 && diff <= 1e-9;
  if (dist::rank() == 0)
    std::printf("lorenz_mpi: one process: %zu steps; max relative difference %.3g: %s\n", steps1, diff,
                ok ? "OK" : "MISMATCH");
  return ok ? 0 : 1;
}
