// Autograd semantics: leaves and grad(), fusion of backward graphs (through stats()), the
// simplified cross-entropy backward, higher order, errors, and memory over many steps.
#include "gradcheck.h"

#include "../fusion/oracle.h"

#include <cgrad/optim.hpp>

#include <sstream>

namespace cgrad {
namespace {

std::vector<double> vec(const Tensor& t) { return t.to_vector<double>(); }
Tensor leaf(std::vector<double> v, Shape s) { return tensor(std::move(v), std::move(s)).requires_grad(true); }

TEST(Autograd, BackwardAccumulatesIntoLeaves) {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = sum(x * x);
  y.backward();
  EXPECT_EQ(vec(x.grad()), (std::vector<double>{2, 4, 6}));
  y.backward();  // accumulates, as PyTorch does
  EXPECT_EQ(vec(x.grad()), (std::vector<double>{4, 8, 12}));
  x.clear_grad();
  EXPECT_FALSE(x.grad().defined());
  sum(3.0 * x).backward();
  EXPECT_EQ(vec(x.grad()), (std::vector<double>{3, 3, 3}));
}

TEST(Autograd, GradientsAreLazyAndSurviveEvaluatingTheForward) {
  Tensor x = leaf({0.5, -1.5}, {2});
  Tensor y = sum(exp(x) * sin(x));
  EXPECT_NEAR(y.item<double>(), std::exp(0.5) * std::sin(0.5) + std::exp(-1.5) * std::sin(-1.5), 1e-12);
  Tensor g = grad(y, {x})[0];  // the forward is realized; its record still differentiates
  EXPECT_FALSE(g.is_evaluated());
  std::vector<double> gv = vec(g);
  for (int i = 0; i < 2; ++i) {
    double v = i == 0 ? 0.5 : -1.5;
    EXPECT_NEAR(gv[static_cast<std::size_t>(i)], std::exp(v) * (std::sin(v) + std::cos(v)), 1e-12);
  }
}

TEST(Autograd, BroadcastingReducesGradientsToTheInputShape) {
  Tensor a = leaf({1, 2, 3}, {3, 1});
  Tensor b = leaf({10, 20, 30, 40}, {4});
  Tensor s = leaf({2}, {});
  std::vector<Tensor> g = grad(sum(a * b * s), {a, b, s});
  EXPECT_EQ(g[0].shape(), (Shape{3, 1}));
  EXPECT_EQ(g[1].shape(), (Shape{4}));
  EXPECT_EQ(g[2].shape(), (Shape{}));
  EXPECT_EQ(vec(g[0]), (std::vector<double>{200, 200, 200}));
  EXPECT_EQ(vec(g[1]), (std::vector<double>{12, 12, 12, 12}));
  EXPECT_EQ(vec(g[2]), (std::vector<double>{600}));
}

TEST(Autograd, TiesSplitTheGradientEvenly) {
  Tensor x = leaf({1, 3, 3, 2}, {4});
  EXPECT_EQ(vec(grad(max(x), {x})[0]), (std::vector<double>{0, 0.5, 0.5, 0}));
  Tensor a = leaf({1, 2}, {2}), b = leaf({1, 3}, {2});
  std::vector<Tensor> g = grad(sum(maximum(a, b)), {a, b});
  EXPECT_EQ(vec(g[0]), (std::vector<double>{0.5, 0}));
  EXPECT_EQ(vec(g[1]), (std::vector<double>{0.5, 1}));
  EXPECT_EQ(vec(grad(sum(relu(x - 2.0) + abs(x - 3.0)), {x})[0]), (std::vector<double>{-1, 1, 1, -1}));
}

// At points where the textbook formula overflows or divides 0 by 0 but the derivative is finite
// (or taken as 0 by convention).
TEST(Autograd, DerivativesStayFiniteWhereTheirFormulasWouldNot) {
  // std of constant data: 0 (PyTorch's; as the norms' and hypot's at the origin), not sqrt's inf
  // times the variance's 0
  Tensor c = leaf({2, 2, 2, 1, 1, 3}, {2, 3});
  std::vector<double> g = vec(grad(sum(std(c, {1}) * 3.0), {c})[0]);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(g[i], 0.0) << i;
  const double m = 5.0 / 3, sd = std::sqrt(((1 - m) * (1 - m) * 2 + (3 - m) * (3 - m)) / 3);
  EXPECT_NEAR(g[3], 3 * (1 - m) / (3 * sd), 1e-12);
  EXPECT_NEAR(g[5], 3 * (3 - m) / (3 * sd), 1e-12);
  EXPECT_EQ(vec(std(c, {1})), (std::vector<double>{0, sd}));
  // atan2 where a^2 + b^2 underflows (1e-300) or overflows (1e200): b / (a^2 + b^2) through hypot
  Tensor a = leaf({1e-300, 1e200, 3}, {3}), b = leaf({1e-300, -1e200, 4}, {3});
  std::vector<Tensor> gab = grad(sum(atan2(a, b)), {a, b});
  const std::vector<double> want_a{5e299, -5e-201, 4.0 / 25}, want_b{-5e299, -5e-201, -3.0 / 25};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(vec(gab[0])[i], want_a[i], 1e-14 * std::abs(want_a[i])) << i;
    EXPECT_NEAR(vec(gab[1])[i], want_b[i], 1e-14 * std::abs(want_b[i])) << i;
  }
  // logaddexp with one infinite operand: 1 / (1 + e^(b - a)), not e^(a - out) = e^(inf - inf)
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  Tensor p = leaf({inf, -inf, 2, inf}, {4}), q = leaf({0, 1, 2, inf}, {4});
  std::vector<Tensor> gpq = grad(sum(logaddexp(p, q)), {p, q});
  EXPECT_EQ(vec(gpq[0])[0], 1.0);
  EXPECT_EQ(vec(gpq[1])[0], 0.0);
  EXPECT_EQ(vec(gpq[0])[1], 0.0);
  EXPECT_EQ(vec(gpq[1])[1], 1.0);
  EXPECT_EQ(vec(gpq[0])[2], 0.5);
  EXPECT_TRUE(std::isnan(vec(gpq[0])[3]));  // inf - inf: undefined, as PyTorch's
  // abs: 0 at 0, and a NaN input's gradient stays NaN (it was 0, hiding the NaN)
  Tensor z = leaf({0.0, -0.0, nan, -2}, {4});
  std::vector<double> gz = vec(grad(sum(abs(z)), {z})[0]);
  EXPECT_EQ(gz[0], 0.0);
  EXPECT_EQ(gz[1], 0.0);
  EXPECT_TRUE(std::isnan(gz[2]));
  EXPECT_EQ(gz[3], -1.0);
  // atan2 at the origin and copysign at +-0: 0, the conventions of hypot and abs there
  Tensor o = leaf({0.0, 1}, {2}), o2 = leaf({0.0, 0}, {2});
  std::vector<Tensor> go = grad(sum(atan2(o, o2)), {o, o2});
  EXPECT_EQ(vec(go[0])[0], 0.0);
  EXPECT_EQ(vec(go[1])[0], 0.0);
  EXPECT_EQ(vec(go[1])[1], -1.0);
  Tensor mag = leaf({0.0, -0.0, -3}, {3}), sgn = leaf({-1.0, 1, 2}, {3});
  EXPECT_EQ(vec(grad(sum(copysign(mag, sgn)), {mag})[0]), (std::vector<double>{0, 0, -1}));
}

TEST(Autograd, BackwardOfAnElementwiseChainIsOneKernel) {
  Tensor x = rand({1000}, f32).eval();
  x.requires_grad(true);
  Tensor y = sum(tanh(exp(x) * 0.5 + sin(x) * x) / (1.0f + x * x));
  Tensor g = grad(y, {x})[0];
  reset_stats();
  g.eval();
  EXPECT_EQ(stats().kernels_launched, 1u);
  // and it is right: compare with the interpreter (the oracle)
  std::vector<float> jit = g.to_vector<float>();
  Tensor x2 = x.detach().requires_grad(true);
  Tensor y2 = sum(tanh(exp(x2) * 0.5 + sin(x2) * x2) / (1.0f + x2 * x2));
  std::vector<float> ref =
      test::with_backend("interpreter", [&] { return grad(y2, {x2})[0].to_vector<float>(); });
  for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(jit[i], ref[i], 1e-5f * (1 + std::abs(ref[i])));
}

TEST(Autograd, CrossEntropyBackwardIsTheFusedPMinusYForm) {
  const int64_t N = 64, C = 10;
  Tensor logits = randn({N, C}, f32).eval();
  logits.requires_grad(true);
  std::vector<int64_t> cls(N);
  for (int64_t i = 0; i < N; ++i) cls[static_cast<std::size_t>(i)] = (i * 7) % C;
  Tensor loss = cross_entropy(logits, tensor(cls, {N}));
  loss.eval();
  Tensor g = grad(loss, {logits}, false)[0];  // as backward() builds it (no second order)
  // The backward graph is exp(log_softmax) - onehot, scaled: no comparison mask of the max
  // reduction's rule, no division by a sum of the softmax rule.
  std::ostringstream text;
  print_graph(g, text);
  const std::string t = text.str();
  EXPECT_EQ(t.find("eq("), t.rfind("eq(")) << "one comparison (the one-hot of the targets), no max mask:\n"
                                           << t;
  EXPECT_EQ(text.str().find("max("), text.str().rfind("max(")) << "one row max (log_softmax), no more:\n"
                                                               << text.str();
  reset_stats();
  g.eval();
  EXPECT_LE(stats().kernels_launched, 2u);  // the row reductions of log_softmax, then (p - y) / N
  std::vector<float> gv = g.to_vector<float>(), lv = logits.to_vector<float>();
  for (int64_t i = 0; i < N; ++i) {
    double m = -1e30, s = 0;
    for (int64_t c = 0; c < C; ++c) m = std::max(m, double(lv[static_cast<std::size_t>(i * C + c)]));
    for (int64_t c = 0; c < C; ++c) s += std::exp(lv[static_cast<std::size_t>(i * C + c)] - m);
    for (int64_t c = 0; c < C; ++c) {
      double p = std::exp(lv[static_cast<std::size_t>(i * C + c)] - m) / s;
      double want = (p - (c == cls[static_cast<std::size_t>(i)] ? 1 : 0)) / N;
      EXPECT_NEAR(gv[static_cast<std::size_t>(i * C + c)], want, 1e-6);
    }
  }
}

TEST(Autograd, GradOfGradForElementwiseOps) {
  Tensor x = leaf({0.3, -0.7, 1.1}, {3});
  Tensor y = sum(sin(x) * x * x + exp(-x) / (1.0 + x * x));
  Tensor g1 = grad(y, {x})[0];
  Tensor g2 = grad(sum(g1), {x})[0];
  Tensor g3 = grad(sum(g2), {x})[0];
  std::vector<double> xv{0.3, -0.7, 1.1};
  auto f = [](double t) { return std::sin(t) * t * t + std::exp(-t) / (1 + t * t); };
  auto d2 = [&](double t) {
    double h = 1e-4;
    return (f(t + h) - 2 * f(t) + f(t - h)) / (h * h);
  };
  auto d3 = [&](double t) {
    double h = 1e-3;
    return (f(t + 2 * h) - 2 * f(t + h) + 2 * f(t - h) - f(t - 2 * h)) / (2 * h * h * h);
  };
  std::vector<double> v2 = vec(g2), v3 = vec(g3);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(v2[i], d2(xv[i]), 1e-5);
    EXPECT_NEAR(v3[i], d3(xv[i]), 1e-4);
  }
  // Without create_graph the gradient has no history.
  EXPECT_FALSE(grad(y, {x}, false)[0].requires_grad());
  EXPECT_TRUE(g1.requires_grad());
}

