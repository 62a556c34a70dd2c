// User element-wise functions (issue #23, docs/extending.md): values on the JIT against the
// interpreter and against the same expression written with built-in ops, fusion through
// stats() counts, parameters as kernel arguments, promotion, several outputs, derivative
// bodies, and the error paths (bad bodies, injection attempts, wrong arity), which leave every
// tensor intact.
#include "../autograd/gradcheck.h"
#include "../fusion/oracle.h"

#include <gtest/gtest.h>
#include <cgrad/cgrad.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace cgrad {
namespace {

using test::kernels_for;
using test::with_backend;

Tensor data(Shape s, unsigned seed, double lo = -3, double hi = 3) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  auto v = test::random_values(static_cast<std::size_t>(n), lo, hi, seed);
  std::vector<float> f(v.begin(), v.end());
  return tensor(std::move(f), std::move(s));
}

const ElementwiseFn& elu() {
  static const ElementwiseFn f =
      elementwise("elu", "x > 0 ? x : a * (exp(x) - 1)", {"x"}, {"a"}, {"x > 0 ? 1 : a * exp(x)"});
  return f;
}
Tensor builtin_elu(const Tensor& x, double a) { return where(x > 0.0, x, a * (exp(x) - 1.0)); }

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

TEST(UserElementwise, MatchesInterpreterAndBuiltins) {
  Tensor x = data({37, 19}, 1), y = data({37, 19}, 2);
  auto jit = (elu()(x * y, {0.7}) + x).to_vector<float>();
  auto interp = with_backend("interpreter", [&] { return (elu()(x * y, {0.7}) + x).to_vector<float>(); });
  auto builtin = (builtin_elu(x * y, 0.7) + x).to_vector<float>();
  EXPECT_EQ(jit, interp);
  EXPECT_EQ(jit, builtin) << "the body calls the same scalar helpers as the built-in ops";
}

TEST(UserElementwise, FusesIntoTheSurroundingKernel) {
  test::ResultCacheOff off;
  Tensor a = data({256, 64}, 3), b = data({256, 64}, 4), c = data({64}, 5);
  EXPECT_EQ(kernels_for({sum(elu()(a * b, {1.0}) + c)}), 1u) << "sum(elu(a*b) + c) is one kernel";
  EXPECT_EQ(kernels_for({elu()(elu()(a, {0.5}) * b, {2.0}) - c}), 1u) << "user functions chain in one kernel";
  EXPECT_EQ(kernels_for({sum(elu()(a, {1.0}), {1})}), 1u) << "an axis reduction of a user function";
  Tensor s = sum(elu()(a * b, {1.0}) + c);
  const double want = sum(builtin_elu(a * b, 1.0) + c).item<float>();
  EXPECT_NEAR(s.item<float>(), want, 1e-3 * std::fabs(want));
}

// Rule 8 (docs/fusion.md): a value two kernels read is recomputed in each while its subtree costs
// at most 8; a user function costs what its body calls, not its row's 1.
TEST(UserElementwise, SharedValueCostsWhatItsBodyCalls) {
  test::ResultCacheOff off;
  static const ElementwiseFn cheap = elementwise("cheap", "x * a + 1", {"x"}, {"a"});
  static const ElementwiseFn costly = elementwise("costly", "exp(exp(exp(x)))", {"x"}, {});
  Tensor a = data({4, 8}, 6, -1, 1);
  Tensor t = cheap(a, {2.0});
  EXPECT_EQ(kernels_for({sum(t, {1}), t * 2.0}), 2u) << "cost 3: recomputed in both kernels";
  Tensor u = costly(a, {});
  EXPECT_EQ(kernels_for({sum(u, {1}), u * 2.0}), 3u) << "cost 12: computed once, then read by both";
  Tensor b = exp(exp(exp(a)));
  EXPECT_EQ(kernels_for({sum(u, {1}), u * 2.0}), kernels_for({sum(b, {1}), b * 2.0}))
      << "as the same chain of built-in ops";
}

TEST(UserElementwise, NewParameterValueReusesTheKernel) {
  test::ResultCacheOff off;
  Tensor x = data({1000}, 6);
  auto first = elu()(x, {1.0}).to_vector<float>();
  reset_stats();
  auto second = elu()(x, {0.25}).to_vector<float>();
  EXPECT_EQ(stats().kernels_compiled, 0u) << "a parameter is a kernel argument, not part of the source";
  EXPECT_EQ(second, builtin_elu(x, 0.25).to_vector<float>());
  EXPECT_NE(first, second);
}

