// compile(fn): traced once per signature, replayed without calling fn, never stale or aliased.
// Every value is compared with the same function run uncompiled by the reference interpreter.
#include "ir/node.h"
#include "oracle.h"
#include "runtime/kernel_cache.h"

#include <gtest/gtest.h>

using namespace cgrad;

namespace {

std::vector<float> oracle(const std::function<Tensor()>& f) {
  return test::with_backend("interpreter", [&] { return f().to_vector<float>(); });
}

Tensor vec(std::vector<float> v) {
  auto n = static_cast<int64_t>(v.size());
  return tensor(std::move(v), {n});
}

}  // namespace

TEST(Compile, SecondCallReplaysWithoutCallingFn) {
  int calls = 0;
  auto f = compile([&](const Tensor& a, const Tensor& b) {
    ++calls;
    return exp(a) * b + 1.0;
  });
  Tensor a1 = vec({0, 1, 2}), b1 = vec({1, 2, 3});
  Tensor a2 = vec({3, 2, 1}), b2 = vec({-1, 0, 5});
  auto r1 = f(a1, b1);
  reset_stats();
  auto r2 = f(a2, b2);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(stats().traces, 0u);
  EXPECT_EQ(stats().plan_cache_hits, 1u);
  EXPECT_EQ(stats().kernels_launched, 1u);
  EXPECT_EQ(stats().plans_built, 0u);
  EXPECT_TRUE(r2.is_evaluated());
  EXPECT_EQ(r1.to_vector<float>(), oracle([&] { return exp(a1) * b1 + 1.0; }));
  EXPECT_EQ(r2.to_vector<float>(), oracle([&] { return exp(a2) * b2 + 1.0; }));
}

TEST(Compile, ResultOfAnEarlierCallKeepsItsValue) {
  auto f = compile([](const Tensor& x) { return std::vector<Tensor>{x * 2.0, sum(x * x)}; });
  std::vector<std::vector<Tensor>> results;
  std::vector<Tensor> inputs;
  for (int i = 0; i < 4; ++i) {
    inputs.push_back(vec({float(i), float(i + 1), float(i + 2), float(i + 3)}));
    results.push_back(f(inputs.back()));
  }
  for (int i = 0; i < 4; ++i) {
    const Tensor& x = inputs[static_cast<std::size_t>(i)];
    EXPECT_EQ(results[static_cast<std::size_t>(i)][0].to_vector<float>(), oracle([&] { return x * 2.0; }));
    EXPECT_EQ(results[static_cast<std::size_t>(i)][1].to_vector<float>(), oracle([&] { return sum(x * x); }));
  }
  EXPECT_NE(results[0][0].node()->value.storage, results[1][0].node()->value.storage);
}

TEST(Compile, CapturedTensorIsReadAtEachCall) {
  Tensor w = vec({1, 2, 3});
  Tensor k = vec({10, 10, 10});  // captured, never changed: a constant of the plan
  auto f = compile([&](const Tensor& x) { return x * w + k; });
  Tensor x = vec({1, 1, 1});
  EXPECT_EQ(f(x).to_vector<float>(), (std::vector<float>{11, 12, 13}));
  w.assign(w * 10.0);  // pending when the next call comes: evaluated before the plan runs
  reset_stats();
  EXPECT_EQ(f(x).to_vector<float>(), oracle([&] { return x * w + k; }));
  EXPECT_EQ(stats().traces, 0u) << "same layout: the plan takes the new value";
  w.assign(vec({-1, -2, -3}));  // already evaluated
  EXPECT_EQ(f(x).to_vector<float>(), oracle([&] { return x * w + k; }));
}

