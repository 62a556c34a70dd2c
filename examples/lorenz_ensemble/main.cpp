// lorenz_ensemble: N independent Lorenz systems integrated with Boost.Odeint on three state
// types, to compare them on the same problem:
//   std::vector<double> + range_algebra   (odeint's default: one loop per algebra operation)
//   cgrad::et::Vector<double>             (vector_space_algebra: one fused loop per operation)
//   cgrad::Tensor (f64)                   (vector_space_algebra: lazy graph, fused kernels)
// The state is structure-of-arrays: x, y and z blocks of N values each. Every system has its own
// rho = 10 + 18 i / N (sigma = 10, beta = 8/3), from a fixed point into chaos across the ensemble.
// Each state type runs runge_kutta4 and runge_kutta_dopri5 with fixed steps (dt = 0.001); the
// program prints the time per step, kernels per step for cgrad::Tensor (cgrad::stats()), and how
// far each final state is from the std::vector one.
//
// Measured (bench/RESULTS.md, bench_odeint: the same ensemble and rk4 on 2 cores, quiet run):
// std::vector 36.6 ms per step, et::Vector 42.8 ms (1 thread; 16.7 ms with 2), cgrad::Tensor
// 1.27 ms (2 threads) with 1 kernel and 0 new plans per step (dopri5: 1 kernel and 0 plans too),
// hand-written loops: staged 36.5 ms, fused 1.49 ms (1 thread) and 0.88 ms (2 threads).
//
// usage: lorenz_ensemble [--n N] [--steps S] [--tensor-steps K]
//   --n             number of systems (default 1048576 = 2^20)
//   --steps         timed steps per stepper (default 100)
//   --tensor-steps  timed steps for cgrad::Tensor (default: --steps if N <= 65536, else 10),
//                   since the CPU engine may be an interpreter
#include <cgrad/cgrad.hpp>
#include <cgrad/odeint.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace ode = boost::numeric::odeint;
namespace et = cgrad::et;

