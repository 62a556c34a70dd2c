// Optimizers against reference formulas written here, their kernel counts and plan replay,
// and the conjugate-gradient minimizer on energies with known minimizers.
#include "gradcheck.h"

#include <cgrad/optim.hpp>

namespace cgrad {
namespace {

std::vector<double> vec(const Tensor& t) { return t.to_vector<double>(); }

// f(p) = sum(c * p^2) has gradient 2 c p: the references below use it.
Tensor quadratic(const Tensor& p, const Tensor& c) { return sum(c * p * p); }

TEST(Optim, SgdWithMomentumMatchesTheFormula) {
  std::vector<double> p{1, -2, 3}, c{0.5, 1, 2}, b(3, 0);
  Tensor pt = tensor(p, {3}).requires_grad(true);
  Tensor ct = tensor(c, {3});
  optim::SGD opt({pt}, 0.1, 0.9);
  for (int step = 0; step < 4; ++step) {
    opt.zero_grad();
    quadratic(pt, ct).backward();
    opt.step();
    for (std::size_t i = 0; i < 3; ++i) {
      b[i] = 0.9 * b[i] + 2 * c[i] * p[i];
      p[i] -= 0.1 * b[i];
    }
    std::vector<double> got = vec(pt);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], p[i], 1e-12) << "step " << step;
  }
}

