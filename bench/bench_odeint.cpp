// bench_odeint: the Lorenz ensemble of issue #7 integrated with odeint's runge_kutta4, every
// implementation in one process so that every ratio comes from one run (docs/benchmarks.md).
//   N = 2^20 systems, SoA state [x (N), y (N), z (N)], f64, dt = 0.001, each system with its own
//   rho_i = 10 + 18 i / N (sigma = 10, beta = 8/3), `--steps` (100) steps per sample.
// Implementations (rows `impl,variant`):
//   odeint,std_range       runge_kutta4<std::vector<double>> + range_algebra (odeint's default;
//                          serial), right-hand side a plain loop
//   hand,staged            the 8 sweeps odeint's runge_kutta4 makes, by hand (4 right-hand sides;
//                          scale_sum2..5 with odeint's coefficients, zeros included), OpenMP
//   hand,fused             the whole RK4 step in one pass, OpenMP
//   et,odeint              runge_kutta4<cgrad::et::Vector<double>> (one fused loop per statement;
//                          the right-hand side one et::assign_all loop)
//   et,odeint_rhs3loops    the same with the right-hand side as three assignments (three loops)
//   cgrad,odeint           runge_kutta4<cgrad::Tensor>, state (3, N) evaluated after every step
//                          (CPU JIT; threads: CGRAD_NUM_THREADS); kernels and plans per step from
//                          cgrad::stats()
// The hand loops and et run with 1 and 2 OpenMP threads (omp_set_num_threads). Each sample times
// `--steps` steps; the row is the median over `--reps` samples (after one warm-up step), in
// seconds per step. `check`: max |x - x_odeint| after the first sample (steps from the same
// initial state), against odeint on std::vector.
//
// usage: bench_odeint [--proc NAME] [--n N] [--steps S] [--reps R]
#include "common.hpp"

#include <cgrad/cgrad.hpp>
#include <cgrad/odeint.hpp>

#include <omp.h>

#include <functional>
#include <string>
#include <thread>

namespace {

namespace ode = boost::numeric::odeint;
using bench::Buf;
using bench::now_s;

constexpr double kSigma = bench::LZ_SIGMA, kBeta = bench::LZ_B, kDt = bench::LZ_DT;
#define NOINLINE __attribute__((noinline))

std::vector<double> rhos(long n) {
  std::vector<double> r(static_cast<std::size_t>(n));
  for (long i = 0; i < n; ++i)
    r[static_cast<std::size_t>(i)] = 10.0 + 18.0 * static_cast<double>(i) / static_cast<double>(n);
  return r;
}

// ---------------------------------------------------------------- hand loops
inline void lorenz(double x, double y, double z, double rho, double& dx, double& dy, double& dz) {
  dx = kSigma * (y - x);
  dy = x * (rho - z) - y;
  dz = x * y - kBeta * z;
}

NOINLINE void fused_step(double* __restrict s, const double* __restrict rho, long N) {
  double* X = s;
  double* Y = s + N;
  double* Z = s + 2 * N;
  const double h = kDt, h2 = h / 2, h6 = h / 6;
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < N; ++i) {
    const double x = X[i], y = Y[i], z = Z[i], r = rho[i];
    double k1x, k1y, k1z, k2x, k2y, k2z, k3x, k3y, k3z, k4x, k4y, k4z;
    lorenz(x, y, z, r, k1x, k1y, k1z);
    lorenz(x + h2 * k1x, y + h2 * k1y, z + h2 * k1z, r, k2x, k2y, k2z);
    lorenz(x + h2 * k2x, y + h2 * k2y, z + h2 * k2z, r, k3x, k3y, k3z);
    lorenz(x + h * k3x, y + h * k3y, z + h * k3z, r, k4x, k4y, k4z);
    X[i] = x + h6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    Y[i] = y + h6 * (k1y + 2 * k2y + 2 * k3y + k4y);
    Z[i] = z + h6 * (k1z + 2 * k2z + 2 * k3z + k4z);
  }
}

NOINLINE void rhs(const double* __restrict s, double* __restrict d, const double* __restrict rho, long N) {
  const double *X = s, *Y = s + N, *Z = s + 2 * N;
  double *dX = d, *dY = d + N, *dZ = d + 2 * N;
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < N; ++i) lorenz(X[i], Y[i], Z[i], rho[i], dX[i], dY[i], dZ[i]);
}

