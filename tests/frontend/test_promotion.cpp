// Broadcasting and type promotion through the public operators: the NumPy broadcast table,
// PyTorch-style promotion for every dtype pair, tensor-scalar (a C++ scalar never widens a
// tensor's dtype within its category), 0-d tensors against dimensioned ones, comparisons -> b8,
// true division and unary math of integers -> f32, and the accumulating dtype of sum.
#include "util.h"

#include "ir/op_table.h"

#include <cmath>

namespace ft {
namespace {

constexpr DType kAll[] = {f32, f64, i32, i64, b8};

// A tensor 0, 1, 2, ... of `shape`.
Tensor iota(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return arange(n, f64).reshape(shape);
}

TEST(Broadcast, ShapesAndValues) {
  struct Case {
    Shape a, b, want;
  };
  const Case cases[] = {
      {{3}, {3}, {3}},
      {{2, 3}, {3}, {2, 3}},
      {{2, 1}, {1, 3}, {2, 3}},
      {{4, 1, 3}, {2, 1}, {4, 2, 3}},
      {{}, {2, 2}, {2, 2}},
      {{1}, {5}, {5}},
      {{3, 1, 1}, {1, 4}, {3, 1, 4}},
      {{0}, {1}, {0}},
      {{2, 0}, {2, 1}, {2, 0}},
      {{1, 1, 1}, {}, {1, 1, 1}},
      {{5, 1, 4, 1}, {3, 1, 2}, {5, 3, 4, 2}},
  };
  for (const Case& c : cases) {
    Tensor a = iota(c.a), b = iota(c.b) * 1000.0;
    Tensor s = a + b;
    ASSERT_EQ(s.shape(), c.want) << shape_str(c.a) << " + " << shape_str(c.b);
    EXPECT_EQ((b + a).shape(), c.want);
    // Reference: index each operand with broadcasting.
    const std::size_t r = c.want.size();
    std::vector<double> va = vals(a), vb = vals(b), got = vals(s);
    int64_t n = 1;
    for (int64_t d : c.want) n *= d;
    ASSERT_EQ(static_cast<int64_t>(got.size()), n);
    for (int64_t k = 0; k < n; ++k) {
      std::vector<int64_t> idx(r);
      int64_t rem = k;
      for (std::size_t d = r; d-- > 0;) {
        idx[d] = rem % c.want[d];
        rem /= c.want[d];
      }
      auto at = [&](const Shape& sh) {
        int64_t off = 0;
        for (std::size_t d = 0; d < sh.size(); ++d) {
          int64_t i = idx[d + r - sh.size()];
          off = off * sh[d] + (sh[d] == 1 ? 0 : i);
        }
        return static_cast<std::size_t>(off);
      };
      EXPECT_EQ(got[static_cast<std::size_t>(k)], va[at(c.a)] + vb[at(c.b)])
          << shape_str(c.a) << " + " << shape_str(c.b);
    }
  }
}

TEST(Broadcast, IncompatibleShapesThrow) {
  const std::pair<Shape, Shape> bad[] = {
      {{3}, {4}}, {{2, 3}, {3, 2}}, {{2}, {0}}, {{2, 3, 4}, {3, 1, 4}}, {{5, 2}, {5}}};
  for (const auto& ab : bad) {
    const Shape& sa = ab.first;
    const Shape& sb = ab.second;
    Tensor a = zeros(sa), b = zeros(sb);
    expect_error([&] { a + b; }, ErrorCode::ShapeMismatch, {"add", shape_str(sa), shape_str(sb)}, "add");
    expect_error([&] { a* b; }, ErrorCode::ShapeMismatch, {"mul"}, "mul");
    expect_error([&] { (void)(a < b); }, ErrorCode::ShapeMismatch, {"lt"}, "lt");
    expect_error([&] { maximum(a, b); }, ErrorCode::ShapeMismatch, {"maximum"}, "maximum");
    expect_error([&] { where(a == 0.0, a, b); }, ErrorCode::ShapeMismatch, {"where"}, "where");
  }
}

// promote(row, column) in the order f32 f64 i32 i64 b8.
const DType kPromote[5][5] = {
    {f32, f64, f32, f32, f32}, {f64, f64, f64, f64, f64}, {f32, f64, i32, i64, i32},
    {f32, f64, i64, i64, i64}, {f32, f64, i32, i64, b8},
};

TEST(Promotion, TensorTensorEveryPair) {
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      const DType a = kAll[i], b = kAll[j], want = kPromote[i][j];
      SCOPED_TRACE(std::string(dtype_name(a)) + " with " + dtype_name(b));
      Tensor x = ones({2}, a), y = ones({2}, b);
      EXPECT_EQ(maximum(x, y).dtype(), want);
      EXPECT_EQ(minimum(y, x).dtype(), want);
      EXPECT_EQ(where(x == y, x, y).dtype(), want);
      EXPECT_EQ(cat({x, y}).dtype(), want);
      for (auto cmp : {+[](const Tensor&p, const Tensor&q) { return p < q; },
                       +[](const Tensor&p, const Tensor&q) { return p == q; },
                       +[](const Tensor&p, const Tensor&q) { return p >= q; }})
        EXPECT_EQ(cmp(x, y).dtype(), b8);
      // True division: floats keep the promoted dtype, everything else computes in f32.
      EXPECT_EQ((x / y).dtype(), is_floating(want) ? want : f32);
      EXPECT_EQ(vals(x / y), (std::vector<double>{1, 1}));
      if (want == b8) {
        expect_error([&] { x + y; }, ErrorCode::DTypeMismatch, {"add", "b8"}, "b8 + b8");
        expect_error([&] { x - y; }, ErrorCode::DTypeMismatch, {"sub", "b8"}, "b8 - b8");
        expect_error([&] { x* y; }, ErrorCode::DTypeMismatch, {"mul", "b8"}, "b8 * b8");
        expect_error([&] { pow(x, y); }, ErrorCode::DTypeMismatch, {"pow", "b8"}, "pow of b8");
      } else {
        EXPECT_EQ((x + y).dtype(), want);
        EXPECT_EQ((x - y).dtype(), want);
        EXPECT_EQ((x * y).dtype(), want);
        EXPECT_EQ(pow(x, y).dtype(), want);
        EXPECT_EQ(vals(x + y), (std::vector<double>{2, 2}));
        EXPECT_EQ(vals(matmul(x, y)), std::vector<double>{2});
        EXPECT_EQ(matmul(x, y).dtype(), want);
      }
    }
}

TEST(Promotion, TensorScalar) {
  // Column: bool, int, float C++ scalar.
  const DType want[5][3] = {
      {f32, f32, f32}, {f64, f64, f64}, {i32, i32, f32}, {i64, i64, f32}, {b8, i64, f32}};
  const Scalar scalars[3] = {Scalar(true), Scalar(2), Scalar(2.5)};
  for (int i = 0; i < 5; ++i)
    for (int s = 0; s < 3; ++s) {
      const DType t = kAll[i];
      SCOPED_TRACE(std::string(dtype_name(t)) + " tensor with scalar #" + std::to_string(s));
      Tensor x = ones({3}, t);
      EXPECT_EQ(maximum(x, scalars[s]).dtype(), want[i][s]);
      EXPECT_EQ(minimum(x, scalars[s]).dtype(), want[i][s]);
      EXPECT_EQ(where(x == x, x, scalars[s]).dtype(), want[i][s]);
      EXPECT_EQ(where(x == x, scalars[s], x).dtype(), want[i][s]);
      EXPECT_EQ((x < scalars[s]).dtype(), b8);
      EXPECT_EQ((x / scalars[s]).dtype(), is_floating(want[i][s]) ? want[i][s] : f32);
      EXPECT_EQ((scalars[s] / x).dtype(), is_floating(want[i][s]) ? want[i][s] : f32);
      if (want[i][s] == b8) {
        expect_error([&] { x + scalars[s]; }, ErrorCode::DTypeMismatch, {"add"}, "b8 + bool");
      } else {
        EXPECT_EQ((x + scalars[s]).dtype(), want[i][s]);
        EXPECT_EQ((scalars[s] + x).dtype(), want[i][s]);
        EXPECT_EQ((x * scalars[s]).dtype(), want[i][s]);
        EXPECT_EQ((scalars[s] - x).dtype(), want[i][s]);
        EXPECT_EQ(pow(x, scalars[s]).dtype(), want[i][s]);
        EXPECT_EQ(pow(scalars[s], x).dtype(), want[i][s]);
      }
    }
  // Values: the scalar is converted to the result dtype.
  Tensor xi = tensor(std::vector<int32_t>{3, -3}, {2});
  EXPECT_EQ((xi + 2.5).to_vector<float>(), (std::vector<float>{5.5f, -0.5f}));
  EXPECT_EQ((xi * int64_t{(1LL << 32) + 2}).to_vector<int32_t>(), (std::vector<int32_t>{6, -6}))
      << "wraps like i32";
  EXPECT_EQ((xi + true).to_vector<int32_t>(), (std::vector<int32_t>{4, -2}));
  EXPECT_EQ((xi < 2.5).to_vector<int64_t>(), (std::vector<int64_t>{0, 1}))
      << "compared in f32, not truncated";
  EXPECT_EQ((xi == 3.0).to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  Tensor xf = tensor(std::vector<float>{1, 2}, {2});
  EXPECT_EQ((xf + 0.1).to_vector<float>(), (std::vector<float>{1.1f, 2.1f})) << "f32 arithmetic, not f64";
  EXPECT_EQ((xf * (int64_t{1} << 40)).dtype(), f32);
  Tensor xb = tensor(std::vector<bool>{true, false}, {2});
  EXPECT_EQ((xb * 3).to_vector<int64_t>(), (std::vector<int64_t>{3, 0}));
  EXPECT_EQ((xb + 0.5).to_vector<float>(), (std::vector<float>{1.5f, 0.5f}));
  EXPECT_EQ(maximum(xb, false).to_vector<int64_t>(), (std::vector<int64_t>{1, 0}));
  // Other C++ scalar types.
  EXPECT_EQ((xi + static_cast<short>(1)).dtype(), i32);
  EXPECT_EQ((xi + 1u).dtype(), i32);
  EXPECT_EQ((xi + 1.5f).dtype(), f32);
  EXPECT_EQ((tensor(std::vector<double>{1}, {1}) + 1.5f).dtype(), f64);
}

TEST(Promotion, ZeroDimAgainstDimensioned) {
  // Row: the dimensioned tensor's dtype; column: the 0-d tensor's dtype (PyTorch rules: a 0-d
  // tensor only matters when it is of a higher category, and then its own dtype wins).
  const DType want[5][5] = {
      {f32, f32, f32, f32, f32}, {f64, f64, f64, f64, f64}, {f32, f64, i32, i32, i32},
      {f32, f64, i64, i64, i64}, {f32, f64, i32, i64, b8},
  };
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      SCOPED_TRACE(std::string(dtype_name(kAll[i])) + " with 0-d " + dtype_name(kAll[j]));
      Tensor x = ones({2}, kAll[i]), z = ones({}, kAll[j]);
      EXPECT_EQ(maximum(x, z).dtype(), want[i][j]);
      EXPECT_EQ(maximum(z, x).dtype(), want[i][j]);
      EXPECT_EQ(maximum(x, z).shape(), (Shape{2}));
      // Two 0-d tensors promote normally.
      EXPECT_EQ(maximum(ones({}, kAll[i]), z).dtype(), kPromote[i][j]);
    }
  Tensor xi = tensor(std::vector<int32_t>{1, 2}, {2});
  Tensor half = tensor(std::vector<double>{0.5}, {});
  EXPECT_EQ((xi + half).dtype(), f64);
  EXPECT_EQ((xi + half).to_vector<double>(), (std::vector<double>{1.5, 2.5}));
  Tensor xf = tensor(std::vector<float>{1, 2}, {2});
  EXPECT_EQ((xf + half).dtype(), f32);
  EXPECT_EQ((xi + tensor(std::vector<int64_t>{1LL << 33}, {})).to_vector<int32_t>(),
            (std::vector<int32_t>{1, 2}));
  // A 0-d tensor against C++ scalars behaves like a dimensioned tensor.
  EXPECT_EQ((tensor(std::vector<int32_t>{1}, {}) + 2.5).dtype(), f32);
  EXPECT_EQ((tensor(std::vector<double>{1}, {}) + 2).dtype(), f64);
  EXPECT_EQ((tensor(std::vector<bool>{true}, {}) + 2).dtype(), i64);
}

TEST(Promotion, IntegerMathGoesThroughF32) {
  for (DType t : {i32, i64, b8}) {
    SCOPED_TRACE(dtype_name(t));
    Tensor x = ones({3}, t);
    for (auto f : {+[](const Tensor& v) { return exp(v); }, +[](const Tensor& v) { return log(v); },
                   +[](const Tensor& v) { return sqrt(v); }, +[](const Tensor& v) { return rsqrt(v); },
                   +[](const Tensor& v) { return sin(v); }, +[](const Tensor& v) { return cos(v); },
                   +[](const Tensor& v) { return tanh(v); }, +[](const Tensor& v) { return sigmoid(v); }}) {
      EXPECT_EQ(f(x).dtype(), f32);
      EXPECT_EQ(f(x).shape(), (Shape{3}));
    }
    EXPECT_EQ(exp(x).to_vector<float>(), std::vector<float>(3, std::exp(1.0f)));
    EXPECT_EQ((x / x).dtype(), f32);
    EXPECT_EQ(softmax(x).dtype(), f32);
    if (t != b8) {
      EXPECT_EQ((-x).dtype(), t);
      EXPECT_EQ(abs(x).dtype(), t);
      EXPECT_EQ(relu(x).dtype(), t);
    } else {
      expect_error([&] { -x; }, ErrorCode::DTypeMismatch, {"neg", "b8"}, "neg of b8");
      expect_error([&] { abs(x); }, ErrorCode::DTypeMismatch, {"abs", "b8"}, "abs of b8");
      expect_error([&] { relu(x); }, ErrorCode::DTypeMismatch, {"relu", "b8"}, "relu of b8");
    }
  }
  Tensor a = tensor(std::vector<int32_t>{7, -7, 1, 0}, {4});
  Tensor b = tensor(std::vector<int32_t>{2, 2, 0, 0}, {4});
  auto q = (a / b).to_vector<float>();
  EXPECT_EQ(q[0], 3.5f);
  EXPECT_EQ(q[1], -3.5f);
  EXPECT_TRUE(std::isinf(q[2]));
  EXPECT_TRUE(std::isnan(q[3]));
  EXPECT_EQ((tensor(std::vector<int64_t>{1}, {1}) / 2).to_vector<float>(), std::vector<float>{0.5f});
}

TEST(Promotion, ReductionDTypes) {
  for (DType t : kAll) {
    Tensor x = ones({2, 3}, t);
    EXPECT_EQ(sum(x).dtype(), is_floating(t) ? t : i64) << dtype_name(t);
    EXPECT_EQ(max(x).dtype(), t);
    EXPECT_EQ(min(x, {0}).dtype(), t);
    EXPECT_EQ(sum(x).item<int64_t>(), 6);
  }
  EXPECT_EQ(sum(tensor(std::vector<int32_t>{INT32_MAX, INT32_MAX}, {2})).item<int64_t>(), 2LL * INT32_MAX)
      << "i32 sums accumulate in i64";
  EXPECT_EQ(sum(tensor(std::vector<bool>{true, true, false}, {3})).item<int64_t>(), 2);
}

}  // namespace
}  // namespace ft

