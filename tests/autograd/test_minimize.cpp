// minimize_tn and minimize_lbfgs (and minimize_cg beside them): quadratics whose minimizer the
// test solves itself, Rosenbrock in several dimensions, the phi^4 field of
// examples/field_minimize reaching the same minimum with all three methods, plan replay across
// iterations, and bad arguments.
#include "gradcheck.h"

#include <cgrad/optim.hpp>

namespace cgrad {
namespace {

using Energy = std::function<Tensor(const Tensor&)>;
std::vector<double> vec(const Tensor& t) { return t.to_vector<double>(); }

// A symmetric positive definite n x n matrix (B^T B + n I, row-major) and its solve by
// Gaussian elimination: the oracle of the quadratic tests.
std::vector<double> spd(int n, unsigned seed) {
  std::vector<double> b = test::random_values(static_cast<std::size_t>(n * n), -1, 1, seed),
                      a(static_cast<std::size_t>(n * n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = i == j ? n : 0;
      for (int k = 0; k < n; ++k)
        s += b[static_cast<std::size_t>(k * n + i)] * b[static_cast<std::size_t>(k * n + j)];
      a[static_cast<std::size_t>(i * n + j)] = s;
    }
  return a;
}
std::vector<double> solve(std::vector<double> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c)
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  std::vector<double> x(n);
  for (std::size_t r = n; r-- > 0;) {
    double s = b[r];
    for (std::size_t k = r + 1; k < n; ++k) s -= a[r * n + k] * x[k];
    x[r] = s / a[r * n + r];
  }
  return x;
}

TEST(Minimize, QuadraticsReachTheSolvedMinimizer) {
  constexpr int n = 8;
  std::vector<double> a = spd(n, 3), b = test::random_values(n, -2, 2, 4);
  const std::vector<double> want = solve(a, b);
  Tensor at = tensor(a, {n, n}), bt = tensor(b, {n, 1});
  Energy e = [&](const Tensor& x) { return sum(0.5 * x * matmul(at, x) - bt * x); };
  {
    // Truncated Newton: exact in at most n Newton steps (each inner CG is exact after n products).
    Tensor x = zeros({n, 1}, f64);
    optim::CGResult r =
        optim::minimize_tn(e, x, {.gradient_tolerance = 1e-10, .relative_energy_tolerance = 0});
    EXPECT_TRUE(r.converged) << optim::stop_reason_name(r.reason);
    EXPECT_LE(r.iterations, n);
    EXPECT_GT(r.hessian_vector_products, 0);
    std::vector<double> got = vec(x);
    for (int i = 0; i < n; ++i)
      EXPECT_NEAR(got[static_cast<std::size_t>(i)], want[static_cast<std::size_t>(i)], 1e-9);
  }
  {
    Tensor x = zeros({n, 1}, f64);
    optim::CGResult r =
        optim::minimize_lbfgs(e, x, {.gradient_tolerance = 1e-10, .relative_energy_tolerance = 0});
    EXPECT_TRUE(r.converged) << optim::stop_reason_name(r.reason);
    EXPECT_EQ(r.energy_evaluations, r.gradient_evaluations);
    EXPECT_EQ(r.hessian_vector_products, 0);
    std::vector<double> got = vec(x);
    for (int i = 0; i < n; ++i)
      EXPECT_NEAR(got[static_cast<std::size_t>(i)], want[static_cast<std::size_t>(i)], 1e-9);
  }
}

Tensor rosenbrock(const Tensor& v) {
  const int64_t n = v.shape()[0];
  Tensor p = v.slice(0, 0, n - 1), q = v.slice(0, 1, n);
  return sum(100.0 * (q - p * p) * (q - p * p) + (1.0 - p) * (1.0 - p));
}

TEST(Minimize, RosenbrockInSeveralDimensions) {
  for (int n : {2, 5, 10}) {
    std::vector<double> start(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) start[static_cast<std::size_t>(i)] = i % 2 == 0 ? -1.2 : 1.0;
    Tensor x = tensor(start, {n});
    optim::CGResult r =
        optim::minimize_tn(rosenbrock, x, {.gradient_tolerance = 1e-8, .relative_energy_tolerance = 0});
    EXPECT_TRUE(r.converged) << "TN n=" << n << " " << optim::stop_reason_name(r.reason);
    EXPECT_LT(r.iterations, 200) << "TN n=" << n;
    for (double v : vec(x)) EXPECT_NEAR(v, 1, 1e-6) << "TN n=" << n;
    Tensor y = tensor(start, {n});
    r = optim::minimize_lbfgs(rosenbrock, y, {.gradient_tolerance = 1e-8, .relative_energy_tolerance = 0});
    EXPECT_TRUE(r.converged) << "L-BFGS n=" << n << " " << optim::stop_reason_name(r.reason);
    EXPECT_LT(r.iterations, 300) << "L-BFGS n=" << n;
    for (double v : vec(y)) EXPECT_NEAR(v, 1, 1e-6) << "L-BFGS n=" << n;
  }
}

// examples/field_minimize's Ginzburg-Landau energy on a small grid.
Energy field_energy(int64_t n) {
  return [n](const Tensor& phi) {
    Tensor dx = phi.slice(0, 1, n) - phi.slice(0, 0, n - 1);
    Tensor dy = phi.slice(1, 1, n) - phi.slice(1, 0, n - 1);
    Tensor w = phi * phi - 1.0;
    return 0.5 * (sum(dx * dx) + sum(dy * dy)) + 0.25 * sum(w * w) - 0.01 * sum(phi);
  };
}

TEST(Minimize, Phi4FieldSameMinimumWithAllThreeMethods) {
  // From a positive start the minimizer is the uniform phi* > 1 with phi*^3 - phi* = 0.01.
  constexpr int64_t n = 24;
  double phi_star = 1;
  for (int i = 0; i < 50; ++i)
    phi_star -= (phi_star * phi_star * phi_star - phi_star - 0.01) / (3 * phi_star * phi_star - 1);
  manual_seed(11);
  const Tensor start = (rand({n, n}, f64) * 0.8 + 0.1).eval();
  Energy e = field_energy(n);
  Tensor a = (start * 1.0).eval(), b = (start * 1.0).eval(), c = (start * 1.0).eval();
  // (1e-7 is about the resolution of the energy's f64 sum here: a smaller gradient changes E
  // by less than its rounding, and the line searches stop on "energy".)
  optim::CGResult rc = optim::minimize_cg(e, a, {.gradient_tolerance = 1e-7, .relative_energy_tolerance = 0});
  optim::CGResult rt = optim::minimize_tn(e, b, {.gradient_tolerance = 1e-7, .relative_energy_tolerance = 0});
  optim::CGResult rl =
      optim::minimize_lbfgs(e, c, {.gradient_tolerance = 1e-7, .relative_energy_tolerance = 0});
  for (const auto* r : {&rc, &rt, &rl}) {
    EXPECT_TRUE(r->converged);
    EXPECT_EQ(r->reason, optim::StopReason::gradient);
    EXPECT_LT(r->gradient_inf_norm, 1e-7);
  }
  EXPECT_NEAR(rt.energy, rc.energy, 1e-10);
  EXPECT_NEAR(rl.energy, rc.energy, 1e-10);
  for (const Tensor* t : {&a, &b, &c})
    for (double v : vec(*t)) EXPECT_NEAR(v, phi_star, 1e-7);
  // Newton converges in few outer iterations; L-BFGS in fewer than CG's.
  EXPECT_LT(rt.iterations, 20);
  EXPECT_LT(rl.iterations, rc.iterations + 5);
}

TEST(Minimize, IterationsReplayPlansAfterTheFirstTwo) {
  // A run of 2 iterations builds every plan a longer run from another start needs: the later
  // iterations (trials, inner CG steps, two-loop recursions) only replay.
  constexpr int64_t n = 16;
  Energy e = field_energy(n);
  manual_seed(2);
  Tensor s1 = (rand({n, n}, f64) * 2.0 - 1.0).eval(), s2 = (rand({n, n}, f64) * 2.0 - 1.0).eval();
  for (int method = 0; method < 2; ++method) {
    auto run = [&](Tensor& x, int iters) {
      return method == 0
                 ? optim::minimize_tn(e, x, {.max_iterations = iters, .relative_energy_tolerance = 0})
                 : optim::minimize_lbfgs(e, x, {.max_iterations = iters, .relative_energy_tolerance = 0});
    };
    Tensor x1 = (s1 * 1.0).eval(), x2 = (s2 * 1.0).eval();
    optim::CGResult r1 = run(x1, 2);
    EXPECT_EQ(r1.iterations, 2);
    reset_stats();
    optim::CGResult r2 = run(x2, 40);
    Stats st = stats();
    EXPECT_GT(r2.iterations, 5) << method;
    EXPECT_EQ(st.plans_built, 0u) << (method == 0 ? "TN" : "L-BFGS")
                                  << ": a plan was built after 2 iterations";
    EXPECT_EQ(st.kernels_compiled, 0u);
    EXPECT_GT(st.plan_cache_hits, 0u);
  }
}

TEST(Minimize, HessianVectorProductIsOneReplayedPlan) {
  // The product minimize_tn uses, grad(grad(E).v) with create_graph, as a compiled function:
  // checked against the Hessian of the field energy written here, then replayed (no plan
  // built, no kernel compiled) with about as many kernels as one gradient.
  constexpr int64_t n = 12;
  Energy e = field_energy(n);
  auto gradient = compile([&](const Tensor& x) { return grad(e(x), {x}, false)[0]; });
  auto hvp = compile([&](const Tensor& x, const Tensor& v) {
    Tensor g = grad(e(x), {x}, true)[0];
    return grad(sum(g * v), {x}, false)[0];
  });
  manual_seed(9);
  std::vector<Tensor> xs, vs;
  for (int i = 0; i < 3; ++i) {
    xs.push_back((rand({n, n}, f64) * 2.0 - 1.0).eval().requires_grad(true));
    vs.push_back(rand({n, n}, f64).eval());
  }
  gradient(xs[0]);
  hvp(xs[0], vs[0]);
  reset_stats();
  gradient(xs[1]);
  const uint64_t grad_kernels = stats().kernels_launched;
  reset_stats();
  Tensor hv = hvp(xs[1], vs[1]);
  Stats st = stats();
  EXPECT_EQ(st.plans_built, 0u);
  EXPECT_EQ(st.traces, 0u);
  EXPECT_GT(st.kernels_launched, 0u);
  EXPECT_LE(st.kernels_launched, 2 * grad_kernels) << "HVP kernels vs gradient kernels " << grad_kernels;
  // Oracle: H v = (3 phi^2 - 1) v + (discrete Laplacian with free ends) v.
  std::vector<double> x = vec(xs[1]), v = vec(vs[1]), got = vec(hv);
  auto at = [&](const std::vector<double>& a, int64_t i, int64_t j) {
    return a[static_cast<std::size_t>(i * n + j)];
  };
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double want = (3 * at(x, i, j) * at(x, i, j) - 1) * at(v, i, j);
      if (i > 0) want += at(v, i, j) - at(v, i - 1, j);
      if (i < n - 1) want += at(v, i, j) - at(v, i + 1, j);
      if (j > 0) want += at(v, i, j) - at(v, i, j - 1);
      if (j < n - 1) want += at(v, i, j) - at(v, i, j + 1);
      EXPECT_NEAR(at(got, i, j), want, 1e-12);
    }
}

TEST(Minimize, BadArgumentsThrowAndLeaveXIntact) {
  Tensor x = tensor(std::vector<double>{1, 2}, {2});
  Energy e = [](const Tensor& v) { return sum(v * v); };
  auto intact = [&] { EXPECT_EQ(vec(x), (std::vector<double>{1, 2})); };
  EXPECT_THROW(optim::minimize_tn(e, x, {.max_iterations = -1}), Error);
  EXPECT_THROW(optim::minimize_tn(e, x, {.max_inner_iterations = 0}), Error);
  EXPECT_THROW(optim::minimize_tn(e, x, {.max_relative_step = -1}), Error);
  EXPECT_THROW(optim::minimize_tn(e, x, {.armijo = 0.95, .wolfe = 0.9}), Error);
  EXPECT_THROW(optim::minimize_lbfgs(e, x, {.memory = 0}), Error);
  EXPECT_THROW(optim::minimize_lbfgs(e, x, {.gradient_tolerance = -1}), Error);
  EXPECT_THROW(optim::minimize_lbfgs(nullptr, x), Error);
  // An energy with more than one element is rejected when it is first evaluated.
  EXPECT_THROW(optim::minimize_lbfgs([](const Tensor& v) { return v * v; }, x), Error);
  EXPECT_THROW(optim::minimize_tn([](const Tensor& v) { return v * v; }, x), Error);
  intact();
  Tensor i = tensor(std::vector<int32_t>{1}, {1});
  EXPECT_THROW(optim::minimize_tn(e, i), Error);
  Tensor undefined;
  EXPECT_THROW(optim::minimize_lbfgs(e, undefined), Error);
  // max_iterations = 0 evaluates the start and changes nothing.
  optim::CGResult r = optim::minimize_lbfgs(e, x, {.max_iterations = 0});
  EXPECT_EQ(r.reason, optim::StopReason::max_iterations);
  EXPECT_DOUBLE_EQ(r.energy, 5);
  intact();
}

}  // namespace
}  // namespace cgrad