// The sweeps of odeint's generic RK algorithm for runge_kutta4 (vector_space_algebra: one
// expression per call of scale_sumN, coefficients a = {1/2}, {0, 1/2}, {0, 0, 1} times dt,
// b = {1/6, 1/3, 1/3, 1/6} times dt; the output aliases the input, as in odeint's in-place
// do_step). ws holds 5 states: dxdt, F1, F2, F3, x_tmp.
NOINLINE void staged_step(double* __restrict x, double* __restrict ws, const double* __restrict rho, long N) {
  const long n = 3 * N;
  double *k1 = ws, *F1 = ws + n, *F2 = ws + 2 * n, *F3 = ws + 3 * n, *xt = ws + 4 * n;
  const double h = kDt, a1 = h / 2, a2 = h / 2, a3 = h, b1 = h / 6, b2 = h / 3, b3 = h / 3, b4 = h / 6;
  const double zero = 0.0;
  rhs(x, k1, rho, N);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) xt[i] = 1.0 * x[i] + a1 * k1[i];
  rhs(xt, F1, rho, N);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) xt[i] = 1.0 * x[i] + zero * k1[i] + a2 * F1[i];
  rhs(xt, F2, rho, N);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) xt[i] = 1.0 * x[i] + zero * k1[i] + zero * F1[i] + a3 * F2[i];
  rhs(xt, F3, rho, N);
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) x[i] = 1.0 * x[i] + b1 * k1[i] + b2 * F1[i] + b3 * F2[i] + b4 * F3[i];
}

// ---------------------------------------------------------------- odeint systems
struct LorenzStd {
  long n;
  const std::vector<double>* rho;
  void operator()(const std::vector<double>& s, std::vector<double>& d, double) const {
    const double* x = s.data();
    const double* y = x + n;
    const double* z = y + n;
    const double* r = rho->data();
    double* dp = d.data();
    for (long i = 0; i < n; ++i) lorenz(x[i], y[i], z[i], r[i], dp[i], dp[n + i], dp[2 * n + i]);
  }
};

namespace et = cgrad::et;
// The right-hand side as one loop (et::assign_all), or as one loop per component (`three`),
// which reads x, y, z 2-3 times per evaluation.
struct LorenzEt {
  std::size_t n;
  const et::Vector<double>* rho;
  bool three = false;
  void operator()(const et::Vector<double>& s, et::Vector<double>& d, double) const {
    const auto x = s.segment(0, n), y = s.segment(n, n), z = s.segment(2 * n, n);
    if (three) {
      d.segment(0, n) = kSigma * (y - x);
      d.segment(n, n) = x * (*rho - z) - y;
      d.segment(2 * n, n) = x * y - kBeta * z;
    } else {
      et::assign_all(d.segment(0, n), kSigma * (y - x), d.segment(n, n), x * (*rho - z) - y,
                     d.segment(2 * n, n), x * y - kBeta * z);
    }
  }
};

// The derivative of the (3, N) state as its three rows, joined by `cat`: odeint's whole step
// is one graph, and one kernel (docs/fusion.md rule 7: a short cat fuses).
struct LorenzTensor {
  cgrad::Tensor rho;  // (1, N)
  void operator()(const cgrad::Tensor& s, cgrad::Tensor& d, double) const {
    const cgrad::Tensor x = s.slice(0, 0, 1), y = s.slice(0, 1, 2), z = s.slice(0, 2, 3);
    d = cgrad::cat({kSigma * (y - x), x * (rho - z) - y, x * y - kBeta * z}, 0);
  }
};

// The same derivative as one element-wise expression, each row picked by `where` on the row
// index (the form used before cat fused; the `odeint_where` row).
struct LorenzTensorWhere {
  cgrad::Tensor rho;  // (1, N)
  cgrad::Tensor row = cgrad::arange(3, cgrad::i64).reshape({3, 1}).eval();
  void operator()(const cgrad::Tensor& s, cgrad::Tensor& d, double) const {
    const cgrad::Tensor x = s.slice(0, 0, 1), y = s.slice(0, 1, 2), z = s.slice(0, 2, 3);
    d = cgrad::where(row == 0, kSigma * (y - x),
                     cgrad::where(row == 1, x * (rho - z) - y, x * y - kBeta * z));
  }
};

// ---------------------------------------------------------------- timing
struct Opts {
  long n = bench::LZ_N;
  int steps = 100;
  int reps = 5;
};

// One warm-up step (on the state, which is then reset), then `reps` samples of `steps` steps;
// `first` is called after the first sample (the state then is `steps` steps from s0).
bench::Stat time_steps(const Opts& o, const std::function<void()>& reset, const std::function<void()>& step,
                       const std::function<void()>& first) {
  reset();
  step();
  reset();
  std::vector<double> v;
  for (int r = 0; r < o.reps; ++r) {
    const double t0 = now_s();
    for (int k = 0; k < o.steps; ++k) step();
    v.push_back((now_s() - t0) / o.steps);
    if (r == 0) first();
  }
  return bench::stat_of(std::move(v));
}

double max_diff(const double* a, const std::vector<double>& ref) {
  double m = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) m = std::max(m, std::fabs(a[i] - ref[i]));
  return m;
}

void row(const std::string& impl, const std::string& variant, const Opts& o, int threads,
         const bench::Stat& s, double kernels, double check, const std::string& note = "") {
  bench::report(impl, variant, "ODE", "f64", 3 * o.n, threads, s, 2.0 * 3 * o.n * sizeof(double), kernels,
                check, note);
}