namespace {

constexpr double kSigma = 10.0;
constexpr double kBeta = 8.0 / 3.0;
constexpr double kDt = 0.001;

std::vector<double> rhos(std::size_t n) {
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = 10.0 + 18.0 * static_cast<double>(i) / static_cast<double>(n);
  return r;
}

std::vector<double> initial_state(std::size_t n) {
  std::vector<double> s(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = 10.0 + 1e-3 * static_cast<double>(i % 97);
    s[n + i] = 10.0;
    s[2 * n + i] = 10.0;
  }
  return s;
}

// ---- the right-hand side, once per state type ----

struct LorenzStd {
  std::size_t n;
  std::vector<double> rho;
  void operator()(const std::vector<double>& s, std::vector<double>& d, double) const {
    const double* x = s.data();
    const double* y = x + n;
    const double* z = y + n;
    for (std::size_t i = 0; i < n; ++i) {
      d[i] = kSigma * (y[i] - x[i]);
      d[n + i] = x[i] * (rho[i] - z[i]) - y[i];
      d[2 * n + i] = x[i] * y[i] - kBeta * z[i];
    }
  }
};

struct LorenzEt {
  std::size_t n;
  et::Vector<double> rho;
  void operator()(const et::Vector<double>& s, et::Vector<double>& d, double) const {
    const auto x = s.segment(0, n), y = s.segment(n, n), z = s.segment(2 * n, n);
    // the three components in one fused loop (three `d.segment(...) = ...` would be three loops)
    et::assign_all(d.segment(0, n), kSigma * (y - x), d.segment(n, n), x * (rho - z) - y, d.segment(2 * n, n),
                   x * y - kBeta * z);
  }
};

// The derivative of the (3, n) state as its three rows joined by `cat`: a cat of a few equal
// parts fuses (docs/fusion.md rule 7), so odeint's whole RK4 step is one kernel.
struct LorenzTensor {
  int64_t n;
  cgrad::Tensor rho;  // shape (1, n)
  void operator()(const cgrad::Tensor& s, cgrad::Tensor& d, double) const {
    const cgrad::Tensor x = s.slice(0, 0, 1), y = s.slice(0, 1, 2), z = s.slice(0, 2, 3);
    d = cgrad::cat({kSigma * (y - x), x * (rho - z) - y, x * y - kBeta * z}, 0);
  }
};

// ---- state-type plumbing: build, realize, read back ----

std::vector<double> to_std(const std::vector<double>& s) { return s; }
std::vector<double> to_std(const et::Vector<double>& s) { return s.to_vector(); }
std::vector<double> to_std(const cgrad::Tensor& s) { return s.to_vector<double>(); }
void realize(std::vector<double>&) {}
void realize(et::Vector<double>&) {}
void realize(cgrad::Tensor& s) { s.eval(); }

struct Result {
  double ms_per_step = 0;
  double kernels_per_step = -1;  // -1: not a cgrad::Tensor
  double plans_per_step = -1;    // new plans built per timed step (0 once steps replay plans)
  std::vector<double> final_state;
};

// One warm-up step (sizes odeint's temporaries, compiles kernels), then `steps` timed steps.
template <class Stepper, class State, class System>
Result run(State state, const System& sys, std::size_t steps, bool count_kernels) {
  Stepper stepper;
  double t = 0;
  stepper.do_step(sys, state, t, kDt);
  realize(state);
  t += kDt;
  if (count_kernels) cgrad::reset_stats();
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < steps; ++k, t += kDt) {
    stepper.do_step(sys, state, t, kDt);
    realize(state);  // a Tensor step is lazy until evaluated
  }
  const auto stop = std::chrono::steady_clock::now();
  Result r;
  r.ms_per_step = std::chrono::duration<double, std::milli>(stop - start).count() /
                  static_cast<double>(std::max<std::size_t>(steps, 1));
  if (count_kernels) {
    const auto st = cgrad::stats();
    const auto n = static_cast<double>(std::max<std::size_t>(steps, 1));
    r.kernels_per_step = static_cast<double>(st.kernels_launched) / n;
    r.plans_per_step = static_cast<double>(st.plans_built) / n;
  }
  r.final_state = to_std(state);
  return r;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

void print_row(const char* stepper, const char* state, const Result& r,
               const std::vector<double>& reference) {
  char kernels[32] = "-", plans[32] = "-";
  if (r.kernels_per_step >= 0) std::snprintf(kernels, sizeof kernels, "%.1f", r.kernels_per_step);
  if (r.plans_per_step >= 0) std::snprintf(plans, sizeof plans, "%.2f", r.plans_per_step);
  std::printf("%-8s %-28s %12.3f %14s %12s %18.3g\n", stepper, state, r.ms_per_step, kernels, plans,
              max_abs_diff(r.final_state, reference));
}

template <template <class...> class Stepper>
void compare(const char* name, std::size_t n, std::size_t steps, std::size_t tensor_steps) {
  using StdState = std::vector<double>;
  using EtState = et::Vector<double>;
  const std::vector<double> s0 = initial_state(n);
  const std::vector<double> rho = rhos(n);

  const Result std_r = run<Stepper<StdState>>(s0, LorenzStd{n, rho}, steps, false);
  print_row(name, "std::vector + range_algebra", std_r, std_r.final_state);

  const Result et_r = run<Stepper<EtState>>(EtState(s0), LorenzEt{n, EtState(rho)}, steps, false);
  print_row(name, "et::Vector", et_r, std_r.final_state);

  const auto ni = static_cast<int64_t>(n);
  const LorenzTensor tsys{ni, cgrad::tensor(rho, {1, ni})};
  const Result t_r = run<Stepper<cgrad::Tensor>>(cgrad::tensor(s0, {3, ni}), tsys, tensor_steps, true);
  const std::vector<double> reference =
      tensor_steps == steps ? std_r.final_state
                            : run<Stepper<StdState>>(s0, LorenzStd{n, rho}, tensor_steps, false).final_state;
  print_row(name, "cgrad::Tensor (f64)", t_r, reference);
}

template <class T>
using Rk4 = ode::runge_kutta4<T>;
template <class T>
using Dopri5 = ode::runge_kutta_dopri5<T>;

std::size_t parse_count(const char* flag, const char* value) {
  char* end = nullptr;
  const unsigned long long v = value ? std::strtoull(value, &end, 10) : 0;
  if (!value || *end != '\0' || v == 0) {
    std::fprintf(stderr, "lorenz_ensemble: %s needs a positive integer\n", flag);
    std::exit(2);
  }
  return static_cast<std::size_t>(v);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n = std::size_t{1} << 20, steps = 100, tensor_steps = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : nullptr;
    if (arg == "--n") {
      n = parse_count("--n", next);
      ++i;
    } else if (arg == "--steps") {
      steps = parse_count("--steps", next);
      ++i;
    } else if (arg == "--tensor-steps") {
      tensor_steps = parse_count("--tensor-steps", next);
      ++i;
    } else {
      std::printf("usage: lorenz_ensemble [--n N] [--steps S] [--tensor-steps K]\n");
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  if (tensor_steps == 0) tensor_steps = n <= 65536 ? steps : std::min<std::size_t>(steps, 10);

  int threads = 1;
#if defined(_OPENMP)
  threads = omp_get_max_threads();
#endif
  std::printf(
      "lorenz_ensemble: %zu systems (%zu doubles of state), dt = %g, %zu timed steps (%zu for "
      "cgrad::Tensor), "
      "OpenMP threads: %d\n\n",
      n, 3 * n, kDt, steps, tensor_steps, threads);
  std::printf("%-8s %-28s %12s %14s %12s %18s\n", "stepper", "state", "ms/step", "kernels/step", "plans/step",
              "max|diff| vs std");
  try {
    compare<Rk4>("rk4", n, steps, tensor_steps);
    compare<Dopri5>("dopri5", n, steps, tensor_steps);
  } catch (const cgrad::Error& e) {
    std::fprintf(stderr, "lorenz_ensemble: %s\n", e.what());
    return 1;
  }
  return 0;
}
