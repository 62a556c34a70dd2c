// Evaluation: deep chains (no recursion when evaluating or destroying a million nodes),
// intermediates freed as soon as consumed, eval of several outputs, no work for evaluated
// tensors, host conversions, printing of values and graphs, Graphviz output, and 0-d / empty
// tensors through every kind of op.
#include "ir/node.h"
#include "util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CGRAD_TEST_ASAN 1
#endif
#endif

namespace ft {
namespace {

TEST(Eval, MillionNodeChain) {
  ScopedEnv env;
  env->max_pending_depth = 0;    // no auto-realize: one chain of a million nodes
  env->backend = "interpreter";  // node by node (a fusing backend would build one huge kernel)
  const Tensor step = tensor(std::vector<float>{1, 1}, {2});
  Tensor x = tensor(std::vector<float>{1, 2}, {2});
  for (int i = 0; i < 1000000; ++i) x = x + step;
  EXPECT_EQ(x.node()->depth, 1000000);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1000001, 1000002}));
  EXPECT_TRUE(x.is_evaluated());
  EXPECT_TRUE(x.node()->inputs.empty()) << "realizing drops the graph above";

  // Destroying an unevaluated chain of a million nodes must not recurse either.
  Tensor y = tensor(std::vector<float>{0, 0}, {2});
  for (int i = 0; i < 1000000; ++i) y = -y;
  EXPECT_EQ(y.node()->depth, 1000000);
  y = Tensor();
  EXPECT_FALSE(y.defined());
}

// Peak resident memory since the last reset (Linux), or -1.

TEST(Eval, IntermediatesAreFreed) {
  // 8 steps of 2 ops on a 4 MB buffer: 16 intermediates, 64 MB if all were kept until the end
  // of the realize. Freed after their last use, at most a few are alive at a time. The input is
  // a real buffer (not a constant the passes could fold away). Runs on the interpreter, where
  // every op is its own kernel with its own output buffer.
  std::vector<float> ones(1 << 20, 1.0f);
  Tensor x = tensor(ones, {1 << 20});
  reset_stats();
  const uint64_t base = stats().bytes_in_use;
  Tensor y = x;
  for (int i = 0; i < 8; ++i) y = y * 0.5f + 1.0f;
  y.eval();
  const uint64_t peak = stats().peak_bytes_in_use - base;
  EXPECT_LE(peak, 3u * (4u << 20)) << "peak live bytes " << peak;
  auto v = y.to_vector<float>();
  EXPECT_EQ(v.front(), v.back());
  EXPECT_EQ(v.front(), 2.0f - 1.0f / 256) << "x -> x / 2 + 1 eight times from 1";
}

TEST(Eval, SeveralOutputsAndNoWorkTwice) {
  Tensor x = tensor(std::vector<float>{1, 2, 3}, {3});
  Tensor shared = exp(x);
  Tensor a = shared + 1.0, b = shared * 2.0;
  reset_stats();
  eval({a, b});
  EXPECT_TRUE(a.is_evaluated());
  EXPECT_TRUE(b.is_evaluated());
  EXPECT_FALSE(shared.is_evaluated()) << "only the requested outputs are kept";
  EXPECT_GT(stats().kernels_launched, 0u);
  const std::vector<float> va = a.to_vector<float>(), vb = b.to_vector<float>();
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_FLOAT_EQ(va[k], std::exp(static_cast<float>(k + 1)) + 1);
    EXPECT_FLOAT_EQ(vb[k], std::exp(static_cast<float>(k + 1)) * 2);
  }
  // Evaluating evaluated tensors again launches nothing.
  reset_stats();
  a.eval();
  b.eval();
  eval({a, b, x});
  a.to_vector<float>();
  b.sum().eval();  // new work: one reduction over b, nothing for b itself
  EXPECT_LE(stats().kernels_launched, 1u);
  reset_stats();
  eval({a, b});
  EXPECT_EQ(stats().kernels_launched, 0u);
}

TEST(Eval, EvaluatedTensorsLaunchNoKernels) {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = sin(a) * a;
  b.eval();
  reset_stats();
  b.eval();
  eval({b, a});
  EXPECT_EQ(b.to_vector<float>().size(), 6u);
  EXPECT_EQ(stats().kernels_launched, 0u);
  EXPECT_EQ(stats().bytes_allocated, 0u);
  // eval() returns the same handle.
  Tensor& r = b.eval();
  EXPECT_EQ(&r, &b);
  const Tensor& cb = b;
  EXPECT_EQ(&cb.eval(), &b);
  // A view of an evaluated tensor needs no kernel either.
  reset_stats();
  Tensor v = b.T().slice(0, 1, 3);
  v.eval();
  EXPECT_EQ(stats().kernels_launched, 0u);
}

