// simplify: IR before and after for each identity, the identities it must not apply, and
// values against the unoptimized graph.
#include "helpers.h"

#include "ir/node.h"

#include <bit>
#include <cmath>
#include <limits>

namespace {

using namespace cgrad;
using passes_test::expect_same_values;
using passes_test::graph_of;
using passes_test::ir_of;
using passes_test::nodes;

Tensor input(Shape shape = {3}, DType t = f32) {
  std::vector<float> v(static_cast<std::size_t>(core::numel(shape)));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) - 1.5f;
  if (t == i32) return tensor(std::vector<int32_t>(v.begin(), v.end()), shape);
  if (t == i64) return tensor(std::vector<int64_t>(v.begin(), v.end()), shape);
  return tensor(v, shape);
}

// A node the frontend would not build (it skips no-op casts and expands).
Tensor raw(ir::Op op, const Tensor& x, ir::Attrs a = {}) {
  return Tensor(ir::make_node(op, {x.node()}, std::move(a), x.device()));
}

TEST(Simplify, MulByOneIsAView) {
  Tensor x = input();
  Tensor y = x * 1.0;
  EXPECT_EQ(ir_of({y}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = full() {value=1} : f32(3,)\n"
            "%2 = mul(%0, %1) : f32(3,)\n");
  passes::simplify(graph_of({y}));
  // y keeps its identity (the user holds it) as a no-op view of x.
  EXPECT_EQ(ir_of({y}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = reshape(%0) : f32(3,)\n");
}

TEST(Simplify, ConsumersSeeTheEqualNode) {
  Tensor x = input();
  Tensor z = exp(1.0 * (x / 1.0));
  passes::simplify(graph_of({z}));
  EXPECT_EQ(ir_of({z}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = exp(%0) : f32(3,)\n");
}

TEST(Simplify, AdditiveZeroOnlyWhenExact) {
  Tensor x = input();
  Tensor plus_pos = x + 0.0;    // -0 + +0 = +0: not x
  Tensor plus_neg = x + -0.0;   // exact
  Tensor neg_plus = -0.0 + x;   // exact
  Tensor minus_pos = x - 0.0;   // exact
  Tensor minus_neg = x - -0.0;  // -0 - -0 = +0: not x
  passes::simplify(graph_of({plus_pos, plus_neg, neg_plus, minus_pos, minus_neg}));
  EXPECT_EQ(ir_of({plus_pos, plus_neg, neg_plus, minus_pos, minus_neg}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = full() {value=0} : f32(3,)\n"
            "%2 = add(%0, %1) : f32(3,)\n"
            "%3 = reshape(%0) : f32(3,)\n"
            "%4 = reshape(%0) : f32(3,)\n"
            "%5 = reshape(%0) : f32(3,)\n"
            "%6 = full() {value=-0} : f32(3,)\n"
            "%7 = sub(%0, %6) : f32(3,)\n");
  // Integers have one zero.
  Tensor xi = input({3}, i32);
  Tensor a = xi + 0;
  Tensor b = 0 + xi;
  Tensor c = xi - 0;
  passes::simplify(graph_of({a, b, c}));
  EXPECT_EQ(ir_of({a, b, c}),
            "%0 = buffer() : i32(3,) [realized]\n"
            "%1 = reshape(%0) : i32(3,)\n"
            "%2 = reshape(%0) : i32(3,)\n"
            "%3 = reshape(%0) : i32(3,)\n");
}

TEST(Simplify, DoubleNegation) {
  Tensor x = input();
  Tensor y = exp(-(-x));
  passes::simplify(graph_of({y}));
  EXPECT_EQ(ir_of({y}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = exp(%0) : f32(3,)\n");
}

TEST(Simplify, TimesZeroFoldsOnlyForIntegers) {
  Tensor xi = input({3}, i64);
  Tensor zi = xi * 0;
  passes::simplify(graph_of({zi}));
  EXPECT_EQ(ir_of({zi}), "%0 = full() {value=0} : i64(3,)\n");

  Tensor xf = tensor(std::vector<float>{std::nanf(""), std::numeric_limits<float>::infinity(), -2.0f}, {3});
  Tensor zf = xf * 0.0;
  const std::string before = ir_of({zf});
  passes::simplify(graph_of({zf}));
  EXPECT_EQ(ir_of({zf}), before);
  auto v = zf.to_vector<float>();
  EXPECT_TRUE(std::isnan(v[0]));  // NaN * 0
  EXPECT_TRUE(std::isnan(v[1]));  // inf * 0
  EXPECT_EQ(v[2], 0.0f);
  EXPECT_TRUE(std::signbit(v[2]));  // -2 * 0 = -0
}

TEST(Simplify, NotExactIdentitiesAreKept) {
  Tensor x = input();
  Tensor a = exp(log(x));
  Tensor b = log(exp(x));
  const std::string before = ir_of({a, b});
  passes::simplify(graph_of({a, b}));
  EXPECT_EQ(ir_of({a, b}), before);
}

TEST(Simplify, NoOpCastExpandPermuteSlice) {
  Tensor x = input({2, 3});
  ir::Attrs cast_f32;
  cast_f32.dtype = f32;
  ir::Attrs same_shape;
  same_shape.shape = {2, 3};
  ir::Attrs id_perm;
  id_perm.axes = {0, 1};
  ir::Attrs whole;
  whole.axis = 1;
  whole.start = 0;
  whole.stop = 3;
  Tensor y = sin(raw(
      ir::Op::Slice,
      raw(ir::Op::Permute, raw(ir::Op::Expand, raw(ir::Op::Cast, x, cast_f32), same_shape), id_perm), whole));
  passes::simplify(graph_of({y}));
  EXPECT_EQ(ir_of({y}),
            "%0 = buffer() : f32(2, 3) [realized]\n"
            "%1 = sin(%0) : f32(2, 3)\n");
}

TEST(Simplify, ReshapeChains) {
  Tensor x = input({2, 3});
  Tensor a = x.reshape({3, 2}).reshape({6});
  Tensor b = x.reshape({6}).reshape({2, 3});
  passes::simplify(graph_of({a, b}));
  EXPECT_EQ(ir_of({a, b}),
            "%0 = buffer() : f32(2, 3) [realized]\n"
            "%1 = reshape(%0) : f32(6,)\n"
            "%2 = reshape(%0) : f32(2, 3)\n");
}

TEST(Simplify, PermuteChains) {
  Tensor x = input({2, 3, 4});
  Tensor back = x.permute({1, 2, 0}).permute({2, 0, 1});
  Tensor composed = x.permute({1, 0, 2}).permute({0, 2, 1});
  EXPECT_EQ(ir_of({composed}),
            "%0 = buffer() : f32(2, 3, 4) [realized]\n"
            "%1 = permute(%0) {perm=[1, 0, 2]} : f32(3, 2, 4)\n"
            "%2 = permute(%1) {perm=[0, 2, 1]} : f32(3, 4, 2)\n");
  passes::simplify(graph_of({back, composed}));
  EXPECT_EQ(ir_of({back, composed}),
            "%0 = buffer() : f32(2, 3, 4) [realized]\n"
            "%1 = reshape(%0) : f32(2, 3, 4)\n"
            "%2 = permute(%0) {perm=[1, 2, 0]} : f32(3, 4, 2)\n");
  EXPECT_EQ(composed.to_vector<float>(), x.permute({1, 2, 0}).to_vector<float>());
}

TEST(Simplify, ExpandChains) {
  Tensor x = input({1, 3});
  Tensor y = raw(ir::Op::Expand, x,
                 [] {
                   ir::Attrs a;
                   a.shape = {1, 3};
                   return a;
                 }())
                 .expand({4, 3});
  Tensor z = x.reshape({1, 1, 3}).expand({1, 2, 3}).expand({5, 2, 3});
  passes::simplify(graph_of({y, z}));
  EXPECT_EQ(ir_of({y, z}),
            "%0 = buffer() : f32(1, 3) [realized]\n"
            "%1 = expand(%0) : f32(4, 3)\n"
            "%2 = reshape(%0) : f32(1, 1, 3)\n"
            "%3 = expand(%2) : f32(5, 2, 3)\n");
}

TEST(Simplify, WhereOfConstantCondition) {
  Tensor a = input();
  Tensor b = exp(input());
  Tensor t = where(full({3}, 1.0, b8), a, b);
  Tensor f = where(full({3}, 0.0, b8), a, b);
  Tensor same = where(a > 0.0, b, b);
  passes::simplify(graph_of({t, f, same}));
  EXPECT_EQ(ir_of({t, f, same}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = reshape(%0) : f32(3,)\n"
            "%2 = buffer() : f32(3,) [realized]\n"
            "%3 = exp(%2) : f32(3,)\n"
            "%4 = reshape(%3) : f32(3,)\n"
            "%5 = reshape(%3) : f32(3,)\n");
}

TEST(Simplify, PowOfTwoIsASquareAndPowOfOneTheBase) {
  Tensor x = input();
  Tensor sq = pow(x, 2), one = exp(pow(x, 1.0)), cube = pow(x, 3), half = pow(x, 0.5);
  Tensor wide = pow(x, full({2, 3}, 2.0));  // the frontend expands x first
  passes::simplify(graph_of({sq, one, cube, half, wide}));
  EXPECT_EQ(ir_of({sq, one, cube, half, wide}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = mul(%0, %0) : f32(3,)\n"
            "%2 = exp(%0) : f32(3,)\n"
            "%3 = full() {value=3} : f32(3,)\n"
            "%4 = pow(%0, %3) : f32(3,)\n"
            "%5 = full() {value=0.5} : f32(3,)\n"
            "%6 = pow(%0, %5) : f32(3,)\n"
            "%7 = reshape(%0) : f32(1, 3)\n"
            "%8 = expand(%7) : f32(2, 3)\n"
            "%9 = mul(%8, %8) : f32(2, 3)\n");
  // Complex powers are left alone (z * z is not pow's exp(2 log z)).
  Tensor z = pow(tensor(std::vector<float>{1, 2}, {2}).cast(c64), 2);
  const std::string complex_before = ir_of({z});
  passes::simplify(graph_of({z}));
  EXPECT_EQ(ir_of({z}), complex_before);

  // The values are the correctly rounded square (the exact square, in double, rounded once) and
  // the base itself, special values included. The squares of 2^-75, 1.5 x 2^-74 and 4097 are
  // ties, which pow's kernels (and glibc's powf for the last two) rounded away from even.
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> v = {std::nanf(""), -0.0f,    0.0f,       -inf,    inf,   -3.0f,
                                1e-30f,        0x1p-75f, 0x1.8p-74f, 4097.0f, 1e20f, -1.7f};
  const Tensor t = tensor(v, {static_cast<int64_t>(v.size())});
  const std::vector<float> got2 = pow(t, 2).to_vector<float>(), got1 = pow(t, 1).to_vector<float>();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const float want = static_cast<float>(static_cast<double>(v[i]) * v[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got2[i]) && std::isnan(got1[i]));
      continue;
    }
    EXPECT_EQ(std::bit_cast<uint32_t>(got2[i]), std::bit_cast<uint32_t>(want)) << v[i];
    EXPECT_EQ(std::bit_cast<uint32_t>(got1[i]), std::bit_cast<uint32_t>(v[i])) << v[i];
  }
  const std::vector<int32_t> n =
      pow(tensor(std::vector<int32_t>{-7, 0, 3, 46340}, {4}), 2).to_vector<int32_t>();
  EXPECT_EQ(n, (std::vector<int32_t>{49, 0, 9, 2147395600}));
}

TEST(Simplify, SameValuesAsWithoutPasses) {
  expect_same_values([] {
    Tensor x = tensor(std::vector<float>{-0.0f, 0.0f, std::nanf(""), -3.5f, 1e30f, -1e-30f}, {2, 3});
    return ((-(-x)) * 1.0 + -0.0 - 0.0) / 1.0;
  });
  expect_same_values([] {
    Tensor x = tensor(std::vector<float>{-0.0f, 0.0f, std::nanf(""), -3.5f, 1e30f, -1e-30f}, {2, 3});
    return x + 0.0 - -0.0 + (x * 0.0);
  });
  expect_same_values([] {
    Tensor x = tensor(std::vector<int32_t>{-7, 0, 2147483647, -2147483647 - 1}, {4});
    return (x * 0 + x * 1 - 0 + (-(-x))).reshape({2, 2}).permute({1, 0}).permute({1, 0}).reshape({4});
  });
  expect_same_values([] {
    Tensor x = randn({2, 3, 4});
    return where(full({4, 3, 2}, 1.0, b8), x.permute({2, 0, 1}).permute({0, 2, 1}), x.permute({2, 1, 0})) *
           1.0;
  });
}

}  // namespace
