// Boost.Odeint with cgrad::et::Vector states (vector_space_algebra): every supported stepper
// agrees with odeint on std::vector<double> (range_algebra) to rounding, the measured
// convergence orders of rk4, dopri5 and rkf78 match their nominal orders, and each algebra
// operation of a stepper is one fused loop.
#include <cgrad/odeint.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <type_traits>
#include <vector>

namespace et = cgrad::et;
namespace ode = boost::numeric::odeint;

namespace {

using EtState = et::Vector<double>;
using StdState = std::vector<double>;

static_assert(std::is_same_v<ode::algebra_dispatcher<EtState>::algebra_type, ode::vector_space_algebra>,
              "odeint picks vector_space_algebra for et::Vector by default");
static_assert(ode::is_resizeable<EtState>::value);

constexpr std::size_t kM = 16;  // pendulums; the state is [theta (kM), omega (kM)]
constexpr double kDamping = 0.1;

std::vector<double> gravities() {
  std::vector<double> g(kM);
  for (std::size_t i = 0; i < kM; ++i) g[i] = 1.0 + 0.5 * static_cast<double>(i) / kM;
  return g;
}
std::vector<double> initial_state() {
  std::vector<double> x(2 * kM);
  for (std::size_t i = 0; i < kM; ++i) {
    x[i] = 0.2 + 2.5 * static_cast<double>(i) / kM;  // up to large, nonlinear amplitudes
    x[kM + i] = 0.1 * std::cos(static_cast<double>(i));
  }
  return x;
}

// Damped pendulums theta'' = -k theta' - g sin(theta), written once per state type with the same
// floating-point operations in the same order.
struct PendulumStd {
  std::vector<double> g = gravities();
  void operator()(const StdState& x, StdState& dxdt, double) const {
    for (std::size_t i = 0; i < kM; ++i) {
      dxdt[i] = x[kM + i];
      dxdt[kM + i] = -kDamping * x[kM + i] - g[i] * std::sin(x[i]);
    }
  }
};
struct PendulumEt {
  EtState g{gravities()};
  int* calls = nullptr;
  void operator()(const EtState& x, EtState& dxdt, double) const {
    if (calls) ++*calls;
    dxdt.segment(0, kM) = x.segment(kM, kM);
    dxdt.segment(kM, kM) = -kDamping * x.segment(kM, kM) - g * et::sin(x.segment(0, kM));
  }
};

void expect_same(const EtState& got, const StdState& want, const char* what, double rel = 1e-12) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_NEAR(got[i], want[i], rel * (1.0 + std::fabs(want[i]))) << what << " component " << i;
}

// Runs the same integration on both state types and compares final states (and step counts).
template <class RunStd, class RunEt>
void compare(const char* what, RunStd run_std, RunEt run_et, bool same_steps = true) {
  StdState xs = initial_state();
  EtState xe{initial_state()};
  const std::size_t ns = run_std(xs);
  const std::size_t ne = run_et(xe);
  if (same_steps) {
    EXPECT_EQ(ns, ne) << what;
  }
  expect_same(xe, xs, what);
  EXPECT_GT(std::fabs(xe[0] - initial_state()[0]), 1e-3) << what << ": the state did not evolve";
}

TEST(OdeintEt, RungeKutta4) {
  compare(
      "rk4",
      [](StdState& x) {
        return ode::integrate_const(ode::runge_kutta4<StdState>(), PendulumStd{}, x, 0.0, 5.0, 0.01);
      },
      [](EtState& x) {
        return ode::integrate_const(ode::runge_kutta4<EtState>(), PendulumEt{}, x, 0.0, 5.0, 0.01);
      });
}

TEST(OdeintEt, Dopri5Controlled) {
  compare(
      "controlled dopri5",
      [](StdState& x) {
        return ode::integrate_adaptive(
            ode::make_controlled(1e-10, 1e-10, ode::runge_kutta_dopri5<StdState>()), PendulumStd{}, x, 0.0,
            5.0, 0.01);
      },
      [](EtState& x) {
        return ode::integrate_adaptive(ode::make_controlled(1e-10, 1e-10, ode::runge_kutta_dopri5<EtState>()),
                                       PendulumEt{}, x, 0.0, 5.0, 0.01);
      });
}

