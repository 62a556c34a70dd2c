// Custom differentiable operators (issue #23, docs/extending.md): autograd uses the user's
// backward (checked against finite differences), several outputs are differentiated together,
// second derivatives go through a differentiable backward, the backward graph fuses, and a
// backward that returns the wrong number or shape of gradients is a clear error that leaves
// every gradient as it was.
#include "../autograd/gradcheck.h"
#include "../fusion/oracle.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <string>
#include <vector>

namespace cgrad {
namespace {

using test::expect_gradients_match;
using test::random_values;
using V = std::vector<Tensor>;

template <class F>
ErrorCode code_of(F&& f, std::string* msg = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (msg) *msg = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no cgrad::Error thrown";
  return ErrorCode::Internal;
}

// Straight-through estimator: sign in the forward pass, identity gradient (clipped to |x| <= 1).
const CustomOp& ste() {
  static const CustomOp op(
      "ste",
      [](CustomContext&, const V& in) { return V{where(in[0] >= 0.0, 1.0, -1.0).cast(in[0].dtype())}; },
      [](const CustomContext& ctx, const V& g) { return V{where(abs(ctx.inputs[0]) <= 1.0, g[0], 0.0)}; });
  return op;
}

// Softmax cross-entropy with probability targets and the `p - y` gradient (the Alea TK example).
const CustomOp& softmax_xent() {
  static const CustomOp op(
      "softmax_xent",
      [](CustomContext& ctx, const V& in) {
        Tensor p = softmax(in[0], 1);
        ctx.saved = {p};
        return V{-sum(in[1] * log_softmax(in[0], 1)) / static_cast<double>(in[0].shape()[0])};
      },
      [](const CustomContext& ctx, const V& g) {
        const double n = static_cast<double>(ctx.inputs[0].shape()[0]);
        Tensor p = ctx.saved[0];
        return V{(p * sum(ctx.inputs[1], {1}, true) - ctx.inputs[1]) * (g[0] / n), Tensor()};
      });
  return op;
}

TEST(CustomOp, StraightThroughEstimator) {
  Tensor x = tensor(std::vector<float>{-2, -0.5f, 0, 0.5f, 2}, {5}).requires_grad(true);
  Tensor y = ste()(x);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-1, -1, 1, 1, 1}));
  Tensor w = tensor(std::vector<float>{1, 2, 3, 4, 5}, {5});
  sum(y * w).backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (std::vector<float>{0, 2, 3, 4, 0}));
}

TEST(CustomOp, UserBackwardMatchesFiniteDifferences) {
  auto v = [](std::size_t n, unsigned s) { return random_values(n, -2, 2, s); };
  Tensor targets = softmax(tensor(v(12, 3), {3, 4}), 1);
  expect_gradients_match(
      [&](const V& x) {
        return softmax_xent()({x[0], targets})[0] * (x[0] * x[0]).sum();
      },
      {v(12, 1)}, {{3, 4}}, "softmax_xent");
  expect_gradients_match(
      [&](const V& x) {
        return softmax_xent()({x[0], targets})[0];
      },
      {v(12, 2)}, {{3, 4}}, "softmax_xent alone");
}

// Two outputs with one backward: (x * y, x + y).
const CustomOp& prod_sum() {
  static const CustomOp op(
      "prod_sum",
      [](CustomContext&, const V& in) {
        return V{in[0] * in[1], in[0] + in[1]};
      },
      [](const CustomContext& ctx, const V& g) {
        return V{g[0] * ctx.inputs[1] + g[1], g[0] * ctx.inputs[0] + g[1]};
      });
  return op;
}

TEST(CustomOp, SeveralOutputsAreDifferentiatedTogether) {
  auto v = [](std::size_t n, unsigned s) { return random_values(n, -2, 2, s); };
  expect_gradients_match(
      [](const V& x) {
        auto o = prod_sum()({x[0], x[1]});
        return o[0] * o[1] + exp(o[1]);
      },
      {v(6, 4), v(6, 5)}, {{2, 3}, {2, 3}}, "both outputs");
  expect_gradients_match(
      [](const V& x) {
        return prod_sum()({x[0], x[1]})[1] * x[0];
      },
      {v(6, 6), v(6, 7)}, {{2, 3}, {2, 3}}, "second output only");
  // One call of backward for both outputs.
  static int calls = 0;
  CustomOp counted(
      "counted",
      [](CustomContext&, const V& in) {
        return V{in[0] * 2.0, in[0] * 3.0};
      },
      [](const CustomContext&, const V& g) {
        ++calls;
        return V{g[0] * 2.0 + g[1] * 3.0};
      });
  Tensor x = tensor(std::vector<double>{1, 2}, {2}).requires_grad(true);
  auto o = counted({x});
  calls = 0;
  sum(o[0] * o[1]).backward();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(x.grad().to_vector<double>(), (std::vector<double>{12, 24}));  // d(6x^2) = 12x
}