TEST(UserElementwise, SeveralOutputsInOneKernel) {
  test::ResultCacheOff off;
  auto polar = elementwise(ElementwiseDef{"polar", {"r", "t"}, {}, {"r * cos(t)", "r * sin(t)"}, {}});
  EXPECT_EQ(polar.num_outputs(), 2u);
  Tensor r = data({500}, 7, 0.5, 2), t = data({500}, 8);
  auto xy = polar.outputs({r, t});
  ASSERT_EQ(xy.size(), 2u);
  EXPECT_EQ(kernels_for(xy), 1u) << "both outputs of one function, same shape: one kernel";
  EXPECT_EQ(xy[0].to_vector<float>(), (r * cos(t)).to_vector<float>());
  EXPECT_EQ(xy[1].to_vector<float>(), (r * sin(t)).to_vector<float>());
  std::string msg;
  EXPECT_EQ(code_of([&] { polar({r, t}); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("outputs()"), std::string::npos) << msg;
}

TEST(UserElementwise, PromotionAndBroadcasting) {
  auto mix = elementwise("mix", "x * y + 2", {"x", "y"});
  Tensor i = tensor(std::vector<int32_t>{1, 2, 3}, {3, 1});
  Tensor f = tensor(std::vector<float>{0.5f, -1.0f}, {2});
  Tensor z = mix({i, f});
  EXPECT_EQ(z.dtype(), f32);
  EXPECT_EQ(z.shape(), (Shape{3, 2}));
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{2.5f, 1, 3, 0, 3.5f, -1}));
  // Integers stay integers (wrapping like the built-in ops) unless the body needs floats.
  Tensor k = tensor(std::vector<int64_t>{3, -4}, {2});
  EXPECT_EQ(mix({k, k}).dtype(), i64);
  EXPECT_EQ(mix({k, k}).to_vector<int64_t>(), (std::vector<int64_t>{11, 18}));
  auto half = elementwise("half", "x / 2", {"x"});
  EXPECT_EQ(half(k).dtype(), f32);
  EXPECT_EQ(half(k).to_vector<float>(), (std::vector<float>{1.5f, -2}));
  auto scaled = elementwise("scaled", "x * 0.5", {"x"});
  EXPECT_EQ(scaled(k).dtype(), f32) << "a fractional literal needs floats";
  // f64 stays f64, and a parameter takes the function's dtype.
  Tensor d = tensor(std::vector<double>{1e-300, 2}, {2});
  EXPECT_EQ(elu()(d, {1.0}).dtype(), f64);
  EXPECT_EQ(elu()(d, {1.0}).to_vector<double>(), d.to_vector<double>());
  // b8 is rejected when the call is built.
  std::string msg;
  EXPECT_EQ(code_of([&] { mix({k > 0, k > 0}); }, &msg), ErrorCode::DTypeMismatch);
  EXPECT_NE(msg.find("mix"), std::string::npos);
}

TEST(UserElementwise, ConditionsAndLogic) {
  auto band = elementwise("band", "(x > lo && x < hi) || !(x != 0) ? x * x : min(x, hi) - max(lo, 0)", {"x"},
                          {"lo", "hi"});
  Tensor x = data({301}, 9);
  Tensor want = where(((x > -1.0).cast(f32) * (x < 2.0).cast(f32) + (x == 0.0).cast(f32)) > 0.0, x * x,
                      minimum(x, 2.0) - 0.0);
  auto jit = band(x, {-1.0, 2.0}).to_vector<float>();
  EXPECT_EQ(jit, want.to_vector<float>());
  EXPECT_EQ(jit, with_backend("interpreter", [&] { return band(x, {-1.0, 2.0}).to_vector<float>(); }));
}

TEST(UserElementwise, CompiledFunctionsReplay) {
  test::ResultCacheOff off;
  auto step = compile([](Tensor x, Tensor y) { return sum(elu()(x - y, {0.5})); });
  Tensor x = data({128}, 10), y = data({128}, 11);
  const float a = step(x, y).item<float>();
  reset_stats();
  const float b = step(y, x).item<float>();
  EXPECT_EQ(stats().plans_built, 0u);
  EXPECT_EQ(stats().kernels_compiled, 0u);
  EXPECT_NEAR(a, sum(builtin_elu(x - y, 0.5)).item<float>(), 1e-4);
  EXPECT_NEAR(b, sum(builtin_elu(y - x, 0.5)).item<float>(), 1e-4);
}

TEST(UserElementwise, DerivativeBodies) {
  static const ElementwiseFn e64 =
      elementwise("elu64", "x > 0 ? x : a * (exp(x) - 1)", {"x"}, {"a"}, {"x > 0 ? 1 : a * exp(x)"});
  auto v = test::random_values(24, -2, 2, 12);
  test::expect_gradients_match([](const std::vector<Tensor>& x) { return e64(x[0] * x[0] - 1.0, {1.3}); },
                               {v}, {{4, 6}}, "user elu");
  // The backward of a user function fuses like any other: gradient in one kernel.
  test::ResultCacheOff off;
  Tensor x = data({64, 64}, 13).requires_grad(true);
  Tensor g = grad(sum(elu()(x, {1.0})), {x})[0];
  EXPECT_EQ(kernels_for({g}), 1u);
  EXPECT_EQ(g.to_vector<float>(), where(x > 0.0, 1.0, exp(x)).to_vector<float>());
}