TEST(OdeintEt, Dopri5DenseOutput) {
  std::vector<StdState> seen_std;
  std::vector<EtState> seen_et;
  compare(
      "dense dopri5",
      [&](StdState& x) {
        return ode::integrate_const(ode::make_dense_output(1e-9, 1e-9, ode::runge_kutta_dopri5<StdState>()),
                                    PendulumStd{}, x, 0.0, 5.0, 0.25,
                                    [&](const StdState& s, double) { seen_std.push_back(s); });
      },
      [&](EtState& x) {
        return ode::integrate_const(ode::make_dense_output(1e-9, 1e-9, ode::runge_kutta_dopri5<EtState>()),
                                    PendulumEt{}, x, 0.0, 5.0, 0.25,
                                    [&](const EtState& s, double) { seen_et.push_back(s); });
      });
  ASSERT_EQ(seen_std.size(), seen_et.size());
  ASSERT_EQ(seen_std.size(), 21u);
  for (std::size_t k = 0; k < seen_std.size(); ++k)
    expect_same(seen_et[k], seen_std[k], "dense output observation");
}

TEST(OdeintEt, RungeKuttaFehlberg78) {
  compare(
      "rkf78",
      [](StdState& x) {
        return ode::integrate_const(ode::runge_kutta_fehlberg78<StdState>(), PendulumStd{}, x, 0.0, 5.0,
                                    0.05);
      },
      [](EtState& x) {
        return ode::integrate_const(ode::runge_kutta_fehlberg78<EtState>(), PendulumEt{}, x, 0.0, 5.0, 0.05);
      });
  compare(
      "controlled rkf78",
      [](StdState& x) {
        return ode::integrate_adaptive(
            ode::make_controlled(1e-10, 1e-10, ode::runge_kutta_fehlberg78<StdState>()), PendulumStd{}, x,
            0.0, 5.0, 0.05);
      },
      [](EtState& x) {
        return ode::integrate_adaptive(
            ode::make_controlled(1e-10, 1e-10, ode::runge_kutta_fehlberg78<EtState>()), PendulumEt{}, x, 0.0,
            5.0, 0.05);
      });
}

TEST(OdeintEt, ModifiedMidpoint) {
  compare(
      "modified midpoint",
      [](StdState& x) {
        ode::modified_midpoint<StdState> st;
        st.set_steps(6);
        return ode::integrate_const(st, PendulumStd{}, x, 0.0, 5.0, 0.02);
      },
      [](EtState& x) {
        ode::modified_midpoint<EtState> st;
        st.set_steps(6);
        return ode::integrate_const(st, PendulumEt{}, x, 0.0, 5.0, 0.02);
      });
}

TEST(OdeintEt, BulirschStoer) {
  compare(
      "bulirsch-stoer",
      [](StdState& x) {
        return ode::integrate_adaptive(ode::bulirsch_stoer<StdState>(1e-10, 1e-10), PendulumStd{}, x, 0.0,
                                       5.0, 0.1);
      },
      [](EtState& x) {
        return ode::integrate_adaptive(ode::bulirsch_stoer<EtState>(1e-10, 1e-10), PendulumEt{}, x, 0.0, 5.0,
                                       0.1);
      });
}

TEST(OdeintEt, AdamsBashforth) {
  compare(
      "adams-bashforth 5",
      [](StdState& x) {
        return ode::integrate_n_steps(ode::adams_bashforth<5, StdState>(), PendulumStd{}, x, 0.0, 0.01, 500);
      },
      [](EtState& x) {
        return ode::integrate_n_steps(ode::adams_bashforth<5, EtState>(), PendulumEt{}, x, 0.0, 0.01, 500);
      });
}

TEST(OdeintEt, AdamsBashforthMoulton) {
  compare(
      "adams-bashforth-moulton 5",
      [](StdState& x) {
        return ode::integrate_n_steps(ode::adams_bashforth_moulton<5, StdState>(), PendulumStd{}, x, 0.0,
                                      0.01, 500);
      },
      [](EtState& x) {
        return ode::integrate_n_steps(ode::adams_bashforth_moulton<5, EtState>(), PendulumEt{}, x, 0.0, 0.01,
                                      500);
      });
}

TEST(OdeintEt, PlainIntegrateUsesValueType) {
  compare(
      "integrate()", [](StdState& x) { return ode::integrate(PendulumStd{}, x, 0.0, 2.0, 0.01); },
      [](EtState& x) { return ode::integrate(PendulumEt{}, x, 0.0, 2.0, 0.01); });
}

