// Every error path of the frontend: the right ErrorCode, a message naming the op and the shapes
// (or dtypes) involved, raised when the op is built, and no effect on any existing tensor.
#include "util.h"

#include <functional>

namespace ft {
namespace {

// Tensors that exist before each error: realized, lazy, a view, and a copy of a handle.
struct World {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor lazy = a * 2.0f + 1.0f;
  Tensor view = a.T();
  Tensor ints = tensor(std::vector<int32_t>{1, 2, 3}, {3});
  Tensor flags = tensor(std::vector<bool>{true, false, true}, {3});
  Tensor copy = lazy;

  void expect_intact(const std::string& what) const {
    EXPECT_EQ(a.shape(), (Shape{2, 3})) << what;
    EXPECT_EQ(vals(a), (std::vector<double>{1, 2, 3, 4, 5, 6})) << what;
    EXPECT_EQ(vals(lazy), (std::vector<double>{3, 5, 7, 9, 11, 13})) << what;
    EXPECT_EQ(vals(copy), (std::vector<double>{3, 5, 7, 9, 11, 13})) << what;
    EXPECT_EQ(vals(view), (std::vector<double>{1, 4, 2, 5, 3, 6})) << what;
    EXPECT_EQ(ints.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3})) << what;
    EXPECT_EQ(flags.dtype(), b8) << what;
    EXPECT_EQ(flags.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 1})) << what;
  }
};

struct Case {
  const char* what;
  std::function<void(World&)> run;
  ErrorCode code;
  std::vector<std::string> parts;  // substrings the message must contain
};