void check_adam(bool decoupled) {
  const double lr = 0.05, b1 = 0.9, b2 = 0.99, eps = 1e-8, wd = 0.1;
  std::vector<double> p{1, -2, 3}, c{0.5, 1, 2}, m(3, 0), v(3, 0);
  Tensor pt = tensor(p, {3}).requires_grad(true);
  Tensor ct = tensor(c, {3});
  std::unique_ptr<optim::Adam> opt;
  if (decoupled)
    opt = std::make_unique<optim::AdamW>(std::vector<Tensor>{pt}, lr, b1, b2, eps, wd);
  else
    opt = std::make_unique<optim::Adam>(std::vector<Tensor>{pt}, lr, b1, b2, eps, wd);
  for (int t = 1; t <= 5; ++t) {
    opt->zero_grad();
    quadratic(pt, ct).backward();
    opt->step();
    for (std::size_t i = 0; i < 3; ++i) {
      double g = 2 * c[i] * p[i];
      if (decoupled)
        p[i] *= 1 - lr * wd;
      else
        g += wd * p[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      double mh = m[i] / (1 - std::pow(b1, t)), vh = v[i] / (1 - std::pow(b2, t));
      p[i] -= lr * mh / (std::sqrt(vh) + eps);
    }
    std::vector<double> got = vec(pt);
    for (std::size_t i = 0; i < 3; ++i)
      EXPECT_NEAR(got[i], p[i], 1e-9) << (decoupled ? "AdamW" : "Adam") << " step " << t;
  }
}
TEST(Optim, AdamMatchesTheFormula) { check_adam(false); }
TEST(Optim, AdamWMatchesTheFormula) { check_adam(true); }

TEST(Optim, EachParameterUpdateIsOneKernelAndStepsReplayOnePlan) {
  manual_seed(5);
  std::vector<Tensor> params{(randn({64, 32}) * 0.1f).eval(), (randn({32}) * 0.1f).eval(),
                             (randn({32, 4}) * 0.1f).eval()};
  for (Tensor& p : params) p.requires_grad(true);
  Tensor x = randn({16, 64}).eval();
  optim::Adam opt(params, 1e-3);
  auto loss_of = [&] { return mean(matmul(tanh(matmul(x, params[0]) + params[1]), params[2]) * 2.0f); };
  // With the gradients already realized, the update alone is one kernel per parameter
  // (the new parameter and both moments come out of the same kernel).
  for (int round = 0; round < 2; ++round) {
    opt.zero_grad();
    loss_of().backward();
    std::vector<Tensor> grads;
    for (Tensor& p : params) grads.push_back(p.grad());
    eval(grads);
    reset_stats();
    opt.step();
    EXPECT_EQ(stats().kernels_launched, params.size());
  }
  // A whole step (forward, backward, update) is one schedule, replayed after the first.
  uint64_t plans = 0;
  for (int step = 0; step < 5; ++step) {
    opt.zero_grad();
    Tensor loss = loss_of();
    loss.backward();
    if (step == 1) reset_stats();
    opt.step({loss});
    if (step == 1) plans = stats().plans_built;
  }
  Stats s = stats();
  EXPECT_EQ(s.plans_built, plans) << "steps 2-4 must replay";
  EXPECT_GE(s.plan_cache_hits, 3u);
  EXPECT_EQ(s.kernels_compiled, 0u);
}

TEST(Optim, BadArgumentsAreRejected) {
  Tensor p = tensor(std::vector<double>{1}, {1});
  Tensor i = tensor(std::vector<int32_t>{1}, {1});
  EXPECT_THROW(optim::SGD({p}, -1), Error);
  EXPECT_THROW(optim::SGD({i}, 0.1), Error);
  EXPECT_THROW(optim::Adam({p}, 0.1, 1.0), Error);
  EXPECT_THROW(optim::SGD({Tensor()}, 0.1), Error);
  Tensor leaf = tensor(std::vector<float>{1, 2}, {2});
  leaf.requires_grad(true);
  EXPECT_THROW(optim::SGD({leaf * 2.0}, 0.1), Error) << "not a leaf: it would never move";
  // an op that keeps the value returns a value computed from the leaf too, through which the
  // gradient reaches the leaf
  EXPECT_THROW(optim::SGD({leaf.permute({0})}, 0.1), Error);
  EXPECT_THROW(optim::SGD({positive(leaf)}, 0.1), Error);
  sum(positive(leaf) * flip(leaf.reshape({1, 2}), {0}).reshape({2})).backward();
  EXPECT_EQ(leaf.grad().to_vector<float>(), (std::vector<float>{2, 4}));
  EXPECT_THROW(optim::SGD({p, p}, 0.1), Error) << "two steps per step()";
  EXPECT_THROW(optim::SGD({p}, 0.1, 0.0, 0.0, 0.0, true), Error) << "nesterov without momentum";
  EXPECT_THROW(optim::SGD({p}, 0.1, 0.9, 0.5, 0.0, true), Error) << "nesterov with dampening";
  EXPECT_THROW(optim::SGD({p}, 0.1, 0.9, 1.5), Error);
  optim::SGD ok({p}, 0.1);
  EXPECT_THROW(ok.set_lr(-0.5), Error);
  EXPECT_EQ(ok.lr(), 0.1);
  optim::SGD other({p}, 0.1);
  EXPECT_THROW(optim::Optimizer::step_all({&ok, &other}), Error) << "one parameter in two groups";
  ok.step();  // no gradient yet: nothing changes
  EXPECT_EQ(vec(p), (std::vector<double>{1}));
}

TEST(Optim, ConjugateGradientFindsKnownMinimizers) {
  // A badly scaled quadratic: minimizer x = b / a.
  std::vector<double> a{1, 10, 100, 1000}, b{1, -2, 3, -4};
  Tensor at = tensor(a, {4}), bt = tensor(b, {4});
  Tensor x = zeros({4}, f64);
  optim::CGResult r = optim::minimize_cg(
      [&](const Tensor& v) { return sum(0.5 * at * v * v - bt * v); }, x,
      {.max_iterations = 200, .gradient_tolerance = 1e-10, .relative_energy_tolerance = 0});
  EXPECT_TRUE(r.converged);
  std::vector<double> xv = vec(x);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_NEAR(xv[i], b[i] / a[i], 1e-8);
  // Rosenbrock's curved valley, minimizer (1, 1): the Armijo line search without a curvature
  // condition makes CG slow there (docs/optim.md), but it gets close.
  Tensor y = tensor(std::vector<double>{-1.2, 1}, {2});
  r = optim::minimize_cg(
      [](const Tensor& v) {
        Tensor p = v.slice(0, 0, 1), q = v.slice(0, 1, 2);
        return sum(100.0 * (q - p * p) * (q - p * p) + (1.0 - p) * (1.0 - p));
      },
      y, {.max_iterations = 2000, .gradient_tolerance = 1e-8, .relative_energy_tolerance = 0});
  EXPECT_LT(r.energy, 1e-6);
  std::vector<double> yv = vec(y);
  EXPECT_NEAR(yv[0], 1, 1e-3);
  EXPECT_NEAR(yv[1], 1, 2e-3);
}

TEST(Optim, ConjugateGradientOnAPhi4FieldReplaysPlans) {
  // E = sum(0.5 |grad phi|^2 + 0.25 (phi^2 - 1)^2) on a 32x32 grid, from a positive start:
  // the minimizer is phi = 1 everywhere.
  constexpr int64_t n = 32;
  Tensor phi = (rand({n, n}, f64) * 0.5 + 0.2).eval();
  auto energy = [](const Tensor& f) {
    Tensor dx = f.slice(0, 1, n) - f.slice(0, 0, n - 1);
    Tensor dy = f.slice(1, 1, n) - f.slice(1, 0, n - 1);
    Tensor w = f * f - 1.0;
    return 0.5 * sum(dx * dx) + 0.5 * sum(dy * dy) + 0.25 * sum(w * w);
  };
  reset_stats();
  optim::CGResult r = optim::minimize_cg(energy, phi, {.max_iterations = 500, .gradient_tolerance = 1e-8});
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.energy, 1e-12);
  for (double v : vec(phi)) EXPECT_NEAR(v, 1, 1e-6);
  Stats s = stats();
  EXPECT_GT(s.plan_cache_hits, 10 * s.plans_built) << "iterations must replay their plans";
}