TEST(Compile, CapturedTensorWithNewLayoutTracesAgain) {
  Tensor w = tensor(std::vector<float>{1, 2, 3, 4}, {2, 2});
  auto f = compile([&](const Tensor& x) { return x + w; });
  Tensor x = ones({2, 2});
  f(x);
  w.assign(tensor(std::vector<float>{1, 2, 3, 4}, {2, 2}).T().eval());  // a transposed view: other strides
  reset_stats();
  EXPECT_EQ(f(x).to_vector<float>(), oracle([&] { return x + w; }));
  EXPECT_EQ(stats().traces, 1u);
}

TEST(Compile, AssignInsideTheFunctionIsRepeated) {
  auto step = [](Tensor x, Tensor acc) {
    acc.assign(acc + x);
    return acc * 2.0;
  };
  auto f = compile(step);
  Tensor acc = vec({0, 0, 0}), acc_ref = vec({0, 0, 0});  // dense: zeros() would be a zero-stride constant
  std::vector<Tensor> outs;
  for (int i = 1; i <= 4; ++i) {
    Tensor x = vec({float(i), float(2 * i), 0.5f});
    outs.push_back(f(x, acc));
    Tensor expect = test::with_backend("interpreter", [&] { return step(x, acc_ref).eval(); });
    EXPECT_EQ(outs.back().to_vector<float>(), expect.to_vector<float>());
    EXPECT_EQ(acc.to_vector<float>(), acc_ref.to_vector<float>());
  }
  EXPECT_EQ(outs[0].to_vector<float>(), (std::vector<float>{2, 4, 1})) << "an earlier result is unchanged";
  EXPECT_EQ(f.signatures(), 1u);
}

TEST(Compile, AssignToACapturedTensorIsRepeated) {
  Tensor total = zeros({2}).eval();
  auto f = compile([&](const Tensor& x) {
    total.assign(total + x);
    return total + 0.0;
  });
  float expect0 = 0, expect1 = 0;
  for (int i = 0; i < 5; ++i) {
    Tensor x = vec({1.0f, float(i)});
    expect0 += 1.0f;
    expect1 += float(i);
    Tensor r = f(x);
    EXPECT_EQ(total.to_vector<float>(), (std::vector<float>{expect0, expect1}));
    EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{expect0, expect1}));
  }
}

TEST(Compile, InputsThatAliasEachOther) {
  auto f = compile([](const Tensor& a, const Tensor& b) { return a * 2.0 + b; });
  Tensor base = tensor(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3});
  Tensor view = base.T().eval();             // the same storage, transposed
  Tensor part = base.slice(0, 0, 3).eval();  // the same storage, the same layout
  EXPECT_EQ(f(base, view).to_vector<float>(), oracle([&] { return base * 2.0 + view; }));
  EXPECT_EQ(f(base, part).to_vector<float>(), oracle([&] { return base * 2.0 + part; }));
  EXPECT_EQ(base.to_vector<float>(), (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9}))
      << "inputs are never written";
}

TEST(Compile, SameTensorPassedTwiceIsItsOwnSignature) {
  int calls = 0;
  auto f = compile([&](const Tensor& a, const Tensor& b) {
    ++calls;
    return a - b * 3.0;
  });
  Tensor x = vec({1, 2}), y = vec({5, 7});
  EXPECT_EQ(f(x, x).to_vector<float>(), oracle([&] { return x - x * 3.0; }));
  EXPECT_EQ(f(x, y).to_vector<float>(), oracle([&] { return x - y * 3.0; }))
      << "must not reuse the aliased plan";
  EXPECT_EQ(calls, 2);
  Tensor z = vec({4, 4});
  EXPECT_EQ(f(z, z).to_vector<float>(), oracle([&] { return z - z * 3.0; }));
  EXPECT_EQ(calls, 2) << "(z, z) replays the (x, x) plan";
  EXPECT_EQ(f.signatures(), 2u);
}

