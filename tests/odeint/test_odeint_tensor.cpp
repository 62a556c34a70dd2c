// Boost.Odeint with cgrad::Tensor states (vector_space_algebra): the traits, value semantics of
// odeint's copies, and agreement with odeint on std::vector<double> (range_algebra) for the
// explicit, controlled and dense-output steppers. Sizes are small: the CPU engine may be the
// interpreter. The adaptive runs are short: with a cold JIT cache every new step size is a new
// kernel to compile (scalars are baked into generated kernels).
#include <cgrad/cgrad.hpp>
#include <cgrad/odeint.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <type_traits>
#include <vector>

namespace ode = boost::numeric::odeint;
using cgrad::Tensor;

namespace {

static_assert(std::is_same_v<ode::algebra_dispatcher<Tensor>::algebra_type, ode::vector_space_algebra>,
              "odeint picks vector_space_algebra for cgrad::Tensor by default");
static_assert(ode::is_resizeable<Tensor>::value);

using StdState = std::vector<double>;
constexpr std::size_t kM = 8;  // pendulums; the state is [theta (kM), omega (kM)]
constexpr double kDamping = 0.1;

std::vector<double> gravities() {
  std::vector<double> g(kM);
  for (std::size_t i = 0; i < kM; ++i) g[i] = 1.0 + 0.5 * static_cast<double>(i) / kM;
  return g;
}
std::vector<double> initial_state() {
  std::vector<double> x(2 * kM);
  for (std::size_t i = 0; i < kM; ++i) {
    x[i] = 0.2 + 2.5 * static_cast<double>(i) / kM;
    x[kM + i] = 0.1 * std::cos(static_cast<double>(i));
  }
  return x;
}
Tensor initial_tensor(cgrad::DType dtype = cgrad::f64) {
  return cgrad::tensor(initial_state(), {static_cast<int64_t>(2 * kM)}).cast(dtype).eval();
}

struct PendulumStd {
  std::vector<double> g = gravities();
  void operator()(const StdState& x, StdState& dxdt, double) const {
    for (std::size_t i = 0; i < kM; ++i) {
      dxdt[i] = x[kM + i];
      dxdt[kM + i] = -kDamping * x[kM + i] - g[i] * std::sin(x[i]);
    }
  }
};

// The same system on tensors: slices of the state, one cat for the derivative.
struct PendulumTensor {
  Tensor g;
  explicit PendulumTensor(cgrad::DType dtype = cgrad::f64)
      : g(cgrad::tensor(gravities(), {static_cast<int64_t>(kM)}).cast(dtype)) {}
  void operator()(const Tensor& x, Tensor& dxdt, double) const {
    const auto m = static_cast<int64_t>(kM);
    const Tensor theta = x.slice(0, 0, m);
    const Tensor omega = x.slice(0, m, 2 * m);
    dxdt = cgrad::cat({omega, -kDamping * omega - g * cgrad::sin(theta)}, 0);
  }
};

// Realizes the state after every step so that the lazy graph stays one step deep.
struct EvalObserver {
  std::vector<StdState>* seen = nullptr;
  void operator()(const Tensor& x, double) const {
    x.eval();
    if (seen) seen->push_back(x.to_vector<double>());
  }
};
struct StdObserver {
  std::vector<StdState>* seen = nullptr;
  void operator()(const StdState& x, double) const {
    if (seen) seen->push_back(x);
  }
};

void expect_same(const std::vector<double>& got, const StdState& want, const char* what, double rel = 1e-12) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], rel * (1.0 + std::fabs(want[i]))) << what << " component " << i;
}

template <class RunStd, class RunTensor>
void compare(const char* what, RunStd run_std, RunTensor run_tensor) {
  StdState xs = initial_state();
  Tensor xt = initial_tensor();
  const std::size_t ns = run_std(xs);
  const std::size_t nt = run_tensor(xt);
  EXPECT_EQ(ns, nt) << what;
  expect_same(xt.to_vector<double>(), xs, what);
}