TEST(Autograd, GradWithRespectToIntermediatesAndUnusedInputs) {
  Tensor x = leaf({1, 2}, {2});
  Tensor h = x * 3.0;
  Tensor unused = leaf({5}, {1});
  std::vector<Tensor> g = grad(sum(h * h), {h, x, unused});
  EXPECT_EQ(vec(g[0]), (std::vector<double>{6, 12}));
  EXPECT_EQ(vec(g[1]), (std::vector<double>{18, 36}));
  EXPECT_EQ(vec(g[2]), (std::vector<double>{0}));
  EXPECT_FALSE(x.grad().defined());  // functional grad leaves grad() alone
}

TEST(Autograd, AssignKeepsALeafAndNoGradGuardRecordsNothing) {
  Tensor w = leaf({1, 2}, {2});
  Tensor alias = w;
  {
    NoGradGuard off;
    Tensor u = w * 2.0;
    EXPECT_FALSE(u.requires_grad());
    w.assign(w - 0.5);
  }
  EXPECT_TRUE(w.requires_grad());
  sum(w * w).backward();
  EXPECT_EQ(vec(w.grad()), (std::vector<double>{1, 3}));
  EXPECT_EQ(vec(alias.grad()), (std::vector<double>{1, 3}));  // copies share the variable
  // Assigning a value with history: the new value becomes a leaf, the old graph is untouched.
  Tensor other = leaf({4, 4}, {2});
  Tensor hist = other * w;
  w.assign(hist);
  w.clear_grad();
  sum(w).backward();
  EXPECT_EQ(vec(w.grad()), (std::vector<double>{1, 1}));
  EXPECT_FALSE(other.grad().defined());
  EXPECT_EQ(vec(grad(sum(hist), {other})[0]), (std::vector<double>{0.5, 1.5}));
  EXPECT_TRUE(hist.requires_grad());
  EXPECT_FALSE(w.detach().requires_grad());
  // is_leaf (PyTorch's): false only for a value computed from a tensor that requires a gradient
  EXPECT_TRUE(w.is_leaf());
  EXPECT_FALSE(hist.is_leaf());
  EXPECT_TRUE(w.detach().is_leaf());
  EXPECT_TRUE((tensor(std::vector<double>{1}, {1}) * 2.0).is_leaf());
}