TEST(Compile, OtherShapeOrDtypeTracesAgainAndIsCounted) {
  auto f = compile([](const Tensor& a) { return sum(a * a, {0}); });
  Tensor a = ones({3, 2}), b = ones({5, 2}), c = ones({3, 2}, f64);
  f(a);
  reset_stats();
  EXPECT_EQ(f(b).to_vector<float>(), oracle([&] { return sum(b * b, {0}); }));
  EXPECT_EQ(stats().traces, 1u);
  EXPECT_EQ(f(c).to_vector<double>(), (std::vector<double>{3, 3}));
  EXPECT_EQ(stats().traces, 2u);
  f(a), f(b), f(c);
  EXPECT_EQ(stats().traces, 2u) << "every signature is kept";
  EXPECT_EQ(f.signatures(), 3u);
}

TEST(Compile, ReturnsArgumentsViewsAndConstants) {
  Tensor k = vec({7, 8}).eval();
  auto f = compile([&](const Tensor& x) { return std::vector<Tensor>{x, x.reshape({2, 1}), k, x + k}; });
  for (float v : {1.0f, 2.0f}) {
    Tensor x = vec({v, -v});
    auto r = f(x);
    EXPECT_EQ(r[0].node(), x.node());
    EXPECT_EQ(r[1].to_vector<float>(), (std::vector<float>{v, -v}));
    EXPECT_EQ(r[2].to_vector<float>(), (std::vector<float>{7, 8}));
    EXPECT_EQ(r[3].to_vector<float>(), oracle([&] { return x + k; }));
  }
}

TEST(Compile, PendingArgumentsAreEvaluatedFirst) {
  auto f = compile([](const Tensor& a) { return a * a; });
  Tensor a = vec({1, 2, 3}) + 1.0;  // pending
  EXPECT_EQ(f(a).to_vector<float>(), (std::vector<float>{4, 9, 16}));
  EXPECT_TRUE(a.is_evaluated());
  Tensor b = vec({0, 1, 2}) * 2.0;
  EXPECT_EQ(f(b).to_vector<float>(), (std::vector<float>{0, 4, 16}));
}

TEST(Compile, EvaluationInsideTheFunctionRunsEagerly) {
  int calls = 0;
  auto f = compile([&](const Tensor& a) {
    ++calls;
    float m = max(a).item<float>();  // a host read: the plan cannot hold this
    return a / m;
  });
  Tensor a = vec({1, 2, 4}), b = vec({3, 6, 3});
  EXPECT_EQ(f(a).to_vector<float>(), (std::vector<float>{0.25f, 0.5f, 1}));
  EXPECT_EQ(f(b).to_vector<float>(), (std::vector<float>{0.5f, 1, 0.5f}));
  EXPECT_EQ(calls, 2);
}

// Random numbers drawn inside fn are fresh at every call, as in eager code (until 2026-12-05 they
// were constants of the plan: dropout in a compiled step kept one mask), and follow manual_seed.
TEST(Compile, RandomNumbersInsideTheFunctionAreFreshAtEveryCall) {
  int calls = 0;
  auto f = compile([&](const Tensor& a) {
    ++calls;
    return a + rand({4});
  });
  Tensor z = vec({0, 0, 0, 0});
  manual_seed(7);
  const std::vector<float> first = f(z).to_vector<float>(), second = f(z).to_vector<float>();
  EXPECT_NE(first, second);
  EXPECT_EQ(calls, 2);
  manual_seed(7);
  EXPECT_EQ(f(z).to_vector<float>(), first);
  manual_seed(7);
  EXPECT_EQ((z + rand({4})).to_vector<float>(), first) << "the numbers eager code draws";
}

// The same with a Generator of its own: fresh numbers at every call, from the generator's stream.
TEST(Compile, GeneratorNumbersInsideTheFunctionAreFreshAtEveryCall) {
  Generator g(7);
  auto f = compile([&](const Tensor& a) { return a + randn({4}, f32, Device::cpu(), g); });
  Tensor z = vec({0, 0, 0, 0});
  const std::vector<float> first = f(z).to_vector<float>(), second = f(z).to_vector<float>();
  EXPECT_NE(first, second);
  EXPECT_EQ(g.counter(), 2u);
  Generator h(7);
  EXPECT_EQ((z + randn({4}, f32, Device::cpu(), h)).to_vector<float>(), first)
      << "the numbers eager code draws";
}

