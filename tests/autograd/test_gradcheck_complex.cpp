// Finite-difference checks of the complex gradients (complex group, issue #15; docs/autograd.md):
// for a real loss L the gradient of a complex input z must be dL/dRe(z) + i dL/dIm(z) (PyTorch's
// convention), so each element's real and imaginary parts are perturbed separately and the two
// central differences compared with the gradient's parts. Every op-table row that takes complex
// values and passes a gradient has a case here (checked against the table), several with a real
// input next to a complex one; second derivatives where the real sweep checks them; backward()
// of a complex output raises; SGD and Adam minimize |z - z0|^2 over a complex parameter.
#include "gradcheck.h"

#include "core/shape.hpp"
#include "ir/derivatives.h"
#include "ir/op_table.h"

#include <cgrad/optim.hpp>
#include <cgrad/scalar.hpp>

#include <complex>
#include <memory>

namespace cgrad {
namespace {

using ir::Op;
using test::random_values;
using Z = std::complex<double>;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// An input of a case: complex (c128) unless `real` (f64), values in [lo, hi] for each part.
struct Input {
  Shape shape;
  bool real = false;
};

struct Case {
  Fn f;
  std::vector<Input> inputs;
  double lo = -1.5, hi = 1.5;
};

Tensor c128_tensor(const std::vector<Z>& v, const Shape& s) {
  std::vector<complex128_t> d;
  for (const Z& z : v) d.emplace_back(z.real(), z.imag());
  return tensor(d, s, test::gradcheck_device());
}

Tensor make_input(const std::vector<Z>& v, const Input& in) {
  if (!in.real) return c128_tensor(v, in.shape);
  std::vector<double> r;
  for (const Z& z : v) r.push_back(z.real());
  return tensor(r, in.shape, test::gradcheck_device());
}

std::vector<Z> values_of(const Tensor& t) {
  std::vector<Z> out;
  if (is_complex(t.dtype())) {
    for (auto z : t.to_vector<complex128_t>()) out.emplace_back(z.re, z.im);
  } else {
    for (double x : t.to_vector<double>()) out.emplace_back(x, 0.0);
  }
  return out;
}

// Checks grad(L, xs) for L = Re(sum(f(xs) * w)), w a fixed complex weight of f's output shape (so
// both parts of every output element count, differently), against central differences in the
// real and the imaginary part of every input element.
void expect_complex_gradients_match(const Fn& f, const std::vector<std::vector<Z>>& values,
                                    const std::vector<Input>& inputs, const std::string& what,
                                    double tol = 1e-6) {
  std::vector<Tensor> xs;
  for (std::size_t i = 0; i < values.size(); ++i)
    xs.push_back(make_input(values[i], inputs[i]).requires_grad(true));
  const Tensor out = f(xs);
  ASSERT_TRUE(out.dtype() == c128 || out.dtype() == f64) << what << ": " << dtype_name(out.dtype());
  const auto n = static_cast<std::size_t>(out.numel());
  const std::vector<double> wr = random_values(n, 0.5, 1.5, 7), wi = random_values(n, -1, 1, 8);
  std::vector<Z> wv;
  for (std::size_t k = 0; k < n; ++k) wv.emplace_back(wr[k], wi[k]);
  const Tensor w = c128_tensor(wv, out.shape());
  auto objective = [&](const std::vector<Tensor>& in) { return sum(real(f(in) * w)); };
  const std::vector<Tensor> g = grad(objective(xs), xs);
  ASSERT_EQ(g.size(), xs.size());
  const double h = 1e-6;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    ASSERT_EQ(g[i].shape(), inputs[i].shape) << what << " input " << i;
    ASSERT_EQ(g[i].dtype(), xs[i].dtype()) << what << " input " << i;
    const std::vector<Z> analytic = values_of(g[i]);
    for (std::size_t k = 0; k < values[i].size(); ++k) {
      auto at = [&](Z delta) {
        std::vector<Tensor> in;
        for (std::size_t j = 0; j < values.size(); ++j) {
          std::vector<Z> v = values[j];
          if (j == i) v[k] += delta;
          in.push_back(make_input(v, inputs[j]));
        }
        return objective(in).item<double>();
      };
      const double d_re = (at({h, 0}) - at({-h, 0})) / (2 * h);
      const double d_im = inputs[i].real ? 0.0 : (at({0, h}) - at({0, -h})) / (2 * h);
      const double scale = std::max(1.0, std::abs(Z(d_re, d_im)));
      EXPECT_NEAR(analytic[k].real(), d_re, tol * scale) << what << ": dL/dRe input " << i << "[" << k << "]";
      EXPECT_NEAR(analytic[k].imag(), d_im, tol * scale) << what << ": dL/dIm input " << i << "[" << k << "]";
    }
  }
}

std::vector<Z> random_complex(std::size_t n, double lo, double hi, unsigned seed) {
  const std::vector<double> re = random_values(n, lo, hi, seed), im = random_values(n, lo, hi, seed + 1000);
  std::vector<Z> v;
  for (std::size_t k = 0; k < n; ++k) v.emplace_back(re[k], im[k]);
  return v;
}

const Input kC34{{3, 4}}, kR34{{3, 4}, true};

std::vector<Case> complex_cases_for(Op op) {
  auto unary = [](Tensor (*g)(const Tensor&), double lo = -1.5, double hi = 1.5) {
    return std::vector<Case>{{[g](const std::vector<Tensor>& x) { return g(x[0]); }, {kC34}, lo, hi}};
  };
  auto unary_twice = [&](Tensor (*g)(const Tensor&), double lo, double hi) {
    std::vector<Case> c = unary(g, lo, hi), far = unary(g, -2.5, -1.2);
    c.insert(c.end(), far.begin(), far.end());
    return c;
  };
  // Complex with complex, broadcast, and complex with a real operand (promoted by a cast).
  auto binary = [](Fn f, double lo = -1.5, double hi = 1.5) {
    return std::vector<Case>{
        {f, {kC34, kC34}, lo, hi}, {f, {{{3, 1}}, {{4}}}, lo, hi}, {f, {kC34, kR34}, lo, hi}};
  };
  switch (op) {
    case Op::Neg: return unary([](const Tensor& x) { return -x; });
    case Op::Exp: return unary(exp);
    case Op::Log: return unary(log, 0.3, 2);  // Re > 0: away from the branch cut on the negative axis
    case Op::Sqrt: return unary(sqrt, 0.3, 2);
    case Op::Abs: return unary(abs);
    case Op::Sin: return unary(sin);
    case Op::Cos: return unary(cos);
    case Op::Tanh: return unary(tanh, -1, 1);
    case Op::Cast:  // real -> complex: the gradient's real part comes back (c64 <-> c128 rounds: checked
                    // exactly in ConventionOnAWorkedExample)
      return {{[](const std::vector<Tensor>& x) { return x[0].cast(c128) * x[1]; }, {kR34, kC34}}};
    case Op::Sign: return unary(sign);
    case Op::Log1p: return unary(log1p, 0.1, 2);
    case Op::Expm1: return unary(expm1);
    case Op::Tan: return unary(tan, -0.7, 0.7);
    case Op::Sinh: return unary(sinh);
    case Op::Cosh: return unary(cosh);
    case Op::Add: return binary([](const std::vector<Tensor>& x) { return x[0] + x[1]; });
    case Op::Sub: return binary([](const std::vector<Tensor>& x) { return x[0] - x[1]; });
    case Op::Mul: return binary([](const std::vector<Tensor>& x) { return x[0] * x[1]; });
    case Op::Div: return binary([](const std::vector<Tensor>& x) { return x[0] / x[1]; }, 0.4, 1.5);
    case Op::Pow: return binary([](const std::vector<Tensor>& x) { return pow(x[0], x[1]); }, 0.4, 1.5);
    case Op::Where:
      return {{[](const std::vector<Tensor>& x) { return where(real(x[0]) > 0, x[0] * x[1], x[1]); },
               {kC34, kC34}}};
    case Op::Sum:
      return {{[](const std::vector<Tensor>& x) { return sum(x[0], {1}) * sum(x[0]); }, {kC34}},
              {[](const std::vector<Tensor>& x) { return mean(x[0] * x[0], {0}); }, {kC34}}};
    case Op::Prod:
      return {{[](const std::vector<Tensor>& x) { return prod(x[0], {1}); }, {kC34}},
              {[](const std::vector<Tensor>& x) { return prod(x[0]); }, {{{2, 3}}}}};
    case Op::Reshape:
      return {{[](const std::vector<Tensor>& x) {
                 return x[0].reshape({4, 3}) * x[0].reshape({4, 3});
               },
               {kC34}}};
    case Op::Permute:
      return {{[](const std::vector<Tensor>& x) { return x[0].permute({1, 0}) * x[0].T(); }, {kC34}}};
    case Op::Expand:
      return {{[](const std::vector<Tensor>& x) {
                 return x[0].expand({2, 3, 4}) * x[0].expand({2, 3, 4});
               },
               {{{3, 1}}}}};
    case Op::Slice:
      return {{[](const std::vector<Tensor>& x) { return x[0].slice(1, 1, 4, 2) * x[0].slice(1, 0, 3, 2); },
               {{{3, 5}}}}};
    case Op::Flip: return {{[](const std::vector<Tensor>& x) { return flip(x[0], {1}) * x[0]; }, {kC34}}};
    case Op::Cat:
      return {{[](const std::vector<Tensor>& x) {
                 return cat({x[0], x[1] * x[1], conj(x[0])}, 1);
               },
               {{{2, 3}}, {{2, 2}}}}};
    case Op::Matmul:
      return {{[](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {kC34, {{4, 2}}}},
              {[](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {{{2, 3, 4}}, {{4, 5}}}},
              {[](const std::vector<Tensor>& x) { return matmul(x[0], x[1]); }, {{{4}}, {{4, 2}, true}}}};
    case Op::CumSum:
      return {
          {[](const std::vector<Tensor>& x) { return cumulative_sum(x[0] * x[0], 1); }, {kC34}},
          {[](const std::vector<Tensor>& x) { return cumulative_sum(x[0], 0, std::nullopt, true); }, {kC34}}};
    case Op::CumProd:
      return {{[](const std::vector<Tensor>& x) { return cumulative_prod(x[0], 1); }, {kC34}},
              {[](const std::vector<Tensor>& x) { return cumulative_prod(x[0], 0, std::nullopt, true); },
               {kC34}}};
    case Op::Take:
      return {{[](const std::vector<Tensor>& x) {
                 return take(x[0], tensor(std::vector<int64_t>{2, 0, 2, -1, 5, -6}, {6}), 1) * x[1];
               },
               {kC34, {{3, 6}}}}};
    // (branch cuts: asin acos atanh on the real axis beyond +-1, atan asinh on the imaginary axis
    // beyond +-i, acosh on the real axis below 1, log2 log10 on the negative real axis.) These
    // rows take complex values once their dtype masks name complex (FiniteDifferencesOfEveryRow
    // skips them before); their rules need nothing more (derivatives.cpp: complex_grad).
    // Each also in the third quadrant, |parts| in [1.2, 2.5]: beyond |z| = 1, off every cut, and
    // for acosh the left half-plane, where its rule differs from 1 / sqrt(z^2 - 1).
    case Op::Asin: return unary_twice(asin, -0.8, 0.8);
    case Op::Acos: return unary_twice(acos, -0.8, 0.8);
    case Op::Atan: return unary_twice(atan, -0.7, 0.7);
    case Op::Asinh: return unary_twice(asinh, -0.7, 0.7);
    case Op::Acosh: return unary_twice(acosh, 1.2, 2.5);
    case Op::Atanh: return unary_twice(atanh, -0.8, 0.8);
    case Op::Log2: return unary(log2, 0.3, 2);
    case Op::Log10: return unary(log10, 0.3, 2);
    case Op::Round: return unary(round);  // zero almost everywhere
    case Op::Conj: return unary(conj);
    case Op::Real: return {{[](const std::vector<Tensor>& x) { return real(x[0]) * x[0]; }, {kC34}}};
    case Op::Imag: return {{[](const std::vector<Tensor>& x) { return imag(x[0]) * imag(x[0]); }, {kC34}}};
    case Op::Complex:
      return {{[](const std::vector<Tensor>& x) { return complex(x[0], x[1]) * complex(x[1] * x[0], x[0]); },
               {kR34, kR34}}};
    default: return {};
  }
}

// The rows whose derivative rule takes complex values: every row with a rule whose dtype mask
// names complex, and whose inputs can be complex or whose result is.
TEST(ComplexGradCheck, EveryComplexRowIsChecked) {
  for (const ir::OpInfo& row : ir::kTable) {
    if (row.vjp == &autograd::vjp::none) continue;
    const bool complex_in = (row.inputs & ir::kComplex) != 0;
    if (!complex_in && row.dtype_rule != ir::DTypeRule::Complex) continue;
    EXPECT_NE(autograd::complex_grad(row.op), autograd::ComplexGrad::None)
        << row.name << " takes complex values but complex_grad() has no rule for it";
    EXPECT_FALSE(complex_cases_for(row.op).empty()) << row.name << " has no complex gradient check";
  }
}

TEST(ComplexGradCheck, FiniteDifferencesOfEveryRow) {
  unsigned seed = 1;
  for (const ir::OpInfo& row : ir::kTable) {
    if (!(row.inputs & ir::kComplex) && row.dtype_rule != ir::DTypeRule::Complex) continue;  // real only
    for (const Case& c : complex_cases_for(row.op)) {
      std::vector<std::vector<Z>> values;
      for (const Input& in : c.inputs)
        values.push_back(random_complex(static_cast<std::size_t>(core::numel(in.shape)), c.lo, c.hi, seed++));
      expect_complex_gradients_match(c.f, values, c.inputs, row.name);
    }
  }
}

// Second derivatives (as the real sweep's SecondDerivativesOfComposites and ...ThroughScatter): the
// gradient z -> grad(L, z) is itself a function C -> C whose gradient of Re(sum(g * w)) is checked.
TEST(ComplexGradCheck, SecondDerivatives) {
  auto hessian_check = [](std::function<Tensor(const Tensor&)> f, const std::string& what) {
    auto gradient = [f](const std::vector<Tensor>& x) {
      Tensor v = x[0].requires_grad() ? x[0] : x[0].detach().requires_grad(true);
      return grad(f(v), {v}, true)[0];
    };
    expect_complex_gradients_match(gradient, {random_complex(12, -1, 1, 21)}, {kC34}, what, 1e-5);
  };
  const Tensor w = c128_tensor(random_complex(12, -1, 1, 22), {3, 4});
  const Tensor idx = tensor(std::vector<int64_t>{3, 0, 3, -1, 7, 1}, {6});
  const Tensor w6 = c128_tensor(random_complex(18, -1, 1, 23), {3, 6});
  hessian_check([w](const Tensor& x) { return sum(real(tanh(matmul(x, x.T())) * w.slice(1, 0, 3))); },
                "matmul, tanh''");
  hessian_check([w](const Tensor& x) { return sum(abs(exp(x) * w + x * x)); }, "abs, exp, mul''");
  hessian_check([idx, w6](const Tensor& x) { return sum(imag(take(x * x, idx, 1) * w6)); }, "take''");
  hessian_check([w](const Tensor& x) { return sum(real(cumulative_prod(x, 1) * conj(x) * w)); },
                "cumulative_prod, conj''");
}

// The convention on a worked example (docs/autograd.md): L = |z|^2 = x^2 + y^2 has the gradient
// 2x + 2iy = 2z, and for a holomorphic f, L = Re(f(z)) gives conj(f'(z)).
TEST(ComplexGradCheck, ConventionOnAWorkedExample) {
  Tensor z = c128_tensor({{1.5, -2}}, {1}).requires_grad(true);
  sum(real(z * conj(z))).backward();
  EXPECT_EQ(values_of(z.grad())[0], Z(3, -4));
  z.clear_grad();
  sum(abs(z) * abs(z)).backward();
  EXPECT_NEAR(std::abs(values_of(z.grad())[0] - Z(3, -4)), 0, 1e-12);
  z.clear_grad();
  sum(real(z * z)).backward();  // f' = 2z, conj(f') = 2 conj(z)
  EXPECT_EQ(values_of(z.grad())[0], Z(3, 4));
  // c64 leaves get c64 gradients.
  Tensor z32 = tensor(std::vector<complex64_t>{complex64_t(1.0f, 1.0f)}, {1}).requires_grad(true);
  sum(imag(z32 * z32)).backward();  // Im(z^2) = 2xy: gradient 2y + 2ix
  EXPECT_EQ(z32.grad().dtype(), c64);
  EXPECT_EQ(z32.grad().to_vector<complex64_t>()[0].re, 2.0f);
  EXPECT_EQ(z32.grad().to_vector<complex64_t>()[0].im, 2.0f);
  // A c64 -> c128 cast casts the gradient back: L = Re(z w) has the gradient conj(w).
  z32.clear_grad();
  sum(real(z32.cast(c128) * c128_tensor({{0.25, -2}}, {1}))).backward();
  EXPECT_EQ(z32.grad().dtype(), c64);
  EXPECT_EQ(z32.grad().to_vector<complex64_t>()[0].re, 0.25f);
  EXPECT_EQ(z32.grad().to_vector<complex64_t>()[0].im, 2.0f);
}

TEST(ComplexGradCheck, BackwardOfAComplexOutputRaises) {
  Tensor z = c128_tensor({{1, 2}}, {1}).requires_grad(true);
  Tensor y = sum(z * z);
  for (const auto& f :
       std::vector<std::function<void()>>{[&] { y.backward(); }, [&] { (void)grad(y, {z}); }}) {
    try {
      f();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidOperation);
      EXPECT_NE(std::string(e.what()).find("grad can be implicitly created only for real scalar outputs"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(z.grad().defined());  // nothing accumulated
  // A row without a complex rule (none today) and integer leaves: requires_grad refuses integers.
  EXPECT_THROW(tensor(std::vector<int32_t>{1}, {1}).requires_grad(true), Error);
}

// SGD and Adam minimize |z - z0|^2 over a complex parameter: the gradient 2(z - z0) points
// uphill in the complex plane, so the unchanged update rules converge to z0.
TEST(ComplexGradCheck, OptimizersMinimizeOverComplexParameters) {
  const std::vector<Z> z0 = {{1, -2}, {0.5, 3}, {-1.5, 0.25}};
  for (int which : {0, 1, 2}) {
    for (DType t : {c64, c128}) {
      Tensor target = c128_tensor(z0, {3}).cast(t);
      Tensor z = c128_tensor({0, 0, 0}, {3}).cast(t).eval();  // on the checked device
      z.requires_grad(true);
      std::unique_ptr<optim::Optimizer> opt;
      if (which == 0) opt = std::make_unique<optim::SGD>(std::vector<Tensor>{z}, 0.1);
      if (which == 1) opt = std::make_unique<optim::SGD>(std::vector<Tensor>{z}, 0.05, 0.9);
      if (which == 2) opt = std::make_unique<optim::Adam>(std::vector<Tensor>{z}, 0.1);
      for (int step = 0; step < 300; ++step) {
        opt->zero_grad();
        Tensor d = z - target;
        sum(real(d * conj(d))).backward();
        opt->step();
      }
      const std::vector<Z> got = values_of(z.cast(c128));
      for (std::size_t k = 0; k < z0.size(); ++k)
        EXPECT_LT(std::abs(got[k] - z0[k]), 1e-3)
            << "optimizer " << which << " " << dtype_name(t) << " [" << k << "]";
    }
  }
}

}  // namespace
}  // namespace cgrad