const int64_t kHuge = int64_t{1} << 40;

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      // shapes
      {"add of mismatched shapes",
       [](World& w) { w.view + w.ints; },
       ErrorCode::ShapeMismatch,
       {"add", "(3, 2)", "(3,)"}},
      {"scalar-first op",
       [](World& w) { 2.0 - w.view + w.ints; },
       ErrorCode::ShapeMismatch,
       {"add", "(3, 2)", "(3,)"}},
      {"compound assignment",
       [](World& w) { w.lazy += zeros({4}); },
       ErrorCode::ShapeMismatch,
       {"add", "(2, 3)", "(4,)"}},
      {"comparison",
       [](World& w) { (void)(w.a < w.view); },
       ErrorCode::ShapeMismatch,
       {"lt", "(2, 3)", "(3, 2)"}},
      {"where",
       [](World& w) { where(w.flags, w.view, w.ints); },
       ErrorCode::ShapeMismatch,
       {"where", "(3,)", "(3, 2)"}},
      {"clamp with tensor bounds",
       [](World& w) { clamp(w.a, w.view, w.a); },
       ErrorCode::ShapeMismatch,
       {"maximum", "(2, 3)", "(3, 2)"}},
      {"matmul inner dims",
       [](World& w) { matmul(w.a, w.a); },
       ErrorCode::ShapeMismatch,
       {"matmul", "(2, 3)"}},
      {"matmul batch dims",
       [](World&) {
         matmul(zeros({2, 2, 3}), zeros({3, 3, 1}));
       },
       ErrorCode::ShapeMismatch,
       {"matmul", "(2, 2, 3)", "(3, 3, 1)"}},
      {"matmul of 0-d",
       [](World& w) { matmul(w.a, ones({})); },
       ErrorCode::InvalidArgument,
       {"matmul", "()"}},
      {"cat shapes",
       [](World& w) {
         cat({w.a, w.view}, 0);
       },
       ErrorCode::ShapeMismatch,
       {"cat", "(2, 3)", "(3, 2)"}},
      {"cat ranks",
       [](World& w) {
         cat({w.a, w.ints}, 0);
       },
       ErrorCode::ShapeMismatch,
       {"cat", "(2, 3)", "(3,)"}},
      {"cat of nothing", [](World&) { cat({}, 0); }, ErrorCode::InvalidArgument, {"cat"}},
      {"cat of 0-d",
       [](World&) {
         cat({ones({}), ones({})});
       },
       ErrorCode::InvalidArgument,
       {"cat"}},
      {"tensor() value count",
       [](World&) {
         tensor(std::vector<float>{1, 2, 3}, {2, 2});
       },
       ErrorCode::ShapeMismatch,
       {"tensor", "(2, 2)"}},
      {"cross_entropy targets",
       [](World& w) { cross_entropy(w.a, w.ints.cast(i64)); },
       ErrorCode::ShapeMismatch,
       {"cross_entropy", "(2, 3)", "(3,)"}},
      // axes
      {"sum axis", [](World& w) { sum(w.a, {2}); }, ErrorCode::InvalidArgument, {"sum", "2", "(2, 3)"}},
      {"max negative axis",
       [](World& w) { w.a.max({-3}); },
       ErrorCode::InvalidArgument,
       {"max", "-3", "(2, 3)"}},
      {"min repeated axis",
       [](World& w) {
         min(w.a, {1, -1});
       },
       ErrorCode::InvalidArgument,
       {"min", "(2, 3)"}},
      {"mean axis",
       [](World& w) { mean(w.lazy, {5}, true); },
       ErrorCode::InvalidArgument,
       {"mean", "5", "(2, 3)"}},
      {"sum axis of 0-d", [](World&) { sum(ones({}), {0}); }, ErrorCode::InvalidArgument, {"sum", "()"}},
      {"softmax axis",
       [](World& w) { softmax(w.a, 2); },
       ErrorCode::InvalidArgument,
       {"softmax", "2", "(2, 3)"}},
      {"log_softmax axis",
       [](World& w) { log_softmax(w.a, -3); },
       ErrorCode::InvalidArgument,
       {"log_softmax", "(2, 3)"}},
      {"softmax of 0-d", [](World&) { softmax(ones({})); }, ErrorCode::InvalidArgument, {"softmax"}},
      {"transpose axis",
       [](World& w) { w.a.transpose(0, 2); },
       ErrorCode::InvalidArgument,
       {"transpose", "2", "(2, 3)"}},
      {"T of 1-D", [](World& w) { w.ints.T(); }, ErrorCode::InvalidArgument, {"T", "(3,)"}},
      {"cat dim",
       [](World& w) {
         cat({w.a, w.a}, 2);
       },
       ErrorCode::InvalidArgument,
       {"cat", "2", "(2, 3)"}},
      {"slice dim",
       [](World& w) { w.a.slice(2, 0, 1); },
       ErrorCode::InvalidArgument,
       {"slice", "2", "(2, 3)"}},
      // permutations
      {"permute repeat",
       [](World& w) {
         w.a.permute({0, 0});
       },
       ErrorCode::InvalidArgument,
       {"permute", "[0, 0]", "(2, 3)"}},
      {"permute length",
       [](World& w) {
         w.a.permute({0, 1, 2});
       },
       ErrorCode::InvalidArgument,
       {"permute", "(2, 3)"}},
      {"permute range",
       [](World& w) {
         w.a.permute({0, 5});
       },
       ErrorCode::InvalidArgument,
       {"permute", "5", "(2, 3)"}},
      // reshape, expand, slice
      {"reshape size",
       [](World& w) {
         w.a.reshape({4, 2});
       },
       ErrorCode::ShapeMismatch,
       {"reshape", "(2, 3)", "(4, 2)"}},
      {"reshape -1 size",
       [](World& w) {
         w.a.reshape({4, -1});
       },
       ErrorCode::ShapeMismatch,
       {"reshape", "(2, 3)", "(4, -1)"}},
      {"reshape two -1",
       [](World& w) {
         w.a.reshape({-1, -1});
       },
       ErrorCode::InvalidArgument,
       {"reshape", "(-1, -1)", "(2, 3)"}},
      {"reshape negative",
       [](World& w) {
         w.a.reshape({-2, -3});
       },
       ErrorCode::InvalidArgument,
       {"reshape", "(-2, -3)", "(2, 3)"}},
      {"expand",
       [](World& w) {
         w.a.expand({4, 3});
       },
       ErrorCode::ShapeMismatch,
       {"expand", "(2, 3)", "(4, 3)"}},
      {"expand fewer dims",
       [](World& w) { w.a.expand({3}); },
       ErrorCode::ShapeMismatch,
       {"expand", "(2, 3)", "(3,)"}},
      {"slice stop",
       [](World& w) { w.a.slice(1, 0, 4); },
       ErrorCode::InvalidArgument,
       {"slice", "0:4", "(2, 3)"}},
      {"slice start", [](World& w) { w.a.slice(0, -3, 1); }, ErrorCode::InvalidArgument, {"slice", "(2, 3)"}},
      {"slice step 0",
       [](World& w) { w.a.slice(1, 0, 3, 0); },
       ErrorCode::InvalidArgument,
       {"slice", "step", "(2, 3)"}},
      {"slice negative step",
       [](World& w) { w.a.slice(1, 0, 3, -1); },
       ErrorCode::InvalidArgument,
       {"slice", "step", "(2, 3)"}},
      // dtypes
      {"b8 arithmetic", [](World& w) { w.flags + w.flags; }, ErrorCode::DTypeMismatch, {"add", "b8"}},
      {"b8 negation", [](World& w) { -w.flags; }, ErrorCode::DTypeMismatch, {"neg", "b8"}},
      {"b8 in place", [](World& w) { w.flags *= w.flags; }, ErrorCode::DTypeMismatch, {"mul", "b8"}},
      {"mean of ints", [](World& w) { mean(w.ints); }, ErrorCode::DTypeMismatch, {"mean", "i32"}},
      {"mean of b8", [](World& w) { w.flags.mean(); }, ErrorCode::DTypeMismatch, {"mean", "b8"}},
      {"matmul of b8",
       [](World& w) { matmul(w.flags, w.flags); },
       ErrorCode::DTypeMismatch,
       {"matmul", "b8"}},
      {"rand of ints", [](World&) { rand({2}, i32); }, ErrorCode::DTypeMismatch, {"rand", "i32"}},
      {"randn of b8", [](World&) { randn({2}, b8); }, ErrorCode::DTypeMismatch, {"randn", "b8"}},
      {"arange of b8", [](World&) { arange(3, b8); }, ErrorCode::DTypeMismatch, {"arange", "b8"}},
      {"where condition",
       [](World& w) { where(w.ints, w.ints, w.ints); },
       ErrorCode::DTypeMismatch,
       {"where", "i32"}},
      {"cross_entropy targets dtype",
       [](World& w) { cross_entropy(w.a, w.flags.reshape({3}).slice(0, 0, 2)); },
       ErrorCode::DTypeMismatch,
       {"cross_entropy", "b8"}},
      // sizes
      {"zeros overflow",
       [](World&) {
         zeros({kHuge, kHuge});
       },
       ErrorCode::InvalidArgument,
       {"zeros", "(1099511627776, 1099511627776)"}},
      {"ones overflow",
       [](World&) {
         ones({kHuge, kHuge, 2});
       },
       ErrorCode::InvalidArgument,
       {"ones", "1099511627776"}},
      {"full overflow",
       [](World&) {
         full({kHuge, kHuge}, 1.0);
       },
       ErrorCode::InvalidArgument,
       {"full"}},
      {"rand overflow",
       [](World&) {
         rand({kHuge, kHuge});
       },
       ErrorCode::InvalidArgument,
       {"rand"}},
      {"tensor overflow",
       [](World&) {
         tensor(std::vector<float>{}, {kHuge, kHuge});
       },
       ErrorCode::InvalidArgument,
       {"tensor"}},
      {"reshape overflow",
       [](World& w) {
         w.a.reshape({kHuge, kHuge});
       },
       ErrorCode::InvalidArgument,
       {"reshape"}},
      {"expand overflow",
       [](World&) {
         ones({1, 1}).expand({kHuge, kHuge});
       },
       ErrorCode::InvalidArgument,
       {"expand"}},
      {"negative dim",
       [](World&) {
         zeros({2, -1});
       },
       ErrorCode::InvalidArgument,
       {"zeros", "(2, -1)"}},
      {"arange negative", [](World&) { arange(-4); }, ErrorCode::InvalidArgument, {"arange", "-4"}},
      // undefined handles
      {"undefined operand",
       [](World& w) { w.a + Tensor(); },
       ErrorCode::InvalidArgument,
       {"add", "undefined"}},
      {"undefined unary", [](World&) { exp(Tensor()); }, ErrorCode::InvalidArgument, {"exp", "undefined"}},
      {"undefined shape", [](World&) { Tensor().shape(); }, ErrorCode::InvalidArgument, {"undefined"}},
      {"undefined eval", [](World&) { Tensor().eval(); }, ErrorCode::InvalidArgument, {"eval", "undefined"}},
      {"undefined eval list",
       [](World& w) {
         eval({w.lazy, Tensor()});
       },
       ErrorCode::InvalidArgument,
       {"eval", "undefined"}},
      {"undefined to_vector",
       [](World&) { Tensor().to_vector<float>(); },
       ErrorCode::InvalidArgument,
       {"undefined"}},
      {"undefined reshape",
       [](World&) { Tensor().reshape({1}); },
       ErrorCode::InvalidArgument,
       {"reshape", "undefined"}},
      {"undefined sum", [](World&) { sum(Tensor()); }, ErrorCode::InvalidArgument, {"sum", "undefined"}},
      {"undefined matmul",
       [](World& w) { matmul(w.a, Tensor()); },
       ErrorCode::InvalidArgument,
       {"matmul", "undefined"}},
      {"undefined cat",
       [](World& w) {
         cat({w.a, Tensor()});
       },
       ErrorCode::InvalidArgument,
       {"cat", "undefined"}},
      {"undefined assign target",
       [](World& w) { Tensor().assign(w.a); },
       ErrorCode::InvalidArgument,
       {"assign", "undefined"}},
      {"undefined assign value",
       [](World& w) { w.a.assign(Tensor()); },
       ErrorCode::InvalidArgument,
       {"assign", "undefined"}},
      {"undefined print_graph",
       [](World&) { print_graph(Tensor()); },
       ErrorCode::InvalidArgument,
       {"print_graph", "undefined"}},
      {"undefined to_dot",
       [](World&) { to_dot_string({Tensor()}); },
       ErrorCode::InvalidArgument,
       {"to_dot", "undefined"}},
      // assign
      {"assign shape",
       [](World& w) { w.lazy.assign(w.view); },
       ErrorCode::ShapeMismatch,
       {"assign", "(2, 3)", "(3, 2)"}},
      {"assign dtype",
       [](World& w) { w.ints.assign(w.ints.cast(i64)); },
       ErrorCode::DTypeMismatch,
       {"assign", "i32", "i64"}},
      {"assign broadcastable",
       [](World& w) { w.a.assign(ones({3})); },
       ErrorCode::ShapeMismatch,
       {"assign", "(2, 3)", "(3,)"}},
      // item
      {"item of many",
       [](World& w) { w.ints.item<int32_t>(); },
       ErrorCode::InvalidArgument,
       {"item", "(3,)"}},
      {"item of none",
       [](World&) { zeros({0}).item<float>(); },
       ErrorCode::InvalidArgument,
       {"item", "(0,)"}},
      // devices (only without CUDA; see Errors.CudaUnavailable)
      {"zeros on cuda", [](World&) { zeros({2}, f32, Device::cuda()); }, ErrorCode::DeviceError, {"cuda:0"}},
      {"tensor on cuda",
       [](World&) { tensor(std::vector<float>{1}, {1}, Device::cuda(1)); },
       ErrorCode::DeviceError,
       {"cuda:1"}},
      {"arange on cuda",
       [](World&) { arange(3, f32, Device::cuda()); },
       ErrorCode::DeviceError,
       {"arange", "cuda"}},
      {"rand on cuda",
       [](World&) { rand({3}, f32, Device::cuda()); },
       ErrorCode::DeviceError,
       {"rand", "cuda"}},
      {"full on cuda",
       [](World&) { full({3}, 1.0, f64, Device::cuda()); },
       ErrorCode::DeviceError,
       {"full", "cuda"}},
      {"to cuda", [](World& w) { w.a.to(Device::cuda()); }, ErrorCode::DeviceError, {"cuda"}},
  };
  return all;
}

