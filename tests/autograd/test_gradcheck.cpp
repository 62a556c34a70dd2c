// A finite-difference check of every op-table row's derivative, generated from the table: each
// row must either have a case here or be one that passes no gradient (sources, comparisons),
// so adding an op without checking its derivative fails this test.
#include "gradcheck.h"

#include "ir/derivatives.h"
#include "ir/op_table.h"

#include <cgrad/dist.hpp>

#include <map>

namespace cgrad {
namespace {

using ir::Op;
using test::expect_gradients_match;
using test::random_values;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct Case {
  Fn f;
  std::vector<Shape> shapes;
  double lo = -2, hi = 2;  // input range (kept inside the op's smooth domain)
};

std::vector<Case> cases_for(Op op) {
  auto unary = [](Tensor (*g)(const Tensor&), double lo, double hi) {
    return std::vector<Case>{{[g](const std::vector<Tensor>& x) { return g(x[0]); }, {{3, 4}}, lo, hi}};
  };
  auto binary = [](Fn f, double lo, double hi) {
    return std::vector<Case>{{f, {{3, 4}, {3, 4}}, lo, hi}, {f, {{3, 1}, {4}}, lo, hi}};
  };
  switch (op) {
    case Op::Neg: return {{[](const std::vector<Tensor>& x) { return -x[0]; }, {{3, 4}}}};
    case Op::Exp: return unary(exp, -2, 2);
    case Op::Log: return unary(log, 0.3, 3);
    case Op::Sqrt: return unary(sqrt, 0.3, 3);
    case Op::Rsqrt: return unary(rsqrt, 0.3, 3);
    case Op::Abs: return unary(abs, -2, 2);
    case Op::Sin: return unary(sin, -3, 3);
    case Op::Cos: return unary(cos, -3, 3);
    case Op::Tanh: return unary(tanh, -2, 2);
    case Op::Sigmoid: return unary(sigmoid, -3, 3);
    case Op::Relu: return unary(relu, -2, 2);
    case Op::Cast:  // f64 -> f32 -> f64 rounds: checked exactly in CastPassesTheGradientThrough
      return {};
    case Op::Floor: return unary(floor, -2, 2);
    case Op::Ceil: return unary(ceil, -2, 2);
    case Op::Trunc: return unary(trunc, -2, 2);
    case Op::Round: return unary(round, -2, 2);
    case Op::Sign: return unary(sign, -2, 2);
    case Op::Log1p: return unary(log1p, -0.5, 2);
    case Op::Expm1: return unary(expm1, -2, 2);
    case Op::Log2: return unary(log2, 0.3, 3);
    case Op::Log10: return unary(log10, 0.3, 3);
    case Op::Tan: return unary(tan, -1, 1);
    case Op::Asin: return unary(asin, -0.8, 0.8);
    case Op::Acos: return unary(acos, -0.8, 0.8);
    case Op::Atan: return unary(atan, -2, 2);
    case Op::Sinh: return unary(sinh, -2, 2);
    case Op::Cosh: return unary(cosh, -2, 2);
    case Op::Asinh: return unary(asinh, -2, 2);
    case Op::Acosh: return unary(acosh, 1.2, 3);
    case Op::Atanh: return unary(atanh, -0.8, 0.8);
    case Op::Erf: return unary(erf, -2, 2);
    case Op::Atan2: return binary([](const std::vector<Tensor>& x) { return atan2(x[0], x[1]); }, 0.5, 2);
    case Op::Hypot: return binary([](const std::vector<Tensor>& x) { return hypot(x[0], x[1]); }, 0.5, 2);
    case Op::Copysign:
      return binary([](const std::vector<Tensor>& x) { return copysign(x[0], x[1]); }, -2, 2);
    case Op::Logaddexp:
      return binary([](const std::vector<Tensor>& x) { return logaddexp(x[0], x[1]); }, -2, 2);
    case Op::Nextafter:
      return binary([](const std::vector<Tensor>& x) { return nextafter(x[0], x[1]); }, -2, 2);
    case Op::Remainder:
      return binary([](const std::vector<Tensor>& x) { return remainder(x[0], x[1]); }, 0.5, 2);
    case Op::FloorDivide:
      return binary([](const std::vector<Tensor>& x) { return floor_divide(x[0], x[1]); }, 0.5, 2);
    case Op::Add: return binary([](const std::vector<Tensor>& x) { return x[0] + x[1]; }, -2, 2);
    case Op::Sub: return binary([](const std::vector<Tensor>& x) { return x[0] - x[1]; }, -2, 2);
    case Op::Mul: return binary([](const std::vector<Tensor>& x) { return x[0] * x[1]; }, -2, 2);
    case Op::Div: return binary([](const std::vector<Tensor>& x) { return x[0] / x[1]; }, 0.5, 2);
    case Op::Pow: return binary([](const std::vector<Tensor>& x) { return pow(x[0], x[1]); }, 0.5, 2);
    case Op::Maximum: return binary([](const std::vector<Tensor>& x) { return maximum(x[0], x[1]); }, -2, 2);
    case Op::Minimum: return binary([](const std::vector<Tensor>& x) { return minimum(x[0], x[1]); }, -2, 2);
    case Op::Where:
      return {{[](const std::vector<Tensor>& x) { return where(x[0] > 0, x[0] * x[1], x[1]); },
               {{3, 4}, {3, 4}}}};
    case Op::Sum:
      return {{[](const std::vector<Tensor>& x) { return sum(x[0], {1}); }, {{3, 4}}},
              {[](const std::vector<Tensor>& x) { return sum(x[0]); }, {{3, 4}}},
              {[](const std::vector<Tensor>& x) {
                 return sum(x[0], {0, 2}, true);
               },
               {{2, 3, 4}}}};
    case Op::Max:
      return {{[](const std::vector<Tensor>& x) { return max(x[0], {1}); }, {{3, 4}}},
              {[](const std::vector<Tensor>& x) { return max(x[0]); }, {{3, 4}}}};
    case Op::Min: return {{[](const std::vector<Tensor>& x) { return min(x[0], {0}); }, {{3, 4}}}};
    case Op::Prod:
      return {{[](const std::vector<Tensor>& x) { return prod(x[0], {1}); }, {{3, 4}}, 0.5, 1.5},
              {[](const std::vector<Tensor>& x) { return prod(x[0]); }, {{3, 4}}, -1.5, 1.5},
              {[](const std::vector<Tensor>& x) {
                 return prod(x[0], {0, 2}, true);
               },
               {{2, 3, 4}},
               -1.5,
               1.5}};
    case Op::Reshape:
      return {{[](const std::vector<Tensor>& x) {
                 return x[0].reshape({4, 3}) * x[0].reshape({4, 3});
               },
               {{3, 4}}}};
    case Op::Permute:
      return {{[](const std::vector<Tensor>& x) {
                 return x[0].permute({2, 0, 1}) * x[0].permute({2, 0, 1});
               },
               {{2, 3, 4}}}};
    case Op::Expand:
      return {{[](const std::vector<Tensor>& x) {
                 return x[0].expand({2, 3, 4}) * x[0].expand({2, 3, 4});
               },
               {{3, 1}}}};
    case Op::Slice:
      return {
          {[](const std::vector<Tensor>& x) { return x[0].slice(1, 1, 4) * x[0].slice(1, 1, 4); }, {{3, 5}}},
          {[](const std::vector<Tensor>& x) { return x[0].slice(1, 1, 7, 2) * x[0].slice(1, 1, 7, 2); },
           {{2, 8}}},
          {[](const std::vector<Tensor>& x) { return x[0].slice(0, 0, 5, 3) * x[0].slice(0, 0, 5, 3); },
           {{5, 2}}}};
    case Op::Flip:
      return {{[](const std::vector<Tensor>& x) { return flip(x[0], {1}) * x[0]; }, {{3, 4}}},
              {[](const std::vector<Tensor>& x) { return flip(x[0]) * x[0].slice(0, 0, 2); }, {{2, 3}}}};
    case Op::Cat:
      return {{[](const std::vector<Tensor>& x) {
                 return cat({x[0], x[1] * x[1], x[0]}, 1);
               },
               {{2, 3}, {2, 2}}}};
    case Op::Matmul:
      return {{[](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {{3, 4}, {4, 2}}},
              {[](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {{2, 3, 4}, {4, 5}}},
              {[](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {{4}, {4, 2}}}};
    // One process here (no communicator): the all-reduce is the identity and so is its rule;
    // tests/dist checks the rule across 2 and 4 processes (mpi_check) and with a test communicator.
    case Op::AllReduce:
      return {
          {[](const std::vector<Tensor>& x) { return dist::all_reduce(x[0] * x[0]); }, {{3, 4}}},
          {[](const std::vector<Tensor>& x) { return dist::all_reduce(x[0] * x[0], dist::ReduceOp::Max); },
           {{3, 4}}}};
    case Op::User: {  // a user function with derivative bodies (issue #23), broadcasting too
      static const ElementwiseFn f = elementwise(ElementwiseDef{
          "gc_user",
          {"x", "y"},
          {"a"},
          {"x * y + a * exp(x) - y / (1 + x * x)"},
          {{"y + a * exp(x) + 2 * x * y / ((1 + x * x) * (1 + x * x))", "x - 1 / (1 + x * x)"}}});
      Fn g = [](const std::vector<Tensor>& x) { return f({x[0], x[1]}, {0.75}); };
      return {{g, {{3, 4}, {3, 4}}}, {g, {{3, 1}, {4}}}};
    }
    // group sort: distinct random values (finite differences do not cross a tie)
    case Op::Sort:
      return {{[](const std::vector<Tensor>& x) { return sort(x[0]) * sort(x[0], 0, true); }, {{3, 4}}},
              {[](const std::vector<Tensor>& x) { return sort(x[0] * x[0], 1); }, {{2, 5, 3}}}};
    // scans (scan group): along both axes, negative axis, include_initial; cumprod on nonzero inputs
    case Op::CumSum:
      return {{[](const std::vector<Tensor>& x) { return cumulative_sum(x[0] * x[0], 1); }, {{3, 4}}},
              {[](const std::vector<Tensor>& x) {
                 return cumulative_sum(x[0], -3, std::nullopt, true) * x[0].sum({0}, true);
               },
               {{3, 2, 2}}}};
    case Op::CumProd:
      return {{[](const std::vector<Tensor>& x) { return cumulative_prod(x[0], 1); }, {{3, 4}}, 0.5, 1.5},
              {[](const std::vector<Tensor>& x) { return cumulative_prod(x[0], 0, std::nullopt, true); },
               {{4, 3}},
               -1.5,
               -0.5}};
    case Op::Take:  // index group: repeated, negative and out-of-range positions; along an axis
      return {{[](const std::vector<Tensor>& x) {
                 return take(x[0], tensor(std::vector<int64_t>{2, 0, 2, -1, 5, -6}, {6}), 1) * x[1];
               },
               {{3, 4}, {3, 6}}},
              {[](const std::vector<Tensor>& x) {
                 return take_along_axis(x[0], tensor(std::vector<int64_t>{1, 0, 2, 2, -1, 0}, {2, 3}), 0);
               },
               {{3, 3}}}};
    case Op::ScatterAdd:  // scatter group: repeated, negative and out-of-range positions; both layouts
      return {
          {[](const std::vector<Tensor>& x) {
             return scatter_add(x[0], 1, tensor(std::vector<int64_t>{2, 0, 2, -1, 5, -6}, {6}), x[1]) * x[0];
           },
           {{3, 4}, {3, 6}}},
          {[](const std::vector<Tensor>& x) {
             return scatter_add_along_axis(x[0], 0, tensor(std::vector<int64_t>{1, 0, 2, 2, -1, 0}, {2, 3}),
                                           x[1] * x[1]);
           },
           {{3, 3}, {2, 3}}}};
    // complex group: real inputs, a complex intermediate, a real result (test_gradcheck_complex
    // checks complex inputs): Im(complex(a, b) * complex(b, a)) = a^2 + b^2.
    case Op::Complex:
      return binary(
          [](const std::vector<Tensor>& x) { return imag(complex(x[0], x[1]) * complex(x[1], x[0])); }, -2,
          2);
    default: return {};
  }
}

bool passes_no_gradient(const ir::OpInfo& row) {
  // Sources, comparisons and classification (b8 results), bitwise and logical ops (no float or
  // complex input). argsort: i64 positions (group sort). argmax/argmin: i64 positions (argmax
  // group: an indexed reduction's result is its index).
  return row.kind == ir::OpKind::Source || row.dtype_rule == ir::DTypeRule::Bool ||
         (row.inputs & (ir::kFloat | ir::kComplex)) == 0 || row.op == Op::Argsort ||
         row.reduce.acc == ir::RedAcc::Indexed;
}

TEST(GradCheck, EveryRowIsCheckedOrPassesNoGradient) {
  for (const ir::OpInfo& row : ir::kTable) {
    const bool none = row.vjp == &autograd::vjp::none;
    EXPECT_EQ(none, passes_no_gradient(row))
        << row.name << ": derivative column disagrees with the op's kind";
    // Rows that take only complex values (conj, real, imag) are checked by test_gradcheck_complex.
    if (!none && row.op != Op::Cast && (row.inputs & ir::kFloat)) {
      EXPECT_FALSE(cases_for(row.op).empty()) << row.name << " has no gradient check";
    }
  }
}

TEST(GradCheck, FiniteDifferencesOfEveryRow) {
  unsigned seed = 1;
  for (const ir::OpInfo& row : ir::kTable) {
    for (const Case& c : cases_for(row.op)) {
      std::vector<std::vector<double>> values;
      for (const Shape& s : c.shapes) {
        int64_t n = 1;
        for (int64_t d : s) n *= d;
        values.push_back(random_values(static_cast<std::size_t>(n), c.lo, c.hi, seed++));
      }
      expect_gradients_match(c.f, values, c.shapes, row.name);
    }
  }
}

TEST(GradCheck, CastPassesTheGradientThrough) {
  Tensor x = tensor(std::vector<float>{1, 2, 3}, {3}).requires_grad(true);
  Tensor w = tensor(std::vector<double>{0.25, -2, 8}, {3});
  Tensor g = grad(sum(x.cast(f64) * w), {x})[0];
  EXPECT_EQ(g.dtype(), f32);
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{0.25f, -2.f, 8.f}));
  // A cast to an integer dtype stops the gradient: nothing downstream requires one.
  EXPECT_FALSE(x.cast(i32).requires_grad());
  EXPECT_FALSE((x < 2.0f).requires_grad());
}

TEST(GradCheck, Composites) {
  auto v = [](std::size_t n, unsigned s) { return random_values(n, -2, 2, s); };
  expect_gradients_match([](const std::vector<Tensor>& x) { return softmax(x[0], 1); }, {v(12, 1)}, {{3, 4}},
                         "softmax");
  expect_gradients_match([](const std::vector<Tensor>& x) { return softmax(x[0], 0); }, {v(12, 2)}, {{3, 4}},
                         "softmax axis 0");
  expect_gradients_match([](const std::vector<Tensor>& x) { return log_softmax(x[0], -1); }, {v(12, 3)},
                         {{3, 4}}, "log_softmax");
  expect_gradients_match(
      [](const std::vector<Tensor>& x) {
        return cross_entropy(x[0], tensor(std::vector<int64_t>{1, 0, 3}, {3}));
      },
      {v(12, 4)}, {{3, 4}}, "cross_entropy (class indices)");
  expect_gradients_match([](const std::vector<Tensor>& x) { return cross_entropy(x[0], softmax(x[1], 1)); },
                         {v(12, 5), v(12, 6)}, {{3, 4}, {3, 4}},
                         "cross_entropy (probabilities), both inputs");
  expect_gradients_match([](const std::vector<Tensor>& x) { return mean(x[0] * x[0], {0}); }, {v(12, 7)},
                         {{3, 4}}, "mean");
  expect_gradients_match([](const std::vector<Tensor>& x) { return clamp(x[0], -1.0, 1.0); }, {v(12, 8)},
                         {{3, 4}}, "clamp");
  // A two-layer perceptron: matmul, broadcast bias, relu, tanh, and a reused weight.
  expect_gradients_match(
      [](const std::vector<Tensor>& x) {
        Tensor h = tanh(matmul(x[0], x[1]) + x[2]);
        return matmul(relu(h) + h, x[1].T());
      },
      {v(6, 9), v(12, 10), v(4, 11)}, {{2, 3}, {3, 4}, {4}}, "MLP");
}

TEST(GradCheck, SecondDerivativesOfComposites) {
  // The gradient of each composite's simplified rule, checked by finite differences of the
  // gradient itself (a Hessian-vector product).
  auto hessian_check = [](std::function<Tensor(const Tensor&)> f, const std::string& what) {
    auto gradient = [f](const std::vector<Tensor>& x) {
      Tensor v = x[0].requires_grad() ? x[0] : x[0].detach().requires_grad(true);
      return grad(f(v), {v})[0];
    };
    expect_gradients_match(gradient, {random_values(12, -2, 2, 21)}, {{3, 4}}, what, 1e-5);
  };
  Tensor w = tensor(random_values(12, -1, 1, 22), {3, 4});
  hessian_check([w](const Tensor& x) { return sum(softmax(x, 1) * w); }, "softmax''");
  hessian_check([w](const Tensor& x) { return sum(log_softmax(x, 0) * w); }, "log_softmax''");
  hessian_check(
      [](const Tensor& x) {
        return cross_entropy(x, tensor(std::vector<int64_t>{2, 0, 1}, {3}));
      },
      "cross_entropy''");
  hessian_check([w](const Tensor& x) { return sum(tanh(matmul(x, x.T())) * w.slice(1, 0, 3)); },
                "matmul, tanh''");
}

// prod's rule at zeros, where out / x would be NaN: with one zero in a row the zero gets the
// product of the others and the rest 0; with two zeros, all 0; without, out / x.
TEST(GradCheck, ProdAtZeros) {
  Tensor x = tensor(std::vector<double>{1, 0, 3, 0, 0, 2, 2, 3, 4}, {3, 3}).requires_grad(true);
  std::vector<double> g = grad(sum(prod(x, {1})), {x})[0].to_vector<double>();
  const std::vector<double> want{0, 3, 0, 0, 0, 0, 12, 8, 6};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(g[i], want[i]) << "element " << i;
}

// scan group: cumulative_prod's rule at zeros (one and two zeros per row, a zero first and last),
// against the definition d out_j / d x_k = prod_{i <= j, i != k} x_i (no division) and against
// finite differences at those inputs (the product is a polynomial: smooth through 0).
TEST(GradCheck, CumulativeProdAtZeros) {
  const std::vector<double> xv{2, 0, 3, 4, 0.5, 0, 2, 0, 5, -1, 1.5, 2, 3, 0.25, 0, 0, -2, 0.5, 3, 1.5};
  const std::vector<double> wv{0.5, -1, 2, 0.25, 1, 3, -0.5, 2, 1, 0.75, -2, 1, 0.5, 4, 1, 2, 1, -1, 0.5, 3};
  const int64_t rows = 4, n = 5;
  Tensor w = tensor(wv, {rows, n});
  Tensor x = tensor(xv, {rows, n}).requires_grad(true);
  const std::vector<double> g = grad(sum(cumulative_prod(x, 1) * w), {x})[0].to_vector<double>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < n; ++k) {
      double want = 0;
      for (int64_t j = k; j < n; ++j) {
        double p = 1;
        for (int64_t i = 0; i <= j; ++i)
          if (i != k) p *= xv[static_cast<std::size_t>(r * n + i)];
        want += wv[static_cast<std::size_t>(r * n + j)] * p;
      }
      EXPECT_NEAR(g[static_cast<std::size_t>(r * n + k)], want, 1e-12) << "row " << r << " position " << k;
    }
  expect_gradients_match([w](const std::vector<Tensor>& v) { return cumulative_prod(v[0], 1) * w; }, {xv},
                         {{rows, n}}, "cumulative_prod at zeros");
  expect_gradients_match([](const std::vector<Tensor>& v) { return cumulative_prod(v[0], 0); }, {xv},
                         {{rows, n}}, "cumulative_prod at zeros, axis 0");
}

// scatter group: the gradients of take and sort are scatter_adds, themselves differentiable: their
// second derivatives (Hessian-vector products through the gradient) by finite differences.
TEST(GradCheck, SecondDerivativesThroughScatter) {
  auto hessian_check = [](std::function<Tensor(const Tensor&)> f, const std::string& what) {
    auto gradient = [f](const std::vector<Tensor>& x) {
      Tensor v = x[0].requires_grad() ? x[0] : x[0].detach().requires_grad(true);
      return grad(f(v), {v})[0];
    };
    expect_gradients_match(gradient, {random_values(12, -2, 2, 31)}, {{3, 4}}, what, 1e-5);
  };
  Tensor idx = tensor(std::vector<int64_t>{3, 0, 3, -1, 7, 1}, {6});
  Tensor w = tensor(random_values(18, -1, 1, 32), {3, 6});
  hessian_check([idx, w](const Tensor& x) { return sum(take(x * x, idx, 1) * w); }, "take''");
  hessian_check([](const Tensor& x) { return sum(sort(x, 1) * sort(x * x, 1)); }, "sort''");
  hessian_check(
      [idx](const Tensor& x) { return sum(scatter_add(x * x, 1, idx.slice(0, 0, 4), x.slice(1, 0, 4) * x)); },
      "scatter_add''");
}

// manip group (issue #15): the manipulation composites have no rule of their own; their
// gradients come through their parts (slices, cat, expand, reshape, where, subtraction).
TEST(GradCheck, ManipulationComposites) {
  auto v = [](std::size_t n, unsigned s) { return random_values(n, -2, 2, s); };
  auto one = [&](std::function<Tensor(const Tensor&)> f, Shape shape, const std::string& what,
                 unsigned seed) {
    std::size_t n = 1;
    for (int64_t d : shape) n *= static_cast<std::size_t>(d);
    expect_gradients_match([f](const std::vector<Tensor>& x) { return f(x[0]); }, {v(n, seed)}, {shape},
                           what);
  };
  one([](const Tensor& x) { return roll(x, 2, 1) * x; }, {3, 5}, "roll axis", 31);
  one([](const Tensor& x) { return roll(x, -4) * x; }, {3, 5}, "roll flattened", 32);
  one([](const Tensor& x) { return roll(x, {1, 3}, {0, 1}); }, {3, 5}, "roll two axes", 33);
  one([](const Tensor& x) { return tile(x, {2, 1, 3}) * tile(x, {2, 1, 3}); }, {2, 3}, "tile", 34);
  one([](const Tensor& x) { return repeat(x, 2, 1) * repeat(x, 2, 1); }, {2, 3}, "repeat", 35);
  one(
      [](const Tensor& x) {
        return repeat(x, tensor(std::vector<int64_t>{2, 0, 3}, {3}), 1) * 1.5;
      },
      {2, 3}, "repeat counts", 36);
  one([](const Tensor& x) { return diff(x * x, 1); }, {3, 5}, "diff", 37);
  one([](const Tensor& x) { return diff(x, 0, 2, x.slice(0, 0, 1) * 2.0, x); }, {3, 4},
      "diff n=2 prepend/append", 38);
  one([](const Tensor& x) { return tril(x * x, 1) + triu(x, -1); }, {2, 3, 4}, "tril, triu", 39);
  one([](const Tensor& x) { return moveaxis(x, 0, -1) * unstack(x, 1)[1].T(); }, {2, 3, 4},
      "moveaxis, unstack", 40);
}

}  // namespace
}  // namespace cgrad
