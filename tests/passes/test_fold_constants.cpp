// fold_constants: IR before and after, and the values it computes against the interpreter.
#include "helpers.h"

#include <cmath>
#include <limits>

namespace {

using namespace cgrad;
using passes_test::expect_same_values;
using passes_test::graph_of;
using passes_test::ir_of;
using passes_test::nodes;

TEST(FoldConstants, FullPlusFull) {
  Tensor c = full({2, 3}, 2.0) + full({2, 3}, 3.0);
  EXPECT_EQ(ir_of({c}),
            "%0 = full() {value=2} : f32(2, 3)\n"
            "%1 = full() {value=3} : f32(2, 3)\n"
            "%2 = add(%0, %1) : f32(2, 3)\n");
  passes::fold_constants(graph_of({c}));
  EXPECT_EQ(ir_of({c}), "%0 = full() {value=5} : f32(2, 3)\n");
  EXPECT_EQ(c.to_vector<float>(), std::vector<float>(6, 5.0f));
}

TEST(FoldConstants, ThroughBroadcastsAndChains) {
  // (1, 3) constant broadcast against (2, 3); exp(...) * 2 - 1 folds in one sweep.
  Tensor a = full({3}, 1.0, f64);
  Tensor b = exp(a + full({2, 3}, 0.5, f64)) * 2.0 - 1.0;
  EXPECT_EQ(ir_of({b}),
            "%0 = full() {value=1} : f64(3,)\n"
            "%1 = reshape(%0) : f64(1, 3)\n"
            "%2 = expand(%1) : f64(2, 3)\n"
            "%3 = full() {value=0.5} : f64(2, 3)\n"
            "%4 = add(%2, %3) : f64(2, 3)\n"
            "%5 = exp(%4) : f64(2, 3)\n"
            "%6 = full() {value=2} : f64(2, 3)\n"
            "%7 = mul(%5, %6) : f64(2, 3)\n"
            "%8 = full() {value=1} : f64(2, 3)\n"
            "%9 = sub(%7, %8) : f64(2, 3)\n");
  passes::fold_constants(graph_of({b}));
  EXPECT_EQ(ir_of({b}), "%0 = full() {value=7.96338} : f64(2, 3)\n");
  EXPECT_EQ(b.node()->attrs.fvalue, std::exp(1.5) * 2.0 - 1.0);
  // The intermediate handle `a` is untouched, and is still a constant.
  EXPECT_EQ(ir_of({a}), "%0 = full() {value=1} : f64(3,)\n");
}

TEST(FoldConstants, MovementOfFull) {
  Tensor base = full({2, 3}, 4.0, i32);
  Tensor p = base.permute({1, 0});
  Tensor s = base.slice(1, 0, 3, 2);
  Tensor r = base.reshape({6});
  passes::fold_constants(graph_of({p, s, r}));
  EXPECT_EQ(ir_of({p, s, r}),
            "%0 = full() {value=4} : i32(3, 2)\n"
            "%1 = full() {value=4} : i32(2, 2)\n"
            "%2 = full() {value=4} : i32(6,)\n");
}

TEST(FoldConstants, CastsAndIntegerWrap) {
  Tensor toi = full({2}, 2.7).cast(i32);
  Tensor nan_to_int = full({2}, std::nan("")).cast(i64);
  Tensor to_bool = full({2}, 0.5).cast(b8);
  Tensor wrap = full({2}, 2147483647.0, i32) + 1;
  Tensor from_bool = full({2}, 1.0, b8).cast(f32);
  passes::fold_constants(graph_of({toi, nan_to_int, to_bool, wrap, from_bool}));
  EXPECT_EQ(ir_of({toi, nan_to_int, to_bool, wrap, from_bool}),
            "%0 = full() {value=2} : i32(2,)\n"
            "%1 = full() {value=0} : i64(2,)\n"
            "%2 = full() {value=1} : b8(2,)\n"
            "%3 = full() {value=-2147483648} : i32(2,)\n"
            "%4 = full() {value=1} : f32(2,)\n");
}

TEST(FoldConstants, ComparisonsAndWhere) {
  Tensor lt = full({2}, 1.0) < full({2}, 2.0);
  Tensor w = where(lt, full({2}, 7.0, i64), full({2}, 9.0, i64));
  passes::fold_constants(graph_of({w}));
  EXPECT_EQ(ir_of({w}), "%0 = full() {value=7} : i64(2,)\n");
  EXPECT_EQ(ir_of({lt}), "%0 = full() {value=1} : b8(2,)\n");
}

TEST(FoldConstants, FloatRoundsInItsDtype) {
  // 0.1 + 0.2 computed in f32, stored as the f32 result.
  Tensor s = full({1}, 0.1) + full({1}, 0.2);
  passes::fold_constants(graph_of({s}));
  EXPECT_EQ(s.node()->attrs.fvalue, static_cast<double>(0.1f + 0.2f));
}

TEST(FoldConstants, LeavesNonConstantsAlone) {
  Tensor x = tensor(std::vector<float>{1, 2}, {2});
  Tensor r = rand({2});
  Tensor a = x + 1.0;
  Tensor b = r * 2.0;
  Tensor c = sum(full({2, 2}, 1.0));  // reductions are not folded (docs/passes.md)
  Tensor k = full({2}, 3.0);
  k.eval();  // a realized Full is a buffer, not a constant
  Tensor d = k + 1.0;
  const std::string before = ir_of({a, b, c, d});
  passes::fold_constants(graph_of({a, b, c, d}));
  EXPECT_EQ(ir_of({a, b, c, d}), before);
}

TEST(FoldConstants, SameValuesAsInterpreter) {
  expect_same_values([] { return exp(full({3}, 0.3)) / full({3}, 7.0) + sqrt(full({3}, 2.0)); });
  expect_same_values([] { return tanh(full({2, 2}, 0.7, f64)) * sigmoid(full({2, 2}, -1.25, f64)); });
  expect_same_values([] { return pow(full({4}, 3.0, i32), 5) - full({4}, 100.0, i32); });
  expect_same_values([] { return maximum(full({2}, std::nan("")), full({2}, 1.0)); });
  expect_same_values([] { return (full({3}, -0.0) * 1.0).cast(f64); });
  expect_same_values([] { return where(full({2}, 1.0) >= 1.0, full({2}, -2.5), full({2}, 4.0)).cast(i32); });
  expect_same_values([] { return full({2}, 1e10).cast(i32) + full({2}, 3.0, i32); });
  expect_same_values([] { return abs(-full({2, 1}, 3.0, i64)).expand({2, 3}) * arange(3, i64); });
}

TEST(FoldConstants, HeldIntermediateKeepsItsValue) {
  Tensor a = full({2}, 3.0) * 2.0;  // a handle the user still holds
  Tensor b = a + 1.0;
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{7, 7}));
  EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{6, 6}));
}

}  // namespace