TEST(Eval, HostConversions) {
  Tensor f = tensor(std::vector<double>{1.5, -2.5, 1e20, std::nan(""), -1e20, 3e9}, {2, 3});
  const auto fd = f.to_vector<double>();
  EXPECT_EQ(fd[0], 1.5);
  EXPECT_EQ(fd[2], 1e20);
  EXPECT_TRUE(std::isnan(fd[3]));
  EXPECT_TRUE(std::isnan(f.to_vector<float>()[3]));
  EXPECT_EQ(f.to_vector<float>()[1], -2.5f);
  EXPECT_EQ(f.to_vector<int32_t>(), (std::vector<int32_t>{1, -2, INT32_MAX, 0, INT32_MIN, INT32_MAX}))
      << "saturating, NaN -> 0";
  EXPECT_EQ(f.to_vector<int64_t>(), (std::vector<int64_t>{1, -2, INT64_MAX, 0, INT64_MIN, 3000000000}));
  EXPECT_EQ(f.T().to_vector<double>()[3], -1e20) << "row-major order of the logical shape";
  EXPECT_EQ(f.T().to_vector<double>()[4], 1e20);
  Tensor i = tensor(std::vector<int64_t>{-1, 0, (int64_t{1} << 40) + 3}, {3});
  EXPECT_EQ(i.to_vector<int32_t>(), (std::vector<int32_t>{-1, 0, 3})) << "wraps like a cast";
  EXPECT_EQ(i.to_vector<double>(), (std::vector<double>{-1, 0, 1099511627779.0}));
  Tensor b = tensor(std::vector<bool>{true, false}, {2});
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{1, 0}));
  EXPECT_EQ(b.to_vector<int32_t>(), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(tensor(std::vector<float>{2.5f}, {}).item<double>(), 2.5);
  EXPECT_EQ(tensor(std::vector<float>{2.5f}, {1, 1, 1}).item<int64_t>(), 2);
  EXPECT_TRUE(tensor(std::vector<float>{0.5f}, {}).item<bool>());
  EXPECT_FALSE(b.slice(0, 1, 2).item<bool>());
  EXPECT_EQ((ones({2, 2}) * 3.0).sum().item<float>(), 12.0f) << "item evaluates";
  EXPECT_TRUE(zeros({0, 4}).to_vector<float>().empty());
  // Queries never evaluate.
  Tensor lazy = exp(ones({2, 3}, f64));
  EXPECT_EQ(lazy.shape(), (Shape{2, 3}));
  EXPECT_EQ(lazy.dtype(), f64);
  EXPECT_EQ(lazy.device(), Device::cpu());
  EXPECT_EQ(lazy.numel(), 6);
  EXPECT_EQ(lazy.ndim(), 2);
  EXPECT_FALSE(lazy.is_evaluated());
  EXPECT_TRUE(lazy.defined());
  EXPECT_FALSE(Tensor().defined());
}

std::string str(const Tensor& t) {
  std::ostringstream s;
  s << t;
  return s.str();
}

TEST(Print, Values) {
  EXPECT_EQ(str(tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3})),
            "tensor([[1, 2, 3], [4, 5, 6]], shape=(2, 3), dtype=f32)");
  EXPECT_EQ(str(tensor(std::vector<double>{2.5}, {})), "tensor(2.5, shape=(), dtype=f64)");
  EXPECT_EQ(str(tensor(std::vector<int32_t>{-1, 0, 7}, {3})), "tensor([-1, 0, 7], shape=(3,), dtype=i32)");
  EXPECT_EQ(str(tensor(std::vector<int64_t>{-9000000000}, {1})),
            "tensor([-9000000000], shape=(1,), dtype=i64)");
  EXPECT_EQ(str(tensor(std::vector<bool>{true, false}, {2})), "tensor([1, 0], shape=(2,), dtype=b8)");
  EXPECT_EQ(str(zeros({0})), "tensor([], shape=(0,), dtype=f32)");
  EXPECT_EQ(str(arange(8, i32).reshape({2, 2, 2})),
            "tensor([[[0, 1], [2, 3]], [[4, 5], [6, 7]]], shape=(2, 2, 2), dtype=i32)");
  EXPECT_EQ(str(tensor(std::vector<float>{0.1f, -INFINITY, NAN}, {3})),
            "tensor([0.1, -inf, nan], shape=(3,), dtype=f32)");
  EXPECT_EQ(str(arange(2000, i64)), "tensor([0, 1, 2, ..., 1999], shape=(2000,), dtype=i64)");
  EXPECT_EQ(str(arange(6, f32).reshape({2, 3}).T()),
            "tensor([[0, 3], [1, 4], [2, 5]], shape=(3, 2), dtype=f32)");
  EXPECT_EQ(str(Tensor()), "tensor(undefined)");
  Tensor lazy = ones({2}) * 2.0;
  EXPECT_EQ(str(lazy), "tensor([2, 2], shape=(2,), dtype=f32)");
}