namespace ft {
namespace {

// Issue 17 item 9: b8 operands alone (docs/semantics.md, "Type promotion"). Ops whose result
// keeps the operands' dtype reject b8 (no logical `+`/`*` as in NumPy and PyTorch); ops that
// always compute in floating point (true division, unary math) convert b8 to f32 as they do
// integers (NumPy and PyTorch: bool / bool is a float); maximum, minimum and comparisons keep b8.
TEST(Promotion, BoolOperandsAloneFollowOneRule) {
  // The rule read off the op table: every element-wise op falls in exactly one class, and the
  // rejected ones are the arithmetic ops the docs name (a new op must be placed explicitly).
  std::vector<std::string> rejected;
  for (int i = 0; i < ir::kNumOps; ++i) {
    const ir::OpInfo& row = ir::info(static_cast<ir::Op>(i));
    if ((row.kind != ir::OpKind::Unary && row.kind != ir::OpKind::Binary) || row.op == ir::Op::Cast) continue;
    // complex group: conj/real/imag rows take complex inputs only (of a real or b8 x the functions
    // return x or zeros without a node; tests/ops/test_complex.cpp)
    if (!(row.inputs & ir::kAll)) continue;
    const bool native = (row.inputs & ir::bit(b8)) != 0;
    if (!native && !row.int_to_float) rejected.push_back(row.name);
    EXPECT_FALSE(native && row.int_to_float) << row.name;
  }
  EXPECT_EQ(rejected,
            (std::vector<std::string>{"neg", "abs", "relu", "floor", "ceil", "trunc", "round", "sign",
                                      "signbit", "add", "sub", "mul", "pow", "remainder", "floor_divide",
                                      "bitwise_left_shift", "bitwise_right_shift"}));

  using Bin = Tensor (*)(const Tensor&, const Tensor&);
  const std::pair<const char*, Bin> kRejected[] = {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }},
      {"sub", [](const Tensor& a, const Tensor& b) { return a - b; }},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
      {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }},
      {"remainder", [](const Tensor& a, const Tensor& b) { return remainder(a, b); }},
      {"floor_divide", [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }},
      {"bitwise_left_shift", [](const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }},
  };
  for (const char* backend : {"interpreter", "jit"}) {
    SCOPED_TRACE(backend);
    ScopedEnv env;
    env->backend = backend;
    // Every pair of truth values: a = [f f t t], b = [f t f t].
    Tensor a = tensor(std::vector<bool>{false, false, true, true}, {4});
    Tensor b = tensor(std::vector<bool>{false, true, false, true}, {4});
    for (const auto& entry : kRejected) {  // no structured binding: clang 14 cannot capture one
      const Bin fn = entry.second;
      expect_error([&] { fn(a, b); }, ErrorCode::DTypeMismatch, {entry.first, "b8"},
                   std::string("b8 ") + entry.first + " b8");
    }
    expect_error([&] { a + true; }, ErrorCode::DTypeMismatch, {"add", "b8"}, "b8 + bool scalar");
    expect_error([&] { -a; }, ErrorCode::DTypeMismatch, {"neg", "b8"}, "neg");
    expect_error([&] { abs(a); }, ErrorCode::DTypeMismatch, {"abs", "b8"}, "abs");
    expect_error([&] { relu(a); }, ErrorCode::DTypeMismatch, {"relu", "b8"}, "relu");
    expect_error([&] { floor(a); }, ErrorCode::DTypeMismatch, {"floor", "b8"}, "floor");
    expect_error([&] { sign(a); }, ErrorCode::DTypeMismatch, {"sign", "b8"}, "sign");
    expect_error([&] { signbit(a); }, ErrorCode::DTypeMismatch, {"signbit", "b8"}, "signbit");
    Tensor a2 = a;
    expect_error([&] { a2 += b; }, ErrorCode::DTypeMismatch, {"add", "b8"}, "+=");
    EXPECT_EQ(a2.to_vector<bool>(), a.to_vector<bool>()) << "a rejected op leaves the tensor intact";

    // True division: f32, the values of 0/1 as floats.
    Tensor q = a / b;
    EXPECT_EQ(q.dtype(), f32);
    auto qv = q.to_vector<float>();
    EXPECT_TRUE(std::isnan(qv[0]));               // 0 / 0
    EXPECT_EQ(qv[1], 0.0f);                       // 0 / 1
    EXPECT_TRUE(std::isinf(qv[2]) && qv[2] > 0);  // 1 / 0
    EXPECT_EQ(qv[3], 1.0f);                       // 1 / 1
    EXPECT_EQ((a / true).to_vector<float>(), (std::vector<float>{0, 0, 1, 1}));
    EXPECT_EQ(exp(b).to_vector<float>(), (std::vector<float>{1, std::exp(1.0f), 1, std::exp(1.0f)}));
    // Kept as b8: logical or / and, comparisons.
    EXPECT_EQ(maximum(a, b).dtype(), b8);
    EXPECT_EQ(maximum(a, b).to_vector<bool>(), (std::vector<bool>{false, true, true, true}));
    EXPECT_EQ(minimum(a, b).to_vector<bool>(), (std::vector<bool>{false, false, false, true}));
    EXPECT_EQ((a < b).to_vector<bool>(), (std::vector<bool>{false, true, false, false}));
    // With any other operand it is plain promotion: b8 + i32 -> i32, as documented.
    EXPECT_EQ((a + ones({4}, i32)).to_vector<int32_t>(), (std::vector<int32_t>{1, 1, 2, 2}));
  }
}

}  // namespace
}  // namespace ft