TEST(Errors, EveryPathReportsAndLeavesTensorsIntact) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.what);
    if (c.code == ErrorCode::DeviceError && cuda_available()) continue;
    World w;
    Caught e = catch_error([&] { c.run(w); });
    ASSERT_TRUE(e.thrown) << c.what << ": no error";
    EXPECT_EQ(e.code, c.code) << c.what << ": got " << error_code_name(e.code) << ": " << e.msg;
    for (const std::string& p : c.parts)
      EXPECT_NE(e.msg.find(p), std::string::npos) << c.what << ": '" << p << "' not in: " << e.msg;
    w.expect_intact(c.what);
  }
}

TEST(Errors, ReportedWhenBuiltNotAtEval) {
  // Nothing is evaluated by a failing build: a lazy tensor stays lazy.
  World w;
  EXPECT_FALSE(w.lazy.is_evaluated());
  catch_error([&] { w.lazy + w.ints; });
  catch_error([&] { w.lazy.reshape({7}); });
  catch_error([&] { w.lazy.assign(w.view); });
  EXPECT_FALSE(w.lazy.is_evaluated());
  w.expect_intact("after errors");
}

TEST(Errors, CudaUnavailable) {
  EXPECT_NO_THROW(cuda_available());
  if (cuda_available()) GTEST_SKIP() << "CUDA is available: DeviceError paths need a machine without it";
  EXPECT_FALSE(cuda_available());
  EXPECT_TRUE(Device::cuda(3).is_cuda());
  EXPECT_EQ(Device::cuda(3).str(), "cuda:3");
  EXPECT_FALSE(Device::cpu().is_cuda());
  EXPECT_EQ(Device::cpu().str(), "cpu");
  Tensor a = ones({2});
  EXPECT_EQ(a.to(Device::cpu()).node(), a.node()) << "to() its own device is the same value";
}

TEST(Errors, ToDotUnwritablePath) {
  Tensor a = ones({2}) + 1.0;
  expect_error([&] { to_dot({a}, "/nonexistent-dir/x/graph.dot"); }, ErrorCode::InvalidArgument,
               {"to_dot", "/nonexistent-dir"}, "to_dot");
  EXPECT_EQ(vals(a), (std::vector<double>{2, 2}));
}

}  // namespace
}  // namespace ft