TEST(Print, GraphGolden) {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor(std::vector<float>{1, 0, -1}, {3});
  Tensor c = relu(a * b + 0.5).sum({1});
  std::ostringstream s;
  print_graph(c, s);
  EXPECT_EQ(s.str(),
            "%0 = buffer() : f32(2, 3) [realized]\n"
            "%1 = buffer() : f32(3,) [realized]\n"
            "%2 = reshape(%1) : f32(1, 3)\n"
            "%3 = expand(%2) : f32(2, 3)\n"
            "%4 = mul(%0, %3) : f32(2, 3)\n"
            "%5 = full() {value=0.5} : f32(2, 3)\n"
            "%6 = add(%4, %5) : f32(2, 3)\n"
            "%7 = relu(%6) : f32(2, 3)\n"
            "%8 = sum(%7) {axes=[1]} : f32(2, 1)\n"
            "%9 = reshape(%8) : f32(2,)\n");
  c.eval();
  std::ostringstream after;
  print_graph(c, after);
  EXPECT_EQ(after.str(), "%0 = reshape() : f32(2,) [realized]\n");
}

TEST(Print, DotIsValidGraphviz) {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4}, {2, 2});
  Tensor b = softmax(matmul(a, a.T()) * 0.5, -1);
  Tensor c = cat({a, b}, 0).sum({0});
  const std::string text = to_dot_string({b, c});
  EXPECT_EQ(text.rfind("digraph", 0), 0u);
  EXPECT_NE(text.find("->"), std::string::npos);
  EXPECT_NE(text.find("matmul"), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '{'), std::count(text.begin(), text.end(), '}'));
  EXPECT_EQ(text, to_dot_string({b, c})) << "deterministic";

  const std::string path = ::testing::TempDir() + "cgrad_test_graph.dot";
  to_dot({b, c}, path);
  std::ifstream f(path);
  std::stringstream content;
  content << f.rdbuf();
  EXPECT_EQ(content.str(), text);
  if (std::system("command -v dot >/dev/null 2>&1") != 0) {
    std::remove(path.c_str());
    GTEST_SKIP() << "graphviz 'dot' is not on PATH";
  }
  const std::string cmd = "dot -Tsvg '" + path + "' -o /dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  // Evaluated graphs and single nodes render too.
  c.eval();
  to_dot({c, a}, path);
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::remove(path.c_str());
}

