// eliminate_common_subexpressions: IR before and after, what must merge and what must not.
#include "helpers.h"

namespace {

using namespace cgrad;
using passes_test::expect_same_values;
using passes_test::graph_of;
using passes_test::ir_of;
using passes_test::nodes;

Tensor input(float base = 0) { return tensor(std::vector<float>{base + 1, base + 2, base + 3}, {3}); }

TEST(Cse, Diamond) {
  Tensor a = input();
  Tensor d = exp(a) + exp(a);
  EXPECT_EQ(ir_of({d}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = exp(%0) : f32(3,)\n"
            "%2 = exp(%0) : f32(3,)\n"
            "%3 = add(%1, %2) : f32(3,)\n");
  passes::eliminate_common_subexpressions(graph_of({d}));
  EXPECT_EQ(ir_of({d}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = exp(%0) : f32(3,)\n"
            "%2 = add(%1, %1) : f32(3,)\n");
}

TEST(Cse, EqualSubtreesCollapseBottomUp) {
  Tensor a = input(), b = input(10);
  Tensor l = sin(a * b + 1.0);
  Tensor r = sin(a * b + 1.0);
  Tensor out = l - r;
  passes::eliminate_common_subexpressions(graph_of({out}));
  EXPECT_EQ(ir_of({out}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = buffer() : f32(3,) [realized]\n"
            "%2 = mul(%0, %1) : f32(3,)\n"
            "%3 = full() {value=1} : f32(3,)\n"
            "%4 = add(%2, %3) : f32(3,)\n"
            "%5 = sin(%4) : f32(3,)\n"
            "%6 = sub(%5, %5) : f32(3,)\n");
}

TEST(Cse, CommutativeOperandsInEitherOrder) {
  Tensor a = input(), b = input(10);
  Tensor m = (a * b) / (b * a);
  Tensor s = (a - b) / (b - a);  // sub is not commutative
  passes::eliminate_common_subexpressions(graph_of({m, s}));
  EXPECT_EQ(ir_of({m, s}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = buffer() : f32(3,) [realized]\n"
            "%2 = mul(%0, %1) : f32(3,)\n"
            "%3 = div(%2, %2) : f32(3,)\n"
            "%4 = sub(%0, %1) : f32(3,)\n"
            "%5 = sub(%1, %0) : f32(3,)\n"
            "%6 = div(%4, %5) : f32(3,)\n");
}

TEST(Cse, HeldDuplicateBecomesAView) {
  Tensor a = input();
  Tensor b = exp(a);
  Tensor c = exp(a);
  passes::eliminate_common_subexpressions(graph_of({b, c}));
  EXPECT_EQ(ir_of({b, c}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = exp(%0) : f32(3,)\n"
            "%2 = reshape(%1) : f32(3,)\n");
  passes_test::BackendSetting oracle("interpreter");
  uint64_t k0 = stats().kernels_launched;
  eval({b, c});
  EXPECT_EQ(stats().kernels_launched - k0, 1u);
  EXPECT_EQ(b.to_vector<float>(), c.to_vector<float>());
}

TEST(Cse, RandomCallsAreDifferentValues) {
  Tensor r1 = rand({4});
  Tensor r2 = rand({4});
  Tensor d = r1 - r2;
  const std::string before = ir_of({d});
  passes::eliminate_common_subexpressions(graph_of({d}));
  EXPECT_EQ(ir_of({d}), before);
  EXPECT_NE(r1.to_vector<float>(), r2.to_vector<float>());
}

TEST(Cse, SameSeedIsTheSameValue) {
  manual_seed(7);
  Tensor r1 = randn({4});
  manual_seed(7);
  Tensor r2 = randn({4});
  Tensor d = r1 + r2;
  passes::eliminate_common_subexpressions(graph_of({d}));
  const std::string after = ir_of({d});
  EXPECT_EQ(after.find("randn"), after.rfind("randn"));  // one randn left
  expect_same_values([] {
    manual_seed(7);
    Tensor x = randn({4});
    manual_seed(7);
    return x * randn({4});
  });
}

TEST(Cse, ConstantsMergeByValueBits) {
  Tensor x = input();
  Tensor y = (x + 1.0) * (x + 1.0) + (x * 0.0 - x * -0.0);
  passes::eliminate_common_subexpressions(graph_of({y}));
  EXPECT_EQ(ir_of({y}),
            "%0 = buffer() : f32(3,) [realized]\n"
            "%1 = full() {value=1} : f32(3,)\n"
            "%2 = add(%0, %1) : f32(3,)\n"
            "%3 = mul(%2, %2) : f32(3,)\n"
            "%4 = full() {value=0} : f32(3,)\n"
            "%5 = mul(%0, %4) : f32(3,)\n"
            "%6 = full() {value=-0} : f32(3,)\n"
            "%7 = mul(%0, %6) : f32(3,)\n"
            "%8 = sub(%5, %7) : f32(3,)\n"
            "%9 = add(%3, %8) : f32(3,)\n");
}

TEST(Cse, RealizedLeavesOnlyWhenSameNode) {
  Tensor a = input(), b = input();  // same contents, different buffers
  Tensor d = exp(a) * exp(b);
  const std::string before = ir_of({d});
  passes::eliminate_common_subexpressions(graph_of({d}));
  EXPECT_EQ(ir_of({d}), before);
}

TEST(Cse, DifferentAttributesDoNotMerge) {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor s = sum(a, {0}) + sum(a, {0});
  Tensor t = sum(a, {1}) * 2.0;
  Tensor u = a.slice(1, 0, 2) - a.slice(1, 1, 3);
  passes::eliminate_common_subexpressions(graph_of({s, t, u}));
  EXPECT_EQ(ir_of({s, t, u}),
            "%0 = buffer() : f32(2, 3) [realized]\n"
            "%1 = sum(%0) {axes=[0]} : f32(1, 3)\n"
            "%2 = reshape(%1) : f32(3,)\n"
            "%3 = add(%2, %2) : f32(3,)\n"
            "%4 = sum(%0) {axes=[1]} : f32(2, 1)\n"
            "%5 = reshape(%4) : f32(2,)\n"
            "%6 = full() {value=2} : f32(2,)\n"
            "%7 = mul(%5, %6) : f32(2,)\n"
            "%8 = slice(%0) {dim=1 0:2:1} : f32(2, 2)\n"
            "%9 = slice(%0) {dim=1 1:3:1} : f32(2, 2)\n"
            "%10 = sub(%8, %9) : f32(2, 2)\n");
}

TEST(Cse, SameValuesAsWithoutPasses) {
  expect_same_values([] {
    Tensor a = tensor(std::vector<float>{0.5f, -1.0f, 2.0f, 3.0f}, {2, 2});
    Tensor l = matmul(a, a.T()) + sum(a * a, {1}, true);
    Tensor r = matmul(a, a.T()) + sum(a * a, {1}, true);
    return cat({l * r, l + r}, 0);
  });
}

}  // namespace