TEST(Autograd, ErrorsAreClearAndLeaveTensorsIntact) {
  Tensor x = leaf({1, 2}, {2});
  Tensor i = tensor(std::vector<int32_t>{1, 2}, {2});
  auto code = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::Internal;
  };
  EXPECT_EQ(code([&] { i.requires_grad(true); }), ErrorCode::DTypeMismatch);
  EXPECT_EQ(code([&] { (x * 2.0).requires_grad(true); }), ErrorCode::InvalidOperation);
  EXPECT_EQ(code([&] { (x * 2.0).backward(); }), ErrorCode::InvalidArgument);  // two elements
  EXPECT_EQ(code([&] { sum(i).backward(); }), ErrorCode::InvalidOperation);    // no gradient
  EXPECT_EQ(code([&] { grad(sum(x), {i}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([&] { Tensor().requires_grad(true); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code([&] { (x * 2.0).requires_grad(false); }), ErrorCode::InvalidOperation);
  EXPECT_EQ(vec(x), (std::vector<double>{1, 2}));
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(x.requires_grad());
  x.requires_grad(false);
  EXPECT_FALSE(x.requires_grad());
  EXPECT_FALSE((x * 2.0).requires_grad());
}

TEST(Autograd, LongChainsNeitherOverflowNorLeak) {
  Tensor x = leaf({1.0}, {1});
  Tensor y = x;
  for (int k = 0; k < 20000; ++k) y = y * 1.0001 + 0.0001;  // auto-realized every 256 nodes
  Tensor g = grad(sum(y), {x})[0];
  EXPECT_NEAR(g.item<double>(), std::pow(1.0001, 20000), 1e-6 * std::pow(1.0001, 20000));
  // Destroying the graph (200k+ records) must not recurse.
  Tensor z = x;
  for (int k = 0; k < 200000; ++k) z = z + 1.0;
  z = Tensor();
  y = Tensor();
  SUCCEED();
}

TEST(Autograd, MemoryStaysFlatOverManyTrainingSteps) {
  manual_seed(3);
  Tensor w1 = (randn({8, 16}, f32) * 0.3f).eval(), w2 = (randn({16, 3}, f32) * 0.3f).eval();
  w1.requires_grad(true);
  w2.requires_grad(true);
  Tensor x = randn({32, 8}, f32).eval();
  std::vector<int64_t> cls(32);
  for (std::size_t i = 0; i < 32; ++i) cls[i] = static_cast<int64_t>(i % 3);
  Tensor y = tensor(cls, {32});
  optim::Adam opt({w1, w2}, 0.01);
  uint64_t bytes_after_warmup = 0;
  float first = 0, last = 0;
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    Tensor loss = cross_entropy(matmul(relu(matmul(x, w1)), w2), y);
    loss.backward();
    opt.step({loss});
    if (step == 0) first = loss.item<float>();
    last = loss.item<float>();
    if (step == 20) bytes_after_warmup = stats().bytes_in_use;
    // At most: in one process with other tests before (the gpu suites), result-cache entries
    // they left may still be dropped during these steps; the steps themselves must not grow it.
    if (step == 299) {
      EXPECT_LE(stats().bytes_in_use, bytes_after_warmup);
    }
  }
  EXPECT_LT(last, 0.5f * first);
}

}  // namespace
}  // namespace cgrad

namespace cgrad {
namespace {

TEST(Autograd, BackwardInsideACompiledFunctionRunsEveryCall) {
  // backward() accumulates into grad(), which a replayed plan would not repeat: such a
  // signature runs fn at every call, and the gradients accumulate as written.
  Tensor w = tensor(std::vector<double>{1, 2}, {2}).requires_grad(true);
  int calls = 0;
  auto f = compile([&](const Tensor& x) {
    ++calls;
    Tensor loss = sum(w * w * x);
    loss.backward();
    return loss;
  });
  Tensor x = tensor(std::vector<double>{3, 5}, {2});
  EXPECT_DOUBLE_EQ(f(x).item<double>(), 1 * 3 + 4 * 5);
  EXPECT_DOUBLE_EQ(f(x).item<double>(), 23);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(w.grad().to_vector<double>(), (std::vector<double>{12, 40}));  // 2 w x, twice
}

}  // namespace
}  // namespace cgrad