// 0-d and empty tensors through every kind of op.
TEST(Eval, ZeroDimAndEmptyEverywhere) {
  Tensor s = tensor(std::vector<float>{-2}, {});
  EXPECT_EQ((exp(s) * 2.0).shape(), Shape{});
  EXPECT_FLOAT_EQ((abs(s) + s * s).item<float>(), 6.0f);
  EXPECT_EQ((s < 0.0).item<bool>(), true);
  EXPECT_EQ(where(s < 0.0, s, 1.0).item<float>(), -2.0f);
  EXPECT_EQ(s.cast(i32).item<int32_t>(), -2);
  EXPECT_EQ(sum(s).item<float>(), -2.0f);
  EXPECT_EQ(max(s, {}, true).shape(), Shape{});
  EXPECT_EQ(s.reshape({1, 1}).shape(), (Shape{1, 1}));
  EXPECT_EQ(s.expand({3}).to_vector<float>(), (std::vector<float>{-2, -2, -2}));
  EXPECT_EQ(s.permute({}).item<float>(), -2.0f);
  EXPECT_EQ(cat({s.reshape({1}), s.reshape({1})}).to_vector<float>(), (std::vector<float>{-2, -2}));
  EXPECT_EQ(matmul(s.reshape({1}), s.reshape({1})).item<float>(), 4.0f);
  EXPECT_EQ(clamp(s, -1, 1).item<float>(), -1.0f);

  for (const Shape& shape : {Shape{0}, Shape{2, 0}, Shape{0, 3}}) {
    SCOPED_TRACE(shape_str(shape));
    Tensor e = zeros(shape);
    EXPECT_EQ(exp(e).shape(), shape);
    EXPECT_EQ((e + e * 2.0).shape(), shape);
    EXPECT_EQ((e == e).shape(), shape);
    EXPECT_EQ(where(e > 0.0, e, 1.0).shape(), shape);
    EXPECT_EQ(e.cast(i64).to_vector<int64_t>().size(), 0u);
    EXPECT_EQ(sum(e).item<float>(), 0.0f);
    EXPECT_EQ(sum(e, {0}).numel(), shape.size() > 1 ? shape[1] : 1);
    EXPECT_EQ(sum(e, {0}).to_vector<float>(),
              std::vector<float>(static_cast<std::size_t>(shape.size() > 1 ? shape[1] : 1), 0.0f));
    EXPECT_EQ(e.reshape({-1}).shape(), Shape{0});
    EXPECT_EQ(cat({e, e}, 0).numel(), 0);
    EXPECT_EQ((e + ones({1})).shape(), shape) << "broadcasting against an empty dim";
    EXPECT_EQ(e.slice(0, 0, 0).numel(), 0);
    EXPECT_EQ(softmax(e, -1).shape(), shape);
  }
  EXPECT_EQ(matmul(zeros({0}), zeros({0})).item<float>(), 0.0f);
  EXPECT_EQ(matmul(zeros({2, 0}), zeros({0, 3})).to_vector<float>(), std::vector<float>(6, 0.0f));
  EXPECT_EQ(matmul(zeros({0, 2}), zeros({2, 3})).shape(), (Shape{0, 3}));
  EXPECT_EQ(zeros({2, 0}).T().shape(), (Shape{0, 2}));
  EXPECT_EQ(zeros({0}).expand({4, 0}).shape(), (Shape{4, 0}));
  EXPECT_EQ(max(zeros({2, 0}), {0}).shape(), (Shape{0}));
}

// clone: the value bit for bit (-0.0, a NaN's payload, integers past 2^53), in memory of its own,
// row-major, for every kind of value (an imported buffer, a transposed view, a lazy result, an
// empty tensor), and gradients through it.
TEST(Eval, CloneCopiesTheBitsIntoMemoryOfItsOwn) {
  std::vector<float> data{-0.0f, std::numeric_limits<float>::quiet_NaN(), 1.5f, -2.0f, 3.0f, 4.0f};
  std::vector<float> outside = data;
  Tensor x = from_blob(outside.data(), {2, 3}, {3, 1}, f32, Device::cpu(), [] {});
  Tensor c = x.clone();
  EXPECT_TRUE(c.is_evaluated());
  EXPECT_NE(memory_view(c).data, memory_view(x).data);
  outside[2] = 99.0f;  // a write to the imported memory does not reach the copy
  std::vector<float> got = c.to_vector<float>();
  EXPECT_TRUE(std::signbit(got[0]) && got[0] == 0.0f);
  EXPECT_TRUE(std::isnan(got[1]));
  EXPECT_EQ(got[2], 1.5f);
  std::vector<int64_t> big{(int64_t{1} << 60) + 1, -7};
  Tensor i = from_blob(big.data(), {2}, {1}, i64, Device::cpu(), [] {});
  Tensor ic = i.clone();
  big[0] = 0;
  EXPECT_EQ(ic.to_vector<int64_t>(), (std::vector<int64_t>{(int64_t{1} << 60) + 1, -7}));
  Tensor t = c.T().clone();  // a transposed view comes out row-major
  EXPECT_EQ(memory_view(t).strides, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(t.to_vector<float>()[1], -2.0f);
  EXPECT_EQ((exp(zeros({3})) * 2.0f).clone().to_vector<float>(), std::vector<float>(3, 2.0f));
  EXPECT_EQ(zeros({0, 4}).clone().shape(), (Shape{0, 4}));
  Tensor w = tensor(std::vector<float>{1, 2, 3}, {3});
  w.requires_grad(true);
  Tensor g = grad(sum(w.clone() * w), {w})[0];
  EXPECT_EQ(g.to_vector<float>(), (std::vector<float>{2, 4, 6}));
}

}  // namespace
}  // namespace ft