TEST(CustomOp, SecondDerivativesThroughADifferentiableBackward) {
  CustomOp cube(
      "cube", [](CustomContext&, const V& in) { return V{in[0] * in[0] * in[0]}; },
      [](const CustomContext& ctx, const V& g) { return V{g[0] * 3.0 * ctx.inputs[0] * ctx.inputs[0]}; });
  Tensor x = tensor(std::vector<double>{-1.5, 0.5, 2}, {3}).requires_grad(true);
  Tensor dx = grad(sum(cube(x)), {x})[0];
  EXPECT_EQ(dx.to_vector<double>(), (std::vector<double>{6.75, 0.75, 12}));
  Tensor ddx = grad(sum(dx), {x})[0];
  EXPECT_EQ(ddx.to_vector<double>(), (std::vector<double>{-9, 3, 12}));
  // A backward that uses the operator's output: exp's derivative is its value.
  CustomOp myexp(
      "myexp", [](CustomContext&, const V& in) { return V{exp(in[0])}; },
      [](const CustomContext& ctx, const V& g) { return V{g[0] * ctx.outputs[0]}; });
  Tensor d1 = grad(sum(myexp(x)), {x})[0];
  Tensor d2 = grad(sum(d1), {x})[0];
  EXPECT_EQ(d2.to_vector<double>(), exp(x.detach()).to_vector<double>());
}

TEST(CustomOp, BackwardGraphFuses) {
  test::ResultCacheOff off;
  Tensor x = tensor(random_values(4096, -2, 2, 8), {64, 64}).cast(f32).eval().requires_grad(true);
  Tensor w = tensor(random_values(4096, -1, 1, 9), {64, 64}).cast(f32).eval();
  Tensor g = grad(sum(ste()(x * 2.0) * w), {x})[0];
  EXPECT_EQ(test::kernels_for({g}), 1u);
}

TEST(CustomOp, WithoutGradientsTheForwardIsReturnedAsIs) {
  Tensor x = tensor(std::vector<float>{0.25f, -3}, {2});
  Tensor y = ste()(x);
  EXPECT_FALSE(y.requires_grad());
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, -1}));
  Tensor z;
  {
    Tensor xr = x.detach().requires_grad(true);
    NoGradGuard off;
    z = ste()(xr);
  }
  EXPECT_FALSE(z.requires_grad());
}

TEST(CustomOp, BadBackwardIsAClearErrorAndLeavesGradsAlone) {
  CustomOp wrong_shape(
      "wrong_shape", [](CustomContext&, const V& in) { return V{in[0] * 2.0}; },
      [](const CustomContext&, const V& g) { return V{sum(g[0])}; });
  CustomOp wrong_count(
      "wrong_count", [](CustomContext&, const V& in) { return V{in[0] * 2.0}; },
      [](const CustomContext&, const V& g) {
        return V{g[0], g[0]};
      });
  Tensor x = tensor(std::vector<float>{1, 2, 3}, {3}).requires_grad(true);
  Tensor keep = tensor(std::vector<float>{4, 5, 6}, {3}).requires_grad(true);
  sum(x + keep).backward();
  const auto gx = x.grad().to_vector<float>(), gk = keep.grad().to_vector<float>();
  std::string msg;
  EXPECT_EQ(code_of([&] { sum(wrong_shape(x) * keep).backward(); }, &msg), ErrorCode::ShapeMismatch);
  EXPECT_NE(msg.find("'wrong_shape'"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { sum(wrong_count(x) + keep).backward(); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("2 gradient(s) for 1 input(s)"), std::string::npos) << msg;
  EXPECT_EQ(x.grad().to_vector<float>(), gx);
  EXPECT_EQ(keep.grad().to_vector<float>(), gk) << "no leaf gradient is added by a failed backward";
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  // Forward errors.
  CustomOp nothing(
      "nothing", [](CustomContext&, const V&) { return V{}; },
      [](const CustomContext&, const V&) { return V{}; });
  EXPECT_EQ(code_of([&] { nothing({x}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { CustomOp("none", nullptr, nullptr); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { ste()(Tensor()); }), ErrorCode::InvalidArgument);
}

}  // namespace
}  // namespace cgrad