void run(const Opts& o) {
  const long N = o.n, n3 = 3 * N;
  const std::vector<double> s0 = [&] {
    std::vector<double> s(static_cast<std::size_t>(n3));
    bench::fill_uniform(s.data(), N, 5, -10, 10);
    bench::fill_uniform(s.data() + N, N, 6, -10, 10);
    bench::fill_uniform(s.data() + 2 * N, N, 7, 10, 40);
    return s;
  }();
  const std::vector<double> rho = rhos(N);
  const auto bytes = sizeof(double) * static_cast<std::size_t>(n3);

  // odeint on std::vector: the reference state after `steps` steps
  std::vector<double> ref;
  {
    std::vector<double> x;
    ode::runge_kutta4<std::vector<double>> st;
    const LorenzStd sys{N, &rho};
    omp_set_num_threads(1);
    auto s = time_steps(
        o, [&] { x = s0; }, [&] { st.do_step(sys, x, 0.0, kDt); }, [&] { ref = x; });
    row("odeint", "std_range", o, 1, s, -1, 0.0);
  }

  Buf<double> h(n3), ws(5 * n3), r(N, rho);
  for (int thr : {1, 2}) {
    omp_set_num_threads(thr);
    double d = 0;
    auto sf = time_steps(
        o, [&] { std::memcpy(h.p, s0.data(), bytes); },
        [&] {
          fused_step(h.p, r.p, N);
          bench::clobber();
        },
        [&] { d = max_diff(h.p, ref); });
    row("hand", "fused", o, thr, sf, -1, d);
    auto ss = time_steps(
        o, [&] { std::memcpy(h.p, s0.data(), bytes); },
        [&] {
          staged_step(h.p, ws.p, r.p, N);
          bench::clobber();
        },
        [&] { d = max_diff(h.p, ref); });
    row("hand", "staged", o, thr, ss, -1, d);
  }

  {
    const et::Vector<double> erho(rho);
    for (bool three : {false, true}) {
      const LorenzEt sys{static_cast<std::size_t>(N), &erho, three};
      for (int thr : {1, 2}) {
        omp_set_num_threads(thr);
        et::Vector<double> x;
        ode::runge_kutta4<et::Vector<double>> st;
        double d = 0;
        auto s = time_steps(
            o, [&] { x = et::Vector<double>(s0); }, [&] { st.do_step(sys, x, 0.0, kDt); },
            [&] { d = max_diff(x.data(), ref); });
        row("et", three ? "odeint_rhs3loops" : "odeint", o, thr, s, -1, d);
      }
    }
  }

  auto tensor_rows = [&](const auto& sys, const char* variant) {
    cgrad::Tensor x;
    ode::runge_kutta4<cgrad::Tensor> st;
    double d = 0;
    cgrad::Stats s_before{};
    auto s = time_steps(
        o,
        [&] {
          x = cgrad::tensor(s0, {3, N}).eval();
        },
        [&] {
          st.do_step(sys, x, 0.0, kDt);
          x.eval();
        },
        [&] {
          d = max_diff(x.to_vector<double>().data(), ref);
          s_before = cgrad::stats();
        });
    const auto s_after = cgrad::stats();
    const double steps = static_cast<double>(o.steps) * (o.reps - 1);
    const double k =
        steps > 0 ? static_cast<double>(s_after.kernels_launched - s_before.kernels_launched) / steps : -1;
    const double plans =
        steps > 0 ? static_cast<double>(s_after.plans_built - s_before.plans_built) / steps : -1;
    const int thr = bench::env_int("CGRAD_NUM_THREADS", 0) > 0
                        ? bench::env_int("CGRAD_NUM_THREADS", 0)
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    row("cgrad", variant, o, thr, s, k, d, "plans_built per step " + std::to_string(plans));
  };
  const cgrad::Tensor rho_t = cgrad::tensor(rho, {1, N}).eval();
  tensor_rows(LorenzTensor{rho_t}, "odeint");
  tensor_rows(LorenzTensorWhere{rho_t}, "odeint_where");
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--proc" && v)
      bench::proc_name() = argv[++i];
    else if (a == "--n" && v)
      o.n = std::atol(argv[++i]);
    else if (a == "--steps" && v)
      o.steps = std::atoi(argv[++i]);
    else if (a == "--reps" && v)
      o.reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--proc NAME] [--n N] [--steps S] [--reps R]\n", argv[0]);
      return 2;
    }
  }
  if (o.n < 1 || o.steps < 1 || o.reps < 1) {
    std::fprintf(stderr, "bench_odeint: --n, --steps and --reps must be positive\n");
    return 2;
  }
  bench::csv_header();
  std::printf("# ODE: Lorenz ensemble, %ld systems, rk4, %d steps per sample, %d samples\n", o.n, o.steps,
              o.reps);
  try {
    run(o);
  } catch (const std::exception& e) {
    std::printf("# error: %s\n", e.what());
    return 1;
  }
  return 0;
}