// The momentum buffers start dense (not as a stride-0 constant), so the first step of a training
// loop has the graph of every later one: the second step replays the first step's plan instead
// of compiling kernels of its own (docs/jit.md, "First calls"). Values: momentum 0.5, lr 0.1.
TEST(Optim, SecondSgdStepReplaysTheFirst) {
  Tensor w = tensor(std::vector<float>{1, -2, 3}, {3}).requires_grad(true);
  Tensor x = tensor(std::vector<float>{0.5f, 1, 2}, {3});
  optim::SGD opt({w}, 0.1, 0.5);
  auto step = [&] {
    opt.zero_grad();
    Tensor loss = sum(w * x);  // gradient x
    loss.backward();
    opt.step({loss});
  };
  step();
  reset_stats();
  step();
  EXPECT_EQ(stats().plans_built, 0u) << "the second step must replay the first step's plan";
  EXPECT_EQ(stats().kernels_compiled, 0u);
  // v1 = x, w1 = w0 - 0.1 x; v2 = 0.5 x + x = 1.5 x, w2 = w1 - 0.15 x = w0 - 0.25 x.
  auto got = w.to_vector<float>();
  const std::vector<float> w0 = {1, -2, 3}, xs = {0.5f, 1, 2};
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], w0[i] - 0.25f * xs[i], 1e-6f) << i;
}