TEST(Compile, InterpreterBackendGivesTheSameValues) {
  auto fn = [](const Tensor& a, const Tensor& b) { return matmul(relu(a), b.T()) - 1.0; };
  auto f = compile(fn);
  Tensor a = tensor(std::vector<float>{1, -2, 3, -4, 5, -6}, {2, 3}),
         b = tensor(std::vector<float>{1, 0, 2, 0, 1, 1}, {2, 3});
  auto jit = f(a, b).to_vector<float>();
  auto interp = test::with_backend("interpreter", [&] {
    auto g = compile(fn);
    g(a, b);
    return g(a, b).to_vector<float>();
  });
  EXPECT_EQ(jit, interp);
  EXPECT_EQ(jit, oracle([&] { return fn(a, b); }));
}

TEST(Compile, ErrorsLeaveNoEntry) {
  auto f = compile([](const Tensor& a, const Tensor& b) { return a + b; });
  Tensor a = ones({2}), b = ones({3});
  try {
    f(a, b);
    FAIL() << "expected a ShapeMismatch";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::ShapeMismatch);
  }
  EXPECT_EQ(f.signatures(), 0u);
  EXPECT_THROW(f(Tensor(), a), Error);
  EXPECT_EQ(f(a, a).to_vector<float>(), (std::vector<float>{2, 2}));
}

TEST(Compile, AsyncCompileTracesAgainUntilThereIsAPlan) {
  auto& e = core::env_mut();
  const bool saved = e.jit_async;
  e.jit_async = true;
  const double c = 1.0 + 1.0 / 1013.0;  // a kernel no other test compiles
  auto f = compile([c](const Tensor& a) { return a * c - 0.75; });
  Tensor a = arange(8).eval();
  auto first = f(a).to_vector<float>();  // interpreted while the kernel compiles, or compiled from disk
  runtime::kernel_cache().wait_idle();
  Tensor b = (arange(8) * 2.0).eval();
  auto second = f(b).to_vector<float>();
  reset_stats();
  Tensor d = (arange(8) * 3.0).eval();
  auto third = f(d).to_vector<float>();
  e.jit_async = saved;
  EXPECT_EQ(stats().traces, 0u) << "by now the signature has a plan and replays";
  EXPECT_EQ(f.signatures(), 1u);
  EXPECT_EQ(third, test::with_backend("interpreter", [&] { return (d * c - 0.75).to_vector<float>(); }));
  EXPECT_EQ(first, test::with_backend("interpreter", [&] { return (a * c - 0.75).to_vector<float>(); }));
  EXPECT_EQ(second, test::with_backend("interpreter", [&] { return (b * c - 0.75).to_vector<float>(); }));
}

TEST(Compile, TracedInputsAreArgumentsCapturesAndWhatTheTraceAssigned) {
  // What Python's in-place operators assign (so a replay repeats it) rather than rebind.
  Tensor w = full({3}, 1.0f).eval();
  Tensor outside = w;
  EXPECT_FALSE(detail::traced_input(outside)) << "no trace runs";
  bool arg = false, captured = false, built = true, assigned = false;
  auto f = compile([&](const Tensor& x) {
    arg = detail::traced_input(x);
    captured = detail::traced_input(w);
    Tensor h = x * 2.0f;
    built = detail::traced_input(h);
    w.assign(w * 0.5f);
    assigned = detail::traced_input(w);  // its node is new, its variable the captured one
    return h;
  });
  f(full({3}, 2.0f).eval());
  EXPECT_TRUE(arg);
  EXPECT_TRUE(captured);
  EXPECT_FALSE(built);
  EXPECT_TRUE(assigned);
}