namespace ft {
namespace {

// The scalar forms of the Array API binary functions follow the C++ scalar rule (the scalar never
// widens the tensor within its category) and give the values of the tensor-tensor form with the
// scalar as a 0-d tensor of the result dtype (the oracle), with the scalar on either side.
TEST(Promotion, ScalarFormsOfBinaryFunctions) {
  using TS = Tensor (*)(const Tensor&, Scalar);
  using ST = Tensor (*)(Scalar, const Tensor&);
  using TT = Tensor (*)(const Tensor&, const Tensor&);
  struct Row {
    const char* name;
    TS ts;
    ST st;
    TT tt;
    DType x;       // the tensor operand's dtype
    Scalar s;      // the scalar
    DType result;  // both forms' dtype
  };
  const Row rows[] = {
      {"atan2", [](const Tensor& a, Scalar b) { return atan2(a, b); },
       [](Scalar a, const Tensor& b) { return atan2(a, b); },
       [](const Tensor& a, const Tensor& b) { return atan2(a, b); }, f32, Scalar(2.0), f32},
      {"hypot", [](const Tensor& a, Scalar b) { return hypot(a, b); },
       [](Scalar a, const Tensor& b) { return hypot(a, b); },
       [](const Tensor& a, const Tensor& b) { return hypot(a, b); }, f64, Scalar(3), f64},
      {"copysign", [](const Tensor& a, Scalar b) { return copysign(a, b); },
       [](Scalar a, const Tensor& b) { return copysign(a, b); },
       [](const Tensor& a, const Tensor& b) { return copysign(a, b); }, f32, Scalar(-1.5), f32},
      {"logaddexp", [](const Tensor& a, Scalar b) { return logaddexp(a, b); },
       [](Scalar a, const Tensor& b) { return logaddexp(a, b); },
       [](const Tensor& a, const Tensor& b) { return logaddexp(a, b); }, i32, Scalar(0.5), f32},
      {"nextafter", [](const Tensor& a, Scalar b) { return nextafter(a, b); },
       [](Scalar a, const Tensor& b) { return nextafter(a, b); },
       [](const Tensor& a, const Tensor& b) { return nextafter(a, b); }, f64, Scalar(1.0), f64},
      {"remainder", [](const Tensor& a, Scalar b) { return remainder(a, b); },
       [](Scalar a, const Tensor& b) { return remainder(a, b); },
       [](const Tensor& a, const Tensor& b) { return remainder(a, b); }, i32, Scalar(-3), i32},
      {"floor_divide", [](const Tensor& a, Scalar b) { return floor_divide(a, b); },
       [](Scalar a, const Tensor& b) { return floor_divide(a, b); },
       [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }, i64, Scalar(3), i64},
      {"bitwise_and", [](const Tensor& a, Scalar b) { return bitwise_and(a, b); },
       [](Scalar a, const Tensor& b) { return bitwise_and(a, b); },
       [](const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }, i32, Scalar(6), i32},
      {"bitwise_or", [](const Tensor& a, Scalar b) { return bitwise_or(a, b); },
       [](Scalar a, const Tensor& b) { return bitwise_or(a, b); },
       [](const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }, b8, Scalar(true), b8},
      {"bitwise_xor", [](const Tensor& a, Scalar b) { return bitwise_xor(a, b); },
       [](Scalar a, const Tensor& b) { return bitwise_xor(a, b); },
       [](const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }, i64, Scalar(5), i64},
      {"bitwise_left_shift", [](const Tensor& a, Scalar b) { return bitwise_left_shift(a, b); },
       [](Scalar a, const Tensor& b) { return bitwise_left_shift(a, b); },
       [](const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }, i32, Scalar(2), i32},
      {"bitwise_right_shift", [](const Tensor& a, Scalar b) { return bitwise_right_shift(a, b); },
       [](Scalar a, const Tensor& b) { return bitwise_right_shift(a, b); },
       [](const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); }, i64, Scalar(1), i64},
      {"logical_and", [](const Tensor& a, Scalar b) { return logical_and(a, b); },
       [](Scalar a, const Tensor& b) { return logical_and(a, b); },
       [](const Tensor& a, const Tensor& b) { return logical_and(a, b); }, b8, Scalar(true), b8},
      {"logical_or", [](const Tensor& a, Scalar b) { return logical_or(a, b); },
       [](Scalar a, const Tensor& b) { return logical_or(a, b); },
       [](const Tensor& a, const Tensor& b) { return logical_or(a, b); }, b8, Scalar(false), b8},
      {"logical_xor", [](const Tensor& a, Scalar b) { return logical_xor(a, b); },
       [](Scalar a, const Tensor& b) { return logical_xor(a, b); },
       [](const Tensor& a, const Tensor& b) { return logical_xor(a, b); }, b8, Scalar(true), b8},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    // -2, -1, 0, 1, 2, 3 in the operand dtype (b8: f t f t f t).
    Tensor x = r.x == b8 ? (remainder(arange(6, i64), 2) == 1) : (arange(6, i64) - 2).cast(r.x);
    const Tensor s = full({}, r.s.kind == Scalar::Kind::Int ? static_cast<double>(r.s.i) : r.s.f, r.result);
    Tensor xs = x.cast(r.result);
    Tensor a = r.ts(x, r.s), b = r.st(r.s, x);
    EXPECT_EQ(a.dtype(), r.result);
    EXPECT_EQ(b.dtype(), r.result);
    EXPECT_EQ(vals(a), vals(r.tt(xs, s)));
    EXPECT_EQ(vals(b), vals(r.tt(s, xs)));
  }
}

}  // namespace
}  // namespace ft