// torch.optim.SGD's dampening, weight decay and Nesterov momentum against its formulas; the
// learning rate changed at every step (a schedule) replays the same plan.
TEST(Optim, SgdOptionsAndAScheduleMatchTheFormulaWithoutNewPlans) {
  struct Case {
    double momentum, dampening, weight_decay;
    bool nesterov;
  };
  for (const Case& k : {Case{0.9, 0.3, 0, false}, Case{0.5, 0, 0.1, false}, Case{0.9, 0, 0.05, true}}) {
    std::vector<double> p{1, -2, 3}, c{0.5, 1, 2}, b(3, 0);
    Tensor pt = tensor(p, {3}).requires_grad(true);
    Tensor ct = tensor(c, {3});
    optim::SGD opt({pt}, 0.1, k.momentum, k.dampening, k.weight_decay, k.nesterov);
    for (int t = 1; t <= 5; ++t) {
      const double lr = 0.1 / t;
      opt.set_lr(lr);
      opt.zero_grad();
      quadratic(pt, ct).backward();
      if (t == 3) reset_stats();
      opt.step();
      if (t == 3) {
        EXPECT_EQ(stats().plans_built, 0u) << "a new learning rate must not plan again";
      }
      for (std::size_t i = 0; i < 3; ++i) {
        const double g = 2 * c[i] * p[i] + k.weight_decay * p[i];
        b[i] = t == 1 ? g : k.momentum * b[i] + (1 - k.dampening) * g;
        p[i] -= lr * (k.nesterov ? g + k.momentum * b[i] : b[i]);
      }
      std::vector<double> got = vec(pt);
      for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(got[i], p[i], 1e-12) << "step " << t;
    }
  }
}

// PyTorch's parameter groups: two optimizers stepped in one schedule, each with its settings.
TEST(Optim, StepAllUpdatesEveryGroupInOneRealize) {
  Tensor w = tensor(std::vector<double>{1, 2}, {2}).requires_grad(true);
  Tensor v = tensor(std::vector<double>{3}, {1}).requires_grad(true);
  optim::SGD a({w}, 0.1);
  optim::Adam b({v}, 0.5);
  Tensor loss = sum(w * w) + sum(v * v * v);
  loss.backward();
  reset_stats();
  optim::Optimizer::step_all({&a, &b}, {loss});
  EXPECT_EQ(stats().plans_built + stats().plan_cache_hits, 1u) << "one realize";
  EXPECT_EQ(vec(w), (std::vector<double>{0.8, 1.6}));
  EXPECT_NEAR(vec(v)[0], 2.5, 1e-8) << "Adam's first step moves by lr";
}

// A checkpoint: state() after 3 steps, put into a new optimizer over the parameter's value then,
// continues exactly as the first optimizer does (Adam's moments and step count, SGD's buffer
// with its first-step rule); a state of another shape is refused and changes nothing.
TEST(Optim, StateRestoresAnOptimizerMidway) {
  auto run = [](optim::Optimizer& o, Tensor& p, int n) {
    for (int k = 0; k < n; ++k) {
      o.zero_grad();
      sum(p * p * p).backward();
      o.step();
    }
  };
  for (int kind = 0; kind < 2; ++kind) {
    auto make = [&](Tensor p) -> std::unique_ptr<optim::Optimizer> {
      if (kind == 0) return std::make_unique<optim::Adam>(std::vector<Tensor>{p}, 0.05);
      return std::make_unique<optim::SGD>(std::vector<Tensor>{p}, 0.01, 0.9, 0.3);
    };
    Tensor p = tensor(std::vector<double>{1, -2, 0.5}, {3}).requires_grad(true);
    auto a = make(p);
    run(*a, p, 3);
    const auto saved = a->state(0);
    const int64_t steps = a->steps();
    Tensor q = tensor(p.to_vector<double>(), {3}).requires_grad(true);
    run(*a, p, 2);
    auto b = make(q);
    EXPECT_THROW(b->set_state(steps, 0, {{saved[0].first, zeros({2}, f64)}}), Error);
    EXPECT_EQ(b->steps(), 0) << "a refused state changes nothing";
    b->set_state(steps, 0, saved);
    run(*b, q, 2);
    EXPECT_EQ(q.to_vector<double>(), p.to_vector<double>()) << (kind == 0 ? "Adam" : "SGD");
    EXPECT_EQ(b->steps(), 5);
  }
}

}  // namespace
}  // namespace cgrad