TEST(OdeintTensor, Traits) {
  Tensor undefined;
  const Tensor x = initial_tensor();
  EXPECT_FALSE(ode::same_size(undefined, x));
  ode::resize(undefined, x);
  ASSERT_TRUE(ode::same_size(undefined, x));
  EXPECT_EQ(undefined.dtype(), cgrad::f64);
  EXPECT_EQ(undefined.to_vector<double>(), std::vector<double>(2 * kM, 0.0));
  EXPECT_FALSE(ode::same_size(x.cast(cgrad::f32), x));
  Tensor y;
  ode::copy(x, y);
  expect_same(y.to_vector<double>(), initial_state(), "copy");
  ode::vector_space_norm_inf<Tensor> norm;
  double want = 0;
  for (double v : initial_state()) want = std::max(want, std::fabs(v));
  EXPECT_EQ(norm(x - 1.0 * x - x), want);
}

TEST(OdeintTensor, OdeintCopiesAreValues) {
  Tensor x = initial_tensor();
  const Tensor x0 = x;  // odeint keeps copies like this one (x_old, dense output states)
  ode::runge_kutta4<Tensor> st;
  st.do_step(PendulumTensor{}, x, 0.0, 0.01);
  expect_same(x0.to_vector<double>(), initial_state(), "copy taken before the step");
  EXPECT_NE(x.to_vector<double>(), x0.to_vector<double>());
}

TEST(OdeintTensor, RungeKutta4) {
  compare(
      "rk4",
      [](StdState& x) {
        return ode::integrate_const(ode::runge_kutta4<StdState>(), PendulumStd{}, x, 0.0, 1.0, 0.02);
      },
      [](Tensor& x) {
        return ode::integrate_const(ode::runge_kutta4<Tensor>(), PendulumTensor{}, x, 0.0, 1.0, 0.02,
                                    EvalObserver{});
      });
}

TEST(OdeintTensor, Dopri5Controlled) {
  compare(
      "controlled dopri5",
      [](StdState& x) {
        return ode::integrate_adaptive(ode::make_controlled(1e-6, 1e-6, ode::runge_kutta_dopri5<StdState>()),
                                       PendulumStd{}, x, 0.0, 0.5, 0.01);
      },
      [](Tensor& x) {
        return ode::integrate_adaptive(ode::make_controlled(1e-6, 1e-6, ode::runge_kutta_dopri5<Tensor>()),
                                       PendulumTensor{}, x, 0.0, 0.5, 0.01, EvalObserver{});
      });
}

TEST(OdeintTensor, Dopri5DenseOutput) {
  std::vector<StdState> seen_std, seen_tensor;
  compare(
      "dense dopri5",
      [&](StdState& x) {
        return ode::integrate_const(ode::make_dense_output(1e-6, 1e-6, ode::runge_kutta_dopri5<StdState>()),
                                    PendulumStd{}, x, 0.0, 0.5, 0.25, StdObserver{&seen_std});
      },
      [&](Tensor& x) {
        return ode::integrate_const(ode::make_dense_output(1e-6, 1e-6, ode::runge_kutta_dopri5<Tensor>()),
                                    PendulumTensor{}, x, 0.0, 0.5, 0.25, EvalObserver{&seen_tensor});
      });
  ASSERT_EQ(seen_std.size(), seen_tensor.size());
  for (std::size_t k = 0; k < seen_std.size(); ++k)
    expect_same(seen_tensor[k], seen_std[k], "dense output observation");
}

TEST(OdeintTensor, RungeKuttaFehlberg78) {
  compare(
      "rkf78",
      [](StdState& x) {
        return ode::integrate_const(ode::runge_kutta_fehlberg78<StdState>(), PendulumStd{}, x, 0.0, 1.0, 0.1);
      },
      [](Tensor& x) {
        return ode::integrate_const(ode::runge_kutta_fehlberg78<Tensor>(), PendulumTensor{}, x, 0.0, 1.0, 0.1,
                                    EvalObserver{});
      });
}

TEST(OdeintTensor, PlainIntegrateWithExplicitValueType) {
  compare(
      "integrate<double>", [](StdState& x) { return ode::integrate(PendulumStd{}, x, 0.0, 0.2, 0.01); },
      [](Tensor& x) { return ode::integrate<double>(PendulumTensor{}, x, 0.0, 0.2, 0.01, EvalObserver{}); });
}