TEST(OdeintEt, FloatState) {
  using F = et::Vector<float>;
  const std::vector<double> g = gravities();
  auto sys = [gf = F(et::cast<float>(EtState(g)))](const F& x, F& dxdt, double) {
    dxdt.segment(0, kM) = x.segment(kM, kM);
    dxdt.segment(kM, kM) = -kDamping * x.segment(kM, kM) - gf * et::sin(x.segment(0, kM));
  };
  const std::vector<double> x0 = initial_state();
  F xf(kM * 2);
  for (std::size_t i = 0; i < x0.size(); ++i) xf[i] = static_cast<float>(x0[i]);
  ode::integrate_const(ode::runge_kutta4<F>(), sys, xf, 0.0, 2.0, 0.01);
  StdState xs = x0;
  ode::integrate_const(ode::runge_kutta4<StdState>(), PendulumStd{}, xs, 0.0, 2.0, 0.01);
  for (std::size_t i = 0; i < xs.size(); ++i) EXPECT_NEAR(xf[i], xs[i], 1e-4) << i;
}

TEST(OdeintEt, EachAlgebraOperationIsOneLoop) {
  // rk4 step: 4 right-hand sides (2 segment loops each), 3 stage states and 1 final update.
  EtState x{initial_state()};
  ode::runge_kutta4<EtState> st;
  int calls = 0;
  const PendulumEt sys{EtState{gravities()}, &calls};
  st.do_step(sys, x, 0.0, 0.01);  // first step sizes odeint's temporaries
  et::reset_stats();
  calls = 0;
  st.do_step(sys, x, 0.01, 0.01);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(et::stats().loops - 2u * static_cast<unsigned>(calls), 4u);
  EXPECT_EQ(et::stats().reductions, 0u);

  // A controlled dopri5 step adds the error estimate (one loop) and its norm (one reduction).
  auto ctl = ode::make_controlled(1e-8, 1e-8, ode::runge_kutta_dopri5<EtState>());
  double t = 0, dt = 1e-4;
  ctl.try_step(sys, x, t, dt);
  et::reset_stats();
  calls = 0;
  while (ctl.try_step(sys, x, t, dt) != ode::success) {
  }
  EXPECT_EQ(et::stats().reductions, 1u);
}

// ---- convergence order: harmonic oscillators x'' = -w^2 x, exact solution known ----

constexpr std::size_t kOsc = 4;
struct Oscillators {
  EtState w2;
  Oscillators() : w2(kOsc) {
    for (std::size_t i = 0; i < kOsc; ++i) w2[i] = std::pow(0.5 + 0.25 * static_cast<double>(i), 2);
  }
  void operator()(const EtState& x, EtState& dxdt, double) const {
    dxdt.segment(0, kOsc) = x.segment(kOsc, kOsc);
    dxdt.segment(kOsc, kOsc) = -w2 * x.segment(0, kOsc);
  }
};

template <class Stepper>
double error_at(double t_end, std::size_t steps) {
  Oscillators sys;
  EtState x(2 * kOsc);
  for (std::size_t i = 0; i < kOsc; ++i) x[i] = 1.0;  // x = cos(w t), v = -w sin(w t)
  Stepper st;
  const double dt = t_end / static_cast<double>(steps);
  double t = 0;
  for (std::size_t k = 0; k < steps; ++k, t += dt) st.do_step(sys, x, t, dt);
  double err = 0;
  for (std::size_t i = 0; i < kOsc; ++i) {
    const double w = std::sqrt(sys.w2[i]);
    err = std::max(err, std::fabs(x[i] - std::cos(w * t_end)));
    err = std::max(err, std::fabs(x[kOsc + i] + w * std::sin(w * t_end)));
  }
  return err;
}

template <class Stepper>
double measured_order(double t_end, std::size_t steps) {
  return std::log2(error_at<Stepper>(t_end, steps) / error_at<Stepper>(t_end, 2 * steps));
}

TEST(OdeintEt, ConvergenceOrders) {
  // Step counts chosen in the asymptotic range, above rounding (rkf78 error at 80 steps: ~2e-12).
  const double rk4 = measured_order<ode::runge_kutta4<EtState>>(10.0, 80);
  const double dopri5 = measured_order<ode::runge_kutta_dopri5<EtState>>(10.0, 80);
  const double rkf78 = measured_order<ode::runge_kutta_fehlberg78<EtState>>(10.0, 40);
  EXPECT_NEAR(rk4, 4.0, 0.3);
  EXPECT_NEAR(dopri5, 5.0, 0.3);
  EXPECT_NEAR(rkf78, 8.0, 0.3);
  RecordProperty("order_rk4", std::to_string(rk4));
  RecordProperty("order_dopri5", std::to_string(dopri5));
  RecordProperty("order_rkf78", std::to_string(rkf78));
  std::printf("measured orders: rk4 %.3f, dopri5 %.3f, rkf78 %.3f\n", rk4, dopri5, rkf78);
}

}  // namespace