TEST(UserElementwise, MissingDerivativeIsAClearErrorAndLeavesGradsAlone) {
  auto sq = elementwise("sq", "x * x", {"x"});
  Tensor x = data({5}, 14).requires_grad(true);
  sum(x * 2.0).backward();
  const auto before = x.grad().to_vector<float>();
  std::string msg;
  EXPECT_EQ(code_of([&] { sum(sq(x) + x).backward(); }, &msg), ErrorCode::InvalidOperation);
  EXPECT_NE(msg.find("'sq'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  EXPECT_EQ(x.grad().to_vector<float>(), before) << "a failed backward adds nothing";
  // Without a gradient to compute, the function is fine.
  EXPECT_EQ(sq(x.detach()).shape(), (Shape{5}));
}

TEST(UserElementwise, BadBodiesAreRejectedWhenDefined) {
  const std::pair<const char*, const char*> bad[] = {
      {"x + y", "'y'"},                      // not declared
      {"foo(x)", "unknown function 'foo'"},  // not a scalar.hpp function
      {"exp(x, x)", "takes 1 argument"},     // arity
      {"x +", "end of the body"},            // syntax
      {"(x", "expected ')'"},
      {"x > 0", "condition"},  // a condition is not a number
      {"x + (x > 0)", "condition is used as a number"},
      {"x ? 1 : 0", "number is used as a condition"},
      {"cast(x)", "unknown function 'cast'"},
      {"exp", "call it with ()"},
      {"1e999", "bad number"},
      {"2x", "bad number"},
      // Injection attempts: none of this text can reach a translation unit.
      {"x); system(\"rm -rf /\"); (x", "unexpected ')'"},
      {"x; }", "unexpected ';'"},
      {"__builtin_trap()", "unknown function '__builtin_trap'"},
      {"x /* */", "unexpected '*'"},
      {"x\n#include <cstdlib>", "unexpected '#'"},
      {"\"x\"", "unexpected '\"'"},
      {"x[0]", "unexpected '['"},
      {"a = x", "unexpected '='"},
      {"scalar::exp(x)", "'scalar' is not an input"},
  };
  for (const auto& entry : bad) {
    const char* body = entry.first;
    const char* why = entry.second;
    std::string msg;
    EXPECT_EQ(code_of([&] { elementwise("myfn", body, {"x"}, {"a"}); }, &msg), ErrorCode::CompileError)
        << body;
    EXPECT_NE(msg.find("'myfn'"), std::string::npos) << body << ": " << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << body << ": " << msg;
  }
  std::string chain = "x";
  for (int i = 0; i < 200; ++i) chain += " + x";  // flat text, but a tree 200 levels deep
  EXPECT_EQ(code_of([&] { elementwise("chain", chain, {"x"}); }), ErrorCode::CompileError);
  std::string deep(400, '(');
  EXPECT_EQ(code_of([&] { elementwise("deep", deep + "x" + std::string(400, ')'), {"x"}); }),
            ErrorCode::CompileError);
  // Bad names.
  EXPECT_EQ(code_of([&] { elementwise("my fn", "x", {"x"}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { elementwise("f", "x", {"x", "x"}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { elementwise("f", "x", {"exp"}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { elementwise("f", "x", {"x"}, {"x;"}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { elementwise("f", "x", {}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { elementwise("f", "x", {"x"}, {}, {"1", "2"}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { elementwise("f", "x", {"x"}, {}, {"y"}); }), ErrorCode::CompileError);
}

TEST(UserElementwise, WrongCallsAreErrorsAndLeaveTensorsIntact) {
  Tensor x = data({3, 4}, 15), y = data({5}, 16);
  const auto before = x.to_vector<float>();
  std::string msg;
  EXPECT_EQ(code_of([&] { elu()({x, x}, {1.0}); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("elu: takes 1 input"), std::string::npos) << msg;
  EXPECT_EQ(code_of([&] { elu()(x); }, &msg), ErrorCode::InvalidArgument);
  EXPECT_NE(msg.find("parameter"), std::string::npos) << msg;
  auto two = elementwise("two", "x + y", {"x", "y"});
  EXPECT_EQ(code_of([&] { two({x, y}); }, &msg), ErrorCode::ShapeMismatch);
  EXPECT_EQ(code_of([&] { ElementwiseFn()(x); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([&] { elu()(Tensor(), {1.0}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(x.to_vector<float>(), before);
  EXPECT_EQ(elu()(x, {1.0}).to_vector<float>(), builtin_elu(x, 1.0).to_vector<float>());
}

TEST(UserElementwise, PrintedGraphNamesTheFunction) {
  std::ostringstream os;
  print_graph(elu()(data({2}, 17), {1.0}), os);
  EXPECT_NE(os.str().find("user("), std::string::npos) << os.str();
  EXPECT_NE(os.str().find("fn=elu"), std::string::npos) << os.str();
}

}  // namespace
}  // namespace cgrad