// Tensor has no value_type member; the adaptor's integrate() overloads supply double, so the
// plain calls compile and run the same controlled dopri5 as on std::vector.
TEST(OdeintTensor, PlainIntegrateWithoutValueType) {
  compare(
      "integrate", [](StdState& x) { return ode::integrate(PendulumStd{}, x, 0.0, 0.2, 0.01); },
      [](Tensor& x) { return ode::integrate(PendulumTensor{}, x, 0.0, 0.2, 0.01, EvalObserver{}); });
  compare(
      "integrate without observer",
      [](StdState& x) { return ode::integrate(PendulumStd{}, x, 0.0, 0.2, 0.01); },
      [](Tensor& x) { return ode::integrate(PendulumTensor{}, x, 0.0, 0.2, 0.01); });
}

TEST(OdeintTensor, IntegrateConstAndAdaptiveWithPlainDopri5) {
  compare(
      "integrate_const dopri5",
      [](StdState& x) {
        return ode::integrate_const(ode::runge_kutta_dopri5<StdState>(), PendulumStd{}, x, 0.0, 0.2, 0.02);
      },
      [](Tensor& x) {
        return ode::integrate_const(ode::runge_kutta_dopri5<Tensor>(), PendulumTensor{}, x, 0.0, 0.2, 0.02,
                                    EvalObserver{});
      });
  compare(
      "integrate_adaptive dopri5 (fixed steps: not controlled)",
      [](StdState& x) {
        return ode::integrate_adaptive(ode::runge_kutta_dopri5<StdState>(), PendulumStd{}, x, 0.0, 0.2, 0.02);
      },
      [](Tensor& x) {
        return ode::integrate_adaptive(ode::runge_kutta_dopri5<Tensor>(), PendulumTensor{}, x, 0.0, 0.2, 0.02,
                                       EvalObserver{});
      });
}

// dopri5 is FSAL: the derivative at the end of a step is built (lazily) from the new state before
// the state is evaluated, and carried into the next step. Every step then has the same graph, so
// after the first steps every evaluation replays a plan.
TEST(OdeintTensor, Dopri5StepsReplayPlans) {
  Tensor x = initial_tensor();
  ode::runge_kutta_dopri5<Tensor> st;
  const PendulumTensor sys;
  double t = 0;
  const double dt = 0.01;
  for (int k = 0; k < 3; ++k, t += dt) {
    st.do_step(sys, x, t, dt);
    x.eval();
  }
  const auto before = cgrad::stats();
  const int steps = 24;  // enough for stale node depths to reach the auto-realize limit (256)
  for (int k = 0; k < steps; ++k, t += dt) {
    st.do_step(sys, x, t, dt);
    x.eval();
  }
  const auto after = cgrad::stats();
  EXPECT_EQ(after.plans_built, before.plans_built) << "a later dopri5 step built a new plan";
  EXPECT_EQ(after.auto_realizes, before.auto_realizes);
  EXPECT_GE(after.plan_cache_hits - before.plan_cache_hits, static_cast<uint64_t>(steps));
  StdState xs = initial_state();
  ode::runge_kutta_dopri5<StdState> ss;
  for (int k = 0; k < 3 + steps; ++k) ss.do_step(PendulumStd{}, xs, dt * k, dt);
  expect_same(x.to_vector<double>(), xs, "dopri5 steps");
}

TEST(OdeintTensor, Float32State) {
  Tensor x = initial_tensor(cgrad::f32);
  ode::integrate_const(ode::runge_kutta4<Tensor>(), PendulumTensor{cgrad::f32}, x, 0.0, 0.5, 0.02,
                       EvalObserver{});
  EXPECT_EQ(x.dtype(), cgrad::f32);
  StdState xs = initial_state();
  ode::integrate_const(ode::runge_kutta4<StdState>(), PendulumStd{}, xs, 0.0, 0.5, 0.02);
  const std::vector<double> got = x.to_vector<double>();
  for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(got[i], xs[i], 1e-4) << i;
}

TEST(OdeintTensor, KernelsPerStep) {
  Tensor x = initial_tensor();
  ode::runge_kutta4<Tensor> st;
  const PendulumTensor sys;
  st.do_step(sys, x, 0.0, 0.01);
  x.eval();
  cgrad::reset_stats();
  st.do_step(sys, x, 0.01, 0.01);
  x.eval();
  const auto kernels = cgrad::stats().kernels_launched;
  EXPECT_GT(kernels, 0u);
  RecordProperty("rk4_kernels_per_step", static_cast<int>(kernels));
  std::printf("rk4 step on a Tensor state: %llu kernels\n", static_cast<unsigned long long>(kernels));
}

}  // namespace
