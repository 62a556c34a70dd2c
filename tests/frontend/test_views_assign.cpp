// Value semantics: movement ops are views sharing the input's storage (with the right values);
// assign() updates a tensor and every handle copied from it, while operator= and the compound
// operators rebind one handle only; assign in a loop keeps the graph bounded.
#include "ir/graph.h"
#include "ir/node.h"
#include "util.h"

#include <chrono>
#include <functional>

namespace ft {
namespace {

const std::shared_ptr<ir::Storage>& storage(const Tensor& t) { return t.node()->value.storage; }

TEST(Views, ShareStorageWithTheirInput) {
  Tensor x = tensor(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  x.eval();
  ASSERT_TRUE(x.is_evaluated());
  ASSERT_NE(storage(x), nullptr);

  Tensor t = x.T();
  t.eval();
  EXPECT_EQ(storage(t), storage(x));
  EXPECT_EQ(vals(t), (std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));

  Tensor r = x.reshape({2, 6});
  r.eval();
  EXPECT_EQ(storage(r), storage(x));
  EXPECT_EQ(vals(r), vals(x));

  Tensor s = x.slice(1, 1, 4, 2);
  s.eval();
  EXPECT_EQ(storage(s), storage(x));
  EXPECT_EQ(vals(s), (std::vector<double>{1, 3, 5, 7, 9, 11}));

  Tensor p = x.reshape({3, 2, 2}).permute({2, 0, 1});
  p.eval();
  EXPECT_EQ(storage(p), storage(x));
  EXPECT_EQ(vals(p), (std::vector<double>{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}));

  Tensor row = x.slice(0, 2, 3);  // (1, 4)
  Tensor e = row.expand({5, 4});
  e.eval();
  EXPECT_EQ(storage(e), storage(x));
  std::vector<double> want;
  for (int k = 0; k < 5; ++k)
    for (double v : {8, 9, 10, 11}) want.push_back(v);
  EXPECT_EQ(vals(e), want);

  // A chain of views is still a view.
  Tensor chain = x.T().slice(0, 1, 3).T().reshape({3, 2, 1}).expand({3, 2, 2});
  chain.eval();
  EXPECT_EQ(storage(chain), storage(x));
  EXPECT_EQ(vals(chain), (std::vector<double>{1, 1, 2, 2, 5, 5, 6, 6, 9, 9, 10, 10}));

  // The source is untouched by its views.
  EXPECT_EQ(vals(x), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
}

TEST(Views, NonViewableReshapeCopies) {
  Tensor x = tensor(std::vector<double>{0, 1, 2, 3, 4, 5}, {2, 3});
  x.eval();
  Tensor flat = x.T().reshape({6});
  flat.eval();
  EXPECT_NE(storage(flat), storage(x)) << "a transposed layout cannot be flattened in place";
  EXPECT_EQ(vals(flat), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Assign, CopiesOfTheHandleSeeIt) {
  Tensor x = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor copy = x;            // same tensor
  Tensor derived = x * 10.0;  // built from the old value
  x.assign(x + 1.0);
  EXPECT_EQ(vals(x), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(vals(copy), (std::vector<double>{2, 3, 4}));
  EXPECT_EQ(vals(derived), (std::vector<double>{10, 20, 30}))
      << "derived before the assign keeps the old value";
  EXPECT_EQ(copy.node(), x.node());

  // Assign through a copy updates the original too.
  copy.assign(zeros({3}));
  EXPECT_EQ(vals(x), (std::vector<double>{0, 0, 0}));
  // Assign of an evaluated tensor, then evaluation of the handle copied earlier.
  x.eval();
  Tensor later = x;
  x.assign(full({3}, 5.0));
  EXPECT_FALSE(later.is_evaluated());
  EXPECT_EQ(vals(later), (std::vector<double>{5, 5, 5}));
  // Self-assign and assign of an expression of itself.
  x.assign(x);
  EXPECT_EQ(vals(x), (std::vector<double>{5, 5, 5}));
  x.assign(x * x - x);
  EXPECT_EQ(vals(copy), (std::vector<double>{20, 20, 20}));
  // The value keeps x's shape and dtype; the result is returned for chaining.
  Tensor& r = x.assign(x + 1.0);
  EXPECT_EQ(&r, &x);
  EXPECT_EQ(x.shape(), (Shape{3}));
  EXPECT_EQ(x.dtype(), f32);
}

// An op that leaves the value as it is still returns a new tensor: an assign to the result never
// changes its input (until 2026-12-05 flip of a length-1 axis, permute by the identity, a full
// slice, roll by 0, repeat by 1, diff with n = 0, positive, real and conj of a real tensor returned
// a copy of the input's handle, so x changed with them).
TEST(Assign, ToTheResultOfAnOpThatKeepsTheValueLeavesTheInput) {
  const std::vector<float> v{0, 1, 2, 3, 4, 5};
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> ops = {
      {"flip of a length-1 axis", [](const Tensor& x) { return flip(x, std::vector<int64_t>{0}); }},
      {"permute by the identity",
       [](const Tensor& x) {
         return x.permute({0, 1});
       }},
      {"moveaxis to its place", [](const Tensor& x) { return moveaxis(x, 1, 1); }},
      {"a full slice", [](const Tensor& x) { return x.slice(1, 0, 6); }},
      {"roll by 0",
       [](const Tensor& x) { return roll(x, std::vector<int64_t>{0}, std::vector<int64_t>{1}); }},
      {"roll by the length", [](const Tensor& x) { return roll(x, std::vector<int64_t>{6}, {}); }},
      {"repeat by 1", [](const Tensor& x) { return repeat(x, int64_t{1}, 1); }},
      {"diff with n = 0", [](const Tensor& x) { return diff(x, -1, 0, Tensor(), Tensor()); }},
      {"positive", [](const Tensor& x) { return positive(x); }},
      {"real", [](const Tensor& x) { return real(x); }},
      {"conj", [](const Tensor& x) { return conj(x); }},
      {"expand to its shape",
       [](const Tensor& x) {
         return x.expand({1, 6});
       }},
      {"reshape to its shape",
       [](const Tensor& x) {
         return x.reshape({1, 6});
       }},
      {"cast to its dtype", [](const Tensor& x) { return x.cast(f32); }},
  };
  for (const auto& [name, op] : ops) {
    Tensor x = tensor(v, {1, 6});
    Tensor y = op(x);
    ASSERT_EQ(y.shape(), (Shape{1, 6})) << name;
    y.assign(full({1, 6}, -1.0));
    EXPECT_EQ(x.to_vector<float>(), v) << name;
    EXPECT_EQ(y.to_vector<float>(), std::vector<float>(6, -1.0f)) << name;
  }
}

TEST(Assign, OperatorEqualsAndCompoundOpsRebindOneHandle) {
  Tensor x = tensor(std::vector<double>{1, 2}, {2});
  Tensor y = x;
  y = y * 3.0;  // rebinds y only
  EXPECT_EQ(vals(x), (std::vector<double>{1, 2}));
  EXPECT_EQ(vals(y), (std::vector<double>{3, 6}));
  Tensor z = x;
  z += 1.0;
  z -= tensor(std::vector<double>{0.5, 0.5}, {2});
  z *= 2;
  z /= 4.0;
  EXPECT_EQ(vals(z), (std::vector<double>{0.75, 1.25}));
  EXPECT_EQ(vals(x), (std::vector<double>{1, 2})) << "compound ops are copy-on-write";
  // After rebinding, an assign to x no longer reaches z (z is a different tensor now) ...
  x.assign(zeros({2}, f64));
  EXPECT_EQ(vals(z), (std::vector<double>{0.75, 1.25}));
  // ... and an assign to z does not reach x.
  z.assign(ones({2}, f64));
  EXPECT_EQ(vals(x), (std::vector<double>{0, 0}));
  // The Odeint pattern: copy the state, then overwrite the original.
  Tensor state = tensor(std::vector<double>{1, 1}, {2});
  Tensor saved = state;
  state = state + 1.0;
  EXPECT_EQ(vals(saved), (std::vector<double>{1, 1}));
  EXPECT_EQ(vals(state), (std::vector<double>{2, 2}));
  // Compound ops may change the dtype of the handle, like Python's x = x / 2.
  Tensor i = tensor(std::vector<int32_t>{3}, {1});
  i /= 2;
  EXPECT_EQ(i.dtype(), f32);
  EXPECT_EQ(vals(i), std::vector<double>{1.5});
}

TEST(Assign, LoopStaysBounded) {
  const int64_t limit = core::env().max_pending_depth;
  ASSERT_GT(limit, 0) << "the auto-realize rule must be on by default";
  Tensor x = zeros({4});
  Tensor alias = x;
  reset_stats();
  for (int i = 0; i < 100000; ++i) x.assign(x * 0.5 + 1);
  EXPECT_GT(stats().auto_realizes, 0u);
  EXPECT_LT(x.node()->depth, limit);
  EXPECT_LT(ir::topo_order({x.node().get()}, false).size(), static_cast<std::size_t>(4 * limit))
      << "the pending graph is bounded";
  EXPECT_EQ(x.to_vector<float>(), std::vector<float>(4, 2.0f));  // the limit of x -> x / 2 + 1
  EXPECT_EQ(alias.to_vector<float>(), std::vector<float>(4, 2.0f));
}

// A lazy value built from a lazy state before the state is evaluated (odeint's FSAL derivative)
// must not carry the state's old depth into everything built from it afterwards: the graph
// pending behind it after the evaluation is short, so no auto-realize may cut it.
TEST(Assign, DepthRestartsAfterAnAncestorIsEvaluated) {
  const int64_t limit = core::env().max_pending_depth;
  ASSERT_GT(limit, 8);
  Tensor state = zeros({4});
  for (int64_t i = 0; i < limit - 4; ++i) state = state + 1.0;
  Tensor derived = state * 2.0;  // built while state's chain is pending
  state.eval();
  reset_stats();
  Tensor y = derived;
  for (int64_t i = 0; i < limit / 2; ++i) y = y + 1.0;  // pending: derived + limit / 2 nodes
  EXPECT_EQ(stats().auto_realizes, 0u);
  EXPECT_LT(y.node()->depth, limit);
  const auto want = static_cast<float>(2 * (limit - 4) + limit / 2);
  EXPECT_EQ(y.to_vector<float>(), std::vector<float>(4, want));
  // a chain that really is deep is still cut
  for (int64_t i = 0; i < 2 * limit; ++i) y = y + 1.0;
  EXPECT_GT(stats().auto_realizes, 0u);
}

}  // namespace
}  // namespace ft
